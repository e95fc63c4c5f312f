//! Live MCP servers that fail: a command that does not start, a server
//! that exits, never answers, answers malformed tools or leaves a daemon
//! behind, and `--save` where it must not write. Each is a clear error
//! (exit 2) naming the server, with no server process left and nothing
//! written. The servers are fixtures/live/fake_server.py in its modes.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::live::{expect_failure, fake, lint, quoted};
use super::{TempDir, Test, root};
#[test]
fn a_command_that_does_not_exist() {
    expect_failure(
        &["lint", "--mcp-stdio", "toolc-no-such-server --stdio"],
        &[
            "error: cannot start the MCP server `toolc-no-such-server --stdio` (--mcp-stdio)",
            "No such file or directory",
        ],
    );
}

#[test]
fn a_server_that_exits_at_once() {
    let server = fake("exit");
    expect_failure(
        &["lint", "--mcp-stdio", &server],
        &[
            &format!("the MCP server `{server}` (--mcp-stdio) did not complete the MCP handshake"),
            "it exited with status 3",
        ],
    );
}

#[test]
fn a_command_with_broken_quoting() {
    expect_failure(
        &["gen", "mcp", "--mcp-stdio", "python 'fake.py"],
        &[
            "cannot read the command of --mcp-stdio \"python 'fake.py\": a single quote is not closed",
        ],
    ); // A pipe would have run `echo` with the arguments `|` and `cat`.
    expect_failure(
        &["lint", "--mcp-stdio", "echo hi | cat"],
        &["`|` outside quotes is shell syntax, and the command runs without a shell"],
    );
}

#[test]
fn standard_input_goes_alone() {
    for stdin in [&["-"][..], &["--stdin-filename", "tools.json"][..]] {
        let output = Test::new()
            .args(["lint", "--mcp-stdio", "true"])
            .args(stdin)
            .stdin("{}")
            .run();
        assert_eq!(output.code, 2, "{stdin:?}: {}", output.stderr);
        assert!(
            output.stderr.contains("no live server with it"),
            "{stdin:?}: {}",
            output.stderr
        );
    }
}

/// `--save` onto a manifest read in the same run would replace the user's
/// file with the server's tools: refused, the file left as it was.
#[test]
fn save_never_replaces_an_input() {
    let dir = TempDir::new("live-save-input");
    let manifest = dir.path().join("tools.json");
    let text = std::fs::read_to_string(root().join("fixtures/convert/mcp/mcp.json")).unwrap();
    std::fs::write(&manifest, &text).unwrap();
    let manifest_arg = manifest.to_string_lossy().into_owned();
    let out = dir.path().join("out").to_string_lossy().into_owned();
    let convert = ["convert", "--to", "agentcli", "-o", &out];
    for command in [&["lint"][..], &["gen", "mcp"], &convert] {
        let output = Test::new()
            .args(command)
            .args([&manifest_arg, "--mcp-stdio", &fake("good")])
            .args(["--save", &manifest_arg])
            .run();
        assert_eq!(output.code, 2, "{command:?}: {}", output.stderr);
        assert!(
            output.stderr.contains("is the input"),
            "{command:?}: {}",
            output.stderr
        );
        assert_eq!(
            std::fs::read_to_string(&manifest).unwrap(),
            text,
            "{command:?}"
        );
    }
}

/// `--save` replaces what an earlier `--save` wrote (a CI job saves on
/// every run), and never another file that is in the way: a manifest or a
/// configuration of the user's is left as it was.
#[test]
fn save_replaces_an_earlier_save_and_nothing_else() {
    let dir = TempDir::new("live-save-over");
    let saved = dir.path().join("saved.json");
    let saved_arg = saved.to_string_lossy().into_owned();
    std::fs::write(&saved, "{\"tools\": []}\n").unwrap();
    let output = lint(&["--mcp-stdio", &fake("good"), "--save", &saved_arg]);
    assert!(output.code < 2, "{}", output.stderr);
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    assert!(
        !written["tools"].as_array().unwrap().is_empty(),
        "{written}"
    );

    for other in [
        "{\"mcpServers\": {}}\n",
        "not JSON at all\n",
        "{\"tools\": [], \"x\": 1}\n",
    ] {
        std::fs::write(&saved, other).unwrap();
        let output = lint(&["--mcp-stdio", &fake("good"), "--save", &saved_arg]);
        assert_eq!(output.code, 2, "{}", output.stderr);
        assert!(
            output
                .stderr
                .contains("the file exists and is not a tool list --save wrote"),
            "{}",
            output.stderr
        );
        assert_eq!(std::fs::read_to_string(&saved).unwrap(), other);
    }
}

