//! Hostile input: every case ends in a diagnostic and exit 1 (or, for a run
//! that cannot start, exit 2), never a panic, a crash or a hang. `Test::run`
//! fails the test on a signal, a panic message, or a run over a minute.

use super::{TempDir, Test};

fn lint_json(dir: &TempDir, args: &[&str]) -> (i32, serde_json::Value) {
    let mut all = vec!["lint", "--format", "json"];
    all.extend_from_slice(args);
    let output = Test::new().current_dir(dir.path()).args(all).run();
    (output.code, output.json())
}

fn only_finding(report: &serde_json::Value) -> &serde_json::Value {
    let diagnostics = report["diagnostics"].as_array().expect("diagnostics");
    assert_eq!(diagnostics.len(), 1, "{report:#}");
    &diagnostics[0]
}

#[test]
fn empty_file() {
    let dir = TempDir::new("empty");
    dir.write("tools.json", "");
    let (code, report) = lint_json(&dir, &["tools.json"]);
    assert_eq!(code, 1);
    let d = only_finding(&report);
    assert_eq!(d["rule"], "invalid-json");
    assert_eq!(d["message"], "the file is empty");
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(1), Some(1))
    );
}

#[test]
fn truncated_file_points_at_the_end() {
    let dir = TempDir::new("truncated");
    dir.write("tools.json", "{\n  \"tools\": [\n    {\"name\": \"fetch\"");
    let (code, report) = lint_json(&dir, &["."]);
    assert_eq!(code, 1);
    let d = only_finding(&report);
    assert_eq!(d["rule"], "invalid-json");
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(3), Some(21))
    );
}

#[test]
fn invalid_utf8_points_at_the_bad_byte() {
    let dir = TempDir::new("utf8");
    dir.write("tools.json", b"{\"tools\": [\n  {\"name\": \"f\xffx\"}]}");
    let (code, report) = lint_json(&dir, &["."]);
    assert_eq!(code, 1);
    let d = only_finding(&report);
    assert_eq!(d["rule"], "invalid-json");
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(2), Some(14))
    );
}

#[test]
fn byte_order_mark_is_accepted_and_columns_ignore_it() {
    let dir = TempDir::new("bom");
    dir.write(
        "tools.json",
        b"\xEF\xBB\xBF{\"tools\": [{\"name\": \"a b\", \"command\": [\"/bin/true\"]}]}",
    );
    let (code, report) = lint_json(&dir, &["."]);
    assert_eq!(code, 1);
    let d = only_finding(&report);
    assert_eq!(d["rule"], "invalid-tool-name");
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(1), Some(21))
    );
}

#[test]
fn twenty_thousand_levels_of_nesting() {
    let dir = TempDir::new("deep");
    let deep = format!(
        "{{\"tools\": {}{}}}",
        "[".repeat(20_000),
        "]".repeat(20_000)
    );
    dir.write("tools.json", deep);
    let (code, report) = lint_json(&dir, &["."]);
    assert_eq!(code, 1);
    let d = only_finding(&report);
    assert_eq!(d["rule"], "nesting-too-deep");
    // The root object is level 1, so the 256th bracket (at column 11 + 255)
    // would be level 257.
    assert_eq!(d["column"].as_u64(), Some(11 + 255));
}

#[test]
fn deep_objects_too() {
    let dir = TempDir::new("deep-objects");
    let deep = format!("{}1{}", "{\"a\":".repeat(20_000), "}".repeat(20_000));
    dir.write("tools.json", deep);
    let (code, report) = lint_json(&dir, &["."]);
    assert_eq!(code, 1);
    assert_eq!(only_finding(&report)["rule"], "nesting-too-deep");
}

#[test]
fn file_over_the_default_limit_is_not_read() {
    let dir = TempDir::new("large");
    let mut big = String::from("{\"tools\": [], \"padding\": \"");
    big.push_str(&"x".repeat(16 * 1024 * 1024));
    big.push_str("\"}");
    dir.write("tools.json", big);
    let (code, report) = lint_json(&dir, &["."]);
    assert_eq!(code, 1);
    let d = only_finding(&report);
    assert_eq!(d["rule"], "file-too-large");
    assert!(d["line"].is_null());
}

