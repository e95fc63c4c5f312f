//! Converting manifests from one format into another.
//!
//! A writer per target format builds that format's real layout from the IR:
//! the fields every format shares (name, title, description, parameters)
//! come from the IR; the fields only some formats have travel as
//! [`Carried`] values (see `formats::carry`). A writer writes the
//! carried fields of its own format natively, keeps the others in an
//! `"x-toolc"` object where its format tolerates extra keys (every format
//! but OpenAI's and Anthropic's tool JSON), and reports each field the
//! target cannot express as a [`Loss`] at the field's place in the source.
//! A round trip A → B → A therefore gives back every field, except what B
//! had to drop and said so.
//!
//! Code a format keeps outside the manifest (the entrypoint script of a
//! NORA tool, the `__init__.py` of an AgentStack package, the TypeScript
//! class of a Nachos tool) is written as a skeleton, and only where none
//! exists yet: see [`FileKind::Skeleton`].

mod agentcli;
mod agentstack;
mod nachos;
mod nora;
mod provider;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::diagnostic::Severity;
use crate::emit::{EmitError, JsonItems, Note};
use crate::formats::carry::{self, SET, X_TOOLC};
use crate::ir::{Carried, Format, Tool, ToolSet};
use crate::json;

/// What a converted file is: the writers' own kinds.
pub use crate::emit::FileKind;

/// One file of the converted tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputFile {
    /// Relative to the output directory (or the output file itself, for
    /// the single-document targets, where it is empty).
    pub path: PathBuf,
    pub contents: String,
    pub kind: FileKind,
}

/// A field of a source manifest that the target format cannot express.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loss {
    /// The manifest the field is in.
    pub path: String,
    /// JSON Pointer of the field in that manifest.
    pub pointer: String,
    pub message: String,
}

/// What a conversion produces.
#[derive(Debug, Clone, Default)]
pub struct Converted {
    pub files: Vec<OutputFile>,
    pub losses: Vec<Loss>,
    /// What the writers chose or could not do (a default, a placeholder).
    pub notes: Vec<Note>,
}

/// What a conversion needs besides the tool sets.
#[derive(Debug)]
pub struct Options<'a> {
    /// The templates of the skeletons.
    pub templates: &'a crate::emit::templates::Templates,
    /// The output directory, to see which skeletons exist already; `None`
    /// when nothing is there to look at.
    pub out_dir: Option<&'a Path>,
    /// Each manifest written starts with `"$schema"`, its format's schema.
    pub schema_key: bool,
}

impl<'a> Options<'a> {
    /// What gen python is asked for to write the skeletons of `style`.
    fn skeletons(&self, style: crate::emit::python::Style) -> crate::emit::Options<'a> {
        crate::emit::Options {
            templates: self.templates,
            strict: false,
            style,
        }
    }
}

/// A manifest's root object, empty or (with [`Options::schema_key`])
/// holding `"$schema"` first.
fn new_root(format: Format, options: &Options) -> Map<String, Value> {
    let mut root = Map::new();
    if options.schema_key
        && let Some(id) = crate::formats::schema::id(format)
    {
        root.insert(SCHEMA_KEY.into(), Value::String(id));
    }
    root
}

pub use crate::emit::SCHEMA_KEY;

/// Whether a format writes one document (to a file or standard output)
/// rather than a tree under a directory.
pub fn writes_document(format: Format) -> bool {
    matches!(format, Format::Openai | Format::Anthropic | Format::Mcp)
}

/// Whether what convert writes for `format` is an object, where a
/// `"$schema"` key has a place (an OpenAI or Anthropic document is an array).
pub fn has_object_root(format: Format) -> bool {
    !writes_document(format)
        || matches!(
            provider::json_target(format).tools_at(),
            crate::emit::ToolsAt::Member(_)
        )
}

/// What convert says of a format it reads but does not write: gen writes
/// it.
pub fn unsupported_target(to: Format) -> EmitError {
    EmitError::Unsupported(format!(
        "convert does not write {to}; `toolc gen {to}` does"
    ))
}

