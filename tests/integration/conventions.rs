//! `toolc lint` following ruff's command-line conventions: quiet and
//! silent runs, `--statistics`, standard input, fixable marks and
//! `--show-fixes`, rule selectors by code prefix, shell completions, the
//! `gitlab` and `pylint` formats, and colors decided per output stream.

use super::{Test, root};

/// Runs `command` (a shell command line) under `script`, in a pseudo
/// terminal, with the color variables cleared and a color terminal set;
/// returns what the terminal showed.
fn in_terminal(command: &str) -> String {
    let mut script = std::process::Command::new("script");
    script
        .args(["-qec", command, "/dev/null"])
        .current_dir(root())
        .env("TERM", "xterm-256color");
    for name in [
        "NO_COLOR",
        "FORCE_COLOR",
        "CLICOLOR",
        "CLICOLOR_FORCE",
        "TOOLC_OUTPUT_FORMAT",
    ] {
        script.env_remove(name);
    }
    let output = script
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run script (util-linux) for a pseudo terminal");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A report on standard error is colored when standard error is a
/// terminal, not when standard output is: convert's refusal shows its
/// findings on standard error.
#[test]
fn colors_follow_the_stream_the_report_goes_to() {
    let dir = super::TempDir::new("color-streams");
    let toolc = env!("CARGO_BIN_EXE_toolc");
    let bad = "fixtures/rules/command-outside-bin/bad/tools.json";
    let out = dir.path().join("out");
    let err_file = dir.path().join("stderr.txt");
    // Standard output a terminal, standard error a file: no colors in it.
    let shown = in_terminal(&format!(
        "{toolc} convert {bad} --to mcp -o '{}' 2>'{}'",
        out.display(),
        err_file.display()
    ));
    let err = std::fs::read_to_string(&err_file).expect("stderr file");
    assert!(err.contains("command-outside-bin"), "{err}\n{shown}");
    assert!(!err.contains('\u{1b}'), "{err}");
    // Standard error the terminal, standard output elsewhere: colors.
    let shown = in_terminal(&format!(
        "{toolc} convert {bad} --to mcp -o '{}' >/dev/null",
        out.display()
    ));
    assert!(shown.contains("command-outside-bin"), "{shown}");
    assert!(shown.contains('\u{1b}'), "{shown}");
}

/// The codes of every finding of `toolc lint --format json ARGS`, in
/// report order.
fn codes(args: &[&str]) -> Vec<String> {
    let output = Test::new()
        .args(["lint", "--format", "json"])
        .args(args)
        .run();
    assert!(output.code < 2, "{args:?}: {}", output.stderr);
    output.json()["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| d["code"].as_str().expect("code").to_string())
        .collect()
}

#[test]
fn select_and_ignore_take_code_prefixes_and_all() {
    let every = codes(&["fixtures/rules"]);
    let in_tc1: Vec<String> = every
        .iter()
        .filter(|c| c.starts_with("TC1"))
        .cloned()
        .collect();
    let outside_tc1: Vec<String> = every
        .iter()
        .filter(|c| !c.starts_with("TC1"))
        .cloned()
        .collect();
    assert!(!in_tc1.is_empty() && !outside_tc1.is_empty());
    assert_eq!(codes(&["--select", "TC1", "fixtures/rules"]), in_tc1);
    assert_eq!(codes(&["--select", "tc1", "fixtures/rules"]), in_tc1);
    // Ignored, a specific rule's findings no longer hide the generic
    // structural finding about the same value: those may show instead.
    let ignored = codes(&["--ignore", "TC1", "fixtures/rules"]);
    assert!(ignored.iter().all(|c| !c.starts_with("TC1")), "{ignored:?}");
    let mut left = ignored.clone();
    for code in &outside_tc1 {
        let at = left.iter().position(|c| c == code);
        assert!(at.is_some(), "{code} missing from {ignored:?}");
        left.remove(at.unwrap_or_default());
    }
    assert_eq!(codes(&["--select", "ALL", "fixtures/rules"]), every);
    assert_eq!(codes(&["--select", "TC", "fixtures/rules"]), every);
    assert!(codes(&["--ignore", "ALL", "fixtures/rules"]).is_empty());
    // A prefix and a name together; a whole code is its own prefix.
    let tc101_and_names: Vec<String> = every
        .iter()
        .filter(|c| *c == "TC101" || *c == "TC102")
        .cloned()
        .collect();
    assert_eq!(
        codes(&["--select", "TC101,duplicate-tool-name", "fixtures/rules"]),
        tc101_and_names
    );
    // The rules `toolc rules` lists under TC1 are the ones selected.
    let listed: Vec<String> = super::rules_json()
        .iter()
        .map(|r| r["code"].as_str().expect("code").to_string())
        .filter(|c| c.starts_with("TC1"))
        .collect();
    assert!(in_tc1.iter().all(|c| listed.contains(c)));
}

#[test]
fn an_unknown_selector_is_a_usage_error_with_a_suggestion() {
    for (args, expected) in [
        (["--select", "TC99"], "unknown rule or code prefix \"TC99\""),
        (["--ignore", "XY"], "unknown rule or code prefix \"XY\""),
        (["--select", "all"], "did you mean \"ALL\""),
        (["--select", "TC10x"], "did you mean \"TC101\""),
    ] {
        let output = Test::new()
            .args(["lint"])
            .args(args)
            .args(["fixtures/rules"])
            .run();
        assert_eq!(output.code, 2, "{args:?}");
        assert!(
            output.stderr.contains(expected),
            "{args:?}: {}",
            output.stderr
        );
    }
}

/// The findings of the rule fixtures, and one about a whole file (over
/// the size limit, so without a position).
const REPORTED: [&str; 4] = [
    "fixtures/rules",
    "fixtures/render",
    "--max-file-size",
    "2000",
];

fn report_in(format: &str) -> super::Output {
    let output = Test::new()
        .args(["lint", "--format", format])
        .args(REPORTED)
        .run();
    assert_eq!(output.code, 1, "{format}: {}", output.stderr);
    output
}

/// Each finding's path and line as the JSON report gives them (`None`
/// for a finding without a position).
fn json_positions() -> Vec<(String, Option<u64>, String)> {
    report_in("json").json()["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["path"].as_str().expect("path").to_string(),
                d["line"].as_u64(),
                d["code"].as_str().expect("code").to_string(),
            )
        })
        .collect()
}

