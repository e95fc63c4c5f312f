//! Warm Python (issue 15, point 6): calls forked from a server that
//! imported the tool once keep the isolation of one interpreter per call,
//! and answer as cold calls do.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolc::run::{CancelToken, ErrorCode, Runner, RunnerOptions, Support, ToolResult};

use crate::run::expect_error;
use crate::{TempDir, root};

/// An AgentStack package whose functions report on their process and
/// misbehave on request.
const PACKAGE: &str = r#"import os
import subprocess
import sys
import tempfile
import time

COUNT = 0


def bump() -> int:
    """Add one to a module global and return it."""
    global COUNT
    COUNT += 1
    return COUNT


def whoami() -> dict:
    """The call's process, its parent, its group and its TMPDIR."""
    return {
        "pid": os.getpid(),
        "ppid": os.getppid(),
        "pgid": os.getpgid(0),
        "tmpdir": os.environ["TMPDIR"],
        "gettempdir": tempfile.gettempdir(),
        "cwd": os.getcwd(),
    }


def hang() -> str:
    """Start a grandchild, say its pid, and never return."""
    child = subprocess.Popen(["sleep", "120"])
    print(f"grandchild {child.pid}", file=sys.stderr, flush=True)
    time.sleep(120)
    return "woke"


def nap(seconds: float) -> int:
    """Sleep, then say which process slept.

    Args:
        seconds: How long.
    """
    time.sleep(seconds)
    return os.getppid()


def trespass() -> dict:
    """Write in the call's own directory, then beside it."""
    own = os.path.join(os.environ["TMPDIR"], "mine")
    with open(own, "w") as file:
        file.write("x")
    root = os.path.dirname(os.environ["TMPDIR"])
    outcome = {"own": os.path.exists(own)}
    for name, attempt in [
        ("root_write", lambda: open(os.path.join(root, "intruder"), "w").close()),
        ("root_list", lambda: os.listdir(root)),
    ]:
        try:
            attempt()
            outcome[name] = "allowed"
        except PermissionError:
            outcome[name] = "denied"
    return outcome


def unjson() -> object:
    """Return something JSON cannot hold."""
    return {1, 2}


def crash() -> str:
    """Print on stderr, then leave without an answer."""
    print("about to leave", file=sys.stderr, flush=True)
    os._exit(3)


def hog() -> int:
    """Ask for a gigabyte."""
    return len(bytearray(1 << 30))


def chatter(size: int) -> str:
    """Return a long text.

    Args:
        size: How many bytes.
    """
    return "x" * size
"#;

const CONFIG: &str = r#"{"name": "warmprobe", "category": "testing", "tools": {
    "bump": {"actions": ["read"]},
    "whoami": {"actions": ["read"]},
    "hang": {"actions": ["read"]},
    "nap": {"actions": ["read"]},
    "trespass": {"actions": ["read"]},
    "unjson": {"actions": ["read"]},
    "crash": {"actions": ["read"]},
    "hog": {"actions": ["read"]},
    "chatter": {"actions": ["read"]}
}}"#;

fn package(name: &str) -> TempDir {
    let temp = TempDir::new(name);
    temp.write("warmprobe/config.json", CONFIG);
    temp.write("warmprobe/__init__.py", PACKAGE);
    temp
}

fn manifest(temp: &TempDir) -> PathBuf {
    temp.path().join("warmprobe/config.json")
}

fn runner(manifest: &Path, options: RunnerOptions) -> Runner {
    Runner::load(&[manifest.to_path_buf()], options)
        .unwrap_or_else(|e| panic!("cannot load {}: {e}", manifest.display()))
}

fn warm(manifest: &Path) -> Runner {
    runner(manifest, RunnerOptions::default())
}

fn output(result: &ToolResult) -> Value {
    assert!(result.success, "{}", result.to_json_line());
    result.output.clone().unwrap_or(Value::Null)
}

fn whoami(runner: &Runner) -> (i32, i32, i32) {
    let out = output(&runner.call("whoami", json!({})));
    let number = |key: &str| out[key].as_i64().unwrap_or_else(|| panic!("{out}")) as i32;
    (number("pid"), number("ppid"), number("pgid"))
}

fn process_alive(pid: i32) -> bool {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let state = status.rsplit(')').next().unwrap_or("").trim_start();
    !state.starts_with('Z')
}

fn wait_gone(pid: i32, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while process_alive(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!process_alive(pid), "{what} ({pid}) is still running");
}

