//! OpenAI, Anthropic and MCP tool JSON: one document, as `toolc gen`
//! writes it. MCP keeps what it cannot express in each tool's
//! `_meta["x-toolc"]`; OpenAI and Anthropic reject unknown keys, so what
//! they cannot express is dropped (and reported).

use std::path::PathBuf;

use serde_json::{Map, Value};

use super::{
    Converted, DocumentRoot, FileKind, OutputFile, insert_field, place_tool, split_set,
    x_toolc_object,
};
use crate::emit::{EmitError, JsonItems, JsonTarget, Schema, ToolsAt};
use crate::formats::carry::X_TOOLC;
use crate::ir::{Carried, Format, ToolSet};

pub(super) fn write(
    toolsets: &mut [ToolSet],
    to: Format,
    out: &mut Converted,
) -> Result<(), EmitError> {
    let mut root = DocumentRoot::new(to);
    let mut parts = Vec::new();
    for set in toolsets {
        let (items, root_fields) = write_set(set, to, out)?;
        for field in &root_fields {
            out.losses.extend(root.place(&set.path, field));
        }
        parts.push(items);
    }
    out.files.push(OutputFile {
        path: PathBuf::new(),
        contents: root.document(parts)?,
        kind: FileKind::Owned,
    });
    Ok(())
}

/// gen's document for `to`.
pub(super) fn json_target(to: Format) -> JsonTarget {
    match to {
        Format::Openai => JsonTarget::Openai { strict: false },
        Format::Anthropic => JsonTarget::Anthropic,
        _ => JsonTarget::Mcp,
    }
}

/// The tools of one set, serialized, and the set's fields that belong in
/// the document's root object (MCP's). Each tool's parameters are moved
/// into its entry, not copied: a schema can be most of a manifest, and the
/// set is the caller's own copy, written once.
pub(super) fn write_set(
    set: &mut ToolSet,
    to: Format,
    out: &mut Converted,
) -> Result<(JsonItems, Vec<Carried>), EmitError> {
    // gen's entries and notes: both adapt schemas to what each provider
    // accepts, and say so.
    let target = json_target(to);
    let tolerant = to == Format::Mcp;
    let has_root = matches!(target.tools_at(), ToolsAt::Member(_));
    let (set_fields, root_fields) = split_set(out, set, to, has_root, tolerant);
    let mut items = JsonItems::default();
    let taken: Vec<Option<crate::ir::SharedValue>> =
        set.tools.iter_mut().map(|t| t.parameters.take()).collect();
    let set = &*set;
    for (tool, parameters) in set.tools.iter().zip(taken) {
        // Copied out of the shared value one tool at a time.
        let parameters = parameters.map(crate::ir::SharedValue::into_value);
        let parameters = super::given_or_empty(out, set, tool, parameters, to);
        let (mut entry, notes) = target.entry_with(set, tool, Schema::Adapt(parameters));
        out.notes.extend(notes);
        let Value::Object(object) = &mut entry else {
            continue;
        };
        // The carried fields of the target's own format go over what
        // gen wrote (the IR's own keys stay gen's).
        let checked: Vec<(&str, Option<Value>)> = if to == Format::Mcp {
            crate::emit::mcp::CHECKED_MEMBERS
                .iter()
                .map(|key| (*key, object.get(*key).cloned()))
                .collect()
        } else {
            Vec::new()
        };
        let mut x_toolc = place_tool(out, set, tool, to, object, tolerant);
        // What gen dropped as no valid MCP stays out of the tool (its note
        // says so), and goes in `"x-toolc"`, so that converting back
        // restores it.
        for (key, gen_wrote) in checked {
            if let Some(value) = gen_wrote {
                object.insert(key.to_string(), value);
            } else if let Some(dropped) = object.shift_remove(key) {
                insert_field(
                    &mut x_toolc,
                    &Carried {
                        format: to,
                        key: key.to_string(),
                        value: dropped,
                        at: String::new(),
                    },
                );
            }
        }
        if let Some(x) = x_toolc_object(x_toolc, &set_fields, Vec::new()) {
            let meta = object
                .entry("_meta")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(meta) = meta {
                meta.insert(X_TOOLC.to_string(), x);
            }
        }
        items.push(&entry, target.tools_at())?;
    }
    items.shrink_to_fit();
    Ok((items, root_fields))
}
