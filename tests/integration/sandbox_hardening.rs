//! The sandbox, hardened (issue 28, points 1, 4 and 6), checked through
//! `toolc run`: the seccomp filter refuses io_uring and the system calls
//! that reach other namespaces or the kernel's attack surface; a tool
//! keeps no capability, runs as a non-root uid and with no-new-privileges
//! yet still writes its scratch directory and reads its manifest's; and
//! a SIGKILLed toolc leaves no scratch directory behind once toolc runs
//! again.
//!
//! The tools are Python scripts run by `/usr/bin/python3`, written per
//! test into a Nachos manifest whose `egress` is empty (no network).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::TempDir;
use crate::isolation::scratch_dirs;

/// A Nachos manifest in `dir` for the tool `name` without network, run
/// as `python3 tool.py` with `script` as tool.py.
fn write_tool(dir: &TempDir, name: &str, timeout: u64, script: &str) -> PathBuf {
    crate::python_probe(dir, name, &[], timeout, script)
}

fn toolc() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolc"));
    command.env("NO_COLOR", "1");
    command
}

/// `toolc run --args {} EXTRA… MANIFEST TOOL`: the result line, and
/// toolc's stderr.
fn run(manifest: &Path, tool: &str, extra: &[&str]) -> (Value, String) {
    let out = toolc()
        .args(["run", "--args", "{}"])
        .args(extra)
        .arg(manifest)
        .arg(tool)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let line: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    (line, stderr)
}

fn output(line: &Value) -> &Value {
    assert_eq!(line["success"], json!(true), "{line}");
    &line["output"]
}

/// Calls each system call with harmless arguments through ctypes and
/// reports its return value and errno. io_uring_setup asks for a ring of
/// 8 entries (a zeroed `io_uring_params`); `unshare` and `clone` ask for
/// a new user namespace (`clone` only as far as the filter: a refusal
/// comes before any process is made, and a success is a child that
/// exits at once).
const SYSCALLS: &str = r#"
import ctypes, json, os, platform
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
numbers = {
    "x86_64": {"io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
               "unshare": 272, "setns": 308, "bpf": 321, "userfaultfd": 323,
               "perf_event_open": 298, "open_by_handle_at": 304, "kexec_load": 246},
    "aarch64": {"io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
                "unshare": 97, "setns": 268, "bpf": 280, "userfaultfd": 282,
                "perf_event_open": 241, "open_by_handle_at": 265, "kexec_load": 104},
}[platform.machine()]
CLONE_NEWUSER = 0x10000000
params = ctypes.create_string_buffer(120)
def call(name, *args):
    ctypes.set_errno(0)
    ret = libc.syscall(ctypes.c_long(numbers[name]), *[ctypes.c_long(a) for a in args])
    return {"ret": ret, "errno": ctypes.get_errno()}
report = {}
report["io_uring_setup"] = call("io_uring_setup", 8, ctypes.addressof(params))
if report["io_uring_setup"]["ret"] >= 0:
    os.close(report["io_uring_setup"]["ret"])
report["io_uring_enter"] = call("io_uring_enter", 1000, 0, 0, 0, 0, 0)
report["io_uring_register"] = call("io_uring_register", 1000, 0, 0, 0)
report["setns"] = call("setns", 1000, 0)
report["bpf"] = call("bpf", 0, 0, 0)
report["userfaultfd"] = call("userfaultfd", 0)
report["perf_event_open"] = call("perf_event_open", 0, 0, -1, -1, 0)
report["open_by_handle_at"] = call("open_by_handle_at", 1000, 0, 0)
report["kexec_load"] = call("kexec_load", 0, 0, 0, 0)
pid = os.fork()
if pid == 0:
    r = call("unshare", CLONE_NEWUSER)
    os._exit(0 if r["ret"] == 0 else r["errno"])
_, status = os.waitpid(pid, 0)
report["unshare"] = {"errno": os.waitstatus_to_exitcode(status)}
print(json.dumps(report))
"#;

