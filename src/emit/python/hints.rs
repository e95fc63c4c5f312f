//! Python type hints and JSON type names from a property's JSON Schema.
//!
//! The mapping: `string` → `str` (`Literal[...]` for a string enum),
//! `integer` → `int`, `number` → `float`, `boolean` → `bool`, `array` →
//! `list[T]` (`list[Any]` without `items`), `object` → a stdlib
//! `@dataclass` when it declares `properties` (see [`Hints`]), else
//! `dict[str, Any]`, `null` → `None`; several types, `anyOf` or `oneOf` → `X | Y`, an
//! optional one `X | None`; anything else → `Any`. Unions are written the
//! PEP 604 way (Python 3.10 and later), as ruff wants them; `Literal` and
//! `Any` come from `typing`.

use std::collections::BTreeSet;

use serde::Serialize;
use serde_json::{Map, Value};

use super::layout::Expr;
use super::names::{self, HINT_BUILTINS, Namer};

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

/// What a module's hints need besides themselves: the `typing` names they
/// use and the dataclasses they name.
///
/// An object schema with declared `properties` (at any depth, in arrays
/// too) becomes a stdlib `@dataclass` (pydantic reads those on every
/// Python version, unlike `typing.TypedDict` before 3.12): required fields
/// first as `name: T`, then the others as `name: T | None = None`, as
/// dataclasses want them, each followed by its description as an
/// attribute docstring (which pydantic reads with the class's
/// `use_attribute_docstrings`). Its name is the PascalCase of its path (the
/// function, then the property names, `Item` for an array's items), unique
/// in the module. An object whose property names cannot all be fields
/// stays `dict[str, Any]` (and is listed in `kept`).
#[derive(Debug, Default)]
pub(crate) struct Hints {
    pub(crate) imports: TypingImports,
    /// The module's class names (and the names they must not take).
    classes: Namer,
    /// The dataclasses in the order they must be defined: each one after
    /// those its fields name.
    pub(crate) dataclasses: Vec<Dataclass>,
    /// The objects kept as dicts since the last [`Hints::take_kept`]: where
    /// they are (a JSON Pointer) and the property names that are not
    /// fields.
    kept: Vec<(String, Vec<String>)>,
    /// The fields made since the last [`Hints::take_fields`]: where each
    /// one's schema is, and its schema, for what its hint cannot say.
    fields: Vec<(String, Map<String, Value>)>,
}

/// A dataclass for an object schema (`python/agentstack/__init__.py.j2`'s
/// `classes`).
#[derive(Debug, Serialize)]
pub(crate) struct Dataclass {
    pub(crate) name: String,
    /// The object's description, for the class docstring, or none.
    pub(crate) description_doc: Option<String>,
    /// Required fields first, then optional ones, each in the schema's order.
    pub(crate) fields: Vec<Field>,
}

#[derive(Debug, Serialize)]
pub(crate) struct Field {
    pub(crate) name: String,
    /// The hint, laid out after `    name: `.
    pub(crate) hint: String,
    /// `None` for an optional field, else none.
    pub(crate) default: Option<String>,
    /// The property's description ("(no description)" when it has none),
    /// a string literal laid out on a line of its own after the field
    /// (pydantic takes the string as it is: a docstring's wrapping and
    /// indentation would be part of it).
    pub(crate) description_literal: String,
}

/// Where a schema is: the names its class would be named after, and its
/// JSON Pointer (for notes).
#[derive(Debug, Clone)]
pub(crate) struct At {
    names: Vec<String>,
    pointer: String,
}

impl At {
    /// A parameter `key` of the function `function`, at `pointer`.
    pub(crate) fn parameter(function: &str, key: &str, pointer: &str) -> At {
        At {
            names: vec![function.to_string(), key.to_string()],
            pointer: pointer.to_string(),
        }
    }

    fn child(&self, name: Option<&str>, tokens: &[&str]) -> At {
        let mut names = self.names.clone();
        names.extend(name.map(str::to_string));
        let pointer = tokens
            .iter()
            .fold(self.pointer.clone(), |p, t| crate::json::join(&p, t));
        At { names, pointer }
    }
}

