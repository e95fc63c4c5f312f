//! What `toolc gen python` writes, users can keep (issue 27): in every
//! style, the facts the model is sent (names, descriptions, parameter
//! schemas, signatures) are in files toolc owns and rewrites, and the
//! bodies the developer fills in are in files toolc writes once and never
//! again. The whole workflow, once per style: generate, fill in every stub
//! with real code, add a tool and a parameter to the manifest, generate
//! again; then ruff passes, the package imports with the venv's Python and
//! calls the filled code, the filled code is intact, what the model would
//! be sent is the new manifest's, and `gen --check` passes; a manifest
//! changed since fails `--check`. A filled function whose parameters the
//! manifest no longer declares is an error at import that names the tool.
//! `lint`'s stale-tool-list help names a command that fixes the drift.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use super::{TempDir, Test};

/// The manifest as first written: two tools.
fn manifest_v1() -> Value {
    json!({"tools": [
        {"name": "get_weather", "description": "Tells the weather in a city.",
         "inputSchema": {"type": "object", "properties": {
            "city": {"type": "string", "description": "The city."},
            "units": {"type": "string", "enum": ["metric", "imperial"], "description": "The units."}},
          "required": ["city"]}},
        {"name": "get_time", "description": "Tells the time in a zone.",
         "inputSchema": {"type": "object", "properties": {
            "zone": {"type": "string", "description": "The time zone."}},
          "required": ["zone"]}}
    ]})
}

/// A parameter added to get_weather and a tool added.
fn manifest_v2() -> Value {
    let mut manifest = manifest_v1();
    manifest["tools"][0]["inputSchema"]["properties"]["days"] =
        json!({"type": "integer", "description": "How many days ahead."});
    manifest["tools"].as_array_mut().unwrap().push(json!(
        {"name": "get_tide", "description": "Tells the tide in a port.",
         "inputSchema": {"type": "object", "properties": {
            "port": {"type": "string", "description": "The port."}},
          "required": ["port"]}}
    ));
    manifest
}

/// A required parameter added to get_tide, and nothing regenerated.
fn manifest_v3() -> Value {
    let mut manifest = manifest_v2();
    manifest["tools"][2]["inputSchema"]["properties"]["date"] =
        json!({"type": "string", "description": "The day."});
    manifest["tools"][2]["inputSchema"]["required"] = json!(["port", "date"]);
    manifest
}

/// get_time's parameter renamed: the filled get_time no longer fits.
fn manifest_renamed() -> Value {
    let mut manifest = manifest_v1();
    manifest["tools"][1]["inputSchema"] = json!({"type": "object", "properties": {
        "timezone": {"type": "string", "description": "The time zone."}},
      "required": ["timezone"]});
    manifest
}

pub(super) const MANIFEST: &str = "weather/weather.mcp.json";

pub(super) fn write_manifest(dir: &TempDir, manifest: &Value) {
    dir.write(MANIFEST, serde_json::to_string_pretty(manifest).unwrap());
}

/// One style: where its stubs are and what filling them in means.
struct Style {
    name: &'static str,
    /// The stubs of the first manifest's tools: (path under the output,
    /// the filled body that replaces the stub's "not implemented" line).
    stubs: [(&'static str, &'static str); 2],
    /// Imports the output (argv[1]) and prints, as JSON, what each tool
    /// answers and any warnings.
    driver: &'static str,
}

const NORA: Style = Style {
    name: "nora",
    stubs: [
        (
            "get_weather/main.py",
            "units = params.get(\"units\") or \"metric\"\nreturn f\"sunny in {params['city']} ({units})\"",
        ),
        (
            "get_time/main.py",
            "return \"12:00 in \" + params[\"zone\"]",
        ),
    ],
    driver: r#"
import importlib.util
import json
import pathlib
import sys

root = pathlib.Path(sys.argv[1])


def load(tool):
    manifest = json.loads((root / tool / "tool.json").read_text(encoding="utf-8"))
    spec = importlib.util.spec_from_file_location(tool, root / tool / manifest["entrypoint"])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


print(json.dumps({
    "get_weather": load("get_weather").run({"city": "Oslo", "days": 3}),
    "get_time": load("get_time").run({"zone": "UTC"}),
    "get_tide": load("get_tide").run({"port": "Bergen"}),
    "get_tide_missing": load("get_tide").run({}),
    "warnings": [],
}))
"#,
};

