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

/// The rules `toolc rules --format json` says `--fix` can fix and that run
/// without a target, each with its bad fixture.
fn fixable_fixtures() -> Vec<(String, String)> {
    let fixable: Vec<(String, String)> = super::rules_json()
        .iter()
        .filter(|r| r["fixable"] == true && r["targets"].as_array().is_some_and(Vec::is_empty))
        .map(|r| {
            let name = r["name"].as_str().expect("name");
            (name.to_string(), format!("fixtures/rules/{name}/bad"))
        })
        .collect();
    assert!(!fixable.is_empty());
    fixable
}

/// How many findings of a JSON report carry a fix of `applicability`.
fn with_fix(report: &serde_json::Value, applicability: &str) -> usize {
    report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["fix"]["applicability"] == applicability)
        .count()
}

#[test]
fn fixable_findings_are_marked_and_counted() {
    for (rule, bad) in fixable_fixtures() {
        let report = Test::new()
            .args(["lint", "--format", "json", &bad])
            .run()
            .json();
        let safe = with_fix(&report, "safe");
        assert!(safe > 0, "{rule}: its bad fixture has no safe fix");
        let human = Test::new().args(["lint", &bad]).run();
        // An error's mark or a warning's.
        let marked =
            human.stdout.matches("× [*] ").count() + human.stdout.matches("⚠ [*] ").count();
        assert_eq!(marked, safe, "{rule}: {}", human.stdout);
        let summary = format!("\n[*] {safe} fixable with the `--fix` option.\n");
        assert!(human.stdout.ends_with(&summary), "{rule}: {}", human.stdout);
        let concise = Test::new()
            .args(["lint", "--format", "concise", &bad])
            .run();
        assert_eq!(
            concise.stdout.matches("] [*] ").count(),
            safe,
            "{rule}: {}",
            concise.stdout
        );
    }
    // Unsafe fixes wait for --unsafe-fixes: no mark, and the summary says so.
    let strict = [
        "--target",
        "openai-strict",
        "fixtures/rules/strict-all-required/bad",
    ];
    let report = Test::new()
        .args(["lint", "--format", "json"])
        .args(strict)
        .run()
        .json();
    let hidden = with_fix(&report, "unsafe");
    assert!(hidden > 1 && with_fix(&report, "safe") == 0, "{report}");
    let human = Test::new().args(["lint"]).args(strict).run();
    assert!(!human.stdout.contains("[*]"), "{}", human.stdout);
    let summary = format!(
        "No fixes available ({hidden} hidden fixes can be enabled with the `--unsafe-fixes` option).\n"
    );
    assert!(human.stdout.ends_with(&summary), "{}", human.stdout);
}

#[test]
fn show_fixes_lists_what_fix_fixed_and_what_it_would() {
    let (rule, bad) = fixable_fixtures().remove(0);
    let report = Test::new()
        .args(["lint", "--format", "json", &bad])
        .run()
        .json();
    let safe = with_fix(&report, "safe");
    let code = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .find(|d| d["rule"] == rule.as_str())
        .map(|d| d["code"].as_str().expect("code").to_string())
        .expect("a finding of the rule");
    let findings = if safe == 1 { "finding" } else { "findings" };
    let entry = format!("{safe} × {code} ({rule})\n");
    let would = Test::new().args(["lint", "--show-fixes", &bad]).run();
    assert!(
        would
            .stderr
            .starts_with(&format!("`--fix` would fix {safe} {findings}:\n- ")),
        "{}",
        would.stderr
    );
    assert!(would.stderr.contains(&entry), "{}", would.stderr);

    let dir = super::TempDir::new("show-fixes");
    copy_dir(&super::root().join(&bad), dir.path());
    let fixed = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--fix", "--show-fixes", "."])
        .run();
    assert!(
        fixed
            .stderr
            .starts_with(&format!("Fixed {safe} {findings}:\n- ")),
        "{}",
        fixed.stderr
    );
    assert!(fixed.stderr.contains(&entry), "{}", fixed.stderr);
    // After --fix, what remains is not marked: it could not be fixed.
    assert!(!fixed.stdout.contains("[*]"), "{}", fixed.stdout);
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.expect("walk");
        let target = to.join(entry.path().strip_prefix(from).expect("below"));
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).expect("mkdir");
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

