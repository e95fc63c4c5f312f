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
//!
//! `floor --write-tree FROM TO [--threads N]` is the floor of the commands
//! that write a tree (`gen python`, `convert --to nora`): it reads the tree
//! FROM (one such command's output) into memory, then writes it again
//! under TO, which must not exist, as any writer that never leaves a
//! half-written file must: each directory made, each file created beside
//! its place under a temporary name, written and renamed, the files on N
//! threads. It prints the time of the writing alone, in seconds, last on
//! its line.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use rayon::prelude::*;

fn usage() -> ExitCode {
    eprintln!("usage: floor [--threads N] PATH...  (corpus dir, list .txt, or .json)");
    eprintln!("       floor [--threads N] --write-tree FROM TO");
    ExitCode::from(2)
}

/// A tree read into memory: its directories (parents first) and files,
/// relative to its root.
struct Tree {
    directories: Vec<PathBuf>,
    files: Vec<(PathBuf, Vec<u8>)>,
}

fn read_tree(from: &Path) -> Result<Tree, String> {
    let mut tree = Tree {
        directories: Vec::new(),
        files: Vec::new(),
    };
    for entry in walkdir::WalkDir::new(from).min_depth(1).sort_by_file_name() {
        let entry = entry.map_err(|e| format!("{}: {e}", from.display()))?;
        let relative = entry
            .path()
            .strip_prefix(from)
            .map_err(|e| e.to_string())?
            .to_path_buf();
        if entry.file_type().is_dir() {
            tree.directories.push(relative);
        } else if entry.file_type().is_file() {
            let bytes = std::fs::read(entry.path())
                .map_err(|e| format!("{}: {e}", entry.path().display()))?;
            tree.files.push((relative, bytes));
        }
    }
    Ok(tree)
}

/// Writes `tree` under `to` (see the module's text); the seconds it took.
fn write_tree(tree: &Tree, to: &Path, pool: &rayon::ThreadPool) -> Result<f64, String> {
    let started = std::time::Instant::now();
    std::fs::create_dir(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for directory in &tree.directories {
        let path = to.join(directory);
        std::fs::create_dir(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    pool.install(|| {
        tree.files.par_iter().try_for_each(|(relative, bytes)| {
            use std::io::Write;
            let path = to.join(relative);
            let mut temp_name = path.as_os_str().to_owned();
            temp_name.push(".floor-tmp");
            let temp = PathBuf::from(temp_name);
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&temp)
                .map_err(|e| format!("{}: {e}", temp.display()))?;
            file.write_all(bytes)
                .map_err(|e| format!("{}: {e}", temp.display()))?;
            drop(file);
            std::fs::rename(&temp, &path).map_err(|e| format!("{}: {e}", path.display()))
        })
    })?;
    Ok(started.elapsed().as_secs_f64())
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
    let mut write = false;
    while let Some(arg) = args.next() {
        if arg == "--write-tree" {
            write = true;
            continue;
        }
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
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool,
        Err(e) => {
            eprintln!("floor: cannot start {threads} threads: {e}");
            return ExitCode::FAILURE;
        }
    };
    if write {
        let [from, to] = inputs.as_slice() else {
            return usage();
        };
        let written = read_tree(from).and_then(|tree| {
            let seconds = write_tree(&tree, to, &pool)?;
            let bytes: usize = tree.files.iter().map(|(_, b)| b.len()).sum();
            Ok((tree.files.len(), tree.directories.len(), bytes, seconds))
        });
        return match written {
            Ok((files, directories, bytes, seconds)) => {
                println!(
                    "{files} files, {directories} directories, {bytes} bytes, {threads} threads, written in {seconds:.3}"
                );
                ExitCode::SUCCESS
            }
            Err(message) => {
                eprintln!("floor: {message}");
                ExitCode::FAILURE
            }
        };
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
