//! Issue 28 point 5: every call runs in a cgroup of its own, beneath the
//! cgroup toolc runs in, with a process and a memory limit; a fork bomb
//! and a memory hog (a memfd, and plain anonymous memory) end the call
//! with `RESOURCE_LIMIT` within seconds while the host keeps answering,
//! and the call's cgroup is gone afterwards (as is a stale one of a dead
//! toolc).
//!
//! These tests need a writable cgroup (v1 memory and pids controllers, or
//! v2 with both delegated): in CI (`CI=true`), where toolc runs as root,
//! a missing one fails the test; elsewhere the test says so and passes.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::SYSTEM_PYTHON as PYTHON;
use crate::TempDir;

/// A Nachos manifest in `dir` for the tool `name` without network, run
/// as `python3 tool.py` with `script` as tool.py.
fn write_tool(dir: &TempDir, name: &str, script: &str) -> PathBuf {
    crate::python_probe(dir, name, &[], 20, script)
}

/// The cgroup directories this test process runs in, one per hierarchy
/// that holds the memory or pids controller (v1), or the unified one (v2).
fn own_cgroups() -> Vec<PathBuf> {
    let membership = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let mounts: Vec<(String, String, String, String)> = mountinfo
        .lines()
        .filter_map(|line| {
            let (left, right) = line.split_once(" - ")?;
            let fields: Vec<&str> = left.split_whitespace().collect();
            let right: Vec<&str> = right.split_whitespace().collect();
            Some((
                fields.get(3)?.to_string(),
                fields.get(4)?.to_string(),
                right.first()?.to_string(),
                right.get(2).unwrap_or(&"").to_string(),
            ))
        })
        .collect();
    let mut dirs = Vec::new();
    for controller in ["memory", "pids"] {
        let path = membership.lines().find_map(|line| {
            let mut parts = line.splitn(3, ':');
            let _ = parts.next();
            let names = parts.next()?;
            names
                .split(',')
                .any(|n| n == controller)
                .then(|| parts.next().map(str::to_string))?
        });
        let mount = mounts.iter().find(|(_, _, kind, options)| {
            kind == "cgroup" && options.split(',').any(|o| o == controller)
        });
        if let (Some(path), Some((root, point, _, _))) = (path, mount) {
            let relative = path.strip_prefix(root.as_str()).unwrap_or(&path);
            dirs.push(Path::new(point).join(relative.trim_start_matches('/')));
        }
    }
    if dirs.is_empty()
        && let Some(path) = membership.lines().find_map(|l| l.strip_prefix("0::"))
        && let Some((root, point, _, _)) = mounts.iter().find(|m| m.2 == "cgroup2")
    {
        let relative = path.strip_prefix(root.as_str()).unwrap_or(path);
        dirs.push(Path::new(point).join(relative.trim_start_matches('/')));
    }
    dirs
}

/// Whether toolc can make call cgroups here (as it runs beneath this
/// process's cgroup): the other tests' controls differ then.
pub(crate) fn usable(test: &str) -> bool {
    let dirs = own_cgroups();
    !dirs.is_empty()
        && dirs.iter().all(|dir| {
            let probe = dir.join(format!("toolc-test-probe-{}-{test}", std::process::id()));
            let made = std::fs::create_dir(&probe).is_ok();
            let _ = std::fs::remove_dir(&probe);
            made
        })
}

/// Whether a cgroup can be made beneath this process's own; in CI a
/// missing one is a failure, not a skip.
fn cgroups_writable(test: &str) -> bool {
    let dirs = own_cgroups();
    let writable = usable(test);
    if !writable {
        let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
        assert!(
            !ci,
            "{test}: no writable cgroup beneath {dirs:?}; CI runs these tests as root"
        );
        eprintln!("{test}: skipped: no writable cgroup beneath {dirs:?}");
    }
    writable
}

fn toolc() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolc"));
    command.env("NO_COLOR", "1");
    command
}

/// `toolc run --args {} EXTRA… MANIFEST TOOL`: the result line, toolc's
/// stderr, its pid and how long it took.
fn run(manifest: &Path, tool: &str, extra: &[&str]) -> (Value, String, u32, Duration) {
    let started = Instant::now();
    let child = toolc()
        .args(["run", "--args", "{}"])
        .args(extra)
        .arg(manifest)
        .arg(tool)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let line: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}: {stderr}", String::from_utf8_lossy(&out.stdout)));
    (line, stderr, pid, took)
}

fn assert_resource_limit(line: &Value, took: Duration, what: &str) {
    assert_eq!(line["success"], json!(false), "{what}: {line}");
    assert_eq!(
        line["error"]["code"],
        json!("RESOURCE_LIMIT"),
        "{what}: {line}"
    );
    assert!(
        took < Duration::from_secs(10),
        "{what}: the call took {took:?}: {line}"
    );
}

/// The `toolc-PID-…` cgroups of toolc `pid` left beneath this process's.
fn leftovers(pid: u32) -> Vec<PathBuf> {
    let prefix = format!("toolc-{pid}-");
    own_cgroups()
        .iter()
        .filter_map(|dir| std::fs::read_dir(dir).ok())
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| e.path())
        .collect()
}

