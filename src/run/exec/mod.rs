//! Executors: from an authorized call to a [`ToolResult`].
//!
//! A tool's [`Executor`] is chosen once, when the runner builds the tool's
//! entry, from the runtime its manifest lowered into; a call only runs it.
//! One file per executor: [`command`] (agentcli programs), [`python`]
//! (NORA scripts and AgentStack functions, through toolc's bootstrap),
//! [`builtin`] (the built-in tools) and [`remote`] (tools served
//! elsewhere). This module holds what the process executors share: the
//! call's limits, its scratch directory, its environment, its sandbox
//! rules and the mapping of a process's outcome to a result.

mod builtin;
#[cfg(target_os = "linux")]
mod command;
#[cfg(target_os = "linux")]
pub(super) mod interpreter;
#[cfg(target_os = "linux")]
pub(super) mod python;
mod remote;
#[cfg(target_os = "linux")]
mod scratch;
#[cfg(target_os = "linux")]
pub(super) mod warm;

use std::cell::Cell;
#[cfg(target_os = "linux")]
use std::ffi::OsString;
use std::path::Path;
#[cfg(target_os = "linux")]
use std::path::PathBuf;
#[cfg(target_os = "linux")]
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::cancel::CancelToken;
#[cfg(target_os = "linux")]
use super::cgroup::{self, CallCgroup, CallLimits, Reached};
#[cfg(target_os = "linux")]
use super::egress::{Allow, Proxy, proxy_environment};
#[cfg(target_os = "linux")]
use super::process::{self, Outcome, Spawn};
#[cfg(target_os = "linux")]
use super::sandbox::{Confinement, Rules, SandboxMode};
use super::{EgressMode, Entry, ErrorCode, Runner, ToolResult};
use crate::ir::{Format, Runtime, Tool};
#[cfg(target_os = "linux")]
use scratch::Scratch;
#[cfg(target_os = "linux")]
pub(super) use scratch::discard_prepared as discard_prepared_scratch;

/// How much of a tool's stderr or stdout a message quotes.
const QUOTE_LIMIT: usize = 2000;

/// How one tool runs, chosen when its entry is built.
#[derive(Debug, Clone)]
pub(super) enum Executor {
    /// A program run with an argv, JSON on stdin and stdout (agentcli).
    #[cfg(target_os = "linux")]
    Command(command::CommandTool),
    /// A Python script or package function, through the bootstrap.
    #[cfg(target_os = "linux")]
    Python(python::PythonTool),
    /// A command or Python tool where toolc starts no tool process.
    #[cfg(not(target_os = "linux"))]
    Process,
    /// A built-in tool.
    Builtin(super::builtin::Builtin),
    /// A tool served by something else (a Nachos NATS service).
    Remote(remote::RemoteTool),
    /// Provider tool JSON, which says nothing about how to run a tool.
    Undeclared(Format),
}

impl Executor {
    /// The executor of a manifest's tool: its lowered runtime decides.
    /// `dir` is the manifest's directory; `package_env` the environment
    /// variables its package declares (AgentStack `env`).
    #[cfg_attr(not(target_os = "linux"), allow(unused_variables))]
    pub(super) fn for_tool(
        tool: &Tool,
        format: Format,
        dir: &Path,
        package_env: &[String],
    ) -> Executor {
        match &tool.runtime {
            #[cfg(not(target_os = "linux"))]
            Runtime::Command { .. }
            | Runtime::PythonScript { .. }
            | Runtime::PythonFunction { .. } => Executor::Process,
            #[cfg(target_os = "linux")]
            Runtime::Command {
                argv,
                timeout_sec,
                env_passthrough,
            } => Executor::Command(command::CommandTool {
                argv: argv.clone(),
                timeout_sec: *timeout_sec,
                env_passthrough: env_passthrough.clone(),
                converted_into: (format != Format::Agentcli).then_some(format),
            }),
            #[cfg(target_os = "linux")]
            Runtime::PythonScript {
                entrypoint,
                function,
            } => Executor::Python(python::PythonTool::script(dir, entrypoint, function)),
            #[cfg(target_os = "linux")]
            Runtime::PythonFunction { module, function } => Executor::Python(
                python::PythonTool::package(dir, module, function, package_env),
            ),
            Runtime::NatsService { subject } => Executor::Remote(remote::RemoteTool {
                subject: subject.clone(),
            }),
            Runtime::Unspecified => Executor::Undeclared(format),
        }
    }

