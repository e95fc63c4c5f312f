//! `toolc serve`: the official MCP Python client (`mcp`, pinned in the test
//! venv; tests/integration/serve_client.py drives it) against the real
//! server, over stdio and over Streamable HTTP on loopback, under each of
//! the three protocol revisions.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::sdk::wait_for;
use crate::{TempDir, Test, root};

/// The served fixture: agentcli tools (echo, nap, stall), a tier-3 Nachos
/// tool with network egress, two MCP tools with an output schema (the
/// output of `miscount` does not match it).
fn fixture() -> Vec<String> {
    ["tools.json", "elevated", "typed/tools.mcp.json"]
        .iter()
        .map(|p| root().join("fixtures/serve").join(p).display().to_string())
        .collect()
}

/// Manifest order: the files as the front end reads them (sorted by path).
const ORDER: [&str; 6] = [
    "elevated_echo",
    "echo",
    "nap",
    "stall",
    "describe",
    "miscount",
];

fn toolc() -> String {
    env!("CARGO_BIN_EXE_toolc").to_string()
}

/// The client's view of a stdio server started with `flags`.
fn stdio(flags: &[&str]) -> Value {
    let mut command = vec![toolc(), "serve".to_string()];
    command.extend(flags.iter().map(|f| f.to_string()));
    command.extend(fixture());
    json!({"command": command})
}

/// The URL a `toolc serve --http` child says it listens on (its stderr
/// line `toolc serve: listening on URL`), within a minute. Every line of
/// its stderr, that one included, goes to `sink`, now and later (a thread
/// keeps reading, so the server never blocks on a full pipe); the test
/// fails with those lines if the server ends before it listens.
pub(crate) fn listening(child: &mut Child, mut sink: impl FnMut(&str) + Send + 'static) -> String {
    let stderr = child.stderr.take().expect("stderr piped");
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut seen = String::new();
        let mut sender = Some(sender);
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            sink(&line);
            if let Some(url) = line.strip_prefix("toolc serve: listening on ") {
                if let Some(sender) = sender.take() {
                    let _ = sender.send(Ok(url.trim().to_string()));
                }
            } else if sender.is_some() {
                seen.push_str(&line);
                seen.push('\n');
            }
        }
        if let Some(sender) = sender {
            let _ = sender.send(Err(seen));
        }
    });
    match receiver.recv_timeout(Duration::from_secs(60)) {
        Ok(Ok(url)) => url,
        Ok(Err(seen)) => {
            let _ = child.kill();
            panic!("toolc serve --http ended before listening:\n{seen}")
        }
        Err(_) => {
            let _ = child.kill();
            panic!("toolc serve --http did not say where it listens within a minute")
        }
    }
}

/// A `toolc serve --http 127.0.0.1:0` of the fixture, stopped (SIGTERM)
/// when dropped.
struct HttpServer {
    child: Child,
    url: String,
    stderr: Arc<Mutex<String>>,
}

impl HttpServer {
    fn start(flags: &[&str]) -> HttpServer {
        let mut child = Command::new(toolc())
            .args(["serve", "--http", "127.0.0.1:0"])
            .args(flags)
            .args(fixture())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start toolc serve --http");
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = Arc::clone(&stderr);
        let url = listening(&mut child, move |line| {
            sink.lock().unwrap().push_str(&format!("{line}\n"));
        });
        assert!(url.starts_with("http://127.0.0.1:"), "{url}");
        assert!(url.ends_with("/mcp"), "{url}");
        HttpServer { child, url, stderr }
    }

    fn server(&self) -> Value {
        json!({"url": self.url})
    }

