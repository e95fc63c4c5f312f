//! How a subcommand ends, and the one place that turns that into an exit
//! code.
//!
//! Every subcommand returns `Result<Outcome, CliError>`. [`Outcome`] says
//! how a run that did its job ended (clean, with findings, refused, a tool
//! that failed); [`CliError`] says why a run could not do its job, and
//! keeps the stage error that caused it (`#[from]` / `#[source]`, never a
//! string made of it). [`exit_code`] is the only function that chooses
//! `0`, `1` or `2`, and [`write_error`] prints an error with its causes.

use std::io::Write;
use std::path::PathBuf;

use crate::diagnostic::{Diagnostic, Severity};

/// The exit code of a run with nothing to fail on.
const EXIT_CLEAN: u8 = 0;
/// The exit code of a run whose findings include an error (or what
/// `--fail-on` names), a refusal, or a tool call that failed.
const EXIT_FINDINGS: u8 = 1;
/// The exit code of a run that could not do its job.
const EXIT_FAILURE: u8 = 2;
/// `toolc call`: no worker serves the tool (nobody subscribes to its
/// subject).
const EXIT_NO_WORKER: u8 = 3;
/// `toolc call`: an idempotent tool answered no attempt in time.
const EXIT_TIMED_OUT: u8 = 4;
/// `toolc call`: a tool not known to be idempotent did not answer in
/// time; it may have run.
const EXIT_OUTCOME_UNKNOWN: u8 = 5;

/// How a subcommand that did its job ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Outcome {
    /// Nothing that fails the run.
    Clean,
    /// Findings at the failing level (lint), or fixes that `--diff` shows.
    Findings,
    /// Nothing was generated or written, on purpose: the manifests have
    /// error-level findings, `--strict` losses, files that would change
    /// without `--force`. What was refused has been reported.
    Refused,
    /// `toolc run`: the tool failed or was denied; its JSON line says why.
    ToolFailed,
    /// `toolc run` was stopped by this signal (SIGINT, SIGTERM, SIGHUP)
    /// after its call was cancelled: `128 + signal`, as a shell reports it.
    Interrupted(i32),
    /// `toolc call`: no worker serves the tool (said on stderr).
    NoWorker,
    /// `toolc call`: no answer in time, though retried (said on stderr).
    TimedOut,
    /// `toolc call`: no answer in time, and the tool may have run (said
    /// on stderr).
    UnknownResult,
    /// `toolc lint --mcp-config`: what could be read was reported, but a
    /// server could not be read (said on stderr): the run could not do
    /// all of its job.
    Incomplete,
}

impl Outcome {
    /// Findings at `fail_on` or above fail the run, unless `exit_zero`.
    pub(super) fn of_findings(
        diagnostics: &[Diagnostic],
        fail_on: Severity,
        exit_zero: bool,
    ) -> Outcome {
        let failing = diagnostics.iter().any(|d| d.severity >= fail_on);
        if failing && !exit_zero {
            Outcome::Findings
        } else {
            Outcome::Clean
        }
    }
}

