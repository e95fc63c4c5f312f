//! Everything toolc writes is accepted by the consumer it is written for:
//! the providers' own SDKs (tests/integration/interop/validate.py, run
//! with the test venv's pinned SDKs), the MCP schemas of three revisions,
//! and toolc's own linter for converted manifests. The inputs are every
//! corpus and fixture manifest that lints without errors; each test prints
//! its table (run with --nocapture to see it).

use std::collections::BTreeMap;
use std::path::Path;

use crate::{TempDir, Test, root, sdk};

/// The corpus and fixture manifests with tools and no error-level finding,
/// relative to the project root, in the order lint lists them.
fn clean_manifests() -> Vec<String> {
    let output = Test::new()
        .args(["lint", "--format", "json", "../shared/corpus", "fixtures"])
        .run();
    let report = output.json();
    let mut errors: BTreeMap<String, usize> = BTreeMap::new();
    for diagnostic in report["diagnostics"].as_array().expect("diagnostics") {
        if diagnostic["severity"] == "error" {
            *errors
                .entry(diagnostic["path"].as_str().expect("path").to_string())
                .or_default() += 1;
        }
    }
    let manifests: Vec<String> = report["files"]
        .as_array()
        .expect("files")
        .iter()
        .filter(|f| f["tools"].as_u64().unwrap_or(0) > 0)
        .map(|f| f["path"].as_str().expect("path").to_string())
        // An error in the package's code (a .py, a .ts beside it) counts too.
        .filter(|path| {
            let dir = Path::new(path).parent().unwrap_or(Path::new(""));
            !errors.keys().any(|e| Path::new(e).starts_with(dir))
        })
        .collect();
    assert!(
        manifests.len() > 100,
        "only {} clean manifests: the corpus or fixtures are not where they should be",
        manifests.len()
    );
    manifests
}

/// What validate.py said of a batch of documents: tools accepted, and
/// every rejection.
struct Verdicts {
    ok: usize,
    bad: Vec<String>,
}

/// The validator, run with `python -c` (its arguments follow).
const VALIDATE: &str = include_str!("interop/validate.py");

/// The error-level findings of a `lint --format json` report, one line
/// each.
fn lint_errors(report: &serde_json::Value) -> Vec<String> {
    report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["severity"] == "error")
        .map(|d| format!("{}: {} {}", d["path"], d["rule"], d["message"]))
        .collect()
}

/// Where `convert --to to` writes in `dir`: a file for the one-document
/// formats, a directory for the others.
fn output_in(dir: &Path, to: &str) -> std::path::PathBuf {
    if matches!(to, "openai" | "anthropic" | "mcp") {
        dir.join("out.json")
    } else {
        dir.join("out")
    }
}

/// Validates `documents` (label, JSON text) as `target` with the SDKs.
fn validate(target: &str, documents: &[(String, String)]) -> Verdicts {
    let batch: Vec<serde_json::Value> = documents
        .iter()
        .map(|(label, text)| {
            let document: serde_json::Value = serde_json::from_str(text)
                .unwrap_or_else(|e| panic!("{label}: toolc wrote JSON that does not parse: {e}"));
            serde_json::json!({"label": label, "document": document})
        })
        .collect();
    let schemas = root().join("../shared/schemas");
    let printed = sdk::run_python(
        VALIDATE,
        &[target, schemas.to_str().expect("path")],
        &serde_json::to_string(&batch).expect("batch"),
    );
    let mut verdicts = Verdicts {
        ok: 0,
        bad: Vec::new(),
    };
    for line in printed.lines() {
        if line.starts_with("ok ") {
            verdicts.ok += 1;
        } else {
            verdicts.bad.push(line.to_string());
        }
    }
    verdicts
}

