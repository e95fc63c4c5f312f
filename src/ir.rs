//! The intermediate representation every format lowers into.
//!
//! Formats differ and the IR does not pretend they don't: it holds what any
//! of them can say about a tool, marks what a format does not say (`None`),
//! and keeps fields it does not model in `extensions` so a round trip can
//! restore them. Every tool remembers the JSON Pointers it came from so that
//! checks on the IR can point back into the source text.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use crate::json::Document;

/// A manifest format toolc reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Nora,
    Agentcli,
    Agentstack,
    Nachos,
    Openai,
    /// OpenAI's Responses API function tools: `{"type": "function", "name",
    /// "parameters", "strict"}`, without Chat Completions' `function`
    /// wrapper.
    #[serde(rename = "openai-responses")]
    OpenaiResponses,
    Anthropic,
    Mcp,
    /// Gemini function declarations (`functionDeclarations`).
    Gemini,
}

impl Format {
    pub const ALL: [Format; 9] = [
        Format::Nora,
        Format::Agentcli,
        Format::Agentstack,
        Format::Nachos,
        Format::Openai,
        Format::OpenaiResponses,
        Format::Anthropic,
        Format::Mcp,
        Format::Gemini,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Format::Nora => "nora",
            Format::Agentcli => "agentcli",
            Format::Agentstack => "agentstack",
            Format::Nachos => "nachos",
            Format::Openai => "openai",
            Format::OpenaiResponses => "openai-responses",
            Format::Anthropic => "anthropic",
            Format::Mcp => "mcp",
            Format::Gemini => "gemini",
        }
    }

    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What one manifest declares.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolSet {
    pub path: String,
    pub format: Format,
    /// Package data (AgentStack, Nachos); `None` for formats without it.
    pub package: Option<Package>,
    pub tools: Vec<Tool>,
    /// Package- or file-level fields that only some formats can express
    /// (see [`Carried`]).
    pub carried: Vec<Carried>,
}

/// A field of one format's manifest, kept as written so that converting
/// back into that format restores it.
///
/// Every format has fields no other format can express (agentcli's
/// `command`, a Nachos manifest's `capabilities`, AgentStack's package
/// `env`, unknown extension keys). A full lowering keeps them here, keyed
/// by the format they belong to; a converter writes those of its own
/// format natively, keeps the others in the output's `"x-toolc"` object
/// where the format tolerates extra keys, and reports what it drops.
/// Reading a manifest with an `"x-toolc"` object brings them back.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Carried {
    /// The format the field belongs to.
    pub format: Format,
    /// The field's key in that format's tool object (or package object,
    /// for a tool set's fields).
    pub key: String,
    pub value: Value,
    /// JSON Pointer of the field in the manifest it was read from: the
    /// field itself, or its copy inside an `"x-toolc"` object.
    pub at: String,
}

/// Package-level data of AgentStack and Nachos manifests.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Package {
    pub name: Option<String>,
    pub version: Option<String>,
    /// Nachos `type`: `tool`, `channel` or `core`.
    pub kind: Option<String>,
    pub category: Option<String>,
    pub description: Option<String>,
    pub url: Option<String>,
    pub cta: Option<String>,
    /// Environment variables and their defaults (`null` when none).
    pub env: Vec<EnvVar>,
    pub dependencies: Vec<String>,
    pub post_install: Option<String>,
    pub post_remove: Option<String>,
    /// Nachos `capabilities.secrets`.
    pub secrets: Vec<String>,
    pub extensions: BTreeMap<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EnvVar {
    pub name: String,
    pub default: Value,
}

