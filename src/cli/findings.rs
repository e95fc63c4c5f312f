//! What gen and convert report besides their output, as diagnostics: the
//! generators' notes under `generation-note`, convert's losses under
//! `conversion-loss`, each at its span in the source manifest, gathered in
//! a report that every `--format` renders like lint's findings.
//!
//! Over a corpus they come by the thousand (converting 10,000 manifests
//! loses over a hundred thousand fields), so the reports for people
//! (`human`, `brief`) group them by field and message unless the command's
//! listing flag asks for every one ([`Listing`]). The reports for programs
//! (`json`, `sarif`, `junit`, and `concise` and `github`, whose every line
//! is a position an editor or GitHub Actions picks up) keep every finding.

use std::collections::BTreeSet;

use super::render::{self, ReportFormat};
use super::{CliError, Reporting};
use crate::convert::Loss;
use crate::diagnostic::{Diagnostic, Rule, Severity};
use crate::emit::Note;
use crate::json::SourceMap;
use crate::lint::LintReport;
use crate::lint::rules::{conversion_loss, generation_note};
use crate::source::Span;

/// Where `pointer` is in the manifest `map` is of: the key (or the value of
/// the root), when the run read that manifest.
pub(super) fn span_of(map: Option<&SourceMap>, pointer: &str) -> Option<Span> {
    map.map(|map| map.key_or_locate(pointer))
}

/// A generator's note, at its severity, at `span` in its manifest. Taken
/// by value: a corpus has notes and losses by the hundred thousand, and
/// their strings move into the diagnostics rather than being held twice.
pub(super) fn note(span: Option<Span>, note: Note) -> Diagnostic {
    let mut diagnostic =
        generation_note::RULE.diagnostic(&note.path, note.pointer, span, note.message);
    diagnostic.severity = note.severity;
    diagnostic
}

/// A tool whose parameters its manifest does not hold (Nachos keeps them
/// in TypeScript): gen offers it with an empty object schema. Said about
/// the file, as gen always has.
pub(super) fn parameters_unknown(path: &str, tool: &str, format: &str) -> Diagnostic {
    let mut diagnostic = generation_note::RULE.diagnostic(
        path,
        "",
        None,
        format!(
            "the parameters of tool \"{tool}\" are not in its {format} manifest; generating an empty object schema"
        ),
    );
    diagnostic.severity = Severity::Warning;
    diagnostic
}

/// A field the target format cannot express, at `span` in its manifest;
/// an error under `--strict`.
pub(super) fn loss(span: Option<Span>, loss: Loss, strict: bool) -> Diagnostic {
    let mut diagnostic = conversion_loss::RULE
        .diagnostic(&loss.path, loss.pointer, span, loss.message)
        .with_help("convert to a format that can hold it, or accept the loss; --strict refuses it");
    if strict {
        diagnostic.severity = Severity::Error;
    }
    diagnostic
}

/// `diagnostics` in a report of their own, with the files the run read
/// and the sources the diagnostics point into.
pub(super) fn report(read: &LintReport, diagnostics: Vec<Diagnostic>) -> LintReport {
    let paths: BTreeSet<&str> = diagnostics.iter().map(|d| d.path.as_str()).collect();
    LintReport {
        files: read.files.clone(),
        skipped: read.skipped.clone(),
        sources: read
            .sources
            .iter()
            .filter(|(path, _)| paths.contains(path.as_str()))
            .map(|(path, source)| (path.clone(), source.clone()))
            .collect(),
        diagnostics,
    }
}

/// How the reports for people show the notes and losses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Listing {
    /// Each one with its position (and, in `human`, its snippet).
    Every,
    /// In groups, with a closing line naming the flag that lists them all.
    Grouped { flag: &'static str },
}

impl Listing {
    /// [`Listing::Every`] when the command's `flag` was given.
    pub(super) fn unless(every: bool, flag: &'static str) -> Listing {
        if every {
            Listing::Every
        } else {
            Listing::Grouped { flag }
        }
    }
}

impl Listing {
    /// Whether the reports in `format` show the notes and losses in groups
    /// (then only a few of their positions, and none of their snippets).
    pub(super) fn groups_in(self, format: ReportFormat) -> bool {
        matches!(self, Listing::Grouped { .. })
            && matches!(format, ReportFormat::Human | ReportFormat::Brief)
    }
}

/// Reads again the files whose positions the grouped report shows and
/// the run did not keep (`texts`: see [`super::texts_of`]).
pub(super) fn reread_shown(report: &mut LintReport, texts: &crate::lint::TextsToReread) {
    let shown = render::shown_paths(report, grouped);
    report.read_again(&shown, texts);
}

/// Whether the reports for people group `rule`'s findings.
fn grouped(rule: &Rule) -> bool {
    rule.name == conversion_loss::RULE.name || rule.name == generation_note::RULE.name
}

/// Shows the report of a run that goes on to write (see
/// [`Reporting::show`]), its notes and losses as `listing` says.
pub(super) fn show(
    reporting: &mut Reporting,
    report: &LintReport,
    listing: Listing,
) -> Result<(), CliError> {
    match listing {
        Listing::Grouped { flag }
            if listing.groups_in(reporting.format) && !report.diagnostics.is_empty() =>
        {
            let text = render::render_grouped(
                reporting.format,
                report,
                reporting.colors.err,
                grouped,
                flag,
            );
            reporting.err.write_all(text.as_bytes())?;
            Ok(())
        }
        _ => reporting.show(report, false),
    }
}

/// How many of a generator's or converter's findings are errors: things
/// the target cannot accept, which [`refuse_on_errors`] refuses to write.
pub(super) fn errors_in(diagnostics: &[Diagnostic]) -> usize {
    diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count()
}

/// Refuses to write when a generator or converter said the target cannot
/// accept what it would write (`errors` error-level notes, from
/// [`errors_in`]): says so and returns true, unless `allow_errors` (the
/// user asked for output anyway).
pub(super) fn refuse_on_errors(
    errors: usize,
    allow_errors: bool,
    target: &str,
    err: &mut dyn std::io::Write,
) -> std::io::Result<bool> {
    if errors == 0 || allow_errors {
        return Ok(false);
    }
    writeln!(
        err,
        "error: nothing was written: {target} cannot accept {} (fix the manifests, or pass --allow-errors to write anyway)",
        if errors == 1 {
            "1 thing above".to_string()
        } else {
            format!("{errors} things above")
        }
    )?;
    Ok(true)
}
