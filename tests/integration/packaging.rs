//! toolc as a Python package, the way ruff ships: the wheel maturin makes
//! of the `toolc` binary (pyproject.toml at the root, `bindings = "bin"`),
//! installed with pip into a fresh virtual environment; and the pre-commit
//! hooks of `pre-commit/` (published as the repository toolc-pre-commit,
//! a package that depends on that wheel), run by pre-commit itself on
//! sample repositories.
//!
//! All of it offline. maturin and pre-commit are the test venv's
//! (`TOOLC_TEST_PYTHON`, scripts/test). maturin packs the binary these
//! tests run: `--profile` the one cargo built it with and `--locked
//! --offline`, so cargo finds it fresh and compiles nothing (checked);
//! `--auditwheel skip`, as a test build is not for distribution. The wheel
//! is built once per run and shared. pip installs it with `--no-index`;
//! pre-commit's pip is held to PIP_NO_INDEX and finds the wheel, and the
//! setuptools wheel the hook package builds with (`TOOLC_TEST_WHEELS`,
//! fetched by scripts/test), through PIP_FIND_LINKS.

use super::{Output, SYSTEM_PYTHON, TempDir, root, run_within};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const VERSION: &str = env!("CARGO_PKG_VERSION");
const REPOSITORY: &str = env!("CARGO_PKG_REPOSITORY");

/// How long maturin, pip, git or pre-commit may take before the test calls
/// it a hang (the first pre-commit run installs the hook's environment).
const LIMIT: Duration = Duration::from_secs(600);

/// A program of the test venv (scripts/test installs it from
/// scripts/test-requirements.txt); else the test fails.
fn venv_tool(name: &str) -> PathBuf {
    let python = std::env::var_os("TOOLC_TEST_PYTHON")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .expect(
            "TOOLC_TEST_PYTHON is not set: run the tests with scripts/test, which installs \
             maturin and pre-commit into target/test-venv",
        );
    let tool = python.with_file_name(name);
    assert!(
        tool.is_file(),
        "{} is missing: scripts/test installs it",
        tool.display()
    );
    tool
}

/// Runs `command`; fails the test unless it exits 0.
fn succeed(command: &mut Command, what: &str) -> Output {
    let output = run_within(command, what, LIMIT);
    assert_eq!(
        output.code, 0,
        "{what} failed:\n{}\n{}",
        output.stdout, output.stderr
    );
    output
}

/// An empty directory in cargo's scratch space for integration tests, for
/// what the tests of one run share.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("packaging")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create a scratch directory");
    dir
}

/// The cargo profile the tests' toolc was built with (target/debug is the
/// dev profile's), so that maturin packs that very binary.
fn profile() -> String {
    let binary = Path::new(env!("CARGO_BIN_EXE_toolc"));
    let dir = binary
        .parent()
        .and_then(Path::file_name)
        .expect("toolc is at target/PROFILE/toolc")
        .to_string_lossy();
    if dir == "debug" {
        "dev".to_string()
    } else {
        dir.into_owned()
    }
}

