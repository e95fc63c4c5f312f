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

/// What `toolc convert` writes, converting each manifest where it reads
/// it, is the tree the library's `convert::convert` makes from all the
/// manifests at once, file for file, over the fixtures and the corpus
/// (with their many names taken across manifests and shared packages).
#[test]
fn converting_apart_writes_what_converting_all_at_once_does() {
    let temp = TempDir::new("convert-apart-oracle");
    // The rules' good fixtures and the generator fixtures: hundreds of
    // manifests.
    let fixtures = super::convert::fixture_tree(&temp);
    let corpus = super::root().join("../shared/corpus");
    let templates = toolc::emit::templates::Templates::new(None).unwrap();
    for input in [&fixtures, &corpus] {
        let options = toolc::project::LoadOptions::default();
        let manifests = toolc::project::Project::load(std::slice::from_ref(input), &options)
            .unwrap()
            .manifests;
        // As convert reads them: without the tool lists an earlier gen
        // wrote from the others (views of their tools).
        let candidates: Vec<toolc::project::ViewCandidate> = manifests
            .iter()
            .map(|m| toolc::project::ViewCandidate {
                path: m.path(),
                source: toolc::project::is_source(m.format(), m.generated),
                generated: m.generated,
                names: m.toolset.tools.iter().map(|t| t.name.as_str()).collect(),
            })
            .collect();
        let views = toolc::project::views(&candidates);
        drop(candidates);
        let sets: Vec<toolc::ir::ToolSet> = manifests
            .into_iter()
            .zip(views)
            .filter(|(_, view)| view.is_none())
            .map(|(m, _)| m.toolset)
            .collect();
        for format in [
            toolc::ir::Format::Nora,
            toolc::ir::Format::Agentstack,
            toolc::ir::Format::Nachos,
        ] {
            let to = format.name();
            let options = toolc::convert::Options {
                templates: &templates,
                out_dir: None,
                schema_key: false,
            };
            let all_at_once = toolc::convert::convert(&sets, format, &options).unwrap();
            let out = temp
                .path()
                .join(format!("out-{to}-{}", all_at_once.files.len()));
            let output = Test::new()
                .args(["convert", "--to", to, "--allow-errors"])
                .args([
                    "-o",
                    &out.display().to_string(),
                    &input.display().to_string(),
                ])
                .run();
            assert_eq!(
                output.code,
                0,
                "{to} {}: {}",
                input.display(),
                output.stderr
            );
            let mut written = Vec::new();
            for entry in walkdir::WalkDir::new(&out).sort_by_file_name() {
                let entry = entry.unwrap();
                if entry.file_type().is_file() {
                    let relative = entry.path().strip_prefix(&out).unwrap().to_path_buf();
                    written.push((relative, std::fs::read_to_string(entry.path()).unwrap()));
                }
            }
            let mut expected: Vec<(std::path::PathBuf, String)> = all_at_once
                .files
                .into_iter()
                .map(|f| (f.path, f.contents))
                .collect();
            expected.sort();
            let paths = |files: &[(std::path::PathBuf, String)]| -> std::collections::BTreeSet<std::path::PathBuf> {
                files.iter().map(|(p, _)| p.clone()).collect()
            };
            let (got, want) = (paths(&written), paths(&expected));
            assert_eq!(
                written.len(),
                expected.len(),
                "{to} {}: only written {:?}, only expected {:?}\n{}",
                input.display(),
                got.difference(&want).collect::<Vec<_>>(),
                want.difference(&got).collect::<Vec<_>>(),
                output.stderr
            );
            for ((path, text), (want_path, want)) in written.iter().zip(&expected) {
                assert_eq!(path, want_path, "{to} {}", input.display());
                assert!(
                    text == want,
                    "{to} {}: {} differs",
                    input.display(),
                    path.display()
                );
            }
        }
    }
}
