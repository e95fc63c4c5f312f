//! AgentStack: `OUT/<package>/config.json` per package, tools in the
//! permissions-map shape, and the package's Python as `gen python --style
//! agentstack` writes it: `__init__.py` (a typed function per tool) and
//! `impl/__init__.py`, toolc's, and `impl/<module>.py` per tool, a skeleton
//! written where the package has none.
//!
//! Tools are grouped into packages by the AgentStack package they came
//! from (also through `"x-toolc"`), else one package per manifest, named
//! after its only tool or its directory. A tool's parameters and
//! description live in the Python function; what the function's signature
//! and docstring cannot say (a `pattern`, a nested object's properties, a
//! description of several paragraphs) is kept in the tool's `"x-toolc"`,
//! used while the function's parameters keep the same names.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::{
    Converted, FileKind, Loss, Options, OutputFile, attach_x_toolc, document, place_set,
    place_tool, x_toolc_object,
};
use crate::diagnostic::Severity;
use crate::emit::EmitError;
use crate::formats::agentstack::{DEFAULT_ACTIONS, FILE_NAME};
use crate::formats::carry;
use crate::ir::{Action, Format, Package, Tool, ToolSet};
use crate::json;
use crate::providers::mcp::{DESTRUCTIVE_HINT, READ_ONLY_HINT};

/// The category of a package whose source says none.
const DEFAULT_CATEGORY: &str = "custom";

struct Group<'a> {
    name: String,
    sets: Vec<&'a ToolSet>,
}

pub(super) fn write(
    toolsets: &[ToolSet],
    options: &Options,
    out: &mut Converted,
) -> Result<(), EmitError> {
    let mut groups: Vec<Group> = Vec::new();
    for set in toolsets {
        let name = package_name(set);
        match groups.iter_mut().find(|g| g.name == name) {
            Some(group) => group.sets.push(set),
            None => groups.push(Group {
                name,
                sets: vec![set],
            }),
        }
    }
    for group in &groups {
        write_package(group, options, out)?;
    }
    Ok(())
}

/// Writes the package `name` of the tools of `sets`, in order.
pub(super) fn write_group(
    name: String,
    sets: Vec<&ToolSet>,
    options: &Options,
    out: &mut Converted,
) -> Result<(), EmitError> {
    write_package(&Group { name, sets }, options, out)
}

/// The package a manifest's tools go to: its AgentStack package (its own or
/// the one its `"x-toolc"` remembers), else its only tool, else its
/// directory; as AgentStack wants package names, `[a-z][a-z0-9_]*`.
pub(super) fn package_name(set: &ToolSet) -> String {
    let remembered = set
        .carried
        .iter()
        .find(|c| c.format == Format::Agentstack && c.key == "name")
        .and_then(|c| c.value.as_str())
        .map(str::to_string);
    let directory = || {
        Path::new(&set.path)
            .parent()
            .and_then(Path::file_name)
            .map(|d| d.to_string_lossy().into_owned())
    };
    let name = remembered
        .or_else(|| (set.tools.len() == 1).then(|| set.tools[0].name.clone()))
        .or_else(directory)
        .unwrap_or_default();
    package_identifier(&name)
}

fn package_identifier(name: &str) -> String {
    let mut id = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            id.push(c.to_ascii_lowercase());
        } else if !id.ends_with('_') {
            id.push('_');
        }
    }
    let id = id.trim_matches('_').to_string();
    match id.chars().next() {
        None => "tools".to_string(),
        Some(c) if c.is_ascii_digit() => format!("tools_{id}"),
        Some(_) => id,
    }
}

