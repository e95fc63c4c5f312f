//! The command executor: an agentcli tool's program, run with its argv
//! (never through a shell), the arguments as one JSON line on stdin, and
//! one JSON value expected on stdout.

use std::ffi::OsString;
use std::path::PathBuf;

use serde_json::{Map, Value, json};

use super::{
    Call, Exit, Limits, Ran, Scratch, common_outcome, died, error_message, quote, spawn_confined,
    tool_rules, with_process,
};
use crate::run::process::{Outcome, Spawn};
use crate::run::sandbox::SandboxMode;
use crate::run::{ErrorCode, Runner, ToolResult};

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
    let limits = Limits::of(runner, entry, tool.timeout_sec);
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
        cancel: None,
    };
    match spawn_confined(call, spawn, &scratch, &tool.env_passthrough, rules) {
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
