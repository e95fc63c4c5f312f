//! Manifest formats: detection and lowering into the IR.
//!
//! One module per format. Lowering is tolerant: it takes what it can from a
//! manifest that may be broken and leaves the reporting to the rules, which
//! see both the raw document and the IR. Detection ([`detect`]) goes by file
//! name first, then by content, and content that clearly is another format
//! wins over the name (an OpenAI tool list saved as `tools.json`); generic
//! names (`config.json`, `manifest.json`) are only claimed when the content
//! looks like the format, so no run lints a web app's `manifest.json` as a
//! Nachos package.

pub(crate) mod agentcli;
pub(crate) mod agentcli_command;
pub(crate) mod agentstack;
pub(crate) mod agentstack_python;
pub mod carry;
pub(crate) mod gemini;
pub(crate) mod nachos;
pub(crate) mod nora;
mod provider;
pub(crate) mod schema;

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::ir::{Format, SharedValue, ToolSet};
use crate::json::{self, Document};

/// The name of the file a format's manifest is, for the formats whose
/// manifests have one (detection reads it, writers name their files so);
/// provider tool JSON can be any `.json` file.
pub fn file_name(format: Format) -> Option<&'static str> {
    match format {
        Format::Nora => Some(nora::FILE_NAME),
        Format::Agentcli => Some(agentcli::FILE_NAME),
        Format::Agentstack => Some(agentstack::FILE_NAME),
        Format::Nachos => Some(nachos::FILE_NAME),
        Format::Openai
        | Format::OpenaiResponses
        | Format::Gemini
        | Format::Anthropic
        | Format::Mcp => None,
    }
}

/// The format a file name implies, if any.
pub fn format_by_file_name(file_name: &str) -> Option<Format> {
    if nachos::is_manifest_file_name(file_name) {
        return Some(Format::Nachos);
    }
    Format::ALL
        .into_iter()
        .find(|format| self::file_name(*format) == Some(file_name))
}

/// Whether a file name's format holds without looking at the content. Names
/// that many other tools also use need the content to agree.
pub fn file_name_is_specific(format: Format) -> bool {
    matches!(format, Format::Nora | Format::Agentcli)
}

/// Whether tools of this format run somewhere (a program, a script, a
/// package's code), rather than only being described to a model.
pub fn declares_runtime(format: Format) -> bool {
    matches!(
        format,
        Format::Nora | Format::Agentcli | Format::Agentstack | Format::Nachos
    )
}

/// A name many programs other than agent frameworks use for their own
/// JSON (`config.json`, `manifest.json`): a file so named is a manifest
/// only when its content says so, even when named on the command line.
pub fn file_name_is_generic(file_name: &str) -> bool {
    format_by_file_name(file_name).is_some_and(|format| !file_name_is_specific(format))
}

/// Whether the text of a file with a generic name that does not parse
/// still names the members of the format its name implies: a broken
/// AgentStack `config.json` (`"tools"` beside `"name"` or `"category"`)
/// or Nachos manifest (`"provides"`, or `"type"` and `"capabilities"`) is
/// reported, a broken settings file is not.
pub fn text_names_members(format: Format, text: &str) -> bool {
    let has = |key: &str| text.contains(&format!("\"{key}\""));
    match format {
        Format::Agentstack => has("tools") && (has("name") || has("category")),
        Format::Nachos => has("provides") || has("type") && has("capabilities"),
        _ => false,
    }
}

/// How a file's format was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decided {
    /// `--input-format` named it.
    Forced,
    /// The file name implies it (and, for a generic name, the content
    /// agrees).
    ByName,
    /// The content: the name implies no format, or `named`, which the
    /// content clearly is not.
    ByContent { named: Option<Format> },
}

/// A file's format, how it was decided, and what else it reads as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Detection {
    pub format: Format,
    pub decided: Decided,
    /// Another format the content looks like, when the name decided: a
    /// file that fails as its name's format may be this one.
    pub reads_as: Option<Format>,
}

