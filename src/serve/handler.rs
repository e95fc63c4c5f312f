//! The MCP handler: what the server advertises, the protocol revisions it
//! accepts, and each request handed to what answers it, over the state
//! every session shares ([`super::shared`]).

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, InitializeRequestParams,
    InitializeResult, ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities,
    ServerConfig, SubscriptionFilter,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler};
use tokio_util::sync::CancellationToken;

use super::approval::{self, Decision};
use super::shared::Shared;
use super::watch::Changes;
use super::{Served, Settings, Source, call, fleet, list, log};

/// The server's handler: cheap to clone (one per HTTP session), every
/// clone sharing one [`Shared`].
#[derive(Clone)]
pub(crate) struct Handler {
    shared: Arc<Shared>,
}

impl Handler {
    pub(crate) fn new(served: Served, settings: Settings) -> Handler {
        Handler {
            shared: Arc::new(Shared::new(served, settings)),
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
        self.shared.replace(served)
    }

    /// The peers of the legacy sessions still open (closed ones are
    /// forgotten here).
    pub(crate) fn peers(&self) -> Vec<Peer<RoleServer>> {
        self.shared.open_peers().clone()
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
        while self.shared.busy() && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    }

    /// Cancelled when the server stops.
    pub(crate) fn stopping(&self) -> CancellationToken {
        self.shared.shutdown.clone()
    }

    fn remember(&self, peer: Peer<RoleServer>) {
        self.shared.open_peers().push(peer);
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
