//! A cgroup per call: the process and memory limits the kernel counts.
//!
//! `RLIMIT_AS` bounds a process's address space, not the memory it makes
//! the machine hold: a memfd or a file in a tmpfs is not in any address
//! space, and a tool stored 1 GiB in a memfd under `--memory 64MiB`.
//! `RLIMIT_NPROC` counts every process of a user, not of a call. A cgroup
//! counts what the call's processes charge, page cache and shared memory
//! (memfd, tmpfs, `/dev/shm`) included, and how many processes it holds.
//!
//! Every call gets one, `toolc-PID-START-N` (toolc's pid, its start time
//! in clock ticks, a counter), made directly beneath the cgroup toolc
//! runs in (its line of `/proc/self/cgroup`, where that hierarchy is
//! mounted from `/proc/self/mountinfo`), never elsewhere in the tree:
//!
//! - **cgroup v1** (the memory and pids controllers mounted each on its
//!   own hierarchy): `memory.limit_in_bytes` (it counts shmem too) and,
//!   where swap accounting exists, `memory.memsw.limit_in_bytes` at the
//!   same value, so the call cannot push its pages out to swap;
//!   `pids.max`. A limit hit shows in `memory.oom_control`'s `oom_kill`,
//!   `memory.failcnt` and `pids.events`' `max`.
//! - **cgroup v2** (where no v1 hierarchy holds those controllers):
//!   `memory.max`, `memory.swap.max` 0, `pids.max`, in a child of toolc's
//!   own cgroup, which must have (or be able to enable) the memory and
//!   pids controllers for its children; `memory.events`' `oom_kill` and
//!   `max`, `pids.events`' `max`.
//!
//! The tool's process joins before it runs anything of its own: toolc
//! opens each cgroup's join file before the clone, and the child writes
//! `0` (itself) to it as its first step ([`super::launch`]), before the
//! exec. That is race-free (nothing the tool runs, and no process it
//! forks, exists outside the cgroup) without a second round trip between
//! toolc and the child, and works on both versions: the kernel checks the
//! writer's permission with the credentials the file was opened with,
//! toolc's, so the child's new user namespace does not matter.
//!
//! The join file is `tasks` on v1, `cgroup.procs` on v2. Every writer is
//! a process just forked, with one thread (a clone of one thread of toolc,
//! or a fork of the warm Python server), so moving that thread moves the
//! whole process. Moving a whole process (`cgroup.procs`) takes a global
//! lock that waits for an RCU grace period unless another move happened
//! just before: measured here, 7 to 22 ms for a lone call against 0.04 ms
//! for the writer's own thread through `tasks`, which the kernel moves
//! without that lock (Linux 6.x). v2 has no such file for a domain cgroup.
//!
//! While the call runs, toolc reads the counters as often as it looks at
//! the cancel token; an OOM kill or a refused fork ends the call at once
//! (killing everything in it) with `RESOURCE_LIMIT`. A tool that fails
//! after an allocation was refused is reported the same way. When the
//! call ends, whatever is left in the cgroup is killed and the directory
//! removed; the first call of every toolc also removes the call cgroups
//! that a toolc which no longer runs left (it was SIGKILLed), as the
//! scratch directories are swept.
//!
//! Where no cgroup can be made (no root, no delegation, no controller),
//! calls fall back to rlimits ([`Runner::warnings`](super::Runner::warnings)
//! says so once): `RLIMIT_AS` only when a memory limit is given (memfd,
//! tmpfs and shared memory are not counted), and `RLIMIT_NPROC`, which
//! counts the processes of the tool's uid: per call inside the call's
//! user namespace, per user without one, and not at all for root
//! outside a user namespace.

#[cfg(target_os = "linux")]
use std::fs::{self, OpenOptions};
#[cfg(target_os = "linux")]
use std::io;
#[cfg(target_os = "linux")]
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
#[cfg(target_os = "linux")]
use std::path::{Path, PathBuf};
#[cfg(target_os = "linux")]
use std::sync::atomic::{AtomicU64, Ordering};
#[cfg(target_os = "linux")]
use std::sync::{Mutex, Once, OnceLock};

