//! An MCP `tools/list` result: `{"tools": [{"name", "title", "description",
//! "inputSchema", "outputSchema", "annotations"}]}`.
//!
//! The annotations say what the manifest knows about a tool's effects:
//! AgentStack actions (`["read"]` only: read-only; `write` or `delete`:
//! destructive) and Nachos network egress (none: a closed world), merged
//! under the annotations an MCP input already had. What only MCP has
//! (`outputSchema`, `icons`, `execution`, `_meta`) is carried over when the
//! input was MCP.

use serde_json::{Map, Value, json};

use super::anthropic::{SchemaNotes, ensure_root_object, parameters_or_empty};
use super::{EmitError, Generated, Note, Options, Output, json_document, tools};
use crate::diagnostic::Severity;
use crate::ir::{Format, Permissions, Tool, ToolSet};
use crate::json;

/// `toolc gen mcp`.
pub fn generate(toolsets: &[ToolSet], _options: &Options) -> Result<Generated, EmitError> {
    let mut notes = Vec::new();
    let entries: Vec<Value> = tools(toolsets)
        .map(|(set, tool)| entry(set, tool, &mut notes))
        .collect();
    Ok(Generated {
        output: Output::Document(json_document(&json!({"tools": entries}))?),
        notes,
    })
}

fn entry(set: &ToolSet, tool: &Tool, notes: &mut Vec<Note>) -> Value {
    let mut sink = SchemaNotes::for_tool(set, tool);
    let mut input_schema = parameters_or_empty(tool);
    ensure_root_object(&mut input_schema, &mut sink);
    notes.extend(sink.into_notes());
    let from_mcp = |key: &str| {
        (set.format == Format::Mcp)
            .then(|| tool.extensions.get(key))
            .flatten()
    };
    let mut entry = Map::new();
    entry.insert("name".into(), Value::String(tool.name.clone()));
    if let Some(title) = &tool.title {
        entry.insert("title".into(), Value::String(title.clone()));
    }
    if let Some(description) = &tool.description {
        entry.insert("description".into(), Value::String(description.clone()));
    }
    if let Some(icons) = from_mcp("icons") {
        entry.insert("icons".into(), icons.clone());
    }
    entry.insert("inputSchema".into(), input_schema);
    if let Some(output_schema) = from_mcp("outputSchema") {
        if output_schema.get("type").is_some_and(|t| t == "object") {
            entry.insert("outputSchema".into(), output_schema.clone());
        } else {
            notes.push(Note {
                path: set.path.clone(),
                pointer: json::join(&tool.origin, "outputSchema"),
                severity: Severity::Warning,
                message:
                    "dropped \"outputSchema\": MCP (2025-11-25) requires \"type\": \"object\" \
                          at its root; wrap the result in an object"
                        .to_string(),
            });
        }
    }
    if let Some(annotations) = annotations(set, tool, notes) {
        entry.insert("annotations".into(), Value::Object(annotations));
    }
    for key in ["execution", "_meta"] {
        if let Some(value) = from_mcp(key) {
            entry.insert(key.into(), value.clone());
        }
    }
    Value::Object(entry)
}

/// The input's annotations, then the hints the manifest implies that they
/// do not already set; `None` when there are none.
fn annotations(set: &ToolSet, tool: &Tool, notes: &mut Vec<Note>) -> Option<Map<String, Value>> {
    let mut annotations = match tool.extensions.get("annotations") {
        Some(Value::Object(given)) if set.format == Format::Mcp => given.clone(),
        Some(_) if set.format == Format::Mcp => {
            notes.push(Note {
                path: set.path.clone(),
                pointer: json::join(&tool.origin, "annotations"),
                severity: Severity::Warning,
                message: "dropped \"annotations\": it is not an object".to_string(),
            });
            Map::new()
        }
        _ => Map::new(),
    };
    for (hint, value) in hints(&tool.permissions) {
        annotations.entry(hint).or_insert(Value::Bool(value));
    }
    (!annotations.is_empty()).then_some(annotations)
}

/// The MCP hints that follow from a tool's permissions.
fn hints(permissions: &Permissions) -> Vec<(&'static str, bool)> {
    let mut hints = Vec::new();
    if let Some(actions) = &permissions.actions {
        let has = |action: &str| actions.iter().any(|a| a == action);
        if has("write") || has("delete") {
            hints.push(("readOnlyHint", false));
            hints.push(("destructiveHint", true));
        } else if !actions.is_empty() && actions.iter().all(|a| a == "read") {
            hints.push(("readOnlyHint", true));
        }
    }
    if permissions
        .network_egress
        .as_ref()
        .is_some_and(Vec::is_empty)
    {
        hints.push(("openWorldHint", false));
    }
    hints
}
