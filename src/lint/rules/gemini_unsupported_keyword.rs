//! ## What it does
//! With the `gemini` target, reports the JSON Schema keywords that Gemini's
//! function declarations do not accept, at any depth of the parameter
//! schema, at the keyword: every keyword that is not a field of Gemini's
//! schema (`type`, `format`, `title`, `description`, `nullable`, `enum`,
//! `items`, `minItems`, `maxItems`, `properties`, `required`,
//! `minProperties`, `maxProperties`, `minLength`, `maxLength`, `pattern`,
//! `example`, `anyOf`, `propertyOrdering`, `default`, `minimum`,
//! `maximum`), such as `additionalProperties`, `$schema`, `const`,
//! `exclusiveMinimum`, `oneOf`, `allOf`, `not`, `uniqueItems`, `examples`
//! or `discriminator`; `$ref`, `$defs` and `definitions` are accepted at
//! the root only. Also a `type` given as a list (`["string", "null"]`),
//! which Gemini refuses with `Proto field is not repeating, cannot start
//! list` (its schema says `"nullable": true` instead), and a `format`
//! Gemini does not take for the node's type (`only 'enum' and 'date-time'
//! are supported for STRING type`; `int32`, `int64` for integers, `float`,
//! `double` for numbers). Keywords inside a subschema that goes away with
//! its keyword (under `additionalProperties`, `not`, `prefixItems`, ...)
//! are not reported again.
//!
//! ## Why is this bad?
//! Gemini reads a tool's `parameters` as its own `Schema` message (a subset
//! of OpenAPI 3.0), not as JSON Schema, and rejects the whole request for a
//! field that message does not have, one line per occurrence:
//! `Invalid JSON payload received. Unknown name "additionalProperties" at 'tools[0].function_declarations[0].parameters': Cannot find field.`
//! zod-to-json-schema output carries `$schema` and `additionalProperties`
//! on every object, `z.literal` becomes `const`, and Pydantic models nest
//! `$ref`s to their `$defs`; MCP servers pass these schemas on unchanged.
//!
//! ## Example
//! ```json
//! {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
//!  "properties": {"mode": {"type": "string", "const": "fast"}},
//!  "additionalProperties": false}
//! ```
//!
//! ## Use instead
//! ```json
//! {"type": "object", "properties": {"mode": {"type": "string", "enum": ["fast"]}}}
//! ```

use serde_json::{Map, Value};

use crate::diagnostic::Severity;
use crate::json;
use crate::lint::findings::Findings;
use crate::lint::parameter_schema::ParameterSchema;
use crate::lint::rules::strict_unsupported_keyword::schema_path;
use crate::lint::{Rule, Target};
use crate::providers::gemini;

pub(crate) const RULE: Rule = Rule {
    name: "gemini-unsupported-keyword",
    code: "TC806",
    severity: Severity::Error,
    summary: "Gemini: the schema uses a keyword Gemini's function declarations reject",
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
    if in_rejected_subschema(parameters, pointer) {
        return;
    }
    let is_root = parameters.is_root(pointer);
    // Gemini's `type` is one value; a list fails with "Proto field is not
    // repeating, cannot start list".
    if let Some(Value::Array(_)) = node.get("type") {
        out.push(
            parameters
                .at_value(
                    &RULE,
                    json::join(pointer, "type"),
                    "Gemini does not accept a list of types; a schema node has one \"type\"",
                )
                .with_help("use one \"type\", with \"nullable\": true if null is allowed"),
        );
    }
    for keyword in node.keys() {
        let Some(rejected) = gemini::rejected_keyword(keyword, is_root) else {
            continue;
        };
        out.push(
            parameters
                .at_key(
                    &RULE,
                    json::join(pointer, keyword),
                    format!("Gemini does not accept \"{keyword}\" in a parameter schema"),
                )
                .with_help(rejected.instead),
        );
    }
    check_format(parameters, pointer, node, out);
}

/// Gemini takes few formats, by type (`only 'enum' and 'date-time' are
/// supported for STRING type`). A node without one `type` is another
/// finding, so only typed nodes are checked.
fn check_format(
    parameters: &ParameterSchema,
    pointer: &str,
    node: &Map<String, Value>,
    out: &mut Findings,
) {
    let (Some(Value::String(format)), Some(Value::String(kind))) =
        (node.get("format"), node.get("type"))
    else {
        return;
    };
    let accepted = gemini::formats_for(Some(kind));
    if accepted.contains(&format.as_str()) {
        return;
    }
    let supported = if accepted.is_empty() {
        "none".to_string()
    } else {
        accepted.join(", ")
    };
    out.push(
        parameters
            .at_value(
                &RULE,
                json::join(pointer, "format"),
                format!(
                    "Gemini does not accept format \"{format}\" for type \"{kind}\" (it takes \
                     {supported})"
                ),
            )
            .with_help("remove \"format\" and say in the \"description\" what the value holds"),
    );
}

/// Whether the subschema at `pointer` lies inside one that Gemini rejects
/// as a whole, and that `gen gemini` removes with its keyword: under
/// `additionalProperties`, `not`, `if`, `prefixItems`, a list of `items`,
/// definitions below the root, ...
pub(crate) fn in_rejected_subschema(parameters: &ParameterSchema, pointer: &str) -> bool {
    if parameters.is_root(pointer) {
        return false;
    }
    schema_path(parameters, pointer).is_some_and(|steps| {
        steps
            .iter()
            .enumerate()
            .any(|(i, s)| !gemini::keeps_subschemas(s.keyword, s.member.is_some(), i == 0))
    })
}
