//! `toolc run`: call one tool of a manifest through the embedded runner.

use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use super::{CliError, Outcome, render};
use crate::run::builtin::Reach;
use crate::run::{LoadError, Policy, Runner, RunnerOptions};
use crate::terminal::one_line;

#[derive(Debug, clap::Args)]
pub(super) struct RunArgs {
    /// The manifest, or `builtin` for the built-in tools.
    ///
    /// A file, or a directory read as `toolc lint` reads it. The built-in tools are
    /// list_files, read_file, write_file, shell and fetch.
    #[arg(value_name = "MANIFEST")]
    manifest: PathBuf,
    /// The tool to call.
    #[arg(value_name = "TOOL", required_unless_present = "list")]
    tool: Option<String>,
    /// The arguments as a JSON object.
    ///
    /// Without --args or --args-file, they are read from standard input; an empty input
    /// means {}.
    #[arg(long, value_name = "JSON", conflicts_with = "args_file")]
    args: Option<String>,
    /// Read the arguments from this file (`-` for standard input).
    #[arg(long, value_name = "FILE")]
    args_file: Option<PathBuf>,
    /// The largest arguments document read.
    ///
    /// From --args, --args-file or standard input, e.g. 16MiB or 64KiB; a larger one is
    /// refused before it is read whole.
    #[arg(long, value_name = "SIZE", value_parser = crate::project::config::parse_size, default_value = "16MiB")]
    max_args_size: u64,
    /// List the tools and their parameters instead of calling one.
    #[arg(long, conflicts_with_all = ["tool", "args", "args_file"])]
    list: bool,
    #[command(flatten)]
    runner: RunnerArgs,
}

/// The headings of the runner's flags in `--help`.
const LIMITS: &str = "Limits";
const POLICY: &str = "Policy";
const SANDBOX: &str = "Sandbox";
const PYTHON: &str = "Python";

/// How the runner runs tools: the flags `toolc run` and `toolc serve`
/// share.
#[derive(Debug, Clone, clap::Args)]
pub(super) struct RunnerArgs {
    /// A time limit in seconds for the tool.
    ///
    /// In place of its manifest's (agentcli timeoutSec) and of the default, 30.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds, help_heading = LIMITS)]
    timeout: Option<Duration>,
    /// The most the tool may print on stdout.
    ///
    /// Past it the tool is killed. A size such as 1MiB or 64KiB.
    #[arg(long, value_name = "SIZE", value_parser = crate::project::config::parse_size, default_value = "1MiB", help_heading = LIMITS)]
    max_output: u64,
    /// A memory limit for the call, e.g. 512MiB.
    ///
    /// In place of its manifest's (Nachos resources.memory) and of the default, 1GiB:
    /// counted by the call's cgroup (shared memory and memfd included), or an
    /// address-space limit where no cgroup can be made. At least 1MiB: below it no tool
    /// can even start.
    #[arg(long, value_name = "SIZE", value_parser = parse_memory, help_heading = LIMITS)]
    memory: Option<u64>,
    /// The most processes the call may hold at once (default 256).
    ///
    /// The call's cgroup's pids.max, or RLIMIT_NPROC where no cgroup can be made.
    #[arg(long, value_name = "COUNT", value_parser = clap::value_parser!(u64).range(1..), help_heading = LIMITS)]
    max_processes: Option<u64>,
    /// The Python interpreter for NORA and AgentStack tools.
    #[arg(long, value_name = "PATH", default_value = "python3", help_heading = PYTHON)]
    python: PathBuf,
    /// Run Nachos tools up to this security tier (default 2).
    ///
    /// 3 allows tier-3 tools; tier 4 never runs.
    #[arg(long, value_name = "TIER", help_heading = POLICY)]
    allow_tier: Option<i64>,
    /// Policy rules (TOML).
    ///
    /// Allowed tools, forbidden patterns, default rules to turn off.
    #[arg(long, value_name = "FILE", help_heading = POLICY)]
    policy: Option<PathBuf>,
    /// The directory the built-in tools are confined to.
    ///
    /// Default: the working directory.
    #[arg(long, value_name = "DIR", help_heading = POLICY)]
    workspace: Option<PathBuf>,
    /// Append a JSON line per call to this file.
    ///
    /// Its time, tool, a digest of the arguments, the decision, the duration and the
    /// exit code.
    #[arg(long, value_name = "FILE", help_heading = POLICY)]
    audit: Option<PathBuf>,
    /// Let the tool also read this directory (repeatable).
    #[arg(long, value_name = "DIR", help_heading = SANDBOX)]
    allow_read: Vec<PathBuf>,
    /// Run without the sandbox.
    ///
    /// No namespaces, Landlock rules or seccomp filter; every other limit still
    /// applies.
    #[arg(long, help_heading = SANDBOX)]
    no_sandbox: bool,
    /// Let the built-in fetch reach loopback and private-network addresses.
    ///
    /// And link-local ones. Refused by default, so that a tool cannot reach services on
    /// this machine or its network, such as a cloud metadata endpoint.
    #[arg(long, help_heading = SANDBOX)]
    allow_private_network: bool,
    /// Run tools without namespaces of their own, under Landlock alone.
    ///
    /// No user, PID, mount, IPC and network namespaces, as on a machine that forbids
    /// user namespaces.
    #[arg(long, help_heading = SANDBOX)]
    no_namespaces: bool,
    /// Run with the whole network where egress cannot be enforced.
    ///
    /// A tool that declares one, where toolc cannot enforce it (no user namespaces, or
    /// --no-namespaces), runs with the host's whole network, and the built-in shell with
    /// the network there. Without this, such a tool is refused and the shell gets no
    /// network.
    #[arg(long, help_heading = SANDBOX)]
    allow_unenforced_egress: bool,
    /// Start a fresh Python interpreter for the call.
    ///
    /// Instead of forking it from a server that imported the tool (NORA and AgentStack
    /// tools).
    #[arg(long, help_heading = PYTHON)]
    cold: bool,
}

