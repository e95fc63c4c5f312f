//! One server's listing through rmcp: the transport (a child process or
//! Streamable HTTP), the handshake of either protocol era, and the pages of
//! `tools/list`, all within one timeout. A child's standard output is read
//! through a tee (`capture`) that keeps the `tools` of each answer as the
//! server wrote them, by JSON-RPC id, and stops at a line that is not JSON
//! (rmcp would skip it); each page rmcp parsed is then replaced by those
//! raw tools. A configured server's standard error goes through `relay`.

use std::collections::{HashMap, HashSet};
use std::process::Stdio;
use std::time::Duration;

use rmcp::model::{
    ClientCapabilities, ClientConfig, ClientRequest, Implementation, ListToolsRequest,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerResult, Tool,
};
use rmcp::service::{
    ClientInitializeError, ClientLifecycleMode, ClientServiceExt, PeerRequestOptions, RoleClient,
    RunningService, ServiceError,
};
use rmcp::transport::DynamicTransportError;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
// rmcp's headers are the `http` crate's, which hyper re-exports.
use hyper::header::{HeaderName, HeaderValue};

use super::capture::{Shared, Tee, lock};
use super::config::{Launch, Scrubber, Secret};
use super::{LiveError, MAX_LISTING_BYTES, MAX_PAGES, Server, url, words};
use super::{http, relay};

/// What a listing gives: the server's name (when it said one) and its
/// tools as JSON, in its order.
/// The server's name, its tools, and (when asked) its tools as a second
/// `tools/list` in the same session gave them.
type Listing = (
    Option<String>,
    Vec<serde_json::Value>,
    Option<Vec<serde_json::Value>>,
);

/// Makes ring the process's rustls crypto provider, once (for the TLS
/// that names no provider of its own); a provider already installed stays.
pub(super) fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// Lists the tools of `server` within `timeout`.
///
/// `unconfined` is set when a started server could not be given a PID
/// namespace of its own (what it starts in a session of its own may then
/// outlive a killed toolc).
pub(super) async fn list(
    server: &Server,
    timeout: Duration,
    unconfined: &mut bool,
    twice: bool,
) -> Result<Listing, LiveError> {
    let shown = server.to_string();
    match server {
        Server::Stdio(command) => {
            let words = words::split(command).map_err(|source| LiveError::Split {
                command: command.clone(),
                source,
            })?;
            let Some((program, args)) = words.split_first() else {
                return Err(LiveError::Split {
                    command: command.clone(),
                    source: words::SplitError::Empty,
                });
            };
            let child = Child {
                program,
                args,
                dir: None,
                env: &[],
                scrubber: None,
            };
            list_child(&child, &shown, timeout, unconfined, twice).await
        }
        Server::Url(address) => list_url(address, &[], &shown, timeout, twice)
            .await
            .map_err(|error| scrubbed(error, |m| url::scrub(address, m))),
        Server::Configured(entry) => {
            let scrubber = entry.scrubber();
            let listed = match &entry.launch {
                Launch::Command {
                    program,
                    args,
                    dir,
                    env,
                } => {
                    let child = Child {
                        program,
                        args,
                        dir: Some(dir),
                        env,
                        scrubber: Some(&scrubber),
                    };
                    list_child(&child, &shown, timeout, unconfined, twice).await
                }
                Launch::Http { url, headers } => {
                    list_url(url, headers, &shown, timeout, twice).await
                }
            };
            listed.map_err(|error| scrubbed(error, |m| scrubber.scrub(m)))
        }
    }
}

/// A server toolc starts: its program, its arguments, the folder it runs
/// in (toolc's own when `None`), the variables added to (or, `None`,
/// removed from) the environment it inherits, and, when these hold
/// secrets, what to take out of its standard error (otherwise toolc's).
struct Child<'a> {
    program: &'a str,
    args: &'a [String],
    dir: Option<&'a std::path::Path>,
    env: &'a [(String, Option<Secret>)],
    scrubber: Option<&'a Scrubber>,
}

