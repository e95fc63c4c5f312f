//! Linting: the rule registry and the runner.
//!
//! A lint run finds the files ([`crate::walk`]), reads and lowers each one
//! ([`crate::load`]), checks each manifest against its format's structural
//! schema and the per-file rules in parallel, then runs the checks that look
//! across files (duplicate tool names among sibling tool directories), drops
//! structural findings that a more specific rule already reported, and sorts
//! everything by path, offset and code so output is the same on every run.

mod command_path;
pub(crate) mod rules;
mod schema_walk;
mod structure;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::diagnostic::{Diagnostic, Severity};
use crate::ir::{Format, ToolSet};
use crate::json::Document;
use crate::load::{self, Loaded};
use crate::source::{Source, Span};
use crate::walk;

pub use rules::{ALL as RULES, find as find_rule};

/// A lint rule's identity. Its documentation is the `//!` comment of its
/// file under `src/lint/rules/`, printed by `toolc explain`.
#[derive(Debug, PartialEq, Eq)]
pub struct Rule {
    /// Stable kebab-case name; configurations refer to it.
    pub name: &'static str,
    /// Stable code, never reused.
    pub code: &'static str,
    pub severity: Severity,
    /// One line for `toolc rules`.
    pub summary: &'static str,
}

impl Rule {
    /// The rule's full documentation (What it does / Why is this bad? /
    /// Example / Use instead).
    pub fn documentation(&self) -> &'static str {
        rules::documentation(self.name)
    }

    pub(crate) fn diagnostic(
        &'static self,
        path: &str,
        pointer: impl Into<String>,
        span: Option<Span>,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            rule: self.name,
            code: self.code,
            severity: self.severity,
            message: message.into(),
            path: path.to_string(),
            pointer: pointer.into(),
            span,
            help: None,
            related: Vec::new(),
            fix: None,
        }
    }
}

/// A manifest that parsed: its text, document, IR and location on disk.
#[derive(Debug, Clone)]
pub struct Manifest {
    pub source: Source,
    pub document: Document,
    pub toolset: ToolSet,
    /// The directory holding the manifest; relative paths in it resolve here.
    pub dir: PathBuf,
}

impl Manifest {
    pub fn path(&self) -> &str {
        &self.source.path
    }

    pub fn format(&self) -> Format {
        self.toolset.format
    }

    /// A diagnostic at the value `pointer` names (or, if absent, at its
    /// nearest existing ancestor).
    pub(crate) fn at_value(
        &self,
        rule: &'static Rule,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) -> Diagnostic {
        let pointer = pointer.into();
        let span = self.document.map.locate(&pointer).span;
        rule.diagnostic(self.path(), pointer, Some(span), message)
    }

    /// A diagnostic at the key of the member `pointer` names.
    pub(crate) fn at_key(
        &self,
        rule: &'static Rule,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) -> Diagnostic {
        let pointer = pointer.into();
        let span = self.document.map.key_or_locate(&pointer);
        rule.diagnostic(self.path(), pointer, Some(span), message)
    }

    /// The raw value at `pointer`.
    pub(crate) fn raw(&self, pointer: &str) -> Option<&serde_json::Value> {
        self.document.value.pointer(pointer)
    }

    /// 1-based line of a byte offset, for messages that cite a line.
    pub(crate) fn line_of(&self, span: Span) -> usize {
        self.source.line_col(span.start).line
    }
}

/// How to lint.
#[derive(Debug, Clone)]
pub struct LintOptions {
    /// Files larger than this are reported, not read.
    pub max_file_size: u64,
    /// Treat every file as this format instead of detecting it.
    pub input_format: Option<Format>,
}

impl Default for LintOptions {
    fn default() -> Self {
        LintOptions {
            max_file_size: 16 * 1024 * 1024,
            input_format: None,
        }
    }
}

/// A file that was read and classified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSummary {
    pub path: String,
    /// `None` when the file could not be read or matched no format.
    pub format: Option<Format>,
    pub tools: usize,
}

