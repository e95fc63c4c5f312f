//! `toolc gen python --style nora | basetool | agentstack`: every tree
//! generated here, from fixtures and from the real-world corpus, is compiled
//! (`python3 -m py_compile`), checked with ruff (its default rules, then
//! `--select E,F,W`: zero findings either way) and run: Python imports it and
//! calls every tool with valid arguments (answer: not implemented) and with
//! each required argument missing (answer: an error naming it), and nothing
//! raises. The JSON the nora and agentstack styles write lints clean; nora's
//! tool.json means what the manifest meant; basetool's schemas are the
//! manifest's. One small tree per style is a reviewed snapshot.
//!
//! These tests need python3 (3.10 or later) and ruff. `scripts/test`
//! provides ruff and says where (`TOOLC_TEST_RUFF`); a missing tool fails the
//! test, it never skips it.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::{TempDir, Test, root};

const STYLES: [&str; 3] = ["nora", "basetool", "agentstack"];
/// Two tools: required and optional arguments, an enum, a default, a
/// keyword and a camelCase name, a nullable required argument.
const SMALL: &str = "fixtures/gen/python/small";
/// Names Python cannot take as they are, and text docstrings must escape.
const NAMES: &str = "fixtures/gen/python/names";
const NORA: &str = "fixtures/rules/nora-property-missing-required/good";
/// Corpus subsets (relative to ../shared) whose tool names do not clash:
/// agentcli, AgentStack, Nachos and MCP manifests.
const CORPUS: [&str; 4] = [
    "corpus/agentcli/goagent",
    "corpus/agentstack/permissions/directory_search",
    "corpus/nachos/tools/filesystem",
    "corpus/mcp-examples/tool-with-composition-input-schema.json",
];

fn shared() -> PathBuf {
    root().join("../shared")
}

/// Runs `toolc gen python --style STYLE -o OUT INPUTS...` in `dir`,
/// expecting success.
fn generate(dir: &Path, style: &str, out: &Path, inputs: &[&str]) -> super::Output {
    let output = Test::new()
        .current_dir(dir)
        .args(["gen", "python", "--style", style, "-o"])
        .args([out.to_string_lossy()])
        .args(inputs)
        // Every note on its own line, as these tests read them.
        .args(["--show-notes"])
        .run();
    assert_eq!(
        output.code, 0,
        "gen python --style {style} {inputs:?}:\n{}",
        output.stderr
    );
    output
}

/// Every file under `dir`: relative path (with `/`) and contents, sorted.
fn tree(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|entry| entry.expect("walk the tree"))
        .filter(|entry| entry.file_type().is_file())
        .map(|entry| {
            let relative = entry.path().strip_prefix(dir).expect("below dir");
            let text = std::fs::read_to_string(entry.path()).expect("read a generated file");
            (relative.to_string_lossy().replace('\\', "/"), text)
        })
        .collect();
    files.sort();
    files
}

/// A snapshot of a tree: each file under a `=== path ===` line, then the
/// notes gen wrote.
fn rendered(dir: &Path, output: &super::Output) -> String {
    let mut text = String::new();
    for (path, contents) in tree(dir) {
        text.push_str(&format!("=== {path} ===\n{contents}"));
    }
    format!("{text}----- stderr -----\n{}", output.stderr)
}

/// python3, checked to be there and recent enough for the generated code.
fn python() -> Command {
    let version = Command::new("python3")
        .args(["-c", "import sys; print(sys.version_info >= (3, 10))"])
        .output()
        .unwrap_or_else(|e| panic!("python3 is needed to test the generated Python: {e}"));
    assert_eq!(
        String::from_utf8_lossy(&version.stdout).trim(),
        "True",
        "the generated Python needs python3 3.10 or later"
    );
    Command::new("python3")
}

/// ruff: `TOOLC_TEST_RUFF`, else `ruff` on PATH; else the test fails.
fn ruff() -> PathBuf {
    if let Some(path) = std::env::var_os("TOOLC_TEST_RUFF").filter(|p| !p.is_empty()) {
        let path = PathBuf::from(path);
        assert!(
            path.is_file(),
            "TOOLC_TEST_RUFF={} is not a file",
            path.display()
        );
        return path;
    }
    let on_path = std::env::var_os("PATH")
        .map(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join("ruff"))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default()
        .into_iter()
        .find(|candidate| candidate.is_file());
    on_path.unwrap_or_else(|| {
        panic!(
            "ruff is needed to check the generated Python and is neither in TOOLC_TEST_RUFF nor on PATH: \
             run the tests with scripts/test, which installs it into target/test-venv"
        )
    })
}

