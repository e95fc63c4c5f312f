//! `toolc serve`: the tools of some manifests as an MCP server, over stdio
//! or Streamable HTTP (the server itself is [`crate::serve`]).

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::ProtocolVersion;

use super::nats_args::NatsArgs;
use super::run_cmd::{RunnerArgs, parse_seconds};
use super::{CliError, Outcome, render};
use crate::nats::connect::Options;
use crate::project::ReadLog;
use crate::providers::mcp::{self, SERVED_VERSIONS};
use crate::run::LoadError;
use crate::serve::log::{self, Level};
use crate::serve::pinned::Pinned;
use crate::serve::watch::{Load, Watch};
use crate::serve::{Ended, Handler, Limits, Served, Settings, Transport};

mod fleet;

/// The headings of serve's own flags in `--help`.
const HTTP: &str = "HTTP";
const NATS: &str = "NATS";

#[derive(Debug, clap::Args)]
pub(super) struct ServeArgs {
    /// The manifests, or `builtin` for the built-in tools.
    ///
    /// Files, or directories read as `toolc lint` reads them. The built-in tools are
    /// list_files, read_file, write_file, shell and fetch.
    #[arg(value_name = "PATH", required_unless_present = "nats_url")]
    paths: Vec<PathBuf>,
    /// Serve the tools of the NATS workers at URL instead of manifests.
    ///
    /// One URL, or several comma-separated: a cluster. The tools are found through NATS
    /// services discovery ($SRV.INFO), each call forwarded to a worker; --timeout bounds
    /// a call, retries included.
    #[arg(long, value_name = "URL", conflicts_with_all = ["paths", "watch", "nats"], help_heading = NATS)]
    nats_url: Option<String>,
    /// --nats-url: the seconds between two listings.
    ///
    /// The clients are told when the list changes.
    #[arg(long, value_name = "SECONDS", default_value = "2", value_parser = parse_seconds, requires = "nats_url", help_heading = NATS)]
    nats_poll: Duration,
    /// Serve Streamable HTTP at http://ADDR:PORT/mcp, not stdio.
    ///
    /// E.g. 127.0.0.1:8000, [::1]:8000 or localhost:8000; port 0 picks a free port. The
    /// address listened on is printed on stderr.
    #[arg(long, value_name = "ADDR:PORT", value_parser = parse_address, help_heading = HTTP)]
    http: Option<SocketAddr>,
    /// Let --http listen on an address other than loopback.
    ///
    /// Refused by default: the server has no authentication, so anyone who can reach
    /// the address can call the tools.
    #[arg(long, requires = "http", help_heading = HTTP)]
    allow_remote: bool,
    // The help lists the revisions served, written once in providers::mcp.
    #[arg(long = "protocol-version", value_name = "VERSION", value_parser = parse_version,
          help = "Offer only this protocol revision (repeatable)", long_help = protocol_version_help())]
    protocol_versions: Vec<ProtocolVersion>,
    /// The most tools one tools/list page holds.
    ///
    /// A longer list is paginated.
    #[arg(long, value_name = "N", default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..))]
    page_size: u32,
    /// The most tool calls running at once.
    ///
    /// Further calls wait for a slot.
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=1024))]
    max_concurrency: u32,
    /// Reload when the manifests, their code or the policy change.
    ///
    /// The files are polled a few times a second, and the clients are told when the
    /// tool list changes. A change with
    /// errors is not loaded: the previous tools stay served and the errors are logged.
    /// Not with --nats: a worker's NATS endpoints and their $SRV.INFO are fixed when it
    /// starts; a fleet takes changed manifests by a rolling restart (SIGTERM drains a
    /// worker while the others in its queue group answer).
    #[arg(long, conflicts_with = "nats")]
    watch: bool,
    // The help names the JSON-RPC error code, written once in providers::mcp.
    #[arg(long, value_name = "SIZE", value_parser = parse_request_size, default_value = "16MiB",
          help = "The largest request the server reads", long_help = max_request_size_help())]
    max_request_size: usize,
    /// The most sessions open at once.
    ///
    /// At the limit the session idle longest is closed for a new one; when every
    /// session is busy, a new client gets HTTP 503 with Retry-After.
    #[arg(long, value_name = "N", default_value_t = 1024, value_parser = clap::value_parser!(u32).range(1..), requires = "http", help_heading = HTTP)]
    max_sessions: u32,
    /// The seconds an idle session lives on.
    ///
    /// A session without an open stream and without a message from its client.
    #[arg(long, value_name = "SECONDS", default_value = "300", value_parser = parse_seconds, requires = "http", help_heading = HTTP)]
    session_idle_timeout: Duration,
    /// The seconds a request's head may take.
    #[arg(long, value_name = "SECONDS", default_value = "10", value_parser = parse_seconds, requires = "http", help_heading = HTTP)]
    header_timeout: Duration,
    /// The seconds a request's body may take.
    ///
    /// A client slower to send it gets HTTP 408 and its connection is closed.
    #[arg(long, value_name = "SECONDS", default_value = "30", value_parser = parse_seconds, requires = "http", help_heading = HTTP)]
    body_timeout: Duration,
    /// The most connections open at once.
    ///
    /// More are answered HTTP 503 and closed. The open file limit is raised to its hard
    /// limit at start to hold them.
    #[arg(long, value_name = "N", default_value_t = 1024, value_parser = clap::value_parser!(u32).range(1..), requires = "http", help_heading = HTTP)]
    max_connections: u32,
    /// The most connections from one IP address.
    #[arg(long, value_name = "N", default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..), requires = "http", help_heading = HTTP)]
    max_connections_per_peer: u32,
    /// Also serve the tools on NATS, as a Nachos tool worker.
    ///
    /// And as a NATS service (`toolc`): one URL or several, comma-separated, as
    /// NATS_URL writes them (an empty value reads NATS_URL). Stdio MCP is served beside it (NATS serves on when
    /// stdin ends, until SIGTERM or SIGINT, which drain it and exit 0); with --http,
    /// HTTP beside it.
    #[arg(long, value_name = "URL", help_heading = NATS)]
    nats: Option<String>,
    /// --nats: the queue group the tools' subscriptions join.
    ///
    /// Workers in one group share the requests.
    #[arg(long, value_name = "NAME", default_value = crate::nats::service::DEFAULT_QUEUE, requires = "nats", help_heading = NATS)]
    nats_queue: String,
    /// --nats: the seconds running calls get at a SIGTERM.
    ///
    /// The calls running at a SIGTERM get them to finish; past it they are cancelled
    /// (and answered so).
    #[arg(long, value_name = "SECONDS", default_value = "10", value_parser = parse_seconds, requires = "nats", help_heading = NATS)]
    nats_grace: Duration,
    /// --nats: publish each call's audit record on SUBJECT.
    ///
    /// The line --audit writes; SUBJECT is nachos.audit.log by default. Give the
    /// manifests before this flag, or its value.
    #[arg(long, value_name = "SUBJECT", num_args = 0..=1, default_missing_value = crate::nats::nachos::AUDIT_SUBJECT, requires = "nats", help_heading = NATS)]
    nats_audit: Option<String>,
    /// How much the server logs on stderr.
    ///
    /// Standard output carries only the protocol.
    #[arg(long, value_enum, value_name = "LEVEL", default_value_t = Level::Warn)]
    log_level: Level,
    // After the flags of no heading: NatsArgs sets the heading of the
    // flags that follow it.
    #[command(flatten)]
    nats_args: NatsArgs,
    #[command(flatten)]
    runner: RunnerArgs,
    // --locked, --lock-file (their help says what serve does with them).
    #[command(flatten)]
    locked: super::lock_cmd::LockedArgs,
}

