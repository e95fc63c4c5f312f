//! The built-in executor: runs the built-in tools of
//! [`crate::run::builtin`] in process, and `shell`'s command line as a
//! `/bin/sh` process confined to the workspace.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::{Call, Exit, Limits, Ran, Scratch, common_outcome, spawn_confined, with_process};
use crate::run::builtin::{Action, Builtin};
use crate::run::process::{Outcome, Spawn};
use crate::run::sandbox::{Rules, SandboxMode};
use crate::run::{ErrorCode, Runner, ToolResult};

/// Runs a built-in tool: in process, or `shell` as `/bin/sh -c`.
pub(super) fn run(call: &Call, builtin: Builtin, arguments: &Value) -> ToolResult {
    let (runner, entry) = (call.runner, call.entry);
    let Some(workspace) = &runner.workspace else {
        return ToolResult::fail(
            ErrorCode::InternalError,
            "the built-in tools need a workspace",
        );
    };
    match crate::run::builtin::run(workspace, builtin, arguments) {
        Action::Done(result) => result,
        Action::Shell { command, cwd } => {
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
                cancel: None,
            };
            let scratch = match Scratch::new() {
                Ok(scratch) => scratch,
                Err(result) => return *result,
            };
            let rules = Rules {
                read: vec![PathBuf::from("/bin/sh")],
                write: vec![workspace.root().to_path_buf(), scratch.path.clone()],
                any_path: false,
                no_network: false,
            };
            let result = spawn_confined(call, spawn, &scratch, &[], rules);
            match result {
                Ran::Done(outcome, sandbox) => shell_result(outcome, &limits, runner, sandbox),
                Ran::Failed(result) => *result,
            }
        }
    }
}

/// `shell`'s result: its exit status, stdout and stderr, whatever the
/// status (a failing command is still a command that ran).
fn shell_result(
    outcome: Outcome,
    limits: &Limits,
    runner: &Runner,
    sandbox: SandboxMode,
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
