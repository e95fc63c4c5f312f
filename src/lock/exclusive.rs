//! One writer of a lock file at a time: `toolc lock` reads the file,
//! merges what it read from its sources into it and writes it back, and
//! two runs doing that at once would each write what they read, losing
//! the other's pins.
//!
//! The writers take an advisory lock (`flock`, exclusive) on the lock
//! file's directory, not on the file: the file is replaced by a rename
//! (never written in place, so a reader never sees half of it), and a lock
//! on the old file would not hold the new one. A directory is there
//! before and after, and locking it leaves no file behind. A run waits
//! for the lock a bounded time, then fails saying why
//! ([`LockError::Busy`]).

use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::LockError;

/// The exclusive lock of a lock file's directory, held until dropped.
#[derive(Debug)]
pub struct Exclusive {
    /// Closing it releases the lock.
    _directory: File,
}

/// The longest pause between two tries.
const MOST_PAUSE: Duration = Duration::from_millis(50);

/// Takes the exclusive lock of the directory of the lock file at `path`
/// (where a symbolic link leads, since that is where it is written),
/// waiting at most `wait` for another writer to release it.
pub fn exclusive(path: &Path, wait: Duration) -> Result<Exclusive, LockError> {
    let directory = directory_of(path);
    let unlockable = |source| LockError::Unlockable {
        path: path.to_path_buf(),
        directory: directory.clone(),
        source,
    };
    let file = File::open(&directory).map_err(unlockable)?;
    let started = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(Exclusive { _directory: file }),
            Err(TryLockError::WouldBlock) => {}
            Err(TryLockError::Error(source)) => return Err(unlockable(source)),
        }
        let waited = started.elapsed();
        if waited >= wait {
            return Err(LockError::Busy {
                path: path.to_path_buf(),
                waited: wait,
            });
        }
        std::thread::sleep(pause.min(wait - waited));
        pause = (pause * 2).min(MOST_PAUSE);
    }
}

/// The directory the lock file at `path` is written in.
fn directory_of(path: &Path) -> PathBuf {
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let target = if is_link {
        std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
    } else {
        path.to_path_buf()
    };
    match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}
