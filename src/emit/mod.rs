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
pub mod marker;
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

/// Who a generated file belongs to once written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// toolc's: a manifest, provider JSON, types and bases, written from
    /// the manifests every time.
    Owned,
    /// Code for the developer to fill in (a tool's body): written only
    /// when the output has no such file yet, never overwritten.
    Skeleton,
    /// A skeleton that is a program to run (an agentcli tool's command):
    /// like [`FileKind::Skeleton`], and written executable (mode 0755).
    Program,
}

/// One generated file of a tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedFile {
    /// Relative to the output directory, with `/` separators.
    pub path: PathBuf,
    pub contents: String,
    pub kind: FileKind,
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

/// The key naming a document's JSON Schema, which lint accepts at the root
/// of every format.
pub const SCHEMA_KEY: &str = "$schema";

/// The provider documents: JSON built a tool at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonTarget {
    Openai {
        strict: bool,
    },
    /// The Responses API's function tools.
    OpenaiResponses {
        strict: bool,
    },
    Anthropic,
    Mcp,
    Gemini,
}

impl JsonTarget {
    /// Where the document holds its tools.
    pub fn tools_at(self) -> ToolsAt {
        match self {
            JsonTarget::Openai { .. }
            | JsonTarget::OpenaiResponses { .. }
            | JsonTarget::Anthropic => ToolsAt::Root,
            JsonTarget::Mcp => ToolsAt::Member("tools"),
            JsonTarget::Gemini => ToolsAt::Member("functionDeclarations"),
        }
    }

    /// The members of the document's root object besides its tools, each
    /// with the value gen writes (MCP's: see
    /// [`crate::providers::mcp::list_result_members`]).
    pub fn root_members(self) -> Vec<(String, serde_json::Value)> {
        match self {
            JsonTarget::Mcp => crate::providers::mcp::list_result_members()
                .into_iter()
                .map(|(key, value)| (key.to_string(), value))
                .collect(),
            JsonTarget::Openai { .. }
            | JsonTarget::OpenaiResponses { .. }
            | JsonTarget::Anthropic
            | JsonTarget::Gemini => Vec::new(),
        }
    }

    /// One tool's entry in the document, and the notes about it.
    pub fn entry(self, set: &ToolSet, tool: &crate::ir::Tool) -> (serde_json::Value, Vec<Note>) {
        self.entry_with(set, tool, Schema::Adapted)
    }

    /// One tool's entry with its parameter schema chosen by `schema`, and
    /// the notes about it. Gemini's declarations are only ever adapted:
    /// its parameters are an OpenAPI subset that a JSON Schema is not.
    pub fn entry_with(
        self,
        set: &ToolSet,
        tool: &crate::ir::Tool,
        schema: Schema,
    ) -> (serde_json::Value, Vec<Note>) {
        let (schema, renamed) = self.with_parameter_names(set, tool, schema);
        let (entry, mut notes) = match self {
            JsonTarget::Openai { strict } => openai::entry(set, tool, strict, schema),
            JsonTarget::OpenaiResponses { strict } => {
                openai::responses_entry(set, tool, strict, schema)
            }
            JsonTarget::Anthropic => anthropic::entry(set, tool, schema),
            JsonTarget::Mcp => {
                let mut notes = Vec::new();
                let entry = mcp::entry(set, tool, schema, &mut notes);
                (entry, notes)
            }
            JsonTarget::Gemini => gemini::declaration(set, tool, schema),
        };
        notes.extend(renamed);
        (entry, notes)
    }

    /// The names this target takes for a tool's top-level parameters, where
    /// it takes fewer than JSON Schema (see `crate::providers`).
    pub(crate) fn parameter_names(self) -> Option<crate::schema::NameRule> {
        match self {
            JsonTarget::Gemini => Some(crate::schema::NameRule {
                accepts: crate::providers::gemini::is_property_name,
                max_len: Some(crate::providers::gemini::PROPERTY_NAME_MAX_LENGTH),
            }),
            JsonTarget::Anthropic => Some(crate::schema::NameRule {
                accepts: crate::providers::anthropic::is_property_name,
                max_len: Some(crate::providers::anthropic::PROPERTY_NAME_MAX_LENGTH),
            }),
            JsonTarget::Openai { .. } | JsonTarget::OpenaiResponses { .. } | JsonTarget::Mcp => {
                None
            }
        }
    }

