//! The Streamable HTTP transport: rmcp's `StreamableHttpService` (a tower
//! service) served by hyper at `/mcp`, every other path a 404.
//!
//! On a loopback address rmcp checks the `Host` header against the
//! loopback names, and an `Origin` header (sent by browsers) must be a
//! loopback origin too: the spec's guard against DNS rebinding and against
//! web pages calling a local server (a forbidden one is a 403). On another
//! address (`--allow-remote`) any host and origin are accepted.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Empty};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::service::TowerToHyperService;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use super::sessions::{Bounded, MAX_SESSIONS};
use super::{Ended, Handler, ServeError, Signals, log};

/// The path the server answers on.
pub(crate) const PATH: &str = "/mcp";

/// How long a connection has to send a request's head.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

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
    mut signals: Signals,
) -> Result<Ended, ServeError> {
    let stop = handler.stopping();
    let mut config =
        StreamableHttpServerConfig::default().with_cancellation_token(stop.child_token());
    let loopback = listener.local_addr().is_ok_and(|a| a.ip().is_loopback());
    if loopback {
        config = config.with_allowed_origins(LOOPBACK_ORIGINS);
    } else {
        config = config.disable_allowed_hosts();
    }
    // A client must send a request's head within HEADER_TIMEOUT of
    // connecting (or of its previous response): idle or trickling
    // connections (slowloris) are closed instead of holding a descriptor
    // each until the server runs out. Only HTTP/1 is served, so no bytes
    // are awaited to guess the version before the timeout applies.
    let mut connections = Builder::new(TokioExecutor::new()).http1_only();
    connections
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT);
    let factory = handler.clone();
    let mcp = TowerToHyperService::new(StreamableHttpService::new(
        move || Ok(factory.clone()),
        Arc::new(Bounded::new(MAX_SESSIONS, stop.child_token())),
        config,
    ));
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
        log::debug(format_args!("connection from {peer}"));
        let mcp = mcp.clone();
        let service = hyper::service::service_fn(move |request: Request<Incoming>| {
            let mcp = mcp.clone();
            async move {
                if request.uri().path() != PATH {
                    return Ok::<Response<Body>, Infallible>(not_found());
                }
                let closing = request.method() == hyper::Method::DELETE;
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
            let served = connections
                .serve_connection(TokioIo::new(stream), service)
                .await;
            if let Err(error) = served {
                log::debug(format_args!("connection from {peer} ended: {error}"));
            }
        });
    }
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
