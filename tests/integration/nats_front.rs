//! A NATS fleet as a source of tools: nats-py `nats.micro` services whose
//! endpoints' metadata describe their tools (as a toolc worker's do) are
//! discovered through `$SRV.INFO` by `toolc lint --nats-url`, and tell
//! `toolc call` which tools are idempotent.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::nats_server::NatsServer;
use crate::{TempDir, Test};

/// A NATS service instance named `SERVICE` with one endpoint per tool of
/// `TOOLS` (a JSON list of `{name, metadata}`), each on
/// `nachos.tool.<name>.request`, answering a Nachos envelope whose result
/// echoes the arguments. With `DROP_FIRST` set, every tool leaves its
/// first request unanswered (a worker that lost it).
const SERVICE: &str = r#"
import asyncio, json, os, sys
import nats
from nats.micro import add_service

async def main():
    nc = await nats.connect(os.environ["NATS_URL"])
    service = await add_service(nc, name=os.environ["SERVICE"], version="1.0.0",
                                description="a test fleet member")
    seen = {}
    for tool in json.loads(os.environ["TOOLS"]):
        name = tool["name"]
        async def handle(request, name=name):
            envelope = json.loads(request.data)
            seen[name] = seen.get(name, 0) + 1
            print("request " + json.dumps(envelope), flush=True)
            if os.environ.get("DROP_FIRST") and seen[name] == 1:
                return
            args = {k: v for k, v in envelope["payload"].items()
                    if k not in ("sessionId", "callId", "sandbox")}
            text = json.dumps({"tool": name, "args": args})
            answer = {"id": "a-" + envelope["id"], "timestamp": "2026-01-01T00:00:00.000Z",
                      "source": name, "type": "tool.response", "correlationId": envelope["id"],
                      "payload": {"success": True, "content": [{"type": "text", "text": text}],
                                  "metadata": {"duration": 1}}}
            await request.respond(json.dumps(answer).encode())
        await service.add_endpoint(name=name, subject=f"nachos.tool.{name}.request",
                                   handler=handle, metadata=tool["metadata"])
    await nc.flush()
    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await service.stop()
    await nc.drain()

asyncio.run(main())
"#;

pub struct Service {
    child: Child,
    /// What it printed after "ready": one `request <envelope>` per request.
    lines: mpsc::Receiver<String>,
    _dir: TempDir,
}

impl Service {
    /// Starts the service and waits until it has subscribed.
    pub fn start(url: &str, name: &str, tools: &Value) -> Service {
        Service::start_with(url, name, tools, false)
    }

    /// As [`Service::start`]; with `drop_first`, each tool ignores its first request.
    pub fn start_with(url: &str, name: &str, tools: &Value, drop_first: bool) -> Service {
        let python = std::env::var_os("TOOLC_TEST_PYTHON")
            .map(PathBuf::from)
            .expect("TOOLC_TEST_PYTHON is not set: run the tests with scripts/test (nats-py)");
        let dir = TempDir::new("nats-py-service");
        let script = dir.write("service.py", SERVICE);
        let mut child = Command::new(python)
            .arg(&script)
            .env("NATS_URL", url)
            .env("SERVICE", name)
            .env("TOOLS", tools.to_string())
            .env("DROP_FIRST", if drop_first { "1" } else { "" })
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start python");
        let stdout = child.stdout.take().expect("stdout");
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let line = lines
            .recv_timeout(Duration::from_secs(20))
            .expect("the service says it is ready");
        assert_eq!(line, "ready");
        Service {
            child,
            lines,
            _dir: dir,
        }
    }