/// Why a command could not do its job (exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The command line does not parse; clap renders it.
    #[error(transparent)]
    Arguments(#[from] clap::Error),
    /// A flag combination or value that toolc itself rejects.
    #[error("{0}")]
    Usage(String),
    #[error("{}: no such file or directory", shown(.0))]
    PathNotFound(PathBuf),
    /// A file read twice in one run (its text let go in between) no longer
    /// holds what the first read saw.
    #[error("{0} changed or went away while toolc ran; run it again")]
    InputChanged(String),
    #[error(transparent)]
    Lint(#[from] crate::lint::LintError),
    /// The front end could not load (a path missing, a `toolc.toml` that
    /// cannot be used).
    #[error(transparent)]
    Load(#[from] crate::project::LoadError),
    #[error(transparent)]
    Config(#[from] crate::project::ConfigError),
    #[error(transparent)]
    Emit(#[from] crate::emit::EmitError),
    #[error(transparent)]
    RunnerLoad(#[from] crate::run::LoadError),
    #[error(transparent)]
    Policy(#[from] crate::run::policy::PolicyError),
    #[error(transparent)]
    Serve(#[from] crate::serve::ServeError),
    /// `toolc run` on manifests with error-level findings (rendered already).
    #[error(
        "not running tools of manifests with errors (`toolc lint {}` shows them)",
        shown(manifest)
    )]
    BrokenManifests {
        manifest: PathBuf,
        #[source]
        source: crate::run::LoadError,
    },
    #[error("cannot read standard input")]
    ReadStdin(#[source] std::io::Error),
    #[error("cannot read the arguments from {from}")]
    ReadArguments {
        from: String,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "the arguments in {from} are over the limit of {limit} bytes (--max-args-size raises it)"
    )]
    ArgumentsTooLarge { from: String, limit: u64 },
    #[error("the arguments in {from} are not JSON")]
    ArgumentsNotJson {
        from: String,
        #[source]
        source: serde_json::Error,
    },
    #[error("cannot write {}", shown(path))]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A file of a run could not be written; no file of the run was.
    #[error("nothing was written: cannot write {}", shown(path))]
    NotWritten {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Every file of a run was written, but one could not be put in place:
    /// those before it were.
    #[error("cannot put {} in place; already replaced: {}", shown(path), if done.is_empty() { "none".to_string() } else { list(done) })]
    PartlyWritten {
        path: PathBuf,
        #[source]
        source: std::io::Error,
        done: Vec<PathBuf>,
    },
    /// Something that is not a regular file is where a generated file goes.
    #[error("nothing was written: something that is not a regular file is in the way of {}", list(.0))]
    InTheWay(Vec<PathBuf>),
    #[error("cannot write output")]
    Output(#[from] std::io::Error),
    /// A live MCP server (`--mcp-stdio`, `--mcp-url`) whose tools could not
    /// be read.
    #[error(transparent)]
    Live(#[from] crate::live::LiveError),
    /// An `--mcp-config` file that cannot be read, or holds no server map.
    #[error(transparent)]
    McpConfig(#[from] crate::live::config::ConfigError),
    /// An entry of an `--mcp-config` file that names no server toolc can
    /// read (said on its own; the others are still read).
    #[error(transparent)]
    McpEntry(#[from] crate::live::config::EntryError),
    /// Servers of `--mcp-config` files that could not be read (each said
    /// on stderr already).
    #[error(
        "{} of the --mcp-config files could not be read (said above); nothing was written",
        if *count == 1 { "1 MCP server".to_string() } else { format!("{count} MCP servers") }
    )]
    ServersFailed { count: usize },
    /// A NATS server that could not be reached or refused the login.
    #[error(transparent)]
    NatsConnect(#[from] crate::nats::connect::ConnectError),
    #[error(transparent)]
    NatsCall(#[from] crate::nats::call::CallError),
    #[error(transparent)]
    NatsDiscover(#[from] crate::nats::discover::DiscoverError),
    #[error("cannot start the async runtime")]
    Runtime(#[source] std::io::Error),
    /// A lock file that cannot be read or is not one.
    #[error(transparent)]
    Lock(#[from] crate::lock::LockError),
    /// `--locked` without a lock file: where it was looked for.
    #[error(
        "--locked: no toolc.lock at {0} (pin the tools first with `toolc lock`, or name the \
         file with --lock-file)"
    )]
    LockMissing(String),
}

fn list(paths: &[PathBuf]) -> String {
    let shown: Vec<String> = paths.iter().map(|p| shown(p)).collect();
    shown.join(", ")
}

/// A path in an error message, on its line and unable to act on the
/// terminal (see [`crate::terminal`]).
fn shown(path: &std::path::Path) -> String {
    crate::terminal::path(path)
}

/// The one choice of exit code: `0` clean, `1` findings, a refusal or a
/// failed tool, `2` the run could not be made (or only in part: a server
/// of `--mcp-config` could not be read), `128 + n` a run stopped by
/// signal `n` (130 SIGINT, 143 SIGTERM, 129 SIGHUP). A reader that stopped
/// reading (`toolc rules | head`) took what it wanted: `0`, as the tools
/// of a pipeline do.
pub(super) fn exit_code(result: &Result<Outcome, CliError>) -> u8 {
    match result {
        Ok(Outcome::Clean) => EXIT_CLEAN,
        Ok(Outcome::Findings | Outcome::Refused | Outcome::ToolFailed) => EXIT_FINDINGS,
        Ok(Outcome::NoWorker) => EXIT_NO_WORKER,
        Ok(Outcome::TimedOut) => EXIT_TIMED_OUT,
        Ok(Outcome::UnknownResult) => EXIT_OUTCOME_UNKNOWN,
        Ok(Outcome::Incomplete) => EXIT_FAILURE,
        Ok(Outcome::Interrupted(signal))
        | Err(CliError::Live(crate::live::LiveError::Interrupted { signal, .. })) => {
            u8::try_from(128 + signal).unwrap_or(EXIT_FAILURE)
        }
        Err(error) if reader_went_away(error) => EXIT_CLEAN,
        Err(_) => EXIT_FAILURE,
    }
}

/// Whether the output was a pipe whose reader closed it.
fn reader_went_away(error: &CliError) -> bool {
    matches!(error, CliError::Output(e) if e.kind() == std::io::ErrorKind::BrokenPipe)
}

/// Prints `error` on `err`: clap's own rendering for a command line that
/// does not parse, otherwise `error: MESSAGE: CAUSE: CAUSE...`.
pub(super) fn write_error(error: &CliError, err: &mut dyn Write) {
    // Nobody is reading any more: end quietly.
    if reader_went_away(error) {
        return;
    }
    let text = match error {
        CliError::Arguments(error) => error.render().to_string(),
        _ => format!("error: {}\n", with_causes(error)),
    };
    // A path, a configuration file's line or an argument quoted in the
    // message must not act on the terminal; the line breaks of a
    // message's own layout (a TOML error's snippet) stay.
    let text = crate::terminal::keeping_lines(&text);
    // Nothing is left to tell the failure to if stderr is gone.
    let _ = err.write_all(text.as_bytes());
}

/// The error's message followed by each cause's. A stage error that
/// already ends with its cause's message (`cannot read X: {source}`) does
/// not get it twice.
fn with_causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(next) = cause {
        let message = next.to_string();
        if !message.is_empty() && !text.ends_with(&message) {
            text.push_str(": ");
            text.push_str(&message);
        }
        cause = next.source();
    }
    text
}

#[cfg(test)]
mod tests {
    #![allow(clippy::panic)]

    use super::*;

    #[test]
    fn a_write_error_says_the_file_and_the_cause() {
        let error = CliError::Write {
            path: PathBuf::from("out/tools.json"),
            source: std::io::Error::new(std::io::ErrorKind::PermissionDenied, "permission denied"),
        };
        assert_eq!(
            with_causes(&error),
            "cannot write out/tools.json: permission denied"
        );
    }

    #[test]
    fn a_cause_already_in_the_message_is_not_repeated() {
        let Err(policy) = crate::run::policy::Policy::from_toml_file(std::path::Path::new(
            "/nonexistent/toolc-policy.toml",
        )) else {
            panic!("a policy file that does not exist was read");
        };
        let text = with_causes(&CliError::from(policy));
        assert!(
            text.starts_with("cannot read policy file /nonexistent/toolc-policy.toml: "),
            "{text}"
        );
        let cause = text.rsplit(": ").next().unwrap_or_default();
        assert_eq!(text.matches(cause).count(), 1, "{text}");
    }

    #[test]
    fn outcomes_and_errors_map_to_the_documented_codes() {
        assert_eq!(exit_code(&Ok(Outcome::Clean)), 0);
        assert_eq!(exit_code(&Ok(Outcome::Findings)), 1);
        assert_eq!(exit_code(&Ok(Outcome::Refused)), 1);
        assert_eq!(exit_code(&Ok(Outcome::ToolFailed)), 1);
        assert_eq!(exit_code(&Ok(Outcome::Interrupted(libc::SIGINT))), 130);
        #[cfg(unix)]
        assert_eq!(exit_code(&Ok(Outcome::Interrupted(libc::SIGHUP))), 129);
        assert_eq!(exit_code(&Ok(Outcome::Interrupted(libc::SIGTERM))), 143);
        assert_eq!(exit_code(&Err(CliError::Usage("bad".to_string()))), 2);
        assert_eq!(exit_code(&Ok(Outcome::NoWorker)), 3);
        assert_eq!(exit_code(&Ok(Outcome::TimedOut)), 4);
        assert_eq!(exit_code(&Ok(Outcome::UnknownResult)), 5);
        assert_eq!(exit_code(&Ok(Outcome::Incomplete)), 2);
    }

    #[test]
    fn findings_fail_from_their_level_up_unless_exit_zero() {
        let warning = crate::lint::rules::conversion_loss::RULE.diagnostic("a.json", "", None, "w");
        let found = std::slice::from_ref(&warning);
        assert_eq!(
            Outcome::of_findings(found, Severity::Error, false),
            Outcome::Clean
        );
        assert_eq!(
            Outcome::of_findings(found, Severity::Warning, false),
            Outcome::Findings
        );
        assert_eq!(
            Outcome::of_findings(found, Severity::Warning, true),
            Outcome::Clean
        );
    }
}
