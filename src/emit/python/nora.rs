//! The `nora` style: `<tool>/tool.json` and `<tool>/main.py` per tool.
//!
//! tool.json is written in NORA's dialect, so that `toolc lint` reads it
//! back without findings: every top-level property carries `type`,
//! `description` and a boolean `required`; property names are limited to
//! `[A-Za-z0-9_]`; a description is written wherever one is missing. What
//! that changes is reported as a note, and recorded in the tool's
//! `"x-toolc"` where reading tool.json back must undo it (a renamed
//! property's name, a tool description made up: `"description": null`). main.py reads the parameters by
//! their tool.json names (dict keys need no Python identifiers).

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::names::{Keep, Kind, Namer, snake_case};
use super::{Parameter, Tree, doc, doc_line, json_text};
use crate::diagnostic::Severity;
use crate::emit::{EmitError, GeneratedFile, Options};
use crate::formats::nora::{DEFAULT_ENTRYPOINT, FILE_NAME};
use crate::ir::{Tool, ToolSet};
use crate::json as pointer;
use crate::schema::{LISTS, MAPS, SINGLE};

/// What a property without a description gets.
const NO_DESCRIPTION: &str = "(no description)";

/// `python/nora/main.py.j2`'s context: the skeleton holds no fact of the
/// manifest (it reads tool.json, toolc's, when it is loaded), so that a
/// changed manifest leaves nothing stale in the file the developer owns.
#[derive(Debug, Serialize)]
struct MainContext {
    /// The manifest the tool came from, escaped for a docstring.
    source_doc: String,
    tool: MainTool,
}

#[derive(Debug, Serialize)]
struct MainTool {
    name_doc: String,
}

/// `python/nora/tool.json.j2`'s context.
#[derive(Debug, Serialize)]
struct ManifestContext {
    /// The NORA manifest as pretty-printed JSON.
    tool_json: String,
}

/// One tool's two files, made on their own: neither says where it goes
/// (the directory is named when every tool's name is known, see
/// [`directories`]), so that a manifest's files can be made on the worker
/// that read it.
#[derive(Debug)]
pub(super) struct NoraTool {
    name: String,
    /// `tool.json` and `main.py`, named without their directory.
    files: Vec<GeneratedFile>,
}

/// The files of each tool of `set`, without their directories, and the
/// notes about them in `out`.
pub(super) fn tools(
    set: &ToolSet,
    options: &Options,
    out: &mut Tree,
) -> Result<Vec<NoraTool>, EmitError> {
    let mut tools = Vec::with_capacity(set.tools.len());
    for tool in &set.tools {
        let first = out.files.len();
        render_tool(set, tool, options, out)?;
        tools.push(NoraTool {
            name: tool.name.clone(),
            files: out.files.split_off(first),
        });
    }
    Ok(tools)
}

/// Puts every tool's files in its directory under the output, named after
/// the tool and apart from the others' (see [`Namer::assign`]).
pub(super) fn place(tools: Vec<NoraTool>, out: &mut Tree) {
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_str()).collect();
    let directories = Namer::default().assign(&names, Kind::Tool, Keep::SnakeCase);
    for (tool, directory) in tools.into_iter().zip(directories) {
        for mut file in tool.files {
            file.path = std::path::Path::new(&directory).join(&file.path);
            out.files.push(file);
        }
    }
}

/// Renders `tool`'s `tool.json` and `main.py` into `out`, named without
/// their directory.
fn render_tool(
    set: &ToolSet,
    tool: &Tool,
    options: &Options,
    out: &mut Tree,
) -> Result<(), EmitError> {
    let (description, fallback) = super::description_or_fallback(tool);
    if fallback {
        out.note(
            set,
            super::tool_pointer(tool),
            Severity::Info,
            format!(
                "tool \"{}\" has no description; NORA requires one: tool.json says \"{description}\" (and records in \"x-toolc\" that the tool has none, so reading it back gives none)",
                tool.name
            ),
        );
    }
    let (properties, root) = super::parameters(tool);
    let mut renamed = Vec::new();
    let properties = nora_keys(out, set, tool, properties, &mut renamed);
    let mut manifest = json!({
        "name": tool.name,
        "description": description,
        "entrypoint": DEFAULT_ENTRYPOINT,
        "parameters": nora_parameters(out, set, tool, &properties, root),
    });
    // Reading tool.json back, and converting it, restore the names,
    // and take the stand-in description for none.
    if let Some(entry) = manifest.as_object_mut() {
        crate::formats::carry::record_parameter_names(entry, &renamed);
        if fallback {
            super::record_in_x_toolc(entry, "description", Value::Null);
        }
    }
    crate::formats::carry::mark_generated(&mut manifest, &super::signed_writer());
    out.render(
        options,
        "nora/tool.json.j2",
        FILE_NAME.to_string(),
        ManifestContext {
            tool_json: json_text(&manifest)?,
        },
    )?;
    render_main(set, tool, options, out)
}

