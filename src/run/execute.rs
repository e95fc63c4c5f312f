//! Executors: from an authorized call to a [`ToolResult`].

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::process::{self, Outcome, Spawn};
use super::sandbox::{Confinement, Rules, Support};
use super::{Entry, ErrorCode, Runner, ToolResult, builtin, command_of};
use crate::ir::{Format, Runtime};

/// The bootstrap every Python call goes through (see the file's docs).
const BOOTSTRAP: &str = include_str!("../../templates/run/bootstrap.py");

/// How much of a tool's stderr or stdout a message quotes.
const QUOTE_LIMIT: usize = 2000;

/// The interpreter, as it describes itself.
#[derive(Debug, Clone)]
pub(super) struct Python {
    /// `sys.executable`: the real binary, not a shim in front of it.
    executable: PathBuf,
    /// `sys.prefix`, `sys.base_prefix` and the import path: what the
    /// interpreter reads.
    dirs: Vec<PathBuf>,
}

pub(super) fn execute(runner: &Runner, entry: &Entry, arguments: &Value) -> ToolResult {
    if entry.builtin {
        return builtin_call(runner, entry, arguments);
    }
    if let Some((argv, timeout, passthrough)) = command_of(&entry.tool) {
        return command(runner, entry, arguments, &argv, timeout, &passthrough);
    }
    match &entry.tool.runtime {
        Runtime::PythonScript {
            entrypoint,
            function,
        } => {
            let file = entry.dir.join(entrypoint);
            let request = json!({
                "kind": "script",
                "file": file,
                "function": function,
                "arguments": arguments,
            });
            python(runner, entry, request)
        }
        Runtime::PythonFunction { module, function } => {
            let request = json!({
                "kind": "package",
                "file": entry.dir.join("__init__.py"),
                "package": python_package_name(module, &entry.dir),
                "function": function,
                "arguments": arguments,
            });
            python(runner, entry, request)
        }
        Runtime::NatsService { subject } => ToolResult::fail(
            ErrorCode::ExecutionError,
            format!(
                "\"{}\" is a Nachos service answering on NATS subject {subject}; toolc run executes commands and Python tools only",
                entry.tool.name
            ),
        ),
        Runtime::Command { .. } | Runtime::Unspecified => ToolResult::fail(
            ErrorCode::ExecutionError,
            format!(
                "\"{}\" comes from {} tool JSON, which says nothing about how to run it",
                entry.tool.name, entry.format
            ),
        ),
    }
}

/// A module name Python can import the package under: the package's own
/// name when it is an identifier, else its directory's.
fn python_package_name(module: &str, dir: &Path) -> String {
    let usable = |name: &str| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if usable(module) {
        return module.to_string();
    }
    let from_dir = dir
        .file_name()
        .map(|n| n.to_string_lossy().replace(['-', '.', ' '], "_"))
        .unwrap_or_default();
    if usable(&from_dir) {
        from_dir
    } else {
        "toolc_package".to_string()
    }
}

fn builtin_call(runner: &Runner, entry: &Entry, arguments: &Value) -> ToolResult {
    let Some(workspace) = &runner.workspace else {
        return ToolResult::fail(
            ErrorCode::InternalError,
            "the built-in tools need a workspace",
        );
    };
    match builtin::call(workspace, &entry.tool.name, arguments) {
        builtin::Action::Done(result) => result,
        builtin::Action::Shell { command, cwd } => {
            let limits = Limits::of(runner, entry, None);
            let spawn = Spawn {
                program: PathBuf::from("/bin/sh"),
                args: vec!["-c".into(), command.into()],
                cwd,
                env: Vec::new(),
                stdin: Vec::new(),
                timeout: limits.timeout,
                max_output: runner.options.max_output,
                memory: limits.memory,
                confinement: None,
            };
            let scratch = match Scratch::new() {
                Ok(scratch) => scratch,
                Err(result) => return *result,
            };
            let rules = Rules {
                read: vec![PathBuf::from("/bin/sh")],
                write: vec![workspace.root().to_path_buf(), scratch.path.clone()],
                any_path: false,
                deny_tcp: false,
            };
            let result = spawn_confined(runner, spawn, &scratch, &[], rules);
            match result {
                Ran::Done(outcome, sandbox) => shell_result(outcome, &limits, runner, sandbox),
                Ran::Failed(result) => *result,
            }
        }
    }
}

