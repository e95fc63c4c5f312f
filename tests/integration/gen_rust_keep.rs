//! `toolc gen rust` output users can keep: the module is toolc's (rewritten
//! and checked), the stubs file beside it is the user's (written once, then
//! only appended to). The whole workflow runs here: generate, fill in every
//! stub, add a tool and a parameter, generate again; the crate builds on
//! editions 2021 and 2024 with warnings denied and clippy clean, the filled
//! code is intact and runs, and `--check` agrees. A changed signature is a
//! compile error naming the tool; the writer never drops a user's line.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::gen_rust::write;
use super::{Output, TempDir, Test, root};

/// The manifest: `greet` alone, then with a new parameter and a new tool.
const FIRST: &str = r#"{"tools": [
  {"name": "greet", "description": "Greets someone.", "command": ["/bin/true"],
   "schema": {"type": "object", "required": ["name"],
              "properties": {"name": {"type": "string", "description": "Who."}}}}
]}"#;
const SECOND: &str = r#"{"tools": [
  {"name": "greet", "description": "Greets someone.", "command": ["/bin/true"],
   "schema": {"type": "object", "required": ["name"],
              "properties": {"name": {"type": "string", "description": "Who."},
                             "punctuation": {"type": "string", "description": "How it ends."}}}},
  {"name": "farewell", "description": "Says goodbye.", "command": ["/bin/true"],
   "schema": {"type": "object", "required": ["name"],
              "properties": {"name": {"type": "string"}}}}
]}"#;

/// The stub body toolc writes, which the user replaces.
const STUB_BODY: &str =
    "        // The tool's work goes here: use `args`, return `ToolResult::success(..)`.
        let arguments = serde_json::to_value(&args).ok();
        ToolResult::failure(ToolError::not_implemented(self.tool_id(), arguments))
";

pub(super) fn gen_rust(dir: &Path, extra: &[&str]) -> Output {
    Test::new()
        .current_dir(dir)
        .args(["gen", "rust", "tools.json", "-o", "src/tools.rs"])
        .args(extra)
        .run()
}

/// Replaces the stub body of `tool`'s `run` in `stubs` with `body`.
pub(super) fn fill(stubs: &str, tool: &str, body: &str) -> String {
    let header = format!("impl Run for {tool}Tool {{");
    let at = stubs.find(&header).expect("the tool's stub");
    let body_at = at + stubs[at..].find(STUB_BODY).expect("an unfilled stub");
    format!(
        "{}{body}{}",
        &stubs[..body_at],
        &stubs[body_at + STUB_BODY.len()..]
    )
}

/// The oldest Rust the module's header says it needs.
pub(super) fn rust_version(module: &str) -> String {
    let rest = module
        .split("Needs Rust ")
        .nth(1)
        .expect("the header names the oldest Rust");
    rest.split_whitespace()
        .next()
        .expect("a version")
        .to_string()
}

/// Runs cargo `args` in the crate at `dir` (edition `edition`) with
/// warnings denied.
pub(super) fn cargo(
    dir: &Path,
    package: &str,
    edition: &str,
    version: &str,
    args: &[&str],
) -> std::process::Output {
    let manifest = format!(
        "[package]\nname = \"{package}\"\nversion = \"0.0.0\"\nedition = \"{edition}\"\nrust-version = \"{version}\"\npublish = false\n\n[dependencies]\nserde = {{ version = \"1\", features = [\"derive\"] }}\nserde_json = \"1\"\n\n[workspace]\n"
    );
    write(&dir.join("Cargo.toml"), &manifest);
    std::fs::copy(root().join("Cargo.lock"), dir.join("Cargo.lock")).expect("copy Cargo.lock");
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string()))
        .arg(args[0])
        .arg("--offline")
        .args(&args[1..])
        .current_dir(dir)
        .env("RUSTFLAGS", "-D warnings")
        .env(
            "CARGO_TARGET_DIR",
            root().join("target/gen-rust-check/target"),
        )
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_RUSTFLAGS")
        .output()
        .expect("run cargo")
}

