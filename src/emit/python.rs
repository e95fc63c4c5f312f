//! `toolc gen python`: Python skeletons, a tree of files under `-o DIR`, in
//! one of three styles.
//!
//! - `nora`: `<tool>/tool.json` (a NORA manifest, parameters in NORA's
//!   dialect) and `<tool>/main.py` with `run(params) -> str`, which reads
//!   the parameters it requires from `tool.json` when loaded.
//! - `basetool`: a `tools` package with a small `BaseTool` ABC, a `ToolResult`
//!   dataclass, `specs.py` with each tool's name, description and schema,
//!   and a subclass per tool (`tools/<module>.py`) whose `run` is the
//!   developer's.
//! - `agentstack`: `<package>/config.json` and `<package>/__init__.py` with a
//!   typed, documented function per tool (what AgentStack reads), each
//!   calling the developer's function in `<package>/impl/<module>.py`.
//!
//! What the model is sent (names, descriptions, schemas, signatures) is in
//! files toolc owns and rewrites ([`FileKind::Owned`], marked `@generated
//! by toolc`); the bodies are in skeletons written once and never again
//! ([`FileKind::Skeleton`]). The owned code checks at import time that
//! each skeleton still takes the tool's parameters.
//!
//! Every file's text comes from a template under `templates/python/<style>/`;
//! this module computes what the templates receive: Python identifiers for
//! wire names (`names`), type hints and defaults (`hints`), literals laid
//! out to the line length and prose wrapped for docstrings (`layout`), and
//! JSON documents as text. The bodies validate the required arguments and
//! answer "not implemented" without raising, so a skeleton runs from the
//! start. Only the standard library is imported. What a style cannot carry
//! over from the manifest is reported as a [`Note`].

mod agentstack;
mod basetool;
mod hints;
mod layout;
mod names;
mod nora;

use serde::Serialize;
use serde_json::{Map, Value};

use super::{EmitError, FileKind, Generated, GeneratedFile, Note, Options, Output};
use crate::diagnostic::Severity;
use crate::formats::agentstack_python::FunctionSchema;
use crate::ir::{Tool, ToolSet};
use crate::json;

/// The skeleton style, chosen once (by `--style`, or by the converter
/// that needs a format's code) and matched here.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Style {
    /// NORA: `DIR/<tool>/tool.json` and `main.py` with `run(params)`.
    #[default]
    #[value(help = "NORA: DIR/<tool>/tool.json and main.py with run(params)")]
    Nora,
    /// Agent-framework classes: a `BaseTool` subclass per tool.
    #[value(help = "Agent-framework classes: a BaseTool subclass per tool")]
    Basetool,
    /// AgentStack: `DIR/<package>/config.json` and `__init__.py`.
    #[value(help = "AgentStack: DIR/<package>/config.json and __init__.py")]
    Agentstack,
}

impl Style {
    /// The style's `--style` name.
    pub fn name(self) -> &'static str {
        match self {
            Style::Nora => "nora",
            Style::Basetool => "basetool",
            Style::Agentstack => "agentstack",
        }
    }
}

