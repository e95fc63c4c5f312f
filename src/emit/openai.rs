//! OpenAI function tools: `[{"type": "function", "function": {...}}]`.

use serde_json::{Map, Value, json};

use crate::ir::ToolSet;

/// The OpenAI tools array for every tool of `toolsets`, in order. Tools
/// whose parameters are unknown get an empty object schema.
pub fn tools(toolsets: &[ToolSet]) -> Value {
    let tools = toolsets
        .iter()
        .flat_map(|set| &set.tools)
        .map(|tool| {
            let mut function = Map::new();
            function.insert("name".into(), Value::String(tool.name.clone()));
            if let Some(description) = &tool.description {
                function.insert("description".into(), Value::String(description.clone()));
            }
            let parameters = tool
                .parameters
                .clone()
                .unwrap_or_else(|| json!({"type": "object", "properties": {}}));
            function.insert("parameters".into(), parameters);
            if let Some(strict) = tool.extensions.get("strict").filter(|s| s.is_boolean()) {
                function.insert("strict".into(), strict.clone());
            }
            json!({"type": "function", "function": function})
        })
        .collect();
    Value::Array(tools)
}

/// `toolc gen openai`. (--strict: see the strict subset below.)
pub fn generate(toolsets: &[ToolSet], _options: &super::Options) -> Result<super::Generated, super::EmitError> {
    Ok(super::Generated {
        output: super::Output::Document(super::json_document(&tools(toolsets))?),
        notes: Vec::new(),
    })
}
