//! The Python executor: NORA entrypoint scripts and AgentStack package
//! functions, both run through toolc's bootstrap
//! (`templates/run/bootstrap.py`), which imports the code, calls the
//! function with the arguments and answers with one JSON line.
//!
//! By default a call runs warm, in a fresh fork of a server that imported
//! the tool once ([`super::warm`]); with `RunnerOptions::cold` each call
//! starts its own interpreter. Both answer alike: this module turns the
//! bootstrap's response into the result either way.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::{
    Call, Exit, Limits, Ran, Scratch, common_outcome, died, environment, quote, spawn_confined,
    tool_rules, warm, with_process,
};
use crate::run::process::{self, Outcome, Spawn};
use crate::run::sandbox::SandboxMode;
use crate::run::{ErrorCode, ToolResult};

/// The bootstrap every Python call goes through (see the file's docs).
const BOOTSTRAP: &str = include_str!("../../../templates/run/bootstrap.py");

/// What a Python tool runs, from its lowered runtime.
#[derive(Debug, Clone)]
pub(in crate::run) struct PythonTool {
    target: Target,
    /// Environment variables passed through when set (AgentStack `env`).
    passthrough: Vec<String>,
}

/// The code a Python tool calls.
#[derive(Debug, Clone)]
enum Target {
    /// A NORA entrypoint script and its function.
    Script { file: PathBuf, function: String },
    /// A function of an AgentStack package's `__init__.py`, imported as
    /// `package`.
    Package {
        file: PathBuf,
        package: String,
        function: String,
    },
}

impl PythonTool {
    /// A NORA script `entrypoint` (relative to the manifest's `dir`).
    pub(super) fn script(dir: &Path, entrypoint: &str, function: &str) -> PythonTool {
        PythonTool {
            target: Target::Script {
                file: dir.join(entrypoint),
                function: function.to_string(),
            },
            passthrough: Vec::new(),
        }
    }

    /// A function of the AgentStack package `module` in `dir`, whose
    /// declared environment variables pass through.
    pub(super) fn package(
        dir: &Path,
        module: &str,
        function: &str,
        package_env: &[String],
    ) -> PythonTool {
        PythonTool {
            target: Target::Package {
                file: dir.join(crate::formats::agentstack::MODULE_FILE),
                package: python_package_name(module, dir),
                function: function.to_string(),
            },
            passthrough: package_env.to_vec(),
        }
    }

    /// The code the bootstrap imports: a request without its function
    /// and arguments.
    fn code(&self) -> Value {
        match &self.target {
            Target::Script { file, .. } => json!({"kind": "script", "file": file}),
            Target::Package { file, package, .. } => json!({
                "kind": "package",
                "file": file,
                "package": package,
            }),
        }
    }

    /// The bootstrap's request for one call.
    fn request(&self, arguments: &Value) -> Value {
        let function = match &self.target {
            Target::Script { function, .. } | Target::Package { function, .. } => function,
        };
        let mut request = self.code();
        if let Some(object) = request.as_object_mut() {
            object.insert("function".into(), json!(function));
            object.insert("arguments".into(), arguments.clone());
        }
        request
    }
}

/// The interpreter, as it describes itself.
#[derive(Debug, Clone)]
pub(in crate::run) struct Python {
    /// `sys.executable`: the real binary, not a shim in front of it.
    executable: PathBuf,
    /// `sys.prefix`, `sys.base_prefix` and the import path: what the
    /// interpreter reads.
    dirs: Vec<PathBuf>,
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

/// Runs a Python tool through the bootstrap, warm or cold.
pub(super) fn run(call: &Call, tool: &PythonTool, arguments: &Value) -> ToolResult {
    let runner = call.runner;
    let interpreter = match runner
        .processes
        .python
        .get_or_init(|| describe_python(&runner.options.python))
    {
        Ok(python) => python.clone(),
        Err(message) => return ToolResult::fail(ErrorCode::InternalError, message.clone()),
    };
    let limits = Limits::of(runner, call.entry, None);
    // The response wraps the output: leave room for its envelope.
    let max_output = runner.options.max_output.saturating_add(4096);
    let mut read = vec![interpreter.executable.clone()];
    read.extend(interpreter.dirs.iter().cloned());
    // A proxied tool's proxy lives for one call: no fork server.
    let ran = if runner.options.cold || super::egress_proxied(call.entry) {
        cold(
            call,
            tool,
            arguments,
            &interpreter,
            &limits,
            read,
            max_output,
        )
    } else {
        warm::run(
            &runner.processes.python_servers,
            &warm::WarmCall {
                call,
                program: &interpreter.executable,
                read,
                target: tool.code(),
                request: tool.request(arguments),
                passthrough: &tool.passthrough,
                limits: &limits,
                max_output,
            },
        )
    };
    let (outcome, sandbox) = match ran {
        Ran::Done(outcome, sandbox) => (outcome, sandbox),
        Ran::Failed(result) => return *result,
    };
    respond(outcome, &limits, call, sandbox)
}

/// One interpreter for this call only.
fn cold(
    call: &Call,
    tool: &PythonTool,
    arguments: &Value,
    interpreter: &Python,
    limits: &Limits,
    read: Vec<PathBuf>,
    max_output: usize,
) -> Ran {
    let (runner, entry) = (call.runner, call.entry);
    let scratch = match Scratch::new() {
        Ok(scratch) => scratch,
        Err(result) => return Ran::Failed(result),
    };
    let rules = tool_rules(runner, entry, &scratch, read);
    let spawn = Spawn {
        program: interpreter.executable.clone(),
        args: vec!["-I".into(), "-B".into(), "-c".into(), BOOTSTRAP.into()],
        cwd: entry.dir.clone(),
        env: Vec::new(),
        stdin: serde_json::to_vec(&tool.request(arguments)).unwrap_or_default(),
        timeout: limits.timeout,
        max_output,
        memory: limits.memory,
        confinement: None,
        cancel: None,
    };
    // The scratch directory is removed when this returns: the process
    // has ended by then.
    spawn_confined(call, spawn, &scratch, &tool.passthrough, rules)
}

/// The result of a bootstrap's (or a forked call's) outcome.
fn respond(outcome: Outcome, limits: &Limits, call: &Call, sandbox: SandboxMode) -> ToolResult {
    let runner = call.runner;
    let Exit {
        code,
        signal,
        stdout,
        stderr,
    } = match common_outcome(outcome, limits, runner, sandbox) {
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
        } else if kind == "toolc.SandboxError" {
            // The call's own sandbox layer failed: it did not run.
            ToolResult::fail(ErrorCode::InternalError, message)
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
        cancel: None,
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
        // Nothing cancels the description: it has no token.
        Ok(Outcome::Cancelled { .. }) => return Err(not_python("it was cancelled".into())),
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
