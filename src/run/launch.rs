//! Starting one tool process: `clone3` into its namespaces, the child's
//! steps, `execve`.
//!
//! toolc does not use `std::process::Command` here, for one reason: a
//! new PID namespace. `unshare(CLONE_NEWPID)` in `pre_exec` moves only
//! the *children* of the caller into the namespace, so something would
//! have to fork again inside `pre_exec` and stay behind as a relay that
//! never returns, closes std's descriptors, waits and re-raises its
//! child's status. `clone3` with the namespace flags instead creates the
//! child directly as process 1 of its new PID namespace (and in its new
//! user, mount, IPC and, for a tool without network, network namespace),
//! as toolc's direct child. That gives toolc, with no relay:
//!
//! - a pidfd of the namespace's init (`CLONE_PIDFD`): `SIGKILL` to it
//!   kills every process of the namespace, `setsid` daemons included;
//! - a reaped init means an empty namespace: the kernel makes the init a
//!   zombie only after every other process of its namespace has exited,
//!   so when [`super::process::run`] returns nothing of the call runs;
//! - the tool's own exit status, not a relay's copy of it.
//!
//! The price is that the tool is process 1 of its namespace: signals it
//! sends itself without a handler are ignored (the kernel protects an
//! init), and it inherits the orphans of its namespace. Tools rarely
//! notice; bubblewrap's `--as-pid-1` and `unshare -f` run programs the
//! same way.
//!
//! Everything the child needs is built before the clone ([`Plan`]): the
//! child is a copy of one thread of a threaded program, so between clone
//! and exec it only makes system calls on prepared memory, never
//! allocates and never takes a lock. A failed step is reported on a
//! close-on-exec pipe as the step and its errno; end of file on that pipe
//! means the exec happened.
//!
//! Without namespaces (the fallback, or the sandbox off) the same code
//! clones with no namespace flags, and the child makes itself a process
//! group leader, so that a call's end kills its group (a `setsid`
//! descendant escapes that: only the PID namespace holds everything).

use std::ffi::{CString, OsStr, OsString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::sandbox::{Confinement, Step};

/// A started process: its pid, a pidfd, and toolc's ends of its pipes.
pub(crate) struct Launched {
    pub pid: libc::pid_t,
    pub pidfd: OwnedFd,
    pub stdin: OwnedFd,
    pub stdout: OwnedFd,
    pub stderr: OwnedFd,
    /// The process is the init of its own PID namespace: killing it kills
    /// everything it started.
    pub namespaced: bool,
    /// Its mount namespace, held so that the process's exit does not wait
    /// for the namespace's mounts to be taken down.
    pub mounts: HeldNamespace,
}

/// A namespace of a call's process, held by toolc: when the process
/// ends, the namespace's teardown (for a mount namespace, unmounting its
/// `/proc`, `/dev/shm` and scratch tmpfs, which waits for an RCU grace
/// period) happens when this is dropped, on the clean-up thread
/// ([`super::reaper`]), rather than in the process's exit, which the call
/// waits for.
pub(crate) struct HeldNamespace(Option<OwnedFd>);

impl HeldNamespace {
    /// The namespace `kind` (`mnt`, …) of process `pid`, if it can be
    /// opened (the process may already be gone).
    fn of(pid: libc::pid_t, kind: &str) -> HeldNamespace {
        let path = format!("/proc/{pid}/ns/{kind}");
        HeldNamespace(std::fs::File::open(path).ok().map(OwnedFd::from))
    }
}

impl Drop for HeldNamespace {
    fn drop(&mut self) {
        if let Some(fd) = self.0.take() {
            super::reaper::defer(move || drop(fd));
        }
    }
}

/// What to execute, prepared for the child.
pub(crate) struct Program<'a> {
    pub program: &'a Path,
    pub args: &'a [OsString],
    pub cwd: &'a Path,
    pub env: &'a [(OsString, OsString)],
    /// RLIMIT_AS in bytes.
    pub memory: Option<u64>,
    /// RLIMIT_NPROC, where no cgroup bounds the call's processes.
    pub processes: Option<u64>,
    /// The join files of the call's cgroups, open for writing: the child
    /// writes itself into each as its first step, with one thread
    /// ([`super::cgroup`] says why that is race-free).
    pub cgroup_procs: &'a [RawFd],
}

/// Everything the child reads, built before the clone.
struct Plan<'a> {
    exec: Option<Exec>,
    confinement: Option<&'a mut Confinement>,
    /// The child's ends: stdin, stdout, stderr.
    stdio: [RawFd; 3],
    /// Where a failed step is reported (close-on-exec).
    report: RawFd,
}

