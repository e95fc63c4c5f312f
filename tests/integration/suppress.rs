//! Suppressing findings: `[[overrides]]` with `tools` and `pointers` in
//! toolc.toml, a tool's `"x-toolc": {"ignore": [...]}` (MCP: in `_meta`),
//! `unused-ignore` and its fix, and ignores never written into what gen,
//! convert and serve produce.

use std::path::Path;

use serde_json::Value;

use super::{TempDir, Test};

/// An agentcli manifest of three tools whose names OpenAI rejects.
const THREE_BAD_NAMES: &str = r#"{
  "tools": [
    {"name": "search web", "description": "Search.", "command": ["/bin/true"]},
    {"name": "read.file", "description": "Read.", "command": ["/bin/true"]},
    {"name": "write file", "description": "Write.", "command": ["/bin/true"]}
  ]
}
"#;

fn lint(dir: &Path, args: &[&str]) -> (i32, Value) {
    let output = Test::new()
        .current_dir(dir)
        .args(["lint", "--format", "json"])
        .args(args)
        .run();
    assert!(
        output.code == 0 || output.code == 1,
        "exit {}: {}",
        output.code,
        output.stderr
    );
    (output.code, output.json())
}

/// (rule, path, pointer) of each finding.
fn findings(report: &Value) -> Vec<(String, String, String)> {
    report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            let text = |key: &str| d[key].as_str().unwrap_or_default().to_string();
            (text("rule"), text("path"), text("pointer"))
        })
        .collect()
}

fn of_rule(report: &Value, rule: &str) -> Vec<String> {
    findings(report)
        .into_iter()
        .filter(|(r, _, _)| r == rule)
        .map(|(_, path, pointer)| format!("{path}#{pointer}"))
        .collect()
}

#[test]
fn toolc_toml_ignores_rules_for_named_tools_and_pointers_only() {
    let dir = TempDir::new("suppress-toml");
    dir.write("tools.json", THREE_BAD_NAMES);
    let (_, before) = lint(dir.path(), &[]);
    assert_eq!(
        of_rule(&before, "invalid-tool-name"),
        [
            "tools.json#/tools/0/name",
            "tools.json#/tools/1/name",
            "tools.json#/tools/2/name"
        ]
    );
    dir.write(
        "toolc.toml",
        r#"
[[overrides]]
files = ["tools.json"]
tools = ["search web"]
rules = { "invalid-tool-name" = "off" }

[[overrides]]
files = ["*.json"]
pointers = ["/tools/1"]
rules = { "TC103" = "off" }

[[overrides]]
files = ["other/**"]
tools = ["write file"]
rules = { "invalid-tool-name" = "off" }
"#,
    );
    let (code, after) = lint(dir.path(), &[]);
    // The third tool is neither named nor pointed at in a matching override.
    assert_eq!(
        of_rule(&after, "invalid-tool-name"),
        ["tools.json#/tools/2/name"]
    );
    assert_eq!(code, 1);
}

#[test]
fn toolc_toml_scoped_overrides_are_validated() {
    let dir = TempDir::new("suppress-toml-errors");
    dir.write("tools.json", THREE_BAD_NAMES);
    let cases = [
        (
            "[[overrides]]\nfiles = [\"tools.json\"]\ntool = [\"search web\"]\nrules = { \"TC103\" = \"off\" }\n",
            "did you mean `tools`?",
        ),
        (
            "[[overrides]]\nfiles = [\"tools.json\"]\npointer = [\"/tools/0\"]\nrules = { \"TC103\" = \"off\" }\n",
            "did you mean `pointers`?",
        ),
        (
            "[[overrides]]\nfiles = [\"tools.json\"]\ntools = [\"search web\"]\nrules = { \"TC103\" = \"warning\" }\n",
            "only turns rules \"off\"",
        ),
        (
            "[[overrides]]\nfiles = [\"tools.json\"]\npointers = [\"tools/0\"]\nrules = { \"TC103\" = \"off\" }\n",
            "\"tools/0\" is not a JSON Pointer",
        ),
        (
            "[[overrides]]\nfiles = [\"tools.json\"]\npointers = [\"/tools/0/x~2\"]\nrules = { \"TC103\" = \"off\" }\n",
            "\"/tools/0/x~2\" is not a JSON Pointer",
        ),
        (
            "[[overrides]]\nfiles = [\"tools.json\"]\ntools = [\"search web\"]\n",
            "needs `rules`",
        ),
    ];
    for (config, expected) in cases {
        dir.write("toolc.toml", config);
        let output = Test::new().current_dir(dir.path()).args(["lint"]).run();
        assert_eq!(output.code, 2, "{config}\n{}", output.stderr);
        assert!(
            output.stderr.contains(expected) && output.stderr.contains("toolc.toml:"),
            "{config}\n{}",
            output.stderr
        );
    }
}

