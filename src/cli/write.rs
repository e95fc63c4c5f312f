//! Writing generated files: plan first, then write each through a
//! temporary file and a rename; never overwrite a file whose content
//! differs without `--force`.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use super::{CliError, Outcome, write_pieces_atomically};
use crate::emit::{FileKind, GeneratedFile};

/// How to write: `--force`, `--dry-run` and `--check`.
#[derive(Debug, Clone, Copy)]
pub(super) struct WriteMode {
    pub(super) force: bool,
    pub(super) dry_run: bool,
    /// Write nothing; show how the files on disk differ from what would be
    /// written, as a diff on standard output, and exit 1 if they do.
    pub(super) check: bool,
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
    /// A skeleton that is there already: the developer's, left alone.
    Kept,
}

fn plan(path: &Path, pieces: &[&str], kind: FileKind, above: &mut Above) -> Plan {
    if path.parent().is_some_and(|parent| above.blocked(parent)) {
        return Plan::Blocked;
    }
    match std::fs::symlink_metadata(path) {
        Err(_) => Plan::New,
        Ok(_) if !path.is_file() => Plan::Blocked,
        Ok(_) if kind != FileKind::Owned => Plan::Kept,
        Ok(_) => match holds(path, pieces) {
            Ok(true) => Plan::Unchanged,
            Ok(false) => Plan::Changed,
            Err(_) => Plan::Blocked,
        },
    }
}

/// What is known of the directories above the files of a run: whether
/// something that is not a directory is in the way at or above each. A
/// tree target writes tens of thousands of files into a few thousand
/// directories, and each directory is looked at once.
#[derive(Default)]
struct Above {
    blocked: HashMap<PathBuf, bool>,
}

impl Above {
    /// Whether `dir` or one of its ancestors exists and is not a
    /// directory (following symbolic links, as creating the file would).
    fn blocked(&mut self, dir: &Path) -> bool {
        if dir.as_os_str().is_empty() {
            return false;
        }
        if let Some(&known) = self.blocked.get(dir) {
            return known;
        }
        let here = std::fs::metadata(dir).is_ok_and(|m| !m.is_dir());
        let blocked = here || dir.parent().is_some_and(|parent| self.blocked(parent));
        self.blocked.insert(dir.to_path_buf(), blocked);
        blocked
    }
}

/// Whether the file at `path` holds the concatenation of `pieces`, read a
/// block at a time: a regenerated document the size of its input is never
/// held twice, and one of another length is not read at all.
fn holds(path: &Path, pieces: &[&str]) -> std::io::Result<bool> {
    use std::io::Read;
    let size: usize = pieces.iter().map(|piece| piece.len()).sum();
    let mut file = std::fs::File::open(path)?;
    if file.metadata()?.len() != size as u64 {
        return Ok(false);
    }
    let mut block = vec![0; 64 * 1024];
    let mut expected = pieces.iter().map(|piece| piece.as_bytes());
    let mut pending: &[u8] = &[];
    loop {
        let read = file.read(&mut block)?;
        if read == 0 {
            return Ok(pending.is_empty() && expected.all(<[u8]>::is_empty));
        }
        let mut got = &block[..read];
        while !got.is_empty() {
            if pending.is_empty() {
                match expected.next() {
                    Some(next) => pending = next,
                    // The file grew while it was read.
                    None => return Ok(false),
                }
            }
            let n = pending.len().min(got.len());
            if pending[..n] != got[..n] {
                return Ok(false);
            }
            pending = &pending[n..];
            got = &got[n..];
        }
    }
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
        if args.check {
            return Err(CliError::Usage(
                "--check compares the output with a file: name it with -o FILE".to_string(),
            ));
        }
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
    let file = (path.to_path_buf(), pieces, FileKind::Owned);
    write_planned(args, vec![file], None, &[], out, err)
}

