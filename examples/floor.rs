//! The floor of `scripts/bench`: what any JSON tool must at least do on a
//! corpus, read every manifest and parse it into a `serde_json::Value`.
//! `toolc lint` is measured against it.
//!
//! ```sh
//! cargo run --release --example floor -- --threads 2 target/bench/corpus-10000
//! ```
//!
//! Each PATH is one of:
//! - a corpus directory made by `gen_corpus.py` (its manifests are listed in
//!   the `DIR.meta/files-*.txt` beside it),
//! - a list file (`*.txt`): one manifest path a line,
//! - a JSON file.
//!
//! `--threads N` parses on a rayon pool of N threads (default 1). Prints the
//! file count and the bytes read; a file that cannot be read or does not
//! parse fails the run (exit 1) with its path and the reason.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use rayon::prelude::*;

fn usage() -> ExitCode {
    eprintln!("usage: floor [--threads N] PATH...  (corpus dir, list .txt, or .json)");
    ExitCode::from(2)
}

/// The manifest paths of one command-line argument.
fn manifests_of(arg: &Path) -> Result<Vec<PathBuf>, String> {
    if arg.is_dir() {
        let mut meta = arg.as_os_str().to_owned();
        meta.push(".meta");
        let meta = PathBuf::from(meta);
        let entries = std::fs::read_dir(&meta).map_err(|e| {
            format!(
                "{}: a directory needs its gen_corpus.py lists in {} ({e})",
                arg.display(),
                meta.display()
            )
        })?;
        let mut lists: Vec<PathBuf> = entries
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| {
                path.file_name()
                    .and_then(|name| name.to_str())
                    .is_some_and(|name| name.starts_with("files-") && name.ends_with(".txt"))
            })
            .collect();
        if lists.is_empty() {
            return Err(format!("{}: no files-*.txt lists", meta.display()));
        }
        // Sorted, so every run reads in the same order.
        lists.sort();
        let mut paths = Vec::new();
        for list in lists {
            paths.extend(read_list(&list)?);
        }
        Ok(paths)
    } else if arg.extension().is_some_and(|ext| ext == "txt") {
        read_list(arg)
    } else {
        Ok(vec![arg.to_path_buf()])
    }
}

fn read_list(list: &Path) -> Result<Vec<PathBuf>, String> {
    let text = std::fs::read_to_string(list).map_err(|e| format!("{}: {e}", list.display()))?;
    Ok(text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(PathBuf::from)
        .collect())
}

/// Reads and parses one manifest; its size in bytes.
fn parse(path: &Path) -> Result<u64, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let value: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|e| format!("{}: not JSON: {e}", path.display()))?;
    // Keep the parse from being optimised away.
    std::hint::black_box(&value);
    Ok(bytes.len() as u64)
}

fn main() -> ExitCode {
    let mut threads = 1usize;
    let mut args = std::env::args_os().skip(1);
    let mut inputs = Vec::new();
    while let Some(arg) = args.next() {
        if arg == "--threads" {
            let Some(n) = args
                .next()
                .and_then(|n| n.to_str().and_then(|n| n.parse().ok()))
            else {
                return usage();
            };
            threads = n;
        } else if arg == "-h" || arg == "--help" {
            usage();
            return ExitCode::SUCCESS;
        } else {
            inputs.push(PathBuf::from(arg));
        }
    }
    if inputs.is_empty() || threads == 0 {
        return usage();
    }

    let mut paths = Vec::new();
    for input in &inputs {
        match manifests_of(input) {
            Ok(found) => paths.extend(found),
            Err(message) => {
                eprintln!("floor: {message}");
                return ExitCode::FAILURE;
            }
        }
    }

    let pool = match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool,
        Err(e) => {
            eprintln!("floor: cannot start {threads} threads: {e}");
            return ExitCode::FAILURE;
        }
    };
    let total: Result<u64, String> = pool.install(|| {
        paths
            .par_iter()
            .map(|path| parse(path))
            .try_reduce(|| 0, |a, b| Ok(a + b))
    });
    match total {
        Ok(bytes) => {
            println!("{} files, {bytes} bytes, {threads} threads", paths.len());
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("floor: {message}");
            ExitCode::FAILURE
        }
    }
}
