//! The command executor: an agentcli tool's program, run with its argv
//! (never through a shell), the arguments as one JSON line on stdin, and
//! one JSON value expected on stdout. Under the sandbox the program's
//! interpreters (its `#!` line, through `env` and the tool's PATH) get
//! their installations readable (see [`super::interpreter`]), and a
//! failure that looks like the sandbox's names them.

use std::ffi::OsString;
use std::path::Path;

use serde_json::{Map, Value, json};

use super::interpreter::{self, Context, Resolution};
use super::{
    Call, Exit, Limits, Ran, Scratch, common_outcome, died, environment, error_message, quote,
    spawn_confined, tool_rules, with_process,
};
use crate::run::process::{Outcome, Spawn};
use crate::run::sandbox::{Rules, SandboxMode, Support};
use crate::run::{ErrorCode, Runner, ToolResult};

/// What in a failed tool's stderr or message suggests the sandbox denied
/// a read: then the message names the interpreters.
const DENIALS: &[&str] = &[
    "Permission denied",
    "Operation not permitted",
    "PermissionError",
    "EACCES",
    "EPERM",
    "No module named",
];

/// What a command tool runs, from its `Runtime::Command`.
#[derive(Debug, Clone)]
pub(in crate::run) struct CommandTool {
    /// The program (relative paths resolve against the manifest's
    /// directory; bare names are looked up on PATH) and its arguments.
    pub argv: Vec<String>,
    /// The manifest's time limit (agentcli `timeoutSec`).
    pub timeout_sec: Option<u64>,
    /// Environment variables passed through when set.
    pub env_passthrough: Vec<String>,
    /// The format of the manifest, when it is not agentcli: the tool runs
    /// the agentcli command it was converted from (kept in `"x-toolc"`).
    pub converted_into: Option<crate::ir::Format>,
}

/// Runs an agentcli tool's program.
pub(super) fn run(call: &Call, tool: &CommandTool, arguments: &Value) -> ToolResult {
    let (runner, entry) = (call.runner, call.entry);
    let Some((program, args)) = tool.argv.split_first() else {
        return ToolResult::fail(
            ErrorCode::ExecutionError,
            format!("\"{}\" has an empty command", entry.tool.name),
        );
    };
    let program = if program.contains('/') {
        entry.dir.join(program)
    } else {
        let cwd = std::env::current_dir().unwrap_or_default();
        let path = std::env::var_os("PATH");
        match interpreter::which(program, path.as_deref(), &cwd) {
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
        let converted = tool.converted_into.map(|format| {
            format!(
                ": this {format} tool runs the agentcli program it was converted from (kept in \"x-toolc\"), resolved against {}; put the program there, or remove \"agentcli\" from the tool's \"x-toolc\" to run its {format} code instead",
                entry.dir.display()
            )
        });
        return ToolResult::fail(
            ErrorCode::ExecutionError,
            format!(
                "the program {} of \"{}\" does not exist{}",
                program.display(),
                entry.tool.name,
                converted.unwrap_or_default()
            ),
        );
    }
    let limits = Limits::of(runner, entry, tool.timeout_sec);
    let scratch = match Scratch::new() {
        Ok(scratch) => scratch,
        Err(result) => return *result,
    };
    let mut rules = tool_rules(runner, entry, &scratch, vec![program.clone()]);
    let resolution = interpreters(call, tool, (&program, args), &scratch, &rules, &limits);
    rules.read.extend(resolution.read.iter().cloned());
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
        cancel: None,
    };
    match spawn_confined(call, spawn, &scratch, &tool.env_passthrough, rules) {
        Ran::Done(outcome, sandbox) => {
            let result = command_result(outcome, &limits, runner, sandbox);
            let denied = result.error.as_ref().is_some_and(|error| {
                let stderr = error.details.get("stderr").and_then(Value::as_str);
                let text = format!("{} {}", error.message, stderr.unwrap_or_default());
                DENIALS.iter().any(|denial| text.contains(denial))
            });
            if denied {
                name_interpreters(result, &resolution)
            } else {
                result
            }
        }
        // A limit reached is not the sandbox's doing.
        Ran::Failed(result)
            if result.error.as_ref().map(|e| e.code) == Some(ErrorCode::ResourceLimit) =>
        {
            *result
        }
        Ran::Failed(result) => name_interpreters(*result, &resolution),
    }
}

/// The interpreters `program` runs through and what they read, when the
/// sandbox confines the file system (nothing to add otherwise).
fn interpreters(
    call: &Call,
    tool: &CommandTool,
    (program, args): (&Path, &[String]),
    scratch: &Scratch,
    rules: &Rules,
    limits: &Limits,
) -> Resolution {
    let runner = call.runner;
    if !matches!(runner.support, Support::Landlock(_)) || rules.any_path {
        return Resolution::default();
    }
    let env = environment(&tool.env_passthrough, &scratch.path);
    let mut untrusted = vec![call.entry.dir.clone()];
    untrusted.extend(rules.write.iter().cloned());
    let context = Context {
        env: &env,
        passthrough: &tool.env_passthrough,
        cwd: &call.entry.dir,
        home: &runner.options.policy.home,
        untrusted: &untrusted,
        allowed: &runner.options.read_dirs,
        support: runner.support,
        namespaces: runner.namespaces.is_ok(),
        cache: &runner.processes.interpreters,
        timeout: limits.timeout,
        cancel: call.cancel,
    };
    interpreter::resolve(program, args, &context)
}

/// A failure under the sandbox, with the interpreters the program runs
/// through named, what they may read, and how to let them read more.
fn name_interpreters(mut result: ToolResult, resolution: &Resolution) -> ToolResult {
    let named = resolution.named();
    let confined = result
        .metadata
        .sandbox
        .is_some_and(|mode| mode != SandboxMode::Unconfined);
    let Some(error) = result.error.as_mut() else {
        return result;
    };
    if named.is_empty() || !confined {
        return result;
    }
    let list: Vec<String> = named.iter().map(|p| p.display().to_string()).collect();
    let whose = if list.len() == 1 {
        "its installation"
    } else {
        "their installations"
    };
    error.message.push_str(&format!(
        "; under the sandbox {} may read only {whose} (details.sandbox_read): \
         --allow-read DIR lets the tool read more, --no-sandbox turns Landlock off",
        list.join(", then ")
    ));
    error.details.insert("interpreters".into(), json!(list));
    error
        .details
        .insert("sandbox_read".into(), json!(resolution.read));
    if !resolution.undescribed.is_empty() {
        error
            .details
            .insert("undescribed".into(), json!(resolution.undescribed));
    }
    result
}

fn command_result(
    outcome: Outcome,
    limits: &Limits,
    runner: &Runner,
    sandbox: SandboxMode,
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
