//! Benchmark: lint 10,000 generated agentcli manifests of 1–50 tools each,
//! against the floor of a plain sequential read + `serde_json::from_slice`
//! of the same files.
//!
//! Run: `cargo bench --bench lint_corpus` (set `TOOLC_BENCH_FILES` for a
//! different count, `TOOLC_BENCH_RUNS` for more repetitions). Prints the
//! median wall time of each measurement and the ratio to the floor. The
//! generator is seeded, so every run lints the same bytes.
//!
//! This is the quick, in-process one. `scripts/bench` is issue 12's full
//! benchmark: every format, each command in its own process with wall, CPU
//! and peak RSS, the peer validators, scaling and memory (README.md,
//! "Benchmarks").

// A benchmark program: a failed setup step aborts it with its reason.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A small deterministic generator (xorshift64*), so runs are comparable.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const TYPES: &[&str] = &["string", "integer", "number", "boolean"];
const WORDS: &[&str] = &[
    "path",
    "url",
    "query",
    "limit",
    "offset",
    "timeout",
    "format",
    "encoding",
    "recursive",
    "pattern",
    "name",
    "value",
    "mode",
    "depth",
    "retries",
    "language",
];

fn manifest(rng: &mut Rng, index: usize) -> (String, Vec<String>) {
    let tools = 1 + rng.below(50) as usize;
    let mut out = String::from("{\n  \"tools\": [\n");
    let mut names = Vec::with_capacity(tools);
    for t in 0..tools {
        let name = format!("tool_{index}_{t}");
        names.push(name.clone());
        let mut properties = Vec::new();
        let mut required = Vec::new();
        for p in 0..(1 + rng.below(8) as usize) {
            let word = WORDS[rng.below(WORDS.len() as u64) as usize];
            let prop = format!("{word}_{p}");
            let kind = TYPES[rng.below(TYPES.len() as u64) as usize];
            properties.push(format!(
                "          \"{prop}\": {{\"type\": \"{kind}\", \"description\": \"The {word} to use for this call, see the manual\"}}"
            ));
            if rng.below(2) == 0 {
                required.push(format!("\"{prop}\""));
            }
        }
        out.push_str(&format!(
            "    {{\n      \"name\": \"{name}\",\n      \"description\": \"Generated tool number {t} of manifest {index}; it does one thing well\",\n      \"schema\": {{\n        \"type\": \"object\",\n        \"properties\": {{\n{}\n        }},\n        \"required\": [{}],\n        \"additionalProperties\": false\n      }},\n      \"command\": [\"./tools/bin/{name}\", \"--json\"],\n      \"timeoutSec\": {}\n    }}{}\n",
            properties.join(",\n"),
            required.join(", "),
            1 + rng.below(60),
            if t + 1 == tools { "" } else { "," }
        ));
    }
    out.push_str("  ]\n}\n");
    (out, names)
}

fn generate(dir: &Path, files: usize) -> (Vec<PathBuf>, u64) {
    let _ = std::fs::remove_dir_all(dir);
    let mut rng = Rng(0x7001_c0de);
    let mut paths = Vec::with_capacity(files);
    let mut bytes = 0;
    for i in 0..files {
        let sub = dir.join(format!("m{:05}", i));
        std::fs::create_dir_all(&sub).expect("create dir");
        let path = sub.join("tools.json");
        let (text, names) = manifest(&mut rng, i);
        bytes += text.len() as u64;
        std::fs::write(&path, text).expect("write manifest");
        // The repository as it is after a build: every program the
        // manifest names exists (hard links to one executable per manifest).
        let bin = sub.join("tools/bin");
        std::fs::create_dir_all(&bin).expect("create tools/bin");
        let program = sub.join("program");
        std::fs::write(&program, "#!/bin/sh\necho '{}'\n").expect("write program");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755))
                .expect("chmod");
        }
        for name in names {
            std::fs::hard_link(&program, bin.join(name)).expect("link program");
        }
        paths.push(path);
    }
    (paths, bytes)
}

fn floor(paths: &[PathBuf]) -> usize {
    let mut values = 0;
    for path in paths {
        let bytes = std::fs::read(path).expect("read");
        let value: serde_json::Value = serde_json::from_slice(&bytes).expect("parse");
        values += usize::from(!value.is_null());
    }
    values
}

fn lint(dir: &Path) -> usize {
    let report =
        toolc::lint::lint_paths(&[dir.to_path_buf()], &toolc::lint::LintOptions::default())
            .expect("lint");
    assert_eq!(
        report.diagnostics.len(),
        0,
        "{:?}",
        report.diagnostics.first()
    );
    report.files.len()
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn measure(runs: usize, mut f: impl FnMut() -> usize) -> (Duration, usize) {
    let mut result = 0;
    let times = (0..runs)
        .map(|_| {
            let start = Instant::now();
            result = f();
            start.elapsed()
        })
        .collect();
    (median(times), result)
}

fn main() {
    let files: usize = std::env::var("TOOLC_BENCH_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let runs: usize = std::env::var("TOOLC_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let dir = std::env::temp_dir().join("toolc-bench-lint-corpus");
    let (paths, bytes) = generate(&dir, files);
    println!(
        "{files} agentcli manifests, {:.1} MiB, {} cores",
        bytes as f64 / (1 << 20) as f64,
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    );

    // Warm the page cache, then measure.
    floor(&paths);
    let (floor_time, parsed) = measure(runs, || floor(&paths));
    assert_eq!(parsed, files);
    let (lint_time, linted) = measure(runs, || lint(&dir));
    assert_eq!(linted, files);
    let single = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    let (single_time, _) = measure(runs, || single.install(|| lint(&dir)));

    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "floor (read + serde_json::from_slice, 1 thread): {:8.1} ms",
        ms(floor_time)
    );
    println!(
        "toolc lint (all cores):                          {:8.1} ms  ({:.2}x the floor)",
        ms(lint_time),
        ms(lint_time) / ms(floor_time)
    );
    println!(
        "toolc lint (1 thread):                           {:8.1} ms  ({:.2}x the floor)",
        ms(single_time),
        ms(single_time) / ms(floor_time)
    );
    if std::env::var_os("TOOLC_BENCH_KEEP").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
