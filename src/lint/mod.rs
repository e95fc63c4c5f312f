//! Linting: checks of a loaded project, the rule registry and the runner.
//!
//! The front end ([`crate::project`]) finds, reads and lowers the files;
//! lint maps its load problems to rules, checks each manifest against its
//! format's structural schema and the per-file rules in parallel, then runs
//! the checks that look across files (duplicate tool names among sibling
//! tool directories), drops structural findings that a more specific rule
//! already reported, and sorts everything by path, offset and code so output
//! is the same on every run. Rules read what the front end loaded and never
//! a file.
//!
//! [`lint_paths`] loads and checks each file on a worker and keeps only the
//! findings, so memory holds findings, not documents; [`Linter::check`]
//! checks a [`Project`] a caller loaded (gen, convert and run, which keep
//! the IR, use lint that way, as their error gate).

pub(crate) mod command_path;
pub(crate) mod findings;
pub mod fix;
pub(crate) mod parameter_schema;
pub(crate) mod poison;
pub(crate) mod rules;
pub(crate) mod schema_walk;
pub mod select;
pub mod settings;
pub(crate) mod structure;
pub(crate) mod suppress;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::diagnostic::{Diagnostic, Severity};
use crate::ir::Format;
use crate::lint::findings::Findings;
use crate::project::config::{self, ConfigError, Resolver};
use crate::project::{
    self, Failure, HeldDocument, LoadOptions, LoadProblem, Loaded, ProblemKind, Project, ReadLog,
};
use crate::source::{Fingerprint, Source, Span};

pub use crate::diagnostic::Rule;
pub use rules::{ALL as RULES, find as find_rule, security_severity};
pub use settings::{Level, Limits, Settings, Target};

/// A rule's full documentation (What it does / Why is this bad? /
/// Example / Use instead): the `//!` comment of its file under
/// `src/lint/rules/`, printed by `toolc explain`.
pub fn documentation(rule: &Rule) -> &'static str {
    rules::documentation(rule.name)
}

/// A loaded manifest as the rules see it: what the front end loaded, and
/// what to check for in this file.
#[derive(Debug, Clone, Copy)]
pub struct Manifest<'a> {
    pub loaded: &'a project::Manifest,
    /// What to check for in this file (targets, limits, rule levels).
    pub settings: &'a Settings,
}

impl std::ops::Deref for Manifest<'_> {
    type Target = project::Manifest;

    fn deref(&self) -> &project::Manifest {
        self.loaded
    }
}

impl Manifest<'_> {
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
        crate::json::value_at(&self.loaded.document.value, pointer)
    }

    /// 1-based line of a byte offset, for messages that cite a line.
    pub(crate) fn line_of(&self, span: Span) -> usize {
        self.source.line_col(span.start).line
    }

    /// A finding in a code file the manifest depends on (`file`, whose
    /// text the front end read as `text`), at `span` of that text, with
    /// the place in the manifest it concerns (`related`, a span of the
    /// manifest) as related: the snippet shows the code, and the report
    /// still says which manifest entry it is about.
    pub(crate) fn in_code(
        &self,
        rule: &'static Rule,
        file: &Path,
        span: Span,
        message: impl Into<String>,
        related: (Span, &str),
    ) -> Diagnostic {
        let path = project::display_path(file);
        rule.diagnostic(&path, "", Some(span), message)
            .with_related(crate::diagnostic::Related {
                path: self.path().to_string(),
                span: related.0,
                message: related.1.to_string(),
            })
    }

    /// The tools that have a name, each with where its name is (span and
    /// line): what the checks across files keep of a manifest.
    pub(crate) fn named_tools(&self) -> impl Iterator<Item = (&crate::ir::Tool, Span, usize)> + '_ {
        self.toolset
            .tools
            .iter()
            .filter(|tool| !tool.name.is_empty())
            .map(|tool| {
                let span = self.tool_name_span(tool);
                (tool, span, self.line_of(span))
            })
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
    /// What the command line says about targets, rules and limits; it wins
    /// over `toolc.toml`.
    pub command_line: config::CommandLine,
    /// Paths not to read, at any depth (a generator's output).
    pub exclude: Vec<PathBuf>,
    /// Counts the files the run reads, when given.
    pub read_log: Option<Arc<ReadLog>>,
    /// Texts read in place of files (an editor's unsaved buffers).
    pub overlay: Option<Arc<project::Overlay>>,
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
    /// The files looked at and left alone (no manifest), in path order.
    pub skipped: Vec<project::Skipped>,
    pub diagnostics: Vec<Diagnostic>,
    /// The text of the files that diagnostics point into, for snippets.
    pub sources: BTreeMap<String, Source>,
}

