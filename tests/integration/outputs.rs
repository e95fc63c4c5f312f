//! `toolc lint --format concise | sarif | github | junit` and `-o FILE`:
//! SARIF checked against the official 2.1.0 schema, the line formats and
//! JUnit XML as reviewed snapshots, escaping of hostile text, and the report
//! written to a file.

use super::{TempDir, Test, root};

const RENDER: &str = "fixtures/render";
const EDGES: &str = "fixtures/render-edges";
const FORMATS: [&str; 6] = ["human", "concise", "json", "sarif", "github", "junit"];

fn lint(format: &str, path: &str) -> super::Output {
    Test::new().args(["lint", "--format", format, path]).run()
}

/// A manifest whose finding's message holds a line break, `,`, `:`, `%`,
/// markup and an escape character, in a file whose name holds `,`, `:` and
/// `%`.
fn hostile() -> (TempDir, &'static str) {
    let dir = TempDir::new("hostile-output");
    let name = "a,b:c%.json";
    dir.write(
        name,
        r#"{"name": "a\nb,c: 50% <x> & \u001b[2J", "inputSchema": {"type": "object"}}"#,
    );
    (dir, name)
}

fn sarif_validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(root().join("../shared/schemas/sarif-schema-2.1.0.json"))
        .expect("read the SARIF schema");
    let schema: serde_json::Value = serde_json::from_str(&text).expect("schema is JSON");
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("compile the SARIF schema")
}

fn assert_valid_sarif(validator: &jsonschema::Validator, log: &serde_json::Value, what: &str) {
    let errors: Vec<String> = validator
        .iter_errors(log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "SARIF of {what} does not validate:\n{}",
        errors.join("\n")
    );
}

