//! The Streamable HTTP transport: rmcp's `StreamableHttpService` (a tower
//! service) served by hyper at `/mcp`, every other path a 404.
//!
//! On a loopback address rmcp checks the `Host` header against the
//! loopback names, and an `Origin` header (sent by browsers) must be a
//! loopback origin too: the spec's guard against DNS rebinding and against
//! web pages calling a local server (a forbidden one is a 403). On another
//! address (`--allow-remote`) any host and origin are accepted.
//!
//! What one client can hold is bounded ([`Limits`]): the time to send a
//! request's head and its body, the body's size, the connections open
//! (in all and from one address; more are answered 503 and closed) and
//! the sessions (at the bound the one idle longest is closed; when none
//! is idle, 503 with `Retry-After`).

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Empty, Full, LengthLimitError, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1::Builder;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use super::sessions::Bounded;
use super::{Ended, Handler, Limits, ServeError, Signals, log};
use crate::providers::mcp;

/// The path the server answers on.
pub(crate) const PATH: &str = "/mcp";

/// The seconds a client refused a session is told to wait (`Retry-After`).
const SESSIONS_RETRY_AFTER: u64 = 5;

/// The descriptors kept for the server's own use (its listener, the
/// tools' pipes and files) beyond one per connection.
const SPARE_DESCRIPTORS: u64 = 64;

/// How long the server waits before accepting again after a failure.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// The browser origins a loopback server accepts (any port).
const LOOPBACK_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "https://localhost:*",
    "http://127.0.0.1:*",
    "https://127.0.0.1:*",
    "http://[::1]:*",
    "https://[::1]:*",
];

type Body = BoxBody<Bytes, Infallible>;

/// Accepts connections on `listener` until a signal arrives.
pub(super) async fn serve(
    handler: Handler,
    listener: tokio::net::TcpListener,
    limits: &Limits,
    mut signals: Signals,
) -> Result<Ended, ServeError> {
    let descriptors = raise_descriptor_limit();
    let wanted = limits.max_connections as u64 + SPARE_DESCRIPTORS;
    if descriptors < wanted {
        log::warn(format_args!(
            "only {descriptors} file descriptors may be open (ulimit -n): fewer than the \
             {wanted} that --max-connections {} needs; connections past them wait",
            limits.max_connections
        ));
    }
    let stop = handler.stopping();
    let mut config =
        StreamableHttpServerConfig::default().with_cancellation_token(stop.child_token());
    let loopback = listener.local_addr().is_ok_and(|a| a.ip().is_loopback());
    if loopback {
        config = config.with_allowed_origins(LOOPBACK_ORIGINS);
    } else {
        config = config.disable_allowed_hosts();
    }
    // A client must send a request's head within the header timeout of
    // connecting (or of its previous response): idle or trickling
    // connections (slowloris) are closed instead of holding a descriptor
    // each until the server runs out. Only HTTP/1 is served (what MCP
    // clients speak), so no bytes are awaited to guess the version before
    // the timeout applies, and no HTTP/2 code is linked in.
    let mut connections = Builder::new();
    connections
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    let factory = handler.clone();
    let sessions = Arc::new(Bounded::new(
        limits.max_sessions,
        limits.session_idle,
        stop.child_token(),
    ));
    let mcp = TowerToHyperService::new(StreamableHttpService::new(
        move || Ok(factory.clone()),
        Arc::clone(&sessions),
        config,
    ));
    let open = Arc::new(Open::default());
    loop {
        let accepted = tokio::select! {
            signal = signals.next() => return Ok(Ended::Signal(signal)),
            _ = stop.cancelled() => return Ok(Ended::Closed),
            accepted = listener.accept() => accepted,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(error) => {
                log::warn(format_args!("cannot accept a connection: {error}"));
                // Out of file descriptors (EMFILE) stays so until some
                // connection closes, and the listener stays readable:
                // retrying at once spins a core and floods the log.
                tokio::select! {
                    signal = signals.next() => return Ok(Ended::Signal(signal)),
                    _ = stop.cancelled() => return Ok(Ended::Closed),
                    _ = tokio::time::sleep(ACCEPT_BACKOFF) => continue,
                }
            }
        };
        let Some(slot) = open.enter(peer.ip(), limits) else {
            log::warn(format_args!(
                "refused a connection from {peer}: too many open (--max-connections {}, \
                 --max-connections-per-peer {})",
                limits.max_connections, limits.max_connections_per_peer
            ));
            // Told why if its socket takes it at once; closed either way.
            let _ = stream.try_write(
                b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\n\
                  Content-Length: 0\r\nConnection: close\r\n\r\n",
            );
            continue;
        };
        log::debug(format_args!("connection from {peer}"));
        let (mcp, sessions) = (mcp.clone(), Arc::clone(&sessions));
        let (max_request, body_timeout) = (limits.max_request, limits.body_timeout);
        let service = hyper::service::service_fn(move |request: Request<Incoming>| {
            let (mcp, sessions) = (mcp.clone(), Arc::clone(&sessions));
            async move {
                if request.uri().path() != PATH {
                    return Ok::<Response<Body>, Infallible>(not_found());
                }
                let request = match read_body(request, max_request, body_timeout).await {
                    Ok(request) => request,
                    Err(refused) => return Ok(refused),
                };
                let closing = request.method() == hyper::Method::DELETE;
                // A POST outside a session may create one (an initialize):
                // it needs a place first.
                let creating = request.method() == hyper::Method::POST
                    && !request.headers().contains_key(mcp::SESSION_ID_HEADER);
                let _admitted = if creating {
                    match sessions.admit().await {
                        Some(admitted) => Some(admitted),
                        None => return Ok(sessions_full()),
                    }
                } else {
                    None
                };
                let response = hyper::service::Service::call(&mcp, request).await?;
                Ok(if closing {
                    session_closed(response)
                } else {
                    response
                })
            }
        });
        let connections = connections.clone();
        tokio::spawn(async move {
            let _slot = slot;
            let served = connections
                .serve_connection(TokioIo::new(stream), service)
                .await;
            if let Err(error) = served {
                log::debug(format_args!("connection from {peer} ended: {error}"));
            }
        });
    }
}

