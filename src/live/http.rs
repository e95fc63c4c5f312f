//! The HTTP client under rmcp's Streamable HTTP transport, for `--mcp-url`
//! and the `http` servers of an MCP configuration: ureq (already toolc's
//! client for the fetch tool) in place of reqwest, whose stack (hyper's
//! client, tower, hyper-rustls) was over a megabyte of the binary.
//!
//! ureq blocks, so each request runs on a thread of its own and its
//! answer comes back through a channel; an event stream is read on a
//! thread that hands its bytes to the transport as they come. These
//! threads are not the runtime's: one still blocked on a silent server
//! when the listing times out does not keep the process from ending.
//!
//! What the transport relies on is kept as rmcp's own client does it: the
//! statuses it tells apart (an authentication challenge, an expired
//! session, a rate limit, a server error, a legacy server rejecting
//! `server/discover`), the size limits it passes, and only same-origin
//! 307 and 308 redirects followed. The URL's user information is sent as
//! basic authentication; the proxy is the one the environment names for
//! the URL's scheme (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, unless
//! `NO_PROXY` exempts the host), reached through a tunnel (`CONNECT`) for
//! `http://` URLs too, the one way ureq knows; certificates are checked
//! against the platform's trust store.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::Read;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use futures_util::stream::BoxStream;
use hyper::header::{HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, ErrorData, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, HttpStatusError, InsufficientScopeError, SseError, StreamableHttpClient,
    StreamableHttpError, StreamableHttpPostResponse, StreamableHttpResponseLimits,
};
use sse_stream::{Sse, SseStream};

const SESSION_ID: &str = "mcp-session-id";
const LAST_EVENT_ID: &str = "last-event-id";
const JSON: &str = "application/json";
const EVENT_STREAM: &str = "text/event-stream";
/// What a request accepts: a JSON answer or an event stream.
const ACCEPT: &str = "text/event-stream, application/json";
/// Headers the transport sets itself; `MCP-Protocol-Version` is among them
/// but comes through the custom headers once negotiated.
const RESERVED: &[&str] = &["accept", SESSION_ID, LAST_EVENT_ID];
/// Same-origin 307 and 308 redirects followed in a row, as rmcp's client.
const MAX_REDIRECTS: usize = 10;
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// What a `Retry-After` may hold to be kept (rmcp keeps no more).
const MAX_RETRY_AFTER: usize = 128;
/// What is said of a body that could not be read.
const UNREADABLE: &str = "<failed to read response body>";

type Error = StreamableHttpError<HttpError>;

/// A request that failed below HTTP (connecting, TLS, reading), or a
/// status the transport has no variant for.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(super) struct HttpError(String);

/// Why no client could be made for a server.
pub(super) enum Setup {
    /// The address is not a URL.
    Url,
    /// The environment's proxy for it cannot be used (why).
    Proxy(String),
}

/// The client of one server.
#[derive(Clone)]
pub(super) struct Client {
    agent: ureq::Agent,
    /// `Basic …` from the URL's user information.
    basic: Option<Arc<str>>,
    failed: Failure,
}

/// The first failure of an event stream: rmcp sees a stream that failed
/// as one that ended, so the caller is told why here.
#[derive(Clone, Default)]
pub(super) struct Failure(Arc<std::sync::Mutex<Option<String>>>);

impl Failure {
    fn set(&self, message: &str) {
        let mut first = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        first.get_or_insert_with(|| message.to_string());
    }

    /// What made an event stream fail, if one did.
    pub(super) fn get(&self) -> Option<String> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

impl Client {
    /// The client for the server at `address`, and the address to give the
    /// transport: without its user information, which goes as basic
    /// authentication instead.
    pub(super) fn new(address: &str) -> Result<(Client, String), Setup> {
        let mut url = url::Url::parse(address).map_err(|_| Setup::Url)?;
        let basic = (!url.username().is_empty() || url.password().is_some()).then(|| {
            let decode = |s: &str| {
                percent_encoding::percent_decode_str(s)
                    .decode_utf8_lossy()
                    .into_owned()
            };
            let pair = format!(
                "{}:{}",
                decode(url.username()),
                decode(url.password().unwrap_or(""))
            );
            use base64::Engine as _;
            Arc::from(format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(pair)
            ))
        });
        let _ = url.set_username("");
        let _ = url.set_password(None);
        let tls = ureq::tls::TlsConfig::builder()
            .root_certs(ureq::tls::RootCerts::PlatformVerifier)
            .build();
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .proxy(proxy_for(&url).map_err(Setup::Proxy)?)
            .timeout_connect(Some(CONNECT_TIMEOUT))
            .user_agent(concat!("toolc/", env!("CARGO_PKG_VERSION")))
            .tls_config(tls)
            .build();
        let client = Client {
            agent: ureq::Agent::new_with_config(config),
            basic,
            failed: Failure::default(),
        };
        Ok((client, url.to_string()))
    }

