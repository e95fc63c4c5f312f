//! One defect, one report: each case below holds a single defect and must
//! produce exactly one finding, from the rule that names it best. Also the
//! cases where the wrong rule once spoke, or none did.

use super::{TempDir, Test};

/// Lints `contents` saved as `name` and returns (exit code, [(rule, severity, pointer)]).
fn findings(name: &str, contents: &str) -> (i32, Vec<(String, String, String)>) {
    let dir = TempDir::new("defects");
    dir.write(name, contents);
    let output = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--format", "json", name])
        .run();
    let report = output.json();
    let found = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap_or("").to_string(),
                d["severity"].as_str().unwrap_or("").to_string(),
                d["pointer"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    (output.code, found)
}

fn one(name: &str, contents: &str, rule: &str, pointer: &str) {
    let (code, found) = findings(name, contents);
    assert_eq!(found.len(), 1, "{contents}\n{found:?}");
    assert_eq!(
        (found[0].0.as_str(), found[0].2.as_str()),
        (rule, pointer),
        "{contents}"
    );
    assert_eq!(code, i32::from(found[0].1 == "error"), "{contents}");
}

const NORA_OK_PARAMS: &str = r#""parameters": {"type": "object", "properties": {}}"#;

#[test]
fn a_bad_subschema_is_one_finding() {
    one(
        "openai.json",
        r#"[{"type": "function", "function": {"name": "x", "description": "d", "parameters": {"type": "object", "properties": {"a": 5}}}}]"#,
        "invalid-json-schema",
        "/0/function/parameters/properties/a",
    );
}

#[test]
fn a_misspelled_root_type_is_reported_as_not_an_object_only() {
    one(
        "openai.json",
        r#"[{"type": "function", "function": {"name": "x", "description": "d", "parameters": {"type": "objct", "properties": {}}}}]"#,
        "parameters-not-object",
        "/0/function/parameters/type",
    );
}

#[test]
fn nachos_without_provides_is_one_structural_finding() {
    let manifest = r#"{"name": "x", "version": "1", "type": "tool", "capabilities": {}}"#;
    one("manifest.json", manifest, "schema-violation", "/provides");
    let manifest = r#"{"name": "x", "version": "1", "type": "tool", "provides": "x"}"#;
    one("manifest.json", manifest, "schema-violation", "/provides");
}

#[test]
fn nora_property_without_description_is_an_error() {
    let dir = TempDir::new("nora-description");
    dir.write("t/main.py", "def run(params):\n    return ''\n");
    dir.write(
        "t/tool.json",
        r#"{"name": "t", "description": "T", "entrypoint": "main.py", "parameters": {"type": "object", "properties": {"q": {"type": "string", "required": true}}}}"#,
    );
    let output = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--format", "json", "t"])
        .run();
    assert_eq!(output.code, 1);
    let report = output.json();
    let found: Vec<&str> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter_map(|d| d["rule"].as_str())
        .collect();
    assert_eq!(found, ["schema-violation"], "{report:#}");
    assert_eq!(
        report["diagnostics"][0]["pointer"],
        "/parameters/properties/q/description"
    );
}

#[test]
fn a_duplicate_key_does_not_hide_a_bad_value() {
    let manifest = format!(
        r#"{{"name": "t", "description": "a", "description": 5, "entrypoint": "main.py", {NORA_OK_PARAMS}}}"#
    );
    let dir = TempDir::new("defects");
    dir.write("main.py", "def run(params):\n    return \"\"\n");
    dir.write("tool.json", &manifest);
    let output = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--format", "json", "tool.json"])
        .run();
    assert_eq!(output.code, 1);
    let report = output.json();
    let found: Vec<String> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| d["rule"].as_str().unwrap_or("").to_string())
        .collect();
    let rules: Vec<&str> = found.iter().map(String::as_str).collect();
    assert_eq!(rules, ["duplicate-key", "schema-violation"], "{found:?}");
}

#[test]
fn an_empty_tool_key_is_a_missing_name() {
    one(
        "config.json",
        r#"{"name": "pkg", "category": "x", "tools": {"": {"actions": ["read"]}}}"#,
        "missing-name",
        "/tools/",
    );
}

#[test]
fn a_whole_number_tier_written_as_a_float_is_accepted() {
    let (code, found) = findings(
        "manifest.json",
        r#"{"name": "x", "version": "1", "type": "tool", "provides": {"tool": "x", "securityTier": 2.0}}"#,
    );
    assert_eq!((code, found.len()), (0, 0), "{found:?}");
    one(
        "manifest.json",
        r#"{"name": "x", "version": "1", "type": "tool", "provides": {"tool": "x", "securityTier": 2.5}}"#,
        "invalid-security-tier",
        "/provides/securityTier",
    );
}

#[test]
fn no_fixture_reports_one_place_twice_under_one_rule() {
    let report = Test::new()
        .args(["lint", "--format", "json", "fixtures"])
        .run()
        .json();
    let mut seen = std::collections::BTreeSet::new();
    for d in report["diagnostics"].as_array().expect("diagnostics") {
        // A place is a JSON pointer in a manifest; in code (no pointer),
        // a line and column.
        let place = match d["pointer"].as_str() {
            Some("") | None => format!("{}:{}", d["line"], d["column"]),
            Some(pointer) => pointer.to_string(),
        };
        let key = format!("{} {place} {}", d["path"], d["rule"]);
        assert!(seen.insert(key.clone()), "reported twice: {key}");
    }
}

