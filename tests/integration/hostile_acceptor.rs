//! Hostile review of the shared egress acceptor (one long-lived thread
//! polling every proxied call's listener, each made with its network
//! namespace ahead of time), the scratch directory made ahead of time
//! and the Landlock system directories opened once per process.
//!
//! The first four tests are defects the review found, each failing
//! before its fix; the others are attacks that held.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::TempDir;

/// How many more threads than after its first round a `serve` may have
/// after more rounds of the same calls (see the test that uses it).
const THREAD_SLACK: usize = 4;

/// A probe that runs the Python of its `code` argument and prints `out`.
const PROBE: &str = r#"
import json, os, socket, sys, time
args = json.load(sys.stdin)
out = {}
exec(args.get("code", ""))
print(json.dumps(out))
"#;

/// A `toolc serve` over stdio whose answers are collected by id, so that
/// calls can run at the same time.
struct Serve {
    child: Child,
    stdin: ChildStdin,
    answers: Arc<(Mutex<BTreeMap<u64, Value>>, Condvar)>,
    next: u64,
}

impl Serve {
    /// `toolc serve ARGS`, run through `wrapper` (a command line the
    /// toolc command line is appended to) when given, with `env` set.
    fn start(wrapper: &[&str], args: &[&str], env: &[(&str, &Path)]) -> Serve {
        let toolc = env!("CARGO_BIN_EXE_toolc");
        let mut command = match wrapper.split_first() {
            Some((program, rest)) => {
                let mut command = Command::new(program);
                command.args(rest).arg(toolc);
                command
            }
            None => Command::new(toolc),
        };
        command.arg("serve").args(args);
        for (name, value) in env {
            command.env(name, value);
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start toolc serve");
        let mut stdin = child.stdin.take().unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        writeln!(
            stdin,
            "{}",
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "hostile-acceptor", "version": "1"}}})
        )
        .unwrap();
        lines.next().unwrap().unwrap();
        writeln!(
            stdin,
            "{}",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        )
        .unwrap();
        let answers = Arc::new((Mutex::new(BTreeMap::new()), Condvar::new()));
        let filled = Arc::clone(&answers);
        std::thread::spawn(move || {
            for line in lines {
                let Ok(line) = line else { return };
                let Ok(answer) = serde_json::from_str::<Value>(&line) else {
                    continue;
                };
                let Some(id) = answer["id"].as_u64() else {
                    continue;
                };
                filled.0.lock().unwrap().insert(id, answer);
                filled.1.notify_all();
            }
        });
        Serve {
            child,
            stdin,
            answers,
            next: 1,
        }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends a call of `tool`; its id.
    fn send(&mut self, tool: &str, arguments: Value) -> u64 {
        let id = self.next;
        self.next += 1;
        writeln!(
            self.stdin,
            "{}",
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": tool, "arguments": arguments}})
        )
        .unwrap();
        id
    }

    /// The result of call `id`.
    fn result(&self, id: u64) -> Value {
        let (answers, arrived) = &*self.answers;
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut answers = answers.lock().unwrap();
        loop {
            if let Some(answer) = answers.remove(&id) {
                return answer["result"].clone();
            }
            let left = deadline
                .checked_duration_since(Instant::now())
                .unwrap_or_else(|| panic!("call {id} was not answered"));
            answers = arrived.wait_timeout(answers, left).unwrap().0;
        }
    }

    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let id = self.send(tool, arguments);
        self.result(id)
    }

    /// What a probe call printed (its `out`), or the failed result.
    fn probe(&mut self, tool: &str, arguments: Value) -> Value {
        let result = self.call(tool, arguments);
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        if result["isError"] == json!(false) {
            serde_json::from_str(text).unwrap_or_else(|_| json!({ "unparsed": text }))
        } else {
            json!({ "failed": text })
        }
    }

    fn descriptors(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/fd", self.pid()))
            .map(|d| d.count())
            .unwrap_or(0)
    }

    fn threads(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/task", self.pid()))
            .map(|d| d.count())
            .unwrap_or(0)
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn is_root() -> bool {
    // SAFETY: a plain syscall.
    unsafe { libc::geteuid() == 0 }
}

/// The scratch directories (`toolc-run-…`) in `dir`.
fn scratch_directories(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("toolc-run-"))
        })
        .collect();
    found.sort();
    found
}

