//! The front end through the public API: loading from disk and from memory,
//! and each package file read once per run, however many manifests and
//! rules need it.

use std::path::PathBuf;
use std::sync::Arc;

use toolc::ir::Format;
use toolc::lint::{LintOptions, Linter};
use toolc::project::{LoadOptions, Project, ReadLog};

use super::{TempDir, root};

/// A tree with every kind of package code: one Nachos package whose
/// TypeScript three manifests share, an AgentStack package, a NORA tool
/// with its entrypoint, an agentcli manifest with a program in tools/bin.
fn packages() -> TempDir {
    let dir = TempDir::new("read-once");
    for (file, tool) in [
        ("manifest.read.json", "fs-read"),
        ("manifest.write.json", "fs-write"),
        ("manifest.edit.json", "fs-edit"),
    ] {
        dir.write(
            &format!("nachos/fs/{file}"),
            format!(
                r#"{{"name": "{tool}", "version": "1.0.0", "type": "tool",
  "provides": {{"tool": "{tool}", "securityTier": 1}},
  "capabilities": {{"network": {{"egress": []}}}}}}"#
            ),
        );
    }
    dir.write(
        "nachos/fs/src/tools.ts",
        r#"export class ReadTool {
  readonly toolId = 'fs-read';
  readonly name = 'Read';
  readonly description = 'Reads a file';
  readonly securityTier = 1;
  readonly parameters = { type: 'object', properties: { path: { type: 'string', description: 'file' } }, required: ['path'] };
}
export class WriteTool {
  readonly toolId = 'fs-write';
  readonly description = 'Writes a file';
  readonly securityTier = 1;
  readonly parameters = { type: 'object', properties: { path: { type: 'string', description: 'file' } } };
}
"#,
    );
    dir.write(
        "nachos/fs/src/edit.ts",
        "export class EditTool {\n  readonly toolId = 'fs-edit';\n  readonly description = 'Edits';\n  readonly securityTier = 1;\n  readonly parameters = { type: 'object', properties: {} };\n}\n",
    );
    dir.write(
        "agentstack/search/config.json",
        r#"{"name": "search", "category": "search", "tools": {"find": {"actions": ["read"]}, "count": {"actions": ["read"]}}}"#,
    );
    dir.write(
        "agentstack/search/__init__.py",
        "def find(query: str) -> str:\n    \"\"\"Finds things.\n\n    Args:\n        query: what to find\n    \"\"\"\n    return query\n\n\ndef count(query: str, limit: int = 3) -> int:\n    \"\"\"Counts things.\n\n    Args:\n        query: what to count\n        limit: at most\n    \"\"\"\n    return limit\n",
    );
    dir.write(
        "nora/greet/tool.json",
        r#"{"name": "greet", "description": "Greets", "entrypoint": "main.py", "parameters": {"type": "object", "properties": {"who": {"type": "string", "description": "whom", "required": true}}}}"#,
    );
    dir.write(
        "nora/greet/main.py",
        "def run(params):\n    return 'hi ' + params['who']\n",
    );
    dir.write(
        "agentcli/tools.json",
        r#"{"tools": [{"name": "echo", "description": "Echoes", "command": ["./tools/bin/echo"], "schema": {"type": "object", "properties": {}}},
{"name": "echo2", "description": "Echoes again", "command": ["./tools/bin/echo"], "schema": {"type": "object", "properties": {}}}]}"#,
    );
    let program = dir.write("agentcli/tools/bin/echo", "#!/bin/sh\ncat\n");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    dir
}

/// Every file the log saw, with its count, for a failure message.
fn reads(log: &ReadLog) -> Vec<(PathBuf, usize)> {
    log.reads().into_iter().collect()
}

#[test]
fn a_lint_run_reads_each_file_once() {
    let dir = packages();
    // The three Nachos manifests share their TypeScript and are linted on
    // parallel workers: repeated, so that a race between them shows.
    for _ in 0..100 {
        let log = Arc::new(ReadLog::new());
        let options = LintOptions {
            read_log: Some(log.clone()),
            ..LintOptions::default()
        };
        let report = toolc::lint::lint_paths(&[dir.path().to_path_buf()], &options).expect("lint");
        assert_eq!(report.files.len(), 6, "{:#?}", report.files);
        let reads = reads(&log);
        let read = |name: &str| reads.iter().filter(|(p, _)| p.ends_with(name)).count();
        // The shared TypeScript, the Python module and the entrypoint were
        // all read, and every file once.
        for name in [
            "src/tools.ts",
            "src/edit.ts",
            "search/__init__.py",
            "greet/main.py",
        ] {
            assert_eq!(read(name), 1, "{name} not read: {reads:#?}");
        }
        assert!(reads.iter().all(|(_, n)| *n == 1), "{reads:#?}");
    }
}

