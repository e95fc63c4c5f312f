//! Interpreters outside the system directories under the sandbox (issue
//! 15, point 4): a `#!/usr/bin/env python3` tool with a virtual
//! environment first on PATH, a program named bare on PATH, and a
//! non-Python interpreter whose installation prefix becomes readable while
//! a directory beside it stays closed.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::TempDir;

/// An agentcli manifest of one tool running `command`, in `dir`.
fn manifest(dir: &TempDir, tool: &str, command: &[&str]) -> PathBuf {
    let manifest = json!({
        "tools": [{
            "name": tool,
            "description": "Report what the interpreter sees.",
            "schema": {
                "type": "object",
                "properties": {},
                "required": [],
                "additionalProperties": false
            },
            "command": command,
            "timeoutSec": 20
        }]
    });
    dir.write("tools.json", serde_json::to_vec_pretty(&manifest).unwrap())
}

fn executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// `PATH` with `first` in front of toolc's own.
fn path_with(first: &Path) -> String {
    let rest = std::env::var("PATH").unwrap_or_default();
    format!("{}:{rest}", first.display())
}

/// Runs `toolc run MANIFEST TOOL --args {} EXTRA...` with `path` as PATH;
/// the exit code and the result line.
fn run_tool(manifest: &Path, tool: &str, path: &str, extra: &[&str]) -> (i32, Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_toolc"))
        .arg("run")
        .arg(manifest)
        .args([tool, "--args", "{}"])
        .args(extra)
        .env("PATH", path)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let result: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "no result line ({e}): {}\n{stderr}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    (out.status.code().unwrap_or(-1), result, stderr)
}

/// A virtual environment made with the machine's `python3` (without pip:
/// nothing is downloaded), holding a module of its own in site-packages.
fn venv(dir: &TempDir) -> PathBuf {
    let venv = dir.path().join("venv");
    let made = Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .output()
        .unwrap_or_else(|e| panic!("this test needs python3 on PATH to make a venv: {e}"));
    assert!(
        made.status.success(),
        "python3 -m venv failed: {}",
        String::from_utf8_lossy(&made.stderr)
    );
    let lib = venv.join("lib");
    let version = std::fs::read_dir(&lib)
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with("python"))
        .unwrap_or_else(|| panic!("no lib/pythonX.Y in {}", venv.display()));
    std::fs::write(
        version.path().join("site-packages/toolc_venv_only.py"),
        "VALUE = 'from the venv'\n",
    )
    .unwrap();
    venv
}

const WHERE: &str = "import json, sys\n\
import toolc_venv_only\n\
print(json.dumps({'prefix': sys.prefix, 'base_prefix': sys.base_prefix, \
'json': json.dumps([1]), 'venv_only': toolc_venv_only.VALUE}))\n";

fn assert_ran_in_venv(result: &Value, venv: &Path, stderr: &str) {
    assert_eq!(result["success"], json!(true), "{result}\n{stderr}");
    assert_eq!(
        result["metadata"]["sandbox"],
        json!("namespaces+landlock"),
        "{result}"
    );
    let output = &result["output"];
    assert_eq!(output["prefix"], json!(venv.to_str().unwrap()), "{result}");
    assert_ne!(output["base_prefix"], output["prefix"], "{result}");
    assert_eq!(output["json"], json!("[1]"));
    assert_eq!(output["venv_only"], json!("from the venv"));
}

/// `tools/bin/where.py` of `tool` with the `#!` line `shebang` (written
/// over any earlier one), executable, and the manifest that runs it as
/// the tool `where`.
fn where_script(tool: &TempDir, shebang: &str) -> PathBuf {
    let script = tool.write("tools/bin/where.py", format!("{shebang}\n{WHERE}"));
    executable(&script);
    manifest(tool, "where", &["./tools/bin/where.py"])
}

#[test]
fn a_shebang_tool_runs_sandboxed_with_a_venv_first_on_path() {
    let envs = TempDir::new("interp-venv");
    let venv = venv(&envs);
    let tool = TempDir::new("interp-venv-tool");
    let manifest = where_script(&tool, "#!/usr/bin/env python3");
    let (code, result, stderr) = run_tool(&manifest, "where", &path_with(&venv.join("bin")), &[]);
    assert_ran_in_venv(&result, &venv, &stderr);
    assert_eq!(code, 0);

    // `env -S` with an option before the name resolves alike.
    where_script(&tool, "#!/usr/bin/env -S -u PYTHONWARNINGS python3 -B");
    let (_, result, stderr) = run_tool(&manifest, "where", &path_with(&venv.join("bin")), &[]);
    assert_ran_in_venv(&result, &venv, &stderr);
}

