//! `toolc gen rust` field names users can keep: they do not depend on the
//! order of the properties, a parameter that takes another's name is a
//! compile error naming the tool, and toolc's module builds with
//! `-D warnings` in a binary crate that uses only part of it.

use super::gen_rust::write;
use super::gen_rust_keep::{cargo, crate_dir, fill, gen_rust, report, rust_version};
use super::{TempDir, root};

/// `copy` with two parameters whose names spell the same field name, in
/// the order given.
fn copy_manifest(keys: &[&str]) -> String {
    let properties: Vec<String> = keys
        .iter()
        .map(|key| format!(r#""{key}": {{"type": "string"}}"#))
        .collect();
    let required: Vec<String> = keys.iter().map(|key| format!("\"{key}\"")).collect();
    format!(
        r#"{{"tools": [{{"name": "copy", "description": "Copies.", "command": ["/bin/true"],
  "schema": {{"type": "object", "properties": {{{}}}, "required": [{}]}}}}]}}"#,
        properties.join(", "),
        required.join(", ")
    )
}

/// The filled `run`: answers with the field `from_path`.
const COPY_BODY: &str = "        ToolResult::success(Value::from(args.from_path))\n";

/// The crate's test: which value the filled code reads from `from_path`.
const READS: &str = r#"#[test]
fn from_path_is_the_parameter_from_path() {
    let tools = the_crate::tools::all_tools();
    let tool = tools.iter().find(|t| t.tool_id() == "copy").expect("copy");
    let args = serde_json::json!({"from-path": "dash", "from_path": "underscore"});
    let result = serde_json::to_value(tool.execute(args)).expect("a result");
    assert_eq!(result["result"], serde_json::json!("underscore"), "{result}");
}
"#;

/// The properties `from-path` and `from_path`, in one order then the
/// other: the field `from_path` is the parameter `from_path` both times,
/// so the filled code reads the same value before and after.
#[test]
fn field_names_do_not_depend_on_the_order_of_the_properties() {
    let temp = TempDir::new("gen-rust-names-order");
    let dir = temp.path();
    temp.write("tools.json", copy_manifest(&["from-path", "from_path"]));
    let first = gen_rust(dir, &[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let stubs_path = dir.join("src/tools_impl.rs");
    let stubs = std::fs::read_to_string(&stubs_path).expect("the stubs file");
    std::fs::write(&stubs_path, fill(&stubs, "Copy", COPY_BODY)).expect("fill the stub");
    for (round, keys) in [
        ("first", ["from-path", "from_path"]),
        ("swapped", ["from_path", "from-path"]),
    ] {
        temp.write("tools.json", copy_manifest(&keys));
        let again = gen_rust(dir, &[]);
        assert_eq!(again.code, 0, "{round}: {}", again.stderr);
        let check = gen_rust(dir, &["--check"]);
        assert_eq!(check.code, 0, "{round}: {}", check.stderr);
        let module = std::fs::read_to_string(dir.join("src/tools.rs")).expect("the module");
        let krate = crate_dir(&format!("names-{round}"), dir);
        let package = format!("toolc_gen_rust_names_{round}");
        write(
            &krate.join("tests/accept.rs"),
            &READS.replace("the_crate", &package),
        );
        let test = cargo(
            &krate,
            &package,
            "2021",
            &rust_version(&module),
            &["test", "--quiet"],
        );
        let text = report(&test);
        assert!(test.status.success(), "{round}:\n{text}");
        assert!(
            text.contains("test result: ok. 1 passed"),
            "{round}: {text}"
        );
    }
}

/// `from-path` alone is the field `from_path`; adding a parameter
/// `from_path` gives it that field. Code written for `from-path` must not
/// silently read the new one: the crate fails to build, naming the tool's
/// arguments.
#[test]
fn a_parameter_that_takes_a_field_name_is_a_compile_error_naming_the_tool() {
    let temp = TempDir::new("gen-rust-names-added");
    let dir = temp.path();
    temp.write("tools.json", copy_manifest(&["from-path"]));
    assert_eq!(gen_rust(dir, &[]).code, 0);
    let stubs_path = dir.join("src/tools_impl.rs");
    let stubs = std::fs::read_to_string(&stubs_path).expect("the stubs file");
    let filled = fill(&stubs, "Copy", COPY_BODY);
    std::fs::write(&stubs_path, &filled).expect("fill the stub");
    temp.write("tools.json", copy_manifest(&["from-path", "from_path"]));
    let again = gen_rust(dir, &[]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let kept = std::fs::read_to_string(&stubs_path).expect("the stubs file");
    assert_eq!(kept, filled, "the user's code is untouched");
    let module = std::fs::read_to_string(dir.join("src/tools.rs")).expect("the module");
    let krate = crate_dir("names-added", dir);
    std::fs::remove_file(krate.join("tests/accept.rs")).expect("no acceptance test here");
    let build = cargo(
        &krate,
        "toolc_gen_rust_names_added",
        "2021",
        &rust_version(&module),
        &["build", "--quiet"],
    );
    let text = report(&build);
    assert!(!build.status.success(), "the crate must not build:\n{text}");
    assert!(
        text.contains("pattern does not mention field `from_path2`")
            && text.contains("|CopyArgs { from_path: _ }| {}; // the `copy` tool"),
        "the error names the tool's arguments:\n{text}"
    );
}

/// A binary crate that calls part of the module: toolc's items it does not
/// use are no warning, on both editions, with warnings denied.
#[test]
fn the_module_builds_with_warnings_denied_in_a_binary_crate() {
    let temp = TempDir::new("gen-rust-names-bin");
    let dir = temp.path();
    temp.write("tools.json", copy_manifest(&["from-path", "from_path"]));
    let generated = gen_rust(dir, &[]);
    assert_eq!(generated.code, 0, "{}", generated.stderr);
    let module = std::fs::read_to_string(dir.join("src/tools.rs")).expect("the module");
    let main = r#"mod tools;

fn main() {
    for tool in tools::all_tools() {
        let args = serde_json::json!({"from-path": "a", "from_path": "b"});
        let result = tool.execute(args);
        println!(
            "{} {} {:?} {:?} {:?}",
            tool.name(),
            tool.description(),
            tool.security_tier(),
            tool.health_check(),
            result
        );
    }
}
"#;
    for (edition, version) in [
        ("2021", rust_version(&module)),
        ("2024", "1.85".to_string()),
    ] {
        let krate = crate_dir(&format!("names-bin-{edition}"), dir);
        std::fs::remove_file(krate.join("tests/accept.rs")).expect("no acceptance test here");
        std::fs::remove_file(krate.join("src/lib.rs")).expect("a binary crate");
        write(&krate.join("src/main.rs"), main);
        let package = format!("toolc_gen_rust_names_bin_{edition}");
        let build = cargo(&krate, &package, edition, &version, &["build", "--quiet"]);
        assert!(
            build.status.success(),
            "edition {edition}:\n{}",
            report(&build)
        );
        let run = std::process::Command::new(
            root()
                .join("target/gen-rust-check/target/debug")
                .join(&package),
        )
        .output()
        .expect("run the binary");
        let out = String::from_utf8_lossy(&run.stdout);
        assert!(
            run.status.success() && out.starts_with("copy Copies."),
            "edition {edition}: {out}"
        );
    }
}
