//! `--format brief`: one line per finding, `note: path:line:col: message
//! (at POINTER)`, with `note` for info and the severity otherwise, and no
//! summary. This is how `toolc gen` has always shown what it changed or
//! could not carry, beside the output it writes, and stays its default.

use std::fmt::Write;

use super::line_cols;
use crate::diagnostic::{Diagnostic, Severity};
use crate::lint::LintReport;
use crate::terminal::one_line;

/// Every finding on its own line.
pub(in crate::cli) fn brief(report: &LintReport) -> String {
    lines(report, report.diagnostics.iter())
}

/// `diagnostics` (of `report`), each on its own line.
pub(super) fn lines<'r>(
    report: &'r LintReport,
    diagnostics: impl Iterator<Item = &'r Diagnostic>,
) -> String {
    let mut out = String::new();
    for diagnostic in diagnostics {
        out.push_str(&line(report, diagnostic));
        out.push('\n');
    }
    out
}

fn line(report: &LintReport, d: &Diagnostic) -> String {
    let label = match d.severity {
        Severity::Info => "note",
        other => other.as_str(),
    };
    let mut text = format!("{label}: {}", one_line(&d.path));
    if let Some((start, _)) = line_cols(report, &d.path, d.span) {
        let _ = write!(text, ":{}:{}", start.line, start.column);
    }
    let _ = write!(text, ": {}", one_line(&d.message));
    if !d.pointer.is_empty() {
        let _ = write!(text, " (at {})", one_line(&d.pointer));
    }
    text
}
