//! ## What it does
//! With the `openai-strict` target, measures each tool's parameter schema
//! against OpenAI's documented Structured Outputs limits and reports each
//! limit it exceeds:
//! - object schemas nested more than 10 levels deep (at the first object
//!   that goes past the limit);
//! - more than 5,000 object properties in total;
//! - more than 1,000 enum values in total;
//! - more than 120,000 characters of property names, definition names
//!   (`$defs`, `definitions`), and string `enum` and `const` values together.
//!
//! The sizes are reported at the parameter schema. The schema is measured
//! as written: a `$ref` is not followed, and `$defs` count as nested in the
//! root. The limits are settings (`strict-max-depth`,
//! `strict-max-properties`, `strict-max-enum-values`,
//! `strict-max-string-length` under `[limits]` in `toolc.toml`), for when
//! OpenAI changes them.
//!
//! ## Why is this bad?
//! OpenAI strict mode (`"strict": true`) compiles the schema into a grammar
//! and refuses schemas over these limits, failing the whole request; for
//! nesting the error reads `Invalid schema for ...: 6 levels of nesting exceeds limit of 5.`
//! (from when the documented limit was 5).
//! Schemas generated from large API specifications or deep Pydantic models
//! (one object per level) reach them.
//!
//! ## Example
//! A parameter schema whose `filter` property holds an object that holds an
//! object ... eleven levels down, or an enum of 1,500 country and region
//! codes.
//!
//! ## Use instead
//! Flatten the nesting (`address_city` instead of `address.city`), split
//! the tool into several, or take a large code list as a string and state
//! its format in the description.

use serde_json::Value;

use crate::diagnostic::Severity;
use crate::lint::findings::Findings;
use crate::lint::parameter_schema::ParameterSchema;
use crate::lint::schema_walk::for_each_schema;
use crate::lint::{Limits, Rule, Target};
use crate::schema::is_object_schema;

pub(crate) const RULE: Rule = Rule {
    name: "strict-limits",
    code: "TC805",
    severity: Severity::Error,
    summary: "OpenAI strict mode: a parameter schema exceeds a Structured Outputs limit",
    fixable: false,
    targets: &[Target::OpenaiStrict],
};

pub(crate) fn check(parameters: &ParameterSchema, out: &mut Findings) {
    let limits = &parameters.manifest.settings.limits;
    let documented = Limits::default();
    let at = parameters.root;
    let size = measure(parameters.value, at, limits.strict_max_depth);
    if let Some(pointer) = &size.first_too_deep {
        let level = limits.strict_max_depth + 1;
        let reaches = if size.deepest > level {
            format!(" (the schema reaches {})", size.deepest)
        } else {
            String::new()
        };
        let limit = limit_phrase(
            limits.strict_max_depth,
            documented.strict_max_depth,
            "strict-max-depth",
        );
        out.push(
            parameters
                .at_value(
                    &RULE,
                    pointer.clone(),
                    format!(
                        "this object schema is at nesting level {level}{reaches}, over {limit} levels"
                    ),
                )
                .with_help(help("flatten the nesting", "strict-max-depth")),
        );
    }
    let totals = [
        (
            size.properties,
            limits.strict_max_properties,
            documented.strict_max_properties,
            "object properties",
            "strict-max-properties",
        ),
        (
            size.enum_values,
            limits.strict_max_enum_values,
            documented.strict_max_enum_values,
            "enum values",
            "strict-max-enum-values",
        ),
        (
            size.string_length,
            limits.strict_max_string_length,
            documented.strict_max_string_length,
            "characters of property names, definition names, enum and const values",
            "strict-max-string-length",
        ),
    ];
    for (figure, limit, default, what, setting) in totals {
        if figure <= limit {
            continue;
        }
        let limit = limit_phrase(limit, default, setting);
        out.push(
            parameters
                .at_value(
                    &RULE,
                    at,
                    format!("the parameter schema has {figure} {what}, over {limit}"),
                )
                .with_help(help("split the tool or shrink the schema", setting)),
        );
    }
}

/// Names the limit: OpenAI's documented one, or the configured one.
fn limit_phrase(limit: usize, documented: usize, setting: &str) -> String {
    if limit == documented {
        format!("OpenAI's documented Structured Outputs limit of {limit}")
    } else {
        format!(
            "the limit of {limit} that {setting} sets in toolc.toml \
             (OpenAI documents {documented} for Structured Outputs)"
        )
    }
}

fn help(fix: &str, setting: &str) -> String {
    format!("{fix}; if OpenAI has changed the limit, set {setting} under [limits] in toolc.toml")
}

/// What the limits are measured on, for one parameter schema.
#[derive(Debug, Default)]
struct Size {
    /// The first object schema (in document order) deeper than the limit.
    first_too_deep: Option<String>,
    deepest: usize,
    properties: usize,
    enum_values: usize,
    string_length: usize,
}

fn measure(schema: &Value, at: &str, max_depth: usize) -> Size {
    let mut size = Size::default();
    // The pointers of the object schemas enclosing the current node; the
    // walk is depth first, so leaving a subtree pops its entries.
    let mut enclosing: Vec<String> = Vec::new();
    for_each_schema(schema, at, &mut |pointer, node| {
        while enclosing.last().is_some_and(|o| !is_inside(pointer, o)) {
            enclosing.pop();
        }
        if is_object_schema(node) {
            let depth = enclosing.len() + 1;
            size.deepest = size.deepest.max(depth);
            if depth > max_depth && size.first_too_deep.is_none() {
                size.first_too_deep = Some(pointer.to_string());
            }
            enclosing.push(pointer.to_string());
        }
        if let Some(Value::Object(properties)) = node.get("properties") {
            size.properties += properties.len();
            size.string_length += properties.keys().map(|k| k.chars().count()).sum::<usize>();
        }
        for definitions in ["$defs", "definitions"] {
            if let Some(Value::Object(defs)) = node.get(definitions) {
                size.string_length += defs.keys().map(|k| k.chars().count()).sum::<usize>();
            }
        }
        if let Some(Value::Array(values)) = node.get("enum") {
            size.enum_values += values.len();
            size.string_length += values
                .iter()
                .filter_map(Value::as_str)
                .map(|s| s.chars().count())
                .sum::<usize>();
        }
        if let Some(Value::String(value)) = node.get("const") {
            size.string_length += value.chars().count();
        }
    });
    size
}

/// Whether `pointer` is strictly below `ancestor`.
fn is_inside(pointer: &str, ancestor: &str) -> bool {
    pointer
        .strip_prefix(ancestor)
        .is_some_and(|rest| rest.starts_with('/'))
}