#[test]
fn a_venv_shipped_inside_the_tools_directory_runs_sandboxed() {
    // Not asked what it reads (its author could make it answer anything):
    // the installations of its symlink hops are enough.
    let tool = TempDir::new("interp-inner");
    let venv = venv(&tool);
    let manifest = where_script(&tool, "#!/usr/bin/env python3");
    let (code, result, stderr) = run_tool(&manifest, "where", &path_with(&venv.join("bin")), &[]);
    assert_ran_in_venv(&result, &venv, &stderr);
    assert_eq!(code, 0);
}

#[test]
fn a_program_named_bare_on_path_runs_sandboxed_from_a_venv() {
    let envs = TempDir::new("interp-bare");
    let venv = venv(&envs);
    let tool = TempDir::new("interp-bare-tool");
    tool.write("where.py", WHERE);
    // agentcli itself wants an absolute path or ./tools/bin/: this tool
    // is what other formats and the library may run.
    tool.write("toolc.toml", "[rules]\n\"command-outside-bin\" = \"off\"\n");
    let manifest = manifest(&tool, "where", &["python3", "where.py"]);
    let (code, result, stderr) = run_tool(&manifest, "where", &path_with(&venv.join("bin")), &[]);
    assert_ran_in_venv(&result, &venv, &stderr);
    assert_eq!(code, 0);

    // `env` as the program looks its command up alike.
    let manifest = crate::interpreters::manifest(
        &tool,
        "where",
        &[
            "/usr/bin/env",
            "-u",
            "PYTHONWARNINGS",
            "python3",
            "where.py",
        ],
    );
    let (_, result, stderr) = run_tool(&manifest, "where", &path_with(&venv.join("bin")), &[]);
    assert_ran_in_venv(&result, &venv, &stderr);
}

/// An installation outside the system directories: `inst/bin/fakeinterp`
/// (a shell script, itself run through `#!/bin/sh`) reads its own
/// `inst/lib/fakeinterp/greeting.txt`, then runs the lines of the script
/// it was given: `probe FILE` reports whether FILE is readable, `need
/// FILE` fails unless it is.
fn fake_installation(root: &TempDir) -> PathBuf {
    let interp = root.write(
        "inst/bin/fakeinterp",
        r#"#!/bin/sh
here=$(dirname "$0")
greeting=$(cat "$here/../lib/fakeinterp/greeting.txt") || exit 3
probe=false
while read -r verb file; do
  case "$verb" in
    probe) if cat "$file" >/dev/null 2>&1; then probe=true; fi ;;
    need) cat "$file" >/dev/null || exit 4 ;;
  esac
done < "$1"
printf '{"greeting": "%s", "probe_readable": %s}\n' "$greeting" "$probe"
"#,
    );
    executable(&interp);
    root.write("inst/lib/fakeinterp/greeting.txt", "hello from lib");
    root.write("outside/secret.txt", "not for the tool");
    root.path().join("inst/bin")
}

#[test]
fn a_foreign_interpreters_prefix_is_readable_and_its_sibling_is_not() {
    let root = TempDir::new("interp-fake");
    let bin = fake_installation(&root);
    let outside = root.path().join("outside/secret.txt");
    let tool = TempDir::new("interp-fake-tool");
    let script = tool.write(
        "tools/bin/probe.fake",
        format!("#!/usr/bin/env fakeinterp\nprobe {}\n", outside.display()),
    );
    executable(&script);
    let manifest = manifest(&tool, "probe", &["./tools/bin/probe.fake"]);
    let (code, result, stderr) = run_tool(&manifest, "probe", &path_with(&bin), &[]);
    assert_eq!(result["success"], json!(true), "{result}\n{stderr}");
    assert_eq!(
        result["metadata"]["sandbox"],
        json!("namespaces+landlock"),
        "{result}"
    );
    assert_eq!(
        result["output"],
        json!({"greeting": "hello from lib", "probe_readable": false}),
        "{result}"
    );
    assert_eq!(code, 0);

    // The control: unconfined, the sibling is readable.
    let (_, result, _) = run_tool(&manifest, "probe", &path_with(&bin), &["--no-sandbox"]);
    assert_eq!(result["output"]["probe_readable"], json!(true), "{result}");
}