/// One tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tool {
    /// Empty when the manifest gives no usable name (a rule reports it).
    pub name: String,
    /// Where the name is, or would be.
    pub name_at: String,
    /// True when the name is an object key (AgentStack's permissions map)
    /// rather than a string value.
    pub name_is_key: bool,
    /// Display name (Nachos `name`, MCP `title`).
    pub title: Option<String>,
    pub description: Option<String>,
    /// Standard JSON Schema of the arguments, root `{"type": "object"}`;
    /// `None` when neither the manifest nor its code says (an AgentStack
    /// function or a Nachos class toolc cannot find or read). Shared: the
    /// empty schema of every tool that declares none is one value
    /// ([`crate::formats::no_parameters_shared`]), not one per tool (a
    /// manifest can declare hundreds of thousands of tools), and a schema
    /// read from the manifest is the document's own value, not a copy;
    /// change one with [`SharedValue::make_mut`].
    pub parameters: Option<SharedValue>,
    /// Where the parameters are in the source, in the format's own dialect.
    pub parameters_at: Option<String>,
    pub runtime: Runtime,
    /// Shared until changed: most tools declare no permissions, and all of
    /// those hold one default value (152 bytes a tool less, in a manifest
    /// of hundreds of thousands of tools).
    pub permissions: CopyOnWrite<Permissions>,
    /// Pointer of the tool's declaration.
    pub origin: String,
    /// What few tools have: fields kept for round trips, renamed
    /// parameters, a place or a layout. Shared until changed, like
    /// [`Tool::permissions`]: every tool without any holds one value, and
    /// a tool is 112 bytes smaller for it (a manifest can declare hundreds
    /// of thousands of tools).
    #[serde(flatten)]
    pub extra: CopyOnWrite<Extra>,
}

/// The fields of a [`Tool`] that few tools have (see [`Tool::extra`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Extra {
    /// Fields the IR does not model, kept for round trips (read in key
    /// order; a field a reader adds, such as a default `strict`, comes last).
    pub extensions: serde_json::Map<String, Value>,
    /// Format-specific fields of the tool (see [`Carried`]).
    pub carried: Vec<Carried>,
    /// Top-level parameters this manifest names otherwise than the tool
    /// was declared: their name here, and the original name, which the
    /// tool's program reads. A writer renamed them because its format could
    /// not spell the original (`max-bytes` in NORA is `max_bytes`) and
    /// recorded it; see [`Tool::original_name`].
    pub original_names: BTreeMap<String, String>,
    /// Top-level parameters the tool's code takes under another name than
    /// this manifest gives them: their name here (the wire name), and the
    /// code's (an AgentStack function's keyword `max_bytes` for
    /// `max-bytes`). Filled by the front end from what the code's writer
    /// recorded; the runner passes the arguments by the code's names (see
    /// [`Tool::arguments_for_code`]). Where [`Tool::original_names`] gives
    /// the names a program was declared with, this gives the names a
    /// function of this manifest's own package spells.
    pub code_names: BTreeMap<String, String>,
    /// The tool's place among the tools of the manifest it was declared
    /// in, where a writer spread them over one file each (NORA) and
    /// recorded it: converting back puts them in that order again.
    pub position: Option<usize>,
    /// How the tool was written in a manifest of a format that keeps its
    /// file's text (agentcli), for giving that text back (see [`Layout`]).
    #[serde(skip)]
    pub layout: Option<Box<Layout>>,
}

/// A JSON value the IR shares rather than copies: a value of its own,
/// shared by every holder until one changes it, or the part of a parsed
/// manifest it was read from, which keeps that document alive (a
/// manifest's parameter schemas are most of its size, and lint, gen and
/// convert need the document and the IR at once). Read it through
/// [`std::ops::Deref`]; change it with [`SharedValue::make_mut`], which
/// first copies a value that is shared or a part of a document.
#[derive(Clone)]
pub struct SharedValue {
    /// The value when it is no part of a document.
    own: Arc<Value>,
    /// The part of a document it is, if so (`own` is then a placeholder).
    part: Option<yoke::Yoke<&'static Value, Arc<Document>>>,
}

impl SharedValue {
    pub fn new(value: Value) -> Self {
        SharedValue::from(Arc::new(value))
    }

