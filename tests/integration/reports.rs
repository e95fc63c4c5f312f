//! gen's notes and convert's losses and notes are diagnostics: every
//! `--format` that lint has renders them, with their rule, code and place.

use super::{TempDir, Test, root};

const NOTES: &str = "fixtures/rules/generation-note/bad";

/// `toolc gen openai --strict --show-notes` of the generation-note
/// fixture, reported in `format`; the document goes nowhere (--dry-run).
fn gen_report(format: &str) -> super::Output {
    let output = Test::new()
        .current_dir(root())
        .args([
            "gen",
            "openai",
            "--strict",
            "--dry-run",
            NOTES,
            "--show-notes",
            "--format",
            format,
        ])
        .run();
    assert_eq!(output.code, 0, "{format}: {}", output.stderr);
    output
}

#[test]
fn gen_notes_in_every_text_format() {
    // brief, gen's default, on standard error as gen has always printed them.
    let brief = gen_report("brief");
    let default = Test::new()
        .current_dir(root())
        .args([
            "gen",
            "openai",
            "--strict",
            "--dry-run",
            NOTES,
            "--show-notes",
        ])
        .run();
    assert_eq!(brief.stderr, default.stderr);
    insta::assert_snapshot!("gen_notes_brief", brief.stderr);
    // Without --show-notes, grouped by field and message.
    let grouped = Test::new()
        .current_dir(root())
        .args(["gen", "openai", "--strict", "--dry-run", NOTES])
        .run();
    insta::assert_snapshot!("gen_notes_grouped", grouped.stderr);
    insta::assert_snapshot!("gen_notes_human", gen_report("human").stderr);
    insta::assert_snapshot!("gen_notes_concise", gen_report("concise").stdout);
    insta::assert_snapshot!("gen_notes_github", gen_report("github").stdout);
}

#[test]
fn gen_notes_in_every_machine_format() {
    let json = gen_report("json").json();
    let diagnostics = json["diagnostics"].as_array().expect("diagnostics");
    assert_eq!(diagnostics.len(), 2, "{json}");
    for d in diagnostics {
        assert_eq!(d["rule"], "generation-note");
        assert_eq!(d["code"], "TC904");
        assert_eq!(d["severity"], "info");
        assert_eq!(d["path"], format!("{NOTES}/tool.json"));
    }
    assert_eq!(diagnostics[1]["line"], 9);
    assert_eq!(diagnostics[1]["column"], 7);
    assert_eq!(json["summary"]["infos"], 2);

    let sarif: serde_json::Value =
        serde_json::from_str(&gen_report("sarif").stdout).expect("SARIF is JSON");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), 2, "{sarif}");
    assert_eq!(results[1]["ruleId"], "generation-note");
    assert_eq!(
        results[1]["locations"][0]["physicalLocation"]["region"]["startLine"],
        9
    );

    let junit = gen_report("junit").stdout;
    assert!(junit.starts_with("<?xml"), "{junit}");
    assert!(junit.contains(&format!("{NOTES}/tool.json")), "{junit}");

    let gitlab: serde_json::Value =
        serde_json::from_str(&gen_report("gitlab").stdout).expect("Code Quality is JSON");
    let issues = gitlab.as_array().expect("an array of issues");
    assert_eq!(issues.len(), 2, "{gitlab}");
    assert_eq!(issues[1]["check_name"], "TC904");
    assert_eq!(issues[1]["severity"], "info");
    assert_eq!(issues[1]["location"]["positions"]["begin"]["line"], 9);

    let pylint = gen_report("pylint").stdout;
    assert_eq!(pylint.lines().count(), 2, "{pylint}");
    assert!(
        pylint.contains(&format!("{NOTES}/tool.json:9: [TC904(generation-note)] ")),
        "{pylint}"
    );
}

#[test]
fn a_report_on_stdout_needs_the_document_elsewhere() {
    let output = Test::new()
        .current_dir(root())
        .args(["gen", "openai", NOTES, "--format", "json"])
        .run();
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert!(
        output.stderr.contains("write the document with -o FILE"),
        "{}",
        output.stderr
    );
    assert!(output.stdout.is_empty(), "{}", output.stdout);
}

#[test]
fn gen_refusal_findings_follow_the_format() {
    let output = Test::new()
        .current_dir(root())
        .args([
            "gen",
            "openai",
            "fixtures/rules/duplicate-key/bad",
            "--dry-run",
            "--format",
            "json",
        ])
        .run();
    assert_eq!(output.code, 1, "{}", output.stderr);
    let report = output.json();
    assert!(
        report["summary"]["errors"].as_u64().unwrap_or(0) > 0,
        "{report}"
    );
    assert!(
        output
            .stderr
            .contains("not generating from manifests with errors")
    );
}

