//! `toolc serve --nats`: toolc as a NATS tool worker, called by real
//! clients over a real nats-server: a Nachos-style gateway written with
//! npm `nats` 2.29 (what Nachos uses), nats-py, and `@nats-io/services`.
//! Every `$SRV` reply is validated against the schemas the `nats` CLI
//! uses. Each test is bounded in time.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::nats_harness::{Worker, envelope, fixtures, json_lines, node, python, shell_tools};
use crate::nats_server::NatsServer;
use crate::{TempDir, Test};

/// The Nachos gateway: what the seed's coordinator does, with npm `nats`
/// 2.29: one request per line of argv[2] (`subject body`), each answer
/// printed as a JSON line (or {"error": code}).
const GATEWAY: &str = r#"
const { connect, StringCodec } = require('nats');
const sc = StringCodec();
(async () => {
  const nc = await connect({ servers: process.argv[1] });
  for (const [subject, body] of JSON.parse(process.argv[2])) {
    try {
      const m = await nc.request(subject, sc.encode(body), { timeout: 5000 });
      const reply = JSON.parse(sc.decode(m.data));
      const headers = {};
      if (m.headers) for (const [k, v] of m.headers) headers[k] = v[0];
      console.log(JSON.stringify({ reply, headers }));
    } catch (err) {
      console.log(JSON.stringify({ error: String(err.code) }));
    }
  }
  await nc.drain();
})().catch((e) => { console.error(e); process.exit(1); });
"#;

fn gateway(url: &str, requests: &[(&str, String)]) -> Vec<serde_json::Value> {
    let requests = serde_json::to_string(requests).unwrap();
    json_lines(&node(GATEWAY, &[url, &requests]))
}