    /// Sends SIGTERM and returns the exit code and stdout (the log must
    /// show no panic).
    fn stop(mut self) -> (Option<i32>, String) {
        terminate(self.child.id());
        let status = wait_for(&mut self.child, Duration::from_secs(20));
        let mut stdout = String::new();
        if let Some(mut out) = self.child.stdout.take() {
            let _ = std::io::Read::read_to_string(&mut out, &mut stdout);
        }
        let log = self.stderr.lock().unwrap().clone();
        assert!(!log.contains("panicked"), "{log}");
        (status, stdout)
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn terminate(pid: u32) {
    let status = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
}

/// Runs a scenario of serve_client.py against `server` and returns what the
/// client saw; fails the test with everything the client printed.
pub(crate) fn drive(scenario: &str, server: Value, mode: &str, extra: Value) -> Value {
    let mut config = json!({"server": server, "mode": mode});
    if let (Some(config), Some(extra)) = (config.as_object_mut(), extra.as_object()) {
        config.extend(extra.clone());
    }
    crate::sdk::drive("serve_client.py", scenario, &config)
}

fn names(tools: &Value) -> Vec<&str> {
    tools
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("name"))
        .collect()
}

fn tool<'v>(tools: &'v Value, name: &str) -> &'v Value {
    tools
        .as_array()
        .expect("tools")
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name} in {tools}"))
}

fn check_list(seen: &Value) {
    let tools = &seen["tools"];
    assert_eq!(names(tools), ORDER, "{seen}");
    assert_eq!(seen["pages"], 1);
    // Nachos egress to a host: an open world.
    assert_eq!(
        tool(tools, "elevated_echo")["annotations"],
        json!({"openWorldHint": true})
    );
    // The MCP tool keeps its title, annotations and output schema; how
    // toolc runs it (its "x-toolc" in _meta) is not listed.
    let describe = tool(tools, "describe");
    assert_eq!(describe["title"], "Describe the arguments");
    assert_eq!(
        describe["annotations"],
        json!({"readOnlyHint": true, "idempotentHint": true})
    );
    assert_eq!(describe["outputSchema"]["required"], json!(["echo"]));
    assert!(describe.get("_meta").is_none(), "{describe}");
    // An agentcli tool says nothing of its effects.
    let echo = tool(tools, "echo");
    assert!(echo.get("annotations").is_none(), "{echo}");
    assert_eq!(echo["inputSchema"]["required"], json!(["text"]));
    // A cursor this server never gave is invalid params.
    assert_eq!(seen["bad_cursor"]["code"], -32602, "{seen}");
}

#[test]
fn lists_the_tools_in_manifest_order_with_their_annotations_over_stdio() {
    check_list(&drive("list", stdio(&[]), "auto", json!({})));
}

#[test]
fn lists_the_tools_in_manifest_order_with_their_annotations_over_http() {
    let server = HttpServer::start(&[]);
    check_list(&drive("list", server.server(), "auto", json!({})));
    let (code, stdout) = server.stop();
    assert_eq!(code, Some(143), "SIGTERM: 128 + 15");
    assert_eq!(stdout, "", "the HTTP server prints nothing on stdout");
}

#[test]
fn the_builtin_tools_are_annotated_from_their_actions() {
    let workspace = TempDir::new("serve-builtin");
    let server = json!({"command": [toolc(), "serve", "--workspace", workspace.path().display().to_string(), "builtin"]});
    let seen = drive("list", server, "auto", json!({}));
    let tools = &seen["tools"];
    assert_eq!(
        names(tools),
        ["list_files", "read_file", "write_file", "shell", "fetch"]
    );
    let hints = |name| tool(tools, name)["annotations"].clone();
    assert_eq!(hints("read_file"), json!({"readOnlyHint": true}));
    let destructive = json!({"readOnlyHint": false, "destructiveHint": true});
    assert_eq!(hints("write_file"), destructive);
    assert_eq!(hints("shell"), destructive);
    assert_eq!(
        hints("fetch"),
        json!({"readOnlyHint": true, "openWorldHint": true})
    );
}

