//! A call's scratch directory, and the sweep of those a killed toolc left.
//!
//! Every call gets a private directory (mode 0700) under the temporary
//! directory (`TMPDIR`), its tool's `TMPDIR`, removed when the call ends.
//! A toolc killed outright (SIGKILL, the OOM killer, a power cut) runs no
//! clean-up, and its calls' directories would stay for good. So the name
//! says whose it is, `toolc-run-PID-START-N-SALT`: toolc's pid and that
//! process's start time (in clock ticks since boot, `/proc/PID/stat`'s
//! 22nd field, which tells a reused pid from the owner), and the first
//! call of every toolc sweeps the temporary directory: a directory of
//! this form, owned by toolc's user, whose owner no longer runs (no such
//! pid, or a pid of another start time) is removed. The tool itself is
//! gone by then: it dies with toolc (its parent-death signal, and in a
//! PID namespace the whole namespace with it).
//!
//! A directory of a toolc still running is never touched, nor one of
//! another user (the mode keeps it private anyway) or an entry that is
//! not a directory (a symbolic link planted there is not followed).
//! Names of older toolc versions (`toolc-run-PID-N-SALT`, no start time)
//! are removed when their pid is gone.

use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, Once};

use crate::run::start_time::{own_start_time, start_time};
use crate::run::{ErrorCode, ToolResult};

/// The start of every scratch directory's name.
pub(crate) const PREFIX: &str = "toolc-run-";

/// A private temporary directory for one call, removed afterwards.
pub(crate) struct Scratch {
    pub path: PathBuf,
}

impl Scratch {
    /// The call's directory, after sweeping the stale ones once per
    /// process. From a runner's second call on, the next call's is made
    /// ahead of time on the clean-up thread ([`crate::run::reaper`]), as
    /// its cgroup is: a `mkdir` off the call's path. Each is used by one
    /// call.
    pub fn new() -> Result<Scratch, Box<ToolResult>> {
        static SWEEP: Once = Once::new();
        static CALLS: AtomicU64 = AtomicU64::new(0);
        let tmp = std::env::temp_dir();
        SWEEP.call_once(|| sweep(&tmp, std::process::id()));
        let waiting = prepared().take();
        let path = match waiting {
            // Made in the temporary directory calls use now, and still the
            // directory made (a tool that may write there, or a cleaner of
            // old temporary files, may have removed or replaced it).
            Some(made) if made.path.parent() == Some(tmp.as_path()) && made.intact() => made.path,
            other => {
                // Removed off the call's path, if it is still the one made.
                if let Some(stale) = other.filter(Made::intact) {
                    crate::run::reaper::defer(move || {
                        let _ = std::fs::remove_dir_all(stale.path);
                    });
                }
                make(&tmp).map(|made| made.path).map_err(|(path, e)| {
                    Box::new(ToolResult::fail(
                        ErrorCode::InternalError,
                        format!(
                            "cannot create a temporary directory {}: {e}",
                            path.display()
                        ),
                    ))
                })?
            }
        };
        if CALLS.fetch_add(1, Ordering::Relaxed) > 0 {
            crate::run::reaper::defer(move || prepare(tmp));
        }
        Ok(Scratch { path })
    }
}

/// A directory [`make`] made: its path, and the device and inode it had.
struct Made {
    path: PathBuf,
    id: (u64, u64),
}

impl Made {
    /// Whether its path still names the private directory made (not a
    /// link, not another directory put in its place).
    fn intact(&self) -> bool {
        // SAFETY: a plain syscall.
        let uid = unsafe { libc::geteuid() };
        std::fs::symlink_metadata(&self.path).is_ok_and(|meta| {
            meta.is_dir()
                && (meta.dev(), meta.ino()) == self.id
                && meta.uid() == uid
                && meta.mode() & 0o777 == 0o700
        })
    }
}

/// The directory made ahead of time for the next call.
fn prepared() -> MutexGuard<'static, Option<Made>> {
    static PREPARED: Mutex<Option<Made>> = Mutex::new(None);
    PREPARED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Makes a directory in `tmp` for the next call, unless one waits.