fn run(command: &mut Command, what: &str) -> String {
    let output = command.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{what} failed:\n{stdout}\n{stderr}"
    );
    stdout
}

/// Compiles every .py under `out` (bytecode goes to `scratch`), runs ruff
/// on the tree, then the style's driver, which imports and calls every tool
/// and prints how many it called.
pub(crate) fn check_python(style: &str, out: &Path, scratch: &Path) -> usize {
    let sources: Vec<PathBuf> = tree(out)
        .into_iter()
        .filter(|(path, _)| path.ends_with(".py"))
        .map(|(path, _)| out.join(path))
        .collect();
    assert!(!sources.is_empty(), "no Python under {}", out.display());
    run(
        python()
            .args(["-m", "py_compile"])
            .args(&sources)
            .env("PYTHONPYCACHEPREFIX", scratch.join("pycache")),
        "py_compile",
    );
    ruff_passes(out, style);
    let driver = scratch.join(format!("drive_{style}.py"));
    let source = match style {
        "nora" => DRIVE_NORA,
        "basetool" => DRIVE_BASETOOL,
        _ => DRIVE_AGENTSTACK,
    };
    std::fs::write(&driver, source).expect("write the driver");
    let called = run(
        python()
            .arg(&driver)
            .arg(out)
            .env("PYTHONDONTWRITEBYTECODE", "1"),
        &format!("calling the {style} tools"),
    );
    called
        .trim()
        .parse()
        .unwrap_or_else(|e| panic!("driver output {called:?}: {e}"))
}

/// ruff finds nothing in the Python under `out` (`what` says whose), with
/// its default rules and then with pycodestyle's and pyflakes' (E, F, W).
pub(super) fn ruff_passes(out: &Path, what: &str) {
    let ruff = ruff();
    for select in [None, Some("E,F,W")] {
        let mut command = Command::new(&ruff);
        command.args([
            "check",
            "--isolated",
            "--no-cache",
            "--output-format",
            "concise",
        ]);
        if let Some(select) = select {
            command.args(["--select", select]);
        }
        let report = run(
            command.arg(out),
            &format!("ruff check ({what}, {select:?})"),
        );
        assert!(report.contains("All checks passed!"), "{report}");
    }
}

/// `toolc lint` finds nothing at all in the JSON of a generated tree.
fn assert_lints_clean(out: &Path, manifests: usize) {
    let report = Test::new()
        .args(["lint", "--format", "json"])
        .args([out.to_string_lossy()])
        .run();
    let json = report.json();
    assert_eq!(
        json["diagnostics"],
        serde_json::json!([]),
        "{}",
        report.stdout
    );
    assert_eq!(report.code, 0);
    assert_eq!(
        json["files"].as_array().map(Vec::len),
        Some(manifests),
        "{}",
        report.stdout
    );
}