/// The providers' documents, as `gen` and `convert` spell them, and the
/// validate.py target for each.
const PROVIDERS: &[(&str, &[&str], &str)] = &[
    ("openai", &["gen", "openai"], "openai"),
    (
        "openai --strict",
        &["gen", "openai", "--strict"],
        "openai-strict",
    ),
    ("anthropic", &["gen", "anthropic"], "anthropic"),
    ("mcp", &["gen", "mcp"], "mcp"),
    ("gemini", &["gen", "gemini"], "gemini"),
    ("convert openai", &["convert", "--to", "openai"], "openai"),
    (
        "convert anthropic",
        &["convert", "--to", "anthropic"],
        "anthropic",
    ),
    ("convert mcp", &["convert", "--to", "mcp"], "mcp"),
];

#[test]
fn every_provider_document_is_accepted_by_the_providers_sdk() {
    let manifests = clean_manifests();
    let mut table = vec![format!(
        "{:<20} {:>9} {:>8} {:>7} {:>10}",
        "target", "manifests", "written", "refused", "tools ok"
    )];
    for (name, command, target) in PROVIDERS {
        let mut documents = Vec::new();
        let mut refused = 0;
        for manifest in &manifests {
            let output = Test::new()
                .args(command.iter().copied())
                .args(["-o", "-", manifest.as_str()])
                .run();
            match output.code {
                0 => documents.push((manifest.clone(), output.stdout)),
                // What the target cannot take is refused with the reason,
                // and nothing is written.
                1 => {
                    assert!(
                        output.stdout.is_empty()
                            && output.stderr.contains("error: nothing was written"),
                        "{name} {manifest}: exit 1 without saying nothing was written:\n{}\n{}",
                        output.stdout,
                        output.stderr
                    );
                    refused += 1;
                }
                code => panic!("{name} {manifest}: exit {code}\n{}", output.stderr),
            }
        }
        // Those toolc reads, it also lints: no error in what it wrote.
        let format = ["openai", "anthropic", "mcp"]
            .into_iter()
            .find(|f| target.starts_with(f));
        for (manifest, text) in documents.iter().filter(|_| format.is_some()) {
            let lint = Test::new()
                .args(["lint", "--format", "json", "--input-format"])
                .args([format.unwrap_or_default(), "-"])
                .stdin(text)
                .run();
            let errors = lint_errors(&lint.json());
            assert!(
                errors.is_empty(),
                "{name} {manifest}: toolc rejects what it wrote:\n{}",
                errors.join("\n")
            );
        }
        let verdicts = validate(target, &documents);
        assert!(
            verdicts.bad.is_empty(),
            "{name}: {} tools rejected by the SDK:\n{}",
            verdicts.bad.len(),
            verdicts.bad.join("\n")
        );
        assert!(
            verdicts.ok > 150,
            "{name}: only {} tools validated",
            verdicts.ok
        );
        table.push(format!(
            "{name:<20} {:>9} {:>8} {refused:>7} {:>10}",
            manifests.len(),
            documents.len(),
            verdicts.ok
        ));
    }
    println!("{}", table.join("\n"));
}

/// The validator itself can say no: a document of each target with the
/// very faults toolc used to write is rejected.
#[test]
fn the_sdk_validation_rejects_what_providers_reject() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "openai",
            r#"[{"type": "function", "function": {"name": "pick", "parameters": {"oneOf": [{"type": "object"}]}}}]"#,
            "root oneOf",
        ),
        (
            "openai-strict",
            r#"[{"type": "function", "function": {"name": "pick", "strict": true, "parameters": {"type": "object", "properties": {"b": {"type": "string"}, "a": {"type": "string"}}, "required": ["a", "b"], "additionalProperties": false}}}]"#,
            "not a fixed point",
        ),
        (
            "anthropic",
            r#"[{"name": "pick", "input_schema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}}]"#,
            "is not 2020-12",
        ),
        (
            "mcp",
            r#"{"tools": [{"name": "pick", "inputSchema": {"type": "object"}}]}"#,
            "'resultType' is a required property",
        ),
        (
            "gemini",
            r#"{"functionDeclarations": [{"name": "pick", "parameters": {"type": "OBJECT"}, "strict": true}]}"#,
            "SDK:",
        ),
    ];
    for (target, document, expected) in cases {
        let verdicts = validate(target, &[("case".to_string(), document.to_string())]);
        assert!(
            verdicts.bad.iter().any(|line| line.contains(expected)),
            "{target}: expected a rejection saying {expected:?}, got ok={} bad={:?}",
            verdicts.ok,
            verdicts.bad
        );
    }
}

