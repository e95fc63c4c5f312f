//! Benchmark: what the runner adds to a tool call, and how fast Python
//! tools run.
//!
//! 1. The same trivial tool (fixtures/run/agentcli, `echo`: a shell script
//!    that prints its stdin back as JSON) is called 1,000 times through
//!    `Runner::call` and 1,000 times by spawning it directly with
//!    `std::process::Command` (arguments on stdin, stdout read, status
//!    waited for). The overhead is the difference of the medians; the
//!    target is under 2 ms. Runner calls are measured with the sandbox on
//!    and off, alternating with the direct spawns so both see the same
//!    machine load.
//! 2. The AgentStack function `add` (fixtures/run/agentstack/probe) is
//!    called through the Python executor (warm, the default); calls per
//!    second are reported. `benches/python_warm.rs` compares warm and cold.
//!
//! Run: `cargo bench --bench run_overhead` (`TOOLC_BENCH_CALLS` changes the
//! 1,000, `TOOLC_BENCH_PYTHON_CALLS` the 100 Python calls).

// A benchmark program: a failed setup step aborts it with its reason.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use toolc::run::{Runner, RunnerOptions};

fn count(variable: &str, default: usize) -> usize {
    std::env::var(variable)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn percentile(samples: &[Duration], p: f64) -> Duration {
    let index = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples[index]
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

fn direct(program: &PathBuf, dir: &PathBuf, input: &[u8]) -> Duration {
    let started = Instant::now();
    let mut child = Command::new(program)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the tool");
    child.stdin.take().unwrap().write_all(input).unwrap();
    let mut stdout = Vec::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_end(&mut stdout)
        .unwrap();
    let status = child.wait().unwrap();
    let elapsed = started.elapsed();
    assert!(status.success() && stdout.starts_with(b"{\"echo\""));
    elapsed
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let manifest = root.join("fixtures/run/agentcli/tools.json");
    let dir = root.join("fixtures/run/agentcli");
    let program = dir.join("tools/bin/echo");
    let calls = count("TOOLC_BENCH_CALLS", 1000);
    let arguments = json!({"text": "hello"});
    let input = b"{\"text\":\"hello\"}\n";

    let sandboxed =
        Runner::load(std::slice::from_ref(&manifest), RunnerOptions::default()).unwrap();
    let plain = Runner::load(
        std::slice::from_ref(&manifest),
        RunnerOptions {
            sandbox: false,
            ..RunnerOptions::default()
        },
    )
    .unwrap();
    println!("sandbox: {:?}", sandboxed.sandbox_support());

    // Warm up the page cache and the dynamic loader.
    for _ in 0..20 {
        direct(&program, &dir, input);
        assert!(sandboxed.call("echo", arguments.clone()).success);
        assert!(plain.call("echo", arguments.clone()).success);
    }

    let mut spawned = Vec::with_capacity(calls);
    let mut confined = Vec::with_capacity(calls);
    let mut unconfined = Vec::with_capacity(calls);
    for _ in 0..calls {
        spawned.push(direct(&program, &dir, input));
        let started = Instant::now();
        let result = sandboxed.call("echo", arguments.clone());
        confined.push(started.elapsed());
        assert!(result.success, "{}", result.to_json_line());
        let started = Instant::now();
        let result = plain.call("echo", arguments.clone());
        unconfined.push(started.elapsed());
        assert!(result.success, "{}", result.to_json_line());
    }
    let direct_median = median(&mut spawned);
    let confined_median = median(&mut confined);
    let unconfined_median = median(&mut unconfined);
    println!("{calls} calls of the echo tool (median, p90):");
    println!(
        "  spawned directly        {:7.3} ms  {:7.3} ms",
        ms(direct_median),
        ms(percentile(&spawned, 0.9))
    );
    println!(
        "  runner, sandbox off     {:7.3} ms  {:7.3} ms   overhead {:+.3} ms",
        ms(unconfined_median),
        ms(percentile(&unconfined, 0.9)),
        ms(unconfined_median) - ms(direct_median)
    );
    println!(
        "  runner, Landlock        {:7.3} ms  {:7.3} ms   overhead {:+.3} ms",
        ms(confined_median),
        ms(percentile(&confined, 0.9)),
        ms(confined_median) - ms(direct_median)
    );

    let python_calls = count("TOOLC_BENCH_PYTHON_CALLS", 100);
    let probe = Runner::load(
        &[root.join("fixtures/run/agentstack/probe/config.json")],
        RunnerOptions::default(),
    )
    .unwrap();
    // The first call also asks the interpreter where it lives.
    assert!(probe.call("add", json!({"a": 1, "b": 2})).success);
    let started = Instant::now();
    for i in 0..python_calls {
        let result = probe.call("add", json!({"a": i, "b": 1}));
        assert_eq!(
            result.output,
            Some(json!(i + 1)),
            "{}",
            result.to_json_line()
        );
    }
    let elapsed = started.elapsed();
    println!(
        "Python executor: {python_calls} calls of add in {:.2} s: {:.1} calls/s ({:.1} ms per call)",
        elapsed.as_secs_f64(),
        python_calls as f64 / elapsed.as_secs_f64(),
        ms(elapsed) / python_calls as f64
    );
}
