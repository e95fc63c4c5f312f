//! `toolc server`: a language server (LSP 3.17) over standard input and
//! output, so an editor shows toolc's findings as the user types.
//!
//! One loop reads the client's messages ([`transport`]) and answers each
//! in turn. Edits only mark documents; the findings are computed when
//! nothing more is waiting (a burst of changes is checked once), or when
//! the client pulls them. A check that fails, or panics, becomes one
//! finding on the document and a line in the log; the server goes on.
//!
//! What it offers: diagnostics pulled (`textDocument/diagnostic`) or
//! pushed, a quick fix per fixable finding, `source.fixAll.toolc` (safe
//! fixes), "ignore this rule in this file" as a `toolc.toml` override,
//! hover (what a model sees of a tool; a finding's rule), document
//! symbols (tools and parameters), go to definition (an AgentStack
//! tool's function, a Nachos tool's class, an agentcli program, a NORA
//! entrypoint) and completion of keys and enumerated values from the
//! format's schema. Settings come from `initializationOptions` and
//! `workspace/didChangeConfiguration` ([`Settings`]).

mod actions;
mod check;
mod completion;
mod documents;
mod features;
mod position;
mod transport;

use std::collections::{BTreeSet, HashMap};
use std::io::Write;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};

use crate::lint::LintOptions;
use crate::project::Resolver;
use crate::project::config::CommandLine;
use documents::{Document, Documents, path_of, uri_of};
use position::Encoding;
use transport::{Incoming, Outgoing};

pub use transport::MAX_MESSAGE;

/// JSON-RPC and LSP error codes the server answers with.
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;
const INTERNAL_ERROR: i64 = -32603;
const SERVER_NOT_INITIALIZED: i64 = -32002;
const INVALID_REQUEST: i64 = transport::INVALID_REQUEST;

/// The code action kind of fixing every safe finding of a file.
pub const FIX_ALL_KIND: &str = "source.fixAll.toolc";

/// The server's settings, as `initializationOptions` or the `toolc`
/// section of `workspace/didChangeConfiguration` give them (camelCase
/// keys): `configuration` (a `toolc.toml` for every file, as `--config`),
/// `select`, `ignore` (rule names, codes or prefixes, as the command
/// line's) and `targets` (providers, as `--target`). Anything else is
/// ignored; a value that does not parse is reported in the log and the
/// rest still applies.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    pub configuration: Option<PathBuf>,
    pub select: Option<Vec<String>>,
    pub ignore: Vec<String>,
    pub targets: Vec<String>,
}

impl Settings {
    /// Reads the settings from `value` (the object itself, or one with a
    /// `toolc` member).
    fn read(value: &Value) -> Settings {
        let value = value.get("toolc").unwrap_or(value);
        let strings = |key: &str| -> Option<Vec<String>> {
            value.get(key)?.as_array().map(|items| {
                items
                    .iter()
                    .filter_map(|item| item.as_str().map(str::to_string))
                    .collect()
            })
        };
        Settings {
            configuration: value
                .get("configuration")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(PathBuf::from),
            select: strings("select").filter(|s| !s.is_empty()),
            ignore: strings("ignore").unwrap_or_default(),
            targets: strings("targets").unwrap_or_default(),
        }
    }

    /// The command line these settings stand for, and what did not parse.
    fn command_line(&self, root: Option<&Path>) -> (CommandLine, Vec<String>) {
        let mut problems = Vec::new();
        let mut rules = |names: &[String]| -> Vec<&'static crate::diagnostic::Rule> {
            let mut out = Vec::new();
            for name in names {
                match crate::lint::select::Selector::parse(name) {
                    Ok(selector) => out.extend(selector.rules().iter().copied()),
                    Err(e) => problems.push(e),
                }
            }
            out
        };
        let select = self.select.as_deref().map(&mut rules);
        let ignore = rules(&self.ignore);
        let mut targets = Vec::new();
        for name in &self.targets {
            match crate::project::config::parse_target(name) {
                Ok(target) => targets.push(target),
                Err(e) => problems.push(e),
            }
        }
        let config = self.configuration.as_ref().map(|path| match root {
            Some(root) if path.is_relative() => root.join(path),
            _ => path.clone(),
        });
        let command_line = CommandLine {
            config,
            targets,
            select,
            ignore,
            ..CommandLine::default()
        };
        (command_line, problems)
    }
}

