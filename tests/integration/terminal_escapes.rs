//! Issue 28, point 17: nothing toolc prints for a person acts on the
//! terminal. Control characters (an OSC 52 clipboard write, `ESC[2J`, BEL),
//! bidirectional overrides (U+202E) and line separators (U+2028) from a
//! directory name, a manifest, a `toolc.toml` or an MCP client are shown
//! as escapes in every human format, and kept exact in JSON and SARIF.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::sdk::wait_for;
use crate::{Output, TempDir, Test, root};

/// A clipboard write (OSC 52, ended by BEL), then a screen clear.
const OSC52_AND_CLEAR: &str = "\u{1b}]52;c;SGVsbG8=\u{7}\u{1b}[2J";

/// What must never reach a terminal raw.
const RAW: [char; 4] = ['\u{1b}', '\u{7}', '\u{202e}', '\u{2028}'];

/// Fails when `text` (of `what`) holds a raw control, override or separator.
fn assert_no_raw(what: &str, text: &str) {
    for c in RAW {
        assert!(!text.contains(c), "{what}: raw {c:?} in {text:?}");
    }
}

/// Both streams of a run meant for people.
fn assert_shown_escaped(what: &str, output: &Output) {
    assert_no_raw(&format!("{what} (stdout)"), &output.stdout);
    assert_no_raw(&format!("{what} (stderr)"), &output.stderr);
}

/// A directory whose name holds [`OSC52_AND_CLEAR`], under `in/`, with an
/// MCP manifest that has one error (a tool name with a space) and a JSON
/// file that is no manifest (skipped, which `-v` says).
fn evil_directory(dir: &TempDir) -> String {
    let name = format!("in/evil{OSC52_AND_CLEAR}");
    dir.write(
        &format!("{name}/tools.mcp.json"),
        json!({"tools": [{"name": "look up", "description": "Look a word up.",
            "inputSchema": {"type": "object",
                "properties": {"q": {"type": "string", "description": "The word."}}}}]})
        .to_string(),
    );
    dir.write(&format!("{name}/other.json"), "{\"hello\": 1}\n");
    format!("{name}/tools.mcp.json")
}

#[test]
fn a_directory_name_with_escapes_reaches_no_report_raw() {
    let dir = TempDir::new("escapes-dir");
    let manifest = evil_directory(&dir);
    let lint = |args: &[&str]| {
        Test::new()
            .current_dir(dir.path())
            .args(["lint", "in"])
            .args(args)
            .run()
    };
    for format in ["human", "brief", "concise", "github", "pylint", "junit"] {
        let output = lint(&["--format", format]);
        assert_eq!(output.code, 1, "{format}: {}", output.stderr);
        assert_shown_escaped(format, &output);
        assert!(
            output
                .stdout
                .contains("evil\\u{1b}]52;c;SGVsbG8=\\u{7}\\u{1b}[2J"),
            "{format}: the name is not shown escaped: {}",
            output.stdout
        );
    }
    let verbose = lint(&["-v"]);
    assert_shown_escaped("lint -v", &verbose);
    assert!(
        verbose.stderr.contains("note: skipped in/evil\\u{1b}]52"),
        "{}",
        verbose.stderr
    );
    let generated = Test::new()
        .current_dir(dir.path())
        .args(["gen", "openai", "in"])
        .run();
    assert_eq!(generated.code, 1, "{}", generated.stderr);
    assert!(generated.stderr.contains("TC103"), "{}", generated.stderr);
    assert_shown_escaped("gen", &generated);
    let converted = Test::new()
        .current_dir(dir.path())
        .args(["convert", "--to", "nora", "in", "-o", "out"])
        .run();
    assert_eq!(converted.code, 1, "{}", converted.stderr);
    assert!(converted.stderr.contains("TC103"), "{}", converted.stderr);
    assert_shown_escaped("convert", &converted);
    // The machine formats keep the exact path.
    let json = lint(&["--format", "json"]).json();
    assert_eq!(json["diagnostics"][0]["path"], manifest.as_str(), "{json}");
    let sarif = lint(&["--format", "sarif"]).json();
    let uri = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
        ["artifactLocation"]["uri"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        uri.contains("SGVsbG8") && !uri.contains("\\u{"),
        "the SARIF location is not the path: {uri}"
    );
}

#[test]
fn a_toolc_toml_parse_error_is_shown_escaped_in_every_format() {
    let dir = TempDir::new("escapes-toml");
    dir.write(
        "tools.mcp.json",
        json!({"tools": [{"name": "look", "description": "Look a word up.",
            "inputSchema": {"type": "object"}}]})
        .to_string(),
    );
    dir.write("toolc.toml", format!("targets = [\"a{OSC52_AND_CLEAR}\n"));
    for format in ["human", "json"] {
        let output = Test::new()
            .current_dir(dir.path())
            .args(["lint", "tools.mcp.json", "--format", format])
            .run();
        assert_eq!(output.code, 2, "{format}: {}", output.stderr);
        assert!(output.stderr.contains("toolc.toml"), "{}", output.stderr);
        assert_shown_escaped(format, &output);
        assert!(
            output.stderr.contains("\\u{1b}]52;c;SGVsbG8=\\u{7}"),
            "{format}: {}",
            output.stderr
        );
    }
}