impl std::fmt::Display for Style {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// `toolc gen python --style STYLE`: the files of the skeleton tree, sorted
/// by path, with notes on what the style changed or could not carry.
pub fn generate(toolsets: &[ToolSet], options: &Options) -> Result<Generated, EmitError> {
    let mut skeletons = Skeletons::new(options.style);
    let mut notes = Vec::new();
    for (at, set) in toolsets.iter().enumerate() {
        let mut part = PythonPart::of(set, options)?;
        notes.push(part.take_notes());
        skeletons.add_part(at, part);
    }
    for members in skeletons.to_remake() {
        let sets: Vec<&ToolSet> = members.iter().map(|&at| &toolsets[at]).collect();
        let remade = skeletons.remake(&members, &sets, options)?;
        // A remade package's notes replace its members' own.
        for &at in &members {
            notes[at].clear();
        }
        notes[members[0]] = remade;
    }
    let files = skeletons.finish(options)?;
    Ok(Generated {
        output: Output::Tree(files),
        notes: notes.into_iter().flatten().collect(),
    })
}

/// One manifest's part of the skeleton tree, made on the worker that read
/// it, so that a run never holds every manifest's IR (or the whole tree
/// on one thread): what can be made without the other manifests, with
/// the notes about it. [`Skeletons`] puts the parts together.
#[derive(Debug)]
pub struct PythonPart {
    kind: PartKind,
    tools: usize,
    notes: Vec<Note>,
}

#[derive(Debug)]
enum PartKind {
    /// Every tool's files, to go in a directory named at the end.
    Nora(Vec<nora::NoraTool>),
    /// Every tool's class and spec, to be named and rendered at the end.
    Basetool(Vec<basetool::BaseTool>),
    /// The manifest's package, rendered as if no other manifest shared its
    /// name (none: the manifest has no tool). A package that fails to
    /// render alone (a `--templates` template that wants a second source)
    /// fails the run only if it stays alone.
    Agentstack(Option<(String, Result<Vec<GeneratedFile>, EmitError>)>),
}

impl PythonPart {
    /// `set`'s part in `options.style`.
    pub fn of(set: &ToolSet, options: &Options) -> Result<PythonPart, EmitError> {
        let mut out = Tree::default();
        let kind = match options.style {
            Style::Nora => PartKind::Nora(nora::tools(set, options, &mut out)?),
            Style::Basetool => PartKind::Basetool(basetool::tools(set)),
            Style::Agentstack => match agentstack::package_of(set) {
                Some(name) => {
                    let rendered = agentstack::render(name.clone(), vec![set], options, &mut out)
                        .map(|_| std::mem::take(&mut out.files));
                    if rendered.is_err() {
                        out.notes.clear();
                    }
                    PartKind::Agentstack(Some((name, rendered)))
                }
                None => PartKind::Agentstack(None),
            },
        };
        Ok(PythonPart {
            kind,
            tools: set.tools.len(),
            notes: out.notes,
        })
    }

    /// What the style changed or could not carry in this manifest's tools,
    /// taken out of the part (to be positioned where the manifest's map is).
    pub fn take_notes(&mut self) -> Vec<Note> {
        std::mem::take(&mut self.notes)
    }
}

/// The `main.py` that `gen python --style nora` writes for `tool` of `set`.
pub(crate) fn nora_entrypoint(
    set: &ToolSet,
    tool: &Tool,
    options: &Options,
) -> Result<String, EmitError> {
    nora::entrypoint(set, tool, options)
}

/// An AgentStack package as `gen python --style agentstack` makes it from
/// the tools of `sets` (its files, sorted by path under the package's
/// directory `name`), with each function of config.json as toolc's reader
/// reads it back from the module: what convert needs to see what the code
/// cannot carry, without parsing the module again.
pub(crate) fn agentstack_package(
    name: String,
    sets: Vec<&ToolSet>,
    options: &Options,
) -> Result<(Vec<GeneratedFile>, Vec<Option<FunctionSchema>>), EmitError> {
    let mut out = Tree::default();
    let name = names::identifier(&name, names::Kind::Package);
    let read_back = agentstack::render(name, sets, options, &mut out)?;
    out.files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok((out.files, read_back))
}

/// The skeleton tree as it is gathered, part by part in input order.
#[derive(Debug)]
pub struct Skeletons {
    style: Style,
    tools: usize,
    nora: Vec<nora::NoraTool>,
    basetool: Vec<basetool::BaseTool>,
    /// AgentStack's packages in the order of their first manifest.
    packages: Vec<Package>,
    /// Where each package name is in `packages`.
    package_at: std::collections::HashMap<String, usize>,
}

/// An AgentStack package of the tree.
#[derive(Debug)]
struct Package {
    name: String,
    /// The parts (by the number [`Skeletons::add_part`] was given) whose
    /// tools it holds.
    members: Vec<usize>,
    /// Its files (or why they could not be made), when one part made them
    /// alone; none when several parts share the package, which is then
    /// made again from all their IR ([`Skeletons::remake`]).
    files: Option<Result<Vec<GeneratedFile>, EmitError>>,
}

impl Skeletons {
    pub fn new(style: Style) -> Skeletons {
        Skeletons {
            style,
            tools: 0,
            nora: Vec::new(),
            basetool: Vec::new(),
            packages: Vec::new(),
            package_at: std::collections::HashMap::new(),
        }
    }

