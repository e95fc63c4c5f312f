//! The package code a manifest depends on, read once per run.
//!
//! AgentStack and Nachos manifests hold no parameter schemas: their tools'
//! parameters live in the package's code (the functions of `__init__.py`,
//! a TypeScript class's `parameters`). A NORA manifest names a Python
//! entrypoint; an agentcli manifest names programs. The front end reads
//! all of that here, once, and keeps what it found in [`PackageCode`], so
//! the rules check it without reading a file and generators get full
//! parameters. A [`Cache`] shared by the files of one run makes sure a
//! package file several manifests share (a Nachos package's
//! `manifest.*.json`, a fix applied in rounds) is read only once.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::Value;

use crate::formats;
use crate::formats::agentcli_command::{self, CommandPath};
use crate::ir::{Format, Runtime, ToolSet};
use crate::json::{self, Document};
use crate::python;
use crate::source::{self, ReadError};
use crate::syntax::{SyntaxError, line_column};
use crate::typescript;

/// Counts the files a run reads (manifests and package code), by path: a
/// caller that wants to know gives one in [`super::LoadOptions`].
#[derive(Debug, Default)]
pub struct ReadLog {
    reads: Mutex<BTreeMap<PathBuf, usize>>,
}

impl ReadLog {
    pub fn new() -> Self {
        ReadLog::default()
    }

    /// How often each file was read.
    pub fn reads(&self) -> BTreeMap<PathBuf, usize> {
        self.reads.lock().map(|r| r.clone()).unwrap_or_default()
    }

    fn record(&self, path: &Path) {
        if let Ok(mut reads) = self.reads.lock() {
            *reads.entry(path.to_path_buf()).or_default() += 1;
        }
    }
}

/// Whether a path the manifest names is there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileState {
    Missing,
    /// There, but a directory or another kind of file.
    NotFile,
    File {
        executable: bool,
    },
}

impl FileState {
    fn of(path: &Path) -> FileState {
        match std::fs::metadata(path) {
            Err(_) => FileState::Missing,
            Ok(m) if !m.is_file() => FileState::NotFile,
            Ok(m) => FileState::File {
                executable: is_executable(&m),
            },
        }
    }
}

#[cfg(unix)]
fn is_executable(metadata: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    metadata.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_: &std::fs::Metadata) -> bool {
    true
}

/// A Python module as read and parsed.
#[derive(Debug)]
pub struct PythonModule {
    pub path: PathBuf,
    pub text: Arc<str>,
    pub parsed: Result<python::Module, SyntaxError>,
}

/// A NORA tool's entrypoint script.
#[derive(Debug, Clone)]
pub struct EntrypointFile {
    /// As the manifest writes it.
    pub written: String,
    /// Resolved against the manifest's directory.
    pub path: PathBuf,
    pub state: FileState,
    /// The parsed script; `None` when it could not be read (missing, too
    /// large, not UTF-8).
    pub module: Option<Arc<PythonModule>>,
}

/// A program an agentcli command names by path (not a bare name, which is
/// looked up on `PATH` when the tool runs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgramFile {
    /// The program as the command writes it.
    pub program: String,
    pub path: PathBuf,
    pub state: FileState,
}

/// A parameter schema toolc read from code, not from the manifest.
#[derive(Debug, Clone, PartialEq)]
pub struct DerivedSchema {
    /// The tool's index in the manifest's tool set.
    pub tool: usize,
    pub schema: Value,
    pub origin: Origin,
    /// The AgentStack function's parameters whose type hint gave no JSON
    /// Schema type; empty for Nachos.
    pub untyped: Vec<UntypedParameter>,
}

/// Where in the code a derived schema was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The code's file relative to the manifest's directory, `/`-separated.
    pub file: String,
    /// What defines the schema: `def search`, `class FetchTool`.
    pub definition: String,
    /// 1-based line of the definition (a Python `def`, a class's
    /// `parameters` property).
    pub line: usize,
    /// Each parameter's own line, where the code gives one (Python).
    pub parameter_lines: Vec<(String, usize)>,
}

impl Origin {
    /// Where a place in the derived schema comes from, for a message:
    /// `parameter "query" of def search, __init__.py:8`.
    pub fn describe(&self, pointer: &str) -> String {
        let mut tokens = json::pointer_tokens(pointer);
        let parameter = match (tokens.next(), tokens.next()) {
            (Some(keyword), Some(name)) if keyword == "properties" => Some(name),
            _ => None,
        };
        match parameter {
            Some(name) => {
                let line = self
                    .parameter_lines
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map_or(self.line, |(_, line)| *line);
                format!(
                    "parameter {name:?} of {}, {}:{line}",
                    self.definition, self.file
                )
            }
            None => format!(
                "parameters of {}, {}:{}",
                self.definition, self.file, self.line
            ),
        }
    }
}