/// The listing of the server `child` starts, over its standard input and
/// output. Its standard error, when relayed, is relayed to its end (or
/// for a moment after the server was killed), so that what it said comes
/// before what toolc says of it.
async fn list_child(
    child: &Child<'_>,
    shown: &str,
    timeout: Duration,
    unconfined: &mut bool,
    twice: bool,
) -> Result<Listing, LiveError> {
    let scrubber = child.scrubber;
    let mut command = tokio::process::Command::new(child.program);
    command
        .args(child.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(if child.scrubber.is_some() {
            Stdio::piped()
        } else {
            Stdio::inherit()
        })
        .kill_on_drop(true);
    if let Some(dir) = child.dir {
        command.current_dir(dir);
    }
    for (name, value) in child.env {
        match value {
            Some(value) => command.env(name, value.expose()),
            None => command.env_remove(name),
        };
    }
    // A group of its own: whatever the server starts (a wrapper's real
    // server) is killed with it.
    #[cfg(unix)]
    command.process_group(0);
    // And in a PID namespace of its own, which dies with it, and it with
    // toolc, even a killed toolc (see `namespace`).
    #[cfg(target_os = "linux")]
    // SAFETY: `namespace::enter` is made for a pre_exec closure: it
    // allocates nothing and makes only async-signal-safe calls.
    unsafe {
        command.pre_exec(|| super::namespace::enter());
    }
    let mut child = command.spawn().map_err(|source| LiveError::Start {
        server: shown.to_string(),
        source,
    })?;
    #[cfg(target_os = "linux")]
    if !child.id().is_some_and(super::namespace::confined) {
        *unconfined = true;
    }
    #[cfg(not(target_os = "linux"))]
    let _ = unconfined;
    let group = KillOnDrop::new(child.id());
    let relay = match (child.stderr.take(), scrubber) {
        (Some(stderr), Some(scrubber)) => {
            Some(tokio::spawn(relay::relay(stderr, scrubber.clone())))
        }
        _ => None,
    };
    let listed = converse(&mut child, shown, timeout, twice).await;
    drop(group);
    if let Some(relay) = relay {
        let _ = tokio::time::timeout(relay::GRACE, relay).await;
    }
    listed
}

/// The handshake and the listing with a started server, within `timeout`.
async fn converse(
    child: &mut tokio::process::Child,
    shown: &str,
    timeout: Duration,
    twice: bool,
) -> Result<Listing, LiveError> {
    let (Some(input), Some(output)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(LiveError::Start {
            server: shown.to_string(),
            source: std::io::Error::other("its standard input or output is not a pipe"),
        });
    };
    // rmcp reads the protocol; the document is what the server wrote, as
    // toolc saw it go by.
    let capture = Shared::default();
    let reader = Tee {
        inner: output,
        capture: capture.clone(),
    };
    let listed = tokio::time::timeout(
        timeout,
        session((reader, input), shown, Some(&capture), twice),
    )
    .await;
    if let Some(line) = lock(&capture).not_json.take() {
        return Err(LiveError::NotJson {
            server: shown.to_string(),
            line,
        });
    }
    let listed = listed.map_err(|_| timed_out(shown, timeout))?;
    match listed {
        Err(LiveError::Handshake { server, message }) => Err(LiveError::Handshake {
            message: with_exit(message, child).await,
            server,
        }),
        Err(LiveError::List { server, message }) => Err(LiveError::List {
            message: with_exit(message, child).await,
            server,
        }),
        listed => listed,
    }
}

/// The listing of the server at the Streamable HTTP endpoint `address`,
/// sent `headers` with every request. Its errors may quote secrets: the
/// caller scrubs them.
async fn list_url(
    address: &str,
    headers: &[(String, Secret)],
    shown: &str,
    timeout: Duration,
    twice: bool,
) -> Result<Listing, LiveError> {
    let scheme = address
        .split_once("://")
        .map(|(s, _)| s.to_ascii_lowercase());
    if !matches!(scheme.as_deref(), Some("http" | "https")) {
        return Err(LiveError::Url {
            url: url::redacted(address),
        });
    }
    let mut custom = HashMap::new();
    for (name, value) in headers {
        let bad = || LiveError::Header {
            server: shown.to_string(),
            name: name.clone(),
        };
        let header = HeaderName::try_from(name.as_str()).map_err(|_| bad())?;
        let mut value = HeaderValue::try_from(value.expose()).map_err(|_| bad())?;
        value.set_sensitive(true);
        custom.insert(header, value);
    }
    let (client, address) = http::Client::new(address).map_err(|setup| match setup {
        http::Setup::Url => LiveError::Url {
            url: url::redacted(address),
        },
        http::Setup::Proxy(message) => LiveError::Handshake {
            server: shown.to_string(),
            message,
        },
    })?;
    let config = StreamableHttpClientTransportConfig::with_uri(address).custom_headers(custom);
    let failure = client.failure();
    let transport = StreamableHttpClientTransport::with_client(client, config);
    let listed = tokio::time::timeout(timeout, session(transport, shown, None, twice))
        .await
        .map_err(|_| timed_out(shown, timeout))?;
    // A failed event stream reaches rmcp as one that ended: say why.
    listed.map_err(|error| match (error, failure.get()) {
        (LiveError::Handshake { server, .. }, Some(message)) => {
            LiveError::Handshake { server, message }
        }
        (LiveError::List { server, .. }, Some(message)) => LiveError::List { server, message },
        (error, _) => error,
    })
}

/// The error of a server that did not list its tools within `timeout`.
fn timed_out(shown: &str, timeout: Duration) -> LiveError {
    LiveError::TimedOut {
        server: shown.to_string(),
        seconds: seconds(timeout),
    }
}

/// `error` with `scrub` applied to what it quotes of messages it did not
/// write (the HTTP client's, the server's), which may hold credentials.
fn scrubbed(error: LiveError, scrub: impl Fn(&str) -> String) -> LiveError {
    match error {
        LiveError::Handshake { server, message } => LiveError::Handshake {
            server,
            message: scrub(&message),
        },
        LiveError::List { server, message } => LiveError::List {
            server,
            message: scrub(&message),
        },
        LiveError::Malformed { server, message } => LiveError::Malformed {
            server,
            message: scrub(&message),
        },
        LiveError::NotJson { server, line } => LiveError::NotJson {
            server,
            line: scrub(&line),
        },
        LiveError::RepeatedCursor { server, cursor } => LiveError::RepeatedCursor {
            server,
            cursor: scrub(&cursor),
        },
        error => error,
    }
}

/// `message`, and how the server ended when it did (within a moment):
/// a server that exits before it answers is the usual cause of a broken
/// handshake, and its status says more than the pipe's error.
async fn with_exit(message: String, child: &mut tokio::process::Child) -> String {
    let status = tokio::time::timeout(Duration::from_millis(500), child.wait()).await;
    match status {
        Ok(Ok(status)) => match (status.code(), exit_signal(&status)) {
            (Some(code), _) => format!("{message}; it exited with status {code}"),
            (None, Some(signal)) => format!("{message}; it was killed by signal {signal}"),
            (None, None) => message,
        },
        _ => message,
    }
}

#[cfg(unix)]
fn exit_signal(status: &std::process::ExitStatus) -> Option<i32> {
    std::os::unix::process::ExitStatusExt::signal(status)
}

#[cfg(not(unix))]
fn exit_signal(_status: &std::process::ExitStatus) -> Option<i32> {
    None
}

/// The timeout as the command line spells it.
fn seconds(timeout: Duration) -> String {
    let text = format!("{:.3}", timeout.as_secs_f64());
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The handshake and the listing over `transport`.
/// With `raw`, the tools are the ones the server wrote (every member, in
/// its order); without, they are rmcp's reading of them. With `twice`,
/// every page is listed again once the first listing is done.
async fn session<T, E, A>(
    transport: T,
    shown: &str,
    raw: Option<&Shared>,
    twice: bool,
) -> Result<Listing, LiveError>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    // No capabilities: a server offers what every client may use, and the
    // document does not depend on what toolc could do.
    let info = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("toolc", env!("CARGO_PKG_VERSION")),
    );
    let lifecycle = ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::LATEST],
        // The newest version with a handshake: what a legacy server knows.
        legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
    };
    let running = info
        .serve_with_lifecycle(transport, lifecycle)
        .await
        .map_err(|error| LiveError::Handshake {
            server: shown.to_string(),
            message: match error {
                ClientInitializeError::ConnectionClosed(_) => {
                    "it closed the connection before answering (it may have exited: its \
                     standard error says why)"
                        .to_string()
                }
                ClientInitializeError::TransportError { error, context } => {
                    format!("{context}: {}", transport_message(&error))
                }
                error => error.to_string(),
            },
        })?;
    let name = running
        .peer_info()
        .and_then(|info| info.server_info.as_ref().map(|s| s.name.trim().to_string()))
        .filter(|name| !name.is_empty());
    let tools = pages(&running, shown, raw).await?;
    let again = if twice {
        Some(pages(&running, shown, raw).await?)
    } else {
        None
    };
    // Not `cancel()`: that closes the child's input and waits for it to
    // exit; the caller kills it instead.
    drop(running);
    Ok((name, tools, again))
}

