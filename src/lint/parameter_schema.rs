//! A tool's parameter schema as the parameter rules see it, wherever it
//! comes from.
//!
//! Most formats hold the schema in the manifest, at `Tool::parameters_at`:
//! a finding points at the offending value or key, and a fix may edit it.
//! AgentStack and Nachos manifests hold none: toolc derives the schema from
//! the package's code (a function of `__init__.py`, a TypeScript class) and
//! keeps it beside the manifest as a [`DerivedSchema`]. The same rules run
//! over it, but no text of the manifest is at fault, so their findings are
//! moved to the tool's name, the one place in the manifest that stands for
//! the code, and their messages say which parameter and which file and line
//! of the code they are about. A derived schema's findings never carry a
//! fix: no edit of the JSON can change the code.
//!
//! A Gemini declaration's `parameters` is Gemini's schema dialect: the
//! rules see it lowered to JSON Schema (its subschemas keep their
//! pointers), and offer no fix for it.
//!
//! A rule reports through [`ParameterSchema::at_value`] and `at_key` with
//! pointers below [`ParameterSchema::root`]; for a derived schema these are
//! pointers into the derived value (root `""`). The runner deduplicates a
//! derived schema's findings by those pointers, then hands them to
//! [`ParameterSchema::relocate`], which moves them to the tool's name and
//! merges each rule's findings into one: one place, one rule, one report.
//! The message lists every place in the code.

use serde_json::Value;

use crate::diagnostic::Diagnostic;
use crate::ir::{Format, Tool};
use crate::json;
use crate::lint::{Manifest, Rule};
use crate::project::DerivedSchema;

/// One tool's parameter schema, with what reporting on it needs.
pub(crate) struct ParameterSchema<'m> {
    pub(crate) manifest: Manifest<'m>,
    pub(crate) tool: &'m Tool,
    /// The pointer of the schema's root: its place in the document, or `""`
    /// in a derived schema.
    pub(crate) root: &'m str,
    pub(crate) value: &'m Value,
    derived: Option<&'m DerivedSchema>,
}

impl<'m> ParameterSchema<'m> {
    /// Every tool's parameter schema that is known: those in the document,
    /// in tool order, then the derived ones.
    pub(crate) fn all(manifest: Manifest<'m>) -> impl Iterator<Item = ParameterSchema<'m>> {
        let loaded = manifest.loaded;
        let in_document = loaded.toolset.tools.iter().filter_map(move |tool| {
            let root = tool.parameters_at.as_deref()?;
            // Gemini's schema is not JSON Schema (`"STRING"`, `nullable`):
            // the rules see it lowered, which keeps every subschema at its
            // pointer.
            let value = if loaded.format() == Format::Gemini {
                tool.parameters.as_ref()?
            } else {
                json::value_at(&loaded.document.value, root)?
            };
            Some(ParameterSchema {
                manifest,
                tool,
                root,
                value,
                derived: None,
            })
        });
        let derived = loaded.code.derived.iter().filter_map(move |derived| {
            Some(ParameterSchema {
                manifest,
                tool: loaded.toolset.tools.get(derived.tool)?,
                root: "",
                value: &derived.schema,
                derived: Some(derived),
            })
        });
        in_document.chain(derived)
    }

    pub(crate) fn format(&self) -> Format {
        self.manifest.format()
    }

    /// Whether the schema was read from code rather than the manifest.
    pub(crate) fn is_derived(&self) -> bool {
        self.derived.is_some()
    }

    /// The manifest to compute a fix's edits in: `None` for a derived
    /// schema, which no edit of the manifest can change.
    pub(crate) fn editable(&self) -> Option<Manifest<'m>> {
        match self.derived {
            // A fix computed on a lowered Gemini schema would edit text
            // that says it otherwise.
            None if self.format() == Format::Gemini => None,
            None => Some(self.manifest),
            Some(_) => None,
        }
    }

    /// Whether `pointer` is the schema's root.
    pub(crate) fn is_root(&self, pointer: &str) -> bool {
        pointer == self.root
    }

    /// A finding about the value at `pointer`.
    pub(crate) fn at_value(
        &self,
        rule: &'static Rule,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) -> Diagnostic {
        match self.derived {
            None => self.manifest.at_value(rule, pointer, message),
            Some(_) => rule.diagnostic(self.manifest.path(), pointer, None, message),
        }
    }

    /// A finding about the key of the member `pointer` names.
    pub(crate) fn at_key(
        &self,
        rule: &'static Rule,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) -> Diagnostic {
        match self.derived {
            None => self.manifest.at_key(rule, pointer, message),
            Some(_) => rule.diagnostic(self.manifest.path(), pointer, None, message),
        }
    }

    /// Moves the findings about a derived schema to the tool's name in the
    /// manifest, names each one's place in the code in its message, drops
    /// any fix, and merges each rule's findings into one. Findings about a
    /// schema in the document are returned as they are.
    pub(crate) fn relocate(&self, found: Vec<Diagnostic>) -> Vec<Diagnostic> {
        let Some(derived) = self.derived else {
            return found;
        };
        let moved = found.into_iter().map(|mut diagnostic| {
            let place = derived.origin.describe(&diagnostic.pointer);
            diagnostic.message = format!("{} ({place})", diagnostic.message);
            diagnostic.pointer = self.tool.name_at.clone();
            diagnostic.span = Some(self.manifest.tool_name_span(self.tool));
            diagnostic.fix = None;
            diagnostic
        });
        merge_by_rule(moved)
    }
}

/// How many findings one merged message lists.
const MAX_LISTED: usize = 10;

/// One finding per rule: the first, with the messages of all of them
/// (up to [`MAX_LISTED`]) joined by `; `. For findings that share a place.
pub(crate) fn merge_by_rule(found: impl IntoIterator<Item = Diagnostic>) -> Vec<Diagnostic> {
    let mut merged: Vec<(Diagnostic, usize)> = Vec::new();
    for diagnostic in found {
        match merged.iter_mut().find(|(d, _)| d.rule == diagnostic.rule) {
            Some((first, count)) => {
                *count += 1;
                if *count <= MAX_LISTED {
                    first.message.push_str("; ");
                    first.message.push_str(&diagnostic.message);
                }
            }
            None => merged.push((diagnostic, 1)),
        }
    }
    merged
        .into_iter()
        .map(|(mut diagnostic, count)| {
            if count > MAX_LISTED {
                diagnostic
                    .message
                    .push_str(&format!("; and {} more", count - MAX_LISTED));
            }
            diagnostic
        })
        .collect()
}
