//! agentcli `tools.json`: `{"tools": [ToolSpec]}`, each tool a program run
//! with an argv, JSON arguments on stdin and one JSON line on stdout.

use serde_json::Value;

use super::{extensions, lower_entries, no_parameters, string_field, string_list, tool_entries};
use crate::ir::{Runtime, Tool};

const KNOWN: &[&str] = &[
    "name",
    "description",
    "schema",
    "command",
    "timeoutSec",
    "envPassthrough",
];

pub(super) fn lower(value: &Value) -> Vec<Tool> {
    lower_entries(tool_entries(value), |(origin, entry)| {
        let object = entry.as_object()?;
        let name = string_field(object, "name").unwrap_or_default();
        let mut tool = Tool::new(name, format!("{origin}/name"), origin.clone());
        tool.description = string_field(object, "description");
        match object.get("schema") {
            Some(_) => tool.parameters_at = Some(format!("{origin}/schema")),
            None => tool.parameters = Some(no_parameters()),
        }
        tool.runtime = Runtime::Command {
            argv: string_list(object.get("command")),
            timeout_sec: object.get("timeoutSec").and_then(Value::as_u64),
            env_passthrough: string_list(object.get("envPassthrough")),
        };
        tool.extensions = extensions(object, KNOWN);
        Some(tool)
    })
}
