//! `toolc lint`, `explain`, `rules` and `gen openai` through the CLI: the
//! JSON contract, the human rendering, determinism, walking rules, exit codes.

use super::{TempDir, Test, root};

const RENDER: &str = "fixtures/render";

#[test]
fn human_rendering() {
    let output = Test::new().args(["lint", RENDER]).run();
    assert_eq!(output.code, 1);
    insta::assert_snapshot!(output.stdout);
}

#[test]
fn json_rendering() {
    let output = Test::new().args(["lint", "--format", "json", RENDER]).run();
    assert_eq!(output.code, 1);
    insta::assert_snapshot!(output.stdout);
}

#[test]
fn json_contract_fields() {
    let report = Test::new()
        .args(["lint", "--format", "json", RENDER])
        .run()
        .json();
    let keys = |v: &serde_json::Value| -> Vec<String> {
        let mut k: Vec<String> = v.as_object().expect("object").keys().cloned().collect();
        k.sort();
        k
    };
    assert_eq!(
        keys(&report),
        ["diagnostics", "files", "summary", "version"]
    );
    assert_eq!(report["version"], 1);
    assert_eq!(
        report["files"],
        serde_json::json!([{"path": "fixtures/render/tools.json", "format": "agentcli", "tools": 2}])
    );
    assert_eq!(
        keys(&report["summary"]),
        ["errors", "files", "infos", "skipped", "warnings"]
    );
    for d in report["diagnostics"].as_array().expect("diagnostics") {
        assert_eq!(
            keys(d),
            [
                "code",
                "column",
                "end_column",
                "end_line",
                "fix",
                "help",
                "line",
                "message",
                "path",
                "pointer",
                "related",
                "rule",
                "severity"
            ]
        );
        assert!(d["code"].as_str().expect("code").starts_with("TC"));
        assert!(d["line"].as_u64().expect("line") >= 1);
    }
    // The duplicate points at the second name and relates the first.
    let duplicate = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .find(|d| d["rule"] == "duplicate-tool-name")
        .expect("duplicate");
    assert_eq!(duplicate["pointer"], "/tools/1/name");
    assert_eq!(
        (duplicate["line"].as_u64(), duplicate["column"].as_u64()),
        (Some(18), Some(15))
    );
    assert_eq!(
        (
            duplicate["end_line"].as_u64(),
            duplicate["end_column"].as_u64()
        ),
        (Some(18), Some(26))
    );
    assert_eq!(duplicate["related"][0]["line"], 4);
    assert_eq!(duplicate["related"][0]["column"], 15);
    assert_eq!(
        duplicate["message"],
        "tool name \"fetch_url\" is already declared at line 4"
    );
}

