//! agentcli: one `OUT/tools.json` holding every tool, and a program stub
//! (`OUT/tools/bin/<program>`, executable) for each command whose program
//! the output does not have yet. A file whose tools were read from an
//! agentcli file (directly, or through NORA) is written as that file was,
//! where its tools still read as they were written (see [`layout`]).

mod layout;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::{
    Converted, FileKind, Options, OutputFile, attach_x_toolc, document, place_set, place_tool,
    x_toolc_object,
};
use crate::diagnostic::Severity;
use crate::emit::EmitError;
use crate::formats::agentcli::FILE_NAME;
use crate::formats::agentcli_command::{BIN_PREFIX, CommandPath, classify, program};
use crate::ir::{Format, Runtime, ToolSet};

pub(super) fn write(
    toolsets: &[ToolSet],
    options: &Options,
    out: &mut Converted,
) -> Result<(), EmitError> {
    let mut stubs = BTreeSet::new();
    let mut root = super::new_root(Format::Agentcli, options);
    root.insert("tools".into(), Value::Array(Vec::new()));
    let mut entries = Vec::new();
    let mut layouts = Vec::new();
    for set in toolsets {
        let set_fields = place_set(out, set, Format::Agentcli, Some(&mut root), true);
        for (index, tool) in set.tools.iter().enumerate() {
            let mut entry = Map::new();
            entry.insert("name".into(), Value::String(tool.name.clone()));
            if let Some(description) = &tool.description {
                entry.insert("description".into(), Value::String(description.clone()));
            }
            match &tool.parameters {
                // Absent stays absent: agentcli reads no schema as this.
                Some(parameters)
                    if **parameters == crate::formats::no_parameters()
                        && layout::written_without_schema(tool.extra.layout.as_deref()) => {}
                Some(parameters) => {
                    entry.insert("schema".into(), Value::clone(parameters));
                }
                None => out.note(
                    set,
                    &tool.name_at,
                    Severity::Warning,
                    format!(
                        "the parameters of tool \"{}\" are not known (its {} code was not found or not readable); its agentcli entry has no schema",
                        tool.name, set.format
                    ),
                ),
            }
            let placeholder = !matches!(&tool.runtime, Runtime::Command { argv, .. } if !argv.is_empty())
                && !tool
                    .extra
                    .carried
                    .iter()
                    .any(|c| c.format == Format::Agentcli && c.key == "command");
            entry.insert(
                "command".into(),
                Value::Array(vec![Value::String(format!("{BIN_PREFIX}{}", tool.name))]),
            );
            if placeholder {
                out.note(
                    set,
                    &tool.origin,
                    Severity::Warning,
                    format!(
                        "tool \"{}\" says no program to run; its agentcli \"command\" is the placeholder [\"{BIN_PREFIX}{}\"]: put the program there or point it elsewhere",
                        tool.name, tool.name
                    ),
                );
            }
            let placed = place_tool(out, set, tool, Format::Agentcli, &mut entry, true);
            let command = program(entry.get("command")).map(|p| (p, classify(p)));
            if let Some((_, CommandPath::InsideBin(relative))) = &command
                && !super::exists_in_output(options, Path::new(relative))
                && stubs.insert(relative.clone())
            {
                out.files.push(OutputFile {
                    path: PathBuf::from(relative),
                    contents: program_stub(&tool.name, options)?,
                    kind: FileKind::Program,
                });
            }
            if let Some((program, CommandPath::EscapesBin(resolved))) = &command {
                out.note(
                    set,
                    &tool.origin,
                    Severity::Error,
                    format!(
                        "the agentcli command of tool \"{}\" would run \"{program}\", which resolves to \"{resolved}\", outside {BIN_PREFIX}: agentcli refuses it; point it at a program inside {BIN_PREFIX}",
                        tool.name
                    ),
                );
            }
            attach_x_toolc(&mut entry, x_toolc_object(placed, &set_fields, Vec::new()));
            entries.push(Value::Object(entry));
            layouts.push((
                tool.extra.layout.as_deref(),
                tool.extra.position.unwrap_or(index),
            ));
        }
    }
    root.insert("tools".into(), Value::Array(entries));
    let root = Value::Object(root);
    let written = root.get("tools").and_then(Value::as_array).map(|tools| {
        let entries: Vec<layout::Entry> = tools
            .iter()
            .zip(&layouts)
            .map(|(value, (layout, position))| layout::Entry {
                value,
                layout: *layout,
                position: *position,
            })
            .collect();
        layout::assemble(&root, &entries)
    });
    if let Some(first) = toolsets.first() {
        out.check_structure(Format::Agentcli, &root, Path::new(FILE_NAME), first, "");
    }
    out.files.push(OutputFile {
        path: PathBuf::from(FILE_NAME),
        contents: match written.flatten() {
            Some(text) => text,
            None => document(&root)?,
        },
        kind: FileKind::Owned,
    });
    Ok(())
}

/// The program stub of a tool (`agentcli/program.py.j2`).
fn program_stub(name: &str, options: &Options) -> Result<String, EmitError> {
    let name_literal = serde_json::to_string(name)?;
    options.templates.render(
        "agentcli/program.py.j2",
        serde_json::json!({ "name_literal": name_literal }),
    )
}
