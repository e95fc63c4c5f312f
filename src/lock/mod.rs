//! Pinned tool definitions: the `toolc.lock` file, the canonical form of
//! a tool definition and its digest, and how definitions drift from their
//! pins.
//!
//! A server or a manifest can change what a tool tells the model after
//! it was reviewed (a "rug pull": the same tool name, a new description
//! that instructs the model to leak data). `toolc lock` pins, per source
//! and per tool, what a model sees of each tool; `toolc lint --locked`
//! reports every difference (rule `tool-drift`), and `toolc serve
//! --locked` refuses to serve a tool that differs.
//!
//! ## The definition and its canonical form
//!
//! A tool's definition is the JSON object of what a model sees of it, the
//! members of an MCP `Tool` that reach the model: `name`, `title`,
//! `description`, `inputSchema` (the tool's parameters as toolc reads
//! them: standard JSON Schema), `outputSchema` and `annotations` (when
//! the manifest declares them: MCP's members). A member the tool does not
//! have is left out. Its canonical text is the RFC 8785 (JSON
//! Canonicalization Scheme) text of that object ([`canonical`]): members
//! sorted by their keys as UTF-16 code units, no whitespace, strings with
//! only `"`, `\` and the control characters escaped, numbers as
//! ECMAScript writes them. Its digest is the SHA-256 of the canonical
//! text's UTF-8 bytes, as 64 lowercase hex digits.
//!
//! A worked example: the tool
//!
//! ```json
//! {"name": "get_time", "description": "Tell the time in a zone.",
//!  "inputSchema": {"type": "object", "required": ["zone"],
//!   "properties": {"zone": {"type": "string", "description": "IANA name, e.g. Europe/Paris"}}}}
//! ```
//!
//! has the canonical text
//!
//! ```text
//! {"description":"Tell the time in a zone.","inputSchema":{"properties":{"zone":{"description":"IANA name, e.g. Europe/Paris","type":"string"}},"required":["zone"],"type":"object"},"name":"get_time"}
//! ```
//!
//! and the digest
//! `12f9bbf04c50241d000f616d7f0d36b400f5371d97aa6a332a7578b149254641`
//! (Python gives the same text with `json.dumps(tool, sort_keys=True,
//! separators=(",", ":"), ensure_ascii=False)`).
//!
//! ## The file
//!
//! `toolc.lock` is JSON, indented by two spaces, with a final newline:
//! `version` (1) and `sources`, an object from each source (a file's path
//! relative to the lock file's directory, whatever directory toolc runs
//! in ([`Keys`]), or the `mcp://<server name>` of a live server) to its
//! tools by name (a name declared again in the source: `name#2`, ...,
//! [`keyed`]), each
//! with its `sha256` and its `definition` (the object, keys sorted, so a
//! drift report can say what changed and a review can read it). Sources
//! and tools are sorted by name. A definition whose digest is not its
//! `sha256` makes the file invalid: the file was edited by hand. So does a
//! key written twice (toolc writes none): a review of the file reads the
//! first, a JSON reader keeps the last.

pub mod canonical;
mod diff;
mod exclusive;
mod keys;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

pub use diff::{Change, Drift, changed_range, compare};
pub use exclusive::{Exclusive, exclusive};
pub use keys::{Keys, is_live};

use crate::ir::{Tool, ToolSet};

/// The file's name: `toolc.lock`.
pub const FILE_NAME: &str = "toolc.lock";

/// The version of the file's layout this toolc writes and reads.
pub const VERSION: u64 = 1;

/// The members of a definition, in the order the module's docs list them.
pub const MEMBERS: &[&str] = &[
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
];

/// A source's pinned tools: definition by tool key (its name; see
/// [`keyed`] for a name declared more than once).
pub type Pins = BTreeMap<String, Value>;

/// The pinned definitions of every source of a lock file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Lock {
    pub sources: BTreeMap<String, Pins>,
}

