//! The built-in tools through the public API (`toolc::run::builtin`):
//! file round trips in a scratch workspace, the size and encoding limits,
//! and `fetch` against an HTTP server on 127.0.0.1 (never beyond loopback):
//! refused by default, as a private address, and reached when the
//! workspace allows any address.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use toolc::run::builtin::{self, Action, Reach, Workspace};
use toolc::run::{ErrorCode, ToolResult};

use crate::TempDir;

fn run(ws: &Workspace, name: &str, arguments: Value) -> ToolResult {
    match builtin::call(ws, name, &arguments) {
        Action::Done(result) => result,
        Action::Shell { command, .. } => panic!("{name} asked to run {command:?}"),
    }
}

fn output(result: ToolResult) -> Value {
    assert!(result.success, "{}", result.to_json_line());
    result.output.expect("output")
}

fn workspace(dir: &TempDir) -> Workspace {
    Workspace::new(dir.path()).expect("workspace")
}

#[test]
fn write_then_list_then_read_round_trips() {
    let dir = TempDir::new("builtin-round-trip");
    let ws = workspace(&dir);
    let written = output(run(
        &ws,
        "write_file",
        json!({"path": "notes/today.md", "content": "héllo\n"}),
    ));
    assert_eq!(written, json!({"path": "notes/today.md", "bytes": 7}));
    dir.write("b.txt", "bb");
    std::fs::create_dir(dir.path().join("a-dir")).unwrap();

    let listed = output(run(&ws, "list_files", json!({"path": "."})));
    assert_eq!(
        listed,
        json!({"entries": [
            {"name": "a-dir", "type": "dir", "size": null},
            {"name": "b.txt", "type": "file", "size": 2},
            {"name": "notes", "type": "dir", "size": null},
        ], "truncated": false})
    );
    let recursive = output(run(
        &ws,
        "list_files",
        json!({"path": "", "recursive": true}),
    ));
    let names: Vec<&str> = recursive["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["a-dir", "b.txt", "notes", "notes/today.md"]);

    let read = output(run(&ws, "read_file", json!({"path": "notes/today.md"})));
    assert_eq!(read, json!("héllo\n"));
}

#[test]
fn write_file_replaces_and_leaves_no_temporary_file() {
    let dir = TempDir::new("builtin-no-temp");
    let ws = workspace(&dir);
    dir.write("f.txt", "old contents");
    output(run(
        &ws,
        "write_file",
        json!({"path": "f.txt", "content": "new"}),
    ));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("f.txt")).unwrap(),
        "new"
    );
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["f.txt"]);
}

