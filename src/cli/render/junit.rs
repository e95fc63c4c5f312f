//! `--format junit`: the report as JUnit XML, which CI systems (GitLab,
//! Jenkins, Azure Pipelines, test-report actions) show as test results.
//!
//! Each linted file is one test case; each error-level finding in it is a
//! `<failure>`, and its warnings and infos go to the case's `<system-out>`,
//! so they are visible without failing the case. Findings about a path that
//! is not among the linted files (a directory the walk could not read) get a
//! test case of their own, after the files.

use std::collections::HashMap;
use std::fmt::Write;

use super::{concise, line_cols};
use crate::diagnostic::{Diagnostic, Severity};
use crate::lint::LintReport;
use crate::terminal::one_line;

/// A test case: a path and its findings, in report order.
struct Case<'r> {
    path: &'r str,
    findings: Vec<&'r Diagnostic>,
}

/// The JUnit XML document of a lint run.
pub(in crate::cli) fn junit(report: &LintReport) -> String {
    let cases = cases(report);
    let tests = cases.len();
    let failures = report.count(Severity::Error);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"toolc\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\">"
    );
    let _ = writeln!(
        out,
        "  <testsuite name=\"toolc lint\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\">"
    );
    for case in &cases {
        test_case(&mut out, report, case);
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

/// One case per linted file, in report order, then one per other path
/// that findings name.
fn cases(report: &LintReport) -> Vec<Case<'_>> {
    let mut cases: Vec<Case<'_>> = Vec::with_capacity(report.files.len());
    let mut index: HashMap<&str, usize> = HashMap::new();
    for file in &report.files {
        index.entry(&file.path).or_insert_with(|| {
            cases.push(Case {
                path: &file.path,
                findings: Vec::new(),
            });
            cases.len() - 1
        });
    }
    for d in &report.diagnostics {
        let at = *index.entry(&d.path).or_insert_with(|| {
            cases.push(Case {
                path: &d.path,
                findings: Vec::new(),
            });
            cases.len() - 1
        });
        if let Some(case) = cases.get_mut(at) {
            case.findings.push(d);
        }
    }
    cases
}

fn test_case(out: &mut String, report: &LintReport, case: &Case<'_>) {
    let name = escape(case.path, true);
    if case.findings.is_empty() {
        let _ = writeln!(out, "    <testcase classname=\"toolc\" name=\"{name}\"/>");
        return;
    }
    let _ = writeln!(out, "    <testcase classname=\"toolc\" name=\"{name}\">");
    let mut system_out = String::new();
    for d in &case.findings {
        if d.severity == Severity::Error {
            let _ = writeln!(
                out,
                "      <failure message=\"{}\" type=\"{}\">{}</failure>",
                escape(&d.message, true),
                escape(d.rule.name, true),
                escape(&failure_text(report, d), false)
            );
        } else {
            system_out.push_str(&concise::line(report, d, false));
            system_out.push('\n');
            if let Some(help) = &d.help {
                let _ = writeln!(system_out, "help: {}", one_line(help));
            }
        }
    }
    if !system_out.is_empty() {
        let _ = writeln!(
            out,
            "      <system-out>{}</system-out>",
            escape(&system_out, false)
        );
    }
    out.push_str("    </testcase>\n");
}

/// `path:line:col: message`, then `help: ...` when there is help, each
/// value on its line (a line break in it is shown as `\n`).
fn failure_text(report: &LintReport, d: &Diagnostic) -> String {
    let mut text = one_line(&d.path).into_owned();
    if let Some((start, _)) = line_cols(report, &d.path, d.span) {
        let _ = write!(text, ":{}:{}", start.line, start.column);
    }
    let _ = write!(text, ": {}", one_line(&d.message));
    if let Some(help) = &d.help {
        let _ = write!(text, "\nhelp: {}", one_line(help));
    }
    text
}

/// Text made safe for XML 1.0 content or (with `attribute`) a
/// double-quoted attribute value. Characters XML 1.0 forbids even as references (most C0
/// controls), and the others that would act on a terminal or reorder the
/// text (DEL, C1 controls, bidirectional overrides, U+2028), are shown as
/// escapes (`\u{1b}`); in attributes, line breaks
/// and tabs become character references so parsers keep them.
fn escape(text: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            '\'' if attribute => out.push_str("&apos;"),
            '\r' => out.push_str("&#13;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\t' if attribute => out.push_str("&#9;"),
            '\n' | '\t' => out.push(c),
            // Also what XML allows but a person reading the report must
            // not get raw (see crate::terminal).
            c if forbidden_in_xml(c) || crate::terminal::is_unsafe(c) => {
                out.push_str(&crate::terminal::one_line(c.encode_utf8(&mut [0; 4])));
            }
            c => out.push(c),
        }
    }
    out
}

/// Characters outside XML 1.0's `Char` production (Rust strings hold no
/// surrogates).
fn forbidden_in_xml(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_forbidden_characters() {
        assert_eq!(
            escape("a<b & \"c\" 'd'>\n", true),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;&#10;"
        );
        assert_eq!(
            escape("\"x\"\ny\r\u{1b}\u{0}", false),
            "\"x\"\ny&#13;\\u{1b}\\u{0}"
        );
    }
}