/// Several servers go into a directory: a file there is said to be one
/// (it was "File exists (os error 17)"), and left as it was.
#[test]
fn save_of_several_servers_onto_a_file() {
    let dir = TempDir::new("live-save-several");
    let file = dir.path().join("saved.json");
    std::fs::write(&file, "{}\n").unwrap();
    let good = fake("good");
    let output = Test::new()
        .args(["lint", "--mcp-stdio", &good, "--mcp-stdio", &good])
        .args(["--save", &file.to_string_lossy()])
        .run();
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert!(
        output
            .stderr
            .contains("the tools of several servers are saved into a directory"),
        "{}",
        output.stderr
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "{}\n");
}

#[test]
fn save_without_a_server() {
    expect_failure(
        &["lint", "fixtures/convert/mcp/mcp.json", "--save", "x.json"],
        &["--save writes what live servers list"],
    );
}

/// Whether the process `pid` is gone (or a zombie nobody waits for).
fn gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

/// The server's and its `sleep`'s process ids, from the file the fake
/// server writes them to.
fn pids_in(file: &Path) -> Vec<u32> {
    let text = std::fs::read_to_string(file).expect("the server started");
    let pids: Vec<u32> = text
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    assert_eq!(pids.len(), 2, "{text}");
    pids
}

/// Waits a little for each of `pids` to be gone, and fails if one stays.
fn assert_gone(pids: &[u32]) {
    let deadline = Instant::now() + Duration::from_secs(3);
    while !pids.iter().all(|pid| gone(*pid)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    for pid in pids {
        assert!(gone(*pid), "process {pid} outlived toolc");
    }
}

/// A server that never answers: the run ends at --mcp-timeout, and the
/// server and what it started are killed.
#[test]
fn a_server_that_never_answers_times_out_and_is_killed() {
    let dir = TempDir::new("live-silent");
    let pids = dir.path().join("pids");
    let server = format!("{} {}", fake("silent"), quoted(&pids));
    let started = Instant::now();
    expect_failure(
        &["lint", "--mcp-stdio", &server, "--mcp-timeout", "1.5"],
        &["did not list its tools within 1.5 s (--mcp-timeout"],
    );
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(1500) && took < Duration::from_secs(8),
        "took {took:?}"
    );
    assert_gone(&pids_in(&pids));
}

/// A server that listed its tools is killed too, with what it started.
#[test]
fn a_server_is_killed_once_it_listed_its_tools() {
    let dir = TempDir::new("live-listed");
    let pids = dir.path().join("pids");
    let server = format!("{} {}", fake("good"), quoted(&pids));
    let output = lint(&["--mcp-stdio", &server, "--format", "concise"]);
    assert_eq!(output.code, 0, "{}", output.stderr);
    assert_gone(&pids_in(&pids));
}

/// A daemon the server starts in a session of its own escapes the kill of
/// the server's process group: toolc kills it too, and a reader of toolc's
/// standard error (this harness) is not held up by it for 20 s.
#[cfg(target_os = "linux")]
#[test]
fn a_daemon_the_server_leaves_is_killed() {
    let dir = TempDir::new("live-daemon");
    let pid = dir.path().join("pid");
    let server = format!("{} {}", fake("daemon"), quoted(&pid));
    let started = Instant::now();
    let output = lint(&["--mcp-stdio", &server, "--format", "concise"]);
    let took = started.elapsed();
    assert_eq!(output.code, 0, "{}", output.stderr);
    assert!(took < Duration::from_secs(10), "took {took:?}");
    let daemon: u32 = std::fs::read_to_string(&pid).unwrap().parse().unwrap();
    assert_gone(&[daemon]);
}

