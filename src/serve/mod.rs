//! `toolc serve`: the tools of some manifests served to MCP clients.
//!
//! This module owns the MCP server: what it lists (`tools/list` entries
//! from [`crate::emit::mcp::entry`], paginated), how it calls
//! (`tools/call` through the [`Runner`], bounded, cancellable), and the
//! two transports (stdio, Streamable HTTP); the protocol revisions it
//! speaks are [`crate::providers::mcp::SERVED_VERSIONS`]. rmcp (the
//! official Rust SDK) speaks the protocol; toolc's runner keeps
//! validation, policy, sandbox and limits on every call.
//!
//! The tools served live in one replaceable [`Served`] value behind the
//! [`Handler`]: swapping it ([`Handler::replace`]) changes what the next
//! list and call see, while calls already running keep the runner they
//! started with. `--watch` does the swapping ([`watch`]); a tier-3 tool's
//! call asks the client for approval first ([`approval`]).

mod approval;
mod call;
pub(crate) mod fleet;
mod handler;
mod http;
mod list;
pub(crate) mod log;
pub(crate) mod nats;
pub(crate) mod pinned;
mod sessions;
mod shared;
mod stdio;
pub(crate) mod watch;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::ProtocolVersion;

use crate::ir::ToolSet;
use crate::run::{LoadError, Runner, RunnerOptions};
pub(crate) use handler::Handler;
pub(crate) use http::PATH as HTTP_PATH;

/// The tools one server serves: what calls them and their MCP entries, in
/// manifest order (or the fleet's name order).
pub(crate) struct Served {
    pub(crate) source: Source,
    pub(crate) tools: Vec<rmcp::model::Tool>,
    /// The compiled `outputSchema` of each tool that declares one, by
    /// name: a structured result must match it.
    output_schemas: HashMap<String, jsonschema::Validator>,
}

impl Served {
    /// Reads the manifests at `paths` (as `toolc lint` reads them; the one
    /// path `builtin` is the built-in tools) and builds their runner and
    /// entries. Manifests with error-level findings are refused:
    /// [`LoadError::Findings`].
    /// The files it reads are counted in `read_log` when given (what
    /// `--watch` watches).
    /// With `pinned` (`--locked`), a tool of the manifests that differs
    /// from its pin is withheld ([`pinned::withhold_drifted`]), and what was withheld is
    /// told, one line each, to `withheld`.
    pub(crate) fn load(
        paths: &[PathBuf],
        options: RunnerOptions,
        read_log: Option<Arc<crate::project::ReadLog>>,
        pinned: Option<(&pinned::Pinned, &mut Vec<String>)>,
    ) -> Result<Served, LoadError> {
        // The built-in tools are toolc's own: nothing pins them (the CLI
        // refuses --locked with them).
        let (runner, toolsets) = if is_builtin(paths) {
            (
                Runner::builtin(options)?,
                vec![crate::run::builtin::toolset()],
            )
        } else {
            let mut toolsets = Runner::read_logged(paths, read_log)?;
            if let Some((pinned, withheld)) = pinned {
                *withheld = pinned::withhold_drifted(&mut toolsets, pinned);
            }
            (Runner::from_toolsets(toolsets.clone(), options)?, toolsets)
        };
        Ok(Served::new(runner, &toolsets))
    }

    /// The runner of `toolsets` and their entries.
    pub(crate) fn new(runner: Runner, toolsets: &[ToolSet]) -> Served {
        Served::of(Source::Local(Arc::new(runner)), list::tools(toolsets))
    }

    /// The tools of a NATS fleet, `tools` as discovery found them, called
    /// through `fleet`.
    pub(crate) fn fleet(fleet: Arc<fleet::Fleet>, tools: &[crate::nats::discover::Tool]) -> Served {
        let (tools, routes) = fleet.entries(tools);
        Served::of(Source::Fleet { fleet, routes }, tools)
    }

    /// The runner, when the tools are local.
    pub(crate) fn runner(&self) -> Option<&Arc<Runner>> {
        match &self.source {
            Source::Local(runner) => Some(runner),
            Source::Fleet { .. } => None,
        }
    }

