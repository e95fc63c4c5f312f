//! ## What it does
//! Warns about a parameter property with no `description` (or an empty
//! one), at any depth of the parameter schema. A property that is only a
//! `$ref` is not reported: its description lives with the definition. The
//! top-level properties of a NORA tool are not reported here: NORA's format
//! requires their descriptions, so a missing one is a `schema-violation`
//! error.
//!
//! ## Why is this bad?
//! The description is the model's only documentation of the argument: what
//! it means, its units, its format. Without it the model infers from the name
//! alone, and fills `timeout` with seconds when the tool wanted
//! milliseconds. NORA requires a description on every property.
//!
//! ## Example
//! ```json
//! {"type": "object", "properties": {"timeout": {"type": "integer"}}}
//! ```
//!
//! ## Use instead
//! ```json
//! {"type": "object", "properties": {"timeout": {"type": "integer", "description": "Timeout in milliseconds"}}}
//! ```

use serde_json::{Map, Value};

use crate::diagnostic::Severity;
use crate::ir::Format;
use crate::json;
use crate::lint::Rule;
use crate::lint::findings::Findings;
use crate::lint::parameter_schema::ParameterSchema;

pub(crate) const RULE: Rule = Rule {
    name: "property-missing-description",
    code: "TC303",
    severity: Severity::Warning,
    summary: "a parameter property has no description",
    fixable: false,
    targets: &[],
};

/// Checks one subschema of a tool's parameters (called for every node by
/// the shared schema walk).
pub(crate) fn check_node(
    parameters: &ParameterSchema,
    pointer: &str,
    node: &Map<String, Value>,
    out: &mut Findings,
) {
    // NORA's format requires a description on each of its top-level
    // properties: there a missing one is an error of the format's
    // structure (`schema-violation`), not this warning.
    if parameters.format() == Format::Nora && pointer == "/parameters" {
        return;
    }
    let Some(properties) = node.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (name, property) in properties {
        let Some(property) = property.as_object() else {
            continue;
        };
        let described = property
            .get("description")
            .and_then(Value::as_str)
            .is_some_and(|d| !d.trim().is_empty());
        if described
            || property.contains_key("$ref")
            || property.get("description").is_some_and(|d| !d.is_string())
        {
            continue;
        }
        let description_at = json::join(
            &json::join(&json::join(pointer, "properties"), name),
            "description",
        );
        let message = if property.contains_key("description") {
            format!("property \"{name}\" has an empty description")
        } else {
            format!("property \"{name}\" has no description")
        };
        let help = if parameters.is_derived() && parameters.format() == Format::Agentstack {
            "describe it in the function's docstring (`Args:` section): what it means, its unit and format"
        } else {
            "describe what the argument means, its unit and format, for the model"
        };
        out.push(
            parameters
                .at_value(&RULE, description_at, message)
                .with_help(help),
        );
    }
}
