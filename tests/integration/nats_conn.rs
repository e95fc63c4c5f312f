//! `toolc serve --nats` and its connection: what the worker does when the
//! server goes into lame-duck mode, dies and comes back, or dies for good
//! in a cluster; what the grace period does to a call that outlives it;
//! and logging in with an NKey, a `.creds` file (an operator-mode
//! server), and TLS with a private CA, never showing a credential. Each
//! test runs against a real nats-server and is bounded in time.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::nats_harness::{
    Background, Worker, envelope, fixtures, json_lines, processes_with, python, python_command,
    shell_tools,
};
use crate::nats_server::NatsServer;
use crate::{Output, TempDir, Test};

/// nats-py: connects to the servers of argv[1] (comma-separated), sends
/// the requests of argv[2] (`[subject, body, timeout, gate]`) at once,
/// each once its gate file exists (then 0.5 s later), and prints each
/// answer (body and headers) or error, in order.
const REQUESTER: &str = r#"
import asyncio, json, os, sys
import nats
async def main():
    nc = await nats.connect(sys.argv[1].split(","), max_reconnect_attempts=-1)
    async def one(subject, body, timeout, gate):
        if gate:
            while not os.path.exists(gate):
                await asyncio.sleep(0.02)
            await asyncio.sleep(0.5)
        try:
            m = await nc.request(subject, body.encode(), timeout=timeout)
            return {"reply": json.loads(m.data), "headers": dict(m.headers or {})}
        except Exception as e:
            return {"error": type(e).__name__}
    tasks = [asyncio.create_task(one(*r)) for r in json.loads(sys.argv[2])]
    for r in await asyncio.gather(*tasks):
        print(json.dumps(r))
    await nc.close()
asyncio.run(main())
"#;

/// One request for [`requester`]: subject, body, timeout in seconds, and
/// the file whose existence lets it go (none: at once).
type Request<'a> = (&'a str, String, f64, Option<&'a Path>);

/// Starts [`REQUESTER`] on `urls`; its answers come from
/// `Background::finish`.
fn requester(urls: &str, requests: &[Request]) -> Background {
    let requests: Vec<Value> = requests
        .iter()
        .map(|(subject, body, timeout, gate)| json!([subject, body, timeout, gate]))
        .collect();
    let requests = Value::Array(requests).to_string();
    Background::spawn(python_command(REQUESTER, &[urls, &requests]), "nats-py")
}

