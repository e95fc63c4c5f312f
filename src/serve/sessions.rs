//! The Streamable HTTP sessions of `toolc serve --http`: rmcp's
//! in-memory session manager, with a bound on how many live at once.
//!
//! A session lives until its client deletes it or it is idle for rmcp's
//! keep-alive (5 minutes), and each costs memory (a worker task and its
//! channels, ~80 kB): without a bound, a client opening sessions in a loop
//! (nothing but `initialize` requests) grows the server's memory without
//! end. Past [`MAX_SESSIONS`] a new session is refused (HTTP 500 from
//! rmcp) until some close; the sessions open are untouched.

use std::sync::Arc;

use futures_core::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{
    EventStore, RestoreOutcome, ServerSseMessage, SessionId,
};

/// The most sessions open at once.
pub(super) const MAX_SESSIONS: usize = 1024;

/// rmcp's [`LocalSessionManager`], refusing new sessions past a bound.
pub(super) struct Bounded {
    inner: LocalSessionManager,
    max: usize,
}

impl Bounded {
    pub(super) fn new(max: usize) -> Bounded {
        Bounded {
            inner: LocalSessionManager::default(),
            max,
        }
    }
}

/// Why a session request failed.
#[derive(Debug, thiserror::Error)]
pub(super) enum SessionError {
    #[error("too many sessions open ({0}): close one (HTTP DELETE) or wait for one to expire")]
    Full(usize),
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
}

impl SessionManager for Bounded {
    type Error = SessionError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), SessionError> {
        let open = self.inner.sessions.read().await.len();
        if open >= self.max {
            super::log::warn(format_args!(
                "refused a new HTTP session: {open} are open already"
            ));
            return Err(SessionError::Full(open));
        }
        Ok(self.inner.create_session().await?)
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, SessionError> {
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, SessionError> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), SessionError> {
        Ok(self.inner.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionError> {
        Ok(self.inner.create_stream(id, message).await?)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), SessionError> {
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionError> {
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionError> {
        Ok(self.inner.resume(id, last_event_id).await?)
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, SessionError> {
        Ok(self.inner.restore_session(id).await?)
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.inner.event_store()
    }
}