#[test]
fn max_file_size_flag() {
    let dir = TempDir::new("limit");
    dir.write(
        "tools.json",
        format!("{{\"tools\": [], \"x\": \"{}\"}}", "y".repeat(2000)),
    );
    let (code, report) = lint_json(&dir, &["--max-file-size", "1KiB", "."]);
    assert_eq!(code, 1);
    assert_eq!(only_finding(&report)["rule"], "file-too-large");
    let (_, report) = lint_json(&dir, &["--max-file-size", "1MiB", "."]);
    assert_eq!(report["diagnostics"][0]["rule"], "unknown-field");
    let bad = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--max-file-size", "lots", "."])
        .run();
    assert_eq!(bad.code, 2);
}

#[cfg(unix)]
#[test]
fn symlink_loop_in_a_directory() {
    let dir = TempDir::new("loop");
    dir.write("tools/fetch/tool.json", "{}");
    std::os::unix::fs::symlink("..", dir.path().join("tools/fetch/back")).expect("symlink");
    let (code, report) = lint_json(&dir, &["."]);
    assert_eq!(code, 1);
    let rules: Vec<&str> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter_map(|d| d["rule"].as_str())
        .collect();
    assert!(rules.contains(&"io-error"), "{report:#}");
    let io = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .find(|d| d["rule"] == "io-error")
        .expect("io-error");
    assert!(
        io["message"].as_str().unwrap_or("").contains("loop"),
        "{io}"
    );
}

#[cfg(unix)]
#[test]
fn dangling_symlink() {
    let dir = TempDir::new("dangling");
    std::os::unix::fs::symlink("missing.json", dir.path().join("tools.json")).expect("symlink");
    let (code, report) = lint_json(&dir, &["."]);
    assert_eq!(code, 1);
    assert_eq!(only_finding(&report)["rule"], "io-error");
}

#[cfg(unix)]
#[test]
fn dangling_symlink_met_in_a_walk_names_the_os_error_once() {
    let dir = TempDir::new("dangling-walk");
    std::os::unix::fs::symlink("missing.json", dir.path().join("data.json")).expect("symlink");
    let (code, report) = lint_json(&dir, &["."]);
    assert_eq!(code, 1);
    let d = only_finding(&report);
    assert_eq!(d["rule"], "io-error");
    assert_eq!(d["path"], "data.json");
    assert_eq!(
        d["message"],
        "cannot read: No such file or directory (os error 2)"
    );
}

#[cfg(unix)]
#[test]
fn fifo_does_not_block() {
    let dir = TempDir::new("fifo");
    let fifo = dir.path().join("tools.json");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let (code, report) = lint_json(&dir, &["tools.json"]);
    assert_eq!(code, 1);
    let d = only_finding(&report);
    assert_eq!(d["rule"], "io-error");
    assert!(
        d["message"]
            .as_str()
            .unwrap_or("")
            .contains("not a regular file")
    );
}

#[cfg(unix)]
#[test]
fn unreadable_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new("unreadable");
    let path = dir.write("tools.json", "{\"tools\": []}");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    if std::fs::read(&path).is_ok() {
        // Running as root: permissions do not stop reads. A link to a file
        // every read of which fails with EIO stands in instead.
        std::fs::remove_file(&path).expect("remove");
        std::os::unix::fs::symlink("/proc/self/mem", &path).expect("symlink");
    }
    let (code, report) = lint_json(&dir, &["tools.json"]);
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(only_finding(&report)["rule"], "io-error");
}

