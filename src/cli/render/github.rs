//! `--format github`: one GitHub Actions workflow command per finding
//! (`::error file=F,line=L,col=C,endLine=EL,endColumn=EC,title=T::MESSAGE`),
//! which the runner turns into an annotation on the pull request's diff.
//!
//! The runner reads a command up to the end of its line and splits the
//! properties at `,` and the data at `::`, so both are escaped the way its
//! own toolkit escapes them: `%`, CR and LF in the message; additionally `:`
//! and `,` in property values.

use std::fmt::Write;

use super::{forward_slashes, line_cols};
use crate::diagnostic::{Diagnostic, Severity};
use crate::lint::LintReport;

/// Every finding as a workflow command, in report order.
pub(in crate::cli) fn github(report: &LintReport) -> String {
    let mut out = String::new();
    for diagnostic in &report.diagnostics {
        command(&mut out, report, diagnostic);
    }
    out
}

fn command(out: &mut String, report: &LintReport, d: &Diagnostic) {
    let kind = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    };
    let mut properties = vec![format!("file={}", property(&forward_slashes(&d.path)))];
    if let Some((start, end)) = line_cols(report, &d.path, d.span) {
        properties.push(format!("line={}", start.line));
        properties.push(format!("col={}", start.column));
        properties.push(format!("endLine={}", end.line));
        properties.push(format!("endColumn={}", end.column));
    }
    properties.push(format!(
        "title={}",
        property(&format!("{} ({})", d.rule, d.code()))
    ));
    let _ = writeln!(
        out,
        "::{kind} {}::{}",
        properties.join(","),
        data(&d.message)
    );
}

/// A command's message: `%`, CR and LF escaped as the toolkit does (the
/// annotation shows them as the line breaks they are), and the other
/// characters that would act on the log viewer or reorder the line
/// (controls, bidirectional overrides, U+2028) shown as escapes, by
/// [`crate::terminal`].
fn data(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c if crate::terminal::is_unsafe(c) => {
                out.push_str(&crate::terminal::one_line(c.encode_utf8(&mut [0; 4])));
            }
            c => out.push(c),
        }
    }
    out
}

/// A property value: escaped as data, and `:` and `,` too.
fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_the_actions_toolkit_does() {
        assert_eq!(data("50% done\r\nnext: a,b"), "50%25 done%0D%0Anext: a,b");
        assert_eq!(property("a,b:c%.json"), "a%2Cb%3Ac%25.json");
        assert_eq!(data("\u{1b}[2J"), "\\u{1b}[2J");
        assert_eq!(data("a\u{202e}b\u{2028}"), "a\\u{202e}b\\u{2028}");
    }
}