/// What `toolc serve` does, in a line (`toolc help`).
pub(super) const ABOUT: &str =
    "Serve the tools of manifests to MCP clients, over stdio or Streamable HTTP";

/// `toolc serve --help`: what the server lists and calls, the revisions
/// it negotiates, and its exit codes.
pub(super) fn long_about() -> String {
    format!(
        "{ABOUT}.\n\n\
         Every tool of the manifests is listed (tools/list, in manifest order, with the \
         entries `toolc gen mcp` writes: input and output schemas, title, annotations) and \
         called through the runner, as `toolc run` calls it: validation, policy, sandbox and \
         limits apply to every call. A failure, a validation error, a refusal or a timeout \
         is a result with isError and the error's code and message; an unknown tool is a \
         JSON-RPC error. A cancelled request kills the call's processes. Protocol revisions \
         {} are negotiated per client. Manifests with errors are refused at start with the \
         lint report.\n\n\
         Exit codes: 0 the stdio client closed stdin (an HTTP server runs until a signal), 2 \
         the server could not start (bad flags, manifests with errors, an address in use) or \
         the stdio client could not (a revision the server does not offer), 130, 143, 129 \
         stopped by SIGINT, SIGTERM, SIGHUP (running calls cancelled first).",
        served_versions("and")
    )
}

