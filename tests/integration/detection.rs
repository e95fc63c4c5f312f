//! Detection: content against name, generic names, skipped files.

use super::{Output, TempDir, Test};

const OPENAI_LIST: &str = r#"[{"type": "function", "function": {"name": "get_weather", "description": "Gets the weather for a city", "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "The city"}}, "required": ["city"]}}}]"#;

fn lint_json(dir: &TempDir, args: &[&str]) -> Output {
    Test::new()
        .current_dir(dir.path())
        .args(["lint", "--format", "json"])
        .args(args)
        .run()
}

fn formats(report: &serde_json::Value) -> Vec<(String, String)> {
    report["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap_or_default().to_string(),
                f["format"].as_str().unwrap_or("none").to_string(),
            )
        })
        .collect()
}

fn rules(report: &serde_json::Value) -> Vec<String> {
    report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| d["rule"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn a_provider_tool_list_under_a_manifest_name_is_read_as_what_it_is() {
    let dir = TempDir::new("content-wins");
    dir.write("a/tools.json", OPENAI_LIST);
    dir.write(
        "b/tool.json",
        r#"{"name": "get_weather", "description": "Gets the weather", "input_schema": {"type": "object", "properties": {}}}"#,
    );
    dir.write(
        "c/tools.json",
        r#"{"tools": [{"name": "get_weather", "description": "Gets the weather", "inputSchema": {"type": "object", "properties": {}}}]}"#,
    );
    let output = lint_json(&dir, &[]);
    let report = output.json();
    assert_eq!(
        formats(&report),
        [
            ("a/tools.json".to_string(), "openai".to_string()),
            ("b/tool.json".to_string(), "anthropic".to_string()),
            ("c/tools.json".to_string(), "mcp".to_string()),
        ],
        "{report:#}"
    );
    // One info note each, and nothing the wrong format would have said.
    assert_eq!(rules(&report), ["format-from-content"; 3], "{report:#}");
    assert_eq!(output.code, 0, "{report:#}");
    let note = &report["diagnostics"][0];
    assert_eq!(note["severity"], "info");
    assert!(
        note["message"]
            .as_str()
            .is_some_and(|m| m.contains("OpenAI") && m.contains("tools.json")),
        "{note:#}"
    );
    assert!(
        note["help"]
            .as_str()
            .is_some_and(|h| h.contains("--input-format openai")),
        "{note:#}"
    );
}

#[test]
fn a_file_failing_as_its_names_format_is_told_what_it_reads_as() {
    let dir = TempDir::new("reads-as");
    // An OpenAI list with one broken entry: not clearly OpenAI, so read as
    // agentcli by its name, and the help names the other reading.
    dir.write(
        "tools.json",
        r#"{"tools": [{"type": "function", "function": {"name": "a", "parameters": {"type": "object"}}}, {"name": "b"}]}"#,
    );
    let output = lint_json(&dir, &["tools.json"]);
    assert_eq!(output.code, 1, "{}", output.stdout);
    let report = output.json();
    assert_eq!(formats(&report)[0].1, "agentcli");
    let hint = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .find(|d| d["rule"] == "format-from-content")
        .unwrap_or_else(|| panic!("no hint: {report:#}"));
    assert!(
        hint["help"]
            .as_str()
            .is_some_and(|h| h.contains("--input-format openai")),
        "{hint:#}"
    );
    // A file that is what its name says gets no such note.
    dir.write(
        "ok/tools.json",
        r#"{"tools": [{"name": "a", "description": "A tool", "command": ["./tools/bin/a"], "schema": {"type": "object"}}]}"#,
    );
    let report = lint_json(&dir, &["ok/tools.json"]).json();
    assert!(
        !rules(&report).contains(&"format-from-content".to_string()),
        "{report:#}"
    );
}

#[test]
fn an_agentstack_config_without_category_is_found_and_reported() {
    let dir = TempDir::new("agentstack-shape");
    dir.write(
        "list/config.json",
        r#"{"name": "web_tools", "tools": ["search_web", "fetch_page"]}"#,
    );
    dir.write(
        "map/config.json",
        r#"{"name": "file_tools", "tools": {"read_file": {"actions": ["read"]}}}"#,
    );
    // Empty or broken lists are AgentStack's too, for lint to say what is
    // wrong with them.
    dir.write("empty/config.json", r#"{"name": "x", "tools": []}"#);
    dir.write("broken/config.json", r#"{"name": "x", "tools": ["a", 3]}"#);
    // Without `category`, the package's code beside the file says it is
    // one (a web project's config.json has a name and a list of tools
    // too: mixed_repositories.rs).
    for package in ["list", "map", "empty", "broken"] {
        dir.write(&format!("{package}/__init__.py"), "");
    }
    let output = lint_json(&dir, &[]);
    assert_eq!(output.code, 1, "{}", output.stdout);
    let report = output.json();
    assert_eq!(
        formats(&report),
        [
            ("broken/config.json".to_string(), "agentstack".to_string()),
            ("empty/config.json".to_string(), "agentstack".to_string()),
            ("list/config.json".to_string(), "agentstack".to_string()),
            ("map/config.json".to_string(), "agentstack".to_string()),
        ],
        "{report:#}"
    );
    let missing: Vec<&serde_json::Value> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| {
            d["message"]
                .as_str()
                .is_some_and(|m| m.contains("category"))
        })
        .collect();
    assert_eq!(missing.len(), 4, "{report:#}");
}

#[test]
fn a_named_generic_file_that_is_no_manifest_passes_with_a_note() {
    let dir = TempDir::new("generic-named");
    dir.write("config.json", r#"{"editor.tabSize": 2, "files": ["a"]}"#);
    dir.write("site/manifest.json", r#"{"name": "My PWA", "icons": []}"#);
    dir.write("broken/config.json", "{\"debug\": tru");
    for path in ["config.json", "site/manifest.json", "broken/config.json"] {
        let output = lint_json(&dir, &[path]);
        assert_eq!(output.code, 0, "{path}: {}{}", output.stdout, output.stderr);
        let report = output.json();
        assert_eq!(report["diagnostics"], serde_json::json!([]), "{report:#}");
        assert_eq!(report["summary"]["skipped"], 1);
        assert!(
            output.stderr.contains(&format!("note: skipped {path}: ")),
            "{path}: {}",
            output.stderr
        );
        assert!(
            output.stderr.contains("warning: no tool manifests found"),
            "{}",
            output.stderr
        );
    }
    // Human output does not claim to have checked it.
    let human = Test::new()
        .current_dir(dir.path())
        .args(["lint", "config.json"])
        .run();
    assert_eq!(human.code, 0);
    assert_eq!(human.stdout, "No manifests found (1 file skipped).\n");
    // --input-format lints it anyway.
    let forced = lint_json(&dir, &["--input-format", "agentstack", "config.json"]);
    assert_eq!(forced.code, 1, "{}", forced.stdout);
    // The specific names are always linted, whatever they hold.
    dir.write("other/tools.json", r#"{"editor.tabSize": 2}"#);
    let specific = lint_json(&dir, &["other/tools.json"]);
    assert_eq!(specific.code, 1, "{}", specific.stdout);
    assert_eq!(formats(&specific.json())[0].1, "agentcli");
}

#[test]
fn show_skipped_lists_every_file_left_alone_and_why() {
    let dir = TempDir::new("show-skipped");
    dir.write("package.json", r#"{"name": "web"}"#);
    dir.write("conf/config.json", r#"{"debug": true}"#);
    dir.write("data/broken.json", "{\"a\": ");
    let quiet = Test::new().current_dir(dir.path()).args(["lint"]).run();
    assert_eq!(quiet.code, 0);
    assert_eq!(quiet.stdout, "No manifests found (3 files skipped).\n");
    assert!(!quiet.stderr.contains("note:"), "{}", quiet.stderr);
    assert!(
        quiet
            .stderr
            .contains("warning: no tool manifests found in the given paths (3 JSON files skipped; --show-skipped lists them)"),
        "{}",
        quiet.stderr
    );
    for flag in ["--show-skipped", "-v"] {
        let listed = Test::new()
            .current_dir(dir.path())
            .args(["lint", flag])
            .run();
        assert_eq!(listed.code, 0);
        let notes: Vec<&str> = listed
            .stderr
            .lines()
            .filter(|l| l.starts_with("note: skipped "))
            .collect();
        assert_eq!(notes.len(), 3, "{}", listed.stderr);
        assert!(notes[0].starts_with("note: skipped conf/config.json: a config.json"));
        assert!(notes[1].starts_with("note: skipped data/broken.json: not read: "));
        assert!(notes[1].contains("line 1, column"), "{}", notes[1]);
        assert!(notes[2].starts_with("note: skipped package.json: matches no manifest format"));
    }
}

#[test]
fn a_broken_manifest_under_a_generic_name_is_reported_a_broken_settings_file_is_not() {
    let dir = TempDir::new("generic-broken");
    dir.write(
        "pkg/config.json",
        "{\n \"name\": \"exa\",\n \"category\": \"web\",\n \"tools\": [\"search\",]\n}\n",
    );
    dir.write(
        "nachos/manifest.json",
        r#"{"name": "x", "type": "tool", "provides": {"tool": "x"},}"#,
    );
    dir.write(
        "ext/manifest.firefox.json",
        r#"{"manifest_version": 3, "name": "ext"}"#,
    );
    dir.write("vscode/config.json", "{\"editor.tabSize\": 2, // two\n}");
    for args in [&[][..], &["pkg/config.json", "nachos/manifest.json"][..]] {
        let output = lint_json(&dir, args);
        assert_eq!(output.code, 1, "{}", output.stdout);
        let report = output.json();
        let found: Vec<(String, String)> = report["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .map(|d| {
                (
                    d["path"].as_str().unwrap_or_default().to_string(),
                    d["rule"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect();
        assert_eq!(
            found,
            [
                (
                    "nachos/manifest.json".to_string(),
                    "invalid-json".to_string()
                ),
                ("pkg/config.json".to_string(), "invalid-json".to_string()),
            ],
            "{report:#}"
        );
    }
    for path in ["ext/manifest.firefox.json", "vscode/config.json"] {
        let output = lint_json(&dir, &[path]);
        assert_eq!(output.code, 0, "{path}: {}", output.stdout);
        assert!(output.stderr.contains("note: skipped"), "{}", output.stderr);
    }
}