    /// The parameters of `tool` this target cannot name, renamed: (name in
    /// the output, original name) for a top-level one, (pointer to it in
    /// the output's parameters, original name) for one inside them (only
    /// Gemini renames those). What [`JsonTarget::entry_with`] writes, for a
    /// record beside the output.
    pub fn renamed_parameters(
        self,
        set: &ToolSet,
        tool: &crate::ir::Tool,
    ) -> Vec<(String, String)> {
        let Some(rule) = self.parameter_names() else {
            return Vec::new();
        };
        let mut renamed = match tool.parameters.as_deref().cloned() {
            Some(mut parameters) => crate::schema::rename_properties(&mut parameters, rule).renamed,
            None => Vec::new(),
        };
        if self == JsonTarget::Gemini {
            let (schema, _) = self.with_parameter_names(set, tool, Schema::Adapted);
            let (_, _, nested) = gemini::declaration_and_renames(set, tool, schema);
            renamed.extend(nested.renamed.into_iter().map(|r| (r.at, r.original)));
        }
        renamed
    }

    /// `schema` with the top-level parameters this target cannot name
    /// renamed, and an info note for each (an error for one no name fits).
    fn with_parameter_names(
        self,
        set: &ToolSet,
        tool: &crate::ir::Tool,
        schema: Schema,
    ) -> (Schema, Vec<Note>) {
        let Some(rule) = self.parameter_names() else {
            return (schema, Vec::new());
        };
        let given = match &schema {
            Schema::Adapted => tool.parameters.as_deref(),
            Schema::Adapt(given) => Some(given),
        };
        let rejects = given
            .and_then(|p| p.get("properties"))
            .and_then(serde_json::Value::as_object)
            .is_some_and(|p| p.keys().any(|name| !(rule.accepts)(name)));
        if !rejects {
            return (schema, Vec::new());
        }
        let mut given = match schema {
            Schema::Adapted => parameters::parameters_or_empty(tool),
            Schema::Adapt(given) => given,
        };
        let renames = crate::schema::rename_properties(&mut given, rule);
        let at = |name: &str| {
            let parameters = tool.parameters_at.as_deref().unwrap_or(&tool.origin);
            crate::json::join(&crate::json::join(parameters, "properties"), name)
        };
        let provider = self.display();
        let mut notes: Vec<Note> = renames
            .renamed
            .iter()
            .map(|(new, original)| Note {
                path: set.path.clone(),
                pointer: at(original),
                severity: Severity::Info,
                message: format!(
                    "{provider} cannot name the parameter \"{original}\" of tool \"{}\": it is \"{new}\" there, recorded beside the output (FILE{}) so that the arguments can be given back as \"{original}\"",
                    tool.name,
                    crate::formats::carry::SIDECAR_SUFFIX
                ),
            })
            .collect();
        notes.extend(renames.refused.iter().map(|name| Note {
            path: set.path.clone(),
            pointer: at(name),
            severity: Severity::Error,
            message: format!(
                "{provider} can name the parameter \"{name}\" of tool \"{}\" in no way it takes",
                tool.name
            ),
        }));
        (Schema::Adapt(given), notes)
    }

    /// The provider's name as people write it.
    fn display(self) -> &'static str {
        match self {
            JsonTarget::Openai { .. } | JsonTarget::OpenaiResponses { .. } => "OpenAI",
            JsonTarget::Anthropic => "Anthropic",
            JsonTarget::Mcp => "MCP",
            JsonTarget::Gemini => "Gemini",
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
            output: Output::Document(JsonItems::document(
                parts,
                self.tools_at(),
                &self.root_members(),
            )?),
            notes,
        })
    }
}

/// The parameter schema of a tool's entry. Either way it is changed into
/// what the provider accepts, with a note for each change: gen and convert
/// never write a schema the provider refuses.
#[derive(Debug, Clone, PartialEq)]
pub enum Schema {
    /// The tool's parameters (an empty object schema when unknown), copied.
    Adapted,
    /// The tool's parameters, already taken out of it (convert, which moves
    /// a schema into its document rather than copy it).
    Adapt(serde_json::Value),
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
        // A `"$schema"` key opens the document (editors and readers look
        // for it there); the other members follow the tools.
        let (first, members): (Vec<_>, Vec<_>) =
            members.iter().partition(|(key, _)| key == SCHEMA_KEY);
        if let ToolsAt::Member(key) = at {
            head.push('{');
            for (key, value) in first {
                push_member(&mut head, "\n  ", key, value)?;
                head.push(',');
            }
            head.push_str("\n  ");
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
                push_member(&mut tail, ",\n  ", key, value)?;
            }
            tail.push_str("\n}");
        }
        tail.push('\n');
        pieces.push(tail);
        Ok(pieces)
    }
}

/// Appends `value` as pretty JSON nested `depth` levels deep, from where
/// the text is (its first line is placed by the caller): the bytes
/// `serde_json::to_string_pretty` gives, with every line after the first
/// indented by `depth` more levels, serialized in place.
fn push_indented(
    text: &mut String,
    value: &serde_json::Value,
    depth: usize,
) -> Result<(), EmitError> {
    use serde::Serialize;
    let mut bytes = Vec::new();
    let formatter = NestedPretty {
        level: depth,
        has_value: false,
    };
    value.serialize(&mut serde_json::Serializer::with_formatter(
        &mut bytes, formatter,
    ))?;
    // serde_json writes UTF-8 only: this check never fails, and keeps the
    // code free of `unsafe`.
    let pretty = std::str::from_utf8(&bytes).map_err(|_| {
        EmitError::Unsupported("the JSON serializer wrote bytes that are not UTF-8".to_owned())
    })?;
    text.push_str(pretty);
    Ok(())
}