/// The pid, as this test sees it, of the process of a server whose root
/// is `root` (found by the TMPDIR toolc gave it) and whose pid in its own
/// PID namespace is `inner` (the last of `NSpid`); `None` when there is
/// none alive.
fn host_pid(root: &Path, inner: i32) -> Option<i32> {
    let wanted = format!("TMPDIR={}", root.display());
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .find(|pid| {
            let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
            let own = status
                .lines()
                .find_map(|line| line.strip_prefix("NSpid:"))
                .and_then(|pids| pids.split_whitespace().last()?.parse::<i32>().ok());
            own == Some(inner)
                && process_alive(*pid)
                && std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|env| {
                    env.split(|b| *b == 0)
                        .any(|var| var.starts_with(wanted.as_bytes()))
                })
        })
}

/// The server of `runner`'s `whoami`: its scratch root and its pid as
/// this test sees it (it is process 1 of its own PID namespace).
fn server_of(runner: &Runner) -> (PathBuf, i32) {
    let out = output(&runner.call("whoami", json!({})));
    let tmpdir = PathBuf::from(out["tmpdir"].as_str().unwrap());
    let root = tmpdir.parent().unwrap().to_path_buf();
    let inner = out["ppid"].as_i64().unwrap() as i32;
    assert_eq!(inner, 1, "the server is its namespace's init: {out}");
    let pid = host_pid(&root, inner)
        .unwrap_or_else(|| panic!("no server process for {}", root.display()));
    (root, pid)
}

#[test]
fn a_module_global_changed_by_one_call_is_not_seen_by_the_next() {
    let temp = package("warm-global");
    let runner = warm(&manifest(&temp));
    for _ in 0..3 {
        assert_eq!(output(&runner.call("bump", json!({}))), json!(1));
    }
    // The calls came from one server: the import ran once.
    let (first, server, group) = whoami(&runner);
    let (second, again, _) = whoami(&runner);
    assert_eq!(server, again, "both calls are children of one server");
    assert_ne!(first, second, "each call is a fresh child");
    assert_eq!(group, first, "the child leads its own process group");
}

#[test]
fn each_call_has_its_own_scratch_directory_and_cannot_write_beside_it() {
    let temp = package("warm-scratch");
    let runner = warm(&manifest(&temp));
    assert!(
        matches!(runner.sandbox_support(), Support::Landlock(_)),
        "this kernel has no Landlock: the per-call layer cannot be checked"
    );
    let first = output(&runner.call("whoami", json!({})));
    let second = output(&runner.call("whoami", json!({})));
    assert_ne!(first["tmpdir"], second["tmpdir"]);
    assert_eq!(first["tmpdir"], first["gettempdir"]);
    // The manifest's directory is the working directory, as when cold.
    let dir = std::fs::canonicalize(temp.path().join("warmprobe")).unwrap();
    assert_eq!(first["cwd"], json!(dir));
    // The directory is gone once its call is over.
    let tmpdir = PathBuf::from(first["tmpdir"].as_str().unwrap());
    assert!(!tmpdir.exists(), "{} outlived its call", tmpdir.display());
    let result = runner.call("trespass", json!({}));
    assert_eq!(
        output(&result),
        json!({"own": true, "root_write": "denied", "root_list": "denied"})
    );
    assert_eq!(
        result.metadata.sandbox.map(|s| s.as_str()),
        Some("namespaces+landlock")
    );
}

/// With the sandbox off, no Landlock layer is claimed or applied: the
/// result says "none" and the call may write beside its directory.
#[test]
fn without_the_sandbox_no_layer_is_claimed() {
    let temp = package("warm-unsandboxed");
    let runner = runner(
        &manifest(&temp),
        RunnerOptions {
            sandbox: false,
            ..RunnerOptions::default()
        },
    );
    let result = runner.call("trespass", json!({}));
    assert_eq!(
        output(&result),
        json!({"own": true, "root_write": "allowed", "root_list": "allowed"})
    );
    assert_eq!(result.metadata.sandbox.map(|s| s.as_str()), Some("none"));
}

#[test]
fn a_hung_call_is_killed_with_its_group_and_the_server_serves_the_next() {
    let temp = package("warm-hang");
    let runner = runner(
        &manifest(&temp),
        RunnerOptions {
            timeout: Some(Duration::from_secs(1)),
            ..RunnerOptions::default()
        },
    );
    let (root, server) = server_of(&runner);
    let result = runner.call("hang", json!({}));
    let error = expect_error(&result, ErrorCode::Timeout);
    let stderr = error.details["stderr"].as_str().expect("the tool's stderr");
    let grandchild: i32 = stderr
        .trim()
        .strip_prefix("grandchild ")
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no grandchild pid in {stderr:?}"));
    // Its pid is the server's namespace's: found from outside, if alive.
    let deadline = Instant::now() + Duration::from_secs(5);
    while host_pid(&root, grandchild).is_some() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        host_pid(&root, grandchild),
        None,
        "the hung call's grandchild is still running"
    );
    assert!(process_alive(server), "the server died with the call");
    assert_eq!(
        server_of(&runner),
        (root.clone(), server),
        "the next call reuses the server"
    );

    // Cancelled from another thread: the call and its group are killed;
    // a cancelled call takes its server along (its caller is most often
    // stopping), and the next call gets another.
    let token = CancelToken::new();
    let canceller = token.clone();
    let started = Instant::now();
    let result = std::thread::scope(|scope| {
        scope.spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            canceller.cancel();
        });
        runner.call_with("hang", json!({}), &token)
    });
    let error = expect_error(&result, ErrorCode::ExecutionError);
    assert_eq!(
        error.details["cancelled"],
        json!(true),
        "{}",
        result.to_json_line()
    );
    assert!(started.elapsed() < Duration::from_millis(900));
    wait_gone(server, "the server of a cancelled call");
    assert_ne!(server_of(&runner).0, root, "another server answers");
}

