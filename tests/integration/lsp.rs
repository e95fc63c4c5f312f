//! `toolc server`, the language server, driven by real clients: pygls's
//! `LanguageClient` (tests/integration/lsp_client.py, one scenario per
//! test) and, for what no polite client does, raw protocol bytes.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

use super::TempDir;

/// Runs one scenario of lsp_client.py in a fresh workspace; its `ok`
/// lines must all be there.
fn scenario(name: &str, expected: &[&str]) {
    let workspace = TempDir::new(&format!("lsp-{name}"));
    let script = super::root().join("tests/integration/lsp_client.py");
    let output = Command::new(super::sdk::python())
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_toolc"))
        .arg(workspace.path())
        .arg(name)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("run the LSP client");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "scenario {name} failed:\n{stdout}\n{stderr}"
    );
    for line in expected {
        assert!(
            stdout.lines().any(|l| l == format!("ok {line}")),
            "scenario {name}: no \"ok {line}\" in\n{stdout}\n{stderr}"
        );
    }
}

#[test]
fn pull_diagnostics_fixes_hover_and_symbols() {
    scenario(
        "pull",
        &[
            "diagnostic at its place (pull)",
            "quick fix applied and re-checked",
            "fix-all applied and re-checked",
            "hover shows what a model sees",
            "document symbols",
            "hover explains a finding's rule",
            "shutdown and exit",
        ],
    );
}

#[test]
fn pushed_diagnostics_follow_each_change_and_close() {
    scenario(
        "push",
        &[
            "diagnostic at its place (push)",
            "quick fix applied and re-checked",
            "fix-all applied and re-checked",
            "closing clears pushed findings",
            "shutdown and exit",
        ],
    );
}

#[test]
fn positions_in_utf8_when_negotiated() {
    scenario("utf8", &["utf-8 positions"]);
}

#[test]
fn package_code_definitions_and_unsaved_code() {
    scenario(
        "packages",
        &[
            "definition: AgentStack tool to its function",
            "definition: Nachos manifest to its class",
            "definition: agentcli command to its program",
            "a finding in unsaved code, in the code file",
            "definition into an unsaved buffer",
        ],
    );
}

#[test]
fn settings_and_toolc_toml_changes_recheck() {
    scenario(
        "configuration",
        &[
            "initializationOptions",
            "didChangeConfiguration re-checks and asks to pull again",
            "ignore in toolc.toml, applied and re-checked",
            "ignore appends to an existing toolc.toml",
            "a pyproject.toml's [tool.toolc], watched, and ignore appends to it",
        ],
    );
}

#[test]
fn every_bad_fixture_shows_in_the_editor_as_lint_reports_it() {
    scenario("formats", &[]);
}

#[test]
fn completion_from_the_formats_schema() {
    scenario(
        "completion",
        &["completion of keys", "completion of enumerated values"],
    );
}

#[test]
fn duplicate_names_across_files_point_at_each_other() {
    scenario(
        "duplicates",
        &["duplicate name with the other file as related information"],
    );
}

/// A server spoken to in raw bytes; what it sends is read on a thread.
struct Raw {
    child: Child,
    stdin: Option<ChildStdin>,
    messages: Receiver<Value>,
}

impl Raw {
    fn start() -> Raw {
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolc"))
            .arg("server")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start toolc server");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout");
        let (send, messages) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(n) = line.strip_prefix("Content-Length: ") {
                        length = n.parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0; length];
                if reader.read_exact(&mut body).is_err() {
                    return;
                }
                let Ok(value) = serde_json::from_slice(&body) else {
                    return;
                };
                if send.send(value).is_err() {
                    return;
                }
            }
        });
        Raw {
            child,
            stdin,
            messages,
        }
    }

    fn bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin");
        stdin.write_all(bytes).expect("write");
        stdin.flush().expect("flush");
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        self.bytes(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    }

    /// The next message with `id`, skipping notifications and requests.
    fn answer(&self, id: Value) -> Value {
        loop {
            let message = self
                .messages
                .recv_timeout(Duration::from_secs(60))
                .expect("the server answered");
            if message.get("id") == Some(&id) && message.get("method").is_none() {
                return message;
            }
        }
    }

    fn initialize(&mut self, pull: bool) {
        let capabilities = if pull {
            json!({"textDocument": {"diagnostic": {}}})
        } else {
            json!({})
        };
        self.send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"capabilities": capabilities}}));
        let answer = self.answer(json!(0));
        assert!(answer["result"]["capabilities"].is_object(), "{answer}");
        self.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    }

    fn open(&mut self, path: &Path, text: &str) {
        self.send(json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": file_uri(path), "languageId": "json", "version": 1, "text": text}}}));
    }

    fn diagnostics(&mut self, id: i64, path: &Path) -> Value {
        self.send(
            json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/diagnostic",
            "params": {"textDocument": {"uri": file_uri(path)}}}),
        );
        self.answer(json!(id))
    }

    /// Ends the session in order; the exit code.
    fn stop(mut self) -> Option<i32> {
        self.send(json!({"jsonrpc": "2.0", "id": 999, "method": "shutdown"}));
        self.answer(json!(999));
        self.send(json!({"jsonrpc": "2.0", "method": "exit"}));
        drop(self.stdin.take());
        self.child.wait().expect("wait").code()
    }
}