/// Why a lock file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("cannot read the lock file {}", crate::terminal::path(.path))]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the lock file {} is not JSON: {message} (write it again with `toolc lock --update`)", crate::terminal::path(.path))]
    NotJson { path: PathBuf, message: String },
    #[error("the lock file {} is not a toolc.lock: {message} (write it again with `toolc lock --update`)", crate::terminal::path(.path))]
    Invalid { path: PathBuf, message: String },
    #[error("cannot tell the current directory, which the paths toolc shows are relative to")]
    CurrentDir(#[source] std::io::Error),
    #[error(
        "cannot lock the directory {} to write the lock file {} (one `toolc lock` writes it at a time)",
        crate::terminal::path(.directory),
        crate::terminal::path(.path)
    )]
    Unlockable {
        path: PathBuf,
        directory: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "another `toolc lock` is writing the lock file {}, and did not finish within {} s; nothing \
         was written (run again once it is done, or wait longer with --wait)",
        crate::terminal::path(.path),
        .waited.as_secs_f64()
    )]
    Busy {
        path: PathBuf,
        waited: std::time::Duration,
    },
    // Why, in the message itself, and not as its cause too: the report
    // would say it twice.
    #[error("cannot write the lock file {}: {reason}; nothing was written", crate::terminal::path(.path))]
    Unwritable { path: PathBuf, reason: Unwritable },
}

/// Why a lock cannot be written: toolc could not read back what it
/// would write.
#[derive(Debug, thiserror::Error)]
pub enum Unwritable {
    #[error(
        "tool {tool:?} of {source_key} nests {depth} levels deep, and a lock file holds \
         definitions at most {MAX_DEFINITION_DEPTH} levels deep (the file nests 4 more, and \
         toolc reads JSON at most {} deep)",
        crate::json::MAX_DEPTH
    )]
    TooDeep {
        source_key: String,
        tool: String,
        depth: usize,
    },
    #[error("it would be {bytes} bytes, and toolc reads lock files of at most {MAX_LOCK_BYTES}")]
    TooLarge { bytes: usize },
    #[error("toolc could not read it back: {0}")]
    NotReadable(String),
    #[error(
        "it is not a regular file (a directory, a device or a pipe is there), and toolc \
         replaces only a file"
    )]
    NotAFile,
    #[error(
        "it is a symbolic link to {}, which is not a toolc.lock ({why}), and toolc replaces \
         what a link leads to only when it is one: remove the link, or point it at a lock",
        crate::terminal::path(.to)
    )]
    LinkedToOther { to: PathBuf, why: String },
}

/// How deep a definition may nest (an object or array in it one level
/// more), so that its lock file reads back: the file holds it four levels
/// down (the file, `sources`, the source, the tool), and toolc's JSON
/// reader stops at [`crate::json::MAX_DEPTH`].
pub const MAX_DEFINITION_DEPTH: usize = crate::json::MAX_DEPTH - 4;

/// The largest lock file read: far more than any project's pins.
const MAX_LOCK_BYTES: u64 = 256 << 20;

/// A tool's definition (see the module's docs).
pub fn definition(tool: &Tool) -> Value {
    let mut object = Map::new();
    object.insert("name".into(), Value::String(tool.name.clone()));
    if let Some(title) = &tool.title {
        object.insert("title".into(), Value::String(title.clone()));
    }
    if let Some(description) = &tool.description {
        object.insert("description".into(), Value::String(description.clone()));
    }
    if let Some(parameters) = &tool.parameters {
        object.insert("inputSchema".into(), Value::clone(parameters));
    }
    for member in ["outputSchema", "annotations"] {
        if let Some(value) = tool.extra.extensions.get(member) {
            object.insert(member.into(), value.clone());
        }
    }
    Value::Object(object)
}

