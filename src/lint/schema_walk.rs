//! Visiting every subschema of a JSON Schema, with its JSON Pointer.
//!
//! Rules about properties (missing type, missing description, `required`
//! naming an unknown property) apply at every level of a parameter schema,
//! not only the root: inside `properties`, `items`, combinators and `$defs`.
//! Recursion is bounded by the parser's nesting limit.

use serde_json::{Map, Value};

use crate::json;

/// Keywords whose value is one subschema.
const SINGLE: &[&str] = &[
    "additionalProperties",
    "items",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
];
/// Keywords whose value is an array of subschemas.
const LISTS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems", "items"];
/// Keywords whose value maps names to subschemas.
const MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// Calls `visit` with the pointer and the object of every object-shaped
/// subschema of `schema`, `schema` itself first.
pub(crate) fn for_each_schema(
    schema: &Value,
    pointer: &str,
    visit: &mut dyn FnMut(&str, &Map<String, Value>),
) {
    let Some(object) = schema.as_object() else {
        return;
    };
    visit(pointer, object);
    for keyword in SINGLE {
        if let Some(sub @ Value::Object(_)) = object.get(*keyword) {
            for_each_schema(sub, &json::join(pointer, keyword), visit);
        }
    }
    for keyword in LISTS {
        if let Some(Value::Array(items)) = object.get(*keyword) {
            let base = json::join(pointer, keyword);
            for (i, sub) in items.iter().enumerate() {
                for_each_schema(sub, &json::join(&base, i), visit);
            }
        }
    }
    for keyword in MAPS {
        if let Some(Value::Object(members)) = object.get(*keyword) {
            let base = json::join(pointer, keyword);
            for (name, sub) in members {
                for_each_schema(sub, &json::join(&base, name), visit);
            }
        }
    }
}

/// Whether a property schema says what its values are without `type`
/// (an enum, a constant, a reference, a combinator).
pub(crate) fn has_implied_type(property: &Map<String, Value>) -> bool {
    ["enum", "const", "$ref", "anyOf", "oneOf", "allOf"]
        .iter()
        .any(|k| property.contains_key(*k))
}