fn file_uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

fn codes(answer: &Value) -> Vec<String> {
    answer["result"]["items"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| d["code"].as_str().unwrap_or("").to_string())
        .collect()
}

const BROKEN: &str = r#"{"name": "greet", "entrypoint": "main.py", "description": "Greets",
"parameters": {"type": "object", "properties": {"who": {"type": "string", "description": "whom"}}}}
"#;

/// A NORA tool under `dir/name` whose manifest is [`BROKEN`], with its
/// entrypoint; the manifest's path.
fn broken_package(dir: &TempDir, name: &str) -> std::path::PathBuf {
    dir.write(
        &format!("{name}/main.py"),
        "def run(params):\n    return 1\n",
    );
    dir.write(&format!("{name}/tool.json"), BROKEN)
}

#[test]
fn invalid_json_rpc_is_answered_and_the_server_goes_on() {
    let dir = TempDir::new("lsp-invalid");
    let tool = broken_package(&dir, "greet");
    let mut server = Raw::start();
    // Before initialize: refused with ServerNotInitialized.
    server.send(json!({"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover", "params": {}}));
    assert_eq!(server.answer(json!(1))["error"]["code"], -32002);
    server.initialize(true);
    server.bytes(b"Content-Length: 9\r\n\r\n{not json");
    let parse = server.answer(Value::Null);
    assert_eq!(parse["error"]["code"], -32700, "{parse}");
    server.send(json!([1, 2, 3]));
    assert_eq!(server.answer(Value::Null)["error"]["code"], -32600);
    server.send(json!({"jsonrpc": "2.0", "id": {"an": "object"}, "method": "x"}));
    assert_eq!(server.answer(Value::Null)["error"]["code"], -32600);
    server.send(json!({"jsonrpc": "2.0", "id": 2, "method": "no/such/method"}));
    assert_eq!(server.answer(json!(2))["error"]["code"], -32601);
    // Parameters of the wrong shape: an error, not a crash.
    server
        .send(json!({"jsonrpc": "2.0", "id": 3, "method": "textDocument/diagnostic", "params": 7}));
    assert_eq!(server.answer(json!(3))["error"]["code"], -32602);
    server.send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"nonsense": true}}),
    );
    server.open(&tool, BROKEN);
    let answer = server.diagnostics(4, &tool);
    assert_eq!(codes(&answer), ["TC401"]);
    // The finding links its rule's page.
    let finding = &answer["result"]["items"][0];
    let rule = finding["data"]["rule"].as_str().expect("rule");
    assert_eq!(
        finding["codeDescription"]["href"],
        format!(
            "{}/blob/main/docs/rules/{rule}.md",
            env!("CARGO_PKG_REPOSITORY")
        )
    );
    assert_eq!(server.stop(), Some(0));
}

#[test]
fn a_document_of_fifty_megabytes_is_a_finding_not_a_hang() {
    let dir = TempDir::new("lsp-huge");
    let tool = dir.path().join("huge/tool.json");
    let mut text = String::from(r#"{"name": "huge", "description": ""#);
    text.push_str(&"x".repeat(50 * 1024 * 1024));
    text.push_str("\"}\n");
    let mut server = Raw::start();
    server.initialize(true);
    server.open(&tool, &text);
    drop(text);
    let answer = server.diagnostics(1, &tool);
    assert_eq!(codes(&answer), ["TC003"], "{answer}");
    // And it still answers.
    let small = broken_package(&dir, "small");
    server.open(&small, BROKEN);
    assert_eq!(codes(&server.diagnostics(2, &small)), ["TC401"]);
    assert_eq!(server.stop(), Some(0));
}

#[test]
fn ten_thousand_changes_in_a_burst_end_in_the_last_text() {
    let dir = TempDir::new("lsp-burst");
    let tool = broken_package(&dir, "greet");
    let mut server = Raw::start();
    server.initialize(false);
    server.open(&tool, BROKEN);
    // Each change types one character of a description and takes it away.
    let line_start = BROKEN.find('\n').expect("two lines") + 1;
    let column = BROKEN.find("whom").expect("whom") + 4 - line_start;
    let mut burst = Vec::new();
    for version in 2..10_002 {
        let (text, end) = if version % 2 == 0 {
            ("!", column)
        } else {
            ("", column + 1)
        };
        let range = json!({"start": {"line": 1, "character": column}, "end": {"line": 1, "character": end}});
        let body = json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": file_uri(&tool), "version": version},
            "contentChanges": [{"range": range, "text": text}]}})
        .to_string();
        burst.extend(format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes());
    }
    server.bytes(&burst);
    // The last version is published, with the finding of the last text.
    let last = 10_001;
    let published = loop {
        let message = server
            .messages
            .recv_timeout(Duration::from_secs(120))
            .expect("published");
        if message["method"] == "textDocument/publishDiagnostics"
            && message["params"]["version"] == last
        {
            break message;
        }
    };
    let found: Vec<&str> = published["params"]["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert_eq!(found, ["TC401"], "{published}");
    // The text is the original again (an odd number of changes would
    // leave a "!"): hover on the name still finds the tool.
    server.send(
        json!({"jsonrpc": "2.0", "id": 5, "method": "textDocument/hover", "params": {
        "textDocument": {"uri": file_uri(&tool)}, "position": {"line": 0, "character": 11}}}),
    );
    let hover = server.answer(json!(5));
    assert!(
        hover["result"]["contents"]["value"]
            .as_str()
            .unwrap_or("")
            .contains("\"whom\""),
        "{hover}"
    );
    assert_eq!(server.stop(), Some(0));
}

