//! Warm Python: a fork server per interpreter and tool, a forked child
//! per call (`templates/run/forkserver.py` is the server's side).
//!
//! A [`Pool`] belongs to a runner. The first call of a NORA script or an
//! AgentStack function starts a server for its key: the tool's code (its
//! script, or its package and name) and everything its sandbox depends
//! on (the allowed directories, whether it may use the network, the
//! environment it is given). Tools of one package with the same
//! permissions share a server. The server starts like a cold call's
//! interpreter, through the same launcher (`run::launch`): scrubbed
//! environment, the manifest's directory as its working directory,
//! toolc's PDEATHSIG, process 1 of its own PID namespace with its own
//! `/proc`, in its own user, mount and IPC namespaces and, for a tool
//! without network, an empty network namespace, and the tool's Landlock
//! rules applied before exec, with write access to a scratch root of its
//! own instead of a call's directory. It imports the bootstrap and the
//! tool once, and then only forks. Without namespaces (turned off, or
//! refused by the kernel) it is spawned under Landlock alone, in a
//! process group of its own, and its results say "landlock".
//!
//! What the server owns: its process, its control socket, its scratch
//! root (each call's directory is made inside it by the server, for the
//! child it forks ahead of the call, and removed by toolc after the
//! call) and the list of source files its import read.
//!
//! Each call gets a fresh child of the server, forked before the call
//! arrives (so the fork is off the call's path), in its own process
//! group, with its own scratch directory as TMPDIR and a Landlock layer
//! of its own that confines its reads to the tool's and its writes to
//! its own directory and the declared ones (a layer that cannot be
//! applied fails the call with an internal error: it never runs less
//! confined than it says). The call brings its stdout and stderr pipes
//! (passed over the socket; toolc reads them with the same caps as a
//! spawned tool's) and its memory limit. The server answers with a
//! pidfd of the child (`SCM_RIGHTS`): its pids, in toolc's PID namespace
//! and in the server's, come from the kernel (`/proc/self/fdinfo`), not
//! from the server, and toolc checks that the child's parent is the
//! server. toolc watches it through that pidfd, kills its group when it
//! exits, times out or is cancelled, and only then lets the server reap
//! it, so the group id cannot have been reused.
//!
//! The isolation this gives: a call sees the module as the import left
//! it, never another call's changes (each child is a copy-on-write fork);
//! a call that hangs is killed with its group and the server serves the
//! next; a server that died is started again at the next call, as is one
//! whose source files changed (size, mtime or inode of each file its
//! import read under the tool's directory); one call cannot write to
//! another's directory, nor read it. What it does not give: the import
//! itself runs once, in the server, so what it prints is not in any
//! call's stderr, and what it opens or starts (descriptors, threads,
//! processes) is shared by the calls; the children are siblings in the
//! server's namespaces (they can see, in its `/proc`, the server and the
//! calls running beside them, never toolc or the rest of the machine).
//! A grandchild that leaves its group (`setsid`) escapes the group kill
//! and is reparented to the server, the namespace's init: the server
//! kills and reaps every process of its namespace but itself and its
//! waiting child each time a call ends with no other call running, so a
//! detached process lives at most until its server is idle (under
//! Landlock alone it escapes, as it does for a spawned tool). The server
//! needs Python 3.9 or later (`socket.recv_fds`, `os.pidfd_open`); older
//! ones run `--cold`.
//!
//! Servers end with their runner (the pool kills them when dropped and
//! removes their roots), after a cancelled call (its caller is most often
//! stopping), and with toolc (PDEATHSIG). In namespaces the PDEATHSIG is
//! SIGKILL, which takes the whole namespace along; a toolc killed
//! outright leaves the server's root behind, as it leaves a cold call's
//! scratch directory. Under Landlock alone it is SIGTERM: the server
//! kills its children and empties its root (not the root itself, which
//! Landlock keeps it from removing). They are spawned by one thread the
//! pool keeps, because PDEATHSIG follows the thread that forked, not the
//! process.

mod drive;
mod wire;

use std::collections::HashMap;
use std::ffi::OsString;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::Instant;

use serde_json::{Value, json};

