//! The embedded runner: validate, authorize, sandbox and execute tools.
//!
//! A [`Runner`] holds the tools of some manifests (or the built-in tools)
//! and turns a call, a tool name and a JSON object of arguments, into one
//! [`ToolResult`], with the same guarantees whichever framework declared
//! the tool:
//!
//! 1. the tool is looked up (`NOT_FOUND`);
//! 2. the arguments are validated against its parameter schema, every
//!    violation reported with its JSON Pointer (`VALIDATION_ERROR`;
//!    nothing runs);
//! 3. the [`policy`] decides (`POLICY_DENIED`, naming the rule; nothing
//!    runs);
//! 4. its executor, chosen once when the runner was built, runs it:
//!    agentcli commands as their argv (never through a shell), NORA
//!    scripts and AgentStack functions through toolc's Python bootstrap,
//!    built-ins in process, Nachos services not yet (a clear
//!    `EXECUTION_ERROR`); processes get a scrubbed environment, a
//!    private temporary directory,
//!    a time limit, an output cap, a memory limit when the manifest gives
//!    one, and their sandbox: namespaces of their own and Landlock rules
//!    ([`SandboxMode`]);
//! 5. the outcome becomes the result, with `metadata.duration_ms` and, for
//!    processes, `exit_code`.
//!
//! ```no_run
//! use toolc::run::{Runner, RunnerOptions};
//!
//! let runner = Runner::load(&["tools/tools.json".into()], RunnerOptions::default())?;
//! let result = runner.call("echo", serde_json::json!({"text": "hi"}));
//! println!("{}", result.to_json_line());
//! # Ok::<(), toolc::run::LoadError>(())
//! ```
//!
//! Calls are blocking; a [`Runner`] is `Sync`, so threads may share one.
//! [`Runner::call_with`] takes a [`CancelToken`] that another thread (a
//! server, a signal handler) cancels to stop the call and kill every
//! process of it.

pub(crate) mod audit;
#[cfg(target_os = "linux")]
mod beneath;
pub mod builtin;
mod cancel;
mod cgroup;
#[cfg(target_os = "linux")]
mod egress;
mod exec;
#[cfg(target_os = "linux")]
mod launch;
#[cfg(target_os = "linux")]
mod netns;
pub mod policy;
#[cfg(target_os = "linux")]
mod process;
mod reaper;
mod result;
mod sandbox;
#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
mod seccomp;
#[cfg(target_os = "linux")]
mod start_time;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use crate::diagnostic::Severity;
use crate::ir::{Tool, ToolSet};
use crate::project::config::{CommandLine, Resolver};
use crate::project::settings::Level;
use crate::project::{NameEntry, Repeats, name_clashes};
pub use audit::AuditSink;
pub use cancel::CancelToken;
pub use cgroup::{DEFAULT_MAX_PROCESSES, DEFAULT_MEMORY};
pub use policy::{Approval, Approver, Denial, DenialRule, Policy};
pub use result::{EgressMode, ErrorCode, Metadata, ToolError, ToolResult};
pub use sandbox::{SandboxMode, Support, probe as probe_sandbox};

/// The time limit of a tool whose manifest gives none.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// The most a tool may print on stdout.
pub const DEFAULT_MAX_OUTPUT: usize = 1024 * 1024;

/// How a runner runs tools. `Default` gives the documented defaults.
pub struct RunnerOptions {
    /// A time limit for every tool, in place of the manifests' own
    /// (agentcli `timeoutSec`) and the default of 30 s.
    pub timeout: Option<Duration>,
    /// The stdout cap in bytes (default 1 MiB).
    pub max_output: usize,
    /// A memory limit in bytes for every call, in place of the
    /// manifests' own (Nachos `resources.memory`) and of
    /// [`DEFAULT_MEMORY`]: the call's cgroup's, or, where no cgroup can be
    /// made, an address-space limit (`RLIMIT_AS`, given limits only).
    pub memory: Option<u64>,
    /// The most processes a call may hold at once (default
    /// [`DEFAULT_MAX_PROCESSES`]): the call's cgroup's `pids.max`, or,
    /// where no cgroup can be made, `RLIMIT_NPROC`.
    pub max_processes: Option<u64>,
    /// The Python interpreter for NORA and AgentStack tools.
    pub python: PathBuf,
    pub policy: Policy,
    /// Confine tools at all (default on): with `false`, neither
    /// namespaces nor Landlock rules apply.
    pub sandbox: bool,
    /// Run each tool in its own namespaces when the kernel allows it
    /// (default on); `false` leaves Landlock alone.
    pub namespaces: bool,
    /// Directories every tool may read, beside its manifest's directory.
    pub read_dirs: Vec<PathBuf>,
    /// The root the built-in tools are confined to (default: the working
    /// directory).
    pub workspace: Option<PathBuf>,
    /// Append a JSON line per call to this file.
    pub audit: Option<PathBuf>,
    /// Also hand each call's audit record to this (whether or not
    /// `audit` is set).
    pub audit_sink: Option<AuditSink>,
    /// The addresses the built-in `fetch` may reach (public only by
    /// default).
    pub fetch_reach: builtin::Reach,
    /// Run a tool with an egress allow-list (and the built-in shell with
    /// the network) where the allow-list cannot be enforced (no
    /// namespaces), with the host's network; refused by default.
    pub allow_unenforced_egress: bool,
    /// Start one Python interpreter per call instead of forking calls
    /// from a server that imported the tool once (default off: warm).
    pub cold: bool,
}

