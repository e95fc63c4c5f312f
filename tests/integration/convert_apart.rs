//! `toolc convert` into NORA, AgentStack and Nachos converts each manifest
//! where it is read, as if it were the only one. What depends on the
//! others is settled at the end: a directory an earlier manifest's tool
//! took, a package two manifests share. These manifests are converted
//! again there, and what is written and said must be what converting them
//! together gives.

use serde_json::Value;

use super::{TempDir, Test};

/// Tool `name` of an MCP tool list, without a description when
/// `described` is false.
fn mcp_tool(name: &str, described: bool) -> String {
    let description = if described {
        format!(r#""description": "{name} things.", "#)
    } else {
        String::new()
    };
    format!(
        r#"{{"name": "{name}", {description}"inputSchema": {{"type": "object", "properties": {{}}}}}}"#
    )
}

/// An MCP tool list holding `tools`, one a line from line 3.
fn mcp_list(tools: &[String]) -> String {
    format!(
        "{{\n  \"tools\": [\n    {}\n  ]\n}}\n",
        tools.join(",\n    ")
    )
}

/// The diagnostics of a `--format json` report about `path` whose message
/// holds `text`, as (line, message).
fn findings_about(report: &Value, path: &str, text: &str) -> Vec<(u64, String)> {
    report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["path"] == path)
        .filter_map(|d| {
            let message = d["message"].as_str()?;
            message
                .contains(text)
                .then(|| (d["line"].as_u64().unwrap_or(0), message.to_string()))
        })
        .collect()
}

/// Two manifests whose tools differ only in case: the later one's tool
/// gets the next directory, and the note about its description names that
/// directory, at the tool's line in its own manifest.
#[test]
fn a_directory_an_earlier_manifest_took_goes_to_the_next_name() {
    let dir = TempDir::new("convert-apart-directories");
    dir.write("a/mcp.json", mcp_list(&[mcp_tool("Lookup", false)]));
    dir.write(
        "b/mcp.json",
        mcp_list(&[mcp_tool("other", true), mcp_tool("lookup", false)]),
    );
    for (to, file) in [("nora", "tool.json"), ("nachos", "manifest.json")] {
        let out = format!("out-{to}");
        let output = Test::new()
            .current_dir(dir.path())
            .args(["convert", "--to", to, "a", "b", "-o", &out])
            .args(["--format", "json"])
            .run();
        assert_eq!(output.code, 0, "{to}: {}", output.stderr);
        for directory in ["Lookup", "lookup-2", "other"] {
            let written = dir.path().join(&out).join(directory).join(file);
            assert!(written.is_file(), "{to}: {} is missing", written.display());
        }
        let manifest: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join(&out).join("lookup-2").join(file)).unwrap(),
        )
        .unwrap();
        let names = manifest.to_string();
        assert!(names.contains("\"lookup\""), "{to}: {names}");
        if to == "nora" {
            let report = output.json();
            let notes = findings_about(&report, "b/mcp.json", "lookup-2/tool.json");
            assert_eq!(notes.len(), 1, "{report:#}");
            assert_eq!(notes[0].0, 4, "the tool's line in b/mcp.json: {notes:?}");
            let first = findings_about(&report, "a/mcp.json", "Lookup/tool.json");
            assert_eq!(first.len(), 1, "{report:#}");
        }
    }
}

/// Two manifests of one AgentStack package (each named after its
/// directory, `x`): one package holds all their tools. Converted together,
/// `get-data` of the first needs another Python name than alone
/// (`get_data` of the second has it): the loss says the name it gets
/// together, at the tool's line, in every format.
#[test]
fn manifests_sharing_a_package_are_written_and_reported_as_one() {
    let dir = TempDir::new("convert-apart-package");
    dir.write(
        "a/x/mcp.json",
        mcp_list(&[mcp_tool("alpha", true), mcp_tool("get-data", true)]),
    );
    dir.write(
        "b/x/mcp.json",
        mcp_list(&[mcp_tool("gamma", true), mcp_tool("get_data", true)]),
    );
    let output = Test::new()
        .current_dir(dir.path())
        .args(["convert", "--to", "agentstack", "a", "b", "-o", "out"])
        .args(["--format", "json"])
        .run();
    assert_eq!(output.code, 0, "{}", output.stderr);
    let config: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("out/x/config.json")).unwrap(),
    )
    .unwrap();
    let tools: Vec<&String> = config["tools"].as_object().unwrap().keys().collect();
    assert_eq!(
        tools,
        ["alpha", "get_data_2", "gamma", "get_data"],
        "{config:#}"
    );
    let module = std::fs::read_to_string(dir.path().join("out/x/__init__.py")).unwrap();
    for function in [
        "def alpha(",
        "def get_data_2(",
        "def gamma(",
        "def get_data(",
    ] {
        assert!(module.contains(function), "{function}:\n{module}");
    }
    let report = output.json();
    let renamed = findings_about(&report, "a/x/mcp.json", "\"get-data\" is none");
    assert_eq!(renamed.len(), 1, "{report:#}");
    assert_eq!(
        renamed[0].0, 4,
        "the tool's line in a/x/mcp.json: {renamed:?}"
    );
    assert!(
        renamed[0].1.contains("becomes \"get_data_2\""),
        "{renamed:?}"
    );

    // The people's report shows it at its line too.
    let human = Test::new()
        .current_dir(dir.path())
        .args(["convert", "--to", "agentstack", "a", "b", "-o", "out2"])
        .args(["--show-losses", "--color", "never"])
        .run();
    assert_eq!(human.code, 0, "{}", human.stderr);
    assert!(
        human.stderr.contains("a/x/mcp.json:4:"),
        "no position in a/x/mcp.json:\n{}",
        human.stderr
    );
    assert!(
        human.stderr.contains("becomes \"get_data_2\""),
        "{}",
        human.stderr
    );
}

