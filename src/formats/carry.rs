//! Format-specific fields and the `"x-toolc"` object that carries them.
//!
//! The IR models what formats share (name, title, description,
//! parameters); every format also has fields only it can express. A full
//! lowering keeps those as [`Carried`] values, as written, keyed by their
//! format: a tool's in [`crate::ir::Tool::carried`], a package's or file's
//! in [`crate::ir::ToolSet::carried`]. A converter writes the carried
//! fields of its own format natively and puts the others in an
//! `"x-toolc"` object where the format tolerates extra keys:
//!
//! ```json
//! {"x-toolc": {
//!   "agentcli": {"command": ["./bin/fetch"], "timeoutSec": 30},
//!   "set": {"agentstack": {"name": "web", "category": "web-retrieval"}},
//!   "description": "...", "parameters": {"type": "object"}
//! }}
//! ```
//!
//! `set` holds package- or file-level fields when the target has no place
//! for them but its tools. `name` (with `name_as`, the name it stands
//! for), `description` and `parameters` are written only where the
//! format cannot say them exactly: an AgentStack tool's name must be a
//! Python identifier and its parameters and description live in a
//! function whose signature and docstring cannot say
//! everything a JSON Schema says; NORA's parameter dialect has no room for
//! a property's own `required` list. The `parameters` copy is used while
//! the manifest's (or code's) own parameters keep the same names (see
//! [`signature`]); names the code had to change (`max-bytes` is
//! `max_bytes`, `self` is `self_`) are recorded in `parameter_names` and
//! mapped back first (see [`PARAMETER_NAMES`]). Reading such a manifest
//! brings every field back.
//!
//! A carried agentcli `command` (with its `timeoutSec` and
//! `envPassthrough`) is also how the tool runs: lowering makes it the
//! tool's [`Runtime::Command`] (see [`command_runtime`]), so that nothing
//! after the front end reads carried JSON to learn how to run a tool. The
//! carried copy stays, for writers: they write carried fields, never the
//! runtime, so the command is written once.

use serde_json::{Map, Value};

use crate::ir::{Carried, Format, Layout, LayoutPieces, Runtime, Tool, ToolSet};
use crate::json;

/// The key of toolc's carrier object.
pub const X_TOOLC: &str = "x-toolc";
/// The key, inside `"x-toolc"`, of package- or file-level fields.
pub const SET: &str = "set";

/// The member of `"x-toolc"` that marks a manifest `toolc gen` wrote from
/// others (the NORA `tool.json` and AgentStack `config.json` of
/// `gen python`): its value says what wrote it. Such a manifest is a view
/// of its sources when they are read with it (see
/// [`crate::project::views`]), not a second declaration of their tools.
pub const GENERATED: &str = "generated";

/// Marks `manifest` (a JSON object) as written by `writer`.
pub fn mark_generated(manifest: &mut Value, writer: &str) {
    let Some(object) = manifest.as_object_mut() else {
        return;
    };
    let x = object
        .entry(X_TOOLC)
        .or_insert_with(|| Value::Object(serde_json::Map::new()));
    if let Some(x) = x.as_object_mut() {
        x.insert(GENERATED.to_string(), Value::String(writer.to_string()));
    }
}

/// Whether `manifest` carries the mark of [`mark_generated`].
pub fn is_generated(manifest: &Value) -> bool {
    manifest
        .get(X_TOOLC)
        .and_then(|x| x.get(GENERATED))
        .is_some_and(Value::is_string)
}

/// The keys of a tool object that the IR models, by format: they are
/// written from the IR, never carried.
pub fn portable_keys(format: Format) -> &'static [&'static str] {
    match format {
        Format::Nora => &["name", "description", "parameters"],
        Format::Agentcli => &["name", "description", "schema"],
        Format::Agentstack => &[],
        // `type` is always "tool" for a tool (what makes it one).
        Format::Nachos => &["name", "type", "description"],
        Format::Openai => &["type"],
        Format::OpenaiResponses => &["type", "name", "description", "parameters"],
        Format::Gemini => super::gemini::DECLARATION_KEYS,
        Format::Anthropic => &["name", "description", "input_schema"],
        Format::Mcp => &["name", "title", "description", "inputSchema"],
    }
}

/// Members of a tool object whose object value holds IR-modelled keys
/// beside format-specific ones: only the latter are carried, and carried
/// members merge into what the writer builds.
pub fn nested_keys(format: Format) -> &'static [(&'static str, &'static [&'static str])] {
    match format {
        Format::Nachos => &[("provides", &["tool"])],
        Format::Openai => &[("function", &["name", "description", "parameters"])],
        Format::Mcp => &[("_meta", &[X_TOOLC])],
        _ => &[],
    }
}

