//! `toolc serve` under attack and bad luck: what a hostile review found,
//! each test failing without its fix. Real processes on loopback, the
//! official Python client where a client's view matters, raw bytes where
//! a client would not send them.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use std::io::{Read, Write};

use serde_json::{Value, json};

use crate::sdk::wait_for;
use crate::{TempDir, root};

fn toolc() -> String {
    env!("CARGO_BIN_EXE_toolc").to_string()
}

/// Runs a scenario of serve_client.py (the official client) and returns
/// what it saw.
fn drive(scenario: &str, server: Value, extra: Value) -> Value {
    crate::serve::drive(scenario, server, "legacy", extra)
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
        assert!(text.contains("does not match its outputSchema"), "{seen}");
    }
}

/// The port of a loopback `http://127.0.0.1:PORT/mcp`.
fn port_of(url: &str) -> u16 {
    url.strip_prefix("http://127.0.0.1:")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .and_then(|port| port.parse().ok())
        .unwrap_or_else(|| panic!("not a loopback MCP URL: {url}"))
}

/// A `toolc serve --http 127.0.0.1:0` of `paths`, killed when dropped.
pub(crate) struct HttpServer {
    child: Child,
    pub(crate) port: u16,
}

impl HttpServer {
    pub(crate) fn start(flags: &[&str], paths: &[String]) -> HttpServer {
        let mut child = Command::new(toolc())
            .args(["serve", "--http", "127.0.0.1:0"])
            .args(flags)
            .args(paths)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start toolc serve --http");
        let port = port_of(&crate::serve::listening(&mut child, |_| {}));
        HttpServer { child, port }
    }

    /// Sends one POST /mcp of `body` with the extra `headers`; the status
    /// and the response's first bytes.
    pub(crate) fn post(&self, headers: &[(&str, String)], body: &str) -> (u16, String) {
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .expect("timeout");
        let mut request = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
             Connection: close\r\n",
            self.port,
            body.len()
        );
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(body);
        stream.write_all(request.as_bytes()).expect("send");
        let mut response = Vec::new();
        let mut chunk = [0u8; 4096];
        // Enough to see the status line and the start of the body.
        while response.len() < 400 {
            match stream.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => response.extend_from_slice(&chunk[..n]),
            }
        }
        let text = String::from_utf8_lossy(&response).to_string();
        let status = text
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no HTTP status in {text:?}"));
        (status, text)
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) fn initialize() -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}})
    .to_string()
}

#[test]
fn a_loopback_http_server_refuses_foreign_origins() {
    let dir = TempDir::new("serve-hostile-origin");
    let server = HttpServer::start(&[], &[typed_tool(&dir)]);
    let origin = |value: &str| vec![("Origin", value.to_string())];
    // No Origin (not a browser) and a loopback origin are served.
    assert_eq!(server.post(&[], &initialize()).0, 200);
    let local = format!("http://localhost:{}", server.port);
    assert_eq!(server.post(&origin(&local), &initialize()).0, 200);
    assert_eq!(
        server
            .post(&origin("http://127.0.0.1:5173"), &initialize())
            .0,
        200
    );
    // A web page elsewhere (or a rebound DNS name) is forbidden.
    for foreign in ["http://evil.example", "https://evil.example:8443", "null"] {
        let (status, response) = server.post(&origin(foreign), &initialize());
        assert_eq!(status, 403, "Origin {foreign}: {response}");
    }
}

/// The pids of the processes whose command line contains `text`.
pub(crate) fn running(text: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&cmdline)
            .replace('\0', " ")
            .contains(text)
        {
            found.push(pid);
        }
    }
    found
}

/// The served fixture of serve.rs (its `nap` tool sleeps in a child).
pub(crate) fn fixture() -> Vec<String> {
    ["tools.json", "elevated", "typed/tools.mcp.json"]
        .iter()
        .map(|p| root().join("fixtures/serve").join(p).display().to_string())
        .collect()
}

/// A stdio `toolc serve` of the fixture, initialized, running
/// `nap(seconds)` (a value no other test uses: the marker).
fn napping_server(seconds: &str) -> (Child, std::process::ChildStdin) {
    let mut child = Command::new(toolc())
        .arg("serve")
        .args(fixture())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start toolc serve");
    let mut stdin = child.stdin.take().expect("stdin");
    let messages = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "nap", "arguments": {"seconds": seconds.parse::<f64>().unwrap()}}}),
    ];
    for message in messages {
        writeln!(stdin, "{message}").expect("send");
    }
    let marker = format!("sleep {seconds}");
    let started = Instant::now();
    while running(&marker).is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the nap never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    (child, stdin)
}

#[test]
fn sigterm_kills_running_tools_at_once_not_after_the_runtime_grace() {
    let (mut child, _stdin) = napping_server("297.25");
    let sent = Instant::now();
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let code = wait_for(&mut child, Duration::from_secs(20));
    let took = sent.elapsed();
    assert_eq!(code, Some(143), "128 + SIGTERM");
    assert!(
        running("sleep 297.25").is_empty(),
        "the nap outlived the server"
    );
    // The calls are cancelled when the server stops: their processes die
    // within a few polls, not when the runtime's 5 s shutdown grace ends.
    assert!(took < Duration::from_secs(3), "SIGTERM took {took:?}");
}

