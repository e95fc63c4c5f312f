//! What gen and convert report besides their output, as diagnostics: the
//! generators' notes under `generation-note`, convert's losses under
//! `conversion-loss`, each at its span in the source manifest, gathered in
//! a report that every `--format` renders like lint's findings.

use std::collections::BTreeSet;

use crate::convert::Loss;
use crate::diagnostic::{Diagnostic, Severity};
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

/// A generator's note, at its severity, at `span` in its manifest.
pub(super) fn note(span: Option<Span>, note: &Note) -> Diagnostic {
    let mut diagnostic = generation_note::RULE.diagnostic(
        &note.path,
        note.pointer.clone(),
        span,
        note.message.clone(),
    );
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
pub(super) fn loss(span: Option<Span>, loss: &Loss, strict: bool) -> Diagnostic {
    let mut diagnostic = conversion_loss::RULE
        .diagnostic(&loss.path, loss.pointer.clone(), span, loss.message.clone())
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
        skipped: read.skipped,
        sources: read
            .sources
            .iter()
            .filter(|(path, _)| paths.contains(path.as_str()))
            .map(|(path, source)| (path.clone(), source.clone()))
            .collect(),
        diagnostics,
    }
}