/// Where a tool's `"x-toolc"` object is, relative to the tool object.
pub fn x_toolc_in_tool(format: Format) -> &'static [&'static str] {
    match format {
        Format::Mcp => &["_meta", X_TOOLC],
        _ => &[X_TOOLC],
    }
}

/// The member of a tool's `"x-toolc"` that lists the rules (names, codes
/// or code prefixes) whose findings about the tool lint does not report:
/// `{"x-toolc": {"ignore": ["invalid-tool-name", "TC3"]}}`. It is lint's,
/// not the tool's: it is never carried into another manifest, nor into
/// what `toolc gen` writes or `toolc serve` lists.
pub const IGNORE: &str = "ignore";

/// Whether a tool object of `format` has room for an `"x-toolc"` object:
/// toolc's own manifests and MCP's `_meta` do; OpenAI, Anthropic and
/// Gemini refuse keys they do not know.
pub fn has_x_toolc(format: Format) -> bool {
    matches!(
        format,
        Format::Nora | Format::Agentcli | Format::Agentstack | Format::Nachos | Format::Mcp
    )
}

/// The pointers, outermost first, of the members that lead from the tool
/// at `origin` to its [`IGNORE`] list (`_meta`, `x-toolc`, `ignore` in
/// MCP): what is left empty once an entry goes is removed up to the tool.
pub fn ignore_path(format: Format, origin: &str) -> Vec<String> {
    let mut at = origin.to_string();
    x_toolc_in_tool(format)
        .iter()
        .chain(std::iter::once(&IGNORE))
        .map(|key| {
            json::push_token(&mut at, key);
            at.clone()
        })
        .collect()
}

/// Takes an MCP tool's [`IGNORE`] list out of the `_meta` it keeps among
/// its extensions (which gen writes back), with what that leaves empty.
fn drop_ignore_from_meta(tool: &mut Tool) {
    let holds = |tool: &Tool| {
        tool.extra
            .extensions
            .get("_meta")
            .and_then(|meta| meta.get(X_TOOLC))
            .is_some_and(|x| x.get(IGNORE).is_some())
    };
    if !holds(tool) {
        return;
    }
    let extensions = &mut tool.extra.extensions;
    let Some(Value::Object(meta)) = extensions.get_mut("_meta") else {
        return;
    };
    if let Some(Value::Object(x)) = meta.get_mut(X_TOOLC) {
        x.shift_remove(IGNORE);
        if x.is_empty() {
            meta.shift_remove(X_TOOLC);
        }
    }
    if meta.is_empty() {
        extensions.shift_remove("_meta");
    }
}

/// The pointer of the `"x-toolc"` object of the tool at `origin`.
fn x_toolc_pointer(format: Format, origin: &str) -> String {
    x_toolc_in_tool(format)
        .iter()
        .fold(origin.to_string(), |at, key| json::join(&at, key))
}

/// Whether the set's root object (not a tool) holds set-level fields.
fn root_is_set(format: Format, value: &Value) -> bool {
    match format {
        Format::Agentcli | Format::Agentstack => value.is_object(),
        Format::Openai | Format::OpenaiResponses | Format::Anthropic | Format::Mcp => {
            value.as_object().is_some_and(|o| o.contains_key("tools"))
        }
        // A Gemini document's root is a tool object (or a request): its
        // other members are Gemini's, none of a tool set.
        Format::Nora | Format::Nachos | Format::Gemini => false,
    }
}

/// The set-level keys the IR models (the tool list).
const SET_PORTABLE: &[&str] = &["tools"];

/// Whether `key` is a member every MCP `tools/list` result has (toolc
/// writes them): the document's, not a field to carry.
fn is_list_result_member(key: &str) -> bool {
    crate::providers::mcp::list_result_members()
        .iter()
        .any(|(member, _)| *member == key)
}

