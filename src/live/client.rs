//! One server's listing through rmcp: the transport (a child process or
//! Streamable HTTP), the handshake of either protocol era, and the pages of
//! `tools/list`, all within one timeout.

use std::collections::HashSet;
use std::process::Stdio;
use std::time::Duration;

use rmcp::model::{
    ClientCapabilities, ClientConfig, ClientRequest, Implementation, ListToolsRequest,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerResult, Tool,
};
use rmcp::service::{
    ClientInitializeError, ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService,
    ServiceError,
};
use rmcp::transport::DynamicTransportError;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};

use super::{LiveError, MAX_LISTING_BYTES, MAX_PAGES, Server, url, words};

/// What a listing gives: the server's name (when it said one) and its
/// tools as JSON, in its order.
type Listing = (Option<String>, Vec<serde_json::Value>);

/// Makes ring the process's rustls crypto provider (reqwest is built with
/// rustls but no provider of its own), once; a provider already installed
/// stays.
pub(super) fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// Lists the tools of `server` within `timeout`.
pub(super) async fn list(server: &Server, timeout: Duration) -> Result<Listing, LiveError> {
    let shown = server.to_string();
    let timed_out = || LiveError::TimedOut {
        server: shown.clone(),
        seconds: seconds(timeout),
    };
    match server {
        Server::Stdio(command) => {
            let words = words::split(command).map_err(|source| LiveError::Split {
                command: command.clone(),
                source,
            })?;
            let (program, args) = match words.split_first() {
                Some(split) => split,
                None => {
                    return Err(LiveError::Split {
                        command: command.clone(),
                        source: words::SplitError::Empty,
                    });
                }
            };
            let mut child = tokio::process::Command::new(program);
            child.args(args).kill_on_drop(true);
            // A group of its own: whatever the server starts (a wrapper's
            // real server) is killed with it.
            #[cfg(unix)]
            child.process_group(0);
            // And killed by the kernel if toolc dies first (a signal):
            // toolc's thread that starts it lives as long as toolc.
            #[cfg(target_os = "linux")]
            // SAFETY: between fork and exec the closure only calls
            // prctl(2), which is async-signal-safe, and allocates nothing.
            unsafe {
                child.pre_exec(|| {
                    if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
            let (transport, _) = TokioChildProcess::builder(child)
                .stderr(Stdio::inherit())
                .spawn()
                .map_err(|source| LiveError::Start {
                    server: shown.clone(),
                    source,
                })?;
            let _group = KillOnDrop(transport.id());
            tokio::time::timeout(timeout, session(transport, &shown))
                .await
                .map_err(|_| timed_out())?
        }
        Server::Url(address) => {
            let scheme = address
                .split_once("://")
                .map(|(s, _)| s.to_ascii_lowercase());
            if !matches!(scheme.as_deref(), Some("http" | "https")) {
                return Err(LiveError::Url {
                    url: url::redacted(address),
                });
            }
            let transport = StreamableHttpClientTransport::from_uri(address.as_str());
            tokio::time::timeout(timeout, session(transport, &shown))
                .await
                .map_err(|_| timed_out())?
                .map_err(|error| scrubbed(address, error))
        }
    }
}

/// `error` without the credentials of `address`, which the HTTP client's
/// messages may quote.
fn scrubbed(address: &str, error: LiveError) -> LiveError {
    let scrub = |message: String| url::scrub(address, &message);
    match error {
        LiveError::Handshake { server, message } => LiveError::Handshake {
            server,
            message: scrub(message),
        },
        LiveError::List { server, message } => LiveError::List {
            server,
            message: scrub(message),
        },
        LiveError::Malformed { server, message } => LiveError::Malformed {
            server,
            message: scrub(message),
        },
        error => error,
    }
}

/// The timeout as the command line spells it.
fn seconds(timeout: Duration) -> String {
    let text = format!("{:.3}", timeout.as_secs_f64());
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The handshake and the listing over `transport`.
async fn session<T, E, A>(transport: T, shown: &str) -> Result<Listing, LiveError>
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
    let tools = pages(&running, shown).await?;
    // Not `cancel()`: that closes the child's input and waits for it to
    // exit; the caller kills it instead.
    drop(running);
    Ok((name, tools))
}

/// Every page of `tools/list`, following `nextCursor` until a page has
/// none; a cursor given twice, more than [`MAX_PAGES`] pages, or more than
/// [`MAX_LISTING_BYTES`] of tools and cursors, is an error.
async fn pages(
    running: &RunningService<RoleClient, ClientConfig>,
    shown: &str,
) -> Result<Vec<serde_json::Value>, LiveError> {
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
        let response = running
            .peer()
            .send_request(request)
            .await
            .map_err(|error| LiveError::List {
                server: shown.to_string(),
                message: match error {
                    ServiceError::TransportSend(error) => transport_message(&error),
                    error => error.to_string(),
                },
            })?;
        let page = page_of(response).map_err(|message| LiveError::Malformed {
            server: shown.to_string(),
            message,
        })?;
        for tool in page.tools {
            let value = serde_json::to_value(tool).map_err(|e| LiveError::Malformed {
                server: shown.to_string(),
                message: e.to_string(),
            })?;
            size = size.saturating_add(json_size(&value));
            if size > MAX_LISTING_BYTES {
                return Err(too_large());
            }
            tools.push(value);
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
struct KillOnDrop(Option<u32>);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(pid) = self.0.and_then(|pid| i32::try_from(pid).ok()) {
            // SAFETY: kill(2) takes no memory; a group that already
            // ended makes it fail harmlessly with ESRCH.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        #[cfg(target_os = "linux")]
        kill_orphans();
    }
}

/// Makes toolc the reaper of what its servers leave behind while it lives
/// (Linux): a daemon a server starts in a session of its own (out of its
/// process group) is toolc's child once its parent ends, and
/// [`kill_orphans`] finds it. Without it such a daemon outlived toolc and
/// held toolc's standard error open, so a pipe reading it never ended.
#[cfg(target_os = "linux")]
pub(super) struct Reaper(());

#[cfg(target_os = "linux")]
impl Reaper {
    pub(super) fn start() -> Reaper {
        // SAFETY: prctl(2) with integer arguments takes no memory.
        unsafe {
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1);
        }
        Reaper(())
    }
}

#[cfg(target_os = "linux")]
impl Drop for Reaper {
    fn drop(&mut self) {
        // SAFETY: as in `start`.
        unsafe {
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 0);
        }
    }
}

/// Kills toolc's children, each with its process group: while servers are
/// fetched, toolc starts no other process, so its children are servers
/// (killed already) and what they left behind. A process whose parent was
/// just killed comes to toolc a moment later: the children are looked at
/// again until all are gone, for at most 100 ms.
#[cfg(target_os = "linux")]
fn kill_orphans() {
    for _ in 0..20 {
        let living: Vec<i32> = children().into_iter().filter(|pid| !zombie(*pid)).collect();
        if living.is_empty() {
            return;
        }
        for pid in living {
            // SAFETY: kill(2) takes no memory; a process or group that
            // ended makes it fail harmlessly.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
                libc::kill(pid, libc::SIGKILL);
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The children of every thread of toolc.
#[cfg(target_os = "linux")]
fn children() -> Vec<i32> {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
        .flat_map(|text| {
            text.split_whitespace()
                .filter_map(|pid| pid.parse().ok())
                .collect::<Vec<i32>>()
        })
        .collect()
}

/// Whether `pid` ended and waits to be reaped (or is gone).
#[cfg(target_os = "linux")]
fn zombie(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
        stat.rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with(['Z', 'X']))
    })
}