use super::{
    Call, Limits, Ran, Scratch, allowed_dirs, call_cgroup, denies_network, environment,
    resource_limit, tool_rules,
};
use crate::run::cgroup::CallCgroup;
use crate::run::launch::{self, LaunchError, Program};
use crate::run::process::Outcome;
use crate::run::sandbox::{Confinement, SYSTEM_READ, SYSTEM_WRITE, SandboxMode, Support};
use crate::run::{ErrorCode, ToolResult};
use drive::{Driven, REPLY_LIMIT, Watch};
use wire::{Channel, WireError};

/// The server's program (see the file's docs).
const FORKSERVER: &str = include_str!("../../../templates/run/forkserver.py");
/// The bootstrap the server runs its calls through.
const BOOTSTRAP: &str = include_str!("../../../templates/run/bootstrap.py");
/// The server's own output (what the tool's import printed), kept in its
/// root for a failed start to quote.
const LOG: &str = "server.log";
/// The most of the log a failed start quotes.
const LOG_QUOTE: usize = 64 * 1024;

/// One warm call: what [`run`] needs beyond the runner.
pub(super) struct WarmCall<'a> {
    pub call: &'a Call<'a>,
    /// The interpreter's real binary.
    pub program: &'a Path,
    /// What the interpreter reads (its prefixes and import path).
    pub read: Vec<PathBuf>,
    /// The tool's code: `kind`, `file` and `package` of a request.
    pub target: Value,
    /// The bootstrap's whole request for this call.
    pub request: Value,
    pub passthrough: &'a [String],
    pub limits: &'a Limits,
    /// The stdout cap, the response's envelope included.
    pub max_output: usize,
}

/// A runner's fork servers, by key, and the thread that spawns them.
#[derive(Default)]
pub(in crate::run) struct Pool {
    slots: Mutex<HashMap<String, Arc<Slot>>>,
    spawner: Mutex<Option<Spawner>>,
}

/// The server of one key, replaced when it died or its files changed.
#[derive(Default)]
struct Slot {
    server: Mutex<Option<Arc<Server>>>,
}

/// Work for the spawner thread: it starts a server and sends it back.
type Job = Box<dyn FnOnce() + Send>;

struct Spawner {
    jobs: mpsc::Sender<Job>,
    thread: JoinHandle<()>,
}

impl Pool {
    fn slot(&self, key: &str) -> Arc<Slot> {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        slots.entry(key.to_string()).or_default().clone()
    }

    /// Runs `start` (which starts a server) on the pool's own thread,
    /// which lives as long as the pool: the server's PDEATHSIG fires when
    /// that thread ends.
    fn spawn<T: Send + 'static>(
        &self,
        start: impl FnOnce() -> T + Send + 'static,
    ) -> io::Result<T> {
        let (reply, answer) = mpsc::channel();
        let job: Job = Box::new(move || {
            let _ = reply.send(start());
        });
        {
            let mut spawner = self.spawner.lock().unwrap_or_else(|e| e.into_inner());
            if spawner.is_none() {
                let (jobs, queue) = mpsc::channel::<Job>();
                let thread = std::thread::Builder::new()
                    .name("toolc-python-spawner".into())
                    .spawn(move || {
                        for job in queue {
                            job();
                        }
                    })?;
                *spawner = Some(Spawner { jobs, thread });
            }
            let Some(spawner) = spawner.as_ref() else {
                return Err(io::Error::other("no spawner thread"));
            };
            spawner
                .jobs
                .send(job)
                .map_err(|_| io::Error::other("the spawner thread is gone"))?;
        }
        answer
            .recv()
            .map_err(|_| io::Error::other("the spawner thread is gone"))
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        // The servers first (each is killed and waited for), then the
        // thread that spawned them.
        self.slots
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        if let Some(spawner) = self
            .spawner
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .take()
        {
            drop(spawner.jobs);
            let _ = spawner.thread.join();
        }
    }
}

/// A file's identity and version, to notice an edit.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: i64,
    mtime_nsec: i64,
}

fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    Some(Stamp {
        dev: meta.dev(),
        ino: meta.ino(),
        size: meta.size(),
        mtime: meta.mtime(),
        mtime_nsec: meta.mtime_nsec(),
    })
}