/// Whether convert writes `format`.
pub fn writes(format: Format) -> bool {
    !matches!(format, Format::OpenaiResponses | Format::Gemini)
}

/// Converts every tool of `toolsets` into `to`.
pub fn convert(
    toolsets: &[ToolSet],
    to: Format,
    options: &Options,
) -> Result<Converted, EmitError> {
    let mut out = Converted::default();
    out.notes
        .extend(toolsets.iter().filter_map(declares_nothing));
    let mut toolsets: Vec<ToolSet> = toolsets
        .iter()
        .filter(|s| !s.tools.is_empty())
        .cloned()
        .collect();
    for set in &mut toolsets {
        restore_original_names(set);
    }
    in_recorded_order(&mut toolsets);
    match to {
        Format::Nora | Format::Nachos => {
            let mut directories = Directories::default();
            for set in &toolsets {
                let place = Place::Directories(directories.assign_all(set));
                write_placed(vec![set], to, &place, options, &mut out)?;
            }
        }
        Format::Agentcli => agentcli::write(&toolsets, options, &mut out)?,
        Format::Agentstack => agentstack::write(&toolsets, options, &mut out)?,
        Format::Openai | Format::Anthropic | Format::Mcp => {
            provider::write(&mut toolsets, to, &mut out)?
        }
        Format::OpenaiResponses | Format::Gemini => return Err(unsupported_target(to)),
    }
    out.losses
        .sort_by(|a, b| (&a.path, &a.pointer).cmp(&(&b.path, &b.pointer)));
    out.losses.dedup();
    Ok(out)
}

/// Whether each manifest converted into `format` can be made on its own,
/// where it is read ([`convert_apart`]): the formats of a directory per
/// tool or package. agentcli's one file is made from all at once.
pub fn converts_apart(format: Format) -> bool {
    matches!(format, Format::Nora | Format::Agentstack | Format::Nachos)
}

/// Where a manifest's files go in a tree: the part of its conversion that
/// depends on the manifests converted with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// NORA, Nachos: each tool's directory, in order. An earlier manifest's
    /// tool of the same name (in any case) takes it first.
    Directories(Vec<String>),
    /// AgentStack: the package its tools join, with the tools of every
    /// other manifest of that package.
    Package(String),
}

/// One manifest converted into a tree target ([`converts_apart`]) on its
/// own, placed as if no other manifest were converted with it.
#[derive(Debug)]
pub struct TreePart {
    /// What converting it alone gave. An error stands only if the manifest
    /// keeps its place alone: converted again elsewhere, or with the other
    /// manifests of its package, it may not fail (a skeleton already in
    /// its final directory is not rendered).
    pub converted: Result<Converted, EmitError>,
    /// `None` for a manifest without tools, which writes nothing.
    pub place: Option<Place>,
    /// Its place in the order of the manifest its tool was declared in, where
    /// recorded (see [`recorded_order`]).
    pub position: Option<usize>,
}

/// Converts one manifest into `to` ([`converts_apart`]) as [`convert`]
/// would if it were the only one. Put together with the others in
/// [`recorded_order`], each part's place is [`Places::take`]n: a part that
/// gets another place, or shares its package, is converted again with
/// [`convert_placed`].
pub fn convert_apart(mut set: ToolSet, to: Format, options: &Options) -> TreePart {
    let position = recorded_position(&set);
    restore_original_names(&mut set);
    let mut out = Converted::default();
    let place = match declares_nothing(&set) {
        Some(note) => {
            out.notes.push(note);
            None
        }
        None => Some(match to {
            Format::Agentstack => Place::Package(agentstack::package_name(&set)),
            _ => Place::Directories(Directories::default().assign_all(&set)),
        }),
    };
    let written = match &place {
        Some(place) => write_placed(vec![&set], to, place, options, &mut out),
        None => Ok(()),
    };
    let converted = written.map(|()| {
        out.losses.sort_by(|a, b| a.pointer.cmp(&b.pointer));
        out.losses.dedup();
        out
    });
    TreePart {
        converted,
        place,
        position,
    }
}