    /// The value at `pointer` in `document`, shared with it; `None` when
    /// the pointer leads nowhere.
    pub fn part_of(document: &Arc<Document>, pointer: &str) -> Option<Self> {
        static PLACEHOLDER: std::sync::LazyLock<Arc<Value>> =
            std::sync::LazyLock::new(|| Arc::new(Value::Null));
        let part = yoke::Yoke::try_attach_to_cart(Arc::clone(document), |document: &Document| {
            crate::json::value_at(&document.value, pointer).ok_or(())
        })
        .ok()?;
        Some(SharedValue {
            own: Arc::clone(&PLACEHOLDER),
            part: Some(part),
        })
    }

    /// The value, to change: copied first when others share it.
    pub fn make_mut(&mut self) -> &mut Value {
        if let Some(part) = self.part.take() {
            self.own = Arc::new((*part.get()).clone());
        }
        Arc::make_mut(&mut self.own)
    }

    /// The value itself: moved out when nothing else holds it, else copied.
    pub fn into_value(self) -> Value {
        match self.part {
            Some(part) => (*part.get()).clone(),
            None => Arc::unwrap_or_clone(self.own),
        }
    }
}

impl From<Arc<Value>> for SharedValue {
    fn from(own: Arc<Value>) -> Self {
        SharedValue { own, part: None }
    }
}

impl std::ops::Deref for SharedValue {
    type Target = Value;

    fn deref(&self) -> &Value {
        match &self.part {
            Some(part) => part.get(),
            None => &self.own,
        }
    }
}

impl PartialEq for SharedValue {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for SharedValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

impl Serialize for SharedValue {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(serializer)
    }
}

/// The text of one tool's entry in a manifest that holds several (an
/// agentcli `tools.json`), exactly as written, and the file's text around
/// the entries: what a writer of that format needs to give the file back
/// byte for byte while the tools are unchanged. The agentcli reader takes
/// it from the file (sharing the file's text, not copying it); a NORA tool
/// converted from agentcli keeps it in its `"x-toolc"`
/// (`formats::carry::LAYOUT`).
#[derive(Debug, Clone)]
pub struct Layout {
    /// The format of the file the text is from.
    pub format: Format,
    /// The text the ranges below are of.
    text: std::sync::Arc<str>,
    /// The file's text before its first entry.
    head: std::ops::Range<usize>,
    /// The text between the previous entry and this one; `None` for the
    /// first entry.
    before: Option<std::ops::Range<usize>>,
    /// The entry itself.
    entry: std::ops::Range<usize>,
    /// The file's text after its last entry.
    tail: std::ops::Range<usize>,
}

/// The pieces of a [`Layout`], as text or as ranges of one text.
#[derive(Debug, Clone)]
pub struct LayoutPieces<T> {
    pub head: T,
    pub before: Option<T>,
    pub entry: T,
    pub tail: T,
}

impl Layout {
    /// The layout whose pieces are these ranges of `text`; `None` when one
    /// is not a range of it.
    pub fn of_text(
        format: Format,
        text: std::sync::Arc<str>,
        pieces: LayoutPieces<std::ops::Range<usize>>,
    ) -> Option<Layout> {
        let outside = [&pieces.head, &pieces.entry, &pieces.tail]
            .into_iter()
            .chain(pieces.before.as_ref())
            .any(|range| text.get(range.clone()).is_none());
        if outside {
            return None;
        }
        Some(Layout {
            format,
            text,
            head: pieces.head,
            before: pieces.before,
            entry: pieces.entry,
            tail: pieces.tail,
        })
    }

    /// The layout of these pieces of text.
    pub fn of_pieces(format: Format, pieces: LayoutPieces<&str>) -> Layout {
        let mut text = String::new();
        let mut take = |piece: &str| {
            let start = text.len();
            text.push_str(piece);
            start..text.len()
        };
        let head = take(pieces.head);
        let before = pieces.before.map(&mut take);
        let entry = take(pieces.entry);
        let tail = take(pieces.tail);
        Layout {
            format,
            text: std::sync::Arc::from(text),
            head,
            before,
            entry,
            tail,
        }
    }

