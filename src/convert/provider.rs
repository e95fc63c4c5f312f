//! OpenAI, Anthropic and MCP tool JSON: one document, as `toolc gen`
//! writes it. MCP keeps what it cannot express in each tool's
//! `_meta["x-toolc"]`; OpenAI and Anthropic reject unknown keys, so what
//! they cannot express is dropped (and reported).

use std::path::PathBuf;

use serde_json::{Map, Value};

use super::{Converted, FileKind, OutputFile, document, place_set, place_tool, x_toolc_object};
use crate::emit::{self, EmitError};
use crate::formats::carry::X_TOOLC;
use crate::ir::{Format, ToolSet};

pub(super) fn write(
    toolsets: &[ToolSet],
    to: Format,
    out: &mut Converted,
) -> Result<(), EmitError> {
    let templates =
        emit::templates::Templates::new(None).map_err(|e| EmitError::Template(e.to_string()))?;
    let options = emit::Options {
        templates: &templates,
        strict: false,
        style: None,
    };
    let generated = match to {
        Format::Openai => emit::openai::generate(toolsets, &options)?,
        Format::Anthropic => emit::anthropic::generate(toolsets, &options)?,
        _ => emit::mcp::generate(toolsets, &options)?,
    };
    // gen adapts schemas to what each provider accepts and says so in
    // notes; convert keeps them as they are (lint --target says what a
    // provider would reject), so gen's notes do not apply.
    drop(generated.notes);
    let emit::Output::Document(text) = generated.output else {
        return Err(EmitError::Unsupported(format!(
            "{to} tool JSON is not one document"
        )));
    };
    let mut doc: Value = serde_json::from_str(&text)?;
    let tolerant = to == Format::Mcp;
    let mut root = match &mut doc {
        Value::Object(root) => Some(root.clone()),
        _ => None,
    };
    let mut tool_set_fields = Vec::new();
    for set in toolsets {
        let fields = place_set(out, set, to, root.as_mut(), tolerant);
        for _ in &set.tools {
            tool_set_fields.push(fields.clone());
        }
    }
    let entries = match (&mut doc, &mut root) {
        (_, Some(root)) => root.get_mut("tools").and_then(Value::as_array_mut),
        (Value::Array(items), None) => Some(items),
        _ => None,
    };
    if let Some(entries) = entries {
        for ((entry, (set, tool)), set_fields) in entries
            .iter_mut()
            .zip(emit::tools(toolsets))
            .zip(&tool_set_fields)
        {
            let Some(object) = entry.as_object_mut() else {
                continue;
            };
            // The carried fields of the target's own format go over what
            // gen wrote (the IR's own keys stay gen's).
            let parameters = super::parameters_or_empty(out, set, tool, to);
            match to {
                Format::Openai => {
                    if let Some(Value::Object(function)) = object.get_mut("function") {
                        function.insert("parameters".into(), parameters);
                    }
                }
                Format::Anthropic => {
                    object.insert("input_schema".into(), parameters);
                }
                _ => {
                    object.insert("inputSchema".into(), parameters);
                }
            }
            let placed = place_tool(out, set, tool, to, object, tolerant);
            if let Some(x) = x_toolc_object(placed, set_fields, Vec::new()) {
                let meta = object
                    .entry("_meta")
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(meta) = meta {
                    meta.insert(X_TOOLC.to_string(), x);
                }
            }
        }
    }
    if let Some(root) = root {
        doc = Value::Object(root);
    }
    out.files.push(OutputFile {
        path: PathBuf::new(),
        contents: document(&doc)?,
        kind: FileKind::Manifest,
    });
    Ok(())
}