/// How many tools `toolc lint` reads from `inputs` (run in `dir`).
fn tool_count(dir: &Path, inputs: &[&str]) -> usize {
    let report = Test::new()
        .current_dir(dir)
        .args(["lint", "--format", "json"])
        .args(inputs)
        .run()
        .json();
    report["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| f["tools"].as_u64().expect("tools") as usize)
        .sum()
}

/// Generates every style from `inputs` in `dir` and checks each tree.
fn check_every_style(name: &str, dir: &Path, inputs: &[&str]) {
    let tools = tool_count(dir, inputs);
    assert!(tools > 0);
    for style in STYLES {
        let temp = TempDir::new(&format!("gen-python-{name}-{style}"));
        let out = temp.path().join("out");
        generate(dir, style, &out, inputs);
        let called = check_python(style, &out, temp.path());
        assert_eq!(called, tools, "{style}: every tool is called");
        let files = tree(&out);
        match style {
            "nora" => {
                let manifests = files
                    .iter()
                    .filter(|(p, _)| p.ends_with("/tool.json"))
                    .count();
                assert_eq!(manifests, tools);
                assert_lints_clean(&out, manifests);
            }
            "agentstack" => {
                let manifests = files
                    .iter()
                    .filter(|(p, _)| p.ends_with("/config.json"))
                    .count();
                assert_lints_clean(&out, manifests);
            }
            _ => {}
        }
    }
}

// ---------------------------------------------------------------- snapshots

fn snapshot(style: &str) -> String {
    let temp = TempDir::new(&format!("gen-python-snapshot-{style}"));
    let out = temp.path().join("out");
    let output = generate(&root(), style, &out, &[SMALL]);
    rendered(&out, &output)
}

#[test]
fn nora_snapshot() {
    insta::assert_snapshot!("python_nora_small", snapshot("nora"));
}

#[test]
fn basetool_snapshot() {
    insta::assert_snapshot!("python_basetool_small", snapshot("basetool"));
}

#[test]
fn agentstack_snapshot() {
    insta::assert_snapshot!("python_agentstack_small", snapshot("agentstack"));
}

/// Each style over a real MCP tool and a real AgentStack package.
fn corpus_snapshot(style: &str) -> String {
    let temp = TempDir::new(&format!("gen-python-corpus-snapshot-{style}"));
    let out = temp.path().join("out");
    let inputs = [
        "corpus/mcp-examples/with-default-2020-12-input-schema.json",
        "corpus/agentstack/permissions/directory_search",
    ];
    let output = generate(&shared(), style, &out, &inputs);
    rendered(&out, &output)
}

#[test]
fn corpus_snapshots() {
    insta::assert_snapshot!("python_nora_corpus", corpus_snapshot("nora"));
    insta::assert_snapshot!("python_basetool_corpus", corpus_snapshot("basetool"));
    insta::assert_snapshot!("python_agentstack_corpus", corpus_snapshot("agentstack"));
}

// ------------------------------------------------ compiled, linted and run

#[test]
fn corpus_trees_compile_lint_and_run() {
    check_every_style("corpus", &shared(), &CORPUS);
}

#[test]
fn fixture_trees_compile_lint_and_run() {
    check_every_style("fixtures", &root(), &[SMALL, NORA]);
}

#[test]
fn names_python_cannot_take_compile_lint_and_run() {
    check_every_style("names", &root(), &[NAMES]);
}

#[test]
fn names_become_identifiers_where_python_needs_them() {
    let temp = TempDir::new("gen-python-identifiers");
    let basetool = temp.path().join("basetool");
    generate(&root(), "basetool", &basetool, &[NAMES]);
    let modules: Vec<String> = tree(&basetool).into_iter().map(|(path, _)| path).collect();
    assert_eq!(
        modules,
        [
            "tools/__init__.py",
            "tools/base.py",
            "tools/bases.py",
            "tools/class_.py",
            "tools/get_time.py",
            "tools/get_time_2.py",
            "tools/list_.py",
            "tools/max_bytes.py",
            "tools/specs.py",
            "tools/tool_2d.py",
            "tools/types.py",
            "tools/types_.py",
        ]
    );
    let class_module = std::fs::read_to_string(basetool.join("tools/specs.py")).expect("read");
    // The wire names stay the schema's keys.
    for key in [
        "\"from\": {",
        "\"max-bytes\": {",
        "\"2d\": {",
        "\"größe\": {",
        "\"_missing\": {",
    ] {
        assert!(class_module.contains(key), "{key} in\n{class_module}");
    }
    assert!(class_module.contains("class ClassToolSpec(BaseTool):"));
    let skeleton = std::fs::read_to_string(basetool.join("tools/class_.py")).expect("read");
    assert!(
        skeleton.contains("class ClassTool(ClassToolSpec):"),
        "{skeleton}"
    );
    let init = std::fs::read_to_string(basetool.join("tools/__init__.py")).expect("read");
    assert!(init.contains("from .base import BaseTool2\n"), "{init}");

    let agentstack = temp.path().join("agentstack");
    let output = generate(&root(), "agentstack", &agentstack, &[NAMES]);
    let module = std::fs::read_to_string(agentstack.join("names/__init__.py")).expect("read");
    for line in [
        "def class_(\n    from_: str,\n    arg_2d: bool,\n    missing: str,\n    name: str,\n    none: str | None,\n    max_bytes_2: int = 1024,\n    maxBytes: int | None = None,\n    max_bytes: int | None = None,\n    l_: str | None = None,\n    gr_e: float | None = None,\n",
        "def list_(\n    items: list[int],\n) -> str:",
        "def tool_2d(\n    dict: dict[str, Any] | None = None,\n) -> str:",
        "def getTime() -> str:",
        "def get_time() -> str:",
    ] {
        assert!(module.contains(line), "{line}\nin\n{module}");
    }
    let config: Value = serde_json::from_str(
        &std::fs::read_to_string(agentstack.join("names/config.json")).expect("read"),
    )
    .expect("config.json is JSON");
    let functions: Vec<&String> = config["tools"].as_object().expect("tools").keys().collect();
    assert_eq!(
        functions,
        [
            "class_",
            "list_",
            "max_bytes",
            "tool_2d",
            "getTime",
            "get_time",
            "types",
            "base"
        ]
    );
    for note in [
        "tool \"class\": parameter names must be Python identifiers: \"from\" is \"from_\", \"2d\" is \"arg_2d\"",
        "tool \"max-bytes\" is function \"max_bytes\"",
        "config.json grants the actions [\"read\"]",
    ] {
        assert!(
            output.stderr.contains(note),
            "{note}\nin\n{}",
            output.stderr
        );
    }

    let nora = temp.path().join("nora");
    let output = generate(&root(), "nora", &nora, &[NAMES]);
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(nora.join("class_/tool.json")).expect("read"),
    )
    .expect("tool.json is JSON");
    let keys: Vec<&String> = manifest["parameters"]["properties"]
        .as_object()
        .expect("properties")
        .keys()
        .collect();
    assert_eq!(
        keys,
        [
            "from",
            "max_bytes_2",
            "maxBytes",
            "max_bytes",
            "2d",
            "l",
            "_missing",
            "name",
            "gr_e",
            "none",
            "choice",
            "either",
            "ref",
            "point"
        ]
    );
    assert_eq!(
        manifest["parameters"]["properties"]["ref"]["type"], "object",
        "the $ref's type"
    );
    assert!(
        output
            .stderr
            .contains("\"max-bytes\" is \"max_bytes_2\" in tool.json and main.py"),
        "{}",
        output.stderr
    );
}