/// Point 1: io_uring reached a host UNIX socket under `egress: []`. With
/// the filter, a tool's io_uring_setup fails with ENOSYS (the kernel
/// "lacks" it, so runtimes fall back to epoll), and the calls that reach
/// other namespaces or the kernel's attack surface fail with EPERM, in
/// namespaces and under Landlock alone. Unconfined (`--no-sandbox`) the
/// same script gets its ring: the refusal is the filter's, not the
/// kernel's.
#[test]
fn io_uring_and_namespace_reaching_calls_are_refused() {
    let dir = TempDir::new("hardening-syscalls");
    let manifest = write_tool(&dir, "syscalls", 20, SYSCALLS);
    let (free, _) = run(&manifest, "syscalls", &["--no-sandbox"]);
    let free = output(&free);
    assert!(
        free["io_uring_setup"]["ret"].as_i64().unwrap() >= 0,
        "this kernel gives no io_uring even unconfined: {free}"
    );
    for extra in [&[][..], &["--no-namespaces"][..]] {
        let (line, _) = run(&manifest, "syscalls", extra);
        let report = output(&line);
        for name in ["io_uring_setup", "io_uring_enter", "io_uring_register"] {
            assert_eq!(
                report[name]["errno"],
                json!(libc::ENOSYS),
                "{extra:?} {name}: {report}"
            );
            assert_eq!(report[name].get("ret"), Some(&json!(-1)), "{report}");
        }
        for name in [
            "setns",
            "bpf",
            "userfaultfd",
            "perf_event_open",
            "open_by_handle_at",
            "kexec_load",
            "unshare",
        ] {
            assert_eq!(
                report[name]["errno"],
                json!(libc::EPERM),
                "{extra:?} {name}: {report}"
            );
        }
    }
}

/// Reports the tool's capabilities, no-new-privileges flag and ids, and
/// whether it can write its scratch directory (TMPDIR) and read a file of
/// its manifest's directory.
const CREDENTIALS: &str = r#"
import json, os
status = {}
for line in open("/proc/self/status"):
    key, _, value = line.partition(":")
    if key in ("CapEff", "CapPrm", "CapBnd", "CapAmb", "CapInh", "NoNewPrivs", "Uid", "Gid"):
        status[key] = value.split()
scratch = os.path.join(os.environ["TMPDIR"], "written.txt")
with open(scratch, "w") as f:
    f.write("scratch")
with open(scratch) as f:
    wrote = f.read()
os.mkdir(os.path.join(os.environ["TMPDIR"], "sub"))
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data.txt")) as f:
    read = f.read()
print(json.dumps({"status": status, "uid": os.getuid(), "euid": os.geteuid(),
                  "wrote": wrote, "read": read}))
"#;

const NO_CAPABILITIES: &str = "0000000000000000";

fn assert_no_capabilities(report: &Value, what: &str) {
    for key in ["CapEff", "CapPrm", "CapBnd", "CapAmb", "CapInh"] {
        assert_eq!(
            report["status"][key],
            json!([NO_CAPABILITIES]),
            "{what}: {key}: {report}"
        );
    }
    assert_eq!(
        report["status"]["NoNewPrivs"],
        json!(["1"]),
        "{what}: {report}"
    );
    assert_eq!(report["wrote"], json!("scratch"), "{what}: {report}");
    assert_eq!(report["read"], json!("manifest data"), "{what}: {report}");
}

/// Point 4: a tool started by root kept all its capabilities inside its
/// namespaces. It now has none (effective, permitted, bounding, ambient,
/// inheritable), runs with no-new-privileges as a non-root uid inside its
/// user namespace, and still writes its scratch directory and reads its
/// manifest's directory.
#[test]
fn a_tool_has_no_capability_and_no_root_uid() {
    let dir = TempDir::new("hardening-caps");
    let manifest = write_tool(&dir, "credentials", 20, CREDENTIALS);
    dir.write("data.txt", "manifest data");
    let (line, _) = run(&manifest, "credentials", &[]);
    assert_eq!(
        line["metadata"]["sandbox"],
        json!("namespaces+landlock"),
        "{line}"
    );
    let report = output(&line);
    assert_no_capabilities(report, "namespaces");
    assert_ne!(report["uid"], json!(0), "{report}");
    assert_ne!(report["euid"], json!(0), "{report}");
    for ids in ["Uid", "Gid"] {
        let all = report["status"][ids].as_array().unwrap();
        assert!(all.iter().all(|id| *id != "0"), "{ids}: {report}");
    }
}