/// A `cargo` for maturin (in a directory of its own, with a count of
/// its replacements in `replaced`): the real one, whose build messages
/// name a hard link of the tests' toolc instead of target/PROFILE/toolc
/// itself. maturin renames the binary cargo names to target/maturin/
/// while it packs it and back after: done to the tests' own binary, every
/// test starting toolc in those seconds found nothing there ("toolc: not
/// found").
fn cargo_for_maturin() -> PathBuf {
    let dir = scratch("cargo");
    let binary = Path::new(env!("CARGO_BIN_EXE_toolc"));
    let linked = dir.join("toolc");
    if std::fs::hard_link(binary, &linked).is_err() {
        std::fs::copy(binary, &linked).expect("copy toolc for maturin");
    }
    let real = std::env::var_os("CARGO")
        .filter(|c| !c.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            let path = std::env::var_os("PATH")?;
            std::env::split_paths(&path)
                .map(|dir| dir.join("cargo"))
                .find(|cargo| cargo.is_file())
        })
        .expect("no cargo: neither $CARGO nor PATH names one");
    let quoted =
        |path: &Path| serde_json::to_string(&path.to_string_lossy()).expect("a path as JSON");
    let script = format!(
        r#"import os, subprocess, sys
needle, linked = {needle}.encode(), {linked}.encode()
real = {real}
child = subprocess.Popen([real] + sys.argv[1:], stdout=subprocess.PIPE,
                         env=dict(os.environ, CARGO=real))
replaced = 0
for line in child.stdout:
    replaced += line.count(needle)
    sys.stdout.buffer.write(line.replace(needle, linked))
    sys.stdout.buffer.flush()
with open({count}, "a") as count:
    count.write("%d\n" % replaced)
sys.exit(child.wait())
"#,
        needle = serde_json::to_string(&quoted(binary)).expect("JSON"),
        linked = serde_json::to_string(&quoted(&linked)).expect("JSON"),
        real = quoted(&real),
        count = quoted(&dir.join("replaced")),
    );
    std::fs::write(dir.join("cargo.py"), script).expect("write the cargo wrapper");
    // An sh trampoline: a `#!` line cannot hold a path with a space.
    let sh_quote = |path: &Path| format!("'{}'", path.display().to_string().replace('\'', r"'\''"));
    let cargo = dir.join("cargo");
    std::fs::write(
        &cargo,
        format!(
            "#!/bin/sh\nexec {} {} \"$@\"\n",
            sh_quote(&venv_tool("python")),
            sh_quote(&dir.join("cargo.py"))
        ),
    )
    .expect("write the cargo trampoline");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755))
        .expect("make the cargo wrapper executable");
    cargo
}

/// toolc's wheel, built once per run from the binary the tests run.
fn wheel() -> &'static Path {
    static WHEEL: OnceLock<PathBuf> = OnceLock::new();
    WHEEL.get_or_init(|| {
        let out = scratch("wheel");
        let mut maturin = Command::new(venv_tool("maturin"));
        // maturin runs $CARGO when it is set.
        let wrapper = cargo_for_maturin();
        maturin
            .args(["build", "--profile", &profile(), "--locked", "--offline"])
            .args(["--auditwheel", "skip", "--out"])
            .arg(&out)
            .env("CARGO", &wrapper)
            .current_dir(root());
        // What cargo sets for a test run and not for a build: a build
        // script that watches one of these (ring's watches
        // CARGO_MANIFEST_DIR) would run again, and all above it be rebuilt.
        for (key, _) in std::env::vars_os() {
            let key = key.to_string_lossy();
            let set_for_tests = ["CARGO_PKG_", "CARGO_BIN_EXE_"]
                .iter()
                .any(|prefix| key.starts_with(prefix))
                || [
                    "CARGO_MANIFEST_DIR",
                    "CARGO_MANIFEST_PATH",
                    "CARGO_CRATE_NAME",
                ]
                .contains(&key.as_ref())
                || ["CARGO_PRIMARY_PACKAGE", "OUT_DIR"].contains(&key.as_ref());
            if set_for_tests {
                maturin.env_remove(&*key);
            }
        }
        let started = Instant::now();
        let built = succeed(&mut maturin, "maturin build");
        eprintln!("maturin build: {:.1?}", started.elapsed());
        let replaced = std::fs::read_to_string(wrapper.with_file_name("replaced"))
            .expect("the cargo wrapper ran");
        assert!(
            replaced.lines().any(|n| n.parse::<u32>().is_ok_and(|n| n > 0)),
            "cargo's messages never named the tests' toolc, so maturin may have moved it: {replaced:?}"
        );
        assert!(
            !built.stderr.contains("Compiling "),
            "cargo compiled again instead of maturin packing the tests' binary:\n{}",
            built.stderr
        );
        let made: Vec<PathBuf> = std::fs::read_dir(&out)
            .expect("read maturin's output")
            .map(|entry| entry.expect("an entry").path())
            .collect();
        match made.as_slice() {
            [wheel] if wheel.extension().is_some_and(|e| e == "whl") => wheel.clone(),
            other => panic!("maturin made {other:?}, not one wheel"),
        }
    })
}

