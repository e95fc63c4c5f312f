//! Running one tool process within its limits.
//!
//! The process starts ([`super::launch`]) with a scrubbed environment, an
//! optional address-space limit and its sandbox: as the init of its own
//! PID namespace, or, without namespaces, as the leader of a process
//! group of its own. One thread then drives it with `poll(2)`: it writes
//! the arguments to the process's stdin, reads stdout and stderr (each
//! capped, so memory stays bounded whatever the tool prints) and watches
//! a pidfd for the exit, until the deadline. When the process exits, the
//! deadline passes, stdout outgrows its cap or the call is cancelled
//! ([`CancelToken`]), everything it started is killed while the process
//! is still a zombie (so its pid cannot have been reused), and only then
//! is it reaped. In a PID namespace that is everything: killing the
//! init kills the namespace, and the init is reaped only after the rest.
//! Without one it is the process group; a descendant that leaves the
//! group on purpose (`setsid`) escapes that kill.

use std::ffi::OsString;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::cancel::{self, CancelToken};
use super::cgroup::CallCgroup;
use super::launch::{self, Program};
use super::sandbox::Confinement;

/// How much of stderr is kept: enough for any error message.
pub(crate) const STDERR_CAP: usize = 64 * 1024;
/// The longest time limit: a year.
pub(crate) const MAX_TIMEOUT_SECS: u64 = 365 * 24 * 3600;
/// How long the pipes are still read after the process exited and its
/// group was killed (a process outside the group may hold them open).
pub(crate) const DRAIN_GRACE: Duration = Duration::from_millis(200);

/// One process to run.
pub(crate) struct Spawn {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub cwd: PathBuf,
    /// The whole environment: nothing of toolc's own is inherited.
    pub env: Vec<(OsString, OsString)>,
    pub stdin: Vec<u8>,
    pub timeout: Duration,
    /// The most stdout bytes accepted; one more and the process is killed.
    pub max_output: usize,
    /// RLIMIT_AS in bytes.
    pub memory: Option<u64>,
    pub confinement: Option<Confinement>,
    /// Stops the process early when cancelled.
    pub cancel: Option<CancelToken>,
}

/// How the process ended.
#[derive(Debug)]
pub(crate) enum Outcome {
    Exited {
        code: Option<i32>,
        signal: Option<i32>,
        stdout: Vec<u8>,
        stderr: Vec<u8>,
    },
    TimedOut {
        stderr: Vec<u8>,
    },
    TooLarge,
    /// The call's [`CancelToken`] was cancelled.
    Cancelled {
        stderr: Vec<u8>,
    },
}

/// Why a process could not be run.
#[derive(Debug)]
pub(crate) enum RunError {
    /// It did not start (fork, exec, the sandbox, the limits).
    Spawn(io::Error),
    /// It started but could not be watched; it was killed.
    Watch(io::Error),
}

/// Starts the process and drives it to its end.
pub(crate) fn run(spawn: Spawn) -> Result<Outcome, RunError> {
    run_in(spawn, None, None)
}

/// [`run`] with the process in `cgroup` (watched: a limit the kernel
/// acted on ends the call at once, killing everything in it), or, without
/// one, `processes` as its RLIMIT_NPROC.
pub(crate) fn run_in(
    spawn: Spawn,
    cgroup: Option<&CallCgroup>,
    processes: Option<u64>,
) -> Result<Outcome, RunError> {
    let procs = cgroup.map(CallCgroup::procs_fds).unwrap_or_default();
    let program = Program {
        program: &spawn.program,
        args: &spawn.args,
        cwd: &spawn.cwd,
        env: &spawn.env,
        memory: spawn.memory,
        processes: if cgroup.is_some() { None } else { processes },
        cgroup_procs: &procs,
    };
    let mut confinement = spawn.confinement;
    let launched =
        launch::launch(&program, confinement.as_mut()).map_err(|e| RunError::Spawn(e.into_io()))?;
    // The ruleset's descriptors are not needed once the child has them.
    drop(confinement);
    // Dropped after the wait: its teardown goes to the clean-up thread.
    let _mounts = launched.mounts;
    let tree = Tree {
        pid: launched.pid,
        pidfd: launched.pidfd,
        namespaced: launched.namespaced,
    };
    let outcome = drive(
        &tree,
        Pipes {
            stdin: launched.stdin,
            stdout: launched.stdout,
            stderr: launched.stderr,
        },
        spawn.stdin,
        spawn.timeout,
        spawn.max_output,
        spawn.cancel.as_ref(),
        cgroup,
    );
    // Whatever happened, nothing the process started outlives the call.
    tree.kill();
    let status = launch::wait(tree.pid).map_err(RunError::Watch)?;
    let (code, signal) = if libc::WIFEXITED(status) {
        (Some(libc::WEXITSTATUS(status)), None)
    } else if libc::WIFSIGNALED(status) {
        (None, Some(libc::WTERMSIG(status)))
    } else {
        (None, None)
    };
    Ok(match outcome.map_err(RunError::Watch)? {
        Driven::Exited { stdout, stderr } => Outcome::Exited {
            code,
            signal,
            stdout,
            stderr,
        },
        Driven::TimedOut { stderr } => Outcome::TimedOut { stderr },
        Driven::TooLarge => Outcome::TooLarge,
        Driven::Cancelled { stderr } => Outcome::Cancelled { stderr },
    })
}