/// A parameter whose type hint toolc could not turn into a type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UntypedParameter {
    pub name: String,
    /// The hint as written; `None` when there is none.
    pub hint: Option<String>,
    /// 1-based line of the parameter in `__init__.py`.
    pub line: usize,
}

/// What the front end read of a manifest's package code.
#[derive(Debug, Clone, Default)]
pub struct PackageCode {
    /// An AgentStack package's `__init__.py`; `None` when it is missing or
    /// cannot be read (too large, not UTF-8).
    pub python: Option<Arc<PythonModule>>,
    /// A NORA manifest's entrypoint, when it names one.
    pub entrypoint: Option<EntrypointFile>,
    /// The programs an agentcli manifest's commands name by path.
    pub programs: Vec<ProgramFile>,
    /// A Nachos package's search for each tool's class: (tool index, what
    /// the search found).
    pub classes: Vec<(usize, Arc<typescript::Search>)>,
    /// The parameter schemas read from code (AgentStack, Nachos).
    pub derived: Vec<DerivedSchema>,
    /// A hash of all the code gave the IR (parameters, descriptions,
    /// titles), and of the record beside a provider document (its renamed
    /// parameters): a manifest read again is the one the run checked only
    /// if its text and this are both unchanged.
    pub fingerprint: u64,
}

impl PackageCode {
    /// The state of a program the manifest names, when it names it by path.
    pub fn program(&self, program: &str) -> Option<&ProgramFile> {
        self.programs.iter().find(|p| p.program == program)
    }

    /// The class search of the tool at `index` (Nachos).
    pub fn class_search(&self, index: usize) -> Option<&typescript::Search> {
        self.classes
            .iter()
            .find(|(i, _)| *i == index)
            .map(|(_, search)| search.as_ref())
    }
}

/// The text of one package file, or why it could not be had.
type Text = Result<Arc<str>, String>;

/// Values computed once per key, however many threads ask at once: the
/// first computes, the others wait for its answer.
struct Once<K, V> {
    cells: Mutex<HashMap<K, Arc<OnceLock<V>>>>,
}

impl<K: std::hash::Hash + Eq, V: Clone> Once<K, V> {
    fn new() -> Self {
        Once {
            cells: Mutex::new(HashMap::new()),
        }
    }

    /// The value of `key`, when one was computed.
    fn peek(&self, key: &K) -> Option<V> {
        let cells = self.cells.lock().ok()?;
        cells.get(key).and_then(|cell| cell.get()).cloned()
    }

    fn get(&self, key: K, compute: impl FnOnce() -> V) -> V {
        let cell = match self.cells.lock() {
            Ok(mut cells) => cells.entry(key).or_default().clone(),
            // A thread panicked while holding the lock: compute uncached.
            Err(_) => return compute(),
        };
        cell.get_or_init(compute).clone()
    }
}

/// How many bytes of package text a run keeps for reuse. Past it, a file
/// is read again when another manifest needs it: a package of many large
/// files must not hold them all in memory for the whole run.
const KEPT_TEXT_BUDGET: usize = 64 * 1024 * 1024;

/// The package files one run has read. Every entry is keyed by the size
/// limit it was read under too: manifests in directories with different
/// `max-file-size` settings each see the file as their own limit allows.
pub(super) struct Cache {
    log: Option<Arc<ReadLog>>,
    /// Texts read in place of files.
    overlay: Option<Arc<super::Overlay>>,
    texts: Once<(PathBuf, u64), Text>,
    /// Bytes of text `texts` holds (see [`KEPT_TEXT_BUDGET`]).
    kept: std::sync::atomic::AtomicUsize,
    python: Once<(PathBuf, u64), Option<Arc<PythonModule>>>,
    typescript: Once<(PathBuf, String, u64), Arc<typescript::Search>>,
}

impl Cache {
    pub(super) fn new(log: Option<Arc<ReadLog>>, overlay: Option<Arc<super::Overlay>>) -> Self {
        Cache {
            log,
            overlay: overlay.filter(|o| !o.is_empty()),
            texts: Once::new(),
            kept: std::sync::atomic::AtomicUsize::new(0),
            python: Once::new(),
            typescript: Once::new(),
        }
    }

    /// A manifest's bytes (never cached: each manifest is read once).
    pub(super) fn read_manifest(&self, path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
        if let Some(text) = self.held(path) {
            return within(text, limit).map(|text| text.as_bytes().to_vec());
        }
        if let Some(log) = &self.log {
            log.record(path);
        }
        source::read_regular_file(path, limit)
    }