struct Exec {
    path: CString,
    /// Kept alive for the pointers of `argv_ptrs`.
    _argv: Vec<CString>,
    argv_ptrs: Vec<*const libc::c_char>,
    _envp: Vec<CString>,
    envp_ptrs: Vec<*const libc::c_char>,
    cwd: CString,
    memory: Option<libc::rlimit>,
    processes: Option<libc::rlimit>,
    cgroup_procs: Vec<RawFd>,
}

/// Why a process did not start.
#[derive(Debug)]
pub(crate) struct LaunchError {
    /// The step of the child that failed ([`Step::Execute`] for the exec
    /// itself), `None` for toolc's own part (pipes, the clone).
    pub step: Option<Step>,
    pub error: io::Error,
}

impl LaunchError {
    fn toolc(error: io::Error) -> LaunchError {
        LaunchError { step: None, error }
    }

    /// As one error: the exec's own error is the program's; a sandbox
    /// step names itself.
    pub fn into_io(self) -> io::Error {
        match self.step {
            None | Some(Step::Execute) => self.error,
            Some(step) => io::Error::new(
                self.error.kind(),
                format!("{} (sandbox step: {})", self.error, step.describe()),
            ),
        }
    }
}

/// Starts `program` confined by `confinement`.
pub(crate) fn launch(
    program: &Program,
    confinement: Option<&mut Confinement>,
) -> Result<Launched, LaunchError> {
    let exec = prepare(program).map_err(LaunchError::toolc)?;
    let (stdin_child, stdin) = pipe().map_err(LaunchError::toolc)?;
    let (stdout, stdout_child) = pipe().map_err(LaunchError::toolc)?;
    let (stderr, stderr_child) = pipe().map_err(LaunchError::toolc)?;
    let namespaced = confinement.as_ref().is_some_and(|c| c.clone_flags() != 0);
    let mut plan = Plan {
        exec: Some(exec),
        confinement,
        stdio: [
            stdin_child.as_raw_fd(),
            stdout_child.as_raw_fd(),
            stderr_child.as_raw_fd(),
        ],
        report: -1,
    };
    let (pid, pidfd) = start(&mut plan)?;
    let mounts = if namespaced {
        HeldNamespace::of(pid, "mnt")
    } else {
        HeldNamespace(None)
    };
    Ok(Launched {
        pid,
        pidfd,
        stdin,
        stdout,
        stderr,
        namespaced,
        mounts,
    })
}

/// Starts `program` confined by `confinement` with descriptors toolc
/// already has as its stdin, stdout and stderr (a fork server's socket
/// and log): its pid and a pidfd.
pub(crate) fn launch_onto(
    program: &Program,
    confinement: Option<&mut Confinement>,
    stdio: [&OwnedFd; 3],
) -> Result<(libc::pid_t, OwnedFd), LaunchError> {
    let exec = prepare(program).map_err(LaunchError::toolc)?;
    // Above the standard descriptors, so that no `dup2` of the child
    // overwrites a source it still needs.
    let mut lifted = Vec::with_capacity(3);
    for fd in stdio {
        let copy = fd.try_clone().map_err(LaunchError::toolc)?;
        lifted.push(above_stdio(copy).map_err(LaunchError::toolc)?);
    }
    let mut plan = Plan {
        exec: Some(exec),
        confinement,
        stdio: [
            lifted[0].as_raw_fd(),
            lifted[1].as_raw_fd(),
            lifted[2].as_raw_fd(),
        ],
        report: -1,
    };
    start(&mut plan)
}

/// Whether this process can give a child its own user, PID, mount, IPC
/// and network namespaces with a fresh `/proc`: tries every step once in
/// a child that exits right after ([`super::sandbox::namespace_trial`]).
/// `Err` says why not.
pub(crate) fn probe_namespaces() -> Result<(), String> {
    try_namespaces(&mut super::sandbox::namespace_trial())
        .map_err(|e| format!("the kernel refused them: {}", e.into_io()))
}

/// Creates the namespaces of `confinement` in a child that exits right
/// after: `Ok` when every step works on this machine.
fn try_namespaces(confinement: &mut Confinement) -> Result<(), LaunchError> {
    let null = open_null().map_err(LaunchError::toolc)?;
    let fd = null.as_raw_fd();
    let mut plan = Plan {
        exec: None,
        confinement: Some(confinement),
        stdio: [fd, fd, fd],
        report: -1,
    };
    let (pid, _pidfd) = start(&mut plan)?;
    let status = wait(pid).map_err(LaunchError::toolc)?;
    if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 {
        Ok(())
    } else {
        Err(LaunchError::toolc(io::Error::other(
            "the namespace probe ended abnormally",
        )))
    }
}