#[test]
fn inline_ignores_by_name_code_and_prefix_cover_their_tool_only() {
    let dir = TempDir::new("suppress-inline");
    dir.write(
        "cli/tools.json",
        r#"{
  "tools": [
    {"name": "search web", "description": "Search.", "command": ["/bin/true"],
     "x-toolc": {"ignore": ["invalid-tool-name"]}},
    {"name": "read.file", "description": "Read.", "command": ["/bin/true"],
     "x-toolc": {"ignore": ["TC103"]}},
    {"name": "write file", "description": "Write.", "command": ["/bin/true"],
     "x-toolc": {"ignore": ["tc1"]}},
    {"name": "list files", "description": "List.", "command": ["/bin/true"]}
  ]
}
"#,
    );
    dir.write(
        "mcp/server.json",
        r#"{"tools": [
  {"name": "get weather", "inputSchema": {"type": "object"},
   "_meta": {"x-toolc": {"ignore": ["invalid-tool-name"]}}},
  {"name": "get forecast", "inputSchema": {"type": "object"}}
]}
"#,
    );
    dir.write(
        "nora/fetch/tool.json",
        r#"{"name": "fetch url", "description": "Fetch.", "entrypoint": "main.py",
 "parameters": {"type": "object", "properties": {}},
 "x-toolc": {"ignore": ["TC103"]}}
"#,
    );
    dir.write("nora/fetch/main.py", "def run(params):\n    return ''\n");
    let (_, report) = lint(dir.path(), &[]);
    assert_eq!(
        of_rule(&report, "invalid-tool-name"),
        [
            "cli/tools.json#/tools/3/name",
            "mcp/server.json#/tools/1/name"
        ]
    );
    // Every ignore was of use; and "x-toolc" is no unknown field.
    assert_eq!(of_rule(&report, "unused-ignore"), Vec::<String>::new());
    assert_eq!(of_rule(&report, "unknown-field"), Vec::<String>::new());
}

/// Runs `toolc lint --fix` on `manifest`, which must then read `expected`
/// and lint clean.
fn fix_then_clean(dir: &Path, manifest: &Path, expected: &str) {
    let fixed = Test::new()
        .current_dir(dir)
        .args(["lint", "--fix"])
        .args([manifest.display().to_string()])
        .run();
    assert_eq!(fixed.code, 0, "{}\n{}", fixed.stdout, fixed.stderr);
    assert_eq!(std::fs::read_to_string(manifest).expect("read"), expected);
    let (code, again) = lint(dir, &[]);
    assert_eq!(findings(&again), Vec::new());
    assert_eq!(code, 0);
}

/// A manifest whose ignores are all of no use but one, in each shape the
/// fix must handle.
const UNUSED: &str = r#"{
  "tools": [
    {
      "name": "search web",
      "description": "Search.",
      "command": ["/bin/true"],
      "x-toolc": {"ignore": ["duplicate-tool-name", "invalid-tool-name", "TC2"]}
    },
    {
      "name": "read_file",
      "description": "Read.",
      "command": ["/bin/true"],
      "x-toolc": {
        "ignore": ["invalid-tool-name"],
        "agentcli": {"timeoutSec": 5}
      }
    },
    {
      "name": "write_file",
      "description": "Write.",
      "command": ["/bin/true"],
      "x-toolc": {"ignore": ["TC103", "no-such-rule"]}
    },
    {
      "name": "list_files",
      "description": "List.",
      "command": ["/bin/true"],
      "x-toolc": {"ignore": ["strict-all-required"]}
    }
  ]
}
"#;

/// What `--fix` leaves: every unused entry gone, and what held only
/// them; the ignore of a rule that did not run (no openai-strict target)
/// stays.
const UNUSED_FIXED: &str = r#"{
  "tools": [
    {
      "name": "search web",
      "description": "Search.",
      "command": ["/bin/true"],
      "x-toolc": {"ignore": ["invalid-tool-name"]}
    },
    {
      "name": "read_file",
      "description": "Read.",
      "command": ["/bin/true"],
      "x-toolc": {
        "agentcli": {"timeoutSec": 5}
      }
    },
    {
      "name": "write_file",
      "description": "Write.",
      "command": ["/bin/true"]
    },
    {
      "name": "list_files",
      "description": "List.",
      "command": ["/bin/true"],
      "x-toolc": {"ignore": ["strict-all-required"]}
    }
  ]
}
"#;

