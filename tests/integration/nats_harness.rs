//! What the tests of `toolc serve --nats` share: the worker process (a
//! running `toolc serve --nats`, ready once it says so), the NATS clients
//! they call it with (nats-py and node scripts, each bounded in time),
//! the Nachos request envelope, and a manifest of shell command tools.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::TempDir;

/// A running `toolc serve --nats`, killed when dropped.
pub struct Worker {
    pub child: Child,
    stderr: Arc<Mutex<String>>,
}

impl Worker {
    /// Starts `toolc serve --nats URL PATHS ARGS` and waits (at most 30 s)
    /// for its ready line.
    pub fn start(url: &str, paths: &[&str], args: &[&str]) -> Worker {
        let mut command = Command::new(env!("CARGO_BIN_EXE_toolc"));
        command
            .arg("serve")
            .args(paths)
            .args(["--nats", url, "--log-level", "info"])
            .args(args);
        Worker::launch(command)
    }

    /// Starts `command` (a `toolc serve --nats ... --log-level info`, with
    /// whatever environment the test gives it) and waits (at most 30 s)
    /// for its ready line.
    pub fn launch(mut command: Command) -> Worker {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn toolc serve --nats");
        let stderr = Arc::new(Mutex::new(String::new()));
        let lines = BufReader::new(child.stderr.take().expect("stderr"));
        let kept = Arc::clone(&stderr);
        std::thread::spawn(move || {
            for line in lines.lines().map_while(Result::ok) {
                let mut text = kept.lock().unwrap();
                text.push_str(&line);
                text.push('\n');
            }
        });
        let mut worker = Worker { child, stderr };
        worker.wait_for_log("on NATS at", Duration::from_secs(30));
        worker
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Waits (at most `limit`) until the worker's log holds `text`; fails
    /// if it ends first.
    pub fn wait_for_log(&mut self, text: &str, limit: Duration) {
        let started = Instant::now();
        while !self.stderr.lock().unwrap().contains(text) {
            if let Some(status) = self.child.try_wait().expect("wait") {
                panic!(
                    "toolc serve --nats ended ({status}) before it logged {text:?}:\n{}",
                    self.stderr()
                );
            }
            assert!(
                started.elapsed() < limit,
                "toolc serve --nats did not log {text:?} in {limit:?}:\n{}",
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// A number of `/proc/PID/status` (`VmRSS`, `VmHWM`: KiB; `Threads`).
    pub fn status(&self, key: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid()))
            .expect("the worker's /proc status");
        status
            .lines()
            .find_map(|line| line.strip_prefix(key)?.strip_prefix(':'))
            .and_then(|value| value.split_whitespace().next()?.parse().ok())
            .unwrap_or_else(|| panic!("no {key} in /proc status"))
    }

    /// Its resident memory, in bytes.
    pub fn resident(&self) -> u64 {
        self.status("VmRSS") * 1024
    }

    /// How many descriptors it holds open.
    pub fn descriptors(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/fd", self.pid()))
            .expect("the worker's /proc fd")
            .count()
    }

    /// Its exit code once it ends, or `None` if it is still running after
    /// `limit` (then it is killed).
    pub fn exit_within(&mut self, limit: Duration) -> Option<i32> {
        let started = Instant::now();
        while started.elapsed() < limit {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return Some(status.code().unwrap_or(-1));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        None
    }

    /// Sends `signal` to the worker.
    pub fn signal(&self, signal: i32) {
        // SAFETY: a plain kill(2) of the child this test started.
        assert_eq!(unsafe { libc::kill(self.child.id() as i32, signal) }, 0);
    }

    /// Whether it is still running.
    pub fn running(&mut self) -> bool {
        self.child.try_wait().expect("wait").is_none()
    }

    /// Its exit code once it ends (at most `limit`).
    pub fn wait(&mut self, limit: Duration) -> i32 {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status.code().unwrap_or(-1);
            }
            assert!(
                started.elapsed() < limit,
                "toolc did not end in {limit:?}:\n{}",
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A client program running beside the test, killed past its time limit.
pub struct Background {
    child: Option<Child>,
    what: String,
}

impl Background {
    /// Starts `command` (its stdout and stderr kept for [`Background::finish`]).
    pub fn spawn(mut command: Command, what: &str) -> Background {
        let child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("start {what}: {e}"));
        Background {
            child: Some(child),
            what: what.to_string(),
        }
    }

    /// Its stdout once it ends (it must exit 0); killed, and the test
    /// failed, past `limit`.
    pub fn finish(mut self, limit: Duration) -> String {
        let child = self.child.take().expect("a running program");
        let id = child.id();
        let (done, ended) = std::sync::mpsc::channel::<()>();
        let watchdog = std::thread::spawn(move || {
            if ended.recv_timeout(limit).is_err() {
                // SAFETY: a plain kill(2) of the child this test started.
                unsafe { libc::kill(id as i32, libc::SIGKILL) };
            }
        });
        let started = Instant::now();
        let output = child.wait_with_output().expect("wait");
        let _ = done.send(());
        let _ = watchdog.join();
        let stdout = String::from_utf8_lossy(&output.stdout).to_string();
        assert!(
            output.status.success() && started.elapsed() < limit,
            "{} failed ({}) or ran past {limit:?}:\nstdout:\n{stdout}\nstderr:\n{}",
            self.what,
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        stdout
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Runs `command`; fails past 60 s; returns its stdout (it must exit 0).
pub fn run(command: Command, what: &str) -> String {
    Background::spawn(command, what).finish(Duration::from_secs(60))
}

/// Runs JavaScript `script` with node, the NATS packages on its path.
pub fn node(script: &str, args: &[&str]) -> String {
    let modules = std::env::var("TOOLC_TEST_NODE_MODULES")
        .expect("TOOLC_TEST_NODE_MODULES is not set: run the tests with scripts/test");
    let mut command = Command::new("node");
    command
        .env("NODE_PATH", modules)
        .arg("-e")
        .arg(script)
        .arg("--")
        .args(args);
    run(command, "node")
}

/// The command that runs Python `script` with the test venv's
/// interpreter (nats-py, jsonschema, cryptography).
pub fn python_command(script: &str, args: &[&str]) -> Command {
    let python = std::env::var("TOOLC_TEST_PYTHON")
        .expect("TOOLC_TEST_PYTHON is not set: run the tests with scripts/test");
    let mut command = Command::new(python);
    command.arg("-c").arg(script).args(args);
    command
}

/// Runs Python `script` (see [`python_command`]); returns its stdout.
pub fn python(script: &str, args: &[&str]) -> String {
    run(python_command(script, args), "python")
}

pub fn json_lines(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .filter(|l| l.starts_with('{') || l.starts_with('['))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// An agentcli manifest of command tools, each `(name, shell script)`.
pub fn shell_tools(dir: &TempDir, tools: &[(&str, &str)]) -> PathBuf {
    let tools: Vec<serde_json::Value> = tools
        .iter()
        .map(|(name, script)| {
            serde_json::json!({
                "name": name,
                "description": format!("The test tool {name}."),
                "schema": {"type": "object", "properties": {"n": {"type": "integer"}}, "additionalProperties": false},
                "command": ["/bin/sh", "-c", script],
                "timeoutSec": 20
            })
        })
        .collect();
    dir.write(
        "tools.json",
        serde_json::json!({ "tools": tools }).to_string(),
    )
}

/// Manifests of command tools, among them `echo` (its arguments back).
pub fn fixtures() -> PathBuf {
    crate::root().join("fixtures/run/agentcli")
}

/// A Nachos request envelope with `payload` (the tool's arguments).
pub fn envelope(id: &str, payload: serde_json::Value) -> String {
    serde_json::json!({
        "id": id,
        "timestamp": "2026-01-01T00:00:00.000Z",
        "source": "gateway",
        "type": "tool.request",
        "payload": payload,
    })
    .to_string()
}

/// The processes (pid, command line) whose command line holds `marker`,
/// this test process left out: what is left of a tool is found by a
/// marker only its command lines hold.
pub fn processes_with(marker: &str) -> Vec<(u32, String)> {
    let own = std::process::id();
    std::fs::read_dir("/proc")
        .expect("/proc")
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let line = std::fs::read(entry.path().join("cmdline")).ok()?;
            let line = String::from_utf8_lossy(&line).replace('\0', " ");
            (pid != own && line.contains(marker)).then_some((pid, line))
        })
        .collect()
}
