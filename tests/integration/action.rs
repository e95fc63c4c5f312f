//! When the Action (`action.yml`) builds toolc (the version has no release
//! binary: tests/integration/release.rs), it builds only when its cache has
//! no binary for these sources, and saves the caches right after the build
//! (a post-job save would be skipped when the job fails on findings).
//!
//! Read as text, one step at a time (the file's steps are `    - name:`
//! blocks): the test crate has no YAML parser, and these facts are lines.

use super::root;

/// Each step of `runs.steps`: its `name:` and its whole text.
fn steps() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(root().join("action.yml")).expect("read action.yml");
    let (_, steps) = text.split_once("\n  steps:\n").expect("runs.steps");
    steps
        .split("\n    - name: ")
        .map(|step| step.trim_start_matches("    - name: "))
        .map(|step| {
            let name = step.lines().next().unwrap_or_default().trim().to_string();
            (name, step.to_string())
        })
        .collect()
}

fn step<'a>(steps: &'a [(String, String)], name: &str) -> (usize, &'a str) {
    steps
        .iter()
        .position(|(n, _)| n == name)
        .map(|i| (i, steps[i].1.as_str()))
        .unwrap_or_else(|| panic!("action.yml has no step {name:?}"))
}

#[test]
fn the_action_builds_toolc_only_on_a_cache_miss() {
    let steps = steps();
    let (restore, restore_text) = step(&steps, "Restore toolc");
    let (install, install_text) = step(&steps, "Install toolc");
    let (save, save_text) = step(&steps, "Save toolc");
    let (lint, lint_text) = step(&steps, "Lint");
    assert!(restore < install && install < save && save < lint);
    assert!(restore_text.contains("uses: actions/cache/restore@"));
    assert!(restore_text.contains("id: binary"));
    let on_miss = "steps.binary.outputs.cache-hit != 'true'\n";
    assert!(install_text.contains(on_miss), "{install_text}");
    assert!(install_text.contains("cargo install --locked"));
    assert!(save_text.contains("uses: actions/cache/save@"));
    assert!(save_text.contains(on_miss), "{save_text}");
    // The cached directory is the install root the lint step runs from.
    assert!(restore_text.contains("path: ${{ runner.temp }}/toolc\n"));
    assert!(install_text.contains("--root \"$RUNNER_TEMP/toolc\""));
    assert!(lint_text.contains("\"$RUNNER_TEMP/toolc/bin/toolc\" lint"));
}

#[test]
fn the_action_caches_the_dependencies_keyed_on_the_lock_file() {
    let steps = steps();
    let (_, keys) = step(&steps, "Cache keys");
    assert!(keys.contains("Cargo.lock"), "{keys}");
    let (_, restore) = step(&steps, "Restore the build cache");
    let (_, save) = step(&steps, "Save the build cache");
    let (_, install) = step(&steps, "Install toolc");
    for text in [restore, save] {
        assert!(text.contains("~/.cargo/registry/cache"), "{text}");
        assert!(text.contains("${{ runner.temp }}/toolc-target"), "{text}");
        assert!(
            text.contains("key: ${{ steps.keys.outputs.build }}"),
            "{text}"
        );
    }
    assert!(install.contains("--target-dir \"$RUNNER_TEMP/toolc-target\""));
}
