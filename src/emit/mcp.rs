//! An MCP `tools/list` result: `{"tools": [{"name", "title", "description",
//! "inputSchema", "outputSchema", "annotations"}]}`.
//!
//! The annotations say what the manifest knows about a tool's effects:
//! AgentStack actions (`["read"]` only: read-only; `write`, `delete` or
//! `execute`: destructive) and the network (Nachos egress hosts or
//! AgentStack `allow_http: true`: an open world; none: a closed one),
//! merged under the annotations an MCP input already had (`toolc serve`
//! lists the same entries). What only MCP has
//! (`outputSchema`, `icons`, `execution`, `_meta`) is carried over when the
//! input was MCP.

use serde_json::{Map, Value, json};

use super::parameters::{
    SchemaNotes, ensure_root_object, parameters_or_empty, properties_as_objects,
};
use super::{EmitError, Generated, Note, Options, Schema, tools};
use crate::diagnostic::Severity;
use crate::ir::{Action, Format, Permissions, Tool, ToolSet};
use crate::json;
use crate::providers::mcp::{
    self, DESTRUCTIVE_HINT, ICON_THEMES, OPEN_WORLD_HINT, READ_ONLY_HINT, TASK_SUPPORT,
};

/// The members of an MCP tool that gen writes only when they are what MCP
/// wants (a well-formed `icons` list, an object `outputSchema`, a known
/// `execution.taskSupport`), dropping them with a note otherwise. convert
/// keeps gen's verdict on them over the fields it carries.
pub(crate) const CHECKED_MEMBERS: &[&str] = &["icons", "outputSchema", "execution"];

/// `toolc gen mcp`.
pub fn generate(toolsets: &[ToolSet], _options: &Options) -> Result<Generated, EmitError> {
    super::JsonTarget::Mcp.generate(toolsets)
}

/// The `tools/list` result for every tool of `toolsets`, in order.
pub fn document(toolsets: &[ToolSet]) -> Value {
    let mut notes = Vec::new();
    let entries: Vec<Value> = tools(toolsets)
        .map(|(set, tool)| entry(set, tool, Schema::Adapted, &mut notes))
        .collect();
    json!({"tools": entries})
}

/// One tool of the `tools` list; what had to be changed or dropped goes to
/// `notes`.
pub(crate) fn entry(set: &ToolSet, tool: &Tool, schema: Schema, notes: &mut Vec<Note>) -> Value {
    let mut input_schema = match schema {
        Schema::Adapt(given) => given,
        Schema::Adapted => parameters_or_empty(tool),
    };
    let mut sink = SchemaNotes::for_tool(set, tool);
    ensure_root_object(&mut input_schema, &mut sink);
    properties_as_objects(&mut input_schema, &mut sink);
    notes.extend(sink.into_notes());
    let from_mcp = |key: &str| {
        (set.format == Format::Mcp)
            .then(|| tool.extra.extensions.get(key))
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
        match valid_icons(icons) {
            Some(kept) if kept.len() == icons.as_array().map_or(0, Vec::len) => {
                entry.insert("icons".into(), icons.clone());
            }
            Some(kept) => {
                dropped(
                    notes,
                    set,
                    tool,
                    "icons",
                    "some icons lack a string \"src\" or have ill-typed fields",
                );
                if !kept.is_empty() {
                    entry.insert("icons".into(), Value::Array(kept));
                }
            }
            None => dropped(notes, set, tool, "icons", "it is not an array of icons"),
        }
    }
    entry.insert("inputSchema".into(), input_schema);
    if let Some(output_schema) = from_mcp("outputSchema") {
        if output_schema.get("type").is_some_and(|t| t == "object")
            && !well_formed_object_schema(output_schema)
        {
            dropped(
                notes,
                set,
                tool,
                "outputSchema",
                "its \"properties\" or \"required\" is not the object or list of names MCP wants",
            );
        } else if output_schema.get("type").is_some_and(|t| t == "object") {
            entry.insert("outputSchema".into(), output_schema.clone());
        } else {
            notes.push(Note {
                path: set.path.clone(),
                pointer: json::join(&tool.origin, "outputSchema"),
                severity: Severity::Warning,
                message: format!(
                    "dropped \"outputSchema\": MCP ({}) requires \"type\": \"object\" at its \
                     root; wrap the result in an object",
                    mcp::TOOL_REVISION
                ),
            });
        }
    }
    if let Some(annotations) = annotations(set, tool, notes) {
        entry.insert("annotations".into(), Value::Object(annotations));
    }
    if let Some(execution) = from_mcp("execution") {
        let task_support = execution.get("taskSupport");
        let valid = execution.is_object()
            && task_support.is_none_or(|t| t.as_str().is_some_and(|t| TASK_SUPPORT.contains(&t)));
        if valid {
            entry.insert("execution".into(), execution.clone());
        } else {
            dropped(
                notes,
                set,
                tool,
                "execution",
                &format!("its \"taskSupport\" is not {}", quoted_or(&TASK_SUPPORT)),
            );
        }
    }
    if let Some(meta) = from_mcp("_meta").filter(|m| m.is_object()) {
        entry.insert("_meta".into(), meta.clone());
    }
    Value::Object(entry)
}

