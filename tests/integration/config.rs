//! Configuration: the nearest toolc.toml, [[overrides]], and command-line
//! flags winning over both; unknown names are usage errors with a hint.

use super::{TempDir, Test};

/// A manifest with one finding of each of three rules: an invalid name
/// (invalid-tool-name), a property without a description
/// (property-missing-description) and an unpinned dependency... in
/// agentcli terms: a bad name, an undescribed property, a missing program.
const MANIFEST: &str = r#"{"tools": [{"name": "bad name", "description": "D", "command": ["./tools/bin/x"],
  "schema": {"type": "object", "properties": {"q": {"type": "string"}}}}]}"#;

fn rules_and_levels(dir: &TempDir, args: &[&str]) -> (i32, Vec<String>) {
    let mut all = vec!["lint", "--format", "json"];
    all.extend_from_slice(args);
    let output = Test::new().current_dir(dir.path()).args(all).run();
    assert!(output.code <= 1, "{}", output.stderr);
    let report = output.json();
    let found = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            format!(
                "{} {}={}",
                d["path"].as_str().unwrap_or(""),
                d["rule"].as_str().unwrap_or(""),
                d["severity"].as_str().unwrap_or("")
            )
        })
        .collect();
    (output.code, found)
}

/// What a successful `lint --show-settings` printed, read as TOML.
fn settings_toml(output: &crate::Output) -> toml::Table {
    assert_eq!(output.code, 0, "{}", output.stderr);
    output
        .stdout
        .parse()
        .unwrap_or_else(|e| panic!("not TOML ({e}):\n{}", output.stdout))
}

fn project() -> TempDir {
    let dir = TempDir::new("config");
    std::fs::create_dir_all(dir.path().join(".git")).expect("mark the repository root");
    dir.write("app/tools.json", MANIFEST);
    dir.write("legacy/old/tools.json", MANIFEST);
    dir
}

#[test]
fn defaults_without_a_configuration() {
    let dir = project();
    let (code, found) = rules_and_levels(&dir, &["app"]);
    assert_eq!(code, 1);
    assert_eq!(
        found,
        [
            "app/tools.json invalid-tool-name=error",
            "app/tools.json command-not-found=warning",
            "app/tools.json property-missing-description=warning",
        ]
    );
}

#[test]
fn file_levels_overrides_and_flags_in_order_of_precedence() {
    let dir = project();
    dir.write(
        "toolc.toml",
        r#"
[rules]
"invalid-tool-name" = "warning"
"command-not-found" = "off"

[[overrides]]
files = ["legacy/**"]
rules = { "property-missing-description" = "off", "invalid-tool-name" = "info" }
"#,
    );
    let (code, found) = rules_and_levels(&dir, &["."]);
    assert_eq!(code, 0, "only warnings and infos are left");
    assert_eq!(
        found,
        [
            "app/tools.json invalid-tool-name=warning",
            "app/tools.json property-missing-description=warning",
            "legacy/old/tools.json invalid-tool-name=info",
        ]
    );
    // Flags win over the file and its overrides.
    let (code, found) = rules_and_levels(
        &dir,
        &[
            "--severity",
            "invalid-tool-name=error",
            "--ignore",
            "property-missing-description",
            ".",
        ],
    );
    assert_eq!(code, 1);
    assert_eq!(
        found,
        [
            "app/tools.json invalid-tool-name=error",
            "legacy/old/tools.json invalid-tool-name=error"
        ]
    );
    // --select runs only what it names, even a rule the file turned off.
    let (_, found) = rules_and_levels(&dir, &["--select", "command-not-found", "app"]);
    assert_eq!(found, ["app/tools.json command-not-found=warning"]);
}

