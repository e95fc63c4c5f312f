//! What a model reads of a tool, for the tool-poisoning rules.
//!
//! A tool's name, title, description and schema go into the model's
//! context as they are, and so does anything a server adds beside them:
//! property names, `enum` values, defaults, examples, keys no standard
//! defines. [`tools`] gathers every such string of every tool of a
//! manifest, each with the JSON Pointer it sits at, so that the rules of
//! the family (`invisible-unicode`, `confusable-tool-name`,
//! `hidden-instruction`, `sensitive-data-request`, `exfiltration-channel`,
//! `tool-shadowing`) look at the same text and point into it: a finding's
//! span is the offending phrase itself, mapped through `\uXXXX` escapes
//! back to the line and column of the file.
//!
//! What the runtime reads and the model never sees (a command, an
//! entrypoint, the environment, `_meta`) is left out. Text the front end
//! read from code (an AgentStack function's docstring, a Nachos class) has
//! no place in the manifest: its findings sit at the tool's name.

pub(crate) mod cues;
pub(crate) mod invisible;
pub(crate) mod names;
mod shape;
mod siphash;
pub(crate) mod text;

use serde_json::Value;

use crate::diagnostic::Diagnostic;
use crate::ir::Tool;
use crate::json::{push_token, value_at};
use crate::lint::{Manifest, Rule};
use crate::providers::mcp;
use crate::schema;
use crate::source::Span;

pub(crate) use shape::Shape;
pub(crate) use siphash::keyed_hash;
pub(crate) use text::Normal;

/// One step of a JSON Pointer.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// One string a model reads: a value, or an object key (a property name,
/// an invented member). Its JSON Pointer is spelled out only when a rule
/// reports it: most strings are read and left.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Piece<'a, 'p> {
    /// Where the path starts: the tool; for text read from code, the
    /// tool's name, where its findings sit.
    base: &'a str,
    path: &'p [Step<'a>],
    pub is_key: bool,
    pub text: &'a str,
    /// Read from code, not from the manifest: no place in its text.
    pub from_code: bool,
    pub shape: Shape,
}

impl Piece<'_, '_> {
    /// Its JSON Pointer in the manifest (the tool's name for text read
    /// from code).
    pub(crate) fn pointer(&self) -> String {
        let mut pointer = self.base.to_string();
        if !self.from_code {
            for step in self.path {
                match step {
                    Step::Key(key) => push_token(&mut pointer, key),
                    Step::Index(i) => push_token(&mut pointer, i),
                }
            }
        }
        pointer
    }

    /// The member it is (a key) or is the value of.
    pub(crate) fn member(&self) -> Option<&str> {
        match self.path.last() {
            Some(Step::Key(key)) => Some(key),
            _ => None,
        }
    }

    /// Whether it sits inside the value of a member named `key` (an item
    /// of `enum`, a property under `properties`).
    pub(crate) fn inside(&self, key: &str) -> bool {
        let above = &self.path[..self.path.len().saturating_sub(1)];
        above
            .iter()
            .any(|step| matches!(step, Step::Key(k) if *k == key))
    }
}

/// A tool and the strings of it a model reads.
pub(crate) struct ToolView<'a> {
    pub tool: &'a Tool,
    /// Its value in the manifest.
    value: Option<&'a Value>,
    /// The names of its top-level parameters, in lower case.
    parameters: std::cell::OnceCell<std::collections::HashSet<String>>,
    purpose: std::cell::OnceCell<String>,
}

impl<'a> ToolView<'a> {
    /// Whether `word` (in lower case) names one of its top-level
    /// parameters.
    pub(crate) fn is_parameter(&self, word: &str) -> bool {
        self.parameters
            .get_or_init(|| {
                self.tool
                    .parameters
                    .as_deref()
                    .and_then(|p| p.get("properties"))
                    .and_then(Value::as_object)
                    .map(|p| p.keys().map(|name| name.to_lowercase()).collect())
                    .unwrap_or_default()
            })
            .contains(word)
    }

