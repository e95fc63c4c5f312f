//! The runner's isolation under attack (issue 15): tools in namespaces of
//! their own cannot see or read other processes, cannot send to the
//! outside without network, leave nothing running when their call ends,
//! and a signalled `toolc run` cleans up; where namespaces are refused,
//! Landlock alone applies and the result says so.
//!
//! The tools are Python scripts run by `/usr/bin/python3` (a system
//! interpreter the sandbox lets start), written per test into a Nachos
//! manifest whose `egress` says whether they have network.

use std::io::Read;
use std::net::{TcpListener, UdpSocket};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolc::run::{Runner, RunnerOptions, SandboxMode, ToolResult};

use crate::SYSTEM_PYTHON as PYTHON;
use crate::TempDir;

/// The descriptor a test leaks to toolc (see LOOK_AROUND).
const LEAKED_FD: i32 = 213;

/// A Nachos manifest in `dir` for the tool `name`, run as
/// `python3 tool.py` with `script` as tool.py; `egress` is its declared
/// network (`[]`: none).
fn write_tool(dir: &TempDir, name: &str, egress: &[&str], timeout: u64, script: &str) -> PathBuf {
    crate::python_probe(dir, name, egress, timeout, script)
}

fn runner(manifest: &Path, namespaces: bool) -> Runner {
    let options = RunnerOptions {
        namespaces,
        ..RunnerOptions::default()
    };
    Runner::load(&[manifest.to_path_buf()], options).unwrap()
}

fn unconfined(manifest: &Path) -> Runner {
    let options = RunnerOptions {
        sandbox: false,
        ..RunnerOptions::default()
    };
    Runner::load(&[manifest.to_path_buf()], options).unwrap()
}

/// Namespaces are what these tests check: a machine without them fails
/// the tests loudly rather than passing them under Landlock alone.
fn require_namespaces(runner: &Runner) {
    assert_eq!(
        runner.sandbox_mode(),
        SandboxMode::NamespacesLandlock,
        "this machine gives tools no namespaces: {:?}",
        runner.warnings()
    );
}

pub(crate) fn output(result: &ToolResult) -> &Value {
    assert!(result.success, "{}", result.to_json_line());
    result.output.as_ref().expect("an output")
}

pub(crate) fn sandbox(result: &ToolResult) -> &'static str {
    result
        .metadata
        .sandbox
        .map_or("(absent)", SandboxMode::as_str)
}

/// `toolc run MANIFEST TOOL EXTRA…` with `{}` for arguments and `name`
/// set to `secret` in toolc's environment: the result line and toolc's
/// pid.
pub(crate) fn run_with_secret(
    manifest: &Path,
    tool: &str,
    extra: &[&str],
    name: &str,
    secret: &str,
) -> (Value, u32) {
    let child = toolc()
        .args(["run", "--args", "{}"])
        .args(extra)
        .arg(manifest)
        .arg(tool)
        .env(name, secret)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let toolc_pid = child.id();
    let out = child.wait_with_output().unwrap();
    let line: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&out.stderr));
    });
    (line, toolc_pid)
}

/// `toolc` itself, to run with a chosen environment.
fn toolc() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolc"));
    command.env("NO_COLOR", "1");
    command
}

fn alive(pid: i32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // A zombie (state Z) is dead, only not yet reaped by its parent.
    !stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .trim_start()
        .starts_with('Z')
}

/// The live processes of the machine whose TMPDIR starts with `prefix`:
/// a call's processes, found from outside by the scratch directory
/// toolc gave them (the test runs as root and reads every environ).
pub(crate) fn processes_under(prefix: &Path) -> Vec<i32> {
    let wanted = format!("TMPDIR={}", prefix.display());
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|env| {
                env.split(|b| *b == 0)
                    .any(|var| var.starts_with(wanted.as_bytes()))
            }) && alive(*pid)
        })
        .collect()
}

