//! JSON values as TypeScript expressions: single-quoted string literals,
//! object literals laid out the way a person (or prettier) would write them,
//! and the check whether a parameter schema fits Nachos' `ParameterSchema`
//! type, so the class can declare it with that type instead of a cast.
//!
//! What is written here is read back by `crate::typescript` (the reader of
//! Nachos classes); the integration tests check that the two agree on every
//! value.

use serde_json::{Map, Value};

/// The column a laid-out literal should not pass.
pub(super) const WIDTH: usize = 80;

/// `text` as a single-quoted TypeScript string literal. Backslashes, quotes,
/// line terminators (U+2028 and U+2029 too) and control characters are
/// escaped; everything else is written as it is. `${` and backticks mean
/// nothing inside single quotes.
pub(super) fn string_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('\'');
    out.push_str(&escape(text));
    out.push('\'');
    out
}

/// The escapes of [`string_literal`], without the quotes: also what makes
/// any text safe inside a `//` comment (no line terminator survives).
pub(super) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            // Line terminators in JavaScript; and `\0` followed by a digit
            // would be a legacy octal escape, so controls are spelt out.
            '\u{2028}' | '\u{2029}' => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out
}

/// An object key as written: bare when it is an (ASCII) identifier, quoted
/// otherwise. Reserved words are valid bare property names.
pub(super) fn key(name: &str) -> String {
    if is_identifier(name) {
        name.to_string()
    } else {
        string_literal(name)
    }
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    (first.is_ascii_alphabetic() || first == '_' || first == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// Where a literal goes: the line it starts on is indented by `base`
/// columns and holds `used` columns (`base` included) before it, and
/// `after` columns follow it (a comma, a semicolon).
#[derive(Debug, Clone, Copy)]
pub(super) struct Place {
    pub(super) base: usize,
    pub(super) used: usize,
    pub(super) after: usize,
}

/// A JSON value as a TypeScript expression, laid out to fit [`WIDTH`] at
/// `place`. Continuation lines are indented relative to the line the
/// literal starts on (two spaces a level), not by `place.base`: the caller
/// indents the whole text to where that line is. With `break_root`, a
/// non-empty object or array always takes one line per member.
pub(super) fn layout(value: &Value, place: Place, break_root: bool) -> String {
    let mut out = String::new();
    write_value(&mut out, value, 0, place, break_root);
    out
}

/// Writes `value` at nesting `level`.
fn write_value(out: &mut String, value: &Value, level: usize, place: Place, force_break: bool) {
    let Place { base, used, after } = place;
    if !force_break
        && let Some(inline) = inline(value)
        && used + inline.chars().count() + after <= WIDTH
    {
        out.push_str(&inline);
        return;
    }
    let indent = "  ".repeat(level + 1);
    match value {
        Value::Array(items) if !items.is_empty() => {
            out.push_str("[\n");
            for item in items {
                out.push_str(&indent);
                let used = base + indent.len();
                write_value(
                    out,
                    item,
                    level + 1,
                    Place {
                        base,
                        used,
                        after: 1,
                    },
                    false,
                );
                out.push_str(",\n");
            }
            out.push_str(&"  ".repeat(level));
            out.push(']');
        }
        Value::Object(members) if !members.is_empty() => {
            out.push_str("{\n");
            for (name, member) in members {
                let name = key(name);
                out.push_str(&indent);
                out.push_str(&name);
                out.push_str(": ");
                let used = base + indent.len() + name.chars().count() + 2;
                write_value(
                    out,
                    member,
                    level + 1,
                    Place {
                        base,
                        used,
                        after: 1,
                    },
                    false,
                );
                out.push_str(",\n");
            }
            out.push_str(&"  ".repeat(level));
            out.push('}');
        }
        scalar => out.push_str(&scalar_text(scalar)),
    }
}

/// The one-line form of a value whose members are all scalars or empty
/// (`{ type: 'string', enum: ['a', 'b'] }` is not one: a schema reads
/// better one keyword a line once it nests); `None` for other values.
fn inline(value: &Value) -> Option<String> {
    match value {
        Value::Array(items) if items.is_empty() => Some("[]".to_string()),
        Value::Object(members) if members.is_empty() => Some("{}".to_string()),
        Value::Array(items) => {
            let texts: Option<Vec<String>> = items.iter().map(flat).collect();
            Some(format!("[{}]", texts?.join(", ")))
        }
        Value::Object(members) => {
            let texts: Option<Vec<String>> = members
                .iter()
                .map(|(name, member)| flat(member).map(|text| format!("{}: {text}", key(name))))
                .collect();
            Some(format!("{{ {} }}", texts?.join(", ")))
        }
        scalar => Some(scalar_text(scalar)),
    }
}

/// A scalar or an empty container, as text; `None` for anything larger.
fn flat(value: &Value) -> Option<String> {
    match value {
        Value::Array(items) if items.is_empty() => Some("[]".to_string()),
        Value::Object(members) if members.is_empty() => Some("{}".to_string()),
        Value::Array(_) | Value::Object(_) => None,
        scalar => Some(scalar_text(scalar)),
    }
}

/// Strings quoted, numbers as JSON writes them (`1.5`, `-3`, `1e+100`),
/// `true`, `false`, `null`.
fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(text) => string_literal(text),
        // As serde_json writes it: `1.5`, `-3`, `1e+100`.
        Value::Number(number) => number.to_string(),
        Value::Bool(flag) => flag.to_string(),
        Value::Null => "null".to_string(),
        // Containers never get here; JSON text is at least valid TypeScript.
        other => other.to_string(),
    }
}

