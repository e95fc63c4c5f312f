//! ## What it does
//! With the `gemini` target, reports a subschema with no `type` where
//! Gemini needs one: array `items`, `anyOf` (or `oneOf`, `allOf`) branches,
//! definitions under the root's `$defs`, and properties that are only an
//! `enum` or a `const`, or nothing at all (which `property-missing-type`
//! also warns of, for every target).
//! Reported elsewhere, so not here: the root (`parameters-not-object`) and
//! schemas under keywords Gemini rejects (`gemini-unsupported-keyword`).
//! A schema with `anyOf` needs no `type`, nor does a `$ref`.
//!
//! ## Why is this bad?
//! Gemini's schema requires a type on every node that is not a union, and
//! rejects the whole request without one:
//! `GenerateContentRequest.tools[0].function_declarations[0].parameters.properties[mode].type: must be specified when not using one_of, any_of or all_of fields`.
//! JSON Schema does not need the type (an `enum` says it all; `{}` or an
//! untyped `items` means "anything"), so generated schemas often leave it
//! out: Pydantic's `Any` becomes `{}`, `Literal[...]` an enum alone.
//!
//! ## Example
//! ```json
//! {"type": "object", "properties": {
//!   "unit": {"enum": ["celsius", "fahrenheit"]},
//!   "tags": {"type": "array", "items": {}}}}
//! ```
//!
//! ## Use instead
//! ```json
//! {"type": "object", "properties": {
//!   "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
//!   "tags": {"type": "array", "items": {"type": "string"}}}}
//! ```

use serde_json::{Map, Value};

use crate::diagnostic::Severity;
use crate::json;
use crate::lint::findings::Findings;
use crate::lint::parameter_schema::ParameterSchema;
use crate::lint::rules::strict_unsupported_keyword::{PathStep, schema_path};
use crate::lint::{Rule, Target};
use crate::providers::gemini;

pub(crate) const RULE: Rule = Rule {
    name: "gemini-typeless-node",
    code: "TC808",
    severity: Severity::Error,
    summary: "Gemini: a subschema has no type",
    fixable: false,
    targets: &[Target::Gemini],
};

/// Keywords that stand in for a type: Gemini accepts a union without one,
/// and a reference or a rejected combinator is reported as a keyword.
const TYPE_NOT_NEEDED: &[&str] = &["anyOf", "oneOf", "allOf", "$ref"];

/// Checks one subschema of a tool's parameters (called for every node by
/// the shared schema walk).
pub(crate) fn check_node(
    parameters: &ParameterSchema,
    pointer: &str,
    node: &Map<String, Value>,
    out: &mut Findings,
) {
    if node.contains_key("type") || TYPE_NOT_NEEDED.iter().any(|k| node.contains_key(*k)) {
        return;
    }
    let Some(steps) = schema_path(parameters, pointer) else {
        return;
    };
    if !steps.iter().enumerate().all(|(i, step)| is_read(i, step)) {
        return;
    }
    let Some(last) = steps.last() else {
        // The root is `parameters-not-object`'s.
        return;
    };
    let member = last.member.as_deref().unwrap_or_default();
    let message = match last.keyword {
        "properties" => format!("property \"{member}\" has no \"type\""),
        "items" => "this \"items\" schema has no \"type\"".to_string(),
        "$defs" | "definitions" => format!("definition \"{member}\" has no \"type\""),
        combinator => format!("\"{combinator}\" branch {member} has no \"type\""),
    };
    out.push(
        parameters
            .at_value(&RULE, json::join(pointer, "type"), message)
            .with_help(
                "add the \"type\" of its values (string, number, integer, boolean, array or \
                 object): Gemini requires one on every schema that is not an \"anyOf\"",
            ),
    );
}

/// Whether Gemini reads the subschemas a step leads to: properties, a
/// single `items` schema, union branches, and definitions at the root.
/// Anything else is reported by `gemini-unsupported-keyword` (or is a
/// keyword Gemini ignores), and so is what lies below it.
fn is_read(index: usize, step: &PathStep<'_>) -> bool {
    gemini::keeps_subschemas(step.keyword, step.member.is_some(), index == 0)
}
