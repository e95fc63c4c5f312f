//! `toolc gen rust`: the module generated from fixtures/gen/rust-types is a
//! reviewed snapshot; it and the modules generated from the corpus compile
//! with `-D warnings` in a crate that depends on serde and serde_json only,
//! are already rustfmt-formatted, and behave: the crate's own test
//! (fixtures/gen/rust-types/accept.rs) deserializes valid arguments,
//! rejects invalid ones and gets NOT_IMPLEMENTED from `execute`.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{TempDir, Test, root};

const FIXTURE: &str = "fixtures/gen/rust-types";
const AGENTCLI: &str = "../shared/corpus/agentcli";
const NACHOS_TOOLS: &str = "../shared/corpus/nachos/tools";

fn gen_rust(path: &str) -> super::Output {
    // Every note on its own line, as these tests read them.
    let output = Test::new()
        .args(["gen", "rust", path, "--show-notes"])
        .run();
    assert_eq!(output.code, 0, "gen rust {path}: {}", output.stderr);
    output
}

/// How many tools `toolc lint` reads from `path`.
fn tool_count(path: &str) -> u64 {
    let report = Test::new()
        .args(["lint", "--format", "json", path])
        .run()
        .json();
    let files = report["files"].as_array().expect("files");
    files
        .iter()
        .map(|f| f["tools"].as_u64().expect("tools"))
        .sum()
}

#[test]
fn module_snapshot() {
    insta::assert_snapshot!(gen_rust(FIXTURE).stdout);
}

#[test]
fn corpus_module_snapshot() {
    insta::assert_snapshot!(gen_rust(AGENTCLI).stdout);
}

/// The files `toolc ARGS -o NAME` writes, as (file name, text): the
/// module, then its stubs file.
pub(super) fn gen_rust_files(args: &[&str], name: &str) -> Vec<(String, String)> {
    let dir = TempDir::new(&format!("gen-rust-files-{name}"));
    let output = Test::new()
        .args(args)
        .args(["-o", dir.path().join(name).to_str().expect("a UTF-8 path")])
        .run();
    assert_eq!(output.code, 0, "{args:?}: {}", output.stderr);
    let stubs = format!("{}_impl.rs", name.trim_end_matches(".rs"));
    [name.to_string(), stubs]
        .into_iter()
        .map(|file| {
            let text = std::fs::read_to_string(dir.path().join(&file)).expect("a written file");
            (file, text)
        })
        .collect()
}

#[test]
fn stubs_snapshot() {
    let files = gen_rust_files(&["gen", "rust", FIXTURE], "tools.rs");
    assert_eq!(files[1].0, "tools_impl.rs");
    insta::assert_snapshot!(files[1].1);
}

#[test]
fn what_becomes_value_is_noted_at_its_source() {
    let stderr = gen_rust(FIXTURE).stderr;
    let mut notes: Vec<&str> = stderr.lines().collect();
    // Without -o, the module alone goes out, and gen says where its stubs go.
    assert_eq!(
        notes.pop(),
        Some(
            "note: the module calls each tool's `run` in tools_impl.rs beside it; write both with -o FILE"
        )
    );
    assert_eq!(
        notes,
        [
            "note: fixtures/gen/rust-types/tools.json:63:11: tool \"search_files\": generated as serde_json::Value: anyOf has no single Rust type (at /tools/0/schema/properties/context)",
            "note: fixtures/gen/rust-types/tools.json:82:11: tool \"set-config\": generated as serde_json::Value: $ref is not followed (at /tools/1/schema/properties/value)",
            "note: fixtures/gen/rust-types/tools.json:83:11: tool \"set-config\": generated as serde_json::Value: an enum of values that are not all strings (at /tools/1/schema/properties/level)",
            "note: fixtures/gen/rust-types/tools.json:89:11: tool \"set-config\": generated as serde_json::Value: a list of types has no single Rust type (at /tools/1/schema/properties/retry)",
        ]
    );
}

#[test]
fn output_is_deterministic_and_goes_to_a_file() {
    let first = gen_rust(FIXTURE).stdout;
    assert_eq!(first, gen_rust(FIXTURE).stdout);
    let dir = TempDir::new("gen-rust-file");
    let file = dir.path().join("tools.rs");
    let output = Test::new()
        .args(["gen", "rust", FIXTURE, "-o"])
        .args([file.to_str().expect("utf-8 path")])
        .run();
    assert_eq!(output.code, 0, "{}", output.stderr);
    assert_eq!(
        std::fs::read_to_string(&file).expect("read tools.rs"),
        first
    );
}