    /// Runs an authorized call.
    pub(super) fn run(
        &self,
        runner: &Runner,
        entry: &Entry,
        arguments: &Value,
        cancel: Option<&CancelToken>,
    ) -> ToolResult {
        let call = Call {
            runner,
            entry,
            cancel,
            egress: Cell::new(None),
        };
        let mut result = match self {
            #[cfg(target_os = "linux")]
            Executor::Command(tool) => command::run(&call, tool, arguments),
            #[cfg(target_os = "linux")]
            Executor::Python(tool) => python::run(&call, tool, arguments),
            #[cfg(not(target_os = "linux"))]
            Executor::Process => no_process(&entry.tool.name),
            Executor::Builtin(builtin) => builtin::run(&call, *builtin, arguments),
            Executor::Remote(tool) => remote::run(&entry.tool, tool),
            Executor::Undeclared(format) => ToolResult::fail(
                ErrorCode::ExecutionError,
                format!(
                    "\"{}\" comes from {format} tool JSON, which says nothing about how to run it",
                    entry.tool.name
                ),
            ),
        };
        if result.metadata.egress.is_none() {
            result.metadata.egress = call.egress.get();
        }
        result
    }
}

/// One call being executed: the runner, the tool's entry, and the token
/// that may stop it.
struct Call<'a> {
    runner: &'a Runner,
    entry: &'a Entry,
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    cancel: Option<&'a CancelToken>,
    /// How the call's egress was confined, once its process ran.
    egress: Cell<Option<EgressMode>>,
}

/// Why this runner starts no tool process here, to tell the user once;
/// `None` on Linux, where toolc's sandbox confines them.
pub(super) fn no_processes_here() -> Option<String> {
    (!cfg!(target_os = "linux")).then(|| {
        format!(
            "toolc starts no tool process on {}: its sandbox (namespaces, Landlock, seccomp, cgroups) is Linux's, and toolc does not run tools unconfined; command and Python tools and the built-in shell are refused, the other built-in tools run",
            std::env::consts::OS
        )
    })
}

/// The refusal of a call of `tool`, which would start a process, where
/// toolc starts none ([`no_processes_here`]).
#[cfg(not(target_os = "linux"))]
fn no_process(tool: &str) -> ToolResult {
    let why = no_processes_here().unwrap_or_default();
    ToolResult::fail(
        ErrorCode::ExecutionError,
        format!("\"{tool}\" not run: {why}"),
    )
}

/// What the process executors keep for a runner's life: the
/// interpreters of command tools, asked once each; the Python
/// interpreter's own facts, asked at the first Python call; the fork
/// servers of warm Python calls (dropping them kills them).
#[cfg(target_os = "linux")]
#[derive(Default)]
pub(super) struct Processes {
    interpreters: interpreter::Cache,
    python: std::sync::OnceLock<Result<python::Python, String>>,
    python_servers: warm::Pool,
}

#[cfg(target_os = "linux")]
impl Processes {
    /// Stops the warm Python servers.
    pub(super) fn stop_servers(&mut self) {
        drop(std::mem::take(&mut self.python_servers));
    }
}

#[cfg(not(target_os = "linux"))]
#[derive(Default)]
pub(super) struct Processes {}

#[cfg(not(target_os = "linux"))]
impl Processes {
    pub(super) fn stop_servers(&mut self) {}
}

#[cfg(not(target_os = "linux"))]
pub(super) fn discard_prepared_scratch() {}

/// The result of a call cancelled through its [`CancelToken`], with what
/// the tool printed on stderr until then.
pub(super) fn cancelled(stderr: &[u8]) -> ToolResult {
    let mut details = Map::new();
    details.insert("cancelled".into(), json!(true));
    if !stderr.is_empty() {
        details.insert("stderr".into(), json!(quote(stderr)));
    }
    ToolResult::fail_with(
        ErrorCode::ExecutionError,
        "the call was cancelled; the tool was killed with everything it started",
        details,
    )
}