#[test]
fn loading_for_gen_and_checking_reads_each_file_once() {
    let dir = packages();
    let log = Arc::new(ReadLog::new());
    // The front end resolves the configuration and loads without a linter;
    // lint checks what it loaded.
    let configuration = Arc::new(
        toolc::project::Resolver::new(
            toolc::project::config::CommandLine::default(),
            toolc::lint::RULES.as_slice(),
        )
        .expect("configuration"),
    );
    let options = LoadOptions {
        read_log: Some(log.clone()),
        ..LoadOptions::default()
    };
    let project = Project::load_configured(&[dir.path().to_path_buf()], &options, &configuration)
        .expect("load");
    let linter = Linter::configured(LintOptions::default(), configuration);
    let report = linter.check(&project).expect("check");
    let errors: Vec<_> = report
        .diagnostics
        .iter()
        .filter(|d| d.severity == toolc::diagnostic::Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // The IR is full: parameters from the TypeScript and the Python.
    let tool = |name: &str| {
        project
            .toolsets()
            .flat_map(|s| &s.tools)
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("no tool {name}"))
    };
    assert_eq!(
        tool("fs-read").parameters.as_ref().unwrap()["required"][0],
        "path"
    );
    assert_eq!(
        tool("count").parameters.as_ref().unwrap()["properties"]["limit"]["type"],
        "integer"
    );
    assert_eq!(
        tool("greet").parameters.as_ref().unwrap()["required"][0],
        "who"
    );
    let reads = reads(&log);
    assert!(reads.len() >= 10, "{reads:#?}");
    assert!(reads.iter().all(|(_, n)| *n == 1), "{reads:#?}");
}

#[test]
fn fixing_in_rounds_reads_package_code_once() {
    let dir = packages();
    // Two safe fixes at one place take two rounds.
    dir.write(
        "nora/greet/tool.json",
        r#"{"name": "greet", "description": "Greets", "entrypoint": "main.py", "parameters": {"type": "object", "properties": {"who": {"type": "string", "description": "whom"}, "how": {"type": "string", "description": "how"}}}}"#,
    );
    let log = Arc::new(ReadLog::new());
    let options = LintOptions {
        read_log: Some(log.clone()),
        ..LintOptions::default()
    };
    let fixed =
        toolc::lint::fix::fix_paths(&[dir.path().to_path_buf()], &options, false).expect("fix");
    assert_eq!(fixed.len(), 1, "{fixed:#?}");
    let reads = reads(&log);
    assert!(reads.iter().all(|(_, n)| *n == 1), "{reads:#?}");
    assert!(
        reads.iter().any(|(p, _)| p.ends_with("greet/main.py")),
        "{reads:#?}"
    );
}

#[test]
fn the_corpus_is_read_once_per_file() {
    let corpus = root().join("../shared/corpus");
    let log = Arc::new(ReadLog::new());
    let options = LintOptions {
        read_log: Some(log.clone()),
        ..LintOptions::default()
    };
    let report = toolc::lint::lint_paths(&[corpus], &options).expect("lint");
    assert!(report.files.len() > 10);
    let reads = reads(&log);
    assert!(reads.iter().all(|(_, n)| *n == 1), "{reads:#?}");
}

