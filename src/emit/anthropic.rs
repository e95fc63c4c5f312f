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

use super::parameters::{
    SchemaNotes, ensure_root_object, in_2020_12, one_object_root, parameters_or_empty,
    properties_as_objects,
};
use super::{EmitError, Generated, Note, Options, Schema};
use crate::ir::{Tool, ToolSet};
use crate::providers::Target;

/// `toolc gen anthropic`.
pub fn generate(toolsets: &[ToolSet], _options: &Options) -> Result<Generated, EmitError> {
    super::JsonTarget::Anthropic.generate(toolsets)
}

/// The Anthropic tools array for every tool of `toolsets`, in order.
pub fn tools(toolsets: &[ToolSet]) -> Value {
    let entries = super::tools(toolsets)
        .map(|(set, tool)| entry(set, tool, Schema::Adapted).0)
        .collect();
    Value::Array(entries)
}

/// One tool's `{"name", "description", "input_schema"}`, and the notes
/// about what was changed to make Anthropic accept it.
pub(crate) fn entry(set: &ToolSet, tool: &Tool, schema: Schema) -> (Value, Vec<Note>) {
    let mut sink = SchemaNotes::for_tool(set, tool);
    let schema = match schema {
        Schema::Adapted => adapted(parameters_or_empty(tool), &mut sink),
        Schema::Adapt(given) => adapted(given, &mut sink),
    };
    let mut entry = Map::new();
    entry.insert("name".into(), Value::String(tool.name.clone()));
    if let Some(description) = &tool.description {
        entry.insert("description".into(), Value::String(description.clone()));
    }
    entry.insert("input_schema".into(), schema);
    // Anthropic's tool definition has OpenAI's `strict` too.
    if let Some(flag) = tool
        .extra
        .extensions
        .get("strict")
        .filter(|s| s.is_boolean())
    {
        entry.insert("strict".into(), flag.clone());
    }
    (Value::Object(entry), sink.into_notes())
}

/// The tool's parameters with the root made one object schema, in JSON
/// Schema 2020-12.
pub(crate) fn adapted(mut schema: Value, sink: &mut SchemaNotes) -> Value {
    ensure_root_object(&mut schema, sink);
    properties_as_objects(&mut schema, sink);
    in_2020_12(&mut schema, Target::Anthropic.display(), sink);
    if Target::Anthropic.rejects_root_combinators() {
        one_object_root(&mut schema, sink);
    }
    schema
}
