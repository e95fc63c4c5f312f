//! ## What it does
//! With the `openai-strict` target, reports an object schema (one with
//! `"type": "object"`, or with `properties`) that does not set
//! `"additionalProperties": false`, at any depth of the parameter schema:
//! the root, nested properties, array `items`, `anyOf` branches, `$defs`.
//! Subschemas under a keyword strict mode rejects (`not`, `if`,
//! `patternProperties`, an `additionalProperties` schema, ...) are left to
//! `strict-unsupported-keyword`.
//!
//! ## Why is this bad?
//! OpenAI strict mode (`"strict": true`, Structured Outputs) only accepts
//! closed objects, and says so for the first one it meets:
//! `Invalid schema for function 'NAME': In context=(), 'additionalProperties' is required to be supplied and to be false.`
//! (`context` names the object's place, e.g. `('properties', 'filters')`).
//! The whole request fails, not only this tool. Pydantic models and
//! hand-written schemas leave the keyword out; `"additionalProperties": true`
//! or a schema for extra keys (an open-ended map) is rejected the same way.
//!
//! ## Example
//! ```json
//! {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
//! ```
//!
//! ## Use instead
//! ```json
//! {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"],
//!  "additionalProperties": false}
//! ```

use serde_json::{Map, Value};

use crate::diagnostic::{Fix, Severity};
use crate::json;
use crate::lint::findings::Findings;
use crate::lint::fix::insert_member;
use crate::lint::parameter_schema::ParameterSchema;
use crate::lint::rules::strict_unsupported_keyword::in_rejected_subschema;
use crate::lint::{Rule, Target};
use crate::schema::is_object_schema;

pub(crate) const RULE: Rule = Rule {
    name: "strict-additional-properties",
    code: "TC801",
    severity: Severity::Error,
    summary: "OpenAI strict mode: an object schema lacks \"additionalProperties\": false",
    fixable: true,
    targets: &[Target::OpenaiStrict],
};

/// Checks one subschema of a tool's parameters (called for every node by
/// the shared schema walk).
pub(crate) fn check_node(
    parameters: &ParameterSchema,
    pointer: &str,
    node: &Map<String, Value>,
    out: &mut Findings,
) {
    if !is_object_schema(node) {
        return;
    }
    if in_rejected_subschema(parameters, pointer) {
        return;
    }
    let at = json::join(pointer, "additionalProperties");
    let diagnostic = match node.get("additionalProperties") {
        Some(Value::Bool(false)) => return,
        None => parameters
            .at_value(
                &RULE,
                at,
                "this object schema does not set \"additionalProperties\": false, \
                 which OpenAI strict mode requires",
            )
            .with_help("add \"additionalProperties\": false to the object")
            .with_fix(
                parameters
                    .editable()
                    .and_then(|manifest| {
                        insert_member(&manifest, pointer, "additionalProperties", "false")
                    })
                    .map(|edit| Fix::safe("add \"additionalProperties\": false", vec![edit])),
            ),
        Some(other) => {
            let what = match other {
                Value::Object(_) => "a schema".to_string(),
                other => other.to_string(),
            };
            parameters
                .at_value(
                    &RULE,
                    at,
                    format!(
                        "\"additionalProperties\" is {what}; OpenAI strict mode requires false"
                    ),
                )
                .with_help(
                    "strict mode has no open-ended objects: list the keys as properties, \
                     or take an array of {\"key\", \"value\"} objects",
                )
        }
    };
    out.push(diagnostic);
}