/// Whether `out` (a file or a directory) holds anything.
fn wrote_anything(out: &Path) -> bool {
    match std::fs::read_dir(out) {
        Ok(mut entries) => entries.next().is_some(),
        Err(_) => out.exists(),
    }
}

#[test]
fn every_conversion_toolc_writes_lints_without_errors() {
    let manifests = clean_manifests();
    let formats = [
        "nora",
        "agentcli",
        "agentstack",
        "nachos",
        "openai",
        "anthropic",
        "mcp",
    ];
    let mut table = vec![format!(
        "{:<11} {:>9} {:>8} {:>7} {:>11}",
        "to", "manifests", "written", "refused", "lint clean"
    )];
    for to in formats {
        let (mut written, mut refused, mut clean) = (0, 0, 0);
        for (index, manifest) in manifests.iter().enumerate() {
            let dir = TempDir::new(&format!("interop-{to}-{index}"));
            let out = output_in(dir.path(), to);
            let output = Test::new()
                .args(["convert", "--to", to, "-o"])
                .args([out.to_str().expect("path"), manifest.as_str()])
                .run();
            if output.code != 0 {
                assert_eq!(
                    output.code, 1,
                    "{manifest} -> {to}: exit {}\n{}",
                    output.code, output.stderr
                );
                assert!(
                    !wrote_anything(&out),
                    "{manifest} -> {to}: refused, but wrote {}",
                    out.display()
                );
                refused += 1;
                continue;
            }
            written += 1;
            let lint = Test::new()
                .args(["lint", "--format", "json", out.to_str().expect("path")])
                .run();
            let report = lint.json();
            let errors = lint_errors(&report);
            assert!(
                errors.is_empty(),
                "{manifest} -> {to} exited 0 but toolc rejects what it wrote:\n{}",
                errors.join("\n")
            );
            assert!(
                report["files"].as_array().is_some_and(|f| !f.is_empty()),
                "{manifest} -> {to}: lint read no manifest in what convert wrote"
            );
            clean += 1;
        }
        assert!(
            written > manifests.len() / 2,
            "{to}: only {written} of {} conversions were written",
            manifests.len()
        );
        table.push(format!(
            "{to:<11} {:>9} {written:>8} {refused:>7} {clean:>11}",
            manifests.len()
        ));
    }
    println!("{}", table.join("\n"));
}

#[test]
fn the_strict_flag_survives_openai_to_anthropic_and_back() {
    let dir = TempDir::new("interop-strict-flag");
    dir.write(
        "openai.json",
        r#"[{"type": "function", "function": {"name": "pick", "description": "Pick one.", "strict": true,
            "parameters": {"type": "object", "properties": {"a": {"type": "string", "description": "A."}},
                           "required": ["a"], "additionalProperties": false}}}]"#,
    );
    let to_anthropic = Test::new()
        .current_dir(dir.path())
        .args([
            "convert",
            "--to",
            "anthropic",
            "-o",
            "anthropic.json",
            "openai.json",
        ])
        .run();
    assert_eq!(to_anthropic.code, 0, "{}", to_anthropic.stderr);
    assert!(
        !to_anthropic.stderr.contains("conversion-loss"),
        "{}",
        to_anthropic.stderr
    );
    let anthropic = read_json(&dir.path().join("anthropic.json"));
    assert_eq!(anthropic[0]["strict"], true, "{anthropic}");
    let back = Test::new()
        .current_dir(dir.path())
        .args([
            "convert",
            "--to",
            "openai",
            "-o",
            "back.json",
            "anthropic.json",
        ])
        .run();
    assert_eq!(back.code, 0, "{}", back.stderr);
    assert!(!back.stderr.contains("conversion-loss"), "{}", back.stderr);
    let openai = read_json(&dir.path().join("back.json"));
    assert_eq!(openai[0]["function"]["strict"], true, "{openai}");
    let verdicts = validate(
        "anthropic",
        &[(
            "anthropic.json".to_string(),
            std::fs::read_to_string(dir.path().join("anthropic.json")).unwrap(),
        )],
    );
    assert!(
        verdicts.bad.is_empty() && verdicts.ok == 1,
        "{:?}",
        verdicts.bad
    );
}