/// Every page of `tools/list`, following `nextCursor` until a page has
/// none; a cursor given twice, more than [`MAX_PAGES`] pages, or more than
/// [`MAX_LISTING_BYTES`] of tools and cursors, is an error. With `raw`, each page's tools are the `tools` of the answer
/// with the request's id, as the server wrote them.
async fn pages(
    running: &RunningService<RoleClient, ClientConfig>,
    shown: &str,
    raw: Option<&Shared>,
) -> Result<Vec<serde_json::Value>, LiveError> {
    let list_error = |error: ServiceError| LiveError::List {
        server: shown.to_string(),
        message: match error {
            ServiceError::TransportSend(error) => transport_message(&error),
            error => error.to_string(),
        },
    };
    let malformed = |message: String| LiveError::Malformed {
        server: shown.to_string(),
        message,
    };
    let mut tools = Vec::new();
    let mut cursor: Option<String> = None;
    let mut seen = HashSet::new();
    let mut size = 0usize;
    let too_large = || LiveError::TooLarge {
        server: shown.to_string(),
    };
    for _ in 0..MAX_PAGES {
        let params = PaginatedRequestParams::default().with_cursor(cursor.take());
        let request = ClientRequest::ListToolsRequest(ListToolsRequest::with_param(params));
        let handle = running
            .peer()
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
            .map_err(list_error)?;
        let id = serde_json::to_value(&handle.id)
            .map_err(|e| malformed(e.to_string()))?
            .to_string();
        let response = handle.await_response().await.map_err(list_error)?;
        let page = page_of(response).map_err(malformed)?;
        let page_tools = match raw {
            Some(capture) => {
                let written = lock(capture).answer(&id);
                raw_page(written, &page.tools, &id).map_err(malformed)?
            }
            None => page
                .tools
                .iter()
                .map(|tool| serde_json::to_value(tool).map_err(|e| malformed(e.to_string())))
                .collect::<Result<_, _>>()?,
        };
        for tool in page_tools {
            size = size.saturating_add(json_size(&tool));
            if size > MAX_LISTING_BYTES {
                return Err(too_large());
            }
            tools.push(tool);
        }
        match page.next_cursor {
            Some(next) if !next.is_empty() => {
                size = size.saturating_add(next.len());
                if size > MAX_LISTING_BYTES {
                    return Err(too_large());
                }
                if !seen.insert(next.clone()) {
                    return Err(LiveError::RepeatedCursor {
                        server: shown.to_string(),
                        cursor: next,
                    });
                }
                cursor = Some(next);
            }
            _ => return Ok(tools),
        }
    }
    Err(LiveError::EndlessPages {
        server: shown.to_string(),
    })
}

