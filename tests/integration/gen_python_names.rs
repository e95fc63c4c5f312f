//! `toolc gen python` parameter names users can keep: they do not depend
//! on the order of the properties, and a parameter that takes the name
//! another had is an error at import naming the tool, not a warning.

use serde_json::{Value, json};

use super::TempDir;
use super::gen_python_keep::{drive, fill_in, generate, write_manifest};

/// One tool, `limit`, with the parameters `keys` in that order.
fn manifest(keys: &[&str]) -> Value {
    let properties: serde_json::Map<String, Value> = keys
        .iter()
        .map(|key| (key.to_string(), json!({"type": "integer"})))
        .collect();
    json!({"tools": [{"name": "limit", "description": "Limits.",
        "inputSchema": {"type": "object", "properties": properties}}]})
}

const BASETOOL_DRIVER: &str = r#"
import asyncio
import json
import sys

sys.path.insert(0, sys.argv[1])
import tools

result = asyncio.run(tools.TOOLS[0]().execute(json.loads(sys.argv[2] if len(sys.argv) > 2 else '{"max-bytes": 100, "max bytes": 7}')))
print(json.dumps(result.output if result.success else "Error: " + result.error))
"#;

/// `max-bytes` and `max bytes` both spell `max_bytes`: whichever comes
/// first, `max_bytes` is `max bytes` (the first in sorted order: a space
/// sorts before `-`), so the filled code reads the same value.
#[test]
fn python_names_do_not_depend_on_the_order_of_the_properties() {
    for keys in [["max-bytes", "max bytes"], ["max bytes", "max-bytes"]] {
        let dir = TempDir::new("gen-python-names-order");
        write_manifest(&dir, &manifest(&keys));
        let generated = generate(dir.path(), "basetool", &[]);
        assert_eq!(generated.code, 0, "{}", generated.stderr);
        let out = dir.path().join("out");
        fill_in(
            &out.join("tools/limit.py"),
            "return ToolResult(success=True, output=str(max_bytes))",
        );
        let answer = drive(BASETOOL_DRIVER, &out).unwrap_or_else(|e| panic!("{keys:?}: {e}"));
        assert_eq!(answer, json!("7"), "{keys:?}");
    }
}

/// `max-bytes` alone is `max_bytes`; adding `max_bytes` gives it that
/// name and `max-bytes` becomes `max_bytes_2`. The filled function, which
/// takes `max_bytes` only, must not run reading the other value: the
/// import fails, naming the tool.
fn added_parameter_is_an_import_error(style: &str, stub: &str, body: &str, import: &str) {
    let dir = TempDir::new(&format!("gen-python-names-added-{style}"));
    write_manifest(&dir, &manifest(&["max-bytes"]));
    assert_eq!(generate(dir.path(), style, &[]).code, 0);
    let out = dir.path().join("out");
    let filled = fill_in(&out.join(stub), body);
    assert!(
        filled.contains("max_bytes") && !filled.contains("max_bytes_2"),
        "{filled}"
    );
    write_manifest(&dir, &manifest(&["max-bytes", "max_bytes"]));
    let again = generate(dir.path(), style, &[]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let driver =
        format!("import sys\nsys.path.insert(0, sys.argv[1])\nimport {import}\nprint('{{}}')");
    let error = drive(&driver, &out).expect_err("the import must fail");
    assert!(
        error.contains("TypeError")
            && error.contains("tool limit")
            && error.contains("max_bytes_2"),
        "{error}"
    );
}

#[test]
fn basetool_added_parameter_taking_a_name_is_an_import_error() {
    added_parameter_is_an_import_error(
        "basetool",
        "tools/limit.py",
        "return ToolResult(success=True, output=str(max_bytes))",
        "tools",
    );
}

#[test]
fn agentstack_added_parameter_taking_a_name_is_an_import_error() {
    added_parameter_is_an_import_error(
        "agentstack",
        "limit/impl/limit.py",
        "return str(max_bytes)",
        "limit",
    );
}

/// `gen python --style agentstack -o out a b` in `dir` with `flags`, and
/// the notes of its JSON report that tell a tool's function name.
fn generate_shared(dir: &TempDir, flags: &[&str]) -> Vec<Value> {
    let generated = super::Test::new()
        .current_dir(dir.path())
        .args([
            "gen",
            "python",
            "--style",
            "agentstack",
            "-o",
            "out",
            "a",
            "b",
        ])
        .args(["--format", "json"])
        .args(flags)
        .run();
    assert_eq!(generated.code, 0, "{}", generated.stderr);
    let report: Value = serde_json::from_str(&generated.stdout).unwrap();
    report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["message"].as_str().unwrap_or("").contains("is function"))
        .cloned()
        .collect()
}