#[test]
fn unused_ignores_are_reported_and_fixed() {
    let dir = TempDir::new("suppress-unused");
    let manifest = dir.write("tools.json", UNUSED);
    let (_, report) = lint(dir.path(), &[]);
    assert_eq!(
        of_rule(&report, "unused-ignore"),
        [
            "tools.json#/tools/0/x-toolc/ignore/0",
            "tools.json#/tools/0/x-toolc/ignore/2",
            "tools.json#/tools/1/x-toolc/ignore/0",
            "tools.json#/tools/2/x-toolc/ignore/0",
            "tools.json#/tools/2/x-toolc/ignore/1",
        ]
    );
    let unknown = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .find(|d| d["pointer"] == "/tools/2/x-toolc/ignore/1")
        .expect("the unknown rule's finding");
    assert!(
        unknown["message"]
            .as_str()
            .is_some_and(|m| m.contains("unknown rule or code prefix \"no-such-rule\"")),
        "{unknown}"
    );
    assert_eq!(of_rule(&report, "invalid-tool-name"), Vec::<String>::new());
    fix_then_clean(dir.path(), &manifest, UNUSED_FIXED);
    // With the strict rules on, the last ignore is of no use either.
    let (_, strict) = lint(dir.path(), &["--target", "openai-strict"]);
    assert_eq!(
        of_rule(&strict, "unused-ignore"),
        ["tools.json#/tools/3/x-toolc/ignore/0"]
    );
    // The ignored name is no finding, in either provider's words.
    assert_eq!(of_rule(&strict, "invalid-tool-name"), Vec::<String>::new());
    assert_eq!(
        of_rule(&strict, "name-charset"),
        ["tools.json#/tools/0/name"]
    );
}

#[test]
fn an_unused_ignore_in_mcp_meta_is_removed_with_what_it_leaves_empty() {
    let dir = TempDir::new("suppress-unused-mcp");
    let manifest = dir.write(
        "server.json",
        "{\"tools\": [\n  {\"name\": \"get_weather\", \"inputSchema\": {\"type\": \"object\"},\n   \"_meta\": {\"x-toolc\": {\"ignore\": [\"TC103\"]}}},\n  {\"name\": \"get_time\", \"inputSchema\": {\"type\": \"object\"},\n   \"_meta\": {\"x-toolc\": {\"ignore\": [\"TC103\"]}, \"vendor\": 1}}\n]}\n",
    );
    let (_, report) = lint(dir.path(), &[]);
    assert_eq!(
        of_rule(&report, "unused-ignore"),
        [
            "server.json#/tools/0/_meta/x-toolc/ignore/0",
            "server.json#/tools/1/_meta/x-toolc/ignore/0"
        ]
    );
    fix_then_clean(
        dir.path(),
        &manifest,
        "{\"tools\": [\n  {\"name\": \"get_weather\", \"inputSchema\": {\"type\": \"object\"}},\n  {\"name\": \"get_time\", \"inputSchema\": {\"type\": \"object\"},\n   \"_meta\": {\"vendor\": 1}}\n]}\n",
    );
}

/// Every file under `dir`, with its text.
fn texts(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).expect("read dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                out.push((path.display().to_string(), text));
            }
        }
    }
    assert!(!out.is_empty(), "nothing written under {}", dir.display());
    out
}

#[test]
fn ignores_are_never_carried_into_gen_convert_or_serve_output() {
    let dir = TempDir::new("suppress-not-carried");
    dir.write(
        "cli/tools.json",
        r#"{"tools": [{"name": "fetch.url", "description": "Fetch.", "command": ["/bin/true"],
  "timeoutSec": 5, "x-toolc": {"ignore": ["invalid-tool-name"]}}]}
"#,
    );
    dir.write(
        "mcp/server.json",
        r#"{"tools": [{"name": "get.weather", "inputSchema": {"type": "object"},
  "_meta": {"vendor": "kept", "x-toolc": {"ignore": ["TC103"]}}}]}
