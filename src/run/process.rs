//! Running one tool process within its limits.
//!
//! The process starts in a process group of its own, with a scrubbed
//! environment, an optional address-space limit and the sandbox applied
//! between fork and exec. One thread then drives it with `poll(2)`: it
//! writes the arguments to the process's stdin, reads stdout and stderr
//! (each capped, so memory stays bounded whatever the tool prints) and
//! watches a pidfd for the exit, until the deadline. When the process
//! exits, the deadline passes, stdout outgrows its cap or the call is
//! cancelled ([`CancelToken`]), the whole group is killed (grandchildren
//! included) while the process is still a zombie, so its group id cannot
//! have been reused; only then is it reaped. A
//! descendant that leaves the group on purpose (`setsid`) escapes that
//! kill; confining it would take a cgroup per call.

use std::ffi::OsString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::cancel::{self, CancelToken};
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
    let mut command = Command::new(&spawn.program);
    command
        .args(&spawn.args)
        .current_dir(&spawn.cwd)
        .env_clear()
        .envs(spawn.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let memory = spawn.memory;
    let parent = std::process::id();
    let mut confinement = spawn.confinement;
    // SAFETY: between fork and exec only async-signal-safe calls are made:
    // setrlimit, prctl and the Landlock syscalls on a ruleset built before
    // the fork; nothing allocates or takes a lock.
    unsafe {
        command.pre_exec(move || {
            // If toolc dies (killed, interrupted), the tool dies with it
            // rather than running on unwatched; a parent already gone
            // before the prctl took effect is caught by its pid.
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(io::Error::last_os_error());
            }
            if libc::getppid() as u32 != parent {
                return Err(io::Error::from_raw_os_error(libc::ESRCH));
            }
            if let Some(bytes) = memory {
                let limit = libc::rlimit {
                    rlim_cur: bytes,
                    rlim_max: bytes,
                };
                if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            if let Some(confinement) = confinement.as_mut() {
                confinement.enforce()?;
            }
            Ok(())
        });
    }
    let mut child = command.spawn().map_err(RunError::Spawn)?;
    let pid = child.id() as libc::pid_t;
    let outcome = drive(
        &mut child,
        pid,
        spawn.stdin,
        spawn.timeout,
        spawn.max_output,
        spawn.cancel.as_ref(),
    );
    // Whatever happened, nothing of the group outlives the call.
    kill_group(pid);
    let status = child.wait().map_err(RunError::Watch)?;
    Ok(match outcome.map_err(RunError::Watch)? {
        Driven::Exited { stdout, stderr } => Outcome::Exited {
            code: status.code(),
            signal: status.signal(),
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

fn kill_group(pid: libc::pid_t) {
    // SAFETY: a plain syscall; ESRCH (the group is gone) is fine.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
    }
}

/// A pipe end being read into a capped buffer.
struct Reader {
    fd: Option<OwnedFd>,
    data: Vec<u8>,
    cap: usize,
    overflow: bool,
    /// Keep reading (and dropping) past the cap instead of stopping.
    drain: bool,
}

impl Reader {
    fn new(fd: Option<OwnedFd>, cap: usize, drain: bool) -> io::Result<Self> {
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
    fn pump(&mut self) -> io::Result<()> {
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
    child: &mut Child,
    pid: libc::pid_t,
    input: Vec<u8>,
    timeout: Duration,
    max_output: usize,
    cancel: Option<&CancelToken>,
) -> io::Result<Driven> {
    // A limit too far to represent is no limit (the caller clamps it).
    let deadline = Instant::now()
        .checked_add(timeout)
        .unwrap_or_else(|| Instant::now() + Duration::from_secs(MAX_TIMEOUT_SECS));
    let pidfd = pidfd_open(pid)?;
    let mut stdin: Option<OwnedFd> = child.stdin.take().map(OwnedFd::from);
    if let Some(fd) = &stdin {
        set_nonblocking(fd.as_raw_fd())?;
    }
    let mut written = 0usize;
    if input.is_empty() {
        stdin = None;
    }
    let mut stdout = Reader::new(child.stdout.take().map(OwnedFd::from), max_output, false)?;
    // Stderr beyond its cap is dropped, not fatal: it is drained (a tool
    // may log as much as it likes) and only its start is kept.
    let mut stderr = Reader::new(child.stderr.take().map(OwnedFd::from), STDERR_CAP, true)?;
    let mut exited_at: Option<Instant> = None;
    loop {
        if exited_at.is_none() && cancel.is_some_and(CancelToken::is_cancelled) {
            return Ok(Driven::Cancelled {
                stderr: stderr.data,
            });
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
            watch(pidfd.as_raw_fd(), libc::POLLIN, 3);
        }
        if exited_at.is_some() && stdout.fd.is_none() && stderr.fd.is_none() {
            return Ok(Driven::Exited {
                stdout: stdout.data,
                stderr: stderr.data,
            });
        }
        let mut wait = limit.saturating_duration_since(now);
        if cancel.is_some() {
            // The token is a flag, not a descriptor: look at it often.
            wait = wait.min(cancel::CHECK_INTERVAL);
        }
        let wait_ms = wait.as_millis().clamp(1, i32::MAX as u128) as libc::c_int;
        // SAFETY: `fds` is a valid, initialized array of its length.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, wait_ms) };
        if ready < 0 {
            let error = io::Error::last_os_error();
            if error.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(error);
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
            // Grandchildren may hold the pipes open: the group goes now.
            kill_group(pid);
        }
    }
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

fn pidfd_open(pid: libc::pid_t) -> io::Result<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the descriptor was just created and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
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