    fn piece(&self, range: &std::ops::Range<usize>) -> &str {
        self.text.get(range.clone()).unwrap_or_default()
    }

    /// The file's text before its first entry.
    pub fn head(&self) -> &str {
        self.piece(&self.head)
    }

    /// The text between the previous entry and this one; `None` for the
    /// file's first entry.
    pub fn before(&self) -> Option<&str> {
        self.before.as_ref().map(|range| self.piece(range))
    }

    /// The entry's text.
    pub fn entry(&self) -> &str {
        self.piece(&self.entry)
    }

    /// The file's text after its last entry.
    pub fn tail(&self) -> &str {
        self.piece(&self.tail)
    }
}

impl PartialEq for Layout {
    fn eq(&self, other: &Layout) -> bool {
        self.format == other.format
            && self.head() == other.head()
            && self.before() == other.before()
            && self.entry() == other.entry()
            && self.tail() == other.tail()
    }
}

/// How a tool is executed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Runtime {
    /// A program run with an argv, JSON on stdin and stdout (agentcli).
    Command {
        argv: Vec<String>,
        timeout_sec: Option<u64>,
        env_passthrough: Vec<String>,
    },
    /// A Python file exposing `function(params)` (NORA).
    PythonScript {
        entrypoint: String,
        function: String,
    },
    /// A function of a Python package (AgentStack).
    PythonFunction { module: String, function: String },
    /// A service answering on a NATS subject (Nachos).
    NatsService { subject: String },
    /// The manifest does not say (provider tool JSON).
    Unspecified,
}

/// What a tool may do.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Permissions {
    /// Nachos security tier, 0 (safe) to 4 (dangerous).
    pub security_tier: Option<i64>,
    /// AgentStack actions: `read`, `write`, `execute`, `delete` (others
    /// kept as written; the `unknown-action` rule reports them).
    pub actions: Option<Vec<Action>>,
    /// The actions are still the ones a converter made up for a tool that
    /// declared none (AgentStack needs some): the runner keeps them (they
    /// restrict), but they say nothing of the tool's effects (no MCP
    /// read-only hint from them).
    pub actions_assumed: bool,
    pub allowed_dirs: Option<Vec<String>>,
    pub allow_http: Option<bool>,
    /// Nachos `capabilities.network.egress`; `Some([])` means no network.
    pub network_egress: Option<Vec<String>>,
    /// Nachos `capabilities.resources.memory` in bytes (`512Mi` is
    /// 536870912); `None` when absent or not a size toolc can apply (the
    /// `invalid-memory-limit` rule reports it).
    pub memory: Option<u64>,
    pub cpus: Option<f64>,
    /// Other permission keys (e.g. AgentStack `allowed_extensions`).
    pub extra: BTreeMap<String, Value>,
}

/// A value shared between tools until one of them changes it: reading goes
/// through [`std::ops::Deref`], and writing through
/// [`std::ops::DerefMut`] first copies a value that others share.
#[derive(Debug, Clone, PartialEq)]
pub struct CopyOnWrite<T: Clone>(Arc<T>);

impl<T: Clone> CopyOnWrite<T> {
    pub fn new(value: T) -> Self {
        CopyOnWrite(Arc::new(value))
    }
}

impl<T: Clone + Default + PartialEq> CopyOnWrite<T>
where
    CopyOnWrite<T>: Default,
{
    /// Shares the default value again if this one has become equal to it
    /// (writing an empty field makes a copy of its own).
    pub fn share_if_default(&mut self) {
        if Arc::strong_count(&self.0) == 1 && *self.0 == T::default() {
            *self = CopyOnWrite::default();
        }
    }
}

impl<T: Clone> From<T> for CopyOnWrite<T> {
    fn from(value: T) -> Self {
        CopyOnWrite::new(value)
    }
}

impl<T: Clone> std::ops::Deref for CopyOnWrite<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Clone> std::ops::DerefMut for CopyOnWrite<T> {
    fn deref_mut(&mut self) -> &mut T {
        Arc::make_mut(&mut self.0)
    }
}