/// A loopback echo server on a thread of this test, and a prober that
/// measures its slowest answer until stopped.
struct Responsiveness {
    stop: Arc<AtomicBool>,
    prober: std::thread::JoinHandle<(usize, Duration, usize)>,
}

impl Responsiveness {
    fn start() -> Responsiveness {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let mut buffer = [0u8; 16];
                if let Ok(n) = stream.read(&mut buffer) {
                    let _ = stream.write_all(&buffer[..n]);
                }
            }
        });
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let prober = std::thread::spawn(move || {
            let (mut answered, mut failed, mut slowest) = (0, 0, Duration::ZERO);
            while !flag.load(Ordering::Relaxed) {
                let asked = Instant::now();
                let ok = TcpStream::connect_timeout(&address, Duration::from_secs(2))
                    .and_then(|mut s| {
                        s.set_read_timeout(Some(Duration::from_secs(2)))?;
                        s.write_all(b"ping")?;
                        let mut buffer = [0u8; 4];
                        s.read_exact(&mut buffer)?;
                        Ok(buffer == *b"ping")
                    })
                    .unwrap_or(false);
                if ok {
                    answered += 1;
                } else {
                    failed += 1;
                }
                slowest = slowest.max(asked.elapsed());
                std::thread::sleep(Duration::from_millis(20));
            }
            (answered, slowest, failed)
        });
        Responsiveness { stop, prober }
    }

    /// Stops probing; asserts the echo server always answered, in time.
    fn check(self, what: &str) {
        self.stop.store(true, Ordering::Relaxed);
        let (answered, slowest, failed) = self.prober.join().unwrap();
        assert_eq!(
            failed, 0,
            "{what}: the echo server did not answer {failed} times"
        );
        assert!(answered > 0, "{what}: no probe ran");
        assert!(
            slowest < Duration::from_secs(1),
            "{what}: the echo server took {slowest:?} to answer"
        );
    }
}

/// Forks up to 3,000 children that wait (as fast as it can, going on when
/// a fork fails), then reports how many it made.
const FORK_BOMB: &str = r#"
import json, os, signal, time
made = 0
for _ in range(3000):
    try:
        pid = os.fork()
    except OSError:
        continue
    if pid == 0:
        signal.pause()
        os._exit(0)
    made += 1
print(json.dumps({"made": made}))
time.sleep(60)
"#;