/// The limits that apply to one call.
struct Limits {
    timeout: Duration,
    memory: Option<u64>,
}

impl Limits {
    fn of(runner: &Runner, entry: &Entry, manifest_timeout: Option<u64>) -> Limits {
        let timeout = runner
            .options
            .timeout
            .or(manifest_timeout.map(Duration::from_secs))
            .unwrap_or(super::DEFAULT_TIMEOUT)
            .min(Duration::from_secs(process::MAX_TIMEOUT_SECS));
        let memory = runner.options.memory.or_else(|| {
            entry
                .tool
                .permissions
                .memory
                .as_deref()
                .and_then(parse_quantity)
        });
        Limits { timeout, memory }
    }
}

/// A Kubernetes-style memory quantity (`128Mi`, `1Gi`, `512M`, `1000`) in
/// bytes.
pub(super) fn parse_quantity(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let number: u64 = digits.parse().ok()?;
    let multiplier: u64 = match unit {
        "" => 1,
        "Ki" => 1 << 10,
        "Mi" => 1 << 20,
        "Gi" => 1 << 30,
        "Ti" => 1 << 40,
        "k" | "K" => 1000,
        "M" => 1000 * 1000,
        "G" => 1000 * 1000 * 1000,
        "T" => 1000 * 1000 * 1000 * 1000,
        _ => return None,
    };
    number.checked_mul(multiplier)
}

/// A private temporary directory for one call, removed afterwards.
struct Scratch {
    path: PathBuf,
}