#[test]
fn strict_mode_refuses_a_python_map_and_says_what_it_rewrote_in_python_parameters() {
    let dir = TempDir::new("interop-strict-python");
    dir.write(
        "scores/config.json",
        r#"{"name": "scores", "category": "data", "tools": {"record": {"actions": ["write"]}, "lookup": {"actions": ["read"]}}}"#,
    );
    dir.write(
        "scores/__init__.py",
        "from typing import Dict, Optional\n\n\n\
         def record(player: str, points: Dict[str, int]) -> str:\n    \"\"\"Record points per round.\"\"\"\n    return player\n\n\n\
         def lookup(player: str, season: Optional[int] = None) -> str:\n    \"\"\"Look up a player's points.\"\"\"\n    return player\n",
    );
    let refused = Test::new()
        .current_dir(dir.path())
        .args(["gen", "openai", "--strict", "--show-notes", "scores"])
        .run();
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(refused.stdout.is_empty(), "{}", refused.stdout);
    assert!(
        refused.stderr.contains("object of free keys")
            && refused.stderr.contains("it would accept only {}")
            && refused.stderr.contains("error: nothing was written"),
        "{}",
        refused.stderr
    );
    // Without the map, the optional parameter's rewrite is reported at
    // the tool, naming the place in the parameters read from code.
    dir.write(
        "scores/config.json",
        r#"{"name": "scores", "category": "data", "tools": {"lookup": {"actions": ["read"]}}}"#,
    );
    let written = Test::new()
        .current_dir(dir.path())
        .args(["gen", "openai", "--strict", "--show-notes", "scores"])
        .run();
    assert_eq!(written.code, 0, "{}", written.stderr);
    assert!(
        written
            .stderr
            .contains("(the parameters read from code, at /properties/season)"),
        "{}",
        written.stderr
    );
    let verdicts = validate("openai-strict", &[("lookup".to_string(), written.stdout)]);
    assert!(
        verdicts.bad.is_empty() && verdicts.ok == 1,
        "{:?}",
        verdicts.bad
    );
}

/// Runs toolc in `dir`, expecting `code`; returns the output.
fn toolc_in(dir: &Path, args: &[&str], code: i32) -> crate::Output {
    let output = Test::new().current_dir(dir).args(args).run();
    assert_eq!(
        output.code, code,
        "toolc {args:?}:\n{}\n{}",
        output.stdout, output.stderr
    );
    output
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("JSON")
}

#[test]
fn convert_refuses_two_tools_of_one_name_as_gen_does() {
    let dir = TempDir::new("interop-duplicate-names");
    dir.write(
        "a.json",
        r#"{"tools": [{"name": "same", "description": "A.", "inputSchema": {"type": "object", "properties": {}}}]}"#,
    );
    dir.write(
        "b.json",
        r#"[{"type": "function", "function": {"name": "same", "description": "B.", "parameters": {"type": "object", "properties": {}}}}]"#,
    );
    for to in ["openai", "anthropic", "mcp", "agentcli", "agentstack"] {
        let out = output_in(dir.path(), to);
        let refused = toolc_in(
            dir.path(),
            &[
                "convert",
                "--to",
                to,
                "-o",
                out.to_str().expect("path"),
                "a.json",
                "b.json",
            ],
            1,
        );
        assert!(
            refused
                .stderr
                .contains("error: nothing was written: two tools would share a name"),
            "{to}: {}",
            refused.stderr
        );
        assert!(!out.exists(), "{to} wrote {}", out.display());
    }
}

