//! A started MCP server in a PID namespace of its own (Linux), so that
//! everything it starts dies with it: when the init of a PID namespace
//! ends, the kernel kills every process in it, whatever session or process
//! group they moved to. A daemon the server double-forks cannot outlive it.
//!
//! No privilege is needed: the process toolc forks makes a new user
//! namespace that maps toolc's user and group to themselves (files keep
//! their owners, the server keeps its rights), and a PID namespace in it.
//! Only the PID namespace is new: the server sees the same files, the same
//! `/proc` (host process ids), the same network.
//!
//! Unsharing a PID namespace puts the *children* of the caller in it, so
//! the forked process forks once more. Its child, the namespace's init,
//! goes on to exec the server; the forked process stays behind as the
//! server's supervisor: it closes every descriptor (the server's pipes are
//! the server's alone), waits for the server and ends as the server ended.
//! Each link dies with the one before it (`PR_SET_PDEATHSIG`): toolc (even
//! killed with SIGKILL), then the supervisor, then the server, then what
//! the server started.
//!
//! Where user namespaces are refused (a kernel or container that forbids
//! them), the server runs as before, in a process group of its own that
//! toolc kills; [`confined`] tells the caller, which warns.

use std::io;

/// In the process forked to start a server, before it execs: dies with
/// toolc's thread that forked it, then moves the server into a PID
/// namespace of its own (above). Returns in the process that is to exec
/// the server: the namespace's init, or the forked process itself when
/// user namespaces are refused.
///
/// # Safety
///
/// Only between fork and exec (a `pre_exec` closure): it allocates
/// nothing and makes only async-signal-safe system calls.
pub(super) unsafe fn enter() -> io::Result<()> {
    // SAFETY (each block below): system calls with integer arguments or
    // pointers to this frame's memory, in a single-threaded child.
    if unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) } == -1 {
        return Err(io::Error::last_os_error());
    }
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    if unsafe { libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWPID) } == -1 {
        // Refused: the server runs as it did without namespaces.
        return Ok(());
    }
    map_ids(uid, gid)?;
    // A pipe only to learn whether the supervisor is still there once
    // the init has asked to die with it (closed: the supervisor ended).
    let mut alive = [0; 2];
    if unsafe { libc::pipe2(alive.as_mut_ptr(), libc::O_CLOEXEC) } == -1 {
        return Err(io::Error::last_os_error());
    }
    let [watch, hold] = alive;
    match unsafe { libc::fork() } {
        -1 => Err(io::Error::last_os_error()),
        0 => {
            unsafe { libc::close(hold) };
            if unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) } == -1 {
                return Err(io::Error::last_os_error());
            }
            if supervisor_gone(watch) {
                unsafe { libc::_exit(1) };
            }
            unsafe { libc::close(watch) };
            Ok(())
        }
        init => unsafe { supervise(init, hold) },
    }
}

/// Maps the user and group of toolc to themselves in the new user
/// namespace (`setgroups` denied first, as an unprivileged group map
/// requires).
fn map_ids(uid: libc::uid_t, gid: libc::gid_t) -> io::Result<()> {
    write_file(c"/proc/self/setgroups", b"deny")?;
    let mut line = [0u8; 64];
    write_file(c"/proc/self/uid_map", id_map(uid, &mut line))?;
    let mut line = [0u8; 64];
    write_file(c"/proc/self/gid_map", id_map(gid, &mut line))
}

/// `"ID ID 1"` in `line`, without allocating.
fn id_map(id: u32, line: &mut [u8; 64]) -> &[u8] {
    let mut digits = [0u8; 10];
    let mut n = id;
    let mut count = 0;
    loop {
        digits[count] = b'0' + (n % 10) as u8;
        count += 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let mut at = 0;
    for _ in 0..2 {
        for digit in digits[..count].iter().rev() {
            line[at] = *digit;
            at += 1;
        }
        line[at] = b' ';
        at += 1;
    }
    line[at] = b'1';
    &line[..=at]
}

/// Writes `bytes` to the file `path` in one write(2).
fn write_file(path: &std::ffi::CStr, bytes: &[u8]) -> io::Result<()> {
    // SAFETY: open/write/close on a NUL-terminated path and a live slice.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd == -1 {
            return Err(io::Error::last_os_error());
        }
        let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        let error = io::Error::last_os_error();
        libc::close(fd);
        if usize::try_from(written).ok() != Some(bytes.len()) {
            return Err(error);
        }
    }
    Ok(())
}

/// Whether the write end of the pipe whose read end is `watch` is closed
/// by all: the supervisor ended before the init could ask to die with it.
fn supervisor_gone(watch: libc::c_int) -> bool {
    let mut poll = libc::pollfd {
        fd: watch,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: poll(2) on one pollfd of this frame, without waiting.
    let ready = unsafe { libc::poll(&mut poll, 1, 0) };
    ready == 1 && poll.revents & libc::POLLHUP != 0
}

/// The supervisor: closes every descriptor but `hold` (so the server's
/// pipes and the exec-error pipe of the spawn are the init's alone),
/// waits for the init and ends as it ended. Never returns.
unsafe fn supervise(init: libc::pid_t, hold: libc::c_int) -> ! {
    // SAFETY (each block): as in `enter`.
    unsafe {
        close_from_to(0, hold - 1);
        close_from_to(hold + 1, libc::c_int::MAX);
        let mut status = 0;
        loop {
            let waited = libc::waitpid(init, &mut status, 0);
            if waited == init {
                break;
            }
            if waited == -1 && io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                libc::_exit(2);
            }
        }
        if libc::WIFSIGNALED(status) {
            let signal = libc::WTERMSIG(status);
            libc::signal(signal, libc::SIG_DFL);
            libc::kill(libc::getpid(), signal);
            libc::_exit(128 + signal);
        }
        libc::_exit(libc::WEXITSTATUS(status))
    }
}

/// Closes the descriptors `first..=last` (close_range(2), or one by one on
/// a kernel without it).
unsafe fn close_from_to(first: libc::c_int, last: libc::c_int) {
    if first > last {
        return;
    }
    // SAFETY: closing descriptors this process holds and will not use.
    unsafe {
        let (Ok(from), Ok(to)) = (libc::c_uint::try_from(first), libc::c_uint::try_from(last))
        else {
            return;
        };
        if libc::syscall(libc::SYS_close_range, from, to, 0) == 0 {
            return;
        }
        for fd in first..=last.min(4096) {
            libc::close(fd);
        }
    }
}

/// Whether the started process `pid` is in a user namespace other than
/// toolc's: its server runs in a PID namespace of its own.
pub(super) fn confined(pid: u32) -> bool {
    let ours = std::fs::read_link("/proc/self/ns/user");
    let theirs = std::fs::read_link(format!("/proc/{pid}/ns/user"));
    matches!((ours, theirs), (Ok(ours), Ok(theirs)) if ours != theirs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_maps_are_written_without_allocating() {
        let mut line = [0u8; 64];
        assert_eq!(id_map(0, &mut line), b"0 0 1");
        let mut line = [0u8; 64];
        assert_eq!(id_map(4294967295, &mut line), b"4294967295 4294967295 1");
        let mut line = [0u8; 64];
        assert_eq!(id_map(1000, &mut line), b"1000 1000 1");
    }
}
