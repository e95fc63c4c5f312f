//! The rules a tool's own manifest asks for: Nachos security tiers and
//! network egress, AgentStack `allowed_dirs`, `allowed_extensions`,
//! `allow_http` and `actions`.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::arguments::{Arguments, key_words};
use super::paths::{AllowedDir, resolve};
use super::{Denial, DenialRule, argument_denial};
use crate::ir::{Action, Tool};

/// `security-tier`: tier 4 never runs and a tier outside 0..=4 is refused;
/// the approval of tier 3 is asked last, in [`super::Policy::check`].
pub(super) fn tier_bounds(tool: &Tool) -> Result<(), Denial> {
    match tool.permissions.security_tier {
        Some(tier @ 4) => Err(tool_denial(
            DenialRule::SecurityTier,
            tool,
            format!("has security tier {tier}, which never runs"),
        )),
        Some(tier) if !(0..=4).contains(&tier) => Err(tool_denial(
            DenialRule::SecurityTier,
            tool,
            format!("has security tier {tier}, outside the valid range 0 to 4"),
        )),
        _ => Ok(()),
    }
}

pub(super) fn tool_denial(rule: DenialRule, tool: &Tool, reason: String) -> Denial {
    Denial {
        rule,
        message: format!("Tool `{}` {reason}.", tool.name),
    }
}

/// `allow-http`: with `allow_http: false` or an empty Nachos egress list,
/// no argument may be a network URL, nor may a command contain one.
pub(super) fn network(tool: &Tool, arguments: &Arguments) -> Result<(), Denial> {
    static URL: LazyLock<Result<Regex, regex::Error>> =
        LazyLock::new(|| Regex::new(r"(?i)\b(https?|ftps?|wss?)://"));
    let permissions = &tool.permissions;
    let why = if permissions.allow_http == Some(false) {
        "is a network URL and the tool declares `allow_http: false`"
    } else if permissions
        .network_egress
        .as_ref()
        .is_some_and(Vec::is_empty)
    {
        "is a network URL and the tool declares no network egress"
    } else {
        return Ok(());
    };
    let regex = match &*URL {
        Ok(regex) => regex,
        Err(error) => return Err(internal(error)),
    };
    arguments.first(|argument| {
        let text = argument.value.trim_start();
        let found = regex.find(text)?;
        (argument.command || found.start() == 0)
            .then(|| argument_denial(DenialRule::AllowHttp, argument, why))
    })
}

pub(super) fn internal(error: &regex::Error) -> Denial {
    Denial {
        rule: DenialRule::PolicyInternal,
        message: format!("A built-in policy pattern does not compile ({error}), so nothing runs."),
    }
}

/// `allowed-dirs`: every path argument must be inside one of the tool's
/// `allowed_dirs` (relative to the manifest's directory, absolute, `~`,
/// globs, or `*` for anywhere).
pub(super) fn allowed_dirs(
    tool: &Tool,
    arguments: &Arguments,
    dir: &Path,
    home: &Path,
) -> Result<(), Denial> {
    let Some(entries) = &tool.permissions.allowed_dirs else {
        return Ok(());
    };
    let allowed: Vec<AllowedDir> = entries
        .iter()
        .filter_map(|entry| AllowedDir::new(entry, dir, home))
        .collect();
    arguments.first(|argument| {
        if !argument.path {
            return None;
        }
        let path = resolve(&argument.value, dir, home);
        if allowed.iter().any(|a| a.contains(&path)) {
            return None;
        }
        let listed = if entries.is_empty() {
            "none".to_string()
        } else {
            entries.join(", ")
        };
        let why = format!("resolves to `{path}`, outside the allowed directories ({listed})");
        Some(argument_denial(DenialRule::AllowedDirs, argument, &why))
    })
}

