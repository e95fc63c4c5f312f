//! Live MCP servers as input (`--mcp-stdio`, `--mcp-url`): two servers
//! toolc did not write, run from their packages (mcp-server-time from PyPI
//! in the test venv, @modelcontextprotocol/server-everything from npm in
//! target/test-node, which scripts/test installs), a server made with the
//! official Python SDK over Streamable HTTP on loopback, and a hand-written
//! JSON-RPC server (fixtures/live/fake_server.py) that misbehaves on demand,
//! and another (fixtures/live/raw_server.py) whose tools carry members no
//! SDK models.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::sdk::python;
use super::{Output, TempDir, Test, root};

/// `path` quoted for `--mcp-stdio`, which splits words as a shell does.
pub(crate) fn quoted(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}

/// mcp-server-time from the test venv, its local zone pinned.
fn time_server() -> String {
    format!(
        "{} -m mcp_server_time --local-timezone UTC",
        quoted(&python())
    )
}

/// server-everything's dist/index.js: `TOOLC_TEST_EVERYTHING`; else the
/// test fails.
fn everything_server() -> String {
    let path = std::env::var_os("TOOLC_TEST_EVERYTHING")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            panic!(
                "TOOLC_TEST_EVERYTHING is not set: run the tests with scripts/test, which installs \
                 @modelcontextprotocol/server-everything into target/test-node"
            )
        });
    assert!(
        path.is_file(),
        "TOOLC_TEST_EVERYTHING={} is not a file",
        path.display()
    );
    format!("node {} stdio", quoted(&path))
}

/// The hand-written server in `mode` (see fixtures/live/fake_server.py).
pub(crate) fn fake(mode: &str) -> String {
    let script = root().join("fixtures/live/fake_server.py");
    format!("{} {} {mode}", quoted(&python()), quoted(&script))
}

pub(crate) fn lint(args: &[&str]) -> Output {
    Test::new().args(["lint"]).args(args).run()
}

/// The findings of `server` under `target`, one per line; the same on a
/// second run.
fn findings(server: &str, target: &str) -> String {
    let run = || {
        let output = lint(&[
            "--mcp-stdio",
            server,
            "--target",
            target,
            "--format",
            "concise",
        ]);
        assert!(output.code <= 1, "{}", output.stderr);
        output.stdout
    };
    let first = run();
    assert_eq!(first, run(), "the findings change between runs");
    first
}

#[test]
fn mcp_server_time_findings_per_target() {
    let server = time_server();
    let strict = findings(&server, "openai-strict");
    assert!(strict.contains("mcp://mcp-time:"), "{strict}");
    insta::assert_snapshot!("live_time_openai_strict", strict);
    insta::assert_snapshot!("live_time_gemini", findings(&server, "gemini"));
    // The findings have fixes, but --fix refuses a live server's document:
    // the summary offers none.
    let human = lint(&["--mcp-stdio", &server, "--target", "openai-strict"]);
    assert!(human.stdout.contains("Found 2 errors"), "{}", human.stdout);
    assert!(!human.stdout.contains("--fix"), "{}", human.stdout);
}

#[test]
fn server_everything_findings_per_target() {
    let server = everything_server();
    let strict = findings(&server, "openai-strict");
    assert!(strict.contains("mcp://mcp-servers/everything:"), "{strict}");
    insta::assert_snapshot!("live_everything_openai_strict", strict);
    insta::assert_snapshot!("live_everything_gemini", findings(&server, "gemini"));
}

/// `gen rust` from both servers at once: one module, which compiles
/// without warnings and is formatted.
#[test]
fn gen_rust_of_the_third_party_tools_compiles() {
    let output = Test::new()
        .args(["gen", "rust", "--mcp-stdio", &time_server()])
        .args(["--mcp-stdio", &everything_server()])
        .run();
    assert_eq!(output.code, 0, "{}", output.stderr);
    for tool in ["pub struct GetCurrentTimeTool;", "pub struct EchoTool;"] {
        assert!(output.stdout.contains(tool), "{tool} missing");
    }
    super::gen_rust::check_crate_as(
        "live",
        "toolc_gen_rust_live",
        &super::gen_rust::gen_rust_files(
            &[
                "gen",
                "rust",
                "--mcp-stdio",
                &time_server(),
                "--mcp-stdio",
                &everything_server(),
            ],
            "lib.rs",
        ),
        None,
    );
}

