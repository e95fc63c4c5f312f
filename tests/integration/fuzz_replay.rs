//! The fuzz corpus and every saved crash, replayed on stable: each file of
//! `fuzz/corpus/<target>/` and `fuzz/regressions/<target>/` goes through the
//! same `toolc::fuzzing` entry point as the cargo-fuzz target, so a crash
//! that was fixed stays fixed.
//!
//! A target without a corpus fails (nothing is skipped in silence), and so
//! does a directory that names no target. `fuzz/regressions/KNOWN` lists
//! the saved crashes that are still open (`TARGET/FILE`, one a line, `#`
//! for comments): only those are skipped.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use toolc::fuzzing::{EntryPoint, TARGETS};

fn fuzz_dir() -> PathBuf {
    super::root().join("fuzz")
}

/// The open crashes `fuzz/regressions/KNOWN` lists.
fn known_open() -> BTreeSet<String> {
    let known = fuzz_dir().join("regressions/KNOWN");
    let text = std::fs::read_to_string(&known).unwrap_or_default();
    text.lines()
        .map(|line| line.split('#').next().unwrap_or("").trim())
        .filter(|line| !line.is_empty())
        .map(str::to_string)
        .collect()
}

/// The files of a directory, sorted; `None` when it does not exist.
fn files_in(dir: &Path) -> Option<Vec<PathBuf>> {
    let entries = std::fs::read_dir(dir).ok()?;
    let mut files: Vec<PathBuf> = entries
        .map(|entry| entry.expect("read entry").path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    Some(files)
}

/// Runs `entry` on `data`; a panic counts as a broken invariant.
fn run(entry: EntryPoint, data: &[u8]) -> Result<(), String> {
    match std::panic::catch_unwind(|| entry(data)) {
        Ok(result) => result,
        Err(payload) => Err(payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".to_string())
            .replace('\n', " ")),
    }
}

fn replay(target: &str) {
    let entry = TARGETS
        .iter()
        .find(|(name, _)| *name == target)
        .map(|(_, entry)| *entry)
        .unwrap_or_else(|| panic!("no fuzz target {target}"));
    let known = known_open();
    let corpus = fuzz_dir().join("corpus").join(target);
    let mut files = files_in(&corpus).unwrap_or_default();
    assert!(
        !files.is_empty(),
        "{} is missing or empty: run scripts/fuzz {target}",
        corpus.display()
    );
    let regressions = fuzz_dir().join("regressions").join(target);
    if let Some(saved) = files_in(&regressions) {
        assert!(!saved.is_empty(), "{} is empty", regressions.display());
        files.extend(saved.into_iter().filter(|path| {
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            !known.contains(&format!("{target}/{name}"))
        }));
    }
    let failures: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let data = std::fs::read(path).expect("read a corpus file");
            let relative = path.strip_prefix(super::root()).unwrap_or(path);
            run(entry, &data)
                .err()
                .map(|violation| format!("{}: {violation}", relative.display()))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} inputs of fuzz target {target} fail:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

macro_rules! replay_each {
    ($($test:ident: $target:literal),* $(,)?) => {
        $(
            #[test]
            fn $test() {
                replay($target);
            }
        )*

        /// The targets the tests above replay.
        const REPLAYED: &[&str] = &[$($target),*];
    };
}

replay_each! {
    json: "json",
    lower: "lower",
    python: "python",
    typescript: "typescript",
    fix: "fix",
    render: "render",
    convert: "convert",
    gen_json: "gen",
}

#[test]
fn every_target_is_replayed() {
    let targets: Vec<&str> = TARGETS.iter().map(|(name, _)| *name).collect();
    assert_eq!(targets, REPLAYED);
}

#[test]
fn every_directory_and_known_crash_names_a_target() {
    let targets: BTreeSet<&str> = TARGETS.iter().map(|(name, _)| *name).collect();
    for dir in ["corpus", "regressions"] {
        let Ok(entries) = std::fs::read_dir(fuzz_dir().join(dir)) else {
            continue;
        };
        for entry in entries {
            let path = entry.expect("read entry").path();
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            if path.is_dir() {
                assert!(
                    targets.contains(name.as_ref()),
                    "fuzz/{dir}/{name} names no fuzz target"
                );
            }
        }
    }
    for known in known_open() {
        let path = fuzz_dir().join("regressions").join(&known);
        assert!(
            path.is_file(),
            "fuzz/regressions/KNOWN lists {known}, which is not there"
        );
    }
}
