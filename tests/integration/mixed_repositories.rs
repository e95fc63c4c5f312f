//! Detection in a repository that holds more than tool manifests: a web
//! front end's `config.json`, a build tool's `tools.json` of names. A walk
//! skips them with a `-v` note and passes; a real AgentStack config and
//! agentcli `tools.json` beside them are still read, and a file named on
//! the command line that matches no format is still an error.

use super::{Output, TempDir, Test};

const AGENTCLI: &str = r#"{"tools": [{"name": "get_time", "description": "Tell the time.", "schema": {"type": "object", "properties": {}}, "command": ["/bin/date"]}]}"#;
const AGENTSTACK: &str = r#"{"name": "clock", "category": "time", "tools": ["get_time"]}"#;
const AGENTSTACK_CODE: &str = "def get_time(zone: str) -> str:\n    \"\"\"Tell the time.\n\n    Args:\n        zone: The time zone.\n    \"\"\"\n    return zone\n";

/// A repository with a front end, a build tool's list and two real
/// manifests.
fn repository() -> TempDir {
    let dir = TempDir::new("mixed-repo");
    dir.write(
        "web/config.json",
        r#"{"name": "storefront", "tools": ["eslint", "prettier"]}"#,
    );
    dir.write("build/tools.json", r#"["cargo", "rustfmt", "clippy"]"#);
    dir.write("build/more/tools.json", r#"{"tools": ["make", "ninja"]}"#);
    dir.write("agent/tools.json", AGENTCLI);
    dir.write("pkg/clock/config.json", AGENTSTACK);
    dir.write("pkg/clock/__init__.py", AGENTSTACK_CODE);
    dir
}

fn lint(dir: &TempDir, args: &[&str]) -> Output {
    Test::new()
        .current_dir(dir.path())
        .args(["lint"])
        .args(args)
        .run()
}

#[test]
fn a_walk_skips_a_front_end_config_and_a_list_of_tool_names() {
    let dir = repository();
    let output = lint(&dir, &["--format", "json"]);
    assert_eq!(output.code, 0, "{}\n{}", output.stdout, output.stderr);
    let report = output.json();
    let read: Vec<(String, String)> = report["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap_or_default().to_string(),
                f["format"].as_str().unwrap_or("none").to_string(),
            )
        })
        .collect();
    assert_eq!(
        read,
        [
            ("agent/tools.json".to_string(), "agentcli".to_string()),
            (
                "pkg/clock/config.json".to_string(),
                "agentstack".to_string()
            ),
        ],
        "{report:#}"
    );
    assert_eq!(report["summary"]["skipped"], 3, "{report:#}");
    assert_eq!(report["summary"]["errors"], 0, "{report:#}");

    let verbose = lint(&dir, &["-v"]);
    assert_eq!(verbose.code, 0, "{}", verbose.stderr);
    let notes: Vec<&str> = verbose
        .stderr
        .lines()
        .filter(|l| l.starts_with("note: skipped "))
        .collect();
    assert_eq!(notes.len(), 3, "{}", verbose.stderr);
    assert!(
        notes[0].starts_with(
            "note: skipped build/more/tools.json: a tools.json without agentcli tool objects"
        ),
        "{notes:#?}"
    );
    assert!(
        notes[1].starts_with(
            "note: skipped build/tools.json: a tools.json without agentcli tool objects"
        ),
        "{notes:#?}"
    );
    assert!(
        notes[2].starts_with("note: skipped web/config.json: a config.json without an AgentStack package's `name`, `category`"),
        "{notes:#?}"
    );
}

/// An AgentStack config without `category` is one when its package's code
/// is beside it.
#[test]
fn a_config_without_category_beside_its_package_code_is_agentstack() {
    let dir = TempDir::new("agentstack-no-category");
    dir.write(
        "clock/config.json",
        r#"{"name": "clock", "tools": ["get_time"]}"#,
    );
    dir.write("clock/__init__.py", AGENTSTACK_CODE);
    let output = lint(&dir, &["--format", "json"]);
    let report = output.json();
    assert_eq!(report["files"][0]["format"], "agentstack", "{report:#}");
    assert_eq!(report["summary"]["skipped"], 0, "{report:#}");
}

#[test]
fn a_named_list_of_tool_names_is_still_an_error() {
    let dir = repository();
    let output = lint(&dir, &["--format", "json", "build/tools.json"]);
    assert_eq!(output.code, 1, "{}\n{}", output.stdout, output.stderr);
    assert_eq!(output.json()["summary"]["errors"], 1, "{}", output.stdout);
}