/// Decides the format of a parsed file named `file_name`; `None` when it
/// is no tool manifest. Content wins over the name when it clearly is
/// another format (an OpenAI tool list saved as `tools.json`).
///
/// `package_code_beside` says whether the file has its package's code
/// beside it (an `__init__.py` next to a `config.json`): an AgentStack
/// config without a `category` is one then, and only then.
pub fn detect(
    file_name: &str,
    forced: Option<Format>,
    value: &Value,
    package_code_beside: bool,
) -> Option<Detection> {
    let decided = |format, decided| Detection {
        format,
        decided,
        reads_as: None,
    };
    if let Some(forced) = forced {
        return Some(decided(forced, Decided::Forced));
    }
    let named = format_by_file_name(file_name);
    match named {
        Some(format) if file_name_is_specific(format) => {
            match clear_format(value).filter(|clear| *clear != format) {
                Some(clear) => Some(decided(clear, Decided::ByContent { named })),
                None => Some(Detection {
                    reads_as: looks_like(value).filter(|other| *other != format),
                    ..decided(format, Decided::ByName)
                }),
            }
        }
        // A provider tool list under a generic name is one, whatever else
        // is beside it.
        Some(_) if clear_format(value).is_some_and(|f| !declares_runtime(f)) => {
            clear_format(value).map(|format| decided(format, Decided::ByContent { named }))
        }
        Some(format) if content_matches(format, value, package_code_beside) => {
            Some(decided(format, Decided::ByName))
        }
        _ => detect_by_content(value).map(|format| decided(format, Decided::ByContent { named })),
    }
}

/// Whether `value` plausibly is a manifest of `format` whose generic name
/// implies it.
fn content_matches(format: Format, value: &Value, package_code_beside: bool) -> bool {
    match format {
        Format::Agentstack => {
            is_agentstack_config(value) || package_code_beside && names_agentstack_members(value)
        }
        Format::Nachos => is_nachos_manifest(value),
        _ => false,
    }
}

/// An AgentStack `config.json`: the package's `name` and `category`, and
/// its `tools`, a list of function names or a map of permission objects
/// (even an empty or broken map: lint says what is wrong with it). A web
/// project's `config.json` (`{"name": "site", "tools": ["eslint"]}`) has
/// no `category`.
fn is_agentstack_config(value: &Value) -> bool {
    let Some(object) = value.as_object() else {
        return false;
    };
    let tools = match object.get("tools") {
        Some(Value::Array(names)) => names.iter().all(Value::is_string),
        Some(Value::Object(_)) => true,
        _ => false,
    };
    tools && object.contains_key("name") && object.contains_key("category")
}

/// The members an AgentStack config has, loosely: a `tools` list or map
/// beside `name` or `category`. Enough when the package's code is beside
/// the file; a hint otherwise.
fn names_agentstack_members(value: &Value) -> bool {
    let Some(object) = value.as_object() else {
        return false;
    };
    let tools = matches!(
        object.get("tools"),
        Some(Value::Array(_) | Value::Object(_))
    );
    tools && (object.contains_key("category") || object.contains_key("name"))
}

/// Whether `value` holds agentcli tools: a list (the document, or its
/// `tools` member) that is empty or has a tool object in it. A
/// `tools.json` that lists strings (a build tool's, an editor's) is no
/// agentcli manifest.
pub fn holds_agentcli_tools(value: &Value) -> bool {
    list_entries(value).is_some_and(|items| items.is_empty() || items.iter().any(Value::is_object))
}

fn is_nachos_manifest(value: &Value) -> bool {
    value.as_object().is_some_and(|o| {
        o.contains_key("provides")
            || matches!(
                o.get("type").and_then(Value::as_str),
                Some("tool" | "channel" | "core")
            ) && o.contains_key("capabilities")
    })
}

/// The format of a tool entry, by the member only that format has.
fn entry_format(entry: &Value) -> Option<Format> {
    let object = entry.as_object()?;
    let signs = [
        (
            object.get("function").is_some_and(Value::is_object),
            Format::Openai,
        ),
        (is_responses_tool(object), Format::OpenaiResponses),
        (gemini::is_gemini_tool(entry), Format::Gemini),
        (object.contains_key("inputSchema"), Format::Mcp),
        (object.contains_key("input_schema"), Format::Anthropic),
        (object.contains_key("command"), Format::Agentcli),
    ];
    let mut found = signs.iter().filter(|(sign, _)| *sign).map(|(_, f)| *f);
    match (found.next(), found.next()) {
        (Some(format), None) => Some(format),
        _ => None,
    }
}

