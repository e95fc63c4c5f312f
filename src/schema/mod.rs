//! JSON Schema passes that more than one emitter needs, each written once:
//! following local `$ref`s within a budget ([`RefGuard`]), merging `allOf`
//! ([`merge_all_of`]), flattening a union at the root of a parameter schema
//! ([`flatten_root_unions`]), `oneOf` to `anyOf` ([`one_of_to_any_of`]),
//! and the small facts they share (where a merged property came from,
//! whether a node describes objects).
//!
//! A pass reports what it changed or dropped through [`RewriteNotes`], with
//! pointers relative to the schema's root; the caller decides where those
//! notes go. This module knows JSON Schema only: what a provider accepts is
//! in [`crate::providers`], and what an emitter makes of it is in
//! [`crate::emit`].

mod merge;
mod meta;
mod refs;
mod rename;

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::json;

pub(crate) use merge::{flatten_root_unions, merge_all_of};
pub(crate) use meta::{DIALECT as META_DIALECT, surely_valid};
pub(crate) use refs::{RefGuard, Refusal, resolve_local_ref};
pub(crate) use rename::{
    NameRule, NestedRenames, Renames, rename_nested_properties, rename_properties,
    restore_nested_name,
};

/// Keywords whose value is one subschema.
pub(crate) const SINGLE: &[&str] = &[
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
pub(crate) const LISTS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems", "items"];
/// The dialects whose meta-schemas toolc knows, as `$schema` names them
/// (without the `#` it may end with).
pub(crate) const DIALECTS: &[&str] = &[
    META_DIALECT,
    "https://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft-07/schema",
    "http://json-schema.org/draft-06/schema",
    "http://json-schema.org/draft-04/schema",
];
/// The names JSON Schema's `type` takes, in the order toolc writes them.
pub(crate) const TYPES: [&str; 7] = [
    "string", "number", "integer", "boolean", "array", "object", "null",
];
/// Keywords whose value maps names to subschemas.
pub(crate) const MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// Calls `visit` with every object-shaped subschema of `node` and its
/// pointer (`at` is `node`'s), `node` itself first, depth first; `visit`
/// may change a node before its subschemas are visited. Recursion is
/// bounded by the parser's nesting limit.
pub(crate) fn for_each_subschema_mut(
    node: &mut Map<String, Value>,
    at: &str,
    visit: &mut dyn FnMut(&mut Map<String, Value>, &str),
) {
    let mut pointer = at.to_owned();
    each_subschema_mut(node, &mut pointer, visit);
}

/// [`for_each_subschema_mut`] with one pointer, grown and cut back.
fn each_subschema_mut(
    node: &mut Map<String, Value>,
    at: &mut String,
    visit: &mut dyn FnMut(&mut Map<String, Value>, &str),
) {
    visit(node, at);
    let node_len = at.len();
    for (keyword, value) in node.iter_mut() {
        match value {
            Value::Object(sub) if SINGLE.contains(&keyword.as_str()) => {
                json::push_token(at, keyword);
                each_subschema_mut(sub, at, visit);
            }
            Value::Array(items) if LISTS.contains(&keyword.as_str()) => {
                json::push_token(at, keyword);
                let keyword_len = at.len();
                for (i, item) in items.iter_mut().enumerate() {
                    if let Value::Object(sub) = item {
                        json::push_token(at, i);
                        each_subschema_mut(sub, at, visit);
                        at.truncate(keyword_len);
                    }
                }
            }
            Value::Object(members) if MAPS.contains(&keyword.as_str()) => {
                json::push_token(at, keyword);
                let keyword_len = at.len();
                for (name, member) in members.iter_mut() {
                    if let Value::Object(sub) = member {
                        json::push_token(at, name);
                        each_subschema_mut(sub, at, visit);
                        at.truncate(keyword_len);
                    }
                }
            }
            _ => {}
        }
        at.truncate(node_len);
    }
}

/// Where a schema pass reports a change: `at` is a JSON Pointer relative to
/// the root of the schema being rewritten. An info is a change that loses
/// nothing; a warning loses a constraint or a description.
pub(crate) trait RewriteNotes {
    fn info(&mut self, at: &str, message: impl Into<String>);
    fn warning(&mut self, at: &str, message: impl Into<String>);
    /// Something the target cannot accept and no rewrite can fix: the
    /// output is not written.
    fn error(&mut self, at: &str, message: impl Into<String>);
}

/// Where the properties merged into an object schema came from: property
/// name → pointer of its schema, relative to the parameter schema's root.
/// Properties not listed are where they are (`AT/properties/NAME`).
pub(crate) type Origins = BTreeMap<String, String>;

/// The pointer of property `name` of the object schema at `at`.
pub(crate) fn property_at(at: &str, origins: &Origins, name: &str) -> String {
    origins
        .get(name)
        .cloned()
        .unwrap_or_else(|| json::join(&json::join(at, "properties"), name))
}

/// Makes a `oneOf` an `anyOf` for a provider that has no `oneOf` (its
/// name in `provider` for the notes); returns the keyword the `anyOf`
/// branches are under in the manifest.
pub(crate) fn one_of_to_any_of(
    node: &mut Map<String, Value>,
    at: &str,
    notes: &mut impl RewriteNotes,
    provider: &str,
) -> &'static str {
    if !node.contains_key("oneOf") {
        return "anyOf";
    }
    let one_of_at = json::join(at, "oneOf");
    if node.contains_key("anyOf") {
        node.shift_remove("oneOf");
        notes.warning(
            &one_of_at,
            format!(
                "removed \"oneOf\" beside an \"anyOf\" ({provider} has no \"oneOf\"): its \
                 branches are no longer checked"
            ),
        );
        "anyOf"
    } else {
        rename_key(node, "oneOf", "anyOf");
        notes.info(
            &one_of_at,
            format!(
                "\"oneOf\" became \"anyOf\" ({provider} has no \"oneOf\"): a value that \
                 matches several branches is no longer refused"
            ),
        );
        "oneOf"
    }
}