/// Converts the manifests `sets` into `place` (see [`convert_apart`]): one
/// manifest whose directories an earlier one took, or every manifest of
/// one AgentStack package, in order.
pub fn convert_placed(
    mut sets: Vec<ToolSet>,
    to: Format,
    place: &Place,
    options: &Options,
) -> Result<Converted, EmitError> {
    let mut out = Converted::default();
    for set in &mut sets {
        restore_original_names(set);
    }
    write_placed(sets.iter().collect(), to, place, options, &mut out)?;
    out.losses
        .sort_by(|a, b| (&a.path, &a.pointer).cmp(&(&b.path, &b.pointer)));
    out.losses.dedup();
    Ok(out)
}

/// The writer of `to` on `sets`, at `place`.
fn write_placed(
    sets: Vec<&ToolSet>,
    to: Format,
    place: &Place,
    options: &Options,
    out: &mut Converted,
) -> Result<(), EmitError> {
    match (to, place) {
        (Format::Agentstack, Place::Package(name)) => {
            agentstack::write_group(name.clone(), sets, options, out)
        }
        (Format::Nora | Format::Nachos, Place::Directories(directories)) => {
            let [set] = sets.as_slice() else {
                return Err(EmitError::Unsupported(format!(
                    "{to} places one manifest's tools at a time"
                )));
            };
            match to {
                Format::Nora => nora::write_set(set, directories, options, out),
                _ => nachos::write_set(set, directories, options, out),
            }
        }
        _ => Err(EmitError::Unsupported(format!(
            "{to} is not written a manifest at a time"
        ))),
    }
}

/// What the manifests of one tree took, in order.
#[derive(Debug, Default)]
pub struct Places {
    directories: Directories,
}

impl Places {
    /// The place of a manifest's tools called `names`, which assumed
    /// `alone` (its [`TreePart::place`]), after the manifests taken before.
    pub fn take(&mut self, alone: &Place, names: &[String]) -> Place {
        match alone {
            Place::Package(name) => Place::Package(name.clone()),
            Place::Directories(_) => Place::Directories(
                names
                    .iter()
                    .map(|name| self.directories.assign(name))
                    .collect(),
            ),
        }
    }
}

/// One manifest converted into a one-document target (openai, anthropic,
/// mcp), as a run converts each manifest where it reads it: its tools,
/// serialized, and what the document's root gets from it. [`DocumentRoot`]
/// joins the parts into the document [`convert`] writes.
#[derive(Debug, Clone, Default)]
pub struct DocumentPart {
    pub items: JsonItems,
    /// The manifest's fields of the target's own format that belong in the
    /// document's root object (MCP), for [`DocumentRoot::place`].
    pub root_fields: Vec<Carried>,
    /// Sorted by pointer, each once.
    pub losses: Vec<Loss>,
    pub notes: Vec<Note>,
    /// Each tool's parameters the target had to rename (new, original),
    /// for the record beside the document (`carry::sidecar`).
    pub renamed: Vec<(String, Vec<(String, String)>)>,
}

/// Converts one manifest into `to`, which must write one document. The
/// set is consumed: its parameter schemas move into the document.
pub fn convert_to_document(mut set: ToolSet, to: Format) -> Result<DocumentPart, EmitError> {
    if !writes_document(to) {
        return Err(EmitError::Unsupported(format!(
            "{to} is a tree of files, not one document"
        )));
    }
    restore_original_names(&mut set);
    let mut out = Converted::default();
    let mut part = DocumentPart::default();
    let target = provider::json_target(to);
    part.renamed = set
        .tools
        .iter()
        .map(|tool| (tool.name.clone(), target.renamed_parameters(&set, tool)))
        .filter(|(_, pairs)| !pairs.is_empty())
        .collect();
    match declares_nothing(&set) {
        Some(note) => out.notes.push(note),
        None => (part.items, part.root_fields) = provider::write_set(&mut set, to, &mut out)?,
    }
    out.losses.sort_by(|a, b| a.pointer.cmp(&b.pointer));
    out.losses.dedup();
    part.losses = out.losses;
    part.notes = out.notes;
    Ok(part)
}

