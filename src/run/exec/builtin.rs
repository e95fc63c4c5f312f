//! The built-in executor: runs the built-in tools of
//! [`crate::run::builtin`] in process, and `shell`'s command line as a
//! Bash process confined to the workspace: Bash is what the policy parses
//! (`/bin/sh`, dash on Debian, reads `$'…'` and aliases otherwise). Only
//! on a machine without Bash does `/bin/sh` run it, and the policy then
//! refuses what the two read differently.

use std::path::PathBuf;

use serde_json::Value;

use super::Call;
use crate::run::builtin::{Action, Builtin, Workspace};
use crate::run::{ErrorCode, ToolResult};
#[cfg(target_os = "linux")]
use {
    super::{Exit, Limits, Ran, Scratch, common_outcome, spawn_confined, with_process},
    crate::run::Runner,
    crate::run::process::{Outcome, Spawn},
    crate::run::sandbox::{Rules, SYSTEM_READ, SandboxMode},
    serde_json::json,
    std::ffi::OsString,
    std::path::Path,
};

/// Runs a built-in tool: in process, or `shell` as `bash -c` (or
/// `/bin/sh -c` without Bash).
pub(super) fn run(call: &Call, builtin: Builtin, arguments: &Value) -> ToolResult {
    let Some(workspace) = &call.runner.workspace else {
        return ToolResult::fail(
            ErrorCode::InternalError,
            "the built-in tools need a workspace",
        );
    };
    match crate::run::builtin::run(workspace, builtin, arguments) {
        Action::Done(result) => result,
        Action::Shell { command, cwd } => shell(call, workspace, command, cwd),
    }
}

/// Runs `shell`'s command line as `bash -c` (or `/bin/sh -c` without
/// Bash), confined to the workspace.
#[cfg(target_os = "linux")]
fn shell(call: &Call, workspace: &Workspace, command: String, cwd: PathBuf) -> ToolResult {
    let (runner, entry) = (call.runner, call.entry);
    let limits = Limits::of(runner, entry, None);
    let (program, mut args) = match crate::run::policy::bash() {
        // No profile, no rc file: nothing but the command runs.
        Some(bash) => (
            bash.to_path_buf(),
            vec!["--noprofile".into(), "--norc".into()],
        ),
        None => (PathBuf::from("/bin/sh"), Vec::new()),
    };
    args.extend(["-c".into(), command.into()]);
    let mut env = Vec::new();
    if runner.sandbox_mode().landlock()
        && let Some(path) = sandbox_path(runner, workspace.root())
    {
        env.push(("PATH".into(), path));
    }
    let spawn = Spawn {
        program: program.clone(),
        args,
        cwd,
        env,
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
        read: vec![program],
        write: vec![workspace.root().to_path_buf(), scratch.path.clone()],
        any_path: false,
        no_network: false,
        // The shell reaches what fetch reaches, through the proxy.
        proxy: true,
    };
    let result = spawn_confined(call, spawn, &scratch, &[], rules);
    match result {
        Ran::Done(outcome, sandbox) => shell_result(outcome, &limits, runner, sandbox),
        Ran::Failed(result) => *result,
    }
}

/// Where toolc starts no tool process, `shell` is refused.
#[cfg(not(target_os = "linux"))]
fn shell(call: &Call, _workspace: &Workspace, _command: String, _cwd: PathBuf) -> ToolResult {
    super::no_process(&call.entry.tool.name)
}

#[cfg(target_os = "linux")]
/// toolc's PATH without the directories the sandbox does not let the
/// shell read: Bash runs the first file of a name it finds on the PATH,
/// even one the sandbox will not let it execute (a `~/.pyenv/shims`
/// before `/usr/bin`), where dash tries the next.
fn sandbox_path(runner: &Runner, workspace: &Path) -> Option<OsString> {
    let path = std::env::var_os("PATH")?;
    let readable: Vec<&Path> = SYSTEM_READ
        .iter()
        .map(Path::new)
        .chain(runner.options.read_dirs.iter().map(PathBuf::as_path))
        .chain([workspace])
        .collect();
    let kept =
        std::env::split_paths(&path).filter(|dir| readable.iter().any(|r| dir.starts_with(r)));
    std::env::join_paths(kept).ok()
}

#[cfg(target_os = "linux")]
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
