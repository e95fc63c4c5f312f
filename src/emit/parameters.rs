//! The parameter schema as every provider JSON emitter starts from it: the
//! tool's schema (or an empty object schema), made an object schema at the
//! root, and [`SchemaNotes`], which turns what a schema pass reports into
//! [`Note`]s pointing into the manifest.

use std::collections::BTreeSet;

use serde_json::Value;

use super::Note;
use crate::diagnostic::Severity;
use crate::ir::{Tool, ToolSet};
use crate::json;
use crate::schema::RewriteNotes;

/// A tool's parameter schema, or an empty object schema when the manifest
/// does not say (the CLI warns about those).
pub(crate) fn parameters_or_empty(tool: &Tool) -> Value {
    tool.parameters
        .clone()
        .unwrap_or_else(crate::formats::no_parameters)
}

/// Collects the notes about one tool's parameter schema. Pointers are given
/// relative to the schema root and stored relative to the manifest (the
/// tool's `parameters_at` in front). A schema the manifest does not hold (an
/// empty one made up for a tool whose parameters are unknown) has nothing
/// to point at, so its notes are dropped. The same note is kept once: an
/// inlined definition repeats the notes of its source.
pub(crate) struct SchemaNotes<'a> {
    path: &'a str,
    base: Option<&'a str>,
    seen: BTreeSet<(String, String)>,
    notes: Vec<Note>,
}

impl<'a> SchemaNotes<'a> {
    pub(crate) fn for_tool(set: &'a ToolSet, tool: &'a Tool) -> Self {
        SchemaNotes {
            path: &set.path,
            base: tool.parameters.as_ref().and(tool.parameters_at.as_deref()),
            seen: BTreeSet::new(),
            notes: Vec::new(),
        }
    }

    fn push(&mut self, severity: Severity, at: &str, message: String) {
        let Some(base) = self.base else {
            return;
        };
        let pointer = format!("{base}{at}");
        if self.seen.insert((pointer.clone(), message.clone())) {
            self.notes.push(Note {
                path: self.path.to_string(),
                pointer,
                severity,
                message,
            });
        }
    }

    pub(crate) fn into_notes(self) -> Vec<Note> {
        self.notes
    }
}

impl RewriteNotes for SchemaNotes<'_> {
    fn info(&mut self, at: &str, message: impl Into<String>) {
        self.push(Severity::Info, at, message.into());
    }

    fn warning(&mut self, at: &str, message: impl Into<String>) {
        self.push(Severity::Warning, at, message.into());
    }
}

/// Every provider wants the parameters to be an object schema: a root
/// without `type` gets `"type": "object"` in front, and a root that is not a
/// JSON object at all (only with `--allow-errors`) is replaced by an empty
/// object schema.
pub(crate) fn ensure_root_object(schema: &mut Value, notes: &mut SchemaNotes) {
    match schema {
        Value::Object(root) if !root.contains_key("type") => {
            root.shift_insert(0, "type".into(), Value::String("object".into()));
            notes.info(
                "",
                "the parameter schema has no \"type\": added \"type\": \"object\"",
            );
        }
        Value::Object(_) => {}
        other => {
            notes.warning(
                "",
                format!(
                    "the parameter schema is {}, not a JSON object: generated an empty object schema",
                    json::kind_of(other)
                ),
            );
            *other = crate::formats::no_parameters();
        }
    }
}
