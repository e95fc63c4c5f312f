//! ## What it does
//! Reports an array schema without `items`, at any depth of a tool's
//! parameter schema: a subschema whose `type` is `"array"` (or a list that
//! contains `"array"`) and that has neither `items` nor `prefixItems`.
//! Runs only with `--target openai`, `openai-strict` or `gemini`.
//!
//! ## Why is this bad?
//! JSON Schema allows it, but both providers reject the schema and with it
//! the whole request:
//!
//! - OpenAI: `Invalid schema for function 'NAME': In context=('properties',
//!   'tags'), array schema missing items.` (code
//!   `invalid_function_parameters`)
//! - Gemini: `GenerateContentRequest.tools[0].function_declarations[0].parameters.properties[tags].items:
//!   missing field.`
//!
//! It usually comes from a schema generated from a signature with a bare
//! `list` parameter (Python `tags: list`, a TypeScript `any[]`), and the
//! model has no idea what to put in the array either.
//!
//! ## Example
//! ```json
//! {"type": "object", "properties": {"tags": {"type": "array", "description": "Labels to add"}}}
//! ```
//!
//! ## Use instead
//! ```json
//! {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}, "description": "Labels to add"}}}
//! ```

use serde_json::{Map, Value};

use crate::diagnostic::Severity;
use crate::json;
use crate::lint::findings::Findings;
use crate::lint::parameter_schema::ParameterSchema;
use crate::lint::settings::{agree, provider_list};
use crate::lint::{Rule, Target};

pub(crate) const RULE: Rule = Rule {
    name: "array-missing-items",
    code: "TC707",
    severity: Severity::Error,
    summary: "an array schema without items (OpenAI, Gemini)",
    fixable: false,
    targets: &[Target::Openai, Target::Gemini],
};

/// Checks one subschema of a tool's parameters (called for every node by
/// the shared schema walk).
pub(crate) fn check_node(
    parameters: &ParameterSchema,
    pointer: &str,
    node: &Map<String, Value>,
    out: &mut Findings,
) {
    let is_array = match node.get("type") {
        Some(Value::String(t)) => t == "array",
        Some(Value::Array(types)) => types.iter().any(|t| t == "array"),
        _ => false,
    };
    if !is_array || node.contains_key("items") || node.contains_key("prefixItems") {
        return;
    }
    // An array at the root is `parameters-not-object`'s finding.
    if parameters.is_root(pointer) {
        return;
    }
    let rejecting = parameters.manifest.settings.providers(&RULE);
    let what = match property_name(pointer) {
        Some(name) => format!("array property {name:?} has no \"items\""),
        None => "array schema has no \"items\"".to_string(),
    };
    out.push(
        parameters
            .at_value(
                &RULE,
                json::join(pointer, "items"),
                format!(
                    "{what}; {} {} it",
                    provider_list(&rejecting),
                    agree(&rejecting, "rejects", "reject")
                ),
            )
            .with_help("say what the array holds, e.g. \"items\": {\"type\": \"string\"}"),
    );
}

/// The property a subschema declares, when it is one (`.../properties/NAME`).
fn property_name(pointer: &str) -> Option<String> {
    let tokens: Vec<String> = json::pointer_tokens(pointer).collect();
    match tokens.as_slice() {
        [.., parent, name] if parent == "properties" => Some(name.clone()),
        _ => None,
    }
}