#[test]
fn pages_follow_the_page_size() {
    let seen = drive("list", stdio(&["--page-size", "2"]), "auto", json!({}));
    assert_eq!(seen["pages"], 3, "{seen}");
    assert_eq!(names(&seen["tools"]), ORDER);
    let server = HttpServer::start(&["--page-size", "4"]);
    let seen = drive("list", server.server(), "legacy", json!({}));
    assert_eq!(seen["pages"], 2, "{seen}");
    assert_eq!(names(&seen["tools"]), ORDER);
}

/// The text of a call's only content block.
fn text(call: &Value) -> &str {
    call["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text content in {call}"))
}

fn check_calls(seen: &Value) {
    let calls = seen["calls"].as_array().expect("calls");
    let [ok, typed, invalid, refused, timeout, unknown, miscount] = calls.as_slice() else {
        panic!("seven calls: {seen}");
    };
    // Success: the output as text; no structuredContent without a schema.
    assert_eq!(ok["result"]["isError"], false, "{ok}");
    let output: Value = serde_json::from_str(text(ok)).expect("JSON text");
    assert_eq!(output, json!({"echo": {"text": "hi"}}));
    assert!(ok["result"].get("structuredContent").is_none(), "{ok}");
    // With an output schema, the JSON output is also structuredContent.
    assert_eq!(
        typed["result"]["structuredContent"],
        json!({"echo": {"text": "typed"}}),
        "{typed}"
    );
    // Validation error, policy refusal, timeout: results with isError
    // whose text starts with the code and the message.
    for (call, code) in [
        (invalid, "VALIDATION_ERROR: "),
        (refused, "POLICY_DENIED: "),
        (timeout, "TIMEOUT: "),
        (miscount, "INVALID_OUTPUT: "),
    ] {
        assert_eq!(call["result"]["isError"], true, "{call}");
        assert!(text(call).starts_with(code), "{call}");
    }
    assert!(text(invalid).contains("\"text\" is a required property"));
    assert!(text(refused).contains("security tier 3"), "{refused}");
    assert!(text(miscount).contains("\"count\" is a required property"));
    // An unknown tool is a JSON-RPC error: invalid params.
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    assert!(
        unknown["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no tool named \"ehco\""),
        "{unknown}"
    );
}

fn calls() -> Value {
    json!({"calls": [
        ["echo", {"text": "hi"}],
        ["describe", {"text": "typed"}],
        ["echo", {"txt": "hi"}],
        ["elevated_echo", {"text": "hi"}],
        ["stall", {}],
        ["ehco", {"text": "hi"}],
        ["miscount", {"text": "hi"}],
    ]})
}

#[test]
fn calls_succeed_and_failures_are_results_over_stdio() {
    check_calls(&drive("call", stdio(&[]), "auto", calls()));
}

#[test]
fn calls_succeed_and_failures_are_results_over_http() {
    let server = HttpServer::start(&[]);
    check_calls(&drive("call", server.server(), "legacy", calls()));
}

/// A client that closes its session (HTTP DELETE, under the revisions
/// that have sessions) is answered as the transport specification says
/// (200 or 204): the official client logs "Session termination failed" on
/// anything else, and Python warnings are errors in the driver.
#[test]
fn closing_an_http_session_draws_no_complaint_from_the_sdk() {
    for (mode, flags, expected) in REVISIONS {
        let server = HttpServer::start(flags);
        let seen = drive("close", server.server(), mode, json!({}));
        assert_eq!(seen["protocol_version"], expected, "{seen}");
        assert!(seen["tools"].as_u64().is_some_and(|n| n > 0), "{seen}");
        assert_eq!(seen["complaints"], json!([]), "{mode} {flags:?}: {seen}");
    }
}

/// The three revisions: 2026-07-28 (pinned by the client), 2025-11-25 (the
/// client's initialize), 2025-06-18 (the only one the server offers), and
/// the client's own negotiation (discover, then initialize) against a
/// server that offers only 2025-06-18.
const REVISIONS: [(&str, &[&str], &str); 4] = [
    ("2026-07-28", &[], "2026-07-28"),
    ("legacy", &[], "2025-11-25"),
    (
        "legacy",
        &["--protocol-version", "2025-06-18"],
        "2025-06-18",
    ),
    ("auto", &["--protocol-version", "2025-06-18"], "2025-06-18"),
];