/// Renders `tool`'s `main.py` into `out`, named without its directory.
fn render_main(
    set: &ToolSet,
    tool: &Tool,
    options: &Options,
    out: &mut Tree,
) -> Result<(), EmitError> {
    let context = MainContext {
        source_doc: doc(&set.path),
        tool: MainTool {
            name_doc: doc_line(&tool.name),
        },
    };
    out.render(
        options,
        "nora/main.py.j2",
        DEFAULT_ENTRYPOINT.to_string(),
        context,
    )?;
    Ok(())
}

/// The `main.py` of `tool` alone (what [`tools`] renders beside its
/// tool.json): it holds no fact of the manifest but where it came from
/// and the tool's name.
pub(super) fn entrypoint(
    set: &ToolSet,
    tool: &Tool,
    options: &Options,
) -> Result<String, EmitError> {
    let mut out = Tree::default();
    render_main(set, tool, options, &mut out)?;
    Ok(out
        .files
        .pop()
        .map(|file| file.contents)
        .unwrap_or_default())
}

/// NORA allows only `[A-Za-z0-9_]` in property names: others get their
/// snake_case identifier (distinct from the names kept), with an info
/// giving both names; the pairs (new name, original) go to `renamed`, to
/// be recorded in tool.json.
fn nora_keys(
    out: &mut Tree,
    set: &ToolSet,
    tool: &Tool,
    properties: Vec<Parameter>,
    renamed: &mut Vec<(String, String)>,
) -> Vec<Parameter> {
    let valid =
        |key: &str| !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let mut namer = Namer::default();
    for p in properties.iter().filter(|p| valid(&p.key)) {
        namer.unique(p.key.clone());
    }
    properties
        .into_iter()
        .map(|mut p| {
            if !valid(&p.key) {
                let new_name = namer.unique(snake_case(&p.key, Kind::Parameter));
                out.note(
                    set,
                    p.pointer.clone(),
                    Severity::Info,
                    format!(
                        "tool \"{}\": NORA property names may hold only letters, digits and _; \"{}\" is \"{new_name}\" in tool.json and main.py (recorded in \"x-toolc\", so reading it back restores the name)",
                        tool.name, p.key
                    ),
                );
                renamed.push((new_name.clone(), std::mem::replace(&mut p.key, new_name)));
            }
            p
        })
        .collect()
}

/// The parameters in NORA's dialect: `{"type": "object", "properties":
/// {...}}` plus the root's other keywords.
fn nora_parameters(
    out: &mut Tree,
    set: &ToolSet,
    tool: &Tool,
    properties: &[Parameter],
    mut root: Map<String, Value>,
) -> Value {
    let mut described = Vec::new();
    let mut nora_properties = Map::new();
    for p in properties {
        let property = nora_property(out, set, tool, p, &mut described);
        nora_properties.insert(p.key.clone(), Value::Object(property));
    }
    // Properties below the root's other keywords (`$defs`, `oneOf`, ...).
    for (keyword, value) in root.iter_mut() {
        describe_nested(keyword, value, "", &mut described);
    }
    if !described.is_empty() {
        out.note(
            set,
            super::parameters_pointer(tool),
            Severity::Info,
            format!(
                "tool \"{}\": NORA wants every property described; tool.json says \"{NO_DESCRIPTION}\" for {}",
                tool.name,
                described.join(", ")
            ),
        );
    }
    let mut parameters = Map::new();
    parameters.insert("type".into(), json!("object"));
    parameters.insert("properties".into(), Value::Object(nora_properties));
    parameters.extend(root);
    Value::Object(parameters)
}

