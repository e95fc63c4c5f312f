//! Linting: the rule registry and the runner.
//!
//! A lint run finds the files (`walk`), reads and lowers each one
//! (`load`), checks each manifest against its format's structural
//! schema and the per-file rules in parallel, then runs the checks that look
//! across files (duplicate tool names among sibling tool directories), drops
//! structural findings that a more specific rule already reported, and sorts
//! everything by path, offset and code so output is the same on every run.

mod command_path;
pub mod config;
pub mod fix;
pub(crate) mod parameter_schema;
pub(crate) mod rules;
pub(crate) mod schema_walk;
pub mod settings;
mod structure;

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::diagnostic::{Diagnostic, Severity};
use crate::ir::{Format, ToolSet};
use crate::json::Document;
use crate::load::{self, Loaded};
use crate::source::{Source, Span};
use crate::walk;

pub use rules::{ALL as RULES, find as find_rule};
pub use settings::{Level, Limits, Settings, Target};

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
    /// The providers whose rejections the rule checks for; empty for the
    /// rules that always run.
    pub targets: &'static [Target],
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
    /// What to check for in this file (targets, limits, rule levels).
    pub settings: Arc<Settings>,
    /// The parameter schemas read from the package's code (AgentStack,
    /// Nachos), which the manifest does not hold.
    pub(crate) derived: Vec<parameter_schema::DerivedSchema>,
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
        crate::json::value_at(&self.document.value, pointer)
    }

    /// 1-based line of a byte offset, for messages that cite a line.
    pub(crate) fn line_of(&self, span: Span) -> usize {
        self.source.line_col(span.start).line
    }

    /// A NORA tool's entrypoint as written, and resolved against the
    /// manifest's directory; `None` for other formats or when it is not a
    /// non-empty string.
    pub(crate) fn nora_entrypoint(&self) -> Option<(&str, PathBuf)> {
        if self.format() != Format::Nora {
            return None;
        }
        let entrypoint = self
            .raw("/entrypoint")?
            .as_str()
            .filter(|e| !e.is_empty())?;
        Some((entrypoint, self.dir.join(entrypoint)))
    }

    /// Where a tool's name is: the string value, or the key when the format
    /// names tools by key (AgentStack's permissions map).
    pub(crate) fn tool_name_span(&self, tool: &crate::ir::Tool) -> Span {
        if tool.name_is_key {
            self.document.map.key_or_locate(&tool.name_at)
        } else {
            self.document.map.locate(&tool.name_at).span
        }
    }

    /// A diagnostic at a tool's name.
    pub(crate) fn at_tool_name(
        &self,
        rule: &'static Rule,
        tool: &crate::ir::Tool,
        message: impl Into<String>,
    ) -> Diagnostic {
        let span = self.tool_name_span(tool);
        rule.diagnostic(self.path(), tool.name_at.clone(), Some(span), message)
    }
}

/// How to lint.
#[derive(Debug, Clone, Default)]
pub struct LintOptions {
    /// Treat every file as this format instead of detecting it.
    pub input_format: Option<Format>,
    /// Keep each manifest's IR in [`LintReport::toolsets`] (for generators).
    /// Off by default: a lint run then holds only findings, not documents.
    pub keep_toolsets: bool,
    /// What the command line says about targets, rules and limits; it wins
    /// over `toolc.toml`.
    pub command_line: config::CommandLine,
    /// Paths not to read, at any depth (a generator's output).
    pub exclude: Vec<PathBuf>,
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
    /// The text of the files that diagnostics point into, for snippets.
    pub sources: BTreeMap<String, Source>,
    /// The IR of every manifest that parsed, in path order, when
    /// [`LintOptions::keep_toolsets`] asks for it.
    pub toolsets: Vec<ToolSet>,
    /// Each kept manifest's source map (pointer to span), for generators'
    /// notes that point into the source.
    pub maps: BTreeMap<String, crate::json::SourceMap>,
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
    #[error("{0}")]
    Config(String),
    #[error("internal error: {0}")]
    Internal(String),
}

/// What checking one file leaves behind once its document is dropped.
struct Checked {
    summary: FileSummary,
    diagnostics: Vec<Diagnostic>,
    source: Option<Source>,
    toolset: Option<ToolSet>,
    map: Option<crate::json::SourceMap>,
    registered: Vec<rules::duplicate_tool_name::RegisteredName>,
}