/// Writes files under `dir`: all of them, or, when an existing one would
/// change and --force is absent, none (the changing ones are listed, exit 1).
pub(super) fn write_tree(
    args: &WriteMode,
    dir: &Path,
    files: &[GeneratedFile],
    known: &[PathBuf],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Outcome, CliError> {
    let files = files
        .iter()
        .map(|f| (dir.join(&f.path), vec![f.contents.as_str()], f.kind))
        .collect();
    write_planned(args, files, Some(dir), known, out, err)
}

/// Writes each file (its path, its content in pieces, its kind) as
/// planned; `dir` is the output directory of a tree.
fn write_planned(
    args: &WriteMode,
    files: Vec<(PathBuf, Vec<&str>, FileKind)>,
    dir: Option<&Path>,
    known: &[PathBuf],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Outcome, CliError> {
    let mut above = Above::default();
    let programs: HashSet<PathBuf> = files
        .iter()
        .filter(|(_, _, kind)| *kind == FileKind::Program)
        .map(|(path, _, _)| path.clone())
        .collect();
    let planned: Vec<(PathBuf, Plan, Vec<&str>)> = files
        .into_iter()
        .map(|(path, pieces, kind)| {
            let plan = plan(&path, &pieces, kind, &mut above);
            (path, plan, pieces)
        })
        .collect();
    if args.dry_run {
        for (path, plan, _) in &planned {
            let what = match plan {
                Plan::New => "would create",
                Plan::Changed => "would overwrite",
                Plan::Unchanged => "unchanged",
                Plan::Kept => "kept (a skeleton, yours to fill in)",
                Plan::Blocked => "cannot write (something else is in the way)",
            };
            writeln!(err, "{what}: {}", path.display())?;
        }
        return Ok(Outcome::Clean);
    }
    if args.check {
        return check_planned(&planned, out, err);
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
    // Each directory is made once, before its first file.
    let mut made: HashSet<&Path> = HashSet::new();
    for (path, plan, pieces) in &planned {
        if matches!(plan, Plan::Unchanged | Plan::Kept) {
            continue;
        }
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty())
            && made.insert(parent)
        {
            std::fs::create_dir_all(parent).map_err(|source| CliError::Write {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        let bytes: Vec<&[u8]> = pieces.iter().map(|p| p.as_bytes()).collect();
        if programs.contains(path) {
            write_program_atomically(path, &bytes)?;
        } else {
            write_pieces_atomically(path, &bytes)?;
        }
    }
    Ok(Outcome::Clean)
}

/// Writes a new program (a [`FileKind::Program`], never written over an
/// existing file) through a temporary file made executable (0755) before
/// the rename, so that it never exists without its mode.
fn write_program_atomically(path: &Path, pieces: &[&[u8]]) -> Result<(), CliError> {
    let wrap = |source| CliError::Write {
        path: path.to_path_buf(),
        source,
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (temp, file) = super::create_temp_beside(&dir, &name).map_err(wrap)?;
    let result = super::write_pieces(file, pieces)
        .and_then(|()| make_executable(&temp))
        .and_then(|()| std::fs::rename(&temp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result.map_err(wrap)
}

#[cfg(unix)]
fn make_executable(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
}

#[cfg(not(unix))]
fn make_executable(_path: &Path) -> std::io::Result<()> {
    Ok(())
}

/// `--check`: the difference between the files on disk and what would be
/// written, as a unified diff on `out` (`/dev/null` for a file that is
/// missing), each stale file named on `err`; exit 1 when there is one.
/// Skeletons already there are the developer's, and never stale.
fn check_planned(
    planned: &[(PathBuf, Plan, Vec<&str>)],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Outcome, CliError> {
    let mut stale = 0;
    for (path, plan, pieces) in planned {
        let shown = path.display().to_string();
        let (old, old_name) = match plan {
            Plan::Unchanged | Plan::Kept => continue,
            // Writing would fail too: the check cannot say what to do.
            Plan::Blocked => return Err(CliError::InTheWay(vec![path.clone()])),
            Plan::New => (String::new(), "/dev/null".to_string()),
            Plan::Changed => match std::fs::read(path) {
                Ok(bytes) => (String::from_utf8_lossy(&bytes).into_owned(), shown.clone()),
                Err(source) => {
                    return Err(CliError::Write {
                        path: path.clone(),
                        source,
                    });
                }
            },
        };
        let new: String = pieces.concat();
        let diff = similar::TextDiff::from_lines(&old, &new)
            .unified_diff()
            .context_radius(3)
            .header(&old_name, &shown)
            .to_string();
        out.write_all(diff.as_bytes())?;
        let what = if *plan == Plan::New {
            "missing"
        } else {
            "differs from what would be generated"
        };
        writeln!(err, "stale: {shown} {what}")?;
        stale += 1;
    }
    if stale == 0 {
        writeln!(
            err,
            "up to date: {} file{}",
            planned.len(),
            if planned.len() == 1 { "" } else { "s" }
        )?;
        return Ok(Outcome::Clean);
    }
    writeln!(
        err,
        "error: {stale} generated file{} out of date; run the same command without --check to write {}",
        if stale == 1 { " is" } else { "s are" },
        if stale == 1 { "it" } else { "them" }
    )?;
    Ok(Outcome::Findings)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_compares_the_whole_file_across_blocks_and_pieces() {
        let dir = std::env::temp_dir().join(format!("toolc-holds-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("out.json");
        // Three blocks and a bit, cut into pieces that straddle the blocks.
        let text: String = (0..200_000)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        std::fs::write(&path, &text).unwrap();
        let cuts = [0, 1, 65_535, 65_537, 131_072, 150_000, 150_000, 200_000];
        let pieces: Vec<&str> = cuts.windows(2).map(|w| &text[w[0]..w[1]]).collect();
        assert!(holds(&path, &pieces).unwrap());
        assert!(holds(&path, &[text.as_str(), ""]).unwrap());

        // One byte off in the last block, or at the very end.
        for at in [0, 65_536, 199_999] {
            let mut other = text.clone().into_bytes();
            other[at] = b'#';
            let other = String::from_utf8(other).unwrap();
            assert!(!holds(&path, &[other.as_str()]).unwrap(), "byte {at}");
        }
        // Shorter and longer documents.
        assert!(!holds(&path, &[&text[..199_999]]).unwrap());
        assert!(!holds(&path, &[text.as_str(), "x"]).unwrap());

        std::fs::write(&path, "").unwrap();
        assert!(holds(&path, &[]).unwrap());
        assert!(holds(&path, &["", ""]).unwrap());
        assert!(!holds(&path, &["x"]).unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