const BASETOOL: Style = Style {
    name: "basetool",
    stubs: [
        (
            "tools/get_weather.py",
            "return ToolResult(success=True, output=f\"sunny in {city} ({units or 'metric'})\")",
        ),
        (
            "tools/get_time.py",
            "return ToolResult(success=True, output=\"12:00 in \" + zone)",
        ),
    ],
    driver: r#"
import asyncio
import json
import sys
import warnings

sys.path.insert(0, sys.argv[1])
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import tools


def call(cls, arguments):
    result = asyncio.run(cls().execute(arguments))
    return result.output if result.success else "Error: " + result.error


by_name = {cls.name: cls for cls in tools.TOOLS}
print(json.dumps({
    "get_weather": call(by_name["get_weather"], {"city": "Oslo", "days": 3}),
    "get_time": call(by_name["get_time"], {"zone": "UTC"}),
    "get_tide": call(by_name["get_tide"], {"port": "Bergen"}),
    "get_tide_missing": call(by_name["get_tide"], {}),
    "warnings": [str(w.message) for w in caught],
    "schemas": {name: cls().to_param()["function"]["parameters"] for name, cls in by_name.items()},
}))
"#,
};

const AGENTSTACK: Style = Style {
    name: "agentstack",
    stubs: [
        (
            "weather/impl/get_weather.py",
            "return f\"sunny in {city} ({units or 'metric'})\"",
        ),
        ("weather/impl/get_time.py", "return \"12:00 in \" + zone"),
    ],
    driver: r#"
import importlib
import json
import sys
import warnings

sys.path.insert(0, sys.argv[1])
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    weather = importlib.import_module("weather")

print(json.dumps({
    "get_weather": weather.get_weather(city="Oslo", days=3),
    "get_time": weather.get_time(zone="UTC"),
    "get_tide": weather.get_tide(port="Bergen"),
    "get_tide_missing": weather.get_tide(port=None),
    "warnings": [str(w.message) for w in caught],
}))
"#,
};

pub(super) fn generate(dir: &Path, style: &str, extra: &[&str]) -> super::Output {
    Test::new()
        .current_dir(dir)
        .args(["gen", "python", "--style", style, "-o", "out", "weather"])
        .args(extra)
        .run()
}

/// Replaces the one "not implemented" line of the stub at `path` with
/// `body` (at the line's indentation).
pub(super) fn fill_in(path: &Path, body: &str) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let lines: Vec<&str> = text.lines().collect();
    let stub: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains("is not implemented yet"))
        .collect();
    assert_eq!(
        stub.len(),
        1,
        "one stub line in {}:\n{text}",
        path.display()
    );
    let line = lines[stub[0]];
    let indent = &line[..line.len() - line.trim_start().len()];
    let filled: Vec<String> = body.lines().map(|l| format!("{indent}{l}")).collect();
    let mut out: Vec<String> = lines[..stub[0]].iter().map(|l| l.to_string()).collect();
    out.extend(filled);
    out.extend(lines[stub[0] + 1..].iter().map(|l| l.to_string()));
    let text = out.join("\n") + "\n";
    std::fs::write(path, &text).unwrap();
    text
}

fn venv_python() -> PathBuf {
    super::sdk::python()
}

/// Runs `driver` on `out` with the venv's Python: its JSON, or its failure
/// (exit code and stderr).
pub(super) fn drive(driver: &str, out: &Path) -> Result<Value, String> {
    let output = Command::new(venv_python())
        .arg("-c")
        .arg(driver)
        .arg(out)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("run python");
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    Ok(serde_json::from_slice(&output.stdout).expect("the driver prints JSON"))
}