#[cfg(target_os = "linux")]
/// The limits that apply to one call.
struct Limits {
    timeout: Duration,
    memory: Option<u64>,
}

#[cfg(target_os = "linux")]
impl Limits {
    fn of(runner: &Runner, entry: &Entry, manifest_timeout: Option<u64>) -> Limits {
        let timeout = runner
            .options
            .timeout
            .or(manifest_timeout.map(Duration::from_secs))
            .unwrap_or(super::DEFAULT_TIMEOUT)
            .min(Duration::from_secs(process::MAX_TIMEOUT_SECS));
        let memory = runner.options.memory.or(entry.tool.permissions.memory);
        Limits { timeout, memory }
    }
}

#[cfg(target_os = "linux")]
enum Ran {
    /// The process ran; how, and the sandbox it ran in.
    Done(Outcome, SandboxMode),
    Failed(Box<ToolResult>),
}

#[cfg(target_os = "linux")]
/// Completes `spawn` with the environment (PATH, HOME, TMPDIR and the
/// passthrough names) and the sandbox, and runs it.
fn spawn_confined(
    call: &Call,
    mut spawn: Spawn,
    scratch: &Scratch,
    passthrough: &[String],
    mut rules: Rules,
) -> Ran {
    let runner = call.runner;
    spawn.cancel = call.cancel.cloned();
    let given = std::mem::take(&mut spawn.env);
    spawn.env = environment(passthrough, &scratch.path);
    // What the executor set itself wins (the built-in shell's PATH).
    for (name, value) in given {
        match spawn.env.iter_mut().find(|(k, _)| *k == name) {
            Some(slot) => slot.1 = value,
            None => spawn.env.push((name, value)),
        }
    }
    rules.read.extend(runner.options.read_dirs.iter().cloned());
    let sandbox = runner.sandbox_mode();
    let allow = match proxied_network(call, &mut rules, sandbox) {
        Ok(allow) => allow,
        Err(refused) => return Ran::Failed(refused),
    };
    if allow.is_some() {
        for (name, value) in proxy_environment() {
            spawn.env.retain(|(k, _)| *k != *name);
            spawn.env.push((name.into(), value.into()));
        }
    }
    let mut proxy = None;
    if sandbox != SandboxMode::Unconfined {
        let namespaces = runner.namespaces.is_ok();
        let built = Confinement::build(&rules, runner.support, namespaces).and_then(|mut c| {
            c.scratch_in_memory(&scratch.path)?;
            Ok(c)
        });
        let built = built.and_then(|mut c| {
            if let Some(allow) = allow
                && let Some(listening) = c.proxy_channel()?
            {
                let started = Proxy::start(listening, allow)
                    .map_err(|e| format!("cannot start the egress proxy: {e}"))?;
                proxy = Some(started);
                call.egress.set(Some(EgressMode::Proxied));
            }
            Ok(c)
        });
        match built {
            Ok(confinement) => spawn.confinement = Some(confinement),
            Err(message) => {
                return Ran::Failed(Box::new(ToolResult::fail(
                    ErrorCode::InternalError,
                    message,
                )));
            }
        }
    }
    let program = spawn.program.clone();
    let group = call_cgroup(runner, spawn.memory);
    // In a cgroup, memory is the cgroup's to count: an address-space
    // limit would fail an allocation before the cgroup could tell.
    let processes = runner.options.max_processes.or_else(|| {
        // Without a cgroup RLIMIT_NPROC counts the uid's processes: per
        // call only inside the call's user namespace.
        (sandbox != SandboxMode::Unconfined && runner.namespaces.is_ok())
            .then_some(cgroup::DEFAULT_MAX_PROCESSES)
    });
    if group.is_some() {
        spawn.memory = None;
    }
    let ran = process::run_in(spawn, group.as_ref(), processes);
    // The proxy ends with the call: its listener and relays close now.
    drop(proxy);
    match ran {
        Ok(outcome) => {
            let failed = matches!(&outcome, Outcome::Exited { code, .. } if *code != Some(0));
            match group
                .as_ref()
                .and_then(|g| g.reached(failed).map(|r| (r, g.limits)))
            {
                Some((reached, limits)) => {
                    let stderr = match &outcome {
                        Outcome::Exited { stderr, .. } => stderr.as_slice(),
                        _ => &[],
                    };
                    Ran::Failed(Box::new(resource_limit(reached, limits, stderr, sandbox)))
                }
                None => Ran::Done(outcome, sandbox),
            }
        }
        Err(process::RunError::Spawn(e)) => {
            // The program could not be executed: the tool's fault (a
            // missing execute bit, a bad interpreter line) or the
            // sandbox's, which then says how to let it through.
            let mut message = format!("cannot start {}: {e}", program.display());
            let denied = matches!(e.raw_os_error(), Some(libc::EACCES) | Some(libc::EPERM));
            if denied && sandbox.landlock() {
                message.push_str(
                    " (the sandbox may deny the program or its interpreter: --allow-read DIR lets the tool read a directory, --no-sandbox turns the sandbox off)",
                );
            }
            let mut result = ToolResult::fail(ErrorCode::ExecutionError, message);
            result.metadata.sandbox = Some(sandbox);
            Ran::Failed(Box::new(result))
        }
        Err(process::RunError::Watch(e)) => Ran::Failed(Box::new(ToolResult::fail(
            ErrorCode::InternalError,
            format!(
                "{} started, but toolc could not watch it (it was killed): {e}",
                program.display()
            ),
        ))),
    }
}