    /// The envelopes of the requests it took so far.
    pub fn requests(&self) -> Vec<Value> {
        let mut found = Vec::new();
        while let Ok(line) = self.lines.recv_timeout(Duration::from_millis(300)) {
            if let Some(json) = line.strip_prefix("request ") {
                found.push(serde_json::from_str(json).expect("JSON"));
            }
        }
        found
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A tool's endpoint metadata as a toolc worker publishes it.
pub fn metadata(description: &str, input: &Value, annotations: Option<&Value>) -> Value {
    let mut meta = json!({
        "description": description,
        "input_schema": input.to_string(),
    });
    if let Some(annotations) = annotations {
        meta["annotations"] = Value::String(annotations.to_string());
    }
    meta
}

#[test]
fn nats_lint_points_into_a_discovered_bad_tool() {
    let server = NatsServer::start();
    let good = json!({"type": "object", "properties": {"q": {"type": "string", "description": "What to look up."}}});
    let bad = json!({"type": "object", "properties": {"x": {"type": "strng", "description": "A thing."}}});
    let tools = json!([
        {"name": "lookup", "metadata": metadata("Look a word up.", &good, None)},
        {"name": "broken", "metadata": metadata("A tool with a broken schema.", &bad, None)},
    ]);
    let _service = Service::start(&server.url, "pyfleet", &tools);
    let dir = TempDir::new("nats-lint");
    let saved = dir.path().join("fleet.json");
    let output = Test::new()
        .args([
            "lint",
            "--nats-url",
            &server.url,
            "--output-format",
            "concise",
            "--save",
        ])
        .args([saved.to_str().expect("a UTF-8 path")])
        .run();
    assert_eq!(output.code, 1, "{}\n{}", output.stdout, output.stderr);
    let line = output
        .stdout
        .lines()
        .find(|l| l.contains("invalid-json-schema") || l.contains("TC305"))
        .unwrap_or_else(|| panic!("no schema finding in:\n{}", output.stdout));
    // Saved, the fleet's document is named by its file.
    let prefix = format!("{}:", saved.display());
    let place = line
        .strip_prefix(&prefix)
        .unwrap_or_else(|| panic!("the finding is not in the saved document: {line}"));
    let row: usize = place
        .split(':')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no line number in {line}"));
    let document = std::fs::read_to_string(&saved).expect("--save wrote the document");
    let pointed = document.lines().nth(row - 1).expect("the line exists");
    assert!(pointed.contains("strng"), "line {row} is {pointed:?}");
    let listed: Value = serde_json::from_str(&document).expect("JSON");
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["broken", "lookup"]);
    assert_eq!(listed["tools"][1]["description"], "Look a word up.");
}

#[test]
fn nats_call_learns_idempotency_from_the_fleets_annotations() {
    let server = NatsServer::start();
    let input = json!({"type": "object"});
    let tools = json!([
        {"name": "stats", "metadata": metadata("Read counters.", &input, Some(&json!({"idempotentHint": true})))},
        {"name": "charge", "metadata": metadata("Charge a card.", &input, Some(&json!({"idempotentHint": false})))},
    ]);
    let service = Service::start_with(&server.url, "pyfleet", &tools, true);
    let call = |tool: &str| {
        Test::new()
            .args(["call", "--nats", &server.url, tool, "--args", "{}"])
            .args(["--timeout", "6", "--attempt-timeout", "1"])
            .run()
    };
    // The first request is lost; $SRV.INFO says the tool is idempotent:
    // sent again, with the same envelope id, and answered.
    let output = call("stats");
    assert_eq!(output.code, 0, "{}", output.stderr);
    let printed: Value = serde_json::from_str(output.stdout.trim()).expect("one JSON line");
    assert_eq!(printed["output"]["tool"], "stats");
    let requests = service.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    assert_eq!(requests[0]["id"], requests[1]["id"]);
    // Not idempotent: sent once, and the outcome is unknown.
    let output = call("charge");
    assert_eq!(output.code, 5, "{}", output.stderr);
    assert!(
        output.stderr.contains("outcome is unknown"),
        "{}",
        output.stderr
    );
    assert_eq!(service.requests().len(), 1);
}
