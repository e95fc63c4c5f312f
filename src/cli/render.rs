//! Rendering a report of diagnostics (lint's findings, gen's notes,
//! convert's losses): `human` (miette snippets with a caret under the
//! exact key or value) and `json` (the machine contract in DESIGN.md) here;
//! `brief`, `concise`, `sarif`, `github`, `gitlab`, `pylint` and `junit` in
//! the submodules of the same names; [`ReportFormat`] names them for every command's
//! `--format`. Every renderer takes positions from [`line_cols`], so all of
//! them agree on lines and character columns.

mod brief;
mod concise;
pub(super) mod fixes;
mod github;
mod gitlab;
mod junit;
mod pylint;
mod sarif;
pub(super) mod statistics;
mod summary;
pub(super) use summary::shown_paths;

use brief::brief;
pub(super) use concise::concise;
pub(super) use github::github;
pub(super) use gitlab::gitlab;
pub(super) use junit::junit;
pub(super) use pylint::pylint;
pub(super) use sarif::sarif;

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, SourceSpan};
use rayon::prelude::*;
use serde_json::{Value, json};

use super::snippet::{LONG_LINE, Snippet, printable_text};
use crate::diagnostic::{Diagnostic, Rule, Severity};
use crate::lint::LintReport;
use crate::source::{LineCol, Source, Span};

/// How a command shows its report: the same renderers for lint's
/// findings, gen's notes and convert's losses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum ReportFormat {
    /// Snippets with a caret under the exact key or value, then a summary.
    Human,
    /// One line per finding: severity: path:line:col: message (at POINTER).
    Brief,
    /// One line per finding: path:line:col: severity[rule] message.
    Concise,
    /// The machine-readable report (version, files, diagnostics, summary).
    Json,
    /// SARIF 2.1.0, for code scanning.
    Sarif,
    /// GitHub Actions workflow commands, shown as annotations.
    Github,
    /// A GitLab Code Quality report (JSON), shown on merge requests.
    Gitlab,
    /// One line per finding as pylint prints them: path:line: [CODE(rule)] message.
    Pylint,
    /// JUnit XML: a test case per file, a failure per error.
    Junit,
}

impl ReportFormat {
    /// Whether gen and convert print the report on standard output (the
    /// formats made for programs), rather than on standard error beside
    /// what they write (the formats made for people).
    pub(super) fn on_stdout(self) -> bool {
        !matches!(self, ReportFormat::Human | ReportFormat::Brief)
    }
}

/// How a report for people (`human`, `concise`) is shown beyond its
/// findings: in color or not, with a closing summary or not, and what it
/// says about fixes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct View {
    pub color: bool,
    /// Close `human` with the summary lines (off with `lint --quiet`).
    pub summary: bool,
    /// What to say about fixes; `None` for the commands that have no
    /// `--fix` (gen, convert, run).
    pub fixes: Option<FixView>,
}

/// What lint says about fixes, as ruff does: a `[*]` before each finding
/// `--fix` would fix, and how many it would fix in the summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct FixView {
    /// Unsafe fixes count as available (`--unsafe-fixes`).
    pub unsafe_fixes: bool,
    /// Mark each fixable finding; off after `--fix`, which fixed what it
    /// could.
    pub marks: bool,
}

impl View {
    /// A report that says nothing about fixes, summary included.
    pub(super) fn plain(color: bool) -> View {
        View {
            color,
            summary: true,
            fixes: None,
        }
    }

    /// Whether `d` gets the `[*]` mark.
    fn marked(&self, d: &Diagnostic) -> bool {
        self.fixes.is_some_and(|fixes| {
            fixes.marks
                && d.fix
                    .as_ref()
                    .is_some_and(|f| f.applies(fixes.unsafe_fixes))
        })
    }
}

/// `report` in `format`; `color` only matters to `human`.
pub(super) fn render(format: ReportFormat, report: &LintReport, color: bool) -> String {
    render_in(format, report, View::plain(color))
}