/// A Responses API function tool: `{"type": "function", "name", ...}`,
/// the Chat Completions tool without its `function` wrapper.
fn is_responses_tool(object: &Map<String, Value>) -> bool {
    object.get("type").and_then(Value::as_str) == Some("function")
        && !object.contains_key("function")
        && object.contains_key("name")
}

/// The two shapes of OpenAI function tools, as messages name them.
fn openai_shape(format: Format) -> &'static str {
    match format {
        Format::OpenaiResponses => {
            "a Responses API function tool ({\"type\": \"function\", \"name\", ...})"
        }
        _ => "a Chat Completions function tool ({\"type\": \"function\", \"function\": {...}})",
    }
}

/// Where a tool list mixes OpenAI's two shapes (Chat Completions' and the
/// Responses API's), which no OpenAI endpoint takes: the pointer of the
/// first entry whose shape differs from the first entry's, and a message
/// that says which entry is which.
pub fn mixed_openai_shapes(value: &Value) -> Option<(String, String)> {
    let entries = tool_entries(value);
    let shape = |entry: &Value| {
        entry_format(entry).filter(|f| matches!(f, Format::Openai | Format::OpenaiResponses))
    };
    let (first_at, first) = entries
        .iter()
        .find_map(|(at, entry)| shape(entry).map(|f| (at.clone(), f)))?;
    let (other_at, other) = entries.iter().find_map(|(at, entry)| {
        shape(entry)
            .filter(|f| *f != first)
            .map(|f| (at.clone(), f))
    })?;
    let message = format!(
        "this tool list mixes OpenAI's two shapes: the entry at {first_at} is {}, the entry at \
         {other_at} is {}; an OpenAI request takes one (Chat Completions' or the Responses \
         API's), so write every entry in that one",
        openai_shape(first),
        openai_shape(other)
    );
    Some((other_at, message))
}

/// The tool entries of a list document (`[...]` or `{"tools": [...]}`).
fn list_entries(value: &Value) -> Option<&Vec<Value>> {
    match value {
        Value::Array(items) => Some(items),
        Value::Object(object) => object.get("tools")?.as_array(),
        _ => None,
    }
}

/// The format the content unmistakably is, whatever the file's name: a
/// tool list whose every entry carries one format's own member, or one
/// tool of a format that declares a tool per file.
fn clear_format(value: &Value) -> Option<Format> {
    if let Some(items) = list_entries(value) {
        let first = entry_format(items.first()?)?;
        return items
            .iter()
            .all(|item| entry_format(item) == Some(first))
            .then_some(first);
    }
    if gemini::is_gemini_document(value) {
        return Some(Format::Gemini);
    }
    let object = value.as_object()?;
    if object.contains_key("entrypoint") && object.contains_key("parameters") {
        return Some(Format::Nora);
    }
    match entry_format(value)? {
        Format::Mcp | Format::Anthropic if object.contains_key("name") => entry_format(value),
        _ => None,
    }
}

/// What the content looks like at first sight (its first tool entry, its
/// top-level members): said as a hint, never decided on.
fn looks_like(value: &Value) -> Option<Format> {
    detect_by_content(value)
        .or_else(|| names_agentstack_members(value).then_some(Format::Agentstack))
        .or_else(|| is_nachos_manifest(value).then_some(Format::Nachos))
}