/// Manifests with errors (generated with --allow-errors): names with
/// quotes, backslashes and path separators, an empty name, a NUL in a
/// description, schemas that are not schemas.
const BROKEN: &str = r#"{"tools": [
  {"name": "a\"b\\c", "description": "x\u0000y \"\"\"", "inputSchema": {"type": "object",
    "properties": {"p\"q": true, "r": {"type": 5}, "": {"type": "string"}, "s": {"type": "array", "items": [{"type": "string"}]}},
    "required": ["p\"q", "zzz", 5]}},
  {"name": "", "inputSchema": []},
  {"name": "../../etc", "description": "", "inputSchema": {"type": "object",
    "properties": {"x": {"type": "string", "default": "\u2028\"\\"}}}}
]}"#;

#[test]
fn broken_manifests_still_give_python_that_compiles_lints_and_runs() {
    let input = TempDir::new("gen-python-broken-input");
    input.write("broken.mcp.json", BROKEN);
    for style in STYLES {
        let temp = TempDir::new(&format!("gen-python-broken-{style}"));
        let out = temp.path().join("out");
        generate(
            input.path(),
            style,
            &out,
            &["--allow-errors", "broken.mcp.json"],
        );
        let paths: Vec<String> = tree(&out).into_iter().map(|(path, _)| path).collect();
        assert!(
            paths.iter().all(|p| !p.contains("..") && !p.contains('"')),
            "{paths:?}"
        );
        assert_eq!(check_python(style, &out, temp.path()), 3, "{style}");
    }
}

// ------------------------------------------------------- meaning preserved

/// The parameters of `inputs` as written (`gen mcp`'s input schemas, which
/// MCP takes whole: OpenAI's would have a root union flattened), by tool
/// name.
fn manifest_parameters(dir: &Path, inputs: &[&str]) -> Vec<(String, Value)> {
    let output = Test::new()
        .current_dir(dir)
        .args(["gen", "mcp"])
        .args(inputs)
        .run();
    assert_eq!(output.code, 0, "{}", output.stderr);
    let document: Value = serde_json::from_str(&output.stdout).expect("JSON");
    let mut parameters: Vec<(String, Value)> = document["tools"]
        .as_array()
        .expect("array")
        .iter()
        .map(|t| {
            let name = t["name"].as_str().expect("name").to_string();
            (name, t["inputSchema"].clone())
        })
        .collect();
    parameters.sort_by(|a, b| a.0.cmp(&b.0));
    parameters
}