    /// The text held in memory for `path`, if any.
    fn held(&self, path: &Path) -> Option<Arc<str>> {
        self.overlay.as_ref()?.get(path).cloned()
    }

    /// Whether the file at `path` is there: held in memory, or on disk.
    fn state(&self, path: &Path) -> FileState {
        match self.held(path) {
            Some(_) => FileState::File { executable: false },
            None => FileState::of(path),
        }
    }

    /// A package file's text, read on first use (and kept while the run's
    /// budget for kept text allows).
    fn text(&self, path: &Path, limit: u64) -> Text {
        if let Some(text) = self.held(path) {
            return within(text, limit).map_err(|e| match e {
                ReadError::TooLarge(size) => {
                    format!("is {size} bytes, over the limit of {limit} bytes")
                }
                ReadError::Io(message) => message,
            });
        }
        let read = || {
            if let Some(log) = &self.log {
                log.record(path);
            }
            match source::read_regular_file(path, limit) {
                Ok(bytes) => String::from_utf8(bytes)
                    .map(Arc::from)
                    .map_err(|_| "is not UTF-8".to_string()),
                Err(ReadError::TooLarge(size)) => {
                    Err(format!("is {size} bytes, over the limit of {limit} bytes"))
                }
                Err(ReadError::Io(message)) => Err(message),
            }
        };
        let key = (path.to_path_buf(), limit);
        if let Some(text) = self.texts.peek(&key) {
            return text;
        }
        if self.keeps(path) {
            self.texts.get(key, read)
        } else {
            read()
        }
    }

    /// Whether the budget for kept text still has room for the file at
    /// `path`; if so, its size is counted against it.
    fn keeps(&self, path: &Path) -> bool {
        use std::sync::atomic::Ordering;
        let size = std::fs::metadata(path).map_or(0, |m| m.len());
        let size = usize::try_from(size).unwrap_or(usize::MAX);
        self.kept
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |kept| {
                kept.checked_add(size).filter(|k| *k <= KEPT_TEXT_BUDGET)
            })
            .is_ok()
    }

    /// A Python file, read and parsed on first use.
    fn python(&self, path: &Path, limit: u64) -> Option<Arc<PythonModule>> {
        let parse = || {
            self.text(path, limit).ok().map(|text| {
                Arc::new(PythonModule {
                    path: path.to_path_buf(),
                    parsed: python::parse(&text),
                    text,
                })
            })
        };
        let key = (path.to_path_buf(), limit);
        if let Some(module) = self.python.peek(&key) {
            return module;
        }
        let module = parse();
        // A module is kept while its text is (see `KEPT_TEXT_BUDGET`).
        match self.texts.peek(&key) {
            Some(_) => self.python.get(key, || module),
            None => module,
        }
    }

    /// The search of the package in `dir` for the class of `tool_id`.
    fn class(&self, dir: &Path, tool_id: &str, limit: u64) -> Arc<typescript::Search> {
        let key = (dir.to_path_buf(), tool_id.to_string(), limit);
        self.typescript.get(key, || {
            let mut files = typescript::package_files(dir);
            if let Some(overlay) = &self.overlay {
                // A file that exists only in the editor is part of the
                // package as much as one on disk.
                files.extend(
                    overlay
                        .paths_under(dir)
                        .filter(|relative| typescript::is_package_file(relative))
                        .map(|relative| dir.join(relative)),
                );
                files.sort();
                files.dedup();
            }
            Arc::new(typescript::search_package(files, tool_id, &|path| {
                self.text(path, limit)
            }))
        })
    }

    /// Reads the code `toolset` depends on and completes its IR with what
    /// the code says: the parameters (and, where the manifest has none, the
    /// description and display name) of AgentStack and Nachos tools.
    pub(super) fn package_code(
        &self,
        toolset: &mut ToolSet,
        document: &Document,
        dir: &Path,
        limit: u64,
    ) -> PackageCode {
        let mut code = PackageCode::default();
        let derived = match toolset.format {
            Format::Agentstack => {
                code.python = self.python(&dir.join(formats::agentstack::MODULE_FILE), limit);
                code.python
                    .as_deref()
                    .map(|module| python_parameters(toolset, module))
                    .unwrap_or_default()
            }
            Format::Nachos => {
                for (index, tool) in toolset.tools.iter().enumerate() {
                    code.classes
                        .push((index, self.class(dir, &tool.name, limit)));
                }
                typescript_parameters(&code.classes, dir)
            }
            Format::Nora => {
                code.entrypoint = self.entrypoint(&document.value, dir, limit);
                Vec::new()
            }
            Format::Agentcli => Vec::new(),
            Format::Openai
            | Format::OpenaiResponses
            | Format::Anthropic
            | Format::Mcp
            | Format::Gemini => Vec::new(),
        };
        // An agentcli tool's program, or the one another format's tool
        // was converted with (its runtime, from "x-toolc").
        code.programs = programs(toolset, toolset.format, dir);
        add_derived_parameters(toolset, &document.value, &derived);
        formats::carry::keep_absent_descriptions(&document.value, toolset);
        formats::carry::mark_assumed_actions(&document.value, toolset);
        code.fingerprint = fingerprint_of(&derived);
        code.derived = derived.into_iter().map(|d| d.schema).collect();
        code
    }

    fn entrypoint(&self, manifest: &Value, dir: &Path, limit: u64) -> Option<EntrypointFile> {
        let written = json::value_at(manifest, "/entrypoint")?
            .as_str()
            .filter(|e| !e.is_empty())?;
        let path = dir.join(written);
        let state = self.state(&path);
        let module = matches!(state, FileState::File { .. })
            .then(|| self.python(&path, limit))
            .flatten();
        Some(EntrypointFile {
            written: written.to_string(),
            path,
            state,
            module,
        })
    }
}