    fn of(source: Source, tools: Vec<rmcp::model::Tool>) -> Served {
        let mut output_schemas = HashMap::new();
        for tool in &tools {
            let Some(schema) = &tool.output_schema else {
                continue;
            };
            match jsonschema::validator_for(&serde_json::Value::Object((**schema).clone())) {
                Ok(validator) => {
                    output_schemas.insert(tool.name.to_string(), validator);
                }
                Err(error) => log::warn(format_args!(
                    "tool \"{}\": its outputSchema is not a valid schema ({error}); its results are not checked against it",
                    tool.name
                )),
            }
        }
        Served {
            source,
            tools,
            output_schemas,
        }
    }

    /// Why `output` does not match the `outputSchema` of tool `name`
    /// (`None` when it does, or when the tool has no usable schema).
    pub(crate) fn output_mismatch(&self, name: &str, output: &serde_json::Value) -> Option<String> {
        let validator = self.output_schemas.get(name)?;
        let problems: Vec<String> = validator
            .iter_errors(output)
            .map(|e| {
                let at = e.instance_path().to_string();
                format!("{}: {e}", if at.is_empty() { "(root)" } else { &at })
            })
            .collect();
        (!problems.is_empty()).then(|| problems.join("; "))
    }

    /// The entry of tool `name`.
    pub(crate) fn tool(&self, name: &str) -> Option<&rmcp::model::Tool> {
        self.tools.iter().find(|t| t.name == name)
    }
}

/// What calls the served tools.
pub(crate) enum Source {
    /// The manifests' tools, run here.
    Local(Arc<Runner>),
    /// A NATS fleet's tools (`--nats-url`), each call forwarded to a
    /// worker on the tool's subject.
    Fleet {
        fleet: Arc<fleet::Fleet>,
        routes: HashMap<String, fleet::Route>,
    },
}

/// Whether `paths` is the one word `builtin`: the built-in tools, as in
/// `toolc run builtin`.
pub(crate) fn is_builtin(paths: &[PathBuf]) -> bool {
    matches!(paths, [only] if only.as_os_str() == "builtin")
}

/// How the server behaves, whatever it serves.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    /// The most tools one `tools/list` page holds.
    pub(crate) page_size: usize,
    /// The most calls running at once; more wait their turn.
    pub(crate) max_concurrency: usize,
    /// The revisions offered (a subset of
    /// [`crate::providers::mcp::SERVED_VERSIONS`], oldest first).
    pub(crate) versions: Vec<ProtocolVersion>,
    /// `--watch`: the tool list may change, and clients are told when it
    /// does (`tools.listChanged` is advertised only then).
    pub(crate) watch: bool,
}

/// What one client may hold of the server: requests, sessions and
/// connections (the `toolc serve` flags of the same names give them).
#[derive(Debug, Clone)]
pub(crate) struct Limits {
    /// The largest request: a stdio line, an HTTP body.
    pub(crate) max_request: usize,
    /// The most HTTP sessions open at once.
    pub(crate) max_sessions: usize,
    /// How long an HTTP session with no open stream and no message from its
    /// client lives on.
    pub(crate) session_idle: Duration,
    /// How long an HTTP client has to send a request's head.
    pub(crate) header_timeout: Duration,
    /// How long an HTTP client has to send a request's body.
    pub(crate) body_timeout: Duration,
    /// The most HTTP connections open at once, and from one address.
    pub(crate) max_connections: usize,
    pub(crate) max_connections_per_peer: usize,
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
    #[error(transparent)]
    Nats(#[from] nats::NatsError),
    #[error("the MCP session could not start")]
    Session(#[source] Box<rmcp::service::ServerInitializeError>),
}

/// How long running calls get to stop once the server ends.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// How long the answers of calls stopped by a signal get to be written
/// before the stdio session ends.
const ANSWERS_FLUSHED: Duration = Duration::from_millis(50);

/// Serves `handler`'s tools on `transport` until the client goes away or
/// a signal arrives. Calls still running then are cancelled (their
/// processes killed) before this returns. `listening` is told the HTTP
/// address once the socket is bound (port 0 becomes the real port).
pub(crate) fn serve(
    handler: Handler,
    transport: Transport,
    limits: &Limits,
    listening: &mut dyn FnMut(SocketAddr),
    watching: Option<(watch::Watch, Arc<watch::Load>)>,
    nats: Option<nats::Settings>,
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
        // NATS first: a worker that cannot connect fails before any
        // client is taken.
        let worker = match nats {
            Some(settings) => Some(nats::start(settings, handler.clone()).await?),
            None => None,
        };
        let Some(worker) = worker else {
            let signals = Signals::install(None)?;
            return serve_transport(&handler, transport, limits, listening, signals).await;
        };
        // The transport ends at a signal, or when the NATS server goes
        // into lame-duck mode (the worker drains, and so does the rest).
        let signals = Signals::install(Some(worker.lame_duck()))?;
        let mut worker_signals = Signals::install(Some(worker.lame_duck()))?;
        let stop = tokio_util::sync::CancellationToken::new();
        let draining = tokio::spawn(worker.run(stop.clone()));
        let ended = serve_transport(&handler, transport, limits, listening, signals).await;
        // Stdin ended (no MCP client, or it left): NATS serves on until a
        // signal or lame-duck mode.
        let ended = match ended {
            Ok(Ended::Closed) => Ok(Ended::Signal(worker_signals.next().await)),
            other => other,
        };
        stop.cancel();
        let _ = draining.await;
        ended
    });
    // Whatever ended the server, the calls still running stop now: their
    // tokens are cancelled, and their threads reap the processes. Nothing
    // else is waited for: a thread blocked reading a terminal on stdin
    // would hold the exit for nothing.
    handler.shutdown();
    runtime.block_on(handler.calls_finished(STOP_GRACE));
    runtime.shutdown_background();
    result
}