/// Waits up to 5 s for the processes under `prefix` to be gone; those
/// still there.
fn survivors(prefix: &Path) -> Vec<i32> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let left = processes_under(prefix);
        if left.is_empty() || Instant::now() > deadline {
            return left;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub(crate) fn kill_all(pids: &[i32]) {
    for pid in pids {
        // SAFETY: signalling processes a test's tool left behind.
        unsafe {
            libc::kill(*pid, libc::SIGKILL);
        }
    }
}

/// The tool's view of the processes: its pid, the pids in its /proc,
/// whether it can see or signal `witness`, and what it read of every
/// environ it could name, its parent's and the witness's included.
const LOOK_AROUND: &str = r#"
import json, os, signal, sys
LEAKED_FD = 213
witness = int(sys.argv[1]) if len(sys.argv) > 1 else 0
pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
read = []
for pid in set(pids + [os.getppid(), witness]):
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            read.append(f.read().decode("utf-8", "replace"))
    except OSError:
        pass
try:
    os.kill(witness, 0)
    signalled = True
except OSError:
    signalled = False
print(json.dumps({
    "pid": os.getpid(),
    "pids": pids,
    "environ": "\n".join(read),
    "witness_visible": os.path.exists(f"/proc/{witness}"),
    "witness_signalled": signalled,
    "status_readable": os.access("/proc/self/status", os.R_OK),
    "leaked_fd_open": os.path.exists(f"/proc/self/fd/{LEAKED_FD}"),
}))
"#;

/// A confined tool cannot read toolc's environment (a secret put there),
/// nor any other process's, nor see or signal other processes; it is
/// process 1 of its own namespace and still reads its own /proc.
#[test]
fn a_tool_sees_no_other_process_and_reads_no_other_environ() {
    let dir = TempDir::new("isolation-proc");
    write_tool(&dir, "look_around", &[], 10, LOOK_AROUND);
    // The witness: a process of the machine the tool must not see.
    let mut witness = Command::new("sleep").arg("60").spawn().unwrap();
    let witness_pid = witness.id() as i32;
    let secret = format!("s3cret-{}", std::process::id());
    let manifest = dir.path().join("manifest.json");
    let look = |extra: &[&str]| {
        run_with_secret(
            &manifest,
            "look_around",
            extra,
            "TOOLC_ISOLATION_SECRET",
            &secret,
        )
    };
    // The witness's pid goes in through the manifest's argv.
    let script_args = |pid: i32| {
        let manifest_text = std::fs::read_to_string(&manifest).unwrap();
        let mut value: Value = serde_json::from_str(&manifest_text).unwrap();
        value["x-toolc"]["agentcli"]["command"] = json!([PYTHON, "tool.py", pid.to_string()]);
        std::fs::write(&manifest, value.to_string()).unwrap();
    };
    script_args(witness_pid);

    // A descriptor toolc inherits without close-on-exec (fd 213, a pipe
    // this test leaks to it) must not reach the tool.
    let mut ends = [0; 2];
    // SAFETY: pipe and dup2 on descriptors this test owns; fd 213 is
    // closed again below.
    unsafe {
        assert_eq!(libc::pipe(ends.as_mut_ptr()), 0);
        assert_eq!(libc::dup2(ends[1], LEAKED_FD), LEAKED_FD);
        libc::close(ends[1]);
    }
    let (line, toolc_pid) = look(&[]);
    // SAFETY: closing the descriptors opened above.
    unsafe {
        libc::close(LEAKED_FD);
        libc::close(ends[0]);
    }
    assert_eq!(line["metadata"]["sandbox"], json!("namespaces+landlock"));
    assert_eq!(line["output"]["leaked_fd_open"], json!(false), "{line}");
    let seen = &line["output"];
    assert_eq!(seen["pid"], json!(1), "{line}");
    assert_eq!(seen["status_readable"], json!(true), "{line}");
    let pids: Vec<u64> = serde_json::from_value(seen["pids"].clone()).unwrap();
    assert_eq!(pids, vec![1], "the tool sees processes besides itself");
    assert!(!pids.contains(&u64::from(toolc_pid)));
    assert_eq!(seen["witness_visible"], json!(false), "{line}");
    assert_eq!(seen["witness_signalled"], json!(false), "{line}");
    let environ = seen["environ"].as_str().unwrap();
    assert!(!environ.contains(&secret), "toolc's secret leaked: {line}");

    // Landlock alone: other processes show (and toolc's environ is
    // readable: the gap the PID namespace closes, not asserted here);
    // Landlock's signal scope still keeps signals from reaching them.
    let (line, toolc_pid) = look(&["--no-namespaces"]);
    assert_eq!(line["metadata"]["sandbox"], json!("landlock"));
    let seen = &line["output"];
    let pids: Vec<u64> = serde_json::from_value(seen["pids"].clone()).unwrap();
    assert!(pids.contains(&u64::from(toolc_pid)), "{line}");
    assert_eq!(seen["witness_visible"], json!(true), "{line}");
    assert_eq!(seen["witness_signalled"], json!(false), "{line}");

    // The control: unconfined, the same probe reads the secret, so the
    // probe could have seen it.
    let (line, _) = look(&["--no-sandbox"]);
    assert_eq!(line["metadata"]["sandbox"], json!("none"));
    assert!(
        line["output"]["environ"]
            .as_str()
            .unwrap()
            .contains(&secret),
        "the probe cannot read environ even unconfined: {line}"
    );
    let _ = witness.kill();
    let _ = witness.wait();
}

/// Tries UDP, TCP and an abstract UNIX socket to listeners of the test.
fn send_out(udp: u16, tcp: u16, name: &str) -> String {
    format!(
        r#"
import json, socket
out = {{}}
try:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.sendto(b"exfiltrated", ("127.0.0.1", {udp}))
    out["udp"] = "sent"
except OSError as e:
    out["udp"] = str(e)
try:
    socket.create_connection(("127.0.0.1", {tcp}), timeout=2).sendall(b"exfiltrated")
    out["tcp"] = "sent"
except OSError as e:
    out["tcp"] = str(e)
try:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect("\0{name}")
    s.sendall(b"exfiltrated")
    out["abstract"] = "sent"
except OSError as e:
    out["abstract"] = str(e)
print(json.dumps(out))
"#
    )
}

/// The test's listeners: what reached each after a call.
struct Listeners {
    udp: UdpSocket,
    tcp: TcpListener,
    abstract_socket: UnixListener,
    name: String,
}

impl Listeners {
    fn new(tag: &str) -> Listeners {
        let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
        udp.set_nonblocking(true).unwrap();
        let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
        tcp.set_nonblocking(true).unwrap();
        let name = format!("toolc-isolation-{tag}-{}", std::process::id());
        let address = SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
        let abstract_socket = UnixListener::bind_addr(&address).unwrap();
        abstract_socket.set_nonblocking(true).unwrap();
        Listeners {
            udp,
            tcp,
            abstract_socket,
            name,
        }
    }

    fn script(&self) -> String {
        send_out(
            self.udp.local_addr().unwrap().port(),
            self.tcp.local_addr().unwrap().port(),
            &self.name,
        )
    }

    /// (udp, tcp, abstract): whether each received anything.
    fn reached(&self) -> (bool, bool, bool) {
        let mut buffer = [0u8; 64];
        let udp = self.udp.recv(&mut buffer).is_ok();
        let tcp = self.tcp.accept().is_ok();
        let abstract_socket = self.abstract_socket.accept().is_ok();
        (udp, tcp, abstract_socket)
    }
}

/// A tool declaring `egress: []` sends nothing out: no UDP datagram (DNS
/// exfiltration), no TCP connection, no abstract UNIX socket connection;
/// a tool that declares network still reaches a loopback listener.
#[test]
fn without_network_udp_tcp_and_abstract_sockets_reach_nothing() {
    let listeners = Listeners::new("none");
    let dir = TempDir::new("isolation-net-none");
    let manifest = write_tool(&dir, "send_out", &[], 10, &listeners.script());
    let confined = runner(&manifest, true);
    require_namespaces(&confined);
    let result = confined.call("send_out", json!({}));
    let tried = output(&result);
    assert_eq!(sandbox(&result), "namespaces+landlock");
    assert_ne!(tried["udp"], json!("sent"), "{tried}");
    assert_ne!(tried["tcp"], json!("sent"), "{tried}");
    assert_ne!(tried["abstract"], json!("sent"), "{tried}");
    assert_eq!(listeners.reached(), (false, false, false), "{tried}");

    // Landlock alone stops TCP and abstract sockets, not UDP: the network
    // namespace is what stops the datagram (and shows the listener works).
    let result = runner(&manifest, false).call("send_out", json!({}));
    let tried = output(&result);
    assert_eq!(sandbox(&result), "landlock");
    assert_eq!(tried["udp"], json!("sent"), "{tried}");
    assert_eq!(listeners.reached(), (true, false, false), "{tried}");

    // Unconfined, all three get through: the listeners work.
    let result = unconfined(&manifest).call("send_out", json!({}));
    let tried = output(&result);
    assert_eq!(listeners.reached(), (true, true, true), "{tried}");
}

/// A tool declaring an allow-list (issue 28 point 2) reaches the
/// network only through toolc's egress proxy: its own network namespace
/// has no route to the host's loopback, so neither the datagram nor the
/// connection arrives (the `egress` module checks the proxy itself).
#[test]
fn a_tool_with_an_allow_list_reaches_no_loopback_listener_directly() {
    let listeners = Listeners::new("allowed");
    let dir = TempDir::new("isolation-net-allowed");
    let manifest = write_tool(&dir, "send_out", &["127.0.0.1"], 10, &listeners.script());
    let confined = runner(&manifest, true);
    require_namespaces(&confined);
    let result = confined.call("send_out", json!({}));
    let tried = output(&result);
    assert_eq!(sandbox(&result), "namespaces+landlock");
    assert_ne!(tried["tcp"], json!("sent"), "{tried}");
    // Abstract sockets made outside the sandbox stay out of reach of
    // every tool (Landlock's ABI 6 scope), network or not.
    assert_ne!(tried["abstract"], json!("sent"), "{tried}");
    assert_eq!(listeners.reached(), (false, false, false), "{tried}");
}

/// Starts a `setsid` daemon that outlives its parent, says the call's
/// TMPDIR (by which the test finds the daemon from outside), then sleeps
/// `sleep` seconds.
fn daemon_script(sleep: u32) -> String {
    format!(
        r#"
import json, os, subprocess, sys, time
subprocess.Popen(
    ["/bin/sh", "-c", "while :; do sleep 0.05; done"],
    start_new_session=True,
    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
)
print("tmpdir " + os.environ["TMPDIR"], file=sys.stderr, flush=True)
time.sleep({sleep})
print(json.dumps({{"tmpdir": os.environ["TMPDIR"]}}))
"#
    )
}

/// A daemon started with `setsid` is gone when its call ends, by
/// completion and by timeout; under Landlock alone it would outlive it.
#[test]
fn a_setsid_daemon_is_gone_when_its_call_ends() {
    let dir = TempDir::new("isolation-daemon");
    let manifest = write_tool(&dir, "daemon", &[], 1, &daemon_script(0));
    let confined = runner(&manifest, true);
    require_namespaces(&confined);
    let result = confined.call("daemon", json!({}));
    let tmpdir = PathBuf::from(output(&result)["tmpdir"].as_str().unwrap());
    assert_eq!(
        survivors(&tmpdir),
        Vec::<i32>::new(),
        "the daemon outlived its call"
    );

    // By timeout (timeoutSec 1): the tool sleeps on, its daemon with it.
    write_tool(&dir, "daemon", &[], 1, &daemon_script(60));
    let confined = runner(&manifest, true);
    let result = confined.call("daemon", json!({}));
    let error = result.error.as_ref().expect("a timeout");
    assert_eq!(
        error.code,
        toolc::run::ErrorCode::Timeout,
        "{}",
        result.to_json_line()
    );
    let stderr = error.details["stderr"].as_str().unwrap();
    let tmpdir = PathBuf::from(stderr.trim().strip_prefix("tmpdir ").unwrap());
    assert_eq!(
        survivors(&tmpdir),
        Vec::<i32>::new(),
        "the daemon outlived the timeout"
    );

    // The control: under Landlock alone the daemon escapes its process
    // group and outlives the call (the test then kills it), unless the
    // call has a cgroup, whose end kills everything in it.
    write_tool(&dir, "daemon", &[], 1, &daemon_script(0));
    let result = runner(&manifest, false).call("daemon", json!({}));
    let tmpdir = PathBuf::from(output(&result)["tmpdir"].as_str().unwrap());
    std::thread::sleep(Duration::from_millis(300));
    let left = processes_under(&tmpdir);
    kill_all(&left);
    if crate::cgroup_limits::usable("isolation-daemon") {
        assert_eq!(left, Vec::<i32>::new(), "the daemon outlived its cgroup");
    } else {
        assert!(!left.is_empty(), "the daemon did not even start");
    }
}

/// Starts `toolc run` on the daemon tool with a private TMPDIR and waits
/// until the tool, its child and its daemon run.
fn start_daemon_call(temp: &TempDir) -> (Child, PathBuf) {
    let tmp = temp.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let manifest = write_tool(temp, "daemon", &[], 120, &daemon_script(120));
    let child = toolc()
        .args(["run", "--args", "{}"])
        .arg(&manifest)
        .arg("daemon")
        .env("TMPDIR", &tmp)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The call's processes: TMPDIR in its scratch directory (toolc's own
    // TMPDIR is `tmp` itself).
    let call = tmp.join("toolc-run-");
    let deadline = Instant::now() + Duration::from_secs(20);
    while processes_under(&call).len() < 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        processes_under(&call).len() >= 2,
        "the tool and its daemon do not run"
    );
    assert_eq!(scratch_dirs(&tmp).len(), 1);
    (child, tmp)
}

