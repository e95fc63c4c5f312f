//! ## What it does
//! Reports an AgentStack tool in the permissions-map shape of `tools` whose
//! entry has no `actions`, or an empty list of them. (The older list shape,
//! `"tools": ["fn"]`, declares no permissions at all and is not reported.)
//!
//! ## Why is this bad?
//! Permissions are deny-by-default: a tool without actions may do nothing,
//! so every call is refused, or the framework falls back to whatever it
//! grants by default, which is not what the author reviewed.
//!
//! ## Example
//! ```json
//! "tools": {"query_data": {}}
//! ```
//!
//! ## Use instead
//! ```json
//! "tools": {"query_data": {"actions": ["read"]}}
//! ```

use serde_json::Value;

use crate::diagnostic::Severity;
use crate::ir::{Action, Format};
use crate::json;
use crate::lint::findings::Findings;
use crate::lint::{Manifest, Rule};

pub(crate) const RULE: Rule = Rule {
    name: "missing-action",
    code: "TC502",
    severity: Severity::Error,
    summary: "an AgentStack tool declares no permission action",
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
        let Some(permissions) = permissions.as_object() else {
            continue;
        };
        let message = match permissions.get("actions") {
            None => format!("tool \"{name}\" declares no \"actions\""),
            Some(Value::Array(actions)) if actions.is_empty() => {
                format!("tool \"{name}\" has an empty \"actions\" list")
            }
            Some(_) => continue,
        };
        out.push(
            manifest
                .at_value(
                    &RULE,
                    json::join(&json::join("/tools", name), "actions"),
                    message,
                )
                .with_help(help()),
        );
    }
}

/// What to write: `read`, or the other actions AgentStack defines.
fn help() -> String {
    let others: Vec<&str> = Action::defined_names()
        .filter(|name| Some(*name) != Action::Read.name())
        .collect();
    format!(
        "list what the tool does: \"actions\": [\"{}\"] (or {})",
        Action::Read,
        others.join(", ")
    )
}
