//! `convert --to agentcli` writes an executable program stub for each tool
//! whose command the output does not have, which `toolc run` runs; it never
//! replaces a program that is there.

use serde_json::json;

use super::super::{TempDir, Test};
use super::{run_result, toolc};

/// An MCP document of two tools, which say no program to run.
fn mcp() -> String {
    json!({"tools": [
        {"name": "lookup", "description": "Looks a word up.", "inputSchema": {
            "type": "object",
            "properties": {"word": {"type": "string", "description": "The word."}},
            "required": ["word"]}},
        {"name": "count", "description": "Counts.", "inputSchema": {
            "type": "object", "properties": {}}}
    ]})
    .to_string()
}

#[cfg(unix)]
fn mode(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .expect("metadata")
        .permissions()
        .mode()
        & 0o777
}

#[test]
fn converted_tools_get_executable_stubs_that_run() {
    let dir = TempDir::new("renames-stubs");
    dir.write("mcp.json", mcp());
    toolc(
        &["convert", "--to", "agentcli", "-o", "out", "mcp.json"],
        dir.path(),
    );
    for name in ["lookup", "count"] {
        let program = dir.path().join("out/tools/bin").join(name);
        assert!(program.is_file(), "no stub at {}", program.display());
        #[cfg(unix)]
        assert_eq!(mode(&program), 0o755, "{}", program.display());
    }
    let out = dir.path().join("out");
    let run = Test::new()
        .args([
            "run",
            "tools.json",
            "lookup",
            "--args",
            r#"{"word": "kept"}"#,
        ])
        .current_dir(&out)
        .run();
    assert_ne!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let result = run_result(&run.stdout);
    // Until it is written the stub fails, saying so, with the arguments it
    // read from stdin: an unwritten tool is no success.
    assert_eq!(result["success"], json!(false), "{result}");
    let error = result["error"].to_string();
    assert!(
        error.contains("lookup is not implemented yet") && error.contains("kept"),
        "{result}"
    );
}

#[test]
fn an_existing_program_is_never_replaced() {
    let dir = TempDir::new("renames-stubs-kept");
    dir.write("mcp.json", mcp());
    let mine = "#!/bin/sh\necho '{\"mine\": true}'\n";
    let program = dir.write("out/tools/bin/lookup", mine);
    toolc(
        &["convert", "--to", "agentcli", "-o", "out", "mcp.json"],
        dir.path(),
    );
    assert_eq!(std::fs::read_to_string(&program).expect("read"), mine);
    // The other tool got its stub; converting again keeps it, too.
    let count = dir.path().join("out/tools/bin/count");
    assert!(count.is_file(), "no stub at {}", count.display());
    std::fs::write(&count, "#!/bin/sh\necho '{}'\n").expect("write");
    toolc(
        &["convert", "--to", "agentcli", "-o", "out", "mcp.json"],
        dir.path(),
    );
    assert_eq!(
        std::fs::read_to_string(&count).expect("read"),
        "#!/bin/sh\necho '{}'\n"
    );
}