#[test]
fn pip_installs_a_working_toolc_from_the_wheel() {
    let dir = TempDir::new("wheel-venv");
    let venv = dir.path().join("venv");
    succeed(
        Command::new(SYSTEM_PYTHON).args(["-m", "venv"]).arg(&venv),
        "python3 -m venv",
    );
    succeed(
        Command::new(venv.join("bin/python"))
            .args(["-m", "pip", "install", "--no-index", "--quiet"])
            .arg("--disable-pip-version-check")
            .arg(wheel()),
        "pip install toolc's wheel",
    );
    // The binary itself, not a link to the one in target/.
    let installed = venv.join("bin/toolc");
    let kind = std::fs::symlink_metadata(&installed)
        .unwrap_or_else(|e| panic!("{}: {e}", installed.display()))
        .file_type();
    assert!(kind.is_file(), "{} is not a file", installed.display());

    // On PATH, as an activated venv has it.
    let path = std::env::join_paths(std::iter::once(venv.join("bin")).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("a PATH");
    let toolc = |args: &[&str]| {
        let mut command = Command::new("toolc");
        command
            .args(args)
            .env("PATH", &path)
            .env("NO_COLOR", "1")
            .current_dir(root());
        run_within(&mut command, &format!("toolc {args:?}"), LIMIT)
    };
    let version = toolc(&["--version"]);
    assert_eq!(version.code, 0, "{}", version.stderr);
    assert_eq!(version.stdout.trim(), format!("toolc {VERSION}"));

    let lint = toolc(&[
        "lint",
        "--format",
        "json",
        "fixtures/rules/invalid-tool-name/bad",
    ]);
    assert_eq!(lint.code, 1, "{}\n{}", lint.stdout, lint.stderr);
    let report = lint.json();
    let found: Vec<(&str, u64)> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().expect("a rule"),
                d["line"].as_u64().expect("a line"),
            )
        })
        .collect();
    assert_eq!(
        found,
        [("invalid-tool-name", 4), ("invalid-tool-name", 9)],
        "{report}"
    );
}

/// Prints the wheel's file names and its METADATA as JSON.
const READ_WHEEL: &str = "
import json, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    names = wheel.namelist()
    metadata = next(n for n in names if n.endswith('.dist-info/METADATA'))
    print(json.dumps({'names': names, 'metadata': wheel.read(metadata).decode()}))
";

