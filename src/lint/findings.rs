//! The findings of one file, with a limit per rule.
//!
//! A rule can fire once per value or per key: ten megabytes of
//! `{"name": "a", "name": "a"}` tools is three hundred thousand duplicate
//! keys, and a finding with its message, pointer, help and related place
//! costs more memory than the text it points at. Nobody reads past the
//! first thousand findings of one rule in one file, and the consumers
//! cap them too (GitHub code scanning keeps 25,000 SARIF results a run), so
//! each rule keeps its first [`PER_RULE`] in a file and counts the rest;
//! [`Findings::finish`] adds one finding that says how many were not shown.

use std::collections::BTreeMap;

use crate::diagnostic::{Diagnostic, Rule};

/// How many findings of one rule a file keeps.
pub use crate::diagnostic::FINDINGS_PER_RULE as PER_RULE;

/// Findings being collected for one file.
#[derive(Debug, Default)]
pub(crate) struct Findings {
    kept: Vec<Diagnostic>,
    /// Per rule (by code, the order of the notes).
    counts: BTreeMap<&'static str, Count>,
}

#[derive(Debug)]
struct Count {
    rule: &'static Rule,
    /// Findings kept so far.
    kept: usize,
    /// Findings past the limit, not kept.
    dropped: usize,
}

impl Findings {
    pub(crate) fn new() -> Findings {
        Findings::default()
    }

    /// Keeps `diagnostic` unless its rule has reached its limit.
    pub(crate) fn push(&mut self, diagnostic: Diagnostic) {
        let count = self.count(diagnostic.rule);
        if count.kept < PER_RULE {
            count.kept += 1;
            if self.kept.len() == self.kept.capacity() {
                // A quarter more, not twice as many: tens of thousands of
                // findings of 216 bytes each are held while the file's
                // document and tools are, and a doubled vector is up to
                // half empty (and, while it moves, is beside its old copy).
                self.kept.reserve_exact((self.kept.len() / 4).max(16));
            }
            self.kept.push(diagnostic);
        } else {
            count.dropped += 1;
        }
    }

    fn count(&mut self, rule: &'static Rule) -> &mut Count {
        self.counts.entry(rule.code).or_insert(Count {
            rule,
            kept: 0,
            dropped: 0,
        })
    }

    /// Keeps a finding about the file as a whole (that a check covered only
    /// part of it), outside its rule's count and limit.
    pub(crate) fn push_note(&mut self, note: Diagnostic) {
        self.kept.push(note);
    }

    /// Counts `n` findings of `rule` past its limit without making them.
    pub(crate) fn skip(&mut self, rule: &'static Rule, n: usize) {
        self.count(rule).dropped += n;
    }

    /// Takes over `other`'s findings, and the count of those it did not
    /// keep: a rule's limit holds across both.
    pub(crate) fn absorb(&mut self, other: Findings) {
        for diagnostic in other.kept {
            self.push(diagnostic);
        }
        for count in other.counts.into_values() {
            self.skip(count.rule, count.dropped);
        }
    }

    /// Replaces the kept findings with what `change` makes of them (moved
    /// to another place, merged); the counts stay.
    pub(crate) fn map_kept(&mut self, change: impl FnOnce(Vec<Diagnostic>) -> Vec<Diagnostic>) {
        self.kept = change(std::mem::take(&mut self.kept));
    }

    /// Whether `rule` has reached its limit: a check that can tell stops
    /// looking (the rest would only be counted).
    pub(crate) fn is_full(&self, rule: &Rule) -> bool {
        self.counts
            .get(rule.code)
            .is_some_and(|count| count.kept >= PER_RULE)
    }

    /// The findings kept so far.
    pub(crate) fn kept(&self) -> &[Diagnostic] {
        &self.kept
    }

    /// Lets `keep` decide which kept findings stay (one report per defect).
    pub(crate) fn retain(&mut self, keep: impl FnMut(&Diagnostic) -> bool) {
        self.kept.retain(keep);
    }

    /// The findings, each rule past its limit followed by one file-level
    /// finding that says how many more it had. A rule whose kept findings
    /// all gave way to more specific ones (see
    /// `keep_one_report_per_defect`) gets none: its others would have too.
    pub(crate) fn finish(self, path: &str) -> Vec<Diagnostic> {
        let mut out = self.kept;
        let over = self.counts.values().filter(|c| c.dropped > 0).count();
        out.reserve_exact(over);
        for Count { rule, dropped, .. } in self.counts.into_values().filter(|c| c.dropped > 0) {
            if !out
                .iter()
                .any(|d| d.rule.code == rule.code && d.span.is_some())
            {
                continue;
            }
            out.push(
                rule.diagnostic(
                    path,
                    "",
                    None,
                    format!(
                        "{dropped} more {} findings in this file are not shown",
                        rule.name
                    ),
                )
                .with_help(format!(
                    "toolc shows the first {PER_RULE} findings of a rule in a file; fix those and run it again"
                )),
            );
        }
        out
    }

    /// The findings kept, without the notes of [`Findings::finish`] (for
    /// `--fix`, whose next round finds the rest).
    pub(crate) fn into_kept(self) -> Vec<Diagnostic> {
        self.kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::rules::{duplicate_key, empty_command};

    fn finding(rule: &'static Rule, i: usize) -> Diagnostic {
        let span = crate::source::Span::new(i, i + 1);
        rule.diagnostic("tools.json", format!("/tools/{i}"), Some(span), "m")
    }

    #[test]
    fn a_rule_past_its_limit_keeps_the_first_and_says_how_many_more() {
        let mut findings = Findings::new();
        for i in 0..PER_RULE + 7 {
            findings.push(finding(&duplicate_key::RULE, i));
        }
        findings.push(finding(&empty_command::RULE, 0));
        assert!(findings.is_full(&duplicate_key::RULE));
        assert!(!findings.is_full(&empty_command::RULE));
        let out = findings.finish("tools.json");
        assert_eq!(out.len(), PER_RULE + 2);
        assert_eq!(
            out[PER_RULE - 1].pointer,
            format!("/tools/{}", PER_RULE - 1)
        );
        let note = out.last().unwrap();
        assert_eq!(note.rule.code, duplicate_key::RULE.code);
        assert_eq!(note.span, None);
        assert!(
            note.message.starts_with("7 more duplicate-key findings"),
            "{}",
            note.message
        );
    }

    #[test]
    fn findings_taken_over_keep_the_count_of_those_not_kept() {
        let mut derived = Findings::new();
        for i in 0..PER_RULE + 3 {
            derived.push(finding(&duplicate_key::RULE, i));
        }
        derived.map_kept(|kept| kept.into_iter().take(1).collect());
        let mut out = Findings::new();
        out.push(finding(&duplicate_key::RULE, 0));
        out.absorb(derived);
        let out = out.finish("tools.json");
        assert_eq!(out.len(), 3);
        assert_eq!(
            out[2].message,
            "3 more duplicate-key findings in this file are not shown"
        );
    }

    #[test]
    fn a_rule_whose_kept_findings_all_gave_way_gets_no_note() {
        let mut findings = Findings::new();
        for i in 0..PER_RULE + 1 {
            findings.push(finding(&duplicate_key::RULE, i));
        }
        findings.retain(|_| false);
        assert!(findings.finish("tools.json").is_empty());
    }
}