fn prepare(tmp: PathBuf) {
    if prepared().is_some() {
        return;
    }
    let Ok(made) = make(&tmp) else {
        return;
    };
    let mut slot = prepared();
    match &*slot {
        None => *slot = Some(made),
        Some(_) => {
            drop(slot);
            let _ = std::fs::remove_dir(made.path);
        }
    }
}

/// Removes the directory made ahead of time, if any: no call will take
/// it (its runner is going).
pub(crate) fn discard_prepared() {
    if let Some(made) = prepared().take().filter(Made::intact) {
        let _ = std::fs::remove_dir_all(made.path);
    }
}

/// Makes a new private directory in `tmp`; on failure, the path tried
/// last and why.
fn make(tmp: &Path) -> Result<Made, (PathBuf, std::io::Error)> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let me = std::process::id();
    let started = own_start_time();
    // The name is not secret (the directory is private by its mode); a
    // clock-derived part only keeps a stale directory of an earlier
    // process with the same pid and start from blocking every call.
    let mut attempt = 0;
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let salt = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or_default();
        let path = tmp.join(format!("{PREFIX}{me}-{started}-{n}-{salt:08x}"));
        match std::fs::DirBuilder::new().mode(0o700).create(&path) {
            Ok(()) => {
                return match std::fs::symlink_metadata(&path) {
                    Ok(meta) => Ok(Made {
                        id: (meta.dev(), meta.ino()),
                        path,
                    }),
                    Err(e) => Err((path, e)),
                };
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 8 => {
                attempt += 1;
            }
            Err(e) => return Err((path, e)),
        }
    }
}

impl Drop for Scratch {
    /// The call is over, and nothing of it runs any more: the directory
    /// is removed off the caller's path ([`crate::run::reaper`]).
    fn drop(&mut self) {
        let path = std::mem::take(&mut self.path);
        crate::run::reaper::defer(move || {
            let _ = std::fs::remove_dir_all(path);
        });
    }
}

/// The owner of a scratch directory named `name`: its pid and, in the
/// current form, its start time.
fn owner(name: &str) -> Option<(u32, Option<u64>)> {
    let parts: Vec<&str> = name.strip_prefix(PREFIX)?.split('-').collect();
    let pid = parts.first()?.parse().ok()?;
    match parts.len() {
        // 0: its toolc could not read its own start time.
        4 => Some((pid, Some(parts[1].parse().ok()?).filter(|t| *t != 0))),
        3 => Some((pid, None)),
        _ => None,
    }
}

/// Removes the scratch directories in `tmp` whose toolc no longer runs
/// (see the module doc). Best effort: what cannot be read or removed is
/// left, and never delays a call by more than one directory listing.
fn sweep(tmp: &Path, me: u32) {
    // Without a readable /proc every owner would look gone.
    if start_time(me).is_none() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(tmp) else {
        return;
    };
    // SAFETY: a plain syscall.
    let uid = unsafe { libc::geteuid() };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some((pid, started)) = name.to_str().and_then(owner) else {
            continue;
        };
        if pid == me {
            continue;
        }
        // The entry itself, not what a link points to.
        let Ok(meta) = std::fs::symlink_metadata(entry.path()) else {
            continue;
        };
        if !meta.is_dir() || meta.uid() != uid {
            continue;
        }
        let stale = match (start_time(pid), started) {
            (None, _) => true,
            (Some(running), Some(owner)) => running != owner,
            (Some(_), None) => false,
        };
        if stale {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_tells_its_owner() {
        assert_eq!(
            owner("toolc-run-42-9001-3-0000abcd"),
            Some((42, Some(9001)))
        );
        assert_eq!(owner("toolc-run-42-3-0000abcd"), Some((42, None)));
        assert_eq!(owner("toolc-run-42-0-3-0000abcd"), Some((42, None)));
        assert_eq!(owner("toolc-run-x-3-0000abcd"), None);
        assert_eq!(owner("toolc-run-42"), None);
        assert_eq!(owner("toolc-test-42-1-2-3"), None);
    }
}
