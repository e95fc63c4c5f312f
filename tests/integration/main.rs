//! toolc's integration tests: one test binary, driving the real `toolc`
//! executable through a small builder (`Test::new().args(..).run()`).

// Test code reports a failed expectation by panicking.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

mod action;
mod agentstack_names;
mod architecture;
mod bench_script;
mod binary_size;
mod builtin;
mod cgroup_limits;
mod command_line;
mod config;
mod conventions;
mod convert;
mod convert_apart;
mod corpus;
mod defects;
mod detection;
mod editor_schemas;
mod egress;
mod egress_apart;
mod errors;
mod fixes;
mod fuzz_replay;
mod gen_agentstack;
mod gen_json;
mod gen_lints_clean;
mod gen_nachos;
mod gen_policy;
mod gen_python;
mod gen_python_keep;
mod gen_python_names;
mod gen_python_read_back;
mod gen_rust;
mod gen_rust_keep;
mod gen_rust_names;
mod gen_rust_validate;
mod gen_typescript;
mod gen_write;
mod generated;
mod hostile;
mod hostile_acceptor;
mod hostile_memory;
mod hostile_pool;
mod interop;
mod interpreters;
mod isolation;
mod lint_cli;
mod live;
mod live_daemon;
mod live_errors;
mod live_http;
mod lock;
mod lsp;
mod mcp_config;
mod mixed_repositories;
mod nats_call;
mod nats_conn;
mod nats_failover;
mod nats_front;
mod nats_front_door;
mod nats_harness;
mod nats_hostile;
mod nats_server;
mod nats_worker;
mod neovim;
mod outputs;
mod packaging;
mod poison;
mod policy_outside;
mod policy_shell;
mod prepared_netns;
mod project;
mod provider_inputs;
mod python_schemas;
mod quickstart;
mod read_back;
mod release;
mod renames;
mod reports;
mod root_keywords;
mod round_trips;
mod rule_docs;
mod rules;
mod run;
mod sandbox_hardening;
mod sdk;
mod selection;
mod serve;
mod serve_hostile;
mod serve_limits;
mod serve_locked;
mod serve_watch;
mod suppress;
mod terminal_escapes;
mod typescript_values;
mod vscode;
mod warm_isolation;
mod warm_python;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Every rule as `toolc rules --format json` lists it, sorted by code.
pub fn rules_json() -> Vec<serde_json::Value> {
    let output = Test::new().args(["rules", "--format", "json"]).run();
    assert_eq!(output.code, 0, "{}", output.stderr);
    output
        .json()
        .as_array()
        .cloned()
        .expect("an array of rules")
}

/// The names of every rule, sorted by code.
pub fn rule_names() -> Vec<String> {
    rules_json()
        .iter()
        .map(|r| r["name"].as_str().expect("name").to_string())
        .collect()
}

/// The project root (where fixtures/ lives).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// How long any toolc run may take before the test calls it a hang.
const HANG_LIMIT: Duration = Duration::from_secs(60);

pub struct Test {
    args: Vec<String>,
    dir: PathBuf,
    stdin: Option<Vec<u8>>,
    env: Vec<(String, String)>,
}

pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Default for Test {
    fn default() -> Self {
        Test {
            args: Vec::new(),
            dir: root(),
            stdin: None,
            env: Vec::new(),
        }
    }
}

impl Test {
    pub fn new() -> Self {
        Test::default()
    }

    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_string()));
        self
    }

    pub fn current_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.dir = dir.as_ref().to_path_buf();
        self
    }

    /// Gives toolc `bytes` on standard input (otherwise it reads nothing).
    pub fn stdin(mut self, bytes: impl AsRef<[u8]>) -> Self {
        self.stdin = Some(bytes.as_ref().to_vec());
        self
    }

    /// Sets the variable `key` to `value` in toolc's environment.
    pub fn env(mut self, key: &str, value: &str) -> Self {
        self.env.push((key.to_string(), value.to_string()));
        self
    }

    /// Runs toolc; fails the test if it does not finish within the hang limit
    /// or dies from a signal (a crash, a stack overflow).
    pub fn run(self) -> Output {
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolc"))
            .args(&self.args)
            .current_dir(&self.dir)
            .env("NO_COLOR", "1")
            // Set in a developer's shell, these would change every report.
            .env_remove("TOOLC_OUTPUT_FORMAT")
            .env_remove("FORCE_COLOR")
            .env_remove("CLICOLOR_FORCE")
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn toolc");
        if let (Some(bytes), Some(mut stdin)) = (self.stdin.clone(), child.stdin.take()) {
            // Written on its own thread: toolc may stop reading early (a
            // text over the size limit) while its output fills a pipe.
            std::thread::spawn(move || {
                use std::io::Write;
                let _ = stdin.write_all(&bytes);
            });
        }
        let stdout = child.stdout.take().expect("stdout");
        let stderr = child.stderr.take().expect("stderr");
        let out_reader =
            std::thread::spawn(move || std::io::read_to_string(stdout).unwrap_or_default());
        let err_reader =
            std::thread::spawn(move || std::io::read_to_string(stderr).unwrap_or_default());
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait") {
                break status;
            }
            if started.elapsed() > HANG_LIMIT {
                let _ = child.kill();
                panic!("toolc {:?} did not finish within {HANG_LIMIT:?}", self.args);
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let stdout = out_reader.join().expect("stdout reader");
        let stderr = err_reader.join().expect("stderr reader");
        let Some(code) = status.code() else {
            panic!(
                "toolc {:?} died from a signal: {status}\n{stderr}",
                self.args
            );
        };
        assert!(
            !stderr.contains("panicked"),
            "toolc {:?} panicked:\n{stderr}",
            self.args
        );
        Output {
            code,
            stdout,
            stderr,
        }
    }
}