enum Driven {
    Exited { stdout: Vec<u8>, stderr: Vec<u8> },
    TimedOut { stderr: Vec<u8> },
    TooLarge,
    Cancelled { stderr: Vec<u8> },
}

/// The started process and what it may have started.
struct Tree {
    pid: libc::pid_t,
    pidfd: OwnedFd,
    /// `pid` is the init of its own PID namespace.
    namespaced: bool,
}

impl Tree {
    /// Kills the process and everything it started: the whole PID
    /// namespace through its init, or else the process group. Call it
    /// before reaping, while the pid cannot have been reused.
    fn kill(&self) {
        // SAFETY: plain syscalls; ESRCH (already gone) is fine. The group
        // is killed in both cases: in a namespace it holds nothing more,
        // and it costs one syscall.
        unsafe {
            libc::syscall(
                libc::SYS_pidfd_send_signal,
                self.pidfd.as_raw_fd(),
                libc::SIGKILL,
                std::ptr::null::<libc::siginfo_t>(),
                0u32,
            );
            if !self.namespaced {
                libc::kill(-self.pid, libc::SIGKILL);
            }
        }
    }
}

/// toolc's ends of the process's standard streams.
struct Pipes {
    stdin: OwnedFd,
    stdout: OwnedFd,
    stderr: OwnedFd,
}

/// A pipe end being read into a capped buffer (here and by the warm
/// Python executor).
pub(crate) struct Reader {
    pub fd: Option<OwnedFd>,
    pub data: Vec<u8>,
    cap: usize,
    pub overflow: bool,
    /// Keep reading (and dropping) past the cap instead of stopping.
    drain: bool,
}

impl Reader {
    pub fn new(fd: Option<OwnedFd>, cap: usize, drain: bool) -> io::Result<Self> {
        if let Some(fd) = &fd {
            set_nonblocking(fd.as_raw_fd())?;
        }
        Ok(Reader {
            fd,
            data: Vec::new(),
            cap,
            overflow: false,
            drain,
        })
    }