/// Fills in the carried fields of `toolset`, read from its manifest
/// `value`: the format's own fields and whatever an `"x-toolc"` object
/// brings. Also restores a description and parameters an `"x-toolc"`
/// object keeps, where the manifest itself says none.
pub(super) fn collect(value: &Value, toolset: &mut ToolSet) {
    let format = toolset.format;
    let mut set_carried = Vec::new();
    if root_is_set(format, value)
        && let Some(root) = value.as_object()
    {
        for (key, member) in root {
            if key == X_TOOLC {
                read_formats(member, &json::join("", X_TOOLC), &mut set_carried);
            } else if !SET_PORTABLE.contains(&key.as_str())
                && key != super::SCHEMA_KEY
                && !(format == Format::Mcp && is_list_result_member(key))
            {
                set_carried.push(Carried {
                    format,
                    key: key.clone(),
                    value: member.clone(),
                    at: json::join("", key),
                });
            }
        }
    }
    if format == Format::Gemini {
        set_carried.extend(super::gemini::other_tools(value));
    }
    if root_is_set(format, value)
        && let Some(x) = value.get(X_TOOLC).and_then(Value::as_object)
    {
        let unchanged = drop_assumed(&mut set_carried, format, value, &assumed_fields(x));
        forget_made_up_package(toolset.package.as_mut(), &unchanged);
    }
    for tool in &mut toolset.tools {
        if format == Format::Mcp {
            drop_ignore_from_meta(tool);
        }
        let Some(tool_value @ Value::Object(object)) = json::value_at(value, &tool.origin) else {
            continue;
        };
        let own = own_fields(format, object, &tool.origin);
        // Written only when there is something: a tool without extra
        // fields keeps sharing the empty ones (see `Tool::extra`).
        if !own.is_empty() || !tool.extra.carried.is_empty() {
            tool.extra.carried = own;
        }
        let x_at = x_toolc_pointer(format, &tool.origin);
        let Some(x_value) = json::value_at(value, &x_at) else {
            continue;
        };
        let Some(x) = x_value.as_object() else {
            continue;
        };
        let mut from_x = Vec::new();
        read_formats(x_value, &x_at, &mut from_x);
        add_missing(&mut tool.extra.carried, from_x);
        if let Some(set) = x.get(SET) {
            let mut from_set = Vec::new();
            read_formats(set, &json::join(&x_at, SET), &mut from_set);
            add_missing(&mut set_carried, from_set);
        }
        // The name a format could not spell, while the tool still has the
        // name it was given in its place (`name_as`): a renamed function is
        // a new name.
        if let Some(Value::String(name)) = x.get("name")
            && !name.is_empty()
            && x.get("name_as").and_then(Value::as_str) == Some(tool.name.as_str())
        {
            tool.name = name.clone();
        }
        if tool.description.is_none()
            && let Some(Value::String(description)) = x.get("description")
        {
            tool.description = Some(description.clone());
        }
        if let Some(parameters @ Value::Object(_)) = x.get("parameters")
            && tool
                .parameters
                .as_ref()
                .is_none_or(|p| signature(p) == signature(parameters))
        {
            let mut exact = parameters.clone();
            // (NORA's reader knows its placeholders; code made up by a
            // converter, an AgentStack docstring, is not yours.)
            if format == Format::Nora
                && let Some(own) = &tool.parameters
            {
                keep_written_descriptions(own, &mut exact);
            }
            tool.parameters = Some(crate::ir::SharedValue::new(exact));
        }
        // AgentStack's record is of its code's names, which reading the
        // code maps back (see `project::package`).
        if format != Format::Agentstack {
            tool.extra.original_names = original_names(x, tool.parameters.as_deref());
        }
        tool.extra.layout = x.get(LAYOUT).and_then(read_layout).map(Box::new);
        tool.extra.position = x
            .get(POSITION)
            .and_then(Value::as_u64)
            .and_then(|p| usize::try_from(p).ok());
        // What a converter made up, still as it made it up, is no field
        // of the tool's: converting back does not carry it.
        let unchanged = drop_assumed(
            &mut tool.extra.carried,
            format,
            tool_value,
            &assumed_fields(x),
        );
        // A Nachos manifest is its tool's package.
        if format == Format::Nachos && tool.origin.is_empty() {
            forget_made_up_package(toolset.package.as_mut(), &unchanged);
        }
    }
    for tool in &mut toolset.tools {
        command_runtime(tool);
    }
    toolset.carried = set_carried;
}

/// Gives the top-level properties of an `"x-toolc"` copy of the parameters
/// the descriptions the manifest's own parameters have and the copy has
/// not: written since the conversion (over a NORA placeholder, say), they
/// are the user's, and the copy must not take them back.
fn keep_written_descriptions(own: &Value, exact: &mut Value) {
    let (Some(Value::Object(own)), Some(Value::Object(exact))) =
        (own.get("properties"), exact.get_mut("properties"))
    else {
        return;
    };
    for (name, property) in exact.iter_mut() {
        if let (Value::Object(property), Some(Value::String(description))) =
            (property, own.get(name).and_then(|p| p.get("description")))
            && !property.contains_key("description")
        {
            property.insert("description".into(), Value::String(description.clone()));
        }
    }
}