#[test]
fn documents_in_memory_load_like_files() {
    let dir = packages();
    // An unsaved buffer of the agentcli manifest: its text from memory, its
    // programs from disk beside its path.
    let path = dir.path().join("agentcli/tools.json");
    let edited = r#"{"tools": [
  {"name": "echo", "description": "Echoes", "command": ["./tools/bin/missing"], "schema": {"type": "object", "properties": {}}},
  {"name": "echo", "description": "Twice", "command": ["./tools/bin/echo"], "schema": {"type": "object"}}
]}"#;
    let project = Project::from_documents(
        [(path.display().to_string(), edited.to_string())],
        &LoadOptions::default(),
    );
    assert_eq!(project.manifests.len(), 1);
    assert_eq!(project.manifests[0].format(), Format::Agentcli);
    let report = Linter::new(LintOptions::default())
        .expect("linter")
        .check(&project)
        .expect("check");
    let rules: Vec<&str> = report.diagnostics.iter().map(|d| d.rule.name).collect();
    assert!(rules.contains(&"duplicate-tool-name"), "{rules:?}");
    assert!(rules.contains(&"command-not-found"), "{rules:?}");
    let missing = report
        .diagnostics
        .iter()
        .find(|d| d.rule == "command-not-found")
        .unwrap();
    let source = &report.sources[&missing.path];
    let at = source.line_col(missing.span.unwrap().start);
    assert_eq!((at.line, at.column), (2, 57));
}

#[test]
fn a_broken_document_in_memory_is_a_problem_not_a_panic() {
    let project = Project::from_documents(
        [
            ("a/tools.json".to_string(), "{\"tools\": [".to_string()),
            ("b/notes.json".to_string(), "[1, 2]".to_string()),
        ],
        &LoadOptions::default(),
    );
    assert!(project.manifests.is_empty());
    let kinds: Vec<_> = project.failures.iter().map(|f| f.problem.kind).collect();
    assert_eq!(
        kinds,
        vec![
            toolc::project::ProblemKind::InvalidJson,
            toolc::project::ProblemKind::UnknownFormat
        ]
    );
}

#[test]
fn each_manifest_sees_package_code_under_its_own_size_limit() {
    // Two NORA tools share one entrypoint; a's toolc.toml allows 1 KiB, so
    // for a the script is too large to read, for b it is read and has no
    // run(). Whichever is loaded first, the answer is the same.
    let dir = TempDir::new("limit-per-manifest");
    let script = dir.write(
        "shared.py",
        format!("# {}\ndef not_run(p):\n    return p\n", "x".repeat(2000)),
    );
    for name in ["a", "b"] {
        dir.write(
            &format!("{name}/tool.json"),
            format!(
                r#"{{"name": "t{name}", "description": "d", "entrypoint": "{}", "parameters": {{"type": "object", "properties": {{}}}}}}"#,
                script.display()
            ),
        );
    }
    dir.write("a/toolc.toml", "max-file-size = \"1KiB\"\n");
    for _ in 0..30 {
        let report = toolc::lint::lint_paths(
            &[dir.path().join("a"), dir.path().join("b")],
            &LintOptions::default(),
        )
        .expect("lint");
        let missing: Vec<&str> = report
            .diagnostics
            .iter()
            .filter(|d| d.rule == "entrypoint-missing-run")
            .map(|d| d.path.as_str())
            .collect();
        assert_eq!(missing.len(), 1, "{missing:?}");
        assert!(missing[0].ends_with("b/tool.json"), "{missing:?}");
    }
}

#[test]
fn a_directory_named_in_bytes_that_are_not_utf8_keeps_its_configuration() {
    use std::os::unix::ffi::OsStrExt;
    let dir = TempDir::new("non-utf8-config");
    let odd = dir.path().join(std::ffi::OsStr::from_bytes(b"c\xff"));
    std::fs::create_dir_all(&odd).expect("mkdir");
    std::fs::write(
        odd.join("tool.json"),
        r#"{"name": "one", "description": "d", "entrypoint": "main.py", "parameters": {"type": "object", "properties": {}}}"#,
    )
    .expect("write");
    std::fs::write(odd.join("main.py"), "").expect("write");
    std::fs::write(
        odd.join("toolc.toml"),
        "[rules]\nentrypoint-missing-run = \"off\"\n",
    )
    .expect("write");
    let linter = Linter::new(LintOptions::default()).expect("linter");
    let streamed = linter.lint_paths(std::slice::from_ref(&odd)).expect("lint");
    let project = Project::load_configured(&[odd], &linter.load_options(), linter.configuration())
        .expect("load");
    let checked = linter.check(&project).expect("check");
    for report in [streamed, checked] {
        let rules: Vec<&str> = report.diagnostics.iter().map(|d| d.rule.name).collect();
        assert!(!rules.contains(&"entrypoint-missing-run"), "{rules:?}");
    }
}

