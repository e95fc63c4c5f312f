//! ## What it does
//! Reports an action in an AgentStack tool's permissions that is not one of
//! `read`, `write`, `execute` or `delete` (`delete` is not in AgentStack's
//! documentation but is used by its own tools).
//!
//! ## Why is this bad?
//! Permission checks compare actions by name: a misspelled `wirte` grants
//! nothing, and the call that needs it is refused at run time.
//!
//! ## Example
//! ```json
//! "tools": {"send_message": {"actions": ["wirte"]}}
//! ```
//!
//! ## Use instead
//! ```json
//! "tools": {"send_message": {"actions": ["write"]}}
//! ```

use serde_json::Value;

use crate::diagnostic::Severity;
use crate::ir::{Action, Format};
use crate::json;
use crate::lint::findings::Findings;
use crate::lint::{Manifest, Rule};
use crate::suggest::did_you_mean;

pub(crate) const RULE: Rule = Rule {
    name: "unknown-action",
    code: "TC501",
    severity: Severity::Error,
    summary: "an AgentStack permission action that is not read, write, execute or delete",
    fixable: false,
    targets: &[],
};

pub(crate) fn check(manifest: &Manifest, out: &mut Findings) {
    if manifest.format() != Format::Agentstack {
        return;
    }
    let Some(Value::Object(tools)) = manifest.raw("/tools") else {
        return;
    };
    for (name, permissions) in tools {
        let Some(Value::Array(actions)) = permissions.get("actions") else {
            continue;
        };
        for (i, action) in actions.iter().enumerate() {
            if action
                .as_str()
                .is_some_and(|a| Action::parse(a).is_defined())
            {
                continue;
            }
            let pointer = json::join(&json::join(&json::join("/tools", name), "actions"), i);
            let shown = action
                .as_str()
                .map_or_else(|| action.to_string(), |a| format!("\"{a}\""));
            let diagnostic = manifest.at_value(
                &RULE,
                pointer,
                format!("unknown action {shown} for tool \"{name}\""),
            );
            let close = action
                .as_str()
                .and_then(|a| did_you_mean(a, Action::defined_names()));
            out.push(match close {
                Some(close) => diagnostic.with_help(format!("did you mean \"{close}\"?")),
                None => diagnostic.with_help(format!("actions are {}", defined_list())),
            });
        }
    }
}

/// The actions AgentStack defines, quoted, as a sentence lists them:
/// `"read", "write", "execute" and "delete"`.
fn defined_list() -> String {
    let quoted: Vec<String> = Action::defined_names()
        .map(|name| format!("\"{name}\""))
        .collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => quoted.concat(),
    }
}
