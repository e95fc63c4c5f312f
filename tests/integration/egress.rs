//! A declared egress allow-list, enforced (issue 28, points 2 and 3),
//! checked through `toolc run`: a tool declaring `egress: [host]` runs in
//! an empty network namespace whose only way out is toolc's proxy, so it
//! reaches neither loopback over TCP (IPv4 or IPv6) nor UDP nor a host
//! UNIX socket; a declared loopback port is reached through the proxy
//! while another is refused; the built-in shell reaches no loopback
//! service `fetch` refuses; and where namespaces are off, a tool with an
//! allow-list runs only with `--allow-unenforced-egress`.
//!
//! Everything stays on loopback: the listeners and HTTP servers are the
//! test's own, and every call has a short time limit.

use std::io::{Read, Write};
use std::net::{TcpListener, UdpSocket};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};

use crate::TempDir;

/// A Nachos manifest in `dir` for the tool `name` declaring `egress`, run
/// as `python3 tool.py` with `script` as tool.py.
fn write_tool(dir: &TempDir, name: &str, egress: &[String], script: &str) -> PathBuf {
    let egress: Vec<&str> = egress.iter().map(String::as_str).collect();
    crate::python_probe(dir, name, &egress, 30, script)
}

/// `toolc run --args {} EXTRA… MANIFEST TOOL`: exit code, the result
/// line, stderr.
fn run(manifest: &Path, tool: &str, extra: &[&str]) -> (i32, Value, String) {
    let mut args = vec!["run", "--args", "{}"];
    args.extend_from_slice(extra);
    let manifest = manifest.to_str().unwrap();
    args.extend([manifest, tool]);
    let out = crate::Test::new().args(args).run();
    let line: Value = serde_json::from_str(out.stdout.trim())
        .unwrap_or_else(|e| panic!("{e}: {} {}", out.stdout, out.stderr));
    (out.code, line, out.stderr)
}

fn output(line: &Value) -> &Value {
    assert_eq!(line["success"], json!(true), "{line}");
    &line["output"]
}

/// A loopback HTTP server answering every request with `body`: its port
/// and the number of requests it got.
pub(crate) fn serve(body: &'static str) -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let count = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&count);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            counted.fetch_add(1, Ordering::SeqCst);
            let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).is_ok_and(|n| n == 1) {
                head.push(byte[0]);
            }
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (port, count)
}

/// Point 2: `egress: ["api.example.com"]` let the tool reach a loopback
/// TCP listener (127.0.0.1 and ::1), a loopback UDP socket and a host
/// UNIX socket. Now each fails, nothing arrives, and the result says the
/// egress was proxied.
#[test]
fn an_allow_list_reaches_no_loopback_udp_or_unix_socket() {
    let dir = TempDir::new("egress-closed");
    let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
    tcp.set_nonblocking(true).unwrap();
    let tcp6 = TcpListener::bind("[::1]:0").ok();
    if let Some(listener) = &tcp6 {
        listener.set_nonblocking(true).unwrap();
    } else {
        eprintln!("no IPv6 loopback on this machine: the ::1 case is skipped");
    }
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_nonblocking(true).unwrap();
    let socket = dir.path().join("host.sock");
    let unix = UnixListener::bind(&socket).unwrap();
    unix.set_nonblocking(true).unwrap();
    let script = format!(
        r#"
import json, socket
out = {{}}
def attempt(name, f):
    try:
        f()
        out[name] = "sent"
    except OSError as e:
        out[name] = str(e)
def tcp(host, port):
    socket.create_connection((host, port), timeout=3).sendall(b"leak")
def udp():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.sendto(b"leak", ("127.0.0.1", {udp}))
def unix():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect({socket:?})
    s.sendall(b"leak")
attempt("tcp", lambda: tcp("127.0.0.1", {tcp}))
if {tcp6} > 0:
    attempt("tcp6", lambda: tcp("::1", {tcp6}))
attempt("udp", udp)
attempt("unix", unix)
print(json.dumps(out))
"#,
        udp = udp.local_addr().unwrap().port(),
        tcp = tcp.local_addr().unwrap().port(),
        tcp6 = tcp6.as_ref().map_or(0, |l| l.local_addr().unwrap().port()),
        socket = socket.to_str().unwrap(),
    );
    let manifest = write_tool(&dir, "send_out", &["api.example.com".into()], &script);
    let (code, line, stderr) = run(&manifest, "send_out", &[]);
    assert_eq!(code, 0, "{line} {stderr}");
    let tried = output(&line);
    // A datagram may leave the socket: it goes to the namespace's own
    // loopback, and the check that counts is that it never arrives.
    for name in ["tcp", "unix"] {
        assert_ne!(tried[name], json!("sent"), "{name}: {tried}");
    }
    if tcp6.is_some() {
        assert_ne!(tried["tcp6"], json!("sent"), "{tried}");
    }
    assert_eq!(line["metadata"]["sandbox"], json!("namespaces+landlock"));
    assert_eq!(line["metadata"]["egress"], json!("proxied"), "{line}");
    // Nothing arrived: the datagram included.
    let mut buffer = [0u8; 16];
    assert!(udp.recv(&mut buffer).is_err(), "the datagram arrived");
    assert!(tcp.accept().is_err(), "a TCP connection arrived");
    if let Some(listener) = &tcp6 {
        assert!(listener.accept().is_err(), "an IPv6 connection arrived");
    }
    assert!(unix.accept().is_err(), "a UNIX connection arrived");
}