/// Makes a carried agentcli `command` the tool's runtime: a manifest
/// converted from agentcli (NORA, Nachos, provider JSON) runs the program
/// it came with, as its `"x-toolc"` object says. An AgentStack tool keeps
/// its Python function: its config names the function, and its name and
/// parameters are read from that function's definition.
fn command_runtime(tool: &mut Tool) {
    if matches!(
        tool.runtime,
        Runtime::Command { .. } | Runtime::PythonFunction { .. }
    ) {
        return;
    }
    let carried = |key: &str| {
        tool.extra
            .carried
            .iter()
            .find(|c| c.format == Format::Agentcli && c.key == key)
            .map(|c| &c.value)
    };
    let Some(Value::Array(command)) = carried("command") else {
        return;
    };
    let strings = |items: &Vec<Value>| -> Vec<String> {
        items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    };
    let runtime = Runtime::Command {
        argv: strings(command),
        timeout_sec: carried("timeoutSec").and_then(Value::as_u64),
        env_passthrough: carried("envPassthrough")
            .and_then(Value::as_array)
            .map(strings)
            .unwrap_or_default(),
    };
    tool.runtime = runtime;
}

/// Takes back a description that code gave a tool whose `"x-toolc"` says
/// it has none (`"description": null`): a Nachos class or an AgentStack
/// docstring needs some text, which a converter made up, and a
/// conversion back must not turn that into the tool's description.
pub fn keep_absent_descriptions(value: &Value, toolset: &mut ToolSet) {
    let format = toolset.format;
    for tool in &mut toolset.tools {
        let x_at = x_toolc_pointer(format, &tool.origin);
        if json::value_at(value, &x_at)
            .and_then(|x| x.get("description"))
            .is_some_and(Value::is_null)
        {
            tool.description = None;
        }
    }
}

/// What a one-document output that has no room for `"x-toolc"` (Gemini's
/// `functionDeclarations`, Anthropic's tool list: the API refuses unknown
/// keys) gets beside it: `FILE` + this suffix, a JSON object
/// `{"x-toolc": {"parameter_names": {"<tool>": {"<new>": "<original>"}}}}`,
/// written where a parameter was renamed. It matches no format, so a
/// directory walk skips it; the front end reads it with the document (see
/// [`apply_sidecar`]).
pub const SIDECAR_SUFFIX: &str = ".x-toolc.json";

/// Where the record of the document at `document` is.
pub fn sidecar_path(document: &std::path::Path) -> std::path::PathBuf {
    let mut path = document.as_os_str().to_owned();
    path.push(SIDECAR_SUFFIX);
    std::path::PathBuf::from(path)
}

/// The record beside a document (see [`SIDECAR_SUFFIX`]): each tool's
/// renamed parameters, (new name, original name) pairs; `None` when none
/// was renamed.
pub fn sidecar(renamed: &[(String, Vec<(String, String)>)]) -> Option<Value> {
    let tools: Map<String, Value> = renamed
        .iter()
        .filter(|(_, pairs)| !pairs.is_empty())
        .map(|(tool, pairs)| {
            let names = pairs
                .iter()
                .map(|(new, original)| (new.clone(), Value::String(original.clone())))
                .collect();
            (tool.clone(), Value::Object(names))
        })
        .collect();
    if tools.is_empty() {
        return None;
    }
    let mut x = Map::new();
    x.insert(PARAMETER_NAMES.to_string(), Value::Object(tools));
    let mut root = Map::new();
    root.insert(X_TOOLC.to_string(), Value::Object(x));
    Some(Value::Object(root))
}

/// The member of the record beside a document ([`SIDECAR_SUFFIX`]) that
/// keeps the document's digest (`crate::emit::marker::digest`): `toolc
/// gen` writes the record, with [`GENERATED`], beside every provider
/// document it writes to a file, so that it knows its own output again
/// (the document itself has no room for a mark).
pub const DIGEST: &str = "digest";

/// The record `toolc gen` writes beside a document (see [`DIGEST`]):
/// what wrote it, the document's digest, and any renamed parameters (as
/// [`sidecar`] has them).
pub fn signed_sidecar(
    generator: &str,
    digest: &str,
    renamed: &[(String, Vec<(String, String)>)],
) -> Value {
    let mut record = sidecar(renamed).unwrap_or_else(|| Value::Object(Map::new()));
    mark_generated(&mut record, generator);
    if let Some(x) = record.get_mut(X_TOOLC).and_then(Value::as_object_mut) {
        x.insert(DIGEST.to_string(), Value::String(digest.to_string()));
    }
    record
}