/// What the client said it can do.
#[derive(Debug, Clone, Copy, Default)]
struct Client {
    /// It pulls diagnostics (`textDocument/diagnostic`).
    pull: bool,
    related_information: bool,
    /// It can be asked to pull again (`workspace/diagnostic/refresh`).
    refresh: bool,
    /// It resolves a code action's edit lazily (`codeAction/resolve`).
    resolve_edits: bool,
    /// It registers file watchers on request.
    watch_files: bool,
    /// It applies file creations in workspace edits.
    create_files: bool,
}

/// The server's state.
struct Server {
    out: Outgoing,
    encoding: Encoding,
    client: Client,
    initialized: bool,
    shutdown: bool,
    roots: Vec<PathBuf>,
    settings: Settings,
    resolver: Arc<Resolver>,
    lint: LintOptions,
    documents: Documents,
    /// Bumped by every change that may change a finding.
    generation: u64,
    /// The last check of each document, with the generation it saw.
    checked: HashMap<PathBuf, (u64, Arc<Outcome>)>,
    /// Documents whose pushed findings are out of date.
    stale: BTreeSet<PathBuf>,
    /// Files the server pushed findings for (to clear them).
    pushed: BTreeSet<PathBuf>,
    /// The id of the next request the server sends.
    next_id: i64,
}

/// What checking a document gave.
enum Outcome {
    Checked(check::Checked),
    /// Not a manifest, nor code of one, or excluded.
    Nothing,
    /// The check failed or panicked: the message.
    Failed(String),
}

/// Serves the client on standard input and output until it says `exit`
/// or goes away. `Ok(true)`: it shut down in order.
pub fn serve_stdio() -> bool {
    let input = std::io::BufReader::new(std::io::stdin());
    serve(input, std::io::stdout())
}

/// Serves one client on `input`/`output`; `true` when it shut down in
/// order (`shutdown` then `exit`).
pub fn serve(
    input: impl std::io::BufRead + Send + 'static,
    output: impl Write + Send + 'static,
) -> bool {
    let incoming = transport::reader(input);
    let (out, writer) = Outgoing::new(output);
    let resolver = match Resolver::new(CommandLine::default(), crate::lint::RULES.as_slice()) {
        Ok(resolver) => Arc::new(resolver),
        Err(error) => {
            log(&format!("cannot start: {error}"));
            return false;
        }
    };
    let mut server = Server {
        out,
        encoding: Encoding::Utf16,
        client: Client::default(),
        initialized: false,
        shutdown: false,
        roots: Vec::new(),
        settings: Settings::default(),
        resolver,
        lint: LintOptions::default(),
        documents: Documents::default(),
        generation: 0,
        checked: HashMap::new(),
        stale: BTreeSet::new(),
        pushed: BTreeSet::new(),
        next_id: 1,
    };
    let mut orderly = false;
    loop {
        let next = match incoming.try_recv() {
            Ok(next) => next,
            Err(std::sync::mpsc::TryRecvError::Empty) => {
                // Nothing waits: now is the time to push findings.
                server.push_stale();
                match incoming.recv() {
                    Ok(next) => next,
                    Err(_) => break,
                }
            }
            Err(std::sync::mpsc::TryRecvError::Disconnected) => break,
        };
        match next {
            Incoming::Closed => break,
            Incoming::Invalid { code, message } => server.error(Value::Null, code, &message),
            Incoming::Message(message) => {
                if let Some(exit) = server.handle(message) {
                    orderly = exit;
                    break;
                }
            }
        }
    }
    drop(server);
    if let Some(writer) = writer {
        let _ = writer.join();
    }
    orderly
}