    /// What made one of this client's event streams fail, if one did.
    pub(super) fn failure(&self) -> Failure {
        self.failed.clone()
    }

    /// The headers every request carries: `Authorization` (the transport's
    /// bearer token, else the URL's user information), the session, and
    /// the custom headers, which may not replace the transport's own.
    fn headers(
        &self,
        session: Option<&str>,
        bearer: Option<String>,
        custom: HashMap<HeaderName, HeaderValue>,
    ) -> Result<Vec<(String, HeaderValue)>, Error> {
        let mut headers = Vec::new();
        let custom_authorization = custom.contains_key("authorization");
        if let Some(token) = bearer {
            let value = HeaderValue::try_from(format!("Bearer {token}")).map_err(|_| {
                StreamableHttpError::Client(HttpError(
                    "the bearer token is not a valid header value".into(),
                ))
            })?;
            headers.push(("authorization".to_string(), value));
        } else if let Some(basic) = self.basic.as_deref().filter(|_| !custom_authorization)
            && let Ok(mut value) = HeaderValue::try_from(basic)
        {
            value.set_sensitive(true);
            headers.push(("authorization".to_string(), value));
        }
        if let Some(session) = session
            && let Ok(value) = HeaderValue::try_from(session)
        {
            headers.push((SESSION_ID.to_string(), value));
        }
        for (name, value) in custom {
            let name = name.as_str();
            if RESERVED.contains(&name) {
                return Err(StreamableHttpError::ReservedHeaderConflict(
                    name.to_string(),
                ));
            }
            headers.push((name.to_string(), value));
        }
        Ok(headers)
    }
}

/// The proxy the environment names for `url`'s scheme, unless `NO_PROXY`
/// exempts its host; lower-case names first, as curl reads them. A value
/// that is not an `http://` or `https://` proxy is an error, not a reason
/// to connect directly.
fn proxy_for(url: &url::Url) -> Result<Option<ureq::Proxy>, String> {
    let Some(host) = url.host_str() else {
        return Ok(None);
    };
    let no_proxy = env_any(&["no_proxy", "NO_PROXY"]).map_or(String::new(), |(_, v)| v);
    if exempt(host, &no_proxy) {
        return Ok(None);
    }
    let names: &[&str] = if url.scheme() == "https" {
        &["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]
    } else {
        &["http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"]
    };
    let Some((name, value)) = env_any(names) else {
        return Ok(None);
    };
    let scheme = value.split_once("://").map(|(s, _)| s.to_ascii_lowercase());
    if !matches!(scheme.as_deref(), None | Some("http" | "https")) {
        return Err(format!(
            "{name} names a proxy toolc cannot use ({}://…): only http:// and https:// proxies are supported",
            scheme.unwrap_or_default()
        ));
    }
    ureq::Proxy::new(&value)
        .map(Some)
        .map_err(|e| format!("{name} is not a proxy address toolc can use ({e})"))
}

/// The first of the variables `names` that is set and not blank, and its
/// name.
fn env_any<'n>(names: &[&'n str]) -> Option<(&'n str, String)> {
    names.iter().find_map(|&name| {
        let value = std::env::var(name).ok()?;
        let value = value.trim();
        (!value.is_empty()).then(|| (name, value.to_string()))
    })
}