#[test]
fn a_killed_server_is_restarted_at_the_next_call() {
    let temp = package("warm-crash");
    let runner = warm(&manifest(&temp));
    let (root, server) = server_of(&runner);
    // SAFETY: signalling the server this test's runner started.
    unsafe {
        libc::kill(server, libc::SIGKILL);
    }
    wait_gone(server, "the killed server");
    assert_ne!(server_of(&runner).0, root, "a new server answers");
    assert_eq!(output(&runner.call("bump", json!({}))), json!(1));
}

#[test]
fn an_edited_source_file_is_picked_up_at_the_next_call() {
    let temp = TempDir::new("warm-edit");
    let tool = r#"{"name": "version", "description": "Say the version.", "entrypoint": "main.py", "parameters": {"type": "object", "properties": {}}}"#;
    temp.write("tool.json", tool);
    temp.write("helper.py", "VERSION = 'one'\n");
    temp.write(
        "main.py",
        "import helper\n\n\ndef run(params: dict) -> str:\n    return 'main 1, helper ' + helper.VERSION\n",
    );
    let runner = warm(&temp.path().join("tool.json"));
    let call = || output(&runner.call("version", json!({})));
    assert_eq!(call(), json!("main 1, helper one"));
    assert_eq!(call(), json!("main 1, helper one"));
    temp.write(
        "main.py",
        "import helper\n\n\ndef run(params: dict) -> str:\n    return 'main 2, helper ' + helper.VERSION\n",
    );
    assert_eq!(call(), json!("main 2, helper one"));
    // A module the tool imports from its directory counts too.
    temp.write("helper.py", "VERSION = 'two'\n");
    assert_eq!(call(), json!("main 2, helper two"));
}

#[test]
fn concurrent_calls_run_side_by_side_in_one_server() {
    let temp = package("warm-threads");
    let runner = warm(&manifest(&temp));
    let (_, server, _) = whoami(&runner);
    let started = Instant::now();
    let parents: Vec<Value> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..6)
            .map(|_| scope.spawn(|| output(&runner.call("nap", json!({"seconds": 0.5})))))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(
        parents.iter().all(|p| *p == json!(server)),
        "{parents:?} (server {server})"
    );
    // Six half-second naps, side by side, well under the three seconds
    // they would take in turn.
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn servers_end_with_their_runner() {
    let temp = package("warm-drop");
    let runner = warm(&manifest(&temp));
    let (server_root, server) = server_of(&runner);
    assert!(server_root.exists());
    drop(runner);
    wait_gone(server, "the server of a dropped runner");
    assert!(
        !server_root.exists(),
        "{} outlived its server",
        server_root.display()
    );
}

/// `toolc run` with a warm call running, then `signal`: the processes of
/// the call, its server's included, are gone after it, and the scratch
/// root too, or (SIGKILL: toolc cannot clean up, and its server, the init
/// of its PID namespace, gets SIGKILL too) only the one root is left, as
/// a cold call's scratch directory is.
fn signalled_toolc_leaves_nothing_running(signal: libc::c_int) {
    let temp = package(&format!("warm-toolc-signal-{signal}"));
    let tmp = temp.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let dir = std::fs::canonicalize(temp.path().join("warmprobe")).unwrap();
    let mut toolc = Command::new(env!("CARGO_BIN_EXE_toolc"))
        .args(["run", "--timeout", "120", "--args", "{}"])
        .arg(manifest(&temp))
        .arg("hang")
        .env("TMPDIR", &tmp)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The tool's processes: those working in the package's directory.
    let in_package = || -> Vec<i32> {
        std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
            .filter(|pid| {
                std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|cwd| cwd == dir)
                    && process_alive(*pid)
            })
            .collect()
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    // The server, the call's child and its grandchild `sleep`.
    while in_package().len() < 3 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let processes = in_package();
    assert!(processes.len() >= 3, "{processes:?}");
    // SAFETY: signalling the toolc this test started.
    unsafe {
        libc::kill(toolc.id() as i32, signal);
    }
    toolc.wait().unwrap();
    for pid in processes {
        wait_gone(pid, "a process of a signalled toolc's call");
    }
    // What is left in TMPDIR: directories and, beneath them, files.
    let leftovers = || -> (usize, usize) {
        let roots: Vec<PathBuf> = std::fs::read_dir(&tmp)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        let inside = roots
            .iter()
            .map(|r| std::fs::read_dir(r).map_or(0, |d| d.count()))
            .sum();
        (roots.len(), inside)
    };
    let allowed = if signal == libc::SIGKILL { 1 } else { 0 };
    let deadline = Instant::now() + Duration::from_secs(5);
    while (leftovers().0 > allowed || (allowed == 0 && leftovers().1 > 0))
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    let (roots, inside) = leftovers();
    assert!(roots <= allowed, "{roots} scratch roots outlived toolc");
    if signal != libc::SIGKILL {
        assert_eq!(inside, 0, "files in the scratch root outlived toolc");
    }
}