/// For each file of a run whose text a report let go, as its path is
/// shown: the file read and the fingerprint of the text it held (see
/// [`project::source_again`]).
pub(crate) type TextsToReread = HashMap<String, (PathBuf, Fingerprint)>;

impl LintReport {
    /// Each document of `renames`' first path named by the second instead
    /// (a live server's `mcp://` document by the file `--save` wrote it
    /// to: the same text, so the same lines and columns).
    pub fn rename_all(&mut self, renames: &[(String, String)]) {
        if renames.is_empty() {
            return;
        }
        let renamed = |path: &mut String| {
            if let Some((_, to)) = renames.iter().find(|(from, _)| from == path) {
                *path = to.clone();
            }
        };
        self.files.iter_mut().for_each(|f| renamed(&mut f.path));
        for diagnostic in &mut self.diagnostics {
            renamed(&mut diagnostic.path);
            diagnostic
                .related
                .iter_mut()
                .for_each(|r| renamed(&mut r.path));
        }
        self.sources = std::mem::take(&mut self.sources)
            .into_iter()
            .map(|(mut path, mut source)| {
                renamed(&mut path);
                renamed(&mut source.path);
                (path, source)
            })
            .collect();
        self.files.sort_by(|a, b| a.path.cmp(&b.path));
        self.diagnostics.sort_by(Diagnostic::sort_key_cmp);
    }

    /// Reads again those of `paths` whose texts the report does not hold
    /// and `texts` knows; a file that changed or went away stays without.
    pub(crate) fn read_again<'p>(
        &mut self,
        paths: impl IntoIterator<Item = &'p String>,
        texts: &TextsToReread,
    ) {
        for path in paths {
            if self.sources.contains_key(path) {
                continue;
            }
            let again = texts
                .get(path)
                .and_then(|(file, first)| project::source_again(file, path, *first));
            if let Some(source) = again {
                self.sources.insert(path.clone(), source);
            }
        }
    }

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
    #[error(transparent)]
    Load(#[from] project::LoadError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("internal error: {0}")]
    Internal(String),
}

/// A lint run's configuration: the options and the `toolc.toml` files that
/// apply to each file.
pub struct Linter {
    options: LintOptions,
    resolver: Arc<Resolver>,
}

impl Linter {
    /// Reads the configuration the command line names (the files beside
    /// each manifest are read when a manifest needs them).
    pub fn new(options: LintOptions) -> Result<Linter, LintError> {
        let resolver = Arc::new(Resolver::new(
            options.command_line.clone(),
            RULES.as_slice(),
        )?);
        Ok(Linter { options, resolver })
    }

    /// A linter for a configuration the caller resolved (and loaded with).
    pub fn configured(options: LintOptions, resolver: Arc<Resolver>) -> Linter {
        Linter { options, resolver }
    }

    /// The configuration this run checks with: the front end loads with it.
    pub fn configuration(&self) -> &Arc<Resolver> {
        &self.resolver
    }

    /// What the front end needs to load files as this run lints them.
    pub fn load_options(&self) -> LoadOptions {
        self.resolver.load_options(LoadOptions {
            input_format: self.options.input_format,
            exclude: self.options.exclude.clone(),
            read_log: self.options.read_log.clone(),
            overlay: self.options.overlay.clone(),
            ..LoadOptions::default()
        })
    }

    /// Checks a loaded project.
    pub fn check(&self, project: &Project) -> Result<LintReport, LintError> {
        let check = |manifest: &project::Manifest| {
            let settings = self.resolver.settings_for(&manifest.file)?;
            check_loaded(manifest, &settings, KeepSource::Always)
        };
        // One manifest (`toolc run`, an editor) gains nothing from the
        // thread pool and would pay for starting it.
        let mut items: Vec<Checked> = if project.manifests.len() > 1 {
            project
                .manifests
                .par_iter()
                .map(check)
                .collect::<Result<_, LintError>>()?
        } else {
            project
                .manifests
                .iter()
                .map(check)
                .collect::<Result<_, LintError>>()?
        };
        for failure in &project.failures {
            let settings = self.resolver.settings_for(&failure.file)?;
            items.push(check_failure(failure.clone(), &settings));
        }
        let mut report = LintReport {
            skipped: project.skipped.clone(),
            ..LintReport::default()
        };
        self.finish(&mut report, items, project.walk_problems.clone())?;
        Ok(report)
    }