/// Lints files and directories.
pub fn lint_paths(paths: &[PathBuf], options: &LintOptions) -> Result<LintReport, LintError> {
    // Files are checked while the walk goes on. Each is read, checked and
    // dropped on a worker thread, so memory holds findings, not documents,
    // and the cost of freeing is shared too.
    let resolver = config::Resolver::new(options.command_line.clone())?;
    let found = walk::discover(paths, &options.exclude)?;
    // A file both named and met in a walk is checked as named (where a file
    // of no known format is an error), whichever copy arrives first.
    let named: HashSet<PathBuf> = paths
        .iter()
        .filter(|p| !p.is_dir())
        .map(|p| walk::identity(p))
        .collect();
    let seen = std::sync::Mutex::new(HashSet::new());
    let checked: Vec<Outcome> = found
        .par_bridge()
        .map(|found| match found {
            walk::Found::Problem(diagnostic) => Ok(Outcome::WalkProblem(diagnostic)),
            walk::Found::File(candidate) => {
                let identity = walk::identity(&candidate.path);
                if !candidate.explicit && named.contains(&identity) {
                    return Ok(Outcome::Repeated);
                }
                // The same file named twice (or named and walked) counts once.
                let first = seen.lock().map(|mut s| s.insert(identity)).unwrap_or(true);
                if !first {
                    return Ok(Outcome::Repeated);
                }
                let settings = resolver.settings_for(&candidate.path)?;
                Ok(match check_file(&candidate, options, settings)? {
                    Some(checked) => Outcome::Checked(Box::new(checked)),
                    None => Outcome::Skipped,
                })
            }
        })
        .collect::<Result<_, LintError>>()?;

    let mut report = LintReport::default();
    let mut registered = Vec::new();
    let mut walk_problems = Vec::new();
    for outcome in checked {
        let item = match outcome {
            Outcome::Checked(item) => *item,
            Outcome::Skipped => {
                report.skipped += 1;
                continue;
            }
            Outcome::Repeated => continue,
            Outcome::WalkProblem(diagnostic) => {
                walk_problems.push(*diagnostic);
                continue;
            }
        };
        if let Some(source) = item.source {
            report.sources.insert(item.summary.path.clone(), source);
        }
        if let Some(map) = item.map {
            report.maps.insert(item.summary.path.clone(), map);
        }
        report.files.push(item.summary);
        report.diagnostics.extend(item.diagnostics);
        report.toolsets.extend(item.toolset);
        registered.extend(item.registered);
    }
    let mut across = Vec::new();
    rules::duplicate_tool_name::check_registered(&registered, &mut across);
    // Walk problems and findings across files get their file's levels here;
    // each file's own findings got them on its worker.
    for mut diagnostic in walk_problems.into_iter().chain(across) {
        let settings = resolver.settings_for(Path::new(&diagnostic.path))?;
        if apply_level(&mut diagnostic, &settings) {
            report.diagnostics.push(diagnostic);
        }
    }
    report.files.sort_by(|a, b| a.path.cmp(&b.path));
    report.toolsets.sort_by(|a, b| a.path.cmp(&b.path));
    report.diagnostics.sort_by(Diagnostic::sort_key_cmp);
    Ok(report)
}

enum Outcome {
    Checked(Box<Checked>),
    Skipped,
    Repeated,
    WalkProblem(Box<Diagnostic>),
}

/// Reads and checks one file; `None` when it is skipped.
fn check_file(
    candidate: &walk::Candidate,
    options: &LintOptions,
    settings: Arc<Settings>,
) -> Result<Option<Checked>, LintError> {
    let manifest = match load::load(candidate, options, settings.clone()) {
        Loaded::Skipped => return Ok(None),
        Loaded::Failed {
            summary,
            source,
            mut diagnostics,
        } => {
            diagnostics.retain_mut(|d| apply_level(d, &settings));
            return Ok(Some(Checked {
                summary,
                diagnostics,
                source,
                toolset: None,
                map: None,
                registered: Vec::new(),
            }));
        }
        Loaded::Manifest(manifest) => manifest,
    };
    let mut diagnostics = Vec::new();
    check_manifest(&manifest, &mut diagnostics)?;
    diagnostics.retain_mut(|d| apply_level(d, &settings));
    let registered = rules::duplicate_tool_name::registered_names(&manifest);
    let keep_source = !diagnostics.is_empty() || !registered.is_empty() || options.keep_toolsets;
    let Manifest {
        source,
        toolset,
        document,
        ..
    } = *manifest;
    Ok(Some(Checked {
        summary: FileSummary {
            path: source.path.clone(),
            format: Some(toolset.format),
            tools: toolset.tools.len(),
        },
        diagnostics,
        source: keep_source.then_some(source),
        toolset: options.keep_toolsets.then_some(toolset),
        map: options.keep_toolsets.then_some(document.map),
        registered,
    }))
}

/// Runs the per-file rules and the structural check on one manifest.
fn check_manifest(manifest: &Manifest, out: &mut Vec<Diagnostic>) -> Result<(), LintError> {
    let mut derived = Vec::new();
    rules::check_manifest(manifest, out, &mut derived);
    if rules::is_checked_structurally(manifest) {
        out.extend(structure::check(manifest).map_err(LintError::Internal)?);
    }
    keep_one_report_per_defect(out);
    // Findings about schemas read from code all sit at tool names, and were
    // already deduplicated by their place in those schemas: kept out of the
    // step above, they neither displace nor are displaced by a finding
    // about the name itself.
    out.extend(derived);
    Ok(())
}

/// Gives a finding its configured severity; false when its rule is off.
fn apply_level(diagnostic: &mut Diagnostic, settings: &Settings) -> bool {
    let Some(rule) = find_rule(diagnostic.rule) else {
        return true;
    };
    match settings.level(rule) {
        Level::Off => false,
        Level::On(severity) => {
            diagnostic.severity = severity;
            true
        }
    }
}

/// One defect, one report: a generic finding (the format's structure, the
/// JSON Schema meta-schema) gives way to a specific rule's finding about the
/// same value. Findings about keys (a duplicate, an unknown field) are about
/// something else than the value, so they never displace one.
pub(crate) fn keep_one_report_per_defect(out: &mut Vec<Diagnostic>) {
    let is_generic = |d: &Diagnostic| rules::GENERIC.contains(&d.rule);
    let specific: HashSet<String> = out
        .iter()
        .filter(|d| !is_generic(d) && !rules::ABOUT_KEYS.contains(&d.rule))
        .map(|d| d.pointer.clone())
        .collect();
    out.retain(|d| !is_generic(d) || !specific.contains(&d.pointer));
}

/// The directory of a manifest path, for resolving relative paths.
pub(crate) fn manifest_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A name quoted for a message, cut short when long (the caret shows all of
/// it) and with control characters escaped.
pub(crate) fn shown(name: &str) -> String {
    const SHOWN: usize = 40;
    if name.chars().count() <= SHOWN {
        return format!("{name:?}");
    }
    let head: String = name.chars().take(SHOWN).collect();
    format!("{:?}", format!("{head}…"))
}