impl RunnerArgs {
    /// The policy file given, if any (what `toolc serve --watch` watches
    /// beside the manifests).
    pub(super) fn policy_file(&self) -> Option<&PathBuf> {
        self.policy.as_ref()
    }

    /// The runner's options these flags give (the policy file read now).
    pub(super) fn options(&self) -> Result<RunnerOptions, CliError> {
        let mut policy = match &self.policy {
            Some(path) => {
                let (policy, warnings) = Policy::read_toml_file(path)?;
                for warning in warnings {
                    eprintln!("warning: {}", crate::terminal::keeping_lines(&warning));
                }
                policy
            }
            None => Policy::default(),
        };
        if let Some(tier) = self.allow_tier {
            policy.allow_tier = tier;
        }
        Ok(RunnerOptions {
            timeout: self.timeout,
            max_output: usize::try_from(self.max_output).unwrap_or(usize::MAX),
            memory: self.memory,
            max_processes: self.max_processes,
            python: self.python.clone(),
            policy,
            sandbox: !self.no_sandbox,
            namespaces: !self.no_namespaces,
            read_dirs: self.allow_read.clone(),
            workspace: self.workspace.clone(),
            audit: self.audit.clone(),
            audit_sink: None,
            fetch_reach: if self.allow_private_network {
                Reach::Any
            } else {
                Reach::Public
            },
            allow_unenforced_egress: self.allow_unenforced_egress,
            cold: self.cold,
        })
    }
}

