//! What live servers leave behind while toolc fetches (Linux): toolc is
//! the reaper of their orphans, and kills and reaps them when a server's
//! listing ends.

use std::time::Duration;

/// Makes toolc the reaper of what its servers leave behind while it lives
/// (Linux): a daemon a server starts in a session of its own (out of its
/// process group) is toolc's child once its parent ends, and
/// [`kill_orphans`] finds it. Without it such a daemon outlived toolc and
/// held toolc's standard error open, so a pipe reading it never ended.
pub(super) struct Reaper(());

impl Reaper {
    pub(super) fn start() -> Reaper {
        // SAFETY: prctl(2) with integer arguments takes no memory.
        unsafe {
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1);
        }
        Reaper(())
    }
}

impl Drop for Reaper {
    fn drop(&mut self) {
        // SAFETY: as in `start`.
        unsafe {
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 0);
        }
    }
}

/// The servers being read (their process ids), which [`kill_orphans`]
/// leaves alone: several are read at once, and each one's listing ends it.
static READING: std::sync::Mutex<Vec<i32>> = std::sync::Mutex::new(Vec::new());

fn reading() -> std::sync::MutexGuard<'static, Vec<i32>> {
    READING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A server started: spared by [`kill_orphans`] until [`ended`].
pub(super) fn started(pid: i32) {
    reading().push(pid);
}

/// A server's listing ended (it was killed): no longer spared.
pub(super) fn ended(pid: i32) {
    reading().retain(|&p| p != pid);
}

/// Kills toolc's children, each with its process group, but the servers
/// still being read ([`started`]): while servers are fetched, toolc starts
/// no other process, so its other children are servers killed already and
/// what they left behind. A process whose parent was just killed comes to
/// toolc a moment later: the children are looked at again until all are
/// gone, for at most 100 ms. Those that ended are reaped (a server in a PID
/// namespace comes to toolc when its supervisor is killed), all but the
/// servers being read, which tokio waits for.
pub(super) fn kill_orphans() {
    for _ in 0..20 {
        let spared = reading().clone();
        let (ended, living): (Vec<i32>, Vec<i32>) = children()
            .into_iter()
            .filter(|pid| !spared.contains(pid))
            .partition(|pid| zombie(*pid));
        for pid in ended {
            // SAFETY: waitpid(2) of an ended child, without waiting.
            unsafe {
                libc::waitpid(pid, std::ptr::null_mut(), libc::WNOHANG);
            }
        }
        if living.is_empty() {
            return;
        }
        for pid in living {
            // SAFETY: kill(2) takes no memory; a process or group that
            // ended makes it fail harmlessly.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
                libc::kill(pid, libc::SIGKILL);
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The children of every thread of toolc.
fn children() -> Vec<i32> {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
        .flat_map(|text| {
            text.split_whitespace()
                .filter_map(|pid| pid.parse().ok())
                .collect::<Vec<i32>>()
        })
        .collect()
}

/// Whether `pid` ended and waits to be reaped (or is gone).
fn zombie(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
        stat.rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with(['Z', 'X']))
    })
}