fn check_revision(seen: &Value, expected: &str) {
    assert_eq!(seen["protocol_version"], expected, "{seen}");
    let [echo] = seen["calls"].as_array().expect("calls").as_slice() else {
        panic!("one call: {seen}");
    };
    assert_eq!(echo["result"]["isError"], false, "{echo}");
}

#[test]
fn each_revision_lists_and_calls_over_stdio() {
    for (mode, flags, expected) in REVISIONS {
        let calls = json!({"calls": [["echo", {"text": "hi"}]]});
        check_revision(&drive("call", stdio(flags), mode, calls), expected);
    }
}

#[test]
fn each_revision_lists_and_calls_over_http() {
    for (mode, flags, expected) in REVISIONS {
        let server = HttpServer::start(flags);
        let calls = json!({"calls": [["echo", {"text": "hi"}]]});
        check_revision(&drive("call", server.server(), mode, calls), expected);
    }
}

fn check_cancel(seen: &Value) {
    let sleeping = |list: &Value| {
        list.as_array()
            .expect("processes")
            .iter()
            .filter(|p| p["command"].as_str().unwrap_or("").contains("sleep 300"))
            .count()
    };
    assert_eq!(sleeping(&seen["during"]), 1, "the tool ran: {seen}");
    assert_eq!(sleeping(&seen["after"]), 0, "processes left: {seen}");
    assert_eq!(seen["outcome"], "cancelled", "{seen}");
    assert_eq!(seen["then"]["isError"], false, "{seen}");
}

fn cancel(root: Option<u32>) -> Value {
    json!({
        "tool": "nap", "arguments": {"seconds": 300}, "after": 1.5,
        "marker": "sleep 300", "then": ["echo", {"text": "after"}],
        "root": root,
    })
}

#[test]
fn a_cancelled_call_leaves_no_process_behind_over_stdio() {
    check_cancel(&drive("cancel", stdio(&[]), "legacy", cancel(None)));
    check_cancel(&drive("cancel", stdio(&[]), "2026-07-28", cancel(None)));
}

#[test]
fn a_cancelled_call_leaves_no_process_behind_over_http() {
    let server = HttpServer::start(&[]);
    let pid = Some(server.child.id());
    check_cancel(&drive("cancel", server.server(), "legacy", cancel(pid)));
    check_cancel(&drive("cancel", server.server(), "2026-07-28", cancel(pid)));
}

#[test]
fn eight_concurrent_calls_overlap() {
    let nap = 3.0;
    let server = HttpServer::start(&["--max-concurrency", "8"]);
    let config = json!({"tool": "nap", "arguments": {"seconds": nap}, "count": 8});
    let seen = drive("concurrent", server.server(), "auto", config);
    let seconds = seen["seconds"].as_f64().expect("seconds");
    let results = seen["results"].as_array().expect("results");
    assert_eq!(results.len(), 8);
    for result in results {
        assert_eq!(result["isError"], false, "{result}");
    }
    // One after the other they would take 24 s; overlapping, 3 s and the
    // cost of starting 8 sandboxed processes on a busy machine.
    assert!(
        seconds >= nap && seconds < 2.0 * nap,
        "8 naps of {nap} s took {seconds} s"
    );
}

#[test]
fn calls_beyond_max_concurrency_wait_their_turn() {
    let nap = 0.5;
    let config = json!({"tool": "nap", "arguments": {"seconds": nap}, "count": 3});
    let seen = drive(
        "concurrent",
        stdio(&["--max-concurrency", "1"]),
        "auto",
        config,
    );
    let seconds = seen["seconds"].as_f64().expect("seconds");
    for result in seen["results"].as_array().expect("results") {
        assert_eq!(result["isError"], false, "waiting is not refusal: {result}");
    }
    assert!(
        seconds >= 3.0 * nap,
        "3 naps of {nap} s, one at a time, took {seconds} s"
    );
}

