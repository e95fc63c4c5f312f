//! The grouped form of findings that come by the thousand: convert's
//! `conversion-loss` and gen's `generation-note`. Converting a corpus of
//! agentcli manifests loses `timeoutSec` and `command` once per tool, and
//! a listing of every one (over a million lines) hides what matters: which
//! fields are lost, how often, and where to look.
//!
//! Findings are grouped by rule, severity, the shape of their JSON Pointer
//! (array indices and the names a manifest chose, tool keys and parameter
//! names, become `*`: `/tools/*/timeoutSec`) and the shape of their message
//! (its quoted names, lists of them, and numbers are slots). A group prints its count, its shape,
//! the message with the slots that differ within it shown as `…`, and the
//! first few positions; then a closing line says how many were summarised
//! and which flag lists them all. Only the reports for people (`human`,
//! `brief`) use it: the others are read by programs and keep every finding.

use std::collections::HashMap;
use std::fmt::Write;

use crate::terminal::one_line;
use std::collections::BTreeSet;

use super::line_cols;
use crate::diagnostic::{Diagnostic, Rule, Severity};
use crate::lint::LintReport;

/// How many positions a group shows before "and N more".
const POSITIONS: usize = 3;

/// A message cut into its fixed text and its slots (quoted names,
/// numbers). `fixed` has one more piece than `slots`.
#[derive(Debug, PartialEq, Eq)]
struct MessageShape<'m> {
    fixed: Vec<&'m str>,
    slots: Vec<&'m str>,
}

impl<'m> MessageShape<'m> {
    fn of(message: &'m str) -> Self {
        let mut fixed = Vec::new();
        let mut slots = Vec::new();
        let bytes = message.as_bytes();
        let mut piece_start = 0;
        let mut i = 0;
        while i < bytes.len() {
            let slot_end = match bytes[i] {
                b'"' => quoted_list_end(message, i),
                b'0'..=b'9' if i == 0 || !is_word_byte(bytes[i - 1]) => {
                    let end = message[i..]
                        .find(|c: char| !c.is_ascii_digit())
                        .map_or(message.len(), |end| i + end);
                    let stands_alone = bytes.get(end).is_none_or(|b| !is_word_byte(*b));
                    stands_alone.then_some(end)
                }
                _ => None,
            };
            match slot_end {
                Some(end) => {
                    fixed.push(&message[piece_start..i]);
                    slots.push(&message[i..end]);
                    piece_start = end;
                    i = end;
                }
                None => i += 1,
            }
        }
        fixed.push(&message[piece_start..]);
        MessageShape { fixed, slots }
    }
}

/// The end of the quoted name at `start`, or of the list of them that it
/// begins (`"a", "b", "c"`: lists of any length are one slot).
fn quoted_list_end(message: &str, start: usize) -> Option<usize> {
    let quoted_end = |at: usize| message[at + 1..].find('"').map(|end| at + 1 + end + 1);
    let mut end = quoted_end(start)?;
    while message[end..].starts_with(", \"") {
        match quoted_end(end + 2) {
            Some(next) => end = next,
            None => break,
        }
    }
    Some(end)
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.'
}

/// The objects whose keys are names the manifest chose (tools in an
/// AgentStack `tools` object, parameters in a schema's `properties`).
const NAMED_MEMBERS: &[&str] = &["tools", "properties"];

/// `pointer` with its indices and chosen names as `*`: `/tools/3/command`,
/// `/tools/fetch_url/actions` and `/schema/properties/path/required` become
/// `/tools/*/command`, `/tools/*/actions` and `/schema/properties/*/required`.
fn pointer_shape(pointer: &str) -> String {
    let mut shape = String::with_capacity(pointer.len());
    // The previous segment when it was a keyword, not a name or an index.
    let mut keyword = None;
    for segment in pointer.split('/').skip(1) {
        let index = !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit());
        let name = keyword.is_some_and(|k| NAMED_MEMBERS.contains(&k));
        shape.push('/');
        if index || name {
            shape.push('*');
            keyword = None;
        } else {
            shape.push_str(segment);
            keyword = Some(segment);
        }
    }
    shape
}

