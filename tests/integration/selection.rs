//! File selection: `exclude`, `extend-exclude`, `force-exclude` (in
//! toolc.toml and on the command line) and the `$schema` key.

use super::{TempDir, Test};

const BROKEN: &str = r#"{"tools": [{"name": "a"}]}"#;

/// The paths of the files a lint run read, sorted.
fn linted(dir: &TempDir, args: &[&str]) -> Vec<String> {
    let output = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--format", "json"])
        .args(args)
        .run();
    assert_ne!(output.code, 2, "{}", output.stderr);
    let mut paths: Vec<String> = output.json()["files"]
        .as_array()
        .expect("files")
        .iter()
        .filter_map(|f| f["path"].as_str().map(str::to_string))
        .collect();
    paths.sort();
    paths
}

fn tree() -> TempDir {
    let dir = TempDir::new("selection");
    for path in [
        "keep/tools.json",
        "legacy/tools.json",
        "gen/openai/tools.json",
        "sub/legacy/tools.json",
        "node_modules/pkg/tools.json",
    ] {
        dir.write(path, BROKEN);
    }
    dir
}

#[test]
fn exclude_and_extend_exclude_follow_ruffs_meaning() {
    let dir = tree();
    // The defaults leave out node_modules.
    assert_eq!(
        linted(&dir, &[]),
        [
            "gen/openai/tools.json",
            "keep/tools.json",
            "legacy/tools.json",
            "sub/legacy/tools.json"
        ]
    );
    // A name without `/` matches anywhere; a path is relative to the
    // configuration's directory; extend-exclude keeps the defaults.
    dir.write("toolc.toml", "extend-exclude = [\"legacy\", \"gen/*\"]\n");
    assert_eq!(linted(&dir, &[]), ["keep/tools.json"]);
    // exclude replaces the defaults: node_modules is read again.
    dir.write("toolc.toml", "exclude = [\"legacy\"]\n");
    assert_eq!(
        linted(&dir, &[]),
        [
            "gen/openai/tools.json",
            "keep/tools.json",
            "node_modules/pkg/tools.json"
        ]
    );
    // --exclude replaces the file's exclude; --extend-exclude adds.
    assert_eq!(
        linted(&dir, &["--exclude", "gen,node_modules"]),
        [
            "keep/tools.json",
            "legacy/tools.json",
            "sub/legacy/tools.json"
        ]
    );
    assert_eq!(
        linted(&dir, &["--extend-exclude", "keep/tools.json"]),
        ["gen/openai/tools.json", "node_modules/pkg/tools.json"]
    );
    // A named file is read even when excluded, unless force-exclude.
    assert_eq!(linted(&dir, &["legacy/tools.json"]), ["legacy/tools.json"]);
    assert!(linted(&dir, &["--force-exclude", "legacy/tools.json"]).is_empty());
    dir.write(
        "toolc.toml",
        "extend-exclude = [\"legacy\"]\nforce-exclude = true\n",
    );
    assert!(linted(&dir, &["sub/legacy/tools.json"]).is_empty());
    assert_eq!(linted(&dir, &["keep/tools.json"]), ["keep/tools.json"]);
}

/// Exclusions match canonical paths: a directory reached through a
/// symbolic link is excluded as its target is, at any depth below the
/// link.
#[cfg(unix)]
#[test]
fn exclusions_see_through_linked_directories() {
    let dir = TempDir::new("selection-links");
    for path in [
        "real/keep/tools.json",
        "real/a/gen/tools.json",
        "real/a/b/tools.json",
    ] {
        dir.write(path, BROKEN);
    }
    std::os::unix::fs::symlink("real", dir.path().join("linked")).expect("symlink");
    dir.write("toolc.toml", "extend-exclude = [\"real/a/gen\"]\n");
    assert_eq!(
        linted(&dir, &[]),
        [
            "linked/a/b/tools.json",
            "linked/keep/tools.json",
            "real/a/b/tools.json",
            "real/keep/tools.json"
        ]
    );
    assert_eq!(
        linted(&dir, &["linked"]),
        ["linked/a/b/tools.json", "linked/keep/tools.json"]
    );
    // The link's own name is no path of the configuration's.
    dir.write("toolc.toml", "extend-exclude = [\"linked/a\"]\n");
    assert_eq!(linted(&dir, &["linked"]).len(), 3);
}