/// Everything a lint run found.
#[derive(Debug, Clone, Default)]
pub struct LintReport {
    pub files: Vec<FileSummary>,
    /// JSON files in walked directories that matched no format.
    pub skipped: usize,
    pub diagnostics: Vec<Diagnostic>,
    /// The text of every file that was read, for rendering snippets.
    pub sources: BTreeMap<String, Source>,
    /// The manifests that parsed, in path order.
    pub manifests: Vec<Manifest>,
}

impl LintReport {
    pub fn count(&self, severity: Severity) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    }
}

/// Why a lint run could not happen at all.
#[derive(Debug, thiserror::Error)]
pub enum LintError {
    #[error("{0}: no such file or directory")]
    PathNotFound(String),
    #[error("internal error: {0}")]
    Internal(String),
}

/// Lints files and directories.
pub fn lint_paths(paths: &[PathBuf], options: &LintOptions) -> Result<LintReport, LintError> {
    let found = walk::discover(paths)?;
    let loaded: Vec<Loaded> = found
        .files
        .par_iter()
        .map(|candidate| load::load(candidate, options))
        .collect();

    let mut report = LintReport {
        skipped: found.skipped,
        diagnostics: found.diagnostics,
        ..LintReport::default()
    };
    let mut checked: Vec<(Manifest, Vec<Diagnostic>)> = Vec::new();
    for item in loaded {
        match item {
            Loaded::Skipped => report.skipped += 1,
            Loaded::Failed {
                summary,
                source,
                diagnostics,
            } => {
                if let Some(source) = source {
                    report.sources.insert(summary.path.clone(), source);
                }
                report.files.push(summary);
                report.diagnostics.extend(diagnostics);
            }
            Loaded::Manifest(manifest) => checked.push((*manifest, Vec::new())),
        }
    }
    checked
        .par_iter_mut()
        .try_for_each(|(manifest, out)| check_manifest(manifest, out))?;
    for (manifest, diagnostics) in checked {
        report.files.push(FileSummary {
            path: manifest.path().to_string(),
            format: Some(manifest.format()),
            tools: manifest.toolset.tools.len(),
        });
        report.diagnostics.extend(diagnostics);
        report
            .sources
            .insert(manifest.path().to_string(), manifest.source.clone());
        report.manifests.push(manifest);
    }
    report.manifests.sort_by(|a, b| a.path().cmp(b.path()));
    rules::check_across_files(&report.manifests, &mut report.diagnostics);
    report.files.sort_by(|a, b| a.path.cmp(&b.path));
    report.diagnostics.sort_by(Diagnostic::sort_key_cmp);
    Ok(report)
}

/// Runs the structural check and every per-file rule on one manifest.
fn check_manifest(manifest: &Manifest, out: &mut Vec<Diagnostic>) -> Result<(), LintError> {
    rules::check_manifest(manifest, out);
    if rules::is_checked_structurally(manifest) {
        let mut structural = structure::check(manifest).map_err(LintError::Internal)?;
        // A specific rule wins over the generic structural finding at the
        // same place: one defect, one report.
        structural.retain(|s| {
            !out.iter()
                .any(|d| d.pointer == s.pointer && d.rule != s.rule)
        });
        out.extend(structural);
    }
    Ok(())
}

/// The directory of a manifest path, for resolving relative paths.
pub(crate) fn manifest_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

impl Manifest {
    /// A diagnostic at a tool's name: the string value, or the key when the
    /// format names tools by key.
    pub(crate) fn at_tool_name(
        &self,
        rule: &'static Rule,
        tool: &crate::ir::Tool,
        message: impl Into<String>,
    ) -> Diagnostic {
        if tool.name_is_key {
            self.at_key(rule, tool.name_at.clone(), message)
        } else {
            self.at_value(rule, tool.name_at.clone(), message)
        }
    }
}