#[test]
fn gitlab_code_quality_is_json_with_unique_stable_fingerprints() {
    let first = report_in("gitlab");
    let second = report_in("gitlab");
    assert_eq!(first.stdout, second.stdout, "the same report every run");
    let issues = first.json();
    let issues = issues.as_array().expect("an array of issues");
    let positions = json_positions();
    assert_eq!(issues.len(), positions.len());
    assert!(positions.iter().any(|(_, line, _)| line.is_none()));
    let mut fingerprints = std::collections::HashSet::new();
    for (issue, (path, line, code)) in issues.iter().zip(&positions) {
        let fingerprint = issue["fingerprint"].as_str().expect("fingerprint");
        assert!(
            fingerprints.insert(fingerprint.to_string()),
            "{fingerprint} twice"
        );
        assert_eq!(issue["check_name"], code.as_str());
        assert!(
            ["info", "minor", "major", "critical", "blocker"]
                .contains(&issue["severity"].as_str().expect("severity")),
            "{issue}"
        );
        assert!(
            issue["description"]
                .as_str()
                .expect("description")
                .starts_with(code.as_str())
        );
        let location = &issue["location"];
        assert_eq!(location["path"], path.as_str());
        match line {
            Some(line) => {
                assert_eq!(location["positions"]["begin"]["line"], *line, "{issue}");
                assert!(location["positions"]["begin"]["column"].as_u64().is_some());
            }
            None => assert_eq!(location["lines"]["begin"], 1, "{issue}"),
        }
    }
}

/// Two findings alike in path, rule, pointer and message (a key repeated
/// twice after its first use: both repeats cite the first line) still get
/// fingerprints of their own.
#[test]
fn gitlab_fingerprints_differ_for_findings_alike() {
    let dir = super::TempDir::new("gitlab-alike");
    dir.write("tools.json", r#"{"tools": [], "x": 1, "x": 2, "x": 3}"#);
    let run = |format: &str| {
        Test::new()
            .current_dir(dir.path())
            .args(["lint", "--format", format, "tools.json"])
            .run()
            .json()
    };
    let report = run("json");
    let alike: Vec<(&str, &str, &str)> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["code"] == "TC002")
        .map(|d| {
            let field = |key: &str| d[key].as_str().expect("a string");
            (field("path"), field("pointer"), field("message"))
        })
        .collect();
    assert_eq!(alike.len(), 2, "{report}");
    assert_eq!(alike[0], alike[1]);
    let issues = run("gitlab");
    let issues = issues.as_array().expect("issues");
    let fingerprints: std::collections::HashSet<&str> = issues
        .iter()
        .map(|i| i["fingerprint"].as_str().expect("fingerprint"))
        .collect();
    assert_eq!(fingerprints.len(), issues.len(), "{issues:?}");
}

#[test]
fn pylint_lines_match_the_json_report() {
    let pylint = report_in("pylint").stdout;
    let expected: Vec<String> = json_positions()
        .into_iter()
        .map(|(path, line, code)| format!("{path}:{}: [{code}(", line.unwrap_or(1)))
        .collect();
    let lines: Vec<&str> = pylint.lines().collect();
    assert_eq!(lines.len(), expected.len(), "{pylint}");
    for (line, start) in lines.iter().zip(&expected) {
        assert!(
            line.starts_with(start.as_str()),
            "{line:?} does not start with {start:?}"
        );
    }
}
