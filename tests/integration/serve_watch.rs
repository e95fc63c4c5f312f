//! `toolc serve --watch` and tier-3 approval, driven by the official MCP
//! Python client (mcp 2.3.0 from TOOLC_TEST_PYTHON) through
//! serve_watch.py, under each protocol revision: a manifest added while
//! the server runs is announced (`notifications/tools/list_changed` on
//! legacy sessions, a `subscriptions/listen` event under 2026-07-28),
//! listed and callable; a broken edit keeps the old tools and is logged;
//! a tier-3 Nachos tool runs only when the client's user approves
//! (elicitation, or an input-required result under 2026-07-28), and is
//! refused for a client that cannot be asked.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};

use crate::{TempDir, root, sdk};

const REVISIONS: [&str; 3] = ["2025-06-18", "2025-11-25", "2026-07-28"];

fn toolc() -> &'static str {
    env!("CARGO_BIN_EXE_toolc")
}

/// Runs serve_watch.py's `scenario` with `config`; its JSON report.
fn driver(scenario: &str, config: &Value) -> Value {
    sdk::drive("serve_watch.py", scenario, config)
}

/// A copy of the echo fixture to edit, the server's log file, and the
/// texts of the manifest the test adds and of the broken edit.
struct Watched {
    dir: TempDir,
    errlog: PathBuf,
}

impl Watched {
    fn new(name: &str) -> Watched {
        let dir = TempDir::new(name);
        let fixture = root().join("fixtures/serve_watch/echo");
        dir.write(
            "tools.json",
            std::fs::read(fixture.join("tools.json")).unwrap(),
        );
        let program = dir.path().join("tools/bin/echo");
        std::fs::create_dir_all(program.parent().unwrap()).unwrap();
        std::fs::copy(fixture.join("tools/bin/echo"), &program).unwrap();
        let errlog = dir.path().join("server.log");
        Watched { dir, errlog }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// What the driver does: add `more-tools.json`, call `shout`, then
    /// break `tools.json`.
    fn plan(&self) -> Value {
        let added =
            std::fs::read_to_string(root().join("fixtures/serve_watch/added-tools.json.in"))
                .unwrap();
        json!({
            "add": {
                "path": self.path().join("more-tools.json"),
                "text": added,
                "tool": "shout",
                "arguments": {"text": "hi"},
            },
            "break": {"path": self.path().join("tools.json"), "text": "{\"tools\": ["},
        })
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.errlog).unwrap_or_default()
    }
}

/// The watch scenario's report: announced, listed, called; the broken
/// edit changed nothing a client sees and was logged.
fn assert_reloaded(report: &Value, log: &str) {
    assert_eq!(report["list_changed_advertised"], json!(true), "{report}");
    assert_eq!(report["before"], json!(["echo"]), "{report}");
    // Manifests in path order: more-tools.json before tools.json.
    assert_eq!(report["after"], json!(["shout", "echo"]), "{report}");
    assert_eq!(report["call_new"]["is_error"], json!(false), "{report}");
    assert!(
        report["call_new"]["text"]
            .as_str()
            .unwrap()
            .contains("\"hi\""),
        "{report}"
    );
    assert_eq!(report["after_break"], report["after"], "{report}");
    assert_eq!(report["call_after_break"], report["call_new"], "{report}");
    assert_eq!(
        report["notifications"],
        json!(1),
        "one save is one reload, and a broken edit announces nothing: {report}"
    );
    assert!(
        log.contains("the manifests were not reloaded; the previous tools stay served"),
        "{log}"
    );
    assert!(
        log.contains("tools.json:1:") && log.contains("error[invalid-json]"),
        "the lint report, concise: {log}"
    );
}

#[test]
fn watch_reloads_and_announces_under_each_revision() {
    for revision in REVISIONS {
        let watched = Watched::new(&format!("serve-watch-{revision}"));
        let mut config = watched.plan();
        config["revision"] = json!(revision);
        config["errlog"] = json!(watched.errlog);
        config["command"] = json!([
            toolc(),
            "serve",
            "--watch",
            "--log-level",
            "info",
            watched.path()
        ]);
        let report = driver("watch", &config);
        assert_eq!(report["revision"], json!(revision), "{report}");
        if revision == "2026-07-28" {
            assert_eq!(report["honored"], json!(true), "{report}");
        }
        assert_reloaded(&report, &watched.log());
    }
}

/// A server on Streamable HTTP: `toolc serve --http 127.0.0.1:0`, its
/// stderr in `errlog`; killed on drop.
struct HttpServer {
    child: Child,
    url: String,
}

