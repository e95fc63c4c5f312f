//! Emitting from the IR: provider tool JSON, Rust trait stubs and Python
//! skeletons.
//!
//! A generator takes the tool sets of a run and returns an [`Output`] (one
//! document, or a tree of files) plus [`Note`]s about what it had to change
//! or could not carry, each pointing at the source. Writing happens at the
//! edge, in the CLI. Provider JSON is built as JSON values (always
//! well-formed); code and other text comes from minijinja templates
//! ([`templates`]). The same input gives byte-identical output.

pub mod anthropic;
pub mod gemini;
pub mod mcp;
pub mod openai;
mod parameters;
pub mod python;
pub mod rust;
pub mod templates;
pub mod typescript;

use std::path::PathBuf;

use crate::diagnostic::Severity;
use crate::ir::ToolSet;

/// Something a generator changed or dropped, pointing into a manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub path: String,
    /// JSON Pointer into the manifest at `path`.
    pub pointer: String,
    pub severity: Severity,
    pub message: String,
}

/// One generated file of a tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedFile {
    /// Relative to the output directory, with `/` separators.
    pub path: PathBuf,
    pub contents: String,
}

/// What a generator produces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// One document: standard output or `-o FILE`.
    Document(String),
    /// Files under `-o DIR`.
    Tree(Vec<GeneratedFile>),
}

/// A generator's result.
#[derive(Debug, Clone)]
pub struct Generated {
    pub output: Output,
    pub notes: Vec<Note>,
}

/// What every generator may be asked for.
#[derive(Debug)]
pub struct Options<'a> {
    pub templates: &'a templates::Templates,
    /// OpenAI: emit strict mode (`"strict": true`, the strict subset).
    pub strict: bool,
    /// Python: the skeleton style.
    pub style: python::Style,
}

/// Why generation failed.
#[derive(Debug, thiserror::Error)]
pub enum EmitError {
    #[error("template: {0}")]
    Template(String),
    #[error("{0}")]
    Unsupported(String),
    #[error("cannot serialize: {0}")]
    Serialize(#[from] serde_json::Error),
}

/// Pretty JSON with a final newline: the document form of JSON targets.
pub fn json_document(value: &serde_json::Value) -> Result<String, EmitError> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    Ok(text)
}

/// The provider documents: JSON built a tool at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonTarget {
    Openai { strict: bool },
    Anthropic,
    Mcp,
    Gemini,
}

impl JsonTarget {
    /// Where the document holds its tools.
    pub fn tools_at(self) -> ToolsAt {
        match self {
            JsonTarget::Openai { .. } | JsonTarget::Anthropic => ToolsAt::Root,
            JsonTarget::Mcp => ToolsAt::Member("tools"),
            JsonTarget::Gemini => ToolsAt::Member("functionDeclarations"),
        }
    }

    /// One tool's entry in the document, and the notes about it.
    pub fn entry(self, set: &ToolSet, tool: &crate::ir::Tool) -> (serde_json::Value, Vec<Note>) {
        match self {
            JsonTarget::Openai { strict } => openai::entry(set, tool, strict),
            JsonTarget::Anthropic => anthropic::entry(set, tool),
            JsonTarget::Mcp => {
                let mut notes = Vec::new();
                let entry = mcp::entry(set, tool, &mut notes);
                (entry, notes)
            }
            JsonTarget::Gemini => gemini::declaration(set, tool),
        }
    }

    /// The entries of every tool of `set`, serialized, and the notes about
    /// them: a part of the document that [`JsonItems::document`] joins.
    pub fn items(self, set: &ToolSet) -> Result<(JsonItems, Vec<Note>), EmitError> {
        let mut items = JsonItems::default();
        let mut notes = Vec::new();
        for tool in &set.tools {
            let (entry, tool_notes) = self.entry(set, tool);
            items.push(&entry, self.tools_at())?;
            notes.extend(tool_notes);
        }
        items.shrink_to_fit();
        Ok((items, notes))
    }

    /// The whole document for `toolsets`.
    pub fn generate(self, toolsets: &[ToolSet]) -> Result<Generated, EmitError> {
        let mut parts = Vec::new();
        let mut notes = Vec::new();
        for set in toolsets {
            let (items, set_notes) = self.items(set)?;
            parts.push(items);
            notes.extend(set_notes);
        }
        Ok(Generated {
            output: Output::Document(JsonItems::document(parts, self.tools_at(), &[])?),
            notes,
        })
    }
}