/// Clones the child, runs its steps and waits for the exec (or the
/// report of the step that failed). Returns the pid and a pidfd.
fn start(plan: &mut Plan) -> Result<(libc::pid_t, OwnedFd), LaunchError> {
    let (report_read, report_write) = pipe().map_err(LaunchError::toolc)?;
    plan.report = report_write.as_raw_fd();
    let flags = plan.confinement.as_ref().map_or(0, |c| c.clone_flags());
    let mut pidfd: RawFd = -1;
    let pid = clone(flags | libc::CLONE_PIDFD as u64, &mut pidfd);
    if pid == 0 {
        child(plan);
    }
    if pid < 0 {
        return Err(LaunchError::toolc(io::Error::last_os_error()));
    }
    let pid = pid as libc::pid_t;
    // SAFETY: the kernel stored a new descriptor owned by nobody else.
    let pidfd = unsafe { OwnedFd::from_raw_fd(pidfd) };
    drop(report_write);
    let mut report = [0u8; 5];
    let got = match read_full(report_read.as_raw_fd(), &mut report) {
        Ok(got) => got,
        Err(error) => {
            // Not knowing how far the child got, it must not run on.
            // SAFETY: a plain syscall on the child's pidfd, then a reap.
            unsafe {
                libc::syscall(
                    libc::SYS_pidfd_send_signal,
                    pidfd.as_raw_fd(),
                    libc::SIGKILL,
                    std::ptr::null::<libc::siginfo_t>(),
                    0u32,
                );
            }
            let _ = wait(pid);
            return Err(LaunchError::toolc(error));
        }
    };
    if got == 0 {
        return Ok((pid, pidfd));
    }
    // The child failed a step and exited: reap it.
    let _ = wait(pid);
    let errno = i32::from_ne_bytes([report[1], report[2], report[3], report[4]]);
    Err(LaunchError {
        step: Some(Step::from_code(report[0])),
        error: if got == report.len() {
            io::Error::from_raw_os_error(errno)
        } else {
            io::Error::other("the child's report was cut short")
        },
    })
}

/// `clone3` with `flags` (the child gets SIGCHLD as its exit signal and
/// the pidfd lands in `pidfd`), or `clone` where a seccomp filter hides
/// `clone3` (ENOSYS, as older container runtimes do). Returns 0 in the
/// child, the pid in the parent, -1 on error (errno set).
fn clone(flags: u64, pidfd: &mut RawFd) -> libc::c_long {
    // SAFETY: clone_args is plain data; a zeroed one is valid.
    let mut args: libc::clone_args = unsafe { std::mem::zeroed() };
    args.flags = flags;
    args.pidfd = std::ptr::addr_of_mut!(*pidfd) as u64;
    args.exit_signal = libc::SIGCHLD as u64;
    // SAFETY: clone3 without CLONE_VM gives the child a copy of this
    // thread's memory, like fork; the caller's child runs only `child`,
    // which makes system calls on prepared memory and never returns.
    let pid = unsafe {
        libc::syscall(
            libc::SYS_clone3,
            std::ptr::addr_of_mut!(args),
            std::mem::size_of::<libc::clone_args>(),
        )
    };
    if pid >= 0 || io::Error::last_os_error().raw_os_error() != Some(libc::ENOSYS) {
        return pid;
    }
    clone_legacy(flags, pidfd)
}

/// clone(2): flags with the exit signal in the low byte, no new stack (a
/// copy of this one, as fork), the pidfd stored through the parent-tid
/// argument, which is the third on these architectures.
#[cfg(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    target_arch = "riscv64",
    target_arch = "loongarch64",
    target_arch = "powerpc64"
))]
fn clone_legacy(flags: u64, pidfd: &mut RawFd) -> libc::c_long {
    // SAFETY: as clone3 above: fork semantics, the child runs `child`.
    unsafe {
        libc::syscall(
            libc::SYS_clone,
            (flags | libc::SIGCHLD as u64) as libc::c_ulong,
            0usize,
            std::ptr::addr_of_mut!(*pidfd),
            0usize,
            0usize,
        )
    }
}

#[cfg(not(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    target_arch = "riscv64",
    target_arch = "loongarch64",
    target_arch = "powerpc64"
)))]
fn clone_legacy(_flags: u64, _pidfd: &mut RawFd) -> libc::c_long {
    -1
}

