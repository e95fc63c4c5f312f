//! ## What it does
//! Reports a name in a schema's `required` array that is not defined in the
//! same schema's `properties`, at any depth. Schemas whose properties may
//! come from elsewhere (`patternProperties`, `allOf`/`anyOf`/`oneOf`,
//! `$ref`) are not checked.
//!
//! ## Why is this bad?
//! The model is told to send an argument it was never told about, so it
//! either invents one or fails validation on every call. Usually it is a
//! typo or a property renamed in one place only. OpenAI strict mode rejects
//! such schemas outright.
//!
//! ## Example
//! ```json
//! {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["uri"]}
//! ```
//!
//! ## Use instead
//! ```json
//! {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}
//! ```

use serde_json::{Map, Value};

use crate::diagnostic::Severity;
use crate::json;
use crate::lint::Rule;
use crate::lint::findings::Findings;
use crate::lint::parameter_schema::ParameterSchema;
use crate::suggest::did_you_mean;

pub(crate) const RULE: Rule = Rule {
    name: "required-unknown-property",
    code: "TC304",
    severity: Severity::Error,
    summary: "`required` names a property that is not defined",
    fixable: false,
    targets: &[],
};

const OTHER_SOURCES: &[&str] = &["patternProperties", "allOf", "anyOf", "oneOf", "$ref"];

/// Checks one subschema of a tool's parameters (called for every node by
/// the shared schema walk).
pub(crate) fn check_node(
    parameters: &ParameterSchema,
    pointer: &str,
    node: &Map<String, Value>,
    out: &mut Findings,
) {
    let (Some(Value::Array(required)), Some(Value::Object(properties))) =
        (node.get("required"), node.get("properties"))
    else {
        return;
    };
    if OTHER_SOURCES.iter().any(|k| node.contains_key(*k)) {
        return;
    }
    for (i, name) in required.iter().enumerate() {
        let Some(name) = name.as_str() else {
            continue;
        };
        if properties.contains_key(name) {
            continue;
        }
        let diagnostic = parameters.at_value(
            &RULE,
            json::join(&json::join(pointer, "required"), i),
            format!("\"{name}\" is required but not defined in \"properties\""),
        );
        let close = did_you_mean(name, properties.keys().map(String::as_str));
        out.push(match close {
            Some(close) => diagnostic.with_help(format!("did you mean \"{close}\"?")),
            None => diagnostic.with_help("define the property, or remove it from \"required\""),
        });
    }
}
