//! Benchmark: what `toolc serve` adds to a tool call, and how many calls a
//! second one server answers for 8 clients at once.
//!
//! 1. Round trip over stdio. The trivial `echo` tool of
//!    fixtures/run/agentcli (a shell script that prints its stdin back as
//!    JSON) is called N times through an MCP client (rmcp's, the official
//!    Rust SDK) talking to `toolc serve` over stdio, interleaved with N
//!    calls of the same tool through `Runner::call` in this process, so
//!    both see the same machine load. What serving adds is the difference
//!    of the medians (the JSON-RPC framing, the pipe, rmcp's dispatch, the
//!    hop onto a blocking thread); the target is under 1 ms.
//! 2. Throughput. One `toolc serve --http 127.0.0.1:0 --max-concurrency 8`
//!    and 8 clients (threads posting JSON-RPC with ureq), each with its
//!    own Streamable HTTP session, each calling `echo` in a loop; calls
//!    per second over all of them. For
//!    comparison, 8 threads calling one `Runner` in this process.
//!
//! Run: `cargo bench --bench serve_overhead` (`TOOLC_BENCH_CALLS` changes
//! the 1,000 round trips, `TOOLC_BENCH_CONCURRENT_CALLS` the 200 calls of
//! each of the 8 clients). It builds nothing itself: cargo builds the
//! `toolc` binary it serves with.

// A benchmark program: a failed setup step aborts it with its reason.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{count, median, ms, percentile};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use toolc::run::{Runner, RunnerOptions};

const CLIENTS: usize = 8;

type Client = RunningService<RoleClient, ()>;

fn echo_arguments() -> Map<String, Value> {
    match json!({"text": "hello"}) {
        Value::Object(map) => map,
        _ => unreachable!(),
    }
}

/// One `tools/call` of `echo`, checked: a bench of failing calls measures
/// nothing.
async fn call_echo(client: &Client) {
    let params = CallToolRequestParams::new("echo").with_arguments(echo_arguments());
    let result = client.call_tool(params).await.expect("tools/call");
    assert_ne!(
        result.is_error,
        Some(true),
        "the echo tool failed: {result:?}"
    );
}

/// A Streamable HTTP session of its own with `toolc serve --http`: each
/// JSON-RPC message posted with ureq, its answer read from the JSON body
/// or the event stream that answers the POST.
struct HttpSession {
    agent: ureq::Agent,
    url: String,
    session: Option<String>,
    next: u64,
}

impl HttpSession {
    fn open(url: &str) -> Self {
        let config = ureq::Agent::config_builder().proxy(None).build();
        let mut session = HttpSession {
            agent: ureq::Agent::new_with_config(config),
            url: url.to_string(),
            session: None,
            next: 0,
        };
        let hello = json!({"protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "serve_overhead", "version": "1"}});
        session.request("initialize", hello);
        assert!(
            session.session.is_some(),
            "no Mcp-Session-Id from initialize"
        );
        session.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        session
    }

    fn call_echo(&mut self) {
        let answer = self.request(
            "tools/call",
            json!({"name": "echo", "arguments": echo_arguments()}),
        );
        assert_ne!(
            answer["result"]["isError"], true,
            "the echo tool failed: {answer}"
        );
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let message =
            json!({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params});
        let answer = self.post(&message).expect("no answer to a request");
        assert!(answer.get("result").is_some(), "{method}: {answer}");
        answer
    }

    fn post(&mut self, message: &Value) -> Option<Value> {
        let mut request = self
            .agent
            .post(&self.url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .header("mcp-protocol-version", "2025-06-18");
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session);
        }
        let mut response = request
            .send(message.to_string())
            .expect("POST to toolc serve");
        if let Some(session) = response.headers().get("mcp-session-id") {
            self.session = Some(session.to_str().unwrap().to_string());
        }
        let text = response
            .body_mut()
            .read_to_string()
            .expect("the answer's body");
        if text.trim_start().starts_with('{') {
            return serde_json::from_str(&text).ok();
        }
        text.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .find(|event| event.get("id").is_some())
    }
}

/// `toolc serve --http 127.0.0.1:0 ...`, and the address it says it
/// listens on (its first stderr line naming an http:// URL).
async fn http_server(toolc: &Path, manifest: &Path) -> (tokio::process::Child, String) {
    let mut child = tokio::process::Command::new(toolc)
        .args(["serve", "--http", "127.0.0.1:0", "--max-concurrency"])
        .arg(CLIENTS.to_string())
        .arg(manifest)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start toolc serve --http");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let url = loop {
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .expect("toolc serve --http did not say its address within 30 s")
            .unwrap()
            .expect("toolc serve --http ended before saying its address");
        if let Some(start) = line.find("http://") {
            let url: String = line[start..]
                .chars()
                .take_while(|c| !c.is_whitespace())
                .collect();
            break url;
        }
    };
    // Keep draining stderr so the server never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, url)
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let toolc = PathBuf::from(env!("CARGO_BIN_EXE_toolc"));
    let manifest = root.join("fixtures/run/agentcli/tools.json");
    let calls = count("TOOLC_BENCH_CALLS", 1000);
    let concurrent_calls = count("TOOLC_BENCH_CONCURRENT_CALLS", 200);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();