/// A Nachos manifest whose directory alone would be the one an earlier
/// run wrote its class to gets another directory, without a class: the
/// note that its parameters are not known, made only then, points at its
/// line in every report, as when all manifests were converted at once.
#[test]
fn a_finding_made_in_the_directory_given_at_the_end_keeps_its_position() {
    let dir = TempDir::new("convert-apart-position");
    dir.write(
        "a/openai.json",
        r#"[{"type": "function", "function": {"name": "foo", "description": "Foo it.", "parameters": {"type": "object", "properties": {"x": {"type": "string", "description": "X."}}}}}]"#,
    );
    dir.write(
        "b/manifest.json",
        "{\"name\": \"Foo\", \"version\": \"0.3.0\", \"type\": \"tool\",\n  \"description\": \"Foo things.\",\n  \"provides\": {\"tool\": \"Foo\", \"securityTier\": 2}}\n",
    );
    let first = Test::new()
        .current_dir(dir.path())
        .args(["convert", "b", "--to", "nachos", "-o", "out"])
        .run();
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(dir.path().join("out/Foo/src").is_dir());
    for format in ["json", "concise"] {
        let output = Test::new()
            .current_dir(dir.path())
            .args([
                "convert",
                "a",
                "b",
                "--to",
                "nachos",
                "-o",
                "out",
                "--dry-run",
            ])
            .args(["--format", format])
            .run();
        assert_eq!(output.code, 0, "{format}: {}", output.stderr);
        let unknown = "the parameters of tool \"Foo\" are not known";
        if format == "json" {
            let report = output.json();
            let notes = findings_about(&report, "b/manifest.json", unknown);
            assert_eq!(notes.len(), 1, "{report:#}");
            assert!(notes[0].0 > 0, "no line: {report:#}");
        } else {
            let line = output
                .stdout
                .lines()
                .find(|line| line.contains(unknown))
                .unwrap_or_else(|| panic!("{}", output.stdout));
            assert!(line.starts_with("b/manifest.json:"), "{line}");
            assert!(
                !line.starts_with("b/manifest.json: "),
                "no position: {line}"
            );
        }
    }
}

/// A skeleton template that fails is never rendered for a tool whose
/// final directory has its skeleton already, though the directory it
/// would have alone has none.
#[test]
fn a_skeleton_that_fails_where_a_manifest_would_be_alone_does_not_fail_the_run() {
    let dir = TempDir::new("convert-apart-skeleton");
    dir.write("a/mcp.json", mcp_list(&[mcp_tool("Foo", true)]));
    dir.write("b/mcp.json", mcp_list(&[mcp_tool("foo", true)]));
    dir.write("out/Foo/main.py", "def run(params):\n    return 'mine'\n");
    dir.write(
        "out/foo-2/main.py",
        "def run(params):\n    return 'mine too'\n",
    );
    dir.write("templates/python/nora/main.py.j2", "{{ no_such_value }}\n");
    let output = Test::new()
        .current_dir(dir.path())
        .args(["convert", "a", "b", "--to", "nora", "-o", "out"])
        .args(["--templates", "templates"])
        .run();
    assert_eq!(output.code, 0, "{}", output.stderr);
    assert!(dir.path().join("out/foo-2/tool.json").is_file());
    let kept = std::fs::read_to_string(dir.path().join("out/foo-2/main.py")).unwrap();
    assert!(kept.contains("mine too"), "{kept}");
}
