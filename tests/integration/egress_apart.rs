//! One `toolc serve` accepts for every proxied call's egress proxy (one
//! long-lived acceptor, each call's listener made with its network
//! namespace ahead of time): calls of two tools with different
//! allow-lists, at the same time and one after the other, each reach
//! their own declared port and are refused the other tool's, and a
//! refused host stays refused. A call's listener never serves another
//! call's allow-list.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::json;

use crate::TempDir;
use crate::serve_hostile::RawStdio;

/// The probe: its own declared page, the other tool's, and a host
/// nobody declared, each through the proxy.
const SCRIPT: &str = r#"
import json, sys, time, urllib.request, urllib.error
args = json.load(sys.stdin)
def get(port):
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d/" % port, timeout=10) as r:
            return r.read().decode()
    except urllib.error.HTTPError as e:
        return "refused %d" % e.code
    except OSError as e:
        return "error: %s" % e
out = {"own": get(args["own"]), "other": get(args["other"])}
# Stay a while, so that the calls sent together overlap.
time.sleep(args.get("linger", 0))
out["own_again"] = get(args["own"])
out["undeclared"] = get(args["undeclared"])
print(json.dumps(out))
"#;

#[test]
fn calls_of_tools_with_different_allow_lists_stay_apart() {
    let (port_a, hits_a) = crate::egress::serve("page-of-a");
    let (port_b, hits_b) = crate::egress::serve("page-of-b");
    let (undeclared, hits_undeclared) = crate::egress::serve("must-not-be-read");
    let dir_a = TempDir::new("egress-apart-a");
    let dir_b = TempDir::new("egress-apart-b");
    let manifest_a =
        crate::python_probe(&dir_a, "a", &[&format!("127.0.0.1:{port_a}")], 30, SCRIPT);
    let manifest_b =
        crate::python_probe(&dir_b, "b", &[&format!("127.0.0.1:{port_b}")], 30, SCRIPT);
    let mut serve = RawStdio::start(&[
        manifest_a.display().to_string(),
        manifest_b.display().to_string(),
    ]);
    let call = |id: usize, linger: f64| {
        let (name, own, other) = if id.is_multiple_of(2) {
            ("a", port_a, port_b)
        } else {
            ("b", port_b, port_a)
        };
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": name, "arguments": {
                "own": own, "other": other, "undeclared": undeclared, "linger": linger}}})
    };
    // Six calls at once (their listeners served side by side), then six
    // one after the other (each in a namespace and with a listener made
    // ahead of time, as root).
    const AT_ONCE: usize = 6;
    const IN_TURN: usize = 6;
    for id in 1..=AT_ONCE {
        serve.send(&call(id, 0.5));
    }
    let mut answers = BTreeMap::new();
    for _ in 0..AT_ONCE {
        let answer = serve.next_message();
        answers.insert(answer["id"].as_u64().unwrap() as usize, answer);
    }
    for id in AT_ONCE + 1..=AT_ONCE + IN_TURN {
        std::thread::sleep(Duration::from_millis(100));
        serve.send(&call(id, 0.0));
        let answer = serve.next_message();
        answers.insert(answer["id"].as_u64().unwrap() as usize, answer);
    }
    serve.end();
    assert_eq!(answers.len(), AT_ONCE + IN_TURN, "{answers:?}");
    for (id, answer) in &answers {
        let seen = crate::probe_report(answer);
        let own = if id.is_multiple_of(2) {
            "page-of-a"
        } else {
            "page-of-b"
        };
        assert_eq!(seen["own"], json!(own), "call {id}: {seen}");
        assert_eq!(seen["own_again"], json!(own), "call {id}: {seen}");
        assert_eq!(seen["other"], json!("refused 403"), "call {id}: {seen}");
        assert_eq!(
            seen["undeclared"],
            json!("refused 403"),
            "call {id}: {seen}"
        );
    }
    // Each tool's server saw only its own tool's two requests a call.
    let calls_each = (AT_ONCE + IN_TURN) / 2;
    assert_eq!(hits_a.load(Ordering::SeqCst), 2 * calls_each);
    assert_eq!(hits_b.load(Ordering::SeqCst), 2 * calls_each);
    assert_eq!(hits_undeclared.load(Ordering::SeqCst), 0);
}