/// The most processes a call may hold at once when neither the call nor
/// the tool says otherwise: far above what an interpreter and its helpers
/// use, far below what harms a machine.
pub const DEFAULT_MAX_PROCESSES: u64 = 256;
/// The memory limit of a call when neither the call (`--memory`) nor the
/// tool (`resources.memory`) gives one: 1 GiB.
pub const DEFAULT_MEMORY: u64 = 1 << 30;

#[cfg(target_os = "linux")]
/// The start of every call cgroup's name.
const PREFIX: &str = "toolc-";

#[cfg(target_os = "linux")]
/// What one call may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CallLimits {
    pub memory: u64,
    pub processes: u64,
}

#[cfg(target_os = "linux")]
/// Which limit a call reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reached {
    Memory,
    Processes,
}

#[cfg(target_os = "linux")]
/// One hierarchy toolc limits calls in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    V1Memory,
    V1Pids,
    V2,
}

#[cfg(target_os = "linux")]
/// Toolc's own cgroup in one hierarchy: where call cgroups are made.
#[derive(Debug, Clone)]
struct Place {
    kind: Kind,
    dir: PathBuf,
}

#[cfg(target_os = "linux")]
/// The places of this process, found once; `Err` says why there are none.
fn places() -> &'static Result<Vec<Place>, String> {
    static PLACES: OnceLock<Result<Vec<Place>, String>> = OnceLock::new();
    PLACES.get_or_init(|| {
        let membership = fs::read_to_string("/proc/self/cgroup")
            .map_err(|e| format!("cannot read /proc/self/cgroup: {e}"))?;
        let mountinfo = fs::read_to_string("/proc/self/mountinfo")
            .map_err(|e| format!("cannot read /proc/self/mountinfo: {e}"))?;
        let found = find_places(&membership, &mountinfo);
        if found.is_empty() {
            return Err(
                "no cgroup hierarchy with the memory or pids controller is mounted".to_string(),
            );
        }
        for place in &found {
            if place.kind == Kind::V2 {
                enable_v2_controllers(&place.dir)?;
            }
        }
        Ok(found)
    })
}

#[cfg(target_os = "linux")]
/// A mount of `/proc/self/mountinfo`: its root within the hierarchy, its
/// mount point, file-system type and super-block options.
struct Mount<'a> {
    root: &'a str,
    point: &'a str,
    kind: &'a str,
    options: &'a str,
}

#[cfg(target_os = "linux")]
fn mounts(mountinfo: &str) -> Vec<Mount<'_>> {
    mountinfo
        .lines()
        .filter_map(|line| {
            let (left, right) = line.split_once(" - ")?;
            let mut left = left.split_whitespace().skip(3);
            let mut right = right.split_whitespace();
            Some(Mount {
                root: left.next()?,
                point: left.next()?,
                kind: right.next()?,
                options: right.nth(1).unwrap_or(""),
            })
        })
        .collect()
}

#[cfg(target_os = "linux")]
/// The v1 hierarchies of the memory and pids controllers, or else the v2
/// one, as directories of toolc's own cgroup.
fn find_places(membership: &str, mountinfo: &str) -> Vec<Place> {
    let mounts = mounts(mountinfo);
    let under = |mount: &Mount, path: &str| {
        let relative = path.strip_prefix(mount.root).unwrap_or(path);
        Path::new(mount.point).join(relative.trim_start_matches('/'))
    };
    let mut found = Vec::new();
    for (controller, kind) in [("memory", Kind::V1Memory), ("pids", Kind::V1Pids)] {
        let path = membership.lines().find_map(|line| {
            let mut parts = line.splitn(3, ':');
            let names = parts.nth(1)?;
            let path = parts.next()?;
            names.split(',').any(|n| n == controller).then_some(path)
        });
        let mount = mounts
            .iter()
            .find(|m| m.kind == "cgroup" && m.options.split(',').any(|o| o == controller));
        if let (Some(path), Some(mount)) = (path, mount) {
            found.push(Place {
                kind,
                dir: under(mount, path),
            });
        }
    }
    if found.is_empty()
        && let Some(path) = membership.lines().find_map(|l| l.strip_prefix("0::"))
        && let Some(mount) = mounts.iter().find(|m| m.kind == "cgroup2")
    {
        found.push(Place {
            kind: Kind::V2,
            dir: under(mount, path),
        });
    }
    found
}