#[test]
fn the_nearest_configuration_wins_and_the_search_stops_at_the_repository_root() {
    let dir = project();
    dir.write("toolc.toml", "[rules]\n\"invalid-tool-name\" = \"off\"\n");
    dir.write(
        "app/toolc.toml",
        "[rules]\n\"command-not-found\" = \"off\"\n",
    );
    let (_, found) = rules_and_levels(&dir, &["."]);
    assert_eq!(
        found,
        [
            // app/ has its own file: invalid-tool-name is on there again.
            "app/tools.json invalid-tool-name=error",
            "app/tools.json property-missing-description=warning",
            "legacy/old/tools.json command-not-found=warning",
            "legacy/old/tools.json property-missing-description=warning",
        ]
    );
    // A toolc.toml above the repository root is not read.
    let outer = TempDir::new("config-outer");
    outer.write("toolc.toml", "[rules]\n\"invalid-tool-name\" = \"off\"\n");
    std::fs::create_dir_all(outer.path().join("repo/.git")).expect("repo");
    outer.write("repo/tools.json", MANIFEST);
    let output = Test::new()
        .current_dir(outer.path().join("repo"))
        .args(["lint", "--format", "json"])
        .run();
    assert!(
        output.stdout.contains("invalid-tool-name"),
        "{}",
        output.stdout
    );
    // --config names the file for everything.
    let (_, found) = rules_and_levels(&dir, &["--config", "app/toolc.toml", "legacy"]);
    assert_eq!(
        found,
        [
            "legacy/old/tools.json invalid-tool-name=error",
            "legacy/old/tools.json property-missing-description=warning"
        ]
    );
}

#[test]
fn fail_on_and_exit_zero() {
    let dir = TempDir::new("fail-on");
    dir.write(
        "tools.json",
        r#"{"tools": [{"name": "ok", "description": "D", "command": ["/bin/true"], "schema": {"type": "object", "properties": {"q": {"type": "string"}}}}]}"#,
    );
    let run = |args: &[&str]| {
        let mut all = vec!["lint"];
        all.extend_from_slice(args);
        Test::new().current_dir(dir.path()).args(all).run().code
    };
    assert_eq!(run(&[]), 0, "a warning alone passes by default");
    assert_eq!(run(&["--fail-on", "warning"]), 1);
    assert_eq!(run(&["--fail-on", "info"]), 1);
    assert_eq!(run(&["--fail-on", "warning", "--exit-zero"]), 0);
    assert_eq!(
        run(&["--severity", "property-missing-description=error"]),
        1
    );
    assert_eq!(
        run(&[
            "--severity",
            "property-missing-description=error",
            "--exit-zero"
        ]),
        0
    );
}

#[test]
fn unknown_names_are_usage_errors_with_suggestions() {
    let dir = project();
    let cases: &[(&[&str], &str)] = &[
        (
            &["--select", "invalid-tool-nam"],
            "did you mean \"invalid-tool-name\"",
        ),
        (
            &["--ignore", "property-missing-descriptions"],
            "did you mean \"property-missing-description\"",
        ),
        (
            &["--severity", "duplicate-tool-names=off"],
            "did you mean \"duplicate-tool-name\"",
        ),
        (
            &["--severity", "duplicate-tool-name=fatal"],
            "unknown level \"fatal\"",
        ),
        (
            &["--target", "openai-stric"],
            "did you mean \"openai-strict\"",
        ),
    ];
    for (args, expected) in cases {
        let mut all = vec!["lint"];
        all.extend_from_slice(args);
        let output = Test::new().current_dir(dir.path()).args(all).run();
        assert_eq!(output.code, 2, "{args:?}");
        assert!(
            output.stderr.contains(expected),
            "{args:?}: {}",
            output.stderr
        );
    }
    for (config, expected) in [
        (
            "[rules]\n\"duplicate-tool-names\" = \"off\"\n",
            "did you mean \"duplicate-tool-name\"",
        ),
        ("targets = [\"gemeni\"]\n", "did you mean \"gemini\""),
        (
            "[rules]\n\"duplicate-key\" = \"loud\"\n",
            "unknown level \"loud\"",
        ),
        ("colour = true\n", "unknown field `colour`"),
        (
            "[limits]\ngemini-name-lenght = 128\n",
            "unknown field `gemini-name-lenght`",
        ),
        ("[[overrides]]\nfiles = [\"a/[\"]\n", "overrides"),
        ("targets = \n", "toolc.toml"),
    ] {
        dir.write("toolc.toml", config);
        let output = Test::new()
            .current_dir(dir.path())
            .args(["lint", "app"])
            .run();
        assert_eq!(output.code, 2, "{config}");
        assert!(
            output.stderr.contains(expected),
            "{config}: {}",
            output.stderr
        );
        assert!(
            output.stderr.contains("toolc.toml"),
            "the error names the file: {}",
            output.stderr
        );
    }
}