/// A warning that `key` of an MCP input was left out of the output.
fn dropped(notes: &mut Vec<Note>, set: &ToolSet, tool: &Tool, key: &str, why: &str) {
    notes.push(Note {
        path: set.path.clone(),
        pointer: json::join(&tool.origin, key),
        severity: Severity::Warning,
        message: format!(
            "dropped \"{key}\": {why}, which MCP ({}) does not accept",
            mcp::TOOL_REVISION
        ),
    });
}

/// `values` quoted, as a sentence lists them: `"a", "b" or "c"`.
fn quoted_or(values: &[&str]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| format!("\"{v}\"")).collect();
    match quoted.split_last() {
        None => String::new(),
        Some((only, [])) => only.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// The icons MCP accepts: objects with a string `src`, and `mimeType`,
/// `sizes` and `theme` of the right types where present. `None` when
/// `icons` is not an array.
fn valid_icons(icons: &Value) -> Option<Vec<Value>> {
    let valid = |icon: &&Value| {
        let Some(icon) = icon.as_object() else {
            return false;
        };
        icon.get("src").is_some_and(Value::is_string)
            && icon.get("mimeType").is_none_or(Value::is_string)
            && icon.get("sizes").is_none_or(|s| {
                s.as_array()
                    .is_some_and(|sizes| sizes.iter().all(Value::is_string))
            })
            && icon
                .get("theme")
                .is_none_or(|t| t.as_str().is_some_and(|t| ICON_THEMES.contains(&t)))
    };
    Some(icons.as_array()?.iter().filter(valid).cloned().collect())
}

/// An object schema whose `properties` maps names to schema objects and
/// whose `required` lists names, as MCP's `outputSchema` must be.
fn well_formed_object_schema(schema: &Value) -> bool {
    schema.get("properties").is_none_or(|p| {
        p.as_object()
            .is_some_and(|p| p.values().all(Value::is_object))
    }) && schema
        .get("required")
        .is_none_or(|r| r.as_array().is_some_and(|r| r.iter().all(Value::is_string)))
        && schema.get("$schema").is_none_or(Value::is_string)
}

/// The input's annotations, then the hints the manifest implies that they
/// do not already set; `None` when there are none.
fn annotations(set: &ToolSet, tool: &Tool, notes: &mut Vec<Note>) -> Option<Map<String, Value>> {
    let mut annotations = match tool.extra.extensions.get("annotations") {
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

/// The MCP hints that follow from a tool's permissions: AgentStack
/// actions that change things (`write`, `delete`, `execute`) make a tool
/// destructive, `read` alone read-only; a network the tool may reach
/// (Nachos egress hosts, AgentStack `allow_http: true`) an open world, no
/// network (an empty egress list, `allow_http: false`) a closed one.
fn hints(permissions: &Permissions) -> Vec<(&'static str, bool)> {
    let mut hints = Vec::new();
    if let Some(actions) = permissions
        .actions
        .as_ref()
        .filter(|_| !permissions.actions_assumed)
    {
        let changes =
            |action: &Action| matches!(action, Action::Write | Action::Delete | Action::Execute);
        if actions.iter().any(changes) {
            hints.push((READ_ONLY_HINT, false));
            hints.push((DESTRUCTIVE_HINT, true));
        } else if !actions.is_empty() && actions.iter().all(|a| *a == Action::Read) {
            hints.push((READ_ONLY_HINT, true));
        }
    }
    let egress = permissions.network_egress.as_ref().map(|e| !e.is_empty());
    match (egress, permissions.allow_http) {
        (Some(true), _) | (_, Some(true)) => hints.push((OPEN_WORLD_HINT, true)),
        (Some(false), _) | (_, Some(false)) => hints.push((OPEN_WORLD_HINT, false)),
        (None, None) => {}
    }
    hints
}