#[cfg(target_os = "linux")]
/// Lets the children of toolc's v2 cgroup have the memory and pids
/// controllers (a no-op when they already do).
fn enable_v2_controllers(dir: &Path) -> Result<(), String> {
    let enabled = fs::read_to_string(dir.join("cgroup.subtree_control")).unwrap_or_default();
    let has = |c: &str| enabled.split_whitespace().any(|e| e == c);
    if has("memory") && has("pids") {
        return Ok(());
    }
    fs::write(dir.join("cgroup.subtree_control"), "+memory +pids").map_err(|e| {
        format!(
            "cannot enable the memory and pids controllers beneath {} ({e}); run toolc in a cgroup of its own with them delegated",
            dir.display()
        )
    })
}

#[cfg(target_os = "linux")]
/// Why calls on this machine cannot have cgroups, or `None` when they
/// can: found once, by making (and removing) one.
pub(crate) fn unavailable() -> Option<&'static str> {
    static PROBE: OnceLock<Result<(), String>> = OnceLock::new();
    PROBE
        .get_or_init(|| {
            CallCgroup::create(CallLimits {
                memory: DEFAULT_MEMORY,
                processes: DEFAULT_MAX_PROCESSES,
            })
            .map(drop)
        })
        .as_ref()
        .err()
        .map(String::as_str)
}

#[cfg(target_os = "linux")]
/// The cgroup of one call, in every place; killed and removed on drop.
#[derive(Debug)]
pub(crate) struct CallCgroup {
    dirs: Vec<(Kind, PathBuf)>,
    /// Each join file (`tasks` on v1, `cgroup.procs` on v2), open for the
    /// child to write itself into.
    procs: Vec<OwnedFd>,
    pub limits: CallLimits,
}

#[cfg(target_os = "linux")]
/// The cgroup made ahead of time for the next call ([`CallCgroup::create`]).
fn prepared() -> std::sync::MutexGuard<'static, Option<CallCgroup>> {
    static PREPARED: Mutex<Option<CallCgroup>> = Mutex::new(None);
    PREPARED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(target_os = "linux")]
/// Makes a cgroup with `limits` for the next call, unless one waits.
fn prepare(limits: CallLimits) {
    if prepared().is_some() {
        return;
    }
    let Ok(group) = CallCgroup::make(limits) else {
        return;
    };
    let mut slot = prepared();
    if slot.is_none() {
        *slot = Some(group);
    }
}

#[cfg(target_os = "linux")]
/// Removes the cgroup made ahead of time, if any: no call will take it
/// (its runner is going).
pub(crate) fn discard_prepared() {
    let spare = prepared().take();
    drop(spare);
}

#[cfg(target_os = "linux")]
impl CallCgroup {
    /// The call's cgroup with `limits`. Making one (two directories, their
    /// limits, the join files) is done ahead of time from a runner's
    /// second call on: the clean-up thread ([`super::reaper`]) makes the
    /// next call's with this call's limits, and a call with other limits
    /// makes its own. Each is used by one call.
    pub fn create(limits: CallLimits) -> Result<CallCgroup, String> {
        static CALLS: AtomicU64 = AtomicU64::new(0);
        let waiting = prepared().take();
        let group = match waiting {
            Some(group) if group.limits == limits => group,
            other => {
                drop(other);
                CallCgroup::make(limits)?
            }
        };
        if CALLS.fetch_add(1, Ordering::Relaxed) > 0 {
            super::reaper::defer(move || prepare(limits));
        }
        Ok(group)
    }