/// `--protocol-version`'s help.
fn protocol_version_help() -> String {
    format!(
        "Offer only this protocol revision (repeatable): {}. Default: all three, negotiated \
         per client",
        served_versions("or")
    )
}

/// `--max-request-size`'s help.
fn max_request_size_help() -> String {
    format!(
        "The largest request the server reads (a stdio line, an HTTP body), e.g. 16MiB or \
         64KiB; a larger one is answered with an error (JSON-RPC {}, HTTP 413)",
        mcp::INVALID_REQUEST.0
    )
}

/// The revisions served, as a sentence lists them: "A, B and C" (or
/// "A, B or C": `last` joins the last one).
fn served_versions(last: &str) -> String {
    let dates: Vec<&str> = SERVED_VERSIONS
        .iter()
        .map(ProtocolVersion::as_str)
        .collect();
    match dates.split_last() {
        None => String::new(),
        Some((only, [])) => (*only).to_string(),
        Some((final_one, rest)) => format!("{} {last} {final_one}", rest.join(", ")),
    }
}

/// An IP address and a port; `localhost:PORT` is 127.0.0.1 (no name is
/// looked up: the server listens where the user can see it does).
fn parse_address(text: &str) -> Result<SocketAddr, String> {
    let text = text.trim();
    if let Ok(address) = text.parse() {
        return Ok(address);
    }
    match text.rsplit_once(':') {
        Some((host, port)) if host.eq_ignore_ascii_case("localhost") => port
            .parse::<u16>()
            .map(|port| SocketAddr::from(([127, 0, 0, 1], port)))
            .map_err(|_| format!("\"{port}\" is not a port (0 to 65535)")),
        Some(_) => Err(format!(
            "\"{text}\" is not an IP address and a port: give e.g. 127.0.0.1:8000"
        )),
        None => Err(format!(
            "\"{text}\" has no port: give an IP address and a port, e.g. 127.0.0.1:8000"
        )),
    }
}

fn parse_request_size(text: &str) -> Result<usize, String> {
    let size = crate::project::config::parse_size(text)?;
    match usize::try_from(size) {
        Ok(size) if size >= 1024 => Ok(size),
        _ => Err(format!("\"{text}\": give a size from 1KiB up")),
    }
}

fn parse_version(text: &str) -> Result<ProtocolVersion, String> {
    SERVED_VERSIONS
        .iter()
        .find(|v| v.as_str() == text.trim())
        .cloned()
        .ok_or_else(|| {
            let known: Vec<&str> = SERVED_VERSIONS
                .iter()
                .map(ProtocolVersion::as_str)
                .collect();
            format!(
                "\"{text}\" is not a revision toolc serves ({})",
                known.join(", ")
            )
        })
}

