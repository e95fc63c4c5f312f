//! Nachos: `OUT/<tool>/manifest.json` per tool and, where the tool's
//! package has no class with its `toolId`, a TypeScript class skeleton
//! implementing Nachos' `Tool` interface under `OUT/<tool>/src/`.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::{
    Converted, FileKind, Options, OutputFile, attach_x_toolc, document, place_set, place_tool,
    x_toolc_object,
};
use crate::diagnostic::Severity;
use crate::emit::EmitError;
use crate::ir::{Format, ToolSet};
use crate::project::DEFAULT_MAX_FILE_SIZE;

/// The version of a package whose source says none.
const DEFAULT_VERSION: &str = "0.1.0";
/// `SecurityTier.STANDARD`: the tier of a tool whose source says none.
const DEFAULT_TIER: i64 = crate::emit::typescript::DEFAULT_SECURITY_TIER;
/// Where a manifest holds its tool's tier.
const TIER_POINTER: &str = "/provides/securityTier";

/// Writes the tools of `set`, each into its directory of `directories`.
pub(super) fn write_set(
    set: &ToolSet,
    directories: &[String],
    options: &Options,
    out: &mut Converted,
) -> Result<(), EmitError> {
    let set_fields = place_set(out, set, Format::Nachos, None, true);
    for ((index, tool), directory) in set.tools.iter().enumerate().zip(directories) {
        let tier = tool.permissions.security_tier.unwrap_or(DEFAULT_TIER);
        // A display name an earlier conversion kept is the title.
        let title = tool.title.clone().or_else(|| {
            tool.extra
                .carried
                .iter()
                .find(|c| c.format == Format::Nachos && c.key == "name")
                .and_then(|c| c.value.as_str().map(str::to_string))
        });
        let mut manifest = super::new_root(Format::Nachos, options);
        manifest.insert(
            "name".into(),
            Value::String(title.clone().unwrap_or_else(|| tool.name.clone())),
        );
        manifest.insert("version".into(), Value::from(DEFAULT_VERSION));
        manifest.insert("type".into(), Value::from("tool"));
        if let Some(description) = &tool.description {
            manifest.insert("description".into(), Value::String(description.clone()));
        }
        manifest.insert(
            "provides".into(),
            json!({"tool": tool.name, "securityTier": tier}),
        );
        let placed = place_tool(out, set, tool, Format::Nachos, &mut manifest, true);
        // The class needs a description; when the tool has none, the
        // manifest says so, so that the class's is not taken for one.
        let mut extra = match &tool.description {
            None => vec![("description", Value::Null)],
            Some(_) => Vec::new(),
        };
        // What Nachos requires and the source did not say is made up:
        // converting back does not take it for the user's.
        // (A tier read from a Nachos manifest is declared there, unless
        // it was made up and dropped as such: then it is made up again.)
        let made_up = vec![
            ("/version", Value::from(DEFAULT_VERSION)),
            (TIER_POINTER, Value::from(tier)),
        ];
        let assumed = super::assumed(&tool.extra.carried, Format::Nachos, made_up);
        let tier_made_up = assumed
            .as_ref()
            .is_some_and(|(_, record)| record.get(TIER_POINTER).is_some());
        extra.extend(assumed);
        // The class declares `type` first: where that (or anything
        // else) changes how the parameters are written, the exact ones
        // go along, and reading them back restores them.
        if let Some(parameters) = &tool.parameters {
            let class = crate::emit::typescript::parameters(tool).ok();
            if class.map(|c| c.to_string()) != Some(parameters.to_string()) {
                extra.push(("parameters", Value::clone(parameters)));
            }
        }
        extra.extend(super::origin_records(set, tool, index, Format::Nachos));
        attach_x_toolc(&mut manifest, x_toolc_object(placed, &set_fields, extra));
        let written_tier = manifest
            .get("provides")
            .and_then(|p| p.get("securityTier"))
            .and_then(Value::as_i64);
        if tier_made_up {
            out.note(
                    set,
                    &tool.origin,
                    Severity::Info,
                    format!(
                        "tool \"{}\" says nothing of its security tier; it gets {DEFAULT_TIER} (SecurityTier.STANDARD): review it",
                        tool.name
                    ),
                );
        }
        let manifest = Value::Object(manifest);
        let path = PathBuf::from(directory).join(crate::formats::nachos::FILE_NAME);
        out.check_structure(Format::Nachos, &manifest, &path, set, &tool.origin);
        out.files.push(OutputFile {
            path,
            contents: document(&manifest)?,
            kind: FileKind::Owned,
        });
        let has_class = options
            .out_dir
            .is_some_and(|dir| has_class(&dir.join(directory), &tool.name));
        if !has_class {
            let mut class_tool = tool.clone();
            class_tool.title = title.clone();
            class_tool.permissions.security_tier = written_tier.or(Some(tier));
            if class_tool.parameters.is_none() {
                class_tool.parameters = Some(crate::ir::SharedValue::new(
                    super::parameters_or_empty(out, set, tool, Format::Nachos),
                ));
            }
            let class = crate::emit::typescript::nachos_class(&class_tool, options.templates)?;
            out.files.push(OutputFile {
                path: PathBuf::from(directory).join("src").join(&class.file_name),
                contents: class.contents,
                kind: FileKind::Skeleton,
            });
        }
    }
    Ok(())
}

/// Whether the output package already has the tool's class (a skeleton is
/// then not written over it).
fn has_class(package: &std::path::Path, tool_id: &str) -> bool {
    let read = |path: &std::path::Path| {
        crate::source::read_regular_file(path, DEFAULT_MAX_FILE_SIZE)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .map(std::sync::Arc::from)
            .ok_or_else(|| "cannot be read".to_string())
    };
    crate::typescript::search_package(crate::typescript::package_files(package), tool_id, &read)
        .found
        .is_some()
}