    /// Makes a call cgroup with `limits`, after sweeping stale ones once
    /// per process.
    fn make(limits: CallLimits) -> Result<CallCgroup, String> {
        static SWEEP: Once = Once::new();
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let places = places().as_ref().map_err(Clone::clone)?;
        let me = std::process::id();
        SWEEP.call_once(|| {
            for place in places {
                sweep(place.kind, &place.dir, me);
            }
        });
        let started = super::start_time::own_start_time();
        let name = format!(
            "{PREFIX}{me}-{started}-{}",
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let mut group = CallCgroup {
            dirs: Vec::new(),
            procs: Vec::new(),
            limits,
        };
        for place in places {
            let dir = place.dir.join(&name);
            fs::create_dir(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            group.dirs.push((place.kind, dir.clone()));
            set_limits(place.kind, &dir, limits)
                .map_err(|e| format!("cannot limit {}: {e}", dir.display()))?;
            let join = match place.kind {
                Kind::V1Memory | Kind::V1Pids => "tasks",
                Kind::V2 => "cgroup.procs",
            };
            let procs = OpenOptions::new()
                .write(true)
                .open(dir.join(join))
                .map_err(|e| format!("cannot open {}/{join}: {e}", dir.display()))?;
            group.procs.push(OwnedFd::from(procs));
        }
        Ok(group)
    }

    /// The descriptors the child writes `0` to before its exec.
    pub fn procs_fds(&self) -> Vec<RawFd> {
        self.procs.iter().map(AsRawFd::as_raw_fd).collect()
    }

    /// Whether the kernel already acted on a limit: an OOM kill, or a
    /// fork refused. The call is over then.
    pub fn exceeded(&self) -> Option<Reached> {
        for (kind, dir) in &self.dirs {
            let hit = match kind {
                Kind::V1Memory => counter(&dir.join("memory.oom_control"), "oom_kill") > 0,
                Kind::V1Pids => counter(&dir.join("pids.events"), "max") > 0,
                Kind::V2 => {
                    if counter(&dir.join("pids.events"), "max") > 0 {
                        return Some(Reached::Processes);
                    }
                    counter(&dir.join("memory.events"), "oom_kill") > 0
                }
            };
            if hit {
                return Some(match kind {
                    Kind::V1Pids => Reached::Processes,
                    _ => Reached::Memory,
                });
            }
        }
        None
    }

    /// The limit a call that ended badly (`failed`) reached, if any: an
    /// OOM kill or a refused fork, or, for a failed call, an allocation
    /// refused at the memory limit.
    pub fn reached(&self, failed: bool) -> Option<Reached> {
        if let Some(reached) = self.exceeded() {
            return Some(reached);
        }
        if !failed {
            return None;
        }
        self.dirs.iter().find_map(|(kind, dir)| {
            let refused = match kind {
                Kind::V1Memory => read_number(&dir.join("memory.failcnt")) > 0,
                Kind::V1Pids => false,
                Kind::V2 => counter(&dir.join("memory.events"), "max") > 0,
            };
            refused.then_some(Reached::Memory)
        })
    }
}

#[cfg(target_os = "linux")]
impl Drop for CallCgroup {
    /// Kills what is left in the call's cgroup before the call answers;
    /// the directories, inert from then on, are removed off the caller's
    /// path ([`super::reaper`]).
    fn drop(&mut self) {
        self.procs.clear();
        for (kind, dir) in &self.dirs {
            kill_all(*kind, dir);
        }
        let dirs = std::mem::take(&mut self.dirs);
        super::reaper::defer(move || {
            for (kind, dir) in &dirs {
                empty_and_remove(*kind, dir);
            }
        });
    }
}

#[cfg(target_os = "linux")]
fn set_limits(kind: Kind, dir: &Path, limits: CallLimits) -> io::Result<()> {
    let (memory, processes) = (limits.memory.to_string(), limits.processes.to_string());
    match kind {
        Kind::V1Memory => {
            fs::write(dir.join("memory.limit_in_bytes"), &memory)?;
            // Memory + swap at the same value: no swap for the call.
            write_if_present(&dir.join("memory.memsw.limit_in_bytes"), &memory)
        }
        Kind::V1Pids => fs::write(dir.join("pids.max"), processes),
        Kind::V2 => {
            fs::write(dir.join("memory.max"), &memory)?;
            write_if_present(&dir.join("memory.swap.max"), "0")?;
            fs::write(dir.join("pids.max"), processes)
        }
    }
}

#[cfg(target_os = "linux")]
/// Writes a control file the kernel may lack (swap accounting off).
fn write_if_present(path: &Path, value: &str) -> io::Result<()> {
    match fs::write(path, value) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

#[cfg(target_os = "linux")]
/// The value of `key` in a flat keyed file (`oom_kill 1`), 0 when absent.
fn counter(path: &Path, key: &str) -> u64 {
    fs::read_to_string(path)
        .ok()
        .and_then(|text| {
            text.lines().find_map(|line| {
                let (name, value) = line.split_once(' ')?;
                (name == key).then(|| value.trim().parse().ok())?
            })
        })
        .unwrap_or(0)
}

#[cfg(target_os = "linux")]
fn read_number(path: &Path) -> u64 {
    fs::read_to_string(path)
        .ok()
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or(0)
}

#[cfg(target_os = "linux")]
/// Kills every process left in `dir` and removes it. Best effort, and
/// bounded: a process that will not die in a second (stuck in the
/// kernel) leaves the directory for the next toolc's sweep.
fn empty_and_remove(kind: Kind, dir: &Path) {
    for _ in 0..200 {
        match fs::remove_dir(dir) {
            Ok(()) => return,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return,
            Err(_) => {}
        }
        kill_all(kind, dir);
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

#[cfg(target_os = "linux")]
/// Sends SIGKILL to every process in the cgroup `dir`.
fn kill_all(kind: Kind, dir: &Path) {
    // v2 kills the whole cgroup in one write where the kernel can.
    if kind == Kind::V2 && fs::write(dir.join("cgroup.kill"), "1").is_ok() {
        return;
    }
    let procs = fs::read_to_string(dir.join("cgroup.procs")).unwrap_or_default();
    for pid in procs
        .lines()
        .filter_map(|l| l.trim().parse::<libc::pid_t>().ok())
    {
        // SAFETY: a plain syscall; the pid is in the call's cgroup.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
}

#[cfg(target_os = "linux")]
/// The owner of a call cgroup named `name`: its pid and start time.
fn owner(name: &str) -> Option<(u32, u64)> {
    let mut parts = name.strip_prefix(PREFIX)?.split('-');
    let pid = parts.next()?.parse().ok()?;
    let started = parts.next()?.parse().ok()?;
    parts.next()?.parse::<u64>().ok()?;
    parts.next().is_none().then_some((pid, started))
}

#[cfg(target_os = "linux")]
/// Removes the call cgroups beneath `dir` whose toolc no longer runs.
fn sweep(kind: Kind, dir: &Path, me: u32) {
    // Without a readable /proc every owner would look gone.
    if super::start_time::start_time(me).is_none() {
        return;
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some((pid, started)) = name.to_str().and_then(owner) else {
            continue;
        };
        if pid == me || !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let stale = match super::start_time::start_time(pid) {
            None => true,
            Some(running) => started != 0 && running != started,
        };
        if stale {
            empty_and_remove(kind, &entry.path());
        }
    }
}

/// Cgroups are Linux's; elsewhere the runner starts no tool process.
#[cfg(not(target_os = "linux"))]
pub(crate) fn unavailable() -> Option<&'static str> {
    Some("cgroups are Linux's")
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn discard_prepared() {}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_name_tells_its_owner() {
        assert_eq!(owner("toolc-42-9001-3"), Some((42, 9001)));
        assert_eq!(owner("toolc-42-9001"), None);
        assert_eq!(owner("toolc-run-42-9001-3"), None);
        assert_eq!(owner("toolc-42-9001-3-4"), None);
    }

    #[test]
    fn v1_places_are_toolcs_own_cgroups() {
        let membership = "9:name=systemd:/\n8:pids:/\n4:memory:/jobs/a\n0::/\n";
        let mountinfo = "\
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
";
        let places = find_places(membership, mountinfo);
        let dirs: Vec<_> = places.iter().map(|p| (p.kind, p.dir.clone())).collect();
        assert_eq!(
            dirs,
            vec![
                (
                    Kind::V1Memory,
                    PathBuf::from("/sys/fs/cgroup/memory/jobs/a")
                ),
                (Kind::V1Pids, PathBuf::from("/sys/fs/cgroup/pids")),
            ]
        );
    }

    #[test]
    fn a_v2_place_is_beneath_the_mount_root() {
        let membership = "0::/user.slice/job\n";
        let mountinfo = "30 23 0:26 /user.slice /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
        let places = find_places(membership, mountinfo);
        assert_eq!(places.len(), 1);
        assert_eq!(places[0].kind, Kind::V2);
        assert_eq!(places[0].dir, PathBuf::from("/sys/fs/cgroup/job"));
    }
}