impl<T: Clone + Serialize> Serialize for CopyOnWrite<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.as_ref().serialize(serializer)
    }
}

/// The default permissions (none declared), one value for every tool.
impl Default for CopyOnWrite<Permissions> {
    fn default() -> Self {
        static NONE: std::sync::LazyLock<Arc<Permissions>> =
            std::sync::LazyLock::new(|| Arc::new(Permissions::default()));
        CopyOnWrite(Arc::clone(&NONE))
    }
}

/// No extra fields, one value for every tool without any.
impl Default for CopyOnWrite<Extra> {
    fn default() -> Self {
        static NONE: std::sync::LazyLock<Arc<Extra>> =
            std::sync::LazyLock::new(|| Arc::new(Extra::default()));
        CopyOnWrite(Arc::clone(&NONE))
    }
}

/// An AgentStack permission action: the one list of them, which the
/// AgentStack reader, lint's action rules, the writers (emit, convert,
/// MCP hints) and the runner's permission check all use.
///
/// AgentStack defines them in its `Action` enum (`read`, `write`,
/// `execute`, and `delete`, which its documentation leaves out but its
/// permissions work defines and its own tools use) and reads
/// `config.json` through a pydantic model that takes exactly those
/// values: `"Read"` or `" read"` fails to load in AgentStack, so toolc
/// reads them as [`Action::Other`], never as `read`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Action {
    Read,
    Write,
    Execute,
    Delete,
    /// An action AgentStack does not define, exactly as written.
    Other(String),
}

impl Action {
    /// Every action AgentStack defines, in the order toolc lists them.
    pub const DEFINED: [Action; 4] = [Action::Read, Action::Write, Action::Execute, Action::Delete];

    /// How `config.json` spells an action AgentStack defines; `None` for
    /// [`Action::Other`].
    pub fn name(&self) -> Option<&'static str> {
        match self {
            Action::Read => Some("read"),
            Action::Write => Some("write"),
            Action::Execute => Some("execute"),
            Action::Delete => Some("delete"),
            Action::Other(_) => None,
        }
    }

    /// The names of the actions AgentStack defines, in [`Action::DEFINED`]
    /// order.
    pub fn defined_names() -> impl Iterator<Item = &'static str> {
        Action::DEFINED
            .into_iter()
            .filter_map(|action| action.name())
    }

    /// The action spelled `text`, exactly as AgentStack compares it:
    /// `"Read"` is not `read` but [`Action::Other`].
    pub fn parse(text: &str) -> Action {
        Action::DEFINED
            .into_iter()
            .find(|action| action.name() == Some(text))
            .unwrap_or_else(|| Action::Other(text.to_string()))
    }

    /// Whether AgentStack defines this action.
    pub fn is_defined(&self) -> bool {
        self.name().is_some()
    }

    /// The action as a manifest spells it.
    pub fn as_str(&self) -> &str {
        match self {
            Action::Other(text) => text,
            defined => defined.name().unwrap_or_default(),
        }
    }
}

impl std::fmt::Display for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Compares the spelling: `action == "read"`.
impl PartialEq<str> for Action {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl From<&str> for Action {
    fn from(text: &str) -> Action {
        Action::parse(text)
    }
}

impl Serialize for Action {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl Tool {
    /// The function an AgentStack tool runs (its key in config.json), which
    /// is its name unless an `"x-toolc"` object restored a name Python
    /// cannot spell; for other tools, the name.
    pub fn function_name(&self) -> &str {
        match &self.runtime {
            Runtime::PythonFunction { function, .. } => function,
            _ => &self.name,
        }
    }

    /// A tool with only its name and where it came from.
    pub fn new(name: String, name_at: String, origin: String) -> Self {
        Tool {
            name,
            name_at,
            name_is_key: false,
            title: None,
            description: None,
            parameters: None,
            parameters_at: None,
            runtime: Runtime::Unspecified,
            permissions: CopyOnWrite::default(),
            origin,
            extra: CopyOnWrite::default(),
        }
    }

