//! The README's quick start stays true: `examples/quickstart` lints clean
//! and generates, the paths its commands name exist, and the output it
//! shows for the commands whose output does not vary is what toolc prints.

use super::{Test, root};

const EXAMPLE: &str = "examples/quickstart";

/// The README section that starts with `heading`, up to the next `## `.
pub fn readme_section(heading: &str) -> String {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("read README.md");
    let start = readme
        .find(heading)
        .unwrap_or_else(|| panic!("README.md has no {heading:?} section"));
    let rest = &readme[start + heading.len()..];
    let end = rest.find("\n## ").unwrap_or(rest.len());
    rest[..end].to_string()
}

/// Each `$ toolc ...` line of the section's console blocks, with the lines
/// shown after it (up to the next command or the end of the block).
fn shown_commands(section: &str) -> Vec<(String, Vec<String>)> {
    let mut commands: Vec<(String, Vec<String>)> = Vec::new();
    let mut in_console = false;
    for line in section.lines() {
        if line.starts_with("```") {
            in_console = line == "```console";
            continue;
        }
        if !in_console {
            continue;
        }
        if let Some(command) = line.strip_prefix("$ ") {
            commands.push((command.to_string(), Vec::new()));
        } else if let Some((_, output)) = commands.last_mut() {
            output.push(line.to_string());
        }
    }
    commands
        .into_iter()
        .filter(|(command, _)| command.starts_with("toolc "))
        .collect()
}

/// The arguments of a shown command that name files: they contain `/` and
/// are neither flags, nor quoted JSON, nor part of a trailing comment.
fn path_arguments(command: &str) -> Vec<String> {
    let command = command.split(" #").next().unwrap_or(command);
    command
        .split_whitespace()
        .filter(|word| word.contains('/'))
        .filter(|word| !word.starts_with(['-', '\'', '"', '{']))
        .map(str::to_string)
        .collect()
}

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

#[test]
fn the_readme_quick_start_names_paths_that_exist() {
    let commands = shown_commands(&readme_section("## Quick start"));
    assert!(
        commands
            .iter()
            .any(|(command, _)| command == "toolc lint examples/quickstart"),
        "the quick start no longer lints {EXAMPLE}: {commands:?}"
    );
    for (command, _) in &commands {
        for path in path_arguments(command) {
            assert!(
                root().join(&path).exists(),
                "README's quick start runs `{command}`, but {path} does not exist"
            );
        }
    }
}

#[test]
fn the_readme_quick_start_shows_what_toolc_prints() {
    // The commands whose whole output the README shows and that print the
    // same every time (no timings, no width-dependent wrapping).
    let exact = [
        "toolc lint examples/quickstart",
        "toolc gen openai examples/quickstart",
        "toolc lint --format concise fixtures/rules/invalid-tool-name/bad",
    ];
    let commands = shown_commands(&readme_section("## Quick start"));
    for wanted in exact {
        let (_, shown) = commands
            .iter()
            .find(|(command, _)| command == wanted)
            .unwrap_or_else(|| panic!("README's quick start no longer shows `{wanted}`"));
        let args: Vec<&str> = wanted.split_whitespace().skip(1).collect();
        let output = Test::new().args(&args).run();
        let printed: Vec<&str> = output.stdout.lines().collect();
        assert_eq!(
            printed, *shown,
            "README's quick start shows other output for `{wanted}` than toolc prints"
        );
    }
}

#[test]
fn the_readme_keeps_its_two_commands_and_install() {
    let two = readme_section("## The two commands");
    for command in ["cargo run --release -- lint fixtures/", "scripts/test"] {
        assert!(
            two.lines().any(|line| line == command),
            "README's two commands lost `{command}`"
        );
    }
    assert!(root().join("scripts/test").exists());
    let install = readme_section("## Install");
    assert!(
        install.contains("cargo install --locked --path ."),
        "{install}"
    );
}

/// The counts the quick start quotes (its summary lines: `Found N errors
/// ...`, `[*] N fixable ...`) are what toolc prints for the same command,
/// including the summary of all the fixtures, which changes with every
/// fixture added.
#[test]
fn the_readme_quick_start_quotes_the_counts_toolc_prints() {
    let counted = |line: &str| line.starts_with("Found ") || line.starts_with("[*] ");
    let commands = shown_commands(&readme_section("## Quick start"));
    let mut compared = 0;
    for (command, shown) in &commands {
        let shown: Vec<&str> = shown
            .iter()
            .map(String::as_str)
            .filter(|l| counted(l))
            .collect();
        if shown.is_empty() {
            continue;
        }
        let words = command.split(" #").next().unwrap_or(command);
        let args: Vec<&str> = words.split_whitespace().skip(1).collect();
        let output = Test::new().args(&args).run();
        let printed: Vec<&str> = output.stdout.lines().filter(|l| counted(l)).collect();
        assert_eq!(
            printed, shown,
            "README's quick start quotes other counts for `{command}` than toolc prints"
        );
        compared += 1;
    }
    assert!(
        commands
            .iter()
            .any(|(command, _)| command == "toolc lint fixtures/")
            && compared >= 2,
        "README's quick start no longer quotes the summary of `toolc lint fixtures/`"
    );
}