#[test]
fn a_blocked_interpreter_is_named_with_the_way_to_let_it_through() {
    let root = TempDir::new("interp-blocked");
    let bin = fake_installation(&root);
    let outside = root.path().join("outside");
    let tool = TempDir::new("interp-blocked-tool");
    let script = tool.write(
        "tools/bin/needy.fake",
        format!(
            "#!/usr/bin/env fakeinterp\nneed {}\n",
            outside.join("secret.txt").display()
        ),
    );
    executable(&script);
    let manifest = manifest(&tool, "needy", &["./tools/bin/needy.fake"]);
    let (_, result, stderr) = run_tool(&manifest, "needy", &path_with(&bin), &[]);
    assert_eq!(result["success"], json!(false), "{result}\n{stderr}");
    let message = result["error"]["message"].as_str().unwrap();
    let interp = bin.join("fakeinterp");
    assert!(
        message.contains(interp.to_str().unwrap()),
        "the message does not name the interpreter: {message}"
    );
    assert!(message.contains("--allow-read"), "{message}");

    // As it says: --allow-read lets the interpreter through.
    let (code, result, stderr) = run_tool(
        &manifest,
        "needy",
        &path_with(&bin),
        &["--allow-read", outside.to_str().unwrap()],
    );
    assert_eq!(result["success"], json!(true), "{result}\n{stderr}");
    assert_eq!(result["output"]["greeting"], json!("hello from lib"));
    assert_eq!(code, 0);
}

/// A file of the tool's own that is merely named `env` is run as what it
/// is: its words are not taken as a command whose installation the
/// sandbox would open (here a directory beside the tool, with a secret).
#[test]
fn a_file_named_env_is_not_read_as_env() {
    let root = TempDir::new("interp-fake-env");
    let outside = root.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "OUTSIDE-SECRET").unwrap();
    let prog = root.write("outside/prog", "#!/bin/sh\nexit 0\n");
    executable(&prog);
    let tool = TempDir::new("interp-fake-env-tool");
    let fake_env = tool.write(
        "tools/bin/env",
        format!(
            "#!/bin/sh\ns=$(cat '{}' 2>&1 | tr -d '\\n\"\\\\')\nprintf '{{\"read\": \"%s\"}}\\n' \"$s\"\n",
            outside.join("secret.txt").display()
        ),
    );
    executable(&fake_env);
    let by_argv = manifest(&tool, "probe", &["./tools/bin/env", prog.to_str().unwrap()]);
    let path = std::env::var("PATH").unwrap_or_default();
    let (_, result, stderr) = run_tool(&by_argv, "probe", &path, &[]);
    assert_eq!(result["success"], json!(true), "{result}\n{stderr}");
    let read = result["output"]["read"].as_str().unwrap();
    assert!(read.contains("Permission denied"), "{result}");
    // The same through a `#!` line naming the fake env.
    let script = tool.write(
        "tools/bin/run",
        format!("#!./tools/bin/env {}\n", prog.display()),
    );
    executable(&script);
    let by_shebang = manifest(&tool, "probe", &["./tools/bin/run"]);
    let (_, result, stderr) = run_tool(&by_shebang, "probe", &path, &[]);
    assert_eq!(result["success"], json!(true), "{result}\n{stderr}");
    let read = result["output"]["read"].as_str().unwrap();
    assert!(read.contains("Permission denied"), "{result}");
}

/// A file named `python3` may be anything: when toolc asks it what it
/// reads, it runs in the tool's namespaces, where toolc's process and its
/// environment do not exist. Its answer (quoted in the result when the
/// tool then fails) carries whatever it could read.
#[test]
fn an_interpreter_asked_what_it_reads_cannot_see_toolc() {
    let root = TempDir::new("interp-lying-python");
    let python = root.write(
        "fake/bin/python3",
        "#!/bin/sh\n\
         if [ \"$1\" = \"-I\" ]; then\n\
           printf 'LEAK-PROBE ppid=%s ' \"$PPID\"\n\
           for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < \"$f\" 2>/dev/null | grep CANARY | tr '\\n' ' '; done\n\
           echo\n\
           exit 0\n\
         fi\n\
         echo \"ModuleNotFoundError: No module named 'encodings'\" >&2\n\
         exit 1\n",
    );
    executable(&python);
    let tool = TempDir::new("interp-lying-python-tool");
    let script = tool.write("tools/bin/run", format!("#!{}\n", python.display()));
    executable(&script);
    let manifest = manifest(&tool, "probe", &["./tools/bin/run"]);
    let out = Command::new(env!("CARGO_BIN_EXE_toolc"))
        .arg("run")
        .arg(&manifest)
        .args(["probe", "--args", "{}"])
        .env("TOOLC_TEST_CANARY", "CANARY-7f3e1b")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The answer did come back (so a leak would show)...
    assert!(stdout.contains("LEAK-PROBE"), "{stdout}\n{stderr}");
    // ...without toolc's environment in it.
    assert!(!stdout.contains("CANARY-7f3e1b"), "{stdout}");
    assert!(!stderr.contains("CANARY-7f3e1b"), "{stderr}");
}