#[test]
fn older_dialects_are_written_as_2020_12_with_their_meaning() {
    let dir = TempDir::new("interop-dialects");
    dir.write(
        "tools.json",
        r##"{"tools": [{"name": "d4", "description": "A tool.", "inputSchema": {
            "$schema": "http://json-schema.org/draft-04/schema#", "type": "object", "properties": {
              "a": {"type": "number", "description": "A.", "maximum": 10, "exclusiveMaximum": true},
              "b": {"type": "array", "description": "B.", "items": [{"type": "string"}], "additionalItems": {"type": "integer"}},
              "c": {"type": "object", "description": "C.", "properties": {"x": {"type": "string", "description": "x"}},
                    "dependencies": {"x": ["y"]}}}}}]}"##,
    );
    for (target, args) in [
        ("openai", vec!["gen", "openai", "tools.json"]),
        ("anthropic", vec!["gen", "anthropic", "tools.json"]),
        ("openai", vec!["convert", "--to", "openai", "tools.json"]),
    ] {
        let output = toolc_in(dir.path(), &args, 0);
        let verdicts = validate(target, &[(format!("{args:?}"), output.stdout.clone())]);
        assert!(
            verdicts.bad.is_empty() && verdicts.ok == 1,
            "{:?}",
            verdicts.bad
        );
        let document: serde_json::Value = serde_json::from_str(&output.stdout).expect("JSON");
        let schema = if target == "openai" {
            &document[0]["function"]["parameters"]
        } else {
            &document[0]["input_schema"]
        };
        // The meaning, as 2020-12 spells it.
        assert_eq!(
            schema["properties"]["a"]["exclusiveMaximum"], 10,
            "{schema}"
        );
        assert!(
            schema["properties"]["a"].get("maximum").is_none(),
            "{schema}"
        );
        assert_eq!(
            schema["properties"]["b"]["prefixItems"][0]["type"],
            "string"
        );
        assert_eq!(schema["properties"]["b"]["items"]["type"], "integer");
        assert_eq!(
            schema["properties"]["c"]["dependentRequired"]["x"][0], "y",
            "{schema}"
        );
    }
}

#[test]
fn assumed_agentstack_actions_make_no_read_only_hint_until_written_over() {
    let dir = TempDir::new("interop-assumed-actions");
    dir.write(
        "tools.json",
        r#"{"tools": [{"name": "fs_rm", "description": "Remove a file.", "command": ["./tools/bin/fs_rm"],
            "schema": {"type": "object", "properties": {"path": {"type": "string", "description": "The file."}}, "required": ["path"]}}]}"#,
    );
    toolc_in(
        dir.path(),
        &["convert", "--to", "agentstack", "-o", "pkg", "tools.json"],
        0,
    );
    let hints = |dir: &Path| {
        let output = toolc_in(dir, &["convert", "--to", "mcp", "pkg"], 0);
        let document: serde_json::Value = serde_json::from_str(&output.stdout).expect("JSON");
        document["tools"][0]["annotations"].clone()
    };
    // toolc made ["read"] up: the MCP tool must not claim to only read.
    assert!(
        hints(dir.path())["readOnlyHint"].is_null(),
        "{}",
        hints(dir.path())
    );
    // Written over by the user, the actions are theirs.
    // (The package is named after its one tool.)
    let config = dir.path().join("pkg/fs_rm/config.json");
    let text = std::fs::read_to_string(&config).expect("config");
    std::fs::write(
        &config,
        text.replacen("\"read\"", "\"read\", \"delete\"", 1),
    )
    .expect("write");
    let annotations = hints(dir.path());
    assert_eq!(annotations["readOnlyHint"], false, "{annotations}");
    assert_eq!(annotations["destructiveHint"], true, "{annotations}");
}