#[test]
fn a_bad_exclude_glob_is_an_error_naming_it() {
    let dir = tree();
    dir.write("toolc.toml", "exclude = [\"[oops\"]\n");
    let output = Test::new().current_dir(dir.path()).args(["lint"]).run();
    assert_eq!(output.code, 2);
    assert!(
        output.stderr.contains("exclude") && output.stderr.contains("[oops"),
        "{}",
        output.stderr
    );
    std::fs::remove_file(dir.path().join("toolc.toml")).expect("remove");
    let output = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--exclude", "a/[b"])
        .run();
    assert_eq!(output.code, 2);
    assert!(output.stderr.contains("--exclude"), "{}", output.stderr);
}

#[test]
fn every_format_accepts_a_schema_key_at_its_root() {
    let dir = TempDir::new("schema-key");
    let documents = [
        (
            "nora/tool.json",
            r#"{"$schema": "https://example.com/s.json", "name": "a", "description": "A tool", "entrypoint": "run.py", "parameters": {"type": "object", "properties": {}}}"#,
        ),
        (
            "agentcli/tools.json",
            r#"{"$schema": "https://example.com/s.json", "tools": [{"name": "a", "description": "A tool", "command": ["./tools/bin/a"], "schema": {"type": "object", "properties": {}}}]}"#,
        ),
        (
            "agentstack/config.json",
            r#"{"$schema": "https://example.com/s.json", "name": "pkg", "category": "web", "tools": ["a"]}"#,
        ),
        (
            "nachos/manifest.json",
            r#"{"$schema": "https://example.com/s.json", "name": "c", "version": "1.0.0", "type": "channel", "provides": {"channel": "x"}}"#,
        ),
        (
            "openai/openai.json",
            r#"{"$schema": "https://example.com/s.json", "tools": [{"type": "function", "function": {"name": "a", "description": "A tool", "parameters": {"type": "object", "properties": {}}}}]}"#,
        ),
        (
            "anthropic/anthropic.json",
            r#"{"$schema": "https://example.com/s.json", "name": "a", "description": "A tool", "input_schema": {"type": "object", "properties": {}}}"#,
        ),
        (
            "mcp/mcp.json",
            r#"{"$schema": "https://example.com/s.json", "tools": [{"name": "a", "description": "A tool", "inputSchema": {"type": "object", "properties": {}}}]}"#,
        ),
    ];
    for (path, text) in documents {
        dir.write(path, text);
    }
    dir.write("nora/run.py", "def run(params):\n    return {}\n");
    let program = dir.write("agentcli/tools/bin/a", "#!/bin/sh\necho '{}'\n");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    dir.write(
        "agentstack/__init__.py",
        "def a() -> str:\n    \"\"\"A tool.\"\"\"\n    return \"\"\n",
    );
    let output = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--format", "json"])
        .run();
    let report = output.json();
    assert_eq!(
        report["files"].as_array().map(Vec::len),
        Some(7),
        "{report:#}"
    );
    let about_schema: Vec<&serde_json::Value> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| {
            d["pointer"] == "/$schema"
                || d["message"].as_str().is_some_and(|m| m.contains("$schema"))
        })
        .collect();
    assert!(about_schema.is_empty(), "{about_schema:#?}");
    // Nor is it carried into another format as a field of a tool.
    let converted = Test::new()
        .current_dir(dir.path())
        .args(["convert", "agentcli/tools.json", "--to", "mcp", "-o", "-"])
        .run();
    assert_eq!(converted.code, 0, "{}", converted.stderr);
    assert!(
        !converted.stdout.contains("$schema"),
        "{}",
        converted.stdout
    );
}

#[test]
fn one_file_named_by_several_spellings_is_read_once() {
    let dir = tree();
    let absolute = dir.path().join("keep/tools.json");
    let absolute = absolute.to_str().expect("UTF-8 temp path");
    let paths = linted(
        &dir,
        &[
            "keep/tools.json",
            "keep/../keep/tools.json",
            absolute,
            "keep",
        ],
    );
    assert_eq!(paths, ["keep/tools.json"]);
}