/// `report` in `format`, shown as `view` says (for `human` and `concise`).
pub(super) fn render_in(format: ReportFormat, report: &LintReport, view: View) -> String {
    match format {
        ReportFormat::Human => human(report, view),
        ReportFormat::Brief => brief(report),
        ReportFormat::Concise => concise(report, view),
        ReportFormat::Json => json(report),
        ReportFormat::Sarif => sarif(report),
        ReportFormat::Github => github(report),
        // GitLab runs jobs in CI_PROJECT_DIR and wants paths relative to it.
        ReportFormat::Gitlab => gitlab(
            report,
            std::env::var_os("CI_PROJECT_DIR")
                .as_deref()
                .map(std::path::Path::new),
        ),
        ReportFormat::Pylint => pylint(report),
        ReportFormat::Junit => junit(report),
    }
}

/// Width the human renderer wraps at; fixed so output is the same everywhere.
const WIDTH: usize = 100;

/// One diagnostic, shaped for miette.
struct Rendered<'a> {
    message: String,
    code: String,
    severity: Severity,
    help: Option<String>,
    source: Option<Snippet<'a>>,
    labels: Vec<LabeledSpan>,
    related: Vec<Rendered<'a>>,
}

/// Each file's text as snippets show it, prepared once per file.
struct Texts<'r> {
    report: &'r LintReport,
    printable: HashMap<&'r str, Arc<str>>,
}

impl<'r> Texts<'r> {
    /// The texts of the files `diagnostics` and their related locations
    /// point into, made printable once each, before any is rendered: the
    /// renderers share them across threads.
    fn new(report: &'r LintReport, diagnostics: &[&Diagnostic]) -> Self {
        let mut printable = HashMap::new();
        let paths = diagnostics.iter().flat_map(|d| {
            std::iter::once(d.path.as_str()).chain(d.related.iter().map(|r| r.path.as_str()))
        });
        for path in paths {
            if printable.contains_key(path) {
                continue;
            }
            if let Some((path, source)) = report.sources.get_key_value(path) {
                printable.insert(path.as_str(), printable_text(&source.text));
            }
        }
        Texts { report, printable }
    }

    /// The snippet of `path` for a finding at `span`, named `path:line:col`
    /// from toolc's positions (miette would count the column in bytes).
    fn snippet(&self, path: &str, span: Span) -> Option<Snippet<'r>> {
        let source = self.report.sources.get(path)?;
        let text = self.printable.get(path)?.clone();
        let at = source.line_col(span.start);
        Some(Snippet {
            name: format!("{}:{}:{}", printable(&source.path), at.line, at.column),
            source,
            text,
        })
    }
}

impl fmt::Debug for Rendered<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Display for Rendered<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Rendered<'_> {}

impl miette::Diagnostic for Rendered<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        (!self.code.is_empty()).then(|| Box::new(&self.code) as Box<dyn fmt::Display>)
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Info => miette::Severity::Advice,
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.source.as_ref().map(|s| s as &dyn miette::SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        (!self.labels.is_empty()).then(|| Box::new(self.labels.iter().cloned()) as Box<_>)
    }

    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn miette::Diagnostic> + 'a>> {
        (!self.related.is_empty())
            .then(|| Box::new(self.related.iter().map(|r| r as &dyn miette::Diagnostic)) as Box<_>)
    }
}

/// A message, a path or help as one line that cannot act on the
/// terminal (see [`crate::terminal`]).
fn printable(text: &str) -> String {
    crate::terminal::one_line(text).into_owned()
}

/// The caret of the finding. miette draws nothing for an empty span at the
/// very end of the text (where "unexpected end of file" points), so that one
/// goes under the last character, labelled.
fn primary_label(span: Span, text: &str) -> LabeledSpan {
    if span.is_empty()
        && span.start >= text.len()
        && let Some((start, last)) = text.char_indices().next_back()
    {
        let last_char = Span::new(start, start + last.len_utf8());
        return LabeledSpan::new_primary_with_span(
            Some("the file ends here".to_string()),
            miette_span(last_char),
        );
    }
    LabeledSpan::new_primary_with_span(None, miette_span(span))
}

