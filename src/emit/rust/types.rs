//! JSON Schema to Rust types: the structs and enums of one tool's
//! arguments, and notes about what had to become `serde_json::Value`.

use std::collections::BTreeSet;

use serde::Serialize;
use serde_json::{Map, Value};

use super::literals::{comment_text, doc_lines, string_literal};
use super::names::{Names, camel_case, field_names, variant_name};
use crate::diagnostic::Severity;
use crate::emit::Note;

/// Schemas nested deeper than this become `serde_json::Value`: a generated
/// type fifty structs deep helps nobody, and recursion stays bounded.
const MAX_DEPTH: usize = 32;

#[derive(Debug, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub(super) enum TypeDef {
    Struct {
        name: String,
        doc_lines: Vec<String>,
        deny_unknown_fields: bool,
        fields: Vec<FieldDef>,
    },
    Enum {
        name: String,
        doc_lines: Vec<String>,
        variants: Vec<VariantDef>,
    },
}

impl TypeDef {
    /// The Rust names of a struct's fields, in order (none for an enum).
    pub(super) fn field_names(&self) -> Vec<String> {
        match self {
            TypeDef::Struct { fields, .. } => fields.iter().map(|f| f.name.clone()).collect(),
            TypeDef::Enum { .. } => Vec::new(),
        }
    }
}

#[derive(Debug, Serialize)]
pub(super) struct FieldDef {
    name: String,
    /// The JSON name as a string literal, when it differs from `name`.
    rename_literal: Option<String>,
    /// The type of a present, non-null value: the template wraps it in
    /// `Option` when the field is `optional` or `nullable`.
    rust_type: String,
    /// Not in `required`: may be absent (and is skipped when `None`).
    optional: bool,
    /// Required, but its type list allows null (`["string", "null"]`).
    nullable: bool,
    doc_lines: Vec<String>,
    /// Why the type is (or holds) `serde_json::Value`.
    comment: Option<String>,
}

#[derive(Debug, Serialize)]
pub(super) struct VariantDef {
    name: String,
    rename_literal: String,
}

/// A schema's Rust type, whether it may be null, and why it is (or holds)
/// `serde_json::Value`.
struct Mapped {
    rust_type: String,
    nullable: bool,
    why_value: Option<String>,
}

impl Mapped {
    fn rust(rust_type: impl Into<String>) -> Self {
        Mapped {
            rust_type: rust_type.into(),
            nullable: false,
            why_value: None,
        }
    }

    fn value(why: impl Into<String>) -> Self {
        Mapped {
            rust_type: "Value".to_string(),
            nullable: false,
            why_value: Some(why.into()),
        }
    }

    /// A container of `inner`: `opening` is `Vec<` or a map's `..<String, `.
    fn wrap(inner: Mapped, opening: &str, part: &str) -> Self {
        let element = if inner.nullable {
            format!("Option<{}>", inner.rust_type)
        } else {
            inner.rust_type
        };
        Mapped {
            rust_type: format!("{opening}{element}>"),
            nullable: false,
            why_value: inner.why_value.map(|why| format!("{part}: {why}")),
        }
    }
}

/// Collects the types of one tool and the notes about what became `Value`.
pub(super) struct TypeBuilder<'a> {
    names: &'a mut Names,
    types: Vec<TypeDef>,
    notes: &'a mut Vec<Note>,
    path: &'a str,
    tool: &'a str,
}

impl<'a> TypeBuilder<'a> {
    pub(super) fn new(
        names: &'a mut Names,
        notes: &'a mut Vec<Note>,
        path: &'a str,
        tool: &'a str,
    ) -> Self {
        TypeBuilder {
            names,
            types: Vec::new(),
            notes,
            path,
            tool,
        }
    }

    /// The types, the arguments struct first.
    pub(super) fn finish(self) -> Vec<TypeDef> {
        self.types
    }

    /// The arguments struct: a struct whatever the root schema is (fields
    /// from its properties, if any).
    pub(super) fn root_struct(
        &mut self,
        name: String,
        mut doc: Vec<String>,
        schema: &Value,
        pointer: &str,
    ) {
        let object = schema.as_object();
        let unusual = match object {
            None => Some("the parameter schema is not an object"),
            Some(o) if o.contains_key("$ref") => Some("the parameter schema is a $ref"),
            Some(o)
                if ["anyOf", "oneOf", "allOf"]
                    .iter()
                    .any(|k| o.contains_key(*k)) =>
            {
                Some("the parameter schema combines schemas (anyOf, oneOf or allOf)")
            }
            Some(_) => None,
        };
        if let Some(why) = unusual {
            doc.push(String::new());
            doc.extend(doc_lines(&format!(
                "Only the top-level properties are typed: {why}."
            )));
            self.note(
                pointer,
                format!("{why}; the arguments struct has only its top-level properties"),
            );
        }
        let empty = Map::new();
        self.object_struct(name, doc, object.unwrap_or(&empty), pointer, 0);
    }