/// The scratch directories of calls under `tmp` (a test's own TMPDIR).
pub(crate) fn scratch_dirs(tmp: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(tmp)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("toolc-run-")
        })
        .collect()
}

/// `signal` to `toolc run` mid-call: the call is cancelled, every process
/// of it (the `setsid` daemon included) is gone, its scratch directory
/// removed, and toolc exits `128 + signal`.
fn signalled_toolc_run_cleans_up(signal: libc::c_int, name: &str) {
    let temp = TempDir::new(&format!("isolation-{name}"));
    let (child, tmp) = start_daemon_call(&temp);
    let started = Instant::now();
    // SAFETY: signalling a child this test started.
    unsafe {
        libc::kill(child.id() as i32, signal);
    }
    let mut child = child;
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(status.code(), Some(128 + signal), "{name}: {status:?}");
    let line: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(line["error"]["details"]["cancelled"], json!(true), "{line}");
    assert_eq!(scratch_dirs(&tmp), Vec::<PathBuf>::new(), "{name}");
    let left = survivors(&tmp);
    kill_all(&left);
    assert_eq!(left, Vec::<i32>::new(), "{name}: processes outlived toolc");
}

#[test]
fn sigint_to_toolc_run_ends_the_call_and_exits_130() {
    signalled_toolc_run_cleans_up(libc::SIGINT, "sigint");
}