#[test]
fn manifests_with_errors_are_refused_at_start_with_the_report() {
    let dir = TempDir::new("serve-broken");
    dir.write(
        "tools.json",
        r#"{"tools": [{"name": "broken", "description": "No command.", "schema": {"type": "object"}}]}"#,
    );
    let output = Test::new()
        .args([
            "serve",
            &dir.path().join("tools.json").display().to_string(),
        ])
        .run();
    // As toolc run: the tools cannot be served, exit 2.
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert_eq!(output.stdout, "");
    assert!(
        output.stderr.contains("TC201(empty-command)"),
        "the report: {}",
        output.stderr
    );
    assert!(
        output
            .stderr
            .contains("not running tools of manifests with errors"),
        "{}",
        output.stderr
    );
}

#[test]
fn a_remote_address_needs_allow_remote() {
    let output = Test::new()
        .args(["serve", "--http", "0.0.0.0:0"])
        .args(fixture())
        .run();
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert!(
        output.stderr.contains("--allow-remote"),
        "{}",
        output.stderr
    );
    let output = Test::new()
        .args(["serve", "--protocol-version", "2024-11-05"])
        .args(fixture())
        .run();
    assert_eq!(output.code, 2, "{}", output.stderr);
}

/// JSON-RPC lines a client would send: initialize, initialized, list, call.
fn session(call: &str, arguments: Value) -> String {
    [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": call, "arguments": arguments}}),
    ]
    .iter()
    .map(|m| format!("{m}\n"))
    .collect()
}

/// `toolc serve FLAGS <fixture>` over pipes, with one raw `session` (see
/// [`session`]) written to its stdin, which stays open: dropping it is the
/// client's end. The child, its stdin, and its stdout's lines.
fn raw_stdio(
    flags: &[&str],
    session: &str,
) -> (
    Child,
    std::process::ChildStdin,
    std::io::Lines<BufReader<std::process::ChildStdout>>,
) {
    let mut child = Command::new(toolc())
        .arg("serve")
        .args(flags)
        .args(fixture())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start toolc serve");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(session.as_bytes()).unwrap();
    let lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    (child, stdin, lines)
}

/// A client's mistake (a call of a tool that is not there) is answered,
/// not logged as the server's warning: at the default level stderr stays
/// empty; at info the SDK's account of the error answer shows.
#[test]
fn a_clients_mistake_is_no_warning_of_the_server() {
    for (level, logged) in [("warn", false), ("info", true)] {
        let (mut child, stdin, mut lines) =
            raw_stdio(&["--log-level", level], &session("no_such_tool", json!({})));
        let answers: Vec<Value> = (0..3)
            .map(|_| serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap())
            .collect();
        let call = answers
            .iter()
            .find(|a| a["id"] == 3)
            .expect("the call's answer");
        assert_eq!(call["error"]["code"], -32602, "{call}");
        drop(stdin);
        assert_eq!(wait_for(&mut child, Duration::from_secs(20)), Some(0));
        let stderr = std::io::read_to_string(child.stderr.take().unwrap()).unwrap();
        assert!(!stderr.contains("warning"), "{level}: {stderr}");
        assert_eq!(stderr.contains("no_such_tool"), logged, "{level}: {stderr}");
    }
}

