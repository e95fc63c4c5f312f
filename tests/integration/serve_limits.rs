//! What one client may hold of `toolc serve` (issue 28, points 9, 10 and
//! 12): HTTP sessions, connections stalled in their body, connections
//! from one address, and stdio requests too large or too deep to parse.
//! Real servers on loopback with small limits, driven with raw bytes.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::serve_hostile::{
    HttpServer, RawStdio, closed_by_server, fixture, initialize, session_id,
};

/// Opens session `id`'s standalone stream (a GET held open, as a
/// listening client does) and returns it once the server answered 200.
fn listen(port: u16, id: &str) -> TcpStream {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    write!(
        stream,
        "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n\
         Mcp-Session-Id: {id}\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n"
    )
    .expect("send");
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).expect("a status line");
    let status = String::from_utf8_lossy(&head).to_string();
    assert_eq!(status, "HTTP/1.1 200", "the stream of {id}");
    stream
}

/// A new session; its id.
fn new_session(server: &HttpServer) -> String {
    let (status, response) = server.post(&[], &initialize());
    assert_eq!(status, 200, "{response}");
    let id = session_id(&response).unwrap_or_else(|| panic!("no session id: {response}"));
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let (status, response) = server.post(
        &[
            ("Mcp-Session-Id", id.clone()),
            ("MCP-Protocol-Version", "2025-11-25".to_string()),
        ],
        &initialized.to_string(),
    );
    assert!(status == 202 || status == 200, "{status}: {response}");
    id
}

/// Whether session `id` is still known to the server.
fn known(server: &HttpServer, id: &str) -> bool {
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}});
    let (status, response) = server.post(
        &[
            ("Mcp-Session-Id", id.to_string()),
            ("MCP-Protocol-Version", "2025-11-25".to_string()),
        ],
        &list.to_string(),
    );
    match status {
        200 => true,
        404 => false,
        _ => panic!("{status}: {response}"),
    }
}

#[test]
fn past_max_sessions_an_idle_one_makes_room_and_busy_ones_get_503_with_retry_after() {
    let server = HttpServer::start(
        &["--max-sessions", "4", "--session-idle-timeout", "2"],
        &fixture(),
    );
    // Four sessions, each with a client listening on its stream: busy.
    let ids: Vec<String> = (0..4).map(|_| new_session(&server)).collect();
    let mut streams: Vec<TcpStream> = ids.iter().map(|id| listen(server.port, id)).collect();
    // A fifth is refused, with when to come back; never a 500.
    let (status, response) = server.post(&[], &initialize());
    assert_eq!(status, 503, "{response}");
    assert!(
        response.to_ascii_lowercase().contains("\r\nretry-after: "),
        "{response}"
    );
    // The first client stops listening: its session, idle now, is closed
    // to make room for the new client, and the others keep theirs.
    drop(streams.remove(0));
    std::thread::sleep(Duration::from_millis(300));
    let newcomer = new_session(&server);
    assert!(!known(&server, &ids[0]), "the idle session was kept");
    assert!(known(&server, &ids[1]), "a busy session was closed");
    // Left alone past the idle timeout, a session expires.
    drop(streams);
    std::thread::sleep(Duration::from_millis(3500));
    assert!(!known(&server, &newcomer), "an idle session never expires");
}

#[test]
fn connections_stalled_in_their_body_are_closed_after_the_body_timeout() {
    let server = HttpServer::start(
        &[
            "--body-timeout",
            "1.5",
            "--max-connections-per-peer",
            "1000",
        ],
        &fixture(),
    );
    // Heads sent in full, bodies promised and never finished.
    let mut stalled: Vec<TcpStream> = (0..40)
        .map(|_| {
            let mut stream = TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
            write!(
                stream,
                "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n\
                 Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{{\"jsonrpc\"",
                server.port
            )
            .expect("send");
            stream
        })
        .collect();
    // A client that sends its request whole is served meanwhile.
    assert_eq!(server.post(&[], &initialize()).0, 200);
    std::thread::sleep(Duration::from_millis(2500));
    for (n, stream) in stalled.iter_mut().enumerate() {
        assert!(
            closed_by_server(stream),
            "stalled connection {n} is still open"
        );
    }
}

