//! Files of the workspace opened with no window between the check and the
//! open.
//!
//! [`super::builtin::Workspace::resolve`] says whether a path stays in the
//! workspace, following its links, and gives the path with every link
//! resolved. Opening that path by name afterwards would follow whatever the
//! file system holds by then: a tool that keeps swapping a directory for a
//! link to `/etc` wins the race sooner or later. So the built-ins open the
//! resolved path relative to a descriptor of the root with `openat2` and
//! `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`: the kernel refuses, during the
//! lookup itself, any step that leaves the root or meets a link (the
//! resolved path has none left, so a link there is a swap), and the call
//! fails instead of escaping. Writes create their directories and their
//! temporary file one component at a time through such descriptors, and
//! rename within the final directory's descriptor.

use std::ffi::{CString, OsStr};
use std::fs;
use std::io::{self, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path};

/// Opens `relative` (a path with no links, under `root`) for reading,
/// without blocking on a FIFO.
pub(crate) fn open_for_reading(root: &Path, relative: &Path) -> io::Result<fs::File> {
    let root = open_directory(root)?;
    let fd = open_beneath(
        &root,
        relative,
        libc::O_RDONLY | libc::O_NONBLOCK | libc::O_CLOEXEC,
    )?;
    Ok(fs::File::from(fd))
}

/// Writes `bytes` to `relative` under `root` (a path with no links):
/// creates the missing directories, writes a new temporary file named
/// `temp` beside the target, flushes it, and renames it over the target,
/// every step through descriptors of the directories beneath the root.
pub(crate) fn write_replacing(
    root: &Path,
    relative: &Path,
    temp: &OsStr,
    bytes: &[u8],
) -> io::Result<()> {
    let (Some(parent), Some(name)) = (relative.parent(), relative.file_name()) else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the path names no file",
        ));
    };
    let mut directory = open_directory(root)?;
    for component in parent.components() {
        let Component::Normal(step) = component else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the path is not plain below the workspace",
            ));
        };
        let name = c_name(step)?;
        // SAFETY: a valid descriptor and a NUL-terminated name.
        let made = unsafe { libc::mkdirat(directory.as_raw_fd(), name.as_ptr(), 0o777) };
        if made != 0 {
            let error = io::Error::last_os_error();
            if error.raw_os_error() != Some(libc::EEXIST) {
                return Err(error);
            }
        }
        directory = open_beneath(
            &directory,
            Path::new(step),
            libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )?;
    }
    let temp = c_name(temp)?;
    let name = c_name(name)?;
    // SAFETY: a valid descriptor, a NUL-terminated name; O_EXCL and
    // O_NOFOLLOW: a new file, never through a link.
    let raw = unsafe {
        libc::openat(
            directory.as_raw_fd(),
            temp.as_ptr(),
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            0o666 as libc::c_uint,
        )
    };
    if raw < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `raw` is a descriptor openat just gave, owned from here.
    let mut file = fs::File::from(unsafe { OwnedFd::from_raw_fd(raw) });
    let written = file.write_all(bytes).and_then(|()| file.sync_all());
    let unlink_temp = || {
        // SAFETY: as above.
        unsafe { libc::unlinkat(directory.as_raw_fd(), temp.as_ptr(), 0) };
    };
    if let Err(error) = written {
        unlink_temp();
        return Err(error);
    }
    // SAFETY: the same directory descriptor on both sides, valid names.
    let renamed = unsafe {
        libc::renameat(
            directory.as_raw_fd(),
            temp.as_ptr(),
            directory.as_raw_fd(),
            name.as_ptr(),
        )
    };
    if renamed != 0 {
        let error = io::Error::last_os_error();
        unlink_temp();
        return Err(error);
    }
    Ok(())
}

/// A descriptor of the directory `path`, to look paths up beneath.
fn open_directory(path: &Path) -> io::Result<OwnedFd> {
    let path = CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL in the path"))?;
    // SAFETY: a NUL-terminated path.
    let raw = unsafe {
        libc::open(
            path.as_ptr(),
            libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    if raw < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `raw` is a descriptor open just gave, owned from here.
    Ok(unsafe { OwnedFd::from_raw_fd(raw) })
}

/// `openat2(directory, relative, flags)` resolving beneath `directory` and
/// through no link at all.
fn open_beneath(directory: &OwnedFd, relative: &Path, flags: libc::c_int) -> io::Result<OwnedFd> {
    let relative = if relative.as_os_str().is_empty() {
        Path::new(".")
    } else {
        relative
    };
    let path = CString::new(relative.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL in the path"))?;
    // SAFETY: open_how is plain integers; all zero is "no flags".
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    how.flags = flags as u64;
    how.resolve = libc::RESOLVE_BENEATH | libc::RESOLVE_NO_SYMLINKS;
    // SAFETY: a valid descriptor, a NUL-terminated path and an open_how of
    // the size passed.
    let raw = unsafe {
        libc::syscall(
            libc::SYS_openat2,
            directory.as_raw_fd(),
            path.as_ptr(),
            &how as *const libc::open_how,
            std::mem::size_of::<libc::open_how>(),
        )
    };
    if raw < 0 {
        return Err(io::Error::last_os_error());
    }
    let raw =
        libc::c_int::try_from(raw).map_err(|_| io::Error::other("openat2 gave no descriptor"))?;
    // SAFETY: `raw` is a descriptor openat2 just gave, owned from here.
    Ok(unsafe { OwnedFd::from_raw_fd(raw) })
}

fn c_name(name: &OsStr) -> io::Result<CString> {
    CString::new(name.as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL in the path"))
}

/// A directory of the workspace, held open: listed through its descriptor,
/// and its subdirectories opened beneath it, so that a directory swapped
/// for a link while a listing walks it ends the listing instead of
/// leading it outside.
pub(crate) struct Directory(OwnedFd);

impl Directory {
    /// Opens `relative` (a path with no links, under `root`).
    pub(crate) fn open(root: &Path, relative: &Path) -> io::Result<Directory> {
        let root = open_directory(root)?;
        open_beneath(
            &root,
            relative,
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
        .map(Directory)
    }

    /// Its subdirectory `name`, which must not be a link.
    pub(crate) fn child(&self, name: &OsStr) -> io::Result<Directory> {
        open_beneath(
            &self.0,
            Path::new(name),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
        .map(Directory)
    }

    /// Its entries, read through the descriptor (`/proc/self/fd/N` names
    /// the open directory itself, whatever its path has become).
    pub(crate) fn entries(&self) -> io::Result<fs::ReadDir> {
        fs::read_dir(format!("/proc/self/fd/{}", self.0.as_raw_fd()))
    }
}