/// A line in the server's log (standard error, which editors show),
/// written by a thread of its own: an editor that does not drain standard
/// error loses lines, and the server never waits on it.
fn log(message: &str) {
    static LINES: std::sync::OnceLock<Option<std::sync::mpsc::SyncSender<String>>> =
        std::sync::OnceLock::new();
    let lines = LINES.get_or_init(|| {
        let (send, receive) = std::sync::mpsc::sync_channel::<String>(256);
        std::thread::Builder::new()
            .name("toolc-lsp-log".into())
            .spawn(move || {
                for line in receive {
                    let _ = writeln!(std::io::stderr(), "{line}");
                }
            })
            .ok()
            .map(|_| send)
    });
    if let Some(lines) = lines {
        let _ = lines.try_send(format!(
            "toolc server: {}",
            crate::terminal::one_line(message)
        ));
    }
}

impl Server {
    fn respond(&self, id: Value, result: Value) {
        self.out
            .send(json!({"jsonrpc": "2.0", "id": id, "result": result}));
    }

    fn error(&self, id: Value, code: i64, message: &str) {
        self.out.send(json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {"code": code, "message": message},
        }));
    }

    /// Sends a request to the client (its answer is not waited for).
    fn request(&mut self, method: &str, params: Value) {
        let id = self.next_id;
        self.next_id += 1;
        self.out
            .send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
    }

    /// A message in the client's log as well as the server's.
    fn show_log(&self, message: &str) {
        log(message);
        // Dropped when the client is behind: it is in the server's log.
        let _ = self.out.notify(
            "window/logMessage",
            json!({"type": 2, "message": format!("toolc: {message}")}),
        );
    }

    /// Handles one message; `Some(orderly)` when the server must stop.
    fn handle(&mut self, message: Value) -> Option<bool> {
        let id = message.get("id").cloned();
        let method = message
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_string);
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        let Some(method) = method else {
            // A response to one of the server's requests, or nonsense.
            if id.is_none() || !(message.get("result").is_some() || message.get("error").is_some())
            {
                self.error(
                    id.unwrap_or(Value::Null),
                    INVALID_REQUEST,
                    "a message needs a method",
                );
            }
            return None;
        };
        if let Some(id) = id.filter(|id| !id.is_null()) {
            if !(id.is_string() || id.is_i64() || id.is_u64()) {
                self.error(
                    Value::Null,
                    INVALID_REQUEST,
                    "a request id is a number or a string",
                );
                return None;
            }
            self.handle_request(id, &method, params);
            return None;
        }
        self.handle_notification(&method, params)
    }

    fn handle_request(&mut self, id: Value, method: &str, params: Value) {
        if method == "initialize" {
            if self.initialized {
                self.error(id, INVALID_REQUEST, "initialize was already sent");
            } else {
                let result = self.initialize(&params);
                self.respond(id, result);
            }
            return;
        }
        if !self.initialized {
            self.error(id, SERVER_NOT_INITIALIZED, "the server is not initialized");
            return;
        }
        if self.shutdown {
            self.error(id, INVALID_REQUEST, "the server is shutting down");
            return;
        }
        if method == "shutdown" {
            self.shutdown = true;
            self.respond(id, Value::Null);
            return;
        }
        // A request handler that panics answers with an error; the
        // server goes on.
        let answer = std::panic::catch_unwind(AssertUnwindSafe(|| self.answer(method, &params)));
        match answer {
            Ok(Ok(result)) => self.respond(id, result),
            Ok(Err((code, message))) => self.error(id, code, &message),
            Err(panic) => {
                let message = panic_message(&panic);
                self.show_log(&format!("{method} failed: {message}"));
                self.error(id, INTERNAL_ERROR, &format!("toolc failed: {message}"));
            }
        }
    }

    /// The result of a request, or an error code and message.
    fn answer(&mut self, method: &str, params: &Value) -> Result<Value, (i64, String)> {
        match method {
            "textDocument/diagnostic" => {
                let path = self.document_path(params)?;
                let items = self.lsp_diagnostics(&path);
                Ok(json!({"kind": "full", "items": items}))
            }
            "textDocument/codeAction" => actions::code_actions(self, params),
            "codeAction/resolve" => actions::resolve(self, params),
            "textDocument/hover" => features::hover(self, params),
            "textDocument/documentSymbol" => features::symbols(self, params),
            "textDocument/definition" => features::definition(self, params),
            "textDocument/completion" => features::completion(self, params),
            _ => Err((METHOD_NOT_FOUND, format!("toolc does not handle {method}"))),
        }
    }

    fn handle_notification(&mut self, method: &str, params: Value) -> Option<bool> {
        if method == "exit" {
            return Some(self.shutdown);
        }
        if !self.initialized {
            return None;
        }
        let done = std::panic::catch_unwind(AssertUnwindSafe(|| self.notified(method, &params)));
        if let Err(panic) = done {
            self.show_log(&format!("{method} failed: {}", panic_message(&panic)));
        }
        None
    }

    fn notified(&mut self, method: &str, params: &Value) {
        match method {
            "initialized" => self.register_watchers(),
            "textDocument/didOpen" => self.did_open(params),
            "textDocument/didChange" => self.did_change(params),
            "textDocument/didClose" => self.did_close(params),
            // What is on disk changed: files the editor does not hold
            // (an entrypoint, a program, a sibling manifest) count.
            "textDocument/didSave" => self.changed_all(),
            "workspace/didChangeConfiguration" => {
                let settings = params.get("settings").unwrap_or(&Value::Null);
                if settings.is_object() {
                    self.settings = Settings::read(settings);
                }
                self.configure();
            }
            "workspace/didChangeWatchedFiles" => self.configure(),
            "workspace/didChangeWorkspaceFolders" => {
                let event = params.get("event").unwrap_or(&Value::Null);
                let uris = |key: &str| -> Vec<PathBuf> {
                    event
                        .get(key)
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .filter_map(folder_path)
                        .collect()
                };
                let removed = uris("removed");
                self.roots.retain(|root| !removed.contains(root));
                self.roots.extend(uris("added"));
                self.configure();
            }
            // `$/cancelRequest`, `$/setTrace` and the rest: nothing to do.
            _ => {}
        }
    }

    fn initialize(&mut self, params: &Value) -> Value {
        let capabilities = params.get("capabilities").unwrap_or(&Value::Null);
        let has = |pointer: &str| capabilities.pointer(pointer).is_some_and(|v| !v.is_null());
        let is_true = |pointer: &str| capabilities.pointer(pointer) == Some(&Value::Bool(true));
        let encodings = strings_at(capabilities, "/general/positionEncodings");
        // UTF-8 when the client offers it (no conversion); else UTF-16,
        // which every client must accept.
        if encodings.contains(&"utf-8") {
            self.encoding = Encoding::Utf8;
        }
        let resolvable = strings_at(
            capabilities,
            "/textDocument/codeAction/resolveSupport/properties",
        );
        let operations = strings_at(capabilities, "/workspace/workspaceEdit/resourceOperations");
        self.client = Client {
            pull: has("/textDocument/diagnostic"),
            related_information: is_true("/textDocument/publishDiagnostics/relatedInformation")
                || is_true("/textDocument/diagnostic/relatedInformation"),
            refresh: is_true("/workspace/diagnostics/refreshSupport"),
            resolve_edits: resolvable.contains(&"edit"),
            watch_files: is_true("/workspace/didChangeWatchedFiles/dynamicRegistration"),
            create_files: operations.contains(&"create")
                && is_true("/workspace/workspaceEdit/documentChanges"),
        };
        self.roots = params
            .get("workspaceFolders")
            .and_then(Value::as_array)
            .map(|folders| folders.iter().filter_map(folder_path).collect())
            .unwrap_or_default();
        if self.roots.is_empty() {
            let root = params
                .get("rootUri")
                .and_then(Value::as_str)
                .and_then(|uri| uri.parse().ok())
                .and_then(|uri| path_of(&uri));
            self.roots.extend(root);
        }
        if let Some(options) = params
            .get("initializationOptions")
            .filter(|o| o.is_object())
        {
            self.settings = Settings::read(options);
        }
        self.configure();
        self.initialized = true;
        let mut capabilities = json!({
            "positionEncoding": self.encoding.name(),
            "textDocumentSync": {"openClose": true, "change": 2, "save": false},
            "codeActionProvider": {
                "codeActionKinds": ["quickfix", FIX_ALL_KIND],
                "resolveProvider": true,
            },
            "hoverProvider": true,
            "documentSymbolProvider": true,
            "definitionProvider": true,
            "completionProvider": {"triggerCharacters": ["\""]},
            "workspace": {
                "workspaceFolders": {"supported": true, "changeNotifications": true},
            },
        });
        if self.client.pull {
            capabilities["diagnosticProvider"] = json!({
                "identifier": "toolc",
                "interFileDependencies": true,
                "workspaceDiagnostics": false,
            });
        }
        json!({
            "capabilities": capabilities,
            "serverInfo": {"name": "toolc", "version": env!("CARGO_PKG_VERSION")},
        })
    }

    /// Asks the client to say when a `toolc.toml` or a `pyproject.toml`
    /// (whose `[tool.toolc]` is a configuration) changes, where it can.
    fn register_watchers(&mut self) {
        if !self.client.watch_files {
            return;
        }
        self.request(
            "client/registerCapability",
            json!({"registrations": [{
                "id": "toolc-configuration",
                "method": "workspace/didChangeWatchedFiles",
                "registerOptions": {"watchers": [
                    {"globPattern": format!("**/{}", crate::project::config::FILE_NAME)},
                    {"globPattern": format!("**/{}", crate::project::config::PYPROJECT)},
                    // Package code the editor may not hold open.
                    {"globPattern": "**/*.py"},
                    {"globPattern": "**/*.ts"},
                ]},
            }]}),
        );
    }

    /// Reads the settings and `toolc.toml` files again and re-checks
    /// everything open.
    fn configure(&mut self) {
        let (command_line, problems) = self
            .settings
            .command_line(self.roots.first().map(PathBuf::as_path));
        for problem in problems {
            self.show_log(&format!("setting ignored: {problem}"));
        }
        let resolver = match Resolver::new(command_line.clone(), crate::lint::RULES.as_slice()) {
            Ok(resolver) => resolver,
            Err(error) => {
                self.show_log(&format!("{error}; the configuration file is not used"));
                let fallback = CommandLine {
                    config: None,
                    ..command_line.clone()
                };
                if let Ok(resolver) = Resolver::new(fallback.clone(), crate::lint::RULES.as_slice())
                {
                    // Fix-all reads the configuration again: the same one.
                    self.lint = LintOptions {
                        command_line: fallback,
                        ..LintOptions::default()
                    };
                    self.resolver = Arc::new(resolver);
                    self.changed_all();
                }
                return;
            }
        };
        self.resolver = Arc::new(resolver);
        self.lint = LintOptions {
            command_line,
            ..LintOptions::default()
        };
        self.changed_all();
    }

    /// Something every document's findings may depend on changed.
    fn changed_all(&mut self) {
        self.generation += 1;
        self.checked.clear();
        if self.client.pull {
            if self.client.refresh && self.initialized {
                self.request("workspace/diagnostic/refresh", Value::Null);
            }
        } else {
            self.stale
                .extend(self.documents.iter().map(|d| d.path.clone()));
        }
    }

    /// The document at `path` changed: its findings, and those of the open
    /// documents near it (a package's code and its manifest, sibling tool
    /// directories), may change. Pushing re-checks only those: with many
    /// documents open, one keystroke must not re-check them all.
    fn changed(&mut self, path: &Path) {
        self.generation += 1;
        if !self.client.pull {
            let near: Vec<PathBuf> = self
                .documents
                .iter()
                .filter(|d| check::near(&d.path, path))
                .map(|d| d.path.clone())
                .collect();
            self.stale.extend(near);
        }
    }

    fn did_open(&mut self, params: &Value) {
        let Some(item) = params.get("textDocument") else {
            return;
        };
        let (Some(uri), Some(text)) = (
            item.get("uri")
                .and_then(Value::as_str)
                .and_then(|u| u.parse().ok()),
            item.get("text").and_then(Value::as_str),
        ) else {
            return;
        };
        let Some(path) = path_of(&uri) else {
            return;
        };
        let version = item.get("version").and_then(Value::as_i64).unwrap_or(0);
        let version = i32::try_from(version).unwrap_or(0);
        self.documents
            .open(Document::new(uri, path.clone(), version, text.to_string()));
        self.changed(&path);
    }

    fn did_change(&mut self, params: &Value) {
        let Ok(params) =
            serde_json::from_value::<lsp_types::DidChangeTextDocumentParams>(params.clone())
        else {
            return;
        };
        let Some(path) = path_of(&params.text_document.uri) else {
            return;
        };
        let encoding = self.encoding;
        if let Some(document) = self.documents.get_mut(&path) {
            document.change(
                params.text_document.version,
                params.content_changes,
                encoding,
            );
            self.changed(&path);
        }
    }

    fn did_close(&mut self, params: &Value) {
        let Some(path) = params
            .pointer("/textDocument/uri")
            .and_then(Value::as_str)
            .and_then(|u| u.parse().ok())
            .and_then(|uri| path_of(&uri))
        else {
            return;
        };
        if let Some(document) = self.documents.close(&path) {
            // The disk's text counts again.
            self.changed(&path);
            self.stale.remove(&path);
            if self.pushed.remove(&path) {
                // Waits for room: a closed file must not keep its findings.
                self.out.send(json!({
                    "jsonrpc": "2.0",
                    "method": "textDocument/publishDiagnostics",
                    "params": {"uri": document.uri.as_str(), "diagnostics": []},
                }));
            }
        }
    }

    /// The path of the open document a request names.
    fn document_path(&self, params: &Value) -> Result<PathBuf, (i64, String)> {
        let uri = params
            .pointer("/textDocument/uri")
            .and_then(Value::as_str)
            .ok_or((INVALID_PARAMS, "textDocument.uri is missing".to_string()))?;
        let path = uri
            .parse()
            .ok()
            .and_then(|uri| path_of(&uri))
            .ok_or_else(|| (INVALID_PARAMS, format!("{uri} is not a file")))?;
        if self.documents.get(&path).is_none() {
            return Err((INVALID_PARAMS, format!("{uri} is not open")));
        }
        Ok(path)
    }

    /// The check of the open document at `path`, done once per change.
    fn outcome(&mut self, path: &Path) -> Arc<Outcome> {
        if let Some((generation, outcome)) = self.checked.get(path)
            && *generation == self.generation
        {
            return outcome.clone();
        }
        let documents = &self.documents;
        let resolver = &self.resolver;
        let lint = &self.lint;
        let result = std::panic::catch_unwind(AssertUnwindSafe(|| {
            check::check(path, documents, resolver, lint)
        }));
        let outcome = match result {
            Ok(Ok(Some(checked))) => Outcome::Checked(checked),
            Ok(Ok(None)) => Outcome::Nothing,
            Ok(Err(message)) => Outcome::Failed(message),
            Err(panic) => Outcome::Failed(format!(
                "toolc crashed while checking this file ({}); please report it",
                panic_message(&panic)
            )),
        };
        if let Outcome::Failed(message) = &outcome {
            self.show_log(&format!("{}: {message}", path.display()));
        }
        let outcome = Arc::new(outcome);
        // Only the latest generation is kept: memory follows the open
        // documents, not the edits.
        self.checked
            .retain(|_, (generation, _)| *generation == self.generation);
        self.checked
            .insert(path.to_path_buf(), (self.generation, outcome.clone()));
        outcome
    }

    /// The findings in the open document at `path`, as the client wants
    /// them.
    fn lsp_diagnostics(&mut self, path: &Path) -> Vec<Value> {
        let outcome = self.outcome(path);
        match &*outcome {
            Outcome::Nothing => Vec::new(),
            Outcome::Failed(message) => vec![json!({
                "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                "severity": 1,
                "source": "toolc",
                "message": message,
            })],
            Outcome::Checked(checked) => checked
                .diagnostics_in(path)
                .into_iter()
                .map(|d| self.to_lsp(path, checked, d))
                .collect(),
        }
    }

    /// A finding as the protocol shows it.
    fn to_lsp(
        &self,
        path: &Path,
        checked: &check::Checked,
        diagnostic: &crate::diagnostic::Diagnostic,
    ) -> Value {
        let range = self.range_in(path, checked, diagnostic.span);
        let severity = match diagnostic.severity {
            crate::diagnostic::Severity::Error => 1,
            crate::diagnostic::Severity::Warning => 2,
            crate::diagnostic::Severity::Info => 3,
        };
        let mut message = diagnostic.message.clone();
        if let Some(help) = &diagnostic.help {
            message.push_str("\nhelp: ");
            message.push_str(help);
        }
        let mut out = json!({
            "range": range,
            "severity": severity,
            "code": diagnostic.rule.code,
            // The rule's page: a plain link, which a client without
            // codeDescriptionSupport leaves alone.
            "codeDescription": {"href": diagnostic.rule.documentation_url()},
            "source": "toolc",
            "message": message,
            "data": {"rule": diagnostic.rule.name, "fixable": diagnostic.fix.is_some()},
        });
        if features::unnecessary(diagnostic.rule) {
            out["tags"] = json!([1]);
        }
        if self.client.related_information {
            let related: Vec<Value> = diagnostic
                .related
                .iter()
                .filter_map(|related| {
                    let file = PathBuf::from(&related.path);
                    let uri = uri_of(&absolute(&file))?;
                    let range = self.range_in(&file, checked, Some(related.span));
                    Some(json!({
                        "location": {"uri": uri.as_str(), "range": range},
                        "message": related.message,
                    }))
                })
                .collect();
            if !related.is_empty() {
                out["relatedInformation"] = Value::Array(related);
            }
        }
        out
    }

    /// The range of a span of the file at `path`: in the open document's
    /// text, else in the text the check read.
    fn range_in(
        &self,
        path: &Path,
        checked: &check::Checked,
        span: Option<crate::source::Span>,
    ) -> Value {
        let Some(span) = span else {
            return json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}});
        };
        let text: Option<Arc<str>> = match self.documents.get(path) {
            Some(document) => Some(document.text.clone()),
            None => checked
                .report
                .sources
                .get(&crate::project::display_path(path))
                .map(|source| source.text.clone()),
        };
        let Some(text) = text else {
            return json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}});
        };
        // A manifest's spans count from after a byte order mark; those in
        // package code count it.
        let is_manifest = checked.manifest(path).is_some();
        let skip = if is_manifest { features::bom(&text) } else { 0 };
        let lines = match self.documents.get(path) {
            Some(document) => document.lines.clone(),
            None => Arc::new(position::LineIndex::new(&text)),
        };
        let range = lines.range(&text, span.start + skip, span.end + skip, self.encoding);
        serde_json::to_value(range).unwrap_or(Value::Null)
    }

    /// Pushes the findings of every stale open document (push mode).
    fn push_stale(&mut self) {
        if self.client.pull {
            self.stale.clear();
            return;
        }
        let stale = std::mem::take(&mut self.stale);
        for path in stale {
            let Some(document) = self.documents.get(&path) else {
                continue;
            };
            let (uri, version) = (document.uri.as_str().to_string(), document.version);
            let items = self.lsp_diagnostics(&path);
            let sent = self.out.notify(
                "textDocument/publishDiagnostics",
                json!({"uri": uri, "version": version, "diagnostics": items}),
            );
            // A client that has not read what came before gets these
            // later, when the loop is idle again.
            if sent {
                self.pushed.insert(path);
            } else {
                self.stale.insert(path);
            }
        }
    }
}

