//! Python type hints and JSON type names from a property's JSON Schema.
//!
//! The mapping: `string` → `str` (`Literal[...]` for a string enum),
//! `integer` → `int`, `number` → `float`, `boolean` → `bool`, `array` →
//! `list[T]` (`list[Any]` without `items`), `object` → `dict[str, Any]`,
//! `null` → `None`; several types, `anyOf` or `oneOf` → `X | Y`, an
//! optional one `X | None`; anything else → `Any`. Unions are written the
//! PEP 604 way (Python 3.10 and later), as ruff wants them; `Literal` and
//! `Any` come from `typing`.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::layout::Expr;

/// The `typing` names a module's hints use, for its import line.
#[derive(Debug, Default)]
pub(crate) struct TypingImports(BTreeSet<&'static str>);

impl TypingImports {
    pub(crate) fn add(&mut self, name: &'static str) {
        self.0.insert(name);
    }

    /// `Any, Literal` (sorted), or empty.
    pub(crate) fn line(&self) -> String {
        self.0.iter().copied().collect::<Vec<_>>().join(", ")
    }
}

/// The Python type hint of `schema`, recording the `typing` names it uses.
pub(crate) fn hint(schema: &Value, imports: &mut TypingImports) -> Expr {
    let Some(object) = schema.as_object() else {
        return any(imports);
    };
    if let Some(values) = object.get("enum").and_then(Value::as_array)
        && !values.is_empty()
        && values.iter().all(Value::is_string)
    {
        imports.add("Literal");
        // A repeated value says nothing more (and ruff flags it, PYI062).
        let mut unique: Vec<&Value> = Vec::new();
        for value in values {
            if !unique.contains(&value) {
                unique.push(value);
            }
        }
        return Expr::subscript("Literal", unique.into_iter().map(Expr::from_json).collect());
    }
    if let Some(Value::String(value)) = object.get("const") {
        imports.add("Literal");
        return Expr::subscript("Literal", vec![Expr::Str(value.clone())]);
    }
    let mut alternatives: Vec<Expr> = match object.get("type") {
        Some(Value::String(name)) => vec![named_type(name, object, imports)],
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(Value::as_str)
            .map(|name| named_type(name, object, imports))
            .collect(),
        _ => ["anyOf", "oneOf"]
            .iter()
            .filter_map(|k| object.get(*k).and_then(Value::as_array))
            .flatten()
            .map(|branch| hint(branch, imports))
            .collect(),
    };
    let mut unique = Vec::new();
    for alternative in alternatives.drain(..) {
        if !unique.contains(&alternative) {
            unique.push(alternative);
        }
    }
    union(unique, imports)
}

/// The hint of an optional parameter: `T | None` unless `T` already
/// admits `None`.
pub(crate) fn optional(hint: Expr) -> Expr {
    if admits_none(&hint) {
        return hint;
    }
    Expr::union(vec![hint, Expr::atom("None")])
}

/// Whether values of this hint may be `None`.
fn admits_none(hint: &Expr) -> bool {
    match hint {
        Expr::Atom(name) => name == "Any" || name == "None",
        Expr::Union(alternatives) => alternatives.iter().any(admits_none),
        _ => false,
    }
}

fn any(imports: &mut TypingImports) -> Expr {
    imports.add("Any");
    Expr::atom("Any")
}

fn named_type(name: &str, object: &Map<String, Value>, imports: &mut TypingImports) -> Expr {
    match name {
        "string" => Expr::atom("str"),
        "integer" => Expr::atom("int"),
        "number" => Expr::atom("float"),
        "boolean" => Expr::atom("bool"),
        "null" => Expr::atom("None"),
        "array" => {
            let item = match object.get("items") {
                Some(items @ Value::Object(_)) => hint(items, imports),
                _ => any(imports),
            };
            Expr::subscript("list", vec![item])
        }
        "object" => {
            let value = any(imports);
            Expr::subscript("dict", vec![Expr::atom("str"), value])
        }
        _ => any(imports),
    }
}

/// One hint for several alternatives, `None` last.
fn union(alternatives: Vec<Expr>, imports: &mut TypingImports) -> Expr {
    let none = Expr::atom("None");
    let nullable = alternatives.contains(&none);
    let mut rest: Vec<Expr> = alternatives.into_iter().filter(|a| *a != none).collect();
    if rest.contains(&Expr::atom("Any")) {
        return any(imports);
    }
    let inner = match rest.len() {
        0 if nullable => return none,
        0 => return any(imports),
        1 => rest.remove(0),
        _ => Expr::union(rest),
    };
    if nullable { optional(inner) } else { inner }
}

/// How the schema's type reads in prose: `string`, `array of integer`,
/// `string or null`, `any`. (Enum values are not listed: see [`choices`].)
pub(crate) fn json_type(schema: &Value) -> String {
    let Some(object) = schema.as_object() else {
        return "any".to_string();
    };
    let names: Vec<String> = match object.get("type") {
        Some(Value::String(name)) => vec![named_json_type(name, object)],
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(Value::as_str)
            .map(|name| named_json_type(name, object))
            .collect(),
        _ => implied_types(object).unwrap_or_default(),
    };
    let every_type = ["string", "number", "boolean", "array", "object", "null"]
        .iter()
        .all(|t| names.iter().any(|n| n == t));
    if names.is_empty() || every_type {
        "any".to_string()
    } else {
        names.join(" or ")
    }
}

/// The values a schema allows when it lists them (`enum`, `const`), as
/// JSON text.
pub(crate) fn choices(schema: &Value) -> Vec<String> {
    match (schema.get("enum"), schema.get("const")) {
        (Some(Value::Array(values)), _) => values.iter().map(Value::to_string).collect(),
        (_, Some(value)) => vec![value.to_string()],
        _ => Vec::new(),
    }
}

fn named_json_type(name: &str, object: &Map<String, Value>) -> String {
    match (name, object.get("items")) {
        ("array", Some(items @ Value::Object(_))) => format!("array of {}", json_type(items)),
        _ => name.to_string(),
    }
}

/// The JSON type names a property's values can have when the schema does
/// not say `type` (NORA requires one): from its enum or const values, or its
/// `anyOf`/`oneOf` branches. `None` when they do not tell.
pub(crate) fn implied_types(object: &Map<String, Value>) -> Option<Vec<String>> {
    let mut names: Vec<String> = Vec::new();
    let mut add = |name: &str| {
        if !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
    };
    if let Some(values) = object.get("enum").and_then(Value::as_array) {
        for value in values {
            add(value_type(value));
        }
    } else if let Some(value) = object.get("const") {
        add(value_type(value));
    } else {
        let branches: Vec<&Value> = ["anyOf", "oneOf"]
            .iter()
            .filter_map(|k| object.get(*k).and_then(Value::as_array))
            .flatten()
            .collect();
        for branch in branches {
            match branch.get("type") {
                Some(Value::String(name)) => add(name),
                Some(Value::Array(list)) => {
                    list.iter().filter_map(Value::as_str).for_each(&mut add)
                }
                _ => return None,
            }
        }
    }
    if names.is_empty() { None } else { Some(names) }
}

fn value_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A parameter's default as a Python literal, when it is a scalar that fits
/// the hint (`None` for lists and objects: a mutable default is shared
/// between calls, so those default to `None` and the docstring says more).
pub(crate) fn default_literal(default: &Value, hint: &Expr) -> Option<Expr> {
    let fits = match (default, hint) {
        (_, Expr::Atom(name)) if name == "Any" => !default.is_array() && !default.is_object(),
        (Value::String(_), Expr::Atom(name)) => name == "str",
        (Value::String(s), Expr::Seq { head, items, .. }) if head == "Literal" => {
            items.contains(&Expr::Str(s.clone()))
        }
        (Value::Bool(_), Expr::Atom(name)) => name == "bool",
        (Value::Number(n), Expr::Atom(name)) => {
            name == "float" || (name == "int" && (n.is_i64() || n.is_u64()))
        }
        _ => false,
    };
    fits.then(|| Expr::from_json(default))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn flat(schema: Value) -> (String, String) {
        let mut imports = TypingImports::default();
        let hint = hint(&schema, &mut imports).flat();
        (hint, imports.line())
    }

    #[test]
    fn hints_follow_the_schema() {
        let cases = [
            (json!({"type": "string"}), "str", ""),
            (json!({"type": "integer"}), "int", ""),
            (json!({"type": "number"}), "float", ""),
            (json!({"type": "boolean"}), "bool", ""),
            (
                json!({"type": "array", "items": {"type": "string"}}),
                "list[str]",
                "",
            ),
            (json!({"type": "array"}), "list[Any]", "Any"),
            (json!({"type": "object"}), "dict[str, Any]", "Any"),
            (
                json!({"type": "string", "enum": ["GET", "HEAD"]}),
                "Literal[\"GET\", \"HEAD\"]",
                "Literal",
            ),
            (json!({"type": ["string", "null"]}), "str | None", ""),
            (json!({"type": ["string", "integer"]}), "str | int", ""),
            (
                json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
                "str | None",
                "",
            ),
            (
                json!({"type": ["string", "object"]}),
                "str | dict[str, Any]",
                "Any",
            ),
            (json!({"$ref": "#/$defs/x"}), "Any", "Any"),
            (json!({"enum": [1, 2]}), "Any", "Any"),
        ];
        for (schema, hint, imports) in cases {
            assert_eq!(
                flat(schema.clone()),
                (hint.to_string(), imports.to_string()),
                "{schema}"
            );
        }
    }

    #[test]
    fn json_types_read_as_prose() {
        assert_eq!(
            json_type(&json!({"type": "array", "items": {"type": "integer"}})),
            "array of integer"
        );
        assert_eq!(
            json_type(&json!({"type": "string", "enum": ["a", "b"]})),
            "string"
        );
        assert_eq!(json_type(&json!({"enum": ["a", 1]})), "string or integer");
        assert_eq!(choices(&json!({"enum": ["a", 1]})), ["\"a\"", "1"]);
        assert_eq!(json_type(&json!({})), "any");
    }

    #[test]
    fn implied_types_come_from_values_and_branches() {
        let object = |v: Value| v.as_object().cloned().unwrap_or_default();
        assert_eq!(
            implied_types(&object(json!({"enum": ["a", 1]}))),
            Some(vec!["string".into(), "integer".into()])
        );
        assert_eq!(
            implied_types(&object(
                json!({"anyOf": [{"type": "string"}, {"type": "null"}]})
            )),
            Some(vec!["string".into(), "null".into()])
        );
        assert_eq!(implied_types(&object(json!({"$ref": "#/x"}))), None);
    }

    #[test]
    fn defaults_must_fit_the_hint() {
        assert!(default_literal(&json!(5), &Expr::atom("int")).is_some());
        assert!(default_literal(&json!(5.5), &Expr::atom("int")).is_none());
        assert!(default_literal(&json!("x"), &Expr::atom("int")).is_none());
        assert!(
            default_literal(
                &json!([]),
                &Expr::subscript("list", vec![Expr::atom("str")])
            )
            .is_none()
        );
    }
}
