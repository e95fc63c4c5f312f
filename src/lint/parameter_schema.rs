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

/// A parameter schema toolc read from code, not from the manifest.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DerivedSchema {
    /// The tool's index in the manifest's tool set.
    pub(crate) tool: usize,
    pub(crate) schema: Value,
    pub(crate) origin: Origin,
    /// The AgentStack function's parameters whose type hint gave no JSON
    /// Schema type (`python-type-hint-unknown`); empty for Nachos.
    pub(crate) untyped: Vec<UntypedParameter>,
}

/// Where in the code a derived schema was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Origin {
    /// The code's file relative to the manifest's directory, `/`-separated.
    pub(crate) file: String,
    /// What defines the schema: `def search`, `class FetchTool`.
    pub(crate) definition: String,
    /// 1-based line of the definition (a Python `def`, a class's
    /// `parameters` property).
    pub(crate) line: usize,
    /// Each parameter's own line, where the code gives one (Python).
    pub(crate) parameter_lines: Vec<(String, usize)>,
}

impl Origin {
    /// Where a place in the derived schema comes from, for a message:
    /// `parameter "query" of def search, __init__.py:8`.
    fn describe(&self, pointer: &str) -> String {
        let mut tokens = json::pointer_tokens(pointer);
        let parameter = match (tokens.next(), tokens.next()) {
            (Some(keyword), Some(name)) if keyword == "properties" => Some(name),
            _ => None,
        };
        match parameter {
            Some(name) => {
                let line = self
                    .parameter_lines
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map_or(self.line, |(_, line)| *line);
                format!(
                    "parameter {name:?} of {}, {}:{line}",
                    self.definition, self.file
                )
            }
            None => format!(
                "parameters of {}, {}:{}",
                self.definition, self.file, self.line
            ),
        }
    }
}

/// A parameter whose type hint toolc could not turn into a type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UntypedParameter {
    pub(crate) name: String,
    /// The hint as written; `None` when there is none.
    pub(crate) hint: Option<String>,
    /// 1-based line of the parameter in `__init__.py`.
    pub(crate) line: usize,
}

/// One tool's parameter schema, with what reporting on it needs.
pub(crate) struct ParameterSchema<'m> {
    pub(crate) manifest: &'m Manifest,
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
    pub(crate) fn all(manifest: &'m Manifest) -> impl Iterator<Item = ParameterSchema<'m>> {
        let in_document = manifest.toolset.tools.iter().filter_map(move |tool| {
            let root = tool.parameters_at.as_deref()?;
            Some(ParameterSchema {
                manifest,
                tool,
                root,
                value: manifest.raw(root)?,
                derived: None,
            })
        });
        let derived = manifest.derived.iter().filter_map(move |derived| {
            Some(ParameterSchema {
                manifest,
                tool: manifest.toolset.tools.get(derived.tool)?,
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
    pub(crate) fn editable(&self) -> Option<&'m Manifest> {
        match self.derived {
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