/// serde_json's pretty layout (two spaces a level, `": "` after a key,
/// `[]` and `{}` for empty containers) starting `level` levels deep.
struct NestedPretty {
    level: usize,
    has_value: bool,
}

impl NestedPretty {
    fn line<W: ?Sized + std::io::Write>(&self, writer: &mut W) -> std::io::Result<()> {
        writer.write_all(b"\n")?;
        for _ in 0..self.level {
            writer.write_all(b"  ")?;
        }
        Ok(())
    }

    fn open<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        bracket: &[u8],
    ) -> std::io::Result<()> {
        self.level += 1;
        self.has_value = false;
        writer.write_all(bracket)
    }

    fn close<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        bracket: &[u8],
    ) -> std::io::Result<()> {
        self.level -= 1;
        if self.has_value {
            self.line(writer)?;
        }
        writer.write_all(bracket)
    }

    fn item<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if !first {
            writer.write_all(b",")?;
        }
        self.line(writer)
    }
}

impl serde_json::ser::Formatter for NestedPretty {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.open(writer, b"[")
    }

    fn end_array<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.close(writer, b"]")
    }

    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.item(writer, first)
    }

    fn end_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        _writer: &mut W,
    ) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.open(writer, b"{")
    }

    fn end_object<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.close(writer, b"}")
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.item(writer, first)
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
    ) -> std::io::Result<()> {
        writer.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + std::io::Write>(
        &mut self,
        _writer: &mut W,
    ) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// Every tool of the run, in order, with the tool set it came from.
pub fn tools(toolsets: &[ToolSet]) -> impl Iterator<Item = (&ToolSet, &crate::ir::Tool)> {
    toolsets
        .iter()
        .flat_map(|set| set.tools.iter().map(move |tool| (set, tool)))
}

/// `before`, then `"key": value` as a root member (indented one level).
fn push_member(
    out: &mut String,
    before: &str,
    key: &str,
    value: &serde_json::Value,
) -> Result<(), EmitError> {
    out.push_str(before);
    out.push_str(&serde_json::to_string(key)?);
    out.push_str(": ");
    push_indented(out, value, 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Values with every shape the layout treats apart: empty and nested
    /// containers, strings holding line breaks and quotes, numbers, null.
    fn tricky_tools() -> Vec<serde_json::Value> {
        vec![
            json!({}),
            json!([]),
            json!({"name": "a", "parameters": {"type": "object", "properties": {}, "required": []}}),
            json!({"description": "two\nlines, a \"quote\" and \u{e9}", "n": [1, 2.5, -3e40, null, true]}),
            json!({"deep": [[[]], [{}], [{"x": [{"y": {}}]}]]}),
            json!("a bare string"),
            json!(7),
        ]
    }

    #[test]
    fn joined_items_are_the_bytes_of_the_whole_document() {
        for at in [ToolsAt::Root, ToolsAt::Member("tools")] {
            let tools = tricky_tools();
            // One part per tool, and all tools in one part, give the same.
            let mut one = JsonItems::default();
            let mut parts = Vec::new();
            for tool in &tools {
                one.push(tool, at).unwrap();
                let mut part = JsonItems::default();
                part.push(tool, at).unwrap();
                parts.push(part);
            }
            let members = vec![("next".to_owned(), json!({"k": [1, {}], "e": []}))];
            let whole = match at {
                ToolsAt::Root => serde_json::Value::Array(tools.clone()),
                ToolsAt::Member(key) => {
                    let mut root = serde_json::Map::new();
                    root.insert(key.to_owned(), serde_json::Value::Array(tools.clone()));
                    for (key, value) in &members {
                        root.insert(key.clone(), value.clone());
                    }
                    serde_json::Value::Object(root)
                }
            };
            let expected = json_document(&whole).unwrap();
            assert_eq!(JsonItems::document(parts, at, &members).unwrap(), expected);
            assert_eq!(JsonItems::document([one], at, &members).unwrap(), expected);
        }
    }

    #[test]
    fn no_items_make_an_empty_array() {
        let expected = json_document(&json!({"tools": []})).unwrap();
        let parts = [JsonItems::default()];
        assert_eq!(
            JsonItems::document(parts, ToolsAt::Member("tools"), &[]).unwrap(),
            expected
        );
        assert_eq!(JsonItems::document([], ToolsAt::Root, &[]).unwrap(), "[]\n");
    }
}
