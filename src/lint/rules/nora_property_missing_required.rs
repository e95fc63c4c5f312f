//! ## What it does
//! Reports a property of a NORA tool's `parameters` that lacks the boolean
//! `required` flag NORA's dialect puts on every property (or whose flag is
//! not `true` or `false`).
//!
//! ## Why is this bad?
//! NORA decides from this flag which arguments the model must supply; a
//! missing or non-boolean flag leaves it to the loader's default, and the
//! generated provider schema may mark the argument optional when the tool
//! cannot run without it.
//!
//! ## Example
//! ```json
//! "parameters": {"type": "object", "properties": {
//!   "url": {"type": "string", "description": "Page to fetch"}
//! }}
//! ```
//!
//! ## Use instead
//! ```json
//! "parameters": {"type": "object", "properties": {
//!   "url": {"type": "string", "description": "Page to fetch", "required": true}
//! }}
//! ```

use serde_json::Value;

use crate::diagnostic::{Fix, Severity};
use crate::ir::Format;
use crate::json;
use crate::lint::findings::Findings;
use crate::lint::fix::insert_member;
use crate::lint::{Manifest, Rule};

pub(crate) const RULE: Rule = Rule {
    name: "nora-property-missing-required",
    code: "TC401",
    severity: Severity::Error,
    summary: "a NORA parameter property has no boolean `required`",
    fixable: true,
    targets: &[],
};

pub(crate) fn check(manifest: &Manifest, out: &mut Findings) {
    if manifest.format() != Format::Nora {
        return;
    }
    let Some(Value::Object(properties)) = manifest.raw("/parameters/properties") else {
        return;
    };
    for (name, property) in properties {
        let Some(property) = property.as_object() else {
            continue;
        };
        let message = match property.get("required") {
            Some(Value::Bool(_)) => continue,
            None => format!("property \"{name}\" has no \"required\" flag"),
            Some(other) => {
                format!("property \"{name}\" has \"required\": {other}; NORA wants true or false")
            }
        };
        let property_at = json::join("/parameters/properties", name);
        // A missing flag reads as optional; writing `false` says just that.
        let fix = if property.contains_key("required") {
            None
        } else {
            insert_member(manifest, &property_at, "required", "false")
                .map(|edit| Fix::safe("add \"required\": false", vec![edit]))
        };
        out.push(
            manifest
                .at_value(&RULE, json::join(&property_at, "required"), message)
                .with_help("NORA properties declare \"required\": true or \"required\": false")
                .with_fix(fix),
        );
    }
}
