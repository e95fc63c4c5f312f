//! Clean-up (and the making of the next call's cgroup) off the caller's
//! path.
//!
//! What a finished call leaves behind that nobody can use any more (its
//! scratch directory, its emptied cgroup's directories) is removed by one
//! background thread, which also makes the next call's cgroup
//! ([`super::cgroup`]), so that a call's answer does not wait for the file
//! system: removing a directory of an ext4 `/tmp` whose creation has been
//! committed to the journal takes 0.4 to 0.6 ms, more than the rest of a
//! call's clean-up together. Whatever could still act (a process left in
//! a cgroup) is dealt with by the call itself, before it answers; only
//! the removal of what is inert is deferred.
//!
//! [`flush`] waits for every job queued so far: a [`Runner`](super::Runner)
//! flushes when it is dropped, so that `toolc run` leaves nothing behind
//! when it exits. A toolc killed before a job ran leaves the directories
//! to the next toolc's sweep, as it would have mid-call. Where no thread
//! can be started, jobs run at once, on the caller's thread.
//!
//! Only Linux has calls to clean up after (elsewhere the runner starts no
//! tool process): there nothing is deferred and [`flush`] returns at once.
#![cfg_attr(not(target_os = "linux"), allow(dead_code))]

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

type Job = Box<dyn FnOnce() + Send>;

/// The most [`flush`] waits: a job is a few removals, each bounded.
const FLUSH_LIMIT: Duration = Duration::from_secs(10);

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    /// Jobs queued and not yet finished (the running one included).
    unfinished: usize,
    /// The worker runs (or could not be started: `Some(false)`).
    worker: Option<bool>,
}

struct Shared {
    queue: Mutex<Queue>,
    /// Signalled when a job is queued (for the worker) and when one
    /// finishes (for [`flush`]).
    changed: Condvar,
}

fn shared() -> &'static Shared {
    static SHARED: OnceLock<Shared> = OnceLock::new();
    SHARED.get_or_init(|| Shared {
        queue: Mutex::new(Queue::default()),
        changed: Condvar::new(),
    })
}

fn lock(shared: &Shared) -> MutexGuard<'_, Queue> {
    // A job that panicked poisons nothing of ours: the queue stays valid.
    shared
        .queue
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Runs `job` on the clean-up thread, after the jobs queued before it.
pub(crate) fn defer(job: impl FnOnce() + Send + 'static) {
    let shared = shared();
    let mut queue = lock(shared);
    if queue.worker.is_none() {
        let started = std::thread::Builder::new()
            .name("toolc-cleanup".into())
            .spawn(work)
            .is_ok();
        queue.worker = Some(started);
    }
    if queue.worker != Some(true) {
        drop(queue);
        job();
        return;
    }
    queue.jobs.push_back(Box::new(job));
    queue.unfinished += 1;
    drop(queue);
    shared.changed.notify_all();
}

/// Waits until every job queued before this call has finished (at most
/// [`FLUSH_LIMIT`]).
pub(crate) fn flush() {
    let shared = shared();
    let deadline = Instant::now() + FLUSH_LIMIT;
    let mut queue = lock(shared);
    while queue.unfinished > 0 {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return;
        }
        queue = match shared.changed.wait_timeout(queue, left) {
            Ok((queue, _)) => queue,
            Err(poisoned) => poisoned.into_inner().0,
        };
    }
}

fn work() {
    let shared = shared();
    loop {
        let mut queue = lock(shared);
        let job = loop {
            if let Some(job) = queue.jobs.pop_front() {
                break job;
            }
            queue = match shared.changed.wait(queue) {
                Ok(queue) => queue,
                Err(poisoned) => poisoned.into_inner(),
            };
        };
        drop(queue);
        // A job that panics must not stop the ones after it, nor leave
        // `flush` waiting for it.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
        lock(shared).unfinished -= 1;
        shared.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn flush_waits_for_every_job_queued_before_it() {
        let done = Arc::new(AtomicUsize::new(0));
        for _ in 0..20 {
            let done = Arc::clone(&done);
            defer(move || {
                std::thread::sleep(Duration::from_millis(2));
                done.fetch_add(1, Ordering::SeqCst);
            });
        }
        flush();
        assert_eq!(done.load(Ordering::SeqCst), 20);
    }

    #[test]
    fn a_job_that_panics_does_not_stop_the_next() {
        defer(|| panic!("a failing clean-up"));
        let done = Arc::new(AtomicUsize::new(0));
        let seen = Arc::clone(&done);
        defer(move || {
            seen.fetch_add(1, Ordering::SeqCst);
        });
        flush();
        assert_eq!(done.load(Ordering::SeqCst), 1);
    }
}
