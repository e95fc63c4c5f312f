//! `toolc call --nats`: a real nats-server, a Nachos-style worker written
//! as the seed's ToolService with npm `nats` 2.29 (a plain subscription on
//! `nachos.tool.<id>.request`, no queue group, one request at a time, the
//! envelope as its answer, no `$SRV`), and the real toolc binary.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::nats_server::NatsServer;
use crate::{TempDir, Test};

/// The worker: `WORKER_MODE` says how it answers. `echo` answers every
/// request; `busy-twice` answers the first two BUSY (retryable); `drop-first`
/// ignores its first request; `hang` answers none. Every request it takes is
/// printed as `request <envelope>`, every answer as `answer <envelope>`.
const WORKER: &str = r#"
const { connect, StringCodec } = require("nats");
const sc = StringCodec();
const tool = process.env.TOOL_ID;
const mode = process.env.WORKER_MODE;
(async () => {
  const nc = await connect({ servers: process.env.NATS_URL });
  const sub = nc.subscribe(`nachos.tool.${tool}.request`);
  await nc.flush();
  console.log("ready");
  let seen = 0;
  for await (const m of sub) {
    seen += 1;
    const request = JSON.parse(sc.decode(m.data));
    console.log("request " + JSON.stringify(request));
    if (mode === "hang" || (mode === "drop-first" && seen === 1)) continue;
    let result;
    if (mode === "busy-twice" && seen <= 2) {
      result = { success: false, content: [], metadata: { duration: 0 },
        error: { code: "BUSY", message: "worker busy", details: { retryable: true } } };
    } else {
      const { sessionId, callId, sandbox, ...args } = request.payload;
      const text = JSON.stringify({ tool, args, served: seen });
      result = { success: true, content: [{ type: "text", text }], metadata: { duration: 2 } };
    }
    const answer = { id: `r-${seen}`, timestamp: new Date().toISOString(), source: tool,
      type: "tool.response", correlationId: request.id, payload: result };
    console.log("answer " + JSON.stringify(answer));
    m.respond(sc.encode(JSON.stringify(answer)));
  }
})().catch((e) => { console.error(e); process.exit(1); });
"#;

struct Worker {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
    _dir: TempDir,
}

impl Worker {
    fn start(url: &str, tool: &str, mode: &str) -> Worker {
        let modules = std::env::var_os("TOOLC_TEST_NODE_MODULES").map(PathBuf::from).expect(
            "TOOLC_TEST_NODE_MODULES is not set: run the tests with scripts/test, which installs npm nats",
        );
        let dir = TempDir::new("nats-node-worker");
        let script = dir.write("worker.js", WORKER);
        let mut child = Command::new("node")
            .arg(&script)
            .env("NODE_PATH", &modules)
            .env("NATS_URL", url)
            .env("TOOL_ID", tool)
            .env("WORKER_MODE", mode)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start node");
        let stdout: ChildStdout = child.stdout.take().expect("stdout");
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let worker = Worker {
            child,
            lines,
            seen: Vec::new(),
            _dir: dir,
        };
        let ready = worker
            .lines
            .recv_timeout(Duration::from_secs(20))
            .expect("the worker says it is ready");
        assert_eq!(ready, "ready");
        worker
    }

    /// Everything the worker printed so far (after a short wait for late lines).
    fn drain(&mut self) -> &[String] {
        while let Ok(line) = self.lines.recv_timeout(Duration::from_millis(300)) {
            self.seen.push(line);
        }
        &self.seen
    }