/// Serves MCP on `transport` until the client goes away or a signal.
async fn serve_transport(
    handler: &Handler,
    transport: Transport,
    limits: &Limits,
    listening: &mut dyn FnMut(SocketAddr),
    signals: Signals,
) -> Result<Ended, ServeError> {
    match transport {
        Transport::Stdio => serve_stdio(handler.clone(), limits.max_request, signals).await,
        Transport::Http(addr) => {
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .map_err(|source| ServeError::Listen { addr, source })?;
            let bound = listener
                .local_addr()
                .map_err(|source| ServeError::Listen { addr, source })?;
            listening(bound);
            http::serve(handler.clone(), listener, limits, signals).await
        }
    }
}

async fn serve_stdio(
    handler: Handler,
    max_request: usize,
    mut signals: Signals,
) -> Result<Ended, ServeError> {
    use rmcp::ServiceExt;
    use rmcp::service::ServerInitializeError;
    let stdio::Screened {
        pipes,
        written,
        stall,
    } = stdio::screened(rmcp::transport::stdio_pipes(), max_request);
    // A signal ends the server even before a session starts, and so does
    // a client gone quiet (its input ended, its output no longer read).
    let started = tokio::select! {
        started = handler.clone().serve(pipes) => started,
        signal = signals.next() => return Ok(Ended::Signal(signal)),
        () = stall.stalled(OUTPUT_STALLED) => {
            warn_stalled();
            return Ok(Ended::Closed);
        }
    };
    let service = match started {
        Ok(service) => service,
        // The client went away before it said anything usable: stdin
        // ended, as it does after a session.
        Err(ServerInitializeError::ConnectionClosed(during)) => {
            log::info(format_args!(
                "stdin ended before a session started ({during})"
            ));
            return Ok(answers_written(written, &stall, &mut signals)
                .await
                .unwrap_or(Ended::Closed));
        }
        // rmcp has answered the failed `initialize` (an unsupported
        // protocol revision, say): that answer goes out before the error.
        Err(error) => {
            if let Some(ended) = answers_written(written, &stall, &mut signals).await {
                return Ok(ended);
            }
            return Err(ServeError::Session(Box::new(error)));
        }
    };
    let stop = service.cancellation_token();
    // Polled by reference: a `select!` drops the futures of the branches
    // not taken, and dropping the session cancels every call in it, which
    // the calls would take for the client's doing before the handler
    // says the server stops.
    let waiting = service.waiting();
    tokio::pin!(waiting);
    tokio::select! {
        quit = &mut waiting => {
            log::debug(format_args!("the stdio session ended: {quit:?}"));
            Ok(answers_written(written, &stall, &mut signals).await.unwrap_or(Ended::Closed))
        }
        // rmcp waits for its writer to end the session once stdin has
        // ended; a client that stopped reading stdout would hold that
        // writer, and the server, for ever.
        () = stall.stalled(OUTPUT_STALLED) => {
            warn_stalled();
            Ok(Ended::Closed)
        }
        signal = signals.next() => {
            // The calls learn first that the server stops (not the
            // client), answer so, and are written to the audit log; the
            // session ends after them, the answers on their way.
            handler.shutdown();
            handler.calls_finished(STOP_GRACE).await;
            tokio::time::sleep(ANSWERS_FLUSHED).await;
            stop.cancel();
            Ok(Ended::Signal(signal))
        }
    }
}

