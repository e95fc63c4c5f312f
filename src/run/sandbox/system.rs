//! The system's directories and device files of every Landlock ruleset
//! ([`super::SYSTEM_READ`], [`super::SYSTEM_WRITE`]), opened once per
//! process rather than per call: a call's ruleset then costs a `stat` and
//! a rule each for them, not an open, two `fstat` and a close as well.
//!
//! Only what is not replaced while toolc runs is held: directories (a
//! rule on one covers what is beneath it now, whatever is added or
//! renamed there later) and device nodes. The regular files of the list
//! (`/etc/resolv.conf`, `/etc/hosts`, `/etc/ld.so.cache`…) are rewritten
//! by replacing them, which a held descriptor would not follow: they are
//! opened again for every call. What does not exist when first asked for
//! is looked for again at every call too.
//!
//! A held entry is checked at every call: its path must still name the
//! file held (same device and inode). One that was replaced, renamed or
//! unmounted since is opened again at its path (a rule follows the path,
//! as it did when every call opened it), or, when the path names nothing
//! lasting any more, looked for at every call from then on; the old
//! descriptor is let go, so the old directory is granted to no call.

use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::sync::{Mutex, MutexGuard, OnceLock};

use landlock::PathFd;

/// A directory or device node held open (`O_PATH`).
struct Held {
    path: &'static str,
    fd: PathFd,
    /// The device and inode opened.
    id: (u64, u64),
    directory: bool,
}

/// One list's entries: those held open, and the paths to open per call.
pub(super) struct Entries {
    state: Mutex<State>,
}

struct State {
    held: Vec<Held>,
    per_call: Vec<&'static str>,
}

/// A list's entries as one call uses them: every held one checked (see
/// the module doc). The list stays locked while the call's ruleset is
/// built from it.
pub(super) struct Current<'a>(MutexGuard<'a, State>);

impl Current<'_> {
    /// The held descriptors, each with whether it is a directory.
    pub fn held(&self) -> impl Iterator<Item = (BorrowedFd<'_>, bool)> {
        self.0
            .held
            .iter()
            .map(|held| (held.fd.as_fd(), held.directory))
    }

    /// The paths to open for this call.
    pub fn per_call(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.0.per_call.iter().copied()
    }
}

/// `path` opened, if it names a directory or a device node: the held
/// entry.
fn open(path: &'static str) -> Option<Held> {
    let kind = std::fs::metadata(path).ok()?.file_type();
    let directory = kind.is_dir();
    if !(directory || kind.is_char_device() || kind.is_block_device()) {
        return None;
    }
    let fd = PathFd::new(path).ok()?;
    // The identity of what was opened, not of what the path named a
    // moment before.
    // SAFETY: a zeroed stat is a valid value for fstat to fill; the
    // descriptor is open.
    let mut stat: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd.as_fd().as_raw_fd(), &mut stat) } != 0 {
        return None;
    }
    Some(Held {
        path,
        fd,
        id: (stat.st_dev, stat.st_ino),
        directory,
    })
}

impl Entries {
    fn of(paths: &[&'static str]) -> Entries {
        let mut state = State {
            held: Vec::new(),
            per_call: Vec::new(),
        };
        for &path in paths {
            match open(path) {
                Some(held) => state.held.push(held),
                None => state.per_call.push(path),
            }
        }
        Entries {
            state: Mutex::new(state),
        }
    }

    /// The entries for a call, every held one still at its path.
    pub fn current(&self) -> Current<'_> {
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let State { held, per_call } = &mut *state;
        held.retain_mut(|entry| {
            let now = std::fs::metadata(entry.path).map(|meta| (meta.dev(), meta.ino()));
            if now.as_ref().is_ok_and(|now| *now == entry.id) {
                return true;
            }
            match open(entry.path) {
                Some(again) => {
                    *entry = again;
                    true
                }
                None => {
                    per_call.push(entry.path);
                    false
                }
            }
        });
        Current(state)
    }
}

/// (read and execute, full access): the entries of the two lists.
pub(super) fn entries() -> &'static (Entries, Entries) {
    static ENTRIES: OnceLock<(Entries, Entries)> = OnceLock::new();
    ENTRIES.get_or_init(|| {
        (
            Entries::of(super::SYSTEM_READ),
            Entries::of(super::SYSTEM_WRITE),
        )
    })
}