    fn with_prefix(&mut self, prefix: &str) -> Vec<Value> {
        let prefix = format!("{prefix} ");
        self.drain()
            .iter()
            .filter_map(|l| l.strip_prefix(&prefix))
            .map(|json| serde_json::from_str(json).expect("the worker prints JSON"))
            .collect()
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn call(url: &str, tool: &str, extra: &[&str]) -> (crate::Output, Duration) {
    let started = Instant::now();
    let output = Test::new()
        .args(["call", "--nats", url, tool])
        .args(extra)
        .run();
    (output, started.elapsed())
}

#[test]
fn nats_call_prints_what_the_nachos_worker_answered() {
    let server = NatsServer::start();
    let mut worker = Worker::start(&server.url, "echo", "echo");
    let (output, _) = call(&server.url, "echo", &["--args", r#"{"msg": "hi", "n": 2}"#]);
    assert_eq!(output.code, 0, "{}", output.stderr);
    let printed: Value = serde_json::from_str(output.stdout.trim()).expect("one JSON line");
    let answers = worker.with_prefix("answer");
    assert_eq!(answers.len(), 1);
    let answered = &answers[0]["payload"];
    let text = answered["content"][0]["text"]
        .as_str()
        .expect("a text block");
    let answered_output: Value = serde_json::from_str(text).expect("the worker's JSON text");
    assert_eq!(printed["success"], true);
    assert_eq!(printed["output"], answered_output);
    assert_eq!(
        printed["output"]["args"],
        serde_json::json!({"msg": "hi", "n": 2})
    );
    assert_eq!(
        printed["metadata"]["duration_ms"],
        answered["metadata"]["duration"]
    );
    let requests = worker.with_prefix("request");
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0]["type"], "tool.request");
    assert_eq!(answers[0]["correlationId"], requests[0]["id"]);
}

#[test]
fn nats_call_tells_no_worker_from_an_unknown_outcome() {
    let server = NatsServer::start();
    let (nobody, took) = call(
        &server.url,
        "nobody_here",
        &["--args", "{}", "--timeout", "2"],
    );
    assert_eq!(nobody.code, 3, "{}", nobody.stderr);
    assert!(
        nobody.stderr.contains("no worker serves nobody_here"),
        "{}",
        nobody.stderr
    );
    assert!(took < Duration::from_secs(6), "{took:?}");
    assert!(nobody.stdout.is_empty());

    let mut worker = Worker::start(&server.url, "slow", "hang");
    let (hung, took) = call(&server.url, "slow", &["--args", "{}", "--timeout", "2"]);
    assert_eq!(hung.code, 5, "{}", hung.stderr);
    assert!(
        hung.stderr.contains("outcome is unknown"),
        "{}",
        hung.stderr
    );
    assert!(!hung.stderr.contains("no worker serves"), "{}", hung.stderr);
    assert!(
        took >= Duration::from_secs(2) && took < Duration::from_secs(8),
        "{took:?}"
    );
    // Not idempotent: sent once, never again.
    assert_eq!(worker.with_prefix("request").len(), 1);
}

#[test]
fn nats_call_retries_a_busy_worker_with_the_same_envelope_id() {
    let server = NatsServer::start();
    let mut worker = Worker::start(&server.url, "busy", "busy-twice");
    let (output, _) = call(
        &server.url,
        "busy",
        &["--args", r#"{"x": 1}"#, "--timeout", "10"],
    );
    assert_eq!(output.code, 0, "{}", output.stderr);
    let printed: Value = serde_json::from_str(output.stdout.trim()).expect("one JSON line");
    assert_eq!(printed["output"]["served"], 3);
    let requests = worker.with_prefix("request");
    assert_eq!(requests.len(), 3);
    assert!(
        requests.iter().all(|r| r["id"] == requests[0]["id"]),
        "{requests:?}"
    );
}

#[test]
fn nats_call_retries_an_idempotent_tool_after_a_timeout() {
    let server = NatsServer::start();
    let mut worker = Worker::start(&server.url, "lookup", "drop-first");
    let (output, _) = call(
        &server.url,
        "lookup",
        &[
            "--args",
            "{}",
            "--timeout",
            "8",
            "--attempt-timeout",
            "1",
            "--idempotent",
        ],
    );
    assert_eq!(output.code, 0, "{}", output.stderr);
    let printed: Value = serde_json::from_str(output.stdout.trim()).expect("one JSON line");
    assert_eq!(printed["output"]["served"], 2);
    let requests = worker.with_prefix("request");
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0]["id"], requests[1]["id"]);

    // An idempotent tool that never answers: timed out, not unknown.
    let mut hung = Worker::start(&server.url, "stuck", "hang");
    let (output, took) = call(
        &server.url,
        "stuck",
        &[
            "--args",
            "{}",
            "--timeout",
            "2",
            "--attempt-timeout",
            "0.5",
            "--idempotent",
        ],
    );
    assert_eq!(output.code, 4, "{}", output.stderr);
    assert!(output.stderr.contains("timed out"), "{}", output.stderr);
    assert!(took < Duration::from_secs(8), "{took:?}");
    let requests = hung.with_prefix("request");
    assert!(requests.len() >= 2, "{requests:?}");
    assert!(requests.iter().all(|r| r["id"] == requests[0]["id"]));
}

#[test]
fn nats_call_fails_fast_on_bad_credentials_and_unreachable_servers() {
    let server = NatsServer::with_config("authorization { token: \"right-token-123\" }\n");
    let (output, took) = call(
        &server.url,
        "echo",
        &["--args", "{}", "--nats-token", "wrong-token-456"],
    );
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert!(
        output.stderr.contains("cannot connect to NATS"),
        "{}",
        output.stderr
    );
    assert!(
        !output.stderr.contains("wrong-token-456"),
        "{}",
        output.stderr
    );
    assert!(took < Duration::from_secs(10), "{took:?}");

    // A port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port");
    let url = format!("nats://127.0.0.1:{port}");
    let (output, took) = call(
        &url,
        "echo",
        &["--args", "{}", "--nats-connect-timeout", "2"],
    );
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert!(
        output.stderr.contains("cannot connect to NATS"),
        "{}",
        output.stderr
    );
    assert!(took < Duration::from_secs(10), "{took:?}");
}