/// How long a client whose stdin has ended may take no output before the
/// server exits without the rest: longer than rmcp's own drain of the
/// calls still running at the end of input (5 s in rmcp 3.11's
/// `serve_inner`), during which nothing may be written.
const OUTPUT_STALLED: Duration = Duration::from_secs(10);

fn warn_stalled() {
    log::warn(format_args!(
        "stdin ended and stdout took nothing for {} s; exiting without the answers left",
        OUTPUT_STALLED.as_secs()
    ));
}

/// Waits until the answers of a stdio session that ended are written out:
/// a client that closes stdin after its last request still reads every
/// answer, however slowly, and one that stopped reading its stdout holds
/// the exit no more than [`OUTPUT_STALLED`]. A signal meanwhile ends the
/// wait, and is what ended the server (`Some`).
async fn answers_written(
    written: tokio::task::JoinHandle<()>,
    stall: &stdio::Stall,
    signals: &mut Signals,
) -> Option<Ended> {
    tokio::select! {
        _ = written => None,
        () = stall.stalled(OUTPUT_STALLED) => {
            warn_stalled();
            None
        }
        signal = signals.next() => Some(Ended::Signal(signal)),
    }
}

/// SIGINT, SIGTERM and SIGHUP, caught for the server's whole life, and
/// optionally a token that stops the server as SIGTERM does (the NATS
/// server entering lame-duck mode).
#[cfg(unix)]
struct Signals {
    interrupt: tokio::signal::unix::Signal,
    terminate: tokio::signal::unix::Signal,
    hangup: tokio::signal::unix::Signal,
    also: Option<tokio_util::sync::CancellationToken>,
}

#[cfg(unix)]
impl Signals {
    fn install(also: Option<tokio_util::sync::CancellationToken>) -> Result<Signals, ServeError> {
        use tokio::signal::unix::{SignalKind, signal};
        let catch = |kind| signal(kind).map_err(ServeError::Signals);
        Ok(Signals {
            interrupt: catch(SignalKind::interrupt())?,
            terminate: catch(SignalKind::terminate())?,
            hangup: catch(SignalKind::hangup())?,
            also,
        })
    }

    /// The next signal to arrive.
    async fn next(&mut self) -> i32 {
        let also = self.also.clone().unwrap_or_default();
        let never = self.also.is_none();
        tokio::select! {
            _ = also.cancelled(), if !never => libc::SIGTERM,
            _ = self.interrupt.recv() => libc::SIGINT,
            _ = self.terminate.recv() => libc::SIGTERM,
            _ = self.hangup.recv() => libc::SIGHUP,
        }
    }
}

/// Windows: Ctrl+C (and Ctrl+Break) stop the server as SIGINT does, and
/// the token as SIGTERM does.
#[cfg(windows)]
struct Signals {
    interrupt: tokio::signal::windows::CtrlC,
    interrupt_break: tokio::signal::windows::CtrlBreak,
    also: Option<tokio_util::sync::CancellationToken>,
}

#[cfg(windows)]
impl Signals {
    fn install(also: Option<tokio_util::sync::CancellationToken>) -> Result<Signals, ServeError> {
        use tokio::signal::windows::{ctrl_break, ctrl_c};
        Ok(Signals {
            interrupt: ctrl_c().map_err(ServeError::Signals)?,
            interrupt_break: ctrl_break().map_err(ServeError::Signals)?,
            also,
        })
    }

    /// The next signal to arrive.
    async fn next(&mut self) -> i32 {
        let also = self.also.clone().unwrap_or_default();
        let never = self.also.is_none();
        tokio::select! {
            _ = also.cancelled(), if !never => libc::SIGTERM,
            _ = self.interrupt.recv() => libc::SIGINT,
            _ = self.interrupt_break.recv() => libc::SIGINT,
        }
    }
}