    /// Loads and checks the files under `paths`, each on a worker that
    /// keeps only its findings.
    pub fn lint_paths(&self, paths: &[PathBuf]) -> Result<LintReport, LintError> {
        self.lint_inputs(paths, &[])
    }

    /// Like [`Linter::lint_paths`], with documents held in memory beside
    /// the files (the tools of live MCP servers). A held document takes the
    /// configuration of the current directory (or `--config`), and its text
    /// stays in the report whatever is found: it cannot be read again.
    pub fn lint_inputs(
        &self,
        paths: &[PathBuf],
        held: &[HeldDocument],
    ) -> Result<LintReport, LintError> {
        Ok(self
            .lint_keeping(paths, held, KeepSource::WithFindings, &|_, _| ())?
            .0)
    }

    /// Like [`Linter::lint_paths`], and hands each manifest, once checked,
    /// to `keep` on its worker: what `keep` returns (in no particular
    /// order) is all that stays of it. gen and convert reduce a manifest
    /// to what they write from it this way, instead of holding a
    /// [`Project`]. The report keeps the texts of files with errors only;
    /// a caller that shows other findings reads theirs again
    /// ([`project::source_again`]). `keep`'s second argument says whether
    /// the manifest's own findings hold an error (a writer that refuses
    /// then need not build its output).
    pub fn lint_paths_keeping<T: Send>(
        &self,
        paths: &[PathBuf],
        keep: &(dyn Fn(project::Manifest, bool) -> T + Sync),
    ) -> Result<(LintReport, Vec<T>), LintError> {
        self.lint_inputs_keeping(paths, &[], keep)
    }

    /// [`Linter::lint_paths_keeping`] with documents held in memory too
    /// (see [`Linter::lint_inputs`]); `keep` gets them as it gets files.
    pub fn lint_inputs_keeping<T: Send>(
        &self,
        paths: &[PathBuf],
        held: &[HeldDocument],
        keep: &(dyn Fn(project::Manifest, bool) -> T + Sync),
    ) -> Result<(LintReport, Vec<T>), LintError> {
        self.lint_keeping(paths, held, KeepSource::WithErrors, keep)
    }

    fn lint_keeping<T: Send>(
        &self,
        paths: &[PathBuf],
        held: &[HeldDocument],
        sources: KeepSource,
        keep: &(dyn Fn(project::Manifest, bool) -> T + Sync),
    ) -> Result<(LintReport, Vec<T>), LintError> {
        // `configured_as`: the file whose configuration applies (a held
        // document's path is no file).
        let visit_as = |loaded: Loaded,
                        sources: KeepSource,
                        configured_as: Option<&Path>|
         -> Result<Outcome<T>, LintError> {
            Ok(match loaded {
                Loaded::Manifest(manifest) => {
                    let file = configured_as.unwrap_or(&manifest.file);
                    let settings = self.resolver.settings_for(file)?;
                    let checked = check_loaded(&manifest, &settings, sources)?;
                    let errors = checked
                        .diagnostics
                        .iter()
                        .any(|d| d.severity == Severity::Error);
                    Outcome::Kept(Box::new(checked), keep(*manifest, errors))
                }
                Loaded::Failed(failure) => {
                    let file = configured_as.unwrap_or(&failure.file);
                    let settings = self.resolver.settings_for(file)?;
                    Outcome::Checked(Box::new(check_failure(*failure, &settings)))
                }
                Loaded::Skipped(skipped) => Outcome::Skipped(skipped),
                Loaded::WalkProblem(problem) => Outcome::WalkProblem(problem),
            })
        };
        let visit = |loaded: Loaded| visit_as(loaded, sources, None);
        let mut outcomes = if paths.is_empty() && !held.is_empty() {
            Vec::new()
        } else {
            project::load_each(
                paths,
                &self.load_options(),
                &|path: &Path| Ok::<u64, LintError>(self.resolver.max_file_size(path)?),
                &visit,
            )?
        };
        if !held.is_empty() {
            let held_options = LoadOptions {
                max_file_size: self
                    .resolver
                    .max_file_size(Path::new(HeldDocument::CONFIGURED_AS))?,
                ..self.load_options()
            };
            for document in held {
                let loaded = document.load(&held_options);
                let configured_as = Some(Path::new(HeldDocument::CONFIGURED_AS));
                outcomes.push(visit_as(loaded, KeepSource::Always, configured_as)?);
            }
        }
        let mut report = LintReport::default();
        let mut items = Vec::new();
        let mut kept = Vec::new();
        let mut walk_problems = Vec::new();
        for outcome in outcomes {
            match outcome {
                Outcome::Checked(item) => items.push(*item),
                Outcome::Kept(item, part) => {
                    items.push(*item);
                    kept.push(part);
                }
                Outcome::Skipped(skipped) => report.skipped.push(skipped),
                Outcome::WalkProblem(problem) => walk_problems.push(problem),
            }
        }
        self.finish(&mut report, items, walk_problems)?;
        Ok((report, kept))
    }