/// The programs the tools' commands name by path, with their state on
/// disk.
fn programs(toolset: &ToolSet, format: Format, dir: &Path) -> Vec<ProgramFile> {
    let mut programs: Vec<ProgramFile> = Vec::new();
    for tool in &toolset.tools {
        let Runtime::Command { argv, .. } = &tool.runtime else {
            continue;
        };
        let Some(program) = argv.first().filter(|p| !p.trim().is_empty()) else {
            continue;
        };
        let path = match agentcli_command::classify(program) {
            CommandPath::Absolute => PathBuf::from(program),
            CommandPath::InsideBin(relative) => dir.join(relative),
            // Another format's tool runs a carried command as toolc's
            // runner does: a path with a `/` from the manifest's directory.
            _ if format != Format::Agentcli && program.contains('/') => dir.join(program),
            CommandPath::OutsideBin | CommandPath::EscapesBin(_) => continue,
        };
        if programs.iter().any(|p| p.program == *program) {
            continue;
        }
        programs.push(ProgramFile {
            program: program.to_string(),
            state: FileState::of(&path),
            path,
        });
    }
    programs
}

/// A schema read from code, with what the IR takes from the same place
/// when the manifest says nothing.
struct Derived {
    schema: DerivedSchema,
    description: Option<String>,
    title: Option<String>,
}