/// An MCP manifest whose tool and parameter descriptions hold OSC 52, OSC
/// 8 (a link), OSC 0 (the window title), an override and a separator.
fn hostile_descriptions(dir: &TempDir) -> String {
    dir.write(
        "tools.mcp.json",
        json!({"tools": [{
            "name": "look",
            "description": format!("Look{OSC52_AND_CLEAR} \u{1b}]0;pwned\u{7}up \u{202e}here\u{2028}fake line"),
            "inputSchema": {"type": "object", "properties": {"q": {
                "type": "string",
                "description": "the \u{1b}]8;;https://example.com\u{7}word\u{1b}]8;;\u{7}"}}}}]})
        .to_string(),
    )
    .display()
    .to_string()
}

#[test]
fn run_list_shows_hostile_descriptions_escaped() {
    let dir = TempDir::new("escapes-run-list");
    let manifest = hostile_descriptions(&dir);
    // The bidi override is a poisoning finding (an error), so run refuses the
    // manifest, and says so with every character escaped.
    let refused = Test::new().args(["run", &manifest, "--list"]).run();
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(refused.stderr.contains("TC951"), "{}", refused.stderr);
    assert_shown_escaped("run --list refused", &refused);
    // A project that lowers the rule to a warning gets its list, escaped.
    dir.write("toolc.toml", "[rules]\ninvisible-unicode = \"warning\"\n");
    let output = Test::new()
        .current_dir(dir.path())
        .args(["run", &manifest, "--list"])
        .run();
    assert_eq!(output.code, 0, "{}", output.stderr);
    assert_shown_escaped("run --list", &output);
    assert!(
        output
            .stdout
            .contains("look: Look\\u{1b}]52;c;SGVsbG8=\\u{7}"),
        "{}",
        output.stdout
    );
    assert!(output.stdout.contains("\\u{202e}here\\u{2028}fake line"));
    assert!(output.stdout.contains("\\u{1b}]8;;https://example.com"));
}

#[test]
fn serve_logs_a_clients_name_escaped() {
    let fixture = root().join("fixtures/serve/tools.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolc"))
        .args(["serve", "--log-level", "info"])
        .arg(&fixture)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start toolc serve");
    let mut stdin = child.stdin.take().expect("stdin");
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": format!("client{OSC52_AND_CLEAR}\u{202e}\nfake: line"),
            "version": "1"}}});
    writeln!(stdin, "{initialize}").unwrap();
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let answer: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(answer["id"], 1, "{answer}");
    drop(stdin);
    assert_eq!(wait_for(&mut child, Duration::from_secs(20)), Some(0));
    let stderr = std::io::read_to_string(child.stderr.take().unwrap()).unwrap();
    assert!(stderr.contains("session started: client"), "{stderr}");
    assert_no_raw("serve log", &stderr);
    assert!(
        stderr.contains("client\\u{1b}]52;c;SGVsbG8=\\u{7}\\u{1b}[2J\\u{202e}\\nfake: line"),
        "{stderr}"
    );
    assert!(
        stderr.lines().all(|line| !line.starts_with("fake")),
        "{stderr}"
    );
}

/// A tool name holding U+202E and U+2028 (an error: OpenAI and Anthropic
/// reject the characters), which the finding's message quotes.
fn overridden_name(dir: &TempDir) -> String {
    dir.write(
        "tools.mcp.json",
        json!({"tools": [{"name": "look\u{202e}pu\u{2028}x", "description": "Look a word up.",
            "inputSchema": {"type": "object"}}]})
        .to_string(),
    )
    .display()
    .to_string()
}

#[test]
fn overrides_and_separators_are_escaped_in_every_report_for_people() {
    let dir = TempDir::new("escapes-bidi");
    let manifest = overridden_name(&dir);
    for format in [
        "human", "brief", "concise", "github", "gitlab", "pylint", "junit",
    ] {
        let output = Test::new()
            .args(["lint", &manifest, "--format", format])
            .run();
        assert_eq!(output.code, 1, "{format}: {}", output.stderr);
        assert_shown_escaped(format, &output);
        // GitLab's report is JSON: its text holds the escape, JSON-escaped.
        let shown = if format == "gitlab" {
            output.json()[0]["description"]
                .as_str()
                .unwrap()
                .to_string()
        } else {
            output.stdout
        };
        assert!(
            shown.contains("look\\u{202e}pu\\u{2028}x"),
            "{format}: {shown}"
        );
    }
    let json = Test::new()
        .args(["lint", &manifest, "--format", "json"])
        .run()
        .json();
    let message = json["diagnostics"][0]["message"].as_str().unwrap();
    assert!(message.contains("look\u{202e}pu\u{2028}x"), "{message}");
    let sarif = Test::new()
        .args(["lint", &manifest, "--format", "sarif"])
        .run()
        .json();
    let message = sarif["runs"][0]["results"][0]["message"]["text"]
        .as_str()
        .unwrap();
    assert!(message.contains("look\u{202e}pu\u{2028}x"), "{message}");
}

/// A line break in a path an error names does not start a line of its own.
#[test]
fn a_line_break_in_a_named_path_starts_no_fake_line() {
    let dir = TempDir::new("escapes-newline");
    let output = Test::new()
        .current_dir(dir.path())
        .args(["lint", "nope\nerror: all is well\u{1b}[2J"])
        .run();
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert_no_raw("a missing path", &output.stderr);
    assert_eq!(output.stderr.lines().count(), 1, "{}", output.stderr);
    assert!(
        output
            .stderr
            .contains("nope\\nerror: all is well\\u{1b}[2J: no such file"),
        "{}",
        output.stderr
    );
}
