//! `lint --statistics`: instead of each finding, how many each rule
//! found, most first (then by code), as ruff prints them: as flake8's
//! table (count, code, a `[*]` when `--fix` would fix the rule's
//! findings, name) or as a JSON array of `{code, name, count, fixable}`.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::diagnostic::Rule;
use crate::lint::LintReport;

/// One rule's count.
struct RuleCount {
    rule: &'static Rule,
    count: usize,
    /// Some of its findings have a fix that `--fix` applies.
    fixable: bool,
}

fn counts(report: &LintReport, unsafe_fixes: bool) -> Vec<RuleCount> {
    let mut by_code: BTreeMap<&str, RuleCount> = BTreeMap::new();
    for d in &report.diagnostics {
        let entry = by_code.entry(d.rule.code).or_insert(RuleCount {
            rule: d.rule,
            count: 0,
            fixable: false,
        });
        entry.count += 1;
        entry.fixable |= d.fix.as_ref().is_some_and(|f| f.applies(unsafe_fixes));
    }
    let mut counts: Vec<RuleCount> = by_code.into_values().collect();
    // Stable: equal counts stay in code order.
    counts.sort_by_key(|c| std::cmp::Reverse(c.count));
    counts
}

/// The table: `COUNT<tab>CODE<tab>[*] NAME`, the columns aligned; the
/// mark column only when some rule is fixable (`[ ]` for the others).
pub(in crate::cli) fn table(report: &LintReport, unsafe_fixes: bool) -> String {
    let counts = counts(report, unsafe_fixes);
    let count_width = counts
        .iter()
        .map(|c| c.count.to_string().len())
        .max()
        .unwrap_or(1);
    let code_width = counts.iter().map(|c| c.rule.code.len()).max().unwrap_or(0);
    let any_fixable = counts.iter().any(|c| c.fixable);
    let mut out = String::new();
    for c in &counts {
        let mark = match (any_fixable, c.fixable) {
            (false, _) => "",
            (true, true) => "[*] ",
            (true, false) => "[ ] ",
        };
        let _ = writeln!(
            out,
            "{:>count_width$}\t{:<code_width$}\t{mark}{}",
            c.count, c.rule.code, c.rule.name
        );
    }
    out
}

/// The JSON array, in the table's order.
pub(in crate::cli) fn json(report: &LintReport, unsafe_fixes: bool) -> String {
    let counts: Vec<serde_json::Value> = counts(report, unsafe_fixes)
        .iter()
        .map(|c| {
            serde_json::json!({
                "code": c.rule.code,
                "name": c.rule.name,
                "count": c.count,
                "fixable": c.fixable,
            })
        })
        .collect();
    let mut text = serde_json::to_string_pretty(&counts).unwrap_or_default();
    text.push('\n');
    text
}