/// What the findings of one group share.
#[derive(Debug, PartialEq, Eq, Hash)]
struct GroupKey<'r> {
    rule: &'static str,
    severity: Severity,
    pointer: String,
    message: Vec<&'r str>,
}

/// The findings of one group: the first one's message, which of its slots
/// differ in the others, and the members in report order.
struct Group<'r> {
    rule: &'static Rule,
    severity: Severity,
    pointer: String,
    first: MessageShape<'r>,
    varies: Vec<bool>,
    members: Vec<&'r Diagnostic>,
}

impl Group<'_> {
    /// The message with the slots that differ within the group as `…`.
    fn message(&self) -> String {
        let mut text = String::new();
        for (i, fixed) in self.first.fixed.iter().enumerate() {
            text.push_str(fixed);
            if let Some(slot) = self.first.slots.get(i) {
                match (self.varies[i], slot.starts_with('"')) {
                    (false, _) => text.push_str(slot),
                    (true, true) => text.push_str("\"…\""),
                    (true, false) => text.push('…'),
                }
            }
        }
        text
    }
}

/// The findings of `report` that `summarised` picks, in groups: the
/// largest first, then by rule, pointer and message.
fn groups<'r>(report: &'r LintReport, summarised: impl Fn(&Rule) -> bool + Sync) -> Vec<Group<'r>> {
    use rayon::prelude::*;
    let mut index: HashMap<GroupKey<'r>, usize> = HashMap::new();
    let mut groups: Vec<Group<'r>> = Vec::new();
    // The shapes on every core (a corpus's losses come by the hundred
    // thousand), a block at a time so that only a block's are held; the
    // grouping in order.
    for block in report.diagnostics.chunks(4096) {
        let shaped: Vec<(&Diagnostic, MessageShape, String)> = block
            .par_iter()
            .filter(|d| summarised(d.rule))
            .map(|d| (d, MessageShape::of(&d.message), pointer_shape(&d.pointer)))
            .collect();
        group_shaped(&mut groups, &mut index, shaped);
    }
    groups.sort_by(|a, b| {
        b.members
            .len()
            .cmp(&a.members.len())
            .then_with(|| a.rule.name.cmp(b.rule.name))
            .then_with(|| a.pointer.cmp(&b.pointer))
            .then_with(|| a.first.fixed.cmp(&b.first.fixed))
    });
    groups
}

/// Adds shaped findings to their groups, opening a group for each new key.
fn group_shaped<'r>(
    groups: &mut Vec<Group<'r>>,
    index: &mut HashMap<GroupKey<'r>, usize>,
    shaped: Vec<(&'r Diagnostic, MessageShape<'r>, String)>,
) {
    for (diagnostic, shape, pointer) in shaped {
        let key = GroupKey {
            rule: diagnostic.rule.name,
            severity: diagnostic.severity,
            pointer,
            message: shape.fixed.clone(),
        };
        match index.get(&key) {
            Some(&at) => {
                let group = &mut groups[at];
                for (varies, (ours, first)) in group
                    .varies
                    .iter_mut()
                    .zip(shape.slots.iter().zip(&group.first.slots))
                {
                    *varies |= ours != first;
                }
                group.members.push(diagnostic);
            }
            None => {
                groups.push(Group {
                    rule: diagnostic.rule,
                    severity: diagnostic.severity,
                    pointer: key.pointer.clone(),
                    varies: vec![false; shape.slots.len()],
                    first: shape,
                    members: vec![diagnostic],
                });
                index.insert(key, groups.len() - 1);
            }
        }
    }
}