#[test]
fn write_file_into_a_directory_fails_without_leaving_a_temporary_file() {
    let dir = TempDir::new("builtin-write-dir");
    let ws = workspace(&dir);
    std::fs::create_dir(dir.path().join("d")).unwrap();
    let result = run(&ws, "write_file", json!({"path": "d", "content": "x"}));
    assert_eq!(result.code(), Some(ErrorCode::ExecutionError));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn paths_outside_the_workspace_are_policy_denials() {
    let dir = TempDir::new("builtin-outside");
    let ws = workspace(&dir);
    for (name, arguments) in [
        ("read_file", json!({"path": "../x"})),
        (
            "write_file",
            json!({"path": "/tmp/toolc-escape", "content": "x"}),
        ),
        ("list_files", json!({"path": "a/../../"})),
    ] {
        let result = run(&ws, name, arguments);
        assert_eq!(result.code(), Some(ErrorCode::PolicyDenied), "{name}");
        assert_eq!(result.error.unwrap().details["rule"], "workspace");
    }
    match builtin::call(&ws, "shell", &json!({"command": "ls", "cwd": "../"})) {
        Action::Done(result) => assert_eq!(result.code(), Some(ErrorCode::PolicyDenied)),
        Action::Shell { .. } => panic!("shell ran outside the workspace"),
    }
}

#[test]
fn shell_becomes_a_command_for_the_executor() {
    let dir = TempDir::new("builtin-shell");
    let ws = workspace(&dir);
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let root = ws.root().to_path_buf();
    assert_eq!(
        builtin::call(&ws, "shell", &json!({"command": "echo hi"})),
        Action::Shell {
            command: "echo hi".into(),
            cwd: root.clone()
        }
    );
    assert_eq!(
        builtin::call(&ws, "shell", &json!({"command": "ls", "cwd": "sub"})),
        Action::Shell {
            command: "ls".into(),
            cwd: root.join("sub")
        }
    );
}

#[test]
fn listing_stops_at_ten_thousand_entries_and_says_so() {
    let dir = TempDir::new("builtin-list-cap");
    let ws = workspace(&dir);
    for i in 0..=builtin::LIST_CAP {
        std::fs::File::create(dir.path().join(format!("f{i:05}"))).unwrap();
    }
    let listed = output(run(&ws, "list_files", json!({"path": "."})));
    let entries = listed["entries"].as_array().unwrap();
    assert_eq!(entries.len(), builtin::LIST_CAP);
    assert_eq!(entries[0]["name"], "f00000");
    assert_eq!(listed["truncated"], true);
}

#[test]
fn reading_a_file_over_one_mib_is_output_too_large() {
    let dir = TempDir::new("builtin-big-read");
    let ws = workspace(&dir);
    dir.write("big.txt", vec![b'a'; 2 << 20]);
    dir.write("exact.txt", vec![b'a'; 1 << 20]);
    let result = run(&ws, "read_file", json!({"path": "big.txt"}));
    assert_eq!(result.code(), Some(ErrorCode::OutputTooLarge));
    let exact = output(run(&ws, "read_file", json!({"path": "exact.txt"})));
    assert_eq!(exact.as_str().unwrap().len(), 1 << 20);
}

#[test]
fn reading_non_utf8_or_a_directory_is_an_execution_error() {
    let dir = TempDir::new("builtin-non-text");
    let ws = workspace(&dir);
    dir.write("latin1.txt", [b'c', b'a', b'f', 0xe9]);
    let result = run(&ws, "read_file", json!({"path": "latin1.txt"}));
    assert_eq!(result.code(), Some(ErrorCode::ExecutionError));
    assert!(result.error.unwrap().message.contains("not UTF-8"));
    let result = run(&ws, "read_file", json!({"path": "."}));
    assert_eq!(result.code(), Some(ErrorCode::ExecutionError));
    let result = run(&ws, "read_file", json!({"path": "missing.txt"}));
    assert_eq!(result.code(), Some(ErrorCode::ExecutionError));
}

/// Serves every connection to 127.0.0.1:<port> from a thread, answering
/// each request's path with a handwritten HTTP/1.1 response.
fn serve() -> String {
    serve_counting().0
}

/// A server on 127.0.0.1 and the number of connections it accepted.
fn serve_counting() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepted = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&accepted);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            counter.fetch_add(1, Ordering::SeqCst);
            std::thread::spawn(move || answer(stream));
        }
    });
    (format!("http://127.0.0.1:{port}"), accepted)
}

fn answer(mut stream: TcpStream) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    let mut line = String::new();
    while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
        line.clear();
    }
    let path = request_line.split(' ').nth(1).unwrap_or("/").to_string();
    let (status, extra, body): (&str, String, Vec<u8>) = match path.as_str() {
        "/ok" => ("200 OK", "X-Test: yes\r\n".into(), b"hello".to_vec()),
        "/missing" => ("404 Not Found", String::new(), b"nope".to_vec()),
        "/redirect" => ("302 Found", "Location: /ok\r\n".into(), Vec::new()),
        "/to-file" => (
            "302 Found",
            "Location: file:///etc/passwd\r\n".into(),
            Vec::new(),
        ),
        "/loop" => ("302 Found", "Location: /loop\r\n".into(), Vec::new()),
        "/binary" => ("200 OK", String::new(), vec![0xff, 0xfe, 0x00]),
        "/big" => ("200 OK", String::new(), vec![b'a'; (5 << 20) + 1]),
        _ => ("500 Internal Server Error", String::new(), Vec::new()),
    };
    let head = format!(
        "HTTP/1.1 {status}\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    // The client may hang up early (an oversized body): that is fine.
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&body);
}

/// `fetch` from a workspace that may reach any address (the test server
/// is on loopback).
fn fetch(url: &str) -> ToolResult {
    let dir = TempDir::new("builtin-fetch");
    let ws = workspace(&dir).with_reach(Reach::Any);
    builtin::call(&ws, "fetch", &json!({ "url": url })).done()
}

trait Done {
    fn done(self) -> ToolResult;
}

impl Done for Action {
    fn done(self) -> ToolResult {
        match self {
            Action::Done(result) => result,
            Action::Shell { .. } => panic!("fetch asked for a shell"),
        }
    }
}

#[test]
fn fetch_returns_status_headers_and_body() {
    let base = serve();
    let ok = output(fetch(&format!("{base}/ok")));
    assert_eq!(ok["status"], 200);
    assert_eq!(ok["body"], "hello");
    assert_eq!(ok["body_encoding"], "utf-8");
    assert_eq!(ok["headers"]["x-test"], "yes");
    assert_eq!(ok["headers"]["content-length"], "5");
}

#[test]
fn fetch_reports_a_404_as_a_successful_call() {
    let base = serve();
    let missing = output(fetch(&format!("{base}/missing")));
    assert_eq!(missing["status"], 404);
    assert_eq!(missing["body"], "nope");
}