#[test]
fn named_path_that_does_not_exist_fails_the_run() {
    let dir = TempDir::new("missing");
    let output = Test::new()
        .current_dir(dir.path())
        .args(["lint", "nope/tools.json"])
        .run();
    assert_eq!(output.code, 2);
    assert!(
        output
            .stderr
            .contains("nope/tools.json: no such file or directory"),
        "{}",
        output.stderr
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn bad_flag_fails_the_run() {
    let output = Test::new().args(["lint", "--no-such-flag"]).run();
    assert_eq!(output.code, 2);
    let output = Test::new()
        .args(["lint", "--input-format", "yaml", "."])
        .run();
    assert_eq!(output.code, 2);
    assert!(
        output.stderr.contains("unknown format \"yaml\""),
        "{}",
        output.stderr
    );
}

#[test]
fn garbage_of_every_kind() {
    let dir = TempDir::new("garbage");
    let cases: &[&[u8]] = &[
        b"[",
        b"{\"tools\"",
        b"{\"tools\":",
        b"\"",
        b"\"\\u12",
        b"\"\\ud800\\u0041\"",
        b"-",
        b"1e",
        b"{\"a\" 1}",
        b"nul",
        b"\x00",
        b"{}{}",
        b"\xEF\xBB\xBF",
        b"   ",
    ];
    for (i, case) in cases.iter().enumerate() {
        dir.write(&format!("case{i:02}/tools.json"), case);
    }
    let (code, report) = lint_json(&dir, &["."]);
    assert_eq!(code, 1);
    let diagnostics = report["diagnostics"].as_array().expect("diagnostics");
    assert_eq!(diagnostics.len(), cases.len(), "{report:#}");
    assert!(
        diagnostics.iter().all(|d| d["rule"] == "invalid-json"),
        "{report:#}"
    );
}

#[test]
fn human_output_of_a_minified_file_with_a_finding_far_along_its_one_line() {
    let dir = TempDir::new("minified");
    let mut tools: Vec<String> = (0..4000)
        .map(|i| {
            format!(
                r#"{{"type":"function","function":{{"name":"tool_{i}","description":"Tool {i}"}}}}"#
            )
        })
        .collect();
    tools.push(
        r#"{"type":"function","function":{"name":"bad name","description":"Bad"}}"#.to_string(),
    );
    let text = format!("[{}]", tools.join(","));
    let column = text.find("\"bad name\"").expect("bad name") + 1;
    assert!(column > 65_535, "the caret must sit past column 65,535");
    dir.write("openai.json", &text);
    let output = Test::new()
        .current_dir(dir.path())
        .args(["lint", "openai.json"])
        .run();
    assert_eq!(output.code, 1);
    assert!(
        output.stdout.contains(&format!("[openai.json:1:{column}]")),
        "{}",
        output.stdout
    );
    // The snippet is a window of the line, not all 300 KB of it.
    assert!(
        output.stdout.len() < 2_000,
        "{} bytes of output",
        output.stdout.len()
    );
    assert!(output.stdout.contains("\"bad name\""));
}

/// A minified manifest whose findings sit past column 65,535, one of them
/// with its "first declared here" far back on the same line: every format
/// renders it (miette panicked on the human one), at the right column.
#[test]
fn findings_past_column_65535_render_in_every_format() {
    let dir = TempDir::new("hostile-long-line");
    let mut tools: Vec<serde_json::Value> = (0..900)
        .map(|i| {
            serde_json::json!({"name": format!("t{i}"), "description": "d",
                "schema": {"type": "object"}, "command": ["/bin/true"]})
        })
        .collect();
    tools.push(serde_json::json!({"name": "t1", "description": "again",
        "schema": {"type": "objekt"}, "command": ["/bin/true"]}));
    let text = serde_json::json!({ "tools": tools }).to_string();
    assert!(!text.contains('\n'));
    std::fs::write(dir.path().join("tools.json"), &text).expect("write");
    let name_at = text.rfind("\"t1\"").expect("the repeated name");
    let column = name_at + 1;
    assert!(column > 70_000, "{column}");
    for format in [
        "human", "brief", "concise", "json", "sarif", "github", "junit",
    ] {
        let output = Test::new()
            .current_dir(dir.path())
            .args(["lint", "--format", format, "tools.json"])
            .run();
        assert_eq!(output.code, 1, "{format}: {}", output.stderr);
        let shown = format!("{}{}", output.stdout, output.stderr);
        assert!(
            shown.contains(&column.to_string()),
            "{format}: no column {column}"
        );
    }
    let human = Test::new()
        .current_dir(dir.path())
        .args(["lint", "tools.json"])
        .run();
    assert!(
        human.stdout.contains(&format!("tools.json:1:{column}")),
        "{}",
        human.stdout
    );
    assert!(
        human.stdout.contains("first declared here"),
        "{}",
        human.stdout
    );
}

/// Code nested a million levels deep (the parser's time and memory grow
/// steeply with depth) is reported as too deep, not parsed: in an
/// AgentStack module, and in a Nachos package beside the tool's class.
#[test]
fn code_nested_a_million_levels_is_reported_not_parsed() {
    let dir = TempDir::new("hostile-deep-code");
    let agentstack = dir.path().join("clock");
    std::fs::create_dir_all(&agentstack).expect("mkdir");
    std::fs::write(
        agentstack.join("config.json"),
        r#"{"name": "clock", "category": "time", "tools": ["get_time"]}"#,
    )
    .expect("write");
    let deep = format!("{}zone{}", "(".repeat(1_000_000), ")".repeat(1_000_000));
    std::fs::write(
        agentstack.join("__init__.py"),
        format!("def get_time(zone: str) -> str:\n    \"\"\"Tell the time.\n\n    Args:\n        zone: The zone.\n    \"\"\"\n    return {deep}\n"),
    )
    .expect("write");
    let (code, report) = lint_json(&dir, &["clock"]);
    assert_eq!(code, 1, "{report:#}");
    let finding = only_finding(&report);
    assert_eq!(finding["rule"], "python-syntax-error", "{finding:#}");
    let message = finding["message"].as_str().expect("message");
    assert!(
        message.contains("nested deeper than 100000 levels"),
        "{message}"
    );

    // A Nachos package: the tool's class is found in its own file; the
    // deep file beside it is passed over.
    let nachos = dir.path().join("nachos");
    let fixture = super::root().join("fixtures/gen/nachos-typescript");
    std::fs::create_dir_all(nachos.join("src")).expect("mkdir");
    for file in ["manifest.json", "src/web-fetch.ts"] {
        std::fs::copy(fixture.join(file), nachos.join(file)).expect("copy");
    }
    std::fs::write(
        nachos.join("src/deep.ts"),
        format!(
            "const x = {}1{};\n",
            "f(()=>".repeat(1_000_000),
            ")".repeat(1_000_000)
        ),
    )
    .expect("write");
    let (code, report) = lint_json(&dir, &["nachos"]);
    assert_eq!(code, 0, "{report:#}");

    // Without the class file, the search says why the deep file was not
    // read.
    std::fs::remove_file(nachos.join("src/web-fetch.ts")).expect("remove");
    let (code, report) = lint_json(&dir, &["nachos"]);
    assert_eq!(code, 0, "a warning: {report:#}");
    let finding = only_finding(&report);
    assert_eq!(finding["rule"], "nachos-class-missing", "{finding:#}");
    let message = finding["message"].as_str().expect("message");
    assert!(
        message.contains("src/deep.ts does not parse: ")
            && message.contains("nested deeper than 100000 levels"),
        "{message}"
    );

    // Nesting without brackets: a million chained conditionals (6 MB)
    // took 10 s and 2 GB to parse.
    std::fs::write(
        nachos.join("src/deep.ts"),
        format!("export const v = {}0;\n", "x?1:".repeat(1_500_000)),
    )
    .expect("write");
    let (code, report) = lint_json(&dir, &["nachos"]);
    assert_eq!(code, 0, "a warning: {report:#}");
    let message = only_finding(&report)["message"]
        .as_str()
        .expect("message")
        .to_string();
    assert!(
        message
            .contains("src/deep.ts does not parse: an expression nested deeper than 100000 levels"),
        "{message}"
    );
}

/// A finding far along a long line whose "first defined here" is on the
/// line above: each gets its own snippet (one snippet of both lines
/// panicked in miette), in lint and in the commands that show lint's
/// findings before refusing.
#[test]
fn a_related_position_on_the_line_above_a_long_one_renders() {
    let dir = TempDir::new("hostile-adjacent-long-lines");
    let text = format!(
        "{{\"tools\":[{{\"name\":\"r\",\"command\":[\"/bin/true\"],\n\"description\":\"a\",\n{}\"description\":\"b\"}}]}}",
        " ".repeat(66_000)
    );
    std::fs::write(dir.path().join("tools.json"), text).expect("write");
    for args in [
        vec!["lint", "tools.json"],
        vec!["gen", "openai", "tools.json", "--dry-run"],
        vec!["convert", "tools.json", "--to", "mcp", "--dry-run"],
    ] {
        let output = Test::new().current_dir(dir.path()).args(&args).run();
        assert_eq!(output.code, 1, "{args:?}: {}", output.stderr);
        let shown = format!("{}{}", output.stdout, output.stderr);
        assert!(shown.contains("tools.json:3:66001"), "{args:?}: {shown}");
        assert!(shown.contains("tools.json:2:1"), "{args:?}: {shown}");
    }
}

/// JSONC-style comments are named as what they are, wherever they stand.
#[test]
fn comments_are_named_as_comments() {
    let dir = TempDir::new("hostile-comments");
    let cases = [
        ("{\n  // the tools\n  \"tools\": []\n}\n", (2, 3)),
        ("{\"tools\": [] /* x */, \"a\": 1}\n", (1, 14)),
        ("{\"tools\": [1, // x\n 2]}\n", (1, 15)),
        ("{\"tools\": []}\n// end\n", (2, 1)),
    ];
    for (text, (line, column)) in cases {
        std::fs::write(dir.path().join("tools.json"), text).expect("write");
        let (code, report) = lint_json(&dir, &["tools.json"]);
        assert_eq!(code, 1, "{report:#}");
        let finding = only_finding(&report);
        assert_eq!(finding["rule"], "invalid-json", "{finding:#}");
        let message = finding["message"].as_str().expect("message");
        assert!(
            message.starts_with("comments are not allowed in JSON"),
            "{message}"
        );
        assert_eq!(
            (finding["line"].as_u64(), finding["column"].as_u64()),
            (Some(line), Some(column)),
            "{text:?}"
        );
    }
}

/// `lint -o` writes through to what is not a regular file (it was
/// replaced by a regular file: /dev/null became one), refuses a FIFO
/// nothing reads, and never overwrites a manifest it lints.
#[cfg(unix)]
#[test]
fn lint_output_never_replaces_devices_fifos_or_manifests() {
    use std::os::unix::fs::FileTypeExt;
    let dir = TempDir::new("hostile-lint-output");
    let fixture = super::root().join("fixtures/rules/empty-command/bad/tools.json");
    std::fs::copy(&fixture, dir.path().join("tools.json")).expect("copy");
    let run = |args: &[&str]| {
        Test::new()
            .current_dir(dir.path())
            .args(["lint", "--format", "concise"])
            .args(args)
            .run()
    };
    // A character device of the test's own (a terminal's slave side),
    // reached through a link, as /dev/stdout is: were it replaced, the
    // temporary file could not be made in /dev/pts, so a regression fails
    // this test without harming the machine's /dev/null.
    let (mut controller, _held, device) = terminal();
    let link = dir.path().join("report.tty");
    std::os::unix::fs::symlink(&device, &link).expect("link");
    let through = run(&["-o", "report.tty", "tools.json"]);
    assert_eq!(through.code, 1, "{}", through.stderr);
    let kind = std::fs::metadata(&link).expect("device").file_type();
    assert!(
        kind.is_char_device(),
        "{} is no longer a device",
        device.display()
    );
    let mut shown = vec![0; 64 * 1024];
    let n = std::io::Read::read(&mut controller, &mut shown).expect("read the terminal");
    let shown = String::from_utf8_lossy(&shown[..n]);
    assert!(shown.contains("tools.json:"), "{shown}");

    let fifo = dir.path().join("report.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let nobody = run(&["-o", "report.fifo", "tools.json"]);
    assert_eq!(nobody.code, 2);
    assert!(
        nobody.stderr.contains("FIFO that nothing reads"),
        "{}",
        nobody.stderr
    );
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).expect("read the FIFO"))
    };
    // The reader opens the FIFO; the run waits for nothing.
    let mut written = None;
    for _ in 0..200 {
        let attempt = run(&["-o", "report.fifo", "tools.json"]);
        if attempt.code != 2 {
            written = Some(attempt);
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let written = written.expect("the FIFO got a reader");
    assert_eq!(written.code, 1, "{}", written.stderr);
    let received = reader.join().expect("reader");
    assert!(received.contains("tools.json:"), "{received}");
    assert!(
        std::fs::symlink_metadata(&fifo)
            .expect("fifo")
            .file_type()
            .is_fifo()
    );

    let before = std::fs::read(dir.path().join("tools.json")).expect("read");
    let over = run(&["-o", "tools.json", "."]);
    assert_eq!(over.code, 2, "{}", over.stderr);
    assert!(over.stderr.contains("is the manifest"), "{}", over.stderr);
    assert_eq!(
        std::fs::read(dir.path().join("tools.json")).expect("read"),
        before
    );
}

/// A new pseudo-terminal: its controller side, its device side (held
/// open: a terminal nobody holds hangs up) and the path of its device.
#[cfg(unix)]
fn terminal() -> (std::fs::File, std::fs::File, std::path::PathBuf) {
    use std::os::fd::FromRawFd;
    let (mut controller, mut device) = (0, 0);
    // SAFETY: openpty writes two descriptors into the integers given; the
    // name, terminal settings and window size may be null.
    let opened = unsafe {
        libc::openpty(
            &mut controller,
            &mut device,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(opened, 0, "openpty: {}", std::io::Error::last_os_error());
    let path = std::fs::read_link(format!("/proc/self/fd/{device}")).expect("the device's path");
    // SAFETY: both descriptors were just opened and are owned here only.
    let (controller, held) = unsafe {
        (
            std::fs::File::from_raw_fd(controller),
            std::fs::File::from_raw_fd(device),
        )
    };
    (controller, held, path)
}