/// Renames a key in place, keeping its position (and so the output order).
pub(crate) fn rename_key(map: &mut Map<String, Value>, from: &str, to: &str) {
    let old = std::mem::take(map);
    for (key, value) in old {
        if key == from {
            map.insert(to.to_string(), value);
        } else {
            map.insert(key, value);
        }
    }
}

/// Whether a subschema describes objects: `"type": "object"` (alone or in
/// a list), or `properties`. What OpenAI strict mode closes, what its
/// nesting limit counts, and what `strict-additional-properties` checks.
pub(crate) fn is_object_schema(node: &Map<String, Value>) -> bool {
    let typed_object = match node.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
        _ => false,
    };
    typed_object || node.contains_key("properties")
}

/// Whether a property schema says what its values are without `type`
/// (an enum, a constant, a reference, a combinator).
pub(crate) fn has_implied_type(property: &Map<String, Value>) -> bool {
    ["enum", "const", "$ref", "anyOf", "oneOf", "allOf"]
        .iter()
        .any(|k| property.contains_key(*k))
}

/// The property schemas, at any depth, that say nothing of what their
/// values are (no `type` and none implied, see [`has_implied_type`]): their
/// pointers relative to `root` and their names, in document order. What
/// `property-missing-type` reports, and what no writer can give a type to.
/// (`root` is only read; the walk is the mutable one.)
pub(crate) fn untyped_properties(root: &mut Value) -> Vec<(String, String)> {
    let mut found = Vec::new();
    if let Value::Object(node) = root {
        for_each_subschema_mut(node, "", &mut |node, at| {
            let Some(Value::Object(properties)) = node.get("properties") else {
                return;
            };
            for (name, property) in properties {
                if let Value::Object(property) = property
                    && !property.contains_key("type")
                    && !has_implied_type(property)
                {
                    let pointer = json::join(&json::join(at, "properties"), name);
                    found.push((pointer, name.clone()));
                }
            }
        });
    }
    found
}

/// The JSON type names a property's values can have when the schema does
/// not say `type` (NORA requires one: its writers spell it out): from its enum or const values, or its
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

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
}