    /// Calls `f` with every string of the tool a model reads, in document
    /// order: from the manifest, then what the front end read from code.
    /// Without `PATHS`, a piece's path is left empty: a walk that only
    /// reads the texts need not keep it.
    pub(crate) fn each_piece<const PATHS: bool>(
        &self,
        scratch: &mut Scratch<'a>,
        mut f: impl FnMut(&Piece<'a, '_>),
    ) {
        let tool = self.tool;
        let mut description_seen = false;
        if let Some(value) = self.value {
            let context = match value {
                Value::Object(_) => Some(Context::Tool),
                Value::String(_) => Some(Context::Data),
                _ => None,
            };
            if let Some(context) = context {
                walk::<PATHS>(value, &tool.origin, context, false, scratch, &mut |piece| {
                    description_seen |=
                        !piece.is_key && tool.description.as_deref() == Some(piece.text);
                    f(piece);
                });
            }
        }
        let at_name = |text, is_key| Piece {
            base: &tool.name_at,
            path: &[],
            is_key,
            text,
            from_code: !is_key,
            shape: Shape::of(text),
        };
        if tool.name_is_key {
            f(&at_name(&tool.name, true));
        }
        if let Some(description) = &tool.description
            && !description_seen
        {
            f(&at_name(description, false));
        }
        if tool.parameters_at.is_none()
            && let Some(parameters) = &tool.parameters
        {
            walk::<PATHS>(
                parameters,
                &tool.name_at,
                Context::Schema,
                true,
                scratch,
                &mut f,
            );
        }
    }

    /// What the tool says it is for: its name and the first sentence of
    /// its description, normalized. A tool may name what it manages.
    pub(crate) fn purpose(&self) -> &str {
        self.purpose.get_or_init(|| self.read_purpose())
    }

    fn read_purpose(&self) -> String {
        let mut purpose = text::Normal::new(&self.tool.name).text;
        if let Some(description) = &self.tool.description {
            let normal = text::Normal::new(description);
            let first = text::sentences(&normal.text)
                .map(|range| &normal.text[range])
                .find(|sentence| !sentence.trim().is_empty())
                .unwrap_or_default();
            // What it says before any markup, and no more than a sentence
            // says: an instruction in a comment or a tag is no purpose.
            let plain = first
                .split(['<', '\n'])
                .find(|s| !s.trim().is_empty())
                .unwrap_or("");
            const WORDS: usize = 24;
            for word in plain.split_whitespace().take(WORDS) {
                purpose.push(' ');
                purpose.push_str(word);
            }
        }
        purpose
    }
}

/// Members of a tool the runtime reads and a model does not see.
const NOT_SEEN: &[&str] = &[
    "_meta",
    "args",
    "cache_control",
    "class",
    "command",
    "cwd",
    "dependencies",
    "entrypoint",
    "env",
    "icons",
    "image",
    "memory",
    "network",
    "permissions",
    "runtime",
    "sandbox",
    "security",
    "strict",
    "tier",
    "timeout",
    "timeoutSec",
    "url",
    "version",
    "x-toolc",
];

/// Members whose value is a schema.
const SCHEMA_MEMBERS: &[&str] = &[
    "parameters",
    "inputSchema",
    "input_schema",
    "schema",
    "outputSchema",
    "output_schema",
    "parametersJsonSchema",
    "responseJsonSchema",
];

/// Keys that are the vocabulary of manifests and schemas, not text.
const VOCABULARY: &[&str] = &[
    "name",
    "title",
    "description",
    "type",
    "function",
    "annotations",
    "format",
    "enum",
    "const",
    "default",
    "examples",
    "example",
    "required",
    "$ref",
    "$schema",
    "$id",
    "$comment",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "multipleOf",
    "nullable",
    "readOnly",
    "writeOnly",
    "deprecated",
    "contentMediaType",
    "contentEncoding",
    mcp::READ_ONLY_HINT,
    mcp::DESTRUCTIVE_HINT,
    mcp::IDEMPOTENT_HINT,
    mcp::OPEN_WORLD_HINT,
    "id",
    "tools",
];

/// What a key is to the walk, one bit per list above that holds it.
#[derive(Clone, Copy, Default)]
struct KeyClass(u8);

impl KeyClass {
    const VOCABULARY: u8 = 1;
    const NOT_SEEN: u8 = 2;
    const SCHEMA_MEMBER: u8 = 4;
    const MAP: u8 = 8;
    const SUBSCHEMA: u8 = 16;
    /// Members [`is_vocabulary_only`] may pass by.
    const MAYBE_VOCABULARY_ONLY: u8 = 32;

    /// The class of `key`: one look in a table built when toolc is
    /// compiled ([`KEY_TABLE`]), not a scan of every list (a walk asks
    /// for every key of every object of a manifest).
    fn of(key: &str) -> KeyClass {
        let mut slot = key_slot(key.as_bytes());
        loop {
            let held = KEY_TABLE.slots[slot];
            if held == 0 {
                return KeyClass(0);
            }
            let (known, class) = KEY_TABLE.keys[usize::from(held) - 1];
            if known == key {
                return KeyClass(class);
            }
            slot = (slot + 1) % KEY_SLOTS;
        }
    }

    fn is(self, bit: u8) -> bool {
        self.0 & bit != 0
    }

    /// In one of the lists: vocabulary of manifests and schemas, not text.
    fn is_vocabulary(self) -> bool {
        self.0 != 0
    }
}