#[test]
fn max_file_size_from_the_configuration_and_the_flag() {
    let dir = project();
    dir.write("toolc.toml", "max-file-size = \"100B\"\n");
    let (_, found) = rules_and_levels(&dir, &["app"]);
    assert_eq!(found, ["app/tools.json file-too-large=error"]);
    let (_, found) = rules_and_levels(&dir, &["--max-file-size", "1MiB", "app"]);
    assert!(
        !found.iter().any(|f| f.contains("file-too-large")),
        "{found:?}"
    );
}

#[test]
fn targets_from_the_configuration_and_the_flag() {
    let dir = TempDir::new("targets");
    std::fs::create_dir_all(dir.path().join(".git")).expect("repo");
    let long = "a".repeat(100);
    dir.write(
        "mcp.json",
        format!(r#"{{"name": "{long}", "description": "D", "inputSchema": {{"type": "object", "properties": {{}}}}}}"#),
    );
    // Without a target, only the provider-neutral name check speaks.
    let (_, found) = rules_and_levels(&dir, &["mcp.json"]);
    assert_eq!(found, ["mcp.json invalid-tool-name=error"]);
    // MCP allows 128 characters: the MCP rule is silent, and the
    // foundation's check is unchanged by the target.
    dir.write("toolc.toml", "targets = [\"mcp\"]\n");
    let (_, found) = rules_and_levels(&dir, &["mcp.json"]);
    assert_eq!(found, ["mcp.json invalid-tool-name=error"]);
    // Judging names by MCP alone: turn the neutral check off.
    dir.write(
        "toolc.toml",
        "targets = [\"mcp\"]\n[rules]\n\"invalid-tool-name\" = \"off\"\n",
    );
    let (code, found) = rules_and_levels(&dir, &["mcp.json"]);
    assert_eq!((code, found.len()), (0, 0), "{found:?}");
    // The flag replaces the file's targets; OpenAI's precise finding
    // replaces the neutral one at the same place.
    let (_, found) = rules_and_levels(&dir, &["--target", "openai", "mcp.json"]);
    assert_eq!(found, ["mcp.json name-too-long=error"]);
}

#[test]
fn the_shipped_example_configuration_is_accepted() {
    let example = super::root().join("examples/toolc.toml");
    let output = Test::new()
        .args([
            "lint",
            "--config",
            example.to_str().expect("utf-8 path"),
            "fixtures/render",
        ])
        .run();
    assert_eq!(output.code, 1, "{}", output.stderr);
    assert!(output.stderr.is_empty(), "{}", output.stderr);
    // Its targets are on: strict mode speaks about the render fixture.
    assert!(
        output.stdout.contains("strict-additional-properties"),
        "{}",
        output.stdout
    );
}

#[test]
fn override_globs_mean_what_people_write() {
    for pattern in [
        "legacy/**",
        "./legacy/**",
        "legacy",
        "legacy/",
        "/legacy/**",
        "legacy/*/tools.json",
    ] {
        let dir = project();
        dir.write(
            "toolc.toml",
            format!("[[overrides]]\nfiles = [\"{pattern}\"]\nrules = {{ \"invalid-tool-name\" = \"off\" }}\n"),
        );
        let (_, found) = rules_and_levels(&dir, &["."]);
        assert!(
            !found
                .iter()
                .any(|f| f.starts_with("legacy/old/tools.json invalid-tool-name")),
            "{pattern}: {found:?}"
        );
        assert!(
            found
                .iter()
                .any(|f| f == "app/tools.json invalid-tool-name=error"),
            "{pattern}: {found:?}"
        );
    }
}

#[test]
fn configuration_errors_show_where_and_suggest() {
    let dir = TempDir::new("config-errors");
    dir.write("tools.json", r#"{"tools": []}"#);
    let cases = [
        (
            "max-file-size = \"1MiB\"\nextend-exlude = [\"x\"]\n",
            "toolc.toml:2:1: unknown field `extend-exlude`",
            "did you mean `extend-exclude`?",
            "2 | extend-exlude = [\"x\"]\n  | ^^^^^^^^^^^^^",
        ),
        (
            "[rules]\n\"missing-nam\" = \"off\"\n",
            "toolc.toml:2:1: unknown rule \"missing-nam\"",
            "did you mean \"missing-name\"?",
            "2 | \"missing-nam\" = \"off\"\n  | ^^^^^^^^^^^^^",
        ),
        (
            "targets = [\"openai\", \"opneai\"]\n",
            "toolc.toml:1:22: unknown target \"opneai\"",
            "did you mean \"openai\"?",
            "1 | targets = [\"openai\", \"opneai\"]\n  |                      ^^^^^^^^",
        ),
    ];
    for (text, place, hint, snippet) in cases {
        dir.write("toolc.toml", text);
        lint_fails_saying(&dir, &[], &[place, hint, snippet]);
    }
}

/// `toolc lint ARGS` in `dir` fails (exit 2) saying each of `expected`.
fn lint_fails_saying(dir: &TempDir, args: &[&str], expected: &[&str]) {
    let output = Test::new()
        .current_dir(dir.path())
        .args(["lint"])
        .args(args)
        .run();
    assert_eq!(output.code, 2, "{}", output.stderr);
    for expected in expected {
        assert!(
            output.stderr.contains(expected),
            "missing {expected:?} in:\n{}",
            output.stderr
        );
    }
}

/// A configuration that is a FIFO, or larger than any real one, is an
/// error at once: neither blocks the run nor fills memory.
#[test]
fn a_fifo_or_a_huge_configuration_is_refused_at_once() {
    let dir = project();
    let fifo = dir.path().join("fifo.toml");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let started = std::time::Instant::now();
    let output = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--config", "fifo.toml", "app"])
        .run();
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert!(output.stderr.contains("fifo.toml"), "{}", output.stderr);
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    // Two megabytes of comments in the nearest toolc.toml.
    dir.write("app/toolc.toml", "#".repeat(2 * 1024 * 1024));
    let output = Test::new()
        .current_dir(dir.path())
        .args(["lint", "app"])
        .run();
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert!(
        output
            .stderr
            .contains("over the limit of 1048576 bytes for a configuration file"),
        "{}",
        output.stderr
    );
}

/// As in ruff, `[tool.toolc]` of a `pyproject.toml` is a configuration:
/// `toolc.toml` wins in its directory, a `pyproject.toml` without the
/// table is passed by, and one that is not TOML is an error where it is.
#[test]
fn a_pyprojects_tool_toolc_table_configures_like_toolc_toml() {
    let dir = project();
    dir.write("toolc.toml", "[rules]\n\"invalid-tool-name\" = \"off\"\n");
    // Read: app/ gets its [tool.toolc], not the root's toolc.toml.
    dir.write(
        "app/pyproject.toml",
        "[project]\nname = \"app\"\n\n[tool.ruff]\nline-length = 100\n\n\
         [tool.toolc.rules]\n\"command-not-found\" = \"off\"\n\n\
         [[tool.toolc.overrides]]\nfiles = [\"tools.json\"]\n\
         rules = { \"property-missing-description\" = \"info\" }\n",
    );
    // No [tool.toolc]: not a configuration, the root's toolc.toml applies.
    dir.write("legacy/pyproject.toml", "[project]\nname = \"legacy\"\n");
    let (_, found) = rules_and_levels(&dir, &["."]);
    assert_eq!(
        found,
        [
            "app/tools.json invalid-tool-name=error",
            "app/tools.json property-missing-description=info",
            "legacy/old/tools.json command-not-found=warning",
            "legacy/old/tools.json property-missing-description=warning",
        ]
    );
    // In one directory toolc.toml wins over pyproject.toml.
    dir.write(
        "app/toolc.toml",
        "[rules]\n\"invalid-tool-name\" = \"warning\"\n",
    );
    let (_, found) = rules_and_levels(&dir, &["app"]);
    assert_eq!(
        found,
        [
            "app/tools.json invalid-tool-name=warning",
            "app/tools.json command-not-found=warning",
            "app/tools.json property-missing-description=warning",
        ]
    );
    std::fs::remove_file(dir.path().join("app/toolc.toml")).expect("remove");
    // --config takes a pyproject.toml too; one without the table is an error.
    let (_, found) = rules_and_levels(&dir, &["--config", "app/pyproject.toml", "legacy"]);
    assert_eq!(
        found,
        [
            "legacy/old/tools.json invalid-tool-name=error",
            "legacy/old/tools.json property-missing-description=warning",
        ]
    );
    lint_fails_saying(
        &dir,
        &["--config", "legacy/pyproject.toml", "app"],
        &["legacy/pyproject.toml: has no [tool.toolc] table"],
    );
}

/// A key of `[tool.toolc]` is checked as in toolc.toml, the error at the
/// pyproject's line; a pyproject.toml that is not TOML fails the run
/// (toolc cannot tell whether it configures toolc), as in ruff.
#[test]
fn pyproject_errors_point_into_the_pyproject() {
    let dir = project();
    let cases = [
        (
            "[project]\nname = \"x\"\n\n[tool.toolc]\ntargets = [\"openai\"]\nmax-fil-size = 10\n",
            "pyproject.toml:6:1: unknown field `max-fil-size`",
            "did you mean `max-file-size`?",
        ),
        (
            "[tool.toolc.rules]\n\"invalid-tool-nam\" = \"off\"\n",
            "pyproject.toml:2:1: unknown rule \"invalid-tool-nam\"",
            "did you mean \"invalid-tool-name\"?",
        ),
        (
            "[project]\nname = \"x\"\nversion = \n",
            "pyproject.toml:3:",
            "3 | version = ",
        ),
    ];
    for (text, place, hint) in cases {
        dir.write("app/pyproject.toml", text);
        lint_fails_saying(&dir, &["app"], &[place, hint]);
    }
}

/// `--show-settings` prints, as TOML, what each path gets and from which
/// file: defaults, a toolc.toml, a pyproject.toml, --config.
#[test]
fn show_settings_says_what_applies_and_where_from() {
    let dir = project();
    dir.write(
        "toolc.toml",
        "targets = [\"gemini\"]\nextend-exclude = [\"build\"]\n\
         [rules]\n\"invalid-tool-name\" = \"off\"\n\
         [[overrides]]\nfiles = [\"legacy/**\"]\nrules = { \"command-not-found\" = \"info\" }\n\
         [[overrides]]\nfiles = [\"nothing/**\"]\nrules = { \"command-not-found\" = \"off\" }\n\
         [[overrides]]\nfiles = [\"legacy/**\"]\ntools = [\"old_search\"]\npointers = [\"/tools/1\"]\n\
         rules = { \"name-too-long\" = \"off\" }\n",
    );
    dir.write(
        "app/pyproject.toml",
        "[tool.toolc]\nmax-file-size = \"2KiB\"\n[tool.toolc.limits]\nopenai-max-tools = 7\n",
    );
    let show = |args: &[&str]| {
        let output = Test::new()
            .current_dir(dir.path())
            .args(["lint", "--show-settings"])
            .args(args)
            .run();
        let parsed = settings_toml(&output);
        (output.stdout, parsed)
    };
    let (text, parsed) = show(&["legacy/old/tools.json", "app/tools.json"]);
    let legacy = &parsed["settings"]["legacy/old/tools.json"];
    assert_eq!(
        legacy["configuration"].as_str(),
        Some("toolc.toml"),
        "{text}"
    );
    assert_eq!(legacy["overrides"].as_array().unwrap().len(), 2, "{text}");
    assert_eq!(legacy["overrides"][0].as_integer(), Some(1), "{text}");
    assert_eq!(legacy["overrides"][1].as_integer(), Some(3), "{text}");
    // The third turns a rule off for one tool and one pointer only: the
    // file's rule stays on, and the scoped ignore is listed beside it.
    let scoped = &legacy["scoped-ignores"][0];
    assert_eq!(scoped["tools"][0].as_str(), Some("old_search"), "{text}");
    assert_eq!(scoped["pointers"][0].as_str(), Some("/tools/1"), "{text}");
    assert_eq!(scoped["rules"][0].as_str(), Some("name-too-long"), "{text}");
    assert_eq!(legacy["rules"]["name-too-long"].as_str(), Some("error"));
    assert_eq!(legacy["targets"][0].as_str(), Some("gemini"), "{text}");
    assert_eq!(
        legacy["extend-exclude"][0].as_str(),
        Some("build"),
        "{text}"
    );
    assert_eq!(legacy["force-exclude"].as_bool(), Some(false), "{text}");
    let rules = &legacy["rules"];
    assert_eq!(rules["invalid-tool-name"].as_str(), Some("off"), "{text}");
    assert_eq!(rules["command-not-found"].as_str(), Some("info"), "{text}");
    assert_eq!(
        rules["property-missing-description"].as_str(),
        Some("warning")
    );
    // An OpenAI rule does not run: gemini is the only target.
    assert!(
        text.contains("\"description-too-long\""),
        "every rule is listed:\n{text}"
    );
    assert_eq!(
        rules["description-too-long"].as_str(),
        Some("off"),
        "{text}"
    );
    let app = &parsed["settings"]["app/tools.json"];
    assert_eq!(app["configuration"].as_str(), Some("app/pyproject.toml"));
    assert_eq!(app["max-file-size"].as_integer(), Some(2048));
    assert_eq!(app["limits"]["openai-max-tools"].as_integer(), Some(7));
    assert_eq!(app["targets"].as_array().map(Vec::len), Some(0));
    assert_eq!(app["rules"]["invalid-tool-name"].as_str(), Some("error"));

    // No configuration up to the repository root: the defaults.
    std::fs::remove_file(dir.path().join("toolc.toml")).expect("remove");
    let (text, parsed) = show(&["legacy"]);
    let legacy = &parsed["settings"]["legacy"];
    assert_eq!(legacy["configuration"].as_str(), Some("defaults"), "{text}");
    assert!(
        legacy["exclude"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p.as_str() == Some("node_modules")),
        "{text}"
    );

    // --config, and the command line on top.
    let (text, parsed) = show(&[
        "--config",
        "app/pyproject.toml",
        "--target",
        "openai",
        "--ignore",
        "command-not-found",
        "legacy/old/tools.json",
    ]);
    let legacy = &parsed["settings"]["legacy/old/tools.json"];
    assert_eq!(
        legacy["configuration"].as_str(),
        Some("app/pyproject.toml"),
        "{text}"
    );
    assert_eq!(legacy["targets"][0].as_str(), Some("openai"), "{text}");
    assert_eq!(legacy["rules"]["command-not-found"].as_str(), Some("off"));
    assert_eq!(
        legacy["rules"]["description-too-long"].as_str(),
        Some("error")
    );

    // A path that is not there is an error.
    lint_fails_saying(
        &dir,
        &["--show-settings", "nowhere.json"],
        &["nowhere.json: no such file or directory"],
    );
}

/// `--show-settings` stays TOML a script can read whatever it is given: a
/// path named twice (or as `./path`) is one table, and a path whose name
/// holds a newline or a quote is a one-line key.
#[test]
fn show_settings_is_valid_toml_for_repeated_and_odd_paths() {
    let dir = project();
    let odd = "odd \"name\"\nwith a newline";
    dir.write(&format!("{odd}/tools.json"), "{\"tools\": []}\n");
    let odd_file = format!("{odd}/tools.json");
    let output = Test::new()
        .current_dir(dir.path())
        .args([
            "lint",
            "--show-settings",
            "legacy",
            "./legacy",
            "legacy",
            &odd_file,
        ])
        .run();
    let parsed = settings_toml(&output);
    let settings = parsed["settings"].as_table().expect("[settings]");
    let mut keys: Vec<&str> = settings.keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(keys, ["legacy", odd_file.as_str()], "{}", output.stdout);
}
