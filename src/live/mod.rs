//! Live MCP servers as input: a reader that connects to a running server
//! as an MCP client (a command toolc starts and speaks to over its standard
//! input and output, or a Streamable HTTP URL), fetches every page of its
//! `tools/list`, and turns the tools into an MCP manifest document,
//! `{"tools": [...]}` as pretty JSON, named `mcp://<server name>`. The
//! front end loads that document like a file; every diagnostic points into
//! it.
//!
//! Over stdio each tool is written as the server wrote it: every member
//! (2025-11-25's `execution`, a vendor's own keys, annotation keys no SDK
//! knows), in the server's order, taken from the bytes of its answers
//! while rmcp speaks the protocol; a line of its output that is not JSON is
//! malformed data. Over HTTP each tool is written as rmcp models it: `name`,
//! `title`, `description`, `inputSchema` and `outputSchema` (verbatim, in
//! the server's key order), `annotations`, `icons`, `_meta`; other members
//! are not in the document. Either way a tool rmcp cannot read at all (no
//! `inputSchema`, a name that is no string) makes the listing malformed.
//!
//! This module owns the connection and the document only: which servers
//! (the command line), what is checked or written from their tools (lint,
//! gen, convert) and where the document is saved are the callers'.
//!
//! The handshake works with both eras of the protocol: `server/discover`
//! first (2026-07-28), `initialize` when the server answers that with a
//! JSON-RPC error (rmcp's `ClientLifecycleMode::Auto`). One timeout covers
//! starting, the handshake and every page. A started server runs in a
//! process group of its own, killed whole when its listing ends, whatever
//! the outcome, and on Linux in a PID namespace of its own (`namespace`):
//! killed by the kernel if toolc dies first, with everything it started.
//! SIGINT, SIGTERM and SIGHUP stop the fetch and end the server
//! (`signals`). Its standard error is toolc's.
//!
//! rmcp is asynchronous: a current-thread tokio runtime is made for the
//! fetch only, so runs without live servers never start one.

mod capture;
mod client;
pub(crate) mod config;
mod http;
#[cfg(target_os = "linux")]
mod namespace;
#[cfg(target_os = "linux")]
mod orphans;
mod relay;
#[cfg(unix)]
mod signals;
pub(crate) mod url;
mod words;

use std::fmt;
use std::time::Duration;

pub(crate) use words::SplitError;

/// The most pages of `tools/list` read from one server before it is taken
/// for a server that never stops paginating.
pub(crate) const MAX_PAGES: usize = 1000;

/// The prefix of the documents live servers list: `mcp://<server name>`.
pub(crate) const SCHEME: &str = "mcp://";

/// Whether `path` names a document a live server listed (which no file
/// holds: `--fix` cannot write it back).
pub(crate) fn is_live(path: &str) -> bool {
    path.starts_with(SCHEME)
}

/// The most JSON a server's listing may add up to (its tools, and the
/// cursors toolc keeps to tell a repeated one), in bytes: past it the
/// server is taken for one that would exhaust toolc's memory, as each of a
/// thousand pages may be as large as rmcp reads (16 MB a message).
pub(crate) const MAX_LISTING_BYTES: usize = 64 * 1024 * 1024;

/// Where a server is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Server {
    /// A command line ("PROGRAM ARGS..."), split into words as a shell
    /// would split them, run without a shell.
    Stdio(String),
    /// A Streamable HTTP endpoint. Shown without its user information
    /// and query, which may hold credentials.
    Url(String),
    /// An entry of an MCP client's configuration file: shown as its name
    /// and file only (its command, URL and variables may hold
    /// credentials), and named by its key rather than by the name the
    /// server gives.
    Configured(Box<config::Entry>),
}

impl Server {
    /// Whether a failure of this server leaves the others of its fetch
    /// to be read: one server of a configuration is one of many the user
    /// did not list one by one; a server named on the command line ends
    /// the run.
    fn fails_alone(&self) -> bool {
        matches!(self, Server::Configured(_))
    }
}

impl fmt::Display for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Server::Stdio(command) => write!(f, "`{command}` (--mcp-stdio)"),
            Server::Url(address) => write!(f, "{} (--mcp-url)", url::redacted(address)),
            Server::Configured(entry) => write!(f, "{}", entry.origin),
        }
    }
}