/// Point 4 under `--no-namespaces`: every capability is dropped all the
/// same (root may drop its own); the uid stays the caller's, and a
/// warning says so.
#[test]
fn without_namespaces_capabilities_are_dropped_and_the_uid_is_said() {
    let dir = TempDir::new("hardening-caps-landlock");
    let manifest = write_tool(&dir, "credentials", 20, CREDENTIALS);
    dir.write("data.txt", "manifest data");
    let (line, stderr) = run(&manifest, "credentials", &["--no-namespaces"]);
    assert_eq!(line["metadata"]["sandbox"], json!("landlock"), "{line}");
    let report = output(&line);
    assert_no_capabilities(report, "landlock");
    // SAFETY: a plain syscall.
    let uid = unsafe { libc::geteuid() };
    if uid == 0 {
        assert!(
            stderr.contains("keeps its uid"),
            "no warning about the uid: {stderr}"
        );
    }
}

const SLEEPER: &str = r#"
import os, time
open(os.path.join(os.environ["TMPDIR"], "left.txt"), "w").write("x" * 4096)
time.sleep(60)
print("{}")
"#;

/// Point 6: a SIGKILLed toolc ran no clean-up, and its call's scratch
/// directory stayed under TMPDIR for good. The next toolc removes it (its
/// owner is gone), with namespaces and under Landlock alone; a scratch
/// directory of a toolc still running is left alone.
fn a_killed_toolcs_scratch_is_gone_after_the_next_run(extra: &[&str], name: &str) {
    let dir = TempDir::new(name);
    let tmp = dir.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let manifest = write_tool(&dir, "sleeper", 120, SLEEPER);
    let quick_dir = TempDir::new(&format!("{name}-quick"));
    let quick = write_tool(&quick_dir, "quick", 20, "print('{}')\n");
    let sleeper = || {
        toolc()
            .args(["run", "--args", "{}"])
            .args(extra)
            .arg(&manifest)
            .arg("sleeper")
            .env("TMPDIR", &tmp)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    let mut killed = sleeper();
    let mut running = sleeper();
    let deadline = Instant::now() + Duration::from_secs(30);
    while scratch_dirs(&tmp).len() < 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(scratch_dirs(&tmp).len(), 2, "the calls did not start");
    let mine = |pid: u32| -> Vec<PathBuf> {
        scratch_dirs(&tmp)
            .into_iter()
            .filter(|p| {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                name.starts_with(&format!("toolc-run-{pid}-"))
            })
            .collect()
    };
    let killed_scratch = mine(killed.id());
    assert_eq!(killed_scratch.len(), 1, "{:?}", scratch_dirs(&tmp));
    killed.kill().unwrap();
    killed.wait().unwrap();
    // The tool dies with toolc (its parent-death signal); the directory
    // has nobody left to remove it.
    let out = toolc()
        .args(["run", "--args", "{}"])
        .args(extra)
        .arg(&quick)
        .arg("quick")
        .env("TMPDIR", &tmp)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let left = scratch_dirs(&tmp);
    assert!(
        !killed_scratch.iter().any(|p| left.contains(p)),
        "{name}: the killed toolc's scratch directory survived: {left:?}"
    );
    // The running call's own directory was not touched.
    assert_eq!(left, mine(running.id()), "{name}");
    running.kill().unwrap();
    running.wait().unwrap();
}

#[test]
fn a_killed_toolcs_scratch_is_swept_with_namespaces() {
    a_killed_toolcs_scratch_is_gone_after_the_next_run(&[], "hardening-sweep-ns");
}

#[test]
fn a_killed_toolcs_scratch_is_swept_under_landlock_alone() {
    a_killed_toolcs_scratch_is_gone_after_the_next_run(
        &["--no-namespaces"],
        "hardening-sweep-landlock",
    );
}