#[test]
fn a_changed_file_that_was_deleted_is_still_checked_from_the_editor() {
    let dir = TempDir::new("lsp-deleted");
    let tool = broken_package(&dir, "greet");
    let mut server = Raw::start();
    server.initialize(true);
    server.open(&tool, BROKEN);
    std::fs::remove_dir_all(dir.path().join("greet")).expect("delete");
    server.send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": file_uri(&tool), "version": 2},
        "contentChanges": [{"text": BROKEN.replace("Greets", "Greets all")}]}}),
    );
    let answer = server.diagnostics(1, &tool);
    let found = codes(&answer);
    // The entrypoint is gone with the directory; the text is the editor's.
    assert_eq!(found, ["TC402", "TC401"], "{answer}");
    assert_eq!(server.stop(), Some(0));
}

/// Exclusions follow the tree as it is at each check: a link to a
/// directory retargeted between two checks changes what is excluded.
#[cfg(unix)]
#[test]
fn exclusions_follow_a_link_retargeted_between_checks() {
    let dir = TempDir::new("lsp-relink");
    broken_package(&dir, "mine/gen");
    broken_package(&dir, "vendor/gen");
    dir.write("toolc.toml", "extend-exclude = [\"vendor/gen\"]\n");
    let link = dir.path().join("cur");
    std::os::unix::fs::symlink("mine", &link).expect("symlink");
    let tool = link.join("gen/tool.json");
    let mut server = Raw::start();
    server.initialize(true);
    server.open(&tool, BROKEN);
    let answer = server.diagnostics(1, &tool);
    assert_eq!(codes(&answer), ["TC401"], "{answer}");
    std::fs::remove_file(&link).expect("unlink");
    std::os::unix::fs::symlink("vendor", &link).expect("symlink");
    server.send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": file_uri(&tool), "version": 2},
        "contentChanges": [{"text": BROKEN.replace("Greets", "Greets all")}]}}),
    );
    let answer = server.diagnostics(2, &tool);
    assert_eq!(codes(&answer), Vec::<String>::new(), "{answer}");
    assert_eq!(server.stop(), Some(0));
}

#[test]
fn a_client_that_never_reads_does_not_grow_the_server() {
    let dir = TempDir::new("lsp-deaf");
    let tool = broken_package(&dir, "greet");
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolc"))
        .arg("server")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start");
    let mut stdin = child.stdin.take().expect("stdin");
    let pid = child.id();
    // Requests whose answers nobody reads, on a writer thread: the server
    // stops reading when its queues are full, and this writer then blocks.
    let uri = file_uri(&tool);
    let writer = std::thread::spawn(move || {
        let mut send = |message: Value| {
            let body = message.to_string();
            stdin
                .write_all(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes())
                .is_ok()
        };
        send(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"capabilities": {}}}),
        );
        send(
            json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": uri, "languageId": "json", "version": 1, "text": BROKEN}}}),
        );
        for id in 1..200_000 {
            let hover = json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/hover", "params": {
                "textDocument": {"uri": uri}, "position": {"line": 0, "character": 11}}});
            if !send(hover) {
                return;
            }
        }
    });
    std::thread::sleep(Duration::from_secs(5));
    let rss = |pid: u32| -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or(0)
    };
    let first = rss(pid);
    std::thread::sleep(Duration::from_secs(3));
    let second = rss(pid);
    assert!(first > 0, "no memory figure for the server");
    // Blocked, not buffering: memory stays where it was (a few MB of slack).
    assert!(
        second < first + 8 * 1024,
        "grew from {first} kB to {second} kB"
    );
    assert!(second < 200 * 1024, "{second} kB");
    // Reading now lets it answer.
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    stdout.read_line(&mut line).expect("read");
    assert!(line.starts_with("Content-Length:"), "{line}");
    child.kill().expect("kill");
    child.wait().expect("wait");
    let _ = writer.join();
}
