//! `--format pylint`: one line per finding as pylint prints them,
//! `path:line: [CODE(rule)] message`, for the many tools (CI plugins,
//! editors, code review bots) that parse pylint's output. A finding about
//! a whole file, with no position, is at line 1: the format has no line
//! without a number.

use std::fmt::Write;

use super::line_cols;
use crate::lint::LintReport;
use crate::terminal::one_line;

/// Every finding on its own line, in report order.
pub(in crate::cli) fn pylint(report: &LintReport) -> String {
    let mut out = String::new();
    for d in &report.diagnostics {
        let line = line_cols(report, &d.path, d.span).map_or(1, |(start, _)| start.line);
        let _ = writeln!(
            out,
            "{}:{line}: [{}({})] {}",
            one_line(&d.path),
            d.code(),
            d.rule.name,
            one_line(&d.message)
        );
    }
    out
}