#[test]
fn stdout_carries_nothing_but_protocol_and_stdin_eof_ends_the_server() {
    let dir = TempDir::new("serve-audit");
    let audit = dir.path().join("audit.jsonl");
    let audit_arg = audit.to_string_lossy().into_owned();
    let (mut child, stdin, mut lines) = raw_stdio(
        &["--log-level", "debug", "--audit", &audit_arg],
        &session("echo", json!({"text": "hi"})),
    );
    let mut answered = Vec::new();
    while answered.len() < 3 {
        let line = lines.next().expect("a response").expect("a line");
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("not JSON-RPC on stdout ({e}): {line}"));
        assert_eq!(message["jsonrpc"], "2.0", "{line}");
        answered.push(message);
    }
    // A server may answer requests in any order (tools/list and tools/call
    // run at the same time): each answer is read by its id.
    answered.sort_by_key(|message| message["id"].as_u64());
    let ids: Vec<Option<u64>> = answered.iter().map(|m| m["id"].as_u64()).collect();
    assert_eq!(ids, [Some(1), Some(2), Some(3)], "{answered:?}");
    assert_eq!(answered[0]["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(names(&answered[1]["result"]["tools"]), ORDER);
    assert_eq!(answered[2]["result"]["isError"], false);
    drop(stdin);
    let status = wait_for(&mut child, Duration::from_secs(20));
    assert_eq!(status, Some(0), "stdin EOF ends the server cleanly");
    assert!(lines.next().is_none(), "nothing more on stdout");
    let stderr = std::io::read_to_string(child.stderr.take().unwrap()).unwrap();
    assert!(
        stderr.contains("toolc serve: info: call echo: ok"),
        "{stderr}"
    );
    // --audit as in toolc run: one line per call.
    let lines = std::fs::read_to_string(&audit).expect("the audit log");
    let [line] = lines.lines().collect::<Vec<_>>()[..] else {
        panic!("one call, one line: {lines}");
    };
    let record: Value = serde_json::from_str(line).expect("a JSON line");
    assert_eq!(record["tool"], "echo", "{record}");
}

/// The processes below `pid` whose command line contains `text`.
fn descendants_running(pid: u32, text: &str) -> Vec<u32> {
    let mut parents = std::collections::HashMap::new();
    let mut commands = std::collections::HashMap::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(id) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let (Ok(stat), Ok(cmdline)) = (
            std::fs::read_to_string(entry.path().join("stat")),
            std::fs::read(entry.path().join("cmdline")),
        ) else {
            continue;
        };
        let after = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or("");
        let ppid: u32 = after
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse().ok())
            .unwrap_or(0);
        parents.insert(id, ppid);
        commands.insert(id, String::from_utf8_lossy(&cmdline).replace('\0', " "));
    }
    let below = |mut id: u32| {
        for _ in 0..64 {
            match parents.get(&id) {
                Some(&parent) if parent == pid => return true,
                Some(&parent) if parent > 1 => id = parent,
                _ => return false,
            }
        }
        false
    };
    commands
        .iter()
        .filter(|(id, command)| below(**id) && command.contains(text))
        .map(|(id, _)| *id)
        .collect()
}

/// Whether process `pid` still runs a command line containing `text`.
fn still_running(pid: u32, text: &str) -> bool {
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    String::from_utf8_lossy(&cmdline)
        .replace('\0', " ")
        .contains(text)
}

#[test]
fn sigterm_cancels_running_calls_and_exits_143() {
    let (mut child, stdin, _lines) = raw_stdio(&[], &session("nap", json!({"seconds": 300})));
    let pid = child.id();
    let started = Instant::now();
    let napping = loop {
        let napping = descendants_running(pid, "sleep 300");
        if !napping.is_empty() {
            break napping;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the nap never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    terminate(pid);
    let status = wait_for(&mut child, Duration::from_secs(20));
    assert_eq!(status, Some(143), "128 + SIGTERM");
    // Reparented processes would no longer be below toolc: each one is
    // looked up by its pid.
    let left: Vec<u32> = napping
        .into_iter()
        .filter(|p| still_running(*p, "sleep 300"))
        .collect();
    assert!(left.is_empty(), "left running: {left:?}");
    drop(stdin);
}

#[test]
fn a_client_that_closes_stdin_at_once_ends_the_server_with_0() {
    let output = Test::new().args(["serve"]).args(fixture()).run();
    assert_eq!(output.code, 0, "{}", output.stderr);
    assert_eq!(output.stdout, "");
}

#[test]
fn requests_piped_before_stdin_closes_are_all_answered() {
    // `printf '...' | toolc serve`: the session ends at the end of input,
    // and the answers rmcp has written by then still reach stdout. Before
    // the server waited for them, about one run in three lost the last.
    let mut requests = vec![
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "piped", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ];
    for id in 1..=4 {
        requests.push(json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}));
    }
    requests.push(json!({"jsonrpc": "2.0", "id": 5, "method": "ping"}));
    let input: String = requests.iter().map(|r| format!("{r}\n")).collect();
    for run in 0..15 {
        let output = Test::new()
            .args(["serve"])
            .args(fixture())
            .stdin(input.clone())
            .run();
        assert_eq!(output.code, 0, "run {run}: {}", output.stderr);
        let mut ids: Vec<i64> = output
            .stdout
            .lines()
            .map(|line| serde_json::from_str::<Value>(line).expect("a JSON line"))
            .filter_map(|answer| answer["id"].as_i64())
            .collect();
        ids.sort_unstable();
        assert_eq!(ids, [0, 1, 2, 3, 4, 5], "run {run}:\n{}", output.stdout);
    }
}

