//! What `gen python` changes to fit a format reads back undone: an
//! AgentStack tool's name that is no Python identifier (and what
//! `toolc run` and `toolc serve` then call it), a description through an
//! AgentStack docstring (as toolc reads it, and as Python does), a NORA
//! tool without a description.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use super::{TempDir, Test};

/// An MCP document of `tools` (each given empty parameters when it has
/// none), written as `dir/name/mcp.json`.
fn manifest(dir: &Path, name: &str, mut tools: Value) -> PathBuf {
    for tool in tools.as_array_mut().into_iter().flatten() {
        if let Some(tool) = tool.as_object_mut() {
            tool.entry("inputSchema")
                .or_insert_with(|| json!({"type": "object", "properties": {}}));
        }
    }
    let path = dir.join(name).join("mcp.json");
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("dir");
    std::fs::write(&path, json!({ "tools": tools }).to_string()).expect("write");
    path
}

/// (name, description) of each tool the front end reads from `paths`,
/// sorted.
fn read(paths: &[&Path]) -> Vec<(String, Option<String>)> {
    let output = Test::new()
        .args(["gen", "mcp", "--allow-errors"])
        .args(paths.iter().map(|p| p.to_string_lossy()))
        .run();
    assert_eq!(output.code, 0, "{}", output.stderr);
    let mut tools: Vec<(String, Option<String>)> = output.json()["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| {
            let name = t["name"].as_str().expect("a name").to_string();
            (name, t["description"].as_str().map(str::to_string))
        })
        .collect();
    tools.sort();
    tools
}

/// `gen python --style agentstack` of `input` into `out`.
fn gen_agentstack(input: &Path, out: &Path) {
    let (input, out) = (input.to_string_lossy(), out.to_string_lossy());
    let output = Test::new()
        .args(["gen", "python", "--style", "agentstack", "--allow-errors"])
        .args([&input, "-o", &out])
        .run();
    assert_eq!(output.code, 0, "{}", output.stderr);
}

/// The one package directory (holding config.json) under `out`.
fn package_dir(out: &Path) -> PathBuf {
    std::fs::read_dir(out)
        .expect("out")
        .map(|e| e.expect("entry").path())
        .find(|p| p.join("config.json").is_file())
        .expect("an AgentStack package")
}

fn config(package: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(package.join("config.json")).expect("read"))
        .expect("JSON")
}