    /// Gathers each file's findings, adds the walk's problems and the
    /// findings across files (with their file's levels), and sorts.
    fn finish(
        &self,
        report: &mut LintReport,
        items: Vec<Checked>,
        walk_problems: Vec<LoadProblem>,
    ) -> Result<(), LintError> {
        let mut registered = Vec::new();
        let mut facts = Vec::new();
        let mut reaches = Vec::new();
        let mut not_kept = TextsToReread::new();
        for mut item in items {
            for code in std::mem::take(&mut item.code_sources) {
                report.sources.entry(code.path.clone()).or_insert(code);
            }
            match item.source {
                Some(source) => {
                    report.sources.insert(item.summary.path.clone(), source);
                }
                None if !item.registered.is_empty() || !item.facts.is_empty() => {
                    if let Some(fingerprint) = item.fingerprint {
                        not_kept.insert(item.summary.path.clone(), (item.file, fingerprint));
                    }
                }
                None => {}
            }
            report.files.push(item.summary);
            if report.diagnostics.is_empty() {
                // The first file's findings become the report's, not a copy.
                report.diagnostics = item.diagnostics;
            } else {
                report.diagnostics.extend(item.diagnostics);
            }
            registered.extend(item.registered);
            facts.extend(item.facts);
            reaches.extend(item.reaches);
        }
        let mut across = Vec::new();
        rules::duplicate_tool_name::check_registered(&registered, &mut across);
        rules::stale_tool_list::check_views(&facts, &mut across);
        if !reaches.is_empty() {
            let declared: Vec<_> = facts.iter().map(|f| f.declared()).collect();
            rules::tool_shadowing::check_across(&reaches, &declared, &mut report.diagnostics);
            let paths: Vec<String> = report
                .diagnostics
                .iter()
                .flat_map(|d| d.related.iter().map(|r| r.path.clone()))
                .collect();
            report.read_again(&paths, &not_kept);
        }
        if let Some(locked) = &self.options.command_line.lock {
            let read: Vec<&str> = report.files.iter().map(|f| f.path.as_str()).collect();
            rules::tool_drift::check_unread(locked, &read, &mut across);
        }
        let paths = across
            .iter()
            .flat_map(|d| std::iter::once(&d.path).chain(d.related.iter().map(|r| &r.path)));
        report.read_again(paths, &not_kept);
        let walk = walk_problems.iter().map(problem_diagnostic);
        for mut diagnostic in walk.chain(across) {
            let settings = self.resolver.settings_for(Path::new(&diagnostic.path))?;
            if apply_level(&mut diagnostic, &settings) {
                report.diagnostics.push(diagnostic);
            }
        }
        report.files.sort_by(|a, b| a.path.cmp(&b.path));
        report.skipped.sort_by(|a, b| a.path.cmp(&b.path));
        rayon::slice::ParallelSliceMut::par_sort_by(
            &mut report.diagnostics[..],
            Diagnostic::sort_key_cmp,
        );
        Ok(())
    }
}

/// Lints files and directories.
pub fn lint_paths(paths: &[PathBuf], options: &LintOptions) -> Result<LintReport, LintError> {
    Linter::new(options.clone())?.lint_paths(paths)
}