/// Waits up to 2 s for `dir` to hold a scratch directory made ahead of
/// time (it is made off the call's path).
fn wait_for_prepared(dir: &Path) -> Vec<PathBuf> {
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let found = scratch_directories(dir);
        if !found.is_empty() || Instant::now() > deadline {
            return found;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// An HTTP server on 127.0.0.1 answering `body`, counting its requests.
fn page(body: &'static str) -> (u16, Arc<AtomicUsize>) {
    crate::egress::serve(body)
}

// ---------------------------------------------------------------------
// Defects
// ---------------------------------------------------------------------

/// The scratch directory made ahead of time sits in TMPDIR between calls:
/// a temporary-file cleaner (systemd-tmpfiles, tmpreaper) that removes an
/// old empty directory during a long idle `serve` must not fail the next
/// call (it did, with `cannot start /usr/bin/python3: No such file or
/// directory … mount a tmpfs over the call's scratch directory`): a call
/// checks that the directory waiting is still the one made, and makes
/// another when it is not.
#[test]
fn a_prepared_scratch_directory_removed_meanwhile_does_not_fail_the_next_call() {
    let dir = TempDir::new("acceptor-scratch-cleaned");
    let tmp = dir.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let tool = TempDir::new("acceptor-scratch-cleaned-tool");
    let manifest = crate::python_probe(&tool, "probe", &[], 30, PROBE);
    let mut serve = Serve::start(&[], &[manifest.to_str().unwrap()], &[("TMPDIR", &tmp)]);
    for _ in 0..2 {
        let seen = serve.probe("probe", json!({"code": "out['ok'] = True"}));
        assert_eq!(seen["ok"], json!(true), "{seen}");
    }
    let prepared = wait_for_prepared(&tmp);
    assert!(!prepared.is_empty(), "no scratch directory made ahead");
    // The cleaner passes.
    for old in prepared {
        std::fs::remove_dir(old).unwrap();
    }
    let seen = serve.probe("probe", json!({"code": "out['ok'] = True"}));
    assert_eq!(
        seen["ok"],
        json!(true),
        "the call after the cleaner: {seen}"
    );
}

/// The same, done on purpose by a tool: the built-in shell, whose
/// workspace holds TMPDIR (`TMPDIR=$WORKSPACE/tmp`, as CI jobs set it),
/// removes the directory made ahead of time for the next call. Whoever
/// calls next (another client of the same `serve`) still succeeds.
#[test]
fn a_call_cannot_sabotage_the_next_calls_scratch_directory() {
    let workspace = TempDir::new("acceptor-scratch-sabotage");
    let tmp = workspace.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut serve = Serve::start(
        &[],
        &["builtin", "--workspace", workspace.path().to_str().unwrap()],
        &[("TMPDIR", &tmp)],
    );
    let warm = serve.call("shell", json!({"command": "echo warm"}));
    assert_eq!(warm["isError"], json!(false), "{warm}");
    // The attacker's call: waits for the next call's directory, then
    // removes every scratch directory but its own.
    let attack = serve.call(
        "shell",
        json!({"command": r#"sleep 0.5; cd "$TMPDIR/.."; for d in toolc-run-*; do [ "$PWD/$d" = "$TMPDIR" ] || rmdir "$d"; done; ls"#}),
    );
    assert_eq!(attack["isError"], json!(false), "{attack}");
    let victim = serve.call("shell", json!({"command": "echo victim"}));
    assert_eq!(
        victim["isError"],
        json!(false),
        "the next call failed: {victim}"
    );
}

/// The Landlock rules' system directories are held open from the first
/// call on. A directory replaced afterwards (here: a bind mount over
/// `/etc/ld.so.conf.d` taken off, as a container's or an administrator's
/// replacement of a system directory would be) must not keep its old
/// rule: a later call may read the system directory now at the path and
/// not the old one wherever it now is (a directory no call declared). It
/// could, before each call checked what the path names.
#[test]
fn a_replaced_system_directory_is_followed_by_later_calls() {
    if !is_root() || !Path::new("/etc/ld.so.conf.d").is_dir() {
        eprintln!("needs root (mount namespaces) and /etc/ld.so.conf.d: skipped");
        return;
    }
    let old = TempDir::new("acceptor-held-old");
    old.write("kept.txt", "held-open");
    let tool = TempDir::new("acceptor-held-tool");
    let manifest = crate::python_probe(&tool, "probe", &[], 30, PROBE);
    // toolc in a private mount namespace of its own, with a directory
    // mounted over /etc/ld.so.conf.d when it starts.
    let script = format!(
        "mount --bind '{}' /etc/ld.so.conf.d && exec \"$@\"",
        old.path().display()
    );
    let mut serve = Serve::start(
        &[
            "unshare",
            "--mount",
            "--propagation",
            "private",
            "--",
            "sh",
            "-c",
            &script,
            "sh",
        ],
        &[manifest.to_str().unwrap()],
        &[],
    );
    let code = format!(
        r#"
def read(p):
    try:
        return open(p).read()
    except OSError as e:
        return "denied: %s" % e.strerror
def listing(p):
    try:
        return sorted(os.listdir(p))
    except OSError as e:
        return "denied: %s" % e.strerror
out["system"] = listing("/etc/ld.so.conf.d")
out["old"] = read("{}/kept.txt")
"#,
        old.path().display()
    );
    let first = serve.probe("probe", json!({ "code": code }));
    assert_eq!(first["system"], json!(["kept.txt"]), "{first}");
    // The directory at /etc/ld.so.conf.d is replaced: the host's own is
    // back there, the old one is only at its own path.
    let unmounted = Command::new("nsenter")
        .arg(format!("--mount=/proc/{}/ns/mnt", serve.pid()))
        .args(["umount", "-l", "/etc/ld.so.conf.d"])
        .status()
        .unwrap();
    assert!(unmounted.success());
    let host: Vec<String> = {
        let mut names: Vec<String> = std::fs::read_dir("/etc/ld.so.conf.d")
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let later = serve.probe("probe", json!({ "code": code }));
    assert!(
        later["old"]
            .as_str()
            .unwrap_or_default()
            .starts_with("denied"),
        "a later call read the replaced directory at its own path: {later}"
    );
    assert_eq!(
        later["system"],
        json!(host),
        "a later call cannot read the system directory now at the path: {later}"
    );
}

/// Nothing of a call leaves through its proxy once it is answered. Here
/// the upstream is slow to take the connection (its accept queue full):
/// the thread serving the tool's connection is still connecting when the
/// call ends. It used to go on (only the relay looked at the call's end)
/// and send the request seconds after the answer; now the connection
/// being made is abandoned and nothing is sent.
#[test]
fn nothing_leaves_through_the_proxy_after_the_call_ended() {
    let upstream = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = upstream.local_addr().unwrap().port();
    // Fill the accept queue (the listener's backlog is 128; a listener
    // of backlog 0 is not to be had from std): connections nobody
    // accepts, until a SYN is dropped.
    let mut filler = Vec::new();
    let probe_full = || {
        let started = Instant::now();
        let connected = std::net::TcpStream::connect_timeout(
            &format!("127.0.0.1:{port}").parse().unwrap(),
            Duration::from_millis(300),
        );
        (connected, started.elapsed())
    };
    loop {
        let (connected, _) = probe_full();
        match connected {
            Ok(stream) => filler.push(stream),
            Err(_) => break,
        }
        assert!(filler.len() < 4096, "the accept queue never filled");
    }
    let tool = TempDir::new("acceptor-after-end");
    let manifest = crate::python_probe(&tool, "probe", &[&format!("127.0.0.1:{port}")], 30, PROBE);
    let mut serve = Serve::start(&[], &[manifest.to_str().unwrap()], &[]);
    let code = format!(
        r#"
c = socket.create_connection(("127.0.0.1", 3128))
c.sendall(b"GET http://127.0.0.1:{port}/sent-after-the-call-ended HTTP/1.1\r\nHost: x\r\n\r\n")
time.sleep(0.3)
out["sent"] = True
"#
    );
    let seen = serve.probe("probe", json!({ "code": code }));
    assert_eq!(seen["sent"], json!(true), "{seen}");
    // The call is answered. The upstream now takes its connections.
    drop(filler);
    upstream.set_nonblocking(true).unwrap();
    let deadline = Instant::now() + Duration::from_secs(12);
    let mut late = Vec::new();
    while Instant::now() < deadline {
        match upstream.accept() {
            Ok((mut stream, _)) => {
                stream.set_nonblocking(false).unwrap();
                stream
                    .set_read_timeout(Some(Duration::from_millis(500)))
                    .unwrap();
                let mut buffer = [0u8; 512];
                let n = stream.read(&mut buffer).unwrap_or(0);
                let text = String::from_utf8_lossy(&buffer[..n]).into_owned();
                if !text.is_empty() {
                    late.push(text);
                }
            }
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
    assert!(
        late.is_empty(),
        "requests arrived after the call was answered: {late:?}"
    );
}

// ---------------------------------------------------------------------
// Attacks that held
// ---------------------------------------------------------------------

/// A tool that holds its call's 32 connections open without a request
/// and floods its listener with connections (closed, reset, or kept
/// half-open) does not slow another call's proxy, served by the same
/// acceptor.
#[test]
fn a_flood_on_one_calls_listener_does_not_stall_another_call() {
    let (port_a, _) = page("page-of-a");
    let (port_b, hits_b) = page("page-of-b");
    let dir_a = TempDir::new("acceptor-flood-a");
    let dir_b = TempDir::new("acceptor-flood-b");
    let a = crate::python_probe(&dir_a, "a", &[&format!("127.0.0.1:{port_a}")], 30, PROBE);
    let b = crate::python_probe(&dir_b, "b", &[&format!("127.0.0.1:{port_b}")], 30, PROBE);
    let mut serve = Serve::start(&[], &[a.to_str().unwrap(), b.to_str().unwrap()], &[]);
    let flood = r#"
import struct
held = [socket.create_connection(("127.0.0.1", 3128)) for _ in range(40)]
kept = []
end = time.time() + 2.5
n = 0
while time.time() < end:
    c = socket.socket()
    c.setblocking(False)
    try:
        c.connect(("127.0.0.1", 3128))
    except BlockingIOError:
        pass
    n += 1
    if n % 3 == 0:
        c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        c.close()
    elif n % 3 == 1 and len(kept) < 2000:
        kept.append(c)
    else:
        c.close()
out["attempts"] = n
"#;
    let victim = format!(
        r#"
import urllib.request
slowest = 0
pages = []
time.sleep(0.5)
for _ in range(5):
    t = time.time()
    pages.append(urllib.request.urlopen("http://127.0.0.1:{port_b}/", timeout=10).read().decode())
    slowest = max(slowest, time.time() - t)
    time.sleep(0.2)
out["pages"] = pages
out["slowest"] = slowest
"#
    );
    let flooding = serve.send("a", json!({ "code": flood }));
    let seen = serve.probe("b", json!({ "code": victim }));
    assert_eq!(seen["pages"], json!(vec!["page-of-b"; 5]), "{seen}");
    assert!(
        seen["slowest"].as_f64().unwrap() < 1.0,
        "a request waited behind the flood: {seen}"
    );
    assert_eq!(serve.result(flooding)["isError"], json!(false));
    assert_eq!(hits_b.load(Ordering::SeqCst), 5);
}

/// Calls of two tools with different allow-lists, eight at a time, each
/// opening connections and ending while its last are being accepted:
/// no connection is ever checked against the other tool's list (the
/// other's server sees nothing of it), and once they are over toolc
/// holds no more descriptors and threads than after the first round.
#[test]
fn racing_calls_keep_their_lists_and_leave_nothing_behind() {
    let (port_a, hits_a) = page("page-of-a");
    let (port_b, hits_b) = page("page-of-b");
    let dir_a = TempDir::new("acceptor-race-a");
    let dir_b = TempDir::new("acceptor-race-b");
    let a = crate::python_probe(&dir_a, "a", &[&format!("127.0.0.1:{port_a}")], 30, PROBE);
    let b = crate::python_probe(&dir_b, "b", &[&format!("127.0.0.1:{port_b}")], 30, PROBE);
    let mut serve = Serve::start(&[], &[a.to_str().unwrap(), b.to_str().unwrap()], &[]);
    // Each call asks for the other tool's page on fresh connections and
    // leaves while the last ones are still being accepted.
    let code = |other: u16| {
        format!(
            r#"
def status_line(c):
    data = b""
    while b"\r\n" not in data:
        more = c.recv(64)
        if not more:
            break
        data += more
    return data.split(b"\r\n")[0].decode()
for _ in range(6):
    c = socket.create_connection(("127.0.0.1", 3128))
    c.sendall(b"GET http://127.0.0.1:{other}/ HTTP/1.1\r\nHost: x\r\n\r\n")
    c.settimeout(5)
    out.setdefault("answers", []).append(status_line(c))
for _ in range(8):
    c = socket.create_connection(("127.0.0.1", 3128))
    c.sendall(b"GET http://127.0.0.1:{other}/ HTTP/1.1\r\nHost: x\r\n\r\n")
"#
        )
    };
    let round = |serve: &mut Serve| {
        let ids: Vec<(u64, &str)> = (0..8)
            .map(|n| {
                if n % 2 == 0 {
                    (serve.send("a", json!({"code": code(port_b)})), "a")
                } else {
                    (serve.send("b", json!({"code": code(port_a)})), "b")
                }
            })
            .collect();
        for (id, tool) in ids {
            let result = serve.result(id);
            assert_eq!(result["isError"], json!(false), "{tool}: {result}");
            let seen: Value =
                serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
            for answer in seen["answers"].as_array().unwrap() {
                assert_eq!(answer, "HTTP/1.1 403 Forbidden", "{tool}: {seen}");
            }
        }
    };
    round(&mut serve);
    std::thread::sleep(Duration::from_millis(500));
    let (descriptors, threads) = (serve.descriptors(), serve.threads());
    for _ in 0..3 {
        round(&mut serve);
    }
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(hits_a.load(Ordering::SeqCst), 0);
    assert_eq!(hits_b.load(Ordering::SeqCst), 0);
    assert!(
        serve.descriptors() <= descriptors,
        "descriptors: {} after the first round, {} after four",
        descriptors,
        serve.descriptors()
    );
    // A few threads come and go on their own (the async runtime's pool
    // for blocking work grows with the calls at once and lets idle
    // threads go after seconds); a leak would be one per connection,
    // over a hundred a round.
    assert!(
        serve.threads() <= threads + THREAD_SLACK,
        "threads: {} after the first round, {} after four",
        threads,
        serve.threads()
    );
}

/// The built-in shell's proxy (public addresses only) refuses the host's
/// loopback however it is spelled: `0.0.0.0`, `127.1`, a decimal
/// address, `[::]`, `[::ffff:127.0.0.1]`, `localhost`, a trailing dot,
/// in CONNECT and in absolute form; the listener sees nothing.
#[test]
fn the_shells_proxy_refuses_the_host_loopback_in_every_spelling() {
    let host = TcpListener::bind("127.0.0.1:0").unwrap();
    host.set_nonblocking(true).unwrap();
    let port = host.local_addr().unwrap().port();
    let workspace = TempDir::new("acceptor-shell-loopback");
    let script = format!(
        r#"
import socket, json
hosts = ["127.0.0.1", "0.0.0.0", "127.1", "2130706433", "[::]", "[::1]",
         "[::ffff:127.0.0.1]", "localhost", "localhost.", "LOCALHOST", "0"]
out = {{}}
for h in hosts:
    for form in ("CONNECT %s:{port} HTTP/1.1\r\n\r\n", "GET http://%s:{port}/ HTTP/1.1\r\nHost: x\r\n\r\n"):
        c = socket.create_connection(("127.0.0.1", 3128))
        c.sendall((form % h).encode())
        c.settimeout(10)
        data = b""
        while b"\r\n" not in data:
            more = c.recv(64)
            if not more:
                break
            data += more
        out[form.split()[0] + " " + h] = data.split(b"\r\n")[0].decode()
print(json.dumps(out))
"#
    );
    workspace.write("probe.py", script);
    let mut serve = Serve::start(
        &[],
        &["builtin", "--workspace", workspace.path().to_str().unwrap()],
        &[],
    );
    let result = serve.call("shell", json!({"command": "python3 probe.py"}));
    assert_eq!(result["isError"], json!(false), "{result}");
    let text = result["content"][0]["text"].as_str().unwrap();
    let shell: Value = serde_json::from_str(text).unwrap();
    let stdout = shell["stdout"].as_str().unwrap_or_default();
    let seen: Value = serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {shell}"));
    for (request, status) in seen.as_object().unwrap() {
        assert!(
            status.as_str().unwrap().starts_with("HTTP/1.1 403")
                || status.as_str().unwrap().starts_with("HTTP/1.1 400"),
            "{request}: {status}"
        );
    }
    assert!(host.accept().is_err(), "a connection reached the host");
}