impl Scratch {
    fn new() -> Result<Scratch, Box<ToolResult>> {
        use std::os::unix::fs::DirBuilderExt;
        static NEXT: AtomicU64 = AtomicU64::new(0);
        // The name is not secret (the directory is private by its mode);
        // a clock-derived part only keeps a stale directory of an earlier
        // process with the same pid from blocking every call.
        let mut attempt = 0;
        loop {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let salt = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or_default();
            let path = std::env::temp_dir()
                .join(format!("toolc-run-{}-{n}-{salt:08x}", std::process::id()));
            match std::fs::DirBuilder::new().mode(0o700).create(&path) {
                Ok(()) => return Ok(Scratch { path }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 8 => {
                    attempt += 1;
                }
                Err(e) => {
                    return Err(Box::new(ToolResult::fail(
                        ErrorCode::InternalError,
                        format!(
                            "cannot create a temporary directory {}: {e}",
                            path.display()
                        ),
                    )));
                }
            }
        }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

enum Ran {
    /// The process ran; how, and the sandbox it ran in.
    Done(Outcome, &'static str),
    Failed(Box<ToolResult>),
}

/// Completes `spawn` with the environment (PATH, HOME, TMPDIR and the
/// passthrough names) and the sandbox, and runs it.
fn spawn_confined(
    runner: &Runner,
    mut spawn: Spawn,
    scratch: &Scratch,
    passthrough: &[String],
    mut rules: Rules,
) -> Ran {
    spawn.env = environment(passthrough, &scratch.path);
    rules.read.extend(runner.options.read_dirs.iter().cloned());
    let sandbox = match runner.support {
        Support::Landlock(_) => match Confinement::build(&rules, runner.support) {
            Ok(confinement) => {
                spawn.confinement = Some(confinement);
                "landlock"
            }
            Err(message) => {
                return Ran::Failed(Box::new(ToolResult::fail(
                    ErrorCode::InternalError,
                    message,
                )));
            }
        },
        Support::Unavailable => "none",
    };
    let program = spawn.program.clone();
    match process::run(spawn) {
        Ok(outcome) => Ran::Done(outcome, sandbox),
        Err(process::RunError::Spawn(e)) => {
            // The program could not be executed: the tool's fault (a
            // missing execute bit, a bad interpreter line) or the
            // sandbox's, which then says how to let it through.
            let mut message = format!("cannot start {}: {e}", program.display());
            let denied = matches!(e.raw_os_error(), Some(libc::EACCES) | Some(libc::EPERM));
            if denied && sandbox == "landlock" {
                message.push_str(
                    " (the sandbox may deny the program or its interpreter: --allow-read DIR lets the tool read a directory, --no-sandbox turns Landlock off)",
                );
            }
            let mut result = ToolResult::fail(ErrorCode::ExecutionError, message);
            result.metadata.sandbox = Some(sandbox.into());
            Ran::Failed(Box::new(result))
        }
        Err(process::RunError::Watch(e)) => Ran::Failed(Box::new(ToolResult::fail(
            ErrorCode::InternalError,
            format!(
                "{} started, but toolc could not watch it (it was killed): {e}",
                program.display()
            ),
        ))),
    }
}

/// PATH and HOME from toolc's environment, the tool's declared
/// passthrough variables when set, and TMPDIR pointing at the call's
/// private directory. Nothing else of toolc's environment reaches a tool.
fn environment(passthrough: &[String], tmp: &Path) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = Vec::new();
    for name in ["PATH", "HOME"]
        .into_iter()
        .chain(passthrough.iter().map(String::as_str))
    {
        if name == "TMPDIR" || env.iter().any(|(k, _)| k == name) {
            continue;
        }
        if let Some(value) = std::env::var_os(name) {
            env.push((name.into(), value));
        }
    }
    env.push(("TMPDIR".into(), tmp.as_os_str().to_os_string()));
    env
}

/// Whether the tool declares that it needs no network.
fn denies_network(entry: &Entry) -> bool {
    let permissions = &entry.tool.permissions;
    permissions.allow_http == Some(false)
        || permissions
            .network_egress
            .as_ref()
            .is_some_and(|egress| egress.is_empty())
}

/// The directories a tool may read and write beside its manifest's:
/// AgentStack `allowed_dirs` (relative ones resolve against the manifest
/// directory); `*` leaves the file system unconfined.
fn allowed_dirs(entry: &Entry, home: &Path) -> (Vec<PathBuf>, bool) {
    let Some(dirs) = &entry.tool.permissions.allowed_dirs else {
        return (Vec::new(), false);
    };
    let mut paths = Vec::new();
    for dir in dirs {
        if dir == "*" {
            return (Vec::new(), true);
        }
        // A pattern (`data/*.csv`) is confined to the directory before its
        // first wildcard; the policy checks the pattern itself.
        let dir = match dir.find(['*', '?', '[']) {
            Some(at) => match dir[..at].rfind('/') {
                Some(slash) => &dir[..slash],
                None => ".",
            },
            None => dir.as_str(),
        };
        let dir = if dir.is_empty() { "/" } else { dir };
        paths.push(super::policy::resolve_path(dir, &entry.dir, home));
    }
    (paths, false)
}

/// What a manifest tool's process may touch: its manifest's directory
/// and `read` (its program, its interpreter) for reading, its scratch
/// directory and declared allowed directories for writing, the network
/// unless it declares none.
fn tool_rules(runner: &Runner, entry: &Entry, scratch: &Scratch, read: Vec<PathBuf>) -> Rules {
    let (allowed, any_path) = allowed_dirs(entry, &runner.options.policy.home);
    let mut write = vec![scratch.path.clone()];
    write.extend(allowed);
    let mut readable = vec![entry.dir.clone()];
    readable.extend(read);
    Rules {
        read: readable,
        write,
        any_path,
        deny_tcp: denies_network(entry),
    }
}

fn command(
    runner: &Runner,
    entry: &Entry,
    arguments: &Value,
    argv: &[String],
    timeout: Option<u64>,
    passthrough: &[String],
) -> ToolResult {
    let Some((program, args)) = argv.split_first() else {
        return ToolResult::fail(
            ErrorCode::ExecutionError,
            format!("\"{}\" has an empty command", entry.tool.name),
        );
    };
    let program = if program.contains('/') {
        entry.dir.join(program)
    } else {
        match find_in_path(program) {
            Some(found) => found,
            None => {
                return ToolResult::fail(
                    ErrorCode::ExecutionError,
                    format!(
                        "the program \"{program}\" of \"{}\" is not on PATH",
                        entry.tool.name
                    ),
                );
            }
        }
    };
    if !program.is_file() {
        return ToolResult::fail(
            ErrorCode::ExecutionError,
            format!(
                "the program {} of \"{}\" does not exist",
                program.display(),
                entry.tool.name
            ),
        );
    }
    let limits = Limits::of(runner, entry, timeout);
    let scratch = match Scratch::new() {
        Ok(scratch) => scratch,
        Err(result) => return *result,
    };
    let rules = tool_rules(runner, entry, &scratch, vec![program.clone()]);
    let mut stdin = serde_json::to_vec(arguments).unwrap_or_default();
    stdin.push(b'\n');
    let spawn = Spawn {
        program,
        args: args.iter().map(OsString::from).collect(),
        cwd: entry.dir.clone(),
        env: Vec::new(),
        stdin,
        timeout: limits.timeout,
        max_output: runner.options.max_output,
        memory: limits.memory,
        confinement: None,
    };
    match spawn_confined(runner, spawn, &scratch, passthrough, rules) {
        Ran::Done(outcome, sandbox) => command_result(outcome, &limits, runner, sandbox),
        Ran::Failed(result) => *result,
    }
}

fn find_in_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// A process that exited by itself.
struct Exit {
    code: Option<i32>,
    signal: Option<i32>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

/// The failures every process executor reports alike; `Ok` with the
/// streams of a process that exited by itself.
fn common_outcome(
    outcome: Outcome,
    limits: &Limits,
    runner: &Runner,
    sandbox: &'static str,
) -> Result<Exit, Box<ToolResult>> {
    match outcome {
        Outcome::TimedOut { stderr } => {
            let mut details = Map::new();
            details.insert(
                "timeout_ms".into(),
                json!(limits.timeout.as_millis() as u64),
            );
            if !stderr.is_empty() {
                details.insert("stderr".into(), json!(quote(&stderr)));
            }
            let mut result = ToolResult::fail_with(
                ErrorCode::Timeout,
                format!(
                    "the tool exceeded its time limit of {} and was killed with its process group",
                    seconds(limits.timeout)
                ),
                details,
            );
            result.metadata.sandbox = Some(sandbox.into());
            Err(Box::new(result))
        }
        Outcome::TooLarge => {
            let mut details = Map::new();
            details.insert("limit_bytes".into(), json!(runner.options.max_output));
            let mut result = ToolResult::fail_with(
                ErrorCode::OutputTooLarge,
                format!(
                    "the tool printed more than {} bytes on stdout and was killed",
                    runner.options.max_output
                ),
                details,
            );
            result.metadata.sandbox = Some(sandbox.into());
            Err(Box::new(result))
        }
        Outcome::Exited {
            code,
            signal,
            stdout,
            stderr,
        } => Ok(Exit {
            code,
            signal,
            stdout,
            stderr,
        }),
    }
}

fn seconds(duration: Duration) -> String {
    let ms = duration.as_millis();
    if ms == 0 {
        format!("{} µs", duration.as_micros())
    } else if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{:.3} s", duration.as_secs_f64())
    }
}

/// Up to [`QUOTE_LIMIT`] bytes of a stream, as text.
fn quote(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim();
    if text.len() <= QUOTE_LIMIT {
        return text.to_string();
    }
    let mut end = QUOTE_LIMIT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

fn with_process(
    mut result: ToolResult,
    code: Option<i32>,
    signal: Option<i32>,
    sandbox: &'static str,
) -> ToolResult {
    result.metadata.exit_code = code;
    result.metadata.signal = signal;
    result.metadata.sandbox = Some(sandbox.into());
    result
}

/// The message of a JSON error a tool printed on stderr:
/// `{"error": "..."}`, `{"error": {"message": "..."}}` or
/// `{"message": "..."}`.
fn error_message(stderr: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(stderr).ok()?;
    let line = text.lines().rev().find(|l| !l.trim().is_empty())?;
    let value: Value = serde_json::from_str(line.trim()).ok()?;
    let error = value.get("error").unwrap_or(&value);
    match error {
        Value::String(message) => Some(message.clone()),
        Value::Object(object) => object
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_string),
        _ => None,
    }
}

fn died(code: Option<i32>, signal: Option<i32>) -> String {
    match (code, signal) {
        (Some(code), _) => format!("the tool exited with status {code}"),
        (None, Some(signal)) => format!("the tool was killed by signal {signal}"),
        (None, None) => "the tool ended abnormally".to_string(),
    }
}

fn command_result(
    outcome: Outcome,
    limits: &Limits,
    runner: &Runner,
    sandbox: &'static str,
) -> ToolResult {
    let Exit {
        code,
        signal,
        stdout,
        stderr,
    } = match common_outcome(outcome, limits, runner, sandbox) {
        Ok(exit) => exit,
        Err(result) => return *result,
    };
    if code != Some(0) {
        let mut details = Map::new();
        let message = match error_message(&stderr) {
            Some(message) => message,
            None => {
                if !stderr.is_empty() {
                    details.insert("stderr".into(), json!(quote(&stderr)));
                }
                died(code, signal)
            }
        };
        if let Some(memory) = limits.memory {
            // A tool out of address space often dies of a signal or a
            // bare allocation error: say what bounded it.
            details.insert("memory_limit_bytes".into(), json!(memory));
        }
        let result = ToolResult::fail_with(ErrorCode::ExecutionError, message, details);
        return with_process(result, code, signal, sandbox);
    }
    let result = match parse_output(&stdout) {
        Ok(value) => ToolResult::ok(value),
        Err(why) => {
            let mut details = Map::new();
            details.insert("stdout".into(), json!(quote(&stdout)));
            ToolResult::fail_with(
                ErrorCode::InvalidOutput,
                format!("the tool must print one line of JSON on stdout, but {why}"),
                details,
            )
        }
    };
    with_process(result, code, signal, sandbox)
}

/// Stdout as the one JSON value the tool promised.
fn parse_output(stdout: &[u8]) -> Result<Value, String> {
    let text = std::str::from_utf8(stdout)
        .map_err(|_| "it printed bytes that are not UTF-8".to_string())?;
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err("it printed nothing".to_string());
    }
    serde_json::from_str(trimmed).map_err(|e| format!("what it printed is not JSON ({e})"))
}

/// `shell`'s result: its exit status, stdout and stderr, whatever the
/// status (a failing command is still a command that ran).
fn shell_result(
    outcome: Outcome,
    limits: &Limits,
    runner: &Runner,
    sandbox: &'static str,
) -> ToolResult {
    match common_outcome(outcome, limits, runner, sandbox) {
        Ok(Exit {
            code,
            signal,
            stdout,
            stderr,
        }) => {
            let result = ToolResult::ok(json!({
                "exit_code": code,
                "stdout": String::from_utf8_lossy(&stdout),
                "stderr": String::from_utf8_lossy(&stderr),
            }));
            with_process(result, code, signal, sandbox)
        }
        Err(result) => *result,
    }
}

fn python(runner: &Runner, entry: &Entry, request: Value) -> ToolResult {
    let interpreter = match runner
        .python
        .get_or_init(|| describe_python(&runner.options.python))
    {
        Ok(python) => python.clone(),
        Err(message) => return ToolResult::fail(ErrorCode::InternalError, message.clone()),
    };
    let limits = Limits::of(runner, entry, None);
    let scratch = match Scratch::new() {
        Ok(scratch) => scratch,
        Err(result) => return *result,
    };
    let mut read = vec![interpreter.executable.clone()];
    read.extend(interpreter.dirs.iter().cloned());
    let rules = tool_rules(runner, entry, &scratch, read);
    let passthrough: Vec<String> = match entry.format {
        Format::Agentstack => entry.package_env.clone(),
        _ => Vec::new(),
    };
    let spawn = Spawn {
        program: interpreter.executable.clone(),
        args: vec!["-I".into(), "-B".into(), "-c".into(), BOOTSTRAP.into()],
        cwd: entry.dir.clone(),
        env: Vec::new(),
        stdin: serde_json::to_vec(&request).unwrap_or_default(),
        timeout: limits.timeout,
        // The response wraps the output: leave room for its envelope.
        max_output: runner.options.max_output.saturating_add(4096),
        memory: limits.memory,
        confinement: None,
    };
    let (outcome, sandbox) = match spawn_confined(runner, spawn, &scratch, &passthrough, rules) {
        Ran::Done(outcome, sandbox) => (outcome, sandbox),
        Ran::Failed(result) => return *result,
    };
    let Exit {
        code,
        signal,
        stdout,
        stderr,
    } = match common_outcome(outcome, &limits, runner, sandbox) {
        Ok(exit) => exit,
        Err(result) => return *result,
    };
    let response: Option<Value> = std::str::from_utf8(&stdout)
        .ok()
        .and_then(|text| serde_json::from_str(text.trim()).ok());
    let Some(response) = response else {
        let mut details = Map::new();
        if !stderr.is_empty() {
            details.insert("stderr".into(), json!(quote(&stderr)));
        }
        if let Some(memory) = limits.memory {
            details.insert("memory_limit_bytes".into(), json!(memory));
        }
        let message = format!("{} before it answered", died(code, signal));
        return with_process(
            ToolResult::fail_with(ErrorCode::ExecutionError, message, details),
            code,
            signal,
            sandbox,
        );
    };
    let result = if response.get("ok") == Some(&Value::Bool(true)) {
        ToolResult::ok(response.get("output").cloned().unwrap_or(Value::Null))
    } else {
        let kind = response
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("Exception");
        let message = response
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if kind == "toolc.InvalidOutput" {
            ToolResult::fail(ErrorCode::InvalidOutput, message)
        } else {
            let mut details = Map::new();
            details.insert("type".into(), json!(kind));
            details.insert("message".into(), json!(message));
            let text = if message.is_empty() {
                kind.to_string()
            } else {
                format!("{kind}: {message}")
            };
            ToolResult::fail_with(ErrorCode::ExecutionError, text, details)
        }
    };
    with_process(result, code, signal, sandbox)
}

/// Asks the interpreter where it lives: a shim (pyenv, asdf) in front of
/// it would otherwise need its own files inside the sandbox.
fn describe_python(python: &Path) -> Result<Python, String> {
    let script = "import json, sys; print(json.dumps([sys.executable, sys.prefix, sys.base_prefix, sys.path]))";
    // Bounded like a tool: an interpreter that hangs or floods its output
    // must not hang the call.
    let spawn = Spawn {
        program: python.to_path_buf(),
        args: vec!["-I".into(), "-c".into(), script.into()],
        cwd: std::env::temp_dir(),
        env: environment(&[], &std::env::temp_dir()),
        stdin: Vec::new(),
        timeout: Duration::from_secs(20),
        max_output: 1024 * 1024,
        memory: None,
        confinement: None,
    };
    let not_python = |why: String| {
        format!(
            "{} did not describe itself as a Python interpreter: {why}",
            python.display()
        )
    };
    let (stdout, stderr) = match process::run(spawn) {
        Ok(Outcome::Exited {
            code: Some(0),
            stdout,
            stderr,
            ..
        }) => (stdout, stderr),
        Ok(Outcome::Exited {
            code,
            signal,
            stderr,
            ..
        }) => {
            return Err(not_python(format!(
                "{} {}",
                died(code, signal),
                quote(&stderr)
            )));
        }
        Ok(Outcome::TimedOut { .. }) => {
            return Err(not_python("it did not answer within 20 s".into()));
        }
        Ok(Outcome::TooLarge) => return Err(not_python("it printed more than 1 MiB".into())),
        Err(process::RunError::Spawn(e) | process::RunError::Watch(e)) => {
            return Err(format!(
                "cannot start the Python interpreter {}: {e}",
                python.display()
            ));
        }
    };
    let described: Option<(String, String, String, Vec<String>)> = std::str::from_utf8(&stdout)
        .ok()
        .and_then(|text| serde_json::from_str(text.trim()).ok());
    let Some((executable, prefix, base_prefix, path)) = described else {
        return Err(not_python(quote(&stderr)));
    };
    let mut dirs: Vec<PathBuf> = vec![prefix.into(), base_prefix.into()];
    dirs.extend(
        path.into_iter()
            .filter(|p| !p.is_empty())
            .map(PathBuf::from),
    );
    Ok(Python {
        executable: executable.into(),
        dirs,
    })
}