/// Where a JSON target puts its tools: the document is the array itself
/// (`[...]`), or the array is the first member of the root object
/// (`{"tools": [...]}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolsAt {
    Root,
    Member(&'static str),
}

impl ToolsAt {
    /// How deep the tools' values are nested in the document.
    fn depth(self) -> usize {
        match self {
            ToolsAt::Root => 1,
            ToolsAt::Member(_) => 2,
        }
    }
}

/// Tools of a JSON document, each serialized on its own, at the indentation
/// it has in the whole document, so that a run can serialize every
/// manifest's tools where it reads them and keep text instead of values.
/// [`JsonItems::document`] joins them into the very bytes
/// [`json_document`] writes for the whole value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JsonItems {
    /// The items, each indented and separated by `,` and a line break.
    text: String,
}

impl JsonItems {
    /// Adds `value` as the next tool of a document whose tools are `at`.
    pub fn push(&mut self, value: &serde_json::Value, at: ToolsAt) -> Result<(), EmitError> {
        if !self.text.is_empty() {
            self.text.push_str(",\n");
        }
        self.text.push_str(&"  ".repeat(at.depth()));
        push_indented(&mut self.text, value, at.depth())
    }

    /// Adds the items of `other` after these.
    pub fn append(&mut self, other: &JsonItems) {
        if other.text.is_empty() {
            return;
        }
        if !self.text.is_empty() {
            self.text.push_str(",\n");
        }
        self.text.push_str(&other.text);
    }

    /// Gives back the room grown for items that never came (a run holds
    /// every manifest's items until it writes them).
    pub fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// The document holding the items of `parts` in order, and, when the
    /// tools are a member of the root object, `members` after them: what
    /// [`json_document`] gives for the same value.
    pub fn document(
        parts: impl IntoIterator<Item = JsonItems>,
        at: ToolsAt,
        members: &[(String, serde_json::Value)],
    ) -> Result<String, EmitError> {
        Ok(JsonItems::pieces(parts, at, members)?.concat())
    }

    /// [`JsonItems::document`] in pieces to write one after the other: the
    /// parts' text is moved, not copied, so a large document is held once.
    pub fn pieces(
        parts: impl IntoIterator<Item = JsonItems>,
        at: ToolsAt,
        members: &[(String, serde_json::Value)],
    ) -> Result<Vec<String>, EmitError> {
        let mut head = String::new();
        if let ToolsAt::Member(key) = at {
            head.push_str("{\n  ");
            head.push_str(&serde_json::to_string(key)?);
            head.push_str(": ");
        }
        let mut pieces = Vec::new();
        for part in parts.into_iter().filter(|part| !part.text.is_empty()) {
            let separator = if pieces.is_empty() { "[\n" } else { ",\n" };
            head.push_str(separator);
            pieces.push(std::mem::take(&mut head));
            pieces.push(part.text);
        }
        let mut tail = head;
        if pieces.is_empty() {
            tail.push_str("[]");
        } else {
            tail.push('\n');
            tail.push_str(&"  ".repeat(at.depth() - 1));
            tail.push(']');
        }
        if let ToolsAt::Member(_) = at {
            for (key, value) in members {
                tail.push_str(",\n  ");
                tail.push_str(&serde_json::to_string(key)?);
                tail.push_str(": ");
                push_indented(&mut tail, value, 1)?;
            }
            tail.push_str("\n}");
        }
        tail.push('\n');
        pieces.push(tail);
        Ok(pieces)
    }
}

/// Appends `value` as pretty JSON nested `depth` levels deep, from where
/// the text is (its first line is placed by the caller). Pretty JSON has
/// line breaks only between tokens (a string holds `\n` escaped), so
/// indenting after each one indents the value.
fn push_indented(
    text: &mut String,
    value: &serde_json::Value,
    depth: usize,
) -> Result<(), EmitError> {
    let pretty = serde_json::to_string_pretty(value)?;
    let indent = "  ".repeat(depth);
    let mut lines = pretty.split('\n');
    if let Some(first) = lines.next() {
        text.push_str(first);
    }
    for line in lines {
        text.push('\n');
        text.push_str(&indent);
        text.push_str(line);
    }
    Ok(())
}

/// Every tool of the run, in order, with the tool set it came from.
pub fn tools(toolsets: &[ToolSet]) -> impl Iterator<Item = (&ToolSet, &crate::ir::Tool)> {
    toolsets
        .iter()
        .flat_map(|set| set.tools.iter().map(move |tool| (set, tool)))
}