/// How much of a span on one line a label underlines, in bytes: miette
/// draws each label as one formatted run, and panics on a width past
/// 65,535 (a whole schema on one minified line).
const DRAWN_MAX: usize = 400;

/// `span` as its label underlines it: a span within one line is cut to
/// [`DRAWN_MAX`] bytes (at a character boundary); the position it starts
/// at, which the header names, stays.
fn drawn(source: Option<&Source>, span: Span) -> Span {
    let Some(source) = source else {
        return span;
    };
    if span.len() <= DRAWN_MAX
        || source.line_index(span.start) != source.line_index(span.end.saturating_sub(1))
    {
        return span;
    }
    let mut end = span.start + DRAWN_MAX;
    while end > span.start && !source.text.is_char_boundary(end) {
        end -= 1;
    }
    Span::new(span.start, end)
}

/// Whether two spans need a snippet each: when either sits on a long line,
/// one snippet of both would show whole lines, or the columns between
/// them, past what miette can draw. Two spans close together on one line
/// share a window of it.
fn apart_on_long_lines(source: &Source, a: Span, b: Span) -> bool {
    let (line_a, line_b) = (source.line_index(a.start), source.line_index(b.start));
    let long = |line| source.line_span(line).len() > LONG_LINE;
    if line_a == line_b {
        long(line_a) && a.start.abs_diff(b.start) > DRAWN_MAX
    } else {
        long(line_a) || long(line_b)
    }
}

fn miette_span(span: Span) -> SourceSpan {
    SourceSpan::new(span.start.into(), span.len())
}

fn shape<'r>(diagnostic: &Diagnostic, texts: &Texts<'r>, marked: bool) -> Rendered<'r> {
    let report = texts.report;
    let own = report.sources.get(&diagnostic.path);
    let source = diagnostic
        .span
        .and_then(|span| texts.snippet(&diagnostic.path, span));
    let mut labels = Vec::new();
    if let Some(span) = diagnostic.span {
        let text = own.map(|s| &*s.text);
        labels.push(primary_label(drawn(own, span), text.unwrap_or("")));
    }
    let mut related = Vec::new();
    for r in &diagnostic.related {
        let apart = diagnostic
            .span
            .is_none_or(|span| own.is_some_and(|own| apart_on_long_lines(own, span, r.span)));
        if r.path == diagnostic.path && !apart {
            labels.push(LabeledSpan::new_with_span(
                Some(r.message.clone()),
                miette_span(drawn(own, r.span)),
            ));
        } else {
            // Without its own file's text (it went away, or changed since
            // the run read it), a label would be drawn in whatever text
            // miette has at hand: the path goes into the message instead.
            let source = texts.snippet(&r.path, r.span);
            let (message, labels) = match &source {
                Some(snippet) => (
                    printable(&r.message),
                    vec![LabeledSpan::new_primary_with_span(
                        None,
                        miette_span(drawn(Some(snippet.source), r.span)),
                    )],
                ),
                None => (printable(&format!("{}: {}", r.path, r.message)), Vec::new()),
            };
            related.push(Rendered {
                message,
                code: String::new(),
                severity: Severity::Info,
                help: None,
                source,
                labels,
                related: Vec::new(),
            });
        }
    }
    let mark = if marked { FIXABLE_MARK } else { "" };
    let message = if source.is_some() {
        format!("{mark}{}", printable(&diagnostic.message))
    } else {
        let message = printable(&format!("{}: {}", diagnostic.path, diagnostic.message));
        format!("{mark}{message}")
    };
    Rendered {
        message,
        code: format!("{}({})", diagnostic.code(), diagnostic.rule),
        severity: diagnostic.severity,
        help: diagnostic.help.as_deref().map(printable),
        source,
        labels,
        related,
    }
}

/// What marks a finding `--fix` would fix, before its message (ruff's mark).
pub(super) const FIXABLE_MARK: &str = "[*] ";

