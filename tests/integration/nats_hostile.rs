//! toolc on a NATS bus it cannot trust: hostile peers (forged or garbled
//! answers on a caller's inbox, huge envelope ids, floods of duplicates
//! and `$SRV` requests), an unlucky operator (the NATS server gone when the
//! worker is told to stop) and secrets that must stay unprinted. A real
//! nats-server, the real toolc binary, peers written with nats-py; every
//! test bounded in time. Memory is read from the worker's
//! `/proc/PID/status` while it runs.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::nats_harness::{Worker, envelope, python, python_command, shell_tools};
use crate::nats_server::NatsServer;
use crate::{TempDir, Test};

const MIB: u64 = 1024 * 1024;

/// A nats-py peer running in the background until dropped (a fake
/// worker); started once it printed `ready`.
struct Background(Child);

impl Background {
    fn start(script: &str, args: &[&str]) -> Background {
        let mut child = python_command(script, args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start python");
        let mut ready = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut ready)
            .expect("the peer says it is ready");
        assert_eq!(ready.trim(), "ready");
        Background(child)
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A nats-py peer that sends a request (prints the answer's payload) and
/// exits.
const ONE_REQUEST: &str = r#"
import asyncio, json, sys
import nats
async def main():
    nc = await nats.connect(sys.argv[1])
    m = await nc.request(sys.argv[2], sys.argv[3].encode(), timeout=10)
    print(json.dumps(json.loads(m.data)["payload"]))
    await nc.close()
asyncio.run(main())
"#;

/// The NATS server dies and the operator stops the worker: it must still
/// stop, in about its grace period, whether the server went before the
/// signal (nothing to drain through) or during the drain (a call running,
/// its reply and the connection's flush with nowhere to go).
#[test]
fn nats_hostile_a_worker_stops_when_the_nats_server_is_gone() {
    let dir = TempDir::new("nats-hostile-gone");
    let tools = shell_tools(&dir, &[("slow", "sleep 3; echo '\"slept\"'")])
        .display()
        .to_string();
    let grace = ["--no-sandbox", "--nats-grace", "1"];

    let mut server = NatsServer::start();
    let mut worker = Worker::start(&server.url, &[&tools], &grace);
    server.kill();
    std::thread::sleep(Duration::from_millis(500));
    worker.signal(libc::SIGTERM);
    let code = worker.exit_within(Duration::from_secs(15));
    assert_eq!(
        code,
        Some(0),
        "SIGTERM with the NATS server gone: still running after 15 s (or failed):\n{}",
        worker.stderr()
    );

    let mut server = NatsServer::start();
    let mut worker = Worker::start(&server.url, &[&tools], &grace);
    // Sent without waiting for the answer: it never comes.
    python(
        PUBLISH,
        &[
            &server.url,
            "nachos.tool.slow.request",
            &envelope("gone-1", json!({})),
        ],
    );
    std::thread::sleep(Duration::from_millis(500));
    worker.signal(libc::SIGTERM);
    std::thread::sleep(Duration::from_millis(200));
    server.kill();
    let code = worker.exit_within(Duration::from_secs(15));
    assert_eq!(
        code,
        Some(0),
        "the NATS server died during the drain: still running after 15 s (or failed):\n{}",
        worker.stderr()
    );
    let stderr = worker.stderr();
    assert!(stderr.contains("NATS"), "{stderr}");
}

/// Publishes one request (a reply subject nobody reads) and exits.
const PUBLISH: &str = r#"
import asyncio, sys
import nats
async def main():
    nc = await nats.connect(sys.argv[1])
    await nc.publish(sys.argv[2], sys.argv[3].encode(), reply="_INBOX.nobody.reads")
    await nc.flush()
    await nc.close()
asyncio.run(main())
"#;

/// Sends `count` requests, `parallel` at a time, to `subject` of a
/// worker, each with an envelope id of `id_size` bytes (distinct) and
/// `{"n": "not a number"}` as arguments (refused by validation: nothing
/// runs); prints how many answers came.
const HUGE_IDS: &str = r#"
import asyncio, json, sys
import nats
async def main():
    nc = await nats.connect(sys.argv[1])
    subject, count, parallel, size = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    async def one(i):
        envelope = {"id": "%08d" % i + "i" * size, "timestamp": "2026-01-01T00:00:00.000Z",
                    "source": "hostile", "type": "tool.request", "payload": {"n": "not a number"}}
        m = await nc.request(subject, json.dumps(envelope).encode(), timeout=30)
        return json.loads(m.data)["payload"]["error"]["code"]
    codes = []
    for start in range(0, count, parallel):
        codes += await asyncio.gather(*[one(i) for i in range(start, min(count, start + parallel))])
    print(json.dumps(codes))
    await nc.close()
asyncio.run(main())
"#;

/// A retried request is answered from what the worker keeps of recent
/// answers; a peer that sends distinct envelope ids of 400 KB each (the
/// answer repeats the id as its correlationId) must not make the worker
/// keep them all: what it keeps is bounded in bytes, not only in count.
#[test]
fn nats_hostile_huge_envelope_ids_do_not_pile_up_in_memory() {
    let server = NatsServer::start();
    let dir = TempDir::new("nats-hostile-ids");
    let tools = shell_tools(&dir, &[("check", "echo '\"checked\"'")])
        .display()
        .to_string();
    let worker = Worker::start(&server.url, &[&tools], &["--no-sandbox"]);
    let subject = "nachos.tool.check.request";
    // Warm up: the first answers allocate what every later one reuses.
    python(HUGE_IDS, &[&server.url, subject, "8", "4", "400000"]);
    let before = worker.resident();
    let out = python(HUGE_IDS, &[&server.url, subject, "100", "4", "400000"]);
    let codes: Vec<String> = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(codes.len(), 100);
    assert!(
        codes.iter().all(|code| code == "VALIDATION_ERROR"),
        "{codes:?}"
    );
    let grown = worker.resident().saturating_sub(before);
    assert!(
        grown < 56 * MIB,
        "100 requests with ids of 400 KB grew the worker by {} MiB (it keeps them)",
        grown / MIB
    );
}

/// One request to a slow tool, then `count` copies with the same envelope
/// id while it runs, each padded to `pad` bytes (in `source`); prints the
/// worker's resident memory once they were taken, then the codes of the
/// copies' answers and the first answer's success.
const DUPLICATES: &str = r#"
import asyncio, json, sys
import nats
async def main():
    nc = await nats.connect(sys.argv[1])
    subject, count, pad, pid = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    def envelope(source):
        return json.dumps({"id": "the-same-id", "timestamp": "2026-01-01T00:00:00.000Z",
                           "source": source, "type": "tool.request", "payload": {}}).encode()
    first = asyncio.create_task(nc.request(subject, envelope("first"), timeout=20))
    await asyncio.sleep(0.5)
    answers = []
    inbox = nc.new_inbox()
    async def take(m):
        answers.append(m)
    await nc.subscribe(inbox, cb=take)
    for _ in range(count):
        await nc.publish(subject, envelope("p" * pad), reply=inbox)
    await nc.flush()
    await asyncio.sleep(1.5)
    rss = [l.split()[1] for l in open("/proc/%s/status" % pid) if l.startswith("VmRSS:")][0]
    print(int(rss) * 1024)
    m = await first
    for _ in range(100):
        if len(answers) >= count:
            break
        await asyncio.sleep(0.1)
    codes = [(json.loads(a.data)["payload"].get("error") or {}).get("code", "ok") for a in answers]
    print(json.dumps(sorted(set(codes))), len(codes))
    print(json.dumps(json.loads(m.data)["payload"]["success"]))
    await nc.close()
asyncio.run(main())
"#;

/// A request whose envelope id is running already waits for its answer
/// rather than running again; a peer that floods the worker with padded
/// copies of it must not make the worker hold every copy until the first
/// call ends. Every copy is still answered.
#[test]
fn nats_hostile_copies_of_a_running_request_are_not_held() {
    let server = NatsServer::start();
    let dir = TempDir::new("nats-hostile-copies");
    let tools = shell_tools(&dir, &[("slow", "sleep 4; echo '\"slept\"'")])
        .display()
        .to_string();
    let worker = Worker::start(&server.url, &[&tools], &["--no-sandbox"]);
    let subject = "nachos.tool.slow.request";
    let before = worker.resident();
    let pid = worker.pid().to_string();
    let out = python(DUPLICATES, &[&server.url, subject, "120", "600000", &pid]);
    let lines: Vec<&str> = out.lines().collect();
    let during: u64 = lines[0].parse().unwrap();
    let grown = during.saturating_sub(before);
    assert!(
        grown < 40 * MIB,
        "120 copies of 600 KB of a running request grew the worker by {} MiB (it holds them):\n{out}",
        grown / MIB
    );
    assert!(lines[1].ends_with(" 120"), "every copy is answered: {out}");
    assert_eq!(lines[2], "true", "{out}");
}

/// A fake worker on `nachos.tool.<argv[2]>.request` (a plain
/// subscription). `forger`: to each request it first sends, on the
/// caller's inbox, an answer to another call (another correlationId) and
/// the request itself sent back, then after 300 ms the true answer.
/// `garbler`: it answers bytes that are no JSON and an envelope whose
/// payload is no ToolResult, never a true answer.
const FAKE_WORKER: &str = r#"
import asyncio, json, sys
import nats
async def main():
    nc = await nats.connect(sys.argv[1])
    tool, mode = sys.argv[2], sys.argv[3]
    def answer(correlation, payload, kind="tool.response"):
        return json.dumps({"id": "fake", "timestamp": "2026-01-01T00:00:00.000Z", "source": tool,
                           "type": kind, "correlationId": correlation, "payload": payload}).encode()
    async def serve(m):
        request = json.loads(m.data)
        if mode == "forger":
            stolen = {"success": True, "content": [{"type": "text", "text": "\"meant for another call\""}]}
            await nc.publish(m.reply, answer("another-call", stolen))
            echoed = dict(request, payload={"success": True, "content": []})
            await nc.publish(m.reply, json.dumps(echoed).encode())
            await asyncio.sleep(0.3)
            true = {"success": True, "content": [{"type": "text", "text": "\"the true answer\""}]}
            await nc.publish(m.reply, answer(request["id"], true))
        else:
            await nc.publish(m.reply, b"<html>502 Bad Gateway</html>")
            await nc.publish(m.reply, answer(request["id"], {"status": "ok"}))
    await nc.subscribe("nachos.tool.%s.request" % tool, cb=serve)
    await nc.flush()
    print("ready", flush=True)
    await asyncio.sleep(120)
asyncio.run(main())
"#;

/// A caller takes the answer to its own call only: a reply on its inbox
/// that answers another envelope id, or that is no answer at all (its own
/// request sent back), is not its result.
#[test]
fn nats_hostile_call_takes_no_answer_meant_for_another_call() {
    let server = NatsServer::start();
    let _fake = Background::start(FAKE_WORKER, &[&server.url, "twin", "forger"]);
    let output = Test::new()
        .args(["call", "--nats", &server.url, "twin", "--args", "{}"])
        .args(["--timeout", "5"])
        .run();
    assert_eq!(output.code, 0, "{}\n{}", output.stdout, output.stderr);
    let printed: Value = serde_json::from_str(output.stdout.trim()).expect("one JSON line");
    assert_eq!(printed["output"], "the true answer", "{printed}");
}

/// A worker that answers, but with something no caller can read: the
/// caller must say that answers came and what they were, not that
/// nobody answered.
#[test]
fn nats_hostile_call_says_that_a_worker_answered_garbage() {
    let server = NatsServer::start();
    let _fake = Background::start(FAKE_WORKER, &[&server.url, "garbled", "garbler"]);
    let output = Test::new()
        .args(["call", "--nats", &server.url, "garbled", "--args", "{}"])
        .args(["--timeout", "2"])
        .run();
    assert_eq!(output.code, 5, "{}\n{}", output.stdout, output.stderr);
    assert!(
        output.stderr.contains("2 answer(s)") && output.stderr.contains("502 Bad Gateway"),
        "the caller says nobody answered:\n{}",
        output.stderr
    );
    assert!(
        !output.stderr.contains("did not answer"),
        "{}",
        output.stderr
    );
}

/// `toolc call --help` shows flags' environment values: never a
/// password from NATS_URL.
#[test]
fn nats_hostile_help_shows_no_password_from_nats_url() {
    for command in ["call", "serve", "lint"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolc"))
            .args([command, "--help"])
            .env("NATS_URL", "nats://alice:s3cret-in-env@127.0.0.1:4222")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn toolc");
        let mut text = String::new();
        std::io::Read::read_to_string(child.stdout.as_mut().unwrap(), &mut text).unwrap();
        assert!(child.wait().unwrap().success());
        assert!(
            !text.contains("s3cret-in-env"),
            "toolc {command} --help prints NATS_URL's password:\n{text}"
        );
    }
}

/// Sends each body of argv[3] (a JSON list of strings) to subject argv[2]
/// (`DEEP-ARRAY`, `DEEP-OBJECT`: JSON nested 100,000 and 5,000 deep) and
/// prints the error code of each answer (as a JSON list); then floods
/// `$SRV.PING`, `$SRV.INFO` and `$SRV.STATS` with argv[4] requests each,
/// whose replies nobody reads.
const MALFORMED: &str = r#"
import asyncio, json, sys
import nats
async def main():
    nc = await nats.connect(sys.argv[1], pending_size=1 << 28)
    codes = []
    deep = {"DEEP-ARRAY": "[" * 100000,
            "DEEP-OBJECT": '{"id": "deep", "payload": ' + '{"a":' * 5000 + "}" * 5001}
    for body in json.loads(sys.argv[3]):
        body = deep.get(body, body)
        m = await nc.request(sys.argv[2], body.encode(), timeout=10)
        codes.append(json.loads(m.data)["payload"]["error"]["code"])
    print(json.dumps(codes))
    for n in range(int(sys.argv[4])):
        for verb in ("PING", "INFO", "STATS"):
            await nc.publish("$SRV." + verb, b"", reply="_INBOX.nobody.reads")
        if n % 500 == 0:
            await nc.flush()
    await nc.flush()
    await nc.close()
asyncio.run(main())
"#;

/// Held: bodies that are no envelope (not JSON, nested past any parser's
/// depth, a payload that is no object, an empty or numeric id, a response
/// sent as a request) are each refused with VALIDATION_ERROR, and floods
/// of `$SRV` requests nobody reads the answers to leave the worker
/// answering, with the descriptors it had.
#[test]
fn nats_hostile_malformed_envelopes_and_srv_floods_leave_the_worker_answering() {
    let server = NatsServer::start();
    let dir = TempDir::new("nats-hostile-malformed");
    let tools = shell_tools(&dir, &[("fast", "echo '\"fast\"'")])
        .display()
        .to_string();
    let worker = Worker::start(&server.url, &[&tools], &["--no-sandbox"]);
    let subject = "nachos.tool.fast.request";
    // The first call opens what every later one shares.
    one_request(&server.url, subject, &envelope("first", json!({})));
    let descriptors = worker.descriptors();
    let mut response = serde_json::from_str::<Value>(&envelope("r", json!({}))).unwrap();
    response["type"] = json!("tool.response");
    let bodies = json!([
        "<html>not json</html>",
        "DEEP-ARRAY",
        "DEEP-OBJECT",
        envelope("list", json!([1, 2])),
        envelope("", json!({})),
        json!({"id": 7, "timestamp": "t", "source": "s", "type": "tool.request", "payload": {}})
            .to_string(),
        response.to_string(),
        "null",
    ]);
    let out = python(
        MALFORMED,
        &[&server.url, subject, &bodies.to_string(), "5000"],
    );
    let codes: Vec<String> = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(codes, vec!["VALIDATION_ERROR"; 8], "{out}");
    let answer = one_request(&server.url, subject, &envelope("after", json!({})));
    assert_eq!(answer["success"], true, "{answer}");
    assert_eq!(worker.descriptors(), descriptors, "{}", worker.stderr());
}

/// Sends argv[3] requests to subject argv[2], 8 at a time, and prints how
/// many succeeded.
const MANY_CALLS: &str = r#"
import asyncio, json, sys
import nats
async def main():
    nc = await nats.connect(sys.argv[1])
    async def one(i):
        body = json.dumps({"id": "many-%d" % i, "timestamp": "2026-01-01T00:00:00.000Z",
                           "source": "hostile", "type": "tool.request", "payload": {"n": i}})
        m = await nc.request(sys.argv[2], body.encode(), timeout=30)
        return json.loads(m.data)["payload"]["success"]
    count, ok = int(sys.argv[3]), 0
    for start in range(0, count, 8):
        ok += sum(await asyncio.gather(*[one(i) for i in range(start, min(count, start + 8))]))
    print(ok)
    await nc.close()
asyncio.run(main())
"#;

/// Held: hundreds of calls in a row (each a process run) leave the worker
/// with the descriptors it had and about the memory it had.
#[test]
fn nats_hostile_many_calls_leak_no_descriptors_or_memory() {
    let server = NatsServer::start();
    let dir = TempDir::new("nats-hostile-many");
    let tools = shell_tools(&dir, &[("fast", "echo '\"fast\"'")])
        .display()
        .to_string();
    let worker = Worker::start(&server.url, &[&tools], &["--no-sandbox"]);
    let subject = "nachos.tool.fast.request";
    python(MANY_CALLS, &[&server.url, subject, "16"]);
    let (descriptors, resident) = (worker.descriptors(), worker.resident());
    let out = python(MANY_CALLS, &[&server.url, subject, "600"]);
    assert_eq!(out.trim(), "600");
    assert_eq!(worker.descriptors(), descriptors, "{}", worker.stderr());
    let grown = worker.resident().saturating_sub(resident);
    assert!(
        grown < 16 * MIB,
        "600 calls grew the worker by {} MiB",
        grown / MIB
    );
    assert!(
        worker.status("Threads") < 64,
        "{}",
        worker.status("Threads")
    );
}

fn one_request(url: &str, subject: &str, body: &str) -> Value {
    let out = python(ONE_REQUEST, &[url, subject, body]);
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"))
}