/// How deeply `value` nests (a scalar is 0, `[1]` is 1), counted without
/// recursion so that no input can exhaust the stack.
pub(super) fn depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((value, level)) = stack.pop() {
        deepest = deepest.max(level);
        match value {
            Value::Array(items) => stack.extend(items.iter().map(|v| (v, level + 1))),
            Value::Object(members) => stack.extend(members.values().map(|v| (v, level + 1))),
            _ => {}
        }
    }
    deepest
}

/// Why a parameter schema is not a value of Nachos' `ParameterSchema`
/// type (`@nachos/types`: `{type: 'object'; properties: Record<string,
/// JSONSchemaProperty>; required?: string[]; additionalProperties?:
/// boolean}`), as the JSON Pointer of the first thing that does not fit and
/// what is wrong with it; `None` when it fits. TypeScript checks object
/// literals for unknown keys, so an unlisted keyword does not fit either.
pub(super) fn parameter_schema_misfit(schema: &Value) -> Option<String> {
    let Some(root) = schema.as_object() else {
        return Some("the parameters are not an object".to_string());
    };
    for (name, value) in root {
        let at = format!("/{}", pointer_token(name));
        let fits = match name.as_str() {
            "type" => value == "object",
            "properties" => match value {
                Value::Object(properties) => {
                    if let Some(misfit) = properties_misfit(properties, "/properties") {
                        return Some(misfit);
                    }
                    true
                }
                _ => false,
            },
            "required" => value
                .as_array()
                .is_some_and(|names| names.iter().all(Value::is_string)),
            "additionalProperties" => value.is_boolean(),
            _ => return Some(format!("{at}: ParameterSchema has no \"{name}\"")),
        };
        if !fits {
            return Some(format!("{at}: {value} does not fit ParameterSchema"));
        }
    }
    if !root.contains_key("properties") {
        return Some("/properties: ParameterSchema requires it".to_string());
    }
    None
}

/// The `JSONSchemaProperty` types Nachos declares.
const PROPERTY_TYPES: [&str; 5] = ["string", "number", "boolean", "object", "array"];

fn properties_misfit(properties: &Map<String, Value>, at: &str) -> Option<String> {
    properties.iter().find_map(|(name, property)| {
        property_misfit(property, &format!("{at}/{}", pointer_token(name)))
    })
}