#[test]
fn quiet_prints_only_the_findings_and_silent_nothing() {
    let bad = "fixtures/rules/command-outside-bin/bad";
    let full = Test::new().args(["lint", bad]).run();
    let quiet = Test::new().args(["lint", "-q", bad]).run();
    assert_eq!(quiet.code, full.code);
    assert!(full.stdout.contains("Found 2 errors"), "{}", full.stdout);
    assert!(!quiet.stdout.contains("Found"), "{}", quiet.stdout);
    assert!(!quiet.stdout.contains("fixable"), "{}", quiet.stdout);
    let summary_at = full.stdout.find("Found").expect("summary");
    assert_eq!(quiet.stdout, full.stdout[..summary_at]);
    // A named file left alone is a note on standard error, which -q drops.
    let dir = super::TempDir::new("quiet");
    dir.write("config.json", r#"{"port": 8080}"#);
    let noted = Test::new()
        .current_dir(dir.path())
        .args(["lint", "config.json"])
        .run();
    assert!(
        noted.stderr.contains("note: skipped config.json"),
        "{}",
        noted.stderr
    );
    for flag in ["-q", "--quiet", "-s", "--silent"] {
        let quiet = Test::new()
            .current_dir(dir.path())
            .args(["lint", flag, "config.json"])
            .run();
        assert_eq!((quiet.code, quiet.stderr.as_str()), (0, ""), "{flag}");
    }
    let silent = Test::new().args(["lint", "--silent", bad]).run();
    assert_eq!(
        (silent.code, silent.stdout.as_str(), silent.stderr.as_str()),
        (1, "", "")
    );
    // The errors of a run that cannot happen still show.
    let failed = Test::new().args(["lint", "-s", "no/such/path"]).run();
    assert_eq!(failed.code, 2);
    assert!(failed.stderr.contains("no/such/path"), "{}", failed.stderr);
}

/// What `--statistics` should say, from the JSON report of the same run:
/// (count, code, name, fixable) per rule, most first, then by code.
fn expected_statistics(args: &[&str]) -> Vec<(u64, String, String, bool)> {
    let report = Test::new()
        .args(["lint", "--format", "json"])
        .args(args)
        .run()
        .json();
    let mut by_code: std::collections::BTreeMap<String, (u64, String, bool)> = Default::default();
    for d in report["diagnostics"].as_array().expect("diagnostics") {
        let entry = by_code
            .entry(d["code"].as_str().expect("code").to_string())
            .or_insert((0, d["rule"].as_str().expect("rule").to_string(), false));
        entry.0 += 1;
        entry.2 |= d["fix"]["applicability"] == "safe";
    }
    let mut rows: Vec<(u64, String, String, bool)> = by_code
        .into_iter()
        .map(|(code, (count, name, fixable))| (count, code, name, fixable))
        .collect();
    rows.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    rows
}

#[test]
fn statistics_count_the_findings_of_each_rule() {
    let args = ["fixtures/rules", "fixtures/render"];
    let expected = expected_statistics(&args);
    assert!(expected.iter().any(|row| row.3) && expected.iter().any(|row| !row.3));
    let table = Test::new().args(["lint", "--statistics"]).args(args).run();
    assert_eq!(table.code, 1);
    let rows: Vec<(u64, String, String, bool)> = table
        .stdout
        .lines()
        .take_while(|line| line.contains('\t'))
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), 3, "{line:?}");
            let (fixable, name) = match fields[2].split_once("] ") {
                Some((mark, name)) => (mark == "[*", name),
                None => panic!("no fix column in {line:?}"),
            };
            (
                fields[0].trim().parse().expect("a count"),
                fields[1].trim().to_string(),
                name.to_string(),
                fixable,
            )
        })
        .collect();
    assert_eq!(rows, expected);
    let rest: Vec<&str> = table.stdout.lines().skip(rows.len()).collect();
    assert!(rest[0].starts_with("Found "), "{}", table.stdout);
    assert!(
        rest[1].contains("fixable with the `--fix` option"),
        "{}",
        table.stdout
    );
    // -q: the table alone.
    let quiet = Test::new()
        .args(["lint", "--statistics", "-q"])
        .args(args)
        .run();
    assert_eq!(
        quiet.stdout.lines().count(),
        expected.len(),
        "{}",
        quiet.stdout
    );

    let json = Test::new()
        .args(["lint", "--statistics", "--format", "json"])
        .args(args)
        .run()
        .json();
    let from_json: Vec<(u64, String, String, bool)> = json
        .as_array()
        .expect("an array")
        .iter()
        .map(|row| {
            (
                row["count"].as_u64().expect("count"),
                row["code"].as_str().expect("code").to_string(),
                row["name"].as_str().expect("name").to_string(),
                row["fixable"].as_bool().expect("fixable"),
            )
        })
        .collect();
    assert_eq!(from_json, expected);

    let sarif = Test::new()
        .args(["lint", "--statistics", "--format", "sarif"])
        .args(args)
        .run();
    assert_eq!(sarif.code, 2);
    assert!(sarif.stderr.contains("--statistics"), "{}", sarif.stderr);
}