/// The text at a report's line and column (both from 1) of `text`.
fn at(text: &str, line: u64, column: u64) -> &str {
    let line = text
        .lines()
        .nth(usize::try_from(line - 1).unwrap())
        .expect("the line is in the text");
    let start = line
        .char_indices()
        .nth(usize::try_from(column - 1).unwrap())
        .expect("the column is in the line")
        .0;
    &line[start..]
}

/// `--save` writes the document the findings point into, with every page
/// of the listing; the reports name that file (without `--save`,
/// mcp://<name>).
#[test]
fn saved_document_is_the_one_the_findings_point_into() {
    let dir = TempDir::new("live-save");
    let saved = dir.path().join("fetched.json");
    let saved_arg = saved.to_string_lossy().into_owned();
    let output = lint(&[
        "--mcp-stdio",
        &fake("good"),
        "--save",
        &saved_arg,
        "--format",
        "json",
    ]);
    assert_eq!(output.code, 0, "{}", output.stderr);
    let text = std::fs::read_to_string(&saved).expect("--save wrote the document");
    let document: serde_json::Value = serde_json::from_str(&text).unwrap();
    let names: Vec<&str> = document["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["add", "shout"], "both pages");
    assert_eq!(text, format!("{:#}\n", document), "pretty JSON");

    let report = output.json();
    assert_eq!(report["files"][0]["path"], saved_arg.as_str());
    let diagnostics = report["diagnostics"].as_array().unwrap();
    assert!(diagnostics.len() >= 3, "{diagnostics:?}");
    for d in diagnostics {
        assert_eq!(d["path"], saved_arg.as_str());
        // A missing description points at the property's key.
        let property = d["pointer"].as_str().unwrap().split('/').nth_back(1);
        let shown = at(
            &text,
            d["line"].as_u64().unwrap(),
            d["column"].as_u64().unwrap(),
        );
        assert!(
            shown.starts_with(&format!("\"{}\"", property.unwrap())),
            "{d}: {shown}"
        );
    }

    let sarif = lint(&["--mcp-stdio", &fake("good"), "--format", "sarif"]).json();
    let result = &sarif["runs"][0]["results"][0];
    let location = &result["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], "mcp://fake-good");
    assert_eq!(location["region"]["startLine"], diagnostics[0]["line"]);
    assert_eq!(location["region"]["startColumn"], diagnostics[0]["column"]);
}

/// With `--save` into the repository, SARIF results and GitHub
/// annotations attach to the saved file, at the lines and columns of
/// its text; the human report shows that file too.
#[test]
fn saved_findings_attach_to_the_saved_file() {
    let dir = TempDir::new("live-save-annotations");
    dir.write("tools/.keep", "");
    let run = |format: &str| {
        let output = Test::new()
            .current_dir(dir.path())
            .args(["lint", "--mcp-stdio", &fake("good"), "--save"])
            .args(["tools/live.json", "--format", format])
            .run();
        assert_eq!(output.code, 0, "{}", output.stderr);
        output
    };
    let sarif = run("sarif").json();
    let text = std::fs::read_to_string(dir.path().join("tools/live.json"))
        .expect("--save wrote the document");
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert!(results.len() >= 3, "{sarif}");
    for result in results {
        let location = &result["locations"][0]["physicalLocation"];
        assert_eq!(location["artifactLocation"]["uri"], "tools/live.json");
        let region = &location["region"];
        let shown = at(
            &text,
            region["startLine"].as_u64().unwrap(),
            region["startColumn"].as_u64().unwrap(),
        );
        assert!(shown.starts_with('"'), "{result}: {shown}");
    }
    let github = run("github").stdout;
    let lines: Vec<&str> = github.lines().collect();
    assert_eq!(lines.len(), results.len(), "{github}");
    for (line, result) in lines.iter().zip(results) {
        let region = &result["locations"][0]["physicalLocation"]["region"];
        let expected = format!(
            "file=tools/live.json,line={},col={}",
            region["startLine"], region["startColumn"]
        );
        assert!(line.contains(&expected), "{line}: {expected}");
    }
    let human = run("human").stdout;
    assert!(human.contains("╭─[tools/live.json:9:11]"), "{human}");
    assert!(!human.contains("mcp://"), "{human}");
}

/// Human output names the document and shows its lines.
#[test]
fn human_output_names_the_server() {
    let output = lint(&["--mcp-stdio", &fake("good")]);
    assert_eq!(output.code, 0, "{}", output.stderr);
    assert!(
        output.stdout.contains("╭─[mcp://fake-good:9:11]"),
        "{}",
        output.stdout
    );
    assert!(output.stdout.contains(r#""a": {"#), "{}", output.stdout);
}

/// A live server's document takes the toolc.toml of the current
/// directory: its targets and rule levels.
#[test]
fn the_current_directorys_configuration_applies() {
    let dir = TempDir::new("live-config");
    dir.write(
        "toolc.toml",
        "targets = [\"openai-strict\"]\n[rules]\n\"property-missing-description\" = \"off\"\n",
    );
    let output = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--mcp-stdio", &fake("good"), "--format", "json"])
        .run();
    assert_eq!(output.code, 1, "{}", output.stderr);
    let rules: Vec<String> = output.json()["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap().to_string())
        .collect();
    assert!(
        rules.contains(&"strict-additional-properties".to_string()),
        "{rules:?}"
    );
    assert!(
        !rules.contains(&"property-missing-description".to_string()),
        "{rules:?}"
    );
}

/// A server that shares another's name gets `-2`; with several servers
/// `--save` is a directory; live servers and files go together.
#[test]
fn several_servers_and_files_together() {
    let dir = TempDir::new("live-several");
    let saved = dir.path().join("saved");
    let manifest = root().join("fixtures/convert/mcp/mcp.json");
    let output = lint(&[
        "--mcp-stdio",
        &fake("good"),
        "--mcp-stdio",
        &fake("good"),
        &manifest.to_string_lossy(),
        "--save",
        &saved.to_string_lossy(),
        "--format",
        "json",
    ]);
    assert!(output.code <= 1, "{}", output.stderr);
    let paths: Vec<String> = output.json()["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect();
    // Saved, each server's document is named by its file.
    for file in ["fake-good.json", "fake-good-2.json"] {
        let shown = saved.join(file).to_string_lossy().into_owned();
        assert!(paths.contains(&shown), "{paths:?}");
    }
    assert_eq!(paths.len(), 3, "{paths:?}");
    let mut files: Vec<String> = std::fs::read_dir(&saved)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files, ["fake-good-2.json", "fake-good.json"]);
}

/// gen rust names the tools of a second server with the same tools apart,
/// reading its document again from memory.
#[test]
fn gen_rust_names_two_servers_tools_apart() {
    let two = ["--mcp-stdio", &fake("good"), "--mcp-stdio", &fake("good")];
    let refused = Test::new().args(["gen", "rust"]).args(two).run();
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(
        refused
            .stderr
            .contains(r#"tool "add" is declared in both mcp://fake-good and mcp://fake-good-2"#),
        "{}",
        refused.stderr
    );
    let output = Test::new()
        .args(["gen", "rust", "--allow-errors"])
        .args(two)
        .run();
    assert_eq!(output.code, 0, "{}", output.stderr);
    assert!(output.stdout.contains("pub struct AddTool;"));
    assert!(output.stdout.contains("pub struct AddTool2;"));
}

/// A legacy server answers `server/discover` with an error: the fallback
/// to `initialize` is immediate, not rmcp's 10 s wait for an answer.
#[test]
fn a_legacy_server_costs_no_discover_timeout() {
    let started = Instant::now();
    let output = lint(&["--mcp-stdio", &fake("good"), "--format", "concise"]);
    assert_eq!(output.code, 0, "{}", output.stderr);
    let took = started.elapsed();
    assert!(took < Duration::from_secs(5), "took {took:?}");
}

/// Runs toolc with `args` and expects a failure of the run naming the
/// server: exit 2, `needles` on standard error, nothing on standard output.
pub(crate) fn expect_failure(args: &[&str], needles: &[&str]) -> Output {
    let output = Test::new().args(args).run();
    assert_eq!(output.code, 2, "{}\n{}", output.stdout, output.stderr);
    for needle in needles {
        assert!(
            output.stderr.contains(needle),
            "{needle}:\n{}",
            output.stderr
        );
    }
    assert!(output.stdout.is_empty(), "{}", output.stdout);
    output
}

/// The hand-written server of fixtures/live/raw_server.py, with `args`.
fn raw(args: &str) -> String {
    let script = root().join("fixtures/live/raw_server.py");
    format!("{} {} {args}", quoted(&python()), quoted(&script))
}

/// The document holds the tools as the server wrote them: members no SDK
/// models (`execution`, a vendor's key, an annotation key of its own), in
/// the server's order, over both pages; findings point at them.
#[test]
fn the_document_keeps_what_the_server_wrote() {
    let dir = TempDir::new("live-raw");
    let saved = dir.path().join("raw.json");
    let output = lint(&[
        "--mcp-stdio",
        &raw(""),
        "--target",
        "mcp",
        "--save",
        &saved.to_string_lossy(),
        "--format",
        "json",
    ]);
    assert_eq!(output.code, 0, "{}", output.stderr);
    let text = std::fs::read_to_string(&saved).expect("--save wrote the document");
    let document: serde_json::Value = serde_json::from_str(&text).unwrap();
    let keys = |value: &serde_json::Value| -> Vec<String> {
        value.as_object().unwrap().keys().cloned().collect()
    };
    let tools = document["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 2, "{text}");
    assert_eq!(
        keys(&tools[0]),
        [
            "x-vendor",
            "name",
            "execution",
            "inputSchema",
            "annotations",
            "description"
        ]
    );
    assert_eq!(
        tools[0]["x-vendor"],
        serde_json::json!({"team": "infra", "tier": 2})
    );
    assert_eq!(tools[0]["execution"]["taskSupport"], "optional");
    assert_eq!(
        keys(&tools[0]["annotations"]),
        ["x-audience", "readOnlyHint", "destructiveHint", "title"]
    );
    assert_eq!(tools[0]["annotations"]["x-audience"], "operators");
    assert_eq!(
        keys(&tools[1]),
        ["description", "name", "inputSchema", "execution"]
    );
    assert_eq!(tools[1]["execution"]["taskSupport"], "forbidden");

    // The vendor's key is unknown to the mcp format, and the annotations
    // contradict each other: both findings point at the member.
    let report = output.json();
    let diagnostics = report["diagnostics"].as_array().unwrap();
    for (rule, pointer, key) in [
        ("unknown-field", "/tools/0/x-vendor", "\"x-vendor\""),
        (
            "mcp-annotation-conflict",
            "/tools/0/annotations/destructiveHint",
            "\"destructiveHint\"",
        ),
    ] {
        let found = diagnostics
            .iter()
            .find(|d| d["rule"] == rule)
            .unwrap_or_else(|| panic!("no {rule}: {diagnostics:?}"));
        assert_eq!(found["pointer"], pointer, "{found}");
        let shown = at(
            &text,
            found["line"].as_u64().unwrap(),
            found["column"].as_u64().unwrap(),
        );
        assert!(shown.starts_with(key), "{found}: {shown}");
    }
}

/// A server that logs a line to its standard output before it speaks the
/// protocol: malformed data, with the start of the line, bounded.
#[test]
fn a_banner_on_standard_output_is_malformed_data() {
    let server = raw("banner");
    let output = expect_failure(
        &["gen", "mcp", "--mcp-stdio", &server],
        &[
            &format!(
                "the MCP server `{server}` (--mcp-stdio) wrote malformed data on its standard \
                 output: a line that is not JSON (expected value at line 1 column 1): \
                 \"raw-server 1.0 listening on stdio; log log"
            ),
            "\" (cut); over stdio a server may write only JSON-RPC messages there (its logs \
             belong on standard error)",
        ],
    );
    assert!(
        output.stderr.len() < server.len() + 500,
        "{}",
        output.stderr
    );
}

#[test]
fn endless_pagination_is_bounded() {
    expect_failure(
        &["lint", "--mcp-stdio", &fake("same-cursor")],
        &["gave the pagination cursor \"again\" twice"],
    );
    expect_failure(
        &["lint", "--mcp-stdio", &fake("endless")],
        &["gave more than 1000 pages of tools/list"],
    );
    // A thousand pages of 2 MB would be 2 GB held: the listing stops at
    // 64 MB, quickly.
    let started = Instant::now();
    expect_failure(
        &["lint", "--mcp-stdio", &fake("bulky"), "--mcp-timeout", "30"],
        &["listed more than 64 MB of tools: stopped reading"],
    );
    let took = started.elapsed();
    assert!(took < Duration::from_secs(25), "took {took:?}");
}

/// The server of fixtures/live/http_server.py, killed when dropped.
pub(crate) struct HttpServer {
    child: Child,
    pub(crate) url: String,
}

impl HttpServer {
    pub(crate) fn start() -> HttpServer {
        let mut child = Command::new(python())
            .arg(root().join("fixtures/live/http_server.py"))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the HTTP MCP server");
        let stdout = child.stdout.take().expect("stdout");
        let mut line = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line)
            .expect("read the port");
        let port = line
            .trim()
            .strip_prefix("PORT ")
            .unwrap_or_else(|| panic!("the server said {line:?}, not its port"));
        HttpServer {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_server_over_streamable_http() {
    let server = HttpServer::start();
    let output = lint(&["--mcp-url", &server.url, "--format", "json"]);
    assert_eq!(output.code, 0, "{}", output.stderr);
    let report = output.json();
    assert_eq!(report["files"][0]["path"], "mcp://http-clock");
    assert_eq!(report["files"][0]["tools"], 2);
    let messages: Vec<&str> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    assert!(
        messages.contains(&"property \"zone\" has no description"),
        "{messages:?}"
    );
}

#[test]
fn a_url_nothing_listens_on() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    drop(listener);
    expect_failure(
        &["lint", "--mcp-url", &url],
        &[
            &format!("the MCP server {url} (--mcp-url) did not complete the MCP handshake"),
            &format!("error sending request for url ({url})"),
        ],
    );
    expect_failure(
        &["lint", "--mcp-url", "127.0.0.1:8000/mcp"],
        &["--mcp-url \"127.0.0.1:8000/mcp\" is not an http:// or https:// URL"],
    );
}

/// convert from a live server writes the target's layout.
#[test]
fn convert_a_live_server_to_agentcli_and_nora() {
    let dir = TempDir::new("live-convert");
    let agentcli = dir.path().join("agentcli");
    let output = Test::new()
        .args(["convert", "--mcp-stdio", &fake("good"), "--to", "agentcli"])
        .args(["-o", &agentcli.to_string_lossy()])
        .run();
    assert_eq!(output.code, 0, "{}", output.stderr);
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(agentcli.join("tools.json")).unwrap())
            .unwrap();
    let names: Vec<&str> = written["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["add", "shout"]);

    let nora = dir.path().join("nora");
    let output = Test::new()
        .args(["convert", "--mcp-stdio", &fake("good"), "--to", "nora"])
        .args(["-o", &nora.to_string_lossy()])
        .run();
    assert_eq!(output.code, 0, "{}", output.stderr);
    for tool in ["add", "shout"] {
        assert!(nora.join(tool).join("tool.json").is_file(), "{tool}");
    }
    // What convert wrote lints clean of errors.
    let check = lint(&[&nora.to_string_lossy(), &agentcli.to_string_lossy()]);
    assert_eq!(check.code, 0, "{}{}", check.stdout, check.stderr);
}

/// `gen mcp` of server-everything keeps what the server wrote of its
/// tools that no SDK models: 2025-11-25's `execution`.
#[test]
fn gen_mcp_of_server_everything_keeps_execution() {
    let output = Test::new()
        .args(["gen", "mcp", "--mcp-stdio", &everything_server()])
        .run();
    assert_eq!(output.code, 0, "{}", output.stderr);
    let document: serde_json::Value = serde_json::from_str(&output.stdout).unwrap();
    let tools = document["tools"].as_array().unwrap();
    let echo = tools.iter().find(|t| t["name"] == "echo").expect("echo");
    assert_eq!(echo["execution"]["taskSupport"], "forbidden", "{echo}");
    let research = tools
        .iter()
        .find(|t| t["name"] == "simulate-research-query")
        .expect("simulate-research-query");
    assert_eq!(
        research["execution"]["taskSupport"], "required",
        "{research}"
    );
}

/// Credentials in an `--mcp-url` (user information, which the HTTP client
/// sends as basic authentication, and a query's token) show nowhere: not
/// in an error, not in a report.
#[test]
fn credentials_in_a_url_are_never_shown() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    let url = format!("http://alice:pw-s3cret@{address}/mcp?token=tok-s3cret");
    let output = expect_failure(
        &["lint", "--mcp-url", &url],
        &[&format!(
            "the MCP server http://***@{address}/mcp?*** (--mcp-url)"
        )],
    );
    assert!(!output.stderr.contains("s3cret"), "{}", output.stderr);
    let output = expect_failure(
        &["lint", "--mcp-url", "ftp://alice:pw-s3cret@127.0.0.1/"],
        &["is not an http:// or https:// URL"],
    );
    assert!(!output.stderr.contains("s3cret"), "{}", output.stderr);

    let server = HttpServer::start();
    let with_credentials = server
        .url
        .replace("http://", "http://alice:pw-s3cret@")
        .replace("/mcp", "/mcp?token=tok-s3cret");
    for format in ["sarif", "json", "human"] {
        let output = lint(&["--mcp-url", &with_credentials, "--format", format]);
        assert_eq!(output.code, 0, "{}", output.stderr);
        let all = format!("{}{}", output.stdout, output.stderr);
        assert!(all.contains("mcp://http-clock"), "{format}: {all}");
        assert!(!all.contains("s3cret"), "{format}: {all}");
    }
}

/// A server's name is the server's to choose: a newline, a terminal escape
/// sequence or a bidirectional override in it reaches no report, and a name
/// of 10 000 characters is cut short enough to name a file under --save.
#[test]
fn a_nasty_server_name_is_made_printable_and_short() {
    let dir = TempDir::new("live-nasty-name");
    let saved = dir.path().join("saved");
    let output = lint(&[
        "--mcp-stdio",
        &fake("nasty-name"),
        "--mcp-stdio",
        &fake("good"),
    ]);
    assert_eq!(output.code, 0, "{}", output.stderr);
    let name = format!("evil__[31mRED_[0m_{}", "x".repeat(82));
    assert!(
        output.stdout.contains(&format!("[mcp://{name}:9:11]")),
        "{}",
        output.stdout
    );
    for bad in ['\u{1b}', '\u{202e}'] {
        assert!(!output.stdout.contains(bad), "{bad:?} in {}", output.stdout);
    }
    assert!(!output.stdout.contains("evil\n"), "{}", output.stdout);
    // Saved, the report names the files instead.
    let output = lint(&[
        "--mcp-stdio",
        &fake("nasty-name"),
        "--mcp-stdio",
        &fake("good"),
        "--save",
        &saved.to_string_lossy(),
    ]);
    assert_eq!(output.code, 0, "{}", output.stderr);
    let file = format!("{}.json", name.replace('[', "_"));
    assert!(saved.join(&file).is_file());
    assert!(saved.join("fake-good.json").is_file());
    let shown = format!("[{}:9:11]", saved.join(&file).display());
    assert!(output.stdout.contains(&shown), "{}", output.stdout);
    assert!(!output.stdout.contains('\u{1b}'), "{}", output.stdout);
}
