//! Benchmark: tools served on NATS (`toolc serve --nats`), against the same
//! tools called through the library and through `toolc serve` over MCP
//! stdio, and against a Nachos worker written as the seed's ToolService.
//!
//! A real nats-server is started on a loopback port. Two tools: the
//! built-in `read_file` (no process) and the `echo` command tool of
//! fixtures/run/agentcli (a shell script that prints its stdin back).
//! For each:
//! 1. Latency, one call at a time (median, p99): `Runner::call` in this
//!    process; `toolc serve` over MCP stdio (rmcp's client); one `toolc
//!    serve --nats` worker, called with a Nachos envelope request on
//!    `nachos.tool.<id>.request` (async-nats's client). What NATS adds is
//!    its median less the library's; the target is 0.5 ms or less.
//! 2. Throughput: 8 clients calling in a loop through NATS, with one
//!    worker and with two in one queue group: calls per second. The
//!    target for the command tool: two workers give 1.6 times one's.
//! 3. For the command tool, the same load against a worker written as the
//!    Nachos seed's ToolService (bench/nats/seed_worker.cjs: npm `nats`
//!    2.29, one request at a time), and the ratio of the two.
//!
//! Run: `scripts/test --no-run` once (it installs nats-server and the npm
//! `nats` client under target/), then `cargo bench --bench nats_overhead`
//! (`TOOLC_BENCH_CALLS` changes the 1,000 calls of the latency rows,
//! `TOOLC_BENCH_CONCURRENT_CALLS` the 200 calls of each client).

// A benchmark program: a failed setup step aborts it with its reason.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{count, median, ms, percentile};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use serde_json::{Map, Value, json};
use toolc::run::{Runner, RunnerOptions};

const CLIENTS: usize = 8;

/// A process killed when dropped.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A nats-server on a free loopback port, and its URL.
fn nats_server(dir: &Path) -> (Killed, String) {
    let binary = std::env::var_os("TOOLC_TEST_NATS_SERVER")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/test-venv/bin/nats-server"));
    assert!(
        binary.is_file(),
        "{} is missing: run scripts/test --no-run first (it installs nats-server)",
        binary.display()
    );
    let child = Command::new(&binary)
        .args(["-a", "127.0.0.1", "-p", "-1", "--ports_file_dir"])
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start nats-server");
    let ports = dir.join(format!("nats-server_{}.ports", child.id()));
    let started = Instant::now();
    let url = loop {
        if let Ok(text) = std::fs::read_to_string(&ports)
            && let Ok(value) = serde_json::from_str::<Value>(&text)
        {
            break value["nats"][0].as_str().unwrap().to_string();
        }
        assert!(started.elapsed() < Duration::from_secs(10), "no ports file");
        std::thread::sleep(Duration::from_millis(20));
    };
    (Killed(child), url)
}

/// A `toolc serve --nats URL` of `manifest` in `cwd`; its standard input
/// stays open (an idle MCP client).
fn toolc_worker(url: &str, manifest: &str, cwd: &Path, extra: &[&str]) -> Killed {
    let child = Command::new(env!("CARGO_BIN_EXE_toolc"))
        .args(["serve", "--nats", url, manifest])
        .args(extra)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start toolc serve --nats");
    Killed(child)
}

/// The seed-style Node worker of `tool` running `command`.
fn seed_worker(url: &str, tool: &str, command: &Path) -> Killed {
    let modules = root().join("target/test-node/node_modules");
    let child = Command::new("node")
        .arg(root().join("bench/nats/seed_worker.cjs"))
        .args([url, tool])
        .arg(command)
        .env("NODE_PATH", &modules)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the seed-style worker (node)");
    Killed(child)
}

fn envelope(arguments: &Value) -> Vec<u8> {
    let body = json!({
        "id": nuid::next().to_string(),
        "timestamp": "2026-11-29T00:00:00.000Z",
        "source": "bench",
        "type": "tool.request",
        "payload": arguments,
    });
    serde_json::to_vec(&body).unwrap()
}

/// One call through NATS, checked: a bench of failing calls measures
/// nothing.
async fn nats_call(client: &async_nats::Client, subject: &str, arguments: &Value) -> Duration {
    let started = Instant::now();
    let reply = client
        .request(subject.to_string(), envelope(arguments).into())
        .await
        .expect("a reply");
    let elapsed = started.elapsed();
    let answer: Value = serde_json::from_slice(&reply.payload).expect("a JSON reply");
    assert_eq!(
        answer["payload"]["success"],
        json!(true),
        "the call failed: {answer}"
    );
    elapsed
}

