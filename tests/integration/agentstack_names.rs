//! AgentStack packages toolc writes, kept and run (issue 27): a function
//! whose parameters had to be renamed for Python (`max-bytes` is
//! `max_bytes`) is called by its keywords under `toolc run` and `toolc
//! serve`, while validation and the model keep the manifest's names.

use std::path::Path;

use serde_json::{Value, json};

use crate::{TempDir, Test};

/// A manifest with one tool whose parameters are no Python identifiers.
const MANIFEST: &str = r#"{"tools": [{"name": "fetch", "description": "Fetch a URL.",
  "schema": {"type": "object", "properties": {
    "url": {"type": "string", "description": "The URL."},
    "max-bytes": {"type": "integer", "description": "Limit."},
    "follow.links": {"type": "boolean", "description": "Follow."}},
   "required": ["url", "max-bytes"]},
  "command": ["./tools/bin/fetch"], "timeoutSec": 30}]}
"#;

/// The implementation: gives back what it was called with.
const IMPLEMENTATION: &str = "import json\n\n\ndef fetch(url, max_bytes, follow_links=None):\n    return json.dumps({\"url\": url, \"max_bytes\": max_bytes, \"follow_links\": follow_links})\n";

/// `gen python --style agentstack` of the manifest into `dir/as`, with the
/// implementation filled in; the package's directory.
fn generated(dir: &TempDir) -> std::path::PathBuf {
    dir.write("src/tools.json", MANIFEST);
    let generated = Test::new()
        .current_dir(dir.path())
        .args(["gen", "python", "src", "--style", "agentstack", "-o", "as"])
        .run();
    assert_eq!(generated.code, 0, "{}", generated.stderr);
    dir.write("as/fetch/impl/fetch.py", IMPLEMENTATION);
    dir.path().join("as")
}

fn run(package: &Path, arguments: &Value) -> crate::Output {
    Test::new()
        .args([
            "run",
            &package.display().to_string(),
            "fetch",
            "--args",
            &arguments.to_string(),
        ])
        .run()
}

/// What the function answered, read as JSON (the output is its text).
fn answer(output: &Value) -> Value {
    match output {
        Value::String(text) => serde_json::from_str(text).expect("the function's JSON"),
        other => other.clone(),
    }
}

#[test]
fn run_calls_a_renamed_parameter_by_its_python_name() {
    let dir = TempDir::new("agentstack-names-run");
    let package = generated(&dir);
    let ok = run(
        &package,
        &json!({"url": "u", "max-bytes": 1, "follow.links": true}),
    );
    assert_eq!(ok.code, 0, "{}\n{}", ok.stdout, ok.stderr);
    assert_eq!(
        answer(&ok.json()["output"]),
        json!({"url": "u", "max_bytes": 1, "follow_links": true})
    );
    // Validation is by the manifest's names, which the model is sent.
    let invalid = run(&package, &json!({"url": "u", "max_bytes": 1}));
    assert_eq!(invalid.code, 1, "{}", invalid.stdout);
    let error = &invalid.json()["error"];
    assert_eq!(error["code"], json!("VALIDATION_ERROR"), "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap_or_default()
            .contains("\"max-bytes\" is a required property")
            || error
                .to_string()
                .contains("\\\"max-bytes\\\" is a required property"),
        "{error}"
    );
}

/// An argument spelled as the Python keyword of a renamed parameter is
/// no parameter: the schema would let it through unchecked, and it would
/// take the validated value's place in the call.
#[test]
fn the_python_spelling_of_a_renamed_parameter_is_refused() {
    let dir = TempDir::new("agentstack-names-smuggled");
    let package = generated(&dir);
    for arguments in [
        json!({"url": "u", "max-bytes": 3, "max_bytes": "not an int"}),
        json!({"max_bytes": "evil", "url": "u", "max-bytes": 3}),
        json!({"url": "u", "max-bytes": 3, "follow_links": {"x": 1}}),
    ] {
        let refused = run(&package, &arguments);
        assert_eq!(refused.code, 1, "{arguments}: {}", refused.stdout);
        let error = &refused.json()["error"];
        assert_eq!(error["code"], json!("VALIDATION_ERROR"), "{error}");
        let message = error["message"].as_str().unwrap_or_default();
        assert!(message.contains("is no parameter of this tool"), "{error}");
    }
    let server = json!({"command": [
        env!("CARGO_BIN_EXE_toolc"), "serve", package.display().to_string()
    ]});
    let seen = crate::serve::drive(
        "call",
        server,
        "auto",
        json!({"calls": [["fetch", {"url": "u", "max-bytes": 3, "max_bytes": "evil"}]]}),
    );
    let call = &seen["calls"][0];
    assert_eq!(call["result"]["isError"], true, "{call}");
    let text = call["result"]["content"][0]["text"].as_str().expect("text");
    assert!(text.starts_with("VALIDATION_ERROR: "), "{text}");
}