/// Names a field may not take: a field with a default binds its name in
/// the class body, so the annotations after it would find the default
/// there instead of the type.
const FIELD_RESERVED: &[&str] = &["Any", "ClassVar", "Literal", "dataclass"];

impl Hints {
    /// Hints for a module where `reserved` names are taken (its functions,
    /// its imports): classes take none of them, nor a keyword or a builtin
    /// the hints use.
    pub(crate) fn new(reserved: &[&str]) -> Hints {
        let mut taken: Vec<&str> = reserved.to_vec();
        taken.extend(names::KEYWORDS);
        taken.extend(HINT_BUILTINS);
        taken.extend(FIELD_RESERVED);
        Hints {
            classes: Namer::with_reserved(&taken),
            ..Hints::default()
        }
    }

    /// The objects kept as `dict[str, Any]` since the last call: where they
    /// are and the property names that cannot be fields.
    pub(crate) fn take_kept(&mut self) -> Vec<(String, Vec<String>)> {
        std::mem::take(&mut self.kept)
    }

    /// The dataclass fields made since the last call: where each one's
    /// schema is, and the schema.
    pub(crate) fn take_fields(&mut self) -> Vec<(String, Map<String, Value>)> {
        std::mem::take(&mut self.fields)
    }

    /// The dataclass for an object schema with declared properties, and its
    /// name; none for a free map or one whose names cannot be fields.
    fn dataclass(&mut self, object: &Map<String, Value>, at: &At) -> Option<String> {
        let properties = object
            .get("properties")
            .and_then(Value::as_object)
            .filter(|p| !p.is_empty())?;
        let not_fields: Vec<String> = properties
            .keys()
            .filter(|k| !names::is_plain_identifier(k) || is_reserved_field(k))
            .cloned()
            .collect();
        if !not_fields.is_empty() {
            self.kept.push((at.pointer.clone(), not_fields));
            return None;
        }
        let required: Vec<&str> = object
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        // The class's own fields shadow module names in its body.
        for key in properties.keys() {
            self.classes.reserve(key);
        }
        let mut fields = Vec::new();
        let mut optional_fields = Vec::new();
        for (key, schema) in properties {
            let child = at.child(Some(key), &["properties", key]);
            let hint = hint(schema, self, &child);
            if let Some(schema) = schema.as_object() {
                self.fields.push((child.pointer.clone(), schema.clone()));
            }
            let column = 4 + key.chars().count() + 2;
            let description = schema
                .get("description")
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|d| !d.is_empty())
                .unwrap_or("(no description)");
            let description_literal = Expr::Str(description.to_string()).layout(4, 4, 0);
            if required.contains(&key.as_str()) {
                fields.push(Field {
                    name: key.clone(),
                    hint: hint.layout(4, column, 0),
                    default: None,
                    description_literal,
                });
            } else {
                optional_fields.push(Field {
                    name: key.clone(),
                    hint: optional(hint).layout(4, column, " = None".len()),
                    default: Some("None".to_string()),
                    description_literal,
                });
            }
        }
        fields.append(&mut optional_fields);
        // The template's `__pydantic_config__: ClassVar[...]`.
        self.imports.add("ClassVar");
        let name = self.classes.unique_class(names::path_class_name(&at.names));
        let description_doc = object
            .get("description")
            .and_then(Value::as_str)
            .filter(|d| !d.trim().is_empty())
            .map(|d| super::doc(d.trim()));
        self.dataclasses.push(Dataclass {
            name: name.clone(),
            description_doc,
            fields,
        });
        Some(name)
    }
}

fn is_reserved_field(name: &str) -> bool {
    FIELD_RESERVED.contains(&name) || HINT_BUILTINS.contains(&name)
}