/// The child, from the clone to the exec. Only system calls on memory
/// prepared before the clone: no allocation, no lock, no return.
fn child(plan: &mut Plan) -> ! {
    let failed = match child_steps(plan) {
        Ok(()) => {
            // The namespace probe: every step worked.
            // SAFETY: ends the child without running any of toolc's code.
            unsafe { libc::_exit(0) }
        }
        Err(failed) => failed,
    };
    let (step, errno) = failed;
    let mut report = [0u8; 5];
    report[0] = step.code();
    report[1..].copy_from_slice(&errno.to_ne_bytes());
    // SAFETY: write and _exit are async-signal-safe; the buffer is valid.
    unsafe {
        libc::write(plan.report, report.as_ptr().cast(), report.len());
        libc::_exit(127)
    }
}

fn child_steps(plan: &mut Plan) -> Result<(), (Step, i32)> {
    let fail = |step: Step| (step, io::Error::last_os_error().raw_os_error().unwrap_or(0));
    // SAFETY (for every block of this function): plain system calls on
    // descriptors and memory prepared before the clone.
    unsafe {
        // Into the call's cgroups before anything else: `0` is the writer.
        if let Some(exec) = &plan.exec {
            for &procs in &exec.cgroup_procs {
                if libc::write(procs, b"0".as_ptr().cast(), 1) != 1 {
                    return Err(fail(Step::Cgroup));
                }
            }
        }
        // If toolc dies (killed, interrupted), the tool dies with it rather
        // than running on unwatched; for a namespace's init, its death
        // ends the namespace. A parent already gone before the prctl took
        // effect has closed its end of the report pipe.
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
            return Err(fail(Step::DeathSignal));
        }
        let mut watch = libc::pollfd {
            fd: plan.report,
            events: 0,
            revents: 0,
        };
        if libc::poll(&mut watch, 1, 0) > 0 && watch.revents & libc::POLLERR != 0 {
            return Err((Step::DeathSignal, libc::ESRCH));
        }
        // toolc ignores SIGPIPE (Rust does); a tool gets the default, and
        // no signal blocked.
        let mut empty: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut empty);
        libc::sigprocmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        if libc::setpgid(0, 0) != 0 {
            return Err(fail(Step::ProcessGroup));
        }
    }
    if let Some(confinement) = plan.confinement.as_deref_mut() {
        confinement.enter_namespaces()?;
    }
    let Some(exec) = &plan.exec else {
        return Ok(());
    };
    unsafe {
        if let Some(limit) = &exec.memory
            && libc::setrlimit(libc::RLIMIT_AS, limit) != 0
        {
            return Err(fail(Step::MemoryLimit));
        }
        if let Some(limit) = &exec.processes
            && libc::setrlimit(libc::RLIMIT_NPROC, limit) != 0
        {
            return Err(fail(Step::ProcessLimit));
        }
        for (target, &source) in plan.stdio.iter().enumerate() {
            let target = target as RawFd;
            if libc::dup2(source, target) < 0 {
                return Err(fail(Step::Stdio));
            }
        }
        if libc::chdir(exec.cwd.as_ptr()) != 0 {
            return Err(fail(Step::WorkingDirectory));
        }
        // Descriptors toolc inherited without close-on-exec (a socket, a
        // directory its own parent leaked) would cross the sandbox: every
        // one above stderr closes at the exec. Best effort: a kernel
        // before 5.11 lacks close_range, and toolc's own are
        // close-on-exec anyway.
        libc::syscall(
            libc::SYS_close_range,
            3u32,
            u32::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
        );
    }
    if let Some(confinement) = plan.confinement.as_deref_mut() {
        confinement.enforce()?;
    }
    unsafe {
        libc::execve(
            exec.path.as_ptr(),
            exec.argv_ptrs.as_ptr(),
            exec.envp_ptrs.as_ptr(),
        );
    }
    Err(fail(Step::Execute))
}

/// The C strings of `program`, its resolved path and limits.
fn prepare(program: &Program) -> io::Result<Exec> {
    let path = resolve(program.program, program.env)?;
    let mut argv = vec![c_string(program.program.as_os_str())?];
    for arg in program.args {
        argv.push(c_string(arg)?);
    }
    let mut envp = Vec::with_capacity(program.env.len());
    for (name, value) in program.env {
        let mut pair = name.as_bytes().to_vec();
        pair.push(b'=');
        pair.extend_from_slice(value.as_bytes());
        envp.push(c_string(OsStr::from_bytes(&pair))?);
    }
    let argv_ptrs = pointers(&argv);
    let envp_ptrs = pointers(&envp);
    Ok(Exec {
        path: c_string(path.as_os_str())?,
        _argv: argv,
        argv_ptrs,
        _envp: envp,
        envp_ptrs,
        cwd: c_string(program.cwd.as_os_str())?,
        memory: program.memory.map(|bytes| libc::rlimit {
            rlim_cur: bytes,
            rlim_max: bytes,
        }),
        processes: program.processes.map(|count| libc::rlimit {
            rlim_cur: count,
            rlim_max: count,
        }),
        cgroup_procs: program.cgroup_procs.to_vec(),
    })
}