/// toolc killed while it waits for a server: the kernel kills the server
/// (its parent-death signal), which a killed toolc cannot do itself.
#[cfg(target_os = "linux")]
#[test]
fn a_server_dies_with_a_killed_toolc() {
    let dir = TempDir::new("live-killed");
    let pids = dir.path().join("pids");
    let server = format!("{} {}", fake("silent"), quoted(&pids));
    let mut toolc = Command::new(env!("CARGO_BIN_EXE_toolc"))
        .args(["lint", "--mcp-stdio", &server])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start toolc");
    let deadline = Instant::now() + Duration::from_secs(20);
    while !pids.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let started = pids_in(&pids);
    toolc.kill().expect("kill toolc");
    toolc.wait().expect("wait for toolc");
    // The server's own child is not the kernel's to kill: the test ends it.
    let sleeper = started[1];
    let _ = Command::new("kill").arg(sleeper.to_string()).status();
    assert_gone(&started[..1]);
}

#[test]
fn a_server_answering_malformed_tools_writes_nothing() {
    let dir = TempDir::new("live-malformed");
    let saved = dir.path().join("saved.json");
    let server = fake("malformed");
    expect_failure(
        &[
            "lint",
            "--mcp-stdio",
            &server,
            "--save",
            &saved.to_string_lossy(),
        ],
        &[
            &format!(
                "the MCP server `{server}` (--mcp-stdio) answered tools/list with malformed data"
            ),
            "invalid type: integer `5`, expected a sequence",
        ],
    );
    assert!(!saved.exists(), "a partial document was saved");
    expect_failure(
        &["lint", "--mcp-stdio", &fake("no-schema")],
        &[r#"malformed data: tool 1 ("bare"): missing field `inputSchema`"#],
    );
    // A line that is not JSON ends the listing at once (the SDK's reader
    // would drop it, and the answer would never come).
    let started = Instant::now();
    expect_failure(
        &["lint", "--mcp-stdio", &fake("garbage")],
        &[
            "(--mcp-stdio) wrote malformed data on its standard output: a line that is not \
             JSON (expected ident at line 1 column 2): \"this is not JSON at all }{\"",
        ],
    );
    let took = started.elapsed();
    assert!(took < Duration::from_secs(10), "took {took:?}");
}

/// `--save` into a directory the run reads would have the saved copy read
/// again (and a manifest there replaced): refused before anything runs.
/// With several servers every file is checked before any is written.
#[test]
fn save_checks_every_file_before_writing_any() {
    let dir = TempDir::new("live-save-checks");
    let manifest = dir.path().join("tools.json");
    let text = std::fs::read_to_string(root().join("fixtures/convert/mcp/mcp.json")).unwrap();
    std::fs::write(&manifest, &text).unwrap();
    let inside = dir.path().join("fetched.json");
    let output = Test::new()
        .args([
            "lint",
            &dir.path().to_string_lossy(),
            "--mcp-stdio",
            &fake("good"),
        ])
        .args(["--save", &inside.to_string_lossy()])
        .run();
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert!(
        output.stderr.contains("which this run reads"),
        "{}",
        output.stderr
    );
    assert!(!inside.exists());

    let saved = TempDir::new("live-save-several-checked");
    let good = fake("good");
    // The second server's file is in the way: the first is not written.
    std::fs::write(saved.path().join("fake-good-2.json"), "hand-written\n").unwrap();
    let saved_arg = saved.path().to_string_lossy().into_owned();
    let output = lint(&[
        "--mcp-stdio",
        &good,
        "--mcp-stdio",
        &good,
        "--save",
        &saved_arg,
    ]);
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert!(
        output.stderr.contains("fake-good-2.json"),
        "{}",
        output.stderr
    );
    assert!(!saved.path().join("fake-good.json").exists());
}