/// The lists a key's class is made of, each with its bit.
const KEY_LISTS: [(&[&str], u8); 7] = [
    (VOCABULARY, KeyClass::VOCABULARY),
    (NOT_SEEN, KeyClass::NOT_SEEN),
    (SCHEMA_MEMBERS, KeyClass::SCHEMA_MEMBER),
    (schema::MAPS, KeyClass::MAP),
    (schema::SINGLE, KeyClass::SUBSCHEMA),
    (schema::LISTS, KeyClass::SUBSCHEMA),
    (VOCABULARY_ONLY, KeyClass::MAYBE_VOCABULARY_ONLY),
];

/// How many keys the lists hold, counting a key in two lists twice.
const KEYS_LISTED: usize = {
    let mut count = 0;
    let mut list = 0;
    while list < KEY_LISTS.len() {
        count += KEY_LISTS[list].0.len();
        list += 1;
    }
    count
};

/// Slots of [`KEY_TABLE`]: many more than keys, so that a key that is in
/// no list mostly meets an empty slot at once.
const KEY_SLOTS: usize = 1024;

/// Every listed key with its class, and slots that hold each one's place
/// in `keys` plus one (0: empty), the key at [`key_slot`] or the first
/// free slot after it.
struct KeyTable {
    keys: [(&'static str, u8); KEYS_LISTED],
    slots: [u16; KEY_SLOTS],
}

/// Built when toolc is compiled: no lock or hash at run time.
static KEY_TABLE: KeyTable = {
    let mut table = KeyTable {
        keys: [("", 0); KEYS_LISTED],
        slots: [0; KEY_SLOTS],
    };
    let mut count = 0;
    let mut list = 0;
    while list < KEY_LISTS.len() {
        let (keys, bit) = KEY_LISTS[list];
        let mut k = 0;
        while k < keys.len() {
            let key = keys[k];
            let mut slot = key_slot(key.as_bytes());
            loop {
                let held = table.slots[slot] as usize;
                if held == 0 {
                    table.keys[count] = (key, bit);
                    count += 1;
                    table.slots[slot] = count as u16;
                    break;
                }
                if same_bytes(table.keys[held - 1].0.as_bytes(), key.as_bytes()) {
                    table.keys[held - 1].1 |= bit;
                    break;
                }
                slot = (slot + 1) % KEY_SLOTS;
            }
            k += 1;
        }
        list += 1;
    }
    table
};

/// Where [`KEY_TABLE`] looks for `key` first: a mix of its length and
/// three of its bytes, which tells the listed keys apart almost always.
const fn key_slot(key: &[u8]) -> usize {
    let Some((&last, _)) = key.split_last() else {
        return 0;
    };
    let mixed = key.len() * 131 + key[0] as usize * 31 + key[key.len() / 2] as usize * 7;
    (mixed + last as usize) % KEY_SLOTS
}

const fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

#[derive(Clone, Copy)]
enum Context {
    Tool,
    Schema,
    SchemaMap,
    Data,
}

/// Every tool of the manifest with the strings of it a model reads, one
/// at a time: a manifest may hold a hundred thousand tools.
pub(crate) fn tools<'a>(manifest: &'a Manifest) -> impl Iterator<Item = ToolView<'a>> {
    let root = &manifest.document.value;
    manifest.toolset.tools.iter().map(move |tool| ToolView {
        tool,
        value: value_at(root, &tool.origin),
        parameters: std::cell::OnceCell::new(),
        purpose: std::cell::OnceCell::new(),
    })
}

/// The buffers a walk reuses from tool to tool, so that reading a string
/// costs no allocation.
#[derive(Default)]
pub(crate) struct Scratch<'a> {
    path: Vec<Step<'a>>,
    /// Each entry: a value, the length of the path above it, the step to
    /// it, and how to read it.
    stack: Vec<(&'a Value, usize, Option<Step<'a>>, Context)>,
}