/// Whether `host` is in the `NO_PROXY` list `list`: `*`, a domain (which
/// covers its subdomains, with or without a leading `.` or `*.`), an
/// address, or an address range (`10.0.0.0/8`).
fn exempt(host: &str, list: &str) -> bool {
    let host = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase();
    let address: Option<IpAddr> = host.parse().ok();
    list.split(',').map(str::trim).any(|entry| {
        if entry == "*" {
            return true;
        }
        if let Some(address) = address {
            let bare = |s: &'_ str| s.trim_start_matches('[').trim_end_matches(']').to_string();
            return match entry.split_once('/') {
                Some((network, bits)) => in_range(address, &bare(network), bits),
                None => bare(entry).parse::<IpAddr>().is_ok_and(|e| e == address),
            };
        }
        let domain = entry
            .trim_start_matches("*.")
            .trim_start_matches('.')
            .to_ascii_lowercase();
        !domain.is_empty()
            && (host == domain
                || host
                    .strip_suffix(&domain)
                    .is_some_and(|head| head.ends_with('.')))
    })
}

/// Whether `address` is in the range `network`/`bits`.
fn in_range(address: IpAddr, network: &str, bits: &str) -> bool {
    let Ok(bits) = bits.parse::<u32>() else {
        return false;
    };
    match (address, network.parse::<IpAddr>()) {
        (IpAddr::V4(a), Ok(IpAddr::V4(n))) if bits <= 32 => {
            let mask = u32::MAX.checked_shl(32 - bits).unwrap_or(0);
            u32::from(a) & mask == u32::from(n) & mask
        }
        (IpAddr::V6(a), Ok(IpAddr::V6(n))) if bits <= 128 => {
            let mask = u128::MAX.checked_shl(128 - bits).unwrap_or(0);
            u128::from(a) & mask == u128::from(n) & mask
        }
        _ => false,
    }
}

/// Runs `work` on a thread of its own and waits for it without blocking
/// the runtime.
async fn off_thread<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, Error> + Send + 'static,
) -> Result<T, Error> {
    let (send, receive) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("toolc-mcp-http".into())
        .spawn(move || {
            let _ = send.send(work());
        })
        .map_err(|e| client_error(format!("cannot start a thread for the request: {e}")))?;
    receive
        .await
        .unwrap_or_else(|_| Err(client_error("the request ended without an answer".into())))
}

fn client_error(message: String) -> Error {
    StreamableHttpError::Client(HttpError(message))
}

/// Sends a request to `uri`, following same-origin 307 and 308 redirects
/// (with the same method and body).
fn send(
    agent: &ureq::Agent,
    method: &str,
    uri: &str,
    headers: &[(String, HeaderValue)],
    body: &[u8],
) -> Result<ureq::http::Response<ureq::Body>, Error> {
    let mut target = uri.to_string();
    for _ in 0..=MAX_REDIRECTS {
        let mut request = ureq::http::Request::builder().method(method).uri(&target);
        for (name, value) in headers {
            request = request.header(name.as_str(), value.clone());
        }
        let request = request
            .body(body.to_vec())
            .map_err(|e| client_error(format!("cannot build the request to {target}: {e}")))?;
        let response = agent
            .run(request)
            .map_err(|e| client_error(format!("error sending request for url ({target}): {e}")))?;
        if !matches!(response.status().as_u16(), 307 | 308) {
            return Ok(response);
        }
        let Some(location) = response
            .headers()
            .get("location")
            .and_then(|l| l.to_str().ok())
        else {
            return Ok(response);
        };
        let from = url::Url::parse(&target).map_err(|e| client_error(e.to_string()))?;
        let next = from.join(location).map_err(|e| {
            client_error(format!(
                "{target} redirected to {location:?}, which is not a URL: {e}"
            ))
        })?;
        if next.origin() != from.origin() {
            return Err(client_error(format!(
                "{target} redirected to another origin ({}), which is not followed",
                next.origin().ascii_serialization()
            )));
        }
        target = next.to_string();
    }
    Err(client_error(format!(
        "{uri} redirected more than {MAX_REDIRECTS} times"
    )))
}

fn header<'r>(response: &'r ureq::http::Response<ureq::Body>, name: &str) -> Option<&'r str> {
    response.headers().get(name).and_then(|v| v.to_str().ok())
}

/// Whether the media type of `content_type` is `expected`.
fn media_type_is(content_type: &str, expected: &str) -> bool {
    content_type
        .split(';')
        .next()
        .is_some_and(|media| media.trim().eq_ignore_ascii_case(expected))
}

