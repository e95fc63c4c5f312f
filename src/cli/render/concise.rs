//! `--format concise`: one line per finding, `path:line:col: severity[rule]
//! message` (`path: severity[rule] message` when the finding has no position),
//! in report order and with no summary, for grep, editors' quickfix lists and
//! terminals. In color, as ruff's concise lines are: the path bold, the
//! separators cyan, the severity and rule in the severity's color, the
//! message plain.

use std::fmt::Write;

use anstyle::{AnsiColor, Style};

use super::{FIXABLE_MARK, View, line_cols};
use crate::diagnostic::{Diagnostic, Severity};
use crate::lint::LintReport;
use crate::terminal::one_line;

/// Every finding on its own line, those `--fix` would fix marked when
/// `view` says so, in color when it says so.
pub(in crate::cli) fn concise(report: &LintReport, view: View) -> String {
    let mut out = String::new();
    for diagnostic in &report.diagnostics {
        let marked = view.marked(diagnostic);
        out.push_str(&styled_line(report, diagnostic, marked, view.color));
        out.push('\n');
    }
    out
}

/// One finding as one line without color (also the line JUnit's
/// `<system-out>` shows), with the fixable mark before its message when
/// `marked`.
pub(super) fn line(report: &LintReport, d: &Diagnostic, marked: bool) -> String {
    styled_line(report, d, marked, false)
}

/// [`line`], in color when `color`.
fn styled_line(report: &LintReport, d: &Diagnostic, marked: bool, color: bool) -> String {
    let styles = if color {
        Styles::colored(d.severity)
    } else {
        Styles::default()
    };
    let Styles {
        path,
        separator,
        severity,
        rule,
        mark,
    } = styles;
    let mut text = format!("{path}{}{path:#}", one_line(&d.path));
    if let Some((start, _)) = line_cols(report, &d.path, d.span) {
        let _ = write!(
            text,
            "{separator}:{separator:#}{}{separator}:{separator:#}{}",
            start.line, start.column
        );
    }
    let fixable = if marked {
        format!("{mark}{FIXABLE_MARK}{mark:#}")
    } else {
        String::new()
    };
    let _ = write!(
        text,
        "{separator}:{separator:#} {severity}{}{severity:#}{rule}[{}]{rule:#} {fixable}{}",
        d.severity,
        d.rule,
        one_line(&d.message)
    );
    text
}

/// The style of each part of a line; plain by default.
#[derive(Default)]
struct Styles {
    path: Style,
    separator: Style,
    severity: Style,
    rule: Style,
    mark: Style,
}

impl Styles {
    /// The colors of a finding of `severity`.
    fn colored(severity: Severity) -> Styles {
        let color = match severity {
            Severity::Error => AnsiColor::Red,
            Severity::Warning => AnsiColor::Yellow,
            Severity::Info => AnsiColor::Blue,
        };
        let cyan = Style::new().fg_color(Some(AnsiColor::Cyan.into()));
        Styles {
            path: Style::new().bold(),
            separator: cyan,
            severity: Style::new().bold().fg_color(Some(color.into())),
            rule: Style::new().fg_color(Some(color.into())),
            mark: cyan,
        }
    }
}