/// The files whose positions [`summary`] shows.
pub(in crate::cli) fn shown_paths(
    report: &LintReport,
    summarised: impl Fn(&Rule) -> bool + Sync,
) -> BTreeSet<String> {
    groups(report, summarised)
        .iter()
        .flat_map(|group| group.members.iter().take(POSITIONS))
        .map(|d| d.path.clone())
        .collect()
}

/// Where a finding is: `path:line:col`, or the path alone.
fn position(report: &LintReport, d: &Diagnostic) -> String {
    let mut text = one_line(&d.path).into_owned();
    if let Some((start, _)) = line_cols(report, &d.path, d.span) {
        let _ = write!(text, ":{}:{}", start.line, start.column);
    }
    text
}

fn counted(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// The findings of `report` whose rule `summarised` picks, grouped, then
/// a line saying that `flag` lists them all; empty when there are none.
pub(in crate::cli) fn summary(
    report: &LintReport,
    summarised: impl Fn(&Rule) -> bool + Sync,
    flag: &str,
) -> String {
    let groups = groups(report, summarised);
    if groups.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    for group in &groups {
        let _ = writeln!(
            out,
            "{}[{}({})] {} × {}: {}",
            group.severity,
            group.rule.code,
            group.rule.name,
            group.members.len(),
            one_line(if group.pointer.is_empty() {
                "(the file)"
            } else {
                &group.pointer
            }),
            one_line(&group.message())
        );
        for member in group.members.iter().take(POSITIONS) {
            let _ = writeln!(out, "    {}", position(report, member));
        }
        if group.members.len() > POSITIONS {
            let _ = writeln!(out, "    … and {} more", group.members.len() - POSITIONS);
        }
    }
    // Per rule and severity, in a fixed order: "3 conversion-loss warnings".
    let mut totals: Vec<(&str, Severity, usize)> = Vec::new();
    for group in &groups {
        match totals
            .iter_mut()
            .find(|(rule, severity, _)| *rule == group.rule.name && *severity == group.severity)
        {
            Some((_, _, n)) => *n += group.members.len(),
            None => totals.push((group.rule.name, group.severity, group.members.len())),
        }
    }
    totals.sort();
    let totals: Vec<String> = totals
        .iter()
        .map(|(rule, severity, n)| counted(*n, &format!("{rule} {severity}")))
        .collect();
    let _ = writeln!(
        out,
        "Summarised {} in {} by field and message; {flag} lists every one.",
        totals.join(" and "),
        counted(groups.len(), "group")
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_lose_their_indices_and_tool_keys() {
        assert_eq!(pointer_shape("/tools/3/timeoutSec"), "/tools/*/timeoutSec");
        assert_eq!(
            pointer_shape("/tools/fetch_url/actions"),
            "/tools/*/actions"
        );
        assert_eq!(
            pointer_shape("/tools/0/schema/properties/tools/items"),
            "/tools/*/schema/properties/*/items"
        );
        assert_eq!(
            pointer_shape("/parameters/properties/properties/required"),
            "/parameters/properties/*/required"
        );
        assert_eq!(pointer_shape("/provides/tool"), "/provides/tool");
        assert_eq!(pointer_shape(""), "");
    }

    #[test]
    fn messages_are_cut_at_quoted_names_and_numbers() {
        let shape = MessageShape::of("tool \"a-2\" is 1532 long, over gpt4's 1024; v1.2 step2");
        assert_eq!(shape.slots, ["\"a-2\"", "1532", "1024"]);
        assert_eq!(
            shape.fixed,
            ["tool ", " is ", " long, over gpt4's ", "; v1.2 step2"]
        );
        let list = MessageShape::of("says \"x\" for \"a\", \"b\", \"c\"; \"d\", e");
        assert_eq!(list.slots, ["\"x\"", "\"a\", \"b\", \"c\"", "\"d\""]);
        let unclosed = MessageShape::of("a \"b");
        assert!(unclosed.slots.is_empty());
        assert_eq!(unclosed.fixed, ["a \"b"]);
    }
}