/// Calls `f` with the strings under `value` (at `base`) a model reads,
/// in document order; with their paths if `PATHS`.
fn walk<'a, const PATHS: bool>(
    value: &'a Value,
    base: &'a str,
    context: Context,
    from_code: bool,
    scratch: &mut Scratch<'a>,
    f: &mut impl FnMut(&Piece<'a, '_>),
) {
    let Scratch { path, stack } = scratch;
    path.clear();
    stack.clear();
    stack.push((value, 0, None, context));
    while let Some((value, depth, step, context)) = stack.pop() {
        if PATHS {
            path.truncate(depth);
            path.extend(step);
        }
        match value {
            Value::String(text) => f(&Piece {
                base,
                path,
                is_key: false,
                text,
                from_code,
                shape: Shape::of(text),
            }),
            Value::Array(items) => {
                let depth = path.len();
                for (i, item) in items.iter().enumerate().rev() {
                    stack.push((item, depth, Some(Step::Index(i)), context));
                }
            }
            Value::Object(members) => {
                let depth = path.len();
                let pushed = stack.len();
                for (key, member) in members {
                    let class = KeyClass::of(key);
                    let Some(next) = member_context(context, key, class) else {
                        continue;
                    };
                    if matches!(context, Context::Schema)
                        && class.is(KeyClass::MAYBE_VOCABULARY_ONLY)
                        && is_vocabulary_only(key, member, members)
                    {
                        continue;
                    }
                    // A key is text a model reads when it is a property
                    // name, or a member no vocabulary defines.
                    if matches!(context, Context::SchemaMap) || !class.is_vocabulary() {
                        if PATHS {
                            path.push(Step::Key(key));
                        }
                        f(&Piece {
                            base,
                            path,
                            is_key: true,
                            text: key,
                            from_code,
                            shape: Shape::of(key),
                        });
                        if PATHS {
                            path.pop();
                        }
                    }
                    stack.push((member, depth, Some(Step::Key(key)), next));
                }
                // Popped in document order.
                stack[pushed..].reverse();
            }
            _ => {}
        }
    }
}

/// The members [`is_vocabulary_only`] reads; it is asked of no other (a
/// member left out here is read as text: slower, never blind).
const VOCABULARY_ONLY: &[&str] = &["type", "$schema", "required"];

/// Whether member `key` of a schema holds only what the schema's
/// vocabulary and the strings read already say, nothing a model could take
/// as an instruction: `"type": "string"`, a `$schema` toolc knows, or
/// `required` naming the schema's own properties (each read as a key). A
/// schema has as many of these as properties: the walk passes them by.
fn is_vocabulary_only(key: &str, member: &Value, object: &serde_json::Map<String, Value>) -> bool {
    let is_type = |value: &Value| {
        value
            .as_str()
            .is_some_and(|name| schema::TYPES.contains(&name))
    };
    match key {
        "type" => {
            is_type(member)
                || member
                    .as_array()
                    .is_some_and(|names| names.iter().all(is_type))
        }
        "$schema" => member
            .as_str()
            .is_some_and(|dialect| schema::DIALECTS.contains(&dialect.trim_end_matches('#'))),
        "required" => {
            // A schema names a few properties and has a few members:
            // comparing with each costs less than hashing every name (the
            // map's hash is SipHash), and stays linear for a few.
            const FEW: usize = 16;
            let properties = if object.len() <= FEW {
                object
                    .iter()
                    .find(|(key, _)| *key == "properties")
                    .map(|(_, value)| value)
            } else {
                object.get("properties")
            };
            let properties = properties.and_then(Value::as_object);
            let has = |name: &str| {
                properties.is_some_and(|p| {
                    if p.len() <= FEW {
                        p.keys().any(|key| key == name)
                    } else {
                        p.contains_key(name)
                    }
                })
            };
            member
                .as_array()
                .is_some_and(|names| names.iter().all(|name| name.as_str().is_some_and(has)))
        }
        _ => false,
    }
}

/// How the value of member `key` of an object read as `context` is read;
/// `None` for a member a model does not see.
fn member_context(context: Context, key: &str, class: KeyClass) -> Option<Context> {
    // MCP's metadata of a tool and of what it holds, which clients keep
    // from the model; in a schema it is a property name, or a keyword no
    // vocabulary defines, and read like any other.
    if key == "_meta" && matches!(context, Context::Tool | Context::Data) {
        return None;
    }
    Some(match context {
        Context::Tool if class.is(KeyClass::NOT_SEEN) => return None,
        Context::Tool if class.is(KeyClass::SCHEMA_MEMBER) => Context::Schema,
        Context::Tool if key == "function" => Context::Tool,
        Context::Tool => Context::Data,
        Context::Schema if class.is(KeyClass::MAP) => Context::SchemaMap,
        Context::Schema if class.is(KeyClass::SUBSCHEMA) => Context::Schema,
        Context::Schema => Context::Data,
        Context::SchemaMap => Context::Schema,
        Context::Data => Context::Data,
    })
}

/// Where bytes `range` of a piece's text are in the manifest's source:
/// the characters themselves, through any escapes (`\u200b`, a surrogate
/// pair), or the tool's name for text read from code.
pub(crate) fn span_of(
    manifest: &Manifest,
    tool: &Tool,
    piece: &Piece,
    range: std::ops::Range<usize>,
) -> Span {
    if piece.from_code {
        return manifest.tool_name_span(tool);
    }
    let pointer = piece.pointer();
    let map = &manifest.document.map;
    let token = if piece.is_key {
        map.key_span(&pointer)
    } else {
        map.value_span(&pointer)
    };
    let Some(token) = token else {
        return map.locate(&pointer).span;
    };
    let source = map.text();
    match (
        text::source_offset(source, token, range.start),
        text::source_offset(source, token, range.end),
    ) {
        (Some(start), Some(end)) if start < end => Span::new(start, end),
        (Some(start), _) => Span::new(start, start + 1),
        _ => token,
    }
}