/// The tools of one page as the server wrote them (`written`, the `tools`
/// member of its answer with the id `id`), checked against rmcp's reading
/// of the same answer: the same tools, by name, in the same order.
fn raw_page(
    written: Option<serde_json::Value>,
    parsed: &[Tool],
    id: &str,
) -> Result<Vec<serde_json::Value>, String> {
    let Some(serde_json::Value::Array(written)) = written else {
        return Err(format!(
            "the answer with id {id} is not on the server's standard output as toolc read it"
        ));
    };
    let names = |tools: &[serde_json::Value]| -> Vec<Option<String>> {
        tools
            .iter()
            .map(|t| t.get("name").and_then(|n| n.as_str()).map(str::to_string))
            .collect()
    };
    let expected: Vec<Option<String>> = parsed.iter().map(|t| Some(t.name.to_string())).collect();
    if names(&written) != expected {
        return Err(format!(
            "the tools of the answer with id {id} ({}) are not the ones the MCP SDK read ({})",
            written.len(),
            parsed.len()
        ));
    }
    Ok(written)
}

/// The length of `value` as compact JSON, counted without writing it.
fn json_size(value: &serde_json::Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 = self.0.saturating_add(bytes.len());
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing to a counter fails only where serializing fails, which a
    // `Value` does not.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// A `tools/list` result, or why the answer is none: rmcp takes what does
/// not parse as a list of tools for another result, so the answer is
/// parsed again here for serde's account of what is wrong.
fn page_of(response: ServerResult) -> Result<ListToolsResult, String> {
    if let ServerResult::ListToolsResult(page) = response {
        return Ok(page);
    }
    let value = serde_json::to_value(&response).map_err(|e| e.to_string())?;
    // The first tool that is none says which it is.
    if let Some(tools) = value.get("tools").and_then(serde_json::Value::as_array) {
        for (index, tool) in tools.iter().enumerate() {
            if let Err(error) = serde_json::from_value::<Tool>(tool.clone()) {
                let name = tool
                    .get("name")
                    .and_then(serde_json::Value::as_str)
                    .map(|name| format!(" (\"{name}\")"))
                    .unwrap_or_default();
                return Err(format!("tool {index}{name}: {error}"));
            }
        }
    }
    match serde_json::from_value::<ListToolsResult>(value.clone()) {
        Err(error) => Err(error.to_string()),
        // Parsed here but not by rmcp: say what came.
        Ok(_) => Err(format!("not a tools/list result: {value}")),
    }
}

/// What went wrong in a transport, without the transport's type: the
/// messages of the error's causes (the first wraps the transport's own), a
/// message that ends with the one before it left out.
fn transport_message(error: &DynamicTransportError) -> String {
    let mut text = String::new();
    let mut cause = error.error.source();
    if cause.is_none() {
        text = error.error.to_string();
    }
    while let Some(next) = cause {
        let message = next.to_string();
        if !message.is_empty() && !text.ends_with(&message) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&message);
        }
        cause = next.source();
    }
    text
}