/// What a server listed, as a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fetched {
    /// `mcp://<server name>`, unique among the servers of one fetch.
    pub(crate) path: String,
    /// The server's name, as it gave it (or as toolc made it up when it
    /// gave none).
    pub(crate) name: String,
    /// `{"tools": [...]}`, pretty JSON ending with a newline.
    pub(crate) document: String,
    /// What the caller should warn about: the server could not be given
    /// a PID namespace of its own.
    pub(crate) warning: Option<String>,
    /// With [`Listings::Twice`]: the document of the second listing.
    pub(crate) relisted: Option<String>,
}

/// How often each server's tools are listed in its session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Listings {
    Once,
    /// Twice, one listing after the other: a server that answers the same
    /// request differently within one session (a tool reviewed from the
    /// first listing, another definition given to the model later) is
    /// caught by comparing them (`toolc lint --locked`). toolc otherwise
    /// lists a server once per session, so this is where it looks twice.
    Twice,
}

/// Why the tools of a server could not be read. Each names the server.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LiveError {
    #[error("cannot read the command of --mcp-stdio \"{command}\": {source}")]
    Split {
        command: String,
        #[source]
        source: SplitError,
    },
    #[error("--mcp-url \"{url}\" is not an http:// or https:// URL")]
    Url { url: String },
    #[error("cannot start the MCP server {server}")]
    Start {
        server: String,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "the MCP server {server} has a header toolc cannot send: {name:?} (its name or its value \
         is not valid in HTTP)"
    )]
    Header { server: String, name: String },
    #[error("the MCP server {server} did not complete the MCP handshake: {message}")]
    Handshake { server: String, message: String },
    #[error(
        "the MCP server {server} did not list its tools within {seconds} s (--mcp-timeout SECONDS sets the limit)"
    )]
    TimedOut { server: String, seconds: String },
    #[error("the MCP server {server} could not list its tools: {message}")]
    List { server: String, message: String },
    #[error("the MCP server {server} answered tools/list with malformed data: {message}")]
    Malformed { server: String, message: String },
    #[error("the MCP server {server} wrote malformed data on its standard output: {line}")]
    NotJson { server: String, line: String },
    #[error(
        "the MCP server {server} gave the pagination cursor \"{cursor}\" twice: its tools/list would never end"
    )]
    RepeatedCursor { server: String, cursor: String },
    #[error(
        "the MCP server {server} gave more than {MAX_PAGES} pages of tools/list: stopped reading, as it may never end"
    )]
    EndlessPages { server: String },
    #[error(
        "the MCP server {server} listed more than {} MB of tools: stopped reading",
        MAX_LISTING_BYTES / (1024 * 1024)
    )]
    TooLarge { server: String },
    #[error("cannot start the runtime of the MCP client")]
    Runtime(#[source] std::io::Error),
    #[error("stopped by {} while reading {}", signal_name(*signal), interrupted(servers))]
    /// Unix only: elsewhere no signal is caught while reading.
    #[cfg_attr(not(unix), allow(dead_code))]
    Interrupted { servers: Vec<String>, signal: i32 },
}

/// The servers a signal stopped the reading of, and what became of them:
/// up to [`AT_ONCE`] of them were started, the others never were.
fn interrupted(servers: &[String]) -> String {
    match servers {
        [] => "the MCP servers, after each had answered".to_string(),
        [server] => format!("the MCP server {server}; the server was ended"),
        _ => format!(
            "the MCP servers {}; every one of them that had started was ended",
            servers.join(", ")
        ),
    }
}

/// `SIGINT`, `SIGTERM`, `SIGHUP`, or `signal N`.
fn signal_name(signal: i32) -> String {
    match signal {
        libc::SIGINT => "SIGINT".to_string(),
        libc::SIGTERM => "SIGTERM".to_string(),
        #[cfg(unix)]
        libc::SIGHUP => "SIGHUP".to_string(),
        n => format!("signal {n}"),
    }
}

/// The warning of a server that runs without a PID namespace of its own.
fn unconfined_warning(server: &Server) -> String {
    format!(
        "the MCP server {server} runs without a PID namespace of its own (user namespaces are \
         not available here): toolc kills its process group, but a daemon it starts in a \
         session of its own may outlive a killed toolc"
    )
}

/// What one server of a fetch gave: its document, or why it has none.
pub(crate) type Listed = Result<Fetched, LiveError>;