#[test]
fn nora_tool_json_means_what_the_manifest_meant() {
    for input in [SMALL, NORA] {
        let temp = TempDir::new("gen-python-nora-round-trip");
        let out = temp.path().join("out");
        generate(&root(), "nora", &out, &[input]);
        let out_path = out.to_string_lossy().into_owned();
        assert_eq!(
            manifest_parameters(&root(), &[&out_path]),
            manifest_parameters(&root(), &[input]),
            "{input}"
        );
    }
}

#[test]
fn basetool_schemas_are_the_manifest_schemas() {
    let temp = TempDir::new("gen-python-basetool-schemas");
    let out = temp.path().join("out");
    generate(&shared(), "basetool", &out, &CORPUS);
    let driver = temp.path().join("schemas.py");
    std::fs::write(&driver, PRINT_BASETOOL_SCHEMAS).expect("write the driver");
    let printed = run(
        python()
            .arg(&driver)
            .arg(&out)
            .env("PYTHONDONTWRITEBYTECODE", "1"),
        "printing the basetool schemas",
    );
    let schemas: Value = serde_json::from_str(&printed).expect("JSON");
    let mut schemas: Vec<(String, Value)> = schemas
        .as_object()
        .expect("object")
        .iter()
        .map(|(name, schema)| (name.clone(), schema.clone()))
        .collect();
    schemas.sort_by(|a, b| a.0.cmp(&b.0));
    // create_json_schema always writes "properties" (empty when the root
    // has only a combinator): the one difference, and a harmless one.
    let mut expected = manifest_parameters(&shared(), &CORPUS);
    for (_, schema) in &mut expected {
        if let Some(root) = schema.as_object_mut() {
            root.entry("properties")
                .or_insert_with(|| serde_json::json!({}));
        }
    }
    assert_eq!(schemas, expected);
}

#[test]
fn generating_again_changes_nothing() {
    for style in STYLES {
        let temp = TempDir::new(&format!("gen-python-again-{style}"));
        let first = temp.path().join("first");
        let second = temp.path().join("second");
        generate(&shared(), style, &first, &CORPUS);
        generate(&shared(), style, &second, &CORPUS);
        assert_eq!(tree(&first), tree(&second), "{style}: deterministic");
        // Into the same directory: every file is unchanged, so no --force.
        generate(&shared(), style, &first, &CORPUS);
        assert_eq!(tree(&first), tree(&second));
    }
}

#[test]
fn no_tools_is_an_error() {
    let dir = TempDir::new("gen-python-empty");
    dir.write(
        "manifest.json",
        r#"{"name": "chat", "type": "channel", "capabilities": {}}"#,
    );
    let output = Test::new()
        .current_dir(dir.path())
        .args(["gen", "python", "-o", "out", "."])
        .run();
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert!(
        output.stderr.contains("no tool to generate"),
        "{}",
        output.stderr
    );
    assert!(!dir.path().join("out").exists());
}

// ------------------------------------------------------ the Python drivers

/// Calls every NORA tool under argv[1]; prints how many.
const DRIVE_NORA: &str = r#"
import importlib.util
import json
import pathlib
import sys