/// Two manifests in directories of one name make one AgentStack package,
/// whose function names are apart across both (gen makes each manifest's
/// part on its own worker, and the package again from both when they
/// meet): `get-time` of the first takes `get_time_2`, since the second's
/// `get_time` keeps its name, and the note saying so points at the first
/// manifest's line.
#[test]
fn manifests_sharing_a_package_get_names_apart_across_both() {
    let dir = TempDir::new("gen-python-names-shared-package");
    let tool = |name: &str| json!({"name": name, "description": "Tells.", "inputSchema": {"type": "object", "properties": {}}});
    let manifest = |names: [&str; 2]| {
        serde_json::to_string_pretty(&json!({"tools": names.map(tool)})).unwrap()
    };
    dir.write("a/weather/tools.json", manifest(["get-time", "forecast"]));
    dir.write("b/weather/tools.json", manifest(["get_time", "alerts"]));
    let renamed = generate_shared(&dir, &[]);
    let config: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("out/weather/config.json")).unwrap(),
    )
    .unwrap();
    let functions: Vec<&str> = config["tools"]
        .as_object()
        .expect("tools")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(functions, ["get_time_2", "forecast", "get_time", "alerts"]);
    assert_eq!(renamed.len(), 1, "{renamed:?}");
    assert_eq!(renamed[0]["path"], "a/weather/tools.json");
    // The name's own line in the pretty-printed manifest.
    let line = manifest(["get-time", "forecast"])
        .lines()
        .position(|l| l.contains("\"get-time\""))
        .unwrap()
        + 1;
    assert_eq!(renamed[0]["line"], line, "{}", renamed[0]);
    // The package imports: every function is defined once.
    let driver = "import sys\nsys.path.insert(0, sys.argv[1])\nimport weather\nprint(sorted(n for n in ('get_time', 'get_time_2', 'forecast', 'alerts') if callable(getattr(weather, n, None))).__len__())";
    let defined = drive(driver, &dir.path().join("out")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(defined, json!(4));
}

/// A manifest with nothing to say alone gets a note once its package is
/// made with another's: the note keeps its line and column (the report
/// needs the manifest's text), and a `--templates` template that only
/// holds for the shared package (it names a second source) does not fail
/// the run on the first manifest alone.
#[test]
fn a_shared_package_is_reported_and_templated_as_one() {
    let dir = TempDir::new("gen-python-names-shared-notes");
    let fixture = super::root().join("fixtures/convert/agentstack/weather");
    for name in ["config.json", "__init__.py"] {
        dir.write(
            &format!("b/weather/{name}"),
            std::fs::read(fixture.join(name)).unwrap(),
        );
    }
    let tool = |name: &str| json!({"name": name, "description": "Tells.", "inputSchema": {"type": "object", "properties": {}}});
    dir.write(
        "a/weather/tools.json",
        serde_json::to_string(&json!({"tools": [tool("forecast"), tool("other")]})).unwrap(),
    );
    let template =
        std::fs::read_to_string(super::root().join("templates/python/agentstack/__init__.py.j2"))
            .unwrap();
    dir.write(
        "templates/python/agentstack/__init__.py.j2",
        format!("# second source: {{{{ package.sources_doc[1] }}}}\n{template}"),
    );
    let renamed = generate_shared(&dir, &["--allow-errors", "--templates", "templates"]);
    let module = std::fs::read_to_string(dir.path().join("out/weather/__init__.py")).unwrap();
    assert!(
        module.starts_with("# second source: b/weather/config.json"),
        "{module}"
    );
    assert!(!renamed.is_empty());
    for note in &renamed {
        assert!(note["line"].is_u64() && note["column"].is_u64(), "{note}");
    }
}
