//! agentcli → NORA → agentcli gives back the agentcli file byte for byte
//! (no entrypoint toolc made up, the tools in their order, every schema as
//! written), and the way back reports nothing as lost: over every agentcli
//! manifest of the fixtures and of the corpus.
//!
//! A hand-written file is compared as toolc writes it (`convert --to
//! agentcli` of itself: the same JSON, toolc's layout), since toolc does
//! not keep anyone's whitespace; one already in that layout is compared
//! with itself.

use std::path::{Path, PathBuf};

use super::super::{TempDir, Test, root};

/// Every `tools.json` under the fixtures that `toolc lint` reads as a clean
/// agentcli manifest, and the corpus's.
fn agentcli_manifests() -> Vec<PathBuf> {
    let mut found = Vec::new();
    for base in [
        root().join("fixtures"),
        root().join("../shared/corpus/agentcli"),
    ] {
        for entry in walkdir::WalkDir::new(&base).sort_by_file_name() {
            let entry = entry.expect("walk");
            let path = entry.path();
            let bad = path.components().any(|c| c.as_os_str() == "bad");
            if entry.file_name() == "tools.json" && !bad {
                found.push(path.to_path_buf());
            }
        }
    }
    found
}

/// Runs `toolc convert FROM --to TO -o OUT`; `None` when it refuses.
fn convert(from: &Path, to: &str, out: &Path) -> Option<String> {
    let output = Test::new()
        .args([
            "convert",
            &from.display().to_string(),
            "--to",
            to,
            "-o",
            &out.display().to_string(),
            "--show-losses",
        ])
        .run();
    (output.code == 0).then_some(output.stderr)
}

#[test]
fn agentcli_through_nora_is_byte_for_byte() {
    let temp = TempDir::new("renames-round-trip");
    let mut compared = 0;
    let mut failures = Vec::new();
    let mut refused = Vec::new();
    for (index, manifest) in agentcli_manifests().iter().enumerate() {
        let original = std::fs::read_to_string(manifest).expect("read");
        let work = temp.path().join(index.to_string());
        // toolc's layout of the file: the file itself where it is in it.
        let Some(_) = convert(manifest, "agentcli", &work.join("a")) else {
            continue;
        };
        let written = std::fs::read_to_string(work.join("a/tools.json")).expect("written");
        let same = |a: &str, b: &str| {
            let parse = |t: &str| serde_json::from_str::<serde_json::Value>(t).ok();
            parse(a).map(|v| v.to_string()) == parse(b).map(|v| v.to_string())
        };
        if !same(&original, &written) {
            // Not a manifest agentcli keeps as it is (another format's
            // file of that name, or one toolc completes): not this test's.
            continue;
        }
        let Some(_) = convert(&work.join("a"), "nora", &work.join("nora")) else {
            // NORA refuses what it cannot hold (a parameter without a
            // type): no round trip to make.
            refused.push(manifest.display().to_string());
            continue;
        };
        let Some(back_report) = convert(&work.join("nora"), "agentcli", &work.join("back")) else {
            failures.push(format!("{}: converting back refused", manifest.display()));
            continue;
        };
        let back = std::fs::read_to_string(work.join("back/tools.json")).expect("back");
        compared += 1;
        if back != written {
            failures.push(format!(
                "{}: differs after agentcli -> nora -> agentcli:\n--- before\n{written}\n--- after\n{back}",
                manifest.display()
            ));
        }
        if back_report.contains("conversion-loss") {
            failures.push(format!(
                "{}: the way back reports losses:\n{back_report}",
                manifest.display()
            ));
        }
    }
    eprintln!("{compared} round trips compared; refused by NORA: {refused:#?}");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // The corpus and the convert fixture at least.
    assert!(compared >= 2, "only {compared} manifests compared");
}
