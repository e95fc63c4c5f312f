//! Writing files so that readers never see half of one and a failure
//! changes nothing: each file is first written in full to a temporary file
//! beside it ([`stage`]), and only once every file of a run is staged are
//! they renamed into place ([`commit`]). Anything that fails before that
//! (a directory that cannot be written, a name too long, a full disk)
//! removes the temporary files (and the directories made for them), and
//! every file stays as it was.
//!
//! A symbolic link is written through (its target is replaced, the link
//! stays), and an existing file keeps its owner and permissions.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::CliError;

/// A file written in full beside where it goes, not yet in place.
#[derive(Debug)]
pub(super) struct Staged {
    /// The temporary file.
    temp: PathBuf,
    /// Where it goes (a link's target, for a link).
    target: PathBuf,
    /// The path as the run named it, for messages.
    shown: PathBuf,
}

impl Staged {
    /// Removes the temporary file: the target stays as it was.
    fn abandon(self) {
        let _ = std::fs::remove_file(&self.temp);
    }
}

/// Writes `bytes` to `path` at once (see the module's docs).
pub(super) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let staged = stage(path, &[bytes], false)?;
    commit(vec![staged])
}

/// Writes `pieces`, one after the other, to a new temporary file beside
/// `path`, with the owner and mode of the file there (or, for a new file
/// and `program`, the mode of a program, 0755, so that it never exists
/// without it). Nothing at `path` changes until [`commit`].
pub(super) fn stage(path: &Path, pieces: &[&[u8]], program: bool) -> Result<Staged, CliError> {
    stage_as(path, pieces, program, false)
}

/// [`stage`] for a file that was not there when the run planned it: no
/// link to resolve, no owner or mode to keep, and two fewer system calls
/// for each of the hundreds of thousands of files a tree target can write.
/// (Something put there since is replaced, as it would be between staging
/// and [`commit`] anyway.)
pub(super) fn stage_new(path: &Path, pieces: &[&[u8]], program: bool) -> Result<Staged, CliError> {
    stage_as(path, pieces, program, true)
}

fn stage_as(path: &Path, pieces: &[&[u8]], program: bool, new: bool) -> Result<Staged, CliError> {
    let wrap = |source| CliError::Write {
        path: path.to_path_buf(),
        source,
    };
    // A symbolic link is replaced where it points, not itself; any other
    // path is written where it is, whatever links lead to its directory.
    let here = if new {
        None
    } else {
        std::fs::symlink_metadata(path).ok()
    };
    let resolved = here
        .as_ref()
        .filter(|m| m.file_type().is_symlink())
        .and_then(|_| std::fs::canonicalize(path).ok());
    let target = resolved.as_deref().unwrap_or(path);
    let existing = match (&resolved, here) {
        _ if new => None,
        (None, Some(here)) if !here.file_type().is_symlink() => Some(here),
        _ => std::fs::metadata(target).ok(),
    };
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (temp, file) = create_temp_beside(&dir, &name).map_err(wrap)?;
    let written = write_pieces(file, pieces).and_then(|()| match &existing {
        Some(existing) => keep_owner_and_mode(&temp, existing),
        None if program => make_executable(&temp),
        None => Ok(()),
    });
    match written {
        Ok(()) => Ok(Staged {
            temp,
            target: target.to_path_buf(),
            shown: path.to_path_buf(),
        }),
        Err(source) => {
            let _ = std::fs::remove_file(&temp);
            Err(wrap(source))
        }
    }
}

/// Renames every staged file into place, in order. A rename within one
/// directory fails only when the directory changed under the run (or the
/// file system failed); then the files not yet renamed are left as they
/// were, their temporary files removed, and the error says which ones
/// were already replaced.
pub(super) fn commit(staged: Vec<Staged>) -> Result<(), CliError> {
    let mut done = Vec::new();
    let mut pending = staged.into_iter();
    while let Some(file) = pending.next() {
        if let Err(source) = std::fs::rename(&file.temp, &file.target) {
            let path = file.shown.clone();
            file.abandon();
            pending.for_each(Staged::abandon);
            return Err(CliError::PartlyWritten { path, source, done });
        }
        done.push(file.shown);
    }
    Ok(())
}

/// Removes the temporary files of a run that will not be committed, and
/// then the directories made for them (`made`, deepest first), those
/// that are empty.
pub(super) fn abandon(staged: Vec<Staged>, made: &[PathBuf]) {
    staged.into_iter().for_each(Staged::abandon);
    for dir in made {
        let _ = std::fs::remove_dir(dir);
    }
}

/// Makes `dir` and the directories above it that are missing; returns
/// those it made, deepest first, for [`abandon`].
pub(super) fn make_dirs(dir: &Path) -> Result<Vec<PathBuf>, CliError> {
    let missing: Vec<PathBuf> = dir
        .ancestors()
        .filter(|d| !d.as_os_str().is_empty())
        .take_while(|d| std::fs::symlink_metadata(d).is_err())
        .map(Path::to_path_buf)
        .collect();
    if let Err(source) = std::fs::create_dir_all(dir) {
        // Those made before the one that failed go again (a name too long
        // for the file system fails at the deepest).
        for made in &missing {
            let _ = std::fs::remove_dir(made);
        }
        return Err(CliError::Write {
            path: dir.to_path_buf(),
            source,
        });
    }
    Ok(missing)
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

/// A new temporary file in `dir` for an output named `name`: created only
/// if nothing is there yet (never through a link someone planted), under a
/// name no one can guess in advance.
fn create_temp_beside(dir: &Path, name: &str) -> std::io::Result<(PathBuf, std::fs::File)> {
    use std::hash::{BuildHasher, Hasher};
    let mut tries = 0;
    loop {
        let mut random = std::collections::hash_map::RandomState::new().build_hasher();
        random.write_u32(process_id());
        random.write_u32(tries);
        let temp = dir.join(format!(".{name}.toolc-{:016x}.tmp", random.finish()));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)
        {
            Ok(file) => return Ok((temp, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && tries < 16 => tries += 1,
            Err(e) => return Err(e),
        }
    }
}

/// This process's id, asked of the system once.
fn process_id() -> u32 {
    static ID: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *ID.get_or_init(std::process::id)
}

fn write_pieces(mut file: std::fs::File, pieces: &[&[u8]]) -> std::io::Result<()> {
    for piece in pieces {
        file.write_all(piece)?;
    }
    file.flush()
}

/// Gives the new file the old one's permissions and, where the process may,
/// its owner (a file fixed by root stays the user's). Hard links to the old
/// file keep the old content: a rename cannot carry them.
fn keep_owner_and_mode(temp: &Path, existing: &std::fs::Metadata) -> std::io::Result<()> {
    std::fs::set_permissions(temp, existing.permissions())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // Only root may give a file away; for anyone else this is a no-op
        // or fails harmlessly, and the file keeps the writer as owner.
        let _ = std::os::unix::fs::chown(temp, Some(existing.uid()), Some(existing.gid()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_files_are_new_files_under_names_not_known_in_advance() {
        let dir = std::env::temp_dir().join(format!("toolc-temp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (first, _) = create_temp_beside(&dir, "out.json").unwrap();
        let (second, _) = create_temp_beside(&dir, "out.json").unwrap();
        assert_ne!(first, second);
        for temp in [&first, &second] {
            let name = temp.file_name().unwrap().to_string_lossy().into_owned();
            assert!(name.starts_with(".out.json.toolc-"), "{name}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
