//! Visiting every subschema of a JSON Schema, with its JSON Pointer.
//!
//! Rules about properties (missing type, missing description, `required`
//! naming an unknown property) apply at every level of a parameter schema,
//! not only the root: inside `properties`, `items`, combinators and `$defs`.
//! Recursion is bounded by the parser's nesting limit.

use std::fmt::Write as _;

use serde_json::{Map, Value};

use crate::json;
use crate::schema::{LISTS, MAPS, SINGLE};

/// Calls `visit` with the pointer and the object of every object-shaped
/// subschema of `schema`, `schema` itself first. One pointer buffer is
/// grown and truncated along the way, so the walk allocates nothing per node.
pub(crate) fn for_each_schema(
    schema: &Value,
    pointer: &str,
    visit: &mut dyn FnMut(&str, &Map<String, Value>),
) {
    let mut buffer = pointer.to_string();
    walk(schema, &mut buffer, visit);
}

fn walk(schema: &Value, pointer: &mut String, visit: &mut dyn FnMut(&str, &Map<String, Value>)) {
    let Some(object) = schema.as_object() else {
        return;
    };
    visit(pointer, object);
    let mark = pointer.len();
    // One pass over the node's members: cheaper than a lookup per keyword.
    for (keyword, value) in object {
        let keyword = keyword.as_str();
        match value {
            Value::Object(_) if SINGLE.contains(&keyword) => {
                json::push_token(pointer, keyword);
                walk(value, pointer, visit);
                pointer.truncate(mark);
            }
            Value::Array(items) if LISTS.contains(&keyword) => {
                for (i, sub) in items.iter().enumerate() {
                    let _ = write!(pointer, "/{keyword}/{i}");
                    walk(sub, pointer, visit);
                    pointer.truncate(mark);
                }
            }
            Value::Object(members) if MAPS.contains(&keyword) => {
                for (name, sub) in members {
                    if !sub.is_object() {
                        continue;
                    }
                    json::push_token(pointer, keyword);
                    json::push_token(pointer, name);
                    walk(sub, pointer, visit);
                    pointer.truncate(mark);
                }
            }
            _ => {}
        }
    }
}
