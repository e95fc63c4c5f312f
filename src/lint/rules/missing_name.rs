//! ## What it does
//! Reports a tool, or an AgentStack or Nachos package, without a usable
//! name: the name is absent, empty, or not a string. For Nachos the tool's
//! name is `provides.tool`, the id it answers to on NATS.
//!
//! ## Why is this bad?
//! The name is how the model calls the tool and how the framework routes the
//! call; every provider rejects a tool without one.
//!
//! ## Example
//! ```json
//! {"tools": [{"description": "Fetch a URL", "command": ["./tools/bin/fetch"]}]}
//! ```
//!
//! ## Use instead
//! ```json
//! {"tools": [{"name": "fetch", "description": "Fetch a URL", "command": ["./tools/bin/fetch"]}]}
//! ```

use serde_json::Value;

use crate::diagnostic::Severity;
use crate::ir::Format;
use crate::lint::findings::Findings;
use crate::lint::{Manifest, Rule};

pub(crate) const RULE: Rule = Rule {
    name: "missing-name",
    code: "TC101",
    severity: Severity::Error,
    summary: "a tool or package has no name",
    fixable: false,
    targets: &[],
};

pub(crate) fn check(manifest: &Manifest, out: &mut Findings) {
    if matches!(manifest.format(), Format::Agentstack | Format::Nachos)
        && manifest.document.value.is_object()
    {
        check_name_at(manifest, "/name", "package", out);
    }
    for tool in &manifest.toolset.tools {
        if !tool.name.is_empty() {
            continue;
        }
        if tool.name_is_key {
            out.push(
                manifest
                    .at_tool_name(&RULE, tool, "the tool name (this key) is empty")
                    .with_help("name the function the tool calls, e.g. \"fetch_url\""),
            );
        } else {
            check_name_at(manifest, &tool.name_at, "tool", out);
        }
    }
}

fn check_name_at(manifest: &Manifest, pointer: &str, what: &str, out: &mut Findings) {
    // Where the object that should hold the name is itself missing or not an
    // object (Nachos `provides`), the format's structure says so instead.
    let parent = pointer.rsplit_once('/').map_or("", |(parent, _)| parent);
    if !matches!(
        manifest.raw(parent),
        Some(Value::Object(_) | Value::Array(_))
    ) {
        return;
    }
    let message = match manifest.raw(pointer) {
        None => format!("the {what} has no name"),
        Some(Value::String(s)) if s.trim().is_empty() => format!("the {what} name is empty"),
        Some(Value::String(_)) => return,
        Some(other) => format!(
            "the {what} name must be a string, not {}",
            crate::json::kind_of(other)
        ),
    };
    out.push(
        manifest
            .at_value(&RULE, pointer, message)
            .with_help(format!("give the {what} a name such as \"fetch_url\"")),
    );
}