pub(super) fn run(args: &ServeArgs, color: bool, err: &mut dyn Write) -> Result<Outcome, CliError> {
    log::set_level(args.log_level);
    log::capture_library_events();
    let transport = match args.http {
        None => Transport::Stdio,
        Some(addr) if !addr.ip().is_loopback() && !args.allow_remote => {
            return Err(CliError::Usage(format!(
                "--http {addr} is not a loopback address: the server has no authentication, so \
                 pass --allow-remote to let other machines call the tools"
            )));
        }
        Some(addr) => Transport::Http(addr),
    };
    if let Some(urls) = &args.nats_url {
        return fleet::run(args, urls, transport, pinned(args)?, err);
    }
    let builtin = crate::serve::is_builtin(&args.paths);
    if builtin && args.locked.locked {
        return Err(CliError::Usage(
            "--locked pins the tools of manifests; the built-in tools are toolc's own".to_string(),
        ));
    }
    if !builtin && let Some(missing) = args.paths.iter().find(|p| !p.exists()) {
        return Err(CliError::PathNotFound(missing.clone()));
    }
    let watching = args.watch && !builtin;
    if args.watch && builtin {
        log::warn(format_args!(
            "--watch: the built-in tools do not change; nothing to watch"
        ));
    }
    let nats = nats_options(args)?;
    let audit = match (&nats, &args.nats_audit) {
        (Some(_), Some(subject)) => {
            let (sink, records) = crate::serve::nats::audit_channel();
            Some((subject.clone(), sink, records))
        }
        _ => None,
    };
    let sink = audit.as_ref().map(|(_, sink, _)| Arc::clone(sink));
    let pinned = pinned(args)?;
    let mut options = args.runner.options()?;
    options.audit_sink = sink.clone();
    let mut watch = watching.then(|| {
        let mut roots = args.paths.clone();
        roots.extend(args.runner.policy_file().cloned());
        Watch::new(roots, options.audit.iter().cloned().collect())
    });
    let before = watch.as_ref().map(Watch::snapshot);
    let read_log = watching.then(|| Arc::new(ReadLog::new()));
    let mut withheld = Vec::new();
    let loaded = Served::load(
        &args.paths,
        options,
        read_log.clone(),
        pinned.as_ref().map(|p| (p, &mut withheld)),
    );
    for line in &withheld {
        log::notice(format_args!("--locked: {line}"));
    }
    if let (Some(watch), Some(before), Some(read_log)) = (&mut watch, before, &read_log) {
        watch.loaded(before, read_log);
    }
    let served = match loaded {
        Ok(served) => served,
        Err(LoadError::Findings(report)) => {
            err.write_all(render::render(render::ReportFormat::Human, &report, color).as_bytes())?;
            let shown: Vec<String> = args.paths.iter().map(|p| p.display().to_string()).collect();
            return Err(CliError::BrokenManifests {
                manifest: PathBuf::from(shown.join(" ")),
                source: LoadError::Findings(report),
            });
        }
        Err(error) => return Err(error.into()),
    };
    for warning in served.runner().map(|r| r.warnings()).unwrap_or_default() {
        log::warn(format_args!("{warning}"));
    }
    let settings = settings(args, watching);
    log::info(format_args!(
        "serving {} tool(s) over {}",
        served.tools.len(),
        shown(&transport)
    ));
    let handler = Handler::new(served, settings);
    let watching = watch.map(|watch| (watch, reload(args, sink, pinned)));
    let nats = nats.map(|options| crate::serve::nats::Settings {
        options,
        queue: args.nats_queue.clone(),
        max_concurrency: args.max_concurrency as usize,
        max_request: args.max_request_size,
        grace: args.nats_grace,
        audit: audit.map(|(subject, _, records)| (subject, records)),
    });
    serve(args, handler, transport, watching, nats, err)
}

/// How the server behaves; `list_changes`: the tool list may change.
fn settings(args: &ServeArgs, list_changes: bool) -> Settings {
    let versions: Vec<ProtocolVersion> = SERVED_VERSIONS
        .iter()
        .filter(|v| args.protocol_versions.is_empty() || args.protocol_versions.contains(v))
        .cloned()
        .collect();
    Settings {
        page_size: args.page_size as usize,
        max_concurrency: args.max_concurrency as usize,
        versions,
        watch: list_changes,
    }
}

fn shown(transport: &Transport) -> &'static str {
    match transport {
        Transport::Stdio => "stdio",
        Transport::Http(_) => "Streamable HTTP",
    }
}