#[cfg(target_os = "linux")]
/// The call's cgroup with its limits (`memory`, or the default, and the
/// runner's process limit), or `None` where none can be made (the
/// runner's warnings say so).
fn call_cgroup(runner: &Runner, memory: Option<u64>) -> Option<CallCgroup> {
    if cgroup::unavailable().is_some() {
        return None;
    }
    CallCgroup::create(CallLimits {
        memory: memory.unwrap_or(cgroup::DEFAULT_MEMORY),
        processes: runner
            .options
            .max_processes
            .unwrap_or(cgroup::DEFAULT_MAX_PROCESSES),
    })
    .ok()
}

#[cfg(target_os = "linux")]
/// The result of a call that reached a limit of its cgroup.
fn resource_limit(
    reached: Reached,
    limits: CallLimits,
    stderr: &[u8],
    sandbox: SandboxMode,
) -> ToolResult {
    let mut details = Map::new();
    let message = match reached {
        Reached::Memory => {
            details.insert("limit".into(), json!("memory"));
            details.insert("memory_limit_bytes".into(), json!(limits.memory));
            format!(
                "the tool reached its memory limit of {} bytes (counted by the call's cgroup: memory of every process of the call, shared memory and memfd included) and was killed with everything it started",
                limits.memory
            )
        }
        Reached::Processes => {
            details.insert("limit".into(), json!("processes"));
            details.insert("max_processes".into(), json!(limits.processes));
            format!(
                "the tool reached its limit of {} processes (a fork was refused) and was killed with everything it started",
                limits.processes
            )
        }
    };
    if !stderr.is_empty() {
        details.insert("stderr".into(), json!(quote(stderr)));
    }
    let mut result = ToolResult::fail_with(ErrorCode::ResourceLimit, message, details);
    result.metadata.sandbox = Some(sandbox);
    result
}

#[cfg(target_os = "linux")]
/// PATH and HOME from toolc's environment, the tool's declared
/// passthrough variables when set, and TMPDIR pointing at the call's
/// private directory. Nothing else of toolc's environment reaches a tool.
fn environment(passthrough: &[String], tmp: &Path) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = Vec::new();
    for name in ["PATH", "HOME"]
        .into_iter()
        .chain(passthrough.iter().map(String::as_str))
    {
        if name == "TMPDIR" || env.iter().any(|(k, _)| k == name) {
            continue;
        }
        if let Some(value) = std::env::var_os(name) {
            env.push((name.into(), value));
        }
    }
    env.push(("TMPDIR".into(), tmp.as_os_str().to_os_string()));
    env
}