#[test]
fn sigterm_to_toolc_run_ends_the_call_and_exits_143() {
    signalled_toolc_run_cleans_up(libc::SIGTERM, "sigterm");
}

#[test]
fn sighup_to_toolc_run_ends_the_call_and_exits_129() {
    signalled_toolc_run_cleans_up(libc::SIGHUP, "sighup");
}

/// toolc killed outright (no handler runs): the namespace's init gets
/// its parent-death signal and the whole call goes with it. The scratch
/// directory stays (nobody is left to remove it); the test's TempDir does.
#[test]
fn a_killed_toolc_takes_its_calls_processes_with_it() {
    let temp = TempDir::new("isolation-sigkill");
    let (mut child, tmp) = start_daemon_call(&temp);
    child.kill().unwrap();
    child.wait().unwrap();
    let left = survivors(&tmp);
    kill_all(&left);
    assert_eq!(left, Vec::<i32>::new(), "processes outlived a killed toolc");
}

/// The fallback, chosen: `--no-namespaces` (RunnerOptions::namespaces
/// false) runs tools under Landlock alone, says so in every result and
/// warns once.
#[test]
fn without_namespaces_the_result_says_landlock() {
    let dir = TempDir::new("isolation-fallback");
    let manifest = write_tool(&dir, "look_around", &[], 10, LOOK_AROUND);
    let result = runner(&manifest, false).call("look_around", json!({}));
    assert_eq!(sandbox(&result), "landlock");
    assert_ne!(output(&result)["pid"], json!(1));
    let out = toolc()
        .args(["run", "--no-namespaces", "--args", "{}"])
        .arg(&manifest)
        .arg("look_around")
        .output()
        .unwrap();
    let line: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(line["metadata"]["sandbox"], json!("landlock"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("without their own namespaces"), "{stderr}");
}

/// The fallback, forced by the kernel: toolc in a user namespace whose
/// `user.max_user_namespaces` is 0 cannot make the tool's (ENOSPC), so
/// its probe falls back to Landlock alone.
#[test]
fn where_the_kernel_refuses_user_namespaces_landlock_alone_applies() {
    assert!(
        Path::new("/usr/bin/unshare").is_file(),
        "this test needs unshare (util-linux) to run toolc where user namespaces are refused"
    );
    let dir = TempDir::new("isolation-refused");
    let manifest = write_tool(&dir, "look_around", &[], 10, LOOK_AROUND);
    let script = r#"echo 0 > /proc/sys/user/max_user_namespaces && exec "$0" "$@""#;
    let out = Command::new("/usr/bin/unshare")
        .args(["--user", "--map-root-user", "sh", "-c", script])
        .arg(env!("CARGO_BIN_EXE_toolc"))
        .args(["run", "--args", "{}"])
        .arg(&manifest)
        .arg("look_around")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    assert_eq!(line["metadata"]["sandbox"], json!("landlock"), "{stderr}");
    assert_eq!(line["success"], json!(true), "{line}");
    assert!(
        stderr.contains("without their own namespaces (the kernel refused them"),
        "{stderr}"
    );
}

/// One runner shared by threads: concurrent calls each get their own
/// namespaces, and their pipes and reports do not cross (every call
/// returns its own arguments).
#[test]
fn concurrent_calls_stay_apart() {
    let manifest = crate::root().join("fixtures/run/agentcli/tools.json");
    let runner = Runner::load(&[manifest], RunnerOptions::default()).unwrap();
    require_namespaces(&runner);
    std::thread::scope(|scope| {
        for thread in 0..4 {
            let runner = &runner;
            scope.spawn(move || {
                for call in 0..10 {
                    let text = format!("{thread}-{call}");
                    let result = runner.call("echo", json!({ "text": text }));
                    assert_eq!(
                        output(&result),
                        &json!({"echo": {"text": text}}),
                        "{}",
                        result.to_json_line()
                    );
                    assert_eq!(sandbox(&result), "namespaces+landlock");
                }
            });
        }
    });
}

/// A call's `/dev/shm` is its own: what the tool leaves there is gone
/// with the call, and it sees nothing another process put there.
#[test]
fn dev_shm_is_the_calls_own() {
    let name = format!("toolc-isolation-shm-{}", std::process::id());
    let host = Path::new("/dev/shm").join(&name);
    let theirs = Path::new("/dev/shm").join(format!("{name}-host"));
    std::fs::write(&theirs, "the host's").unwrap();
    let script = format!(
        r#"
import json, os
with open("/dev/shm/{name}", "w") as f:
    f.write("left behind")
print(json.dumps({{"listed": sorted(os.listdir("/dev/shm"))}}))
"#
    );
    let dir = TempDir::new("isolation-shm");
    let manifest = write_tool(&dir, "shm", &[], 10, &script);
    let confined = runner(&manifest, true);
    require_namespaces(&confined);
    let result = confined.call("shm", json!({}));
    let listed = output(&result)["listed"].clone();
    let host_left = host.exists();
    // The control: under Landlock alone /dev/shm is the host's.
    let result = runner(&manifest, false).call("shm", json!({}));
    let listed_alone = output(&result)["listed"].clone();
    let left_alone = host.exists();
    let _ = std::fs::remove_file(&host);
    let _ = std::fs::remove_file(&theirs);
    assert_eq!(listed, json!([name]), "the tool saw the host's /dev/shm");
    assert!(!host_left, "a file in the call's /dev/shm outlived it");
    assert!(
        listed_alone
            .as_array()
            .unwrap()
            .contains(&json!(format!("{name}-host"))),
        "{listed_alone}"
    );
    assert!(
        left_alone,
        "the control wrote nothing to the host's /dev/shm"
    );
}

/// A tool is process 1 of its namespace and dies with toolc through its
/// parent-death signal: it may not clear that signal (it could then
/// outlive a killed toolc, unwatched), though it may set SIGKILL again.
#[test]
fn a_tool_cannot_unhook_itself_from_toolcs_death() {
    let dir = TempDir::new("isolation-pdeathsig");
    let script = "import ctypes, json\n\
                  libc = ctypes.CDLL(None, use_errno=True)\n\
                  cleared = libc.prctl(1, 0)\n\
                  errno = ctypes.get_errno()\n\
                  kept = libc.prctl(1, 9)\n\
                  print(json.dumps({'clear': cleared, 'errno': errno, 'sigkill': kept}))\n";
    let manifest = write_tool(&dir, "unhook", &[], 20, script);
    let runner = runner(&manifest, true);
    require_namespaces(&runner);
    let result = runner.call("unhook", json!({}));
    let out = output(&result);
    assert_eq!(out["clear"], json!(-1), "{out}");
    assert_eq!(out["errno"], json!(libc::EPERM), "{out}");
    assert_eq!(out["sigkill"], json!(0), "{out}");

    // End to end: a tool that tries, then sleeps; toolc killed outright.
    let temp = TempDir::new("isolation-pdeathsig-kill");
    let tmp = temp.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let script = "import ctypes, time\n\
                  ctypes.CDLL(None).prctl(1, 0)\n\
                  time.sleep(120)\n";
    let manifest = write_tool(&temp, "stay", &[], 120, script);
    let mut child = toolc()
        .args(["run", "--args", "{}"])
        .arg(&manifest)
        .arg("stay")
        .env("TMPDIR", &tmp)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let call = tmp.join("toolc-run-");
    let deadline = Instant::now() + Duration::from_secs(20);
    while processes_under(&call).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!processes_under(&call).is_empty(), "the tool does not run");
    // Let the tool reach its sleep (past the prctl).
    std::thread::sleep(Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();
    let left = survivors(&call);
    kill_all(&left);
    assert_eq!(left, Vec::<i32>::new(), "the tool outlived a killed toolc");
}

/// The kernel's keyrings are not namespaced: a tool may not reach the
/// caller's session keyring (nor any other).
#[test]
fn a_tool_cannot_reach_the_kernel_keyrings() {
    let dir = TempDir::new("isolation-keyring");
    // keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0)
    let script = format!(
        "import ctypes, json\n\
         libc = ctypes.CDLL(None, use_errno=True)\n\
         got = libc.syscall({}, 0, -3, 0)\n\
         print(json.dumps({{'got': got, 'errno': ctypes.get_errno()}}))\n",
        libc::SYS_keyctl
    );
    let manifest = write_tool(&dir, "keys", &[], 20, &script);
    for namespaces in [true, false] {
        let result = runner(&manifest, namespaces).call("keys", json!({}));
        let out = output(&result);
        assert_eq!(out["got"], json!(-1), "{out} ({})", sandbox(&result));
        assert_eq!(out["errno"], json!(libc::EPERM), "{out}");
    }
    // The control: unconfined, the same call finds a keyring.
    let result = unconfined(&manifest).call("keys", json!({}));
    let out = output(&result);
    assert_ne!(out["got"], json!(-1), "{out}");
}

/// A path UNIX socket is reached through the file system, whatever the
/// network namespace: a tool without network may not connect to one
/// (a Docker or D-Bus socket would be a way out), nor may a tool whose
/// network goes through the egress proxy; unconfined it may, and
/// `socketpair` works for all.
#[test]
fn without_network_a_path_socket_is_out_of_reach() {
    let dir = TempDir::new("isolation-path-socket");
    let socket = dir.path().join("listen.sock");
    let listener = UnixListener::bind(&socket).unwrap();
    listener.set_nonblocking(true).unwrap();
    let script = format!(
        "import json, socket\n\
         out = {{}}\n\
         try:\n    \
             s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n    \
             s.connect({path:?})\n    \
             s.sendall(b'leak-path')\n    \
             out['sent'] = True\n\
         except OSError as e:\n    \
             out['sent'] = False\n    \
             out['errno'] = e.errno\n\
         a, b = socket.socketpair()\n\
         a.sendall(b'pair')\n\
         out['pair'] = b.recv(4).decode()\n\
         print(json.dumps(out))\n",
        path = socket.to_str().unwrap()
    );
    let closed = write_tool(&dir, "closed", &[], 20, &script);
    for namespaces in [true, false] {
        let result = runner(&closed, namespaces).call("closed", json!({}));
        let out = output(&result);
        assert_eq!(out["sent"], json!(false), "{out} ({})", sandbox(&result));
        assert_eq!(out["errno"], json!(libc::EPERM), "{out}");
        assert_eq!(out["pair"], json!("pair"), "{out}");
        assert!(listener.accept().is_err(), "a connection arrived");
    }
    let open_dir = TempDir::new("isolation-path-socket-open");
    let open = write_tool(&open_dir, "open", &["127.0.0.1"], 20, &script);
    // A tool with an allow-list reaches the network through toolc's
    // proxy only: no UNIX socket either.
    let result = runner(&open, true).call("open", json!({}));
    assert_eq!(
        output(&result)["sent"],
        json!(false),
        "{}",
        result.to_json_line()
    );
    assert!(listener.accept().is_err(), "a connection arrived");
    // Unconfined, the same tool gets through: the listener works.
    let result = unconfined(&open).call("open", json!({}));
    assert_eq!(
        output(&result)["sent"],
        json!(true),
        "{}",
        result.to_json_line()
    );
    let (mut stream, _) = listener.accept().unwrap();
    stream.set_nonblocking(false).unwrap();
    let mut received = String::new();
    stream.read_to_string(&mut received).unwrap();
    assert_eq!(received, "leak-path");
}
