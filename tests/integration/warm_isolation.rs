//! Warm Python calls under attack (issue 15): a call forked from a fork
//! server is isolated as a cold call is. The server runs as process 1 of
//! its own namespaces, so a call cannot read toolc's environment nor see
//! the machine's processes, sends nothing out without network, and a
//! `setsid` daemon it leaves is gone once its call is over. Without
//! namespaces the server runs under Landlock alone and says so.
//!
//! The tools are functions of an AgentStack package written per test;
//! `allow_http: false` is how AgentStack declares no network.

use std::net::UdpSocket;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;
use toolc::run::{Runner, RunnerOptions, SandboxMode};

use crate::TempDir;
use crate::isolation::{kill_all, output, processes_under, run_with_secret, sandbox};

const PACKAGE: &str = r#"import os
import socket
import subprocess


def look_around() -> dict:
    """The processes the call sees, and every environ it can read."""
    pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    read = []
    for pid in set(pids + [os.getppid()]):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                read.append(f.read().decode("utf-8", "replace"))
        except OSError:
            pass
    return {"pid": os.getpid(), "ppid": os.getppid(), "pids": pids, "environ": "\n".join(read)}


def send_udp(port: int) -> str:
    """Send a datagram to 127.0.0.1.

    Args:
        port: Where.
    """
    try:
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"exfiltrated", ("127.0.0.1", port))
        return "sent"
    except OSError as error:
        return str(error)


def send_udp_allowed(port: int) -> str:
    """The same, for a tool that declares network.

    Args:
        port: Where.
    """
    return send_udp(port)


def daemon() -> str:
    """Leave a setsid daemon behind and say the call's TMPDIR."""
    subprocess.Popen(
        ["/bin/sh", "-c", "while :; do sleep 0.05; done"],
        start_new_session=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return os.environ["TMPDIR"]
"#;

const CONFIG: &str = r#"{"name": "warmiso", "category": "testing", "tools": {
    "look_around": {"actions": ["read"], "allow_http": false},
    "send_udp": {"actions": ["read"], "allow_http": false},
    "send_udp_allowed": {"actions": ["read"], "allow_http": true},
    "daemon": {"actions": ["read"], "allow_http": false}
}}"#;

fn package(name: &str) -> (TempDir, PathBuf) {
    let temp = TempDir::new(name);
    temp.write("warmiso/config.json", CONFIG);
    temp.write("warmiso/__init__.py", PACKAGE);
    let manifest = temp.path().join("warmiso/config.json");
    (temp, manifest)
}

fn runner(manifest: &Path, namespaces: bool) -> Runner {
    let options = RunnerOptions {
        namespaces,
        ..RunnerOptions::default()
    };
    let runner = Runner::load(&[manifest.to_path_buf()], options).unwrap();
    if namespaces {
        assert_eq!(
            runner.sandbox_mode(),
            SandboxMode::NamespacesLandlock,
            "this machine gives tools no namespaces: {:?}",
            runner.warnings()
        );
    }
    runner
}

/// A warm call cannot read toolc's environment (a secret put there) nor
/// any environ it can name, and its /proc shows only its server's
/// namespace: the server (1), itself and the server's waiting child.
#[test]
fn a_warm_call_sees_only_its_namespace_and_reads_no_other_environ() {
    let (_temp, manifest) = package("warm-iso-proc");
    let secret = format!("w4rm-s3cret-{}", std::process::id());
    let look = |extra: &[&str]| {
        run_with_secret(
            &manifest,
            "look_around",
            extra,
            "TOOLC_WARM_ISOLATION_SECRET",
            &secret,
        )
    };
    let (line, toolc_pid) = look(&[]);
    assert_eq!(line["metadata"]["sandbox"], json!("namespaces+landlock"));
    let seen = &line["output"];
    assert_eq!(seen["ppid"], json!(1), "the server is the init: {line}");
    let pids: Vec<u64> = serde_json::from_value(seen["pids"].clone()).unwrap();
    let own = seen["pid"].as_u64().unwrap();
    assert!(pids.contains(&1) && pids.contains(&own), "{line}");
    assert!(pids.len() <= 3, "more than its namespace shows: {line}");
    assert!(!pids.contains(&u64::from(toolc_pid)), "{line}");
    let environ = seen["environ"].as_str().unwrap();
    assert!(!environ.contains(&secret), "toolc's secret leaked: {line}");

    // Without namespaces the warm server runs under Landlock alone and
    // says so; toolc's process shows in its /proc.
    let (line, toolc_pid) = look(&["--no-namespaces"]);
    assert_eq!(line["metadata"]["sandbox"], json!("landlock"), "{line}");
    let pids: Vec<u64> = serde_json::from_value(line["output"]["pids"].clone()).unwrap();
    assert!(pids.contains(&u64::from(toolc_pid)), "{line}");

    // The control: unconfined, the same probe reads the secret.
    let (line, _) = look(&["--no-sandbox"]);
    assert_eq!(line["metadata"]["sandbox"], json!("none"));
    assert!(
        line["output"]["environ"]
            .as_str()
            .unwrap()
            .contains(&secret),
        "the probe cannot read environ even unconfined: {line}"
    );
}

