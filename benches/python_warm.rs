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
//! Run: `cargo bench --bench python_warm` (`TOOLC_BENCH_WARM_CALLS`
//! changes the 2,000 warm calls, `TOOLC_BENCH_COLD_CALLS` the 100 cold
//! ones).

// A benchmark program: a failed setup step aborts it with its reason.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

mod common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use common::{count, ms};
use serde_json::{Value, json};
use toolc::run::{Runner, RunnerOptions};

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
    samples.sort();
    let p = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    (calls as f64 / elapsed.as_secs_f64(), p(0.5), p(0.9))
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let warm_calls = count("TOOLC_BENCH_WARM_CALLS", 2000);
    let cold_calls = count("TOOLC_BENCH_COLD_CALLS", 100);
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
        println!("{label}:");
        println!(
            "  warm  {warm_calls:5} calls  {warm_rate:7.1} calls/s  median {:6.3} ms  p90 {:6.3} ms",
            ms(warm_median),
            ms(warm_p90)
        );
        println!(
            "  cold  {cold_calls:5} calls  {cold_rate:7.1} calls/s  median {:6.3} ms  p90 {:6.3} ms",
            ms(cold_median),
            ms(cold_p90)
        );
        println!("  warm/cold: {:.1}x", warm_rate / cold_rate);
    }
}
