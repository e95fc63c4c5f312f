//! ## What it does
//! Reports a tool name declared twice: within one manifest, or across the
//! manifests that one registry loads together — sibling NORA tool
//! directories (`tools/a/tool.json`, `tools/b/tool.json`) and sibling Nachos
//! tool packages (`tools/x/manifest*.json`). The related location points at
//! the first declaration.
//!
//! AgentStack functions are namespaced by their package, and single-tool
//! provider files are not registered together, so neither is compared across
//! files.
//!
//! ## Why is this bad?
//! Providers reject a request whose tools share a name, and a registry that
//! keys tools by name keeps only one of them.
//!
//! ## Example
//! ```json
//! {"tools": [
//!   {"name": "fetch", "command": ["./tools/bin/fetch"]},
//!   {"name": "fetch", "command": ["./tools/bin/fetch_v2"]}
//! ]}
//! ```
//!
//! ## Use instead
//! ```json
//! {"tools": [
//!   {"name": "fetch", "command": ["./tools/bin/fetch"]},
//!   {"name": "fetch_v2", "command": ["./tools/bin/fetch_v2"]}
//! ]}
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use crate::diagnostic::{Diagnostic, Related, Severity};
use crate::ir::{Format, Tool};
use crate::lint::{Manifest, Rule};

pub(crate) const RULE: Rule = Rule {
    name: "duplicate-tool-name",
    code: "TC102",
    severity: Severity::Error,
    summary: "two tools share a name",
};

/// Duplicates inside one manifest.
pub(crate) fn check(manifest: &Manifest, out: &mut Vec<Diagnostic>) {
    let mut first: BTreeMap<&str, &Tool> = BTreeMap::new();
    for tool in &manifest.toolset.tools {
        if tool.name.is_empty() {
            continue;
        }
        match first.get(tool.name.as_str()) {
            Some(earlier) => out.push(report(manifest, tool, manifest, earlier)),
            None => {
                first.insert(&tool.name, tool);
            }
        }
    }
}

/// Duplicates across manifests registered together. `manifests` is in path
/// order, so "first" is stable.
pub(crate) fn check_across_files(manifests: &[Manifest], out: &mut Vec<Diagnostic>) {
    let mut first: BTreeMap<(String, &str), (&Manifest, &Tool)> = BTreeMap::new();
    for manifest in manifests {
        let Some(group) = registry_group(manifest) else {
            continue;
        };
        for tool in &manifest.toolset.tools {
            if tool.name.is_empty() {
                continue;
            }
            let key = (group.clone(), tool.name.as_str());
            match first.get(&key) {
                Some(&(earlier_manifest, earlier))
                    if earlier_manifest.path() != manifest.path() =>
                {
                    out.push(report(manifest, tool, earlier_manifest, earlier));
                }
                Some(_) => {}
                None => {
                    first.insert(key, (manifest, tool));
                }
            }
        }
    }
}

/// Manifests with the same group are loaded into one registry: for
/// directory-per-tool formats, the directory that holds the tool directories.
fn registry_group(manifest: &Manifest) -> Option<String> {
    if !matches!(manifest.format(), Format::Nora | Format::Nachos) {
        return None;
    }
    let tools_dir = Path::new(manifest.path()).parent()?.parent()?;
    Some(format!("{}:{}", manifest.format(), tools_dir.display()))
}

fn report(
    manifest: &Manifest,
    tool: &Tool,
    earlier_manifest: &Manifest,
    earlier: &Tool,
) -> Diagnostic {
    let earlier_span = name_span(earlier_manifest, earlier);
    let line = earlier_manifest.line_of(earlier_span);
    let place = if earlier_manifest.path() == manifest.path() {
        format!("line {line}")
    } else {
        format!("{}:{line}", earlier_manifest.path())
    };
    manifest
        .at_tool_name(
            &RULE,
            tool,
            format!("tool name \"{}\" is already declared at {place}", tool.name),
        )
        .with_help("rename one of the tools; tool names must be unique")
        .with_related(Related {
            path: earlier_manifest.path().to_string(),
            span: earlier_span,
            message: "first declared here".to_string(),
        })
}

fn name_span(manifest: &Manifest, tool: &Tool) -> crate::source::Span {
    if tool.name_is_key {
        manifest.document.map.key_or_locate(&tool.name_at)
    } else {
        manifest.document.map.locate(&tool.name_at).span
    }
}