/// [`span_of`] for many ranges of one piece (in text order), in one pass
/// over its source: a string may hold a million hidden characters.
pub(crate) fn spans_of(
    manifest: &Manifest,
    tool: &Tool,
    piece: &Piece,
    ranges: Vec<std::ops::Range<usize>>,
) -> Vec<Span> {
    let map = &manifest.document.map;
    let pointer = piece.pointer();
    let token = if piece.is_key {
        map.key_span(&pointer)
    } else {
        map.value_span(&pointer)
    };
    let Some(token) = token.filter(|_| !piece.from_code) else {
        let at = span_of(manifest, tool, piece, 0..0);
        return ranges.iter().map(|_| at).collect();
    };
    let mut offsets: Vec<usize> = ranges.iter().flat_map(|r| [r.start, r.end]).collect();
    offsets.sort_unstable();
    let mapped = text::source_offsets(map.text(), token, &offsets);
    let at = |decoded: usize| offsets.binary_search(&decoded).ok().and_then(|i| mapped[i]);
    ranges
        .iter()
        .map(|r| match (at(r.start), at(r.end)) {
            (Some(start), Some(end)) if start < end => Span::new(start, end),
            _ => token,
        })
        .collect()
}

/// A finding of `rule` at bytes `range` of a piece's text.
pub(crate) fn at_text(
    manifest: &Manifest,
    rule: &'static Rule,
    view: &ToolView,
    piece: &Piece,
    range: std::ops::Range<usize>,
    message: impl Into<String>,
) -> Diagnostic {
    let span = span_of(manifest, view.tool, piece, range);
    rule.diagnostic(manifest.path(), piece.pointer(), Some(span), message)
}

/// Where a piece is, for a message: "the description of tool `x`", "the
/// property name `y`".
pub(crate) fn place(view: &ToolView, piece: &Piece) -> String {
    let tool = crate::lint::shown(&view.tool.name);
    if piece.from_code {
        return format!("the text of tool {tool} read from its code");
    }
    let field = if piece.is_key {
        "a key"
    } else {
        match piece.member() {
            Some("description") => "the description",
            Some("title") => "the title",
            Some("name") => "the name",
            Some("default") => "a default",
            _ if piece.inside("enum") => "an enum value",
            _ if piece.inside("examples") => "an example",
            _ if piece.inside("required") => "a required entry",
            _ => "a string",
        }
    };
    if piece.inside("properties") && !piece.is_key {
        format!("{field} of a parameter of tool {tool}")
    } else if piece.is_key && piece.inside("properties") {
        format!("a parameter name of tool {tool}")
    } else {
        format!("{field} of tool {tool}")
    }
}

/// What a text rule found in a piece: where in its normal text, and what
/// the text does there ("tells the model to keep it from the user").
pub(crate) struct Hit {
    pub range: std::ops::Range<usize>,
    pub what: String,
    /// The other tool the text reaches for, when it names one.
    pub reached: Option<String>,
}

impl Hit {
    pub(crate) fn new(range: std::ops::Range<usize>, what: impl Into<String>) -> Hit {
        Hit {
            range,
            what: what.into(),
            reached: None,
        }
    }
}

/// A rule of the family that reads text (`hidden-instruction`,
/// `sensitive-data-request`, `exfiltration-channel`, `tool-shadowing`):
/// what could match (one pass over a text), and what does.
pub(crate) struct TextRule {
    pub rule: &'static Rule,
    pub prefilter: &'static cues::Prefilter,
    pub help: &'static str,
    pub detect: fn(&Around, &ToolView, &Piece, &Normal) -> Option<Hit>,
}

/// What the text rules know of the manifest beside the piece they read.
pub(crate) struct Around<'a> {
    manifest: &'a Manifest<'a>,
    names: std::cell::OnceCell<std::collections::HashSet<String>>,
}

impl Around<'_> {
    /// Its tools' names, in lower case (read when first asked for).
    pub(crate) fn names(&self) -> &std::collections::HashSet<String> {
        self.names.get_or_init(|| {
            self.manifest
                .toolset
                .tools
                .iter()
                .map(|t| t.name.to_lowercase())
                .filter(|n| !n.is_empty())
                .collect()
        })
    }
}