#[test]
fn sarif_validates_against_the_schema() {
    let validator = sarif_validator();
    let rule_count = super::rules_json().len();
    for path in [RENDER, EDGES, "fixtures"] {
        let output = lint("sarif", path);
        assert_eq!(output.code, 1, "{path}: {}", output.stderr);
        let log = output.json();
        assert_valid_sarif(&validator, &log, path);
        let run = &log["runs"][0];
        let driver_rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
        assert_eq!(driver_rules.len(), rule_count, "every rule is listed");
        let results = run["results"].as_array().expect("results");
        assert!(!results.is_empty());
        for result in results {
            let id = result["ruleId"].as_str().expect("ruleId");
            let index = result["ruleIndex"].as_u64().expect("ruleIndex") as usize;
            assert_eq!(driver_rules[index]["id"], id, "{result:#}");
        }
    }
    // The validator does reject what is not SARIF.
    let mut broken = lint("sarif", RENDER).json();
    broken["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
        serde_json::json!(0);
    broken["version"] = serde_json::json!("2.0.0");
    assert!(validator.iter_errors(&broken).count() >= 2);
}

#[test]
fn sarif_driver_describes_every_rule() {
    let log = lint("sarif", RENDER).json();
    assert_eq!(log["version"], "2.1.0");
    assert_eq!(
        log["$schema"],
        "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/main/sarif-2.1/schema/sarif-schema-2.1.0.json"
    );
    let run = &log["runs"][0];
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "toolc");
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
    let mut listed = super::rule_names();
    listed.sort();
    let mut ids: Vec<&str> = driver["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .map(|r| r["id"].as_str().expect("id"))
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, listed, "every rule, once");
    let duplicate = driver["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .find(|r| r["id"] == "duplicate-tool-name")
        .expect("duplicate-tool-name");
    assert_eq!(duplicate["name"], "duplicate-tool-name");
    assert_eq!(duplicate["properties"]["code"], "TC102");
    assert_eq!(duplicate["defaultConfiguration"]["level"], "error");
    let help = duplicate["help"]["markdown"].as_str().expect("help");
    assert!(help.contains("## What it does"), "{help}");
    assert_eq!(duplicate["help"]["text"], duplicate["help"]["markdown"]);
    assert!(duplicate["shortDescription"]["text"].is_string());
    // Each rule links its page in the repository Cargo.toml names.
    assert_eq!(
        duplicate["helpUri"],
        format!(
            "{}/blob/main/docs/rules/duplicate-tool-name.md",
            env!("CARGO_PKG_REPOSITORY")
        )
    );
    for rule in driver["rules"].as_array().expect("rules") {
        let id = rule["id"].as_str().expect("id");
        let uri = rule["helpUri"].as_str().expect("helpUri");
        assert!(uri.ends_with(&format!("/docs/rules/{id}.md")), "{uri}");
        assert!(
            super::root().join(format!("docs/rules/{id}.md")).is_file(),
            "{uri} names no page"
        );
    }
}

#[test]
fn sarif_results_carry_the_json_positions() {
    let log = lint("sarif", RENDER).json();
    let results = log["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), 7);
    // Positions from the reviewed JSON snapshot (json_rendering).
    let duplicate = results
        .iter()
        .find(|r| r["ruleId"] == "duplicate-tool-name")
        .expect("duplicate");
    assert_eq!(duplicate["level"], "error");
    assert_eq!(
        duplicate["message"]["text"],
        "tool name \"fetch_url\" is already declared at line 4"
    );
    let location = &duplicate["locations"][0]["physicalLocation"];
    assert_eq!(
        location["artifactLocation"]["uri"],
        "fixtures/render/tools.json"
    );
    assert_eq!(
        location["region"],
        serde_json::json!({"startLine": 18, "startColumn": 15, "endLine": 18, "endColumn": 26})
    );
    let related = &duplicate["relatedLocations"][0];
    assert_eq!(related["id"], 1);
    assert_eq!(related["message"]["text"], "first declared here");
    assert_eq!(related["physicalLocation"]["region"]["startLine"], 4);
    assert_eq!(related["physicalLocation"]["region"]["startColumn"], 15);
    let warning = results
        .iter()
        .find(|r| r["ruleId"] == "property-missing-description")
        .expect("warning");
    assert_eq!(warning["level"], "warning");
    assert_eq!(
        warning["locations"][0]["physicalLocation"]["region"],
        serde_json::json!({"startLine": 10, "startColumn": 11, "endLine": 10, "endColumn": 23})
    );
    // Character columns, not bytes, after multi-byte text.
    let edges = lint("sarif", EDGES).json();
    let multibyte = edges["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                == "fixtures/render-edges/multibyte/tools.json"
        })
        .expect("multibyte finding");
    let region = &multibyte["locations"][0]["physicalLocation"]["region"];
    assert_eq!(
        (region["startColumn"].as_u64(), region["endColumn"].as_u64()),
        (Some(64), Some(75))
    );
}

#[test]
fn sarif_findings_without_a_position_have_no_region_and_fixes_are_changes() {
    let log = lint("sarif", "fixtures").json();
    let results = log["runs"][0]["results"].as_array().expect("results");
    let io_errors: Vec<&serde_json::Value> = results
        .iter()
        .filter(|r| r["ruleId"] == "io-error")
        .collect();
    assert!(!io_errors.is_empty());
    for result in io_errors {
        let location = &result["locations"][0]["physicalLocation"];
        assert!(location["artifactLocation"]["uri"].is_string());
        assert!(location.get("region").is_none(), "{result:#}");
    }
    let fixed = results
        .iter()
        .find(|r| r.get("fixes").is_some())
        .expect("a finding with a fix");
    let change = &fixed["fixes"][0]["artifactChanges"][0];
    assert_eq!(
        change["artifactLocation"]["uri"],
        fixed["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    );
    let replacement = &change["replacements"][0];
    assert!(replacement["deletedRegion"]["startLine"].is_u64());
    assert!(replacement["insertedContent"]["text"].is_string());
}

#[test]
fn sarif_uris_are_percent_encoded() {
    let (dir, name) = hostile();
    let output = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--format", "sarif", name])
        .run();
    assert_eq!(output.code, 1);
    let log = output.json();
    assert_valid_sarif(&sarif_validator(), &log, name);
    assert_eq!(
        log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "a%2Cb%3Ac%25.json"
    );
}

#[test]
fn concise_rendering() {
    let output = lint("concise", RENDER);
    assert_eq!(output.code, 1);
    insta::assert_snapshot!(output.stdout);
}

#[test]
fn concise_rendering_of_edges() {
    let output = lint("concise", EDGES);
    assert_eq!(output.code, 1);
    insta::assert_snapshot!(output.stdout);
}

#[test]
fn concise_lines_match_the_json_report() {
    let report = lint("json", "fixtures").json();
    let output = lint("concise", "fixtures");
    assert_eq!(output.code, 1);
    let lines: Vec<&str> = output.stdout.lines().collect();
    let diagnostics = report["diagnostics"].as_array().expect("diagnostics");
    assert_eq!(lines.len(), diagnostics.len());
    for (line, d) in lines.iter().zip(diagnostics) {
        let at = match (d["line"].as_u64(), d["column"].as_u64()) {
            (Some(l), Some(c)) => format!(":{l}:{c}"),
            _ => String::new(),
        };
        // ruff's mark for what `--fix` would fix (the safe fixes).
        let mark = if d["fix"]["applicability"] == "safe" {
            "[*] "
        } else {
            ""
        };
        let expected = format!(
            "{}{at}: {}[{}] {mark}{}",
            d["path"].as_str().expect("path"),
            d["severity"].as_str().expect("severity"),
            d["rule"].as_str().expect("rule"),
            d["message"].as_str().expect("message")
        );
        assert_eq!(*line, expected);
    }
    assert!(lines.iter().any(|l| l.contains(": error[io-error] ")));
}

#[test]
fn github_rendering() {
    let output = lint("github", RENDER);
    assert_eq!(output.code, 1);
    insta::assert_snapshot!(output.stdout);
}

#[test]
fn github_rendering_of_edges() {
    let output = lint("github", EDGES);
    assert_eq!(output.code, 1);
    insta::assert_snapshot!(output.stdout);
}

#[test]
fn github_commands_escape_data_and_properties() {
    let (dir, name) = hostile();
    let output = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--format", "github", name])
        .run();
    assert_eq!(output.code, 1);
    assert_eq!(output.stdout.lines().count(), 1, "{}", output.stdout);
    let line = output.stdout.trim_end();
    assert!(
        line.starts_with("::error file=a%2Cb%3Ac%25.json,line=1,col=10,endLine=1,endColumn="),
        "{line}"
    );
    assert!(
        line.contains(",title=invalid-tool-name (TC103)::"),
        "{line}"
    );
    let (_, message) = line.split_once("::tool name").expect("message");
    assert!(
        message.contains("a%0Ab,c: 50%25 <x> & \\u{1b}[2J"),
        "{line}"
    );
    assert!(!output.stdout.contains('\u{1b}'));
    // Findings without a position name only the file.
    let walk = lint("github", "fixtures");
    let io_error = walk
        .stdout
        .lines()
        .find(|l| l.contains("title=io-error (TC005)"))
        .expect("io-error");
    assert!(
        io_error.starts_with("::error file=fixtures/rules/io-error/bad/"),
        "{io_error}"
    );
    assert!(!io_error.contains("line="), "{io_error}");
    // Severities map to the commands.
    let render = lint("github", RENDER).stdout;
    assert_eq!(
        render.lines().filter(|l| l.starts_with("::error ")).count(),
        5
    );
    assert_eq!(
        render
            .lines()
            .filter(|l| l.starts_with("::warning "))
            .count(),
        2
    );
}

#[test]
fn junit_rendering() {
    let output = lint("junit", RENDER);
    assert_eq!(output.code, 1);
    insta::assert_snapshot!(output.stdout);
}

#[test]
fn junit_has_a_case_per_file_and_a_failure_per_error() {
    let report = lint("json", "fixtures").json();
    let output = lint("junit", "fixtures");
    assert_eq!(output.code, 1);
    let xml = &output.stdout;
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"));
    let files: Vec<&str> = report["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| f["path"].as_str().expect("path"))
        .collect();
    let mut others: Vec<&str> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| d["path"].as_str().expect("path"))
        .filter(|p| !files.contains(p))
        .collect();
    others.dedup();
    assert!(!others.is_empty(), "walk errors get cases of their own");
    let cases = files.len() + others.len();
    assert_eq!(xml.matches("<testcase ").count(), cases);
    let errors = report["summary"]["errors"].as_u64().expect("errors");
    assert_eq!(xml.matches("<failure ").count() as u64, errors);
    assert!(xml.contains(&format!(
        "<testsuites name=\"toolc\" tests=\"{cases}\" failures=\"{errors}\""
    )));
    assert!(xml.contains(&format!(
        "<testsuite name=\"toolc lint\" tests=\"{cases}\" failures=\"{errors}\""
    )));
    for path in files.iter().chain(&others) {
        assert!(
            xml.contains(&format!("<testcase classname=\"toolc\" name=\"{path}\"")),
            "{path}"
        );
    }
    // Balanced elements.
    for element in ["testsuites", "testsuite", "failure", "system-out"] {
        assert_eq!(
            xml.matches(&format!("<{element}>")).count()
                + xml.matches(&format!("<{element} ")).count(),
            xml.matches(&format!("</{element}>")).count(),
            "{element}"
        );
    }
    let open_cases = xml.matches("<testcase ").count();
    let closed_cases = xml.matches("</testcase>").count() + xml.matches("\"/>").count();
    assert_eq!(open_cases, closed_cases);
}

#[test]
fn junit_escapes_markup_and_forbidden_characters() {
    let (dir, name) = hostile();
    let output = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--format", "junit", name])
        .run();
    assert_eq!(output.code, 1);
    let xml = &output.stdout;
    assert!(!xml.contains('\u{1b}'), "{xml}");
    assert!(!xml.contains("<x>"), "{xml}");
    assert!(xml.contains("&lt;x&gt; &amp; \\u{1b}[2J"), "{xml}");
    // In the attribute the line break is a character reference, so parsers keep it.
    assert!(
        xml.contains("message=\"tool name &quot;a&#10;b,c: 50% &lt;x&gt;"),
        "{xml}"
    );
    assert!(
        xml.contains("<testcase classname=\"toolc\" name=\"a,b:c%.json\">"),
        "{xml}"
    );
}

#[test]
fn output_file_holds_what_stdout_would() {
    let dir = TempDir::new("lint-output");
    for format in FORMATS {
        let expected = lint(format, RENDER);
        let file = dir.path().join(format!("report.{format}"));
        let file_arg = file.to_str().expect("UTF-8 temp path");
        let short = Test::new()
            .args(["lint", "--format", format, RENDER, "-o", file_arg])
            .run();
        assert_eq!(short.code, 1, "{format}: {}", short.stderr);
        assert_eq!(short.stdout, "", "{format}");
        assert_eq!(
            std::fs::read_to_string(&file).expect("report written"),
            expected.stdout,
            "{format}"
        );
        // --output overwrites an existing report.
        std::fs::write(&file, "old").expect("write");
        let long = Test::new()
            .args(["lint", "--format", format, "--output", file_arg, RENDER])
            .run();
        assert_eq!(long.code, 1, "{format}");
        assert_eq!(long.stdout, "");
        assert_eq!(
            std::fs::read_to_string(&file).expect("report written"),
            expected.stdout
        );
    }
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .expect("dir")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn output_file_of_a_clean_run_exits_zero_and_unwritable_output_exits_two() {
    let dir = TempDir::new("lint-output-clean");
    dir.write(
        "tools.json",
        r#"{"tools": [{"name": "now", "description": "Current time", "command": ["/bin/date"]}]}"#,
    );
    let clean = Test::new()
        .current_dir(dir.path())
        .args([
            "lint",
            "tools.json",
            "--format",
            "junit",
            "-o",
            "report.xml",
        ])
        .run();
    assert_eq!(clean.code, 0, "{}", clean.stderr);
    assert_eq!(clean.stdout, "");
    let xml = std::fs::read_to_string(dir.path().join("report.xml")).expect("written");
    assert!(xml.contains("failures=\"0\""), "{xml}");
    let unwritable = Test::new()
        .current_dir(dir.path())
        .args(["lint", "tools.json", "-o", "missing/dir/report.txt"])
        .run();
    assert_eq!(unwritable.code, 2);
    assert!(
        unwritable.stderr.contains("cannot write"),
        "{}",
        unwritable.stderr
    );
}