pub(super) fn report(output: &std::process::Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// A crate directory under target/ (a fixed path: cargo rebuilds in place)
/// holding the generated `src/` of `from`, the library and its test.
pub(super) fn crate_dir(name: &str, from: &Path) -> PathBuf {
    let dir = root().join("target/gen-rust-check").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    for file in ["tools.rs", "tools_impl.rs"] {
        let text = std::fs::read_to_string(from.join("src").join(file)).expect("generated file");
        write(&dir.join("src").join(file), &text);
    }
    write(&dir.join("src/lib.rs"), "pub mod tools;\n");
    write(&dir.join("tests/accept.rs"), ACCEPT);
    dir
}

/// The crate's test: the filled tools run, through `execute`.
const ACCEPT: &str = r#"use serde_json::json;

fn call(id: &str, args: serde_json::Value) -> serde_json::Value {
    let tools = the_crate::tools::all_tools();
    let tool = tools.iter().find(|t| t.tool_id() == id).expect("the tool");
    serde_json::to_value(tool.execute(args)).expect("a result")
}

#[test]
fn the_filled_tools_run() {
    let greeted = call("greet", json!({"name": "Ada", "punctuation": "!"}));
    assert_eq!(greeted["result"], json!("Hello, Ada!"));
    let plain = call("greet", json!({"name": "Ada"}));
    assert_eq!(plain["result"], json!("Hello, Ada."));
    let gone = call("farewell", json!({"name": "Ada"}));
    assert_eq!(gone["result"], json!("Goodbye, Ada"));
    let refused = call("greet", json!({}));
    assert_eq!(refused["error"]["code"], json!("VALIDATION_ERROR"));
}
"#;

/// The greet body of the first fill (the manifest has no `punctuation`
/// yet), and of the second, once it does.
const GREET_FIRST: &str = "        let greeting = format!(\"Hello, {}.\", args.name);
        ToolResult::success(Value::from(greeting))
";
const GREET_SECOND: &str =
    "        let end = args.punctuation.unwrap_or_else(|| \".\".to_string());
        ToolResult::success(Value::from(format!(\"Hello, {}{end}\", args.name)))
";
const FAREWELL: &str =
    "        ToolResult::success(Value::from(format!(\"Goodbye, {}\", args.name)))
";

#[test]
fn the_user_workflow_keeps_filled_code_and_builds_on_both_editions() {
    let temp = TempDir::new("gen-rust-keep-workflow");
    let dir = temp.path();
    temp.write("tools.json", FIRST);
    let first = gen_rust(dir, &[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let stubs_path = dir.join("src/tools_impl.rs");
    let module_path = dir.join("src/tools.rs");
    let stubs = std::fs::read_to_string(&stubs_path).expect("the stubs file");
    let module = std::fs::read_to_string(&module_path).expect("the module");
    assert!(module.to_lowercase().contains("generated by toolc"));
    assert!(
        !stubs.to_lowercase().contains("generated by toolc"),
        "{stubs}"
    );

    // Fill in every stub; the module and the check are unmoved by it.
    let filled = fill(&stubs, "Greet", GREET_FIRST);
    std::fs::write(&stubs_path, &filled).expect("fill the stub");
    let check = gen_rust(dir, &["--check"]);
    assert_eq!(
        check.code, 0,
        "filled stubs are not stale: {}",
        check.stderr
    );

    // A new parameter and a new tool, then gen again: no --force needed.
    temp.write("tools.json", SECOND);
    let stale = gen_rust(dir, &["--check"]);
    assert_eq!(stale.code, 1, "{}", stale.stderr);
    assert!(
        stale.stderr.contains("stale: src/tools.rs"),
        "{}",
        stale.stderr
    );
    let again = gen_rust(dir, &[]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(again.stderr.contains("\"farewell\""), "{}", again.stderr);
    let kept = std::fs::read_to_string(&stubs_path).expect("the stubs file");
    assert!(
        kept.starts_with(&filled),
        "every line the user wrote is kept:\n{kept}"
    );
    let module = std::fs::read_to_string(&module_path).expect("the module");
    assert!(
        module.contains("pub punctuation: Option<String>,"),
        "{module}"
    );
    let check = gen_rust(dir, &["--check"]);
    assert_eq!(check.code, 0, "{}", check.stderr);

    // Use the new parameter (and list it with greet's parameters), fill
    // the new stub; the crate builds.
    let listed = "|GreetArgs { name: _ }|";
    assert!(kept.contains(listed), "{kept}");
    let refilled = fill(
        &kept
            .replace(GREET_FIRST, GREET_SECOND)
            .replace(listed, "|GreetArgs { name: _, punctuation: _ }|"),
        "Farewell",
        FAREWELL,
    );
    std::fs::write(&stubs_path, &refilled).expect("fill the new stub");
    let version = rust_version(&module);
    // Edition 2024 itself needs 1.85; on 2021, clippy holds the crate to
    // the version the header states (`incompatible_msrv`).
    for (edition, version) in [("2021", version.as_str()), ("2024", "1.85")] {
        let krate = crate_dir(&format!("keep-{edition}"), dir);
        let accept = std::fs::read_to_string(krate.join("tests/accept.rs")).expect("accept.rs");
        let package = format!("toolc_gen_rust_keep_{edition}");
        write(
            &krate.join("tests/accept.rs"),
            &accept.replace("the_crate", &package),
        );
        let clippy = cargo(
            &krate,
            &package,
            edition,
            version,
            &["clippy", "--all-targets", "--quiet", "--", "-D", "warnings"],
        );
        assert!(
            clippy.status.success(),
            "clippy, edition {edition}:\n{}",
            report(&clippy)
        );
        let test = cargo(&krate, &package, edition, version, &["test", "--quiet"]);
        let text = report(&test);
        assert!(
            test.status.success(),
            "cargo test, edition {edition}:\n{text}"
        );
        assert!(text.contains("test result: ok. 1 passed"), "{text}");
    }
    let check = gen_rust(dir, &["--check"]);
    assert_eq!(check.code, 0, "{}", check.stderr);
}

/// Generates from FIRST, fills in greet's stub, generates again from
/// `changed`, and builds the crate (edition 2021, the oldest Rust): the
/// user's code must be untouched, and the crate must not build. Returns
/// what cargo said.
fn filled_then_broken_by(name: &str, changed: &str) -> String {
    let temp = TempDir::new(&format!("gen-rust-keep-{name}"));
    let dir = temp.path();
    temp.write("tools.json", FIRST);
    assert_eq!(gen_rust(dir, &[]).code, 0);
    let stubs_path = dir.join("src/tools_impl.rs");
    let stubs = std::fs::read_to_string(&stubs_path).expect("the stubs file");
    let filled = fill(&stubs, "Greet", GREET_FIRST);
    std::fs::write(&stubs_path, &filled).expect("fill the stub");

    assert_ne!(changed, FIRST);
    temp.write("tools.json", changed);
    let again = gen_rust(dir, &[]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let kept = std::fs::read_to_string(&stubs_path).expect("the stubs file");
    assert!(kept.starts_with(&filled), "the user's code is untouched");

    let krate = crate_dir(&format!("keep-{name}"), dir);
    std::fs::remove_file(krate.join("tests/accept.rs")).expect("no acceptance test here");
    let package = format!("toolc_gen_rust_keep_{name}");
    let build = cargo(&krate, &package, "2021", "1.82", &["build", "--quiet"]);
    let text = report(&build);
    assert!(!build.status.success(), "the crate must not build:\n{text}");
    text
}

/// A renamed parameter: the filled `run` no longer compiles, and the
/// error names the tool's arguments.
#[test]
fn a_changed_signature_is_a_compile_error_naming_the_tool() {
    let renamed = FIRST
        .replace(r#"["name"]"#, r#"["who"]"#)
        .replace(r#"{"name": {"type""#, r#"{"who": {"type""#);
    let text = filled_then_broken_by("signature", &renamed);
    assert!(
        text.contains("no field `name` on type `tools::GreetArgs`"),
        "the error names the tool's arguments:\n{text}"
    );
}

/// Two tool names that make the same type name (`greet`, `Greet`) are
/// told apart by their order; a tool added in front hands `GreetTool` to
/// another tool. The filled `run` must not silently serve that tool: the
/// crate fails to build, naming the tool the code was written for.
#[test]
fn a_type_that_changes_tool_is_a_compile_error_naming_the_tool() {
    let in_front = FIRST.replace(
        "{\"tools\": [",
        r#"{"tools": [
  {"name": "Greet", "description": "Deletes someone.", "command": ["/bin/true"],
   "schema": {"type": "object", "properties": {}}},"#,
    );
    let text = filled_then_broken_by("moved", &in_front);
    assert!(
        text.contains("now stands for another tool")
            && text.contains(r#"is_tool_id(GreetTool::TOOL_ID, "greet")"#),
        "the error names the tool the code was written for:\n{text}"
    );
}

/// A module the user edited (or one an older toolc wrote, unsigned, with
/// the user's code in it): gen refuses to drop those lines, with --force
/// too, naming the file and line; nothing is written.
#[test]
fn gen_never_drops_lines_toolc_did_not_write() {
    let temp = TempDir::new("gen-rust-keep-edited");
    let dir = temp.path();
    temp.write("tools.json", FIRST);
    assert_eq!(gen_rust(dir, &[]).code, 0);
    let module_path = dir.join("src/tools.rs");
    let module = std::fs::read_to_string(&module_path).expect("the module");
    let edited = module.replace(
        "pub fn all_tools()",
        "pub fn my_helper() -> u32 {\n    42\n}\n\npub fn all_tools()",
    );
    std::fs::write(&module_path, &edited).expect("edit the module");
    let line = edited
        .lines()
        .position(|l| l == "pub fn my_helper() -> u32 {")
        .expect("the edit")
        + 1;
    let stubs_path = dir.join("src/tools_impl.rs");
    let stubs = std::fs::read_to_string(&stubs_path).expect("the stubs file");
    temp.write("tools.json", SECOND);
    for force in [&[][..], &["--force"][..]] {
        let refused = gen_rust(dir, force);
        assert_eq!(refused.code, 1, "{force:?}: {}", refused.stderr);
        assert!(
            refused.stderr.contains(&format!(
                "src/tools.rs:{line}: pub fn my_helper() -> u32 {{"
            )),
            "{force:?}: {}",
            refused.stderr
        );
        let now = std::fs::read_to_string(&module_path).expect("the module");
        assert_eq!(now, edited, "{force:?}: nothing was written");
        let kept = std::fs::read_to_string(&stubs_path).expect("the stubs file");
        assert_eq!(kept, stubs, "{force:?}: no stub was appended");
    }

    // A module from before the split: marked, unsigned, filled in.
    let legacy = "// Generated by toolc (`toolc gen rust`) from:\n//     tools.json\n\npub fn execute() -> u32 {\n    my_own_work()\n}\n";
    std::fs::write(&module_path, legacy).expect("an old module");
    std::fs::remove_file(&stubs_path).expect("no stubs yet");
    let refused = gen_rust(dir, &["--force"]);
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("src/tools.rs:5:     my_own_work()"),
        "{}",
        refused.stderr
    );
    assert_eq!(
        std::fs::read_to_string(&module_path).expect("module"),
        legacy
    );
    assert!(!stubs_path.exists(), "nothing was written");

    // A file toolc did not write: replaced with --force only.
    std::fs::write(&module_path, "// mine\n").expect("a file of the user's");
    let refused = gen_rust(dir, &[]);
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(refused.stderr.contains("--force"), "{}", refused.stderr);
    let forced = gen_rust(dir, &["--force"]);
    assert_eq!(forced.code, 0, "{}", forced.stderr);
}

/// A new required parameter: the filled `run` (which never looks at it)
/// no longer compiles; the stub's list of the tool's parameters names
/// the tool's arguments and the new field.
#[test]
fn a_new_required_parameter_is_a_compile_error_naming_the_tool() {
    let required = FIRST
        .replace(
            r#""required": ["name"]"#,
            r#""required": ["name", "greeting"]"#,
        )
        .replace(
            r#""description": "Who."}"#,
            r#""description": "Who."}, "greeting": {"type": "string"}"#,
        );
    let text = filled_then_broken_by("required", &required);
    assert!(
        text.contains("pattern does not mention field `greeting`")
            && text.contains("|GreetArgs { name: _ }| {}; // the `greet` tool"),
        "the error names the tool's arguments and the new parameter:\n{text}"
    );
}

/// A stubs file with CRLF line ends gains its new stubs with CRLF too.
#[test]
fn stubs_are_appended_in_the_files_own_line_ends() {
    let temp = TempDir::new("gen-rust-keep-crlf");
    let dir = temp.path();
    temp.write("tools.json", FIRST);
    assert_eq!(gen_rust(dir, &[]).code, 0);
    let stubs_path = dir.join("src/tools_impl.rs");
    let stubs = std::fs::read_to_string(&stubs_path).expect("the stubs file");
    let crlf = fill(&stubs, "Greet", GREET_FIRST).replace('\n', "\r\n");
    std::fs::write(&stubs_path, &crlf).expect("a CRLF checkout");

    temp.write("tools.json", SECOND);
    let again = gen_rust(dir, &[]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let grown = std::fs::read_to_string(&stubs_path).expect("the stubs file");
    assert!(grown.starts_with(&crlf), "the user's text is kept");
    assert!(
        grown.contains("impl Run for FarewellTool {\r\n"),
        "{grown:?}"
    );
    let lone = grown
        .match_indices('\n')
        .filter(|(at, _)| !grown[..*at].ends_with('\r'))
        .count();
    assert_eq!(lone, 0, "every line ends in CRLF:\n{grown:?}");
}

/// A tool implemented through a macro (no `impl Run for GreetTool` in the
/// text) is implemented all the same: the stubs file mentions its type,
/// and gen appends no second stub, which would not build.
#[test]
fn a_tool_implemented_through_a_macro_gets_no_second_stub() {
    let temp = TempDir::new("gen-rust-keep-macro");
    let dir = temp.path();
    temp.write("tools.json", FIRST);
    assert_eq!(gen_rust(dir, &[]).code, 0);
    let stubs_path = dir.join("src/tools_impl.rs");
    let stubs = std::fs::read_to_string(&stubs_path).expect("the stubs file");
    let header = stubs.find("// The `greet` tool.").expect("the greet stub");
    let by_macro = format!(
        "{}{}",
        &stubs[..header],
        r#"macro_rules! impl_tool {
    ($tool:ident, $args:ident, $run:expr) => {
        impl Run for $tool {
            fn run(&self, args: $args) -> ToolResult {
                $run(args)
            }
        }
    };
}

impl_tool!(GreetTool, GreetArgs, |args: GreetArgs| {
    ToolResult::success(Value::from(format!("Hello, {}.", args.name)))
});
"#
    );
    std::fs::write(&stubs_path, &by_macro).expect("implement through a macro");

    let again = gen_rust(dir, &[]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(!again.stderr.contains("appended"), "{}", again.stderr);
    let kept = std::fs::read_to_string(&stubs_path).expect("the stubs file");
    assert_eq!(kept, by_macro, "no stub was appended");

    let krate = crate_dir("keep-macro", dir);
    std::fs::remove_file(krate.join("tests/accept.rs")).expect("no acceptance test here");
    let package = "toolc_gen_rust_keep_macro";
    let build = cargo(&krate, package, "2021", "1.82", &["build", "--quiet"]);
    assert!(
        build.status.success(),
        "the crate builds:\n{}",
        report(&build)
    );
}