/// Every diagnostic with its snippet, then the summary lines.
pub(super) fn human(report: &LintReport, view: View) -> String {
    let mut out = snippets(report, report.diagnostics.iter(), view);
    if view.summary {
        out.push_str(&summary_lines(report, view));
    }
    out
}

/// `report` in `format`, written to `out` as it is rendered: the human
/// and JSON reports of many findings (170 MB for the 260,000 findings of a
/// 10 MB manifest) are never held whole. The other formats as
/// [`render_in`] gives them.
pub(super) fn write_in(
    format: ReportFormat,
    report: &LintReport,
    view: View,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    match format {
        ReportFormat::Human => {
            write_snippets(report, report.diagnostics.iter(), view, &mut |part| {
                out.write_all(part.as_bytes())
            })?;
            if view.summary {
                out.write_all(summary_lines(report, view).as_bytes())?;
            }
            Ok(())
        }
        ReportFormat::Json => {
            let (frame, diagnostics) = json_parts(report);
            write_pretty_with_items(&frame, "diagnostics", diagnostics, out)
        }
        _ => out.write_all(render_in(format, report, view).as_bytes()),
    }
}

/// The summary line, and what `--fix` would fix when the view says so.
pub(super) fn summary_lines(report: &LintReport, view: View) -> String {
    let mut out = summary_line(report);
    if let Some(fixes) = view.fixes {
        out.push_str(&fixes::available(report, fixes.unsafe_fixes));
    }
    out
}

/// `report` for people (`human` or `brief`; any other format as
/// [`render`] gives it) with the findings of the rules `grouped` picks
/// summarised in groups (see [`summary`]), and a closing line naming
/// `flag`, the option that lists them all.
pub(super) fn render_grouped(
    format: ReportFormat,
    report: &LintReport,
    color: bool,
    grouped: impl Fn(&Rule) -> bool + Sync,
    flag: &str,
) -> String {
    let listed = report.diagnostics.iter().filter(|d| !grouped(d.rule));
    let mut out = match format {
        ReportFormat::Human => snippets(report, listed, View::plain(color)),
        ReportFormat::Brief => brief::lines(report, listed),
        _ => return render(format, report, color),
    };
    out.push_str(&summary::summary(report, grouped, flag));
    if format == ReportFormat::Human {
        out.push_str(&summary_line(report));
    }
    out
}

/// `diagnostics` (of `report`) with their snippets.
fn snippets<'r>(
    report: &'r LintReport,
    diagnostics: impl Iterator<Item = &'r Diagnostic>,
    view: View,
) -> String {
    let mut out = String::new();
    let _ = write_snippets(report, diagnostics, view, &mut |part| {
        out.push_str(part);
        Ok(())
    });
    out
}

/// [`snippets`], handed to `sink` a batch at a time, in order.
fn write_snippets<'r>(
    report: &'r LintReport,
    diagnostics: impl Iterator<Item = &'r Diagnostic>,
    view: View,
    sink: &mut dyn FnMut(&str) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let theme = if view.color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let diagnostics: Vec<&Diagnostic> = diagnostics.collect();
    let texts = Texts::new(report, &diagnostics);
    let render = |chunk: &[&Diagnostic]| {
        let handler = GraphicalReportHandler::new_themed(theme.clone())
            .with_width(WIDTH)
            .with_links(false)
            .without_primary_span_start();
        let mut out = String::new();
        for diagnostic in chunk {
            let rendered = shape(diagnostic, &texts, view.marked(diagnostic));
            if handler.render_report(&mut out, &rendered).is_err() {
                out.push_str(&format!(
                    "{}: {}[{}] {}\n",
                    printable(&diagnostic.path),
                    diagnostic.severity,
                    diagnostic.rule,
                    printable(&diagnostic.message)
                ));
            }
            out.push('\n');
        }
        out
    };
    // Rendered on every core a batch at a time, in order: a report of
    // many findings never holds their renderings twice.
    const CHUNK: usize = 256;
    const BATCH: usize = 64 * CHUNK;
    for batch in diagnostics.chunks(BATCH) {
        let parts: Vec<String> = batch.par_chunks(CHUNK).map(render).collect();
        for part in parts {
            sink(&part)?;
        }
    }
    Ok(())
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