    /// The name the tool was declared with for its top-level parameter
    /// `property` (as this manifest names it): what its program reads,
    /// and what converting back restores. The same name unless a writer
    /// renamed it.
    pub fn original_name<'a>(&'a self, property: &'a str) -> &'a str {
        self.extra
            .original_names
            .get(property)
            .map_or(property, String::as_str)
    }

    /// `arguments` (an object keyed as this manifest names the parameters)
    /// keyed as the tool's code names them (see [`Tool::code_names`]): what
    /// a Python function is called with, by keyword.
    pub fn arguments_for_code<'a>(&self, arguments: &'a Value) -> Cow<'a, Value> {
        let Value::Object(members) = arguments else {
            return Cow::Borrowed(arguments);
        };
        if self.extra.code_names.is_empty() {
            return Cow::Borrowed(arguments);
        }
        let renamed = members
            .iter()
            .map(|(key, value)| {
                let code = self.extra.code_names.get(key).unwrap_or(key);
                (code.clone(), value.clone())
            })
            .collect();
        Cow::Owned(Value::Object(renamed))
    }

    /// `arguments` (an object keyed as this manifest names the parameters)
    /// keyed as the tool was declared: what the tool's program receives.
    /// Members of objects inside them that a writer renamed (recorded by
    /// their pointer in the parameters) get their names back too.
    pub fn arguments_as_declared<'a>(&self, arguments: &'a Value) -> Cow<'a, Value> {
        let Value::Object(members) = arguments else {
            return Cow::Borrowed(arguments);
        };
        if self.extra.original_names.is_empty() {
            return Cow::Borrowed(arguments);
        }
        let mut nested: Vec<(&String, &String)> = self
            .extra
            .original_names
            .iter()
            .filter(|(at, _)| at.starts_with('/'))
            .collect();
        let mut declared: serde_json::Map<String, Value> = members
            .iter()
            .map(|(key, value)| (self.original_name(key).to_string(), value.clone()))
            .collect();
        // The deepest first: a record inside a renamed member names it by
        // its new name, which the top-level pass above already undid, so
        // nested paths are read with the top-level name given back.
        nested.sort_by_key(|(at, _)| std::cmp::Reverse(at.matches('/').count()));
        for (at, original) in nested {
            let Some(path) = instance_path(at) else {
                continue;
            };
            let path = match path.split_first() {
                Some((Step::Member(first), rest)) => {
                    let mut path = vec![Step::Member(self.original_name(first).to_string())];
                    path.extend(rest.iter().cloned());
                    path
                }
                _ => path,
            };
            rename_member(&mut declared, &path, original);
        }
        Cow::Owned(Value::Object(declared))
    }
}

/// One step from a value to a value inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    /// The member of an object with this name.
    Member(String),
    /// Every element of an array.
    Each,
}

/// Where, in an argument value, the property a schema pointer names is:
/// `/properties/headers/items/properties/x_trace` is the member `x_trace`
/// of every element of the member `headers`. A union's branch is the
/// value itself. `None` for a pointer that does not end at a property or
/// passes through anything else.
fn instance_path(at: &str) -> Option<Vec<Step>> {
    let mut tokens = crate::json::pointer_tokens(at);
    let mut path = Vec::new();
    while let Some(token) = tokens.next() {
        match token.as_str() {
            "properties" => path.push(Step::Member(tokens.next()?)),
            "items" => path.push(Step::Each),
            "anyOf" | "oneOf" | "allOf" => {
                tokens.next()?;
            }
            _ => return None,
        }
    }
    matches!(path.last(), Some(Step::Member(_))).then_some(path)
}

/// Renames, in `object`, the member at the end of `path` to `original`
/// (unless that name is taken there), following the path through objects
/// and every element of arrays; a value that is not there is left alone.
fn rename_member(object: &mut serde_json::Map<String, Value>, path: &[Step], original: &str) {
    match path {
        [Step::Member(name)] => {
            if object.contains_key(original) {
                return;
            }
            if !object.contains_key(name.as_str()) {
                return;
            }
            *object = std::mem::take(object)
                .into_iter()
                .map(|(key, value)| match key == *name {
                    true => (original.to_string(), value),
                    false => (key, value),
                })
                .collect();
        }
        [Step::Member(name), rest @ ..] => {
            if let Some(value) = object.get_mut(name.as_str()) {
                rename_in(value, rest, original);
            }
        }
        _ => {}
    }
}

