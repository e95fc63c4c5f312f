//! Writing generated files: plan first, then write each through a
//! temporary file and a rename; never overwrite a file whose content
//! differs without `--force`.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::{CliError, Outcome, write_pieces_atomically};
use crate::emit::GeneratedFile;

/// How to write: `--force` and `--dry-run`.
#[derive(Debug, Clone, Copy)]
pub(super) struct WriteMode {
    pub(super) force: bool,
    pub(super) dry_run: bool,
}

/// What writing a file would do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plan {
    New,
    Unchanged,
    Changed,
    /// Something that is not a regular file is in the way (a directory where
    /// the file goes, a file where a directory goes): nothing can be written.
    Blocked,
}

fn plan(path: &Path, pieces: &[&str]) -> Plan {
    let blocked_above = path
        .ancestors()
        .skip(1)
        .any(|a| !a.as_os_str().is_empty() && a.exists() && !a.is_dir());
    if blocked_above {
        return Plan::Blocked;
    }
    match std::fs::symlink_metadata(path) {
        Err(_) => Plan::New,
        Ok(_) if !path.is_file() => Plan::Blocked,
        Ok(_) => match std::fs::read(path) {
            Ok(existing) if holds(&existing, pieces) => Plan::Unchanged,
            Ok(_) => Plan::Changed,
            Err(_) => Plan::Blocked,
        },
    }
}

/// Whether `existing` is the concatenation of `pieces`.
fn holds(existing: &[u8], pieces: &[&str]) -> bool {
    let mut rest = existing;
    for piece in pieces {
        match rest.strip_prefix(piece.as_bytes()) {
            Some(after) => rest = after,
            None => return false,
        }
    }
    rest.is_empty()
}

/// Writes a document, given in pieces (written one after the other, never
/// joined in memory), to `output` or standard output.
pub(super) fn write_document(
    args: &WriteMode,
    output: Option<&Path>,
    pieces: &[String],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Outcome, CliError> {
    let Some(path) = output else {
        if args.dry_run {
            let size: usize = pieces.iter().map(String::len).sum();
            writeln!(err, "would write {size} bytes to standard output")?;
        } else {
            // Pieces in writes of a pipe's size, as the whole document
            // used to go: a reader that stops early (`| head`) after a
            // small document has still been given all of it.
            let mut out = std::io::BufWriter::with_capacity(64 * 1024, out);
            for piece in pieces {
                out.write_all(piece.as_bytes())?;
            }
            out.flush()?;
        }
        return Ok(Outcome::Clean);
    };
    let pieces = pieces.iter().map(String::as_str).collect();
    write_planned(args, vec![(path.to_path_buf(), pieces)], None, &[], err)
}

/// Writes files under `dir`: all of them, or, when an existing one would
/// change and --force is absent, none (the changing ones are listed, exit 1).
pub(super) fn write_tree(
    args: &WriteMode,
    dir: &Path,
    files: &[GeneratedFile],
    known: &[PathBuf],
    err: &mut dyn Write,
) -> Result<Outcome, CliError> {
    let files = files
        .iter()
        .map(|f| (dir.join(&f.path), vec![f.contents.as_str()]))
        .collect();
    write_planned(args, files, Some(dir), known, err)
}

/// Writes each file (its path, its content in pieces) as planned; `dir` is
/// the output directory of a tree.
fn write_planned(
    args: &WriteMode,
    files: Vec<(PathBuf, Vec<&str>)>,
    dir: Option<&Path>,
    known: &[PathBuf],
    err: &mut dyn Write,
) -> Result<Outcome, CliError> {
    let planned: Vec<(PathBuf, Plan, Vec<&str>)> = files
        .into_iter()
        .map(|(path, pieces)| {
            let plan = plan(&path, &pieces);
            (path, plan, pieces)
        })
        .collect();
    if args.dry_run {
        for (path, plan, _) in &planned {
            let what = match plan {
                Plan::New => "would create",
                Plan::Changed => "would overwrite",
                Plan::Unchanged => "unchanged",
                Plan::Blocked => "cannot write (something else is in the way)",
            };
            writeln!(err, "{what}: {}", path.display())?;
        }
        return Ok(Outcome::Clean);
    }
    let blocked: Vec<PathBuf> = planned
        .iter()
        .filter(|(_, plan, _)| *plan == Plan::Blocked)
        .map(|(path, _, _)| path.clone())
        .collect();
    if !blocked.is_empty() {
        return Err(CliError::InTheWay(blocked));
    }
    let changed: Vec<&PathBuf> = planned
        .iter()
        .filter(|(_, plan, _)| *plan == Plan::Changed)
        .map(|(path, _, _)| path)
        .collect();
    if !changed.is_empty() && !args.force {
        for path in &changed {
            writeln!(
                err,
                "error: {} exists and differs from what would be generated",
                path.display()
            )?;
        }
        writeln!(
            err,
            "error: nothing was written; pass --force to overwrite, or --dry-run to see the plan"
        )?;
        return Ok(Outcome::Refused);
    }
    if let Some(dir) = dir {
        warn_about_files_not_generated(dir, &planned, known, err)?;
    }
    for (path, plan, pieces) in &planned {
        if *plan == Plan::Unchanged {
            continue;
        }
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|source| CliError::Write {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        let bytes: Vec<&[u8]> = pieces.iter().map(|p| p.as_bytes()).collect();
        write_pieces_atomically(path, &bytes)?;
    }
    Ok(Outcome::Clean)
}

/// Files in the output directory that this run did not generate (a tool
/// since removed from the manifest) are left alone, but said: a loader that
/// reads the directory would still find them.
fn warn_about_files_not_generated(
    dir: &Path,
    planned: &[(PathBuf, Plan, Vec<&str>)],
    known: &[PathBuf],
    err: &mut dyn Write,
) -> Result<(), CliError> {
    if dir.as_os_str().is_empty() || !dir.is_dir() {
        return Ok(());
    }
    let generated: std::collections::HashSet<&PathBuf> =
        planned.iter().map(|(p, _, _)| p).chain(known).collect();
    for entry in walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .flatten()
    {
        let path = entry.path().to_path_buf();
        if entry.file_type().is_file() && !generated.contains(&path) {
            writeln!(
                err,
                "warning: {} was not generated by this run (left as it is; remove it if its tool is gone)",
                path.display()
            )?;
        }
    }
    Ok(())
}
