//! Provider tool JSON as input: OpenAI function tools (Chat Completions'
//! and the Responses API's), Anthropic tools and MCP `Tool` objects. They
//! carry names, descriptions and parameter schemas, and nothing about how
//! to run the tool.

use serde_json::{Map, Value};

use super::{lower_entries, no_parameters_shared, string_field, tool_entries, tool_extensions};
use crate::ir::Tool;
use crate::providers::openai::RESPONSES_STRICT_BY_DEFAULT;

/// `[{"type": "function", "function": {...}}]` or `{"tools": [...]}`.
pub(super) fn lower_openai(value: &Value) -> Vec<Tool> {
    lower_entries(tool_entries(value), |(origin, entry)| {
        let function = entry.get("function")?.as_object()?;
        let at = format!("{origin}/function");
        let mut tool = lower_one(
            function,
            &at,
            "parameters",
            &["name", "description", "parameters"],
        );
        tool.origin = origin;
        Some(tool)
    })
}

/// The Responses API's `[{"type": "function", "name", "description",
/// "parameters", "strict"}]` or `{"tools": [...]}`. A tool that does not
/// say `strict` is strict ([`RESPONSES_STRICT_BY_DEFAULT`]): the IR says
/// so, so that a Chat Completions tool written from it (where the default
/// is the other one) keeps its meaning.
pub(super) fn lower_responses(value: &Value) -> Vec<Tool> {
    lower_entries(tool_entries(value), |(origin, entry)| {
        let object = entry.as_object()?;
        if object.contains_key("function") {
            return None;
        }
        let mut tool = lower_one(
            object,
            &origin,
            "parameters",
            &["type", "name", "description", "parameters"],
        );
        match tool.extra.extensions.get("strict") {
            Some(Value::Bool(_)) => {}
            Some(Value::Null) | None => {
                tool.extra
                    .extensions
                    .insert("strict".into(), Value::Bool(RESPONSES_STRICT_BY_DEFAULT));
            }
            Some(_) => {}
        }
        Some(tool)
    })
}

/// `[{"name", "description", "input_schema"}]`, `{"tools": [...]}` or one tool.
pub(super) fn lower_anthropic(value: &Value) -> Vec<Tool> {
    lower_named(
        value,
        "input_schema",
        &["name", "description", "input_schema"],
    )
}

/// `{"tools": [Tool]}` (a `tools/list` result), an array, or one `Tool`.
pub(super) fn lower_mcp(value: &Value) -> Vec<Tool> {
    lower_named(
        value,
        "inputSchema",
        &["name", "title", "description", "inputSchema"],
    )
}

fn lower_named(value: &Value, schema_key: &str, known: &[&str]) -> Vec<Tool> {
    let entries = match value {
        Value::Object(object) if !object.contains_key("tools") => vec![(String::new(), value)],
        _ => tool_entries(value),
    };
    lower_entries(entries, |(origin, entry)| {
        Some(lower_one(entry.as_object()?, &origin, schema_key, known))
    })
}

fn lower_one(object: &Map<String, Value>, at: &str, schema_key: &str, known: &[&str]) -> Tool {
    let name = string_field(object, "name").unwrap_or_default();
    let mut tool = Tool::new(name, format!("{at}/name"), at.to_string());
    tool.title = string_field(object, "title");
    tool.description = string_field(object, "description");
    match object.get(schema_key) {
        Some(_) => tool.parameters_at = Some(format!("{at}/{schema_key}")),
        None => tool.parameters = Some(no_parameters_shared()),
    }
    tool.extra.extensions = tool_extensions(object, known);
    tool
}