/// `allowed-extensions`: with `allowed_extensions` in the permissions
/// (`["*"]`, `[".txt", "md"]`), a path argument with an extension, or any
/// path under a file key (`file_path`), must have one of them.
pub(super) fn allowed_extensions(tool: &Tool, arguments: &Arguments) -> Result<(), Denial> {
    let Some(Value::Array(entries)) = tool.permissions.extra.get("allowed_extensions") else {
        return Ok(());
    };
    let allowed: Vec<String> = entries
        .iter()
        .filter_map(Value::as_str)
        .map(|e| {
            e.trim()
                .trim_start_matches('*')
                .trim_start_matches('.')
                .to_lowercase()
        })
        .collect();
    if allowed.iter().any(String::is_empty) {
        // `*` (or `.*`): any extension.
        return Ok(());
    }
    arguments.first(|argument| {
        if !argument.path {
            return None;
        }
        let name = argument.value.rsplit('/').next().unwrap_or("");
        let extension = Path::new(name)
            .extension()
            .map(|e| e.to_string_lossy().to_lowercase());
        let why = match extension {
            Some(extension) if allowed.contains(&extension) => return None,
            Some(extension) => format!("has the extension `.{extension}`"),
            None if argument.file_key => "names a file without an extension".to_string(),
            None => return None,
        };
        let why = format!(
            "{why}, not one of the allowed extensions ({})",
            allowed.join(", ")
        );
        Some(argument_denial(
            DenialRule::AllowedExtensions,
            argument,
            &why,
        ))
    })
}

/// `undeclared-action`: when the tool lists its `actions`, a call may not
/// need one it does not list. The name's first word gives the action
/// (`delete_file` deletes, `write_note` writes, `run_tests` executes,
/// anything else reads); a command argument needs `execute`. An action is
/// declared as AgentStack spells it ([`Action`]): `"Write"` is no `write`,
/// as lint's `unknown-action` says.
pub(super) fn actions(tool: &Tool, arguments: &Arguments) -> Result<(), Denial> {
    let Some(declared) = &tool.permissions.actions else {
        return Ok(());
    };
    let declares = |action: &Action| declared.contains(action);
    let listed = if declared.is_empty() {
        "none".to_string()
    } else {
        declared
            .iter()
            .map(Action::as_str)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (action, verb) = action_of_name(&tool.name);
    if !declares(&action) {
        let reason = format!(
            "needs the `{action}` action (its name says `{verb}`), which its permissions do not declare (declared: {listed})"
        );
        return Err(tool_denial(DenialRule::UndeclaredAction, tool, reason));
    }
    if declares(&Action::Execute) {
        return Ok(());
    }
    arguments.first(|argument| {
        if !argument.command || argument.value.trim().is_empty() {
            return None;
        }
        let why = format!(
            "is a command, which needs the `{}` action the tool does not declare (declared: {listed})",
            Action::Execute
        );
        Some(argument_denial(
            DenialRule::UndeclaredAction,
            argument,
            &why,
        ))
    })
}

/// The action a tool's name implies, and the word that implies it.
fn action_of_name(name: &str) -> (Action, String) {
    const DELETE: &[&str] = &["delete", "remove", "rm", "del", "unlink", "erase", "purge"];
    const WRITE: &[&str] = &[
        "write", "create", "update", "save", "put", "set", "edit", "append", "move", "mv",
        "rename", "mkdir", "insert", "patch", "modify", "upsert",
    ];
    const EXECUTE: &[&str] = &["run", "exec", "execute", "shell", "bash"];
    let words = key_words(name);
    let first = words.first().cloned().unwrap_or_default();
    if DELETE.contains(&first.as_str()) {
        (Action::Delete, first)
    } else if WRITE.contains(&first.as_str()) {
        (Action::Write, first)
    } else if EXECUTE.contains(&first.as_str()) {
        (Action::Execute, first)
    } else if let Some(shell) = words.iter().find(|w| *w == "shell") {
        (Action::Execute, shell.clone())
    } else {
        (Action::Read, first)
    }
}
