//! Benchmark: what the runner adds to a tool call, and how fast Python
//! tools run.
//!
//! 1. The same trivial tool (fixtures/run/agentcli, `echo`: a shell script
//!    that prints its stdin back as JSON) is called 1,000 times through
//!    `Runner::call` and 1,000 times by spawning it directly with
//!    `std::process::Command` (arguments on stdin, stdout read, status
//!    waited for). The overhead is the difference of the medians; the
//!    target is under 2 ms. Runner calls are measured in each sandbox mode
//!    (namespaces and Landlock, Landlock alone, none; and namespaces for
//!    the same program declared without network, which adds a network
//!    namespace, and with an egress allow-list, which adds the network
//!    namespace and toolc's connect proxy), each in a cgroup of its own
//!    where toolc can make one (as root), interleaved with the direct spawns so all see the same
//!    machine load.
//! 2. The AgentStack function `add` (fixtures/run/agentstack/probe) is
//!    called through the Python executor (warm, the default); calls per
//!    second are reported. `benches/python_warm.rs` compares warm and cold.
//!
//! 3. 20 calls of the default mode 150 ms apart (and as many direct
//!    spawns): what a lone call costs, which back-to-back calls hide (a
//!    process joins a cgroup cheaply only soon after another did).
//!
//! Run: `cargo bench --bench run_overhead` (`TOOLC_BENCH_CALLS` changes the
//! 1,000, `TOOLC_BENCH_PYTHON_CALLS` the 100 Python calls,
//! `TOOLC_BENCH_SPACED_CALLS` the 20 spaced ones).

// A benchmark program: a failed setup step aborts it with its reason.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

mod common;

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{count, median, ms, percentile};
use serde_json::json;
use toolc::run::{Runner, RunnerOptions};

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

    let runner = |namespaces: bool, sandbox: bool| {
        let options = RunnerOptions {
            namespaces,
            sandbox,
            ..RunnerOptions::default()
        };
        Runner::load(std::slice::from_ref(&manifest), options).unwrap()
    };
    // The same program declared without network (Nachos `egress: []`):
    // its calls also get a new network namespace.
    let offline_dir = std::env::temp_dir().join(format!("toolc-bench-{}", std::process::id()));
    std::fs::create_dir_all(&offline_dir).unwrap();
    let offline = offline_dir.join("manifest.json");
    let nachos = json!({
        "name": "echo", "version": "0.1.0", "type": "tool",
        "description": "Echo the arguments back.",
        "capabilities": {"network": {"egress": []}},
        "provides": {"tool": "echo", "securityTier": 1},
        "x-toolc": {"agentcli": {"command": [program], "timeoutSec": 5}}
    });
    std::fs::write(&offline, nachos.to_string()).unwrap();
    // And with an egress allow-list: a network namespace whose only way
    // out is toolc's connect proxy, started for each call.
    let allow_listed = offline_dir.join("allow-listed/manifest.json");
    std::fs::create_dir_all(offline_dir.join("allow-listed")).unwrap();
    let mut with_egress = nachos.clone();
    with_egress["capabilities"]["network"]["egress"] = json!(["api.example.com:443"]);
    std::fs::write(&allow_listed, with_egress.to_string()).unwrap();
    let modes = [
        (
            "namespaces+Landlock, egress proxy",
            Runner::load(
                std::slice::from_ref(&allow_listed),
                RunnerOptions::default(),
            )
            .unwrap(),
        ),
        (
            "namespaces+Landlock, no network",
            Runner::load(std::slice::from_ref(&offline), RunnerOptions::default()).unwrap(),
        ),
        ("namespaces+Landlock", runner(true, true)),
        ("Landlock alone", runner(false, true)),
        ("no sandbox", runner(false, false)),
    ];
    for (name, runner) in &modes {
        println!("{name}: {}", runner.sandbox_mode().as_str());
    }

    // Warm up the page cache and the dynamic loader.
    for _ in 0..20 {
        direct(&program, &dir, input);
        for (_, runner) in &modes {
            assert!(runner.call("echo", arguments.clone()).success);
        }
    }

    let mut spawned = Vec::with_capacity(calls);
    let mut timed: Vec<Vec<Duration>> = modes.iter().map(|_| Vec::with_capacity(calls)).collect();
    for _ in 0..calls {
        spawned.push(direct(&program, &dir, input));
        for ((_, runner), samples) in modes.iter().zip(&mut timed) {
            let started = Instant::now();
            let result = runner.call("echo", arguments.clone());
            samples.push(started.elapsed());
            assert!(result.success, "{}", result.to_json_line());
        }
    }
    let direct_median = median(&mut spawned);
    println!("{calls} calls of the echo tool (median, p90):");
    println!(
        "  spawned directly        {:7.3} ms  {:7.3} ms",
        ms(direct_median),
        ms(percentile(&spawned, 0.9))
    );
    for ((name, _), samples) in modes.iter().zip(&mut timed) {
        let runner_median = median(samples);
        println!(
            "  runner, {name:<31} {:7.3} ms  {:7.3} ms   overhead {:+.3} ms",
            ms(runner_median),
            ms(percentile(samples, 0.9)),
            ms(runner_median) - ms(direct_median)
        );
    }

    // Calls far apart, as an agent makes them: the kernel moves a process
    // into a cgroup cheaply only right after another move (an RCU grace
    // period later it waits for a new one), which back-to-back calls hide.
    let spaced = count("TOOLC_BENCH_SPACED_CALLS", 20);
    if spaced > 0 {
        let (name, runner) = &modes[2];
        let mut alone = Vec::with_capacity(spaced);
        let mut alone_direct = Vec::with_capacity(spaced);
        for _ in 0..spaced {
            std::thread::sleep(Duration::from_millis(150));
            alone_direct.push(direct(&program, &dir, input));
            std::thread::sleep(Duration::from_millis(150));
            let started = Instant::now();
            assert!(runner.call("echo", arguments.clone()).success);
            alone.push(started.elapsed());
        }
        let (runner_median, direct_median) = (median(&mut alone), median(&mut alone_direct));
        println!(
            "{spaced} calls 150 ms apart (median): spawned directly {:.3} ms, runner, {name} {:.3} ms, overhead {:+.3} ms",
            ms(direct_median),
            ms(runner_median),
            ms(runner_median) - ms(direct_median)
        );
    }

    let _ = std::fs::remove_dir_all(&offline_dir);

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