/// The strings of the array at `pointer` in `value` (none when absent).
fn strings_at<'a>(value: &'a Value, pointer: &str) -> Vec<&'a str> {
    value
        .pointer(pointer)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// A workspace folder's path.
fn folder_path(folder: &Value) -> Option<PathBuf> {
    let uri = folder.get("uri")?.as_str()?.parse().ok()?;
    path_of(&uri)
}

/// `path` made absolute against the current directory.
fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        return path.to_path_buf();
    }
    std::env::current_dir()
        .map(|cwd| cwd.join(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

/// What a panic said.
fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufReader;

    /// A server on in-memory pipes, as a client sees it.
    struct Session {
        to_server: std::io::PipeWriter,
        from_server: BufReader<std::io::PipeReader>,
        server: std::thread::JoinHandle<bool>,
    }

    impl Session {
        fn start() -> Session {
            let (input, to_server) = std::io::pipe().expect("pipe");
            let (from_server, output) = std::io::pipe().expect("pipe");
            let server = std::thread::spawn(move || serve(BufReader::new(input), output));
            Session {
                to_server,
                from_server: BufReader::new(from_server),
                server,
            }
        }

        fn send(&mut self, message: Value) {
            let body = message.to_string();
            write!(
                self.to_server,
                "Content-Length: {}\r\n\r\n{body}",
                body.len()
            )
            .expect("write");
        }

        fn answer(&mut self, id: i64) -> Value {
            loop {
                match transport::read_one(&mut self.from_server).expect("read") {
                    Some(Incoming::Message(message))
                        if message["id"] == id && message.get("method").is_none() =>
                    {
                        return message;
                    }
                    Some(_) => {}
                    None => panic!("the server closed its output"),
                }
            }
        }
    }

    #[test]
    fn a_check_that_panics_is_one_diagnostic_and_the_server_goes_on() {
        let dir = std::env::temp_dir().join(format!("toolc-lsp-panic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let broken = dir.join("toolc-test-panic.json");
        let fine = dir.join("tools.json");
        let uri = |path: &Path| uri_of(path).expect("uri").as_str().to_string();
        let mut session = Session::start();
        session.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"capabilities": {"textDocument": {"diagnostic": {}}}}}));
        session.answer(1);
        session.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
        for (path, text) in [(&broken, "{}"), (&fine, r#"{"tools": []}"#)] {
            session.send(json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
                "textDocument": {"uri": uri(path), "languageId": "json", "version": 1, "text": text}}}));
        }
        session.send(
            json!({"jsonrpc": "2.0", "id": 2, "method": "textDocument/diagnostic",
            "params": {"textDocument": {"uri": uri(&broken)}}}),
        );
        let items = session.answer(2)["result"]["items"].clone();
        assert_eq!(items.as_array().map(Vec::len), Some(1), "{items}");
        assert!(
            items[0]["message"]
                .as_str()
                .unwrap_or("")
                .contains("toolc crashed while checking this file"),
            "{items}"
        );
        // Another document is still checked, and the same one again.
        session.send(
            json!({"jsonrpc": "2.0", "id": 3, "method": "textDocument/diagnostic",
            "params": {"textDocument": {"uri": uri(&fine)}}}),
        );
        assert!(session.answer(3)["result"]["items"].is_array());
        session.send(json!({"jsonrpc": "2.0", "id": 4, "method": "shutdown"}));
        session.answer(4);
        session.send(json!({"jsonrpc": "2.0", "method": "exit"}));
        assert!(session.server.join().expect("the server thread"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