fn pointers(strings: &[CString]) -> Vec<*const libc::c_char> {
    strings
        .iter()
        .map(|s| s.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect()
}

fn c_string(text: &OsStr) -> io::Result<CString> {
    CString::new(text.as_bytes()).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} contains a NUL byte", text.to_string_lossy()),
        )
    })
}

/// A bare program name is looked up on the PATH the process gets (as
/// `execvp` would), a path is used as it is.
fn resolve(program: &Path, env: &[(OsString, OsString)]) -> io::Result<PathBuf> {
    if program.as_os_str().as_bytes().contains(&b'/') {
        return Ok(program.to_path_buf());
    }
    let path = env
        .iter()
        .find(|(name, _)| name == "PATH")
        .map(|(_, value)| value.clone())
        .or_else(|| std::env::var_os("PATH"))
        .unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| executable(candidate))
        .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))
}

fn executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// A close-on-exec pipe, both ends above the standard descriptors (so
/// that the child's `dup2` onto 0, 1 and 2 never overwrites one).
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: pipe2 fills the array with two new descriptors.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned by nobody.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    Ok((above_stdio(read)?, above_stdio(write)?))
}

fn above_stdio(fd: OwnedFd) -> io::Result<OwnedFd> {
    if fd.as_raw_fd() > 2 {
        return Ok(fd);
    }
    // SAFETY: F_DUPFD_CLOEXEC makes a new descriptor of at least 3.
    let moved = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 3) };
    if moved < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the descriptor was just created.
    Ok(unsafe { OwnedFd::from_raw_fd(moved) })
}

fn open_null() -> io::Result<OwnedFd> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/null")?;
    above_stdio(OwnedFd::from(file))
}

/// Reads until `buffer` is full or end of file; the count read.
fn read_full(fd: RawFd, buffer: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buffer.len() {
        // SAFETY: the rest of the buffer is valid for writes.
        let n = unsafe { libc::read(fd, buffer[got..].as_mut_ptr().cast(), buffer.len() - got) };
        if n < 0 {
            let error = io::Error::last_os_error();
            if error.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(error);
        }
        if n == 0 {
            break;
        }
        got += n as usize;
    }
    Ok(got)
}

/// Reaps `pid`; its raw wait status.
pub(crate) fn wait(pid: libc::pid_t) -> io::Result<libc::c_int> {
    let mut status = 0;
    loop {
        // SAFETY: waitpid on a child of this process.
        if unsafe { libc::waitpid(pid, &mut status, 0) } >= 0 {
            return Ok(status);
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// clone(2), used where a seccomp filter hides clone3, starts a child
    /// with a pidfd.
    #[test]
    fn the_clone_fallback_starts_a_child_with_a_pidfd() {
        let mut pidfd: RawFd = -1;
        let pid = clone_legacy(libc::CLONE_PIDFD as u64, &mut pidfd);
        if pid == 0 {
            // SAFETY: the child ends at once, running nothing of the test.
            unsafe { libc::_exit(7) }
        }
        assert!(pid > 0, "{}", io::Error::last_os_error());
        assert!(pidfd > 2);
        // SAFETY: the kernel made the descriptor for this test.
        drop(unsafe { OwnedFd::from_raw_fd(pidfd) });
        let status = wait(pid as libc::pid_t).unwrap();
        assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 7);
    }

    /// A step that fails in the child is reported by name, and the child
    /// is reaped.
    #[test]
    fn a_failed_step_names_itself() {
        let program = Program {
            program: Path::new("/bin/true"),
            args: &[],
            cwd: Path::new("/nonexistent/toolc/dir"),
            env: &[],
            memory: None,
            processes: None,
            cgroup_procs: &[],
        };
        let error = launch(&program, None).err().expect("no such directory");
        assert_eq!(error.step, Some(Step::WorkingDirectory));
        let message = error.into_io().to_string();
        assert!(message.contains("enter the working directory"), "{message}");

        let program = Program {
            program: Path::new("/nonexistent/toolc/program"),
            cwd: Path::new("/"),
            ..program
        };
        let error = launch(&program, None).err().expect("no such program");
        assert_eq!(error.step, Some(Step::Execute));
        assert_eq!(error.into_io().kind(), io::ErrorKind::NotFound);
    }
}