/// Gives the tools of `toolset` the original names the record `sidecar`
/// (read from beside its document) keeps for them, by tool name, as
/// [`crate::ir::Tool::original_names`]: the same fact an `"x-toolc"`
/// object gives where the format has room for one.
pub fn apply_sidecar(sidecar: &Value, toolset: &mut ToolSet) {
    let Some(tools) = sidecar
        .get(X_TOOLC)
        .and_then(|x| x.get(PARAMETER_NAMES))
        .and_then(Value::as_object)
    else {
        return;
    };
    for tool in &mut toolset.tools {
        let Some(Value::Object(names)) = tools.get(&tool.name) else {
            continue;
        };
        let mut x = Map::new();
        x.insert(PARAMETER_NAMES.to_string(), Value::Object(names.clone()));
        tool.extra.original_names = original_names(&x, tool.parameters.as_deref());
    }
}

/// The member of an `"x-toolc"` object that holds what a converter made
/// up because the target format requires it and the source did not say
/// it: a NORA `entrypoint`; AgentStack `actions`, and a package's `name`
/// and `category`; Nachos `version`, `type` and `provides.securityTier`.
/// An object from the field's JSON Pointer (relative to the object the
/// `"x-toolc"` is in: a tool, or a manifest's root for the manifest's own
/// fields) to the value made up: `{"/version": "0.1.0",
/// "/provides/securityTier": 1}`. While the manifest still holds that
/// value there, the field is toolc's guess, not the user's: it is not
/// carried into other formats nor reported lost on the way, and a writer
/// of the format makes it up again. A value changed since is the user's.
pub const ASSUMED: &str = "assumed";

/// The `"x-toolc"` member older toolc wrote for a made-up NORA entrypoint,
/// read as an [`ASSUMED`] `/entrypoint`.
const ASSUMED_ENTRYPOINT: &str = "assumed_entrypoint";

/// The `"x-toolc"` member older toolc wrote for made-up AgentStack
/// actions, read as an [`ASSUMED`] `/actions`.
const ASSUMED_ACTIONS: &str = "assumed_actions";

/// The fields `x` (an `"x-toolc"` object) records as made up, with the
/// values made up (see [`ASSUMED`]).
fn assumed_fields(x: &Map<String, Value>) -> Vec<(&str, &Value)> {
    let mut fields: Vec<(&str, &Value)> = match x.get(ASSUMED) {
        Some(Value::Object(record)) => record.iter().map(|(at, v)| (at.as_str(), v)).collect(),
        _ => Vec::new(),
    };
    let legacy = [
        (ASSUMED_ENTRYPOINT, "/entrypoint"),
        (ASSUMED_ACTIONS, "/actions"),
    ];
    for (key, at) in legacy {
        if let Some(made_up) = x.get(key)
            && !fields.iter().any(|(other, _)| *other == at)
        {
            fields.push((at, made_up));
        }
    }
    fields
}

/// Removes from `carried` the fields of `format` (read from `object`)
/// that `assumed` says were made up, where `object` still holds the value
/// made up; a member of a nested field (`provides.securityTier`) leaves
/// the rest of it carried. Returns the pointers still as made up.
fn drop_assumed<'a>(
    carried: &mut Vec<Carried>,
    format: Format,
    object: &Value,
    assumed: &[(&'a str, &Value)],
) -> Vec<&'a str> {
    let mut unchanged = Vec::new();
    for &(at, made_up) in assumed {
        if json::value_at(object, at) != Some(made_up) {
            continue;
        }
        unchanged.push(at);
        let mut tokens = json::pointer_tokens(at);
        let Some(key) = tokens.next() else {
            continue;
        };
        let inner: Vec<String> = tokens.collect();
        carried.retain_mut(|field| {
            if field.format != format || field.key != key {
                return true;
            }
            let Some((last, parents)) = inner.split_last() else {
                return false;
            };
            let mut value = &mut field.value;
            for token in parents {
                match value.get_mut(token.as_str()) {
                    Some(deeper) => value = deeper,
                    None => return true,
                }
            }
            if let Value::Object(members) = value {
                members.shift_remove(last.as_str());
            }
            !field.value.as_object().is_some_and(Map::is_empty)
        });
    }
    unchanged
}