/// Recognizes a manifest by its shape alone.
pub fn detect_by_content(value: &Value) -> Option<Format> {
    if gemini::is_gemini_document(value) {
        return Some(Format::Gemini);
    }
    match value {
        Value::Array(items) => items
            .first()
            .and_then(entry_format)
            .filter(|f| *f != Format::Agentcli),
        Value::Object(object) => {
            if let Some(Value::Array(items)) = object.get("tools") {
                return items.first().and_then(entry_format);
            }
            if object.contains_key("name") && object.contains_key("inputSchema") {
                Some(Format::Mcp)
            } else if object.contains_key("name") && object.contains_key("input_schema") {
                Some(Format::Anthropic)
            } else if object.contains_key("entrypoint") && object.contains_key("parameters") {
                Some(Format::Nora)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Lowers a parsed manifest into the IR.
pub fn lower(format: Format, document: &Arc<Document>, path: &str) -> ToolSet {
    let value = &document.value;
    let (package, tools) = match format {
        Format::Nora => (None, nora::lower(value)),
        Format::Agentcli => (None, agentcli::lower(value)),
        Format::Agentstack => agentstack::lower(value),
        Format::Nachos => nachos::lower(value),
        Format::Openai => (None, provider::lower_openai(value)),
        Format::OpenaiResponses => (None, provider::lower_responses(value)),
        Format::Gemini => (None, gemini::lower(value)),
        Format::Anthropic => (None, provider::lower_anthropic(value)),
        Format::Mcp => (None, provider::lower_mcp(value)),
    };
    let mut toolset = ToolSet {
        path: path.to_string(),
        format,
        package,
        tools,
        carried: Vec::new(),
    };
    for tool in &mut toolset.tools {
        let Some(at) = tool.parameters_at.as_deref() else {
            continue;
        };
        // A dialect is translated; standard JSON Schema is shared with
        // the document, not copied.
        let translated =
            json::value_at(value, at).and_then(|raw| translated_parameters(format, raw));
        let parameters = match translated {
            Some(translated) => Some(SharedValue::new(translated)),
            None => SharedValue::part_of(document, at),
        };
        if parameters.is_some() {
            tool.parameters = parameters;
        }
    }
    carry::collect(value, &mut toolset);
    if format == Format::Agentcli {
        agentcli::record_layouts(document, &mut toolset.tools);
    }
    // What a tool's "x-toolc" gave may be empty after all.
    for tool in &mut toolset.tools {
        tool.extra.share_if_default();
    }
    toolset
}

/// A tool's parameters as standard JSON Schema, from its format's dialect.
pub fn standard_parameters(format: Format, raw: &Value) -> Value {
    translated_parameters(format, raw).unwrap_or_else(|| raw.clone())
}

/// [`standard_parameters`] of a format that writes them in a dialect of
/// its own; `None` for one that writes standard JSON Schema already.
fn translated_parameters(format: Format, raw: &Value) -> Option<Value> {
    match format {
        Format::Nora => Some(nora::lower_parameters(raw)),
        Format::Gemini => Some(gemini::lower_parameters(raw)),
        _ => None,
    }
}

fn string_field(object: &Map<String, Value>, key: &str) -> Option<String> {
    object.get(key).and_then(Value::as_str).map(str::to_string)
}

fn string_list(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The key that names a document's own JSON Schema (for editors and
/// validators): accepted at the root of every format, and no part of any
/// tool, so no writer carries it.
pub(crate) const SCHEMA_KEY: &str = "$schema";

/// The members of `object` whose keys are not in `known` (nor
/// [`SCHEMA_KEY`]).
fn extensions(object: &Map<String, Value>, known: &[&str]) -> BTreeMap<String, Value> {
    unknown_members(object, known).collect()
}

/// The members of `object` a reader does not know.
fn unknown_members<'a>(
    object: &'a Map<String, Value>,
    known: &'a [&str],
) -> impl Iterator<Item = (String, Value)> + 'a {
    object
        .iter()
        .filter(|(k, _)| !known.contains(&k.as_str()) && k.as_str() != SCHEMA_KEY)
        .map(|(k, v)| (k.clone(), v.clone()))
}

/// A tool's unknown members, in key order, in a map of their own size: a
/// B-tree's first node has room for eleven members (over a kilobyte), and
/// every tool of a manifest can have one.
fn tool_extensions(object: &Map<String, Value>, known: &[&str]) -> Map<String, Value> {
    let mut members: Vec<(String, Value)> = unknown_members(object, known).collect();
    members.sort_by(|a, b| a.0.cmp(&b.0));
    let mut map = Map::with_capacity(members.len());
    map.extend(members);
    map
}

/// The tool list of a document that is an array of tools or `{"tools": [...]}`,
/// with the pointer of each entry.
fn tool_entries(value: &Value) -> Vec<(String, &Value)> {
    let (base, items) = match value {
        Value::Array(items) => ("", items),
        Value::Object(object) => match object.get("tools") {
            Some(Value::Array(items)) => ("/tools", items),
            _ => return Vec::new(),
        },
        _ => return Vec::new(),
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| (format!("{base}/{i}"), item))
        .collect()
}

/// The tools `lower` makes of a manifest's tool entries (an entry that is
/// no tool object makes none), in a vector sized once: collected by
/// doubling, 300,000 tools of 488 bytes would leave a copy of half of
/// them behind while the last one is made.
fn lower_entries<'v>(
    entries: Vec<(String, &'v Value)>,
    lower: impl FnMut((String, &'v Value)) -> Option<crate::ir::Tool>,
) -> Vec<crate::ir::Tool> {
    let mut tools = Vec::with_capacity(entries.len());
    tools.extend(entries.into_iter().filter_map(lower).map(|mut tool| {
        // A reader that set an empty field made the tool a copy of its own.
        tool.extra.share_if_default();
        tool
    }));
    tools
}

/// [`no_parameters`], shared: what the IR gives every tool that declares
/// no parameters, one value however many tools there are.
pub fn no_parameters_shared() -> SharedValue {
    static SHARED: std::sync::LazyLock<std::sync::Arc<Value>> =
        std::sync::LazyLock::new(|| std::sync::Arc::new(no_parameters()));
    SharedValue::from(std::sync::Arc::clone(&SHARED))
}

/// An empty parameter schema: what a tool that takes no arguments has,
/// and what writers give a tool whose parameters are unknown.
pub fn no_parameters() -> Value {
    // Sized for its two members: every agentcli or provider tool without
    // a schema has one.
    let mut schema = Map::with_capacity(2);
    schema.insert("type".to_string(), Value::from("object"));
    schema.insert("properties".to_string(), Value::Object(Map::new()));
    Value::Object(schema)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_schemas_are_the_documents_own_and_dialects_are_translated() {
        let text = r#"{"tools": [{"name": "a", "inputSchema": {"type": "object"}}]}"#;
        let document = Arc::new(json::parse(&Arc::from(text)).unwrap());
        let set = lower(Format::Mcp, &document, "tools.json");
        let parameters = set.tools[0].parameters.as_deref().unwrap();
        assert!(std::ptr::eq(
            parameters,
            &document.value["tools"][0]["inputSchema"]
        ));

        let text = r#"{"name": "a", "description": "d", "entrypoint": "main.py",
            "parameters": {"type": "object", "properties": {"q": {"type": "string", "required": true}}}}"#;
        let document = Arc::new(json::parse(&Arc::from(text)).unwrap());
        let set = lower(Format::Nora, &document, "tool.json");
        let parameters = set.tools[0].parameters.as_deref().unwrap();
        assert!(!std::ptr::eq(parameters, &document.value["parameters"]));
        assert_eq!(
            *parameters,
            standard_parameters(Format::Nora, &document.value["parameters"])
        );
    }

    #[test]
    fn file_names_imply_their_formats() {
        for format in Format::ALL {
            if let Some(name) = file_name(format) {
                assert_eq!(format_by_file_name(name), Some(format), "{name}");
            }
        }
        assert_eq!(
            format_by_file_name("manifest.browser.json"),
            Some(Format::Nachos)
        );
        assert_eq!(format_by_file_name("tools.yaml"), None);
        assert_eq!(format_by_file_name("openai.json"), None);
        for generic in ["config.json", "manifest.json", "manifest.browser.json"] {
            assert!(file_name_is_generic(generic), "{generic}");
        }
        for specific in ["tool.json", "tools.json", "openai.json"] {
            assert!(!file_name_is_generic(specific), "{specific}");
        }
    }
}