/// Waits (at most `limit`) for `path` to exist.
fn wait_for_file(path: &Path, limit: Duration, worker: &Worker) {
    let started = Instant::now();
    while !path.exists() {
        assert!(
            started.elapsed() < limit,
            "{} did not appear in {limit:?}:\n{}",
            path.display(),
            worker.stderr()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `toolc call --nats URL ARGS echo` with `{"text": text}`, bounded.
fn call_echo(url: &str, args: &[&str], text: &str) -> Output {
    Test::new()
        .args(["call", "--nats", url])
        .args(args)
        .args(["echo", "--timeout", "3", "--args"])
        .args([json!({ "text": text }).to_string()])
        .run()
}

/// Calls `echo` until it answers (at most `limit`); the last answer.
fn call_until_answered(url: &str, limit: Duration, worker: &Worker) -> Output {
    let started = Instant::now();
    loop {
        let output = call_echo(url, &[], "again");
        if output.code == 0 {
            return output;
        }
        assert!(
            started.elapsed() < limit,
            "no answer in {limit:?}: {}\nworker:\n{}",
            output.stderr,
            worker.stderr()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The answer `toolc call` printed: a success echoing `text`.
fn assert_echoed(output: &Output, text: &str) {
    assert_eq!(output.code, 0, "{}\n{}", output.stdout, output.stderr);
    let answer: Value = serde_json::from_str(output.stdout.trim()).expect("JSON");
    assert_eq!(answer["success"], true, "{answer}");
    assert_eq!(answer["output"]["echo"]["text"], text, "{answer}");
}

/// A shell tool `slow` that creates `started` and then sleeps `seconds`.
fn slow_tool(dir: &TempDir, seconds: &str) -> (String, PathBuf) {
    let started = dir.path().join("started");
    let script = format!(
        "touch '{}'; sleep {seconds}; echo '{{\"slept\": true}}'",
        started.display()
    );
    let tools = shell_tools(dir, &[("slow", &script)]);
    (tools.display().to_string(), started)
}

/// A request to `slow` (it takes no arguments).
fn slow_request(id: &str) -> String {
    envelope(id, json!({}))
}

#[test]
fn nats_conn_lame_duck_mode_drains_the_worker_like_sigterm() {
    // Lame-duck mode tells the clients at once, and closes them only after
    // the grace period (its duration cannot be under 30 s).
    let server = NatsServer::with_config("lame_duck_duration: 30s\nlame_duck_grace_period: 10s\n");
    let dir = TempDir::new("nats-conn-ldm");
    let (tools, started) = slow_tool(&dir, "1");
    let mut worker = Worker::start(&server.url, &[&tools], &["--no-sandbox"]);
    let draining = dir.path().join("draining");
    let client = requester(
        &server.url,
        &[
            (
                "nachos.tool.slow.request",
                slow_request("ldm-1"),
                15.0,
                None,
            ),
            // Once the worker drains: nobody takes it any more.
            (
                "nachos.tool.slow.request",
                slow_request("ldm-2"),
                5.0,
                Some(&draining),
            ),
        ],
    );
    wait_for_file(&started, Duration::from_secs(15), &worker);
    server.lame_duck();
    worker.wait_for_log("lame duck", Duration::from_secs(5));
    std::fs::write(&draining, "").unwrap();
    let answers = json_lines(&client.finish(Duration::from_secs(30)));
    // The call in flight finished and its answer came back.
    let first = &answers[0]["reply"]["payload"];
    assert_eq!(first["success"], true, "{answers:?}\n{}", worker.stderr());
    assert_eq!(first["content"][0]["text"], r#"{"slept":true}"#);
    assert_eq!(answers[1]["error"], "NoRespondersError", "{answers:?}");
    assert_eq!(
        worker.wait(Duration::from_secs(10)),
        0,
        "{}",
        worker.stderr()
    );
}

#[test]
fn nats_conn_a_worker_serves_again_once_its_server_comes_back() {
    let mut server = NatsServer::start();
    let fixtures = fixtures().display().to_string();
    let mut worker = Worker::start(&server.url, &[&fixtures], &[]);
    assert_echoed(&call_echo(&server.url, &[], "before"), "before");
    server.kill();
    std::thread::sleep(Duration::from_millis(500));
    assert!(worker.running(), "{}", worker.stderr());
    server.restart();
    let output = call_until_answered(&server.url, Duration::from_secs(20), &worker);
    assert_echoed(&output, "again");
    assert!(worker.running(), "{}", worker.stderr());
    assert!(
        worker.stderr().contains("NATS: disconnected"),
        "{}",
        worker.stderr()
    );
}

#[test]
fn nats_conn_a_worker_given_a_cluster_moves_to_another_node_when_its_node_dies() {
    let mut nodes = NatsServer::cluster(2);
    let urls = format!("{},{}", nodes[0].url, nodes[1].url);
    let fixtures = fixtures().display().to_string();
    let mut worker = Worker::start(&urls, &[&fixtures], &[]);
    let started = Instant::now();
    let on = loop {
        if let Some(n) = (0..2).find(|&n| nodes[n].connections_named("toolc") == 1) {
            break n;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the worker is on no node"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let other = 1 - on;
    assert_echoed(&call_echo(&nodes[other].url, &[], "before"), "before");
    nodes[on].kill();
    let output = call_until_answered(&nodes[other].url, Duration::from_secs(20), &worker);
    assert_echoed(&output, "again");
    assert_eq!(nodes[other].connections_named("toolc"), 1);
    assert!(worker.running(), "{}", worker.stderr());
}

#[test]
fn nats_conn_a_call_in_flight_when_the_connection_drops_is_answered_after() {
    // The worker is on node 1, which routes to node 0 at its start: once
    // node 1 is back, so is its route, and the requester on node 0 (never
    // disconnected) can receive the answer.
    let mut nodes = NatsServer::cluster(2);
    let dir = TempDir::new("nats-conn-in-flight");
    let (tools, started) = slow_tool(&dir, "2");
    let worker = Worker::start(&nodes[1].url, &[&tools], &["--no-sandbox"]);
    let client = requester(
        &nodes[0].url,
        &[(
            "nachos.tool.slow.request",
            slow_request("drop-1"),
            20.0,
            None,
        )],
    );
    wait_for_file(&started, Duration::from_secs(15), &worker);
    nodes[1].kill();
    nodes[1].restart();
    let answers = json_lines(&client.finish(Duration::from_secs(30)));
    let answer = &answers[0]["reply"]["payload"];
    assert_eq!(answer["success"], true, "{answers:?}\n{}", worker.stderr());
    assert_eq!(answer["content"][0]["text"], r#"{"slept":true}"#);
    assert!(
        worker.stderr().contains("NATS: disconnected"),
        "{}",
        worker.stderr()
    );
}

#[test]
fn nats_conn_a_call_past_the_grace_period_is_cancelled_and_answered_so() {
    let server = NatsServer::start();
    let dir = TempDir::new("nats-conn-grace");
    // `sleep 30.<digits>`: thirty seconds, and a command line no other
    // test has.
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    let marker = format!("30.{}{nanos:09}", std::process::id());
    let (tools, started) = slow_tool(&dir, &marker);
    let mut worker = Worker::start(
        &server.url,
        &[&tools],
        &["--no-sandbox", "--nats-grace", "1"],
    );
    let client = requester(
        &server.url,
        &[(
            "nachos.tool.slow.request",
            slow_request("grace-1"),
            20.0,
            None,
        )],
    );
    wait_for_file(&started, Duration::from_secs(15), &worker);
    assert!(
        !processes_with(&marker).is_empty(),
        "the tool is not running"
    );
    let signalled = Instant::now();
    worker.signal(libc::SIGTERM);
    assert_eq!(
        worker.wait(Duration::from_secs(10)),
        0,
        "{}",
        worker.stderr()
    );
    let took = signalled.elapsed();
    assert!(
        took >= Duration::from_secs(1) && took < Duration::from_secs(5),
        "{took:?}\n{}",
        worker.stderr()
    );
    let answers = json_lines(&client.finish(Duration::from_secs(15)));
    let error = &answers[0]["reply"]["payload"]["error"];
    assert_eq!(
        error["code"],
        "SHUTTING_DOWN",
        "{answers:?}\n{}",
        worker.stderr()
    );
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("cancelled: the worker is shutting down and its grace period (1 s)"),
        "{error}"
    );
    assert_eq!(error["details"]["retryable"], true, "{error}");
    assert_eq!(answers[0]["headers"]["Nats-Service-Error-Code"], "503");
    assert_eq!(processes_with(&marker), Vec::<(u32, String)>::new());
}

/// Asserts that none of `secrets` shows in any of `texts`.
fn assert_never_shown(texts: &[&str], secrets: &[&str]) {
    for text in texts {
        for secret in secrets {
            assert!(!text.contains(secret), "a credential is shown:\n{text}");
        }
    }
}

/// `toolc serve --nats URL` with `args` that must fail to connect: exit
/// 2, with a message holding `why`, in bounded time; its output.
/// (`why`: what toolc says after "cannot connect to NATS at URL: ", or
/// of a credentials file it cannot use.)
fn serve_refused(url: &str, args: &[&str], why: &str) -> Output {
    let fixtures = fixtures().display().to_string();
    let started = Instant::now();
    let output = Test::new()
        .args([
            "serve",
            &fixtures,
            "--nats",
            url,
            "--nats-connect-timeout",
            "3",
        ])
        .args(args)
        .run();
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert!(output.stderr.contains(why), "{}", output.stderr);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    output
}

#[test]
fn nats_conn_an_nkey_user_serves_and_calls_and_a_wrong_seed_is_refused() {
    let user = nkeys::KeyPair::new_user();
    let server = NatsServer::with_config(&format!(
        "authorization {{\n  users: [ {{ nkey: {} }} ]\n}}\n",
        user.public_key()
    ));
    let dir = TempDir::new("nats-conn-nkey");
    let seed = user.seed().unwrap();
    let seed_file = dir
        .write("user.nk", format!("{seed}\n"))
        .display()
        .to_string();
    let fixtures = fixtures().display().to_string();
    let worker = Worker::start(&server.url, &[&fixtures], &["--nats-nkey", &seed_file]);
    let called = call_echo(&server.url, &["--nats-nkey", &seed_file], "signed");
    assert_echoed(&called, "signed");
    // Another user's seed: the server does not know it.
    let stranger = nkeys::KeyPair::new_user().seed().unwrap();
    let stranger_file = dir.write("stranger.nk", &stranger).display().to_string();
    let refused = serve_refused(
        &server.url,
        &["--nats-nkey", &stranger_file],
        "refused the credentials",
    );
    // A file that holds no seed.
    let garbage = "SUNOTASEEDATALLBUTSECRETANYWAY";
    let garbage_file = dir.write("garbage.nk", garbage).display().to_string();
    let unusable = serve_refused(
        &server.url,
        &["--nats-nkey", &garbage_file],
        "garbage.nk: it holds no NKey seed",
    );
    assert_never_shown(
        &[
            &worker.stderr(),
            &called.stdout,
            &called.stderr,
            &refused.stderr,
            &unusable.stderr,
        ],
        &[&seed, &stranger, garbage],
    );
}

/// `input` in unpadded base64url, as JWTs write it.
fn base64url(input: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in input.chunks(3) {
        let bytes = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(bytes[0]) << 16) | (u32::from(bytes[1]) << 8) | u32::from(bytes[2]);
        for i in 0..=chunk.len() {
            out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

/// A NATS JWT: `nats` claims about `subject`, signed by `issuer`.
fn nats_jwt(issuer: &nkeys::KeyPair, subject: &str, name: &str, nats: Value) -> String {
    let header = json!({"typ": "JWT", "alg": "ed25519-nkey"});
    let issued = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let claims = json!({
        "jti": format!("TOOLC{issued}{}", subject.len()),
        "iat": issued,
        "iss": issuer.public_key(),
        "name": name,
        "sub": subject,
        "nats": nats,
    });
    let signed = format!(
        "{}.{}",
        base64url(header.to_string().as_bytes()),
        base64url(claims.to_string().as_bytes())
    );
    let signature = issuer.sign(signed.as_bytes()).unwrap();
    format!("{signed}.{}", base64url(&signature))
}

/// A `.creds` file's text: `user`'s JWT, issued by `account`, and its seed.
fn creds(account: &nkeys::KeyPair, user: &nkeys::KeyPair) -> String {
    let jwt = nats_jwt(
        account,
        &user.public_key(),
        "toolc-user",
        json!({"type": "user", "version": 2, "pub": {}, "sub": {}, "subs": -1, "data": -1, "payload": -1}),
    );
    format!(
        "-----BEGIN NATS USER JWT-----\n{jwt}\n------END NATS USER JWT------\n\n\
         -----BEGIN USER NKEY SEED-----\n{}\n------END USER NKEY SEED------\n",
        user.seed().unwrap()
    )
}

#[test]
fn nats_conn_a_creds_file_logs_in_to_an_operator_mode_server() {
    let operator = nkeys::KeyPair::new_operator();
    let account = nkeys::KeyPair::new_account();
    let user = nkeys::KeyPair::new_user();
    let operator_jwt = nats_jwt(
        &operator,
        &operator.public_key(),
        "toolc-operator",
        json!({"type": "operator", "version": 2}),
    );
    let unlimited = json!({"subs": -1, "data": -1, "payload": -1, "imports": -1, "exports": -1,
        "wildcards": true, "conn": -1, "leaf": -1});
    let account_jwt = nats_jwt(
        &operator,
        &account.public_key(),
        "toolc-account",
        json!({"type": "account", "version": 2, "limits": unlimited}),
    );
    let server = NatsServer::with_config(&format!(
        "operator: {operator_jwt}\nresolver: MEMORY\nresolver_preload: {{\n  {}: {account_jwt}\n}}\n",
        account.public_key()
    ));
    let dir = TempDir::new("nats-conn-creds");
    let creds_file = dir
        .write("user.creds", creds(&account, &user))
        .display()
        .to_string();
    let fixtures = fixtures().display().to_string();
    let worker = Worker::start(&server.url, &[&fixtures], &["--nats-creds", &creds_file]);
    let called = call_echo(&server.url, &["--nats-creds", &creds_file], "operated");
    assert_echoed(&called, "operated");
    // A user of an account the operator never signed.
    let stranger = nkeys::KeyPair::new_user();
    let stray = creds(&nkeys::KeyPair::new_account(), &stranger);
    let stray_file = dir.write("stray.creds", stray).display().to_string();
    let refused = serve_refused(
        &server.url,
        &["--nats-creds", &stray_file],
        "refused the credentials",
    );
    assert_never_shown(
        &[
            &worker.stderr(),
            &called.stdout,
            &called.stderr,
            &refused.stderr,
        ],
        &[&user.seed().unwrap(), &stranger.seed().unwrap()],
    );
}

/// Python `cryptography`: writes to argv[1] a CA (`ca.pem`), a server
/// certificate for 127.0.0.1 it signed (`server.pem`, `server-key.pem`),
/// and another CA (`other-ca.pem`).
const CERTIFICATES: &str = r#"
import datetime, ipaddress, pathlib, sys
from cryptography import x509
from cryptography.x509.oid import NameOID, ExtendedKeyUsageOID
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
out = pathlib.Path(sys.argv[1])
now = datetime.datetime.now(datetime.timezone.utc)
def name(cn):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])
def builder(subject, issuer, key):
    return (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1)))
def authority(cn, file):
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (builder(name(cn), name(cn), key)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False,
            key_encipherment=False, data_encipherment=False, key_agreement=False,
            key_cert_sign=True, crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
        .sign(key, hashes.SHA256()))
    (out / file).write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return key, cert
ca_key, ca = authority("toolc test CA", "ca.pem")
authority("another CA", "other-ca.pem")
key = ec.generate_private_key(ec.SECP256R1())
cert = (builder(name("127.0.0.1"), ca.subject, key)
    .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
    .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
    .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
    .sign(ca_key, hashes.SHA256()))
(out / "server.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
(out / "server-key.pem").write_bytes(key.private_bytes(serialization.Encoding.PEM,
    serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
"#;

#[test]
fn nats_conn_tls_with_a_private_ca_serves_and_calls_and_fails_without_it() {
    let dir = TempDir::new("nats-conn-tls");
    python(CERTIFICATES, &[&dir.path().display().to_string()]);
    let file = |name: &str| dir.path().join(name).display().to_string();
    let server = NatsServer::with_config(&format!(
        "tls {{\n  cert_file: \"{}\"\n  key_file: \"{}\"\n  timeout: 2\n}}\n",
        file("server.pem"),
        file("server-key.pem")
    ));
    let url = format!("tls://127.0.0.1:{}", server.port());
    let ca = file("ca.pem");
    let fixtures = fixtures().display().to_string();
    let _worker = Worker::start(&url, &[&fixtures], &["--nats-tls-ca", &ca]);
    assert_echoed(
        &call_echo(&url, &["--nats-tls-ca", &ca], "private"),
        "private",
    );
    // The system's authorities, or another one: not trusted.
    let untrusted = "the server's certificate is not trusted";
    serve_refused(&url, &[], untrusted);
    serve_refused(&url, &["--nats-tls-ca", &file("other-ca.pem")], untrusted);
    // A nats:// URL to a server that requires TLS: the same.
    let plain = format!("nats://127.0.0.1:{}", server.port());
    serve_refused(&plain, &[], untrusted);
    let called = call_echo(&url, &["--nats-tls-ca", &file("other-ca.pem")], "x");
    assert_eq!(called.code, 2, "{}", called.stderr);
    assert!(called.stderr.contains(untrusted), "{}", called.stderr);
}

#[test]
fn nats_conn_passwords_and_tokens_are_never_shown() {
    let token = "t0ken-only-the-server-knows";
    let server = NatsServer::with_config(&format!("authorization {{\n  token: \"{token}\"\n}}\n"));
    let fixtures = fixtures().display().to_string();
    let in_url = format!("nats://{token}@127.0.0.1:{}", server.port());
    let worker = Worker::start(&in_url, &[&fixtures], &[]);
    let called = call_echo(&server.url, &["--nats-token", token], "tokened");
    assert_echoed(&called, "tokened");
    let wrong = "wr0ng-token-value";
    let refused = serve_refused(
        &server.url,
        &["--nats-token", wrong],
        "refused the credentials",
    );
    let wrong_in_url = format!("nats://{wrong}@127.0.0.1:{}", server.port());
    let refused_url = serve_refused(&wrong_in_url, &[], "refused the credentials");
    assert_never_shown(
        &[
            &worker.stderr(),
            &called.stdout,
            &called.stderr,
            &refused.stderr,
            &refused_url.stderr,
        ],
        &[token, wrong],
    );

    let password = "pa55word-only-alice-knows";
    let server = NatsServer::with_config(&format!(
        "authorization {{\n  user: alice\n  password: \"{password}\"\n}}\n"
    ));
    let in_url = format!("nats://alice:{password}@127.0.0.1:{}", server.port());
    let worker = Worker::start(&in_url, &[&fixtures], &[]);
    let flags = ["--nats-user", "alice", "--nats-password", password];
    let called = call_echo(&server.url, &flags, "passworded");
    assert_echoed(&called, "passworded");
    let wrong_in_url = format!("nats://alice:{wrong}@127.0.0.1:{}", server.port());
    let refused = serve_refused(&wrong_in_url, &[], "refused the credentials");
    assert_never_shown(
        &[
            &worker.stderr(),
            &called.stdout,
            &called.stderr,
            &refused.stderr,
        ],
        &[password, wrong],
    );
}
