//! SIGINT, SIGTERM and SIGHUP while live servers are read: the fetch stops,
//! the server being read is ended (its process group and its PID
//! namespace killed, see `client::KillOnDrop`), and the caller exits as a
//! shell reports the signal. Without this toolc died at once, and its
//! server only by the kernel's parent-death signal.
//!
//! tokio catches the signals while the fetch runs; the dispositions toolc
//! had before are put back when it ends, so the rest of the run (lint,
//! gen, convert) answers signals as it did.

use tokio::signal::unix::{Signal, SignalKind, signal};

/// The signals that stop a fetch.
const STOPPING: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// The dispositions the stopping signals had before the fetch; put back
/// when dropped.
pub(super) struct Restore([Option<libc::sigaction>; 3]);

impl Restore {
    /// Notes the current dispositions (before tokio replaces them).
    pub(super) fn note() -> Restore {
        Restore(STOPPING.map(|number| {
            // SAFETY: sigaction(2) reading into a zeroed struct of ours.
            unsafe {
                let mut old: libc::sigaction = std::mem::zeroed();
                (libc::sigaction(number, std::ptr::null(), &mut old) == 0).then_some(old)
            }
        }))
    }
}

impl Drop for Restore {
    fn drop(&mut self) {
        for (number, old) in STOPPING.iter().zip(&self.0) {
            if let Some(old) = old {
                // SAFETY: sigaction(2) putting back what it gave.
                unsafe {
                    libc::sigaction(*number, old, std::ptr::null_mut());
                }
            }
        }
    }
}

/// The stopping signals, caught (inside the runtime).
pub(super) struct Stop([Signal; 3]);

impl Stop {
    pub(super) fn catch() -> std::io::Result<Stop> {
        Ok(Stop([
            signal(SignalKind::interrupt())?,
            signal(SignalKind::terminate())?,
            signal(SignalKind::hangup())?,
        ]))
    }

    /// The number of the next stopping signal to arrive.
    pub(super) async fn next(&mut self) -> libc::c_int {
        let [interrupt, terminate, hangup] = &mut self.0;
        tokio::select! {
            _ = interrupt.recv() => libc::SIGINT,
            _ = terminate.recv() => libc::SIGTERM,
            _ = hangup.recv() => libc::SIGHUP,
        }
    }
}