/// Forgets the package data a converter made up (`unchanged`, pointers
/// into the manifest's root, see [`ASSUMED`]): it is not the user's.
fn forget_made_up_package(package: Option<&mut crate::ir::Package>, unchanged: &[&str]) {
    let Some(package) = package else {
        return;
    };
    for at in unchanged {
        match *at {
            "/name" => package.name = None,
            "/category" => package.category = None,
            "/version" => package.version = None,
            _ => {}
        }
    }
}

/// The member of a tool's `"x-toolc"` that holds its place among the tools
/// of the manifest it was declared in (see [`crate::ir::Tool::position`]).
pub const POSITION: &str = "position";

/// The member of a tool's `"x-toolc"` that holds how the tool was written
/// in the file it was converted from (see [`Layout`]): `{"format":
/// "agentcli", "head": ..., "before": ..., "text": ..., "tail": ...}`
/// (`before` absent for the file's first entry). Its place among that
/// file's tools is [`POSITION`]. Only a writer of that format reads it,
/// and only while the tool still reads as `text` does it write `text`.
pub const LAYOUT: &str = "layout";

/// The [`LAYOUT`] record of `layout`.
pub fn layout_record(layout: &Layout) -> Value {
    let mut record = Map::new();
    record.insert("format".into(), Value::from(layout.format.name()));
    record.insert("head".into(), Value::from(layout.head()));
    if let Some(before) = layout.before() {
        record.insert("before".into(), Value::from(before));
    }
    record.insert("text".into(), Value::from(layout.entry()));
    record.insert("tail".into(), Value::from(layout.tail()));
    Value::Object(record)
}

/// The [`Layout`] a [`LAYOUT`] record holds; `None` when it is not one.
fn read_layout(record: &Value) -> Option<Layout> {
    let text = |key: &str| record.get(key).and_then(Value::as_str);
    let before = match record.get("before") {
        None => None,
        Some(Value::String(before)) => Some(before.as_str()),
        Some(_) => return None,
    };
    let format = Format::from_name(text("format")?)?;
    let pieces = LayoutPieces {
        head: text("head")?,
        before,
        entry: text("text")?,
        tail: text("tail")?,
    };
    Some(Layout::of_pieces(format, pieces))
}

/// Marks the actions of each tool whose `"x-toolc"` says they were made up
/// ([`ASSUMED`] `/actions`) and that still are those: assumed, not declared
/// (see [`crate::ir::Permissions::actions_assumed`]). Actions written
/// over are the user's.
pub fn mark_assumed_actions(value: &Value, toolset: &mut ToolSet) {
    let format = toolset.format;
    for tool in &mut toolset.tools {
        let x_at = x_toolc_pointer(format, &tool.origin);
        let Some(x) = json::value_at(value, &x_at).and_then(Value::as_object) else {
            continue;
        };
        let fields = assumed_fields(x);
        let Some(&(_, assumed)) = fields.iter().find(|(at, _)| *at == "/actions") else {
            continue;
        };
        let actions: Option<Vec<&str>> = tool
            .permissions
            .actions
            .as_ref()
            .map(|actions| actions.iter().map(|a| a.as_str()).collect());
        let assumed: Option<Vec<&str>> = assumed
            .as_array()
            .map(|list| list.iter().filter_map(Value::as_str).collect());
        tool.permissions.actions_assumed = actions.is_some() && actions == assumed;
    }
}

/// The members of a tool object that the IR does not model.
fn own_fields(format: Format, object: &Map<String, Value>, origin: &str) -> Vec<Carried> {
    let portable = portable_keys(format);
    let nested = nested_keys(format);
    let mut carried = Vec::new();
    for (key, member) in object {
        let document_schema = key == super::SCHEMA_KEY && origin.is_empty();
        if key == X_TOOLC || portable.contains(&key.as_str()) || document_schema {
            continue;
        }
        let value = match (nested.iter().find(|(k, _)| k == key), member) {
            (Some((_, inner)), Value::Object(fields)) => {
                let rest: Map<String, Value> = fields
                    .iter()
                    .filter(|(k, _)| !inner.contains(&k.as_str()))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                if rest.is_empty() {
                    continue;
                }
                Value::Object(rest)
            }
            _ => member.clone(),
        };
        carried.push(Carried {
            format,
            key: key.clone(),
            value,
            at: json::join(origin, key),
        });
    }
    // Kept with the tool: no room for more (a vector grown from empty
    // holds four at least, 512 bytes, and every tool can carry a field).
    carried.shrink_to_fit();
    carried
}