root = pathlib.Path(sys.argv[1])
count = 0
for manifest in sorted(root.glob("*/tool.json")):
    tool = json.loads(manifest.read_text(encoding="utf-8"))
    script = manifest.parent / tool["entrypoint"]
    spec = importlib.util.spec_from_file_location("nora_" + manifest.parent.name, script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    properties = tool["parameters"]["properties"]
    required = [key for key, p in properties.items() if p["required"]]
    valid = {key: "x" for key in required}
    answer = module.run(valid)
    assert isinstance(answer, str), answer
    assert answer == "Error: " + tool["name"] + " is not implemented yet.", answer
    for key in required:
        answer = module.run({k: v for k, v in valid.items() if k != key})
        expected = "missing required parameter(s): " + key
        assert answer.startswith("Error: ") and answer.endswith(expected), answer
    if required:
        answer = module.run({})
        assert answer.endswith(", ".join(required)), answer
    answer = module.run(None)
    assert answer.startswith("Error: ") and "object" in answer, answer
    count += 1
print(count)
"#;

/// Calls every tool class of the `tools` package under argv[1].
const DRIVE_BASETOOL: &str = r#"
import asyncio
import sys

sys.path.insert(0, sys.argv[1])
from tools import TOOLS, BaseTool, ToolResult  # noqa: E402

count = 0
for cls in TOOLS:
    tool = cls()
    assert isinstance(tool, BaseTool)
    assert tool.to_param()["function"]["name"] == tool.name
    assert tool.parameters["type"] == "object"
    required = tool.parameters.get("required", [])
    valid = {key: "x" for key in required}
    result = asyncio.run(tool.execute(valid))
    assert isinstance(result, ToolResult), result
    assert not result.success and result.output is None, result
    assert result.error == tool.name + " is not implemented yet", result
    for key in required:
        partial = {k: v for k, v in valid.items() if k != key}
        result = asyncio.run(tool.execute(partial))
        assert not result.success, result
        assert result.error.endswith("missing required argument(s): " + key), result
    result = asyncio.run(tool.execute(None))
    assert not result.success and "must be an object" in result.error, result
    count += 1
print(count)
"#;

/// Calls every function config.json names in the packages under argv[1]:
/// with a value for each parameter without a default, then with `None` for
/// each of them in turn.
const DRIVE_AGENTSTACK: &str = r#"
import importlib
import inspect
import json
import pathlib
import sys
import typing

root = pathlib.Path(sys.argv[1])
sys.path.insert(0, str(root))
count = 0
for path in sorted(root.glob("*/config.json")):
    config = json.loads(path.read_text(encoding="utf-8"))
    assert config["name"] == path.parent.name
    package = importlib.import_module(config["name"])
    for name, permissions in config["tools"].items():
        assert permissions["actions"], permissions
        function = getattr(package, name)
        assert function.__doc__ and "Returns:" in function.__doc__
        parameters = inspect.signature(function).parameters.values()
        required = [p for p in parameters if p.default is inspect.Parameter.empty]
        valid = {p.name: "x" for p in required}
        answer = function(**valid)
        assert answer == "Error: " + name + " is not implemented yet.", answer
        for p in required:
            answer = function(**{**valid, p.name: None})
            if type(None) in typing.get_args(p.annotation):
                assert answer.endswith("is not implemented yet."), answer
            else:
                expected = "missing required argument(s): " + p.name
                assert answer.startswith("Error: ") and answer.endswith(expected), answer
        count += 1
print(count)
"#;

/// Prints {tool name: parameters} of the `tools` package under argv[1].
const PRINT_BASETOOL_SCHEMAS: &str = r#"
import json
import sys

sys.path.insert(0, sys.argv[1])
from tools import TOOLS  # noqa: E402

print(json.dumps({cls.name: cls.parameters for cls in TOOLS}))
"#;

// ------------------------------------------------------- nested objects

/// A tool whose parameters nest objects two levels deep, in an array too,
/// beside a free map and an object whose names are not identifiers.
const NESTED: &str = r#"{"tools": [{
  "name": "draw_shape",
  "description": "Draws a shape.",
  "inputSchema": {
    "type": "object",
    "properties": {
      "shape": {
        "type": "object",
        "description": "What to draw.",
        "properties": {
          "label": {"type": "string"},
          "origin": {
            "type": "object",
            "properties": {"x": {"type": "number", "minimum": 0}, "y": {"type": "number"}},
            "required": ["x", "y"]
          },
          "points": {
            "type": "array",
            "items": {
              "type": "object",
              "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}},
              "required": ["x"]
            }
          }
        },
        "required": ["origin"]
      },
      "style": {"type": "object", "additionalProperties": {"type": "string"}},
      "headers": {"type": "object", "properties": {"content-type": {"type": "string"}}}
    },
    "required": ["shape"]
  }
}]}"#;

/// Prints the dataclasses the generated function's hints name: for each
/// class reached from `draw_shape`'s parameters, its fields' hints.
const PRINT_DATACLASSES: &str = r#"
import dataclasses
import importlib
import json
import sys
import typing

sys.path.insert(0, sys.argv[1])
package = importlib.import_module("draw_shape")
found = {}


def text(hint):
    return str(hint).replace("typing.", "")


def visit(hint):
    if dataclasses.is_dataclass(hint):
        types = typing.get_type_hints(hint)
        fields = {f.name: types[f.name] for f in dataclasses.fields(hint)}
        found[hint.__name__] = {name: text(value) for name, value in fields.items()}
        for value in fields.values():
            visit(value)
    for argument in typing.get_args(hint):
        visit(argument)