impl Default for RunnerOptions {
    fn default() -> Self {
        RunnerOptions {
            timeout: None,
            max_output: DEFAULT_MAX_OUTPUT,
            memory: None,
            max_processes: None,
            python: PathBuf::from("python3"),
            policy: Policy::default(),
            sandbox: true,
            namespaces: true,
            read_dirs: Vec::new(),
            workspace: None,
            audit: None,
            audit_sink: None,
            fetch_reach: builtin::Reach::Public,
            allow_unenforced_egress: false,
            cold: false,
        }
    }
}

/// Why a runner could not be built.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    Lint(#[from] crate::lint::LintError),
    /// The manifests have error-level findings; the report holds them.
    #[error("the manifests have {} error(s); fix them before running their tools", .0.count(crate::diagnostic::Severity::Error))]
    Findings(Box<crate::lint::LintReport>),
    #[error("no tools in {0}")]
    NoTools(String),
    #[error("tool \"{name}\" is declared in both {first} and {second}; run one manifest at a time")]
    Ambiguous {
        name: String,
        first: String,
        second: String,
    },
    #[error("cannot use the workspace {path}: {source}")]
    Workspace {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot open the audit log {path}: {source}")]
    Audit {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// One tool a runner can call.
struct Entry {
    tool: Tool,
    /// The manifest's directory (for built-ins, the workspace root).
    dir: PathBuf,
    /// How it runs, chosen when the entry is built.
    executor: exec::Executor,
    /// Compiled at the tool's first call: a runner of many tools that
    /// calls one (`toolc run`) compiles one schema.
    validator: OnceLock<Result<jsonschema::Validator, String>>,
}

/// Runs the tools of some manifests. See the [module docs](self).
pub struct Runner {
    entries: Vec<Entry>,
    options: RunnerOptions,
    support: Support,
    /// Whether tools get their own namespaces; why not, when not.
    namespaces: Result<(), String>,
    workspace: Option<builtin::Workspace>,
    audit: Option<Mutex<std::fs::File>>,
    /// What the process executors keep: interpreters, warm servers.
    processes: exec::Processes,
}

impl Drop for Runner {
    /// Stops the warm Python servers, then waits for the clean-up of
    /// every call ([`reaper`]) and removes the cgroup and the scratch
    /// directory made ahead of time:
    /// nothing of this runner's calls stays behind once it is gone.
    fn drop(&mut self) {
        self.processes.stop_servers();
        reaper::flush();
        cgroup::discard_prepared();
        exec::discard_prepared_scratch();
        reaper::flush();
    }
}

impl Runner {
    /// Reads the manifests at `paths` (files or directories, as `toolc
    /// lint` reads them) and builds a runner for their tools. Manifests
    /// with error-level findings are refused: [`LoadError::Findings`].
    pub fn load(paths: &[PathBuf], options: RunnerOptions) -> Result<Runner, LoadError> {
        Runner::from_toolsets(Runner::read(paths)?, options)
    }

    /// The tool sets of the manifests at `paths`, read and checked as
    /// [`Runner::load`] reads them (for a caller that needs the tool sets
    /// beside the runner, as `toolc serve` does).
    pub fn read(paths: &[PathBuf]) -> Result<Vec<ToolSet>, LoadError> {
        Runner::read_logged(paths, None)
    }

    /// [`Runner::read`], counting every file it reads (manifests and
    /// package code) in `read_log`, whether the manifests load or not:
    /// what a watcher looks at to know when to read them again.
    pub fn read_logged(
        paths: &[PathBuf],
        read_log: Option<std::sync::Arc<crate::project::ReadLog>>,
    ) -> Result<Vec<ToolSet>, LoadError> {
        // Only errors refuse a manifest: the security rules (whose findings
        // never stand in for another rule's) need not run at another level.
        // Where that could change an error (one found, or an unused
        // suppression counted as an error, which depends on the rules that
        // ran), every rule runs and decides, and the report shown is lint's.
        let quick = CommandLine {
            only_as_errors: crate::lint::rules::security_rules().collect(),
            ..CommandLine::default()
        };
        let (mut project, report, configuration) = Runner::checked(paths, read_log.clone(), quick)?;
        let uncertain = project.manifests.iter().any(|manifest| {
            // Settings it cannot tell: as if it did.
            configuration
                .settings_for(&manifest.file)
                .map_or(true, |settings| {
                    crate::lint::rules::DEPEND_ON_RULES_RUN
                        .iter()
                        .any(|rule| settings.level(rule) == Level::On(Severity::Error))
                })
        });
        if uncertain || report.count(Severity::Error) > 0 {
            let (full, report, _) = Runner::checked(paths, read_log, CommandLine::default())?;
            if report.count(Severity::Error) > 0 {
                return Err(LoadError::Findings(Box::new(report)));
            }
            project = full;
        }
        let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        let toolsets: Vec<ToolSet> = project.manifests.into_iter().map(|m| m.toolset).collect();
        if toolsets.iter().all(|set| set.tools.is_empty()) {
            return Err(LoadError::NoTools(shown.join(", ")));
        }
        Ok(toolsets)
    }

    /// The manifests at `paths` loaded, lint's report on them, and the
    /// configuration both used: the front end resolves each path's
    /// toolc.toml and loads with it; lint checks what it loaded, with the
    /// same configuration.
    fn checked(
        paths: &[PathBuf],
        read_log: Option<std::sync::Arc<crate::project::ReadLog>>,
        command_line: CommandLine,
    ) -> Result<
        (
            crate::project::Project,
            crate::lint::LintReport,
            std::sync::Arc<Resolver>,
        ),
        LoadError,
    > {
        let configuration = Resolver::new(command_line, crate::lint::RULES.as_slice())
            .map(std::sync::Arc::new)
            .map_err(crate::lint::LintError::from)?;
        let options = crate::project::LoadOptions {
            read_log,
            ..crate::project::LoadOptions::default()
        };
        let project = crate::project::Project::load_configured(paths, &options, &configuration)
            .map_err(crate::lint::LintError::from)?;
        let linter = crate::lint::Linter::configured(
            crate::lint::LintOptions::default(),
            std::sync::Arc::clone(&configuration),
        );
        let report = linter.check(&project)?;
        Ok((project, report, configuration))
    }

    /// A runner for tool sets read elsewhere (their `path` locates the
    /// manifest, and so the directory relative paths resolve against).
    pub fn from_toolsets(
        toolsets: Vec<ToolSet>,
        options: RunnerOptions,
    ) -> Result<Runner, LoadError> {
        let names = NameEntry::of_toolsets(&toolsets);
        if let Some(clash) = name_clashes(&names, Repeats::Anywhere).first() {
            let (first, again) = (&names[clash.first], &names[clash.again]);
            return Err(LoadError::Ambiguous {
                name: again.name.to_string(),
                first: first.path.to_string(),
                second: again.path.to_string(),
            });
        }
        let mut entries: Vec<Entry> = Vec::new();
        for set in toolsets {
            let dir = manifest_dir(&set.path);
            let package_env: Vec<String> = set
                .package
                .as_ref()
                .map(|p| p.env.iter().map(|v| v.name.clone()).collect())
                .unwrap_or_default();
            for tool in set.tools {
                entries.push(Entry {
                    validator: OnceLock::new(),
                    executor: exec::Executor::for_tool(&tool, set.format, &dir, &package_env),
                    dir: dir.clone(),
                    tool,
                });
            }
        }
        Runner::build(entries, options, None)
    }

    /// A runner for the built-in tools (`list_files`, `read_file`,
    /// `write_file`, `shell`, `fetch`), confined to `options.workspace`.
    pub fn builtin(options: RunnerOptions) -> Result<Runner, LoadError> {
        let root = options
            .workspace
            .clone()
            .unwrap_or_else(|| PathBuf::from("."));
        let workspace = builtin::Workspace::new(&root)
            .map_err(|source| LoadError::Workspace {
                path: root.clone(),
                source,
            })?
            .with_reach(options.fetch_reach);
        let dir = workspace.root().to_path_buf();
        let set = builtin::toolset();
        let entries = set
            .tools
            .into_iter()
            .zip(builtin::Builtin::ALL)
            .map(|(tool, builtin)| Entry {
                validator: OnceLock::new(),
                executor: exec::Executor::Builtin(builtin),
                dir: dir.clone(),
                tool,
            })
            .collect();
        Runner::build(entries, options, Some(workspace))
    }

    fn build(
        entries: Vec<Entry>,
        options: RunnerOptions,
        workspace: Option<builtin::Workspace>,
    ) -> Result<Runner, LoadError> {
        let audit = match &options.audit {
            Some(path) => Some(Mutex::new(audit::open(path).map_err(|source| {
                LoadError::Audit {
                    path: path.clone(),
                    source,
                }
            })?)),
            None => None,
        };
        let support = if options.sandbox {
            sandbox::probe()
        } else {
            Support::Unavailable
        };
        let namespaces = if !options.sandbox {
            Err("the sandbox is off".to_string())
        } else if !options.namespaces {
            Err("namespaces are turned off".to_string())
        } else {
            probe_namespaces()
        };
        Ok(Runner {
            entries,
            options,
            support,
            namespaces,
            workspace,
            audit,
            processes: exec::Processes::default(),
        })
    }

    /// The tools this runner can call, in manifest order.
    pub fn tools(&self) -> impl Iterator<Item = &Tool> {
        self.entries.iter().map(|e| &e.tool)
    }

    /// What the runner cannot enforce on this machine, to tell the user
    /// once: empty when everything applies.
    pub fn warnings(&self) -> Vec<String> {
        if let Some(why) = exec::no_processes_here() {
            return vec![why];
        }
        let mut warnings = Vec::new();
        if let Some(why) = cgroup::unavailable() {
            warnings.push(format!(
                "calls run without a cgroup of their own ({why}): memory is bounded only by an address-space limit (RLIMIT_AS) when --memory or resources.memory gives one, and not at all otherwise (memfd, tmpfs and shared memory are never counted); processes only by RLIMIT_NPROC, which counts the tool's uid (per call inside its user namespace, per user without one, not at all for root outside a user namespace)"
            ));
        }
        if !self.options.sandbox {
            warnings.push(
                "the sandbox is off (--no-sandbox): tools run without namespaces, Landlock rules or a seccomp filter"
                    .to_string(),
            );
            return warnings;
        }
        if let Err(why) = &self.namespaces {
            warnings.push(format!(
                "tools run without their own namespaces ({why}): other processes stay visible in /proc and the environment of toolc and of the user's other processes readable, a daemon a tool starts may outlive its call, UDP is open to tools without network, /dev/shm is the host's, and a tool keeps its uid (uid 0 when toolc runs as root, with every capability dropped all the same)"
            ));
        }
        if self.support == Support::Unavailable {
            warnings.push(
                "Landlock is not available on this kernel: tools run without file-system confinement; every other limit applies"
                    .to_string(),
            );
        } else if !self.support.network() {
            warnings.push(
                "this kernel's Landlock cannot restrict TCP (ABI 4 or later is needed): network confinement does not apply"
                    .to_string(),
            );
        }
        warnings
    }

    /// What the kernel offers for confinement (none when the sandbox is
    /// turned off).
    pub fn sandbox_support(&self) -> Support {
        self.support
    }

    /// The layers that confine this runner's tool processes, as their
    /// results' `metadata.sandbox` reports them.
    pub fn sandbox_mode(&self) -> SandboxMode {
        let landlock = matches!(self.support, Support::Landlock(_));
        match (self.namespaces.is_ok(), landlock) {
            (true, true) => SandboxMode::NamespacesLandlock,
            (true, false) => SandboxMode::Namespaces,
            (false, true) => SandboxMode::Landlock,
            (false, false) => SandboxMode::Unconfined,
        }
    }

    /// Calls tool `name` with `arguments` (a JSON object) and returns its
    /// result. Never panics and never fails: every failure is a result.
    pub fn call(&self, name: &str, arguments: Value) -> ToolResult {
        self.call_inner_timed(name, arguments, None, &Approval::Configured)
    }

    /// Like [`Runner::call`], but `cancel` (from any thread) stops the
    /// call: its tool's processes are killed and the result is an
    /// `EXECUTION_ERROR` with `details.cancelled` set to `true`. A call
    /// whose token is cancelled before its tool starts runs nothing.
    pub fn call_with(&self, name: &str, arguments: Value, cancel: &CancelToken) -> ToolResult {
        self.call_inner_timed(name, arguments, Some(cancel), &Approval::Configured)
    }

    /// Like [`Runner::call_with`], with the caller's own answer for a tier
    /// that needs approval (see [`Runner::needs_approval`]) in place of the
    /// policy's approver. It counts after every other rule, as the
    /// approver's does.
    pub fn call_approved(
        &self,
        name: &str,
        arguments: Value,
        cancel: &CancelToken,
        approval: &Approval,
    ) -> ToolResult {
        self.call_inner_timed(name, arguments, Some(cancel), approval)
    }

    /// Whether a call of `name` with `arguments` runs only when approved:
    /// its tier is above `allow-tier` and nothing else refuses it (the
    /// tool exists, the arguments are valid and every other rule of the
    /// policy lets it through). A caller asks its user only then, so that
    /// nobody is asked about a call that would fail anyway; it then passes
    /// the answer to [`Runner::call_approved`].
    pub fn needs_approval(&self, name: &str, arguments: &Value) -> bool {
        let Some(entry) = self.entries.iter().find(|e| e.tool.name == name) else {
            return false;
        };
        let policy = &self.options.policy;
        if !policy.needs_approval(&entry.tool) || validate(entry, arguments).is_err() {
            return false;
        }
        let call = policy::Call {
            tool: &entry.tool,
            arguments,
            dir: &entry.dir,
        };
        policy.check_approving(&call, &Approval::Granted).is_ok()
    }

    fn call_inner_timed(
        &self,
        name: &str,
        arguments: Value,
        cancel: Option<&CancelToken>,
        approval: &Approval,
    ) -> ToolResult {
        let started = Instant::now();
        let (mut result, decision) = self.call_inner(name, &arguments, cancel, approval);
        result.metadata.duration_ms = started.elapsed().as_millis() as u64;
        if self.audit.is_some() || self.options.audit_sink.is_some() {
            let line = audit::line(name, &arguments, decision, &result);
            if let Some(log) = &self.audit {
                audit::record(log, &line);
            }
            if let Some(sink) = &self.options.audit_sink {
                sink(&line);
            }
        }
        result
    }

    fn call_inner(
        &self,
        name: &str,
        arguments: &Value,
        cancel: Option<&CancelToken>,
        approval: &Approval,
    ) -> (ToolResult, audit::Decision) {
        let Some(entry) = self.entries.iter().find(|e| e.tool.name == name) else {
            let mut details = Map::new();
            let known: Vec<&str> = self.entries.iter().map(|e| e.tool.name.as_str()).collect();
            if let Some(near) = crate::suggest::did_you_mean(name, known.iter().copied()) {
                details.insert("did_you_mean".to_string(), json!(near));
            }
            return (
                ToolResult::fail_with(
                    ErrorCode::NotFound,
                    format!("no tool named \"{name}\""),
                    details,
                ),
                audit::Decision::NotFound,
            );
        };
        if let Err(result) = validate(entry, arguments) {
            return (*result, audit::Decision::Invalid);
        }
        let call = policy::Call {
            tool: &entry.tool,
            arguments,
            dir: &entry.dir,
        };
        if let Err(denial) = self.options.policy.check_approving(&call, approval) {
            let mut details = Map::new();
            details.insert("rule".to_string(), json!(denial.rule.id()));
            return (
                ToolResult::fail_with(ErrorCode::PolicyDenied, denial.message, details),
                audit::Decision::Denied,
            );
        }
        if cancel.is_some_and(CancelToken::is_cancelled) {
            return (exec::cancelled(&[]), audit::Decision::Allowed);
        }
        // A command the tool came with (an agentcli program, carried into
        // a format that had to rename some parameters) reads the names it
        // was declared with (see `Tool::original_names`); a script written
        // for this manifest (a NORA skeleton) reads this manifest's names;
        // a Python function takes them by its keywords (`max_bytes` for
        // `max-bytes`, see `Tool::code_names`).
        let declared = match entry.tool.runtime {
            crate::ir::Runtime::Command { .. } => entry.tool.arguments_as_declared(arguments),
            crate::ir::Runtime::PythonFunction { .. } => entry.tool.arguments_for_code(arguments),
            _ => std::borrow::Cow::Borrowed(arguments),
        };
        (
            entry.executor.run(self, entry, &declared, cancel),
            audit::Decision::Allowed,
        )
    }
}

/// The directory of the manifest at `path`, made absolute: a tool runs
/// there, whatever the runner's working directory is later.
fn manifest_dir(path: &str) -> PathBuf {
    let dir = crate::project::manifest_dir(Path::new(path));
    std::fs::canonicalize(&dir).unwrap_or(dir)
}

fn compile(tool: &Tool) -> Result<jsonschema::Validator, String> {
    let schema = tool
        .parameters
        .as_deref()
        .cloned()
        .unwrap_or_else(crate::formats::no_parameters);
    jsonschema::validator_for(&schema)
        .map_err(|e| format!("the tool's parameter schema is invalid: {e}"))
}

/// The arguments that spell a parameter as the runner renames it for the
/// tool (a Python keyword `max_bytes` for `max-bytes`, a program's own
/// `max-bytes` for NORA's `max_bytes`) where the manifest has no parameter
/// of that name: the schema allows unknown members, so such an argument
/// would escape validation and then take the validated value's place.
fn renamed_spellings(tool: &crate::ir::Tool, arguments: &Value) -> Vec<(String, String)> {
    let Value::Object(members) = arguments else {
        return Vec::new();
    };
    let renamed: Vec<(&String, &String)> = match tool.runtime {
        crate::ir::Runtime::Command { .. } => tool
            .extra
            .original_names
            .iter()
            .filter(|(name, _)| !name.starts_with('/'))
            .collect(),
        crate::ir::Runtime::PythonFunction { .. } => tool.extra.code_names.iter().collect(),
        _ => Vec::new(),
    };
    let declared = |name: &str| {
        tool.parameters
            .as_ref()
            .and_then(|p| p.get("properties"))
            .is_some_and(|properties| properties.get(name).is_some())
    };
    renamed
        .into_iter()
        .filter(|(_, spelled)| members.contains_key(spelled.as_str()) && !declared(spelled))
        .map(|(name, spelled)| {
            (
                crate::json::join("", spelled),
                format!("\"{spelled}\" is no parameter of this tool: send \"{name}\""),
            )
        })
        .collect()
}

/// Checks the arguments against the tool's schema; every violation with
/// its JSON Pointer.
fn validate(entry: &Entry, arguments: &Value) -> Result<(), Box<ToolResult>> {
    if !arguments.is_object() {
        let mut details = Map::new();
        details.insert(
            "violations".to_string(),
            json!([{"pointer": "", "message": "the arguments must be a JSON object"}]),
        );
        return Err(Box::new(ToolResult::fail_with(
            ErrorCode::ValidationError,
            format!(
                "the arguments of \"{}\" must be a JSON object",
                entry.tool.name
            ),
            details,
        )));
    }
    let validator = match entry.validator.get_or_init(|| compile(&entry.tool)) {
        Ok(validator) => validator,
        Err(message) => {
            return Err(Box::new(ToolResult::fail(
                ErrorCode::InternalError,
                message.clone(),
            )));
        }
    };
    let mut violations: Vec<(String, String)> = validator
        .iter_errors(arguments)
        .map(|e| (e.instance_path().to_string(), e.to_string()))
        .collect();
    violations.extend(renamed_spellings(&entry.tool, arguments));
    if violations.is_empty() {
        return Ok(());
    }
    violations.sort();
    violations.dedup();
    let summary: Vec<String> = violations
        .iter()
        .map(|(pointer, message)| {
            let at = if pointer.is_empty() {
                "(root)"
            } else {
                pointer
            };
            format!("{at}: {message}")
        })
        .collect();
    let mut details = Map::new();
    details.insert(
        "violations".to_string(),
        Value::Array(
            violations
                .iter()
                .map(|(pointer, message)| json!({"pointer": pointer, "message": message}))
                .collect(),
        ),
    );
    Err(Box::new(ToolResult::fail_with(
        ErrorCode::ValidationError,
        format!(
            "the arguments of \"{}\" do not match its parameters: {}",
            entry.tool.name,
            summary.join("; ")
        ),
        details,
    )))
}

/// Whether tools can have namespaces of their own; why not, when not.
#[cfg(target_os = "linux")]
fn probe_namespaces() -> Result<(), String> {
    launch::probe_namespaces()
}

#[cfg(not(target_os = "linux"))]
fn probe_namespaces() -> Result<(), String> {
    Err("namespaces are Linux's".to_string())
}