    /// Adds the part of the manifest numbered `at` (in input order).
    pub fn add_part(&mut self, at: usize, part: PythonPart) {
        self.tools += part.tools;
        match part.kind {
            PartKind::Nora(tools) => self.nora.extend(tools),
            PartKind::Basetool(tools) => self.basetool.extend(tools),
            PartKind::Agentstack(None) => {}
            PartKind::Agentstack(Some((name, files))) => match self.package_at.get(&name) {
                Some(&index) => {
                    let package = &mut self.packages[index];
                    package.members.push(at);
                    package.files = None;
                }
                None => {
                    self.package_at.insert(name.clone(), self.packages.len());
                    self.packages.push(Package {
                        name,
                        members: vec![at],
                        files: Some(files),
                    });
                }
            },
        }
    }

    /// The parts (by number, in order) whose manifests share a package,
    /// each group to be made again with [`Skeletons::remake`] from their
    /// IR: a package's names are apart across all its tools.
    pub fn to_remake(&self) -> Vec<Vec<usize>> {
        self.packages
            .iter()
            .filter(|package| package.files.is_none())
            .map(|package| package.members.clone())
            .collect()
    }

    /// Makes the package of `members` (a group of [`Skeletons::to_remake`])
    /// from their manifests' IR, `sets`, in the same order; its notes
    /// replace those of the members' parts.
    pub fn remake(
        &mut self,
        members: &[usize],
        sets: &[&ToolSet],
        options: &Options,
    ) -> Result<Vec<Note>, EmitError> {
        let Some(package) = self
            .packages
            .iter_mut()
            .find(|package| package.members == members)
        else {
            return Err(EmitError::Unsupported(
                "gen python: no package is made of these manifests".to_string(),
            ));
        };
        let mut out = Tree::default();
        agentstack::render(package.name.clone(), sets.to_vec(), options, &mut out)?;
        package.files = Some(Ok(out.files));
        Ok(out.notes)
    }

    /// The files of the tree, sorted by path.
    pub fn finish(self, options: &Options) -> Result<Vec<GeneratedFile>, EmitError> {
        if self.tools == 0 {
            return Err(EmitError::Unsupported(
                "gen python: the manifests declare no tool to generate".to_string(),
            ));
        }
        let mut out = Tree::default();
        match self.style {
            Style::Nora => nora::place(self.nora, &mut out),
            Style::Basetool => basetool::place(self.basetool, options, &mut out)?,
            Style::Agentstack => {
                for package in self.packages {
                    let Some(files) = package.files else {
                        return Err(EmitError::Unsupported(format!(
                            "gen python: package \"{}\" was not made again from its manifests",
                            package.name
                        )));
                    };
                    out.files.extend(files?);
                }
            }
        }
        out.files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out.files)
    }
}

/// What the manifests `gen python` writes say wrote them.
const WRITER: &str = "toolc gen python";

/// Their `"x-toolc"` `generated` member: the writer and the digest's
/// placeholder, which [`Tree::render`] signs like the Python files' (a hand
/// edit to `tool.json` or `config.json`, a permission added, is then
/// never dropped without a word).
fn signed_writer() -> String {
    format!("{WRITER}; {}", super::marker::DIGEST_PLACEHOLDER)
}

/// The templates of the files the developer fills in (the tools'
/// bodies): written when absent, never overwritten. The others (manifests,
/// bases, types, the package's `__init__.py`) are toolc's, and follow the
/// manifests.
const SKELETONS: &[&str] = &[
    "nora/main.py.j2",
    "basetool/tool.py.j2",
    "agentstack/implementation.py.j2",
];