/// The key of each named tool of a tool set among its source's pins, and
/// its index in the tool set, in the tool set's order.
///
/// A tool's key is its name. A name declared again in the same source is
/// pinned again, each declaration on its own (a model may be shown either,
/// and a review must have seen both): the second as `name#2`, the third
/// as `name#3`, and so on, skipping a number whose key is another tool's
/// name.
pub fn keyed(toolset: &ToolSet) -> Vec<(String, usize)> {
    let named = || toolset.tools.iter().filter(|tool| !tool.name.is_empty());
    let names: HashSet<&str> = named().map(|tool| tool.name.as_str()).collect();
    let mut declared: HashMap<&str, usize> = HashMap::new();
    let mut repeats: HashSet<String> = HashSet::new();
    let mut keys = Vec::new();
    for (index, tool) in toolset.tools.iter().enumerate() {
        if tool.name.is_empty() {
            continue;
        }
        let count = declared.entry(tool.name.as_str()).or_insert(0);
        *count += 1;
        if *count == 1 {
            keys.push((tool.name.clone(), index));
            continue;
        }
        let mut number = *count;
        let key = loop {
            let key = format!("{}#{number}", tool.name);
            if !names.contains(key.as_str()) && !repeats.contains(&key) {
                break key;
            }
            number += 1;
        };
        repeats.insert(key.clone());
        keys.push((key, index));
    }
    keys
}

/// Whether `key` is a key [`keyed`] gives a tool named `name`.
fn is_key_of(key: &str, name: &str) -> bool {
    key == name
        || key
            .strip_prefix(name)
            .and_then(|rest| rest.strip_prefix('#'))
            .is_some_and(|number| {
                !number.is_empty()
                    && number.bytes().all(|b| b.is_ascii_digit())
                    && !number.starts_with('0')
                    && number != "1"
            })
}

/// The definitions of a tool set's named tools by their keys ([`keyed`]),
/// in its order.
pub fn definitions(toolset: &ToolSet) -> Vec<(String, Value)> {
    keyed(toolset)
        .into_iter()
        .map(|(key, index)| (key, definition(&toolset.tools[index])))
        .collect()
}

impl Lock {
    /// The lock of `sources`: each source's path and its definitions.
    pub fn of(sources: impl IntoIterator<Item = (String, Vec<(String, Value)>)>) -> Lock {
        let mut lock = Lock::default();
        for (path, definitions) in sources {
            let pins = lock.sources.entry(path).or_default();
            for (name, definition) in definitions {
                pins.entry(name).or_insert(definition);
            }
        }
        lock
    }

    /// The pinned tools of the source at `path`.
    pub fn source(&self, path: &str) -> Option<&Pins> {
        self.sources.get(path)
    }

    /// How many tools are pinned.
    pub fn tools(&self) -> usize {
        self.sources.values().map(BTreeMap::len).sum()
    }

    /// The file's text (see the module's docs), refused when toolc could
    /// not read it back.
    pub fn to_text(&self) -> Result<String, Unwritable> {
        // Before anything recurses into the definitions.
        for (source, pins) in &self.sources {
            for (tool, definition) in pins {
                let depth = nesting(definition);
                if depth > MAX_DEFINITION_DEPTH {
                    return Err(Unwritable::TooDeep {
                        source_key: source.clone(),
                        tool: tool.clone(),
                        depth,
                    });
                }
            }
        }
        let text = self.unchecked_text();
        if u64::try_from(text.len()).map_or(true, |bytes| bytes > MAX_LOCK_BYTES) {
            return Err(Unwritable::TooLarge { bytes: text.len() });
        }
        // Whatever else the reader refuses: it is not written.
        match Lock::parse(&text) {
            Ok(_) => Ok(text),
            Err(Parse::Json(message) | Parse::Invalid(message)) => {
                Err(Unwritable::NotReadable(message))
            }
        }
    }