/// Hostile sizes: work per finding must not grow with the file, or these
/// would exceed the test harness's one-minute hang limit by far; and a
/// rule shows its first 1,000 findings in a file, then says how many more.
#[test]
fn many_duplicate_keys_and_many_findings_stay_fast() {
    let dir = TempDir::new("many");
    let members: Vec<String> = (0..100_000).map(|_| "\"a\": 1".to_string()).collect();
    dir.write(
        "dups/tools.json",
        format!("{{\"tools\": [], \"x\": {{{}}}}}", members.join(",")),
    );
    let tools: Vec<String> = (0..50_000)
        .map(|i| format!("{{\"name\": \"bad name é{i}\", \"command\": [\"/bin/true\"]}}"))
        .collect();
    dir.write(
        "names/tools.json",
        format!("{{\"tools\": [{}]}}", tools.join(",")),
    );
    let output = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--format", "json", "."])
        .run();
    let report = output.json();
    // Each rule's 1,000 and its note; and the structure of the file of
    // 100,003 values (an unknown "x") checked in its first 2,000.
    assert_eq!(report["summary"]["errors"].as_u64(), Some(2 * 1_001 + 1));
    let diagnostics = report["diagnostics"].as_array().expect("diagnostics");
    let of = |rule: &str| {
        diagnostics
            .iter()
            .filter(|d| d["rule"] == rule)
            .collect::<Vec<_>>()
    };
    let names = of("invalid-tool-name");
    let last = names
        .iter()
        .rfind(|d| d["pointer"] != "")
        .expect("a bad name");
    assert_eq!(last["pointer"], "/tools/999/name");
    let note = |found: &[&serde_json::Value]| {
        let notes: Vec<String> = found
            .iter()
            .filter(|d| d["pointer"] == "" && d["line"].is_null())
            .map(|d| d["message"].as_str().unwrap_or_default().to_string())
            .collect();
        assert_eq!(notes.len(), 1, "{notes:?}");
        notes[0].clone()
    };
    assert_eq!(
        note(&names),
        "49000 more invalid-tool-name findings in this file are not shown"
    );
    assert_eq!(
        note(&of("duplicate-key")),
        "98999 more duplicate-key findings in this file are not shown"
    );
}

/// Memory follows the values, not the bytes: `[1,1,...]` is a value per
/// two bytes, so the size limit bounds the values too (one per 12 bytes).
#[test]
fn a_manifest_of_more_values_than_its_size_allows_is_not_read() {
    let dir = TempDir::new("values");
    let ones = vec!["1"; 120].join(",");
    dir.write("tools.json", format!("{{\"tools\": [], \"x\": [{ones}]}}"));
    // 1,200 bytes allow 100 values; the file is 260 bytes of 123 values.
    let output = Test::new()
        .current_dir(dir.path())
        .args([
            "lint",
            "--format",
            "json",
            "--max-file-size",
            "1200",
            "tools.json",
        ])
        .run();
    assert_eq!(output.code, 1, "{}", output.stderr);
    let report = output.json();
    let d = &report["diagnostics"][0];
    assert_eq!(d["rule"], "file-too-large");
    let message = d["message"].as_str().unwrap_or_default();
    assert!(message.contains("more than 100 JSON values"), "{message}");
    assert!(
        message.contains("one for every 12 bytes of the 1200-byte size limit"),
        "{message}"
    );
    // Within the default limit the same file is read.
    let output = Test::new()
        .current_dir(dir.path())
        .args(["lint", "tools.json"])
        .run();
    assert_eq!(output.code, 0, "{}{}", output.stdout, output.stderr);
}

/// The structural validator gathers every error before it yields one: a
/// document of 300,000 mismatching values is checked in its first 2,000
/// values (twice the findings a rule shows), and says so.
#[test]
fn a_huge_invalid_document_is_checked_in_part_and_says_so() {
    let dir = TempDir::new("partial");
    let ones = vec!["1"; 300_000].join(",");
    dir.write(
        "tools.json",
        format!(
            "{{\"tools\": [{{\"name\": \"a\", \"description\": \"d\", \"command\": [\"/bin/true\", {ones}]}}]}}"
        ),
    );
    let report = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--format", "json", "tools.json"])
        .run()
        .json();
    let messages: Vec<&str> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["rule"] == "schema-violation" && d["line"].is_null())
        .filter_map(|d| d["message"].as_str())
        .collect();
    assert!(
        messages
            .iter()
            .any(|m| m.contains("only its first 2000 of 300007 values were checked")),
        "{messages:?}"
    );
    // The root, the list, the tool, its name, description, command and
    // first argument took 7 of the 2,000: 1,993 numbers were checked,
    // 1,000 of them shown.
    assert!(
        messages
            .iter()
            .any(|m| m.starts_with("993 more schema-violation findings")),
        "{messages:?}"
    );
}

#[test]
fn gemini_rejects_type_lists_and_keywords_outside_its_schema() {
    let dir = TempDir::new("gemini-more");
    let text = r#"[{"type": "function", "function": {"name": "f", "description": "F", "parameters": {"type": "object", "properties": {
  "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true, "description": "T"},
  "note": {"type": ["string", "null"], "description": "N"}
}}}}]"#;
    dir.write("openai.json", text);
    let report = Test::new()
        .current_dir(dir.path())
        .args([
            "lint",
            "--format",
            "json",
            "--target",
            "gemini",
            "openai.json",
        ])
        .run()
        .json();
    let found: Vec<(String, u64, u64)> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap_or("").to_string(),
                d["line"].as_u64().unwrap_or(0),
                d["column"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    // Line 2: `  "tags": {"type": "array", "items": {"type": "string"}, ` is 57
    // characters, so "uniqueItems" starts at column 58. Line 3: `  "note": {"type": `
    // is 19 characters, so the list starts at column 20.
    assert_eq!(
        found,
        [
            ("gemini-unsupported-keyword".to_string(), 2, 58),
            ("gemini-unsupported-keyword".to_string(), 3, 20),
        ]
    );
}