/// What a style generator accumulates.
#[derive(Debug, Default)]
struct Tree {
    files: Vec<GeneratedFile>,
    notes: Vec<Note>,
}

impl Tree {
    /// Renders `template` (under `python/`) into the file at `path`, and
    /// gives its text.
    fn render(
        &mut self,
        options: &Options,
        template: &str,
        path: String,
        context: impl Serialize,
    ) -> Result<&str, EmitError> {
        let mut contents = options
            .templates
            .render(&format!("python/{template}"), context)?;
        let kind = if SKELETONS.contains(&template) {
            FileKind::Skeleton
        } else {
            FileKind::Owned
        };
        // toolc's files are signed: the writer then tells one it may
        // rewrite from one edited since, or a skeleton an older toolc
        // wrote under the same name, whose lines it must not drop.
        if kind == FileKind::Owned {
            contents = super::marker::signed(contents);
        }
        // Kept until the whole tree is written: rendering leaves up to
        // twice the text's length reserved.
        contents.shrink_to_fit();
        let file = GeneratedFile {
            path: path.into(),
            contents,
            kind,
        };
        self.files.push(file);
        Ok(self.files.last().map_or("", |f| f.contents.as_str()))
    }

    fn note(&mut self, set: &ToolSet, pointer: String, severity: Severity, message: String) {
        self.notes.push(Note {
            path: set.path.clone(),
            pointer,
            severity,
            message,
        });
    }
}

/// One top-level property of a tool's parameters.
#[derive(Debug, Clone)]
struct Parameter {
    /// The wire name: the property's key.
    key: String,
    schema: Value,
    required: bool,
    /// Where the property is in the manifest (for notes).
    pointer: String,
}

impl Parameter {
    fn description(&self) -> Option<&str> {
        self.schema
            .get("description")
            .and_then(Value::as_str)
            .filter(|d| !d.trim().is_empty())
    }

    /// Whether `null` is a valid value, so that `None` does not mean
    /// "missing".
    fn nullable(&self) -> bool {
        match self.schema.get("type") {
            Some(Value::String(t)) => t == "null",
            Some(Value::Array(types)) => types.iter().any(|t| t == "null"),
            _ => false,
        }
    }
}

/// A tool's parameter schema split into its top-level properties (in the
/// manifest's order) and the rest of the root. Unknown parameters count as
/// none (`gen` warns about them).
fn parameters(tool: &Tool) -> (Vec<Parameter>, Map<String, Value>) {
    let mut root = match tool.parameters.as_deref() {
        Some(Value::Object(root)) => root.clone(),
        _ => Map::new(),
    };
    let required: Vec<String> = match root.shift_remove("required") {
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    };
    let base = parameters_pointer(tool);
    let properties = match root.shift_remove("properties") {
        Some(Value::Object(properties)) => properties
            .into_iter()
            .map(|(key, schema)| Parameter {
                required: required.contains(&key),
                pointer: json::join(&json::join(&base, "properties"), &key),
                key,
                schema,
            })
            .collect(),
        _ => Vec::new(),
    };
    root.shift_remove("type");
    (properties, root)
}

/// Where a tool is declared, for notes: its declaration, else its name.
fn tool_pointer(tool: &Tool) -> String {
    if tool.origin.is_empty() {
        tool.name_at.clone()
    } else {
        tool.origin.clone()
    }
}

/// Where a tool's parameters are, else where the tool is.
fn parameters_pointer(tool: &Tool) -> String {
    tool.parameters_at
        .clone()
        .unwrap_or_else(|| tool_pointer(tool))
}

/// Root keywords of a parameter schema that a Python signature cannot
/// express (alternatives and conditions over the arguments).
const ROOT_CONSTRAINTS: &[&str] = &["anyOf", "oneOf", "allOf", "not", "if", "then", "else"];

