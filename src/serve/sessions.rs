//! The Streamable HTTP sessions of `toolc serve --http`: rmcp's
//! in-memory session manager, with a bound on how many live at once.
//!
//! A session lives until its client deletes it or it is idle (see
//! below), and each costs memory (a worker task and its
//! channels, ~80 kB): without a bound, a client opening sessions in a loop
//! (nothing but `initialize` requests) grows the server's memory without
//! end. At the bound ([`super::Limits::max_sessions`]) the session idle
//! longest is closed to make room for a new one; only when every session
//! has a stream open is the new one refused, with a 503 and `Retry-After`
//! (see [`Bounded::admit`]: the HTTP layer asks before rmcp creates one).
//!
//! Idle sessions are closed here rather than by rmcp's keep-alive, which
//! counts only messages: a call running longer than it (a slow tool, an
//! approval the user takes minutes to give) lost its session and its
//! result. A session is idle when none of its response streams is open
//! (a call in flight holds its POST's stream; a listening client holds its
//! GET stream) and its client sent nothing for the idle timeout
//! ([`super::Limits::session_idle`]).

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures_core::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{
    EventStore, RestoreOutcome, ServerSseMessage, SessionId,
};

/// How often idle sessions are looked for, at most.
const REAP_EVERY: Duration = Duration::from_secs(15);

/// rmcp's [`LocalSessionManager`], bounded in how many sessions it holds,
/// closing idle ones itself.
pub(super) struct Bounded {
    inner: Arc<LocalSessionManager>,
    max: usize,
    activity: Arc<Activity>,
    /// Sessions admitted and not yet created (their `initialize` is on
    /// its way through rmcp): counted against the bound.
    pending: Arc<AtomicUsize>,
    /// Held while a new session is admitted, so two admissions never
    /// both take the last place.
    admission: tokio::sync::Mutex<()>,
}

/// A place for one new session, held until its request is answered.
pub(super) struct Admitted(Arc<AtomicUsize>);

impl Drop for Admitted {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// When each session was last active, and how many of its streams are
/// open.
#[derive(Debug, Default)]
struct Activity(Mutex<HashMap<SessionId, (Instant, usize)>>);

impl Activity {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<SessionId, (Instant, usize)>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The client of `id` sent something now.
    fn touch(&self, id: &SessionId) {
        self.lock()
            .entry(id.clone())
            .and_modify(|(last, _)| *last = Instant::now())
            .or_insert((Instant::now(), 0));
    }

    /// One more open stream of `id`, until the guard is dropped.
    fn open(self: &Arc<Self>, id: &SessionId) -> Open {
        let mut sessions = self.lock();
        let entry = sessions.entry(id.clone()).or_insert((Instant::now(), 0));
        entry.0 = Instant::now();
        entry.1 += 1;
        Open {
            activity: Arc::clone(self),
            id: id.clone(),
        }
    }

    /// The sessions idle for longer than `idle` at `now`, forgotten here.
    fn idle(&self, now: Instant, idle: Duration) -> Vec<SessionId> {
        let mut sessions = self.lock();
        let expired: Vec<SessionId> = sessions
            .iter()
            .filter(|(_, (last, open))| *open == 0 && now.saturating_duration_since(*last) > idle)
            .map(|(id, _)| id.clone())
            .collect();
        for id in &expired {
            sessions.remove(id);
        }
        expired
    }

    /// The session with no open stream that was active least recently,
    /// forgotten here.
    fn oldest_idle(&self) -> Option<SessionId> {
        let mut sessions = self.lock();
        let oldest = sessions
            .iter()
            .filter(|(_, (_, open))| *open == 0)
            .min_by_key(|(_, (last, _))| *last)
            .map(|(id, _)| id.clone())?;
        sessions.remove(&oldest);
        Some(oldest)
    }
}

/// An open stream of a session: it is not idle while this lives.
struct Open {
    activity: Arc<Activity>,
    id: SessionId,
}

impl Drop for Open {
    fn drop(&mut self) {
        if let Some(entry) = self.activity.lock().get_mut(&self.id) {
            entry.1 = entry.1.saturating_sub(1);
            // The client was there until its stream closed.
            entry.0 = Instant::now();
        }
    }
}

/// A session's response stream, keeping it active while open.
struct Tracked<S> {
    stream: Pin<Box<S>>,
    _open: Open,
}

impl<S: Stream> Stream for Tracked<S> {
    type Item = S::Item;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        self.stream.as_mut().poll_next(cx)
    }
}