/// `initialize`, `notifications/initialized` and `lists` tools/list
/// requests, a line each.
fn piped_lists(lists: usize) -> String {
    let mut text = format!(
        "{}\n{}\n",
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "piped", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    );
    for id in 1..=lists {
        text.push_str(&format!(
            "{}\n",
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"})
        ));
    }
    text
}

#[test]
fn a_client_that_stops_reading_does_not_hold_the_server_after_stdin_ends() {
    // 500 answers fill every pipe between rmcp and the client: rmcp's
    // writer waits on them, and once did so for ever.
    let (mut child, stdin, _unread) = raw_stdio(&[], &piped_lists(500));
    drop(stdin);
    let started = Instant::now();
    let code = wait_for(&mut child, Duration::from_secs(60));
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("read stderr");
    assert_eq!(
        code,
        Some(0),
        "ended after {:?}: {stderr}",
        started.elapsed()
    );
    assert!(stderr.contains("took nothing for"), "{stderr}");
}

#[test]
fn a_client_that_reads_slowly_after_stdin_ends_gets_every_answer() {
    // About a megabyte of answers, read over longer than any grace the
    // server gives a client that stopped reading.
    let (mut child, stdin, lines) = raw_stdio(&[], &piped_lists(500));
    drop(stdin);
    let started = Instant::now();
    let mut ids = Vec::new();
    for (n, line) in lines.enumerate() {
        let line = line.expect("read an answer");
        let answer: Value = serde_json::from_str(&line).expect("a JSON answer");
        ids.push(answer["id"].as_i64().expect("an id"));
        if n % 25 == 0 {
            std::thread::sleep(Duration::from_millis(300));
        }
    }
    let code = wait_for(&mut child, Duration::from_secs(30));
    assert_eq!(code, Some(0));
    assert!(
        started.elapsed() > Duration::from_secs(5),
        "read too fast to be slow: {:?}",
        started.elapsed()
    );
    ids.sort_unstable();
    assert_eq!(ids, (0..=500).collect::<Vec<i64>>());
}

#[test]
fn a_signal_while_the_last_answers_wait_ends_the_server_as_a_signal() {
    let (mut child, stdin, mut unread) = raw_stdio(&[], &piped_lists(500));
    drop(stdin);
    // One answer read: the session (and toolc's signal handling) is up;
    // the other answers stick in the pipes soon after.
    unread.next().expect("an answer").expect("read an answer");
    std::thread::sleep(Duration::from_secs(1));
    terminate(child.id());
    let started = Instant::now();
    let code = wait_for(&mut child, Duration::from_secs(20));
    assert_eq!(code, Some(143), "128 + SIGTERM");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "SIGTERM took {:?}",
        started.elapsed()
    );
}