#[test]
fn the_wheel_says_what_toolc_is_and_where_it_lives() {
    let read = succeed(
        Command::new(venv_tool("python"))
            .args(["-c", READ_WHEEL])
            .arg(wheel()),
        "read the wheel",
    );
    let read: serde_json::Value = serde_json::from_str(&read.stdout).expect("JSON");

    // The binary, and the wheel's own records.
    let names: Vec<&str> = read["names"]
        .as_array()
        .expect("names")
        .iter()
        .map(|n| n.as_str().expect("a name"))
        .collect();
    let dist_info = format!("toolc-{VERSION}.dist-info/");
    let script = format!("toolc-{VERSION}.data/scripts/toolc");
    let others: Vec<&&str> = names
        .iter()
        .filter(|n| **n != script && !n.starts_with(&dist_info))
        .collect();
    assert!(names.contains(&script.as_str()), "{names:?}");
    assert!(others.is_empty(), "{others:?}");

    // The header fields of METADATA (`Key: value` lines up to the first
    // blank one), each with all its values; the README follows.
    let metadata = read["metadata"].as_str().expect("METADATA");
    let (head, body) = metadata.split_once("\n\n").expect("a header and a body");
    let mut fields: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for line in head.lines() {
        let (key, value) = line.split_once(": ").expect("Key: value");
        fields.entry(key).or_default().push(value);
    }
    let one = |key: &str| match fields.get(key).map(Vec::as_slice) {
        Some([value]) => *value,
        other => panic!("{key}: {other:?}\n{head}"),
    };
    assert_eq!(one("Name"), "toolc");
    assert_eq!(one("Version"), VERSION);
    assert_eq!(one("Summary"), env!("CARGO_PKG_DESCRIPTION"));
    assert_eq!(one("License"), env!("CARGO_PKG_LICENSE"));
    assert!(one("Requires-Python").starts_with(">="), "{head}");
    assert!(one("Description-Content-Type").starts_with("text/markdown"));
    assert!(body.starts_with("# toolc\n"), "{body:.200}");
    let classifiers = &fields["Classifier"];
    assert!(
        classifiers.contains(&"Programming Language :: Rust"),
        "{classifiers:?}"
    );

    // Every page is the repository's, as Cargo.toml names it.
    let urls: BTreeMap<&str, &str> = fields["Project-URL"]
        .iter()
        .map(|u| u.split_once(", ").expect("Label, URL"))
        .collect();
    let expected: BTreeMap<&str, String> = [
        ("Changelog", format!("{REPOSITORY}/blob/main/CHANGELOG.md")),
        ("Documentation", format!("{REPOSITORY}#readme")),
        ("Issues", format!("{REPOSITORY}/issues")),
        ("Repository", REPOSITORY.to_string()),
    ]
    .into_iter()
    .collect();
    let urls: BTreeMap<&str, String> = urls.into_iter().map(|(k, v)| (k, v.to_string())).collect();
    assert_eq!(urls, expected);
}

/// Prints a YAML file as JSON (PyYAML, from the test venv).
const YAML_AS_JSON: &str = "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1], encoding='utf-8'))))";

#[test]
fn the_hook_package_installs_this_version_of_toolc() {
    let text = std::fs::read_to_string(root().join("pre-commit/pyproject.toml"))
        .expect("pre-commit/pyproject.toml");
    let pyproject: toml::Table = toml::from_str(&text).expect("TOML");
    let project = &pyproject["project"];
    assert_eq!(project["name"].as_str(), Some("toolc-pre-commit"));
    assert_eq!(project["version"].as_str(), Some(VERSION));
    let pin = format!("toolc=={VERSION}");
    assert_eq!(
        project["dependencies"].as_array().map(Vec::as_slice),
        Some([toml::Value::String(pin)].as_slice())
    );
    let hook_repository = format!("{REPOSITORY}-pre-commit");
    assert_eq!(
        project["urls"]["Repository"].as_str(),
        Some(hook_repository.as_str())
    );

    // The hooks: toolc from the package, on the files pre-commit names,
    // as a walk would read them, leaving out what toolc.toml excludes.
    let hooks = succeed(
        Command::new(venv_tool("python"))
            .args(["-c", YAML_AS_JSON])
            .arg(root().join("pre-commit/.pre-commit-hooks.yaml")),
        "read .pre-commit-hooks.yaml",
    );
    let hooks: serde_json::Value = serde_json::from_str(&hooks.stdout).expect("JSON");
    let hooks = hooks.as_array().expect("a list of hooks");
    let ids: Vec<&str> = hooks
        .iter()
        .map(|h| h["id"].as_str().expect("id"))
        .collect();
    assert_eq!(ids, ["toolc-lint", "toolc-fix"]);
    for hook in hooks {
        let entry = hook["entry"].as_str().expect("entry");
        assert!(entry.starts_with("toolc lint "), "{hook}");
        assert!(entry.contains(" --force-exclude"), "{hook}");
        assert!(entry.contains(" --ignore-unknown"), "{hook}");
        assert_eq!(
            entry.contains(" --fix"),
            hook["id"] == "toolc-fix",
            "{hook}"
        );
        assert_eq!(hook["language"], "python", "{hook}");
        assert_eq!(hook["require_serial"], true, "{hook}");
    }
    // One definition of the hooks: the root of this repository has none
    // (pre-commit would build toolc from source for them).
    assert!(!root().join(".pre-commit-hooks.yaml").exists());

    // What the READMEs tell users to write.
    for readme in ["README.md", "pre-commit/README.md"] {
        let text = std::fs::read_to_string(root().join(readme)).expect("README");
        for line in [
            format!("- repo: {hook_repository}\n"),
            format!("rev: v{VERSION}\n"),
            "- id: toolc-lint\n".to_string(),
        ] {
            assert!(text.contains(&line), "{readme} lacks {line:?}");
        }
    }
}

