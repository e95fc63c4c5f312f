//! Gemini function declarations as input: what `toolc gen gemini` writes
//! (`{"functionDeclarations": [...]}`) and what a Gemini request holds
//! (`{"tools": [{"functionDeclarations": [...]}]}`, or that `tools` list
//! alone).
//!
//! A declaration's `parameters` is Gemini's `Schema`, a subset of OpenAPI
//! 3.0, not JSON Schema: types may be spelled in capitals (`"STRING"`),
//! `nullable` says a value may be null, `example` is one example, and
//! `propertyOrdering` orders the properties. Lowering writes each of these
//! back as the JSON Schema that means the same (a lowercase `type`, `null`
//! in the type list, `examples`, properties in that order). A declaration
//! with `parametersJsonSchema` holds JSON Schema already.

use serde_json::{Map, Value};

use super::{lower_entries, no_parameters_shared, string_field, tool_extensions};
use crate::ir::{Format, Tool};
use crate::json;

/// The member of a declaration holding a JSON Schema rather than
/// Gemini's `Schema`.
const JSON_SCHEMA_KEY: &str = "parametersJsonSchema";

/// The members of a declaration the IR models.
pub(crate) const DECLARATION_KEYS: &[&str] =
    &["name", "description", "parameters", JSON_SCHEMA_KEY];

/// Whether `value` is a Gemini tool object: it holds a
/// `functionDeclarations` list.
pub(super) fn is_gemini_tool(value: &Value) -> bool {
    value
        .get("functionDeclarations")
        .is_some_and(Value::is_array)
}

/// Whether the document is Gemini's: a tool object, or a list of Gemini
/// tool objects (alone or as `tools`) of which one at least holds
/// `functionDeclarations` (the others may be Gemini's own tools, such as
/// `googleSearch`, but no other format's tool).
pub(super) fn is_gemini_document(value: &Value) -> bool {
    if is_gemini_tool(value) {
        return true;
    }
    let items = match value {
        Value::Array(items) => items,
        Value::Object(object) => match object.get("tools") {
            Some(Value::Array(items)) => items,
            _ => return false,
        },
        _ => return false,
    };
    items.iter().any(is_gemini_tool)
        && items.iter().all(|item| {
            item.is_object()
                && matches!(super::entry_format(item), None | Some(Format::Gemini))
                && item.get("name").is_none()
        })
}

/// The document's Gemini tool objects, with their pointers: the document
/// itself, or each entry of its list.
fn tool_objects(value: &Value) -> Vec<(String, &Value)> {
    if is_gemini_tool(value) {
        vec![(String::new(), value)]
    } else {
        super::tool_entries(value)
    }
}

/// Every declaration of the document, with its pointer.
fn declarations(value: &Value) -> Vec<(String, &Value)> {
    let mut found = Vec::new();
    for (at, tool) in tool_objects(value) {
        let Some(Value::Array(list)) = tool.get("functionDeclarations") else {
            continue;
        };
        let at = json::join(&at, "functionDeclarations");
        found.extend(
            list.iter()
                .enumerate()
                .map(|(i, declaration)| (json::join(&at, i), declaration)),
        );
    }
    found
}

/// The members of the document's tool objects besides
/// `functionDeclarations`: Gemini's own tools (`googleSearch`,
/// `codeExecution`, ...), which no other format can express. The tool
/// set's fields, so that a conversion reports them instead of dropping
/// them unsaid.
pub(super) fn other_tools(value: &Value) -> Vec<crate::ir::Carried> {
    let mut found = Vec::new();
    for (at, tool) in tool_objects(value) {
        let Some(object) = tool.as_object() else {
            continue;
        };
        for (key, member) in object {
            if key != "functionDeclarations" {
                found.push(crate::ir::Carried {
                    format: crate::ir::Format::Gemini,
                    key: key.clone(),
                    value: member.clone(),
                    at: json::join(&at, key),
                });
            }
        }
    }
    found
}

/// The tools of a Gemini document.
pub(super) fn lower(value: &Value) -> Vec<Tool> {
    lower_entries(declarations(value), |(origin, entry)| {
        let object = entry.as_object()?;
        let name = string_field(object, "name").unwrap_or_default();
        let mut tool = Tool::new(name, json::join(&origin, "name"), origin.clone());
        tool.description = string_field(object, "description");
        // Without parameters a declaration takes no arguments (gen writes
        // none for such a tool).
        match [JSON_SCHEMA_KEY, "parameters"]
            .into_iter()
            .find(|key| object.contains_key(*key))
        {
            Some(key) => tool.parameters_at = Some(json::join(&origin, key)),
            None => tool.parameters = Some(no_parameters_shared()),
        }
        tool.extra.extensions = tool_extensions(object, DECLARATION_KEYS);
        Some(tool)
    })
}