#[test]
fn agentstack_names_read_back_and_are_what_run_and_serve_call() {
    let temp = TempDir::new("gen-python-read-back-names");
    let mut tools = json!([
        {"name": "look-up", "description": "Not an identifier."},
        {"name": "look_up", "description": "An identifier: keeps its name."},
        {"name": "class", "description": "A keyword."},
        {"name": "2d", "description": "Starts with a digit."},
        {"name": "echo", "description": "Declared twice."},
        {"name": "echo", "description": "Declared twice, again."},
    ]);
    let input = manifest(temp.path(), "names", tools.clone());
    let out = temp.path().join("out");
    gen_agentstack(&input, &out);
    assert_eq!(read(&[&out]), read(&[&input]));

    // config.json names the functions, and keeps the names they stand for.
    let package = package_dir(&out);
    let entries = config(&package)["tools"].clone();
    for (function, name) in [
        ("look_up", None),
        ("look_up_2", Some("look-up")),
        ("class_", Some("class")),
        ("tool_2d", Some("2d")),
        ("echo", None),
        ("echo_2", Some("echo")),
    ] {
        let x = &entries[function]["x-toolc"];
        assert_eq!(x["name"].as_str(), name, "{function}: {entries:#}");
        if name.is_some() {
            assert_eq!(x["name_as"], json!(function), "{function}: {entries:#}");
        }
    }

    // toolc run and toolc serve offer the tool under its manifest's name
    // and call its function (of a manifest without the duplicate, which
    // they refuse).
    tools.as_array_mut().expect("tools").pop();
    let input = manifest(temp.path(), "unique", tools);
    let out = temp.path().join("unique-out");
    gen_agentstack(&input, &out);
    let manifest = package_dir(&out).join("config.json");
    let manifest = manifest.to_string_lossy().to_string();
    let called = Test::new()
        .args(["run", &manifest, "look-up", "--args", "{}"])
        .run();
    assert_eq!(called.code, 0, "{}{}", called.stdout, called.stderr);
    assert_eq!(
        called.json()["output"],
        json!("Error: look_up_2 is not implemented yet.")
    );
    let by_function = Test::new()
        .args(["run", &manifest, "tool_2d", "--args", "{}"])
        .run();
    assert_eq!(by_function.code, 1, "{}", by_function.stdout);
    assert_eq!(by_function.json()["error"]["code"], json!("NOT_FOUND"));

    let server = json!({"command": [env!("CARGO_BIN_EXE_toolc"), "serve", &manifest]});
    let listed = crate::serve::drive("list", server.clone(), "auto", json!({}));
    let mut names: Vec<&str> = listed["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["2d", "class", "echo", "look-up", "look_up"]);
    let calls = crate::serve::drive(
        "call",
        server,
        "auto",
        json!({"calls": [["2d", {}], ["look-up", {}], ["look_up", {}]]}),
    );
    let texts: Vec<&str> = calls["calls"]
        .as_array()
        .expect("calls")
        .iter()
        .map(|c| c["result"]["content"][0]["text"].as_str().unwrap_or("?"))
        .collect();
    assert_eq!(
        texts,
        [
            "Error: tool_2d is not implemented yet.",
            "Error: look_up_2 is not implemented yet.",
            "Error: look_up is not implemented yet.",
        ],
        "{calls:#}"
    );
}

/// Descriptions a docstring must carry exactly: quotes, backslashes,
/// lines and paragraphs as written, escapes, long lines, none at all.
fn held_descriptions() -> Vec<(&'static str, Option<&'static str>)> {
    vec![
        ("bare", None),
        (
            "quotes",
            Some(
                "Say \"hi\" with ''' and \"\"\"triple\"\"\" quotes, \"\"\"\" four, and end on a quote\"",
            ),
        ),
        (
            "backslashes",
            Some(
                "A path C:\\temp\\new, a regex \\d+\\s*, \\\"\"\" and \\N{DASH}, a last backslash \\",
            ),
        ),
        (
            "lines",
            Some(
                "First line,\nsecond line, not reflowed;\n  an indented line.\n\n\nA paragraph after two blank lines, with a line longer than any linter would let a line of code be, kept whole as it was written.",
            ),
        ),
        (
            "spaces",
            Some(
                "Trailing spaces  \nA line separator\u{2028}inside, a no-break space\u{a0}, a bell \u{7}, ending in spaces  ",
            ),
        ),
    ]
}

/// Descriptions no docstring can hold as `inspect.cleandoc` reads it:
/// config.json's `"x-toolc"` keeps them.
const KEPT_IN_CONFIG: &[(&str, &str)] = &[
    ("tabbed", "A\ttab, which inspect.cleandoc expands."),
    ("leading", "  Leading spaces."),
    ("sections", "Looks like sections:\nArgs:\n    x: no."),
    ("trailing_lines", "Blank lines after.\n\n"),
];

fn descriptions_input(dir: &Path) -> PathBuf {
    let mut tools: Vec<Value> = held_descriptions()
        .into_iter()
        .map(|(name, description)| match description {
            Some(d) => json!({"name": name, "description": d}),
            None => json!({"name": name}),
        })
        .collect();
    tools.extend(
        KEPT_IN_CONFIG
            .iter()
            .map(|(name, d)| json!({"name": name, "description": d})),
    );
    manifest(dir, "descriptions", Value::Array(tools))
}

/// The tools of `package` whose config entry keeps a description.
fn kept_in_config(package: &Path) -> Vec<String> {
    let mut kept: Vec<String> = config(package)["tools"]
        .as_object()
        .expect("tools")
        .iter()
        .filter(|(_, entry)| entry["x-toolc"].get("description").is_some())
        .map(|(name, _)| name.clone())
        .collect();
    kept.sort();
    kept
}

#[test]
fn agentstack_descriptions_read_back_as_written_through_toolc_and_python() {
    let temp = TempDir::new("gen-python-read-back-descriptions");
    let input = descriptions_input(temp.path());
    let input_text = input.to_string_lossy().to_string();
    let mut expected_kept: Vec<String> =
        KEPT_IN_CONFIG.iter().map(|(n, _)| n.to_string()).collect();
    expected_kept.sort();
    for command in [
        &["gen", "python", "--style", "agentstack"][..],
        &["convert", "--to", "agentstack"][..],
    ] {
        let out = temp.path().join(command[1]);
        let out_text = out.to_string_lossy().to_string();
        let output = Test::new()
            .args(command)
            .args([&input_text, "-o", &out_text])
            .run();
        assert_eq!(output.code, 0, "{command:?}: {}", output.stderr);
        assert_eq!(read(&[&out]), read(&[&input]), "{command:?}");
        // Only what no docstring can hold is kept beside it.
        assert_eq!(
            kept_in_config(&package_dir(&out)),
            expected_kept,
            "{command:?}"
        );
    }

    // What Python reads from each docstring, before its sections, is the
    // manifest's description.
    let out = temp.path().join("python");
    let package = package_dir(&out);
    let script = r#"
import importlib, inspect, json, sys
sys.path.insert(0, sys.argv[1])
module = importlib.import_module(sys.argv[2])
seen = {}
for name in json.loads(sys.argv[3]):
    doc = "\n" + inspect.getdoc(getattr(module, name))
    for section in ("\n\nArgs:\n", "\n\nReturns:\n", "\nArgs:\n", "\nReturns:\n"):
        doc = doc.split(section)[0]
    seen[name] = doc[1:] or None
print(json.dumps(seen))
"#;
    let names: Vec<&str> = held_descriptions().iter().map(|(n, _)| *n).collect();
    let python = std::env::var_os("TOOLC_TEST_PYTHON").unwrap_or_else(|| "python3".into());
    let ran = Command::new(python)
        .args(["-c", script])
        .arg(out.as_os_str())
        .arg(package.file_name().expect("a name"))
        .arg(serde_json::to_string(&names).expect("JSON"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("run python");
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let seen: Value = serde_json::from_slice(&ran.stdout).expect("JSON");
    for (name, description) in held_descriptions() {
        assert_eq!(seen[name].as_str(), description, "{name}");
    }
}

#[test]
fn agentstack_descriptions_keep_the_generated_python_clean() {
    let temp = TempDir::new("gen-python-read-back-clean");
    let input = descriptions_input(temp.path());
    let out = temp.path().join("out");
    let scratch = temp.path().join("scratch");
    std::fs::create_dir_all(&scratch).expect("scratch");
    let output = Test::new()
        .args(["gen", "python", "--style", "agentstack", "-o"])
        .args([out.to_string_lossy(), input.to_string_lossy()])
        .run();
    assert_eq!(output.code, 0, "{}", output.stderr);
    let called = crate::gen_python::check_python("agentstack", &out, &scratch);
    assert_eq!(called, held_descriptions().len() + KEPT_IN_CONFIG.len());
}

#[test]
fn a_nora_tool_without_a_description_reads_back_without_one() {
    let temp = TempDir::new("gen-python-read-back-nora");
    let input = manifest(
        temp.path(),
        "nora",
        json!([
            {"name": "bare", "inputSchema": {"type": "object", "properties": {}}},
            {"name": "said", "description": "Has one."},
        ]),
    );
    let out = temp.path().join("out");
    let output = Test::new()
        .args(["gen", "python", "--style", "nora", "-o"])
        .args([out.to_string_lossy(), input.to_string_lossy()])
        .run();
    assert_eq!(output.code, 0, "{}", output.stderr);
    assert_eq!(read(&[&out]), read(&[&input]));
    assert_eq!(
        read(&[&out]),
        [
            ("bare".to_string(), None),
            ("said".to_string(), Some("Has one.".to_string()))
        ]
    );
    // NORA's required description is there, and the manifest lints clean.
    let bare: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("bare/tool.json")).expect("read"))
            .expect("JSON");
    assert_eq!(bare["description"], json!("bare"));
    assert_eq!(bare["x-toolc"].get("description"), Some(&Value::Null));
    let lint = Test::new()
        .args(["lint", "--format", "json"])
        .args([out.to_string_lossy()])
        .run();
    assert_eq!(lint.json()["diagnostics"], json!([]), "{}", lint.stdout);
    assert_eq!(lint.code, 0);
}
