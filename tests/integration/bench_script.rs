//! `scripts/bench` (issue 12's benchmark) on a tiny corpus, so the script
//! cannot rot: every row of the table is measured, every ratio computed,
//! and `--scaling` and `--memory` run on small sizes. No peers, no network,
//! no release build; it measures the debug `toolc` and `floor` example.

use std::path::PathBuf;
use std::process::Command;

use super::{TempDir, root};

/// The debug `floor` example beside the `toolc` under test, built when
/// `cargo test` was asked for this test binary only.
fn floor_example() -> PathBuf {
    let toolc = PathBuf::from(env!("CARGO_BIN_EXE_toolc"));
    let profile_dir = toolc.parent().expect("toolc's directory");
    let floor = profile_dir
        .join("examples")
        .join(format!("floor{}", std::env::consts::EXE_SUFFIX));
    if !floor.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
        let status = Command::new(cargo)
            .args(["build", "--example", "floor"])
            .current_dir(root())
            .status()
            .expect("run cargo build --example floor");
        assert!(status.success(), "cargo build --example floor failed");
    }
    assert!(floor.exists(), "{} is missing", floor.display());
    floor
}

#[test]
fn bench_script_measures_every_row() {
    let generator = root().join("../shared/bench/gen_corpus.py");
    assert!(
        generator.exists(),
        "{} is missing: scripts/bench needs ../shared beside the clone (it holds the corpus generator)",
        generator.display()
    );
    let floor = floor_example();
    let temp = TempDir::new("bench-script");
    let json = temp.path().join("bench.json");
    // Outputs go where --work-dir says, and nothing stays there.
    let work = temp.path().join("work");
    std::fs::create_dir(&work).expect("mkdir work");
    let output = Command::new("python3")
        .arg(root().join("scripts/bench"))
        .args(["--files", "30", "--runs", "1", "--run-iterations", "3"])
        .args(["--scaling", "--scaling-files", "10"])
        .args(["--memory", "--big-tools", "1000,3000"])
        .args(["--poisoning", "--poisoning-runs", "4"])
        .arg("--toolc")
        .arg(env!("CARGO_BIN_EXE_toolc"))
        .arg("--floor")
        .arg(&floor)
        .arg("--json")
        .arg(&json)
        .arg("--work-dir")
        .arg(&work)
        .current_dir(root())
        .output()
        .expect("run scripts/bench");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "scripts/bench failed:\n{stdout}\n{stderr}"
    );
    assert!(
        stdout.contains("| toolc lint --format json DIR |"),
        "{stdout}"
    );

    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).expect("read the --json file"))
            .expect("the --json file is JSON");
    assert_eq!(report["work_dir"].as_str(), work.to_str());
    let left: Vec<_> = std::fs::read_dir(&work).expect("work dir").collect();
    assert!(left.is_empty(), "the bench left {left:?} in its work dir");
    let rows = report["rows"].as_array().expect("rows");
    let keys: Vec<&str> = rows.iter().filter_map(|r| r["key"].as_str()).collect();
    assert_eq!(
        keys,
        [
            "floor-1",
            "floor-2",
            "lint",
            "gen-openai",
            "gen-anthropic",
            "gen-mcp",
            "convert-mcp",
            "gen-rust",
            "gen-python-nora",
            "gen-python-basetool",
            "convert-nora",
            "convert-agentstack",
            "convert-nachos"
        ]
    );
    for row in rows {
        for figure in ["wall_s", "cpu_s", "rss_mb"] {
            let value = row[figure].as_f64().unwrap_or(0.0);
            assert!(value > 0.0, "{} {figure} = {value}", row["key"]);
        }
    }

    // Each tree target's row has the floor of writing its tree.
    for row in rows.iter().filter(|row| {
        let key = row["key"].as_str().unwrap_or("");
        key.starts_with("gen-python-") || (key.starts_with("convert-") && key != "convert-mcp")
    }) {
        let floor = row["write_floor_s"].as_f64().unwrap_or(0.0);
        assert!(floor > 0.0, "{} write_floor_s = {floor}", row["key"]);
    }

    let ratios = report["ratios"].as_array().expect("ratios");
    // Two lint ratios, ten wall ratios, five against the write floor of
    // the tree targets, ten memory ratios (no peers).
    assert_eq!(ratios.len(), 27, "{ratios:#?}");
    for ratio in ratios {
        let value = ratio["value"].as_f64().unwrap_or(f64::NAN);
        assert!(value.is_finite() && value > 0.0, "{ratio}");
    }

    let overhead = &report["run_overhead"];
    assert!(
        overhead["toolc_run_ms"].as_f64().unwrap_or(0.0) > 0.0,
        "{overhead}"
    );

    let scaling = report["scaling"].as_array().expect("scaling");
    assert_eq!(scaling.len(), 14, "{scaling:#?}");
    for entry in scaling {
        assert!(entry["ratio"].as_f64().unwrap_or(0.0) > 0.0, "{entry}");
        assert!(entry["rss_ratio"].as_f64().unwrap_or(0.0) > 0.0, "{entry}");
    }

    let poisoning = &report["poisoning"];
    for side in ["with", "without"] {
        assert!(
            poisoning[side]["cpu_s"].as_f64().unwrap_or(0.0) > 0.0,
            "{poisoning}"
        );
    }
    assert!(
        poisoning["added_cpu"].as_f64().is_some_and(f64::is_finite),
        "{poisoning}"
    );
    assert!(stdout.contains("added by the family: CPU"), "{stdout}");
    // The spread of each run against the one beside it.
    let paired = &poisoning["paired_cpu"];
    let [q1, median, q3] = ["q1", "median", "q3"].map(|k| paired[k].as_f64().unwrap_or(f64::NAN));
    assert!(q1 <= median && median <= q3, "{poisoning}");
    assert!(
        stdout.contains("each run against the run beside it"),
        "{stdout}"
    );

    let memory = report["memory"].as_array().expect("memory");
    // The eleven toolc rows of the corpus, and lint and the eight
    // generators on each of the two single files.
    assert_eq!(memory.len(), 11 + 2 * 9, "{memory:#?}");
    for entry in memory {
        assert!(entry["rss_mb"].as_f64().unwrap_or(0.0) > 0.0, "{entry}");
    }
}