/// A declaration's parameters as JSON Schema: Gemini's `Schema` lowered
/// node by node (a JSON Schema from `parametersJsonSchema` goes through
/// unchanged, having none of what is rewritten here).
pub(crate) fn lower_parameters(raw: &Value) -> Value {
    let mut schema = raw.clone();
    lower_node(&mut schema);
    schema
}

fn lower_node(value: &mut Value) {
    let Value::Object(node) = value else {
        return;
    };
    lower_type(node);
    lower_nullable(node);
    if let Some(example) = node.shift_remove("example") {
        node.entry("examples")
            .or_insert_with(|| Value::Array(vec![example]));
    }
    // Gemini's way of declaring a string enum.
    if node.get("format").and_then(Value::as_str) == Some("enum") && node.contains_key("enum") {
        node.shift_remove("format");
    }
    order_properties(node);
    for (key, child) in node.iter_mut() {
        match (key.as_str(), child) {
            ("properties", Value::Object(properties)) => {
                properties.values_mut().for_each(lower_node);
            }
            ("items", item) => lower_node(item),
            ("anyOf", Value::Array(branches)) => branches.iter_mut().for_each(lower_node),
            _ => {}
        }
    }
}

/// `"STRING"` → `"string"`; `TYPE_UNSPECIFIED` says nothing.
fn lower_type(node: &mut Map<String, Value>) {
    let Some(Value::String(kind)) = node.get("type") else {
        return;
    };
    if kind == "TYPE_UNSPECIFIED" {
        node.shift_remove("type");
        return;
    }
    let lower = kind.to_ascii_lowercase();
    if lower != *kind {
        node.insert("type".into(), Value::String(lower));
    }
}

/// `"nullable": true` → `null` among the types (or a null branch of an
/// `anyOf`, or in an `enum`); `false` says nothing.
fn lower_nullable(node: &mut Map<String, Value>) {
    let Some(nullable) = node.shift_remove("nullable") else {
        return;
    };
    if nullable != Value::Bool(true) {
        return;
    }
    let null = Value::String("null".into());
    match node.get_mut("type") {
        Some(Value::String(kind)) => {
            let kind = Value::String(std::mem::take(kind));
            node.insert("type".into(), Value::Array(vec![kind, null]));
        }
        Some(Value::Array(kinds)) if !kinds.contains(&null) => kinds.push(null),
        Some(_) => {}
        None => {
            if let Some(Value::Array(branches)) = node.get_mut("anyOf") {
                branches.push(serde_json::json!({"type": "null"}));
            }
        }
    }
    if let Some(Value::Array(values)) = node.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
}

/// Puts the properties in `propertyOrdering`'s order (JSON Schema has no
/// such keyword: the order of `properties` is the order), the ones it
/// does not name after, as they were.
fn order_properties(node: &mut Map<String, Value>) {
    let Some(Value::Array(order)) = node.shift_remove("propertyOrdering") else {
        return;
    };
    let Some(Value::Object(properties)) = node.get_mut("properties") else {
        return;
    };
    let mut ordered = Map::with_capacity(properties.len());
    for name in order.iter().filter_map(Value::as_str) {
        if let Some(property) = properties.shift_remove(name) {
            ordered.insert(name.to_string(), property);
        }
    }
    ordered.extend(std::mem::take(properties));
    *properties = ordered;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn gemini_schema_lowers_to_json_schema() {
        let raw = json!({"type": "OBJECT", "propertyOrdering": ["b", "a"], "properties": {
            "a": {"type": "STRING", "nullable": true, "example": "x"},
            "b": {"type": "ARRAY", "items": {"type": "STRING", "format": "enum", "enum": ["p", "q"]}}
        }, "required": ["b"]});
        assert_eq!(
            lower_parameters(&raw),
            json!({"type": "object", "properties": {
                "b": {"type": "array", "items": {"type": "string", "enum": ["p", "q"]}},
                "a": {"type": ["string", "null"], "examples": ["x"]}
            }, "required": ["b"]})
        );
        let keys: Vec<String> = lower_parameters(&raw)["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(keys, ["b", "a"]);
    }
}