fn summary_line(report: &LintReport) -> String {
    let files = plural(report.files.len(), "file");
    let skipped = if !report.skipped.is_empty() {
        format!(", {} skipped", plural(report.skipped.len(), "file"))
    } else {
        String::new()
    };
    if report.diagnostics.is_empty() && report.files.is_empty() {
        // Not "no problems": nothing was checked.
        return match report.skipped.len() {
            0 => "No manifests found.\n".to_string(),
            n => format!("No manifests found ({} skipped).\n", plural(n, "file")),
        };
    }
    if report.diagnostics.is_empty() {
        return format!("No problems found in {files}{skipped}.\n");
    }
    format!(
        "Found {}, {}, {} in {files}{skipped}.\n",
        plural(report.count(Severity::Error), "error"),
        plural(report.count(Severity::Warning), "warning"),
        plural(report.count(Severity::Info), "info")
    )
}

/// The JSON contract: `version`, `files`, `diagnostics`, `summary`.
pub(super) fn json(report: &LintReport) -> String {
    let (frame, diagnostics) = json_parts(report);
    pretty_with_items(&frame, "diagnostics", diagnostics)
}

/// The JSON report's frame and its findings, each pretty-printed.
fn json_parts(report: &LintReport) -> (Value, Vec<String>) {
    let files: Vec<Value> = report
        .files
        .iter()
        .map(|f| json!({"path": f.path, "format": f.format, "tools": f.tools}))
        .collect();
    // Each diagnostic is shaped and written out on its own, on every core
    // (positions need each file's line index, built side by side too):
    // the report never holds a JSON tree of every finding, which took
    // several times the text it prints (4 KB a finding).
    let diagnostics: Vec<String> = report
        .diagnostics
        .par_iter()
        .map(|d| serde_json::to_string_pretty(&diagnostic_json(d, report)).unwrap_or_default())
        .collect();
    let mut root = serde_json::Map::new();
    root.insert("version".into(), Value::from(1));
    root.insert("files".into(), Value::Array(files));
    // Stands in for the array until the text is joined.
    root.insert("diagnostics".into(), Value::Null);
    root.insert(
        "summary".into(),
        json!({
            "files": report.files.len(),
            "skipped": report.skipped.len(),
            "errors": report.count(Severity::Error),
            "warnings": report.count(Severity::Warning),
            "infos": report.count(Severity::Info),
        }),
    );
    (Value::Object(root), diagnostics)
}

/// The pretty-printed document `frame` (serde_json's layout, and a final
/// line break) whose member `"MEMBER": null` is the array of `items`, each
/// pretty-printed on its own. A report of many findings never holds a
/// JSON tree of all of them: that took several times the text it prints.
pub(super) fn pretty_with_items(frame: &Value, member: &str, items: Vec<String>) -> String {
    let mut text = Vec::new();
    // Writing to memory does not fail.
    let _ = write_pretty_with_items(frame, member, items, &mut text);
    String::from_utf8(text).unwrap_or_default()
}

/// [`pretty_with_items`], written to `out` an item at a time: the
/// document is never held whole.
pub(super) fn write_pretty_with_items(
    frame: &Value,
    member: &str,
    mut items: Vec<String>,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let frame = serde_json::to_string_pretty(frame).unwrap_or_default();
    let placeholder = format!("\"{member}\": null");
    let Some(at) = frame.find(&placeholder) else {
        return writeln!(out, "{frame}");
    };
    let (before, after) = (&frame[..at], &frame[at + placeholder.len()..]);
    let indent = &before[before.rfind('\n').map_or(0, |i| i + 1)..];
    // JSON strings hold no raw line breaks: every break in an item's text
    // is between tokens, and takes the item's depth.
    let item_indent = format!("{indent}  ");
    let broken = format!("\n{item_indent}");
    items.par_iter_mut().for_each(|item| {
        *item = format!("{item_indent}{}", item.replace('\n', &broken));
    });
    out.write_all(before.as_bytes())?;
    if items.is_empty() {
        write!(out, "\"{member}\": []")?;
    } else {
        writeln!(out, "\"{member}\": [")?;
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.write_all(b",\n")?;
            }
            out.write_all(item.as_bytes())?;
        }
        write!(out, "\n{indent}]")?;
    }
    out.write_all(after.as_bytes())?;
    out.write_all(b"\n")
}