/// [`rename_member`] from any value.
fn rename_in(value: &mut Value, path: &[Step], original: &str) {
    match (value, path.first()) {
        (Value::Object(object), Some(Step::Member(_))) => rename_member(object, path, original),
        (Value::Array(items), Some(Step::Each)) => {
            for item in items {
                rename_in(item, &path[1..], original);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arguments_get_their_declared_names_back_at_every_depth() {
        let mut tool = Tool::new("fetch".into(), String::new(), String::new());
        for (at, original) in [
            ("http_headers", "http-headers"),
            ("/properties/http_headers/properties/x_trace", "x-trace"),
            (
                "/properties/filters/items/anyOf/0/properties/field_name_2",
                "field.name",
            ),
            ("/properties/missing/properties/a_b", "a-b"),
        ] {
            tool.extra.original_names.insert(at.into(), original.into());
        }
        let arguments = json!({
            "http_headers": {"x_trace": "t", "other": 1},
            "filters": [{"field_name_2": "a", "field_name": "b"}, {"field_name": "c"}, 3],
            "plain": {"x_trace": "not renamed here"}
        });
        assert_eq!(
            *tool.arguments_as_declared(&arguments),
            json!({
                "http-headers": {"x-trace": "t", "other": 1},
                "filters": [{"field.name": "a", "field_name": "b"}, {"field_name": "c"}, 3],
                "plain": {"x_trace": "not renamed here"}
            })
        );
    }

    #[test]
    fn actions_are_spelled_exactly_as_agentstack_defines_them() {
        assert_eq!(
            Action::defined_names().collect::<Vec<_>>(),
            ["read", "write", "execute", "delete"]
        );
        for action in Action::DEFINED {
            assert_eq!(Action::parse(action.as_str()), action);
            assert!(action.is_defined());
        }
        for spelling in ["Read", "WRITE", " execute", "delete ", "wirte", ""] {
            let action = Action::parse(spelling);
            assert_eq!(action, Action::Other(spelling.to_string()));
            assert!(!action.is_defined());
            assert_eq!(action.as_str(), spelling);
        }
    }

    #[test]
    fn a_shared_part_is_the_documents_own_value_until_changed() {
        let text: Arc<str> = Arc::from(r#"{"tools": [{"inputSchema": {"type": "object"}}]}"#);
        let document = Arc::new(crate::json::parse(&text).unwrap());
        let mut part = SharedValue::part_of(&document, "/tools/0/inputSchema").unwrap();
        let in_document = &document.value["tools"][0]["inputSchema"];
        // No copy: the very value the document holds.
        assert!(std::ptr::eq(&*part, in_document));
        assert_eq!(Arc::strong_count(&document), 2);
        let copy = part.clone();
        assert!(std::ptr::eq(&*copy, in_document));
        assert!(SharedValue::part_of(&document, "/tools/1/inputSchema").is_none());

        part.make_mut()["type"] = Value::from("array");
        assert_eq!(part["type"], "array");
        assert_eq!(copy["type"], "object");
        assert_eq!(document.value["tools"][0]["inputSchema"]["type"], "object");
        // The changed value holds the document no more.
        assert_eq!(Arc::strong_count(&document), 2);
        drop(copy);
        assert_eq!(Arc::strong_count(&document), 1);

        let text = serde_json::to_string(&part).unwrap();
        assert_eq!(text, r#"{"type":"array"}"#);
        assert_eq!(
            part.clone().into_value(),
            serde_json::json!({"type": "array"})
        );
        assert_eq!(part, SharedValue::new(serde_json::json!({"type": "array"})));
    }
}
