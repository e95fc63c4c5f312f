//! Watching one forked call: its stdout and stderr pipes and its pidfd,
//! until it exits, its time runs out, its stdout outgrows the cap or its
//! token is cancelled; then its process group is killed.
//!
//! The same contract as `process::run` gives a spawned tool: stdout
//! capped (one byte more ends the call), stderr kept up to
//! `process::STDERR_CAP` and drained beyond, the pipes read for a short
//! grace once the process exited, and the whole group killed while the
//! child is still a zombie (the server reaps it only when toolc asks, so
//! its group id cannot have been reused).

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::time::{Duration, Instant};

use crate::run::cancel::CancelToken;
use crate::run::cgroup::CallCgroup;
use crate::run::process::{DRAIN_GRACE, Reader, STDERR_CAP, poll_until};

/// How a call ended, before its exit status is known.
pub(super) enum Driven {
    Exited { stdout: Vec<u8>, stderr: Vec<u8> },
    TimedOut { stderr: Vec<u8> },
    TooLarge,
    Cancelled { stderr: Vec<u8> },
}

/// What to watch and for how long.
pub(super) struct Watch<'a> {
    /// The child's pid in toolc's PID namespace: its group's id.
    pub pid: libc::pid_t,
    pub pidfd: OwnedFd,
    pub stdout: OwnedFd,
    pub stderr: OwnedFd,
    pub deadline: Instant,
    pub max_output: usize,
    pub cancel: Option<&'a CancelToken>,
    /// The call's cgroup: a limit the kernel acted on ends the call.
    pub cgroup: Option<&'a CallCgroup>,
}

/// Drives the call to its end and kills its process group.
pub(super) fn drive(watch: Watch) -> io::Result<Driven> {
    let pid = watch.pid;
    let driven = pump(watch);
    kill_group(pid);
    driven
}

pub(super) fn kill_group(pid: libc::pid_t) {
    // SAFETY: a plain syscall; ESRCH (the group is gone) is fine.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
    }
}

fn pump(watch: Watch) -> io::Result<Driven> {
    let pidfd = &watch.pidfd;
    let mut stdout = Reader::new(Some(watch.stdout), watch.max_output, false)?;
    let mut stderr = Reader::new(Some(watch.stderr), STDERR_CAP, true)?;
    let mut exited_at: Option<Instant> = None;
    loop {
        if exited_at.is_none() && watch.cancel.is_some_and(CancelToken::is_cancelled) {
            return Ok(Driven::Cancelled {
                stderr: stderr.data,
            });
        }
        if exited_at.is_none() && watch.cgroup.is_some_and(|c| c.exceeded().is_some()) {
            kill_group(watch.pid);
            return Ok(Driven::Exited {
                stdout: stdout.data,
                stderr: stderr.data,
            });
        }
        let now = Instant::now();
        let limit = exited_at.map_or(watch.deadline, |at| at + DRAIN_GRACE);
        let drained = stdout.fd.is_none() && stderr.fd.is_none();
        if exited_at.is_some() && (drained || now >= limit) {
            return Ok(Driven::Exited {
                stdout: stdout.data,
                stderr: stderr.data,
            });
        }
        if now >= limit {
            return Ok(Driven::TimedOut {
                stderr: stderr.data,
            });
        }
        // Slots: 0 stdout, 1 stderr, 2 the pidfd; -1 is ignored by poll.
        let fd_of = |stream: &Reader| stream.fd.as_ref().map_or(-1, AsRawFd::as_raw_fd);
        let mut fds = [
            poll_entry(fd_of(&stdout)),
            poll_entry(fd_of(&stderr)),
            poll_entry(if exited_at.is_none() {
                pidfd.as_raw_fd()
            } else {
                -1
            }),
        ];
        if !poll_until(
            &mut fds,
            limit,
            now,
            watch.cancel.is_some() || watch.cgroup.is_some(),
        )? {
            continue;
        }
        if fds[0].revents != 0 {
            stdout.pump()?;
            if stdout.overflow {
                return Ok(Driven::TooLarge);
            }
        }
        if fds[1].revents != 0 {
            stderr.pump()?;
        }
        if fds[2].revents != 0 {
            exited_at = Some(Instant::now());
            // Grandchildren may hold the pipes open: the group goes now.
            kill_group(watch.pid);
        }
    }
}

fn poll_entry(fd: RawFd) -> libc::pollfd {
    libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    }
}

pub(super) fn pidfd_open(pid: libc::pid_t) -> io::Result<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the descriptor was just created and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// Whether the process behind `pidfd` has exited (without waiting).
pub(super) fn has_exited(pidfd: &OwnedFd) -> bool {
    let mut entry = poll_entry(pidfd.as_raw_fd());
    // SAFETY: one valid pollfd, no wait.
    let ready = unsafe { libc::poll(&mut entry, 1, 0) };
    ready != 0
}

/// How long a reply of the server about an existing call may take.
pub(super) const REPLY_LIMIT: Duration = Duration::from_secs(10);
