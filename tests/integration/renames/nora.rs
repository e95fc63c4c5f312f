//! `convert --to nora` renames the parameters NORA cannot spell
//! (`max-bytes` is `max_bytes`) rather than refuse, says so with both
//! names, records the rename in `"x-toolc"`; `toolc run` gives the program
//! the original name; converting back restores it.

use serde_json::{Value, json};

use super::super::TempDir;
use super::{run_result, toolc};

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "The file."},
            "max-bytes": {"type": "integer", "description": "How many bytes."}
        },
        "required": ["path", "max-bytes"]
    })
}

/// An agentcli project whose tool `head` prints the arguments it got.
fn project(dir: &TempDir) {
    let manifest = json!({"tools": [{
        "name": "head",
        "description": "Reads the start of a file.",
        "schema": schema(),
        "command": ["./tools/bin/head"]
    }]});
    dir.write("a/tools.json", manifest.to_string());
}

/// The program: echoes its standard input, the arguments.
const ECHO: &str = "#!/bin/sh\ncat\n";

#[cfg(unix)]
fn install_echo(path: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(path.parent().expect("parent")).expect("dir");
    std::fs::write(path, ECHO).expect("write");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

fn read_json(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("JSON")
}

#[test]
fn nora_renames_records_and_reports() {
    let dir = TempDir::new("renames-nora");
    project(&dir);
    let output = super::super::Test::new()
        .args(["convert", "--to", "nora", "-o", "n", "a"])
        .current_dir(dir.path())
        .run();
    assert_eq!(output.code, 0, "{}", output.stderr);
    let info = output
        .stderr
        .lines()
        .find(|l| l.contains("\"max-bytes\"") && l.contains("\"max_bytes\""));
    assert!(
        info.is_some(),
        "no note with both names:\n{}",
        output.stderr
    );
    let manifest = read_json(&dir.path().join("n/head/tool.json"));
    let names: Vec<&String> = manifest["parameters"]["properties"]
        .as_object()
        .expect("properties")
        .keys()
        .collect();
    assert_eq!(names, ["path", "max_bytes"]);
    assert_eq!(
        manifest["x-toolc"]["parameter_names"],
        json!({"max_bytes": "max-bytes"})
    );
}

#[cfg(unix)]
#[test]
fn the_program_receives_the_original_name() {
    let dir = TempDir::new("renames-nora-run");
    project(&dir);
    toolc(&["convert", "--to", "nora", "-o", "n", "a"], dir.path());
    // The agentcli program, beside the NORA tool it now belongs to.
    install_echo(&dir.path().join("n/head/tools/bin/head"));
    let stdout = toolc(
        &[
            "run",
            "n/head",
            "head",
            "--args",
            r#"{"path": "x", "max_bytes": 3}"#,
        ],
        dir.path(),
    );
    let result = run_result(&stdout);
    assert_eq!(result["success"], json!(true), "{result}");
    assert_eq!(
        result["output"],
        json!({"path": "x", "max-bytes": 3}),
        "{result}"
    );
}

#[test]
fn converting_back_restores_the_names() {
    let dir = TempDir::new("renames-nora-back");
    project(&dir);
    toolc(&["convert", "--to", "nora", "-o", "n", "a"], dir.path());
    toolc(
        &["convert", "--to", "agentcli", "-o", "back", "n"],
        dir.path(),
    );
    let back = read_json(&dir.path().join("back/tools.json"));
    assert_eq!(back["tools"][0]["schema"].to_string(), schema().to_string());
    // And into a format that spells it, directly from NORA.
    toolc(
        &["convert", "--to", "mcp", "-o", "back.json", "n"],
        dir.path(),
    );
    let mcp = read_json(&dir.path().join("back.json"));
    assert_eq!(
        mcp["tools"][0]["inputSchema"].to_string(),
        schema().to_string()
    );
}

/// A NORA tool converted from agentcli runs the program it came with,
/// resolved against its own directory: while that program is not there,
/// lint warns where the command is kept and says what to do, and `run`
/// says the same instead of naming only a path.
#[test]
fn a_missing_carried_program_is_explained_by_lint_and_run() {
    let dir = TempDir::new("renames-nora-missing");
    project(&dir);
    toolc(&["convert", "--to", "nora", "-o", "n", "a"], dir.path());
    let lint = super::super::Test::new()
        .args(["lint", "n", "--format", "json"])
        .current_dir(dir.path())
        .run();
    let report: Value = serde_json::from_str(&lint.stdout).expect("JSON report");
    let found: Vec<&Value> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["rule"] == "command-not-found")
        .collect();
    assert_eq!(found.len(), 1, "{}", lint.stdout);
    let help = found[0]["help"].as_str().unwrap_or_default();
    assert!(
        help.contains("x-toolc") && help.contains("converted from"),
        "{help}"
    );
    let run = super::super::Test::new()
        .args([
            "run",
            "n/head",
            "head",
            "--args",
            r#"{"path": "x", "max_bytes": 3}"#,
        ])
        .current_dir(dir.path())
        .run();
    assert_ne!(run.code, 0);
    let result = run_result(&run.stdout);
    let message = result["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("converted from") && message.contains("remove \"agentcli\""),
        "{result}"
    );
    // With the program in place, it runs (see the test above).
    install_echo(&dir.path().join("n/head/tools/bin/head"));
    toolc(
        &[
            "run",
            "n/head",
            "head",
            "--args",
            r#"{"path": "x", "max_bytes": 3}"#,
        ],
        dir.path(),
    );
}
