//! A hostile tool and a hostile client against what a long-running toolc
//! prepares ahead of time (network namespaces, cgroups) and cleans up off
//! the call's path (scratch directories, cgroup directories): calls at
//! the same time each get a namespace and a cgroup of their own and see
//! nothing of toolc's (no descriptor, no capability, no way to make or
//! enter a namespace or to mount), and a `toolc serve` that ends, by EOF
//! or by a signal, leaves no scratch directory and no cgroup behind.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use crate::TempDir;
use crate::serve_hostile::RawStdio;

/// The probe: what a call sees of its namespaces, cgroup and descriptors,
/// and whether it may change any of them.
const SCRIPT: &str = r#"
import ctypes, json, os, sys, time
args = json.load(sys.stdin)
out = {}
out["net"] = os.stat("/proc/self/ns/net").st_ino
with open("/proc/self/cgroup") as f:
    out["cgroups"] = sorted(l.strip().split(":", 2)[2] for l in f if "toolc-" in l)
fds = os.listdir("/proc/self/fd")
out["fds"] = sorted(f for f in fds if os.path.exists("/proc/self/fd/" + f))
with open("/proc/self/status") as f:
    out["caps"] = sorted(set(l.split()[1] for l in f if l.startswith(("CapEff", "CapPrm", "CapBnd", "CapAmb"))))
libc = ctypes.CDLL(None, use_errno=True)
out["unshare"] = libc.unshare(0x40000000 | 0x10000000)
out["mount"] = libc.mount(b"none", b"/proc", b"tmpfs", 0, None)
try:
    with open("/proc/sys/net/ipv4/ping_group_range", "w") as f:
        f.write("0 0")
    out["sysctl"] = "written"
except OSError as e:
    out["sysctl"] = str(e)
time.sleep(args.get("sleep", 0))
print(json.dumps(out))
"#;

/// A `toolc serve` of `manifest` over stdio, eight calls at a time,
/// initialized.
fn serve(manifest: &Path) -> RawStdio {
    RawStdio::start(&[
        manifest.display().to_string(),
        "--max-concurrency".to_string(),
        "8".to_string(),
    ])
}

fn call(serve: &mut RawStdio, id: usize, arguments: &Value) {
    serve.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "probe", "arguments": arguments}}));
}

/// `calls` calls one after the other, `pause` apart: from then on a
/// namespace and a cgroup wait, made ahead of time. Their ids are
/// `1..=calls`.
fn warm_up(serve: &mut RawStdio, calls: usize, pause: Duration) {
    for id in 1..=calls {
        call(serve, id, &json!({}));
        crate::probe_report(&serve.next_message());
        std::thread::sleep(pause);
    }
}

/// What a toolc of pid `pid` left: its scratch directories in the
/// temporary directory and its call cgroups anywhere beneath
/// `/sys/fs/cgroup` (named `toolc-PID-...`, so another toolc's are not
/// counted).
fn leftovers(pid: u32) -> Vec<PathBuf> {
    fn walk(dir: &Path, prefix: &str, depth: usize, found: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if !entry.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            if entry.file_name().to_string_lossy().starts_with(prefix) {
                found.push(path);
            } else if depth > 0 {
                walk(&path, prefix, depth - 1, found);
            }
        }
    }
    let mut found = Vec::new();
    walk(
        Path::new("/sys/fs/cgroup"),
        &format!("toolc-{pid}-"),
        6,
        &mut found,
    );
    walk(
        &std::env::temp_dir(),
        &format!("toolc-run-{pid}-"),
        0,
        &mut found,
    );
    found
}

#[test]
fn eight_calls_at_once_each_get_their_own_namespace_and_cgroup() {
    let dir = TempDir::new("hostile-pool-concurrent");
    let manifest = crate::python_probe(&dir, "probe", &[], 30, SCRIPT);
    let mut serve = serve(&manifest);
    warm_up(&mut serve, 2, Duration::from_millis(200));
    for id in 3..=10 {
        call(&mut serve, id, &json!({"sleep": 1}));
    }
    let reports: Vec<Value> = (3..=10)
        .map(|_| crate::probe_report(&serve.next_message()))
        .collect();
    let host_net =
        std::os::unix::fs::MetadataExt::ino(&std::fs::metadata("/proc/self/ns/net").unwrap());
    let nets: BTreeSet<String> = reports.iter().map(|r| r["net"].to_string()).collect();
    let cgroups: BTreeSet<String> = reports.iter().map(|r| r["cgroups"].to_string()).collect();
    assert_eq!(
        nets.len(),
        8,
        "calls at once shared a network namespace: {reports:?}"
    );
    assert_eq!(
        cgroups.len(),
        8,
        "calls at once shared a cgroup: {reports:?}"
    );
    for report in &reports {
        assert_ne!(report["net"], json!(host_net), "{report}");
        assert_ne!(
            report["cgroups"],
            json!([]),
            "a call outside any call cgroup: {report}"
        );
        assert_eq!(
            report["fds"],
            json!(["0", "1", "2"]),
            "a descriptor of toolc's: {report}"
        );
        assert_eq!(report["caps"], json!(["0000000000000000"]), "{report}");
        assert_eq!(report["unshare"], json!(-1), "{report}");
        assert_eq!(report["mount"], json!(-1), "{report}");
        assert_ne!(report["sysctl"], json!("written"), "{report}");
    }
    assert!(serve.end().success());
}

/// Makes three calls through a `toolc serve` (so that a cgroup waits,
/// made ahead of time), ends it with `signal` (or EOF when `None`) and
/// returns what it left.
fn left_by_serve_ended_with(signal: Option<i32>) -> Vec<PathBuf> {
    let dir = TempDir::new("hostile-pool-leftovers");
    let manifest = crate::python_probe(&dir, "probe", &[], 30, SCRIPT);
    let mut serve = serve(&manifest);
    warm_up(&mut serve, 3, Duration::from_millis(100));
    let pid = serve.pid();
    if let Some(signal) = signal {
        // SAFETY: a plain syscall on our own child.
        assert_eq!(unsafe { libc::kill(pid as libc::pid_t, signal) }, 0);
    }
    serve.end();
    leftovers(pid)
}

#[test]
fn serve_ended_by_eof_or_a_signal_leaves_no_scratch_directory_or_cgroup() {
    for signal in [None, Some(libc::SIGTERM), Some(libc::SIGINT)] {
        let left = left_by_serve_ended_with(signal);
        assert!(
            left.is_empty(),
            "ended by {signal:?}, toolc serve left {left:?}"
        );
    }
}