#[test]
fn convert_losses_and_notes_share_one_report_in_every_format() {
    let temp = TempDir::new("reports-convert");
    let out = temp.path().join("out");
    let convert = |format: &str| {
        let output = Test::new()
            .current_dir(root())
            .args([
                "convert",
                "fixtures/rules/conversion-loss/bad",
                "--to",
                "nora",
                "-o",
                &out.display().to_string(),
                "--dry-run",
                "--format",
                format,
            ])
            .run();
        assert_eq!(output.code, 0, "{format}: {}", output.stderr);
        output
    };
    let concise = convert("concise").stdout;
    assert!(
        concise.lines().any(|l| l.starts_with(
            "fixtures/rules/conversion-loss/bad/tools.json:6:7: warning[conversion-loss]"
        )),
        "{concise}"
    );
    let rules: Vec<String> = convert("json").json()["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| d["rule"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(rules.iter().any(|r| r == "conversion-loss"), "{rules:?}");
    let github = convert("github").stdout;
    assert!(
        github.starts_with("::warning file=fixtures/rules/conversion-loss/bad/tools.json,line="),
        "{github}"
    );
    let human = convert("human").stderr;
    assert!(human.contains("TC903(conversion-loss)"), "{human}");
}

/// Three agentcli manifests of two tools each, every tool with a command
/// and a time limit, which MCP tool JSON cannot hold: twelve losses in two
/// groups (`/tools/*/command`, `/tools/*/timeoutSec`), under `in/`.
fn repeated_losses(temp: &TempDir) {
    for team in ["a", "b", "c"] {
        temp.write(
            &format!("in/{team}/tools.json"),
            format!(
                r#"{{
  "tools": [
    {{"name": "{team}_fetch", "description": "Fetch.", "command": ["/bin/cat"], "timeoutSec": 5}},
    {{"name": "{team}_list", "description": "List.", "command": ["/bin/ls"], "timeoutSec": 9}}
  ]
}}
"#
            ),
        );
    }
}

/// `toolc convert DIR --to mcp -o OUT --dry-run` with `extra` flags.
fn convert_losses(temp: &TempDir, extra: &[&str]) -> super::Output {
    let out = temp.path().join("out.json").display().to_string();
    let dir = temp.path().join("in").display().to_string();
    Test::new()
        .args(["convert", &dir, "--to", "mcp", "-o", &out, "--dry-run"])
        .args(extra)
        .run()
}

#[test]
fn convert_groups_repeated_losses_for_people_and_lists_them_on_request() {
    let temp = TempDir::new("reports-grouped-losses");
    repeated_losses(&temp);

    for format in ["human", "brief"] {
        let grouped = convert_losses(&temp, &["--format", format]);
        assert_eq!(grouped.code, 0, "{format}: {}", grouped.stderr);
        let text = &grouped.stderr;
        for field in ["command", "timeoutSec"] {
            let header = format!(
                "warning[TC903(conversion-loss)] 6 × /tools/*/{field}: agentcli field \"{field}\" cannot be expressed in mcp; kept in \"x-toolc\""
            );
            assert!(text.contains(&header), "{format}: no {header:?} in\n{text}");
        }
        // The first three positions of each group, then how many more.
        assert!(text.contains("/a/tools.json:3:"), "{format}: {text}");
        assert_eq!(text.matches("    … and 3 more\n").count(), 2, "{text}");
        assert!(
            text.contains(
                "Summarised 12 conversion-loss warnings in 2 groups by field and message; --show-losses lists every one."
            ),
            "{format}: {text}"
        );
        assert!(!text.contains("╭"), "{format}: no snippet expected: {text}");

        let every = convert_losses(&temp, &["--format", format, "--show-losses"]);
        assert_eq!(every.code, 0, "{format}: {}", every.stderr);
        assert!(!every.stderr.contains("Summarised"), "{}", every.stderr);
        let listed = match format {
            "human" => every.stderr.matches("TC903(conversion-loss)").count(),
            _ => every
                .stderr
                .lines()
                .filter(|l| l.starts_with("warning: "))
                .count(),
        };
        assert_eq!(listed, 12, "{format}: {}", every.stderr);
    }

    // Programs get every loss, with or without the flag.
    let json = convert_losses(&temp, &["--format", "json"]).json();
    let losses = json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["rule"] == "conversion-loss")
        .count();
    assert_eq!(losses, 12, "{json}");
    let concise = convert_losses(&temp, &["--format", "concise"]).stdout;
    assert_eq!(concise.lines().count(), 12, "{concise}");

    // --strict: the same groups, as errors, and nothing written.
    let strict = convert_losses(&temp, &["--strict"]);
    assert_eq!(strict.code, 1, "{}", strict.stderr);
    assert!(
        strict
            .stderr
            .contains("error[TC903(conversion-loss)] 6 × /tools/*/timeoutSec"),
        "{}",
        strict.stderr
    );
    assert!(
        strict
            .stderr
            .contains("Summarised 12 conversion-loss errors in 2 groups"),
        "{}",
        strict.stderr
    );
    assert!(
        strict
            .stderr
            .contains("error: nothing was written: 12 field(s)"),
        "{}",
        strict.stderr
    );
}

/// A file that lint read again for a finding across files (a tool name
/// repeated in another manifest) keeps its positions, however the path
/// was written: `.//dir` names the files `/dir/...` for display, and the
/// second read must still open the file the first one did.
#[test]
fn a_finding_across_files_keeps_its_positions_under_any_path_spelling() {
    let temp = TempDir::new("across-files");
    for dir in ["one", "two"] {
        temp.write(
            &format!("tools/{dir}/tool.json"),
            "{\n  \"name\": \"read_file\",\n  \"description\": \"Read a UTF-8 text file.\",\n  \"entrypoint\": \"main.py\",\n  \"parameters\": {}\n}\n",
        );
        temp.write(
            &format!("tools/{dir}/main.py"),
            "def run(params):\n    return {}\n",
        );
    }
    let output = Test::new()
        .current_dir(temp.path())
        .args(["lint", "--format", "json", ".//tools"])
        .run();
    let report = output.json();
    let duplicate = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .find(|d| d["rule"] == "duplicate-tool-name")
        .unwrap_or_else(|| panic!("no duplicate-tool-name finding: {}", output.stdout));
    assert_eq!(duplicate["line"], 2, "{duplicate}");
    assert_eq!(duplicate["column"], 11, "{duplicate}");
    assert_eq!(duplicate["related"][0]["line"], 2, "{duplicate}");
}