/// The hook repository (a git copy of `pre-commit/`, tagged `v{VERSION}`)
/// and pre-commit's home, shared by the pre-commit tests of a run, so that
/// the hook's environment is installed once.
struct Hooks {
    repository: PathBuf,
    home: PathBuf,
}

fn hooks() -> &'static Hooks {
    static HOOKS: OnceLock<Hooks> = OnceLock::new();
    HOOKS.get_or_init(|| {
        let repository = scratch("hook-repository");
        for entry in std::fs::read_dir(root().join("pre-commit")).expect("read pre-commit/") {
            let entry = entry.expect("an entry");
            std::fs::copy(entry.path(), repository.join(entry.file_name()))
                .expect("copy a file of pre-commit/");
        }
        git(&repository, &["init", "--quiet"]);
        git(&repository, &["add", "--all"]);
        git(&repository, &["commit", "--quiet", "--message", "hooks"]);
        git(&repository, &["tag", &format!("v{VERSION}")]);
        Hooks {
            repository,
            home: scratch("pre-commit-home"),
        }
    })
}

/// No git configuration of the user's or the system's, and an identity
/// to commit with: for git, and for pre-commit, which runs it.
fn without_git_config(command: &mut Command) -> &mut Command {
    command
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "toolc tests")
        .env("GIT_AUTHOR_EMAIL", "tests@toolc.invalid")
        .env("GIT_COMMITTER_NAME", "toolc tests")
        .env("GIT_COMMITTER_EMAIL", "tests@toolc.invalid")
}

fn git(dir: &Path, args: &[&str]) {
    succeed(
        without_git_config(Command::new("git").args(args).current_dir(dir)),
        &format!("git {}", args.join(" ")),
    );
}

/// Makes `files` a git repository with a .pre-commit-config.yaml that
/// runs `hook` from the hook repository, commits them all, and runs
/// `pre-commit run --all-files` in it, offline; returns what it printed.
fn pre_commit(sample: &TempDir, hook: &str, files: &[(&str, &str)]) -> Output {
    let hooks = hooks();
    for (path, text) in files {
        sample.write(path, text);
    }
    sample.write(
        ".pre-commit-config.yaml",
        format!(
            "repos:\n  - repo: {}\n    rev: v{VERSION}\n    hooks:\n      - id: {hook}\n",
            hooks.repository.display()
        ),
    );
    let dir = sample.path();
    git(dir, &["init", "--quiet"]);
    git(dir, &["add", "--all"]);
    git(dir, &["commit", "--quiet", "--message", "sample"]);
    run_pre_commit(dir)
}

/// `pre-commit run --all-files --verbose` (the hook's output shows even
/// when it passes) in `dir`, with pip held to the local wheels.
fn run_pre_commit(dir: &Path) -> Output {
    let hooks = hooks();
    let backend = std::env::var_os("TOOLC_TEST_WHEELS")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .expect(
            "TOOLC_TEST_WHEELS is not set: run the tests with scripts/test, which puts the \
             setuptools wheel the hook package builds with in target/test-wheels",
        );
    let toolc_wheel = wheel().parent().expect("the wheel's directory");
    let links = format!("{} {}", toolc_wheel.display(), backend.display());
    let mut command = Command::new(venv_tool("pre-commit"));
    command
        .args(["run", "--all-files", "--verbose", "--color", "never"])
        .current_dir(dir)
        .env("PRE_COMMIT_HOME", &hooks.home)
        .env("PIP_NO_INDEX", "1")
        .env("PIP_FIND_LINKS", links)
        .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
        .env("PIP_NO_CACHE_DIR", "1")
        .env("VIRTUALENV_NO_PERIODIC_UPDATE", "1")
        .env(
            "VIRTUALENV_OVERRIDE_APP_DATA",
            hooks.home.join("virtualenv"),
        )
        .env("NO_COLOR", "1");
    run_within(without_git_config(&mut command), "pre-commit run", LIMIT)
}