/// The tools `toolc gen mcp` reads from `input` (in `dir`), by name:
/// description and input schema, what a model is sent.
fn model_view(dir: &Path, input: &str) -> Vec<(String, Value)> {
    let output = Test::new()
        .current_dir(dir)
        .args(["gen", "mcp", input])
        .run();
    assert_eq!(output.code, 0, "gen mcp {input}: {}", output.stderr);
    let mut tools: Vec<(String, Value)> = output.json()["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| {
            let name = t["name"].as_str().expect("name").to_string();
            (
                name,
                json!({"description": t["description"], "inputSchema": t["inputSchema"]}),
            )
        })
        .collect();
    tools.sort_by(|a, b| a.0.cmp(&b.0));
    tools
}

fn workflow(style: &Style) {
    let dir = TempDir::new(&format!("gen-python-keep-{}", style.name));
    write_manifest(&dir, &manifest_v1());
    let first = generate(dir.path(), style.name, &[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let out = dir.path().join("out");
    let filled: Vec<(PathBuf, String)> = style
        .stubs
        .iter()
        .map(|(path, body)| {
            let path = out.join(path);
            let text = fill_in(&path, body);
            (path, text)
        })
        .collect();

    write_manifest(&dir, &manifest_v2());
    // toolc's own files change without --force (they carry toolc's mark
    // and digest); the filled files are never touched.
    let again = generate(dir.path(), style.name, &[]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    for (path, text) in &filled {
        assert_eq!(
            &std::fs::read_to_string(path).unwrap(),
            text,
            "{}: the filled code is intact",
            path.display()
        );
    }
    super::gen_python::ruff_passes(&out, "kept workflow");
    let answers = drive(style.driver, &out).unwrap_or_else(|e| panic!("{}: {e}", style.name));
    assert_eq!(
        answers["get_weather"], "sunny in Oslo (metric)",
        "{answers}"
    );
    assert_eq!(answers["get_time"], "12:00 in UTC", "{answers}");
    let tide = answers["get_tide"].as_str().unwrap_or_default();
    assert!(tide.contains("not implemented"), "{answers}");
    let missing = answers["get_tide_missing"].as_str().unwrap_or_default();
    assert!(
        missing.contains("missing") && missing.contains("port"),
        "{answers}"
    );
    if style.name != "nora" {
        // The filled get_weather does not take the new `days`: said, not
        // silently dropped.
        let warnings = answers["warnings"].to_string();
        assert!(
            warnings.contains("get_weather") && warnings.contains("days"),
            "{answers}"
        );
    }

    // What the model is sent is the new manifest's.
    let expected = model_view(dir.path(), MANIFEST);
    match style.name {
        "basetool" => {
            let schemas = &answers["schemas"];
            for (name, tool) in &expected {
                assert_eq!(schemas[name], tool["inputSchema"], "{name}");
            }
            assert_eq!(schemas.as_object().map(|s| s.len()), Some(3));
        }
        "nora" => {
            for (name, tool) in &expected {
                let read = model_view(dir.path(), &format!("out/{name}/tool.json"));
                assert_eq!(read, vec![(name.clone(), tool.clone())]);
            }
        }
        _ => {
            // AgentStack reads the signatures (an optional parameter is
            // nullable there): the package reads back as one generated
            // afresh from the new manifest does.
            let fresh = Test::new()
                .current_dir(dir.path())
                .args([
                    "gen",
                    "python",
                    "--style",
                    "agentstack",
                    "-o",
                    "fresh",
                    "weather",
                ])
                .run();
            assert_eq!(fresh.code, 0, "{}", fresh.stderr);
            let read = model_view(dir.path(), "out/weather");
            assert_eq!(read, model_view(dir.path(), "fresh/weather"));
            let names: Vec<&str> = read.iter().map(|(n, _)| n.as_str()).collect();
            assert_eq!(names, ["get_tide", "get_time", "get_weather"]);
            assert!(
                read[2].1["inputSchema"]["properties"]["days"].is_object(),
                "{read:?}"
            );
        }
    }

    let check = generate(dir.path(), style.name, &["--check"]);
    assert_eq!(
        check.code, 0,
        "--check after gen: {}{}",
        check.stdout, check.stderr
    );
    write_manifest(&dir, &manifest_v3());
    let check = generate(dir.path(), style.name, &["--check"]);
    assert_eq!(
        check.code, 1,
        "--check after a required parameter was added: {}{}",
        check.stdout, check.stderr
    );
    assert!(check.stderr.contains("stale"), "{}", check.stderr);
}

#[test]
fn nora_workflow_keeps_the_filled_code_and_follows_the_manifest() {
    workflow(&NORA);
}

#[test]
fn basetool_workflow_keeps_the_filled_code_and_follows_the_manifest() {
    workflow(&BASETOOL);
}

#[test]
fn agentstack_workflow_keeps_the_filled_code_and_follows_the_manifest() {
    workflow(&AGENTSTACK);
}

/// A filled function whose parameter the manifest renamed: importing the
/// package fails, naming the tool and the parameter; it never runs with
/// the old schema.
fn renamed_parameter_is_an_import_error(style: &Style) {
    let dir = TempDir::new(&format!("gen-python-keep-renamed-{}", style.name));
    write_manifest(&dir, &manifest_v1());
    assert_eq!(generate(dir.path(), style.name, &[]).code, 0);
    let out = dir.path().join("out");
    for (path, body) in style.stubs {
        fill_in(&out.join(path), body);
    }
    write_manifest(&dir, &manifest_renamed());
    let again = generate(dir.path(), style.name, &[]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let driver = match style.name {
        "basetool" => "import sys\nsys.path.insert(0, sys.argv[1])\nimport tools\nprint('{}')",
        _ => "import sys\nsys.path.insert(0, sys.argv[1])\nimport weather\nprint('{}')",
    };
    let error = drive(driver, &out).expect_err("the import must fail");
    assert!(
        error.contains("get_time") && error.contains("'zone'") && error.contains("timezone"),
        "{error}"
    );
}

#[test]
fn basetool_renamed_parameter_is_an_import_error() {
    renamed_parameter_is_an_import_error(&BASETOOL);
}

#[test]
fn agentstack_renamed_parameter_is_an_import_error() {
    renamed_parameter_is_an_import_error(&AGENTSTACK);
}

/// The commands quoted (in backticks) in the help of each stale-tool-list
/// finding of `toolc lint .` in `dir`.
fn stale_commands(dir: &Path) -> Vec<String> {
    let report = Test::new()
        .current_dir(dir)
        .args(["lint", "--format", "json", "."])
        .run();
    let mut commands: Vec<String> = report.json()["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["rule"] == "stale-tool-list")
        .map(|d| {
            let help = d["help"].as_str().unwrap_or_default();
            let quoted = help.split('`').nth(1);
            quoted
                .unwrap_or_else(|| panic!("no command in the help: {help}"))
                .to_string()
        })
        .collect();
    commands.sort();
    commands.dedup();
    commands
}

/// A NORA tool given a required parameter: the filled run() is not
/// called without it (the check reads tool.json, toolc's, not a list the
/// skeleton was written with).
#[test]
fn nora_required_parameter_added_is_checked() {
    let dir = TempDir::new("gen-python-keep-nora-required");
    write_manifest(&dir, &manifest_v1());
    assert_eq!(generate(dir.path(), "nora", &[]).code, 0);
    let out = dir.path().join("out");
    for (path, body) in NORA.stubs {
        fill_in(&out.join(path), body);
    }
    let mut manifest = manifest_v1();
    manifest["tools"][1]["inputSchema"]["properties"]["format"] =
        json!({"type": "string", "description": "How to write it."});
    manifest["tools"][1]["inputSchema"]["required"] = json!(["zone", "format"]);
    write_manifest(&dir, &manifest);
    let again = generate(dir.path(), "nora", &[]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let answers = drive(NORA_GET_TIME, &out).unwrap_or_else(|e| panic!("{e}"));
    let answer = answers.as_str().unwrap_or_default();
    assert!(
        answer.starts_with("Error: ") && answer.ends_with("missing required parameter(s): format"),
        "{answers}"
    );
}

const NORA_GET_TIME: &str = r#"
import importlib.util
import json
import pathlib
import sys

script = pathlib.Path(sys.argv[1]) / "get_time" / "main.py"
spec = importlib.util.spec_from_file_location("get_time", script)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
print(json.dumps(module.run({"zone": "UTC"})))
"#;

/// The tools as an agentcli manifest: a source of tools, which views repeat.
fn agentcli(dir: &TempDir, manifest: &Value) {
    let tools: Vec<Value> = manifest["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let name = t["name"].as_str().unwrap();
            json!({"name": name, "description": t["description"], "schema": t["inputSchema"],
                   "command": [format!("./tools/bin/{name}")]})
        })
        .collect();
    for tool in &tools {
        let name = tool["name"].as_str().unwrap();
        let path = dir.write(
            &format!("weather/tools/bin/{name}"),
            "#!/bin/sh\necho '{}'\n",
        );
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    dir.write(
        "weather/tools.json",
        serde_json::to_string_pretty(&json!({"tools": tools})).unwrap(),
    );
}

#[test]
fn stale_tool_list_help_names_a_command_that_fixes_it() {
    let dir = TempDir::new("gen-python-keep-stale-help");
    agentcli(&dir, &manifest_v1());
    for (args, what) in [
        (
            vec!["gen", "python", "--style", "nora", "-o", "nora", "weather"],
            "nora",
        ),
        (
            vec![
                "gen",
                "python",
                "--style",
                "agentstack",
                "-o",
                "stack",
                "weather",
            ],
            "agentstack",
        ),
        (
            vec!["gen", "openai", "-o", "openai.json", "weather"],
            "openai",
        ),
    ] {
        let output = Test::new().current_dir(dir.path()).args(args).run();
        assert_eq!(output.code, 0, "{what}: {}", output.stderr);
    }
    assert_eq!(stale_commands(dir.path()), Vec::<String>::new());
    let mut changed = manifest_v1();
    changed["tools"][1]["description"] = json!("Tells the time in a time zone.");
    changed["tools"][0]["inputSchema"]["properties"]["city"]["description"] = json!("The town.");
    agentcli(&dir, &changed);
    let commands = stale_commands(dir.path());
    assert_eq!(commands.len(), 3, "{commands:?}");
    for command in &commands {
        let words: Vec<&str> = command.split_whitespace().collect();
        assert_eq!(words[0], "toolc", "{command}");
        let output = Test::new().current_dir(dir.path()).args(&words[1..]).run();
        assert_eq!(output.code, 0, "{command}: {}", output.stderr);
    }
    assert_eq!(stale_commands(dir.path()), Vec::<String>::new());
}

/// An AgentStack `__init__.py` an older toolc wrote as a skeleton ("Generated
/// by toolc from:", no digest) holds the developer's code: now that the
/// file is toolc's, generating again refuses, names each line it would
/// drop, and writes nothing, with --force too.
#[test]
fn an_older_skeleton_in_a_file_toolc_now_owns_is_never_dropped() {
    let dir = TempDir::new("gen-python-keep-older");
    write_manifest(&dir, &manifest_v1());
    let first = generate(dir.path(), "agentstack", &[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let init = dir.path().join("out/weather/__init__.py");
    let older = "\"\"\"AgentStack tools: get_weather, get_time.\n\nGenerated by toolc from:\n    weather/mcp.json\n\"\"\"\n\n\ndef get_weather(city: str, units: str | None = None) -> str:\n    \"\"\"Tells the weather in a city.\"\"\"\n    return forecast_service.lookup(city)\n";
    std::fs::write(&init, older).expect("write");
    for extra in [&[][..], &["--force"][..]] {
        let again = generate(dir.path(), "agentstack", extra);
        assert_eq!(again.code, 1, "{extra:?}: {}", again.stderr);
        assert!(
            again
                .stderr
                .contains("out/weather/__init__.py:10:     return forecast_service.lookup(city)"),
            "{extra:?}: {}",
            again.stderr
        );
        assert_eq!(std::fs::read_to_string(&init).expect("read"), older);
    }
}

/// A tool removed from the manifest leaves toolc's files for it in the
/// output (a loader still offers it to the model): `--check` fails and
/// names them, in every style; the user's skeletons do not count.
#[test]
fn check_fails_while_a_removed_tool_is_still_in_the_output() {
    for (style, left) in [
        ("nora", "out/get_tide/tool.json"),
        ("agentstack", "out/weather/impl/get_tide.py"),
    ] {
        let dir = TempDir::new(&format!("gen-python-keep-removed-{style}"));
        write_manifest(&dir, &manifest_v2());
        let first = generate(dir.path(), style, &[]);
        assert_eq!(first.code, 0, "{style}: {}", first.stderr);
        write_manifest(&dir, &manifest_v1());
        let check = generate(dir.path(), style, &["--check"]);
        match style {
            "nora" => {
                assert_eq!(check.code, 1, "{style}: {}", check.stderr);
                assert!(
                    check.stderr.contains(&format!("stale: {left} is toolc's")),
                    "{style}: {}",
                    check.stderr
                );
            }
            // The removed tool's implementation is the user's: no failure
            // for it, but __init__.py no longer offers the tool.
            _ => {
                assert_eq!(check.code, 1, "{style}: {}", check.stderr);
                assert!(!check.stderr.contains(left), "{style}: {}", check.stderr);
            }
        }
        // What the check says to run fixes it: gen removes toolc's file for
        // the removed tool (the user's skeleton for it stays, said), and the
        // check passes.
        let again = generate(dir.path(), style, &[]);
        assert_eq!(again.code, 0, "{style}: {}", again.stderr);
        let left_path = dir.path().join(left);
        match style {
            "nora" => {
                assert!(!left_path.exists(), "{style}: {left} is still there");
                assert!(
                    again.stderr.contains(&format!("removed: {left}")),
                    "{style}: {}",
                    again.stderr
                );
                let skeleton = dir.path().join("out/get_tide/main.py");
                assert!(skeleton.is_file(), "{style}: the user's main.py went");
            }
            _ => assert!(left_path.is_file(), "{style}: the user's {left} went"),
        }
        let check = generate(dir.path(), style, &["--check"]);
        assert_eq!(check.code, 0, "{style}: {}", check.stderr);
    }
}

/// A file toolc wrote for a tool that is gone is removed only while it is
/// exactly what toolc wrote, and only by the generator that wrote it.
#[test]
fn gen_removes_only_its_own_untouched_files() {
    let dir = TempDir::new("gen-python-keep-removed-edited");
    write_manifest(&dir, &manifest_v2());
    assert_eq!(generate(dir.path(), "nora", &[]).code, 0);
    // Another generator's signed output in the same directory.
    let rust = Test::new()
        .args(["gen", "rust", "weather", "-o", "out/tools.rs"])
        .current_dir(dir.path())
        .run();
    assert_eq!(rust.code, 0, "{}", rust.stderr);
    let edited = dir.path().join("out/get_tide/tool.json");
    let text = std::fs::read_to_string(&edited).expect("read");
    std::fs::write(&edited, text.replacen('{', "{\n  \"mine\": 1,", 1)).expect("edit");
    write_manifest(&dir, &manifest_v1());
    let again = generate(dir.path(), "nora", &[]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(edited.is_file(), "an edited file was removed");
    assert!(
        dir.path().join("out/tools.rs").is_file(),
        "gen rust's module was removed"
    );
    assert!(!again.stderr.contains("removed:"), "{}", again.stderr);
}