pub(super) fn parse_seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("\"{text}\" is not a number of seconds"))?;
    if seconds.is_nan() || seconds <= 0.0 {
        return Err(format!("\"{text}\": the time limit must be positive"));
    }
    if seconds > 86_400.0 * 365.0 {
        return Err(format!("\"{text}\": the time limit can be at most a year"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

pub(super) fn run(
    args: &RunArgs,
    color: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Outcome, CliError> {
    let options = args.runner.options()?;
    let builtin = args.manifest.as_os_str() == "builtin";
    let loaded = if builtin {
        Runner::builtin(options)
    } else {
        if !args.manifest.exists() {
            return Err(CliError::PathNotFound(args.manifest.clone()));
        }
        Runner::load(std::slice::from_ref(&args.manifest), options)
    };
    let runner = match loaded {
        Ok(runner) => runner,
        Err(LoadError::Findings(report)) => {
            err.write_all(render::render(render::ReportFormat::Human, &report, color).as_bytes())?;
            return Err(CliError::BrokenManifests {
                manifest: args.manifest.clone(),
                source: LoadError::Findings(report),
            });
        }
        Err(error) => return Err(error.into()),
    };
    if args.list {
        list(&runner, out)?;
        return Ok(Outcome::Clean);
    }
    let Some(tool) = &args.tool else {
        return Err(CliError::Usage(
            "name the tool to call (or pass --list)".to_string(),
        ));
    };
    let arguments = arguments(args)?;
    for warning in runner.warnings() {
        writeln!(err, "warning: {warning}")?;
    }
    let (result, interrupted) = match interrupt::Guard::install() {
        Some(guard) => {
            let result = runner.call_with(tool, arguments, guard.token());
            // Stopped by SIGINT, SIGTERM or SIGHUP: the call was cancelled,
            // its processes are gone (its whole PID namespace) and its
            // scratch directory removed; toolc then exits 128 + signal.
            (result, guard.finish())
        }
        None => (runner.call(tool, arguments), None),
    };
    writeln!(out, "{}", result.to_json_line())?;
    if let Some(error) = &result.error {
        let tier = runner
            .tools()
            .find(|t| t.name == *tool)
            .and_then(|t| t.permissions.security_tier);
        if error.details.get("rule").and_then(Value::as_str) == Some("security-tier")
            && tier == Some(3)
        {
            writeln!(err, "hint: pass --allow-tier 3 to run tier-3 tools")?;
        }
    }
    Ok(match interrupted {
        Some(signal) => Outcome::Interrupted(signal),
        None if result.success => Outcome::Clean,
        None => Outcome::ToolFailed,
    })
}

/// The call's arguments from --args, --args-file or standard input, at
/// most `--max-args-size` bytes of them: a larger document is refused
/// after reading one byte past the limit, never read whole.
fn arguments(args: &RunArgs) -> Result<Value, CliError> {
    read_arguments(
        args.args.as_deref(),
        args.args_file.as_deref(),
        args.max_args_size,
    )
}

/// The arguments of a call from `--args` (`inline`), `--args-file` or
/// standard input, at most `limit` bytes (what `toolc call` reads too).
pub(super) fn read_arguments(
    inline: Option<&str>,
    file: Option<&std::path::Path>,
    limit: u64,
) -> Result<Value, CliError> {
    let (text, from) = if let Some(text) = inline {
        let from = "--args".to_string();
        if u64::try_from(text.len()).map_or(true, |len| len > limit) {
            return Err(CliError::ArgumentsTooLarge { from, limit });
        }
        (text.to_string(), from)
    } else {
        let path = file.map_or_else(|| PathBuf::from("-"), std::path::Path::to_path_buf);
        if path.as_os_str() == "-" {
            let stdin = std::io::stdin();
            if file.is_none() && stdin.is_terminal() {
                return Err(CliError::Usage(
                    "give the arguments with --args JSON, --args-file FILE or on standard input"
                        .to_string(),
                ));
            }
            let from = "standard input".to_string();
            let text = read_limited(stdin.lock(), &from, limit)?;
            (text, from)
        } else {
            let from = crate::terminal::path(&path);
            let file = std::fs::File::open(&path).map_err(|source| CliError::ReadArguments {
                from: from.clone(),
                source,
            })?;
            let text = read_limited(file, &from, limit)?;
            (text, from)
        }
    };
    if text.trim().is_empty() {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    let value: Value =
        crate::json::from_str_exact(&text).map_err(|source| CliError::ArgumentsNotJson {
            from: from.clone(),
            source,
        })?;
    if !value.is_object() {
        return Err(CliError::Usage(format!(
            "the arguments in {from} must be a JSON object, e.g. {{\"path\": \"README.md\"}}"
        )));
    }
    Ok(value)
}

/// At most `limit` bytes of UTF-8 text from `reader`, named `from` in
/// errors.
fn read_limited(reader: impl Read, from: &str, limit: u64) -> Result<String, CliError> {
    let mut bytes = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|source| CliError::ReadArguments {
            from: from.to_string(),
            source,
        })?;
    if u64::try_from(bytes.len()).map_or(true, |len| len > limit) {
        return Err(CliError::ArgumentsTooLarge {
            from: from.to_string(),
            limit,
        });
    }
    String::from_utf8(bytes).map_err(|_| CliError::ReadArguments {
        from: from.to_string(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text"),
    })
}

/// The tools, one paragraph each: name, description, parameters.
fn list(runner: &Runner, out: &mut dyn Write) -> Result<(), CliError> {
    for tool in runner.tools() {
        let about = tool
            .description
            .as_deref()
            .and_then(|d| d.lines().next())
            .map(|d| format!(": {}", one_line(d)))
            .unwrap_or_default();
        writeln!(out, "{}{about}", one_line(&tool.name))?;
        let parameters = tool.parameters.as_ref();
        let required: Vec<&str> = parameters
            .and_then(|p| p.get("required"))
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let properties = parameters
            .and_then(|p| p.get("properties"))
            .and_then(Value::as_object);
        match properties {
            Some(properties) if !properties.is_empty() => {
                for (name, schema) in properties {
                    let kind = match schema.get("type") {
                        Some(Value::String(kind)) => kind.clone(),
                        Some(Value::Array(kinds)) => kinds
                            .iter()
                            .filter_map(Value::as_str)
                            .collect::<Vec<_>>()
                            .join(" | "),
                        _ => "any".to_string(),
                    };
                    let needed = if required.contains(&name.as_str()) {
                        "required"
                    } else {
                        "optional"
                    };
                    let about = schema
                        .get("description")
                        .and_then(Value::as_str)
                        .and_then(|d| d.lines().next())
                        .map(|d| format!(": {}", one_line(d)))
                        .unwrap_or_default();
                    writeln!(
                        out,
                        "    {} ({}, {needed}){about}",
                        one_line(name),
                        one_line(&kind)
                    )?;
                }
            }
            _ => writeln!(out, "    (no parameters)")?,
        }
    }
    Ok(())
}

/// SIGINT, SIGTERM and SIGHUP during a call: the call is cancelled (its
/// processes killed, its scratch directory removed), its result printed,
/// and toolc exits `128 + signal`. Outside a call the signals keep their
/// default action: nothing of a tool runs then.
#[cfg(unix)]
mod interrupt {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicI32, Ordering};

    use crate::run::CancelToken;

    /// The token the handler cancels: set once per process.
    static TOKEN: OnceLock<CancelToken> = OnceLock::new();
    /// The signal that arrived, 0 for none.
    static CAUGHT: AtomicI32 = AtomicI32::new(0);
    const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

    extern "C" fn on_signal(signal: libc::c_int) {
        // Only atomic stores: async-signal-safe.
        CAUGHT.store(signal, Ordering::SeqCst);
        if let Some(token) = TOKEN.get() {
            token.cancel();
        }
    }

    /// The handlers while a call runs; the previous ones come back after.
    pub(super) struct Guard {
        token: &'static CancelToken,
        previous: Vec<(libc::c_int, libc::sigaction)>,
    }

    impl Guard {
        /// `None` when the handlers cannot be installed (or a token of an
        /// earlier call in this process was already cancelled): the call
        /// then runs as before, killed with toolc by PDEATHSIG.
        pub(super) fn install() -> Option<Guard> {
            let token = TOKEN.get_or_init(CancelToken::new);
            if token.is_cancelled() {
                return None;
            }
            let mut previous = Vec::new();
            for signal in SIGNALS {
                // SAFETY: a zeroed sigaction is valid; the handler only
                // makes atomic stores.
                unsafe {
                    let mut action: libc::sigaction = std::mem::zeroed();
                    action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
                    libc::sigemptyset(&mut action.sa_mask);
                    let mut old: libc::sigaction = std::mem::zeroed();
                    if libc::sigaction(signal, &action, &mut old) != 0 {
                        restore(&previous);
                        return None;
                    }
                    previous.push((signal, old));
                }
            }
            Some(Guard { token, previous })
        }

        pub(super) fn token(&self) -> &CancelToken {
            self.token
        }

        /// Puts the previous handlers back; the signal that came during
        /// the call, if one did.
        pub(super) fn finish(self) -> Option<i32> {
            restore(&self.previous);
            match CAUGHT.load(Ordering::SeqCst) {
                0 => None,
                signal => Some(signal),
            }
        }
    }

    fn restore(previous: &[(libc::c_int, libc::sigaction)]) {
        for (signal, old) in previous {
            // SAFETY: `old` is what sigaction returned for this signal.
            unsafe {
                libc::sigaction(*signal, old, std::ptr::null_mut());
            }
        }
    }
}

/// Elsewhere no handler is installed: Ctrl+C ends toolc at once.
#[cfg(not(unix))]
mod interrupt {
    use crate::run::CancelToken;

    pub(super) enum Guard {}

    impl Guard {
        pub(super) fn install() -> Option<Guard> {
            None
        }

        pub(super) fn token(&self) -> &CancelToken {
            match *self {}
        }

        pub(super) fn finish(self) -> Option<i32> {
            match self {}
        }
    }
}

/// `--memory`: a size of at least [`MIN_MEMORY`](crate::formats::nachos::MIN_MEMORY).
fn parse_memory(text: &str) -> Result<u64, String> {
    let bytes = crate::project::config::parse_size(text)?;
    let least = crate::formats::nachos::MIN_MEMORY;
    if bytes < least {
        return Err(format!(
            "a memory limit of {bytes} bytes is below the least toolc applies, 1MiB ({least} bytes): no tool can even start with less, so every call would fail"
        ));
    }
    Ok(bytes)
}