    /// Reads what is available; closes the end at EOF.
    pub fn pump(&mut self) -> io::Result<()> {
        let Some(fd) = &self.fd else { return Ok(()) };
        let fd = fd.as_raw_fd();
        let mut buffer = [0u8; 64 * 1024];
        loop {
            match read_fd(fd, &mut buffer) {
                Ok(0) => {
                    self.fd = None;
                    return Ok(());
                }
                Ok(n) => {
                    let room = self.cap.saturating_add(1).saturating_sub(self.data.len());
                    self.data.extend_from_slice(&buffer[..n.min(room)]);
                    if self.data.len() > self.cap {
                        self.overflow = true;
                        if !self.drain {
                            return Ok(());
                        }
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

fn drive(
    tree: &Tree,
    pipes: Pipes,
    input: Vec<u8>,
    timeout: Duration,
    max_output: usize,
    cancel: Option<&CancelToken>,
    cgroup: Option<&CallCgroup>,
) -> io::Result<Driven> {
    // A limit too far to represent is no limit (the caller clamps it).
    let deadline = Instant::now()
        .checked_add(timeout)
        .unwrap_or_else(|| Instant::now() + Duration::from_secs(MAX_TIMEOUT_SECS));
    let mut stdin: Option<OwnedFd> = Some(pipes.stdin);
    if let Some(fd) = &stdin {
        set_nonblocking(fd.as_raw_fd())?;
    }
    let mut written = 0usize;
    if input.is_empty() {
        stdin = None;
    }
    let mut stdout = Reader::new(Some(pipes.stdout), max_output, false)?;
    // Stderr beyond its cap is dropped, not fatal: it is drained (a tool
    // may log as much as it likes) and only its start is kept.
    let mut stderr = Reader::new(Some(pipes.stderr), STDERR_CAP, true)?;
    let mut exited_at: Option<Instant> = None;
    let mut counted_at = Instant::now();
    loop {
        if exited_at.is_none() && cancel.is_some_and(CancelToken::is_cancelled) {
            return Ok(Driven::Cancelled {
                stderr: stderr.data,
            });
        }
        // A limit the kernel acted on (an OOM kill, a refused fork) ends
        // the call: the caller reads which from the cgroup. Its counters
        // are files: read at the pace the token is looked at, not at
        // every wake-up (the caller reads them again when the call ends).
        if exited_at.is_none() && cgroup.is_some() && counted_at.elapsed() >= cancel::CHECK_INTERVAL
        {
            counted_at = Instant::now();
            if cgroup.is_some_and(|c| c.exceeded().is_some()) {
                tree.kill();
                return Ok(Driven::Exited {
                    stdout: stdout.data,
                    stderr: stderr.data,
                });
            }
        }
        let now = Instant::now();
        let limit = match exited_at {
            Some(at) => at + DRAIN_GRACE,
            None => deadline,
        };
        if now >= limit {
            if exited_at.is_some() {
                return Ok(Driven::Exited {
                    stdout: stdout.data,
                    stderr: stderr.data,
                });
            }
            return Ok(Driven::TimedOut {
                stderr: stderr.data,
            });
        }
        let mut fds: Vec<libc::pollfd> = Vec::with_capacity(4);
        let mut slots = [usize::MAX; 4];
        let mut watch = |fd: RawFd, events: libc::c_short, slot: usize| {
            slots[slot] = fds.len();
            fds.push(libc::pollfd {
                fd,
                events,
                revents: 0,
            });
        };
        if let Some(fd) = &stdin {
            watch(fd.as_raw_fd(), libc::POLLOUT, 0);
        }
        if let Some(fd) = &stdout.fd {
            watch(fd.as_raw_fd(), libc::POLLIN, 1);
        }
        if let Some(fd) = &stderr.fd {
            watch(fd.as_raw_fd(), libc::POLLIN, 2);
        }
        if exited_at.is_none() {
            watch(tree.pidfd.as_raw_fd(), libc::POLLIN, 3);
        }
        if exited_at.is_some() && stdout.fd.is_none() && stderr.fd.is_none() {
            return Ok(Driven::Exited {
                stdout: stdout.data,
                stderr: stderr.data,
            });
        }
        if !poll_until(&mut fds, limit, now, cancel.is_some() || cgroup.is_some())? {
            continue;
        }
        let fired = |slot: usize| slots[slot] != usize::MAX && fds[slots[slot]].revents != 0;
        if fired(0) {
            if let Some(fd) = &stdin {
                match write_fd(fd.as_raw_fd(), &input[written..]) {
                    Ok(n) => written += n,
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    // The tool closed its stdin (or died): it does not
                    // want the rest.
                    Err(_) => written = input.len(),
                }
            }
            if written >= input.len() {
                stdin = None;
            }
        }
        if fired(1) {
            stdout.pump()?;
            if stdout.overflow {
                return Ok(Driven::TooLarge);
            }
        }
        if fired(2) {
            stderr.pump()?;
        }
        if fired(3) {
            exited_at = Some(Instant::now());
            stdin = None;
            // Grandchildren may hold the pipes open: they go now (in a
            // PID namespace the kernel has killed them already).
            tree.kill();
        }
    }
}

/// Waits with `poll(2)` for `fds` until `limit`, and no longer than
/// [`cancel::CHECK_INTERVAL`] when the call can be cancelled (the token is
/// a flag, not a descriptor: it is looked at often). `Ok(false)` when a
/// signal interrupted the wait: look again.
pub(crate) fn poll_until(
    fds: &mut [libc::pollfd],
    limit: Instant,
    now: Instant,
    cancellable: bool,
) -> io::Result<bool> {
    let mut wait = limit.saturating_duration_since(now);
    if cancellable {
        wait = wait.min(cancel::CHECK_INTERVAL);
    }
    let wait_ms = wait.as_millis().clamp(1, i32::MAX as u128) as libc::c_int;
    // SAFETY: `fds` is a valid, initialized slice of its length.
    let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, wait_ms) };
    if ready < 0 {
        let error = io::Error::last_os_error();
        if error.kind() == io::ErrorKind::Interrupted {
            return Ok(false);
        }
        return Err(error);
    }
    Ok(true)
}

fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor this process owns.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

fn read_fd(fd: RawFd, buffer: &mut [u8]) -> io::Result<usize> {
    // SAFETY: the buffer is valid for writes of its length.
    let n = unsafe { libc::read(fd, buffer.as_mut_ptr().cast(), buffer.len()) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(n as usize)
}

fn write_fd(fd: RawFd, bytes: &[u8]) -> io::Result<usize> {
    // SAFETY: the buffer is valid for reads of its length.
    let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(n as usize)
}
