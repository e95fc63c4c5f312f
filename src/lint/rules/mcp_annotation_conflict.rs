//! ## What it does
//! Reports, in an MCP manifest, a tool whose `annotations` say
//! `"readOnlyHint": true` and also set `destructiveHint` or
//! `idempotentHint`. Runs only with `--target mcp`.
//!
//! ## Why is this bad?
//! The MCP specification defines `destructiveHint` and `idempotentHint` as
//! "meaningful only when `readOnlyHint == false`". A read-only tool with
//! `"destructiveHint": true` contradicts itself, and clients may resolve the
//! contradiction differently: one that looks at `readOnlyHint` first runs
//! the tool without asking, one that looks at `destructiveHint` first asks
//! for confirmation every time. Either hint on a read-only tool is ignored by
//! clients that follow the specification, so it says nothing, or says
//! something the author did not mean (a tool that is not read-only after
//! all).
//!
//! ## Example
//! ```json
//! {"name": "delete_branch", "inputSchema": {"type": "object", "properties": {"branch": {"type": "string"}}},
//!  "annotations": {"readOnlyHint": true, "destructiveHint": true}}
//! ```
//!
//! ## Use instead
//! ```json
//! {"name": "delete_branch", "inputSchema": {"type": "object", "properties": {"branch": {"type": "string"}}},
//!  "annotations": {"readOnlyHint": false, "destructiveHint": true}}
//! ```

use serde_json::Value;

use crate::diagnostic::Severity;
use crate::ir::Format;
use crate::json;
use crate::lint::findings::Findings;
use crate::lint::{Manifest, Rule, Target};
use crate::providers::mcp::{DESTRUCTIVE_HINT, READ_ONLY_HINT, WRITE_HINTS};

pub(crate) const RULE: Rule = Rule {
    name: "mcp-annotation-conflict",
    code: "TC708",
    severity: Severity::Warning,
    summary: "an MCP read-only tool that also sets destructiveHint or idempotentHint",
    fixable: false,
    targets: &[Target::Mcp],
};

pub(crate) fn check(manifest: &Manifest, out: &mut Findings) {
    if manifest.format() != Format::Mcp {
        return;
    }
    for tool in &manifest.toolset.tools {
        let annotations_at = json::join(&tool.origin, "annotations");
        let Some(Value::Object(annotations)) = manifest.raw(&annotations_at) else {
            continue;
        };
        if annotations.get(READ_ONLY_HINT) != Some(&Value::Bool(true)) {
            continue;
        }
        for hint in WRITE_HINTS {
            // A hint that is not a boolean is the format check's finding.
            let Some(Value::Bool(value)) = annotations.get(hint) else {
                continue;
            };
            let message = if hint == DESTRUCTIVE_HINT && *value {
                format!("\"{hint}\": true contradicts \"{READ_ONLY_HINT}\": true")
            } else {
                format!("\"{hint}\" has no meaning when \"{READ_ONLY_HINT}\" is true")
            };
            out.push(
                manifest
                    .at_key(
                        &RULE,
                        json::join(&annotations_at, hint),
                        format!("{message}; MCP reads it only when {READ_ONLY_HINT} is false"),
                    )
                    .with_help(format!(
                        "remove \"{hint}\", or set \"{READ_ONLY_HINT}\": false if the tool changes its environment"
                    )),
            );
        }
    }
}