/// The root object of a one-document target, gathered manifest by manifest
/// in order.
#[derive(Debug, Clone)]
pub struct DocumentRoot {
    to: Format,
    members: Map<String, Value>,
}

impl DocumentRoot {
    pub fn new(to: Format) -> DocumentRoot {
        DocumentRoot {
            to,
            members: Map::new(),
        }
    }

    /// A root that starts with `"$schema"` (see [`Options::schema_key`]).
    pub fn with_schema_key(to: Format, options: &Options) -> DocumentRoot {
        DocumentRoot {
            to,
            members: new_root(to, options),
        }
    }

    /// Puts one of the [`DocumentPart::root_fields`] of the manifest at
    /// `path` into the root: the first manifest's value of a key wins, a
    /// differing later one is lost.
    pub fn place(&mut self, path: &str, field: &Carried) -> Option<Loss> {
        if field.key == "tools" {
            // The tools array is the document's own: another is lost.
            let mut tools = Map::new();
            tools.insert(field.key.clone(), Value::Null);
            return place_root_field(&mut tools, path, self.to, field);
        }
        place_root_field(&mut self.members, path, self.to, field)
    }

    /// The document holding `parts` in order.
    pub fn document(self, parts: impl IntoIterator<Item = JsonItems>) -> Result<String, EmitError> {
        Ok(self.pieces(parts)?.concat())
    }

    /// [`DocumentRoot::document`] in pieces (see [`JsonItems::pieces`]).
    pub fn pieces(
        self,
        parts: impl IntoIterator<Item = JsonItems>,
    ) -> Result<Vec<String>, EmitError> {
        let target = provider::json_target(self.to);
        let mut members: Vec<(String, Value)> = self.members.into_iter().collect();
        // The members every such document has, where no manifest gave one.
        for (key, value) in target.root_members() {
            if !members.iter().any(|(placed, _)| *placed == key) {
                members.push((key, value));
            }
        }
        JsonItems::pieces(parts, target.tools_at(), &members)
    }
}

/// Gives the parameters of every tool of `set` the names the tool was
/// declared with, where an earlier writer renamed them: each target starts
/// from the original names, and renames again only what it cannot spell.
fn restore_original_names(set: &mut ToolSet) {
    for tool in &mut set.tools {
        let names = std::mem::take(&mut tool.extra.original_names);
        if let Some(parameters) = &mut tool.parameters
            && !names.is_empty()
        {
            let pairs: Vec<(String, String)> = names.into_iter().collect();
            carry::restore_parameter_names(parameters.make_mut(), &pairs);
        }
    }
}

/// Puts manifests of one tool each back in the order their tools had in
/// the manifest they were declared in, where they recorded it (see
/// [`crate::ir::Tool::position`]): NORA's directories are read in name
/// order. A manifest that recorded none (a tool added since) comes after
/// those that did, in the order it was read.
fn in_recorded_order(toolsets: &mut [ToolSet]) {
    recorded_order(toolsets, recorded_position);
}

/// Sorts `items`, each a manifest with the [`recorded_position`]
/// `position` gives, as [`convert`] orders the manifests it writes.
pub fn recorded_order<T>(items: &mut [T], position: impl Fn(&T) -> Option<usize>) {
    if items.iter().any(|item| position(item).is_some()) {
        items.sort_by_key(|item| (position(item).is_none(), position(item)));
    }
}

/// The position a manifest of one tool recorded for it, if any.
fn recorded_position(set: &ToolSet) -> Option<usize> {
    match set.tools.as_slice() {
        [tool] => tool.extra.position,
        _ => None,
    }
}