    fn object_struct(
        &mut self,
        name: String,
        doc: Vec<String>,
        schema: &Map<String, Value>,
        pointer: &str,
        depth: usize,
    ) {
        let index = self.types.len();
        // Reserve the place so the struct comes before the types it uses.
        self.types.push(TypeDef::Struct {
            name: String::new(),
            doc_lines: Vec::new(),
            deny_unknown_fields: false,
            fields: Vec::new(),
        });
        let required: BTreeSet<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut fields = Vec::new();
        let properties = schema.get("properties").and_then(Value::as_object);
        let field_names = field_names(properties.into_iter().flatten().map(|(key, _)| key));
        for ((key, property), field_name) in properties.into_iter().flatten().zip(field_names) {
            let property_pointer = format!("{pointer}/properties/{}", pointer_escape(key));
            let hint = format!("{name}{}", camel_case(key, "Field"));
            let mapped = self.map(property, &hint, &property_pointer, depth + 1);
            let description = property
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or("");
            fields.push(FieldDef {
                rename_literal: (field_name != *key).then(|| string_literal(key)),
                name: field_name,
                rust_type: mapped.rust_type,
                optional: !required.contains(key.as_str()),
                nullable: mapped.nullable && required.contains(key.as_str()),
                doc_lines: doc_lines(description),
                comment: mapped
                    .why_value
                    .map(|why| comment_text(&format!("serde_json::Value: {why}"))),
            });
        }
        self.types[index] = TypeDef::Struct {
            name,
            doc_lines: doc,
            deny_unknown_fields: schema.get("additionalProperties") == Some(&Value::Bool(false)),
            fields,
        };
    }

    /// The type of one schema; nested structs and enums are named `hint`.
    fn map(&mut self, schema: &Value, hint: &str, pointer: &str, depth: usize) -> Mapped {
        let mapped = self.map_schema(schema, hint, pointer, depth);
        if let Some(why) = mapped
            .why_value
            .as_deref()
            .filter(|_| mapped.rust_type == "Value")
        {
            self.note(pointer, format!("generated as serde_json::Value: {why}"));
        }
        mapped
    }

    fn map_schema(&mut self, schema: &Value, hint: &str, pointer: &str, depth: usize) -> Mapped {
        if depth > MAX_DEPTH {
            return Mapped::value(format!("nested deeper than {MAX_DEPTH} levels"));
        }
        let object = match schema {
            Value::Object(object) => object,
            Value::Bool(true) => return Mapped::value("the schema `true` allows any value"),
            Value::Bool(false) => return Mapped::value("the schema `false` allows no value"),
            _ => return Mapped::value("the schema is not an object"),
        };
        if object.contains_key("$ref") {
            return Mapped::value("$ref is not followed");
        }
        for combinator in ["anyOf", "oneOf", "allOf"] {
            if object.contains_key(combinator) {
                return Mapped::value(format!("{combinator} has no single Rust type"));
            }
        }
        if let Some(values) = object.get("enum") {
            return self.string_enum(values, object, hint);
        }
        match object.get("type") {
            Some(Value::String(kind)) => self.map_type(kind, object, hint, pointer, depth),
            Some(Value::Array(kinds)) => self.map_type_list(kinds, object, hint, pointer, depth),
            Some(_) => Mapped::value("`type` is neither a string nor a list"),
            None if object.contains_key("properties") => {
                self.map_type("object", object, hint, pointer, depth)
            }
            None if object.contains_key("items") => {
                self.map_type("array", object, hint, pointer, depth)
            }
            None => Mapped::value("the schema gives no type"),
        }
    }

    fn map_type(
        &mut self,
        kind: &str,
        object: &Map<String, Value>,
        hint: &str,
        pointer: &str,
        depth: usize,
    ) -> Mapped {
        match kind {
            "string" => Mapped::rust("String"),
            "integer" => Mapped::rust("i64"),
            "number" => Mapped::rust("f64"),
            "boolean" => Mapped::rust("bool"),
            "null" => Mapped::value("type null"),
            "array" => match object.get("items") {
                Some(items @ (Value::Object(_) | Value::Bool(_))) => {
                    let inner = self.map(
                        items,
                        &format!("{hint}Item"),
                        &format!("{pointer}/items"),
                        depth + 1,
                    );
                    Mapped::wrap(inner, "Vec<", "items")
                }
                Some(_) => {
                    Mapped::value("tuple items (`items` is a list) have no single Rust type")
                }
                None => Mapped::wrap(Mapped::value("the items have no schema"), "Vec<", "items"),
            },
            "object" => self.map_object(object, hint, pointer, depth),
            other => Mapped::value(format!("unknown type {other:?}")),
        }
    }

    /// `["T", "null"]` is an optional `T`; other lists have no one type.
    fn map_type_list(
        &mut self,
        kinds: &[Value],
        object: &Map<String, Value>,
        hint: &str,
        pointer: &str,
        depth: usize,
    ) -> Mapped {
        let named: Vec<&str> = kinds.iter().filter_map(Value::as_str).collect();
        let non_null: Vec<&str> = named.iter().copied().filter(|k| *k != "null").collect();
        if named.len() == kinds.len() && named.len() == 2 && non_null.len() == 1 {
            let inner = self.map_type(non_null[0], object, hint, pointer, depth);
            return Mapped {
                nullable: true,
                ..inner
            };
        }
        Mapped::value("a list of types has no single Rust type")
    }