#[test]
fn servers_end_with_a_killed_toolc() {
    signalled_toolc_leaves_nothing_running(libc::SIGKILL);
}

#[test]
fn servers_end_with_a_terminated_toolc() {
    signalled_toolc_leaves_nothing_running(libc::SIGTERM);
}

/// The same calls, warm and cold, give the same results (but for their
/// duration).
#[test]
fn warm_and_cold_answer_alike() {
    let temp = package("warm-alike");
    let probe = root().join("fixtures/run/agentstack/probe/config.json");
    let greet = root().join("fixtures/run/nora/greet/tool.json");
    let ours = manifest(&temp);
    // A script whose import fails: each call reports the import's error.
    temp.write(
        "broken/tool.json",
        r#"{"name": "broken", "description": "Fail to import.", "entrypoint": "main.py", "parameters": {"type": "object", "properties": {}}}"#,
    );
    temp.write(
        "broken/main.py",
        "import toolc_no_such_module\n\n\ndef run(params: dict) -> str:\n    return 'unreachable'\n",
    );
    let broken = temp.path().join("broken/tool.json");
    let cases: Vec<(&Path, &str, Value)> = vec![
        (&broken, "broken", json!({})),
        (&broken, "broken", json!({})),
        (&greet, "greet", json!({"name": "Ada"})),
        (&greet, "greet", json!({"name": "Ada", "shout": true})),
        (&greet, "greet", json!({"shout": true})),
        (&probe, "add", json!({"a": 2, "b": 40})),
        (&probe, "divide", json!({"a": 1, "b": 0})),
        (&probe, "divide", json!({"a": 1, "b": 4})),
        (&probe, "token_visible", json!({})),
        (&probe, "read_hostname", json!({})),
        // No network declared: the connection is refused in both modes.
        (&probe, "connect", json!({"port": 9})),
        (&ours, "bump", json!({})),
        (&ours, "unjson", json!({})),
        (&ours, "crash", json!({})),
        (&ours, "hog", json!({})),
        (&ours, "chatter", json!({"size": 100})),
        (&ours, "chatter", json!({"size": 300_000})),
    ];
    let options = |cold: bool| RunnerOptions {
        cold,
        memory: Some(512 << 20),
        max_output: 200_000,
        ..RunnerOptions::default()
    };
    let mut codes = Vec::new();
    for (manifest, tool, arguments) in cases {
        let mut results = [true, false].map(|cold| {
            let mut result = runner(manifest, options(cold)).call(tool, arguments.clone());
            result.metadata.duration_ms = 0;
            result
        });
        assert_eq!(
            results[0].to_json_line(),
            results[1].to_json_line(),
            "{tool} {arguments}: cold, then warm"
        );
        let [cold, _] = &mut results;
        codes.push(cold.error.as_ref().map(|e| e.code.as_str()));
    }
    // The table covers every way a Python call ends.
    for code in [
        None,
        Some("VALIDATION_ERROR"),
        Some("EXECUTION_ERROR"),
        Some("INVALID_OUTPUT"),
        Some("OUTPUT_TOO_LARGE"),
    ] {
        assert!(codes.contains(&code), "{code:?} not among {codes:?}");
    }
}

#[test]
fn toolc_run_cold_and_warm_print_the_same_result() {
    let greet = root().join("fixtures/run/nora/greet/tool.json");
    let greet = greet.to_str().unwrap();
    let run = |extra: &[&str]| {
        let out = crate::Test::new()
            .args(["run", greet, "greet", "--args", r#"{"name": "Ada"}"#])
            .args(extra)
            .run();
        let mut value: Value = serde_json::from_str(out.stdout.trim()).unwrap();
        value["metadata"]["duration_ms"] = json!(0);
        (out.code, value)
    };
    let warm = run(&[]);
    assert_eq!(warm.1["output"], json!("Hello, Ada!"), "{:?}", warm);
    assert_eq!(warm, run(&["--cold"]));
}