/// The transport's error for a 401 or 403 that carries a challenge.
fn challenge(response: &ureq::http::Response<ureq::Body>) -> Option<Error> {
    let status = response.status().as_u16();
    if !matches!(status, 401 | 403) {
        return None;
    }
    let value = response.headers().get("www-authenticate")?;
    let Ok(text) = value.to_str() else {
        return Some(StreamableHttpError::UnexpectedServerResponse(Cow::from(
            "invalid www-authenticate header value",
        )));
    };
    Some(if status == 401 {
        StreamableHttpError::AuthRequired(AuthRequiredError::new(text.to_string()))
    } else {
        StreamableHttpError::InsufficientScope(InsufficientScopeError::new(
            text.to_string(),
            scope(text),
        ))
    })
}

/// The `scope=` of a `WWW-Authenticate` value, quoted or not.
fn scope(challenge: &str) -> Option<String> {
    let at = challenge.to_ascii_lowercase().find("scope=")? + "scope=".len();
    let rest = &challenge[at..];
    if let Some(quoted) = rest.strip_prefix('"') {
        return quoted.find('"').map(|end| quoted[..end].to_string());
    }
    let end = rest
        .find(|c: char| c == ',' || c == ';' || c.is_whitespace())
        .unwrap_or(rest.len());
    (end > 0).then(|| rest[..end].to_string())
}

/// A rate limit or a server error, with its bounded `Retry-After`.
fn status_error(response: &ureq::http::Response<ureq::Body>) -> Option<HttpStatusError> {
    let status = response.status();
    if status.as_u16() != 429 && !status.is_server_error() {
        return None;
    }
    let retry_after = header(response, "retry-after")
        .filter(|value| value.len() <= MAX_RETRY_AFTER)
        .map(str::to_string);
    Some(HttpStatusError::new(status.as_u16(), retry_after))
}

/// At most `limit` bytes of the body, or `None` when it holds more.
fn read_bounded(body: &mut ureq::Body, limit: usize) -> Result<Option<Vec<u8>>, Error> {
    let mut bytes = Vec::new();
    body.as_reader()
        .take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| client_error(format!("cannot read the response: {e}")))?;
    Ok((bytes.len() <= limit).then_some(bytes))
}

/// The first `limit` bytes of the body, as text.
fn read_prefix(body: &mut ureq::Body, limit: usize) -> String {
    let mut bytes = Vec::new();
    match body.as_reader().take(limit as u64).read_to_end(&mut bytes) {
        Ok(_) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(_) => truncate(UNREADABLE.to_string(), limit),
    }
}

/// A legacy server's 4xx to `server/discover` (sent without a session) as
/// the JSON-RPC error the transport classifies to fall back to
/// `initialize`: the server's own error when the body is one, else
/// `invalid_request`, under the request's id.
fn legacy_discover(
    message: &ClientJsonRpcMessage,
    session_attached: bool,
    status: u16,
    body: &str,
) -> Option<StreamableHttpPostResponse> {
    if session_attached || !(400..500).contains(&status) || matches!(status, 401 | 403) {
        return None;
    }
    let ClientJsonRpcMessage::Request(request) = message else {
        return None;
    };
    if !matches!(request.request, ClientRequest::DiscoverRequest(_)) {
        return None;
    }
    let error = match serde_json::from_str::<ServerJsonRpcMessage>(body) {
        Ok(ServerJsonRpcMessage::Error(error)) => error.error,
        _ => ErrorData::invalid_request(
            format!("server/discover rejected with HTTP {status}: {body}"),
            None,
        ),
    };
    Some(StreamableHttpPostResponse::Json(
        ServerJsonRpcMessage::error(error, Some(request.id.clone())),
        None,
    ))
}

/// What a POST gave, before an event stream is handed to its reader.
enum Posted {
    Done(Box<StreamableHttpPostResponse>),
    Stream(ureq::Body, Option<String>),
}