/// Reports each parameter a writer renamed (an info with both names, at
/// the parameter in the source) and each it could not rename (an error:
/// the target would refuse the tool). `file` is where the new names are.
fn report_renames(
    out: &mut Converted,
    set: &ToolSet,
    tool: &Tool,
    renames: &crate::schema::Renames,
    file: &str,
) {
    let at = |name: &str| {
        let parameters = tool.parameters_at.as_deref().unwrap_or(&tool.origin);
        json::join(&json::join(parameters, "properties"), name)
    };
    for (new, original) in &renames.renamed {
        out.note(
            set,
            &at(original),
            Severity::Info,
            format!(
                "{file} cannot name the parameter \"{original}\" of tool \"{}\": it is \"{new}\" there, recorded in \"x-toolc\" so that running the tool and converting back give it \"{original}\" again",
                tool.name
            ),
        );
    }
    for name in &renames.refused {
        out.note(
            set,
            &at(name),
            Severity::Error,
            format!(
                "{file} can name the parameter \"{name}\" of tool \"{}\" in no way its format takes",
                tool.name
            ),
        );
    }
}

/// The `parameter_names` record of `renames` (see
/// [`carry::PARAMETER_NAMES`]): new name → original name.
fn names_record(renames: &crate::schema::Renames) -> Value {
    Value::Object(
        renames
            .renamed
            .iter()
            .map(|(new, original)| (new.clone(), Value::String(original.clone())))
            .collect(),
    )
}

/// The note about a tool set without tools, which converts to nothing.
fn declares_nothing(set: &ToolSet) -> Option<Note> {
    set.tools.is_empty().then(|| Note {
        path: set.path.clone(),
        pointer: String::new(),
        severity: Severity::Info,
        message: format!(
            "declares no tool ({} manifest); nothing to convert",
            set.format
        ),
    })
}

impl Converted {
    fn note(&mut self, set: &ToolSet, pointer: &str, severity: Severity, message: String) {
        self.notes.push(Note {
            path: set.path.clone(),
            pointer: pointer.to_string(),
            severity,
            message,
        });
    }

    /// Reports `field` as not expressible in `to`: kept in `"x-toolc"`, or
    /// dropped. A field an `"x-toolc"` object brought and another keeps is
    /// not lost again.
    fn lose(&mut self, set: &ToolSet, field: &Carried, to: Format, kept: bool) {
        if kept && field.format != set.format {
            return;
        }
        let what = if kept {
            "kept in \"x-toolc\" so that converting back restores it".to_string()
        } else {
            format!("dropped ({to} tool JSON has no place for it)")
        };
        let nested = carry::nested_keys(field.format)
            .iter()
            .any(|(key, _)| *key == field.key);
        match (&field.value, nested) {
            (Value::Object(members), true) => {
                for key in members.keys() {
                    self.losses.push(Loss {
                        path: set.path.clone(),
                        pointer: json::join(&field.at, key),
                        message: format!(
                            "{} field \"{}.{key}\" cannot be expressed in {to}; {what}",
                            field.format, field.key
                        ),
                    });
                }
            }
            _ => self.losses.push(Loss {
                path: set.path.clone(),
                pointer: field.at.clone(),
                message: format!(
                    "{} field \"{}\" cannot be expressed in {to}; {what}",
                    field.format, field.key
                ),
            }),
        }
    }
}

/// Writes a tool's carried fields into `native`, the object the writer
/// built for target `to`: those of `to` itself override the writer's
/// defaults (never the IR's own keys); the others go into the returned
/// `"x-toolc"` members (`{"<format>": {key: value}}`) when `tolerant`, or
/// are lost.
fn place_tool(
    out: &mut Converted,
    set: &ToolSet,
    tool: &Tool,
    to: Format,
    native: &mut Map<String, Value>,
    tolerant: bool,
) -> Map<String, Value> {
    let mut x_toolc = Map::new();
    let mut fields = tool.extra.carried.clone();
    fields.extend(untransferred_title(set, tool, to));
    for field in &fields {
        if field.format == to {
            restore(native, to, field);
            continue;
        }
        if is_strict_flag(field, to) {
            continue;
        }
        out.lose(set, field, to, tolerant);
        if tolerant {
            insert_field(&mut x_toolc, field);
        }
    }
    x_toolc
}