/// An OpenAI tool list (provider JSON: any file name) with one tool,
/// called `name`, whose parameters are `parameters`.
fn openai_tools(name: &str, parameters: &str) -> String {
    format!(
        r#"[
  {{
    "type": "function",
    "function": {{
      "name": "{name}",
      "description": "Get the current weather for a city.",
      "parameters": {parameters}
    }}
  }}
]
"#
    )
}

const PARAMETERS: &str = r#"{
        "type": "object",
        "properties": {"city": {"type": "string", "description": "The city's name."}},
        "required": ["city"]
      }"#;

/// JSON of other programs than agent frameworks, as a repository holds it:
/// pre-commit names each of these to the hooks.
const OTHER_JSON: [(&str, &str); 3] = [
    (
        "package.json",
        "{\"name\": \"weather\", \"version\": \"1.0.0\", \"scripts\": {\"test\": \"node test.js\"}}\n",
    ),
    (
        "tsconfig.json",
        "{\n  // TypeScript reads comments and trailing commas.\n  \"compilerOptions\": {\"strict\": true,},\n}\n",
    ),
    (
        ".vscode/settings.json",
        "{\n  /* the editor's */\n  \"editor.formatOnSave\": true\n}\n",
    ),
];

/// What the hooks must never say about [`OTHER_JSON`].
fn assert_quiet_about_other_json(output: &Output) {
    for (path, _) in OTHER_JSON {
        let name = Path::new(path)
            .file_name()
            .expect("a name")
            .to_string_lossy();
        assert!(
            !output.stdout.contains(&*name) && !output.stderr.contains(&*name),
            "the hook spoke of {path}:\n{}\n{}",
            output.stdout,
            output.stderr
        );
    }
}

#[test]
fn a_bad_manifest_fails_the_hook_with_toolcs_finding() {
    let sample = TempDir::new("pre-commit-bad");
    let mut files = vec![(
        "tools/weather.json",
        openai_tools("get weather", PARAMETERS),
    )];
    files.extend(OTHER_JSON.map(|(path, text)| (path, text.to_string())));
    let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
    let output = pre_commit(&sample, "toolc-lint", &files);
    assert_eq!(output.code, 1, "{}\n{}", output.stdout, output.stderr);
    assert!(
        output.stdout.contains("invalid-tool-name") && output.stdout.contains("tools/weather.json"),
        "{}\n{}",
        output.stdout,
        output.stderr
    );
    assert_quiet_about_other_json(&output);
}

#[test]
fn a_clean_repository_passes_and_other_json_is_left_alone() {
    let sample = TempDir::new("pre-commit-clean");
    let manifest = openai_tools("get_weather", PARAMETERS);
    let mut files = vec![("tools/weather.json", manifest.as_str())];
    files.extend(OTHER_JSON);
    let output = pre_commit(&sample, "toolc-lint", &files);
    assert_eq!(output.code, 0, "{}\n{}", output.stdout, output.stderr);
    assert!(output.stdout.contains("toolc lint"), "{}", output.stdout);
    assert_quiet_about_other_json(&output);
}

#[test]
fn a_manifest_under_a_folder_toolc_toml_excludes_is_not_linted() {
    let sample = TempDir::new("pre-commit-excluded");
    let clean = openai_tools("get_weather", PARAMETERS);
    let bad = openai_tools("get weather", PARAMETERS);
    let output = pre_commit(
        &sample,
        "toolc-lint",
        &[
            ("toolc.toml", "extend-exclude = [\"legacy\"]\n"),
            ("tools/weather.json", &clean),
            ("legacy/weather.json", &bad),
        ],
    );
    assert_eq!(output.code, 0, "{}\n{}", output.stdout, output.stderr);
    assert!(
        !output.stdout.contains("invalid-tool-name"),
        "{}",
        output.stdout
    );
}