#[cfg(target_os = "linux")]
/// For a tool whose network goes through the egress proxy
/// ([`Rules::proxy`]): what the proxy lets through, when the sandbox can
/// enforce it (namespaces). Where it cannot (Landlock alone), a tool with
/// an allow-list is refused and the shell gets no network, unless
/// `--allow-unenforced-egress`; with the sandbox off, the host's network.
fn proxied_network(
    call: &Call,
    rules: &mut Rules,
    sandbox: SandboxMode,
) -> Result<Option<Allow>, Box<ToolResult>> {
    let runner = call.runner;
    if !rules.proxy {
        return Ok(None);
    }
    let listed = egress_list(call.entry);
    if sandbox != SandboxMode::Unconfined && runner.namespaces.is_ok() {
        return Ok(Some(match listed {
            Some(list) => Allow::listed(list),
            None => Allow::Any(runner.options.fetch_reach),
        }));
    }
    rules.proxy = false;
    if sandbox == SandboxMode::Unconfined {
        return Ok(None);
    }
    if runner.options.allow_unenforced_egress {
        call.egress.set(Some(EgressMode::Unenforced));
        return Ok(None);
    }
    let Some(list) = listed else {
        // The shell, where no proxy can be its only way out: no network.
        rules.no_network = true;
        return Ok(None);
    };
    let why = runner
        .namespaces
        .as_ref()
        .err()
        .map_or("namespaces are unavailable", String::as_str);
    Err(Box::new(ToolResult::fail(
        ErrorCode::PolicyDenied,
        format!(
            "\"{}\" declares an egress allow-list ({}), which toolc enforces with a network namespace whose only way out is its proxy, and tools run without namespaces here ({why}); toolc run --allow-unenforced-egress runs it with the host's whole network",
            call.entry.tool.name,
            list.join(", ")
        ),
    )))
}

#[cfg(target_os = "linux")]
/// The hosts a tool declares it reaches (a non-empty Nachos egress list).
fn egress_list(entry: &Entry) -> Option<&[String]> {
    entry
        .tool
        .permissions
        .network_egress
        .as_deref()
        .filter(|list| !list.is_empty())
}

#[cfg(target_os = "linux")]
/// Whether the tool's network goes through the egress proxy: it declares
/// an allow-list and not, at the same time, no network.
pub(super) fn egress_proxied(entry: &Entry) -> bool {
    egress_list(entry).is_some() && !denies_network(entry)
}

#[cfg(target_os = "linux")]
/// Whether the tool declares that it needs no network.
fn denies_network(entry: &Entry) -> bool {
    let permissions = &entry.tool.permissions;
    permissions.allow_http == Some(false)
        || permissions
            .network_egress
            .as_ref()
            .is_some_and(|egress| egress.is_empty())
}

#[cfg(target_os = "linux")]
/// The directories a tool may read and write beside its manifest's:
/// AgentStack `allowed_dirs` (relative ones resolve against the manifest
/// directory); `*` leaves the file system unconfined.
fn allowed_dirs(entry: &Entry, home: &Path) -> (Vec<PathBuf>, bool) {
    let Some(dirs) = &entry.tool.permissions.allowed_dirs else {
        return (Vec::new(), false);
    };
    let mut paths = Vec::new();
    for dir in dirs {
        if dir == "*" {
            return (Vec::new(), true);
        }
        // A pattern (`data/*.csv`) is confined to the directory before its
        // first wildcard; the policy checks the pattern itself.
        let dir = match dir.find(['*', '?', '[']) {
            Some(at) => match dir[..at].rfind('/') {
                Some(slash) => &dir[..slash],
                None => ".",
            },
            None => dir.as_str(),
        };
        let dir = if dir.is_empty() { "/" } else { dir };
        paths.push(super::policy::resolve_path(dir, &entry.dir, home));
    }
    (paths, false)
}