    let runner =
        Arc::new(Runner::load(std::slice::from_ref(&manifest), RunnerOptions::default()).unwrap());
    println!("sandbox: {}", runner.sandbox_mode().as_str());
    let direct = |runner: &Runner| {
        let started = Instant::now();
        let result = runner.call("echo", json!({"text": "hello"}));
        let elapsed = started.elapsed();
        assert!(result.success, "{}", result.to_json_line());
        elapsed
    };

    // 1. Round trips over stdio against direct runner calls.
    let client: Client = runtime.block_on(async {
        let mut command = tokio::process::Command::new(&toolc);
        command.arg("serve").arg(&manifest).stderr(Stdio::null());
        let transport = TokioChildProcess::new(command).expect("start toolc serve");
        ().serve(transport)
            .await
            .expect("initialize with toolc serve")
    });
    for _ in 0..20 {
        direct(&runner);
        runtime.block_on(call_echo(&client));
    }
    let mut served = Vec::with_capacity(calls);
    let mut called = Vec::with_capacity(calls);
    for _ in 0..calls {
        called.push(direct(&runner));
        let started = Instant::now();
        runtime.block_on(call_echo(&client));
        served.push(started.elapsed());
    }
    let called_median = median(&mut called);
    let served_median = median(&mut served);
    println!("{calls} calls of the echo tool (median, p90):");
    println!(
        "  Runner::call in process     {:7.3} ms  {:7.3} ms",
        ms(called_median),
        ms(percentile(&called, 0.9))
    );
    println!(
        "  tools/call over stdio       {:7.3} ms  {:7.3} ms   added {:+.3} ms (target < 1 ms)",
        ms(served_median),
        ms(percentile(&served, 0.9)),
        ms(served_median) - ms(called_median)
    );
    runtime.block_on(async { client.cancel().await.ok() });

    // 2. Calls per second, 8 clients of one server.
    let total = CLIENTS * concurrent_calls;
    let (server, url) = runtime.block_on(http_server(&toolc, &manifest));
    let mut sessions: Vec<HttpSession> = (0..CLIENTS).map(|_| HttpSession::open(&url)).collect();
    for session in &mut sessions {
        session.call_echo();
    }
    let started = Instant::now();
    std::thread::scope(|scope| {
        for session in &mut sessions {
            scope.spawn(move || {
                for _ in 0..concurrent_calls {
                    session.call_echo();
                }
            });
        }
    });
    let elapsed = started.elapsed();
    drop(server);
    println!(
        "{CLIENTS} HTTP clients of one toolc serve, {total} calls: {:.2} s, {:.0} calls/s",
        elapsed.as_secs_f64(),
        total as f64 / elapsed.as_secs_f64()
    );
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..CLIENTS {
            let runner = Arc::clone(&runner);
            scope.spawn(move || {
                for _ in 0..concurrent_calls {
                    direct(&runner);
                }
            });
        }
    });
    let elapsed = started.elapsed();
    println!(
        "{CLIENTS} threads on one Runner, {total} calls:       {:.2} s, {:.0} calls/s",
        elapsed.as_secs_f64(),
        total as f64 / elapsed.as_secs_f64()
    );
}