/// `request` with its body read whole: at most `max` bytes, within
/// `timeout`. A client stalling in its body (each holding a connection
/// and a descriptor) is answered 408 and its connection closed.
async fn read_body(
    request: Request<Incoming>,
    max: usize,
    timeout: Duration,
) -> Result<Request<Full<Bytes>>, Response<Body>> {
    let (parts, body) = request.into_parts();
    let read = tokio::time::timeout(timeout, Limited::new(body, max).collect()).await;
    match read {
        Ok(Ok(body)) => Ok(Request::from_parts(parts, Full::new(body.to_bytes()))),
        Ok(Err(error)) if error.is::<LengthLimitError>() => Err(refusal(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!("the request is larger than --max-request-size ({max} bytes)"),
        )),
        Ok(Err(error)) => Err(refusal(
            StatusCode::BAD_REQUEST,
            &format!("cannot read the request: {error}"),
        )),
        Err(_) => {
            log::debug(format_args!(
                "a request's body took longer than {timeout:?}: closing its connection"
            ));
            Err(refusal(
                StatusCode::REQUEST_TIMEOUT,
                &format!(
                    "the request's body took longer than --body-timeout ({}s)",
                    timeout.as_secs_f64()
                ),
            ))
        }
    }
}

/// An answer of `status` saying `why`, closing the connection.
fn refusal(status: StatusCode, why: &str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(format!("{why}\n"))).boxed());
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    headers.insert(
        hyper::header::CONNECTION,
        hyper::header::HeaderValue::from_static("close"),
    );
    response
}

/// The answer when no session can be opened: every one is busy.
fn sessions_full() -> Response<Body> {
    let mut response = refusal(
        StatusCode::SERVICE_UNAVAILABLE,
        "every session the server holds (--max-sessions) is busy: try again later",
    );
    response.headers_mut().insert(
        hyper::header::RETRY_AFTER,
        hyper::header::HeaderValue::from(SESSIONS_RETRY_AFTER),
    );
    response
}

/// The connections open, in all and by peer address.
#[derive(Default)]
struct Open(Mutex<HashMap<IpAddr, usize>>);

/// One open connection, counted until dropped.
struct Slot {
    open: Arc<Open>,
    peer: IpAddr,
}

impl Open {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<IpAddr, usize>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A slot for a connection from `peer`, if within the limits.
    fn enter(self: &Arc<Self>, peer: IpAddr, limits: &Limits) -> Option<Slot> {
        let mut open = self.lock();
        let total: usize = open.values().sum();
        let from_peer = open.get(&peer).copied().unwrap_or(0);
        if total >= limits.max_connections || from_peer >= limits.max_connections_per_peer {
            return None;
        }
        open.insert(peer, from_peer + 1);
        Some(Slot {
            open: Arc::clone(self),
            peer,
        })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.open.lock();
        if let Some(count) = open.get_mut(&self.peer) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                open.remove(&self.peer);
            }
        }
    }
}

/// Raises the soft limit on open file descriptors to the hard one (a
/// server holds one per connection; the usual soft 1,024 is soon used
/// up) and returns the limit in force.
#[cfg(unix)]
fn raise_descriptor_limit() -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit read and write only `limit`.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return 1024;
    }
    if limit.rlim_cur < limit.rlim_max {
        let raised = libc::rlimit {
            rlim_cur: limit.rlim_max,
            rlim_max: limit.rlim_max,
        };
        // SAFETY: as above.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            log::debug(format_args!(
                "raised the open file limit from {} to {}",
                limit.rlim_cur, limit.rlim_max
            ));
            return limit.rlim_max;
        }
    }
    limit.rlim_cur
}

/// Windows has no per-process limit on sockets to raise.
#[cfg(not(unix))]
fn raise_descriptor_limit() -> u64 {
    u64::MAX
}

/// The answer to a `DELETE` that closed a session. rmcp answers 202
/// Accepted; the transport specification's answers are 200 or 204 (405
/// where closing is not allowed), and the official Python client logs
/// "Session termination failed: 202" on every exit. Any other answer (a
/// 404 for an unknown session, a 403 for a foreign origin) is kept.
fn session_closed(response: Response<Body>) -> Response<Body> {
    if response.status() != StatusCode::ACCEPTED {
        return response;
    }
    let mut closed = Response::new(Empty::<Bytes>::new().boxed());
    *closed.status_mut() = StatusCode::NO_CONTENT;
    closed
}

fn not_found() -> Response<Body> {
    let mut response = Response::new(Empty::<Bytes>::new().boxed());
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}
