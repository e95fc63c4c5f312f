//! What lint says about fixes, in ruff's words: the closing line that
//! counts the findings `--fix` would fix (and the unsafe fixes it leaves
//! for `--unsafe-fixes`), and the `--show-fixes` list of fixes per file
//! and rule.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::diagnostic::{Applicability, Rule};
use crate::lint::LintReport;

/// How many of the report's findings `--fix` would fix, and how many
/// more only `--unsafe-fixes` would.
fn counts(report: &LintReport, unsafe_fixes: bool) -> (usize, usize) {
    let mut applicable = 0;
    let mut hidden = 0;
    // A live server's document is no file: `--fix` refuses it.
    let fixes = report
        .diagnostics
        .iter()
        .filter(|d| !crate::live::is_live(&d.path))
        .filter_map(|d| d.fix.as_ref());
    for fix in fixes {
        if fix.applies(unsafe_fixes) {
            applicable += 1;
        } else if fix.applicability == Applicability::Unsafe {
            hidden += 1;
        }
    }
    (applicable, hidden)
}

/// The summary's line about fixes (nothing when no finding has one):
/// `[*] 2 fixable with the `--fix` option.`, and the unsafe fixes hidden
/// without `--unsafe-fixes`.
pub(in crate::cli) fn available(report: &LintReport, unsafe_fixes: bool) -> String {
    let (applicable, hidden) = counts(report, unsafe_fixes);
    let fixes = |n: usize| if n == 1 { "fix" } else { "fixes" };
    let hidden_note = format!(
        "{hidden} hidden {} can be enabled with the `--unsafe-fixes` option",
        fixes(hidden)
    );
    match (applicable, hidden) {
        (0, 0) => String::new(),
        (0, _) => format!("No fixes available ({hidden_note}).\n"),
        (_, 0) => format!("[*] {applicable} fixable with the `--fix` option.\n"),
        _ => format!("[*] {applicable} fixable with the `--fix` option ({hidden_note}).\n"),
    }
}

/// Each file's findings `--fix` would fix, counted by rule.
pub(in crate::cli) fn fixable_by_file(
    report: &LintReport,
    unsafe_fixes: bool,
) -> Vec<(String, Vec<(&'static Rule, usize)>)> {
    let mut files: BTreeMap<&str, BTreeMap<&'static str, (&'static Rule, usize)>> = BTreeMap::new();
    for d in &report.diagnostics {
        if d.fix.as_ref().is_some_and(|f| f.applies(unsafe_fixes)) && !crate::live::is_live(&d.path)
        {
            let rules = files.entry(&d.path).or_default();
            rules.entry(d.rule.code).or_insert((d.rule, 0)).1 += 1;
        }
    }
    files
        .into_iter()
        .map(|(path, rules)| (path.to_string(), rules.into_values().collect()))
        .collect()
}

/// The `--show-fixes` list: `header` with the total (`Fixed`, `Would
/// fix`), then each file and, under it, how many findings of each rule
/// (most first); nothing when there is none.
pub(in crate::cli) fn list(
    header: &str,
    files: &[(String, Vec<(&'static Rule, usize)>)],
) -> String {
    let total: usize = files
        .iter()
        .flat_map(|(_, rules)| rules.iter().map(|(_, n)| n))
        .sum();
    if total == 0 {
        return String::new();
    }
    let width = files
        .iter()
        .flat_map(|(_, rules)| rules.iter().map(|(_, n)| n.to_string().len()))
        .max()
        .unwrap_or(1);
    let findings = if total == 1 { "finding" } else { "findings" };
    let mut out = format!("{header} {total} {findings}:\n");
    for (path, rules) in files {
        let _ = writeln!(out, "- {}:", crate::terminal::one_line(path));
        let mut rules = rules.clone();
        rules.sort_by(|(a, m), (b, n)| n.cmp(m).then(a.code.cmp(b.code)));
        for (rule, count) in rules {
            let _ = writeln!(out, "    {count:>width$} × {} ({})", rule.code, rule.name);
        }
    }
    out
}