/// A `toolc serve --http 127.0.0.1:0` of `paths` allowed `files` open
/// file descriptors; its port, and its stderr's lines counted as they come.
fn limited_http_server(
    files: u32,
    paths: &[String],
) -> (Child, u16, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -n {files} && exec \"$0\" serve --http 127.0.0.1:0 \"$@\""
        ))
        .arg(toolc())
        .args(paths)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start toolc serve --http");
    let counted = std::sync::Arc::new(AtomicUsize::new(0));
    let count = std::sync::Arc::clone(&counted);
    let url = crate::serve::listening(&mut child, move |_| {
        count.fetch_add(1, Ordering::Relaxed);
    });
    let port = port_of(&url);
    (child, port, counted)
}

/// The CPU time (user + system, in clock ticks) process `pid` used.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("stat");
    let after = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or("");
    after
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|t| t.parse::<u64>().ok())
        .sum()
}

#[test]
fn out_of_file_descriptors_the_server_neither_spins_nor_floods_its_log() {
    use std::sync::atomic::Ordering;
    let (mut child, port, lines) = limited_http_server(48, &fixture());
    // Idle connections until accept fails with EMFILE (the kernel's
    // backlog keeps taking connections the server cannot accept).
    let mut idle = Vec::new();
    for _ in 0..80 {
        let address = std::net::SocketAddr::from(([127, 0, 0, 1], port));
        if let Ok(stream) = std::net::TcpStream::connect_timeout(&address, Duration::from_secs(1)) {
            idle.push(stream);
        }
    }
    std::thread::sleep(Duration::from_millis(500));
    let (ticks, logged) = (cpu_ticks(child.id()), lines.load(Ordering::Relaxed));
    std::thread::sleep(Duration::from_secs(2));
    let ticks = cpu_ticks(child.id()) - ticks;
    let logged = lines.load(Ordering::Relaxed) - logged;
    drop(idle);
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        logged > 0,
        "accept never failed: the test opened too few connections"
    );
    // One retry (and one warning) per backoff, not a busy loop.
    assert!(logged < 100, "{logged} log lines in 2 s");
    assert!(
        ticks < 50,
        "{ticks} ticks of CPU in 2 s while out of descriptors"
    );
}

/// Whether the server closed `stream` (a read ends, rather than waiting).
pub(crate) fn closed_by_server(stream: &mut std::net::TcpStream) -> bool {
    stream
        .set_read_timeout(Some(Duration::from_millis(200)))
        .expect("timeout");
    let mut byte = [0u8; 512];
    loop {
        match stream.read(&mut byte) {
            Ok(0) => return true,
            // A 408 or the like before the close is fine.
            Ok(_) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return true,
            Err(_) => return false,
        }
    }
}

#[test]
fn connections_that_send_no_request_head_are_closed() {
    let server = HttpServer::start(&[], &fixture());
    let address = std::net::SocketAddr::from(([127, 0, 0, 1], server.port));
    let mut silent = std::net::TcpStream::connect(address).expect("connect");
    let mut trickle = std::net::TcpStream::connect(address).expect("connect");
    trickle
        .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .expect("send");
    std::thread::sleep(Duration::from_secs(12));
    // A client that comes in time is served meanwhile.
    assert_eq!(server.post(&[], &initialize()).0, 200);
    assert!(
        closed_by_server(&mut silent),
        "a silent connection stays open"
    );
    assert!(
        closed_by_server(&mut trickle),
        "a slow head keeps its connection"
    );
}

/// The `Mcp-Session-Id` of an HTTP response.
pub(crate) fn session_id(response: &str) -> Option<String> {
    response.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.eq_ignore_ascii_case("mcp-session-id")
            .then(|| value.trim().to_string())
    })
}

/// A raw JSON-RPC client of a stdio `toolc serve`: lines in, lines out.
pub(crate) struct RawStdio {
    child: Child,
    /// Taken (closed) by [`RawStdio::end`].
    stdin: Option<std::process::ChildStdin>,
    pub(crate) lines: std::sync::mpsc::Receiver<String>,
    next_id: u64,
}

impl RawStdio {
    pub(crate) fn start(args: &[String]) -> RawStdio {
        use std::io::BufRead;
        let mut child = Command::new(toolc())
            .arg("serve")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start toolc serve");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
        let (send, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let mut client = RawStdio {
            child,
            stdin: Some(stdin),
            lines,
            next_id: 1,
        };
        let initialized = client.request(
            "initialize",
            json!({
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}),
        );
        assert!(initialized.get("result").is_some(), "{initialized}");
        client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        client
    }

    /// Writes `line` and a newline to the server.
    pub(crate) fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("the server's input is open");
        stdin.write_all(line.as_bytes()).expect("send");
        stdin.write_all(b"\n").expect("send");
        stdin.flush().expect("flush");
    }

    pub(crate) fn send(&mut self, message: &Value) {
        self.send_line(&message.to_string());
    }