fn write_package(group: &Group, options: &Options, out: &mut Converted) -> Result<(), EmitError> {
    let mut restored = Map::new();
    let set_fields: Vec<Map<String, Value>> = group
        .sets
        .iter()
        .map(|set| place_set(out, set, Format::Agentstack, Some(&mut restored), true))
        .collect();
    // Each tool with its manifest and that manifest's fields for x-toolc.
    let tools: Vec<(&ToolSet, &Map<String, Value>, &Tool)> = group
        .sets
        .iter()
        .zip(&set_fields)
        .flat_map(|(set, fields)| set.tools.iter().map(move |tool| (*set, fields, tool)))
        .collect();
    let skeleton = python_skeleton(group, tools.iter().map(|(_, _, tool)| *tool), options)?;
    let directory = PathBuf::from(&group.name);
    let mut permissions = Map::new();
    for (index, (set, set_fields, tool)) in tools.iter().enumerate() {
        let function = skeleton
            .functions
            .get(index)
            .cloned()
            .unwrap_or_else(|| tool.name.clone());
        let mut extra = Vec::new();
        if function != tool.name {
            out.losses.push(Loss {
                path: set.path.clone(),
                pointer: tool.name_at.clone(),
                message: format!(
                    "AgentStack calls a tool by its Python function's name, and \"{}\" is none: the tool becomes \"{function}\" (its name is kept in \"x-toolc\")",
                    tool.name
                ),
            });
            extra.push(("name", Value::String(tool.name.clone())));
            extra.push(("name_as", Value::String(function.clone())));
        }
        if permissions.contains_key(&function) {
            out.losses.push(Loss {
                path: set.path.clone(),
                pointer: tool.name_at.clone(),
                message: format!(
                    "package \"{}\" already has a tool \"{function}\"; this one is dropped",
                    group.name
                ),
            });
            continue;
        }
        let mut entry = Map::new();
        let (actions, derived) = actions_for(tool);
        entry.insert("actions".into(), actions);
        let placed = place_tool(out, set, tool, Format::Agentstack, &mut entry, true);
        let declared = tool
            .extra
            .carried
            .iter()
            .any(|c| c.format == Format::Agentstack && c.key == "actions");
        if !declared && !derived {
            out.note(
                set,
                &tool.origin,
                Severity::Info,
                format!(
                    "tool \"{}\" declares no permissions; its AgentStack actions are {}: review them",
                    tool.name,
                    serde_json::json!(DEFAULT_ACTIONS)
                ),
            );
            // Made up, not known: read back while unchanged, they still
            // restrict the tool but say nothing of its effects (an MCP
            // client must not take it for read-only), and are not carried
            // into other formats.
            if let Some(actions) = entry.get("actions") {
                extra.extend(super::assumed(
                    &tool.extra.carried,
                    Format::Agentstack,
                    vec![("/actions", actions.clone())],
                ));
            }
        }
        let read_back = skeleton.read_back.get(index).cloned().flatten();
        let summary = read_back.as_ref().and_then(|r| r.1.as_ref());
        match &tool.description {
            Some(description) if summary != Some(description) => {
                extra.push(("description", Value::String(description.clone())));
            }
            // The docstring needs some text; say the tool has none.
            None if summary.is_some() => extra.push(("description", Value::Null)),
            _ => {}
        }
        let renamed = skeleton.renamed.get(index).cloned().unwrap_or_default();
        if !renamed.is_empty() {
            let names = renamed
                .iter()
                .map(|(code, wire)| (code.clone(), Value::String(wire.clone())))
                .collect();
            extra.push((carry::PARAMETER_NAMES, Value::Object(names)));
        }
        if let Some(parameters) = &tool.parameters
            && read_back.as_ref().map(|r| &r.0) != Some(&**parameters)
        {
            extra.push(("parameters", Value::clone(parameters)));
        }
        let in_set = set.tools.iter().position(|t| std::ptr::eq(t, *tool));
        extra.extend(super::origin_records(
            set,
            tool,
            in_set.unwrap_or(index),
            Format::Agentstack,
        ));
        attach_x_toolc(&mut entry, x_toolc_object(placed, set_fields, extra));
        permissions.insert(function, Value::Object(entry));
    }
    let mut config = super::new_root(Format::Agentstack, options);
    // The package's name and category the sources did not give are made
    // up (the name after its tool or directory): recorded as such.
    let mut made_up = Vec::new();
    let name = restored.remove("name").unwrap_or_else(|| {
        let name = Value::String(group.name.clone());
        made_up.push(("/name", name.clone()));
        name
    });
    config.insert("name".into(), name);
    let category = restored.remove("category").unwrap_or_else(|| {
        made_up.push(("/category", Value::from(DEFAULT_CATEGORY)));
        if let Some(set) = group.sets.first() {
            out.note(
                set,
                "",
                Severity::Info,
                format!(
                    "package \"{}\" gets the category \"{DEFAULT_CATEGORY}\"; set the one it belongs to",
                    group.name
                ),
            );
        }
        Value::from(DEFAULT_CATEGORY)
    });
    config.insert("category".into(), category);
    for (key, value) in restored {
        config.insert(key, value);
    }
    config.insert("tools".into(), Value::Object(permissions));
    let made_up = super::assumed(&[], Format::Agentstack, made_up);
    attach_x_toolc(
        &mut config,
        x_toolc_object(Map::new(), &Map::new(), made_up.into_iter().collect()),
    );
    let config = Value::Object(config);
    let path = directory.join(FILE_NAME);
    if let Some(first) = group.sets.first() {
        out.check_structure(Format::Agentstack, &config, &path, first, "");
    }
    out.files.push(OutputFile {
        path,
        contents: document(&config)?,
        kind: FileKind::Owned,
    });
    // The Python of the package, as `gen python --style agentstack`
    // writes it, with its kinds: toolc's `__init__.py` and
    // `impl/__init__.py`, and each tool's implementation, a skeleton
    // written once.
    for file in skeleton.files {
        let relative: PathBuf = file.path.components().skip(1).collect();
        if relative == Path::new(FILE_NAME) {
            continue;
        }
        let path = directory.join(relative);
        if file.kind != FileKind::Owned && super::exists_in_output(options, &path) {
            continue;
        }
        out.files.push(OutputFile {
            path,
            contents: file.contents,
            kind: file.kind,
        });
    }
    Ok(())
}

