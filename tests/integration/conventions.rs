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
