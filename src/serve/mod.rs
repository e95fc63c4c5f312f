//! `toolc serve`: the tools of some manifests served to MCP clients.
//!
//! This module owns the MCP server: what it lists (`tools/list` entries
//! from [`crate::emit::mcp::entry`], paginated), how it calls
//! (`tools/call` through the [`Runner`], bounded, cancellable), which
//! protocol revisions it speaks, and the two transports (stdio, Streamable
//! HTTP). rmcp (the official Rust SDK) speaks the protocol; toolc's runner
//! keeps validation, policy, sandbox and limits on every call.
//!
//! The tools served live in one replaceable [`Served`] value behind the
//! [`Handler`]: swapping it ([`Handler::replace`]) changes what the next
//! list and call see, while calls already running keep the runner they
//! started with. `--watch` does the swapping ([`watch`]); a tier-3 tool's
//! call asks the client for approval first ([`approval`]).

mod approval;
mod call;
mod handler;
mod http;
mod list;
pub(crate) mod log;
mod sessions;
pub(crate) mod watch;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::ProtocolVersion;

use crate::ir::ToolSet;
use crate::run::{LoadError, Runner, RunnerOptions};
pub(crate) use handler::Handler;
pub(crate) use http::PATH as HTTP_PATH;

/// The protocol revisions `toolc serve` speaks, oldest first.
pub(crate) const VERSIONS: [ProtocolVersion; 3] = [
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2026_07_28,
];

/// The tools one server serves: the runner that calls them and their MCP
/// entries, in manifest order.
pub(crate) struct Served {
    pub(crate) runner: Arc<Runner>,
    pub(crate) tools: Vec<rmcp::model::Tool>,
}

impl Served {
    /// Reads the manifests at `paths` (as `toolc lint` reads them; the one
    /// path `builtin` is the built-in tools) and builds their runner and
    /// entries. Manifests with error-level findings are refused:
    /// [`LoadError::Findings`].
    /// The files it reads are counted in `read_log` when given (what
    /// `--watch` watches).
    pub(crate) fn load(
        paths: &[PathBuf],
        options: RunnerOptions,
        read_log: Option<Arc<crate::project::ReadLog>>,
    ) -> Result<Served, LoadError> {
        let builtin = matches!(paths, [only] if only.as_os_str() == "builtin");
        let (runner, toolsets) = if builtin {
            (
                Runner::builtin(options)?,
                vec![crate::run::builtin::toolset()],
            )
        } else {
            let toolsets = Runner::read_logged(paths, read_log)?;
            (Runner::from_toolsets(toolsets.clone(), options)?, toolsets)
        };
        Ok(Served::new(runner, &toolsets))
    }

    /// The runner of `toolsets` and their entries.
    pub(crate) fn new(runner: Runner, toolsets: &[ToolSet]) -> Served {
        Served {
            runner: Arc::new(runner),
            tools: list::tools(toolsets),
        }
    }

    /// The entry of tool `name`.
    pub(crate) fn tool(&self, name: &str) -> Option<&rmcp::model::Tool> {
        self.tools.iter().find(|t| t.name == name)
    }
}

/// How the server behaves, whatever it serves.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    /// The most tools one `tools/list` page holds.
    pub(crate) page_size: usize,
    /// The most calls running at once; more wait their turn.
    pub(crate) max_concurrency: usize,
    /// The revisions offered (a subset of [`VERSIONS`], oldest first).
    pub(crate) versions: Vec<ProtocolVersion>,
    /// `--watch`: the tool list may change, and clients are told when it
    /// does (`tools.listChanged` is advertised only then).
    pub(crate) watch: bool,
}

/// Where the server listens.
#[derive(Debug, Clone)]
pub(crate) enum Transport {
    /// Standard input and output (stdout carries nothing but protocol).
    Stdio,
    /// Streamable HTTP at `http://ADDR/mcp`.
    Http(SocketAddr),
}

/// How a server ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ended {
    /// The client closed stdin, or the HTTP server stopped.
    Closed,
    /// SIGINT, SIGTERM or SIGHUP arrived (the number).
    Signal(i32),
}

/// Why a server could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("cannot start the async runtime: {0}")]
    Runtime(#[source] std::io::Error),
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot catch signals: {0}")]
    Signals(#[source] std::io::Error),
    #[error("the MCP session failed: {0}")]
    Session(String),
}

/// How long running calls get to stop once the server ends.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// Serves `handler`'s tools on `transport` until the client goes away or
/// a signal arrives. Calls still running then are cancelled (their
/// processes killed) before this returns. `listening` is told the HTTP
/// address once the socket is bound (port 0 becomes the real port).
pub(crate) fn serve(
    handler: Handler,
    transport: Transport,
    listening: &mut dyn FnMut(SocketAddr),
    watching: Option<(watch::Watch, Arc<watch::Load>)>,
) -> Result<Ended, ServeError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("toolc-serve")
        .build()
        .map_err(ServeError::Runtime)?;
    if let Some((watch, load)) = watching {
        runtime.spawn(watch::run(handler.clone(), watch, load));
    }
    let result = runtime.block_on(async {
        let signals = Signals::install()?;
        match transport {
            Transport::Stdio => serve_stdio(handler.clone(), signals).await,
            Transport::Http(addr) => {
                let listener = tokio::net::TcpListener::bind(addr)
                    .await
                    .map_err(|source| ServeError::Listen { addr, source })?;
                let bound = listener
                    .local_addr()
                    .map_err(|source| ServeError::Listen { addr, source })?;
                listening(bound);
                http::serve(handler.clone(), listener, signals).await
            }
        }
    });
    // Whatever ended the server, the calls still running stop now: their
    // tokens are cancelled, and their threads reap the processes.
    handler.shutdown();
    runtime.shutdown_timeout(STOP_GRACE);
    result
}

async fn serve_stdio(handler: Handler, mut signals: Signals) -> Result<Ended, ServeError> {
    use rmcp::ServiceExt;
    let service = handler
        .serve(rmcp::transport::stdio_pipes())
        .await
        .map_err(|e| ServeError::Session(e.to_string()))?;
    let stop = service.cancellation_token();
    tokio::select! {
        quit = service.waiting() => {
            log::debug(format_args!("the stdio session ended: {quit:?}"));
            Ok(Ended::Closed)
        }
        signal = signals.next() => {
            stop.cancel();
            Ok(Ended::Signal(signal))
        }
    }
}

/// SIGINT, SIGTERM and SIGHUP, caught for the server's whole life.
struct Signals {
    interrupt: tokio::signal::unix::Signal,
    terminate: tokio::signal::unix::Signal,
    hangup: tokio::signal::unix::Signal,
}

impl Signals {
    fn install() -> Result<Signals, ServeError> {
        use tokio::signal::unix::{SignalKind, signal};
        let catch = |kind| signal(kind).map_err(ServeError::Signals);
        Ok(Signals {
            interrupt: catch(SignalKind::interrupt())?,
            terminate: catch(SignalKind::terminate())?,
            hangup: catch(SignalKind::hangup())?,
        })
    }

    /// The next signal to arrive.
    async fn next(&mut self) -> i32 {
        tokio::select! {
            _ = self.interrupt.recv() => libc::SIGINT,
            _ = self.terminate.recv() => libc::SIGTERM,
            _ = self.hangup.recv() => libc::SIGHUP,
        }
    }
}