hints = typing.get_type_hints(package.draw_shape)
for name in ("shape", "style", "headers"):
    visit(hints[name])
print(json.dumps({"classes": found, "style": text(hints["style"]), "headers": text(hints["headers"])}))
"#;

#[test]
fn nested_objects_become_dataclasses_that_read_back() {
    let temp = TempDir::new("gen-python-nested");
    temp.write("shapes.json", NESTED);
    let out = temp.path().join("out");
    let output = generate(temp.path(), "agentstack", &out, &["shapes.json"]);
    assert!(
        output
            .stderr
            .contains("(content-type) stays dict[str, Any]"),
        "{}",
        output.stderr
    );
    assert!(
        output.stderr.contains(
            "a dataclass field cannot say minimum: the function body must check it \
             (at /tools/0/inputSchema/properties/shape/properties/origin/properties/x)"
        ),
        "{}",
        output.stderr
    );
    assert_eq!(check_python("agentstack", &out, temp.path()), 1);
    let source = std::fs::read_to_string(out.join("draw_shape/__init__.py")).expect("read");
    assert!(
        source.contains("from dataclasses import dataclass"),
        "{source}"
    );

    let printed = super::sdk::run_python(PRINT_DATACLASSES, &[&out.to_string_lossy()], "");
    let printed: Value = serde_json::from_str(&printed).expect("JSON");
    assert_eq!(
        printed,
        serde_json::json!({
            "classes": {
                "DrawShapeShape": {
                    "origin": "<class 'draw_shape.DrawShapeShapeOrigin'>",
                    "label": "str | None",
                    "points": "list[draw_shape.DrawShapeShapePointsItem] | None",
                },
                "DrawShapeShapeOrigin": {"x": "<class 'float'>", "y": "<class 'float'>"},
                "DrawShapeShapePointsItem": {"x": "<class 'int'>", "y": "int | None"},
            },
            "style": "dict[str, Any] | None",
            "headers": "dict[str, Any] | None",
        }),
        "{source}"
    );

    // Read the code back: without the copy of the parameters config.json
    // may keep, the signature and the dataclasses are what is read.
    let config_path = out.join("draw_shape/config.json");
    let mut config: Value =
        serde_json::from_str(&std::fs::read_to_string(&config_path).expect("read")).expect("JSON");
    fn drop_parameters(value: &mut Value) {
        match value {
            Value::Object(members) => {
                if let Some(Value::Object(carried)) = members.get_mut("x-toolc") {
                    carried.remove("parameters");
                }
                members.values_mut().for_each(drop_parameters);
            }
            Value::Array(items) => items.iter_mut().for_each(drop_parameters),
            _ => {}
        }
    }
    drop_parameters(&mut config);
    std::fs::write(&config_path, config.to_string()).expect("write");
    let back = Test::new()
        .current_dir(temp.path())
        .args(["convert", "--to", "mcp", "out/draw_shape"])
        .run();
    assert_eq!(back.code, 0, "{}", back.stderr);
    let back = back.json();
    let tools = back["tools"].as_array().expect("tools");
    let shape = &tools[0]["inputSchema"]["properties"]["shape"];
    let types = |schema: &Value| -> Vec<Value> {
        match schema.get("anyOf") {
            Some(Value::Array(branches)) => branches.iter().map(|b| b["type"].clone()).collect(),
            _ => vec![schema["type"].clone()],
        }
    };
    assert_eq!(shape["type"], "object", "{shape}");
    assert_eq!(shape["required"], serde_json::json!(["origin"]), "{shape}");
    let origin = &shape["properties"]["origin"];
    assert_eq!(origin["properties"]["x"]["type"], "number", "{origin}");
    assert_eq!(origin["properties"]["y"]["type"], "number", "{origin}");
    assert_eq!(
        origin["required"],
        serde_json::json!(["x", "y"]),
        "{origin}"
    );
    assert_eq!(
        types(&shape["properties"]["label"]),
        ["string", "null"],
        "{shape}"
    );
    let points = &shape["properties"]["points"];
    let items = points["anyOf"][0]["items"].clone();
    assert_eq!(points["anyOf"][0]["type"], "array", "{points}");
    assert_eq!(items["properties"]["x"]["type"], "integer", "{items}");
    assert_eq!(
        types(&items["properties"]["y"]),
        ["integer", "null"],
        "{items}"
    );
    assert_eq!(items["required"], serde_json::json!(["x"]), "{items}");
}