/// Fetches the tools of every server, one after the other, each within
/// `timeout` (starting it, the handshake and every page), and names each
/// document `mcp://<name>`: a name two servers share gets `-2`, `-3`...
/// on its later servers. The failure of a server named on the command
/// line (`Stdio`, `Url`), a signal, or a runtime that cannot start ends
/// the fetch; a configured server that fails is listed with its error,
/// and the fetch goes on.
pub(crate) fn fetch(
    servers: &[Server],
    timeout: Duration,
    listings: Listings,
) -> Result<Vec<Listed>, LiveError> {
    if servers.is_empty() {
        return Ok(Vec::new());
    }
    client::install_crypto_provider();
    #[cfg(target_os = "linux")]
    let _reaper = orphans::Reaper::start();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(LiveError::Runtime)?;
    #[cfg(unix)]
    let restore = signals::Restore::note();
    let fetched = runtime.block_on(fetch_all(servers, timeout, listings));
    #[cfg(unix)]
    drop(restore);
    let fetched = fetched?;
    // The clients' tasks end here: a server still running was killed
    // already, and its handle goes with the runtime.
    runtime.shutdown_background();
    Ok(fetched)
}

/// How many servers [`fetch_all`] reads at once: a configuration of
/// many servers is not held up by each silent one in turn, and does not
/// start them all together either.
const AT_ONCE: usize = 8;

/// [`fetch`] inside the runtime: up to [`AT_ONCE`] servers at a time, the
/// results in the order given; a stopping signal (`signals`) ends the
/// fetch and names the servers still being read.
async fn fetch_all(
    servers: &[Server],
    timeout: Duration,
    listings: Listings,
) -> Result<Vec<Listed>, LiveError> {
    use futures_util::stream::StreamExt;
    #[cfg(unix)]
    let mut stop = signals::Stop::catch().map_err(LiveError::Runtime)?;
    let done: Vec<std::cell::Cell<bool>> = servers.iter().map(|_| Default::default()).collect();
    let each =
        futures_util::stream::iter(servers.iter().zip(&done).map(|(server, done)| async move {
            let mut unconfined = false;
            let listed = client::list(
                server,
                timeout,
                &mut unconfined,
                listings == Listings::Twice,
            )
            .await;
            done.set(true);
            (listed, unconfined)
        }))
        .buffered(AT_ONCE)
        .collect::<Vec<_>>();
    #[cfg(unix)]
    let results = tokio::select! {
        results = each => results,
        signal = stop.next() => {
            let reading: Vec<String> = servers
                .iter()
                .zip(&done)
                .filter(|(_, done)| !done.get())
                .map(|(server, _)| server.to_string())
                .collect();
            return Err(LiveError::Interrupted {
                servers: reading,
                signal,
            });
        }
    };
    #[cfg(not(unix))]
    let results = each.await;
    let mut fetched: Vec<Listed> = Vec::new();
    for (server, (listed, unconfined)) in servers.iter().zip(results) {
        let listed = listed.and_then(|(name, tools, again)| {
            let name = name_of(server, name);
            let malformed = |e: serde_json::Error| LiveError::Malformed {
                server: server.to_string(),
                message: e.to_string(),
            };
            let document = document_of(tools).map_err(malformed)?;
            let relisted = again.map(document_of).transpose().map_err(malformed)?;
            Ok(Fetched {
                path: unique_path(&name, &fetched),
                name,
                document,
                warning: unconfined.then(|| unconfined_warning(server)),
                relisted,
            })
        });
        match listed {
            Err(error) if !server.fails_alone() => return Err(error),
            listed => fetched.push(listed),
        }
    }
    Ok(fetched)
}

/// The name a server's document gets: its key for a configured server,
/// else the name it gave, else one made up ([`fallback_name`]).
fn name_of(server: &Server, given: Option<String>) -> String {
    let given = match server {
        Server::Configured(entry) => Some(entry.origin.name.clone()),
        _ => given,
    };
    given
        .map(|name| printable(&name))
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| fallback_name(server))
}

/// The manifest a server's tools make: an MCP `tools/list` result of one
/// page, in the server's order.
fn document_of(tools: Vec<serde_json::Value>) -> serde_json::Result<String> {
    let mut text = serde_json::to_string_pretty(&serde_json::json!({ "tools": tools }))?;
    text.push('\n');
    Ok(text)
}