/// A running fork server.
struct Server {
    /// Its pid in toolc's PID namespace (not yet reaped: toolc waits for
    /// it when dropping it).
    pid: libc::pid_t,
    pidfd: OwnedFd,
    channel: Mutex<Channel>,
    /// The source files its import read, as they were then.
    files: Vec<(PathBuf, Option<Stamp>)>,
    /// How it and its calls are confined.
    sandbox: SandboxMode,
    /// The server's cgroup, with the tool's limits: every call it forks
    /// counts against them together (emptied and removed after the server
    /// is dead).
    _cgroup: Option<CallCgroup>,
    /// Removed after the server is dead (fields drop after `drop`).
    root: Scratch,
}

impl Drop for Server {
    fn drop(&mut self) {
        // No call is running (each holds the server): its children are
        // all reaped, and the server holds nothing worth a goodbye.
        // SAFETY: a plain syscall on the server's own pid, not yet reaped.
        unsafe {
            libc::kill(self.pid, libc::SIGKILL);
        }
        let _ = launch::wait(self.pid);
    }
}

/// A call's child as toolc knows it.
struct Assigned {
    /// Its pid in toolc's PID namespace: its process group's id.
    pid: libc::pid_t,
    /// Its pid in the server's PID namespace, for the server's `reap`.
    inner: libc::pid_t,
    pidfd: OwnedFd,
    dir: CallDir,
}

impl Server {
    /// The child and directory a call was given, checked: the server ran
    /// the tool's import, so toolc kills no group but a child's of this
    /// server and removes no directory but one in its root. The child is
    /// named by a pidfd the server sent (a pid in the server's own PID
    /// namespace means nothing here); its pids in both namespaces come
    /// from the kernel, and the reply's pid must be the inner one.
    fn assigned(&self, reply: &Value, fds: Vec<OwnedFd>) -> Option<Assigned> {
        let (inner, dir) = assignment(reply, &self.root.path)?;
        let [pidfd]: [OwnedFd; 1] = fds.try_into().ok()?;
        let (pid, own) = pidfd_pids(&pidfd)?;
        let ppid: libc::pid_t = std::fs::read_to_string(format!("/proc/{pid}/status"))
            .ok()?
            .lines()
            .find_map(|line| line.strip_prefix("PPid:"))?
            .trim()
            .parse()
            .ok()?;
        (ppid == self.pid && own == inner).then_some(Assigned {
            pid,
            inner,
            pidfd,
            dir: CallDir(dir),
        })
    }

    /// Alive, and its files as they were when it imported them.
    fn usable(&self) -> bool {
        !drive::has_exited(&self.pidfd)
            && self.files.iter().all(|(path, then)| stamp(path) == *then)
    }
}

/// The pid and directory of a server's `{"pid": .., "dir": ..}` reply,
/// when the pid can be a child's and the directory is `call-N` in `root`.
fn assignment(reply: &Value, root: &Path) -> Option<(libc::pid_t, PathBuf)> {
    let pid = libc::pid_t::try_from(reply.get("pid")?.as_i64()?).ok()?;
    let dir = PathBuf::from(reply.get("dir")?.as_str()?);
    let name = dir.file_name()?.to_str()?;
    let numbered = name
        .strip_prefix("call-")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    (pid > 1 && numbered && dir.parent() == Some(root)).then_some((pid, dir))
}

/// The pids of the process behind `pidfd`, from the kernel: in toolc's
/// PID namespace and in its own (the last of `NSpid`). `None` when the
/// descriptor is no pidfd or the process was reaped.
fn pidfd_pids(pidfd: &OwnedFd) -> Option<(libc::pid_t, libc::pid_t)> {
    // Signal 0 checks the descriptor is a pidfd of a live process.
    // SAFETY: a plain syscall on a descriptor this process owns.
    let alive = unsafe {
        libc::syscall(
            libc::SYS_pidfd_send_signal,
            pidfd.as_raw_fd(),
            0,
            std::ptr::null::<libc::siginfo_t>(),
            0u32,
        )
    } == 0;
    if !alive {
        return None;
    }
    let info = std::fs::read_to_string(format!("/proc/self/fdinfo/{}", pidfd.as_raw_fd())).ok()?;
    let field = |name: &str| info.lines().find_map(|line| line.strip_prefix(name));
    let pid: libc::pid_t = field("Pid:")?.trim().parse().ok()?;
    let own: libc::pid_t = field("NSpid:")?.split_whitespace().last()?.parse().ok()?;
    (pid > 1 && own > 1).then_some((pid, own))
}

