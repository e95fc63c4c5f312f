//! ## What it does
//! With the `gemini` target, reports each value of an `enum` that is not a
//! string (a number, a boolean, `null`, an object), at any depth of the
//! parameter schema, at the value.
//!
//! ## Why is this bad?
//! Gemini's schema holds enum values as strings only, and rejects the whole
//! request for any other value, one line per value:
//! `Invalid value at 'tools[0].function_declarations[0].parameters.properties[0].value.enum[0]' (TYPE_STRING), 2`.
//! Integer enums (`"enum": [1, 2, 4, 8]` for flags or levels) and a `null`
//! added to make an enum optional are the common cases.
//!
//! ## Example
//! ```json
//! {"type": "object", "properties": {"priority": {"type": "integer", "enum": [1, 2, 3]}}}
//! ```
//!
//! ## Use instead
//! ```json
//! {"type": "object", "properties": {"priority": {"type": "string", "enum": ["1", "2", "3"]}}}
//! ```

use serde_json::{Map, Value};

use crate::diagnostic::Severity;
use crate::json;
use crate::lint::findings::Findings;
use crate::lint::parameter_schema::ParameterSchema;
use crate::lint::rules::gemini_unsupported_keyword::in_rejected_subschema;
use crate::lint::{Rule, Target};

pub(crate) const RULE: Rule = Rule {
    name: "gemini-enum-not-string",
    code: "TC807",
    severity: Severity::Error,
    summary: "Gemini: an enum value is not a string",
    fixable: false,
    targets: &[Target::Gemini],
};

/// Checks one subschema of a tool's parameters (called for every node by
/// the shared schema walk).
pub(crate) fn check_node(
    parameters: &ParameterSchema,
    pointer: &str,
    node: &Map<String, Value>,
    out: &mut Findings,
) {
    let Some(Value::Array(values)) = node.get("enum") else {
        return;
    };
    if in_rejected_subschema(parameters, pointer) {
        return;
    }
    let enum_at = json::join(pointer, "enum");
    for (i, value) in values.iter().enumerate() {
        if value.is_string() {
            continue;
        }
        out.push(
            parameters
                .at_value(
                    &RULE,
                    json::join(&enum_at, i),
                    format!("enum value {value} is not a string; Gemini accepts string enum values only"),
                )
                .with_help(
                    "write the values as strings with \"type\": \"string\" (and convert them \
                     back in the tool), or drop the enum and list the values in the \"description\"",
                ),
        );
    }
}
