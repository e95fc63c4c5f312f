//! ## What it does
//! With the `gemini` target, reports the JSON Schema keywords that Gemini's
//! function declarations do not accept, at any depth of the parameter
//! schema, at the keyword: `additionalProperties`, `$schema`, `const`,
//! `exclusiveMinimum`, `exclusiveMaximum`, `propertyNames`,
//! `patternProperties`, `multipleOf`, `oneOf`, `allOf`, `not`, `if`,
//! `then`, `else`, `dependentRequired`, `dependentSchemas`, `uniqueItems`,
//! `examples`, `$comment`, `prefixItems`, and `$ref`, `$defs` and
//! `definitions` below the root; and a `type` given as a list
//! (`["string", "null"]`), which Gemini refuses with `Proto field is not
//! repeating, cannot start list` (its schema says `"nullable": true`
//! instead). Keywords inside a subschema that goes away with its keyword
//! (under `additionalProperties`, `not`, ...) are not reported again.
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

use crate::diagnostic::{Diagnostic, Severity};
use crate::json;
use crate::lint::parameter_schema::ParameterSchema;
use crate::lint::rules::strict_unsupported_keyword::schema_path;
use crate::lint::{Rule, Target};

pub(crate) const RULE: Rule = Rule {
    name: "gemini-unsupported-keyword",
    code: "TC806",
    severity: Severity::Error,
    summary: "Gemini: the schema uses a keyword Gemini's function declarations reject",
    targets: &[Target::Gemini],
};

/// The keywords Gemini rejects anywhere, each with what to do instead.
const UNSUPPORTED: &[(&str, &str)] = &[
    (
        "additionalProperties",
        "remove it: Gemini's objects have exactly the properties listed",
    ),
    ("$schema", "remove it"),
    ("const", "use \"enum\" with the one value (and a \"type\")"),
    (
        "exclusiveMinimum",
        "use \"minimum\" (and say the bound is exclusive in the \"description\")",
    ),
    (
        "exclusiveMaximum",
        "use \"maximum\" (and say the bound is exclusive in the \"description\")",
    ),
    (
        "propertyNames",
        "remove it and describe the keys in the \"description\"",
    ),
    (
        "patternProperties",
        "list the keys as properties, or take an array of {\"key\", \"value\"} objects",
    ),
    (
        "multipleOf",
        "remove it and state the step in the \"description\"",
    ),
    ("oneOf", "use \"anyOf\""),
    ("allOf", "merge the branches into one schema"),
    (
        "not",
        "state what is allowed instead (an \"enum\", a \"pattern\")",
    ),
    (
        "if",
        "drop the condition and say it in the \"description\", or split the tool",
    ),
    (
        "then",
        "drop the condition and say it in the \"description\", or split the tool",
    ),
    (
        "else",
        "drop the condition and say it in the \"description\", or split the tool",
    ),
    (
        "dependentRequired",
        "say the dependency in the \"description\"",
    ),
    (
        "dependentSchemas",
        "say the dependency in the \"description\"",
    ),
    ("uniqueItems", "remove it and say it in the \"description\""),
    ("examples", "move the examples into the \"description\""),
    ("$comment", "remove it"),
    (
        "prefixItems",
        "use \"items\" with one schema for every element",
    ),
];

/// Keywords Gemini rejects below the root only.
const BELOW_ROOT: &[(&str, &str)] = &[
    ("$ref", "inline the definition it refers to"),
    ("$defs", "inline the definitions where they are used"),
    ("definitions", "inline the definitions where they are used"),
];

/// Keywords whose subschemas go away when the finding is fixed, so the
/// Gemini rules say nothing about what is inside them. (`allOf` and
/// `oneOf` branches stay: they are merged or become `anyOf` branches.)
const REMOVED_WITH_KEYWORD: &[&str] = &[
    "additionalProperties",
    "propertyNames",
    "patternProperties",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
];

/// Checks one subschema of a tool's parameters (called for every node by
/// the shared schema walk).
pub(crate) fn check_node(
    parameters: &ParameterSchema,
    pointer: &str,
    node: &Map<String, Value>,
    out: &mut Vec<Diagnostic>,
) {
    if in_rejected_subschema(parameters, pointer) {
        return;
    }
    let is_root = parameters.is_root(pointer);
    let below_root: &[(&str, &str)] = if is_root { &[] } else { BELOW_ROOT };
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
    for (keyword, help) in UNSUPPORTED.iter().chain(below_root) {
        if !node.contains_key(*keyword) {
            continue;
        }
        out.push(
            parameters
                .at_key(
                    &RULE,
                    json::join(pointer, keyword),
                    format!("Gemini does not accept \"{keyword}\" in a parameter schema"),
                )
                .with_help(*help),
        );
    }
}

/// Whether the subschema at `pointer` lies inside one that Gemini rejects
/// as a whole: under `additionalProperties`, `not`, `if`, ..., or in
/// definitions below the root.
pub(crate) fn in_rejected_subschema(parameters: &ParameterSchema, pointer: &str) -> bool {
    let is_definitions = |keyword: &str| keyword == "$defs" || keyword == "definitions";
    // Most pointers hold none of these tokens; only those are parsed.
    if !pointer
        .split('/')
        .any(|t| REMOVED_WITH_KEYWORD.contains(&t) || is_definitions(t))
    {
        return false;
    }
    schema_path(parameters, pointer).is_some_and(|steps| {
        steps.iter().enumerate().any(|(i, s)| {
            REMOVED_WITH_KEYWORD.contains(&s.keyword) || (i > 0 && is_definitions(s.keyword))
        })
    })
}
