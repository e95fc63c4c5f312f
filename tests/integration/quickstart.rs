//! The quick start's example stays clean: `examples/quickstart` lints
//! without findings, generates, and its tool runs.

use super::Test;

const EXAMPLE: &str = "examples/quickstart";

#[test]
fn the_quick_start_example_lints_clean() {
    let output = Test::new().args(["lint", EXAMPLE]).run();
    assert_eq!(output.code, 0, "{}{}", output.stdout, output.stderr);
    assert!(
        output.stdout.starts_with("No problems found"),
        "{}",
        output.stdout
    );
    assert!(output.stderr.is_empty(), "{}", output.stderr);
}

#[test]
fn the_quick_start_example_generates_openai_tools() {
    let output = Test::new().args(["gen", "openai", EXAMPLE]).run();
    assert_eq!(output.code, 0, "{}", output.stderr);
    let tools = output.json();
    assert_eq!(tools[0]["function"]["name"], "word_count", "{tools}");
}

#[test]
fn the_quick_start_tool_runs() {
    let output = Test::new()
        .args([
            "run",
            "examples/quickstart/tools.json",
            "word_count",
            "--args",
            r#"{"text": "hello tool world"}"#,
        ])
        .run();
    assert_eq!(output.code, 0, "{}{}", output.stdout, output.stderr);
    let result = output.json();
    assert_eq!(result["success"], true, "{result}");
    assert_eq!(result["output"]["words"], 3, "{result}");
}
