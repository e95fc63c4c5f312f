//! NORA: `OUT/<tool>/tool.json` per tool, in NORA's parameter dialect,
//! and the entrypoint script skeleton (`run(params) -> str`) where the
//! tool's directory has none.

use std::path::PathBuf;

use serde_json::{Map, Value};

use super::{
    Converted, FileKind, Options, OutputFile, attach_x_toolc, document, parameters_or_empty,
    place_set, place_tool, x_toolc_object,
};
use crate::diagnostic::Severity;
use crate::emit::EmitError;
use crate::formats::carry;
use crate::formats::nora::{
    DEFAULT_ENTRYPOINT, FILE_NAME, PARAMETER_PLACEHOLDER, TOOL_PLACEHOLDER, is_parameter_name,
};
use crate::ir::{Format, ToolSet};
use crate::schema::{NameRule, rename_properties};

/// The parameter names NORA takes.
const NORA_NAMES: NameRule = NameRule {
    accepts: is_parameter_name,
    max_len: None,
};

/// Writes the tools of `set`, each into its directory of `directories`.
pub(super) fn write_set(
    set: &ToolSet,
    directories: &[String],
    options: &Options,
    out: &mut Converted,
) -> Result<(), EmitError> {
    let set_fields = place_set(out, set, Format::Nora, None, true);
    for ((index, tool), directory) in set.tools.iter().enumerate().zip(directories) {
        let mut manifest = super::new_root(Format::Nora, options);
        manifest.insert("name".into(), Value::String(tool.name.clone()));
        let mut extra = Vec::new();
        match &tool.description {
            Some(description) => {
                manifest.insert("description".into(), Value::String(description.clone()));
            }
            None => {
                // Read back, the placeholder is no description.
                manifest.insert("description".into(), Value::from(TOOL_PLACEHOLDER));
                out.note(
                        set,
                        &tool.origin,
                        Severity::Warning,
                        format!(
                            "tool \"{}\" has no description, which NORA requires: {directory}/{FILE_NAME} says \"{TOOL_PLACEHOLDER}\"; write one there",
                            tool.name
                        ),
                    );
            }
        }
        manifest.insert("entrypoint".into(), Value::from(DEFAULT_ENTRYPOINT));
        let mut parameters = parameters_or_empty(out, set, tool, Format::Nora);
        let renames = rename_properties(&mut parameters, NORA_NAMES);
        super::report_renames(
            out,
            set,
            tool,
            &renames,
            &format!("{directory}/{FILE_NAME}"),
        );
        if !renames.renamed.is_empty() {
            extra.push((carry::PARAMETER_NAMES, super::names_record(&renames)));
        }
        let mut dialect = nora_dialect(&parameters);
        let exact = crate::formats::standard_parameters(Format::Nora, &dialect) == parameters;
        if !exact {
            out.losses.push(super::Loss {
                    path: set.path.clone(),
                    pointer: tool.parameters_at.clone().unwrap_or_else(|| tool.origin.clone()),
                    message: format!(
                        "the parameters of tool \"{}\" use \"required\" in a way NORA's dialect cannot express (a property's own \"required\" member, or a property that is not an object); the exact schema is kept in \"x-toolc\"",
                        tool.name
                    ),
                });
        }
        let undescribed = fill_descriptions(&mut dialect);
        // The placeholders read back as no description (and once
        // written over, as yours): they need no exact copy.
        let read_back = crate::formats::standard_parameters(Format::Nora, &dialect);
        if !undescribed.is_empty() {
            out.note(
                    set,
                    tool.parameters_at.as_deref().unwrap_or(&tool.origin),
                    Severity::Warning,
                    format!(
                        "NORA requires a description for every parameter: {directory}/{FILE_NAME} says \"{PARAMETER_PLACEHOLDER}\" for {}; write them there",
                        undescribed.join(", ")
                    ),
                );
        }
        // A root given the `properties` NORA requires, or a dialect that
        // cannot say it all: the exact schema goes along, and reading it
        // back restores it.
        // (Compared as written: JSON objects compare equal in any
        // order, and the order of the keywords is kept too.)
        if serde_json::to_string(&read_back).ok() != serde_json::to_string(&parameters).ok() {
            extra.push(("parameters", parameters.clone()));
        }
        manifest.insert("parameters".into(), dialect);
        extra.extend(super::assumed(
            &tool.extra.carried,
            Format::Nora,
            vec![("/entrypoint", Value::from(DEFAULT_ENTRYPOINT))],
        ));
        extra.extend(super::origin_records(set, tool, index, Format::Nora));
        let placed = place_tool(out, set, tool, Format::Nora, &mut manifest, true);
        attach_x_toolc(&mut manifest, x_toolc_object(placed, &set_fields, extra));
        let entrypoint = manifest
            .get("entrypoint")
            .and_then(Value::as_str)
            .unwrap_or(DEFAULT_ENTRYPOINT)
            .to_string();
        let manifest = Value::Object(manifest);
        let path = PathBuf::from(directory).join(FILE_NAME);
        out.check_structure(Format::Nora, &manifest, &path, set, &tool.origin);
        out.files.push(OutputFile {
            path,
            contents: document(&manifest)?,
            kind: FileKind::Owned,
        });
        let script = PathBuf::from(directory).join(&entrypoint);
        if !is_plain_relative(&entrypoint) || entrypoint == FILE_NAME {
            out.note(
                    set,
                    &tool.origin,
                    Severity::Warning,
                    format!(
                        "entrypoint \"{entrypoint}\" of tool \"{}\" is not a script path inside its directory; no skeleton written",
                        tool.name
                    ),
                );
        } else if !super::exists_in_output(options, &script) {
            out.files.push(OutputFile {
                path: script,
                contents: entrypoint_skeleton(set, tool, options)?,
                kind: FileKind::Skeleton,
            });
        }
    }
    Ok(())
}