#[test]
fn nora_placeholders_read_back_as_nothing_and_what_replaces_them_is_kept() {
    let dir = TempDir::new("interop-nora-placeholders");
    dir.write(
        "m.json",
        r#"{"tools": [{"name": "nodesc", "inputSchema": {"type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "integer"},
                           "c": {"anyOf": [{"type": "integer"}, {"type": "null"}]}}, "required": ["a"]}}]}"#,
    );
    toolc_in(
        dir.path(),
        &["convert", "--to", "nora", "-o", "n", "m.json"],
        0,
    );
    toolc_in(dir.path(), &["lint", "n"], 0);
    let back = |dir: &Path| {
        let output = toolc_in(dir, &["convert", "--to", "mcp", "n"], 0);
        let document: serde_json::Value = serde_json::from_str(&output.stdout).expect("JSON");
        document["tools"][0].clone()
    };
    let untouched = back(dir.path());
    assert!(untouched.get("description").is_none(), "{untouched}");
    assert!(
        untouched["inputSchema"]["properties"]["a"]
            .get("description")
            .is_none(),
        "{untouched}"
    );
    let manifest = dir.path().join("n/nodesc/tool.json");
    let mut tool = read_json(&manifest);
    tool["description"] = "Removes nothing.".into();
    tool["parameters"]["properties"]["a"]["description"] = "The A value.".into();
    // (c's exact schema is in x-toolc: NORA spells its type out.)
    tool["parameters"]["properties"]["c"]["description"] = "The C value.".into();
    std::fs::write(&manifest, tool.to_string()).expect("write");
    let edited = back(dir.path());
    assert_eq!(edited["description"], "Removes nothing.", "{edited}");
    assert_eq!(
        edited["inputSchema"]["properties"]["a"]["description"], "The A value.",
        "{edited}"
    );
    assert!(
        edited["inputSchema"]["properties"]["b"]
            .get("description")
            .is_none(),
        "{edited}"
    );
    assert_eq!(
        edited["inputSchema"]["properties"]["c"],
        serde_json::json!({"anyOf": [{"type": "integer"}, {"type": "null"}], "description": "The C value."}),
        "{edited}"
    );
}

#[test]
fn schemas_that_only_some_readers_take_are_written_so_that_all_do() {
    let dir = TempDir::new("interop-odd-schemas");
    dir.write(
        "chain.json",
        r##"{"tools": [{"name": "chain", "description": "T.", "inputSchema": {"type": "object",
            "properties": {"a": {"$ref": "#/$defs/A", "description": "A."}},
            "$defs": {"A": {"$ref": "#/$defs/B", "description": "aa"}, "B": {"$ref": "#/$defs/C"},
                      "C": {"type": "string", "enum": ["x", "y"]}}}}]}"##,
    );
    dir.write(
        "booleans.json",
        r#"{"tools": [{"name": "booleans", "description": "T.", "inputSchema": {"type": "object",
            "properties": {"a": true, "b": false}}}]}"#,
    );
    let strict = toolc_in(dir.path(), &["gen", "openai", "--strict", "chain.json"], 0);
    let verdicts = validate("openai-strict", &[("chain".to_string(), strict.stdout)]);
    assert!(
        verdicts.bad.is_empty() && verdicts.ok == 1,
        "{:?}",
        verdicts.bad
    );
    let mcp = toolc_in(dir.path(), &["gen", "mcp", "booleans.json"], 0);
    let verdicts = validate("mcp", &[("booleans".to_string(), mcp.stdout)]);
    assert!(
        verdicts.bad.is_empty() && verdicts.ok == 1,
        "{:?}",
        verdicts.bad
    );
    // Strict mode has no schema for "anything": refused.
    toolc_in(
        dir.path(),
        &["gen", "openai", "--strict", "booleans.json"],
        1,
    );
}