#[test]
fn toolc_fix_rewrites_a_fixable_manifest() {
    let sample = TempDir::new("pre-commit-fix");
    // Parameters without `"type": "object"`: the safe fix adds it.
    let typeless = r#"{
        "properties": {"city": {"type": "string", "description": "The city's name."}},
        "required": ["city"]
      }"#;
    let before = openai_tools("get_weather", typeless);
    let output = pre_commit(&sample, "toolc-fix", &[("tools/weather.json", &before)]);
    // pre-commit fails a hook that changed files, so that they are looked
    // at before they are committed.
    assert_eq!(output.code, 1, "{}\n{}", output.stdout, output.stderr);
    assert!(
        output.stdout.contains("files were modified by this hook"),
        "{}",
        output.stdout
    );
    let after = std::fs::read_to_string(sample.path().join("tools/weather.json"))
        .expect("the fixed manifest");
    let mut fixed: serde_json::Value = serde_json::from_str(&after).expect("JSON");
    let parameters = fixed[0]["function"]["parameters"]
        .as_object_mut()
        .expect("parameters");
    assert_eq!(parameters.remove("type"), Some("object".into()), "{after}");
    // Nothing else changed.
    let before: serde_json::Value = serde_json::from_str(&before).expect("JSON");
    assert_eq!(fixed, before);

    let again = run_pre_commit(sample.path());
    assert_eq!(again.code, 0, "{}\n{}", again.stdout, again.stderr);
}

/// The rule and path of each finding of a `--format json` report.
fn findings(output: &Output) -> Vec<(String, String)> {
    output.json()["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            let field = |key: &str| d[key].as_str().expect(key).to_string();
            (field("rule"), field("path"))
        })
        .collect()
}

/// What the hooks' `--ignore-unknown` is for: pre-commit names every JSON
/// file, and a named file is otherwise a file the user asked about.
#[test]
fn ignore_unknown_reads_named_files_as_a_walk_does() {
    let dir = TempDir::new("ignore-unknown");
    for (path, text) in OTHER_JSON {
        dir.write(path, text);
    }
    dir.write("weather.json", openai_tools("get weather", PARAMETERS));
    // Broken, but its name says it is an agentcli manifest.
    dir.write("tools.json", "{\"tools\": [\n");
    let named = ["package.json", "tsconfig.json", ".vscode/settings.json"];
    let lint = |flags: &[&str], paths: &[&str]| {
        super::Test::new()
            .args(["lint", "--format", "json"])
            .args(flags)
            .args(paths)
            .current_dir(dir.path())
            .run()
    };
    let as_named = lint(&[], &named);
    assert_eq!(as_named.code, 1, "{}", as_named.stderr);
    let rules: Vec<String> = findings(&as_named).into_iter().map(|(r, _)| r).collect();
    assert_eq!(rules, ["invalid-json", "unknown-format", "invalid-json"]);

    let with_flag = lint(&["--ignore-unknown"], &named);
    assert_eq!(
        with_flag.code, 0,
        "{}\n{}",
        with_flag.stdout, with_flag.stderr
    );
    assert_eq!(findings(&with_flag), []);

    // Manifests are linted as ever, a broken one included.
    let mixed = lint(
        &["--ignore-unknown"],
        &[
            "package.json",
            "tsconfig.json",
            "weather.json",
            "tools.json",
        ],
    );
    assert_eq!(mixed.code, 1, "{}", mixed.stderr);
    let expected = [
        ("invalid-json", "tools.json"),
        ("invalid-tool-name", "weather.json"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(r, p)| (r.to_string(), p.to_string()))
        .collect();
    assert_eq!(findings(&mixed), expected);
}