/// The fork bomb ends with RESOURCE_LIMIT within seconds, the host's
/// loopback echo server answering throughout, and leaves no cgroup.
#[test]
fn a_fork_bomb_ends_with_resource_limit_and_the_host_answers() {
    if !cgroups_writable("fork-bomb") {
        return;
    }
    let dir = TempDir::new("cgroup-fork-bomb");
    let manifest = write_tool(&dir, "bomb", FORK_BOMB);
    let host = Responsiveness::start();
    let (line, stderr, pid, took) = run(&manifest, "bomb", &[]);
    host.check("fork bomb");
    assert_resource_limit(&line, took, "fork bomb");
    let message = line["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("process"), "{line} {stderr}");
    assert_eq!(
        line["error"]["details"]["limit"],
        json!("processes"),
        "{line}"
    );
    assert_eq!(leftovers(pid), Vec::<PathBuf>::new());
}

/// Stores 1 GiB in a memfd (pages RLIMIT_AS never counts), 1 MiB at a
/// time.
const MEMFD_HOG: &str = r#"
import json, os
fd = os.memfd_create("hog")
chunk = b"\x01" * (1 << 20)
for _ in range(1024):
    os.write(fd, chunk)
print(json.dumps({"stored": os.fstat(fd).st_size}))
"#;

#[test]
fn a_memfd_hog_under_memory_64mib_ends_with_resource_limit() {
    if !cgroups_writable("memfd-hog") {
        return;
    }
    let dir = TempDir::new("cgroup-memfd-hog");
    let manifest = write_tool(&dir, "memfd_hog", MEMFD_HOG);
    let host = Responsiveness::start();
    let (line, stderr, pid, took) = run(&manifest, "memfd_hog", &["--memory", "64MiB"]);
    host.check("memfd hog");
    assert_resource_limit(&line, took, "memfd hog");
    let message = line["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("memory"), "{line} {stderr}");
    assert_eq!(line["error"]["details"]["limit"], json!("memory"), "{line}");
    assert_eq!(leftovers(pid), Vec::<PathBuf>::new());
}

/// Holds 1 GiB of anonymous memory, written, 1 MiB at a time.
const PLAIN_HOG: &str = r#"
import json
held = []
for i in range(1024):
    held.append(bytes([i % 251 + 1]) * (1 << 20))
print(json.dumps({"held": len(held)}))
"#;

#[test]
fn a_plain_memory_hog_ends_with_resource_limit() {
    if !cgroups_writable("plain-hog") {
        return;
    }
    let dir = TempDir::new("cgroup-plain-hog");
    let manifest = write_tool(&dir, "plain_hog", PLAIN_HOG);
    let (line, _, pid, took) = run(&manifest, "plain_hog", &["--memory", "64MiB"]);
    assert_resource_limit(&line, took, "plain memory hog");
    assert_eq!(leftovers(pid), Vec::<PathBuf>::new());
}

/// Reports the cgroups the tool runs in.
const WHERE_AM_I: &str = r#"
import json
with open("/proc/self/cgroup") as f:
    print(json.dumps({"cgroup": f.read()}))
"#;

/// A normal tool runs (with a per-call process limit given), inside a
/// `toolc-…` cgroup beneath toolc's own in every limiting hierarchy; the
/// cgroup is gone when the call is over, and so is a stale call cgroup of
/// a toolc that no longer runs.
#[test]
fn a_normal_tool_runs_in_a_call_cgroup_that_is_removed_after() {
    if !cgroups_writable("normal") {
        return;
    }
    // pid_max is at most 2^22: no toolc runs with this pid.
    let stale: Vec<PathBuf> = own_cgroups()
        .iter()
        .map(|dir| dir.join("toolc-4999999-1-0"))
        .collect();
    for dir in &stale {
        std::fs::create_dir(dir).unwrap();
    }
    let dir = TempDir::new("cgroup-normal");
    let manifest = write_tool(&dir, "where", WHERE_AM_I);
    let (line, stderr, pid, _) = run(&manifest, "where", &["--max-processes", "32"]);
    assert_eq!(line["success"], json!(true), "{line} {stderr}");
    let reported = line["output"]["cgroup"].as_str().unwrap_or_default();
    let ours = std::fs::read_to_string("/proc/self/cgroup").unwrap();
    let mut inside = 0;
    for theirs in reported.lines() {
        let (hierarchy, path) = theirs.rsplit_once(':').unwrap();
        let Some(own) = ours
            .lines()
            .find_map(|l| l.rsplit_once(':').filter(|(h, _)| *h == hierarchy))
        else {
            continue;
        };
        let leaf = Path::new(path).file_name().unwrap_or_default();
        if leaf.to_string_lossy().starts_with(&format!("toolc-{pid}-")) {
            assert_eq!(
                Path::new(path).parent(),
                Some(Path::new(own.1)),
                "{theirs} is not directly beneath {}",
                own.1
            );
            inside += 1;
        }
    }
    assert!(
        inside >= own_cgroups().len(),
        "the tool ran in {reported:?}, not in a call cgroup beneath {ours:?}"
    );
    assert_eq!(leftovers(pid), Vec::<PathBuf>::new());
    for dir in &stale {
        let left = dir.exists();
        let _ = std::fs::remove_dir(dir);
        assert!(!left, "{} of a dead toolc was not swept", dir.display());
    }
}

/// A warm Python server (NORA, the default) and the calls it forks run in
/// a `toolc-…` cgroup beneath toolc's own, which is gone once toolc ends.
#[test]
fn a_warm_python_call_runs_in_its_servers_cgroup() {
    if !cgroups_writable("warm") {
        return;
    }
    let dir = TempDir::new("cgroup-warm");
    dir.write(
        "main.py",
        "def run(params):\n    with open('/proc/self/cgroup') as f:\n        return f.read()\n",
    );
    let manifest = dir.write(
        "tool.json",
        r#"{"name": "where", "description": "Say the cgroup.", "entrypoint": "main.py", "parameters": {"type": "object", "properties": {}}}"#,
    );
    let (line, stderr, pid, _) = run(&manifest, "where", &["--python", PYTHON]);
    assert_eq!(line["success"], json!(true), "{line} {stderr}");
    let reported = line["output"].as_str().unwrap_or_default();
    let inside = reported
        .lines()
        .filter(|l| l.contains(&format!("/toolc-{pid}-")))
        .count();
    assert!(
        inside >= own_cgroups().len(),
        "the warm call ran in {reported:?}"
    );
    assert_eq!(leftovers(pid), Vec::<PathBuf>::new());
}

/// `--memory 0` and `--memory 1B` were accepted, and every call then
/// failed with RESOURCE_LIMIT ("limit of 0 bytes") and exit 0: a limit
/// below 1 MiB is a usage error, for `run` and `serve` alike; 1MiB runs.
#[test]
fn a_memory_limit_below_one_mib_is_a_usage_error() {
    let dir = TempDir::new("memory-floor");
    for command in ["run", "serve"] {
        for size in ["0", "1B", "1023KiB"] {
            let output = crate::Test::new()
                .current_dir(dir.path())
                .args([command, "builtin", "--memory", size])
                .run();
            assert_eq!(
                output.code, 2,
                "{command} --memory {size}: {}",
                output.stderr
            );
            assert!(
                output
                    .stderr
                    .contains("below the least toolc applies, 1MiB")
                    && output.stderr.contains("--memory"),
                "{command} --memory {size}: {}",
                output.stderr
            );
        }
    }
    let output = crate::Test::new()
        .current_dir(dir.path())
        .args(["run", "builtin", "--memory", "1MiB", "--list"])
        .run();
    assert_eq!(output.code, 0, "{}", output.stderr);
}