/// Kills the process group a server leads when dropped: the listing
/// ended, however it ended.
/// (Unix only: elsewhere the server is not killed here.)
struct KillOnDrop(#[cfg_attr(not(unix), allow(dead_code))] Option<i32>);

impl KillOnDrop {
    fn new(pid: Option<u32>) -> KillOnDrop {
        let pid = pid.and_then(|pid| i32::try_from(pid).ok());
        #[cfg(target_os = "linux")]
        if let Some(pid) = pid {
            super::orphans::started(pid);
        }
        KillOnDrop(pid)
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(pid) = self.0 {
            // SAFETY: kill(2) takes no memory; a group that already
            // ended makes it fail harmlessly with ESRCH.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        // Its own zombie is tokio's to reap: spared by the sweep, then let go.
        #[cfg(target_os = "linux")]
        {
            super::orphans::kill_orphans();
            if let Some(pid) = self.0 {
                super::orphans::ended(pid);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_is_the_servers_when_its_names_are_rmcps() {
        let written = serde_json::json!([
            {"x-vendor": 1, "name": "a", "inputSchema": {"type": "object"}},
            {"name": "b", "inputSchema": {"type": "object"}, "execution": {}}
        ]);
        let parsed: Vec<Tool> = serde_json::from_value(written.clone()).unwrap();
        let page = raw_page(Some(written.clone()), &parsed, "3").unwrap();
        assert_eq!(serde_json::Value::Array(page), written);
        let error = raw_page(Some(written), &parsed[..1], "3").unwrap_err();
        assert!(
            error.contains("(2) are not the ones the MCP SDK read (1)"),
            "{error}"
        );
        let error = raw_page(None, &parsed, "3").unwrap_err();
        assert!(error.contains("the answer with id 3 is not"), "{error}");
    }
}
