//! Scale and failover of `toolc serve --nats`: three workers in one queue
//! group on a three-node NATS cluster (routes between the nodes, all on
//! loopback) take 2,000 calls from four concurrent clients (`toolc call`,
//! one process per call, as a script would). At 30% of the calls one
//! worker is SIGKILLed, at 50% one NATS node is killed, at 60% another
//! worker is SIGTERMed. Then:
//!
//! - every call ended with a result or a clear error (exit 0, or `toolc
//!   call`'s exit 4 or 5 with its message), and every call to the
//!   idempotent tool succeeded, through retries where it had to;
//! - the audit records match the calls one for one: each record is of a
//!   call the clients made (its arguments' digest), no worker ran one
//!   call twice (a retry reaching the worker that ran it is answered from
//!   its cache), a call answered at its first attempt ran exactly once,
//!   and every call answered with success ran somewhere;
//! - the SIGTERMed worker stopped taking requests, finished the calls it
//!   had (none cancelled) and exited 0; the last worker too, at the end;
//! - no tool process is left, and no scratch directory once the next
//!   toolc swept those of the killed worker.
//!
//! The test is bounded: each `toolc call` by its `--timeout` and a
//! watchdog, the whole by a limit on the phases.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::TempDir;
use crate::nats_harness::{Worker, processes_with};
use crate::nats_server::NatsServer;

const CALLS: usize = 2000;
const CLIENTS: usize = 4;
/// Every tenth call goes to the tool that is not idempotent.
const ONCE_EVERY: usize = 10;
/// In each tool's command line, and in no other process's: what is left
/// of the tools is found by it.
const MARKER: &str = "0.0317";
/// The same for `linger`, the slow tool: a call of it runs about a second,
/// so a worker seen running one is still running it when it is signalled.
const LINGER: &str = "1.0317";
/// The `n` of the first `linger` call (the others follow).
const LINGER_FROM: usize = 1_000_000;

/// The two tools, as MCP tool JSON carrying the command to run: `work`
/// says it is idempotent, `once` says it is not.
fn manifest(dir: &TempDir) -> PathBuf {
    let tool = |name: &str, idempotent: bool, sleep: &str| {
        json!({
            "name": name,
            "description": format!("The failover test's tool {name}."),
            "inputSchema": {
                "type": "object",
                "properties": {"n": {"type": "integer"}},
                "required": ["n"],
                "additionalProperties": false
            },
            "annotations": {"idempotentHint": idempotent},
            "_meta": {"x-toolc": {"agentcli": {
                "command": ["/bin/sh", "-c", format!("sleep {sleep}; cat")],
                "timeoutSec": 20
            }}}
        })
    };
    dir.write(
        "tools.mcp.json",
        json!({"tools": [
            tool("work", true, MARKER),
            tool("once", false, MARKER),
            tool("linger", true, LINGER),
        ]})
        .to_string(),
    )
}

/// The SHA-256 the audit log writes for `{"n": n}` (canonical JSON).
fn digest(n: usize) -> String {
    let hash = Sha256::digest(format!("{{\"n\":{n}}}").as_bytes());
    hash.iter().map(|b| format!("{b:02x}")).collect()
}

