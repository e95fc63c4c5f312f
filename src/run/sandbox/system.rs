//! The system's directories and device files of every Landlock ruleset
//! ([`super::SYSTEM_READ`], [`super::SYSTEM_WRITE`]), opened once per
//! process rather than per call: a call's ruleset then costs a rule each
//! for them, not an open, two `fstat` and a close as well.
//!
//! Only what is not replaced while toolc runs is held: directories (a
//! rule on one covers what is beneath it now, whatever is added or
//! renamed there later) and device nodes. The regular files of the list
//! (`/etc/resolv.conf`, `/etc/hosts`, `/etc/ld.so.cache`…) are rewritten
//! by replacing them, which a held descriptor would not follow: they are
//! opened again for every call. What does not exist when first asked for
//! is looked for again at every call too.

use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::fs::FileTypeExt;
use std::sync::OnceLock;

use landlock::PathFd;

/// One list's entries: those held open, and the paths to open per call.
pub(super) struct Entries {
    /// A directory (`true`) or a device node, open `O_PATH`.
    held: Vec<(PathFd, bool)>,
    pub per_call: Vec<&'static str>,
}

impl Entries {
    fn of(paths: &[&'static str]) -> Entries {
        let mut entries = Entries {
            held: Vec::new(),
            per_call: Vec::new(),
        };
        for &path in paths {
            let kind = std::fs::metadata(path).map(|meta| meta.file_type());
            let directory = kind.as_ref().is_ok_and(|kind| kind.is_dir());
            let lasting = kind
                .is_ok_and(|kind| kind.is_dir() || kind.is_char_device() || kind.is_block_device());
            match lasting.then(|| PathFd::new(path).ok()).flatten() {
                Some(fd) => entries.held.push((fd, directory)),
                None => entries.per_call.push(path),
            }
        }
        entries
    }

    /// The held descriptors, each with whether it is a directory.
    pub fn held(&self) -> impl Iterator<Item = (BorrowedFd<'_>, bool)> {
        self.held
            .iter()
            .map(|(fd, directory)| (fd.as_fd(), *directory))
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
