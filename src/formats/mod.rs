//! Manifest formats: detection and lowering into the IR.
//!
//! One module per format. Lowering is tolerant: it takes what it can from a
//! manifest that may be broken and leaves the reporting to the rules, which
//! see both the raw document and the IR. Detection goes by file name first,
//! then by content; generic names (`config.json`, `manifest.json`) are only
//! claimed when the content looks like the format, so a directory walk does
//! not lint a web app's `manifest.json` as a Nachos package.

mod agentcli;
pub(crate) mod agentcli_command;
mod agentstack;
pub(crate) mod agentstack_python;
pub mod carry;
pub(crate) mod nachos;
mod nora;
mod provider;

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::ir::{Format, ToolSet};
use crate::json::{self, Document};

/// The format a file name implies, if any.
pub fn format_by_file_name(file_name: &str) -> Option<Format> {
    match file_name {
        "tool.json" => Some(Format::Nora),
        "tools.json" => Some(Format::Agentcli),
        "config.json" => Some(Format::Agentstack),
        "manifest.json" => Some(Format::Nachos),
        _ if file_name.starts_with("manifest.") && file_name.ends_with(".json") => {
            Some(Format::Nachos)
        }
        _ => None,
    }
}

/// Whether a file name's format holds without looking at the content. Names
/// that many other tools also use need the content to agree.
pub fn file_name_is_specific(format: Format) -> bool {
    matches!(format, Format::Nora | Format::Agentcli)
}

/// Whether `value` plausibly is a manifest of `format`.
pub fn content_matches(format: Format, value: &Value) -> bool {
    match format {
        Format::Nora | Format::Agentcli => true,
        Format::Agentstack => value
            .as_object()
            .is_some_and(|o| o.contains_key("tools") && o.contains_key("category")),
        Format::Nachos => value.as_object().is_some_and(|o| {
            o.contains_key("provides")
                || matches!(
                    o.get("type").and_then(Value::as_str),
                    Some("tool" | "channel" | "core")
                ) && o.contains_key("capabilities")
        }),
        Format::Openai | Format::Anthropic | Format::Mcp => {
            detect_by_content(value) == Some(format)
        }
    }
}

/// Recognizes a manifest by its shape alone.
pub fn detect_by_content(value: &Value) -> Option<Format> {
    let tool_list_format = |items: &Vec<Value>| {
        let first = items.first()?.as_object()?;
        if first.contains_key("function") {
            Some(Format::Openai)
        } else if first.contains_key("inputSchema") {
            Some(Format::Mcp)
        } else if first.contains_key("input_schema") {
            Some(Format::Anthropic)
        } else if first.contains_key("command") {
            Some(Format::Agentcli)
        } else {
            None
        }
    };
    match value {
        Value::Array(items) => tool_list_format(items).filter(|f| *f != Format::Agentcli),
        Value::Object(object) => {
            if let Some(Value::Array(items)) = object.get("tools") {
                return tool_list_format(items);
            }
            if object.contains_key("name") && object.contains_key("inputSchema") {
                Some(Format::Mcp)
            } else if object.contains_key("name") && object.contains_key("input_schema") {
                Some(Format::Anthropic)
            } else if object.contains_key("entrypoint") && object.contains_key("parameters") {
                Some(Format::Nora)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Lowers a parsed manifest into the IR.
pub fn lower(format: Format, document: &Document, path: &str) -> ToolSet {
    let value = &document.value;
    let (package, tools) = match format {
        Format::Nora => (None, nora::lower(value)),
        Format::Agentcli => (None, agentcli::lower(value)),
        Format::Agentstack => agentstack::lower(value),
        Format::Nachos => nachos::lower(value),
        Format::Openai => (None, provider::lower_openai(value)),
        Format::Anthropic => (None, provider::lower_anthropic(value)),
        Format::Mcp => (None, provider::lower_mcp(value)),
    };
    let mut toolset = ToolSet {
        path: path.to_string(),
        format,
        package,
        tools,
        carried: Vec::new(),
    };
    for tool in &mut toolset.tools {
        if let Some(raw) = tool
            .parameters_at
            .as_deref()
            .and_then(|at| json::value_at(value, at))
        {
            tool.parameters = Some(standard_parameters(format, raw));
        }
    }
    carry::collect(value, &mut toolset);
    toolset
}

/// A tool's parameters as standard JSON Schema, from its format's dialect.
pub fn standard_parameters(format: Format, raw: &Value) -> Value {
    match format {
        Format::Nora => nora::lower_parameters(raw),
        _ => raw.clone(),
    }
}

fn string_field(object: &Map<String, Value>, key: &str) -> Option<String> {
    object.get(key).and_then(Value::as_str).map(str::to_string)
}

fn string_list(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The members of `object` whose keys are not in `known`.
fn extensions(object: &Map<String, Value>, known: &[&str]) -> BTreeMap<String, Value> {
    object
        .iter()
        .filter(|(k, _)| !known.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The tool list of a document that is an array of tools or `{"tools": [...]}`,
/// with the pointer of each entry.
fn tool_entries(value: &Value) -> Vec<(String, &Value)> {
    let (base, items) = match value {
        Value::Array(items) => ("", items),
        Value::Object(object) => match object.get("tools") {
            Some(Value::Array(items)) => ("/tools", items),
            _ => return Vec::new(),
        },
        _ => return Vec::new(),
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| (format!("{base}/{i}"), item))
        .collect()
}

/// An empty parameter schema: what a tool that takes no arguments has,
/// and what writers give a tool whose parameters are unknown.
pub fn no_parameters() -> Value {
    serde_json::json!({"type": "object", "properties": {}})
}