impl Bounded {
    /// At most `max` sessions; the ones idle for longer than `idle` are
    /// closed by a task of the current runtime, which ends with `stop`.
    pub(super) fn new(
        max: usize,
        idle: Duration,
        stop: tokio_util::sync::CancellationToken,
    ) -> Bounded {
        let mut inner = LocalSessionManager::default();
        // rmcp's idle timeout is left far behind: the reaper decides.
        inner.session_config.keep_alive = Some(Duration::from_secs(24 * 3600));
        let bounded = Bounded {
            inner: Arc::new(inner),
            max,
            activity: Arc::default(),
            pending: Arc::default(),
            admission: tokio::sync::Mutex::new(()),
        };
        let (inner, activity) = (Arc::clone(&bounded.inner), Arc::clone(&bounded.activity));
        // Looked for often enough that a session outlives its timeout by a
        // fraction of it at most.
        let every = (idle / 4).clamp(Duration::from_millis(100), REAP_EVERY);
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(every);
            loop {
                tokio::select! {
                    _ = stop.cancelled() => return,
                    _ = ticks.tick() => {}
                }
                for id in activity.idle(Instant::now(), idle) {
                    super::log::info(format_args!("closing idle HTTP session {id}"));
                    let _ = inner.close_session(&id).await;
                }
            }
        });
        bounded
    }

    /// A place for a new session: free, or made by closing the session
    /// idle longest. `None` when every session has a stream open (a call
    /// running, a client listening): the client is to try again later.
    pub(super) async fn admit(&self) -> Option<Admitted> {
        let _admitting = self.admission.lock().await;
        loop {
            let open = self.inner.sessions.read().await.len();
            if open + self.pending.load(Ordering::Acquire) < self.max {
                break;
            }
            let Some(oldest) = self.activity.oldest_idle() else {
                super::log::warn(format_args!(
                    "refused a new HTTP session: {open} are open, none of them idle"
                ));
                return None;
            };
            super::log::info(format_args!(
                "closing HTTP session {oldest}, idle longest, to make room for a new one"
            ));
            // rmcp forgets it at once; one it had forgotten already frees
            // nothing, and the loop counts again (each turn forgets one).
            let _ = self.inner.close_session(&oldest).await;
        }
        self.pending.fetch_add(1, Ordering::AcqRel);
        Some(Admitted(Arc::clone(&self.pending)))
    }

    fn tracked<S>(&self, id: &SessionId, stream: S) -> Tracked<S> {
        Tracked {
            stream: Box::pin(stream),
            _open: self.activity.open(id),
        }
    }
}

/// Why a session request failed.
#[derive(Debug, thiserror::Error)]
pub(super) enum SessionError {
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
}

impl SessionManager for Bounded {
    type Error = SessionError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    /// Bounded by [`Bounded::admit`], which the HTTP layer asks before
    /// any request that may create a session reaches rmcp: refusing here
    /// would be rmcp's HTTP 500.
    async fn create_session(&self) -> Result<(SessionId, Self::Transport), SessionError> {
        let (id, transport) = self.inner.create_session().await?;
        self.activity.touch(&id);
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, SessionError> {
        self.activity.touch(id);
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, SessionError> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), SessionError> {
        self.activity.lock().remove(id);
        Ok(self.inner.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionError> {
        let stream = self.inner.create_stream(id, message).await?;
        Ok(self.tracked(id, stream))
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), SessionError> {
        self.activity.touch(id);
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionError> {
        let stream = self.inner.create_standalone_stream(id).await?;
        Ok(self.tracked(id, stream))
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionError> {
        let stream = self.inner.resume(id, last_event_id).await?;
        Ok(self.tracked(id, stream))
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, SessionError> {
        self.activity.touch(&id);
        Ok(self.inner.restore_session(id).await?)
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.inner.event_store()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_with_an_open_stream_is_never_idle() {
        let activity = Arc::new(Activity::default());
        let (busy, quiet): (SessionId, SessionId) = ("busy".into(), "quiet".into());
        activity.touch(&quiet);
        let open = activity.open(&busy);
        const IDLE: Duration = Duration::from_secs(300);
        let later = Instant::now() + IDLE * 3;
        assert_eq!(activity.oldest_idle(), Some(quiet.clone()));
        activity.touch(&quiet);
        assert_eq!(activity.idle(later, IDLE), vec![quiet.clone()]);
        assert!(
            activity.idle(later, IDLE).is_empty(),
            "forgotten once closed"
        );
        assert_eq!(activity.oldest_idle(), None, "the busy one is not idle");
        drop(open);
        assert!(
            activity.idle(Instant::now(), IDLE).is_empty(),
            "active just now"
        );
        assert_eq!(activity.idle(later, IDLE), vec![busy]);
    }
}