/// A warm call of a tool without network (`allow_http: false`) sends no
/// datagram to a loopback listener; one that declares network does (the
/// listener works), and so does the tool without network under Landlock
/// alone (the network namespace is what stops it).
#[test]
fn a_warm_call_without_network_sends_no_udp() {
    let listener = UdpSocket::bind("127.0.0.1:0").unwrap();
    listener
        .set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    let port = listener.local_addr().unwrap().port();
    let arrived = || {
        let mut buffer = [0u8; 64];
        listener.recv(&mut buffer).is_ok()
    };
    let (_temp, manifest) = package("warm-iso-udp");
    let confined = runner(&manifest, true);
    let result = confined.call("send_udp", json!({"port": port}));
    assert_eq!(sandbox(&result), "namespaces+landlock");
    assert_ne!(output(&result), &json!("sent"), "{}", result.to_json_line());
    assert!(!arrived(), "a datagram left a tool without network");

    let result = confined.call("send_udp_allowed", json!({"port": port}));
    assert_eq!(sandbox(&result), "namespaces+landlock");
    assert_eq!(output(&result), &json!("sent"));
    assert!(arrived(), "the listener got nothing from a networked tool");

    let result = runner(&manifest, false).call("send_udp", json!({"port": port}));
    assert_eq!(sandbox(&result), "landlock");
    assert_eq!(output(&result), &json!("sent"));
    assert!(arrived(), "under Landlock alone the datagram goes out");
}

/// A `setsid` daemon a warm call leaves is gone once the call is over
/// (its server, the namespace's init, is then idle and kills it); the
/// server lives on and serves the next call. Under Landlock alone the
/// daemon outlives its call (the test then kills it).
#[test]
fn a_setsid_daemon_of_a_warm_call_is_gone_after_the_call() {
    let (_temp, manifest) = package("warm-iso-daemon");
    let confined = runner(&manifest, true);
    let survivors = |tmpdir: &Path| {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let left = processes_under(tmpdir);
            if left.is_empty() || Instant::now() > deadline {
                return left;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let mut roots = Vec::new();
    for _ in 0..2 {
        let result = confined.call("daemon", json!({}));
        assert_eq!(sandbox(&result), "namespaces+landlock");
        let tmpdir = PathBuf::from(output(&result).as_str().unwrap());
        // At once: the sweep is part of the call's end.
        let left = processes_under(&tmpdir);
        kill_all(&left);
        assert_eq!(left, Vec::<i32>::new(), "the daemon outlived its call");
        roots.push(tmpdir.parent().unwrap().to_path_buf());
    }
    assert_eq!(roots[0], roots[1], "one server served both calls");
    // The server and its waiting child are still there.
    assert_eq!(processes_under(&roots[0]).len(), 2);

    let result = runner(&manifest, false).call("daemon", json!({}));
    assert_eq!(sandbox(&result), "landlock");
    let tmpdir = PathBuf::from(output(&result).as_str().unwrap());
    std::thread::sleep(Duration::from_millis(300));
    let left = processes_under(&tmpdir);
    kill_all(&left);
    // Under Landlock alone the daemon escapes the call's process group,
    // but not the call's cgroup, where there is one.
    if crate::cgroup_limits::usable("warm-daemon") {
        assert_eq!(left, Vec::<i32>::new(), "the daemon outlived its cgroup");
    } else {
        assert!(!left.is_empty(), "the daemon did not even start");
    }
    assert_eq!(survivors(&tmpdir), Vec::<i32>::new());
}