impl Output {
    /// The parsed `--format json` report.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\n{}",
                self.stdout, self.stderr
            )
        })
    }
}

/// Runs `command` (another program than toolc) to the end with nothing on
/// standard input, within `limit`; fails the test if it cannot start, does
/// not finish in time or dies from a signal. `what` names it in failures.
pub fn run_within(command: &mut Command, what: &str, limit: Duration) -> Output {
    let started = Instant::now();
    let program = command.get_program().to_string_lossy().into_owned();
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{what}: cannot start {program}: {e}"));
    let stdout = child.stdout.take().expect("stdout");
    let stderr = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || std::io::read_to_string(stdout).unwrap_or_default());
    let err = std::thread::spawn(move || std::io::read_to_string(stderr).unwrap_or_default());
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stdout = out.join().expect("stdout reader");
    let stderr = err.join().expect("stderr reader");
    let Some(code) = status.code() else {
        panic!("{what} died from a signal: {status}\n{stdout}\n{stderr}");
    };
    Output {
        code,
        stdout,
        stderr,
    }
}

/// The system Python the sandbox probes run: outside the test venv, so
/// the same path is readable in every sandbox mode.
pub const SYSTEM_PYTHON: &str = "/usr/bin/python3";

/// Writes a Nachos tool `name` into `dir`: `script` as `tool.py`, run by
/// [`SYSTEM_PYTHON`], declaring `egress` (empty: no network) and a time
/// limit of `timeout` seconds. Returns the manifest's path.
pub fn python_probe(
    dir: &TempDir,
    name: &str,
    egress: &[&str],
    timeout: u64,
    script: &str,
) -> PathBuf {
    assert!(
        Path::new(SYSTEM_PYTHON).is_file(),
        "{SYSTEM_PYTHON} is missing: the sandbox probes need a system Python"
    );
    let manifest = serde_json::json!({
        "name": name,
        "version": "0.1.0",
        "type": "tool",
        "description": "A sandbox probe.",
        "capabilities": {"network": {"egress": egress}},
        "provides": {"tool": name, "securityTier": 1},
        "x-toolc": {"agentcli": {"command": [SYSTEM_PYTHON, "tool.py"], "timeoutSec": timeout}}
    });
    dir.write("tool.py", script);
    dir.write(
        "manifest.json",
        serde_json::to_string_pretty(&manifest).expect("a manifest serializes"),
    )
}

/// What a probe of [`python_probe`] printed, from the answer to its
/// `tools/call`: the call must have succeeded.
pub fn probe_report(answer: &serde_json::Value) -> serde_json::Value {
    let result = &answer["result"];
    assert_eq!(result["isError"], serde_json::json!(false), "{answer}");
    let text = result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {answer}"));
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// A fresh temporary directory, removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "toolc-test-{name}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    pub fn write(&self, relative: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.0.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create parent");
        }
        std::fs::write(&path, contents).expect("write file");
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        #[cfg(unix)]
        {
            // Restore permissions a test may have removed, so cleanup works.
            use std::os::unix::fs::PermissionsExt;
            for entry in walkdir_lite(&self.0) {
                let _ = std::fs::set_permissions(&entry, std::fs::Permissions::from_mode(0o755));
            }
        }
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(unix)]
fn walkdir_lite(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![dir.to_path_buf()];
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            // A link's target may be outside the directory: left alone.
            if entry.file_type().is_ok_and(|t| t.is_symlink()) {
                continue;
            }
            let is_real_dir = entry.file_type().map(|t| t.is_dir()).unwrap_or(false);
            if is_real_dir {
                out.extend(walkdir_lite(&path));
            } else {
                out.push(path);
            }
        }
    }
    out
}