/// What the IR takes from the code, hashed (see [`PackageCode::fingerprint`]).
fn fingerprint_of(derived: &[Derived]) -> u64 {
    use std::hash::Hasher;
    /// Feeds serde_json's output to the hasher: no text is built.
    struct Feed<H>(H);
    impl<H: Hasher> std::io::Write for Feed<H> {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.write(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut feed = Feed(crate::source::run_hasher());
    for d in derived {
        feed.0.write_usize(d.schema.tool);
        // Writing into a hasher cannot fail; a schema that could not be
        // serialized would still change the hash by what it wrote.
        let _ = serde_json::to_writer(&mut feed, &d.schema.schema);
        for text in [&d.description, &d.title] {
            feed.0.write_u8(u8::from(text.is_some()));
            feed.0.write(text.as_deref().unwrap_or("").as_bytes());
            feed.0.write_u8(0xff);
        }
    }
    feed.0.finish()
}

/// Gives the IR the derived parameters, and the code's description and
/// display name where the manifest has none. A copy of the parameters that
/// an `"x-toolc"` object carries (from an earlier conversion, see
/// [`formats::carry`]) says more than the code can, and is kept while the
/// code's parameters still have the same names. Names the code could not
/// spell map back to the names they stand for, as the manifest records.
fn add_derived_parameters(toolset: &mut ToolSet, manifest: &Value, derived: &[Derived]) {
    use formats::carry::{parameter_names, restore_parameter_names, signature};
    let format = toolset.format;
    for derived in derived {
        let Some(tool) = toolset.tools.get_mut(derived.schema.tool) else {
            continue;
        };
        let mut code = derived.schema.schema.clone();
        let renamed = parameter_names(manifest, format, &tool.origin);
        restore_parameter_names(&mut code, &renamed);
        tool.extra.code_names = code_names(&derived.schema.schema, &code, &renamed);
        let code = &code;
        let carried_still_fits = tool
            .parameters
            .as_ref()
            .is_some_and(|carried| signature(carried) == signature(code));
        if !carried_still_fits {
            tool.parameters = Some(crate::ir::SharedValue::new(code.clone()));
        }
        if tool.description.is_none() {
            tool.description.clone_from(&derived.description);
        }
        if tool.title.is_none() {
            tool.title.clone_from(&derived.title);
        }
    }
}

/// The top-level parameters of `restored` (the code's parameters `read`,
/// given the names they stand for) that the code spells otherwise, by
/// their name in `restored`: what the function is called with (see
/// [`crate::ir::Tool::code_names`]). `renamed` holds the record's (code
/// name, name it stands for) pairs; one the restoring did not apply (the
/// code has no such parameter, or already one of the other name) is none.
fn code_names(
    read: &Value,
    restored: &Value,
    renamed: &[(String, String)],
) -> BTreeMap<String, String> {
    let properties = |schema: &Value| schema.get("properties").and_then(Value::as_object).cloned();
    let (Some(read), Some(restored)) = (properties(read), properties(restored)) else {
        return BTreeMap::new();
    };
    renamed
        .iter()
        .filter(|(code, wire)| {
            !code.starts_with('/')
                && code != wire
                && read.contains_key(code)
                && !read.contains_key(wire)
                && restored.contains_key(wire)
        })
        .map(|(code, wire)| (wire.clone(), code.clone()))
        .collect()
}

/// AgentStack tools take their parameters (and, when the config gives
/// none, their description) from the functions of the package's
/// `__init__.py`. A module that does not parse leaves them unknown.
fn python_parameters(toolset: &ToolSet, module: &PythonModule) -> Vec<Derived> {
    let Ok(parsed) = &module.parsed else {
        return Vec::new();
    };
    let line = |offset: usize| line_column(&module.text, offset).0;
    let mut derived = Vec::new();
    for (index, tool) in toolset.tools.iter().enumerate() {
        let Runtime::PythonFunction { function, .. } = &tool.runtime else {
            continue;
        };
        let Some(found) = formats::agentstack_python::function_schema(parsed, function) else {
            continue;
        };
        let untyped = found
            .parameters
            .iter()
            .filter(|p| p.type_unknown)
            .map(|p| UntypedParameter {
                name: p.name.clone(),
                hint: p.annotation.clone(),
                line: line(p.span.start),
            })
            .collect();
        let origin = Origin {
            file: formats::agentstack::MODULE_FILE.to_string(),
            definition: format!("def {function}"),
            line: line(found.def_span.start),
            parameter_lines: found
                .parameters
                .iter()
                .map(|p| (p.name.clone(), line(p.span.start)))
                .collect(),
        };
        derived.push(Derived {
            schema: DerivedSchema {
                tool: index,
                schema: found.schema,
                origin,
                untyped,
            },
            description: found.description,
            title: None,
        });
    }
    derived
}

/// Nachos tools take their parameters (and, when the manifest gives no
/// description, their description) from the TypeScript class whose
/// `toolId` is `provides.tool`. Nachos' `ParameterSchema` is
/// JSON-Schema-shaped, so the class's object is used as written (see
/// [`typescript::parameters_schema`]); values that toolc cannot evaluate are
/// left out (`typescript-unsupported-expression` reports them). No class
/// leaves them unknown.
fn typescript_parameters(classes: &[(usize, Arc<typescript::Search>)], dir: &Path) -> Vec<Derived> {
    let mut derived = Vec::new();
    for (index, search) in classes {
        let Some(found) = &search.found else {
            continue;
        };
        let class = &found.class;
        let Some(schema) = class
            .parameters
            .as_ref()
            .and_then(typescript::parameters_schema)
        else {
            continue;
        };
        let at = class
            .parameters_span
            .as_ref()
            .map_or(class.span.start, |span| span.start);
        let file = found.path.strip_prefix(dir).unwrap_or(&found.path);
        let origin = Origin {
            file: file
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/"),
            definition: format!("class {}", class.class_name),
            line: line_column(&found.text, at).0,
            parameter_lines: Vec::new(),
        };
        derived.push(Derived {
            schema: DerivedSchema {
                tool: *index,
                schema,
                origin,
                untyped: Vec::new(),
            },
            description: class.description.clone(),
            title: class.name.clone(),
        });
    }
    derived
}

/// `text` when it is within `limit` bytes, as a file read under that limit.
fn within(text: Arc<str>, limit: u64) -> Result<Arc<str>, ReadError> {
    let size = u64::try_from(text.len()).unwrap_or(u64::MAX);
    if size > limit {
        return Err(ReadError::TooLarge(size));
    }
    Ok(text)
}