/// What checking one file leaves behind once its document is dropped.
struct Checked {
    summary: FileSummary,
    diagnostics: Vec<Diagnostic>,
    source: Option<Source>,
    /// Where the text not kept in `source` is, and its fingerprint: a
    /// finding across files that points into it reads it again (see
    /// `finish`). `None` for a file that did not load (its text is kept).
    file: PathBuf,
    fingerprint: Option<Fingerprint>,
    registered: Vec<rules::duplicate_tool_name::RegisteredName>,
    /// The texts of the code files findings point into.
    code_sources: Vec<Source>,
    /// What the check of generated tool lists needs of its tools.
    facts: Vec<rules::stale_tool_list::ToolFacts>,
    /// Tools of other manifests its shadowing findings reach for.
    reaches: Vec<rules::tool_shadowing::Reach>,
}

enum Outcome<T> {
    Checked(Box<Checked>),
    /// A manifest's findings, and what the caller keeps of it.
    Kept(Box<Checked>, T),
    Skipped(project::Skipped),
    WalkProblem(LoadProblem),
}

/// The finding a load problem is.
fn problem_diagnostic(problem: &LoadProblem) -> Diagnostic {
    use rules::{file_too_large, invalid_json, io_error, nesting_too_deep, unknown_format};
    let (rule, help) = match problem.kind {
        ProblemKind::TooLarge => (
            &file_too_large::RULE,
            "raise the limit with --max-file-size if this really is a manifest",
        ),
        ProblemKind::Unreadable => (
            &io_error::RULE,
            "check that the file exists, is a regular file and is readable",
        ),
        ProblemKind::Walk => (
            &io_error::RULE,
            "fix or remove the link or directory, or add it to .gitignore",
        ),
        ProblemKind::InvalidUtf8 => (
            &invalid_json::RULE,
            "JSON text must be UTF-8; re-save the file as UTF-8",
        ),
        ProblemKind::InvalidJson => (&invalid_json::RULE, "fix the JSON syntax at the caret"),
        ProblemKind::TooDeep => (
            &nesting_too_deep::RULE,
            "no tool manifest needs this much nesting; flatten the data",
        ),
        ProblemKind::UnknownFormat => (
            &unknown_format::RULE,
            "name the format with --input-format (nora, agentcli, agentstack, nachos, openai, openai-responses, anthropic, mcp, gemini)",
        ),
    };
    rule.diagnostic(&problem.path, "", problem.span, problem.message.clone())
        .with_help(help)
}

/// A file that could not be loaded: its one finding.
fn check_failure(failure: Failure, settings: &Settings) -> Checked {
    let mut diagnostics = vec![problem_diagnostic(&failure.problem)];
    diagnostics.retain_mut(|d| apply_level(d, settings));
    Checked {
        summary: FileSummary {
            path: failure.path,
            format: failure.format,
            tools: 0,
        },
        diagnostics,
        source: failure.source,
        file: failure.file,
        fingerprint: None,
        registered: Vec::new(),
        code_sources: Vec::new(),
        facts: Vec::new(),
        reaches: Vec::new(),
    }
}

/// Which texts a check keeps for its report.
#[derive(Clone, Copy, PartialEq, Eq)]
enum KeepSource {
    Always,
    /// When findings point into it.
    WithFindings,
    /// When error-level findings point into it: a run that goes on to
    /// write (gen, convert) shows its warnings only when errors stop it,
    /// and then reads the other texts again.
    WithErrors,
}