/// Whether `field` is only the `strict` flag of a tool, which OpenAI
/// (`function.strict`) and Anthropic (`strict`) both have: the emitters
/// write it from the tool's extensions, so it is not lost between them.
fn is_strict_flag(field: &Carried, to: Format) -> bool {
    let only_strict = |value: &Value| {
        value
            .as_object()
            .is_some_and(|o| o.len() == 1 && o.get("strict").is_some_and(Value::is_boolean))
    };
    match (field.format, to) {
        (Format::Openai, Format::Anthropic) => field.key == "function" && only_strict(&field.value),
        (Format::Anthropic, Format::Openai) => field.key == "strict" && field.value.is_boolean(),
        _ => false,
    }
}

/// The title of a tool, as the field of its source format, when the target
/// has no place for a title.
fn untransferred_title(set: &ToolSet, tool: &Tool, to: Format) -> Option<Carried> {
    if matches!(to, Format::Mcp | Format::Nachos) {
        return None;
    }
    let title = tool.title.clone().filter(|t| *t != tool.name)?;
    let (key, at) = match set.format {
        Format::Mcp => ("title", json::join(&tool.origin, "title")),
        Format::Nachos => ("name", "/name".to_string()),
        _ => return None,
    };
    Some(Carried {
        format: set.format,
        key: key.to_string(),
        value: Value::String(title),
        at,
    })
}

/// Puts a carried field of the target's own format into the object being
/// written.
fn restore(native: &mut Map<String, Value>, to: Format, field: &Carried) {
    let portable = carry::portable_keys(to);
    if portable.contains(&field.key.as_str()) && native.contains_key(&field.key) {
        return;
    }
    let inner_portable = carry::nested_keys(to)
        .iter()
        .find(|(key, _)| *key == field.key)
        .map(|(_, inner)| *inner);
    if native.get(&field.key).is_some_and(Value::is_object) && !field.value.is_object() {
        // A malformed copy (say, a hand-edited "x-toolc") never replaces
        // the object the writer built from the IR.
        return;
    }
    match (native.get_mut(&field.key), &field.value, inner_portable) {
        (Some(Value::Object(existing)), Value::Object(members), Some(inner)) => {
            for (key, value) in members {
                if !inner.contains(&key.as_str()) {
                    existing.insert(key.clone(), value.clone());
                }
            }
        }
        _ => {
            native.insert(field.key.clone(), field.value.clone());
        }
    }
}

/// Adds `field` to `{"<format>": {key: value}}`.
pub(super) fn insert_field(x: &mut Map<String, Value>, field: &Carried) {
    let entry = x
        .entry(field.format.name().to_string())
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(fields) = entry {
        fields
            .entry(field.key.clone())
            .or_insert(field.value.clone());
    }
}

/// Places a tool set's own (package- or file-level) fields: those of `to`
/// into `root` when the target has one (the first set's value of a key
/// wins; a differing later one is lost), the others into the returned
/// `{"<format>": {...}}` for the tools' `"x-toolc"` `set` member when
/// `tolerant`, or lost. Each field is reported once, not per tool.
fn place_set(
    out: &mut Converted,
    set: &ToolSet,
    to: Format,
    root: Option<&mut Map<String, Value>>,
    tolerant: bool,
) -> Map<String, Value> {
    let (elsewhere, own) = split_set(out, set, to, root.is_some(), tolerant);
    if let Some(root) = root {
        for field in &own {
            out.losses
                .extend(place_root_field(root, &set.path, to, field));
        }
    }
    elsewhere
}

