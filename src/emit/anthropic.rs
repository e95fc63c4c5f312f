//! Anthropic tools: `[{"name", "description", "input_schema"}]`.
//!
//! Anthropic refuses `anyOf`, `oneOf` and `allOf` at the root of an
//! `input_schema` (`input_schema does not support oneOf, allOf, or anyOf at
//! the top level`), and so does OpenAI strict mode. The root is therefore
//! made one object schema: an `allOf` is merged, a union is flattened, each
//! with a note.
//!
//! The passes themselves (`merge_all_of`, `flatten_root_unions`) are
//! general JSON Schema passes, in `crate::schema`, shared with the OpenAI
//! strict rewrite and the Gemini conversion.

use serde_json::{Map, Value};

use super::parameters::{SchemaNotes, ensure_root_object, parameters_or_empty};
use super::{EmitError, Generated, Note, Options, Output, json_document};
use crate::ir::ToolSet;
use crate::providers::Target;
use crate::schema::{Origins, RefGuard, flatten_root_unions, merge_all_of};

/// `toolc gen anthropic`.
pub fn generate(toolsets: &[ToolSet], _options: &Options) -> Result<Generated, EmitError> {
    let (tools, notes) = build(toolsets);
    Ok(Generated {
        output: Output::Document(json_document(&tools)?),
        notes,
    })
}

/// The Anthropic tools array for every tool of `toolsets`, in order.
pub fn tools(toolsets: &[ToolSet]) -> Value {
    build(toolsets).0
}

fn build(toolsets: &[ToolSet]) -> (Value, Vec<Note>) {
    let mut notes = Vec::new();
    let entries: Vec<Value> = super::tools(toolsets)
        .map(|(set, tool)| {
            let mut sink = SchemaNotes::for_tool(set, tool);
            let mut schema = parameters_or_empty(tool);
            ensure_root_object(&mut schema, &mut sink);
            let original = schema.clone();
            let flatten = Target::Anthropic.rejects_root_combinators();
            if let Value::Object(root) = &mut schema
                && flatten
            {
                let mut origins = Origins::new();
                let mut guard = RefGuard::new();
                merge_all_of(root, "", 0, &original, &mut guard, &mut origins, &mut sink);
                flatten_root_unions(root, &original, &mut guard, &mut origins, &mut sink);
            }
            notes.extend(sink.into_notes());
            let mut entry = Map::new();
            entry.insert("name".into(), Value::String(tool.name.clone()));
            if let Some(description) = &tool.description {
                entry.insert("description".into(), Value::String(description.clone()));
            }
            entry.insert("input_schema".into(), schema);
            Value::Object(entry)
        })
        .collect();
    (Value::Array(entries), notes)
}