/// Waits until a worker answers on `subject` (it has flushed its
/// subscriptions).
async fn wait_for_a_worker(client: &async_nats::Client, subject: &str, arguments: &Value) {
    let started = Instant::now();
    while client
        .request(subject.to_string(), envelope(arguments).into())
        .await
        .is_err()
    {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no worker answered on {subject}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Waits until `count` toolc workers answer `$SRV.PING.toolc` (each has
/// subscribed), so that a measurement with two workers has both.
async fn wait_for_toolc_workers(client: &async_nats::Client, count: usize) {
    let started = Instant::now();
    loop {
        let inbox = client.new_inbox();
        let mut replies = client.subscribe(inbox.clone()).await.expect("subscribe");
        client
            .publish_with_reply("$SRV.PING.toolc", inbox, "".into())
            .await
            .expect("ping");
        let mut answered = 0;
        let window = tokio::time::sleep(Duration::from_millis(300));
        tokio::pin!(window);
        loop {
            let next = std::future::poll_fn(|cx| {
                futures_core::Stream::poll_next(std::pin::Pin::new(&mut replies), cx)
            });
            tokio::select! {
                reply = next => match reply {
                    Some(_) => answered += 1,
                    None => break,
                },
                _ = &mut window => break,
            }
        }
        if answered >= count {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{answered} of {count} toolc workers answered"
        );
    }
}

/// Calls per second of [`CLIENTS`] clients calling `per_client` times.
async fn throughput(url: &str, subject: &str, arguments: &Value, per_client: usize) -> f64 {
    let mut clients = Vec::new();
    for _ in 0..CLIENTS {
        clients.push(async_nats::connect(url).await.expect("connect"));
    }
    let started = Instant::now();
    let mut tasks = Vec::new();
    for client in clients {
        let (subject, arguments) = (subject.to_string(), arguments.clone());
        tasks.push(tokio::spawn(async move {
            for _ in 0..per_client {
                nats_call(&client, &subject, &arguments).await;
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    (CLIENTS * per_client) as f64 / started.elapsed().as_secs_f64()
}

type McpClient = RunningService<RoleClient, ()>;

async fn mcp_client(manifest: &str, cwd: &Path) -> McpClient {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_toolc"));
    command.args(["serve", manifest]).current_dir(cwd);
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .expect("start toolc serve");
    ().serve(transport).await.expect("an MCP session")
}

async fn mcp_call(client: &McpClient, tool: &str, arguments: &Map<String, Value>) -> Duration {
    let started = Instant::now();
    let params = CallToolRequestParams::new(tool.to_string()).with_arguments(arguments.clone());
    let result = client.call_tool(params).await.expect("tools/call");
    let elapsed = started.elapsed();
    assert_ne!(result.is_error, Some(true), "{result:?}");
    elapsed
}

fn row(label: &str, samples: &mut [Duration]) -> Duration {
    let p50 = median(samples);
    println!(
        "  {label:<34} p50 {:.3} ms   p99 {:.3} ms",
        ms(p50),
        ms(percentile(samples, 0.99))
    );
    p50
}

/// One tool: `name`, served by `manifest` (a path, or `builtin`), called
/// with `arguments`, in `cwd`.
struct Case<'a> {
    name: &'a str,
    manifest: &'a str,
    arguments: Value,
    cwd: &'a Path,
    /// The program of a command tool, for the seed-style worker.
    command: Option<PathBuf>,
}

async fn bench(case: &Case<'_>, url: &str, calls: usize, per_client: usize) {
    let subject = format!("nachos.tool.{}.request", case.name);
    let arguments_map = case.arguments.as_object().unwrap().clone();
    println!("\n{} ({calls} calls one at a time):", case.name);

    let runner = if case.manifest == "builtin" {
        Runner::builtin(RunnerOptions {
            workspace: Some(case.cwd.to_path_buf()),
            ..RunnerOptions::default()
        })
        .unwrap()
    } else {
        Runner::load(&[PathBuf::from(case.manifest)], RunnerOptions::default()).unwrap()
    };
    let runner = Arc::new(runner);
    let mcp = mcp_client(case.manifest, case.cwd).await;
    let worker = toolc_worker(url, case.manifest, case.cwd, &[]);
    let client = async_nats::connect(url).await.expect("connect");
    wait_for_a_worker(&client, &subject, &case.arguments).await;

    let (mut library, mut hop, mut stdio, mut nats) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..calls {
        let (runner, name, arguments) = (
            Arc::clone(&runner),
            case.name.to_string(),
            case.arguments.clone(),
        );
        // Timed inside the blocking thread (the call alone) and around
        // it (the call handed to a blocking thread and its result handed
        // back, as a server must: what the thread wake-ups cost).
        let handed = Instant::now();
        let took = tokio::task::spawn_blocking(move || {
            let started = Instant::now();
            let result = runner.call(&name, arguments);
            assert!(result.error.is_none(), "{:?}", result.error);
            started.elapsed()
        })
        .await
        .unwrap();
        hop.push(handed.elapsed());
        library.push(took);
        stdio.push(mcp_call(&mcp, case.name, &arguments_map).await);
        nats.push(nats_call(&client, &subject, &case.arguments).await);
    }
    let base = row("library (Runner::call)", &mut library);
    let handed = row("library, via a blocking thread", &mut hop);
    let over_stdio = row("toolc serve, MCP stdio", &mut stdio);
    let over_nats = row("toolc serve --nats, 1 worker", &mut nats);
    println!(
        "  NATS adds {:+.3} ms over the library (MCP stdio {:+.3} ms; the thread hop alone {:+.3} ms)",
        ms(over_nats) - ms(base),
        ms(over_stdio) - ms(base),
        ms(handed) - ms(base)
    );
    let _ = mcp.cancel().await;

    let one = throughput(url, &subject, &case.arguments, per_client).await;
    let second = toolc_worker(url, case.manifest, case.cwd, &[]);
    wait_for_toolc_workers(&client, 2).await;
    wait_for_a_worker(&client, &subject, &case.arguments).await;
    let two = throughput(url, &subject, &case.arguments, per_client).await;
    println!(
        "  {CLIENTS} clients x {per_client} calls: 1 worker {one:.0} calls/s, 2 workers {two:.0} calls/s ({:.2}x)",
        two / one
    );
    drop(second);
    drop(worker);

    if let Some(command) = &case.command {
        let seed = seed_worker(url, case.name, command);
        wait_for_a_worker(&client, &subject, &case.arguments).await;
        let node = throughput(url, &subject, &case.arguments, per_client).await;
        println!(
            "  seed-style Node worker (sequential): {node:.0} calls/s; one toolc worker does {:.2}x",
            one / node
        );
        drop(seed);
        // The seed's worker runs its command as it is; toolc with
        // --no-sandbox does the same (validation, limits and all else kept).
        let bare = toolc_worker(url, case.manifest, case.cwd, &["--no-sandbox"]);
        wait_for_toolc_workers(&client, 1).await;
        wait_for_a_worker(&client, &subject, &case.arguments).await;
        let unsandboxed = throughput(url, &subject, &case.arguments, per_client).await;
        println!(
            "  one toolc worker with --no-sandbox, as the seed's runs commands: {unsandboxed:.0} calls/s ({:.2}x the seed-style worker)",
            unsandboxed / node
        );
        drop(bare);
    }
}

fn main() {
    let calls = count("TOOLC_BENCH_CALLS", 1000);
    let per_client = count("TOOLC_BENCH_CONCURRENT_CALLS", 200);
    let scratch = std::env::temp_dir().join(format!("toolc-bench-nats-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    std::fs::write(scratch.join("note.txt"), "a short note\n").unwrap();
    let (_server, url) = nats_server(&scratch);
    let agentcli = root().join("fixtures/run/agentcli");
    let manifest = agentcli.join("tools.json");
    let manifest = manifest.to_str().unwrap();
    let cases = [
        Case {
            name: "read_file",
            manifest: "builtin",
            arguments: json!({"path": "note.txt"}),
            cwd: &scratch,
            command: None,
        },
        Case {
            name: "echo",
            manifest,
            arguments: json!({"text": "hello"}),
            cwd: &agentcli,
            command: Some(agentcli.join("tools/bin/echo")),
        },
    ];
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    println!("nats-server at {url}");
    for case in &cases {
        runtime.block_on(bench(case, &url, calls, per_client));
    }
    let _ = std::fs::remove_dir_all(&scratch);
}