/// A tool set's own fields: those of `to` returned apart when the target
/// has a root object to hold them (`has_root`), the others placed as
/// [`place_set`] says.
fn split_set(
    out: &mut Converted,
    set: &ToolSet,
    to: Format,
    has_root: bool,
    tolerant: bool,
) -> (Map<String, Value>, Vec<Carried>) {
    let mut elsewhere = Map::new();
    let mut own = Vec::new();
    for field in &set.carried {
        if field.format == to && has_root {
            own.push(field.clone());
            continue;
        }
        out.lose(set, field, to, tolerant);
        if tolerant {
            insert_field(&mut elsewhere, field);
        }
    }
    (elsewhere, own)
}

/// Puts a field of the target's own format into the output's root object:
/// the first set's value of a key wins, a differing later one is a loss.
fn place_root_field(
    root: &mut Map<String, Value>,
    path: &str,
    to: Format,
    field: &Carried,
) -> Option<Loss> {
    match root.get(&field.key) {
        None => {
            root.insert(field.key.clone(), field.value.clone());
            None
        }
        Some(existing) if *existing == field.value => None,
        Some(_) => Some(Loss {
            path: path.to_string(),
            pointer: field.at.clone(),
            message: format!(
                "{to} field \"{}\" differs from the one an earlier manifest gave the same output; dropped",
                field.key
            ),
        }),
    }
}

/// The `"x-toolc"` object of a tool: its own carried members, the set's
/// (under `set`) and extra members a writer adds; `None` when empty.
fn x_toolc_object(
    mut x: Map<String, Value>,
    set_fields: &Map<String, Value>,
    extra: Vec<(&str, Value)>,
) -> Option<Value> {
    if !set_fields.is_empty() {
        x.insert(SET.to_string(), Value::Object(set_fields.clone()));
    }
    for (key, value) in extra {
        x.insert(key.to_string(), value);
    }
    (!x.is_empty()).then_some(Value::Object(x))
}

/// The [`carry::ASSUMED`] member of an `"x-toolc"`: each of `made_up` (a
/// field a writer of `to` filled in because the format requires one, as a
/// JSON Pointer into the object written, with the value) that the source
/// did not give itself among `declared` (fields of `to` it carries).
fn assumed(
    declared: &[Carried],
    to: Format,
    made_up: Vec<(&str, Value)>,
) -> Option<(&'static str, Value)> {
    let record: Map<String, Value> = made_up
        .into_iter()
        .filter(|(at, _)| !declares(declared, to, at))
        .map(|(at, value)| (at.to_string(), value))
        .collect();
    (!record.is_empty()).then(|| (carry::ASSUMED, Value::Object(record)))
}

/// Whether one of `carried` is the field of `to` at `at`.
fn declares(carried: &[Carried], to: Format, at: &str) -> bool {
    let mut tokens = json::pointer_tokens(at);
    let Some(key) = tokens.next() else {
        return false;
    };
    let inner = tokens.fold(String::new(), |pointer, token| json::join(&pointer, token));
    carried
        .iter()
        .any(|c| c.format == to && c.key == key && json::value_at(&c.value, &inner).is_some())
}

/// What a writer of `to` records in a tool's `"x-toolc"` for converting
/// back to the manifest the tool came from: its place among that
/// manifest's tools (where it has several, or was written in a layout),
/// since one tool a directory (NORA, Nachos) loses the order; and how it
/// was written in a format that keeps its file's text (agentcli), for a
/// writer of that format to give the text back.
fn origin_records(
    set: &ToolSet,
    tool: &Tool,
    index: usize,
    to: Format,
) -> Vec<(&'static str, Value)> {
    let mut records = Vec::new();
    let recorded = set.tools.len() > 1 || tool.extra.layout.is_some();
    if let Some(position) = tool.extra.position.or(recorded.then_some(index)) {
        records.push((carry::POSITION, Value::from(position)));
    }
    if let Some(layout) = tool.extra.layout.as_ref().filter(|l| l.format != to) {
        records.push((carry::LAYOUT, carry::layout_record(layout)));
    }
    records
}