"#,
    );
    let inputs = ["cli/tools.json", "mcp/server.json"];
    for target in ["openai", "mcp", "anthropic"] {
        let output = Test::new()
            .current_dir(dir.path())
            .args(["gen", target])
            .args(inputs)
            .run();
        assert_eq!(output.code, 0, "gen {target}: {}", output.stderr);
        assert!(
            !output.stdout.contains("\"ignore\""),
            "gen {target}:\n{}",
            output.stdout
        );
        if target == "mcp" {
            // What else the MCP `_meta` holds is carried as before.
            assert!(output.stdout.contains("\"vendor\""), "{}", output.stdout);
        }
    }
    for to in ["nora", "agentcli", "agentstack", "nachos", "mcp"] {
        let out = dir.path().join(format!("out-{to}"));
        let output = Test::new()
            .current_dir(dir.path())
            .args(["convert", "--to", to, "-o"])
            .args([out.display().to_string()])
            .args(inputs)
            .run();
        assert_eq!(output.code, 0, "convert --to {to}: {}", output.stderr);
        let written = if out.is_dir() {
            texts(&out)
        } else {
            vec![(
                out.display().to_string(),
                std::fs::read_to_string(&out).expect("read"),
            )]
        };
        for (path, text) in written {
            assert!(!text.contains("\"ignore\""), "{path}:\n{text}");
        }
    }
    // `toolc serve` lists the tools without it.
    let requests = [
        r#"{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}"#,
        r#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#,
        r#"{"jsonrpc": "2.0", "id": 2, "method": "tools/list"}"#,
    ];
    let output = Test::new()
        .current_dir(dir.path())
        .args(["serve"])
        .args(inputs)
        .stdin(format!("{}\n", requests.join("\n")))
        .run();
    let listed = output
        .stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|message| message["id"] == 2)
        .unwrap_or_else(|| {
            panic!(
                "no tools/list answer:\n{}\n{}",
                output.stdout, output.stderr
            )
        });
    let tools = listed["result"]["tools"].as_array().expect("tools");
    assert_eq!(tools.len(), 2, "{listed}");
    assert!(!listed.to_string().contains("\"ignore\""), "{listed}");
}

/// An AgentStack package of two functions, the second without a type hint
/// (a finding in `__init__.py` that points back at the tool's key).
const UNHINTED_PACKAGE: &str = r#"{
  "name": "weather",
  "category": "web-retrieval",
  "tools": {
    "forecast": {"actions": ["read"]},
    "other_tool": {"actions": ["read"]IGNORE}
  }
}
"#;

const UNHINTED_CODE: &str = r#"def forecast(city: str) -> str:
    """Forecast the weather of a city.

    Args:
        city: The city's name.
    """
    return city


def other_tool(x) -> str:
    """Other.

    Args:
        x: Anything.
    """
    return x
"#;

#[test]
fn an_ignore_covers_the_findings_in_its_agentstack_functions_code() {
    let dir = TempDir::new("suppress-agentstack-code");
    dir.write("weather/__init__.py", UNHINTED_CODE);
    let unhinted = |ignore: &str| UNHINTED_PACKAGE.replace("IGNORE", ignore);
    dir.write("weather/config.json", unhinted(""));
    let (_, before) = lint(dir.path(), &[]);
    assert_eq!(
        of_rule(&before, "python-type-hint-unknown"),
        ["weather/__init__.py#"]
    );
    // Inline, on the tool whose code it is: suppressed, and of use.
    let inline = r#", "x-toolc": {"ignore": ["python-type-hint-unknown"]}"#;
    dir.write("weather/config.json", unhinted(inline));
    let (_, after) = lint(dir.path(), &[]);
    assert_eq!(
        of_rule(&after, "python-type-hint-unknown"),
        Vec::<String>::new()
    );
    assert_eq!(of_rule(&after, "unused-ignore"), Vec::<String>::new());
    // In toolc.toml, by the tool's name.
    dir.write("weather/config.json", unhinted(""));
    let off_for = |tool: &str| {
        let toml = format!(
            "[[overrides]]\nfiles = [\"weather/**\"]\ntools = [\"{tool}\"]\n\
             rules = {{ \"python-type-hint-unknown\" = \"off\" }}\n"
        );
        dir.write("toolc.toml", toml);
    };
    off_for("other_tool");
    let (_, configured) = lint(dir.path(), &[]);
    assert_eq!(
        of_rule(&configured, "python-type-hint-unknown"),
        Vec::<String>::new()
    );
    // Named on the other tool, it covers nothing.
    off_for("forecast");
    let (_, elsewhere) = lint(dir.path(), &[]);
    assert_eq!(
        of_rule(&elsewhere, "python-type-hint-unknown"),
        ["weather/__init__.py#"]
    );
}
