//! The state every session of one server shares: the served tools, the
//! peers of live legacy sessions, the tool list's changes for listen
//! streams, the approvals waiting for an answer, the concurrency bound,
//! the stop signal. The handler ([`super::handler`]) holds it; a call
//! ([`super::call`], [`super::fleet`]) takes its slot and its stop signal
//! from it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};

use rmcp::{Peer, RoleServer};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use super::approval::Pending;
use super::watch::Changes;
use super::{Served, Settings};

/// What every session of one server shares.
pub(crate) struct Shared {
    served: RwLock<Arc<Served>>,
    /// The peers of live legacy (initialize) sessions, to tell them when
    /// the tool list changes.
    peers: Mutex<Vec<Peer<RoleServer>>>,
    /// One permit per call that may run at once.
    pub(super) calls: Arc<Semaphore>,
    /// The calls taken and not yet answered, waiting for a slot or not.
    pub(super) in_flight: AtomicUsize,
    /// How many permits `calls` has when no call runs.
    permits: usize,
    /// Cancelled when the server stops: running calls are cancelled.
    pub(super) shutdown: CancellationToken,
    pub(super) settings: Settings,
    /// The tool list's changes, for `subscriptions/listen` streams.
    pub(super) changes: Changes,
    /// The approvals asked of 2026-07-28 clients, waiting for an answer.
    pub(super) approvals: Pending,
}

impl Shared {
    pub(super) fn new(served: Served, settings: Settings) -> Shared {
        let permits = settings.max_concurrency.clamp(1, Semaphore::MAX_PERMITS);
        Shared {
            served: RwLock::new(Arc::new(served)),
            peers: Mutex::new(Vec::new()),
            calls: Arc::new(Semaphore::new(permits)),
            in_flight: AtomicUsize::new(0),
            permits,
            shutdown: CancellationToken::new(),
            settings,
            changes: Changes::default(),
            approvals: Pending::default(),
        }
    }

    /// The tools served now.
    pub(crate) fn served(&self) -> Arc<Served> {
        Arc::clone(&self.served.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// Serves `served` from the next request on; returns what was served
    /// before.
    pub(super) fn replace(&self, served: Served) -> Arc<Served> {
        let mut slot = self.served.write().unwrap_or_else(PoisonError::into_inner);
        std::mem::replace(&mut *slot, Arc::new(served))
    }

    /// The list of legacy peers, those whose session closed dropped.
    pub(super) fn open_peers(&self) -> MutexGuard<'_, Vec<Peer<RoleServer>>> {
        let mut peers = self.peers.lock().unwrap_or_else(PoisonError::into_inner);
        peers.retain(|peer| !peer.is_transport_closed());
        peers
    }

    /// Whether a call runs, or one taken is not answered yet.
    pub(super) fn busy(&self) -> bool {
        self.calls.available_permits() < self.permits || self.in_flight.load(Ordering::Acquire) > 0
    }
}
