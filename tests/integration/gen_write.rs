//! The writer's rules, for every target: a file toolc wrote (its mark says
//! so) is updated without `--force`; a file without the mark is replaced
//! only with `--force`.

use super::{TempDir, Test};

const MANIFEST: &str = r#"{"tools": [{"name": "greet", "description": "Greets someone.",
  "command": ["/bin/true"],
  "schema": {"type": "object", "properties": {"name": {"type": "string"}}}}]}"#;

fn toolc(dir: &TempDir, args: &[&str]) -> super::Output {
    Test::new().current_dir(dir.path()).args(args).run()
}

/// `gen python` writes a NORA `tool.json` marked `"x-toolc": {"generated"}`:
/// after the manifest changes, gen updates it without `--force`.
#[test]
fn a_marked_manifest_is_updated_without_force() {
    let dir = TempDir::new("gen-write-marked");
    dir.write("tools.json", MANIFEST);
    let args = [
        "gen",
        "python",
        "--style",
        "nora",
        "tools.json",
        "-o",
        "out",
    ];
    let first = toolc(&dir, &args);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let written =
        std::fs::read_to_string(dir.path().join("out/greet/tool.json")).expect("tool.json");
    assert!(written.contains("\"generated\""), "{written}");

    dir.write(
        "tools.json",
        MANIFEST.replace("Greets someone.", "Greets anyone."),
    );
    let again = toolc(&dir, &args);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let updated =
        std::fs::read_to_string(dir.path().join("out/greet/tool.json")).expect("tool.json");
    assert!(updated.contains("Greets anyone."), "{updated}");
}

/// Provider JSON carries no mark: a file there that differs is replaced
/// only with `--force`, and the refusal says so.
#[test]
fn an_unmarked_file_needs_force() {
    let dir = TempDir::new("gen-write-unmarked");
    dir.write("tools.json", MANIFEST);
    dir.write("openai.json", "[]\n");
    let args = ["gen", "openai", "tools.json", "-o", "openai.json"];
    let refused = toolc(&dir, &args);
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("toolc did not write it"),
        "{}",
        refused.stderr
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("openai.json")).expect("kept"),
        "[]\n"
    );
    let forced = toolc(&dir, &[&args[..], &["--force"]].concat());
    assert_eq!(forced.code, 0, "{}", forced.stderr);
}