    /// The next message the server writes, within 30 s.
    pub(crate) fn next_message(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|e| panic!("no message from toolc serve ({e})"));
        serde_json::from_str(&line).expect("JSON-RPC")
    }

    /// Ends the server's input (EOF) and waits, at most 30 s, for it to
    /// exit.
    pub(crate) fn end(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "toolc serve did not exit within 30 s of its input's end"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Sends a request and returns its response (notifications skipped).
    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let answer = self.next_message();
            if answer["id"] == id {
                return answer;
            }
        }
    }

    /// Lists until the tools are `names` (a reload landed), for at most
    /// 10 s; past it the test fails with `why`.
    fn wait_for_tools(&mut self, names: &[&str], why: &str) {
        let started = Instant::now();
        while self.tool_names() != names {
            assert!(started.elapsed() < Duration::from_secs(10), "{why}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub(crate) fn tool_names(&mut self) -> Vec<String> {
        let listed = self.request("tools/list", json!({}));
        listed["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("{listed}"))
            .iter()
            .filter_map(|t| t["name"].as_str().map(str::to_string))
            .collect()
    }
}

impl RawStdio {
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for RawStdio {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_fifo_among_the_watched_files_does_not_hang_watch() {
    let dir = TempDir::new("serve-hostile-fifo");
    let manifest = dir.write(
        "tools.json",
        json!({"tools": [{
        "name": "first", "description": "Print nothing much.",
        "schema": {"type": "object"}, "command": ["/bin/true"]}]})
        .to_string(),
    );
    let mut client = RawStdio::start(&["--watch".to_string(), dir.path().display().to_string()]);
    assert_eq!(client.tool_names(), ["first"]);
    // A named pipe with a watched extension: opening it to read would
    // wait for a writer that never comes.
    let fifo = dir.path().join("pipe.json");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    std::thread::sleep(Duration::from_millis(1500));
    std::fs::remove_file(&fifo).expect("remove the fifo");
    std::fs::write(
        &manifest,
        json!({"tools": [{"name": "second", "description": "Print nothing much.",
            "schema": {"type": "object"}, "command": ["/bin/true"]}]})
        .to_string(),
    )
    .expect("edit");
    client.wait_for_tools(
        &["second"],
        "--watch no longer sees edits once a FIFO appeared",
    );
}

#[test]
fn watching_thousands_of_unchanged_files_costs_little_cpu() {
    let dir = TempDir::new("serve-hostile-many");
    dir.write(
        "tools.json",
        json!({"tools": [{
        "name": "first", "description": "Print nothing much.",
        "schema": {"type": "object"}, "command": ["/bin/true"]}]})
        .to_string(),
    );
    // Package code beside the manifest: watched (it could join the next
    // load), 24 MB in all.
    let code = "x = 1\n".repeat(1300);
    for n in 0..3000 {
        dir.write(&format!("pkg/module_{n}.py"), &code);
    }
    let mut client = RawStdio::start(&["--watch".to_string(), dir.path().display().to_string()]);
    assert_eq!(client.tool_names(), ["first"]);
    // Past the first polls, with every file older than a status-change
    // window, nothing changes: a poll should stat, not read and hash.
    std::thread::sleep(Duration::from_secs(4));
    let before = cpu_ticks(client.child.id());
    std::thread::sleep(Duration::from_secs(3));
    let ticks = cpu_ticks(client.child.id()) - before;
    // Hashing 24 MB every 0.4 s took ~200 ticks (of 300) in 3 s.
    assert!(
        ticks < 80,
        "{ticks} ticks of CPU in 3 s watching unchanged files"
    );
    assert_eq!(client.tool_names(), ["first"]);
}

#[test]
fn a_cursor_of_a_tool_list_changed_since_is_refused() {
    let dir = TempDir::new("serve-hostile-pages");
    let manifest = |names: &[&str]| {
        let tools: Vec<Value> = names
            .iter()
            .map(|name| {
                json!({"name": name, "description": "Print nothing much.",
                "schema": {"type": "object"}, "command": ["/bin/true"]})
            })
            .collect();
        json!({ "tools": tools }).to_string()
    };
    let path = dir.write("tools.json", manifest(&["alpha", "beta", "gamma"]));
    let mut client = RawStdio::start(&[
        "--watch".to_string(),
        "--page-size".to_string(),
        "1".to_string(),
        dir.path().display().to_string(),
    ]);
    let first = client.request("tools/list", json!({}));
    assert_eq!(first["result"]["tools"][0]["name"], "alpha", "{first}");
    let cursor = first["result"]["nextCursor"]
        .as_str()
        .expect("a cursor")
        .to_string();
    // The list changes between two pages: alpha goes.
    std::fs::write(&path, manifest(&["beta", "gamma"])).expect("edit");
    client.wait_for_tools(&["beta"], "never reloaded");
    // The old cursor (offset 1) would now skip beta: it is refused, and
    // says to list again.
    let stale = client.request("tools/list", json!({"cursor": cursor}));
    assert_eq!(stale["error"]["code"], -32602, "{stale}");
    assert!(
        stale["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("changed"),
        "{stale}"
    );
}
