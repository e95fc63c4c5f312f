//! Benchmark: warm Python calls (a fork of a server that imported the
//! tool) against cold ones (an interpreter per call), through the library
//! API.
//!
//! The NORA script `greet` (fixtures/run/nora/greet) and the AgentStack
//! function `add` (fixtures/run/agentstack/probe) are each called in a
//! loop by one runner with the defaults (warm, namespaces and Landlock on,
//! as far as the machine allows) and one with
//! `cold: true`; calls per second, the median and the p90 are reported,
//! and the warm/cold ratio. The target is at least 500 warm calls/s and
//! ten times the cold figure.
//!
//! The same tool is then called as many times through `toolc serve` over
//! MCP stdio, by rmcp's client (the official Rust SDK, so the client is
//! not what limits the rate); the target is at least 80% of the warm
//! library figure (issue 33).
//!
//! Run: `cargo bench --bench python_warm` (`TOOLC_BENCH_WARM_CALLS`
//! changes the 2,000 warm and served calls, `TOOLC_BENCH_COLD_CALLS` the
//! 100 cold ones).

// A benchmark program: a failed setup step aborts it with its reason.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{count, ms, percentile};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use toolc::run::{Runner, RunnerOptions};

/// The warm library rate the issue asks for, in calls per second.
const WARM_TARGET: f64 = 500.0;
/// How many times the cold rate the warm one is to be.
const COLD_TIMES_TARGET: f64 = 10.0;
/// What serving over stdio may cost: at least this share of the library rate.
const SERVED_SHARE_TARGET: f64 = 0.8;

type Client = RunningService<RoleClient, ()>;

/// Calls per second, the median and the p90 of `samples`, `calls` calls
/// that took `elapsed` in all.
fn summary(
    calls: usize,
    elapsed: Duration,
    mut samples: Vec<Duration>,
) -> (f64, Duration, Duration) {
    samples.sort();
    (
        calls as f64 / elapsed.as_secs_f64(),
        percentile(&samples, 0.5),
        percentile(&samples, 0.9),
    )
}

/// Calls per second, median and p90 of `calls` calls.
fn measure(
    runner: &Runner,
    tool: &str,
    calls: usize,
    arguments: impl Fn(usize) -> Value,
    expected: impl Fn(usize) -> Value,
) -> (f64, Duration, Duration) {
    // The first call starts the server (or asks the interpreter where it
    // lives): not part of the steady state.
    for i in 0..3 {
        let result = runner.call(tool, arguments(i));
        assert_eq!(
            result.output,
            Some(expected(i)),
            "{}",
            result.to_json_line()
        );
    }
    let mut samples = Vec::with_capacity(calls);
    let started = Instant::now();
    for i in 0..calls {
        let one = Instant::now();
        let result = runner.call(tool, arguments(i));
        samples.push(one.elapsed());
        assert_eq!(
            result.output,
            Some(expected(i)),
            "{}",
            result.to_json_line()
        );
    }
    let elapsed = started.elapsed();
    summary(calls, elapsed, samples)
}