/// Why a call could not use its server.
enum Attempt {
    Done(Ran),
    /// The server failed before the call's child existed: start another.
    Broken(String),
}

/// Runs a Python call in a child of its tool's fork server, starting the
/// server when there is none or it cannot be used.
pub(super) fn run(pool: &Pool, warm: &WarmCall) -> Ran {
    let slot = pool.slot(&key(warm));
    let mut why = String::new();
    for _ in 0..2 {
        let server = {
            let mut current = slot.server.lock().unwrap_or_else(|e| e.into_inner());
            match current.as_ref() {
                Some(server) if server.usable() => server.clone(),
                _ => {
                    *current = None;
                    let server = match start(pool, warm) {
                        Ok(server) => Arc::new(server),
                        Err(ran) => return ran,
                    };
                    *current = Some(server.clone());
                    server
                }
            }
        };
        let discard = || {
            let mut current = slot.server.lock().unwrap_or_else(|e| e.into_inner());
            if current.as_ref().is_some_and(|s| Arc::ptr_eq(s, &server)) {
                *current = None;
            }
        };
        match call(&server, warm) {
            Attempt::Done(ran) => {
                // A cancelled call is most often its caller stopping (a
                // signalled `toolc run` ends without dropping its runner):
                // the server goes now, with its root, once no other call
                // uses it; the next call starts another.
                if matches!(ran, Ran::Done(Outcome::Cancelled { .. }, _)) {
                    discard();
                }
                return ran;
            }
            Attempt::Broken(reason) => {
                why = reason;
                discard();
            }
        }
    }
    failed(format!("the Python fork server failed twice: {why}"))
}

fn failed(message: String) -> Ran {
    Ran::Failed(Box::new(ToolResult::fail(
        ErrorCode::InternalError,
        message,
    )))
}

/// What the server depends on beside the runner's own options: the code
/// and everything its sandbox and environment are made of.
fn key(warm: &WarmCall) -> String {
    let entry = warm.call.entry;
    let home = &warm.call.runner.options.policy.home;
    let env: Vec<_> = environment(warm.passthrough, Path::new(""))
        .into_iter()
        .filter(|(name, _)| name != "TMPDIR")
        .collect();
    format!(
        "{}\n{:?}\n{}\n{:?}\n{:?}",
        warm.target,
        allowed_dirs(entry, home),
        denies_network(entry),
        env,
        warm.passthrough
    )
}

/// How a server and its children are confined: Landlock when the kernel
/// has it, nothing else.
fn landlock_mode(support: Support) -> SandboxMode {
    match support {
        Support::Landlock(_) => SandboxMode::Landlock,
        Support::Unavailable => SandboxMode::Unconfined,
    }
}