    fn unchecked_text(&self) -> String {
        let mut sources = Map::new();
        for (path, pins) in &self.sources {
            let mut tools = Map::new();
            for (name, definition) in pins {
                let mut pinned = Map::new();
                pinned.insert(
                    "sha256".into(),
                    Value::String(canonical::sha256(definition)),
                );
                pinned.insert("definition".into(), sorted(definition));
                tools.insert(name.clone(), Value::Object(pinned));
            }
            sources.insert(path.clone(), Value::Object(tools));
        }
        let mut file = Map::new();
        file.insert("version".into(), Value::from(VERSION));
        file.insert("sources".into(), Value::Object(sources));
        // Pretty JSON of a `Value` cannot fail (its keys are strings).
        let mut text = serde_json::to_string_pretty(&Value::Object(file)).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Reads the lock file at `path`.
    pub fn read(path: &Path) -> Result<Lock, LockError> {
        let read_error = |source| LockError::Read {
            path: path.to_path_buf(),
            source,
        };
        // Never a device, a pipe or a directory: reading one would hang or
        // grow without end.
        let metadata = std::fs::metadata(path).map_err(read_error)?;
        if !metadata.is_file() {
            return Err(read_error(std::io::Error::other(
                "it is not a regular file",
            )));
        }
        if metadata.len() > MAX_LOCK_BYTES {
            return Err(read_error(std::io::Error::other(format!(
                "it is larger than {MAX_LOCK_BYTES} bytes"
            ))));
        }
        let text = std::fs::read_to_string(path).map_err(read_error)?;
        Lock::parse(&text).map_err(|error| match error {
            Parse::Json(message) => LockError::NotJson {
                path: path.to_path_buf(),
                message,
            },
            Parse::Invalid(message) => LockError::Invalid {
                path: path.to_path_buf(),
                message,
            },
        })
    }

    /// The lock a file's text holds, read by toolc's own JSON reader
    /// (iterative, nesting up to [`crate::json::MAX_DEPTH`] levels; the one
    /// manifests are read with), not serde_json's (recursive, 128 levels).
    fn parse(text: &str) -> Result<Lock, Parse> {
        let shared: std::sync::Arc<str> = std::sync::Arc::from(text);
        let document = match crate::json::parse(&shared) {
            Ok(document) => document,
            Err(error) => return Err(Parse::of(text, &error)),
        };
        let invalid = |message: String| Err(Parse::Invalid(message));
        // toolc never writes a key twice. A reader of the file (a review
        // of its diff) sees the first occurrence, toolc would use the last:
        // a pin hidden behind another.
        if let Some(duplicate) = document.duplicate_keys.first() {
            let pointer = if duplicate.pointer.is_empty() {
                "the top level".to_string()
            } else {
                duplicate.pointer.clone()
            };
            return invalid(format!(
                "it repeats the key {:?} (at {pointer}), which toolc never writes twice",
                duplicate.key
            ));
        }
        let file = document.value;
        let Some(file) = file.as_object() else {
            return invalid("it holds no JSON object".into());
        };
        match file.get("version") {
            Some(version) if version.as_u64() == Some(VERSION) => {}
            // Any other value, a number or not (`1.0`, `"1"`), is shown
            // as written: "no version" would send the reader looking for
            // a member that is there.
            Some(other) => {
                return invalid(format!(
                    "its version is {other}, and this toolc reads version {VERSION}"
                ));
            }
            None => return invalid("it has no \"version\" member".into()),
        }
        let Some(sources) = file.get("sources").and_then(Value::as_object) else {
            return invalid("it has no \"sources\" object".into());
        };
        let mut lock = Lock::default();
        for (path, tools) in sources {
            let Some(tools) = tools.as_object() else {
                return invalid(format!("source {path:?} is not an object of tools"));
            };
            let pins = lock.sources.entry(path.clone()).or_default();
            for (name, pinned) in tools {
                let at = || format!("tool {name:?} of source {path:?}");
                let definition = pinned.get("definition").filter(|d| d.is_object());
                let sha256 = pinned.get("sha256").and_then(Value::as_str);
                let (Some(definition), Some(sha256)) = (definition, sha256) else {
                    return invalid(format!(
                        "{} lacks its \"definition\" object or its \"sha256\" string",
                        at()
                    ));
                };
                let named = definition.get("name").and_then(Value::as_str);
                if !named.is_some_and(|named| is_key_of(name, named)) {
                    return invalid(format!("{}: its definition names another tool", at()));
                }
                if canonical::sha256(definition) != sha256 {
                    return invalid(format!(
                        "{}: its sha256 is not the digest of its definition (edited by hand?)",
                        at()
                    ));
                }
                pins.insert(name.clone(), definition.clone());
            }
        }
        Ok(lock)
    }
}

enum Parse {
    /// Not JSON: why, and where.
    Json(String),
    Invalid(String),
}

impl Parse {
    /// What the reader's `error` says of `text`.
    fn of(text: &str, error: &crate::json::ParseError) -> Parse {
        match error.kind {
            crate::json::ParseErrorKind::Syntax => {
                let before = text.get(..error.offset).unwrap_or(text);
                let line = before.matches('\n').count() + 1;
                let column = before
                    .rsplit('\n')
                    .next()
                    .map_or(0, |last| last.chars().count())
                    + 1;
                Parse::Json(format!("{} at line {line}, column {column}", error.message))
            }
            crate::json::ParseErrorKind::TooDeep | crate::json::ParseErrorKind::TooLarge => {
                Parse::Invalid(format!("{}, more than toolc reads", error.message))
            }
        }
    }
}

/// How deep `value` nests: 0 for a scalar, 1 for an array or object of
/// scalars, and so on. Iterative: a value of any depth is measured.
fn nesting(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 1)];
    while let Some((value, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(members) => Box::new(members.values()),
            _ => continue,
        };
        deepest = deepest.max(depth);
        stack.extend(children.map(|child| (child, depth + 1)));
    }
    deepest
}