    fn map_object(
        &mut self,
        object: &Map<String, Value>,
        hint: &str,
        pointer: &str,
        depth: usize,
    ) -> Mapped {
        let has_properties = object
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| !p.is_empty());
        let closed = object.get("additionalProperties") == Some(&Value::Bool(false));
        if has_properties || (closed && object.contains_key("properties")) {
            let name = self.names.claim(hint);
            let description = object
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or("");
            self.object_struct(name.clone(), doc_lines(description), object, pointer, depth);
            return Mapped::rust(name);
        }
        match object.get("additionalProperties") {
            Some(values @ Value::Object(_)) => {
                let inner = self.map(
                    values,
                    &format!("{hint}Value"),
                    &format!("{pointer}/additionalProperties"),
                    depth + 1,
                );
                Mapped::wrap(inner, "std::collections::BTreeMap<String, ", "values")
            }
            _ => Mapped::rust("Map<String, Value>"),
        }
    }

    /// An enum of strings becomes a Rust enum; any other enum, `Value`.
    fn string_enum(&mut self, values: &Value, object: &Map<String, Value>, hint: &str) -> Mapped {
        let Some(values) = values.as_array() else {
            return Mapped::value("`enum` is not a list");
        };
        let strings: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
        if strings.is_empty() || strings.len() != values.len() {
            let why = if values.is_empty() {
                "an empty enum"
            } else {
                "an enum of values that are not all strings"
            };
            return Mapped::value(why);
        }
        let name = self.names.claim(hint);
        let mut variant_names = Names::empty();
        let mut seen = BTreeSet::new();
        let variants = strings
            .into_iter()
            .filter(|value| seen.insert(*value))
            .map(|value| VariantDef {
                name: variant_names.claim(&variant_name(value)),
                rename_literal: string_literal(value),
            })
            .collect();
        let description = object
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("");
        self.types.push(TypeDef::Enum {
            name: name.clone(),
            doc_lines: doc_lines(description),
            variants,
        });
        Mapped::rust(name)
    }

    fn note(&mut self, pointer: &str, message: String) {
        self.notes.push(Note {
            path: self.path.to_string(),
            pointer: pointer.to_string(),
            severity: Severity::Info,
            message: format!("tool \"{}\": {message}", self.tool),
        });
    }
}

fn pointer_escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mapped(schema: Value) -> (String, Option<String>) {
        let (mut names, mut notes) = (Names::new(), Vec::new());
        let mut builder = TypeBuilder {
            names: &mut names,
            types: Vec::new(),
            notes: &mut notes,
            path: "t.json",
            tool: "t",
        };
        let mapped = builder.map(&schema, "TArgsX", "/p", 1);
        let full = if mapped.nullable {
            format!("Option<{}>", mapped.rust_type)
        } else {
            mapped.rust_type
        };
        (full, mapped.why_value)
    }

    #[test]
    fn schemas_map_to_rust_types() {
        use serde_json::json;
        let typed = [
            (json!({"type": "string", "format": "uri"}), "String"),
            (json!({"type": "integer"}), "i64"),
            (json!({"type": "number"}), "f64"),
            (json!({"type": "boolean"}), "bool"),
            (
                json!({"type": "array", "items": {"type": "integer"}}),
                "Vec<i64>",
            ),
            (json!({"type": ["string", "null"]}), "Option<String>"),
            (
                json!({"type": "array", "items": {"type": ["integer", "null"]}}),
                "Vec<Option<i64>>",
            ),
            (json!({"type": "object"}), "Map<String, Value>"),
            (
                json!({"type": "object", "additionalProperties": {"type": "boolean"}}),
                "std::collections::BTreeMap<String, bool>",
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "string"}}}),
                "TArgsX",
            ),
            (json!({"properties": {"a": {"type": "string"}}}), "TArgsX"),
            (json!({"type": "string", "enum": ["a", "b"]}), "TArgsX"),
        ];
        for (schema, rust) in typed {
            assert_eq!(mapped(schema.clone()), (rust.to_string(), None), "{schema}");
        }
        let untyped = [
            (
                json!({"description": "no type"}),
                "the schema gives no type",
            ),
            (json!({"$ref": "#/$defs/a"}), "$ref is not followed"),
            (
                json!({"oneOf": [{"type": "string"}]}),
                "oneOf has no single Rust type",
            ),
            (
                json!({"type": ["string", "integer"]}),
                "a list of types has no single Rust type",
            ),
            (
                json!({"enum": [1, "a"]}),
                "an enum of values that are not all strings",
            ),
            (json!({"type": "array"}), "items: the items have no schema"),
            (
                json!({"type": "array", "items": [{"type": "string"}]}),
                "tuple items (`items` is a list) have no single Rust type",
            ),
            (json!(true), "the schema `true` allows any value"),
        ];
        for (schema, why) in untyped {
            let (_, reason) = mapped(schema.clone());
            assert_eq!(reason.as_deref(), Some(why), "{schema}");
        }
    }
}