/// The POST of `message`, answered as rmcp's own client answers it.
fn post(
    agent: &ureq::Agent,
    uri: &str,
    message: &ClientJsonRpcMessage,
    headers: &[(String, HeaderValue)],
    session_attached: bool,
    limits: StreamableHttpResponseLimits,
) -> Result<Posted, Error> {
    let body = serde_json::to_vec(message)
        .map_err(|e| client_error(format!("cannot write the message: {e}")))?;
    let response = send(agent, "POST", uri, headers, &body)?;
    if let Some(error) = challenge(&response) {
        return Err(error);
    }
    let status = response.status();
    let code = status.as_u16();
    if matches!(code, 202 | 204) {
        return Ok(Posted::Done(Box::new(StreamableHttpPostResponse::Accepted)));
    }
    if code == 404 && session_attached {
        return Err(StreamableHttpError::SessionExpired);
    }
    let content_type = header(&response, "content-type").map(str::to_string);
    let is_json = content_type
        .as_deref()
        .is_some_and(|ct| media_type_is(ct, JSON));
    let rate_or_server = match status_error(&response) {
        Some(error) if !is_json || code == 429 => return Err(error.into()),
        other => other,
    };
    let length: Option<u64> = header(&response, "content-length").and_then(|l| l.parse().ok());
    let session = header(&response, SESSION_ID).map(str::to_string);
    // Nothing in the answer to a notification, a response or an error is
    // waited for.
    let awaits_nothing = matches!(
        message,
        ClientJsonRpcMessage::Notification(_)
            | ClientJsonRpcMessage::Response(_)
            | ClientJsonRpcMessage::Error(_)
    );
    if status.is_success() && length == Some(0) && awaits_nothing {
        return Ok(Posted::Done(Box::new(StreamableHttpPostResponse::Accepted)));
    }
    let mut body = response.into_body();
    if !status.is_success() {
        let text = if is_json && !matches!(code, 401 | 403) {
            match read_bounded(&mut body, limits.max_json_response_size) {
                Ok(Some(bytes)) => {
                    let text = String::from_utf8_lossy(&bytes).into_owned();
                    if let Ok(error @ ServerJsonRpcMessage::Error(_)) =
                        serde_json::from_str::<ServerJsonRpcMessage>(&text)
                    {
                        if let Some(answer) =
                            legacy_discover(message, session_attached, code, &text)
                        {
                            return Ok(Posted::Done(Box::new(answer)));
                        }
                        return Ok(Posted::Done(Box::new(StreamableHttpPostResponse::Json(
                            error, session,
                        ))));
                    }
                    truncate(text, limits.max_error_response_size)
                }
                Ok(None) => {
                    let too_large = StreamableHttpError::ResponseBodyTooLarge {
                        max_size: limits.max_json_response_size,
                    };
                    return Err(rate_or_server.map_or(too_large, Into::into));
                }
                Err(_) => truncate(UNREADABLE.to_string(), limits.max_error_response_size),
            }
        } else {
            read_prefix(&mut body, limits.max_error_response_size)
        };
        if let Some(answer) = legacy_discover(message, session_attached, code, &text) {
            return Ok(Posted::Done(Box::new(answer)));
        }
        if let Some(error) = rate_or_server {
            return Err(error.into());
        }
        return Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(
            format!("HTTP {status}: {text}"),
        )));
    }
    match content_type.as_deref() {
        Some(ct) if media_type_is(ct, EVENT_STREAM) => Ok(Posted::Stream(body, session)),
        Some(ct) if media_type_is(ct, JSON) => {
            let too_large = length.is_some_and(|l| l > limits.max_json_response_size as u64);
            let bytes = match too_large {
                true => None,
                false => read_bounded(&mut body, limits.max_json_response_size)?,
            };
            let Some(bytes) = bytes else {
                return Err(StreamableHttpError::ResponseBodyTooLarge {
                    max_size: limits.max_json_response_size,
                });
            };
            match serde_json::from_slice::<ServerJsonRpcMessage>(&bytes) {
                Ok(parsed) => Ok(Posted::Done(Box::new(StreamableHttpPostResponse::Json(
                    parsed, session,
                )))),
                Err(_) if awaits_nothing => {
                    Ok(Posted::Done(Box::new(StreamableHttpPostResponse::Accepted)))
                }
                Err(e) => Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(
                    format!(
                        "the server's answer is not a JSON-RPC message ({e}): {}",
                        truncate(String::from_utf8_lossy(&bytes).into_owned(), 512)
                    ),
                ))),
            }
        }
        _ if awaits_nothing => Ok(Posted::Done(Box::new(StreamableHttpPostResponse::Accepted))),
        _ => Err(StreamableHttpError::UnexpectedContentType(content_type)),
    }
}