/// `value` with every object's members in canonical order, for the file:
/// a definition reads the same however its source ordered it.
fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(object) => Value::Object(
            canonical::sorted_members(object)
                .into_iter()
                .map(|(key, member)| (key.clone(), sorted(member)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// What a `--locked` run checks against: the lock, where it is, and what
/// a second listing of each live server in the same session gave.
#[derive(Debug, Clone, Default)]
pub struct Locked {
    pub lock: Lock,
    /// The lock file as messages name it.
    pub shown: String,
    /// For a live server's document (by its `mcp://` path), the
    /// definitions of its tools as a second `tools/list` in the same
    /// session gave them: a server that answers the same request
    /// differently within one session is drift too.
    pub relisted: BTreeMap<String, Vec<(String, Value)>>,
    /// The paths the run reads, as shown: a pinned file under one of them
    /// that the run did not read is gone.
    pub roots: Vec<String>,
    /// How the lock names the sources the run shows.
    pub keys: Keys,
}

impl Locked {
    /// Whether a pinned source (by its key) the run did not read was
    /// among its inputs: a file under one of its roots (a live server not
    /// named is not looked at).
    pub fn covers(&self, source: &str) -> bool {
        self.roots.iter().any(|root| self.keys.under(source, root))
    }

    /// The pins of the source shown as `shown`.
    pub fn pins(&self, shown: &str) -> Option<&Pins> {
        self.lock.source(&self.keys.key(shown))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn example() -> Lock {
        Lock::of([(
            "tools.json".to_string(),
            vec![(
                "get_time".to_string(),
                json!({"name": "get_time", "description": "Tell the time in a zone.",
                       "inputSchema": {"type": "object", "required": ["zone"],
                        "properties": {"zone": {"type": "string", "description": "IANA name, e.g. Europe/Paris"}}}}),
            )],
        )])
    }

    #[test]
    fn the_worked_example_of_the_docs() {
        let lock = example();
        let definition = &lock.sources["tools.json"]["get_time"];
        assert_eq!(
            canonical::to_string(definition),
            r#"{"description":"Tell the time in a zone.","inputSchema":{"properties":{"zone":{"description":"IANA name, e.g. Europe/Paris","type":"string"}},"required":["zone"],"type":"object"},"name":"get_time"}"#
        );
        assert_eq!(
            canonical::sha256(definition),
            "12f9bbf04c50241d000f616d7f0d36b400f5371d97aa6a332a7578b149254641"
        );
    }

    #[test]
    fn the_text_reads_back_and_ends_with_a_newline() {
        let lock = example();
        let text = lock.to_text().unwrap();
        assert!(text.ends_with("}\n"), "{text}");
        assert!(text.contains("\"sha256\": \"12f9bbf0"), "{text}");
        assert_eq!(Lock::parse(&text).ok(), Some(lock));
    }

    #[test]
    fn an_edited_definition_is_refused() {
        let text = example()
            .to_text()
            .unwrap()
            .replace("Tell the time", "Tell the tim");
        let Err(Parse::Invalid(message)) = Lock::parse(&text) else {
            panic!("accepted");
        };
        assert!(message.contains("edited by hand"), "{message}");
        assert!(matches!(
            Lock::parse("{\"version\": 1, \"sources\": "),
            Err(Parse::Json(_))
        ));
        assert!(matches!(Lock::parse("[]"), Err(Parse::Invalid(_))));
        // A repeated key: a review reads the first, a reader the last.
        let repeated = example().to_text().unwrap().replacen(
            "\"sources\": {",
            "\"sources\": {\"tools.json\": {},",
            1,
        );
        let Err(Parse::Invalid(message)) = Lock::parse(&repeated) else {
            panic!("accepted a repeated key");
        };
        assert!(
            message.contains("repeats the key \"tools.json\" (at /sources/tools.json)"),
            "{message}"
        );
        for (version, shown) in [
            ("2", "2"),
            ("1.0", "1.0"),
            ("\"1\"", "\"1\""),
            ("null", "null"),
        ] {
            let text = format!("{{\"version\": {version}, \"sources\": {{}}}}");
            let Err(Parse::Invalid(message)) = Lock::parse(&text) else {
                panic!("accepted version {version}");
            };
            assert!(
                message.contains(&format!(
                    "its version is {shown}, and this toolc reads version 1"
                )),
                "{message}"
            );
        }
        let Err(Parse::Invalid(message)) = Lock::parse("{\"sources\": {}}") else {
            panic!("accepted a lock without a version");
        };
        assert!(message.contains("no \"version\" member"), "{message}");
    }

    /// A definition `depth` levels deep: an object holding arrays.
    fn nested(depth: usize) -> Lock {
        let mut value = json!([]);
        for _ in 2..depth {
            value = json!([value]);
        }
        Lock::of([(
            "deep.json".to_string(),
            vec![("t".to_string(), json!({"name": "t", "inputSchema": value}))],
        )])
    }

    #[test]
    fn what_is_written_reads_back_and_deeper_is_refused() {
        let deepest = nested(MAX_DEFINITION_DEPTH);
        let text = deepest.to_text().unwrap();
        assert_eq!(Lock::parse(&text).ok(), Some(deepest));
        match nested(MAX_DEFINITION_DEPTH + 1).to_text() {
            Err(Unwritable::TooDeep { depth, tool, .. }) => {
                assert_eq!((depth, tool.as_str()), (MAX_DEFINITION_DEPTH + 1, "t"));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(nesting(&json!(1)), 0);
        assert_eq!(nesting(&json!({"a": [1, {"b": []}], "c": {}})), 4);
    }

    #[test]
    fn a_repeated_name_is_pinned_once_per_declaration() {
        let tool = |name: &str| Tool::new(name.into(), String::new(), String::new());
        let toolset = ToolSet {
            path: "tools.json".into(),
            format: crate::ir::Format::Mcp,
            package: None,
            tools: ["a", "a", "a#2", "", "a", "b"].map(tool).to_vec(),
            carried: Vec::new(),
        };
        let keys: Vec<(String, usize)> = keyed(&toolset);
        let keys: Vec<(&str, usize)> = keys.iter().map(|(k, i)| (k.as_str(), *i)).collect();
        assert_eq!(
            keys,
            [("a", 0), ("a#3", 1), ("a#2", 2), ("a#4", 4), ("b", 5)]
        );
        let lock = Lock::of([("tools.json".to_string(), definitions(&toolset))]);
        assert_eq!(Lock::parse(&lock.to_text().unwrap()).ok(), Some(lock));
        assert!(is_key_of("a#2", "a") && is_key_of("a#10", "a") && is_key_of("a#2", "a#2"));
        assert!(!is_key_of("a#1", "a") && !is_key_of("a#02", "a") && !is_key_of("a#", "a"));
        assert!(!is_key_of("b", "a") && !is_key_of("ab", "a") && !is_key_of("a#2x", "a"));
    }

    #[test]
    fn a_run_covers_the_files_under_its_roots() {
        let locked = Locked {
            roots: vec!["tools".into()],
            ..Locked::default()
        };
        assert!(locked.covers("tools/a.json"));
        for root in [".", "./", "tools/", "./tools"] {
            let locked = Locked {
                roots: vec![root.into()],
                ..Locked::default()
            };
            assert!(locked.covers("tools/a.json"), "{root}");
        }
        assert!(!locked.covers("toolsmith/a.json"));
        assert!(!locked.covers("mcp://time"));
    }
}