/// One top-level property: `type`, `description`, `required`, then the
/// rest of its schema. Its own `required` list (an object's) would clash
/// with NORA's flag, so it moves into `allOf`, which means the same.
fn nora_property(
    out: &mut Tree,
    set: &ToolSet,
    tool: &Tool,
    p: &Parameter,
    described: &mut Vec<String>,
) -> Map<String, Value> {
    let mut rest = match &p.schema {
        Value::Object(schema) => schema.clone(),
        _ => Map::new(),
    };
    let mut property = Map::new();
    let kind = match rest.shift_remove("type") {
        Some(kind) => kind,
        None => {
            match referenced_type(tool, &rest).or_else(|| crate::schema::implied_types(&rest)) {
                Some(types) if types.len() == 1 => json!(types[0]),
                Some(types) => json!(types),
                None => {
                    out.note(
                    set,
                    p.pointer.clone(),
                    Severity::Info,
                    format!(
                        "tool \"{}\": property \"{}\" has no type and NORA requires one: tool.json lists every JSON type",
                        tool.name, p.key
                    ),
                );
                    // Every JSON type: the `type` of a property whose schema does not tell.
                    json!(crate::schema::TYPES)
                }
            }
        }
    };
    property.insert("type".into(), kind);
    let description = match rest.shift_remove("description") {
        Some(Value::String(d)) if !d.trim().is_empty() => d,
        _ => {
            described.push(format!("\"{}\"", p.key));
            NO_DESCRIPTION.to_string()
        }
    };
    property.insert("description".into(), Value::String(description));
    property.insert("required".into(), Value::Bool(p.required));
    if let Some(own) = rest.shift_remove("required") {
        let mut all_of = match rest.shift_remove("allOf") {
            Some(Value::Array(items)) => items,
            _ => Vec::new(),
        };
        all_of.push(json!({"required": own}));
        rest.insert("allOf".into(), Value::Array(all_of));
        out.note(
            set,
            pointer::join(&p.pointer, "required"),
            Severity::Info,
            format!(
                "tool \"{}\": in NORA's dialect \"required\" of property \"{}\" is its own flag; its list of required members moved into \"allOf\"",
                tool.name, p.key
            ),
        );
    }
    property.extend(rest);
    describe_schema(&mut property, &p.key, described);
    property
}

/// The type names of the schema a property's local `$ref` points to
/// (`#/$defs/point`), when it has a `type`.
fn referenced_type(tool: &Tool, property: &Map<String, Value>) -> Option<Vec<String>> {
    let target = property.get("$ref")?.as_str()?.strip_prefix('#')?;
    match pointer::value_at(tool.parameters.as_ref()?, target)?.get("type")? {
        Value::String(name) => Some(vec![name.clone()]),
        Value::Array(names) => Some(
            names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
        ),
        _ => None,
    }
}

/// Writes [`NO_DESCRIPTION`] into every nested property without a
/// description (what `property-missing-description` looks for) in the
/// subschemas that `keyword`'s `value` holds, collecting their paths
/// (`save.dir`).
fn describe_nested(keyword: &str, value: &mut Value, path: &str, described: &mut Vec<String>) {
    match value {
        Value::Object(schema) if SINGLE.contains(&keyword) => {
            describe_schema(schema, path, described);
        }
        Value::Array(items) if LISTS.contains(&keyword) => {
            for schema in items.iter_mut().filter_map(Value::as_object_mut) {
                describe_schema(schema, path, described);
            }
        }
        Value::Object(members) if MAPS.contains(&keyword) => {
            for (name, sub) in members.iter_mut() {
                if let Some(schema) = sub.as_object_mut() {
                    describe_schema(schema, &dotted(path, name), described);
                }
            }
        }
        _ => {}
    }
}

/// [`describe_nested`] for the properties of `schema` and its subschemas.
fn describe_schema(schema: &mut Map<String, Value>, path: &str, described: &mut Vec<String>) {
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            let Some(property) = property.as_object_mut() else {
                continue;
            };
            let undescribed = match property.get("description") {
                None => true,
                Some(Value::String(d)) => d.trim().is_empty(),
                Some(_) => false,
            };
            if undescribed && !property.contains_key("$ref") {
                property.insert("description".into(), json!(NO_DESCRIPTION));
                described.push(format!("\"{}\"", dotted(path, name)));
            }
        }
    }
    for (keyword, value) in schema.iter_mut() {
        describe_nested(keyword, value, path, described);
    }
}

fn dotted(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}
