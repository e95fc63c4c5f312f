//! Generated files inside the linted tree: provider lists and `gen
//! python` manifests are views of their sources, `--check` tells stale
//! output, skeletons are written once.

use super::{Output, TempDir, Test};

const TOOLS: &str = r#"{
  "tools": [
    {
      "name": "fetch_url",
      "description": "Fetch a web page and return its text content.",
      "command": ["./tools/bin/fetch_url"],
      "schema": {"type": "object", "properties": {"url": {"type": "string", "description": "The page."}}, "required": ["url"]}
    }
  ]
}
"#;

fn project() -> TempDir {
    let dir = TempDir::new("generated");
    dir.write("tools.json", TOOLS);
    let program = dir.write(
        "tools/bin/fetch_url",
        "#!/bin/sh\ncat >/dev/null\necho '{}'\n",
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    dir
}

fn toolc(dir: &TempDir, args: &[&str]) -> Output {
    Test::new().current_dir(dir.path()).args(args).run()
}

fn lint_rules(dir: &TempDir) -> Vec<(String, String)> {
    let report = toolc(dir, &["lint", "--format", "json"]).json();
    report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap_or_default().to_string(),
                d["path"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_generated_tool_list_in_the_tree_is_a_view_not_a_clash() {
    let dir = project();
    let first = toolc(&dir, &["gen", "openai", "-o", "openai.json"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    // The next generation reads the tree with openai.json in it.
    let rust = toolc(&dir, &["gen", "rust", "-o", "tools.rs"]);
    assert_eq!(rust.code, 0, "{}", rust.stderr);
    assert!(
        rust.stderr.contains("note: openai.json repeats tools"),
        "{}",
        rust.stderr
    );
    let module = std::fs::read_to_string(dir.path().join("tools.rs")).expect("tools.rs");
    assert_eq!(
        module.matches("pub struct FetchUrlTool;").count(),
        1,
        "{module}"
    );
    // Up to date: lint has nothing to say.
    assert_eq!(lint_rules(&dir), []);

    // The manifest changes; the committed list is now stale.
    std::fs::write(
        dir.path().join("tools.json"),
        TOOLS.replace("Fetch a web page", "Download a web page"),
    )
    .expect("write");
    assert_eq!(
        lint_rules(&dir),
        [("stale-tool-list".to_string(), "openai.json".to_string())]
    );
    let check = toolc(&dir, &["gen", "openai", "-o", "openai.json", "--check"]);
    assert_eq!(check.code, 1, "{}", check.stderr);
    assert!(
        check
            .stdout
            .contains("-      \"description\": \"Fetch a web page")
            && check
                .stdout
                .contains("+      \"description\": \"Download a web page"),
        "{}",
        check.stdout
    );
    assert!(
        check.stderr.contains("stale: openai.json"),
        "{}",
        check.stderr
    );
    // --check writes nothing.
    let on_disk = std::fs::read_to_string(dir.path().join("openai.json")).expect("read");
    assert!(on_disk.contains("Fetch a web page"));

    let again = toolc(&dir, &["gen", "openai", "-o", "openai.json", "--force"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let check = toolc(&dir, &["gen", "openai", "-o", "openai.json", "--check"]);
    assert_eq!(check.code, 0, "{}{}", check.stdout, check.stderr);
    assert_eq!(check.stdout, "");
    assert_eq!(lint_rules(&dir), []);
}

#[test]
fn check_says_what_is_missing_and_needs_a_file() {
    let dir = project();
    let missing = toolc(&dir, &["gen", "mcp", "-o", "mcp.json", "--check"]);
    assert_eq!(missing.code, 1);
    assert!(
        missing.stdout.starts_with("--- /dev/null\n+++ mcp.json\n"),
        "{}",
        missing.stdout
    );
    assert!(!dir.path().join("mcp.json").exists());
    let no_file = toolc(&dir, &["gen", "mcp", "--check"]);
    assert_eq!(no_file.code, 2);
    assert!(no_file.stderr.contains("-o FILE"), "{}", no_file.stderr);
    let both = toolc(
        &dir,
        &["gen", "mcp", "-o", "mcp.json", "--check", "--force"],
    );
    assert_eq!(both.code, 2);
}

#[test]
fn convert_check_fails_on_stale_output() {
    let dir = project();
    let convert = toolc(
        &dir,
        &["convert", "tools.json", "--to", "nora", "-o", "nora"],
    );
    assert_eq!(convert.code, 0, "{}", convert.stderr);
    let check = || {
        toolc(
            &dir,
            &[
                "convert",
                "tools.json",
                "--to",
                "nora",
                "-o",
                "nora",
                "--check",
            ],
        )
    };
    let up_to_date = check();
    assert_eq!(
        up_to_date.code, 0,
        "{}{}",
        up_to_date.stdout, up_to_date.stderr
    );
    std::fs::write(
        dir.path().join("tools.json"),
        TOOLS.replace("The page.", "The page to fetch."),
    )
    .expect("write");
    let check = check();
    assert_eq!(check.code, 1, "{}", check.stderr);
    assert!(
        check
            .stdout
            .lines()
            .any(|l| l.starts_with('+') && l.contains("\"The page to fetch.\"")),
        "{}",
        check.stdout
    );
}

#[test]
fn gen_python_keeps_the_filled_in_stubs() {
    for style in ["nora", "basetool", "agentstack"] {
        let dir = project();
        let generate = |extra: &[&str]| {
            let mut args = vec!["gen", "python", "--style", style, "-o", "py"];
            args.extend_from_slice(extra);
            toolc(&dir, &args)
        };
        let first = generate(&[]);
        assert_eq!(first.code, 0, "{style}: {}", first.stderr);
        let stub = match style {
            "nora" => "py/fetch_url/main.py",
            "basetool" => "py/tools/fetch_url.py",
            _ => "py/fetch_url/impl/fetch_url.py",
        };
        let stub = dir.path().join(stub);
        let mut code = std::fs::read_to_string(&stub).unwrap_or_else(|e| panic!("{style}: {e}"));
        code.push_str("\n# the user's code\n");
        std::fs::write(&stub, &code).expect("fill in");

        // Rerun as it is, then after the manifest changed: the stub stays.
        let rerun = generate(&[]);
        assert_eq!(rerun.code, 0, "{style}: {}", rerun.stderr);
        std::fs::write(
            dir.path().join("tools.json"),
            TOOLS.replace("Fetch a web page", "Download a web page"),
        )
        .expect("write");
        let changed = generate(&["--force"]);
        assert_eq!(changed.code, 0, "{style}: {}", changed.stderr);
        assert_eq!(
            std::fs::read_to_string(&stub).expect("stub"),
            code,
            "{style}"
        );
        let check = generate(&["--check"]);
        assert_eq!(check.code, 0, "{style}: {}{}", check.stdout, check.stderr);
        // A generated manifest in the tree is a view, not a clash.
        let rust = toolc(&dir, &["gen", "rust", "-o", "tools.rs"]);
        assert_eq!(rust.code, 0, "{style}: {}", rust.stderr);
        let lint = toolc(&dir, &["lint"]);
        assert_eq!(lint.code, 0, "{style}: {}", lint.stdout);
    }
}

#[test]
fn a_list_left_behind_by_a_rename_is_named_as_out_of_date() {
    let dir = project();
    let two = TOOLS.replace(
        "  ]\n}",
        "  ,\n    {\"name\": \"list_dir\", \"description\": \"Lists a directory.\", \"command\": [\"./tools/bin/fetch_url\"], \"schema\": {\"type\": \"object\", \"properties\": {}}}\n  ]\n}",
    );
    std::fs::write(dir.path().join("tools.json"), &two).expect("write");
    let first = toolc(&dir, &["gen", "openai", "-o", "openai.json"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    std::fs::write(
        dir.path().join("tools.json"),
        two.replace("\"list_dir\"", "\"list_directory\""),
    )
    .expect("write");
    let rust = toolc(&dir, &["gen", "rust", "-o", "tools.rs"]);
    assert_eq!(rust.code, 1, "{}", rust.stderr);
    assert!(
        rust.stderr
            .contains("if toolc generated it, it is out of date"),
        "{}",
        rust.stderr
    );
}
