//! Every rule fires on its bad fixture at exactly the positions written in
//! `fixtures/rules/<rule>/bad.expected`, and stays silent on its good fixture.
//!
//! Layout of `fixtures/rules/<rule>/`:
//! - `bad/`, `good/`: what is linted (a directory, so rules that look at
//!   neighbouring files, entrypoints or sibling tool directories can be shown);
//! - `bad.expected`: one line per expected finding of this rule,
//!   `PATH:LINE:COLUMN` (1-based, columns in characters), or `PATH` alone for
//!   findings about a whole file; PATH is relative to the rule's folder. The
//!   positions are written by hand from the fixture, not copied from toolc;
//! - `bad.args`, `good.args` (optional): the command-line arguments to use
//!   instead of the directory, relative to the rule's folder; they start
//!   with `convert` or `gen` for a rule that `toolc convert` or `toolc gen`
//!   reports.

use std::path::Path;

use super::{Test, root};

fn args_for(rule_dir: &Path, which: &str) -> Vec<String> {
    match std::fs::read_to_string(rule_dir.join(format!("{which}.args"))) {
        Ok(text) => text.split_whitespace().map(str::to_string).collect(),
        Err(_) => vec![which.to_string()],
    }
}

fn findings(rule_dir: &Path, which: &str) -> serde_json::Value {
    // Rules that another command reports (conversion-loss: convert;
    // generation-note: gen) name the command in their args file.
    let given = args_for(rule_dir, which);
    let mut args = if given.first().is_some_and(|a| a == "convert" || a == "gen") {
        Vec::new()
    } else {
        vec!["lint".to_string()]
    };
    args.extend(given);
    args.extend(["--format".to_string(), "json".into()]);
    let output = Test::new().current_dir(rule_dir).args(&args).run();
    assert!(
        output.code == 0 || output.code == 1,
        "{} {which}: exit {}\n{}",
        rule_dir.display(),
        output.code,
        output.stderr
    );
    output.json()
}

/// The positions of a rule's findings, sorted, repeats kept (a finding
/// reported twice must fail the comparison).
fn positions_of(report: &serde_json::Value, rule: &str) -> Vec<String> {
    let mut positions = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["rule"] == rule)
        .map(|d| {
            let path = d["path"].as_str().expect("path");
            match (d["line"].as_u64(), d["column"].as_u64()) {
                (Some(line), Some(column)) => format!("{path}:{line}:{column}"),
                _ => path.to_string(),
            }
        })
        .collect::<Vec<_>>();
    positions.sort();
    positions
}

fn rule_dirs() -> Vec<std::path::PathBuf> {
    let mut dirs: Vec<_> = std::fs::read_dir(root().join("fixtures/rules"))
        .expect("fixtures/rules")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

#[test]
fn every_rule_has_fixtures() {
    let names = super::rule_names();
    assert!(names.len() >= 27, "{names:?}");
    for name in names {
        let dir = root().join("fixtures/rules").join(&name);
        for part in ["bad", "good", "bad.expected"] {
            let path = dir.join(part);
            assert!(
                path.exists() || dir.join(format!("{part}.args")).exists(),
                "rule {name} has no {}",
                path.display()
            );
        }
    }
}

#[test]
fn rules_fire_on_bad_fixtures_at_the_expected_positions() {
    let mut failures = Vec::new();
    for dir in rule_dirs() {
        let rule = dir
            .file_name()
            .and_then(|n| n.to_str())
            .expect("name")
            .to_string();
        let mut expected: Vec<String> = std::fs::read_to_string(dir.join("bad.expected"))
            .unwrap_or_else(|_| panic!("{rule}: no bad.expected"))
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect();
        expected.sort();
        assert!(!expected.is_empty(), "{rule}: bad.expected is empty");
        let actual = positions_of(&findings(&dir, "bad"), &rule);
        if actual != expected {
            failures.push(format!(
                "{rule}:\n  expected {expected:?}\n  actual   {actual:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn rules_stay_silent_on_good_fixtures() {
    let mut failures = Vec::new();
    for dir in rule_dirs() {
        let rule = dir
            .file_name()
            .and_then(|n| n.to_str())
            .expect("name")
            .to_string();
        let report = findings(&dir, "good");
        let files = report["summary"]["files"].as_u64().unwrap_or(0);
        if files == 0 {
            failures.push(format!("{rule}: the good fixture has no manifest"));
        }
        let noisy: Vec<String> = report["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .map(|d| format!("{}:{}:{} {}", d["path"], d["line"], d["column"], d["rule"]))
            .collect();
        if !noisy.is_empty() {
            failures.push(format!("{rule}: good fixture is not clean: {noisy:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `toolc rules` says a rule is fixable exactly when its findings on its
/// bad fixture carry a fix.
#[test]
fn the_fixable_column_tells_the_truth() {
    for rule in super::rules_json() {
        let name = rule["name"].as_str().expect("name");
        // Every rule has a bad fixture (every_rule_has_fixtures).
        let rule_dir = root().join("fixtures/rules").join(name);
        let report = findings(&rule_dir, "bad");
        let fixes = report["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .filter(|d| d["rule"] == name)
            .filter(|d| !d["fix"].is_null())
            .count();
        assert_eq!(
            rule["fixable"].as_bool(),
            Some(fixes > 0),
            "{name}: {fixes} fixes in its bad fixture"
        );
    }
}