/// The first part of `property` that is not a `JSONSchemaProperty`.
fn property_misfit(property: &Value, at: &str) -> Option<String> {
    let Some(members) = property.as_object() else {
        return Some(format!("{at}: not an object"));
    };
    for (name, value) in members {
        let here = format!("{at}/{}", pointer_token(name));
        let fits = match name.as_str() {
            "type" => value.as_str().is_some_and(|t| PROPERTY_TYPES.contains(&t)),
            "description" | "format" | "pattern" => value.is_string(),
            "enum" | "examples" => value.is_array(),
            "minimum" | "maximum" | "minLength" | "maxLength" => value.is_number(),
            "default" => true,
            "items" => {
                if let Some(misfit) = property_misfit(value, &here) {
                    return Some(misfit);
                }
                true
            }
            "properties" => match value {
                Value::Object(nested) => {
                    if let Some(misfit) = properties_misfit(nested, &here) {
                        return Some(misfit);
                    }
                    true
                }
                _ => false,
            },
            _ => return Some(format!("{here}: JSONSchemaProperty has no \"{name}\"")),
        };
        if !fits {
            return Some(format!("{here}: {value} does not fit JSONSchemaProperty"));
        }
    }
    if !members.contains_key("type") {
        return Some(format!("{at}: JSONSchemaProperty requires a \"type\""));
    }
    None
}

/// A JSON Pointer reference token (RFC 6901).
fn pointer_token(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn at(used: usize) -> Place {
        Place {
            base: 0,
            used,
            after: 1,
        }
    }

    #[test]
    fn strings_are_escaped() {
        assert_eq!(string_literal("it's"), "'it\\'s'");
        assert_eq!(string_literal("a\\b"), "'a\\\\b'");
        assert_eq!(string_literal("a\nb\r\tc"), "'a\\nb\\r\\tc'");
        assert_eq!(string_literal("\u{2028}\u{2029}"), "'\\u2028\\u2029'");
        assert_eq!(string_literal("\u{0}1\u{7f}"), "'\\u00001\\u007f'");
        assert_eq!(
            string_literal("${x} `y` \"z\" é 🌮"),
            "'${x} `y` \"z\" é 🌮'"
        );
    }

    #[test]
    fn keys_are_bare_only_when_they_are_identifiers() {
        assert_eq!(key("type"), "type");
        assert_eq!(key("$ref"), "$ref");
        assert_eq!(key("_a1"), "_a1");
        assert_eq!(key("default"), "default");
        assert_eq!(key("a-b"), "'a-b'");
        assert_eq!(key("1x"), "'1x'");
        assert_eq!(key("1"), "'1'");
        assert_eq!(key(""), "''");
        assert_eq!(key("é"), "'é'");
    }

    #[test]
    fn small_values_stay_on_one_line() {
        let value =
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]});
        assert_eq!(
            layout(&value, at(0), true),
            "{\n  type: 'object',\n  properties: {\n    a: { type: 'string' },\n  },\n  required: ['a'],\n}"
        );
        assert_eq!(layout(&json!({}), at(0), true), "{}");
        assert_eq!(
            layout(&json!([1.5, -3, 1e100, null]), at(0), false),
            "[1.5, -3, 1e+100, null]"
        );
    }

    #[test]
    fn long_values_break() {
        let long = "x".repeat(70);
        let value = json!({"description": long, "enum": [long, "b"]});
        assert_eq!(
            layout(&value, at(4), false),
            format!("{{\n  description: '{long}',\n  enum: [\n    '{long}',\n    'b',\n  ],\n}}")
        );
    }

    #[test]
    fn depth_counts_levels() {
        assert_eq!(depth(&json!(1)), 0);
        assert_eq!(depth(&json!({"a": [1]})), 2);
    }

    #[test]
    fn misfits_name_the_first_problem() {
        let fits = json!({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}, "default": [null]}}, "required": ["a"], "additionalProperties": false});
        assert_eq!(parameter_schema_misfit(&fits), None);
        let integer = json!({"type": "object", "properties": {"a/b": {"type": "integer"}}});
        assert_eq!(
            parameter_schema_misfit(&integer).as_deref(),
            Some("/properties/a~1b/type: \"integer\" does not fit JSONSchemaProperty")
        );
        let nested_required =
            json!({"type": "object", "properties": {"a": {"type": "object", "required": []}}});
        assert!(parameter_schema_misfit(&nested_required).is_some());
        assert!(parameter_schema_misfit(&json!({"type": "object"})).is_some());
        assert!(
            parameter_schema_misfit(&json!({"type": "object", "properties": {}, "anyOf": []}))
                .is_some()
        );
    }
}