#[test]
fn fetch_follows_redirects_to_http_only_and_at_most_five() {
    let base = serve();
    let redirected = output(fetch(&format!("{base}/redirect")));
    assert_eq!(redirected["status"], 200);
    assert_eq!(redirected["body"], "hello");
    let to_file = fetch(&format!("{base}/to-file"));
    assert_eq!(
        to_file.code(),
        Some(ErrorCode::ExecutionError),
        "{to_file:?}"
    );
    let looped = fetch(&format!("{base}/loop"));
    assert_eq!(looped.code(), Some(ErrorCode::ExecutionError));
    assert!(looped.error.unwrap().message.contains("more than 5"));
}

#[test]
fn fetch_returns_binary_bodies_in_base64() {
    let base = serve();
    let binary = output(fetch(&format!("{base}/binary")));
    assert_eq!(binary["body"], "//4A");
    assert_eq!(binary["body_encoding"], "base64");
}

#[test]
fn fetch_refuses_a_body_over_five_mib() {
    let base = serve();
    let big = fetch(&format!("{base}/big"));
    assert_eq!(big.code(), Some(ErrorCode::OutputTooLarge), "{big:?}");
}

#[test]
fn fetch_refuses_other_schemes_and_reports_connection_errors() {
    for url in ["file:///etc/passwd", "ftp://127.0.0.1/x", "not a url"] {
        let result = fetch(url);
        assert_eq!(result.code(), Some(ErrorCode::ValidationError), "{url}");
    }
    // A port nothing listens on: bind one, then free it.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let refused = fetch(&format!("http://127.0.0.1:{port}/"));
    assert_eq!(refused.code(), Some(ErrorCode::ExecutionError));
}

#[test]
fn fetch_refuses_every_spelling_of_this_machine_by_default() {
    let (base, accepted) = serve_counting();
    let port = base.rsplit(':').next().unwrap().to_string();
    let dir = TempDir::new("builtin-fetch-private");
    let ws = workspace(&dir);
    // Each of these reaches the server above when allowed; none may.
    let hosts = [
        "127.0.0.1",
        "localhost",
        "127.1",
        "2130706433",
        "0x7f.0.0.1",
        "0.0.0.0",
        "[::1]",
        "[::ffff:127.0.0.1]",
        "[::]",
    ];
    for host in hosts {
        let url = format!("http://{host}:{port}/ok");
        let result = builtin::call(&ws, "fetch", &json!({ "url": url })).done();
        assert_eq!(
            result.code(),
            Some(ErrorCode::PolicyDenied),
            "{url}: {result:?}"
        );
        let error = result.error.unwrap();
        assert_eq!(error.details["rule"], "private-network", "{url}");
        assert!(
            error.message.contains("--allow-private-network"),
            "{url}: {}",
            error.message
        );
    }
    assert_eq!(
        accepted.load(Ordering::SeqCst),
        0,
        "a refused fetch connected"
    );
    // The same workspace allowed any address reaches it.
    let ok = output(
        builtin::call(
            &ws.with_reach(Reach::Any),
            "fetch",
            &json!({"url": format!("{base}/ok")}),
        )
        .done(),
    );
    assert_eq!(ok["body"], "hello");
    assert_eq!(accepted.load(Ordering::SeqCst), 1);
}

#[test]
fn toolc_run_fetch_reaches_loopback_only_with_allow_private_network() {
    let (base, accepted) = serve_counting();
    let dir = TempDir::new("builtin-fetch-cli");
    let arguments = json!({"url": format!("{base}/ok")}).to_string();
    let call = |extra: &[&str]| {
        let mut args = vec!["run", "builtin", "fetch", "--args", arguments.as_str()];
        args.extend_from_slice(extra);
        crate::Test::new().current_dir(dir.path()).args(args).run()
    };
    let denied = call(&[]);
    assert_eq!(denied.code, 1, "{}", denied.stderr);
    let line: Value = serde_json::from_str(denied.stdout.trim()).unwrap();
    assert_eq!(line["error"]["code"], "POLICY_DENIED", "{line}");
    assert_eq!(line["error"]["details"]["rule"], "private-network");
    assert_eq!(accepted.load(Ordering::SeqCst), 0);
    let allowed = call(&["--allow-private-network"]);
    assert_eq!(allowed.code, 0, "{} {}", allowed.stdout, allowed.stderr);
    let line: Value = serde_json::from_str(allowed.stdout.trim()).unwrap();
    assert_eq!(line["output"]["body"], "hello", "{line}");
    assert_eq!(accepted.load(Ordering::SeqCst), 1);
}

#[test]
fn unknown_names_are_not_found() {
    let dir = TempDir::new("builtin-unknown");
    let result = run(&workspace(&dir), "delete_everything", json!({}));
    assert_eq!(result.code(), Some(ErrorCode::NotFound));
}
