//! Issue 28, points 13 to 16: hostile input keeps toolc's memory within
//! 50 times its size. Each test measures the peak resident memory of the
//! real binary (`wait4`'s `ru_maxrss`) on the input an attacker used,
//! scaled down so that a debug build reads it in seconds, and checks what
//! the user is told.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::{Output, TempDir};

const MIB: u64 = 1024 * 1024;

/// The most toolc may use on any input, in multiples of the input's size.
const TIMES_INPUT: u64 = 50;

/// Starts `argv` and reports, once it ends, how it ended and its peak
/// resident memory (`wait4`'s `ru_maxrss`, in KiB) into the file named
/// first. The test binary cannot measure toolc itself: a child's
/// `ru_maxrss` also holds the resident memory of the process it was
/// spawned from, taken at its `exec` (the kernel records the memory it
/// leaves), and the test binary holds hundreds of MiB while the whole
/// suite runs. This small process stands between them.
const MEASURE: &str = r#"
import json, os, sys
pid = os.posix_spawn(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(pid, 0)
report = {"maxrss_kib": usage.ru_maxrss}
if os.WIFEXITED(status):
    report["code"] = os.WEXITSTATUS(status)
else:
    report["signal"] = os.WTERMSIG(status)
with open(sys.argv[1], "w") as f:
    json.dump(report, f)
"#;

/// Runs toolc with `args` in `dir`, feeding standard input from `feed`
/// (on its own thread), and returns its output and peak resident memory
/// in bytes (measured by [`MEASURE`]).
fn measured(
    dir: &std::path::Path,
    args: &[&str],
    feed: impl FnOnce(std::process::ChildStdin) + Send + 'static,
) -> (Output, u64) {
    let report = std::env::temp_dir().join(format!(
        "toolc-test-measured-{}-{:?}.json",
        std::process::id(),
        std::thread::current().id()
    ));
    let mut child = Command::new(crate::SYSTEM_PYTHON)
        .args(["-c", MEASURE])
        .arg(&report)
        .arg(env!("CARGO_BIN_EXE_toolc"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn toolc under the measuring Python");
    let stdin = child.stdin.take().expect("stdin");
    let feeder = std::thread::spawn(move || feed(stdin));
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let err = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let status = child.wait().expect("wait for the measuring Python");
    feeder.join().expect("feeder");
    let (stdout, stderr) = (out.join().expect("out"), err.join().expect("err"));
    assert!(
        status.success(),
        "the measuring Python failed ({status}):\n{stderr}"
    );
    let text = std::fs::read_to_string(&report).expect("the measuring Python's report");
    let _ = std::fs::remove_file(&report);
    let report: serde_json::Value = serde_json::from_str(&text).expect("a JSON report");
    assert!(
        report.get("signal").is_none(),
        "toolc {args:?} died from a signal ({report}):\n{stderr}"
    );
    assert!(!stderr.contains("panicked"), "toolc panicked:\n{stderr}");
    let code = i32::try_from(report["code"].as_i64().expect("an exit code")).expect("code");
    // Linux gives ru_maxrss in KiB.
    let peak = report["maxrss_kib"].as_u64().expect("maxrss") * 1024;
    (
        Output {
            code,
            stdout,
            stderr,
        },
        peak,
    )
}

/// Nothing on standard input.
fn no_input(stdin: std::process::ChildStdin) {
    drop(stdin);
}

/// Point 16: a GiB piped into `toolc run` as the arguments is refused
/// once it passes the limit, not read whole (it used 2.6 GB).
#[test]
fn arguments_over_the_limit_are_refused_before_they_are_read_whole() {
    let dir = TempDir::new("args-limit");
    let written = Arc::new(AtomicU64::new(0));
    let counter = Arc::clone(&written);
    let (output, peak) = measured(
        dir.path(),
        &["run", "builtin", "list_files"],
        move |mut stdin| {
            let chunk = vec![b' '; MIB as usize];
            for _ in 0..1024 {
                if stdin.write_all(&chunk).is_err() {
                    return;
                }
                counter.fetch_add(MIB, Ordering::Relaxed);
            }
        },
    );
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert!(
        output
            .stderr
            .contains("the arguments in standard input are over the limit of 16777216 bytes")
            && output.stderr.contains("--max-args-size"),
        "{}",
        output.stderr
    );
    let written = written.load(Ordering::Relaxed);
    assert!(
        written < 64 * MIB,
        "toolc read {written} bytes of arguments past its 16 MiB limit"
    );
    assert!(peak < 200 * MIB, "peak memory {peak} bytes");
}

/// The limit is a flag, and applies to --args-file too; a document within
/// it still runs the tool.
#[test]
fn the_arguments_limit_is_a_flag() {
    let dir = TempDir::new("args-limit-flag");
    let args = dir.write(
        "args.json",
        format!("{{\"path\": \".\", \"pad\": \"{}\"}}", "x".repeat(2000)),
    );
    let args = args.to_str().expect("path");
    let (output, _) = measured(
        dir.path(),
        &[
            "run",
            "builtin",
            "list_files",
            "--max-args-size",
            "1KiB",
            "--args-file",
            args,
        ],
        no_input,
    );
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert!(
        output.stderr.contains("over the limit of 1024 bytes"),
        "{}",
        output.stderr
    );
    let (output, _) = measured(
        dir.path(),
        &[
            "run",
            "builtin",
            "list_files",
            "--max-args-size",
            "4KiB",
            "--args",
            "{\"path\": \".\"}",
        ],
        no_input,
    );
    assert_eq!(output.code, 0, "{}\n{}", output.stdout, output.stderr);
}

/// Point 16, within the limit: an arguments document of 8 MiB that is
/// one array of 4 M numbers (`0,` each) took 555 MB (66×) to parse, as
/// the array was grown by doubling; it is answered within 50× (here with
/// the schema's refusal of the unknown member).
#[test]
fn a_long_array_in_the_arguments_is_parsed_in_bounded_memory() {
    let dir = TempDir::new("args-long-array");
    let count = 4 * MIB as usize - 20;
    let text = format!(
        "{{\"path\": \".\", \"pad\": [{}0]}}",
        "0,".repeat(count - 1)
    );
    let input = text.len() as u64;
    let args = dir.write("args.json", &text);
    let args = args.to_str().expect("path");
    let (output, peak) = measured(
        dir.path(),
        &["run", "builtin", "list_files", "--args-file", args],
        no_input,
    );
    assert_eq!(output.code, 1, "{}\n{}", output.stdout, output.stderr);
    let result = output.json();
    assert_eq!(result["error"]["code"], "VALIDATION_ERROR", "{result}");
    assert_within("run with a long array in its arguments", peak, input);
}

/// Fails unless `peak` is within [`TIMES_INPUT`] times `input` bytes.
fn assert_within(what: &str, peak: u64, input: u64) {
    assert!(
        peak <= TIMES_INPUT * input,
        "{what}: peak memory {} MiB on {} MiB of input, over {TIMES_INPUT}×",
        peak / MIB,
        input / MIB
    );
}

/// Lints a NORA tool whose `main.py` is `code` in a directory `name`,
/// and checks that a diagnostic says `expected` and that the peak memory
/// stayed within bounds.
fn lint_python_module(name: &str, code: &str, expected: &str) {
    let dir = TempDir::new(name);
    dir.write(
        "tool.json",
        r#"{"name": "lookup", "description": "Look a word up.", "entrypoint": "main.py",
            "parameters": {"type": "object", "properties": {}}}"#,
    );
    dir.write("main.py", code);
    let (output, peak) = measured(dir.path(), &["lint", "--format", "json", "."], no_input);
    assert_eq!(output.code, 1, "{}", output.stderr);
    let report = output.json();
    let found = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .any(|d| d["message"].as_str().is_some_and(|m| m.contains(expected)));
    assert!(found, "{report:#}");
    assert_within("lint", peak, code.len() as u64);
}

/// Point 14: a NORA `main.py` of 7.2 MB that opens a triple-quoted string
/// and never closes it took 742 MB (100×) to lint; the syntax error is
/// found where the string opens.
#[test]
fn an_unterminated_string_in_a_large_module_is_found_in_bounded_memory() {
    let code = format!(
        "import os\nx = \"\"\"\n{}",
        "def f(a):\n    return a\n".repeat(300_000)
    );
    lint_python_module(
        "unterminated",
        &code,
        "unterminated triple-quoted string literal at 2:5",
    );
}

/// Point 14, found again by review: a NORA `main.py` of 7 MB holding one
/// f-string of 2.4 million replacement fields took 1.45 GB (206x) and 15 s
/// to lint, since tree-sitter makes nodes of every field; the statement
/// is now refused by the scan, as one of too many tokens is.
#[test]
fn an_f_string_of_millions_of_fields_is_refused_in_bounded_memory() {
    let code = format!("x = f\"{}\"\n", "{a}".repeat(2_400_000));
    lint_python_module(
        "fstring-fields",
        &code,
        "a statement of more than 100000 tokens",
    );
}

/// Point 13: an OpenAI tool whose enum holds a string of millions of line
/// breaks took 1.34 GB (96×) to convert to an AgentStack package.
#[test]
fn a_huge_enum_string_converts_in_bounded_memory() {
    let dir = TempDir::new("enum-newlines");
    let value = "\n".repeat(3_500_000);
    let tool = serde_json::json!([{"type": "function", "function": {
        "name": "pick", "description": "Pick one.",
        "parameters": {"type": "object", "properties": {
            "choice": {"type": "string", "enum": [value]}}}}}]);
    let text = tool.to_string();
    dir.write("openai.json", &text);
    let (output, peak) = measured(
        dir.path(),
        &["convert", "--to", "agentstack", "openai.json", "-o", "out"],
        no_input,
    );
    assert_eq!(output.code, 0, "{}", output.stderr);
    assert!(dir.path().join("out/pick/__init__.py").is_file());
    assert_within("convert --to agentstack", peak, text.len() as u64);
}

/// Point 16, the policy: an arguments document of 8 MiB that is one array
/// of 2.8 M empty strings took 550 MB (65×) and 10 s, as the policy built
/// a classified argument and a JSON Pointer for every string before its
/// rules looked at any. The call runs, within 50× and in bounded time.
#[test]
fn the_policy_walks_a_long_array_of_strings_in_bounded_memory() {
    let dir = TempDir::new("args-policy-strings");
    let script = "import sys, json\nprint(json.dumps({\"read\": len(sys.stdin.read())}))\n";
    let manifest = crate::python_probe(&dir, "probe", &[], 60, script);
    let manifest = manifest.to_str().expect("path");
    let count = (8 * MIB as usize - 10) / 3;
    let text = format!("{{\"a\": [{}\"\"]}}", "\"\",".repeat(count - 1));
    let input = text.len() as u64;
    let args = dir.write("args.json", &text);
    let args = args.to_str().expect("path");
    let started = std::time::Instant::now();
    let (output, peak) = measured(
        dir.path(),
        &["run", manifest, "probe", "--args-file", args],
        no_input,
    );
    let took = started.elapsed();
    assert_eq!(output.code, 0, "{}\n{}", output.stdout, output.stderr);
    assert_eq!(output.json()["success"], true, "{}", output.stdout);
    assert_within("run with an array of empty strings", peak, input);
    assert!(
        took < std::time::Duration::from_secs(60),
        "run took {took:?} on {input} bytes of arguments"
    );
}

/// Point 15: an MCP document of 50,000 tools that each repeat their
/// `name` key (1.2 MB) took 164 MB (126×) to lint, as every tool's IR,
/// empty parameter schema, parsed value and findings stacked up. Scaled
/// up here, not down, so that the bound stays well above the debug
/// build's own baseline: every command stays within 50× and reports the
/// duplicates.
#[test]
fn many_tools_with_duplicate_keys_stay_in_bounded_memory() {
    let dir = TempDir::new("duplicate-keys");
    let tool = r#"{"name":"a","name":"a"}"#;
    let text = format!("{{\"tools\":[{}]}}", vec![tool; 150_000].join(","));
    let input = text.len() as u64;
    dir.write("tools.json", &text);
    let commands: [&[&str]; 4] = [
        &["lint", "--input-format", "mcp", "tools.json"],
        &[
            "lint",
            "--input-format",
            "mcp",
            "--format",
            "json",
            "tools.json",
        ],
        &[
            "convert",
            "--input-format",
            "mcp",
            "--to",
            "openai",
            "tools.json",
            "-o",
            "out.json",
        ],
        &[
            "gen",
            "--input-format",
            "mcp",
            "openai",
            "tools.json",
            "-o",
            "gen.json",
        ],
    ];
    for args in commands {
        let (output, peak) = measured(dir.path(), args, no_input);
        assert_eq!(output.code, 1, "{args:?}\n{}", output.stderr);
        let said = format!("{}{}", output.stdout, output.stderr);
        assert!(
            said.contains("duplicate-key") || said.contains("TC002"),
            "{args:?}: {}",
            &said[..said.len().min(2000)]
        );
        assert_within(&args.join(" "), peak, input);
    }
}