/// What [`visit`] meets: a piece as it is, or a text rule's finding.
pub(crate) enum Event<'v, 'a, 'p> {
    /// Each piece the caller wants ([`visit`]'s `wants`), in document
    /// order.
    Piece(&'v ToolView<'a>, &'v Piece<'a, 'p>),
    /// A text rule's first hit in a piece, at the phrase, quoting its
    /// sentence.
    Found(&'static TextRule, Box<Diagnostic>, Hit),
}

/// What the prefilters said of texts met before, on this thread.
///
/// A project repeats its strings: the same tools written for four
/// providers, one parameter's description in every tool that takes it.
/// A text's verdict depends on the text alone, and looking it up costs a
/// hash of its bytes, where reading it costs a pass of an automaton too
/// large to stay in the processor's cache.
///
/// Each slot holds a text's hash and its verdict, and a text met later in
/// the same slot takes it, as in a processor's cache: the table stays
/// small enough to stay in cache, and texts met often stay in it. The hash
/// is keyed with a secret chosen for each run ([`keyed_hash`],
/// SipHash-1-3), so that no manifest can be written whose poisoned
/// description takes the verdict of a clean one: two texts share a hash
/// by chance once in 2^62.
///
/// Texts that differ only in their numbers share a verdict
/// ([`Verdicts::key`]): a generated project numbers its tools
/// (`get_user_12_3`), and a name met once would otherwise go through the
/// automaton once each.
struct Verdicts {
    slots: Box<[u64]>,
    /// The text a key is the hash of, when it is not the text itself.
    spelled: String,
}

/// A text's hash in [`Verdicts`]: never 0, the low bit free for the
/// verdict.
#[derive(Clone, Copy)]
struct TextKey(u64);

impl Verdicts {
    /// 2^15 slots of 8 bytes: 256 KiB.
    const SLOTS: usize = 1 << 15;

    fn new() -> Verdicts {
        Verdicts {
            slots: vec![0; Verdicts::SLOTS].into_boxed_slice(),
            spelled: String::new(),
        }
    }

    /// The key of `text`: the hash of the text with each number that does
    /// not follow a letter written as zeros (`get_user_00_0`), when the
    /// text is ASCII with no character reference; of the text itself
    /// otherwise.
    ///
    /// Such texts share a verdict. Their normal texts are the same
    /// function of the original (lower case, identifiers split), so they
    /// too differ only in those numbers, each of which follows a letter
    /// in the normal text where it did in the original (checked by
    /// `renumbering_commutes_with_normalizing`). Only a character
    /// reference (`&#73;`) or a character outside ASCII (a tag character
    /// spells a letter, one that renders as nothing is dropped) could turn
    /// digits into letters, put a letter before a number or take one
    /// away, and such text keeps its digits. No prefilter pattern tells
    /// those numbers apart: every class holds all ten digits or none, and
    /// a digit a pattern spells (`soc2`, `.p12`) follows a letter it
    /// spells too (checked by `cues`' tests).
    fn key(&mut self, text: &str, shape: Shape) -> TextKey {
        let hash = if renumbers(shape) {
            self.spelled.clear();
            renumber_into(text, &mut self.spelled);
            keyed_hash(&self.spelled)
        } else {
            keyed_hash(text)
        };
        TextKey((hash | 2) & !1)
    }

    fn slot(key: TextKey) -> usize {
        (key.0 >> 40) as usize % Verdicts::SLOTS
    }

    /// Whether any prefilter admits the text of `key`, if known.
    fn get(&self, key: TextKey) -> Option<bool> {
        let held = self.slots[Verdicts::slot(key)];
        (held & !1 == key.0).then_some(held & 1 == 1)
    }

    fn remember(&mut self, key: TextKey, admitted: bool) {
        self.slots[Verdicts::slot(key)] = key.0 | u64::from(admitted);
    }
}

/// Whether [`Verdicts::key`] writes the numbers of a text of `shape` as
/// zeros: it has digits, and each of its bytes reads as itself.
fn renumbers(shape: Shape) -> bool {
    shape.digit && shape.plain()
}

/// Appends `text` to `out` with each run of digits that does not follow a
/// letter written as zeros. Digits and letters are ASCII: a byte of a
/// longer character is neither, in any text.
fn renumber_into(text: &str, out: &mut String) {
    let bytes = text.as_bytes();
    let mut copied = 0;
    let mut at = 0;
    while at < bytes.len() {
        if !bytes[at].is_ascii_digit() {
            at += 1;
            continue;
        }
        let start = at;
        while at < bytes.len() && bytes[at].is_ascii_digit() {
            at += 1;
        }
        if start == 0 || !bytes[start - 1].is_ascii_alphabetic() {
            out.push_str(&text[copied..start]);
            const ZEROS: &str = "0000000000000000";
            let mut zeros = at - start;
            while zeros > 0 {
                let run = zeros.min(ZEROS.len());
                out.push_str(&ZEROS[..run]);
                zeros -= run;
            }
            copied = at;
        }
    }
    out.push_str(&text[copied..]);
}

thread_local! {
    /// Taken while a walk uses it: a walk within a walk starts with none.
    static VERDICTS: std::cell::Cell<Option<Box<Verdicts>>> = const { std::cell::Cell::new(None) };
}

/// Walks the manifest: each piece `wants` asks for (by its text and
/// shape) goes to `f` as it is, and the `rules` read every piece.
///
/// Most tools hold nothing any rule could match and nothing `wants`: the
/// texts are read without their paths, the normal text of all of a
/// tool's pieces not met before, a line each, goes through the
/// prefilters in one pass, and only a tool it admits, or with a piece
/// `wants`, is walked again with paths and has its pieces read one by
/// one. The prefilters match line starts and ends as text starts
/// and ends, so a piece that would be admitted alone admits its tool. A
/// piece met before on this thread has its verdict remembered
/// ([`Verdicts`]).
pub(crate) fn visit(
    manifest: &Manifest,
    rules: &[&'static TextRule],
    wants: impl Fn(&str, Shape) -> bool,
    mut f: impl for<'v, 'a, 'p> FnMut(Event<'v, 'a, 'p>),
) {
    let context = Around {
        manifest,
        names: std::cell::OnceCell::new(),
    };
    let mut normal = Normal::default();
    let mut scratch = Scratch::default();
    let mut joined = String::new();
    let mut met: Vec<(TextKey, &str, Shape)> = Vec::new();
    let mut known: Vec<Option<bool>> = Vec::new();
    let mut verdicts = VERDICTS.take().unwrap_or_else(|| Box::new(Verdicts::new()));
    for view in tools(manifest) {
        joined.clear();
        met.clear();
        // The texts alone first, without their paths: most tools hold
        // nothing any rule could match or `f` wants.
        let mut wanted = false;
        view.each_piece::<false>(&mut scratch, |piece| {
            wanted |= wants(piece.text, piece.shape);
            if !rules.is_empty() {
                met.push((
                    verdicts.key(piece.text, piece.shape),
                    piece.text,
                    piece.shape,
                ));
            }
        });
        // The tool's verdicts looked up together, after the walk: most of
        // them miss the processor's nearer caches, and loads that do not
        // wait on each other overlap.
        known.clear();
        known.extend(met.iter().map(|&(key, _, _)| verdicts.get(key)));
        let unknown = || {
            met.iter()
                .zip(&known)
                .filter(|(_, verdict)| verdict.is_none())
                .map(|(met, _)| *met)
        };
        let mut admitted = known.contains(&Some(true));
        if !admitted && !rules.is_empty() {
            for (_, text, shape) in unknown() {
                text::append_normal(&mut joined, text, shape, &mut normal);
                joined.push('\n');
            }
            admitted = !joined.is_empty() && cues::admits_any(&joined);
            if !admitted {
                for (key, _, _) in unknown() {
                    verdicts.remember(key, false);
                }
            }
        }
        if !admitted && !wanted {
            continue;
        }
        // The same pieces in the same order, with their paths: the keys
        // of the first walk.
        let mut keys = met.iter().zip(&known);
        view.each_piece::<true>(&mut scratch, |piece| {
            if wanted && wants(piece.text, piece.shape) {
                f(Event::Piece(&view, piece));
            }
            let Some((&(key, _, _), &verdict)) = keys.next() else {
                return;
            };
            if !admitted || verdict == Some(false) {
                return;
            }
            normal.refill(piece.text, piece.shape);
            let admitted = cues::Admitted::of(&normal.text);
            verdicts.remember(key, admitted.is_some());
            let Some(admitted) = admitted else {
                return;
            };
            for &rule in rules {
                if !rule.prefilter.admits(&admitted) {
                    continue;
                }
                let Some(hit) = (rule.detect)(&context, &view, piece, &normal) else {
                    continue;
                };
                let sentence = text::sentences(&normal.text)
                    .find(|s| {
                        s.start <= hit.range.start && hit.range.start < s.end.max(s.start + 1)
                    })
                    .unwrap_or(hit.range.clone());
                let quoted = text::quoted(&piece.text[normal.original_range(sentence)]);
                let message = format!("{} {}: {quoted}", place(&view, piece), hit.what);
                let range = normal.original_range(hit.range.clone());
                let diagnostic = at_text(manifest, rule.rule, &view, piece, range, message);
                f(Event::Found(rule, Box::new(diagnostic), hit));
            }
        });
    }
    VERDICTS.set(Some(verdicts));
}

/// A rule of the family that looks at each piece as it is
/// (`invisible-unicode`).
pub(crate) struct PieceCheck {
    /// Whether `check` could find anything in a text of this shape:
    /// asked of every piece before its path is known, and `check` is
    /// called only where it says so.
    pub may_find: fn(&str, Shape) -> bool,
    pub check: fn(&Manifest, &ToolView, &Piece, &mut crate::lint::findings::Findings),
}

/// Runs the piece checks and the text rules over the manifest in one walk
/// ([`visit`]), reporting each text finding with its rule's help.
pub(crate) fn check_text(
    manifest: &Manifest,
    checks: &[&PieceCheck],
    rules: &[&'static TextRule],
    out: &mut crate::lint::findings::Findings,
) {
    if checks.is_empty() && rules.is_empty() {
        return;
    }
    let wants = |text: &str, shape| checks.iter().any(|check| (check.may_find)(text, shape));
    visit(manifest, rules, wants, |event| match event {
        Event::Piece(view, piece) => {
            for check in checks {
                if (check.may_find)(piece.text, piece.shape) {
                    (check.check)(manifest, view, piece, out);
                }
            }
        }
        Event::Found(rule, diagnostic, _) => out.push(diagnostic.with_help(rule.help)),
    });
}

/// The sentences of a normal text, each with its text.
pub(crate) fn sentences(normal: &Normal) -> impl Iterator<Item = (usize, &str)> {
    text::sentences(&normal.text).map(|range| (range.start, &normal.text[range]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table built at compile time says of every key what the lists
    /// say, and nothing of a key in none of them.
    #[test]
    fn key_classes_are_the_lists() {
        for (keys, _) in KEY_LISTS {
            for key in keys {
                let listed = KEY_LISTS
                    .iter()
                    .filter(|(keys, _)| keys.contains(key))
                    .fold(0, |class, (_, bit)| class | bit);
                assert_eq!(KeyClass::of(key).0, listed, "{key}");
            }
        }
        for key in [
            "",
            "x",
            "user_id",
            "Name",
            "names",
            "typ",
            "types",
            "descriptio",
            "é",
        ] {
            assert_eq!(KeyClass::of(key).0, 0, "{key:?}");
        }
        let used = KEY_TABLE.slots.iter().filter(|&&slot| slot != 0).count();
        assert!(used > 50 && used < KEY_SLOTS / 4, "{used} slots");
    }

    fn renumbered(text: &str) -> String {
        let mut out = String::new();
        renumber_into(text, &mut out);
        out
    }

    /// What [`Verdicts::key`] relies on beside the patterns: for a text it
    /// renumbers, renumbering and then normalizing gives the normal text
    /// renumbered, so the two texts a key joins have normal texts that
    /// differ only in numbers that follow no letter. Checked on every
    /// string of up to five characters of an alphabet of letters of both
    /// cases, digits, separators, blanks, controls and would-be escapes:
    /// it fails if the normal text ever drops, adds or decodes an ASCII
    /// character next to a number.
    #[test]
    fn renumbering_commutes_with_normalizing() {
        const ALPHABET: [char; 14] = [
            'a', 'Z', '1', '0', '_', ' ', '-', '.', '\t', '\u{7f}', '\u{1}', '%', '\\', '<',
        ];
        let mut strings = vec![String::new()];
        let mut checked = 0;
        for _ in 0..5 {
            let mut longer = Vec::with_capacity(strings.len() * ALPHABET.len());
            for s in &strings {
                for c in ALPHABET {
                    let mut t = s.clone();
                    t.push(c);
                    longer.push(t);
                }
            }
            for s in &longer {
                if !renumbers(Shape::of(s)) {
                    continue;
                }
                let normal_of_renumbered = Normal::new(&renumbered(s)).text;
                let renumbered_normal = renumbered(&Normal::new(s).text);
                assert_eq!(normal_of_renumbered, renumbered_normal, "{s:?}");
                checked += 1;
            }
            strings = longer;
        }
        assert!(checked > 100_000, "checked {checked}");
        // The texts it leaves as they are: outside ASCII, or with a
        // character reference (`&#49;` is a digit the normal text reads
        // as a `1`).
        let renumbers = |text| renumbers(Shape::of(text));
        assert!(!renumbers("p&#49;2") && !renumbers("p\u{200b}12") && renumbers("get_user_12_3"));
        assert_eq!(
            renumbered("get_user_12_3 v2 soc2 id_ed25519 .p12 9x"),
            "get_user_00_0 v2 soc2 id_ed25519 .p12 0x"
        );
        assert_eq!(
            renumbered("x 12345678901234567890."),
            "x 00000000000000000000."
        );
        // A byte of a longer character is no letter.
        assert_eq!(renumbered("é12 ж3x 7"), "é00 ж0x 0");
    }
}