/// The actions a tool gets: what an MCP tool's annotations say, else
/// [`DEFAULT_ACTIONS`]; and whether they were derived from something.
fn actions_for(tool: &Tool) -> (Value, bool) {
    let annotations = tool
        .extra
        .carried
        .iter()
        .find(|c| c.format == Format::Mcp && c.key == "annotations")
        .map(|c| &c.value);
    let hint = |key: &str| {
        annotations
            .and_then(|a| a.get(key))
            .and_then(Value::as_bool)
    };
    let actions: &[Action] = match (hint(READ_ONLY_HINT), hint(DESTRUCTIVE_HINT)) {
        (Some(true), _) => &[Action::Read],
        (_, Some(true)) => &[Action::Read, Action::Write, Action::Delete],
        (Some(false), _) => &[Action::Read, Action::Write],
        _ => return (serde_json::json!(DEFAULT_ACTIONS), false),
    };
    (serde_json::json!(actions), true)
}

/// The package's files as `toolc gen python --style agentstack` writes
/// them, the function name it gives each tool, the parameters it
/// renamed (code name, name it stands for), and what reading that
/// function back yields (parameters with their names restored, summary),
/// to see what the Python cannot carry.
struct Skeleton {
    /// What `gen python --style agentstack` writes for the package, paths
    /// under its package directory.
    files: Vec<crate::emit::GeneratedFile>,
    functions: Vec<String>,
    renamed: Vec<Vec<(String, String)>>,
    read_back: Vec<Option<(Value, Option<String>)>>,
}

fn python_skeleton<'a>(
    group: &Group,
    tools: impl Iterator<Item = &'a Tool>,
    options: &Options,
) -> Result<Skeleton, EmitError> {
    let first = group
        .sets
        .first()
        .map(|s| s.path.clone())
        .unwrap_or_default();
    let single = ToolSet {
        path: first,
        format: Format::Agentstack,
        package: Some(Package {
            name: Some(group.name.clone()),
            ..Package::default()
        }),
        tools: tools.cloned().collect(),
        carried: Vec::new(),
    };
    let (files, functions_read) = crate::emit::python::agentstack_package(
        group.name.clone(),
        vec![&single],
        &options.skeletons(crate::emit::python::Style::Agentstack),
    )?;
    let config: Value = serde_json::from_str(&super::file_named(&files, FILE_NAME)?)?;
    let functions: Vec<String> = config
        .get("tools")
        .and_then(Value::as_object)
        .map(|t| t.keys().cloned().collect())
        .unwrap_or_default();
    let renamed: Vec<Vec<(String, String)>> = functions
        .iter()
        .map(|function| {
            carry::parameter_names(&config, Format::Agentstack, &json::join("/tools", function))
        })
        .collect();
    // config.json's tools are the functions the module was read back for,
    // in the same order.
    let read_back = functions_read
        .into_iter()
        .zip(&renamed)
        .map(|(found, renamed)| {
            let found = found?;
            let mut schema = found.schema;
            carry::restore_parameter_names(&mut schema, renamed);
            Some((schema, found.description))
        })
        .collect();
    Ok(Skeleton {
        files,
        functions,
        renamed,
        read_back,
    })
}
