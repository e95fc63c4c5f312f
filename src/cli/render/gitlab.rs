//! `--format gitlab`: a GitLab Code Quality report, the JSON array GitLab
//! CI reads from a job's `codequality` artifact to show findings on merge
//! requests.
//!
//! Each finding has a `description`, a `check_name` (the rule's code),
//! a `fingerprint`, a `severity` on GitLab's scale and a `location`: the
//! path with the begin and end positions, or only `lines.begin` (line 1)
//! for a finding about a whole file. GitLab tells findings apart, between
//! one pipeline and the next, by their fingerprints: each is a SHA-256 of
//! what identifies the finding (path, code, JSON Pointer, message), not
//! of its line, so it stays the same when lines move, and a second finding
//! with the same identity gets its occurrence number mixed in, so no two
//! fingerprints of one report are the same.

use std::collections::HashMap;
use std::path::Path;

use rayon::prelude::*;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::{forward_slashes, line_cols};
use crate::diagnostic::{Diagnostic, Severity};
use crate::lint::LintReport;

/// Every finding as a Code Quality issue, in report order. `project_dir`
/// (GitLab's `CI_PROJECT_DIR`) is taken off absolute paths: GitLab wants
/// them relative to the repository.
pub(in crate::cli) fn gitlab(report: &LintReport, project_dir: Option<&Path>) -> String {
    let mut seen: HashMap<[u8; 32], u64> = HashMap::new();
    let fingerprints: Vec<String> = report
        .diagnostics
        .iter()
        .map(|d| {
            let identity = identity(d, 0);
            let occurrence = seen.entry(identity).or_insert(0);
            *occurrence += 1;
            let unique = match *occurrence {
                1 => identity,
                n => self::identity(d, n),
            };
            hex(&unique)
        })
        .collect();
    let issues: Vec<String> = report
        .diagnostics
        .par_iter()
        .zip(fingerprints)
        .map(|(d, fingerprint)| {
            let issue = issue(report, d, fingerprint, project_dir);
            serde_json::to_string_pretty(&issue).unwrap_or_default()
        })
        .collect();
    pretty_array(issues)
}

fn issue(
    report: &LintReport,
    d: &Diagnostic,
    fingerprint: String,
    project_dir: Option<&Path>,
) -> Value {
    let path = forward_slashes(&relative_to(&d.path, project_dir));
    let location = match line_cols(report, &d.path, d.span) {
        Some((start, end)) => json!({
            "path": path,
            "positions": {
                "begin": {"line": start.line, "column": start.column},
                "end": {"line": end.line, "column": end.column},
            },
        }),
        None => json!({"path": path, "lines": {"begin": 1}}),
    };
    json!({
        // GitLab shows the description, not the check name: both say
        // which rule found it.
        // It is read by people (on the merge request): shown as the
        // terminal renderers show it. The path stays exact, to link.
        "description": format!(
            "{}({}): {}",
            d.code(),
            d.rule.name,
            crate::terminal::one_line(&d.message)
        ),
        "check_name": d.code(),
        "fingerprint": fingerprint,
        "severity": severity(d.severity),
        "location": location,
    })
}

/// GitLab's scale is info, minor, major, critical, blocker.
fn severity(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "major",
        Severity::Warning => "minor",
        Severity::Info => "info",
    }
}

/// The digest of what identifies `d`, and of its occurrence number when
/// it is not the first finding so identified. Fields are separated by a
/// NUL, which none of them holds.
fn identity(d: &Diagnostic, occurrence: u64) -> [u8; 32] {
    let mut hasher = Sha256::new();
    for field in [
        d.path.as_str(),
        d.code(),
        d.pointer.as_str(),
        d.message.as_str(),
    ] {
        hasher.update(field.as_bytes());
        hasher.update([0]);
    }
    if occurrence > 0 {
        hasher.update(occurrence.to_le_bytes());
    }
    hasher.finalize().into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `path` relative to `project_dir` when it is an absolute path under it.
fn relative_to(path: &str, project_dir: Option<&Path>) -> String {
    project_dir
        .and_then(|dir| Path::new(path).strip_prefix(dir).ok())
        .filter(|_| Path::new(path).is_absolute())
        .map_or_else(|| path.to_string(), |p| p.to_string_lossy().into_owned())
}

/// A JSON array of items each pretty-printed on its own, laid out as
/// serde_json's pretty printer lays out the whole.
fn pretty_array(items: Vec<String>) -> String {
    if items.is_empty() {
        return "[]\n".to_string();
    }
    let indented: Vec<String> = items
        .into_iter()
        .map(|item| format!("  {}", item.replace('\n', "\n  ")))
        .collect();
    format!("[\n{}\n]\n", indented.join(",\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_made_relative_to_the_project_only_when_absolute() {
        let dir = Path::new("/builds/group/repo");
        assert_eq!(
            relative_to("/builds/group/repo/tools/tools.json", Some(dir)),
            "tools/tools.json"
        );
        assert_eq!(
            relative_to("tools/tools.json", Some(dir)),
            "tools/tools.json"
        );
        assert_eq!(
            relative_to("/elsewhere/tools.json", Some(dir)),
            "/elsewhere/tools.json"
        );
        assert_eq!(relative_to("/a/tools.json", None), "/a/tools.json");
    }
}