/// Notes that the root's combinators are not in the generated signature.
fn note_root_constraints(out: &mut Tree, set: &ToolSet, tool: &Tool, root: &Map<String, Value>) {
    let dropped: Vec<&str> = ROOT_CONSTRAINTS
        .iter()
        .copied()
        .filter(|k| root.contains_key(*k))
        .collect();
    if dropped.is_empty() {
        return;
    }
    let base = parameters_pointer(tool);
    out.note(
        set,
        json::join(&base, dropped[0]),
        Severity::Warning,
        format!(
            "tool \"{}\": the parameters' {} cannot be expressed in a Python signature; the generated code does not check it",
            tool.name,
            dropped.join(", ")
        ),
    );
}

/// A tool's description, or the fallback that styles needing one use (its
/// display title, else its name, else "(no description)"), and whether it
/// is the fallback.
fn description_or_fallback(tool: &Tool) -> (String, bool) {
    match tool.description.as_deref().filter(|d| !d.trim().is_empty()) {
        Some(description) => (description.to_string(), false),
        None => {
            let fallback = [tool.title.as_deref(), Some(tool.name.as_str())]
                .into_iter()
                .flatten()
                .find(|t| !t.trim().is_empty())
                .unwrap_or("(no description)");
            (fallback.to_string(), true)
        }
    }
}

/// Sets `key` of the `"x-toolc"` object of `entry` (a tool object of a
/// manifest this module writes), made when absent: what reading the
/// manifest back needs to undo a change the format forced.
fn record_in_x_toolc(entry: &mut Map<String, Value>, key: &str, value: Value) {
    let x = entry
        .entry(crate::formats::carry::X_TOOLC)
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(x) = x {
        x.insert(key.to_string(), value);
    }
}

/// What a parameter's docstring entry adds to its description.
#[derive(Debug, Clone, Copy)]
struct Details {
    /// Its default (as JSON), when the schema has one.
    default: bool,
    /// The values it may take, when the schema lists them.
    choices: bool,
}

/// Every detail: for styles whose signatures show neither.
const ALL_DETAILS: Details = Details {
    default: true,
    choices: true,
};

/// The text of a parameter's docstring entry: its description, the
/// `details` asked for, and `also` (a further sentence); "(no
/// description)" when that is nothing.
fn parameter_text(parameter: &Parameter, details: Details, also: Option<String>) -> String {
    let mut sentences: Vec<String> = Vec::new();
    sentences.extend(parameter.description().map(|d| d.trim().to_string()));
    let choices = hints::choices(&parameter.schema);
    if details.choices && !choices.is_empty() {
        sentences.push(format!("One of {}.", choices.join(", ")));
    }
    if let Some(value) = parameter.schema.get("default").filter(|_| details.default) {
        sentences.push(format!("Defaults to {value}."));
    }
    sentences.extend(also);
    let mut text = String::new();
    for sentence in sentences {
        if !text.is_empty() {
            if !text.ends_with(['.', '!', '?']) {
                text.push('.');
            }
            text.push(' ');
        }
        text.push_str(&sentence);
    }
    if text.is_empty() {
        text.push_str("(no description)");
    }
    text
}

/// Docstring prose (wrapped, escaped).
fn doc(text: &str) -> String {
    layout::docstring_text(text, layout::TEXT_WIDTH)
}

/// A text a docstring must give back exactly, line for line (escaped,
/// never reflowed), for a docstring that opens at column `indent`, its
/// lines after the first indented (not by the template): a tool's
/// description, which reading the code takes from the docstring.
fn doc_exact(text: &str, indent: usize) -> String {
    layout::docstring_exact(text, indent)
}

/// A short text for a docstring, on one line (escaped, not wrapped).
fn doc_line(text: &str) -> String {
    layout::docstring_text(text, usize::MAX)
}

/// Pretty JSON text (two-space indent), without a final newline: the
/// templates add it.
fn json_text(value: &Value) -> Result<String, EmitError> {
    Ok(serde_json::to_string_pretty(value)?)
}