/// A tool declaring `127.0.0.1:PORT` gets the page there through the
/// proxy (Python's urllib and curl read the proxy variables), while
/// another loopback port is refused by the proxy and a direct connection
/// to the declared port has no route.
#[test]
fn a_declared_loopback_port_is_reached_through_the_proxy_and_no_other() {
    let (allowed, allowed_hits) = serve("page-through-proxy");
    let (other, other_hits) = serve("must-not-be-read");
    let dir = TempDir::new("egress-declared");
    let script = format!(
        r#"
import json, socket, subprocess, urllib.request, urllib.error
out = {{}}
def get(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.read().decode()
    except urllib.error.HTTPError as e:
        return "refused %d: %s" % (e.code, e.read().decode().strip())
    except OSError as e:
        return "error: %s" % e
out["allowed"] = get("http://127.0.0.1:{allowed}/")
out["other"] = get("http://127.0.0.1:{other}/")
curl = subprocess.run(["curl", "-sS", "-m", "10", "http://127.0.0.1:{allowed}/"],
                      capture_output=True, text=True)
out["curl"] = curl.stdout
try:
    socket.create_connection(("127.0.0.1", {allowed}), timeout=3).sendall(b"GET / HTTP/1.0\r\n\r\n")
    out["direct"] = "sent"
except OSError as e:
    out["direct"] = str(e)
print(json.dumps(out))
"#
    );
    let manifest = write_tool(&dir, "reach", &[format!("127.0.0.1:{allowed}")], &script);
    let (code, line, stderr) = run(&manifest, "reach", &[]);
    assert_eq!(code, 0, "{line} {stderr}");
    let out = output(&line);
    assert_eq!(out["allowed"], json!("page-through-proxy"), "{out}");
    assert_eq!(out["curl"], json!("page-through-proxy"), "{out}");
    let refused = out["other"].as_str().unwrap();
    assert!(
        refused.starts_with("refused 403") && refused.contains("egress"),
        "{out}"
    );
    assert_ne!(out["direct"], json!("sent"), "{out}");
    assert_eq!(other_hits.load(Ordering::SeqCst), 0, "{out}");
    assert_eq!(allowed_hits.load(Ordering::SeqCst), 2, "{out}");
    assert_eq!(line["metadata"]["egress"], json!("proxied"), "{line}");
}

/// Point 3: the built-in shell's `curl http://127.0.0.1:PORT/` reached a
/// loopback service that `fetch` refuses. Now it fails, as fetch does,
/// and the server sees nothing; `--allow-private-network` lets both in.
#[test]
fn the_shell_builtin_reaches_no_loopback_service() {
    let (port, hits) = serve("loopback-secret");
    let dir = TempDir::new("egress-shell");
    let command = format!("curl -fsS -m 10 http://127.0.0.1:{port}/");
    let arguments = json!({ "command": command }).to_string();
    let call = |extra: &[&str]| {
        let mut args = vec!["run", "builtin", "shell", "--args", arguments.as_str()];
        args.extend_from_slice(extra);
        let out = crate::Test::new().current_dir(dir.path()).args(args).run();
        let line: Value = serde_json::from_str(out.stdout.trim())
            .unwrap_or_else(|e| panic!("{e}: {} {}", out.stdout, out.stderr));
        line
    };
    let line = call(&[]);
    let out = output(&line);
    assert_ne!(out["exit_code"], json!(0), "{line}");
    assert!(
        !out["stdout"].as_str().unwrap().contains("loopback-secret"),
        "{line}"
    );
    assert!(
        out["stderr"].as_str().unwrap().contains("403"),
        "the proxy's refusal: {line}"
    );
    assert_eq!(hits.load(Ordering::SeqCst), 0, "{line}");
    assert_eq!(line["metadata"]["egress"], json!("proxied"), "{line}");
    // The same rule as fetch's, lifted by the same flag.
    let line = call(&["--allow-private-network"]);
    assert_eq!(output(&line)["stdout"], json!("loopback-secret"), "{line}");
    assert_eq!(hits.load(Ordering::SeqCst), 1, "{line}");
}

/// Without namespaces toolc cannot enforce an allow-list: the tool is
/// refused with the reason and the flag that runs it anyway, and with the
/// flag the result says its egress was not enforced.
#[test]
fn without_namespaces_an_allow_list_needs_an_explicit_flag() {
    let dir = TempDir::new("egress-unenforced");
    let manifest = write_tool(
        &dir,
        "hello",
        &["api.example.com".into()],
        "print('{\"hi\": 1}')\n",
    );
    let (code, line, _) = run(&manifest, "hello", &["--no-namespaces"]);
    assert_ne!(code, 0, "{line}");
    assert_eq!(line["error"]["code"], json!("POLICY_DENIED"), "{line}");
    let message = line["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("--allow-unenforced-egress") && message.contains("api.example.com"),
        "{message}"
    );
    let (code, line, _) = run(
        &manifest,
        "hello",
        &["--no-namespaces", "--allow-unenforced-egress"],
    );
    assert_eq!(code, 0, "{line}");
    assert_eq!(output(&line)["hi"], json!(1));
    assert_eq!(line["metadata"]["sandbox"], json!("landlock"));
    assert_eq!(line["metadata"]["egress"], json!("unenforced"), "{line}");
}
