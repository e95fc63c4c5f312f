//! A live MCP server (`--mcp-stdio`) that starts a daemon (a double fork
//! into a session of its own) and then answers slowly: whatever ends
//! toolc while it waits (SIGTERM, SIGINT, SIGKILL), the daemon ends with
//! it, as the server runs in a PID namespace of its own (issue 28 point 7).
//! On SIGTERM and SIGINT toolc also ends the server itself and exits as a
//! shell reports a signal (128 + n).

#![cfg(target_os = "linux")]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::TempDir;

/// A tiny MCP stdio server: it double-forks a daemon (`setsid`, then a
/// second fork) that writes its (host) pid to `argv[1]` and sleeps five minutes,
/// then answers each request only after 30 s.
const SERVER: &str = r#"
import json, os, sys, time

pid_file = sys.argv[1]
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for fd in (0, 1, 2):
            os.close(fd)
        # The host's pid, which /proc (the host's) names itself by; in a
        # PID namespace getpid() is the namespace's.
        with open(pid_file + ".tmp", "w") as f:
            f.write(os.readlink("/proc/self"))
        os.rename(pid_file + ".tmp", pid_file)
        time.sleep(300)
    os._exit(0)
for line in sys.stdin:
    request = json.loads(line)
    if "id" not in request:
        continue
    time.sleep(30)
    result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
              "serverInfo": {"name": "slow", "version": "1"}}
    if request["method"] == "tools/list":
        result = {"tools": []}
    print(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}), flush=True)
"#;

/// Whether `pid` is gone (or a zombie nobody waits for).
fn gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with(['Z', 'X'])),
    }
}

/// Waits up to `limit` for `path` to hold a pid.
fn wait_for_pid(path: &Path, limit: Duration) -> Option<i32> {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if let Some(pid) = std::fs::read_to_string(path)
            .ok()
            .and_then(|t| t.trim().parse().ok())
        {
            return Some(pid);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

/// Starts `toolc lint --mcp-stdio` on the slow server, sends toolc
/// `signal` once the daemon is up, and checks the daemon is gone within
/// 5 s; returns toolc's exit status.
fn daemon_dies_when_toolc_gets(signal: i32, name: &str) -> std::process::ExitStatus {
    let dir = TempDir::new(name);
    let script = dir.path().join("server.py");
    std::fs::write(&script, SERVER).unwrap();
    let pid_file = dir.path().join("daemon.pid");
    let server = format!(
        "python3 {} {}",
        super::live::quoted(&script),
        super::live::quoted(&pid_file)
    );
    let mut toolc = Command::new(env!("CARGO_BIN_EXE_toolc"))
        .args(["lint", "--mcp-stdio", &server, "--mcp-timeout", "60"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start toolc");
    let daemon = wait_for_pid(&pid_file, Duration::from_secs(20));
    // The server is in its handshake by now (the daemon starts first).
    std::thread::sleep(Duration::from_millis(300));
    let toolc_pid = i32::try_from(toolc.id()).unwrap();
    // SAFETY: kill(2) on a child of this test.
    unsafe {
        libc::kill(toolc_pid, signal);
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = toolc.try_wait().expect("wait for toolc") {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = toolc.kill();
            let _ = toolc.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let Some(daemon) = daemon else {
        panic!("the server never started its daemon");
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    while !gone(daemon) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let survived = !gone(daemon);
    if survived {
        // SAFETY: kill(2) of the daemon this test's server started.
        unsafe {
            libc::kill(daemon, libc::SIGKILL);
        }
    }
    assert!(!survived, "the daemon {daemon} outlived toolc ({signal})");
    status.unwrap_or_else(|| panic!("toolc did not end within 10 s of signal {signal}"))
}

#[test]
fn a_daemon_dies_with_toolc_on_sigterm() {
    let status = daemon_dies_when_toolc_gets(libc::SIGTERM, "live-daemon-term");
    assert_eq!(status.code(), Some(143), "{status:?}");
}

#[test]
fn a_daemon_dies_with_toolc_on_sigint() {
    let status = daemon_dies_when_toolc_gets(libc::SIGINT, "live-daemon-int");
    assert_eq!(status.code(), Some(130), "{status:?}");
}

#[test]
fn a_daemon_dies_with_toolc_on_sigkill() {
    daemon_dies_when_toolc_gets(libc::SIGKILL, "live-daemon-kill");
}
