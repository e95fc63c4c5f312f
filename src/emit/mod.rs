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

/// Every tool of the run, in order, with the tool set it came from.
pub fn tools(toolsets: &[ToolSet]) -> impl Iterator<Item = (&ToolSet, &crate::ir::Tool)> {
    toolsets
        .iter()
        .flat_map(|set| set.tools.iter().map(move |tool| (set, tool)))
}
