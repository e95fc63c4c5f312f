//! `toolc serve` under attack and bad luck: what a hostile review found,
//! each test failing without its fix. Real processes on loopback, the
//! official Python client where a client's view matters, raw bytes where
//! a client would not send them.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::{TempDir, root};

fn toolc() -> String {
    env!("CARGO_BIN_EXE_toolc").to_string()
}

/// The exit code of `child`, or `None` (it is killed) past `limit`.
fn wait_for(child: &mut Child, limit: Duration) -> Option<i32> {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status.code();
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs a scenario of serve_client.py (the official client) and returns
/// what it saw.
fn drive(scenario: &str, server: Value, extra: Value) -> Value {
    let mut config = json!({"server": server, "mode": "legacy"});
    if let (Some(config), Some(extra)) = (config.as_object_mut(), extra.as_object()) {
        config.extend(extra.clone());
    }
    let mut child = Command::new(crate::sdk::python())
        .arg(root().join("tests/integration/serve_client.py"))
        .arg(scenario)
        .arg(config.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the python client");
    let stdout = child.stdout.take().expect("stdout");
    let stderr = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || std::io::read_to_string(stdout).unwrap_or_default());
    let err = std::thread::spawn(move || std::io::read_to_string(stderr).unwrap_or_default());
    let status = wait_for(&mut child, Duration::from_secs(120));
    let (out, err) = (out.join().unwrap(), err.join().unwrap());
    assert_eq!(
        status,
        Some(0),
        "the client's {scenario} failed:\n{out}\n{err}"
    );
    serde_json::from_str(out.trim())
        .unwrap_or_else(|e| panic!("the client printed no JSON ({e}):\n{out}\n{err}"))
}

/// A manifest of one MCP tool with an output schema (`count`, an
/// integer) whose program prints what its `mode` asks for.
fn typed_tool(dir: &TempDir) -> String {
    dir.write(
        "bin/typed",
        "#!/bin/sh\nIFS= read -r line\ncase \"$line\" in\n  *wrong*) printf '{\"count\": \"three\"}\\n' ;;\n  *string*) printf '\"three\"\\n' ;;\n  *) printf '{\"count\": 3}\\n' ;;\nesac\n",
    );
    set_executable(&dir.path().join("bin/typed"));
    let manifest = json!({"tools": [{
        "name": "typed",
        "description": "Print a count, or something else.",
        "inputSchema": {"type": "object",
            "properties": {"mode": {"type": "string", "description": "What to print."}},
            "required": ["mode"]},
        "outputSchema": {"type": "object",
            "properties": {"count": {"type": "integer", "description": "A count."}},
            "required": ["count"]},
        "_meta": {"x-toolc": {"agentcli": {"command": ["bin/typed"], "timeoutSec": 10}}}
    }]});
    dir.write("tools.mcp.json", manifest.to_string())
        .display()
        .to_string()
}

fn set_executable(path: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

#[test]
fn output_breaking_the_output_schema_is_an_error_result_the_client_accepts() {
    let dir = TempDir::new("serve-hostile-typed");
    let manifest = typed_tool(&dir);
    let server = json!({"command": [toolc(), "serve", manifest]});
    let calls = json!({"calls": [
        ["typed", {"mode": "ok"}],
        ["typed", {"mode": "wrong"}],
        ["typed", {"mode": "string"}],
    ]});
    let seen = drive("call", server, calls);
    let calls = seen["calls"].as_array().expect("calls");
    // Conforming output: structured content the client validated.
    assert_eq!(
        calls[0]["result"]["structuredContent"],
        json!({"count": 3}),
        "{seen}"
    );
    // Not conforming: the client (which checks structuredContent against
    // the outputSchema and raises on a mismatch) gets an error result
    // saying why, not a success it must reject.
    for call in &calls[1..] {
        assert_eq!(call["result"]["isError"], true, "{seen}");
        let text = call["result"]["content"][0]["text"].as_str().unwrap_or("");
        assert!(text.starts_with("INVALID_OUTPUT: "), "{seen}");
        assert!(text.contains("output schema"), "{seen}");
    }
}