#[test]
fn hostile_names_and_descriptions_stay_inert() {
    // Text that would end a comment or a literal, open a doctest, or trip
    // a deny-by-default lint (bidirectional overrides), and names that
    // collide once they are identifiers.
    let dir = TempDir::new("gen-rust-hostile");
    let manifest = dir.write(
        "hostile.json",
        r###"[{"type": "function", "function": {
            "name": "crate",
            "description": "line one\r\nline two\r    ```rust\n    panic!()\n~~~\n\u202e evil \"# \"## */",
            "parameters": {"type": "object", "properties": {
                "a-b": {"type": "string", "description": "x\"#\u2066"},
                "a_b": {"type": "string"},
                "A B": {"type": "string", "enum": ["x\"y", "x y", "x-y", "Self", "self"]},
                "\u202e": {"type": "integer"},
                "deep": {"type": "object", "properties": {"deep": {"type": "object", "properties": {"x": {"type": "null"}}}}}
            }}
        }}, {"type": "function", "function": {
            "name": "2fa",
            "description": "A name that starts with a digit; a field that is required but may be null.",
            "parameters": {"type": "object", "required": ["text"], "properties": {
                "text": {"type": ["string", "null"], "description": "Must be sent, may be null."}
            }}
        }}]"###,
    );
    // Provider rules may object to these names; generation is what is tested.
    let output = Test::new()
        .args([
            "gen",
            "rust",
            "--allow-errors",
            manifest.to_str().expect("utf-8 path"),
        ])
        .run();
    assert_eq!(output.code, 0, "{}", output.stderr);
    let text = output.stdout;
    assert!(!text.contains('\u{202e}') && !text.contains('\u{2066}') && !text.contains('\r'));
    assert!(
        text.contains("    pub a_b: Option<String>,")
            && text.contains("#[serde(rename = \"a-b\")]\n    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub a_b3: Option<String>,"),
        "`a_b` keeps its name; `A B` and `a-b`, sorted, get a_b2 and a_b3:\n{text}"
    );
    assert!(
        text.contains("SelfValue,") && text.contains("SelfValue2,"),
        "{text}"
    );
    assert!(
        text.contains("pub struct CrateTool;") && text.contains("pub struct CrateArgsDeepDeep {")
    );
    // A type name cannot start with a digit; a required field that may be
    // null must still be sent (serde would otherwise fill in None).
    assert!(text.contains("pub struct V2faArgs {"), "{text}");
    assert!(
        text.contains("    #[serde(deserialize_with = \"Option::deserialize\")]\n    pub text: Option<String>,"),
        "{text}"
    );
    let files = gen_rust_files(
        &[
            "gen",
            "rust",
            "--allow-errors",
            manifest.to_str().expect("utf-8 path"),
        ],
        "lib.rs",
    );
    assert!(files[0].1.contains("pub struct V2faArgs {"));
    check_crate(&files, None);
}

/// Generated modules compile without warnings, are formatted, and pass the
/// acceptance test.
#[test]
fn generated_modules_compile_and_behave() {
    let fixture = gen_rust(FIXTURE).stdout;
    let goagent = gen_rust(AGENTCLI).stdout;
    let nachos = gen_rust(NACHOS_TOOLS).stdout;
    for (text, path) in [
        (&fixture, FIXTURE),
        (&goagent, AGENTCLI),
        (&nachos, NACHOS_TOOLS),
    ] {
        let stubs = text.matches("        Box::new(").count() as u64;
        assert_eq!(stubs, tool_count(path), "{path}: one stub per tool");
    }
    assert!(goagent.contains("pub struct HttpFetchArgs {"));
    assert!(nachos.contains("pub struct CodeRunnerPythonTool;"));
    let accept =
        std::fs::read_to_string(root().join(FIXTURE).join("accept.rs")).expect("read accept.rs");
    let mut files = gen_rust_files(&["gen", "rust", FIXTURE], "lib.rs");
    files[0].1.push_str("\npub mod goagent;\npub mod nachos;\n");
    files.extend(gen_rust_files(&["gen", "rust", AGENTCLI], "goagent.rs"));
    files.extend(gen_rust_files(&["gen", "rust", NACHOS_TOOLS], "nachos.rs"));
    check_crate(&files, Some(&accept));
}

/// Builds a crate from `modules` (files under src/, lib.rs first) and the
/// integration test `accept`, runs `cargo test` on it with warnings denied,
/// and checks the sources with rustfmt.
///
/// The crate sits in a fixed directory under target/ rather than a fresh
/// temporary one: cargo hashes a package's path into its artifacts, so a
/// new path each run would pile up builds, while one path rebuilds in
/// place. Its target directory is under /work/main/target too, so serde is
/// compiled once. The network is not used: `--offline` with toolc's own
/// Cargo.lock (cargo prunes what the crate does not use) takes the versions
/// that building toolc put in the registry cache.
fn check_crate(modules: &[(String, String)], accept: Option<&str>) {
    let name = if accept.is_some() { "full" } else { "hostile" };
    // The two crates share a target directory (serde builds once) and are
    // built by tests running in parallel: each needs its own package name,
    // or their outputs collide and a test may link the other crate's lib.
    // accept.rs uses the full crate as `toolc_gen_rust_check`.
    let package = if accept.is_some() {
        "toolc_gen_rust_check"
    } else {
        "toolc_gen_rust_hostile"
    };
    check_crate_as(name, package, modules, accept);
}

