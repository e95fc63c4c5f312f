//! NORA `tool.json`: one tool per directory, a Python entrypoint beside it.
//!
//! NORA's parameter dialect marks each property `"required": true|false`;
//! the IR holds standard JSON Schema, so lowering collects those flags into a
//! `required` array and removes them from the properties.

use serde_json::{Map, Value};

use super::{string_field, tool_extensions};
use crate::ir::{Runtime, Tool};

/// The file a NORA tool's manifest is, in the tool's directory.
pub(crate) const FILE_NAME: &str = "tool.json";

/// The entrypoint script toolc's writers give a NORA tool that names
/// none, beside its manifest.
pub(crate) const DEFAULT_ENTRYPOINT: &str = "main.py";

const KNOWN: &[&str] = &["name", "description", "entrypoint", "parameters"];

/// What a NORA tool without a description says instead, as `toolc
/// convert` writes it: NORA requires a description. Read back, it is no
/// description; written over, it is yours.
pub const TOOL_PLACEHOLDER: &str = "TODO: describe this tool (toolc convert found no description)";

/// What a NORA parameter without a description says instead; read back,
/// it is none.
pub const PARAMETER_PLACEHOLDER: &str = "TODO: describe this parameter";

/// Whether NORA takes `name` as a parameter name (`^[a-zA-Z0-9_]+$`, as
/// `schemas/nora.schema.json` says).
pub fn is_parameter_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

pub(super) fn lower(value: &Value) -> Vec<Tool> {
    let Some(object) = value.as_object() else {
        return Vec::new();
    };
    let name = string_field(object, "name").unwrap_or_default();
    let mut tool = Tool::new(name, "/name".to_string(), String::new());
    tool.description = string_field(object, "description").filter(|text| text != TOOL_PLACEHOLDER);
    if let Some(entrypoint) = string_field(object, "entrypoint") {
        tool.runtime = Runtime::PythonScript {
            entrypoint,
            function: "run".to_string(),
        };
    }
    if object.contains_key("parameters") {
        tool.parameters_at = Some("/parameters".to_string());
    }
    tool.extra.extensions = tool_extensions(object, KNOWN);
    vec![tool]
}

/// Turns NORA's per-property boolean `required` into a standard `required`
/// array. Non-boolean flags are dropped (a rule reports them).
pub fn lower_parameters(parameters: &Value) -> Value {
    let mut lowered = parameters.clone();
    let Some(Value::Object(properties)) = lowered.get_mut("properties") else {
        return lowered;
    };
    let mut required = Vec::new();
    for (name, property) in properties.iter_mut() {
        let Some(property) = property.as_object_mut() else {
            continue;
        };
        if property
            .get("description")
            .is_some_and(|d| d == PARAMETER_PLACEHOLDER)
        {
            property.shift_remove("description");
        }
        if let Some(flag) = property.remove("required")
            && flag == Value::Bool(true)
        {
            required.push(Value::String(name.clone()));
        }
    }
    if let Some(object) = lowered.as_object_mut()
        && !required.is_empty()
    {
        merge_required(object, required);
    }
    lowered
}

fn merge_required(object: &mut Map<String, Value>, required: Vec<Value>) {
    match object.get_mut("required") {
        Some(Value::Array(existing)) => {
            for name in required {
                if !existing.contains(&name) {
                    existing.push(name);
                }
            }
        }
        _ => {
            object.insert("required".to_string(), Value::Array(required));
        }
    }
}