/// The longest server name kept, in characters: the name becomes a
/// document path in every report and a file name under `--save DIR`.
const MAX_NAME: usize = 100;

/// A server's name as toolc shows it: what a terminal would act on
/// (control characters: escape sequences, newlines; the bidirectional
/// overrides that reorder text) replaced by `_`, at most [`MAX_NAME`]
/// characters, trimmed. The server chose it; it is printed raw by the
/// human report.
fn printable(name: &str) -> String {
    let shown: String = name
        .chars()
        .map(|c| if c.is_control() || bidi(c) { '_' } else { c })
        .take(MAX_NAME)
        .collect();
    shown.trim().to_string()
}

/// Whether `c` is a bidirectional mark, embedding, override or isolate.
fn bidi(c: char) -> bool {
    matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// A name for a server that gave none: its program's file name, or its
/// URL's host and port.
fn fallback_name(server: &Server) -> String {
    match server {
        Server::Stdio(command) => words::split(command)
            .ok()
            .and_then(|words| words.into_iter().next())
            .map(|program| {
                std::path::Path::new(&program)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or(program)
            })
            .unwrap_or_else(|| "server".to_string()),
        Server::Url(address) => url::host(address),
        Server::Configured(_) => "server".to_string(),
    }
}

/// `mcp://<name>`, or with `-N` when an earlier server has that path.
fn unique_path(name: &str, earlier: &[Listed]) -> String {
    let taken = |path: &str| earlier.iter().flatten().any(|f| f.path == path);
    let first = format!("{SCHEME}{name}");
    if !taken(&first) {
        return first;
    }
    (2..)
        .map(|n| format!("{SCHEME}{name}-{n}"))
        .find(|path| !taken(path))
        .unwrap_or(first)
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_interruption_says_which_servers_were_ended() {
        let one = super::LiveError::Interrupted {
            servers: vec!["\"time\" in .mcp.json".to_string()],
            signal: libc::SIGINT,
        };
        assert_eq!(
            one.to_string(),
            "stopped by SIGINT while reading the MCP server \"time\" in .mcp.json; the server was ended"
        );
        let two = super::LiveError::Interrupted {
            servers: vec!["\"a\"".to_string(), "\"b\"".to_string()],
            signal: libc::SIGTERM,
        };
        assert_eq!(
            two.to_string(),
            "stopped by SIGTERM while reading the MCP servers \"a\", \"b\"; every one of them that had started was ended"
        );
    }

    use super::*;

    #[test]
    fn servers_that_share_a_name_are_told_apart() {
        let fetched = |path: &str| {
            Ok(Fetched {
                path: path.to_string(),
                name: String::new(),
                document: String::new(),
                warning: None,
                relisted: None,
            })
        };
        assert_eq!(unique_path("time", &[]), "mcp://time");
        let earlier = [fetched("mcp://time"), fetched("mcp://time-2")];
        assert_eq!(unique_path("time", &earlier), "mcp://time-3");
        assert_eq!(unique_path("clock", &earlier), "mcp://clock");
    }

    #[test]
    fn names_are_printable_and_short() {
        assert_eq!(printable("evil\n\u{1b}[31mred\u{202e}"), "evil__[31mred_");
        assert_eq!(printable(&"x".repeat(10_000)).len(), MAX_NAME);
        assert_eq!(
            printable("mcp-servers/everything"),
            "mcp-servers/everything"
        );
    }

    #[test]
    fn a_server_without_a_name_is_named_by_its_program_or_host() {
        let stdio = Server::Stdio("/usr/bin/python3 -m server".to_string());
        assert_eq!(fallback_name(&stdio), "python3");
        let url = Server::Url("http://127.0.0.1:8080/mcp".to_string());
        assert_eq!(fallback_name(&url), "127.0.0.1:8080");
    }

    #[test]
    fn the_document_is_pretty_json_in_the_servers_order() {
        let tools = vec![
            serde_json::json!({"name": "b", "inputSchema": {"type": "object"}}),
            serde_json::json!({"name": "a", "inputSchema": {"type": "object"}}),
        ];
        let text = document_of(tools).unwrap();
        assert!(text.starts_with("{\n  \"tools\": [\n    {\n      \"name\": \"b\""));
        assert!(text.ends_with("}\n"));
    }
}