#[test]
fn connections_past_the_per_peer_limit_are_refused_and_a_closed_one_makes_room() {
    let server = HttpServer::start(&["--max-connections-per-peer", "3"], &fixture());
    let held: Vec<TcpStream> = (0..3)
        .map(|_| TcpStream::connect(("127.0.0.1", server.port)).expect("connect"))
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let mut fourth = TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
    fourth
        .set_read_timeout(Some(Duration::from_secs(5)))
        .expect("timeout");
    let mut answer = String::new();
    let _ = fourth.read_to_string(&mut answer);
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 503"),
        "{answer}"
    );
    drop(held);
    let started = Instant::now();
    while server.post(&[], &initialize()).0 != 200 {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "no room after closing"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Sends `line` raw and returns the next message carrying `id` (or an
/// error with a null id).
fn send_raw(client: &mut RawStdio, line: &str, id: &Value) -> Value {
    client.send_line(line);
    loop {
        let answer = client
            .lines
            .recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|e| panic!("no answer to a refused request ({e})"));
        let answer: Value = serde_json::from_str(&answer).expect("JSON-RPC");
        if &answer["id"] == id {
            return answer;
        }
    }
}

/// A request whose params nest `levels` arrays deep.
fn nested(id: &Value, levels: usize) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{"x":{}{}}}}}"#,
        "[".repeat(levels),
        "]".repeat(levels)
    )
}

#[test]
fn a_stdio_request_nested_200_deep_gets_an_error_and_the_server_goes_on() {
    let mut client = RawStdio::start(&fixture());
    let answer = send_raw(&mut client, &nested(&json!(41), 200), &json!(41));
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    // Too deep to find the id in is answered with a null one.
    let flat = format!("[{}]", nested(&json!(43), 200));
    let answer = send_raw(&mut client, &flat, &Value::Null);
    assert!(answer["error"]["code"].is_i64(), "{answer}");
    assert!(
        !client.tool_names().is_empty(),
        "the server stopped serving"
    );
}

#[test]
fn an_oversized_stdio_request_gets_an_error_and_the_server_goes_on() {
    let mut args = vec!["--max-request-size".to_string(), "64KiB".to_string()];
    args.extend(fixture());
    let mut client = RawStdio::start(&args);
    let padding = "x".repeat(100 * 1024);
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":"big","method":"tools/list","params":{{"pad":"{padding}"}}}}"#
    );
    let answer = send_raw(&mut client, &line, &json!("big"));
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("larger than")),
        "{answer}"
    );
    // Just under the limit still passes.
    let list = json!({"jsonrpc": "2.0", "id": "small", "method": "tools/list",
        "params": {"_meta": {"pad": "y".repeat(60 * 1024)}}});
    let answer = send_raw(&mut client, &list.to_string(), &json!("small"));
    assert!(answer.get("result").is_some(), "{answer}");
    assert!(
        !client.tool_names().is_empty(),
        "the server stopped serving"
    );
}

#[test]
fn sigterm_answers_and_audits_every_call_taken_running_or_queued_as_a_shutdown() {
    let dir = crate::TempDir::new("serve-limits-sigterm");
    let audit = dir.path().join("audit.jsonl");
    let mut args = vec![
        "--max-concurrency".to_string(),
        "2".to_string(),
        "--audit".to_string(),
        audit.display().to_string(),
    ];
    args.extend(fixture());
    let mut client = RawStdio::start(&args);
    // Two naps run (the marker: a value no other test uses), three wait
    // for a slot.
    let ids: Vec<u64> = (100..105).collect();
    for id in &ids {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "nap", "arguments": {"seconds": 293.75}}});
        client.send(&call);
    }
    let started = Instant::now();
    while crate::serve_hostile::running("sleep 293.75").len() < 2 {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the naps never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = client.pid();
    let status = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let mut answered = std::collections::BTreeMap::new();
    while answered.len() < ids.len() {
        let Ok(line) = client.lines.recv_timeout(Duration::from_secs(20)) else {
            break;
        };
        let answer: Value = serde_json::from_str(&line).expect("JSON-RPC");
        if let Some(id) = answer["id"].as_u64() {
            answered.insert(id, answer);
        }
    }
    let found: Vec<u64> = answered.keys().copied().collect();
    assert_eq!(found, ids, "calls answered: {answered:?}");
    for (id, answer) in &answered {
        let text = answer.to_string();
        assert!(text.contains("shutting down"), "call {id}: {text}");
        assert!(!text.contains("client cancelled"), "call {id}: {text}");
    }
    let records = std::fs::read_to_string(&audit).unwrap_or_default();
    assert_eq!(
        records.lines().filter(|l| !l.trim().is_empty()).count(),
        ids.len(),
        "one audit record per call:\n{records}"
    );
}