/// Adds `"x-toolc"` to an object (last, so the format's own keys come
/// first).
fn attach_x_toolc(object: &mut Map<String, Value>, x: Option<Value>) {
    if let Some(x) = x {
        object.insert(X_TOOLC.to_string(), x);
    }
}

/// Directory names for tools or packages: the name where it is a safe path
/// component, otherwise a cleaned-up form; repeats get `-2`, `-3`, ...
#[derive(Debug, Default)]
struct Directories {
    taken: BTreeSet<String>,
}

impl Directories {
    /// A directory for each tool of `set`, in order.
    fn assign_all(&mut self, set: &ToolSet) -> Vec<String> {
        set.tools
            .iter()
            .map(|tool| self.assign(&tool.name))
            .collect()
    }

    fn assign(&mut self, name: &str) -> String {
        let mut base: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        base = base.trim_start_matches('.').to_string();
        if base.is_empty() {
            base = "tool".to_string();
        }
        let mut candidate = base.clone();
        let mut n = 2;
        while self.taken.contains(&candidate.to_lowercase()) {
            candidate = format!("{base}-{n}");
            n += 1;
        }
        self.taken.insert(candidate.to_lowercase());
        candidate
    }
}

/// Pretty JSON with a final newline.
fn document(value: &Value) -> Result<String, EmitError> {
    crate::emit::json_document(value)
}

impl Converted {
    /// Checks a manifest a writer built against the schema of its format,
    /// as `toolc lint` would: each mismatch is an error at `pointer` of
    /// `set`'s manifest (what it was written from), and the conversion
    /// writes nothing. The writers fill in what they can; this is what
    /// keeps a gap they do not know of from reaching a file.
    fn check_structure(
        &mut self,
        to: Format,
        value: &Value,
        file: &Path,
        set: &ToolSet,
        pointer: &str,
    ) {
        let violations = crate::formats::schema::violations(to, value)
            .unwrap_or_else(|problem| vec![(String::new(), problem)]);
        for (at, message) in violations {
            let at = if at.is_empty() {
                "the root".to_string()
            } else {
                at
            };
            self.note(
                set,
                pointer,
                Severity::Error,
                format!(
                    "the {} written from here would not be a valid {to} manifest ({at}: {message})",
                    file.display()
                ),
            );
        }
    }
}

/// The parameters of a tool as the target should write them: the IR's, or
/// an empty object schema with a note when the source did not say.
fn parameters_or_empty(out: &mut Converted, set: &ToolSet, tool: &Tool, to: Format) -> Value {
    given_or_empty(out, set, tool, tool.parameters.as_deref().cloned(), to)
}

/// [`parameters_or_empty`] for parameters already taken out of `tool`.
fn given_or_empty(
    out: &mut Converted,
    set: &ToolSet,
    tool: &Tool,
    parameters: Option<Value>,
    to: Format,
) -> Value {
    match parameters {
        Some(parameters) => parameters,
        None => {
            out.note(
                set,
                &tool.name_at,
                Severity::Warning,
                format!(
                    "the parameters of tool \"{}\" are not known (its {} code was not found or not readable); {to} gets an empty object schema",
                    tool.name, set.format
                ),
            );
            crate::formats::no_parameters()
        }
    }
}

/// The contents of the file called `name` among `files`.
fn file_named(files: &[crate::emit::GeneratedFile], name: &str) -> Result<String, EmitError> {
    files
        .iter()
        .find(|f| f.path.file_name().is_some_and(|n| n == name))
        .map(|f| f.contents.clone())
        .ok_or_else(|| EmitError::Unsupported(format!("the Python skeleton has no {name}")))
}

/// Whether a file at `relative` exists under the output directory.
fn exists_in_output(options: &Options, relative: &Path) -> bool {
    options
        .out_dir
        .is_some_and(|dir| std::fs::symlink_metadata(dir.join(relative)).is_ok())
}
