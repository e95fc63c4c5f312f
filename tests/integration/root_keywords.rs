//! `gen openai` writes no keyword OpenAI refuses at the root of the
//! parameters (`oneOf`, `anyOf`, `allOf`, `enum`, `not`): the combinators
//! are merged or flattened, `enum` and `not` removed with a warning that
//! says what is lost; and lint's `root-combinator` reports the same
//! keywords for OpenAI, from the same table.

use serde_json::{Value, json};

use super::{TempDir, Test};

/// An MCP tool whose root says "not both" with `not`, one with a root
/// `enum`, and one whose root `allOf` brings a `not` up to the root.
fn manifest() -> Value {
    json!({"tools": [
        {"name": "pick", "description": "Pick by id or by path, not both.", "inputSchema": {
            "type": "object",
            "properties": {"id": {"type": "string"}, "path": {"type": "string"}},
            "not": {"required": ["id", "path"]}}},
        {"name": "preset", "description": "Apply a preset.", "inputSchema": {
            "type": "object",
            "properties": {"level": {"type": "integer"}},
            "enum": [{"level": 1}, {"level": 2}]}},
        {"name": "merged", "description": "Merged from parts.", "inputSchema": {
            "type": "object",
            "allOf": [
                {"properties": {"a": {"type": "string"}}},
                {"not": {"required": ["a"]}}
            ]}}
    ]})
}

fn generate(dir: &TempDir, extra: &[&str]) -> (Value, String) {
    let output = Test::new()
        .current_dir(dir.path())
        .args([
            "gen",
            "openai",
            "-o",
            "openai.json",
            "--force",
            "--show-notes",
        ])
        .args(extra)
        .args(["mcp.json"])
        .run();
    assert_eq!(output.code, 0, "{}", output.stderr);
    let text = std::fs::read_to_string(dir.path().join("openai.json")).expect("openai.json");
    (serde_json::from_str(&text).expect("JSON"), output.stderr)
}

#[test]
fn gen_openai_leaves_no_refused_keyword_at_the_root() {
    let dir = TempDir::new("root-keywords");
    dir.write("mcp.json", manifest().to_string());
    for extra in [&[][..], &["--strict", "--allow-errors"][..]] {
        let (document, notes) = generate(&dir, extra);
        for entry in document.as_array().expect("a list") {
            let parameters = entry["function"]["parameters"]
                .as_object()
                .expect("parameters");
            for keyword in ["oneOf", "anyOf", "allOf", "enum", "not"] {
                assert!(
                    !parameters.contains_key(keyword),
                    "{extra:?}: root \"{keyword}\" kept in {entry:#}"
                );
            }
            assert_eq!(parameters["type"], "object", "{entry:#}");
        }
        // What is lost is said, where it was.
        // (Strict mode removes `not` anywhere, with its own note.)
        let not_removed = if extra.is_empty() {
            "removed the root \"not\""
        } else {
            "removed \"not\", which OpenAI strict mode rejects"
        };
        assert!(notes.contains(not_removed), "{notes}");
        assert!(notes.contains("removed the root \"enum\""), "{notes}");
        // The property the allOf brought stays.
        assert!(document[2]["function"]["parameters"]["properties"]["a"].is_object());
        // What gen wrote passes lint's OpenAI checks, read back as OpenAI.
        let lint = Test::new()
            .current_dir(dir.path())
            .args([
                "lint",
                "--format",
                "json",
                "--target",
                "openai",
                "openai.json",
            ])
            .run();
        let report = lint.json();
        assert_eq!(report["files"][0]["format"], "openai", "{report:#}");
        assert_eq!(report["summary"]["errors"], 0, "{report:#}");
    }
}

#[test]
fn lint_reports_a_root_not_and_enum_for_openai_only() {
    let dir = TempDir::new("root-keywords-lint");
    dir.write("mcp.json", manifest().to_string());
    let found = |target: &str| -> Vec<String> {
        let report = Test::new()
            .current_dir(dir.path())
            .args(["lint", "--format", "json", "--target", target, "mcp.json"])
            .run()
            .json();
        report["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .filter(|d| d["rule"] == "root-combinator")
            .map(|d| d["pointer"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    assert_eq!(
        found("openai"),
        [
            "/tools/0/inputSchema/not",
            "/tools/1/inputSchema/enum",
            "/tools/2/inputSchema/allOf"
        ]
    );
    assert_eq!(found("anthropic"), ["/tools/2/inputSchema/allOf"]);
}