#[test]
fn diagnostics_are_sorted_and_stable() {
    let first = Test::new()
        .args(["lint", "--format", "json", "fixtures"])
        .run();
    let second = Test::new()
        .args(["lint", "--format", "json", "fixtures"])
        .run();
    assert_eq!(first.stdout, second.stdout);
    let report = first.json();
    let keys: Vec<(String, u64, u64)> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["path"].as_str().unwrap_or("").to_string(),
                d["line"].as_u64().unwrap_or(0),
                d["column"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
}

#[test]
fn clean_manifest_exits_zero() {
    let dir = TempDir::new("clean");
    dir.write(
        "tools.json",
        r#"{"tools": [{"name": "now", "description": "Current time", "command": ["/bin/date"]}]}"#,
    );
    let output = Test::new().current_dir(dir.path()).args(["lint"]).run();
    assert_eq!(output.code, 0, "{}", output.stdout);
    assert_eq!(output.stdout, "No problems found in 1 file.\n");
}

#[test]
fn warnings_alone_exit_zero() {
    let dir = TempDir::new("warnings");
    dir.write(
        "tools.json",
        r#"{"tools": [{"name": "now", "command": ["/bin/date"], "schema": {"type": "object", "properties": {"tz": {"type": "string"}}}}]}"#,
    );
    let output = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--format", "json"])
        .run();
    assert_eq!(output.code, 0);
    assert_eq!(output.json()["summary"]["warnings"], 1);
}

#[test]
fn walking_skips_ignored_and_vendored_directories_and_counts_other_json() {
    let dir = TempDir::new("walk");
    let broken = "{\"tools\": [";
    dir.write(".gitignore", "generated/\n");
    dir.write("generated/tools.json", broken);
    dir.write("node_modules/pkg/tools.json", broken);
    dir.write("target/debug/tools.json", broken);
    dir.write(".git/tools.json", broken);
    dir.write("venv/pyvenv.cfg", "home = /usr\n");
    dir.write("venv/lib/tools.json", broken);
    dir.write("env2/pyvenv.cfg", "home = /usr\n");
    dir.write("env2/tools.json", broken);
    dir.write("package.json", "{\"name\": \"web\"}");
    dir.write(
        "site/manifest.json",
        "{\"name\": \"My PWA\", \"icons\": []}",
    );
    dir.write("conf/config.json", "{\"debug\": true}");
    dir.write("real/tools.json", broken);
    let report = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--format", "json"])
        .run()
        .json();
    let paths: Vec<&str> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter_map(|d| d["path"].as_str())
        .collect();
    assert_eq!(paths, ["real/tools.json"], "{report:#}");
    assert_eq!(report["summary"]["skipped"], 3, "{report:#}");
}

#[test]
fn explicitly_named_unknown_json_is_an_error() {
    let dir = TempDir::new("unknown");
    dir.write("package.json", "{\"name\": \"web\"}");
    let output = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--format", "json", "package.json"])
        .run();
    assert_eq!(output.code, 1);
    assert_eq!(output.json()["diagnostics"][0]["rule"], "unknown-format");
    let forced = Test::new()
        .current_dir(dir.path())
        .args([
            "lint",
            "--format",
            "json",
            "--input-format",
            "mcp",
            "package.json",
        ])
        .run()
        .json();
    assert_eq!(forced["files"][0]["format"], "mcp");
}

#[test]
fn relative_programs_resolve_against_the_manifest_directory() {
    let dir = TempDir::new("resolve");
    dir.write(
        "proj/tools.json",
        r#"{"tools": [{"name": "go", "description": "Go", "command": ["./tools/bin/go"]}]}"#,
    );
    let program = dir.write("proj/tools/bin/go", "#!/bin/sh\necho '{}'\n");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    // Linted from elsewhere: the program is still found beside the manifest.
    let output = Test::new()
        .current_dir(dir.path())
        .args(["lint", "proj/tools.json"])
        .run();
    assert_eq!(output.code, 0, "{}", output.stdout);
    std::fs::remove_file(&program).expect("remove");
    let report = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--format", "json", "proj/tools.json"])
        .run()
        .json();
    assert_eq!(report["diagnostics"][0]["rule"], "command-not-found");
    assert_eq!(report["diagnostics"][0]["severity"], "warning");
}

#[test]
fn rules_lists_every_rule_once() {
    let output = Test::new().args(["rules"]).run();
    assert_eq!(output.code, 0);
    let lines: Vec<&str> = output.stdout.lines().collect();
    // A header, then a rule a line, sorted by code.
    assert_eq!(lines.len(), super::rule_names().len() + 1);
    assert!(lines.len() > 50, "{}", output.stdout);
    assert!(lines[0].starts_with("CODE"), "{}", lines[0]);
    let codes: Vec<&str> = lines[1..]
        .iter()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let mut sorted = codes.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(codes, sorted);
    assert_eq!(codes.len(), lines.len() - 1);
    let listed = super::rules_json();
    let json_codes: Vec<&str> = listed.iter().filter_map(|r| r["code"].as_str()).collect();
    assert_eq!(json_codes, codes);
    for required in [
        "missing-name",
        "duplicate-tool-name",
        "invalid-tool-name",
        "empty-command",
        "command-outside-bin",
        "command-escapes-bin",
        "command-not-found",
        "parameters-not-object",
        "property-missing-type",
        "property-missing-description",
        "required-unknown-property",
        "invalid-json-schema",
        "nora-property-missing-required",
        "entrypoint-not-found",
        "unknown-action",
        "missing-action",
        "unpinned-dependency",
        "invalid-security-tier",
        "not-a-tool-manifest",
        "duplicate-key",
        "invalid-json",
        "file-too-large",
        "schema-violation",
        "unknown-field",
    ] {
        assert!(
            output.stdout.contains(&format!(" {required} ")),
            "{required} missing"
        );
    }
}

#[test]
fn explain_prints_every_rule_documentation() {
    for name in super::rule_names() {
        let output = Test::new().args(["explain", &name]).run();
        assert_eq!(output.code, 0, "{name}");
        for section in [
            "## What it does",
            "## Why is this bad?",
            "## Example",
            "## Use instead",
        ] {
            assert!(output.stdout.contains(section), "{name} lacks {section}");
        }
    }
    let by_code = Test::new().args(["explain", "TC102"]).run();
    assert!(by_code.stdout.starts_with("# duplicate-tool-name (TC102)"));
}

#[test]
fn explain_unknown_rule_suggests() {
    let output = Test::new().args(["explain", "duplicate-tool-names"]).run();
    assert_eq!(output.code, 2);
    assert!(
        output
            .stderr
            .contains("did you mean \"duplicate-tool-name\""),
        "{}",
        output.stderr
    );
}

#[test]
fn help_explains_commands_and_exit_codes() {
    let output = Test::new().args(["--help"]).run();
    assert_eq!(output.code, 0);
    for word in ["lint", "gen", "explain", "rules", "Exit codes"] {
        assert!(output.stdout.contains(word), "{word}: {}", output.stdout);
    }
    let lint = Test::new().args(["lint", "--help"]).run();
    for flag in [
        "--format",
        "--input-format",
        "--max-file-size",
        ".gitignore",
    ] {
        assert!(lint.stdout.contains(flag), "{flag}: {}", lint.stdout);
    }
}

#[test]
fn cross_directory_duplicates_among_nora_tools() {
    let dir = TempDir::new("nora-dups");
    for tool in ["a", "b"] {
        dir.write(
            &format!("tools/{tool}/tool.json"),
            r#"{"name": "search", "description": "Search", "entrypoint": "main.py", "parameters": {"type": "object", "properties": {}}}"#,
        );
        dir.write(
            &format!("tools/{tool}/main.py"),
            "def run(params):\n    return ''\n",
        );
    }
    let report = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--format", "json"])
        .run()
        .json();
    let d = &report["diagnostics"][0];
    assert_eq!(d["rule"], "duplicate-tool-name");
    assert_eq!(d["path"], "tools/b/tool.json");
    assert_eq!(d["related"][0]["path"], "tools/a/tool.json");
    assert_eq!(report["diagnostics"].as_array().map(Vec::len), Some(1));
}

#[test]
fn gen_openai_from_every_format() {
    let output = Test::new()
        .current_dir(root().join("../shared"))
        .args([
            "gen",
            "openai",
            "corpus/agentcli",
            "corpus/mcp-examples/with-default-2020-12-input-schema.json",
            "corpus/mcp-examples/tool-with-array-output-schema.json",
        ])
        .run();
    assert_eq!(output.code, 0, "{}", output.stderr);
    let tools: serde_json::Value = serde_json::from_str(&output.stdout).expect("JSON");
    let tools = tools.as_array().expect("array");
    assert!(tools.len() > 20);
    for tool in tools {
        assert_eq!(tool["type"], "function");
        assert!(tool["function"]["name"].is_string());
        assert_eq!(tool["function"]["parameters"]["type"], "object");
    }
    // The output reads back as OpenAI tool JSON without errors.
    let dir = TempDir::new("gen-roundtrip");
    dir.write("generated.json", &output.stdout);
    let relint = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--format", "json", "generated.json"])
        .run();
    let report = relint.json();
    assert_eq!(report["files"][0]["format"], "openai");
    assert_eq!(
        report["files"][0]["tools"].as_u64(),
        Some(tools.len() as u64)
    );
    assert_eq!(report["summary"]["errors"], 0);
}

#[test]
fn gen_refuses_manifests_with_errors_and_never_clobbers() {
    let dir = TempDir::new("gen");
    dir.write(
        "bad/tools.json",
        r#"{"tools": [{"name": "a b", "command": ["/bin/true"]}]}"#,
    );
    dir.write(
        "good/tools.json",
        r#"{"tools": [{"name": "ok", "description": "OK", "command": ["/bin/true"]}]}"#,
    );
    let refused = Test::new()
        .current_dir(dir.path())
        .args(["gen", "openai", "bad"])
        .run();
    assert_eq!(refused.code, 1);
    assert!(refused.stdout.is_empty());
    assert!(
        refused.stderr.contains("invalid-tool-name"),
        "{}",
        refused.stderr
    );
    let allowed = Test::new()
        .current_dir(dir.path())
        .args(["gen", "openai", "--allow-errors", "bad"])
        .run();
    assert_eq!(allowed.code, 0);

    let written = Test::new()
        .current_dir(dir.path())
        .args(["gen", "openai", "good", "-o", "out.json"])
        .run();
    assert_eq!(written.code, 0, "{}", written.stderr);
    let text = std::fs::read_to_string(dir.path().join("out.json")).expect("written");
    assert!(text.contains("\"name\": \"ok\""));
    // Regenerating the same content is fine; a hand edit is never lost.
    let same = Test::new()
        .current_dir(dir.path())
        .args(["gen", "openai", "good", "-o", "out.json"])
        .run();
    assert_eq!(same.code, 0, "{}", same.stderr);
    std::fs::write(dir.path().join("out.json"), "hand edited").expect("edit");
    let clobber = Test::new()
        .current_dir(dir.path())
        .args(["gen", "openai", "good", "-o", "out.json"])
        .run();
    assert_eq!(clobber.code, 1);
    assert!(
        clobber.stderr.contains("out.json exists and differs"),
        "{}",
        clobber.stderr
    );
    let dry = Test::new()
        .current_dir(dir.path())
        .args(["gen", "openai", "good", "-o", "out.json", "--dry-run"])
        .run();
    assert_eq!(dry.code, 0);
    assert!(
        dry.stderr.contains("would overwrite: out.json"),
        "{}",
        dry.stderr
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out.json")).expect("kept"),
        "hand edited"
    );
    let forced = Test::new()
        .current_dir(dir.path())
        .args(["gen", "openai", "good", "-o", "out.json", "--force"])
        .run();
    assert_eq!(forced.code, 0);
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .expect("dir")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn gen_warns_about_unknown_parameters() {
    let output = Test::new()
        .current_dir(root().join("../shared"))
        .args(["gen", "openai", "corpus/nachos/tools/browser"])
        .run();
    assert_eq!(output.code, 0);
    assert!(
        output.stderr.contains("parameters of tool \"browser\""),
        "{}",
        output.stderr
    );
    let tools: serde_json::Value = serde_json::from_str(&output.stdout).expect("JSON");
    assert_eq!(
        tools[0]["function"]["parameters"],
        serde_json::json!({"type": "object", "properties": {}})
    );
}

#[test]
fn gen_refuses_name_clashes_across_manifests() {
    let output = Test::new()
        .current_dir(root().join("../shared"))
        .args(["gen", "openai", "corpus/mcp-examples"])
        .run();
    assert_eq!(output.code, 1);
    assert!(output.stdout.is_empty());
    assert!(
        output
            .stderr
            .contains("tool \"calculate_sum\" is declared in both"),
        "{}",
        output.stderr
    );
}

const EDGES: &str = "fixtures/render-edges";

#[test]
fn human_rendering_of_edges() {
    // CRLF line endings, multi-byte characters before the caret, and an
    // error at the very end of a file.
    let output = Test::new().args(["lint", EDGES]).run();
    assert_eq!(output.code, 1);
    insta::assert_snapshot!(output.stdout);
}

#[test]
fn positions_count_characters_in_every_rendering() {
    let report = Test::new()
        .args(["lint", "--format", "json", EDGES])
        .run()
        .json();
    let find = |path: &str| {
        report["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .find(|d| d["path"] == path)
            .cloned()
            .unwrap_or_else(|| panic!("no finding in {path}: {report:#}"))
    };
    // `"récupérer"` follows `{"tools": [{"description": "Récupère une page — 網頁 😀", "name": `,
    // which is 63 characters (73 bytes).
    let multibyte = find("fixtures/render-edges/multibyte/tools.json");
    assert_eq!(
        (multibyte["line"].as_u64(), multibyte["column"].as_u64()),
        (Some(1), Some(64))
    );
    assert_eq!(multibyte["end_column"].as_u64(), Some(75));
    let crlf = find("fixtures/render-edges/crlf/tools.json");
    assert_eq!(
        (crlf["line"].as_u64(), crlf["column"].as_u64()),
        (Some(3), Some(14))
    );
    let truncated = find("fixtures/render-edges/truncated/tools.json");
    // Line 2 has 44 characters; the file ends just after them.
    assert_eq!(
        (truncated["line"].as_u64(), truncated["column"].as_u64()),
        (Some(2), Some(45))
    );
    assert_eq!(truncated["end_column"].as_u64(), Some(45));
    // The human header shows the same character columns.
    let human = Test::new().args(["lint", EDGES]).run().stdout;
    assert!(
        human.contains("[fixtures/render-edges/multibyte/tools.json:1:64]"),
        "{human}"
    );
    assert!(
        human.contains("[fixtures/render-edges/truncated/tools.json:2:45]"),
        "{human}"
    );
    assert!(human.contains("the file ends here"), "{human}");
}

#[test]
fn control_characters_never_reach_the_terminal() {
    let dir = TempDir::new("escapes");
    dir.write(
        "esc.json",
        r#"{"name": "\u001b]0;pwned\u0007\u001b[2J", "inputSchema": {"type": "object"}}"#,
    );
    dir.write("raw.json", b"{\"name\": \x1b[2J}");
    let output = Test::new()
        .current_dir(dir.path())
        .args(["lint", "esc.json", "raw.json"])
        .run();
    assert_eq!(output.code, 1);
    assert!(!output.stdout.contains('\u{1b}'), "{:?}", output.stdout);
    assert!(!output.stdout.contains('\u{7}'), "{:?}", output.stdout);
    assert!(
        output.stdout.contains("\\u{1b}]0;pwned"),
        "{}",
        output.stdout
    );
}

#[test]
fn a_file_named_and_walked_is_checked_as_named_every_time() {
    let dir = TempDir::new("named-and-walked");
    dir.write("d/other.json", "{\"foo\": 1}");
    for _ in 0..20 {
        for args in [["d", "d/other.json"], ["d/other.json", "d"]] {
            let output = Test::new()
                .current_dir(dir.path())
                .args(["lint", "--format", "json", args[0], args[1]])
                .run();
            assert_eq!(output.code, 1, "{args:?}: {}", output.stdout);
            let report = output.json();
            assert_eq!(report["diagnostics"][0]["rule"], "unknown-format");
            assert_eq!(report["summary"]["files"], 1);
            assert_eq!(report["summary"]["skipped"], 0);
        }
    }
}

#[test]
fn provider_rules_stay_silent_without_a_target() {
    let provider_rules: Vec<String> = super::rules_json()
        .iter()
        .filter(|r| r["targets"].as_array().is_some_and(|t| !t.is_empty()))
        .filter_map(|r| r["name"].as_str().map(str::to_string))
        .collect();
    assert_eq!(provider_rules.len(), 18, "{provider_rules:?}");
    let report = Test::new()
        .args(["lint", "--format", "json", "fixtures"])
        .run()
        .json();
    for d in report["diagnostics"].as_array().expect("diagnostics") {
        let rule = d["rule"].as_str().unwrap_or("");
        assert!(
            !provider_rules.iter().any(|r| r == rule),
            "{rule} fired without a target: {d}"
        );
    }
}

#[test]
fn gen_templates_can_be_replaced_and_typos_are_refused() {
    let dir = TempDir::new("templates");
    let original =
        std::fs::read_to_string(root().join("templates/rust/module.rs.jinja")).expect("template");
    dir.write(
        "custom/rust/module.rs.jinja",
        format!("// generated with our house template\n{original}"),
    );
    let manifest = root().join("fixtures/gen/rust-types");
    let manifest = manifest.to_str().expect("utf-8");
    let output = Test::new()
        .current_dir(dir.path())
        .args(["gen", "rust", "--templates", "custom", manifest])
        .run();
    assert_eq!(output.code, 0, "{}", output.stderr);
    assert!(
        output
            .stdout
            .starts_with("// generated with our house template\n"),
        "{}",
        output.stdout
    );
    let default = Test::new()
        .current_dir(dir.path())
        .args(["gen", "rust", manifest])
        .run();
    // The digest covers the whole module, so it differs with the line added.
    let digest = |line: &&str| !line.starts_with("// toolc-digest: ");
    assert_eq!(
        output
            .stdout
            .lines()
            .skip(1)
            .filter(digest)
            .collect::<Vec<_>>(),
        default.stdout.lines().filter(digest).collect::<Vec<_>>()
    );

    dir.write("typo/rust/modul.rs.jinja", "x");
    let typo = Test::new()
        .current_dir(dir.path())
        .args(["gen", "rust", "--templates", "typo", manifest])
        .run();
    assert_eq!(typo.code, 2);
    assert!(
        typo.stderr.contains("modul.rs.jinja: replaces no template"),
        "{}",
        typo.stderr
    );
}

#[test]
fn entrypoint_missing_run_says_what_is_wrong_with_the_script() {
    let report = Test::new()
        .args([
            "lint",
            "--format",
            "json",
            "fixtures/rules/entrypoint-missing-run/bad",
        ])
        .run()
        .json();
    let mut messages: Vec<(String, String)> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["rule"] == "entrypoint-missing-run")
        .map(|d| {
            assert_eq!(d["code"], "TC403");
            assert_eq!(d["pointer"], "/entrypoint");
            (
                d["path"].as_str().unwrap_or("").to_string(),
                d["message"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    messages.sort();
    let dir = "fixtures/rules/entrypoint-missing-run/bad";
    assert_eq!(
        messages,
        [
            (
                format!("{dir}/broken/tool.json"),
                "main.py does not parse: invalid syntax at 2:14".to_string()
            ),
            (
                format!("{dir}/no_run/tool.json"),
                "main.py has no top-level run(params) function".to_string()
            ),
            (
                format!("{dir}/two_params/tool.json"),
                "run in main.py takes 2 parameters; NORA calls run(params)".to_string()
            ),
        ]
    );
}

// ------------------------------------------------- schemas read from code

const AGENTSTACK_CONFIG: &str = r#"{
  "name": "search",
  "category": "search",
  "description": "Web search.",
  "url": "https://example.com/search",
  "dependencies": ["httpx>=0.27,<1"],
  "tools": ["web_search"]
}
"#;

/// `limit` (line 1) has no description in the docstring.
const AGENTSTACK_INIT: &str = r#"def web_search(query: str, limit: int = 10) -> str:
    """Search the web.

    Args:
        query: What to search for.
    """
    return query
"#;

const NACHOS_MANIFEST: &str = r#"{
  "name": "Web Fetch",
  "version": "0.2.0",
  "type": "tool",
  "description": "Fetch a web page.",
  "provides": {
    "tool": "web_fetch",
    "securityTier": 1
  }
}
"#;

/// `parameters` is on line 8: "text" is no type, `timeoutMs` has no
/// description, `headers` is required but not defined.
const NACHOS_CLASS: &str = r#"import { SecurityTier, type ParameterSchema, type Tool } from '@nachos/types';

export class WebFetchTool implements Tool {
  readonly toolId = 'web_fetch';
  readonly name = 'Web Fetch';
  readonly description = 'Fetch a web page.';
  readonly securityTier = SecurityTier.STANDARD;
  readonly parameters: ParameterSchema = {
    type: 'object',
    properties: {
      url: { type: 'text', description: 'The URL to fetch.' },
      timeoutMs: { type: 'integer' },
    },
    required: ['url', 'headers'],
  };
}
"#;

/// Lints `dir` with `extra` arguments: (exit code, findings as
/// "rule line:column pointer", the report).
fn lint_dir(dir: &TempDir, extra: &[&str]) -> (i32, Vec<String>, serde_json::Value) {
    let mut args = vec!["lint", "--format", "json"];
    args.extend_from_slice(extra);
    args.push(".");
    let output = Test::new().current_dir(dir.path()).args(args).run();
    let report = output.json();
    let mut found: Vec<String> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            format!(
                "{} {}:{} {}",
                d["rule"].as_str().unwrap_or(""),
                d["line"],
                d["column"],
                d["pointer"].as_str().unwrap_or("")
            )
        })
        .collect();
    found.sort();
    (output.code, found, report)
}

fn message_of<'r>(report: &'r serde_json::Value, rule: &str) -> &'r str {
    report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .find(|d| d["rule"] == rule)
        .and_then(|d| d["message"].as_str())
        .unwrap_or_else(|| panic!("no {rule} finding in {report}"))
}