/// `text` cut to at most `limit` bytes, on a character boundary.
fn truncate(mut text: String, limit: usize) -> String {
    text.truncate(text.floor_char_boundary(limit));
    text
}

/// The events of an event-stream body, read on a thread of its own; an
/// event larger than `max_event` bytes ends the stream with an error.
fn events(
    body: ureq::Body,
    max_event: usize,
    failed: Failure,
) -> BoxStream<'static, Result<Sse, SseError>> {
    let (send, receive) = tokio::sync::mpsc::channel::<Result<bytes::Bytes, HttpError>>(8);
    let reader = move || {
        let mut reader = body.into_reader();
        let mut buffer = vec![0; 16 * 1024];
        let mut size = EventSize::default();
        loop {
            let read = match reader.read(&mut buffer) {
                Ok(0) => return,
                Ok(read) => read,
                Err(e) => {
                    let message = format!("cannot read its event stream: {e}");
                    failed.set(&message);
                    let _ = send.blocking_send(Err(HttpError(message)));
                    return;
                }
            };
            let largest = size.feed(&buffer[..read]);
            if largest > max_event {
                let message =
                    format!("an event of its stream is larger than the {max_event}-byte limit");
                failed.set(&message);
                let _ = send.blocking_send(Err(HttpError(message)));
                return;
            }
            let chunk = bytes::Bytes::copy_from_slice(&buffer[..read]);
            if send.blocking_send(Ok(chunk)).is_err() {
                // The transport let go of the stream.
                return;
            }
        }
    };
    let started = std::thread::Builder::new()
        .name("toolc-mcp-events".into())
        .spawn(reader);
    let chunks = futures_util::stream::unfold(receive, |mut receive| async move {
        receive.recv().await.map(|chunk| (chunk, receive))
    });
    match started {
        Ok(_) => SseStream::from_bytes_stream(chunks).boxed(),
        Err(e) => futures_util::stream::once(async move {
            Err(SseError::Body(Box::new(HttpError(format!(
                "cannot start a thread for the event stream: {e}"
            )))))
        })
        .boxed(),
    }
}

/// The size of the event an event stream is in, from its bytes as they
/// come: a line ends at CR, LF or CRLF, an empty line ends the event, and
/// a comment line (`:`), which the parser drops, does not count.
#[derive(Default)]
struct EventSize {
    event: usize,
    line: usize,
    after_cr: bool,
    comment: bool,
}

impl EventSize {
    /// Takes in `bytes`; the largest size the event reached in them.
    fn feed(&mut self, bytes: &[u8]) -> usize {
        let mut largest = self.event;
        for &byte in bytes {
            if byte == b'\r' || (byte == b'\n' && !self.after_cr) {
                if self.line == 0 {
                    self.event = 0;
                }
                self.line = 0;
            } else if byte != b'\n' {
                if self.line == 0 {
                    self.comment = byte == b':';
                }
                self.line += 1;
                if !self.comment {
                    self.event += 1;
                    largest = largest.max(self.event);
                }
            }
            self.after_cr = byte == b'\r';
        }
        largest
    }
}