/// What one `toolc call` ended with.
#[derive(Debug)]
struct Ended {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Ended {
    /// How many attempts the call made (`toolc call` notes more than one).
    fn attempts(&self) -> u32 {
        self.stderr
            .lines()
            .find_map(|line| line.rsplit_once("answered attempt "))
            .and_then(|(_, n)| n.trim().parse().ok())
            .unwrap_or(1)
    }
}

/// `toolc call --nats URLS TOOL --args {"n": n}`, killed past 60 s.
fn call(urls: &str, tool: &str, n: usize) -> Ended {
    let child = Command::new(env!("CARGO_BIN_EXE_toolc"))
        .args(["call", "--nats", urls, tool])
        .args(["--args", &json!({ "n": n }).to_string()])
        .args(["--timeout", "15", "--attempt-timeout", "2"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn toolc call");
    let pid = child.id();
    let watchdog = std::thread::spawn(move || {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(60) {
            std::thread::sleep(Duration::from_millis(100));
            if std::fs::metadata(format!("/proc/{pid}")).is_err() {
                return;
            }
        }
        // SAFETY: a plain kill(2) of the child this test started.
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    });
    let output = child.wait_with_output().expect("wait for toolc call");
    drop(watchdog);
    Ended {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// A worker connected to every node, its audit log at `audit`, its
/// temporary directory `tmp`.
fn worker(urls: &str, manifest: &Path, audit: &Path, tmp: &Path) -> Worker {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolc"));
    command
        .arg("serve")
        .arg(manifest)
        .args(["--nats", urls, "--log-level", "info", "--nats-grace", "20"])
        .arg("--audit")
        .arg(audit)
        .env("TMPDIR", tmp);
    Worker::launch(command)
}

/// The parent of process `pid`, as `/proc/PID/status` says.
fn parent(pid: u32) -> Option<u32> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("PPid:"))
        .and_then(|ppid| ppid.trim().parse().ok())
}

/// Whether a tool process (by `marker`) of worker `worker` runs now.
fn running_a_call(worker: u32, marker: &str) -> bool {
    processes_with(marker).iter().any(|(found, _)| {
        let mut pid = Some(*found);
        while let Some(p) = pid.filter(|&p| p > 1) {
            if p == worker {
                return true;
            }
            pid = parent(p);
        }
        false
    })
}

/// Calls `linger` from one client per node (the cluster hands a queue
/// group's requests to a subscriber on the caller's own node first) until
/// worker `pid` runs one, at most 30 s; then lets the callers finish the
/// calls they have running and returns them, to be waited for with
/// [`Lingering::finish`] once the worker has been dealt with.
fn linger_until_running_on(pid: u32, urls: &[String], next: &Arc<AtomicUsize>) -> Lingering {
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let callers = (0..urls.len())
        .map(|first| {
            let urls: Vec<String> = (0..urls.len())
                .map(|k| urls[(first + k) % urls.len()].clone())
                .collect();
            let (stop, next) = (Arc::clone(&stop), Arc::clone(next));
            std::thread::spawn(move || {
                let mut ended = Vec::new();
                while !stop.load(Ordering::Acquire) {
                    let n = next.fetch_add(1, Ordering::AcqRel);
                    ended.push((n, call(&urls.join(","), "linger", n)));
                }
                ended
            })
        })
        .collect();
    let started = Instant::now();
    while !running_a_call(pid, LINGER) {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "worker {pid} ran no `linger` call in 30 s"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    Lingering { stop, callers }
}

/// The `linger` callers of [`linger_until_running_on`].
struct Lingering {
    stop: Arc<std::sync::atomic::AtomicBool>,
    callers: Vec<std::thread::JoinHandle<Vec<(usize, Ended)>>>,
}

impl Lingering {
    /// Stops the callers and returns every call they made.
    fn finish(self) -> Vec<(usize, Ended)> {
        self.stop.store(true, Ordering::Release);
        self.callers
            .into_iter()
            .flat_map(|caller| caller.join().expect("a linger caller"))
            .collect()
    }
}

/// The scratch directories in `tmp`.
fn scratch_left(tmp: &Path) -> Vec<String> {
    std::fs::read_dir(tmp)
        .expect("the workers' temporary directory")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("toolc-run-"))
        .collect()
}

/// The records of an audit log (every line a whole JSON object).
fn audit_records(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{}: a torn audit line ({e}): {line}", path.display()))
        })
        .collect()
}

/// Waits until `done` reaches `mark` (at most `limit` from `started`).
fn wait_for(done: &AtomicUsize, mark: usize, started: Instant, limit: Duration) {
    while done.load(Ordering::Acquire) < mark {
        assert!(
            started.elapsed() < limit,
            "only {} of {CALLS} calls ended in {limit:?}",
            done.load(Ordering::Acquire)
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn nats_three_workers_on_a_cluster_survive_kills_with_every_call_accounted_for() {
    let limit = Duration::from_secs(600);
    let dir = TempDir::new("nats-failover");
    let manifest = manifest(&dir);
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let mut nodes = NatsServer::cluster(3);
    let urls: Vec<String> = nodes.iter().map(|node| node.url.clone()).collect();
    // Each worker and client is given every node, its own first; the
    // clients use the order given, so they spread over the nodes.
    let rotated = |first: usize| -> String {
        (0..3)
            .map(|k| urls[(first + k) % 3].clone())
            .collect::<Vec<_>>()
            .join(",")
    };
    let audits: Vec<PathBuf> = (0..3)
        .map(|w| dir.path().join(format!("audit-{w}.jsonl")))
        .collect();
    let mut workers: Vec<Worker> = (0..3)
        .map(|w| worker(&rotated(w), &manifest, &audits[w], &tmp))
        .collect();

    let started = Instant::now();
    let next = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicUsize::new(0));
    let clients: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let (next, done) = (Arc::clone(&next), Arc::clone(&done));
            let urls = rotated(c % 3);
            std::thread::spawn(move || {
                let mut ended = Vec::new();
                loop {
                    let n = next.fetch_add(1, Ordering::AcqRel);
                    if n >= CALLS {
                        return ended;
                    }
                    let tool = if n % ONCE_EVERY == ONCE_EVERY - 1 {
                        "once"
                    } else {
                        "work"
                    };
                    ended.push((n, call(&urls, tool, n)));
                    done.fetch_add(1, Ordering::AcqRel);
                }
            })
        })
        .collect();

    // Each worker is signalled while it runs a `linger` call (about a
    // second long), so the signal surely meets a call in flight.
    let lingers = Arc::new(AtomicUsize::new(LINGER_FROM));
    wait_for(&done, CALLS * 30 / 100, started, limit);
    let killed_pid = workers[0].child.id();
    let lingering = linger_until_running_on(killed_pid, &urls, &lingers);
    workers[0].child.kill().expect("SIGKILL worker 0");
    let cut_short = lingering.finish();
    wait_for(&done, CALLS * 50 / 100, started, limit);
    nodes[1].kill();
    wait_for(&done, CALLS * 60 / 100, started, limit);
    let drained_pid = workers[1].child.id();
    let lingering = linger_until_running_on(drained_pid, &urls[..], &lingers);
    // SAFETY: a plain kill(2) of a worker this test started.
    assert_eq!(unsafe { libc::kill(drained_pid as i32, libc::SIGTERM) }, 0);
    let drained = lingering.finish();

    // The `linger` call the SIGKILL cut short was sent again.
    assert!(
        cut_short.iter().any(|(_, call)| call.attempts() > 1),
        "no `linger` call was retried after worker 0 was killed running one: {cut_short:?}"
    );
    let mut ended: BTreeMap<usize, Ended> = BTreeMap::new();
    for client in clients {
        ended.extend(client.join().expect("a client thread"));
    }
    let took = started.elapsed();
    assert_eq!(ended.len(), CALLS);
    let lingered = cut_short.len() + drained.len();
    ended.extend(cut_short);
    ended.extend(drained);
    assert!(took < limit, "the calls took {took:?}");

    // The SIGTERMed worker drained: it exited 0 and cancelled nothing.
    let code = workers[1].wait(Duration::from_secs(30));
    let drained_log = workers[1].stderr();
    assert_eq!(code, 0, "the SIGTERMed worker:\n{drained_log}");
    assert!(
        drained_log.contains("NATS: draining") && drained_log.contains("drained and closed"),
        "{drained_log}"
    );
    assert!(!drained_log.contains("cancelling"), "{drained_log}");
    // The last worker, stopped the same way, exits 0 too.
    // SAFETY: as above.
    assert_eq!(
        unsafe { libc::kill(workers[2].child.id() as i32, libc::SIGTERM) },
        0
    );
    let last_code = workers[2].wait(Duration::from_secs(30));
    assert_eq!(last_code, 0, "the last worker:\n{}", workers[2].stderr());
    let _ = workers[0].child.wait();

    // Every call ended with a result or a clear error; the idempotent
    // tool's all succeeded.
    let mut retried = 0;
    let mut once_unknown = 0;
    for (n, call) in &ended {
        let once = *n < LINGER_FROM && n % ONCE_EVERY == ONCE_EVERY - 1;
        if call.code == 0 {
            let result: Value = serde_json::from_str(call.stdout.trim())
                .unwrap_or_else(|e| panic!("call {n}: not a result ({e}): {call:?}"));
            assert_eq!(result["success"], true, "call {n}: {call:?}");
            assert_eq!(result["output"], json!({"n": n}), "call {n}: {call:?}");
        } else {
            assert!(once, "the idempotent call {n} failed: {call:?}");
            assert_eq!(call.code, 5, "call {n}: {call:?}");
            assert!(
                call.stderr.contains("the outcome is unknown"),
                "call {n}: {call:?}"
            );
            once_unknown += 1;
        }
        if call.attempts() > 1 {
            retried += 1;
        }
    }

    // The audit records match the calls one for one.
    let mut ran: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (w, path) in audits.iter().enumerate() {
        let mut seen = BTreeSet::new();
        for record in audit_records(path) {
            assert_eq!(record["decision"], "allowed", "{record}");
            let sha = record["arguments_sha256"]
                .as_str()
                .expect("a digest")
                .to_string();
            assert!(
                seen.insert(sha.clone()),
                "worker {w} ran one call twice: {record}"
            );
            ran.entry(sha).or_default().push(w);
        }
    }
    let digests: BTreeMap<String, usize> = ended.keys().map(|&n| (digest(n), n)).collect();
    for sha in ran.keys() {
        assert!(
            digests.contains_key(sha),
            "an audit record of no call: {sha}"
        );
    }
    for (n, call) in &ended {
        let workers_ran = ran.get(&digest(*n)).map_or(0, Vec::len);
        if call.code == 0 {
            assert!(workers_ran >= 1, "call {n} succeeded but ran nowhere");
        }
        if call.code == 0 && call.attempts() == 1 {
            assert_eq!(workers_ran, 1, "call {n} was sent once: {call:?}");
        }
    }
    let records: usize = ran.values().map(Vec::len).sum();
    // The queue group shared the calls: each worker ran some.
    let per_worker: Vec<usize> = (0..3)
        .map(|w| ran.values().filter(|ws| ws.contains(&w)).count())
        .collect();
    assert!(per_worker.iter().all(|&count| count > 0), "{per_worker:?}");
    let running_at_stop = drained_log
        .lines()
        .find_map(|line| {
            line.split_once("NATS: draining: ")
                .map(|(_, rest)| rest.to_string())
        })
        .unwrap_or_default();
    assert!(
        !running_at_stop.contains("; 0 call(s) running"),
        "the SIGTERM met no call in flight: {running_at_stop}"
    );

    // Nothing left behind: no tool process; the killed worker's scratch
    // directories are the only ones, and the next toolc sweeps them.
    assert_eq!(processes_with(MARKER), Vec::<(u32, String)>::new());
    assert_eq!(processes_with(LINGER), Vec::<(u32, String)>::new());
    let left = scratch_left(&tmp);
    let killed = format!("toolc-run-{killed_pid}-");
    assert!(
        left.iter().all(|name| name.starts_with(&killed)),
        "scratch directories of workers that exited: {left:?}"
    );
    let output = Command::new(env!("CARGO_BIN_EXE_toolc"))
        .arg("run")
        .arg(&manifest)
        .args(["work", "--args", r#"{"n": 1}"#])
        .env("TMPDIR", &tmp)
        .stdin(Stdio::null())
        .output()
        .expect("toolc run");
    assert!(output.status.success(), "{output:?}");
    assert_eq!(scratch_left(&tmp), Vec::<String>::new());

    eprintln!(
        "failover: {CALLS} calls and {lingered} `linger` calls in {:.1} s, {retried} retried, {once_unknown} of `once` unknown, {records} audit records (per worker {per_worker:?}), SIGTERMed worker at its stop: {running_at_stop}, {} scratch directories left by the killed worker and swept",
        took.as_secs_f64(),
        left.len()
    );
    drop(nodes);
}
