//! The MCP handler: what the server advertises, the protocol revisions it
//! accepts, and the state every session shares (the served tools, the
//! peers of live legacy sessions, the tool list's changes for listen
//! streams, the approvals waiting for an answer, the concurrency bound,
//! the stop signal).

use std::borrow::Cow;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, InitializeRequestParams,
    InitializeResult, ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities,
    ServerConfig, SubscriptionFilter,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use super::approval::{self, Decision, Pending};
use super::watch::Changes;
use super::{Served, Settings, Source, call, fleet, list, log};

/// What every session of one server shares.
pub(crate) struct Shared {
    served: RwLock<Arc<Served>>,
    /// The peers of live legacy (initialize) sessions, to tell them when
    /// the tool list changes.
    peers: Mutex<Vec<Peer<RoleServer>>>,
    /// One permit per call that may run at once.
    pub(super) calls: Arc<Semaphore>,
    /// The calls taken and not yet answered, waiting for a slot or not.
    pub(super) in_flight: std::sync::atomic::AtomicUsize,
    /// How many permits `calls` has when no call runs.
    permits: usize,
    /// Cancelled when the server stops: running calls are cancelled.
    pub(super) shutdown: CancellationToken,
    pub(super) settings: Settings,
    /// The tool list's changes, for `subscriptions/listen` streams.
    changes: Changes,
    /// The approvals asked of 2026-07-28 clients, waiting for an answer.
    approvals: Pending,
}

impl Shared {
    /// The tools served now.
    pub(crate) fn served(&self) -> Arc<Served> {
        Arc::clone(&self.served.read().unwrap_or_else(PoisonError::into_inner))
    }
}

/// The server's handler: cheap to clone (one per HTTP session), every
/// clone sharing one [`Shared`].
#[derive(Clone)]
pub(crate) struct Handler {
    shared: Arc<Shared>,
}

impl Handler {
    pub(crate) fn new(served: Served, settings: Settings) -> Handler {
        let permits = settings.max_concurrency.clamp(1, Semaphore::MAX_PERMITS);
        Handler {
            shared: Arc::new(Shared {
                served: RwLock::new(Arc::new(served)),
                peers: Mutex::new(Vec::new()),
                calls: Arc::new(Semaphore::new(permits)),
                in_flight: std::sync::atomic::AtomicUsize::new(0),
                permits,
                shutdown: CancellationToken::new(),
                settings,
                changes: Changes::default(),
                approvals: Pending::default(),
            }),
        }
    }

    /// The tools served now.
    pub(crate) fn served(&self) -> Arc<Served> {
        self.shared.served()
    }

    /// Serves `served` from the next request on; calls already running
    /// finish with the runner they started with. Returns what was served
    /// before.
    pub(crate) fn replace(&self, served: Served) -> Arc<Served> {
        let mut slot = self
            .shared
            .served
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        std::mem::replace(&mut *slot, Arc::new(served))
    }

    /// The peers of the legacy sessions still open (closed ones are
    /// forgotten here).
    pub(crate) fn peers(&self) -> Vec<Peer<RoleServer>> {
        self.open_peers().clone()
    }

    /// Stops every running call and refuses new ones.
    pub(crate) fn shutdown(&self) {
        self.shared.shutdown.cancel();
        self.shared.calls.close();
    }

    /// The tool list's changes, for the `subscriptions/listen` streams.
    pub(crate) fn changes(&self) -> &Changes {
        &self.shared.changes
    }

    /// Waits (at most `limit`) until no call runs and every call taken is
    /// answered: after [`Handler::shutdown`], until the cancelled calls'
    /// processes are gone and the queued ones are answered.
    pub(crate) async fn calls_finished(&self, limit: std::time::Duration) {
        let deadline = tokio::time::Instant::now() + limit;
        while (self.shared.calls.available_permits() < self.shared.permits
            || self
                .shared
                .in_flight
                .load(std::sync::atomic::Ordering::Acquire)
                > 0)
            && tokio::time::Instant::now() < deadline
        {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    }

    /// Cancelled when the server stops.
    pub(crate) fn stopping(&self) -> CancellationToken {
        self.shared.shutdown.clone()
    }

    fn remember(&self, peer: Peer<RoleServer>) {
        self.open_peers().push(peer);
    }

    /// The list of legacy peers, those whose session closed dropped.
    fn open_peers(&self) -> std::sync::MutexGuard<'_, Vec<Peer<RoleServer>>> {
        let mut peers = self
            .shared
            .peers
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        peers.retain(|peer| !peer.is_transport_closed());
        peers
    }
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        let capabilities = if self.shared.settings.watch {
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build()
        } else {
            ServerCapabilities::builder().enable_tools().build()
        };
        let mut info = ServerConfig::new(capabilities).with_server_info(
            Implementation::new("toolc", env!("CARGO_PKG_VERSION")).with_title("toolc serve"),
        );
        // The answer to a client asking for a revision this server does not
        // offer: the newest offered one that has an initialize handshake.
        if let Some(newest) = self
            .shared
            .settings
            .versions
            .iter()
            .rev()
            .find(|v| v.has_initialize())
        {
            info.protocol_version = newest.clone();
        }
        info
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Owned(self.shared.settings.versions.clone())
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        let result = self.negotiate_initialize(&request)?;
        log::info(format_args!(
            "session started: {} {} asked for {}, speaks {}",
            request.client_info.name,
            request.client_info.version,
            request.protocol_version,
            result.protocol_version
        ));
        self.remember(context.peer.clone());
        Ok(result)
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let served = self.served();
        list::page(
            &served.tools,
            request.as_ref(),
            self.shared.settings.page_size,
        )
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let served = self.served();
        let runner = match &served.source {
            Source::Local(runner) => Arc::clone(runner),
            Source::Fleet { fleet, routes } => {
                return fleet::call(&self.shared, &served, fleet, routes, request, context.ct)
                    .await
                    .map(CallToolResponse::Complete);
            }
        };
        let approval = match approval::decide(
            &self.shared.approvals,
            &runner,
            &request,
            &context,
            &self.shared.shutdown,
        )
        .await
        {
            Decision::Run(approval) => approval,
            Decision::Ask(input_required) => {
                return Ok(CallToolResponse::InputRequired(input_required));
            }
        };
        call::call(&self.shared, runner, request, context.ct.clone(), approval)
            .await
            .map(CallToolResponse::Complete)
    }

    fn accepted_subscription_filter(
        &self,
        _requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Changes::accepted(self.shared.settings.watch)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let stop = self.shared.shutdown.clone();
        self.shared.changes.listen(context, stop).await
    }

    async fn on_initialized(&self, _context: NotificationContext<RoleServer>) {
        log::debug(format_args!("client initialized"));
    }
}
