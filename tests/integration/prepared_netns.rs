//! Calls after the first one of a long-running toolc (`toolc serve`)
//! join a network namespace toolc made ahead of time, where it may make
//! them (as root): the confinement in it is the same. Each call's
//! namespace is not the host's, holds only a loopback, and its only way out is the egress proxy: the declared
//! port is reached through it, a host loopback listener is not; the tool
//! runs as the unprivileged id without capabilities, and cannot write
//! the namespace's settings.

use std::net::TcpListener;
use std::time::Duration;

use serde_json::{Value, json};

use crate::TempDir;
use crate::serve_hostile::RawStdio;

const CALLS: usize = 4;

/// The probe: what a tool sees of its network and user namespaces.
const SCRIPT: &str = r#"
import fcntl, json, os, socket, sys, urllib.request
args = json.load(sys.stdin)
out = {}
def inode(path):
    return os.stat(path).st_ino
out["net"] = inode("/proc/self/ns/net")
# NS_GET_USERNS: the user namespace owning the network namespace. One
# toolc made ahead of time belongs to toolc's, outside the tool's own
# (EPERM); one made in the clone belongs to the tool's.
fd = os.open("/proc/self/ns/net", os.O_RDONLY)
try:
    owner = fcntl.ioctl(fd, 0xb701)
    out["made_ahead"] = os.fstat(owner).st_ino != inode("/proc/self/ns/user")
except PermissionError:
    out["made_ahead"] = True
# SIOCGIFFLAGS: whether the namespace's loopback is up.
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
flags = fcntl.ioctl(s, 0x8913, b"lo" + bytes(38))
out["loopback_up"] = bool(int.from_bytes(flags[16:18], "little") & 1)
s.close()
try:
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.sendto(b"leak", ("127.0.0.1", args["host_port"]))
    out["udp"] = "sent"
except OSError as e:
    out["udp"] = str(e)
out["uid"] = os.getuid()
with open("/proc/self/status") as f:
    out["capeff"] = [l.split()[1] for l in f if l.startswith("CapEff")][0]
with open("/proc/net/dev") as f:
    out["interfaces"] = sorted(l.split(":")[0].strip() for l in f.readlines()[2:])
try:
    socket.create_connection(("127.0.0.1", args["host_port"]), timeout=3).sendall(b"leak")
    out["direct"] = "sent"
except OSError as e:
    out["direct"] = str(e)
try:
    with open("/proc/sys/net/ipv4/ip_forward", "w") as f:
        f.write("1")
    out["sysctl"] = "written"
except OSError as e:
    out["sysctl"] = str(e)
if args.get("page_port"):
    with urllib.request.urlopen("http://127.0.0.1:%d/" % args["page_port"], timeout=10) as r:
        out["page"] = r.read().decode()
print(json.dumps(out))
"#;

/// Calls the probe `CALLS` times through one `toolc serve` over stdio,
/// each after the last answered, and returns what each call saw.
fn probe_calls(manifest: &std::path::Path, arguments: &Value) -> Vec<Value> {
    let mut serve = RawStdio::start(&[manifest.display().to_string()]);
    let mut seen = Vec::new();
    for id in 1..=CALLS {
        // Time for the next namespace to be made, as between an agent's
        // calls.
        std::thread::sleep(Duration::from_millis(200));
        serve.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "probe", "arguments": arguments}}));
        let answer = serve.next_message();
        assert_eq!(answer["id"], json!(id), "{answer}");
        seen.push(crate::probe_report(&answer));
    }
    serve.end();
    seen
}

fn check(seen: &[Value], proxied: bool) {
    let host_net = std::fs::metadata("/proc/self/ns/net").unwrap();
    let host_net = std::os::unix::fs::MetadataExt::ino(&host_net);
    for (n, call) in seen.iter().enumerate() {
        assert_ne!(
            call["net"],
            json!(host_net),
            "call {n}: the host's network: {call}"
        );
        assert_eq!(call["interfaces"], json!(["lo"]), "call {n}: {call}");
        assert_ne!(call["direct"], json!("sent"), "call {n}: {call}");
        assert_eq!(
            call["capeff"],
            json!("0000000000000000"),
            "call {n}: {call}"
        );
        assert_ne!(call["uid"], json!(0), "call {n}: {call}");
        assert_ne!(call["sysctl"], json!("written"), "call {n}: {call}");
        // A proxied tool's loopback carries the proxy; any other's is
        // down, so a datagram fails at once rather than vanishing.
        assert_eq!(call["loopback_up"], json!(proxied), "call {n}: {call}");
        if proxied {
            assert_eq!(call["page"], json!("through-the-proxy"), "call {n}: {call}");
        } else {
            assert_ne!(call["udp"], json!("sent"), "call {n}: {call}");
        }
    }
    // SAFETY: a plain syscall.
    if unsafe { libc::geteuid() } == 0 {
        // As root, toolc makes them ahead of time: every call after the
        // first (whose request starts the making) joins one.
        assert!(
            seen[1..].iter().all(|s| s["made_ahead"] == json!(true)),
            "a later call did not join a namespace made ahead of time: {seen:?}"
        );
    }
}

#[test]
fn every_call_of_a_tool_without_network_has_an_empty_namespace() {
    let host = TcpListener::bind("127.0.0.1:0").unwrap();
    host.set_nonblocking(true).unwrap();
    let port = host.local_addr().unwrap().port();
    let dir = TempDir::new("prepared-netns-offline");
    let manifest = crate::python_probe(&dir, "probe", &[], 30, SCRIPT);
    let seen = probe_calls(&manifest, &json!({"host_port": port}));
    check(&seen, false);
    assert!(host.accept().is_err(), "a connection arrived");
}

#[test]
fn every_call_of_a_proxied_tool_goes_out_through_the_proxy_only() {
    let host = TcpListener::bind("127.0.0.1:0").unwrap();
    host.set_nonblocking(true).unwrap();
    let port = host.local_addr().unwrap().port();
    let (page, _) = crate::egress::serve("through-the-proxy");
    let dir = TempDir::new("prepared-netns-proxied");
    let manifest = crate::python_probe(&dir, "probe", &[&format!("127.0.0.1:{page}")], 30, SCRIPT);
    let seen = probe_calls(&manifest, &json!({"host_port": port, "page_port": page}));
    check(&seen, true);
    assert!(host.accept().is_err(), "a connection arrived");
}