/// The `{"<format>": {key: value}}` members of an `"x-toolc"` object (or
/// of its `set`), at pointer `at`. Other members are not fields.
fn read_formats(x: &Value, at: &str, out: &mut Vec<Carried>) {
    let Some(x) = x.as_object() else {
        return;
    };
    for (name, fields) in x {
        let (Some(format), Some(fields)) = (Format::from_name(name), fields.as_object()) else {
            continue;
        };
        let format_at = json::join(at, name);
        for (key, value) in fields {
            out.push(Carried {
                format,
                key: key.clone(),
                value: value.clone(),
                at: json::join(&format_at, key),
            });
        }
    }
}

/// Adds the fields of `more` that `carried` does not have yet: what a
/// manifest says itself wins over its `"x-toolc"` copy.
fn add_missing(carried: &mut Vec<Carried>, more: Vec<Carried>) {
    for field in more {
        if !carried
            .iter()
            .any(|c| c.format == field.format && c.key == field.key)
        {
            carried.push(field);
        }
    }
}

/// The member of a tool's `"x-toolc"` that maps the names code gives its
/// parameters to the names they stand for, where a wire name is no Python
/// identifier or is taken by the language: `{"max_bytes": "max-bytes",
/// "self_": "self"}`. Whoever writes the code (`gen python --style
/// agentstack`) records it; reading the code maps the names back.
pub const PARAMETER_NAMES: &str = "parameter_names";

/// Records in `entry` (a tool object) the names its code gave parameters:
/// `renamed` holds (code name, name it stands for) pairs. An earlier
/// record is replaced, or removed when nothing is renamed any more.
pub fn record_parameter_names(entry: &mut Map<String, Value>, renamed: &[(String, String)]) {
    let names: Map<String, Value> = renamed
        .iter()
        .map(|(code, wire)| (code.clone(), Value::String(wire.clone())))
        .collect();
    if names.is_empty() {
        if let Some(Value::Object(x)) = entry.get_mut(X_TOOLC) {
            x.remove(PARAMETER_NAMES);
            if x.is_empty() {
                entry.remove(X_TOOLC);
            }
        }
        return;
    }
    let x = entry
        .entry(X_TOOLC)
        .or_insert_with(|| Value::Object(Map::new()));
    if !x.is_object() {
        *x = Value::Object(Map::new());
    }
    if let Some(x) = x.as_object_mut() {
        x.insert(PARAMETER_NAMES.to_string(), Value::Object(names));
    }
}