/// A JSON report's findings with their paths taken out, to compare a
/// file's findings with those of its text on standard input.
fn findings_without_paths(report: &serde_json::Value, path: &str) -> Vec<serde_json::Value> {
    report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            let mut d = d.clone();
            assert_eq!(d["path"], path, "{d}");
            d["path"] = serde_json::Value::Null;
            for related in d["related"].as_array_mut().into_iter().flatten() {
                assert_eq!(related["path"], path, "{related}");
                related["path"] = serde_json::Value::Null;
            }
            d
        })
        .collect()
}

#[test]
fn standard_input_is_linted_as_the_file_it_names() {
    for (rule, bad) in fixable_fixtures().into_iter().chain([(
        "duplicate-tool-name".to_string(),
        "fixtures/render".to_string(),
    )]) {
        let file = walkdir::WalkDir::new(super::root().join(&bad))
            .into_iter()
            .filter_map(Result::ok)
            .find(|e| e.path().extension().is_some_and(|x| x == "json"))
            .expect("a manifest");
        let path = file
            .path()
            .strip_prefix(super::root())
            .expect("in the repository")
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read(file.path()).expect("read");
        let from_file = Test::new()
            .args(["lint", "--format", "json", &path])
            .run()
            .json();
        let from_stdin = Test::new()
            .args(["lint", "--format", "json", "--stdin-filename", &path, "-"])
            .stdin(&text)
            .run();
        assert_eq!(from_stdin.code, 1, "{rule}: {}", from_stdin.stderr);
        assert_eq!(
            findings_without_paths(&from_stdin.json(), &path),
            findings_without_paths(&from_file, &path),
            "{rule}"
        );
        // Without `-`, --stdin-filename alone reads standard input too.
        let named_only = Test::new()
            .args(["lint", "--format", "concise", "--stdin-filename", &path])
            .stdin(&text)
            .run();
        let file_concise = Test::new()
            .args(["lint", "--format", "concise", &path])
            .run();
        assert_eq!(named_only.stdout, file_concise.stdout, "{rule}");
    }
}

