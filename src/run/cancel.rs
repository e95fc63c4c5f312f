//! Stopping a call from outside: a [`CancelToken`].
//!
//! A caller that may need to stop a running call (a server whose client
//! went away, a signal handler) makes a token, passes it to
//! [`crate::run::Runner::call_with`] and calls [`CancelToken::cancel`] from
//! any thread. The process driver checks the token while it waits on the
//! tool: a cancelled call kills everything the tool started (its PID
//! namespace; its process group where namespaces are unavailable), as a
//! timeout does, removes its scratch directory and ends in an
//! `EXECUTION_ERROR` whose `details.cancelled` is `true` (the result
//! contract's error codes are a closed list, so cancellation is a detail
//! of an execution error rather than a code of its own). A call cancelled
//! before its tool started runs nothing. Built-in tools that run in
//! process (`read_file`, `fetch`, ...) finish their step; `shell` is a
//! process and stops.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
#[cfg(target_os = "linux")]
use std::time::Duration;

/// How often a running call looks at its token: the longest a cancelled
/// call keeps running.
#[cfg(target_os = "linux")]
pub(crate) const CHECK_INTERVAL: Duration = Duration::from_millis(20);

/// A shared flag that stops the calls it was given to. Cheap to clone;
/// every clone cancels the same calls.
#[derive(Debug, Clone, Default)]
pub struct CancelToken {
    cancelled: Arc<AtomicBool>,
}

impl CancelToken {
    /// A token nobody has cancelled yet.
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// Stops every call running with this token (and every later one).
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
    }

    /// Whether [`CancelToken::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_the_flag_across_threads() {
        let token = CancelToken::new();
        let clone = token.clone();
        assert!(!token.is_cancelled());
        std::thread::spawn(move || clone.cancel()).join().unwrap();
        assert!(token.is_cancelled());
    }
}