/// Serves `handler` on `transport` until it ends.
fn serve(
    args: &ServeArgs,
    handler: Handler,
    transport: Transport,
    watching: Option<(Watch, Arc<Load>)>,
    nats: Option<crate::serve::nats::Settings>,
    err: &mut dyn Write,
) -> Result<Outcome, CliError> {
    let mut announce = |addr: SocketAddr| {
        // Written whatever the log level: a client (or a test that asked for
        // port 0) needs it.
        let _ = writeln!(
            err,
            "toolc serve: listening on http://{addr}{}",
            crate::serve::HTTP_PATH
        );
        let _ = err.flush();
    };
    let drains = nats.is_some();
    let limits = Limits {
        max_request: args.max_request_size,
        max_sessions: args.max_sessions as usize,
        session_idle: args.session_idle_timeout,
        header_timeout: args.header_timeout,
        body_timeout: args.body_timeout,
        max_connections: args.max_connections as usize,
        max_connections_per_peer: args.max_connections_per_peer as usize,
    };
    match crate::serve::serve(handler, transport, &limits, &mut announce, watching, nats)? {
        Ended::Closed => Ok(Outcome::Clean),
        // A NATS worker stopped by a signal drained: that is its clean end.
        Ended::Signal(_) if drains => Ok(Outcome::Clean),
        Ended::Signal(signal) => Ok(Outcome::Interrupted(signal)),
    }
}

/// The NATS connection `--nats` and its flags ask for (`None` without
/// `--nats`).
fn nats_options(args: &ServeArgs) -> Result<Option<Options>, CliError> {
    let Some(urls) = &args.nats else {
        return Ok(None);
    };
    let urls = if urls.trim().is_empty() {
        std::env::var("NATS_URL").unwrap_or_default()
    } else {
        urls.clone()
    };
    args.nats_args.options(&urls).map(Some)
}

/// The lock `--locked` names, read (`None` without it).
fn pinned(args: &ServeArgs) -> Result<Option<Pinned>, CliError> {
    let linter = crate::lint::Linter::new(crate::lint::LintOptions::default())?;
    let Some((file, lock)) = args.locked.read(&linter)? else {
        return Ok(None);
    };
    Ok(Some(Pinned {
        lock,
        shown: crate::project::display_path(&file),
        keys: super::lock_cmd::keys(&file)?,
    }))
}

/// How `--watch` loads the manifests again: as at the start (the policy
/// file read again too), a failure told as the concise lint report.
fn reload(
    args: &ServeArgs,
    sink: Option<crate::run::AuditSink>,
    pinned: Option<Pinned>,
) -> Arc<Load> {
    let paths = args.paths.clone();
    let runner = args.runner.clone();
    Arc::new(move |read_log: &Arc<ReadLog>| {
        let mut options = runner.options().map_err(|e| e.to_string())?;
        options.audit_sink = sink.clone();
        let mut withheld = Vec::new();
        let pinned = pinned.as_ref().map(|p| (p, &mut withheld));
        let loaded = Served::load(&paths, options, Some(Arc::clone(read_log)), pinned);
        for line in &withheld {
            log::notice(format_args!("--locked: {line}"));
        }
        match loaded {
            Ok(served) => Ok(served),
            Err(LoadError::Findings(report)) => Err(render::render(
                render::ReportFormat::Concise,
                &report,
                false,
            )),
            Err(error) => Err(error.to_string()),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_help_lists_every_revision_served() {
        // `--protocol-version`'s help says "all three".
        assert_eq!(SERVED_VERSIONS.len(), 3);
        let help = protocol_version_help();
        for version in &SERVED_VERSIONS {
            assert!(help.contains(version.as_str()), "{help}");
            assert!(long_about().contains(version.as_str()));
        }
        assert!(max_request_size_help().contains("JSON-RPC -32600,"));
    }

    #[test]
    fn http_addresses_are_ip_and_port_or_localhost() {
        let parsed = |text: &str| parse_address(text).map(|a| a.to_string());
        assert_eq!(parsed("127.0.0.1:8000").unwrap(), "127.0.0.1:8000");
        assert_eq!(parsed("[::1]:0").unwrap(), "[::1]:0");
        assert_eq!(parsed("localhost:8000").unwrap(), "127.0.0.1:8000");
        assert_eq!(parsed(" LocalHost:0 ").unwrap(), "127.0.0.1:0");
        assert!(
            parsed("localhost:70000")
                .unwrap_err()
                .contains("is not a port")
        );
        assert!(
            parsed("example.com:80")
                .unwrap_err()
                .contains("127.0.0.1:8000")
        );
        assert!(parsed("127.0.0.1").unwrap_err().contains("has no port"));
    }
}