/// The rate, median and p90 of `calls` calls of `tool` through `toolc serve
/// MANIFEST` over stdio, by rmcp's client; each answer checked.
fn measure_served(
    toolc: &Path,
    manifest: &Path,
    tool: &str,
    calls: usize,
    arguments: impl Fn(usize) -> Value,
    expected: impl Fn(usize) -> Value,
) -> (f64, Duration, Duration) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let client: Client = runtime.block_on(async {
        let mut command = tokio::process::Command::new(toolc);
        // Its stderr is the bench's: a refused manifest says why there.
        command.arg("serve").arg(manifest).stderr(Stdio::inherit());
        let transport = TokioChildProcess::new(command).expect("start toolc serve");
        ().serve(transport)
            .await
            .expect("initialize with toolc serve")
    });
    let call = |i: usize| {
        let Value::Object(map) = arguments(i) else {
            panic!("the arguments are an object")
        };
        let params = CallToolRequestParams::new(tool.to_string()).with_arguments(map);
        let result = runtime
            .block_on(client.call_tool(params))
            .expect("tools/call");
        assert_ne!(result.is_error, Some(true), "{tool} failed: {result:?}");
        // toolc answers with the output as text: a string as it is, other
        // JSON serialised.
        let text = match expected(i) {
            Value::String(text) => text,
            other => other.to_string(),
        };
        let answered = result.content.first().and_then(|c| c.as_text());
        assert_eq!(
            answered.map(|t| t.text.as_str()),
            Some(text.as_str()),
            "{result:?}"
        );
    };
    for i in 0..3 {
        call(i);
    }
    let mut samples = Vec::with_capacity(calls);
    let started = Instant::now();
    for i in 0..calls {
        let one = Instant::now();
        call(i);
        samples.push(one.elapsed());
    }
    let elapsed = started.elapsed();
    runtime.block_on(async { client.cancel().await.ok() });
    summary(calls, elapsed, samples)
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let toolc = PathBuf::from(env!("CARGO_BIN_EXE_toolc"));
    let warm_calls = count("TOOLC_BENCH_WARM_CALLS", 2000).max(1);
    let cold_calls = count("TOOLC_BENCH_COLD_CALLS", 100).max(1);
    let runner = |manifest: &str, cold: bool| {
        Runner::load(
            &[root.join(manifest)],
            RunnerOptions {
                cold,
                ..RunnerOptions::default()
            },
        )
        .unwrap()
    };
    println!(
        "sandbox: {:?}",
        runner("fixtures/run/nora/greet/tool.json", false).sandbox_support()
    );
    type Case = (
        &'static str,
        &'static str,
        &'static str,
        fn(usize) -> Value,
        fn(usize) -> Value,
    );
    let cases: [Case; 2] = [
        (
            "NORA greet",
            "fixtures/run/nora/greet/tool.json",
            "greet",
            |i| json!({"name": format!("n{i}")}),
            |i| json!(format!("Hello, n{i}!")),
        ),
        (
            "AgentStack add",
            "fixtures/run/agentstack/probe/config.json",
            "add",
            |i| json!({"a": i, "b": 1}),
            |i| json!(i + 1),
        ),
    ];
    for (label, manifest, tool, arguments, expected) in cases {
        let warm = runner(manifest, false);
        let cold = runner(manifest, true);
        let (warm_rate, warm_median, warm_p90) =
            measure(&warm, tool, warm_calls, arguments, expected);
        let (cold_rate, cold_median, cold_p90) =
            measure(&cold, tool, cold_calls, arguments, expected);
        drop((warm, cold));
        let (served_rate, served_median, served_p90) = measure_served(
            &toolc,
            &root.join(manifest),
            tool,
            warm_calls,
            arguments,
            expected,
        );
        let verdict = |ok: bool| if ok { "ok" } else { "MISS" };
        println!("{label}:");
        println!(
            "  warm  {warm_calls:5} calls  {warm_rate:7.1} calls/s  median {:6.3} ms  p90 {:6.3} ms  \
             (target >= {WARM_TARGET} calls/s: {})",
            ms(warm_median),
            ms(warm_p90),
            verdict(warm_rate >= WARM_TARGET)
        );
        println!(
            "  served over MCP stdio (rmcp client)\n        {warm_calls:5} calls  {served_rate:7.1} calls/s  \
             median {:6.3} ms  p90 {:6.3} ms  ({:.0}% of warm; target >= {:.0}%: {})",
            ms(served_median),
            ms(served_p90),
            served_rate / warm_rate * 100.0,
            SERVED_SHARE_TARGET * 100.0,
            verdict(served_rate >= SERVED_SHARE_TARGET * warm_rate)
        );
        println!(
            "  cold  {cold_calls:5} calls  {cold_rate:7.1} calls/s  median {:6.3} ms  p90 {:6.3} ms",
            ms(cold_median),
            ms(cold_p90)
        );
        println!(
            "  warm/cold: {:.1}x (target >= {COLD_TIMES_TARGET}x: {})",
            warm_rate / cold_rate,
            verdict(warm_rate >= COLD_TIMES_TARGET * cold_rate)
        );
    }
}