/// The same for a program converted into NORA, which renamed `max-bytes`
/// to `max_bytes`: the program's own spelling is no argument of the NORA
/// tool.
#[test]
fn the_declared_spelling_of_a_renamed_parameter_is_refused() {
    let dir = TempDir::new("nora-names-smuggled");
    dir.write("src/tools.json", MANIFEST);
    let converted = Test::new()
        .current_dir(dir.path())
        .args(["convert", "--to", "nora", "src", "-o", "nora"])
        .run();
    assert_eq!(converted.code, 0, "{}", converted.stderr);
    let refused = Test::new()
        .args([
            "run",
            &dir.path().join("nora").display().to_string(),
            "fetch",
            "--args",
            r#"{"url": "u", "max_bytes": 3, "max-bytes": "evil"}"#,
        ])
        .run();
    assert_eq!(refused.code, 1, "{}", refused.stdout);
    let error = &refused.json()["error"];
    assert_eq!(error["code"], json!("VALIDATION_ERROR"), "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap_or_default()
            .contains("\"max-bytes\" is no parameter of this tool: send \"max_bytes\""),
        "{error}"
    );
}

#[test]
fn serve_calls_a_renamed_parameter_by_its_python_name() {
    let dir = TempDir::new("agentstack-names-serve");
    let package = generated(&dir);
    let server = json!({"command": [
        env!("CARGO_BIN_EXE_toolc"), "serve", package.display().to_string()
    ]});
    let listed = crate::serve::drive("list", server.clone(), "auto", json!({}));
    let listed = listed.to_string();
    for name in ["max-bytes", "follow.links"] {
        assert!(listed.contains(name), "{name} not listed: {listed}");
    }
    let seen = crate::serve::drive(
        "call",
        server,
        "auto",
        json!({"calls": [
            ["fetch", {"url": "u", "max-bytes": 2, "follow.links": false}],
            ["fetch", {"url": "u", "max_bytes": 2}],
        ]}),
    );
    let calls = seen["calls"].as_array().expect("calls");
    let [ok, invalid] = calls.as_slice() else {
        panic!("two calls: {seen}");
    };
    assert_eq!(ok["result"]["isError"], false, "{ok}");
    let text = ok["result"]["content"][0]["text"].as_str().expect("text");
    assert_eq!(
        answer(&serde_json::from_str(text).expect("JSON text")),
        json!({"url": "u", "max_bytes": 2, "follow_links": false})
    );
    assert_eq!(invalid["result"]["isError"], true, "{invalid}");
    let text = invalid["result"]["content"][0]["text"]
        .as_str()
        .expect("text");
    assert!(text.starts_with("VALIDATION_ERROR: "), "{text}");
    assert!(
        text.contains("\"max-bytes\" is a required property"),
        "{text}"
    );
}

#[test]
fn converted_package_imports_runs_and_lints_clean() {
    let dir = TempDir::new("agentstack-convert-package");
    dir.write("src/tools.json", MANIFEST);
    let converted = Test::new()
        .current_dir(dir.path())
        .args(["convert", "--to", "agentstack", "src", "-o", "as2"])
        .run();
    assert_eq!(converted.code, 0, "{}", converted.stderr);
    let out = dir.path().join("as2");
    // The package imports with the test venv's Python, its implementation
    // bound.
    let imported = std::process::Command::new(crate::sdk::python())
        .args(["-c", "import fetch; print(callable(fetch.fetch))"])
        .current_dir(&out)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("run python");
    assert!(
        imported.status.success(),
        "{}",
        String::from_utf8_lossy(&imported.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&imported.stdout).trim(), "True");
    // toolc runs it: the skeleton is called and says it is not implemented.
    let ran = run(&out, &json!({"url": "u", "max-bytes": 1}));
    let seen = format!("{}\n{}", ran.stdout, ran.stderr);
    assert!(!seen.contains("ModuleNotFoundError"), "{seen}");
    assert!(!seen.contains("TypeError"), "{seen}");
    assert!(seen.to_lowercase().contains("not implemented"), "{seen}");
    // Lint finds no error in it.
    let lint = Test::new()
        .args(["lint", "--format", "json", &out.display().to_string()])
        .run();
    assert_ne!(lint.code, 2, "{}", lint.stderr);
    assert_eq!(
        lint.json()["summary"]["errors"],
        json!(0),
        "{}",
        lint.stdout
    );
    assert_eq!(lint.json()["summary"]["files"], json!(1), "{}", lint.stdout);
}

#[test]
fn fresh_agentstack_output_is_no_stale_tool_list() {
    let dir = TempDir::new("agentstack-names-lint");
    generated(&dir);
    let lint = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--format", "json", "."])
        .run();
    assert_ne!(lint.code, 2, "{}", lint.stderr);
    let report = lint.json();
    let stale: Vec<&Value> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["rule"] == "stale-tool-list")
        .collect();
    assert!(stale.is_empty(), "{stale:?}");
    // The package was read: its parameters are the manifest's, by name
    // and description.
    assert_eq!(report["summary"]["files"], json!(2), "{}", lint.stdout);
}