/// Gives every top-level property of a NORA parameter schema that has no
/// description the placeholder, and the root its `properties` if it has
/// none (NORA requires both); spells out the type a property has only in
/// effect (`crate::schema::implied_types`); returns the names of the
/// properties given a placeholder.
fn fill_descriptions(dialect: &mut Value) -> Vec<String> {
    let Some(root) = dialect.as_object_mut() else {
        return Vec::new();
    };
    let Value::Object(properties) = root
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()))
    else {
        return Vec::new();
    };
    let mut filled = Vec::new();
    for (name, property) in properties.iter_mut() {
        let Value::Object(property) = property else {
            continue;
        };
        // The type it has in effect (`Optional[int]`: integer or null),
        // spelled out as NORA requires; no value's validity changes.
        if !property.contains_key("type")
            && let Some(mut types) = crate::schema::implied_types(property)
        {
            let types = match types.len() {
                1 => Value::String(types.remove(0)),
                _ => Value::from(types),
            };
            property.insert("type".into(), types);
        }
        if !property.get("description").is_some_and(Value::is_string) {
            property.insert("description".into(), Value::from(PARAMETER_PLACEHOLDER));
            filled.push(name.clone());
        }
    }
    filled
}

/// A relative path without `..` or a root: it stays in the tool's directory.
fn is_plain_relative(path: &str) -> bool {
    let path = std::path::Path::new(path);
    !path.as_os_str().is_empty()
        && path
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
}

/// The `main.py` that `toolc gen python --style nora` writes for the tool.
fn entrypoint_skeleton(
    set: &ToolSet,
    tool: &crate::ir::Tool,
    options: &Options,
) -> Result<String, EmitError> {
    let options = options.skeletons(crate::emit::python::Style::Nora);
    crate::emit::python::nora_entrypoint(set, tool, &options)
}

/// Standard JSON Schema in NORA's dialect: each top-level property says
/// `"required": true|false`; the root's `required` list goes away (names in
/// it that no property has stay in it).
pub(super) fn nora_dialect(schema: &Value) -> Value {
    let mut schema = schema.clone();
    let Some(object) = schema.as_object_mut() else {
        return schema;
    };
    let required: Vec<Value> = match object.remove("required") {
        Some(Value::Array(names)) => names,
        Some(other) => {
            object.insert("required".into(), other);
            Vec::new()
        }
        None => Vec::new(),
    };
    let mut unmatched = required.clone();
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            let Some(property) = property.as_object_mut() else {
                continue;
            };
            let is_required = required.iter().any(|r| r == name.as_str());
            unmatched.retain(|r| r != name.as_str());
            property.insert("required".into(), Value::Bool(is_required));
        }
    }
    if !unmatched.is_empty() {
        object.insert("required".into(), Value::Array(unmatched));
    }
    schema
}