/// The Python type hint of `schema` (at `at`), recording the `typing`
/// names and the dataclasses it uses.
pub(crate) fn hint(schema: &Value, hints: &mut Hints, at: &At) -> Expr {
    let imports = &mut hints.imports;
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
        Some(Value::String(name)) => vec![named_type(name, object, hints, at)],
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(Value::as_str)
            .map(|name| named_type(name, object, hints, at))
            .collect(),
        _ => {
            let mut branches = Vec::new();
            for keyword in ["anyOf", "oneOf"] {
                let Some(list) = object.get(keyword).and_then(Value::as_array) else {
                    continue;
                };
                for (i, branch) in list.iter().enumerate() {
                    let index = i.to_string();
                    branches.push(hint(branch, hints, &at.child(None, &[keyword, &index])));
                }
            }
            branches
        }
    };
    let mut unique = Vec::new();
    for alternative in alternatives.drain(..) {
        if !unique.contains(&alternative) {
            unique.push(alternative);
        }
    }
    union(unique, &mut hints.imports)
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

fn named_type(name: &str, object: &Map<String, Value>, hints: &mut Hints, at: &At) -> Expr {
    match name {
        "string" => Expr::atom("str"),
        "integer" => Expr::atom("int"),
        "number" => Expr::atom("float"),
        "boolean" => Expr::atom("bool"),
        "null" => Expr::atom("None"),
        "array" => {
            let item = match object.get("items") {
                Some(items @ Value::Object(_)) => {
                    hint(items, hints, &at.child(Some("item"), &["items"]))
                }
                _ => any(&mut hints.imports),
            };
            Expr::subscript("list", vec![item])
        }
        "object" => match hints.dataclass(object, at) {
            Some(class) => Expr::atom(class),
            None => {
                let value = any(&mut hints.imports);
                Expr::subscript("dict", vec![Expr::atom("str"), value])
            }
        },
        _ => any(&mut hints.imports),
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
        _ => crate::schema::implied_types(object).unwrap_or_default(),
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
        let mut hints = Hints::new(&[]);
        let hint = hint(&schema, &mut hints, &At::parameter("f", "p", "")).flat();
        (hint, hints.imports.line())
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
    fn objects_with_properties_become_dataclasses() {
        let schema = json!({
            "type": "object",
            "properties": {
                "label": {"type": "string"},
                "origin": {
                    "type": "object",
                    "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
                    "required": ["y"]
                },
                "points": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"x": {"type": "integer"}}}
                },
                "tags": {"type": "object", "additionalProperties": {"type": "string"}},
                "odd": {"type": "object", "properties": {"a-b": {"type": "string"}}}
            },
            "required": ["origin"]
        });
        let mut hints = Hints::new(&["ShapeArgOrigin"]);
        let at = At::parameter("shape", "arg", "/p");
        assert_eq!(hint(&schema, &mut hints, &at).flat(), "ShapeArg");
        let classes: Vec<(String, Vec<String>)> = hints
            .dataclasses
            .iter()
            .map(|c| {
                let fields = c
                    .fields
                    .iter()
                    .map(|f| {
                        let default = f.default.as_deref().map(|d| format!(" = {d}"));
                        format!("{}: {}{}", f.name, f.hint, default.unwrap_or_default())
                    })
                    .collect();
                (c.name.clone(), fields)
            })
            .collect();
        let expected = [
            (
                "ShapeArgOrigin2",
                vec!["y: float", "x: float | None = None"],
            ),
            ("ShapeArgPointsItem", vec!["x: int | None = None"]),
            (
                "ShapeArg",
                vec![
                    "origin: ShapeArgOrigin2",
                    "label: str | None = None",
                    "points: list[ShapeArgPointsItem] | None = None",
                    "tags: dict[str, Any] | None = None",
                    "odd: dict[str, Any] | None = None",
                ],
            ),
        ];
        let expected: Vec<(String, Vec<String>)> = expected
            .iter()
            .map(|(n, f)| (n.to_string(), f.iter().map(|s| s.to_string()).collect()))
            .collect();
        assert_eq!(classes, expected);
        assert_eq!(
            hints.take_kept(),
            [("/p/properties/odd".to_string(), vec!["a-b".to_string()])]
        );
        assert_eq!(hints.imports.line(), "Any, ClassVar");
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