#[test]
fn fix_on_standard_input_prints_the_fixed_text() {
    for (rule, bad) in fixable_fixtures() {
        let dir = super::TempDir::new("stdin-fix");
        copy_dir(&super::root().join(&bad), dir.path());
        let manifest = walkdir::WalkDir::new(dir.path())
            .into_iter()
            .filter_map(Result::ok)
            .find(|e| e.path().extension().is_some_and(|x| x == "json"))
            .expect("a manifest")
            .into_path();
        let relative = manifest
            .strip_prefix(dir.path())
            .expect("below")
            .to_string_lossy()
            .into_owned();
        let original = std::fs::read_to_string(&manifest).expect("read");
        let output = Test::new()
            .current_dir(dir.path())
            .args(["lint", "--fix", "--stdin-filename", &relative, "-"])
            .stdin(&original)
            .run();
        // The file itself is left alone; the fixed text is the output.
        assert_eq!(std::fs::read_to_string(&manifest).expect("read"), original);
        assert_ne!(output.stdout, original, "{rule}");
        assert!(
            output.stderr.contains("Fixed "),
            "{rule}: {}",
            output.stderr
        );
        // --fix on the file writes the same text.
        Test::new()
            .current_dir(dir.path())
            .args(["lint", "--fix", &relative])
            .run();
        assert_eq!(
            std::fs::read_to_string(&manifest).expect("read"),
            output.stdout,
            "{rule}"
        );
    }
    // Nothing to fix: the text comes back as it came.
    let good = r#"{"tools": []}"#;
    let output = Test::new()
        .args(["lint", "--fix", "--stdin-filename", "tools.json", "-"])
        .stdin(good)
        .run();
    assert_eq!(output.stdout, good);
}

#[test]
fn standard_input_without_a_name_is_shown_as_a_dash() {
    let text = std::fs::read(root().join("fixtures/render/tools.json")).expect("read");
    let output = Test::new()
        .args(["lint", "--format", "concise", "-"])
        .stdin(&text)
        .run();
    assert_eq!(output.code, 1, "{}", output.stderr);
    assert!(
        output.stdout.lines().all(|line| line.starts_with("-:")),
        "{}",
        output.stdout
    );
    // Content that names no format: a clear error, and the way out.
    let unknown = Test::new().args(["lint", "-"]).stdin(r#"{"a": 1}"#).run();
    assert_eq!(unknown.code, 2);
    assert!(
        unknown.stderr.contains("--input-format"),
        "{}",
        unknown.stderr
    );
    assert!(
        unknown.stderr.contains("--stdin-filename"),
        "{}",
        unknown.stderr
    );
    let forced = Test::new()
        .args(["lint", "--input-format", "nora", "--format", "concise", "-"])
        .stdin(r#"{"a": 1}"#)
        .run();
    assert_eq!(forced.code, 1);
    assert!(
        forced.stdout.contains("-:1:1: error[missing-name]"),
        "{}",
        forced.stdout
    );
    // `-` goes alone.
    let mixed = Test::new()
        .args(["lint", "-", "fixtures"])
        .stdin("{}")
        .run();
    assert_eq!(mixed.code, 2);
    // Over the size limit: reported, not read.
    let large = Test::new()
        .args([
            "lint",
            "--max-file-size",
            "10",
            "--format",
            "concise",
            "--stdin-filename",
            "tools.json",
        ])
        .stdin(&text)
        .run();
    assert_eq!(large.code, 1);
    assert!(
        large.stdout.contains("tools.json: error[file-too-large]"),
        "{}",
        large.stdout
    );
}

#[test]
fn completions_for_every_shell_and_bash_parses_and_completes() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let output = Test::new().args(["completions", shell]).run();
        assert_eq!(output.code, 0, "{shell}: {}", output.stderr);
        for command in [
            "lint",
            "gen",
            "convert",
            "run",
            "explain",
            "rules",
            "completions",
        ] {
            assert!(output.stdout.contains(command), "{shell}: no {command}");
        }
    }
    let dir = super::TempDir::new("completions");
    let script = dir.write(
        "toolc.bash",
        Test::new().args(["completions", "bash"]).run().stdout,
    );
    super::command_line::bash(&format!("bash -n '{}'", script.display()));
    // Sourced, it completes a subcommand and a flag.
    let complete =
        |words: &str, current: usize| super::command_line::bash_completes(&script, words, current);
    assert_eq!(complete("toolc li", 1), ["lint"]);
    assert_eq!(complete("toolc lint --stat", 2), ["--statistics"]);
    let unknown = Test::new().args(["completions", "tcsh"]).run();
    assert_eq!(unknown.code, 2);
}