/// Checks one loaded manifest, keeping its source as `keep` says.
fn check_loaded(
    loaded: &project::Manifest,
    settings: &Settings,
    keep: KeepSource,
) -> Result<Checked, LintError> {
    let own = settings::own_provider_settings(loaded.format(), &loaded.toolset.tools, settings);
    let settings = own.as_ref().unwrap_or(settings);
    let manifest = Manifest { loaded, settings };
    let mut findings = Findings::new();
    check_manifest(&manifest, &mut findings)?;
    let mut diagnostics = findings.finish(loaded.path());
    if own.is_some() {
        settings::drop_strict_findings_of_lax_tools(&loaded.toolset.tools, &mut diagnostics);
    }
    diagnostics.retain_mut(|d| apply_level(d, settings));
    if let Some(mut hint) = rules::format_from_content::check_failed(&manifest, &diagnostics)
        && apply_level(&mut hint, settings)
    {
        // One more, not twice as many (see `Findings::push`).
        diagnostics.reserve_exact(1);
        diagnostics.push(hint);
    }
    // Kept while the run goes on: no room for more (a vector that grew
    // by doubling holds up to twice its findings).
    diagnostics.shrink_to_fit();
    let registered = rules::duplicate_tool_name::registered_names(&manifest);
    let facts = rules::stale_tool_list::facts(&manifest);
    let reaches = rules::tool_shadowing::reaches(&manifest, &diagnostics);
    let code_sources = code_sources(loaded, &diagnostics);
    // A tool name a later file repeats makes a finding here too: rare, so
    // the text is read again then rather than every text kept meanwhile.
    let keep_source = match keep {
        KeepSource::Always => true,
        KeepSource::WithFindings => !diagnostics.is_empty(),
        KeepSource::WithErrors => diagnostics.iter().any(|d| d.severity == Severity::Error),
    };
    Ok(Checked {
        summary: FileSummary {
            path: loaded.path().to_string(),
            format: Some(loaded.format()),
            tools: loaded.toolset.tools.len(),
        },
        diagnostics,
        source: keep_source.then(|| loaded.source.clone()),
        file: loaded.file.clone(),
        fingerprint: Some(loaded.fingerprint),
        registered,
        code_sources,
        facts,
        reaches,
    })
}

/// The texts of the code files (a package's Python or TypeScript, a NORA
/// entrypoint) that findings of `loaded` point into, for their snippets.
fn code_sources(loaded: &project::Manifest, diagnostics: &[Diagnostic]) -> Vec<Source> {
    let own = loaded.path();
    let mut wanted: Vec<&str> = diagnostics
        .iter()
        .map(|d| d.path.as_str())
        .filter(|path| *path != own)
        .collect();
    if wanted.is_empty() {
        return Vec::new();
    }
    wanted.sort_unstable();
    wanted.dedup();
    let code = &loaded.code;
    let python = code
        .python
        .iter()
        .chain(code.entrypoint.iter().filter_map(|e| e.module.as_ref()))
        .map(|module| (&module.path, &module.text));
    let typescript = code
        .classes
        .iter()
        .filter_map(|(_, search)| search.found.as_ref())
        .map(|found| (&found.path, &found.text));
    let mut sources: Vec<Source> = Vec::new();
    for (file, text) in python.chain(typescript) {
        let shown = project::display_path(file);
        if wanted.contains(&shown.as_str()) && sources.iter().all(|s| s.path != shown) {
            sources.push(Source::new(shown, text.clone()));
        }
    }
    sources
}

/// Runs the per-file rules and the structural check on one manifest.
fn check_manifest(manifest: &Manifest, out: &mut Findings) -> Result<(), LintError> {
    let mut derived = Findings::new();
    rules::check_manifest(manifest, out, &mut derived);
    if rules::is_checked_structurally(manifest) {
        structure::check(manifest, out).map_err(LintError::Internal)?;
    }
    let mut ignores = suppress::Ignores::of(manifest);
    ignores.suppress(manifest.path(), out);
    ignores.suppress(manifest.path(), &mut derived);
    keep_one_report_per_defect(out);
    // Findings about schemas read from code all sit at tool names, and were
    // already deduplicated by their place in those schemas: kept out of the
    // step above, they neither displace nor are displaced by a finding
    // about the name itself.
    out.absorb(derived);
    ignores.report_unused(manifest, out);
    Ok(())
}

/// Gives a finding its configured severity; false when its rule is off.
fn apply_level(diagnostic: &mut Diagnostic, settings: &Settings) -> bool {
    match settings.level(diagnostic.rule) {
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
pub(crate) fn keep_one_report_per_defect(out: &mut Findings) {
    let is_generic = |d: &Diagnostic| rules::GENERIC.contains(&d.rule);
    let specific: HashSet<String> = out
        .kept()
        .iter()
        // A security finding is about what the text does, not about the
        // value's shape: the generic finding still says what is wrong with it.
        .filter(|d| {
            !is_generic(d)
                && !rules::ABOUT_KEYS.contains(&d.rule)
                && rules::security_severity(d.rule).is_none()
        })
        .map(|d| d.pointer.clone())
        .collect();
    out.retain(|d| !is_generic(d) || !specific.contains(&d.pointer));
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
