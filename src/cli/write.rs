//! Writing generated files: plan first, then write each through a
//! temporary file and a rename; never overwrite a file whose content
//! differs without `--force`.

use std::collections::{HashMap, HashSet};
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

fn plan(path: &Path, pieces: &[&str], above: &mut Above) -> Plan {
    if path.parent().is_some_and(|parent| above.blocked(parent)) {
        return Plan::Blocked;
    }
    match std::fs::symlink_metadata(path) {
        Err(_) => Plan::New,
        Ok(_) if !path.is_file() => Plan::Blocked,
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
    let mut above = Above::default();
    let planned: Vec<(PathBuf, Plan, Vec<&str>)> = files
        .into_iter()
        .map(|(path, pieces)| {
            let plan = plan(&path, &pieces, &mut above);
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
    // Each directory is made once, before its first file.
    let mut made: HashSet<&Path> = HashSet::new();
    for (path, plan, pieces) in &planned {
        if *plan == Plan::Unchanged {
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
