//! `--format concise`: one line per finding, `path:line:col: severity[rule]
//! message` (`path: severity[rule] message` when the finding has no position),
//! in report order and with no summary, for grep, editors' quickfix lists and
//! terminals.

use std::fmt::Write;

use super::{FIXABLE_MARK, View, line_cols};
use crate::diagnostic::Diagnostic;
use crate::lint::LintReport;
use crate::terminal::one_line;

/// Every finding on its own line, those `--fix` would fix marked when
/// `view` says so.
pub(in crate::cli) fn concise(report: &LintReport, view: View) -> String {
    let mut out = String::new();
    for diagnostic in &report.diagnostics {
        out.push_str(&line(report, diagnostic, view.marked(diagnostic)));
        out.push('\n');
    }
    out
}

/// One finding as one line (also the line JUnit's `<system-out>` shows),
/// with the fixable mark before its message when `marked`.
pub(super) fn line(report: &LintReport, d: &Diagnostic, marked: bool) -> String {
    let mut text = one_line(&d.path).into_owned();
    if let Some((start, _)) = line_cols(report, &d.path, d.span) {
        let _ = write!(text, ":{}:{}", start.line, start.column);
    }
    let mark = if marked { FIXABLE_MARK } else { "" };
    let _ = write!(
        text,
        ": {}[{}] {mark}{}",
        d.severity,
        d.rule,
        one_line(&d.message)
    );
    text
}
