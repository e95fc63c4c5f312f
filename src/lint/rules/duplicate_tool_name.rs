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
use crate::lint::findings::Findings;
use crate::lint::{Manifest, Rule};
use crate::project::{NameEntry, Repeats, name_clashes};
use crate::source::Span;

pub(crate) const RULE: Rule = Rule {
    name: "duplicate-tool-name",
    code: "TC102",
    severity: Severity::Error,
    summary: "two tools share a name",
    fixable: false,
    targets: &[],
};

/// Duplicates inside one manifest.
pub(crate) fn check(manifest: &Manifest, out: &mut Findings) {
    let mut first: BTreeMap<&str, &Tool> = BTreeMap::new();
    for tool in &manifest.toolset.tools {
        if tool.name.is_empty() {
            continue;
        }
        match first.get(tool.name.as_str()) {
            Some(earlier) => out.push(report(manifest, tool, earlier)),
            None => {
                first.insert(&tool.name, tool);
            }
        }
    }
}

/// A tool name in a manifest that a registry loads together with others;
/// what the cross-file check needs once the document itself is gone.
#[derive(Debug, Clone)]
pub(crate) struct RegisteredName {
    group: String,
    name: String,
    path: String,
    pointer: String,
    span: Span,
    line: usize,
}

/// The names one manifest contributes to its registry group.
pub(crate) fn registered_names(manifest: &Manifest) -> Vec<RegisteredName> {
    let Some(group) = registry_group(manifest) else {
        return Vec::new();
    };
    manifest
        .named_tools()
        .map(|(tool, span, line)| RegisteredName {
            group: group.clone(),
            name: tool.name.clone(),
            path: manifest.path().to_string(),
            pointer: tool.name_at.clone(),
            span,
            line,
        })
        .collect()
}

/// Duplicates across manifests registered together. The first declaration
/// in path order is the one the others are reported against.
pub(crate) fn check_registered(names: &[RegisteredName], out: &mut Vec<Diagnostic>) {
    let entries: Vec<NameEntry> = names
        .iter()
        .map(|n| NameEntry {
            group: &n.group,
            name: &n.name,
            path: &n.path,
        })
        .collect();
    for clash in name_clashes(&entries, Repeats::AcrossManifests) {
        let (earlier, entry) = (&names[clash.first], &names[clash.again]);
        out.push(
            RULE.diagnostic(
                &entry.path,
                entry.pointer.clone(),
                Some(entry.span),
                format!(
                    "tool name \"{}\" is already declared at {}:{}",
                    entry.name, earlier.path, earlier.line
                ),
            )
            .with_help(HELP)
            .with_related(Related {
                path: earlier.path.clone(),
                span: earlier.span,
                message: "first declared here".to_string(),
            }),
        );
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

const HELP: &str = "rename one of the tools; tool names must be unique";

fn report(manifest: &Manifest, tool: &Tool, earlier: &Tool) -> Diagnostic {
    let earlier_span = manifest.tool_name_span(earlier);
    let line = manifest.line_of(earlier_span);
    manifest
        .at_tool_name(
            &RULE,
            tool,
            format!(
                "tool name \"{}\" is already declared at line {line}",
                tool.name
            ),
        )
        .with_help(HELP)
        .with_related(Related {
            path: manifest.path().to_string(),
            span: earlier_span,
            message: "first declared here".to_string(),
        })
}