/// Line and column (1-based, columns in characters) of both ends of a span,
/// the end exclusive; `None` when there is no span or no text to count in.
fn line_cols(report: &LintReport, path: &str, span: Option<Span>) -> Option<(LineCol, LineCol)> {
    let source = report.sources.get(path)?;
    let span = span?;
    Some((source.line_col(span.start), source.line_col(span.end)))
}

/// Line and column of both ends of a span; nulls when there is no span.
fn position(report: &LintReport, path: &str, span: Option<Span>) -> [Value; 4] {
    match line_cols(report, path, span) {
        Some((start, end)) => [start.line, start.column, end.line, end.column].map(Value::from),
        None => [Value::Null, Value::Null, Value::Null, Value::Null],
    }
}

/// A path with `/` between its components whatever the platform, as SARIF
/// URIs and GitHub annotations want it.
fn forward_slashes(path: &str) -> String {
    if std::path::MAIN_SEPARATOR == '\\' {
        path.replace('\\', "/")
    } else {
        path.to_string()
    }
}

fn diagnostic_json(d: &Diagnostic, report: &LintReport) -> Value {
    let [line, column, end_line, end_column] = position(report, &d.path, d.span);
    let related: Vec<Value> = d
        .related
        .iter()
        .map(|r| {
            let [line, column, ..] = position(report, &r.path, Some(r.span));
            json!({"path": r.path, "line": line, "column": column, "message": r.message})
        })
        .collect();
    let fix = d.fix.as_ref().map(|fix| {
        let edits: Vec<Value> = fix
            .edits
            .iter()
            .map(|e| {
                let [line, column, end_line, end_column] = position(report, &d.path, Some(e.span));
                json!({"line": line, "column": column, "end_line": end_line, "end_column": end_column, "replacement": e.replacement})
            })
            .collect();
        json!({"message": fix.message, "applicability": fix.applicability, "edits": edits})
    });
    json!({
        "rule": d.rule,
        "code": d.code(),
        "severity": d.severity,
        "message": d.message,
        "path": d.path,
        "pointer": d.pointer,
        "line": line,
        "column": column,
        "end_line": end_line,
        "end_column": end_column,
        "help": d.help,
        "related": related,
        "fix": fix,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Related;

    /// A related position in a file whose text the report does not hold
    /// (it went away, or changed since the run read it) is named, never
    /// drawn in the text of the finding's own file.
    #[test]
    fn a_related_position_without_its_text_is_named_not_drawn() {
        let Some(rule) = crate::lint::rules::find("duplicate-tool-name") else {
            panic!("no duplicate-tool-name rule");
        };
        let text = "{\n  \"name\": \"lookup\",\n  \"description\": \"Look a word up.\"\n}\n";
        let mut report = LintReport::default();
        report.sources.insert(
            "b/tool.json".to_string(),
            crate::source::Source::new("b/tool.json", text),
        );
        report.diagnostics.push(Diagnostic {
            rule,
            severity: Severity::Error,
            message: "tool name \"lookup\" is already declared".to_string(),
            path: "b/tool.json".to_string(),
            pointer: "/name".to_string(),
            span: Some(Span::new(12, 20)),
            help: None,
            related: vec![Related {
                path: "a/tool.json".to_string(),
                span: Span::new(30, 38),
                message: "first declared here".to_string(),
            }],
            fix: None,
        });
        let shown = human(&report, View::plain(false));
        assert!(
            shown.contains("a/tool.json: first declared here"),
            "{shown}"
        );
        assert_eq!(shown.matches("b/tool.json:").count(), 1, "{shown}");
    }
}