#[test]
fn nats_a_nachos_gateway_calls_builtin_and_command_tools() {
    let server = NatsServer::start();
    let workspace = TempDir::new("nats-builtin");
    workspace.write("hello.txt", "hi");
    let workspace_arg = workspace.path().display().to_string();
    let _builtin = Worker::start(&server.url, &["builtin"], &["--workspace", &workspace_arg]);
    let fixtures = fixtures().display().to_string();
    let _commands = Worker::start(&server.url, &[&fixtures], &[]);
    let replies = gateway(
        &server.url,
        &[
            (
                "nachos.tool.read_file.request",
                envelope(
                    "req-1",
                    serde_json::json!({"path": "hello.txt", "sessionId": "s1", "callId": "c1", "sandbox": {}}),
                ),
            ),
            (
                "nachos.tool.echo.request",
                envelope(
                    "req-2",
                    serde_json::json!({"text": "hi", "sessionId": "s1", "callId": "c2"}),
                ),
            ),
            (
                "nachos.tool.echo.request",
                envelope("req-3", serde_json::json!({"text": 5})),
            ),
            ("nachos.tool.echo.request", "not json {".to_string()),
            (
                "nachos.tool.echo.request",
                serde_json::json!({"text": "hi"}).to_string(),
            ),
            (
                "nachos.tool.no_such_tool.request",
                envelope("req-4", serde_json::json!({})),
            ),
        ],
    );
    assert_eq!(replies.len(), 6, "{replies:#?}");
    // The seed's envelope, answering the request.
    let read = &replies[0]["reply"];
    assert_eq!(read["type"], "tool.response", "{read}");
    assert_eq!(read["source"], "read_file");
    assert_eq!(read["correlationId"], "req-1");
    assert!(read["id"].as_str().is_some_and(|id| !id.is_empty()));
    assert!(read["timestamp"].as_str().is_some_and(|t| t.ends_with('Z')));
    assert_eq!(read["payload"]["success"], true, "{read}");
    assert_eq!(read["payload"]["content"][0]["type"], "text");
    assert!(
        read["payload"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("hi"),
        "{read}"
    );
    assert!(read["payload"]["metadata"]["duration"].is_u64());
    // The reserved keys were stripped: echo takes no other key than text.
    let echo = &replies[1]["reply"];
    assert_eq!(echo["payload"]["success"], true, "{echo}");
    assert_eq!(
        echo["payload"]["content"][0]["text"],
        r#"{"echo":{"text":"hi"}}"#
    );
    assert!(replies[1]["headers"].as_object().unwrap().is_empty());
    // Invalid arguments: toolc's validation, the seed's code.
    let invalid = &replies[2];
    assert_eq!(invalid["reply"]["payload"]["success"], false);
    assert_eq!(
        invalid["reply"]["payload"]["error"]["code"],
        "VALIDATION_ERROR"
    );
    assert_eq!(invalid["headers"]["Nats-Service-Error-Code"], "400");
    assert!(
        invalid["headers"]["Nats-Service-Error"]
            .as_str()
            .unwrap()
            .starts_with("VALIDATION_ERROR")
    );
    // A body that is no JSON, and JSON that is no envelope: an envelope
    // with a VALIDATION_ERROR, never silence.
    for reply in &replies[3..5] {
        assert_eq!(
            reply["reply"]["payload"]["error"]["code"], "VALIDATION_ERROR",
            "{reply}"
        );
        assert_eq!(reply["reply"]["type"], "tool.response");
    }
    assert!(
        replies[3]["reply"]["payload"]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not JSON")
    );
    assert!(
        replies[4]["reply"]["payload"]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not a Nachos envelope")
    );
    // No worker serves the tool: NATS's no-responders (nats.js v2's
    // ErrorCode.NoResponders is "503"), not a timeout ("TIMEOUT").
    assert_eq!(replies[5]["error"], "503", "{}", replies[5]);
}

/// Requests every `$SRV` verb in its three subject forms with nats-py and
/// validates each reply against the nats CLI's schemas; prints the INFO
/// and STATS replies of toolc's instance.
const DISCOVERY: &str = r#"
import asyncio, json, sys, pathlib
import nats, jsonschema
schemas = pathlib.Path(sys.argv[2])
kinds = {"PING": "ping_response", "INFO": "info_response", "STATS": "stats_response"}
async def main():
    nc = await nats.connect(sys.argv[1])
    ping = json.loads((await nc.request("$SRV.PING.toolc", b"", timeout=5)).data)
    iid = ping["id"]
    out = {}
    for verb, schema in kinds.items():
        validator = json.loads((schemas / f"{schema}.json").read_text())
        for subject in [f"$SRV.{verb}", f"$SRV.{verb}.toolc", f"$SRV.{verb}.toolc.{iid}"]:
            reply = json.loads((await nc.request(subject, b"", timeout=5)).data)
            jsonschema.validate(reply, validator)
            assert reply["id"] == iid, (subject, reply)
            out[verb] = reply
    health = json.loads((await nc.request("nachos.health.ping", b"", timeout=5)).data)
    out["health"] = health
    await nc.close()
    print(json.dumps(out))
asyncio.run(main())
"#;

/// `@nats-io/services`: the NATS services client lists toolc's instance.
const SVCM: &str = r#"
const { connect } = require('@nats-io/transport-node');
const { Svcm } = require('@nats-io/services');
(async () => {
  const nc = await connect({ servers: process.argv[1] });
  const client = new Svcm(nc).client();
  const collect = async (it) => { const all = []; for await (const x of await it) all.push(x); return all; };
  const pings = await collect(client.ping('toolc'));
  const infos = await collect(client.info('toolc'));
  const stats = await collect(client.stats('toolc'));
  console.log(JSON.stringify({ pings, infos, stats }));
  await nc.close();
})().catch((e) => { console.error(e); process.exit(1); });
"#;

#[test]
fn nats_services_clients_list_the_instance_and_replies_match_the_schemas() {
    let server = NatsServer::start();
    let fixtures = fixtures().display().to_string();
    let _worker = Worker::start(&server.url, &[&fixtures], &["--nats-queue", "workers"]);
    // One call, so that STATS has something to count.
    let replies = gateway(
        &server.url,
        &[(
            "nachos.tool.echo.request",
            envelope("s-1", serde_json::json!({"text": "x"})),
        )],
    );
    assert_eq!(replies[0]["reply"]["payload"]["success"], true);
    let schemas = "/work/shared/schemas/nats-micro";
    let schemas = if Path::new(schemas).is_dir() {
        schemas.to_string()
    } else {
        crate::root()
            .join("../shared/schemas/nats-micro")
            .display()
            .to_string()
    };
    let out = json_lines(&python(DISCOVERY, &[&server.url, &schemas]));
    let out = &out[0];
    assert_eq!(out["PING"]["name"], "toolc");
    assert_eq!(out["PING"]["version"], env!("CARGO_PKG_VERSION"));
    let endpoints = out["INFO"]["endpoints"].as_array().unwrap();
    let echo = endpoints.iter().find(|e| e["name"] == "echo").unwrap();
    assert_eq!(echo["subject"], "nachos.tool.echo.request");
    assert_eq!(echo["queue_group"], "workers");
    let schema: serde_json::Value =
        serde_json::from_str(echo["metadata"]["input_schema"].as_str().unwrap()).unwrap();
    assert_eq!(schema["properties"]["text"]["type"], "string");
    assert_eq!(echo["metadata"]["description"], "Echo the arguments back.");
    assert_eq!(echo["metadata"]["sha256"].as_str().unwrap().len(), 64);
    let stats = out["STATS"]["endpoints"].as_array().unwrap();
    let echo = stats.iter().find(|e| e["name"] == "echo").unwrap();
    assert_eq!(echo["num_requests"], 1, "{echo}");
    assert_eq!(echo["num_errors"], 0);
    assert!(echo["processing_time"].as_u64().unwrap() > 0);
    assert_eq!(out["health"]["status"], "ok");
    assert_eq!(out["health"]["instance"], out["PING"]["id"]);
    assert_eq!(out["health"]["tools"], endpoints.len());

    let js = json_lines(&node(SVCM, &[&server.url]));
    let js = &js[0];
    assert_eq!(js["pings"][0]["name"], "toolc", "{js}");
    assert_eq!(js["infos"][0]["id"], out["PING"]["id"]);
    let listed = js["infos"][0]["endpoints"].as_array().unwrap();
    assert_eq!(listed.len(), endpoints.len());
    let counted = js["stats"][0]["endpoints"].as_array().unwrap();
    assert!(
        counted
            .iter()
            .any(|e| e["name"] == "echo" && e["num_requests"] == 1),
        "{js}"
    );
}

/// nats-py: sends the requests of argv[2] (`[subject, body]`) at once,
/// each after its delay in seconds; optionally SIGTERMs pid argv[3] after
/// 0.5 s; prints each answer's body and headers.
const CONCURRENT: &str = r#"
import asyncio, json, os, signal, sys
import nats
async def main():
    nc = await nats.connect(sys.argv[1])
    async def one(subject, body, delay):
        await asyncio.sleep(delay)
        try:
            m = await nc.request(subject, body.encode(), timeout=15)
            return {"reply": json.loads(m.data), "headers": dict(m.headers or {})}
        except Exception as e:
            return {"error": type(e).__name__}
    tasks = [asyncio.create_task(one(s, b, d)) for s, b, d in json.loads(sys.argv[2])]
    if len(sys.argv) > 3:
        await asyncio.sleep(0.7)
        os.kill(int(sys.argv[3]), signal.SIGTERM)
    for r in await asyncio.gather(*tasks):
        print(json.dumps(r))
    await nc.close()
asyncio.run(main())
"#;

fn concurrent(
    url: &str,
    requests: &[(&str, String, f64)],
    kill: Option<u32>,
) -> Vec<serde_json::Value> {
    let requests = serde_json::to_string(requests).unwrap();
    let pid = kill.map(|pid| pid.to_string());
    let mut args = vec![url, requests.as_str()];
    args.extend(pid.as_deref());
    json_lines(&python(CONCURRENT, &args))
}

#[test]
fn nats_sigterm_drains_the_calls_in_flight_and_exits_0() {
    let server = NatsServer::start();
    let dir = TempDir::new("nats-drain");
    let tools = shell_tools(&dir, &[("slow", "sleep 2; echo '{\"slept\": true}'")]);
    let mut worker = Worker::start(
        &server.url,
        &[&tools.display().to_string()],
        &["--no-sandbox"],
    );
    let replies = concurrent(
        &server.url,
        &[(
            "nachos.tool.slow.request",
            envelope("drain-1", serde_json::json!({})),
            0.0,
        )],
        Some(worker.child.id()),
    );
    assert_eq!(
        replies[0]["reply"]["payload"]["success"], true,
        "{replies:?}"
    );
    assert_eq!(
        replies[0]["reply"]["payload"]["content"][0]["text"],
        r#"{"slept":true}"#
    );
    assert_eq!(
        worker.wait(Duration::from_secs(20)),
        0,
        "{}",
        worker.stderr()
    );
}

#[test]
fn nats_a_duplicate_envelope_id_runs_once_and_a_full_worker_says_busy() {
    let server = NatsServer::start();
    let dir = TempDir::new("nats-once");
    let log = dir.path().join("calls.log");
    let script = format!(
        "echo call >> '{}'; sleep 1; echo '{{\"done\": true}}'",
        log.display()
    );
    let tools = shell_tools(&dir, &[("append", &script)]);
    let worker = Worker::start(
        &server.url,
        &[&tools.display().to_string()],
        &["--no-sandbox", "--max-concurrency", "1"],
    );
    let same = envelope("dup-1", serde_json::json!({}));
    let replies = concurrent(
        &server.url,
        &[
            ("nachos.tool.append.request", same.clone(), 0.0),
            // The same id while the first runs: waits for its answer.
            ("nachos.tool.append.request", same.clone(), 0.3),
            // Another id while the one slot is taken: busy, at once.
            (
                "nachos.tool.append.request",
                envelope("other", serde_json::json!({})),
                0.4,
            ),
            // The same id, answered already: from the cache.
            ("nachos.tool.append.request", same, 2.0),
        ],
        None,
    );
    for reply in [&replies[0], &replies[1], &replies[3]] {
        assert_eq!(reply["reply"]["payload"]["success"], true, "{replies:#?}");
        assert_eq!(reply["reply"]["correlationId"], "dup-1");
    }
    assert_eq!(replies[0]["reply"]["id"], replies[3]["reply"]["id"]);
    let busy = &replies[2];
    assert_eq!(busy["reply"]["payload"]["error"]["code"], "BUSY", "{busy}");
    assert_eq!(
        busy["reply"]["payload"]["error"]["details"]["retryable"],
        true
    );
    assert_eq!(busy["headers"]["Nats-Service-Error-Code"], "503");
    let calls = std::fs::read_to_string(&log).unwrap();
    assert_eq!(calls.lines().count(), 1, "{calls}\n{}", worker.stderr());
}

#[test]
fn nats_oversized_replies_and_requests_are_refused_with_errors() {
    let server = NatsServer::with_config("max_payload: 4096\n");
    let dir = TempDir::new("nats-size");
    let tools = shell_tools(
        &dir,
        &[(
            "big",
            "printf '\"'; head -c 6000 /dev/zero | tr '\\0' a; printf '\"\\n'",
        )],
    );
    let _worker = Worker::start(
        &server.url,
        &[&tools.display().to_string()],
        &["--no-sandbox", "--max-request-size", "1KiB"],
    );
    let big_request = envelope("r-big", serde_json::json!({"pad": "x".repeat(2000)}));
    let replies = concurrent(
        &server.url,
        &[
            (
                "nachos.tool.big.request",
                envelope("r-1", serde_json::json!({})),
                0.0,
            ),
            ("nachos.tool.big.request", big_request, 0.0),
        ],
        None,
    );
    let too_large = &replies[0]["reply"]["payload"];
    assert_eq!(
        too_large["error"]["code"], "RESULT_TOO_LARGE",
        "{replies:#?}"
    );
    assert!(too_large["error"]["details"]["size"].as_u64().unwrap() > 6000);
    assert!(too_large["error"]["details"]["limit"].as_u64().unwrap() <= 4096);
    assert_eq!(replies[0]["headers"]["Nats-Service-Error-Code"], "413");
    let refused = &replies[1]["reply"]["payload"];
    assert_eq!(refused["error"]["code"], "VALIDATION_ERROR", "{replies:#?}");
    assert_eq!(refused["error"]["details"]["limit"], 1024);
}

#[test]
fn nats_a_tool_id_with_dots_is_mapped_and_reported() {
    let server = NatsServer::start();
    let dir = TempDir::new("nats-dots");
    // Dots are fine on NATS and in Nachos; OpenAI's name rule is not ours here.
    dir.write("toolc.toml", "[rules]\ninvalid-tool-name = \"off\"\n");
    let tools = shell_tools(&dir, &[("fs.read", "echo '\"read\"'")]);
    let worker = Worker::start(
        &server.url,
        &[&tools.display().to_string()],
        &["--no-sandbox"],
    );
    let stderr = worker.stderr();
    let line = stderr
        .lines()
        .find(|l| l.contains("\"fs.read\"") && l.contains("served as"))
        .unwrap_or_else(|| panic!("no mapping reported:\n{stderr}"));
    let subject = line
        .split('(')
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .unwrap()
        .to_string();
    assert!(subject.starts_with("nachos.tool.fs_read-"), "{subject}");
    let replies = gateway(
        &server.url,
        &[(subject.as_str(), envelope("d-1", serde_json::json!({})))],
    );
    assert_eq!(
        replies[0]["reply"]["payload"]["success"], true,
        "{replies:?}"
    );
    assert_eq!(replies[0]["reply"]["source"], "fs.read");
}

#[test]
fn nats_bad_credentials_and_an_unreachable_server_fail_clearly_with_exit_2() {
    let server =
        NatsServer::with_config("authorization {\n  user: alice\n  password: right-one\n}\n");
    let fixtures = fixtures().display().to_string();
    let started = Instant::now();
    let output = crate::Test::new()
        .args([
            "serve",
            &fixtures,
            "--nats",
            &server.url,
            "--nats-user",
            "alice",
            "--nats-password",
            "wrong-one",
        ])
        .run();
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert!(
        output.stderr.contains("refused the credentials"),
        "{}",
        output.stderr
    );
    assert!(!output.stderr.contains("wrong-one"), "{}", output.stderr);
    assert!(started.elapsed() < Duration::from_secs(10));

    // A port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let started = Instant::now();
    let output = crate::Test::new()
        .args([
            "serve",
            &fixtures,
            "--nats",
            &format!("nats://127.0.0.1:{port}"),
        ])
        .run();
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert!(
        output.stderr.contains("cannot connect to NATS"),
        "{}",
        output.stderr
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn nats_watch_is_refused_because_endpoints_are_fixed_at_start() {
    let fixtures = fixtures().display().to_string();
    let output = crate::Test::new()
        .args([
            "serve",
            &fixtures,
            "--nats",
            "nats://127.0.0.1:9",
            "--watch",
        ])
        .run();
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert!(
        output.stderr.contains("--watch") && output.stderr.contains("--nats"),
        "{}",
        output.stderr
    );
}

/// nats-py: subscribes to the audit subject, makes one call, prints the
/// record published for it.
const AUDITED: &str = r#"
import asyncio, json, sys
import nats
async def main():
    nc = await nats.connect(sys.argv[1])
    sub = await nc.subscribe("nachos.audit.log")
    await nc.flush()
    m = await nc.request("nachos.tool.echo.request", sys.argv[2].encode(), timeout=5)
    print(json.dumps(json.loads(m.data)))
    record = await sub.next_msg(timeout=5)
    print(json.dumps(json.loads(record.data)))
    await nc.close()
asyncio.run(main())
"#;

#[test]
fn nats_audit_publishes_the_record_the_audit_file_gets() {
    let server = NatsServer::start();
    let dir = TempDir::new("nats-audit");
    let file = dir.path().join("audit.jsonl");
    let fixtures = fixtures().display().to_string();
    let _worker = Worker::start(
        &server.url,
        &[&fixtures],
        &["--audit", &file.display().to_string(), "--nats-audit"],
    );
    let request = envelope("a-1", serde_json::json!({"text": "audited"}));
    let out = json_lines(&python(AUDITED, &[&server.url, &request]));
    assert_eq!(out[0]["payload"]["success"], true, "{out:?}");
    let published = &out[1];
    let written: serde_json::Value =
        serde_json::from_str(std::fs::read_to_string(&file).unwrap().trim()).unwrap();
    assert_eq!(published, &written);
    assert_eq!(published["tool"], "echo");
    assert_eq!(published["decision"], "allowed");
}

/// toolc on both ends: `toolc call --nats` reaches a tool of a `toolc
/// serve --nats` worker and prints its answer; `toolc lint --nats-url`
/// finds the workers' tools through `$SRV.INFO`, each once though two
/// workers of one queue group list it; one worker drained by SIGTERM
/// exits 0 and the other goes on answering.
#[test]
fn nats_toolc_calls_and_lints_the_tools_of_toolc_workers() {
    let server = NatsServer::start();
    let workspace = TempDir::new("nats-toolc-both-ends");
    workspace.write("note.txt", "a note from the workspace");
    let workspace_arg = workspace.path().display().to_string();
    let mut first = Worker::start(&server.url, &["builtin"], &["--workspace", &workspace_arg]);
    let _second = Worker::start(&server.url, &["builtin"], &["--workspace", &workspace_arg]);
    let output = Test::new()
        .args(["call", "--nats", &server.url, "read_file"])
        .args(["--args", r#"{"path": "note.txt"}"#])
        .run();
    assert_eq!(output.code, 0, "{}\n{}", output.stdout, output.stderr);
    let answer: serde_json::Value = serde_json::from_str(output.stdout.trim()).expect("JSON");
    assert_eq!(answer["success"], serde_json::json!(true), "{answer}");
    assert_eq!(
        answer["output"],
        serde_json::json!("a note from the workspace"),
        "{answer}"
    );
    // A tool no worker serves is told apart from a failure.
    let missing = Test::new()
        .args([
            "call",
            "--nats",
            &server.url,
            "no_such_tool",
            "--timeout",
            "2",
        ])
        .args(["--args", "{}"])
        .run();
    assert_eq!(missing.code, 3, "{}\n{}", missing.stdout, missing.stderr);
    assert!(
        missing.stderr.contains("no worker serves"),
        "{}",
        missing.stderr
    );
    // The fleet's definitions, as lint reads them: each built-in once,
    // though two workers list it.
    let saved = workspace.path().join("fleet.json");
    let saved_arg = saved.display().to_string();
    let linted = Test::new()
        .args(["lint", "--nats-url", &server.url, "--save", &saved_arg])
        .run();
    assert!(linted.code == 0 || linted.code == 1, "{}", linted.stderr);
    let document: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&saved).expect("the saved document"))
            .expect("JSON");
    let names: Vec<&str> = document["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    for builtin in ["list_files", "read_file", "write_file", "shell", "fetch"] {
        assert_eq!(
            names.iter().filter(|n| **n == builtin).count(),
            1,
            "{builtin} in {names:?}"
        );
    }
    // SIGTERM drains the first worker; the second still answers.
    first.signal(libc::SIGTERM);
    assert_eq!(first.wait(Duration::from_secs(20)), 0, "{}", first.stderr());
    let again = Test::new()
        .args(["call", "--nats", &server.url, "read_file"])
        .args(["--args", r#"{"path": "note.txt"}"#])
        .run();
    assert_eq!(again.code, 0, "{}\n{}", again.stdout, again.stderr);
}