impl HttpServer {
    fn start(args: &[&str], errlog: &Path) -> HttpServer {
        let log = std::fs::File::create(errlog).unwrap();
        let mut child = Command::new(toolc())
            .args(["serve", "--http", "127.0.0.1:0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start toolc serve --http");
        // The server's stderr goes to the log file.
        let mut log = log;
        let url = crate::serve::listening(&mut child, move |line| {
            use std::io::Write;
            let _ = writeln!(log, "{line}");
            let _ = log.flush();
        });
        HttpServer { child, url }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn watch_over_http_tells_every_legacy_session() {
    let watched = Watched::new("serve-watch-http");
    let path = watched.path().to_str().unwrap().to_string();
    let server = HttpServer::start(&["--watch", "--log-level", "info", &path], &watched.errlog);
    let mut config = watched.plan();
    config["revision"] = json!("2025-11-25");
    config["errlog"] = json!(watched.errlog);
    config["urls"] = json!([server.url, server.url]);
    let report = driver("watch", &config);
    assert_reloaded(&report, &watched.log());
    assert_eq!(report["other_sessions_notified"], json!([1]), "{report}");
}

#[test]
fn watch_over_http_streams_changes_to_listeners() {
    let watched = Watched::new("serve-watch-http-listen");
    let path = watched.path().to_str().unwrap().to_string();
    let server = HttpServer::start(&["--watch", "--log-level", "info", &path], &watched.errlog);
    let mut config = watched.plan();
    config["revision"] = json!("2026-07-28");
    config["errlog"] = json!(watched.errlog);
    config["urls"] = json!([server.url]);
    let report = driver("watch", &config);
    assert_eq!(report["revision"], json!("2026-07-28"), "{report}");
    assert_eq!(report["honored"], json!(true), "{report}");
    assert_reloaded(&report, &watched.log());
}

/// The code a manifest names is watched too: an edit of a NORA tool's
/// script reloads the runner (the new code runs) and, the tool list being
/// the same, announces nothing.
#[test]
fn watch_reloads_code_without_announcing() {
    let dir = TempDir::new("serve-watch-code");
    let fixture = root().join("fixtures/run/nora/greet");
    for name in ["tool.json", "main.py"] {
        dir.write(name, std::fs::read(fixture.join(name)).unwrap());
    }
    let errlog = dir.path().join("server.log");
    let config = json!({
        "revision": "2025-11-25",
        "errlog": errlog,
        "command": [toolc(), "serve", "--watch", "--log-level", "info", dir.path().join("tool.json")],
        "tool": "greet",
        "arguments": {"name": "Ada"},
        "edit": {"path": dir.path().join("main.py"), "old": "Hello, ", "new": "Howdy, "},
    });
    let report = driver("code", &config);
    let log = std::fs::read_to_string(&errlog).unwrap_or_default();
    assert_eq!(
        report["before"]["text"],
        json!("Hello, Ada!"),
        "{report}\n{log}"
    );
    assert_eq!(
        report["after"]["text"],
        json!("Howdy, Ada!"),
        "{report}\n{log}"
    );
    assert_eq!(report["notifications"], json!(0), "{report}");
    assert!(log.contains("main.py"), "the log names what changed: {log}");
}

#[test]
fn without_watch_the_list_is_not_advertised_as_changing() {
    let script = r#"
import json, sys, anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
async def main():
    out = {}
    for mode in ["legacy", "auto"]:
        params = StdioServerParameters(command=sys.argv[1], args=sys.argv[2:])
        with open("/dev/null", "w") as log:
            async with Client(stdio_client(params, errlog=log), mode=mode, cache=None) as c:
                tools = c.server_capabilities.tools
                out[c.protocol_version] = bool(tools and tools.list_changed)
                if mode != "legacy":
                    try:
                        async with c.listen(tools_list_changed=True) as sub:
                            out["honored"] = bool(sub.honored.tools_list_changed)
                    except Exception as error:
                        out["listen_error"] = type(error).__name__
    print(json.dumps(out))
anyio.run(main)
"#;
    let fixture = root().join("fixtures/serve_watch/echo");
    let out = sdk::run_python(script, &[toolc(), "serve", fixture.to_str().unwrap()], "");
    let report: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(report["2025-11-25"], json!(false), "{report}");
    assert_eq!(report["2026-07-28"], json!(false), "{report}");
    assert!(report.get("honored").is_none(), "{report}");
    assert!(report.get("listen_error").is_some(), "{report}");
}

fn elevated() -> PathBuf {
    root().join("fixtures/run/nachos/elevated_echo/manifest.json")
}

/// The approve scenario's calls, one per answer.
fn approvals(revision: &str, answers: &[&str], server: Option<&HttpServer>) -> Vec<Value> {
    let mut config = json!({
        "revision": revision,
        "answers": answers,
        "tool": "elevated_echo",
        "arguments": {"text": "x"},
        "command": [toolc(), "serve", "--log-level", "info", elevated()],
    });
    if let Some(server) = server {
        config["urls"] = json!([server.url]);
    }
    let report = driver("approve", &config);
    report["calls"].as_array().unwrap().clone()
}

fn assert_approvals(revision: &str, calls: &[Value]) {
    let [accepted, rejected, declined, cancelled, unasked] = calls else {
        panic!("five calls: {calls:?}");
    };
    for call in calls {
        assert_eq!(call["revision"], json!(revision), "{call}");
    }
    // Approved: the tool ran and echoed its arguments.
    assert_eq!(accepted["is_error"], json!(false), "{accepted}");
    assert!(
        accepted["text"].as_str().unwrap().contains("\"x\""),
        "{accepted}"
    );
    let asked = &accepted["asked"];
    assert_eq!(
        asked.as_array().map(Vec::len),
        Some(1),
        "asked once: {accepted}"
    );
    let message = asked[0]["message"].as_str().unwrap();
    assert!(message.contains("`elevated_echo`"), "{message}");
    assert!(message.contains("security tier 3"), "{message}");
    assert!(message.contains("\"text\": \"x\""), "{message}");
    assert_eq!(
        asked[0]["schema"]["properties"]["approve"]["type"],
        json!("boolean"),
        "{accepted}"
    );
    assert_eq!(
        asked[0]["schema"]["required"],
        json!(["approve"]),
        "{accepted}"
    );
    // Refused: a policy refusal the model can read, and nothing ran.
    for (call, why) in [
        (rejected, "the user did not approve the call"),
        (declined, "the user declined the call"),
        (cancelled, "the user cancelled the approval"),
        (
            unasked,
            "needs approval, which this client cannot be asked for",
        ),
    ] {
        assert_eq!(call["is_error"], json!(true), "{call}");
        let text = call["text"].as_str().unwrap();
        assert!(text.starts_with("POLICY_DENIED: "), "{text}");
        assert!(
            text.contains("security tier 3, above the allowed tier 2"),
            "{text}"
        );
        assert!(text.contains(why), "{why}: {text}");
        assert!(text.contains("security-tier"), "{text}");
        assert!(!text.contains("\"echo\""), "it ran: {text}");
    }
    assert_eq!(unasked["asked"], json!([]), "{unasked}");
}

#[test]
fn tier_three_asks_for_approval_under_each_revision() {
    let answers = ["accept", "reject", "decline", "cancel", "none"];
    for revision in REVISIONS {
        let calls = approvals(revision, &answers, None);
        assert_approvals(revision, &calls);
    }
}

/// The 2026-07-28 request state is untrusted: only the handle of the
/// question about this very call, answered yes, runs it, and only once.
#[test]
fn tier_three_request_state_is_a_one_shot_handle() {
    let config = json!({
        "revision": "2026-07-28",
        "tool": "elevated_echo",
        "arguments": {"text": "x"},
        "command": [toolc(), "serve", elevated()],
    });
    let report = driver("forge", &config);
    let first = &report["first"];
    assert_eq!(first["asked"], json!(["approval"]), "{report}");
    let state = first["state"].as_str().unwrap();
    assert_eq!(state.len(), 32, "{report}");
    assert!(state.bytes().all(|b| b.is_ascii_hexdigit()), "{report}");
    for asked_again in ["made_up", "other_arguments", "replayed"] {
        assert_eq!(
            report[asked_again]["asked"],
            json!(["approval"]),
            "{asked_again}: {report}"
        );
        assert_ne!(report[asked_again]["state"], first["state"], "{report}");
    }
    let without = &report["without_answer"];
    assert_eq!(without["is_error"], json!(true), "{report}");
    assert!(
        without["text"]
            .as_str()
            .unwrap()
            .contains("without the user's answer"),
        "{report}"
    );
    assert_eq!(report["answered"]["is_error"], json!(false), "{report}");
    assert!(
        report["answered"]["text"]
            .as_str()
            .unwrap()
            .contains("\"x\""),
        "{report}"
    );
    assert_eq!(
        report["answered_again"]["asked"],
        json!(["approval"]),
        "{report}"
    );
}

#[test]
fn tier_three_approval_over_http() {
    let dir = TempDir::new("serve-approve-http");
    let errlog = dir.path().join("server.log");
    let manifest = elevated();
    let server = HttpServer::start(&[manifest.to_str().unwrap()], &errlog);
    let answers = ["accept", "reject", "decline", "cancel", "none"];
    for revision in ["2025-11-25", "2026-07-28"] {
        let calls = approvals(revision, &answers, Some(&server));
        assert_approvals(revision, &calls);
    }
}
