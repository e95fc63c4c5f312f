//! gen's notes and convert's losses and notes are diagnostics: every
//! `--format` that lint has renders them, with their rule, code and place.

use super::{TempDir, Test, root};

const NOTES: &str = "fixtures/rules/generation-note/bad";

/// `toolc gen openai --strict` of the generation-note fixture, reported
/// in `format`; the document goes nowhere (--dry-run).
fn gen_report(format: &str) -> super::Output {
    let output = Test::new()
        .current_dir(root())
        .args([
            "gen",
            "openai",
            "--strict",
            "--dry-run",
            NOTES,
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
        .args(["gen", "openai", "--strict", "--dry-run", NOTES])
        .run();
    assert_eq!(brief.stderr, default.stderr);
    insta::assert_snapshot!("gen_notes_brief", brief.stderr);
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