impl StreamableHttpClient for Client {
    type Error = HttpError;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, Error> {
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            StreamableHttpResponseLimits::default(),
        )
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, Error> {
        let mut limits = StreamableHttpResponseLimits::default();
        limits.max_sse_event_size = max_sse_event_size;
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            limits,
        )
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, Error> {
        let mut headers = self.headers(session_id.as_deref(), auth_header, custom_headers)?;
        headers.push(("accept".into(), HeaderValue::from_static(ACCEPT)));
        headers.push(("content-type".into(), HeaderValue::from_static(JSON)));
        let agent = self.agent.clone();
        let attached = session_id.is_some();
        let posted =
            off_thread(move || post(&agent, &uri, &message, &headers, attached, limits)).await?;
        Ok(match posted {
            Posted::Done(response) => *response,
            Posted::Stream(body, session) => StreamableHttpPostResponse::Sse(
                events(body, limits.max_sse_event_size, self.failed.clone()),
                session,
            ),
        })
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), Error> {
        let headers = self.headers(Some(&session_id), auth_header, custom_headers)?;
        let agent = self.agent.clone();
        off_thread(move || {
            let response = send(&agent, "DELETE", &uri, &headers, &[])?;
            let status = response.status();
            // 405: the server does not let clients end sessions.
            if status.is_success() || status.as_u16() == 405 {
                Ok(())
            } else {
                Err(client_error(format!("HTTP {status} for url ({uri})")))
            }
        })
        .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, Error> {
        let limits = StreamableHttpResponseLimits::default();
        self.get_stream_with_max_sse_event_size(
            uri,
            session_id,
            last_event_id,
            auth_header,
            custom_headers,
            limits.max_sse_event_size,
        )
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, Error> {
        let mut headers = self.headers(session_id.as_deref(), auth_header, custom_headers)?;
        headers.push(("accept".into(), HeaderValue::from_static(ACCEPT)));
        if let Some(id) = last_event_id
            && let Ok(value) = HeaderValue::try_from(id)
        {
            headers.push((LAST_EVENT_ID.into(), value));
        }
        let agent = self.agent.clone();
        let body = off_thread(move || {
            let response = send(&agent, "GET", &uri, &headers, &[])?;
            let status = response.status();
            if status.as_u16() == 405 {
                return Err(StreamableHttpError::ServerDoesNotSupportSse);
            }
            if let Some(error) = challenge(&response) {
                return Err(error);
            }
            if let Some(error) = status_error(&response) {
                return Err(error.into());
            }
            if !status.is_success() {
                return Err(client_error(format!("HTTP {status} for url ({uri})")));
            }
            match header(&response, "content-type") {
                Some(ct) if media_type_is(ct, EVENT_STREAM) || media_type_is(ct, JSON) => {}
                other => {
                    return Err(StreamableHttpError::UnexpectedContentType(
                        other.map(str::to_string),
                    ));
                }
            }
            Ok(response.into_body())
        })
        .await?;
        Ok(events(body, max_sse_event_size, self.failed.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_proxy_lists_exempt_hosts_domains_and_ranges() {
        let list = "example.com, .internal, *.corp.test, 10.0.0.0/8, ::1, [fd00::]/8";
        for host in [
            "example.com",
            "api.example.com",
            "a.internal",
            "x.corp.test",
            "10.1.2.3",
            "[::1]",
            "[fd12::1]",
        ] {
            assert!(exempt(host, list), "{host}");
        }
        for host in [
            "notexample.com",
            "example.com.evil",
            "11.0.0.1",
            "[fe80::1]",
            "internal2",
        ] {
            assert!(!exempt(host, list), "{host}");
        }
        assert!(exempt("anything", "*"));
        assert!(!exempt("anything", ""));
    }

    #[test]
    fn an_event_ends_at_an_empty_line_of_any_line_ending() {
        for ending in ["\n", "\r", "\r\n"] {
            let mut size = EventSize::default();
            let event = format!("data: abc{ending}data: de{ending}{ending}");
            assert_eq!(size.feed(event.as_bytes()), 17, "{ending:?}");
            // The next event starts from nothing; comments do not count.
            let next = format!(": {}{ending}data: x{ending}", "c".repeat(100));
            assert_eq!(size.feed(next.as_bytes()), 7, "{ending:?}");
            // Split anywhere, the sizes are the same.
            let mut split = EventSize::default();
            let whole = format!("{event}{next}");
            let (a, b) = whole.as_bytes().split_at(whole.len() / 2);
            assert_eq!(split.feed(a).max(split.feed(b)), 17, "{ending:?}");
        }
    }

    #[test]
    fn a_scope_is_read_quoted_or_not() {
        assert_eq!(
            scope(r#"Bearer error="insufficient_scope", scope="files:read files:write""#)
                .as_deref(),
            Some("files:read files:write")
        );
        assert_eq!(
            scope("Bearer scope=read:data, x=1").as_deref(),
            Some("read:data")
        );
        assert_eq!(scope("Bearer realm=x"), None);
    }
}