#[test]
fn the_answer_to_a_refused_initialize_is_written_before_the_exit() {
    let initialize = format!(
        "{}\n",
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "old", "version": "1"}}})
    );
    for run in 0..10 {
        let output = Test::new()
            .args(["serve", "--protocol-version", "2026-07-28"])
            .args(fixture())
            .stdin(initialize.clone())
            .run();
        assert_ne!(output.code, 0, "run {run}: {}", output.stderr);
        let answer: Value = serde_json::from_str(output.stdout.trim())
            .unwrap_or_else(|e| panic!("run {run}: {e}: {:?}", output.stdout));
        assert_eq!(answer["id"], 0, "run {run}: {answer}");
        assert!(answer["error"]["code"].is_i64(), "run {run}: {answer}");
    }
}

#[test]
fn a_refused_line_is_answered_even_when_no_session_starts() {
    // Too deep for rmcp's parser: the screen answers it, then stdin ends
    // and rmcp never starts a session.
    let deep = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"ping\",\"params\":{}{}}}\n",
        "[".repeat(200),
        "]".repeat(200)
    );
    for run in 0..20 {
        let output = Test::new()
            .args(["serve"])
            .args(fixture())
            .stdin(deep.clone())
            .run();
        let answer: Value = serde_json::from_str(output.stdout.trim())
            .unwrap_or_else(|e| panic!("run {run}: {e}: {:?}", output.stdout));
        assert_eq!(answer["id"], 99, "run {run}: {answer}");
        assert_eq!(answer["error"]["code"], -32600, "run {run}: {answer}");
    }
}

#[test]
fn sigint_ends_a_server_reading_a_terminal_at_once() {
    // A terminal on stdin (as when a person starts toolc serve) is read by
    // a blocking thread, which must not hold the exit.
    let (mut controller, mut terminal) = (0, 0);
    // SAFETY: openpty writes two descriptors into the given integers.
    let opened = unsafe {
        libc::openpty(
            &mut controller,
            &mut terminal,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(opened, 0, "openpty");
    // SAFETY: both descriptors were just opened and are owned here.
    let (controller, terminal) = unsafe {
        use std::os::fd::FromRawFd;
        (
            std::fs::File::from_raw_fd(controller),
            std::fs::File::from_raw_fd(terminal),
        )
    };
    let mut child = Command::new(toolc())
        .arg("serve")
        .args(fixture())
        .stdin(terminal.try_clone().unwrap())
        .stdout(terminal)
        .stderr(Stdio::piped())
        .spawn()
        .expect("start toolc serve");
    // Ready when it answers: a signal sent before it handles signals would
    // prove nothing (and under load 500 ms was not always enough).
    let mut typed = controller.try_clone().unwrap();
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "terminal", "version": "1"}}});
    writeln!(typed, "{initialize}").unwrap();
    let mut seen = Vec::new();
    let mut reader = controller.try_clone().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buffer = [0u8; 4096];
        while let Ok(n @ 1..) = reader.read(&mut buffer) {
            if tx.send(buffer[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    while !String::from_utf8_lossy(&seen).contains("\"result\"") {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(bytes) => seen.extend(bytes),
            Err(_) => panic!("no answer: {}", String::from_utf8_lossy(&seen)),
        }
    }
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let started = Instant::now();
    let code = wait_for(&mut child, Duration::from_secs(20));
    assert_eq!(code, Some(130), "128 + SIGINT");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "took {:?}",
        started.elapsed()
    );
    drop(controller);
}

#[test]
fn runner_warnings_are_logged_once_at_start() {
    let output = Test::new()
        .args(["serve", "--no-sandbox"])
        .args(fixture())
        .run();
    assert_eq!(output.code, 0, "{}", output.stderr);
    assert_eq!(
        output.stderr.matches("warning: the sandbox is off").count(),
        1,
        "{}",
        output.stderr
    );
    let quiet = Test::new()
        .args(["serve", "--no-sandbox", "--log-level", "error"])
        .args(fixture())
        .run();
    assert_eq!(quiet.code, 0, "{}", quiet.stderr);
    assert_eq!(quiet.stderr, "");
}