/// Starts a server and waits until it has imported the tool.
///
/// With namespaces (the runner's probe said they work, and the sandbox is
/// on) the server starts as a cold call's process does
/// ([`launch::launch_onto`]): process 1 of its own PID namespace with its
/// own `/proc`, in its own user, mount and IPC namespaces and, for a tool
/// without network, an empty network namespace; its PDEATHSIG is SIGKILL
/// (the namespace ends with it, and toolc's drop of the server removes
/// its root). Without, it is spawned under Landlock alone, with SIGTERM
/// as PDEATHSIG so that it empties its root itself.
fn start(pool: &Pool, warm: &WarmCall) -> Result<Server, Ran> {
    let (runner, entry) = (warm.call.runner, warm.call.entry);
    let root = Scratch::new().map_err(Ran::Failed)?;
    let mut rules = tool_rules(runner, entry, &root, warm.read.clone());
    rules.read.extend(runner.options.read_dirs.iter().cloned());
    let namespaces = runner.namespaces.is_ok();
    let sandbox = if namespaces {
        runner.sandbox_mode()
    } else {
        landlock_mode(runner.support)
    };
    let mut confinement = if sandbox == SandboxMode::Unconfined {
        None
    } else {
        Some(Confinement::build(&rules, runner.support, namespaces).map_err(failed)?)
    };
    // The children's own layer: the server's rules with the call's
    // directory in place of the server's root.
    let layer = match runner.support {
        Support::Landlock(abi) if !rules.any_path => {
            let read: Vec<PathBuf> = SYSTEM_READ
                .iter()
                .map(PathBuf::from)
                .chain(rules.read.iter().cloned())
                .collect();
            let write: Vec<PathBuf> = SYSTEM_WRITE
                .iter()
                .map(PathBuf::from)
                .chain(rules.write.iter().filter(|p| **p != root.path).cloned())
                .collect();
            json!({"abi": abi, "read": read, "write": write})
        }
        _ => Value::Null,
    };
    let log_path = root.path.join(LOG);
    let internal = |what: &str, e: io::Error| {
        failed(format!("cannot start the Python fork server: {what}: {e}"))
    };
    let log = std::fs::OpenOptions::new()
        .create_new(true)
        .append(true)
        .mode(0o600)
        .open(&log_path)
        .map_err(|e| internal("its log", e))?;
    let (ours, theirs) = UnixStream::pair().map_err(|e| internal("its socket", e))?;
    let args: Vec<OsString> = ["-I", "-B", "-c", FORKSERVER, BOOTSTRAP]
        .into_iter()
        .map(OsString::from)
        .collect();
    let env = environment(warm.passthrough, &root.path);
    let (program, cwd) = (warm.program.to_path_buf(), entry.dir.clone());
    let socket = OwnedFd::from(theirs);
    let log = OwnedFd::from(log);
    let group = call_cgroup(runner, warm.limits.memory);
    let procs = group
        .as_ref()
        .map(CallCgroup::procs_fds)
        .unwrap_or_default();
    let spawned = if namespaces {
        pool.spawn(move || {
            let program = Program {
                program: &program,
                args: &args,
                cwd: &cwd,
                env: &env,
                memory: None,
                processes: None,
                cgroup_procs: &procs,
            };
            launch::launch_onto(&program, confinement.as_mut(), [&socket, &log, &log])
                .map_err(LaunchError::into_io)
        })
    } else {
        let log_too = log.try_clone().map_err(|e| internal("its log", e))?;
        let mut command = Command::new(&program);
        command
            .args(&args)
            .current_dir(&cwd)
            .env_clear()
            .envs(env)
            .stdin(Stdio::from(socket))
            .stdout(Stdio::from(log))
            .stderr(Stdio::from(log_too))
            .process_group(0);
        // SAFETY: the closure only writes to descriptors open until the
        // spawn, from the forked child, allocating nothing.
        unsafe {
            command.pre_exec(move || {
                for fd in &procs {
                    if libc::write(*fd, b"0".as_ptr().cast(), 1) != 1 {
                        return Err(io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
        landlock_alone(&mut command, confinement);
        pool.spawn(move || {
            let child = command.spawn()?;
            let pid = child.id() as libc::pid_t;
            drive::pidfd_open(pid)
                .map(|pidfd| (pid, pidfd))
                .inspect_err(|_| {
                    // SAFETY: the server's own pid, not yet reaped.
                    unsafe {
                        libc::kill(pid, libc::SIGKILL);
                    }
                    let _ = launch::wait(pid);
                })
        })
    };
    let (pid, pidfd) = spawned.and_then(|started| started).map_err(|e| {
        let mut result = ToolResult::fail(
            ErrorCode::ExecutionError,
            format!("cannot start {}: {e}", warm.program.display()),
        );
        result.metadata.sandbox = Some(sandbox);
        Ran::Failed(Box::new(result))
    })?;
    let stop = || {
        // SAFETY: the server's own pid, not yet reaped.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
        launch::wait(pid).ok()
    };
    let mut channel = match Channel::new(ours) {
        Ok(channel) => channel,
        Err(e) => {
            stop();
            return Err(internal("its socket", e));
        }
    };
    let config = json!({"target": warm.target, "layer": layer});
    let deadline = Instant::now() + warm.limits.timeout;
    let ready = channel
        .send(&config, &[])
        .and_then(|()| channel.receive(deadline, warm.call.cancel));
    let files = match ready {
        Ok(reply) if reply.get("ready") == Some(&Value::Bool(true)) => reply
            .get("files")
            .and_then(Value::as_array)
            .map(|files| {
                files
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|f| (PathBuf::from(f), stamp(Path::new(f))))
                    .collect()
            })
            .unwrap_or_default(),
        failure => {
            let status = stop();
            let stderr = read_log(&log_path);
            let outcome = match failure {
                Err(WireError::TimedOut) => Outcome::TimedOut { stderr },
                Err(WireError::Cancelled) => Outcome::Cancelled { stderr },
                _ => {
                    let (code, signal) = match status {
                        Some(s) if libc::WIFEXITED(s) => (Some(libc::WEXITSTATUS(s)), None),
                        Some(s) if libc::WIFSIGNALED(s) => (None, Some(libc::WTERMSIG(s))),
                        _ => (None, None),
                    };
                    Outcome::Exited {
                        code,
                        signal,
                        stdout: Vec::new(),
                        stderr,
                    }
                }
            };
            return Err(Ran::Done(outcome, sandbox));
        }
    };
    Ok(Server {
        pid,
        pidfd,
        channel: Mutex::new(channel),
        files,
        sandbox,
        _cgroup: group,
        root,
    })
}

/// The fallback server's confinement, applied between fork and exec.
fn landlock_alone(command: &mut Command, mut confinement: Option<Confinement>) {
    let parent = std::process::id();
    // SAFETY: between fork and exec only async-signal-safe calls: prctl,
    // getppid and the Landlock syscalls on a ruleset built before.
    unsafe {
        command.pre_exec(move || {
            // SIGTERM, not SIGKILL: the server then kills its children and
            // removes its root before it ends.
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) != 0 {
                return Err(io::Error::last_os_error());
            }
            if libc::getppid() as u32 != parent {
                return Err(io::Error::from_raw_os_error(libc::ESRCH));
            }
            if let Some(confinement) = confinement.as_mut() {
                confinement
                    .enforce()
                    .map_err(|(_, errno)| io::Error::from_raw_os_error(errno))?;
            }
            Ok(())
        });
    }
}

fn read_log(path: &Path) -> Vec<u8> {
    let mut bytes = std::fs::read(path).unwrap_or_default();
    bytes.truncate(LOG_QUOTE);
    bytes
}

/// A call's directory inside its server's root (the server makes it for
/// the child it forks ahead), removed after the call.
struct CallDir(PathBuf);

impl Drop for CallDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One call in a fresh child of `server`.
fn call(server: &Server, warm: &WarmCall) -> Attempt {
    let pipes = wire::pipe().and_then(|out| Ok((out, wire::pipe()?)));
    let ((out_read, out_write), (err_read, err_write)) = match pipes {
        Ok(pipes) => pipes,
        Err(e) => return Attempt::Done(failed(format!("cannot make the call's pipes: {e}"))),
    };
    // The call's own cgroup, which its child joins before the tool runs
    // (it then counts the call's memory in place of RLIMIT_AS).
    let group = call_cgroup(warm.call.runner, warm.limits.memory);
    let message = json!({
        "op": "call",
        "request": warm.request,
        "memory": if group.is_some() { None } else { warm.limits.memory },
    });
    let started = Instant::now();
    let assigned = {
        let mut channel = server.channel.lock().unwrap_or_else(|e| e.into_inner());
        let mut fds = vec![out_write.as_raw_fd(), err_write.as_raw_fd()];
        fds.extend(
            group
                .as_ref()
                .map(CallCgroup::procs_fds)
                .unwrap_or_default(),
        );
        if let Err(e) = channel.send(&message, &fds) {
            return Attempt::Broken(e.to_string());
        }
        // The child has its copies: the pipes end when it does.
        drop((out_write, err_write));
        match channel.receive(Instant::now() + REPLY_LIMIT, None) {
            Ok(reply) => match server.assigned(&reply, channel.take_fds()) {
                Some(assigned) => assigned,
                None => return Attempt::Broken(reply.to_string()),
            },
            Err(e) => return Attempt::Broken(e.to_string()),
        }
    };
    let Assigned {
        pid,
        inner,
        pidfd,
        dir: _dir,
    } = assigned;
    let driven = drive::drive(Watch {
        pid,
        pidfd,
        stdout: out_read,
        stderr: err_read,
        deadline: started + warm.limits.timeout,
        max_output: warm.max_output,
        cancel: warm.call.cancel,
        cgroup: group.as_ref(),
    });
    let status = reap(server, inner);
    let outcome = match driven {
        Ok(Driven::Exited { stdout, stderr }) => {
            let (code, signal) = status.unwrap_or((None, None));
            Outcome::Exited {
                code,
                signal,
                stdout,
                stderr,
            }
        }
        Ok(Driven::TimedOut { stderr }) => Outcome::TimedOut { stderr },
        Ok(Driven::TooLarge) => Outcome::TooLarge,
        Ok(Driven::Cancelled { stderr }) => Outcome::Cancelled { stderr },
        Err(e) => {
            return Attempt::Done(failed(format!(
                "the Python call started, but toolc could not watch it (it was killed): {e}"
            )));
        }
    };
    let failed = matches!(&outcome, Outcome::Exited { code, .. } if *code != Some(0));
    if let Some(group) = &group
        && let Some(reached) = group.reached(failed)
    {
        let stderr = match &outcome {
            Outcome::Exited { stderr, .. } => stderr.as_slice(),
            _ => &[],
        };
        let result = resource_limit(reached, group.limits, stderr, server.sandbox);
        return Attempt::Done(Ran::Failed(Box::new(result)));
    }
    Attempt::Done(Ran::Done(outcome, server.sandbox))
}

/// Lets the server reap its (dead) child: its exit code or signal.
fn reap(server: &Server, pid: libc::pid_t) -> Option<(Option<i32>, Option<i32>)> {
    let mut channel = server.channel.lock().unwrap_or_else(|e| e.into_inner());
    channel.send(&json!({"op": "reap", "pid": pid}), &[]).ok()?;
    let reply = channel.receive(Instant::now() + REPLY_LIMIT, None).ok()?;
    let number = |name: &str| reply.get(name).and_then(Value::as_i64).map(|n| n as i32);
    match (number("code"), number("signal")) {
        (None, None) => None,
        status => Some(status),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_numbered_call_directory_in_the_root_is_accepted() {
        let root = Path::new("/tmp/toolc-run-1-0-ab");
        let reply = |pid: i64, dir: &str| json!({"pid": pid, "dir": dir});
        assert_eq!(
            assignment(&reply(42, "/tmp/toolc-run-1-0-ab/call-7"), root),
            Some((42, root.join("call-7")))
        );
        for (pid, dir) in [
            (42, "/"),
            (42, "/tmp/toolc-run-1-0-ab"),
            (42, "/tmp/toolc-run-1-0-ab/call-"),
            (42, "/tmp/toolc-run-1-0-ab/call-7/.."),
            (42, "/tmp/toolc-run-1-0-ab/../call-7"),
            (42, "/tmp/toolc-run-1-0-ab/x/call-7"),
            (42, "/tmp/toolc-run-1-0-ab/server.log"),
            (1, "/tmp/toolc-run-1-0-ab/call-7"),
            (0, "/tmp/toolc-run-1-0-ab/call-7"),
            (-5, "/tmp/toolc-run-1-0-ab/call-7"),
            (1 << 40, "/tmp/toolc-run-1-0-ab/call-7"),
        ] {
            assert_eq!(assignment(&reply(pid, dir), root), None, "{pid} {dir}");
        }
        assert_eq!(assignment(&json!({"pid": 42}), root), None);
        assert_eq!(assignment(&json!({"error": "no"}), root), None);
    }

    /// A pidfd names its process by the kernel's pids; a descriptor that
    /// is no pidfd, or a reaped process's, names nothing.
    #[test]
    fn a_pidfd_gives_the_pids_of_its_process_and_nothing_else_does() {
        let mut child = Command::new("sleep").arg("30").spawn().unwrap();
        let pid = child.id() as libc::pid_t;
        let pidfd = drive::pidfd_open(pid).unwrap();
        // No PID namespace between: both pids are the same.
        assert_eq!(pidfd_pids(&pidfd), Some((pid, pid)));
        let (read, _write) = wire::pipe().unwrap();
        assert_eq!(pidfd_pids(&read), None);
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(pidfd_pids(&pidfd), None);
    }
}