/// An editor's unsaved buffers: the manifest from one, the package code from
/// another, while the disk holds older texts. What is found is found in the
/// buffers, at their positions.
#[test]
fn unsaved_buffers_are_read_in_place_of_files() {
    let dir = packages();
    let package = dir.path().join("agentstack/search");
    // On disk `find` is typed; in the buffer its hint is unknown, and a
    // line of emoji moves it down.
    let buffer = "# 👋 edited\n\ndef find(query: Widget) -> str:\n    \"\"\"Finds.\n\n    Args:\n        query: what\n    \"\"\"\n    return query\n\n\ndef count(query: str) -> int:\n    \"\"\"Counts.\n\n    Args:\n        query: what\n    \"\"\"\n    return 1\n";
    let mut overlay = toolc::project::Overlay::new();
    overlay.insert(&package.join("__init__.py"), buffer);
    // The manifest's buffer names a third tool, not on disk.
    let manifest = r#"{"name": "search", "category": "search", "tools": {"find": {"actions": ["read"]}, "count": {"actions": ["read"]}, "sum": {"actions": ["read"]}}}"#;
    let options = LoadOptions {
        overlay: Some(Arc::new(overlay)),
        ..LoadOptions::default()
    };
    let shown = package.join("config.json").display().to_string();
    let project = Project::from_documents([(shown, manifest.to_string())], &options);
    let report = Linter::new(LintOptions::default())
        .expect("linter")
        .check(&project)
        .expect("check");
    let found = |rule: &str| {
        report
            .diagnostics
            .iter()
            .find(|d| d.rule == rule)
            .unwrap_or_else(|| panic!("no {rule}: {:#?}", report.diagnostics))
    };
    let hint = found("python-type-hint-unknown");
    assert!(hint.path.ends_with("__init__.py"), "{hint:#?}");
    let span = hint.span.expect("span");
    // The finding is on the function's line, in bytes of the buffer.
    let at = buffer.find("def find").expect("in buffer");
    assert_eq!(span.start, at, "{hint:#?}");
    assert!(hint.message.contains("__init__.py:3"), "{hint:#?}");
    // `sum` is neither on disk nor in the buffer.
    let missing = found("agentstack-function-missing");
    assert!(missing.message.contains("sum"), "{missing:#?}");

    // Without the overlay the disk's code is read: no unknown hint.
    let project = Project::from_documents(
        [(
            package.join("config.json").display().to_string(),
            manifest.to_string(),
        )],
        &LoadOptions::default(),
    );
    let report = Linter::new(LintOptions::default())
        .expect("linter")
        .check(&project)
        .expect("check");
    assert!(
        !report
            .diagnostics
            .iter()
            .any(|d| d.rule == "python-type-hint-unknown"),
        "{:#?}",
        report.diagnostics
    );
}

/// A Nachos class that exists only in an editor's buffer, under `src/`, is
/// found; the file's text comes from the buffer.
#[test]
fn a_class_only_in_a_buffer_is_found() {
    let dir = packages();
    let package = dir.path().join("nachos/fs");
    let manifest = r#"{"name": "fs-move", "version": "1.0.0", "type": "tool",
  "provides": {"tool": "fs-move", "securityTier": 1},
  "capabilities": {"network": {"egress": []}}}"#;
    let shown = package.join("manifest.move.json").display().to_string();
    let load = |options: &LoadOptions| {
        let project = Project::from_documents([(shown.clone(), manifest.to_string())], options);
        Linter::new(LintOptions::default())
            .expect("linter")
            .check(&project)
            .expect("check")
            .diagnostics
            .iter()
            .map(|d| d.rule.name)
            .collect::<Vec<_>>()
    };
    assert!(load(&LoadOptions::default()).contains(&"nachos-class-missing"));
    let mut overlay = toolc::project::Overlay::new();
    overlay.insert(
        &package.join("src/move.ts"),
        "export class MoveTool {\n  readonly toolId = 'fs-move';\n  readonly description = 'Moves a file';\n  readonly securityTier = 1;\n  readonly parameters = { type: 'object', properties: { from: { type: 'string', description: 'from' } } };\n}\n",
    );
    // Not a package file: beside node_modules.
    overlay.insert(
        &package.join("src/node_modules/x.ts"),
        "export class X {}\n",
    );
    let options = LoadOptions {
        overlay: Some(Arc::new(overlay)),
        ..LoadOptions::default()
    };
    let rules = load(&options);
    assert!(!rules.contains(&"nachos-class-missing"), "{rules:?}");
}
