//! ## What it does
//! Reports a parameter property with no `type`, at any depth of the
//! parameter schema. A property whose values are pinned down otherwise
//! (`enum`, `const`, `$ref`, `anyOf`, `oneOf`, `allOf`) is not reported.
//! Nor are the parameters of AgentStack functions: `python-type-hint-unknown`
//! reports those with the hint that gave no type.
//!
//! ## Why is this bad?
//! Without a type the model guesses, and guesses differently from call to
//! call: a number arrives as `"5"`, a list as a comma-separated string.
//!
//! It is a warning: JSON Schema allows it (`{}` is "any value", which is
//! what pydantic writes for `Any`), and OpenAI, Anthropic and MCP accept
//! it. Where a consumer refuses it, that is an error of its own: NORA's
//! manifest schema requires a type on every parameter (`schema-violation`),
//! Gemini on every node (`gemini-typeless-node`), and `toolc gen openai
//! --strict` refuses to write one.
//!
//! ## Example
//! ```json
//! {"type": "object", "properties": {"limit": {"description": "Maximum results"}}}
//! ```
//!
//! ## Use instead
//! ```json
//! {"type": "object", "properties": {"limit": {"type": "integer", "description": "Maximum results"}}}
//! ```

use serde_json::{Map, Value};

use crate::diagnostic::Severity;
use crate::ir::Format;
use crate::json;
use crate::lint::Rule;
use crate::lint::findings::Findings;
use crate::lint::parameter_schema::ParameterSchema;
use crate::schema::has_implied_type;

pub(crate) const RULE: Rule = Rule {
    name: "property-missing-type",
    code: "TC302",
    severity: Severity::Warning,
    summary: "a parameter property has no type",
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
    // A Python parameter without a type is `python-type-hint-unknown`'s
    // finding, which names the hint to change.
    if parameters.is_derived() && parameters.format() == Format::Agentstack {
        return;
    }
    let Some(properties) = node.get("properties").and_then(|p| p.as_object()) else {
        return;
    };
    for (name, property) in properties {
        let Some(property) = property.as_object() else {
            continue;
        };
        if property.contains_key("type") || has_implied_type(property) {
            continue;
        }
        let property_at = json::join(&json::join(pointer, "properties"), name);
        out.push(
            parameters
                .at_value(
                    &RULE,
                    json::join(&property_at, "type"),
                    format!("property \"{name}\" has no \"type\""),
                )
                .with_help("add a \"type\" (string, number, integer, boolean, array or object)"),
        );
    }
}
