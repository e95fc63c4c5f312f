//! The Python of the interop tests: the test venv that scripts/test keeps,
//! with the providers' SDKs (mcp, openai, openai-agents, anthropic,
//! google-genai), pydantic and jsonschema pinned in
//! scripts/test-requirements.txt. A test that needs it fails, never skips,
//! when it is missing.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The venv's python: `TOOLC_TEST_PYTHON`; else the test fails.
pub fn python() -> PathBuf {
    let path = std::env::var_os("TOOLC_TEST_PYTHON")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            panic!(
                "TOOLC_TEST_PYTHON is not set: run the tests with scripts/test, which installs \
                 the providers' SDKs and pydantic into target/test-venv"
            )
        });
    assert!(
        path.is_file(),
        "TOOLC_TEST_PYTHON={} is not a file",
        path.display()
    );
    path
}

/// Runs `script` with the venv's python, `input` on its standard input and
/// `args` after it; returns its standard output, or fails the test with
/// everything it printed.
pub fn run_python(script: &str, args: &[&str], input: &str) -> String {
    let mut child = Command::new(python())
        .arg("-c")
        .arg(script)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start python");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write to python");
    let output = child.wait_with_output().expect("python runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "python failed ({}):\n{}\n{}",
        output.status,
        stdout,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

#[test]
fn the_venv_has_the_pinned_sdks() {
    let requirements = std::fs::read_to_string(crate::root().join("scripts/test-requirements.txt"))
        .expect("scripts/test-requirements.txt");
    let listed = run_python(
        "import importlib.metadata as m, sys\n\
         for name in sys.argv[1:]: print(name + '==' + m.version(name))",
        &[
            "mcp",
            "openai",
            "openai-agents",
            "anthropic",
            "google-genai",
            "pydantic",
            "jsonschema",
        ],
        "",
    );
    for line in listed.lines() {
        assert!(
            requirements.lines().any(|pinned| pinned.trim() == line),
            "{line} is installed but scripts/test-requirements.txt pins another version"
        );
    }
}

/// Waits at most `limit` for `child`: its exit code, or `None` when it
/// had to be killed (or was ended by a signal).
pub fn wait_for(child: &mut Child, limit: Duration) -> Option<i32> {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status.code();
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs the Python driver `script` (a file under tests/integration) with
/// the venv's python, a scenario and its JSON configuration, for at most
/// two minutes; returns the JSON it printed, or fails the test with
/// everything it printed.
pub fn drive(script: &str, scenario: &str, config: &Value) -> Value {
    let mut child = Command::new(python())
        .arg(crate::root().join("tests/integration").join(script))
        .arg(scenario)
        .arg(config.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the Python driver");
    let stdout = child.stdout.take().expect("stdout");
    let stderr = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || std::io::read_to_string(stdout).unwrap_or_default());
    let err = std::thread::spawn(move || std::io::read_to_string(stderr).unwrap_or_default());
    let status = wait_for(&mut child, Duration::from_secs(120));
    let (out, err) = (out.join().unwrap(), err.join().unwrap());
    assert_eq!(
        status,
        Some(0),
        "{script} {scenario} ({config}) failed or overran:\n{out}\n{err}"
    );
    serde_json::from_str(out.trim())
        .unwrap_or_else(|e| panic!("{script} printed no JSON ({e}):\n{out}\n{err}"))
}