#[test]
fn gemini_property_names_gemini_rejects_are_renamed_at_every_depth() {
    let dir = TempDir::new("interop-gemini-names");
    // A tool's own parameter is renamed (issue 27; see renames::providers).
    dir.write(
        "tools.json",
        r#"{"tools": [{"name": "names", "description": "T.", "inputSchema": {"type": "object",
            "properties": {"a b": {"type": "string", "description": "Spaced."}}}}]}"#,
    );
    let renamed = toolc_in(dir.path(), &["gen", "gemini", "tools.json"], 0);
    let document: serde_json::Value = serde_json::from_str(&renamed.stdout).expect("JSON");
    assert!(
        document["functionDeclarations"][0]["parameters"]["properties"]["a_b"].is_object(),
        "{}",
        renamed.stdout
    );
    // So is a property inside one (recorded by its place in the parameters).
    dir.write(
        "tools.json",
        r#"{"tools": [{"name": "names", "description": "T.", "inputSchema": {"type": "object",
            "properties": {"o": {"type": "object", "description": "O.",
                "properties": {"a b": {"type": "string", "description": "Spaced."}}}}}}]}"#,
    );
    let nested = toolc_in(dir.path(), &["gen", "gemini", "tools.json"], 0);
    let document: serde_json::Value = serde_json::from_str(&nested.stdout).expect("JSON");
    let inner = &document["functionDeclarations"][0]["parameters"]["properties"]["o"];
    assert!(
        inner["properties"]["a_b"].is_object() && inner["properties"].get("a b").is_none(),
        "{}",
        nested.stdout
    );
}

#[test]
fn mcp_result_members_toolc_writes_are_not_fields_to_carry() {
    let dir = TempDir::new("interop-mcp-members");
    dir.write(
        "tools.json",
        r#"{"tools": [{"name": "t", "description": "T.", "inputSchema": {"type": "object", "properties": {}}}]}"#,
    );
    toolc_in(
        dir.path(),
        &["gen", "mcp", "tools.json", "-o", "mcp.json"],
        0,
    );
    let to_openai = toolc_in(dir.path(), &["convert", "--to", "openai", "mcp.json"], 0);
    assert!(
        !to_openai.stderr.contains("resultType") && !to_openai.stderr.contains("conversion-loss"),
        "{}",
        to_openai.stderr
    );
    toolc_in(
        dir.path(),
        &["convert", "--to", "agentcli", "-o", "cli", "mcp.json"],
        0,
    );
    let written = std::fs::read_to_string(dir.path().join("cli/tools.json")).expect("tools.json");
    assert!(!written.contains("resultType"), "{written}");
}

#[test]
fn nora_spells_out_the_type_a_union_or_enum_implies_and_converting_back_restores_it() {
    let dir = TempDir::new("interop-nora-implied-types");
    let schema = serde_json::json!({"type": "object", "properties": {
        "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": null, "description": "How many."},
        "mode": {"enum": ["fast", "slow"], "description": "Which way."},
        "anything": {"description": "Any value."}}, "required": ["mode"]});
    dir.write(
        "m.json",
        serde_json::json!({"tools": [{"name": "t", "description": "T.", "inputSchema": schema}]})
            .to_string(),
    );
    let refused = toolc_in(
        dir.path(),
        &["convert", "--to", "nora", "-o", "n", "m.json"],
        1,
    );
    assert!(
        refused
            .stderr
            .contains("/parameters/properties/anything: \"type\" is a required property"),
        "{}",
        refused.stderr
    );
    assert!(!dir.path().join("n").exists());
    // Without the property of any value, it converts, lints, and comes back.
    let mut schema = schema;
    schema["properties"]
        .as_object_mut()
        .expect("properties")
        .remove("anything");
    dir.write(
        "m.json",
        serde_json::json!({"tools": [{"name": "t", "description": "T.", "inputSchema": schema}]})
            .to_string(),
    );
    toolc_in(
        dir.path(),
        &["convert", "--to", "nora", "-o", "n", "m.json"],
        0,
    );
    toolc_in(dir.path(), &["lint", "n"], 0);
    let written = read_json(&dir.path().join("n/t/tool.json"));
    assert_eq!(
        written["parameters"]["properties"]["limit"]["type"],
        serde_json::json!(["integer", "null"]),
        "{written}"
    );
    assert_eq!(
        written["parameters"]["properties"]["mode"]["type"],
        "string"
    );
    let back = toolc_in(dir.path(), &["convert", "--to", "mcp", "n"], 0);
    let back: serde_json::Value = serde_json::from_str(&back.stdout).expect("JSON");
    assert_eq!(back["tools"][0]["inputSchema"], schema);
}