#[cfg(target_os = "linux")]
/// What a manifest tool's process may touch: its manifest's directory
/// and `read` (its program, its interpreter) for reading, its scratch
/// directory and declared allowed directories for writing, the network
/// unless it declares none.
fn tool_rules(runner: &Runner, entry: &Entry, scratch: &Scratch, read: Vec<PathBuf>) -> Rules {
    let (allowed, any_path) = allowed_dirs(entry, &runner.options.policy.home);
    let mut write = vec![scratch.path.clone()];
    write.extend(allowed);
    let mut readable = vec![entry.dir.clone()];
    readable.extend(read);
    Rules {
        read: readable,
        write,
        any_path,
        no_network: denies_network(entry),
        proxy: egress_proxied(entry),
    }
}

#[cfg(target_os = "linux")]
/// A process that exited by itself.
struct Exit {
    code: Option<i32>,
    signal: Option<i32>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

#[cfg(target_os = "linux")]
/// The failures every process executor reports alike; `Ok` with the
/// streams of a process that exited by itself.
fn common_outcome(
    outcome: Outcome,
    limits: &Limits,
    runner: &Runner,
    sandbox: SandboxMode,
) -> Result<Exit, Box<ToolResult>> {
    match outcome {
        Outcome::TimedOut { stderr } => {
            let mut details = Map::new();
            details.insert(
                "timeout_ms".into(),
                json!(limits.timeout.as_millis() as u64),
            );
            if !stderr.is_empty() {
                details.insert("stderr".into(), json!(quote(&stderr)));
            }
            let mut result = ToolResult::fail_with(
                ErrorCode::Timeout,
                format!(
                    "the tool exceeded its time limit of {} and was killed with everything it started",
                    seconds(limits.timeout)
                ),
                details,
            );
            result.metadata.sandbox = Some(sandbox);
            Err(Box::new(result))
        }
        Outcome::TooLarge => {
            let mut details = Map::new();
            details.insert("limit_bytes".into(), json!(runner.options.max_output));
            let mut result = ToolResult::fail_with(
                ErrorCode::OutputTooLarge,
                format!(
                    "the tool printed more than {} bytes on stdout and was killed",
                    runner.options.max_output
                ),
                details,
            );
            result.metadata.sandbox = Some(sandbox);
            Err(Box::new(result))
        }
        Outcome::Cancelled { stderr } => {
            let mut result = cancelled(&stderr);
            result.metadata.sandbox = Some(sandbox);
            Err(Box::new(result))
        }
        Outcome::Exited {
            code,
            signal,
            stdout,
            stderr,
        } => Ok(Exit {
            code,
            signal,
            stdout,
            stderr,
        }),
    }
}

#[cfg(target_os = "linux")]
fn seconds(duration: Duration) -> String {
    let ms = duration.as_millis();
    if ms == 0 {
        format!("{} µs", duration.as_micros())
    } else if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{:.3} s", duration.as_secs_f64())
    }
}

/// Up to [`QUOTE_LIMIT`] bytes of a stream, as text.
fn quote(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim();
    if text.len() <= QUOTE_LIMIT {
        return text.to_string();
    }
    let mut end = QUOTE_LIMIT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(target_os = "linux")]
fn with_process(
    mut result: ToolResult,
    code: Option<i32>,
    signal: Option<i32>,
    sandbox: SandboxMode,
) -> ToolResult {
    result.metadata.exit_code = code;
    result.metadata.signal = signal;
    result.metadata.sandbox = Some(sandbox);
    result
}

#[cfg(target_os = "linux")]
/// The message of a JSON error a tool printed on stderr:
/// `{"error": "..."}`, `{"error": {"message": "..."}}` or
/// `{"message": "..."}`.
fn error_message(stderr: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(stderr).ok()?;
    let line = text.lines().rev().find(|l| !l.trim().is_empty())?;
    let value: Value = serde_json::from_str(line.trim()).ok()?;
    let error = value.get("error").unwrap_or(&value);
    match error {
        Value::String(message) => Some(message.clone()),
        Value::Object(object) => object
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_string),
        _ => None,
    }
}

#[cfg(target_os = "linux")]
fn died(code: Option<i32>, signal: Option<i32>) -> String {
    match (code, signal) {
        (Some(code), _) => format!("the tool exited with status {code}"),
        (None, Some(signal)) => format!("the tool was killed by signal {signal}"),
        (None, None) => "the tool ended abnormally".to_string(),
    }
}