/// [`check_crate`] in the directory `name` under target/gen-rust-check, as
/// the package `package` (unique among the tests that build at once).
pub(super) fn check_crate_as(
    name: &str,
    package: &str,
    modules: &[(String, String)],
    accept: Option<&str>,
) {
    let base = root().join("target/gen-rust-check");
    let dir = base.join(name);
    let _ = std::fs::remove_dir_all(dir.join("src"));
    let _ = std::fs::remove_dir_all(dir.join("tests"));
    write(
        &dir.join("Cargo.toml"),
        &CARGO_TOML.replace("toolc_gen_rust_check", package),
    );
    std::fs::copy(root().join("Cargo.lock"), dir.join("Cargo.lock")).expect("copy Cargo.lock");
    let mut sources = Vec::new();
    for (file, text) in modules {
        let path = dir.join("src").join(file);
        write(&path, text);
        sources.push(path);
    }
    if let Some(accept) = accept {
        write(&dir.join("tests/accept.rs"), accept);
    }
    let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string()))
        .args(["test", "--offline", "--quiet"])
        .current_dir(&dir)
        .env("RUSTFLAGS", "-D warnings")
        .env("RUSTDOCFLAGS", "-D warnings")
        .env("CARGO_TARGET_DIR", base.join("target"))
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_RUSTFLAGS")
        .output()
        .expect("run cargo");
    let report = format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success(),
        "cargo test in {}:\n{report}",
        dir.display()
    );
    if accept.is_some() {
        assert!(
            report.contains("test result: ok. 7 passed"),
            "the acceptance test ran:\n{report}"
        );
    }
    rustfmt_check(&sources);
}

fn rustfmt_check(sources: &[PathBuf]) {
    let output = Command::new("rustfmt")
        .args(["--edition", "2024", "--check"])
        .args(sources)
        .output()
        .expect("run rustfmt");
    assert!(
        output.status.success(),
        "generated code is not rustfmt-formatted:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

pub(super) fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create dir");
    }
    std::fs::write(path, text).expect("write file");
}

pub(super) const CARGO_TOML: &str = r#"[package]
name = "toolc_gen_rust_check"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
serde = { version = "1", features = ["derive"] }
serde_json = "1"

# Not a member of any workspace above it.
[workspace]
"#;

/// Each manifest's tools are made ready on their own, then put together in
/// path order: a type name another manifest took first still gets a
/// number, as if the module had been made in one pass.
#[test]
fn names_taken_by_an_earlier_manifest_get_a_number() {
    let dir = TempDir::new("gen-rust-names-across-manifests");
    let manifest = |tool: &str| {
        format!(
            r#"{{"tools": [{{"name": "{tool}", "description": "Looks a user up.",
                "command": ["/bin/true"],
                "schema": {{"type": "object", "properties": {{
                    "address": {{"type": "object", "properties": {{"city": {{"type": "string"}}}}}}
                }}}}}}]}}"#
        )
    };
    dir.write("a/tools.json", manifest("get-user"));
    dir.write("b/tools.json", manifest("get_user"));
    let path = dir.path().to_string_lossy().into_owned();
    let output = Test::new().args(["gen", "rust", &path]).run();
    assert_eq!(output.code, 0, "{}", output.stderr);
    let defined = |item: &str| {
        output
            .stdout
            .lines()
            .filter_map(|line| line.strip_prefix("pub struct "))
            .filter(|rest| {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                name == item
            })
            .count()
    };
    for name in [
        "GetUserTool",
        "GetUserArgs",
        "GetUserArgsAddress",
        "GetUserTool2",
        "GetUserArgs2",
        "GetUserArgs2Address",
    ] {
        assert_eq!(defined(name), 1, "pub struct {name}:\n{}", output.stdout);
    }
}

/// A user's `tool.rs.jinja` may use what the module's loop gives the
/// templates it includes (`loop`, `tools`): overriding it renders the
/// tools inside the module, as before gen rust rendered tools on workers.
#[test]
fn an_overridden_tool_template_still_sees_the_module_loop() {
    let temp = TempDir::new("rust-tool-template");
    let built_in = std::fs::read_to_string(root().join("templates/rust/tool.rs.jinja"))
        .expect("built-in tool template");
    temp.write(
        "templates/rust/tool.rs.jinja",
        format!("// tool {{{{ loop.index }}}} of {{{{ tools|length }}}}\n{built_in}"),
    );
    let templates = temp.path().join("templates");
    let templates = templates.to_str().expect("a UTF-8 temp path");
    let output = Test::new()
        .args(["gen", "rust", FIXTURE, "--templates", templates])
        .run();
    assert_eq!(output.code, 0, "{}", output.stderr);
    assert!(output.stdout.contains("// tool 1 of "), "{}", output.stdout);
}