/// The (code name, name it stands for) pairs that the `"x-toolc"` of the
/// tool at `origin` in the manifest `value` records (see
/// [`PARAMETER_NAMES`]).
pub fn parameter_names(value: &Value, format: Format, origin: &str) -> Vec<(String, String)> {
    json::value_at(value, &x_toolc_pointer(format, origin))
        .and_then(|x| x.get(PARAMETER_NAMES))
        .and_then(Value::as_object)
        .map(|names| {
            names
                .iter()
                .filter_map(|(code, wire)| Some((code.clone(), wire.as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default()
}

/// The original names of the top-level parameters that an `"x-toolc"`
/// object `x` records (see [`PARAMETER_NAMES`]) and that `parameters` still
/// has under their new names: a parameter renamed since, or one whose
/// original name is back, is the user's.
fn original_names(
    x: &Map<String, Value>,
    parameters: Option<&Value>,
) -> std::collections::BTreeMap<String, String> {
    let properties = parameters
        .and_then(|p| p.get("properties"))
        .and_then(Value::as_object);
    let (Some(names), Some(properties)) = (
        x.get(PARAMETER_NAMES).and_then(Value::as_object),
        properties,
    ) else {
        return std::collections::BTreeMap::new();
    };
    names
        .iter()
        .filter_map(|(new, original)| Some((new.clone(), original.as_str()?.to_string())))
        .filter(|(new, original)| {
            if new.starts_with('/') {
                return nested_still_named(parameters, new, original);
            }
            new != original && properties.contains_key(new) && !properties.contains_key(original)
        })
        .collect()
}

/// Whether the parameters still have a property at `at` (the pointer a
/// record of a property renamed below the top level gives, see
/// [`crate::schema::NestedRename`]), and none named `original` beside it.
fn nested_still_named(parameters: Option<&Value>, at: &str, original: &str) -> bool {
    let Some(parameters) = parameters else {
        return false;
    };
    let Some((properties_at, _)) = at.rsplit_once('/') else {
        return false;
    };
    json::value_at(parameters, at).is_some()
        && json::value_at(parameters, properties_at)
            .and_then(Value::as_object)
            .is_some_and(|properties| !properties.contains_key(original))
}

/// Gives the properties of a parameter schema read from code the names
/// they stand for (`renamed`: code name, wire name), in place, keeping
/// their order; `required` follows. A name the schema already uses is not
/// taken twice.
///
/// A record of a property below the top level (its key a pointer, see
/// [`crate::schema::NestedRename`]) is restored there, the deepest first,
/// since a record inside a renamed property names it by its new name.
pub fn restore_parameter_names(schema: &mut Value, renamed: &[(String, String)]) {
    let mut nested: Vec<&(String, String)> = renamed
        .iter()
        .filter(|(at, _)| at.starts_with('/'))
        .collect();
    nested.sort_by_key(|(at, _)| std::cmp::Reverse(at.matches('/').count()));
    for (at, original) in nested {
        crate::schema::restore_nested_name(schema, at, original);
    }
    let Some(Value::Object(properties)) = schema.get("properties") else {
        return;
    };
    let wire = |code: &str| -> Option<&String> {
        renamed
            .iter()
            .find(|(from, _)| from == code)
            .map(|(_, to)| to)
            .filter(|to| !properties.contains_key(to.as_str()))
    };
    let renamed_properties: Map<String, Value> = properties
        .iter()
        .map(|(name, property)| (wire(name).unwrap_or(name).clone(), property.clone()))
        .collect();
    let required: Option<Vec<Value>> =
        schema
            .get("required")
            .and_then(Value::as_array)
            .map(|names| {
                names
                    .iter()
                    .map(|name| match name.as_str().and_then(wire) {
                        Some(to) => Value::String(to.clone()),
                        None => name.clone(),
                    })
                    .collect()
            });
    if renamed_properties.len() != properties.len() {
        // Two code names would stand for one wire name: keep the code's.
        return;
    }
    if let Some(object) = schema.as_object_mut() {
        object.insert("properties".into(), Value::Object(renamed_properties));
        if let Some(required) = required {
            object.insert("required".into(), Value::Array(required));
        }
    }
}

/// A parameter name as code would spell it, for comparing names across a
/// manifest and code: letters and digits, lower case, with anything else
/// (`-`, a keyword's trailing `_`) not counted. `from` and `from_`,
/// `user-agent` and `user_agent` are the same parameter.
fn spelled(name: &str) -> String {
    name.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// The names of a parameter schema's arguments, as code spells them. An
/// `"x-toolc"` copy of the parameters is only used while the manifest's (or
/// the code's) own parameters still have these names: once someone
/// renames, adds or drops a parameter, what they wrote wins. Whether an
/// argument is required is not compared: code cannot say "required, and
/// may be null" (`x: int | None` reads as optional), which a schema can.
pub fn signature(parameters: &Value) -> Vec<String> {
    let mut names: Vec<String> = parameters
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().map(|k| spelled(k)).collect())
        .unwrap_or_default();
    names.sort();
    names
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::formats::lower;

    fn lowered(format: Format, text: &str) -> ToolSet {
        let document = Arc::new(json::parse(&Arc::from(text)).unwrap());
        lower(format, &document, "manifest.json")
    }

    #[test]
    fn a_carried_agentcli_command_is_the_runtime() {
        let set = lowered(
            Format::Nachos,
            r#"{"name": "hog", "type": "tool", "provides": {"tool": "hog"},
                "x-toolc": {"agentcli": {"command": ["./bin/hog", "-q"], "timeoutSec": 7,
                                         "envPassthrough": ["TOKEN"]}}}"#,
        );
        assert_eq!(
            set.tools[0].runtime,
            Runtime::Command {
                argv: vec!["./bin/hog".into(), "-q".into()],
                timeout_sec: Some(7),
                env_passthrough: vec!["TOKEN".into()],
            }
        );
        // The carried copy stays for the writers.
        assert!(
            set.tools[0]
                .extra
                .carried
                .iter()
                .any(|c| c.format == Format::Agentcli && c.key == "command")
        );
    }

    #[test]
    fn an_agentstack_function_keeps_its_runtime() {
        let set = lowered(
            Format::Agentstack,
            r#"{"name": "web", "category": "web", "tools": {"fetch": {"actions": ["read"],
                "x-toolc": {"agentcli": {"command": ["./bin/fetch"]}}}}}"#,
        );
        assert!(matches!(
            &set.tools[0].runtime,
            Runtime::PythonFunction { function, .. } if function == "fetch"
        ));
    }
}