#[test]
fn an_undocumented_python_parameter_is_reported_at_the_tool_name() {
    let dir = TempDir::new("derived-agentstack");
    dir.write("search/config.json", AGENTSTACK_CONFIG);
    dir.write("search/__init__.py", AGENTSTACK_INIT);
    let (code, found, report) = lint_dir(&dir, &[]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(found, ["property-missing-description 7:13 /tools/0"]);
    assert_eq!(
        message_of(&report, "property-missing-description"),
        "property \"limit\" has no description (parameter \"limit\" of def web_search, __init__.py:1)"
    );
    assert_eq!(report["diagnostics"][0]["path"], "search/config.json");
    assert_eq!(report["diagnostics"][0]["fix"], serde_json::Value::Null);
}

#[test]
fn provider_rules_apply_to_python_parameters_too() {
    let dir = TempDir::new("derived-agentstack-strict");
    dir.write("search/config.json", AGENTSTACK_CONFIG);
    dir.write("search/__init__.py", AGENTSTACK_INIT);
    let (code, found, report) = lint_dir(&dir, &["--target", "openai-strict"]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(
        found,
        [
            "property-missing-description 7:13 /tools/0",
            "strict-additional-properties 7:13 /tools/0",
            "strict-all-required 7:13 /tools/0",
        ]
    );
    assert!(
        message_of(&report, "strict-all-required").contains("\"limit\" is not in \"required\""),
        "{report}"
    );
}

#[test]
fn fixes_never_touch_a_schema_read_from_code() {
    let dir = TempDir::new("derived-agentstack-fix");
    let config = dir.write("search/config.json", AGENTSTACK_CONFIG);
    let init = dir.write("search/__init__.py", AGENTSTACK_INIT);
    let output = Test::new()
        .current_dir(dir.path())
        .args([
            "lint",
            "--target",
            "openai-strict",
            "--fix",
            "--unsafe-fixes",
            ".",
        ])
        .run();
    assert_eq!(output.code, 1, "{}", output.stderr);
    let read = |path: &std::path::Path| std::fs::read_to_string(path).expect("read");
    assert_eq!(read(&config), AGENTSTACK_CONFIG);
    assert_eq!(read(&init), AGENTSTACK_INIT);
}

#[test]
fn a_typescript_class_s_parameters_get_the_parameter_rules() {
    let dir = TempDir::new("derived-nachos");
    dir.write("fetch/manifest.json", NACHOS_MANIFEST);
    dir.write("fetch/src/fetch.ts", NACHOS_CLASS);
    let (code, found, report) = lint_dir(&dir, &[]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(
        found,
        [
            "invalid-json-schema 7:13 /provides/tool",
            "property-missing-description 7:13 /provides/tool",
            "required-unknown-property 7:13 /provides/tool",
        ]
    );
    let place = "class WebFetchTool, src/fetch.ts:8)";
    assert_eq!(
        message_of(&report, "invalid-json-schema"),
        format!(
            "\"text\" is not a JSON Schema type (string, number, integer, boolean, array, object, null) (parameter \"url\" of {place}"
        )
    );
    assert!(
        message_of(&report, "property-missing-description")
            .starts_with("property \"timeoutMs\" has no description"),
        "{report}"
    );
    assert!(
        message_of(&report, "required-unknown-property")
            .ends_with(&format!("(parameters of {place}")),
        "{report}"
    );
}

#[test]
fn several_findings_of_one_rule_on_one_tool_are_one_report() {
    let dir = TempDir::new("derived-merged");
    dir.write("search/config.json", AGENTSTACK_CONFIG);
    dir.write(
        "search/__init__.py",
        "def web_search(query: str, limit: int = 10) -> str:\n    \"\"\"Search.\"\"\"\n    return query\n",
    );
    let (_, found, report) = lint_dir(&dir, &[]);
    assert_eq!(found, ["property-missing-description 7:13 /tools/0"]);
    assert_eq!(
        message_of(&report, "property-missing-description"),
        "property \"query\" has no description (parameter \"query\" of def web_search, __init__.py:1); \
         property \"limit\" has no description (parameter \"limit\" of def web_search, __init__.py:1)"
    );
}

#[test]
fn without_python_or_typescript_the_findings_are_unchanged() {
    // No code beside the manifests: nothing to derive, nothing reported,
    // as before schemas were read from code.
    let dir = TempDir::new("derived-none");
    dir.write("search/config.json", AGENTSTACK_CONFIG);
    dir.write("fetch/manifest.json", NACHOS_MANIFEST);
    let (code, found, report) = lint_dir(&dir, &["--target", "openai-strict"]);
    assert_eq!((code, found.len()), (0, 0), "{report}");
    // Code that cannot be read gives its own finding and no parameters.
    dir.write("search/__init__.py", "def web_search(query: str) -> str\n");
    dir.write("fetch/src/fetch.ts", "export class {");
    let (_, found, report) = lint_dir(&dir, &[]);
    assert_eq!(
        found,
        [
            "nachos-class-missing 7:13 /provides/tool",
            // In the Python file itself, which has no JSON pointer.
            "python-syntax-error 1:1 ",
        ],
        "{report}"
    );
}

/// A reader that stops reading (`toolc lint | head -1`) ends the run
/// quietly: no "Broken pipe" error; the exit code is still the findings'
/// (1 here), so `set -o pipefail` sees them.
#[test]
fn a_closed_pipe_ends_the_run_quietly() {
    use std::io::{BufRead, BufReader};
    let dir = TempDir::new("closed-pipe");
    // Enough findings that the report outgrows any pipe buffer.
    let tools: Vec<String> = (0..5000)
        .map(|i| format!(r#"{{"name": "t{i}", "name": "t{i}", "description": "d", "schema": {{"type": "object"}}, "command": ["/bin/true"]}}"#))
        .collect();
    std::fs::write(
        dir.path().join("tools.json"),
        format!(r#"{{"tools": [{}]}}"#, tools.join(",")),
    )
    .expect("write");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_toolc"))
        .args(["lint", "--format", "json", "tools.json"])
        .current_dir(dir.path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn toolc");
    let stdout = child.stdout.take().expect("stdout");
    let mut first = String::new();
    BufReader::new(stdout)
        .read_line(&mut first)
        .expect("read a line");
    assert!(first.starts_with('{'), "{first}");
    // The reader is dropped here: the pipe closes under toolc.
    let output = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
}

/// A program outside ./tools/bin/ is told apart: a bare name (agentcli
/// does not search PATH), a path under tools/bin/ without its "./", or
/// another relative path.
#[test]
fn programs_outside_tools_bin_say_what_is_wrong() {
    let dir = TempDir::new("outside-bin-messages");
    std::fs::write(
        dir.path().join("tools.json"),
        r#"{"tools": [
  {"name": "a", "description": "A.", "command": ["python3", "x.py"]},
  {"name": "b", "description": "B.", "command": ["tools/bin/b"]},
  {"name": "c", "description": "C.", "command": ["scripts/c"]}
]}"#,
    )
    .expect("write");
    let output = Test::new()
        .current_dir(dir.path())
        .args([
            "lint",
            "--format",
            "json",
            "--select",
            "command-outside-bin",
            "tools.json",
        ])
        .run();
    let report = output.json();
    let messages: Vec<&str> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter_map(|d| d["message"].as_str())
        .collect();
    assert_eq!(
        messages,
        [
            "program \"python3\" is a bare name, not a path under ./tools/bin/",
            "program \"tools/bin/b\" is under tools/bin/ but lacks the leading \"./\"",
            "relative program \"scripts/c\" is not under ./tools/bin/",
        ],
        "{report:#}"
    );
}

/// ruff's spelling `--output-format` and the TOOLC_OUTPUT_FORMAT variable
/// choose the report format as `--format` does; the flag wins over the
/// variable.
#[test]
fn the_output_format_has_ruffs_name_and_an_environment_variable() {
    let fixture = "fixtures/rules/command-outside-bin/bad";
    let concise = Test::new()
        .args(["lint", "--format", "concise", fixture])
        .run();
    let alias = Test::new()
        .args(["lint", "--output-format", "concise", fixture])
        .run();
    assert_eq!(alias.stdout, concise.stdout);
    let with_env = |args: &[&str]| {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_toolc"))
            .args(args)
            .current_dir(root())
            .env("TOOLC_OUTPUT_FORMAT", "concise")
            .env("NO_COLOR", "1")
            .output()
            .expect("run toolc");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    assert_eq!(with_env(&["lint", fixture]), concise.stdout);
    let json = with_env(&["lint", "--format", "json", fixture]);
    assert!(json.starts_with('{'), "{json}");
}

/// `--color auto` follows the conventions users set: FORCE_COLOR and
/// CLICOLOR_FORCE color even a pipe, NO_COLOR and FORCE_COLOR=0 do not,
/// and `--color never` wins over all of them.
#[test]
fn color_follows_force_color_clicolor_and_no_color() {
    let lint = |env: &[(&str, &str)], extra: &[&str]| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_toolc"));
        command
            .args(["lint", "fixtures/rules/command-outside-bin/bad"])
            .args(extra)
            .current_dir(root());
        for name in [
            "NO_COLOR",
            "FORCE_COLOR",
            "CLICOLOR",
            "CLICOLOR_FORCE",
            "TOOLC_OUTPUT_FORMAT",
        ] {
            command.env_remove(name);
        }
        command.envs(env.iter().copied());
        let output = command.output().expect("run toolc");
        String::from_utf8_lossy(&output.stdout).contains('\u{1b}')
    };
    assert!(!lint(&[], &[]), "a pipe gets no color by itself");
    assert!(lint(&[("FORCE_COLOR", "1")], &[]));
    assert!(lint(&[("CLICOLOR_FORCE", "1")], &[]));
    assert!(!lint(&[("FORCE_COLOR", "0")], &[]));
    assert!(!lint(&[("NO_COLOR", "1")], &[]));
    assert!(!lint(&[("FORCE_COLOR", "1")], &["--color", "never"]));
    assert!(lint(&[("NO_COLOR", "1")], &["--color", "always"]));
}
