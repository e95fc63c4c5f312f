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
    // gen's documents, without its notes: gen adapts schemas to what each
    // provider accepts and says so, while convert keeps them as they are
    // (lint --target says what a provider would reject).
    let mut doc = match to {
        Format::Openai => emit::openai::tools(toolsets),
        Format::Anthropic => emit::anthropic::tools(toolsets),
        _ => emit::mcp::document(toolsets),
    };
    let tolerant = to == Format::Mcp;
    let root = match &mut doc {
        Value::Object(root) => Some(root),
        _ => None,
    };
    let set_fields: Vec<Map<String, Value>> = match root {
        Some(root) => toolsets
            .iter()
            .map(|set| place_set(out, set, to, Some(&mut *root), tolerant))
            .collect(),
        None => toolsets
            .iter()
            .map(|set| place_set(out, set, to, None, tolerant))
            .collect(),
    };
    let entries = match &mut doc {
        Value::Object(root) => root.get_mut("tools").and_then(Value::as_array_mut),
        Value::Array(items) => Some(items),
        _ => None,
    };
    let mut entries = entries.into_iter().flatten();
    for (set, set_fields) in toolsets.iter().zip(&set_fields) {
        for tool in &set.tools {
            let Some(Value::Object(entry)) = entries.next() else {
                continue;
            };
            let parameters = super::parameters_or_empty(out, set, tool, to);
            match to {
                Format::Openai => {
                    if let Some(Value::Object(function)) = entry.get_mut("function") {
                        function.insert("parameters".into(), parameters);
                    }
                }
                Format::Anthropic => {
                    entry.insert("input_schema".into(), parameters);
                }
                _ => {
                    entry.insert("inputSchema".into(), parameters);
                }
            }
            // The carried fields of the target's own format go over what
            // gen wrote (the IR's own keys stay gen's).
            let x_toolc = place_tool(out, set, tool, to, entry, tolerant);
            if let Some(x) = x_toolc_object(x_toolc, set_fields, Vec::new()) {
                let meta = entry
                    .entry("_meta")
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(meta) = meta {
                    meta.insert(X_TOOLC.to_string(), x);
                }
            }
        }
    }
    out.files.push(OutputFile {
        path: PathBuf::new(),
        contents: document(&doc)?,
        kind: FileKind::Manifest,
    });
    Ok(())
}
