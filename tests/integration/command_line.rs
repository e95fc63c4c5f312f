//! The command line as a person meets it: shell completion that offers
//! rule names and codes, providers and formats from the lists toolc keeps;
//! `--help` grouped under headings, `-h` a line per flag; `--format
//! concise` in color on a terminal and only there.

use std::process::{Command, Stdio};

use super::{TempDir, Test, rules_json};

/// Runs `code` with `bash -c`, which must succeed; its standard output.
pub fn bash(code: &str) -> String {
    let output = Command::new("bash")
        .args(["-c", code])
        .output()
        .expect("run bash");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// toolc's bash completion script, sourced, asked to complete `words`
/// (the word at `current` being completed): the words it offers, sorted.
pub fn bash_completes(script: &std::path::Path, words: &str, current: usize) -> Vec<String> {
    let offered = bash(&format!(
        "source '{}'; COMP_WORDS=({words}); COMP_CWORD={current}; \
         _toolc toolc \"${{COMP_WORDS[{current}]}}\" \"${{COMP_WORDS[{}]}}\"; \
         printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display(),
        current - 1
    ));
    let mut words: Vec<String> = offered
        .lines()
        .filter(|word| !word.is_empty())
        .map(str::to_string)
        .collect();
    words.sort();
    words
}

fn sorted(words: &[&str]) -> Vec<String> {
    let mut words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
    words.sort();
    words
}

#[test]
fn completion_offers_rules_targets_and_formats() {
    let dir = TempDir::new("completion-values");
    let script = dir.write(
        "toolc.bash",
        Test::new().args(["completions", "bash"]).run().stdout,
    );
    let rules = rules_json();
    let names: Vec<&str> = rules
        .iter()
        .map(|r| r["name"].as_str().expect("name"))
        .collect();
    let codes: Vec<&str> = rules
        .iter()
        .map(|r| r["code"].as_str().expect("code"))
        .collect();
    // Every rule by name and code, the code prefixes and ALL, for each
    // flag that selects rules.
    for flag in ["--select", "--ignore"] {
        let offered = bash_completes(&script, &format!("toolc lint {flag} ''"), 3);
        for word in names.iter().chain(&codes).chain(&["ALL", "TC1", "TC9"]) {
            assert!(offered.iter().any(|w| w == word), "{flag}: no {word}");
        }
    }
    assert_eq!(
        bash_completes(&script, "toolc lint --select duplicate-", 3),
        sorted(&["duplicate-key", "duplicate-tool-name"])
    );
    assert_eq!(
        bash_completes(&script, "toolc gen openai --ignore TC10", 4),
        sorted(&["TC101", "TC102", "TC103", "TC104"])
    );
    // toolc explain RULE: names and codes.
    let explained = bash_completes(&script, "toolc explain ''", 2);
    for word in names.iter().chain(&codes) {
        assert!(explained.iter().any(|w| w == word), "explain: no {word}");
    }
    assert_eq!(
        bash_completes(&script, "toolc explain duplicate-t", 2),
        ["duplicate-tool-name"]
    );
    // Providers and formats.
    assert_eq!(
        bash_completes(&script, "toolc lint --target ''", 3),
        sorted(&["openai", "openai-strict", "anthropic", "gemini", "mcp"])
    );
    let formats = [
        "nora",
        "agentcli",
        "agentstack",
        "nachos",
        "openai",
        "openai-responses",
        "anthropic",
        "mcp",
        "gemini",
    ];
    assert_eq!(
        bash_completes(&script, "toolc lint --input-format ''", 3),
        sorted(&formats)
    );
    assert_eq!(
        bash_completes(&script, "toolc schema openai", 2),
        sorted(&["openai", "openai-responses"])
    );
    // --to offers the formats convert writes.
    assert_eq!(
        bash_completes(&script, "toolc convert tools.json --to ''", 4),
        sorted(&[
            "nora",
            "agentcli",
            "agentstack",
            "nachos",
            "openai",
            "anthropic",
            "mcp"
        ])
    );
    // zsh and fish offer them too, with each rule's summary.
    let summary = rules[0]["summary"].as_str().expect("summary");
    for shell in ["zsh", "fish"] {
        let script = Test::new().args(["completions", shell]).run().stdout;
        for word in [
            names[0],
            codes[0],
            "openai-strict",
            "openai-responses",
            summary,
        ] {
            assert!(script.contains(word), "{shell}: no {word}");
        }
    }
}

#[test]
fn offering_values_leaves_parsing_as_it_was() {
    // Prefixes, lowercase codes, comma lists and ALL still parse.
    let selected = Test::new()
        .args([
            "lint",
            "--select",
            "tc1,duplicate-key",
            "--ignore",
            "TC104",
            "--target",
            "openai-strict",
            "--input-format",
            "agentcli",
            "fixtures/rules/duplicate-tool-name/bad",
        ])
        .run();
    assert_eq!(selected.code, 1, "{}", selected.stderr);
    assert!(
        selected.stdout.contains("duplicate-tool-name"),
        "{}",
        selected.stdout
    );
    let none = Test::new()
        .args([
            "lint",
            "--ignore",
            "ALL",
            "fixtures/rules/duplicate-tool-name/bad",
        ])
        .run();
    assert_eq!(none.code, 0, "{}", none.stderr);
    assert_eq!(Test::new().args(["explain", "tc102"]).run().code, 0);
    // A mistake says what it said before, not a list of every rule.
    let unknown = Test::new().args(["lint", "--select", "TC99"]).run();
    assert_eq!(unknown.code, 2);
    assert!(
        unknown
            .stderr
            .contains("unknown rule or code prefix \"TC99\""),
        "{}",
        unknown.stderr
    );
    assert!(
        !unknown.stderr.contains("possible values"),
        "{}",
        unknown.stderr
    );
    let target = Test::new().args(["lint", "--target", "openia"]).run();
    assert_eq!(target.code, 2);
    assert!(
        target.stderr.contains("did you mean \"openai\""),
        "{}",
        target.stderr
    );
    let explained = Test::new().args(["explain", "duplicate-tool-names"]).run();
    assert_eq!(explained.code, 2);
    assert!(
        explained.stderr.contains("did you mean"),
        "{}",
        explained.stderr
    );
}

/// The flag lines of a help text, by heading, in order.
fn headings(help: &str) -> Vec<(String, Vec<String>)> {
    let mut sections: Vec<(String, Vec<String>)> = Vec::new();
    for line in help.lines() {
        if !line.starts_with(' ') && line.ends_with(':') {
            sections.push((line.trim_end_matches(':').to_string(), Vec::new()));
        } else if let Some((_, lines)) = sections.last_mut()
            && !line.is_empty()
        {
            lines.push(line.to_string());
        }
    }
    sections
}

#[test]
fn lint_help_is_grouped_and_h_is_a_line_per_flag() {
    let short = Test::new().args(["lint", "-h"]).run();
    assert_eq!(short.code, 0, "{}", short.stderr);
    let sections = headings(&short.stdout);
    let names: Vec<&str> = sections.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Arguments",
            "Rule selection",
            "File selection",
            "Fixing",
            "Output",
            "Live servers",
            "NATS login",
            "Lock file",
            "Global options"
        ],
        "{}",
        short.stdout
    );
    let flag_of = |section: &str, flag: &str| {
        sections
            .iter()
            .find(|(name, _)| name == section)
            .is_some_and(|(_, lines)| lines.iter().any(|line| line.contains(flag)))
    };
    for (section, flag) in [
        ("Rule selection", "--select <RULE,...>"),
        ("Rule selection", "--ignore <RULE,...>"),
        ("Rule selection", "--target <PROVIDER>"),
        ("File selection", "--exclude <GLOB,...>"),
        ("File selection", "--input-format <FORMAT>"),
        ("Fixing", "--fix"),
        ("Fixing", "--unsafe-fixes"),
        ("Output", "--format <FORMAT>"),
        ("Output", "--statistics"),
        ("Global options", "--color <COLOR>"),
        ("Global options", "-h, --help"),
    ] {
        assert!(
            flag_of(section, flag),
            "{flag} not under {section}:\n{}",
            short.stdout
        );
    }
    // -h: each flag on one line of at most 100 columns, its summary only.
    for command in ["lint", "gen", "convert", "lock", "run", "serve", "call"] {
        let help = Test::new().args([command, "-h"]).run().stdout;
        for (section, lines) in headings(&help) {
            for line in lines {
                assert!(
                    line.starts_with("  -")
                        || line.starts_with("      --")
                        || line.starts_with("  [")
                        || line.starts_with("  <"),
                    "toolc {command} -h, {section}: a flag's summary wraps onto {line:?}\n{help}"
                );
                assert!(line.chars().count() <= 100, "toolc {command} -h: {line:?}");
            }
        }
        assert!(
            !help.contains("possible values"),
            "toolc {command} -h:\n{help}"
        );
    }
    // --help: the same headings, each flag's details, its values.
    let long = Test::new().args(["lint", "--help"]).run().stdout;
    let long_names: Vec<String> = headings(&long).into_iter().map(|(name, _)| name).collect();
    assert_eq!(long_names, names, "{long}");
    for detail in [
        "Replaces the configuration's `targets`.",
        "[possible values: openai, openai-strict, anthropic, gemini, mcp]",
        "concise: One line per finding",
        "[env: TOOLC_OUTPUT_FORMAT=]",
        "--show-skipped",
    ] {
        assert!(
            long.contains(detail),
            "no {detail:?} in lint --help:\n{long}"
        );
    }
    assert!(
        long.lines().all(|line| line.chars().count() <= 100),
        "{long}"
    );
}

/// `toolc lint --format concise` of a fixture with `env` set, its output
/// a pipe.
fn concise_with(env: &[(&str, &str)]) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolc"));
    command
        .args([
            "lint",
            "--format",
            "concise",
            "fixtures/rules/duplicate-key/bad",
        ])
        .current_dir(super::root())
        .env_remove("NO_COLOR")
        .env_remove("FORCE_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("CLICOLOR")
        .env_remove("TOOLC_OUTPUT_FORMAT")
        .stdin(Stdio::null());
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().expect("run toolc");
    assert_eq!(output.status.code(), Some(1));
    String::from_utf8(output.stdout).expect("UTF-8")
}

#[test]
fn concise_is_colored_when_color_is_on_and_plain_otherwise() {
    let plain = concise_with(&[]);
    assert!(
        plain.starts_with("fixtures/rules/duplicate-key/bad/tools.json:"),
        "{plain}"
    );
    assert!(!plain.contains('\u{1b}'), "not a terminal: {plain:?}");
    assert!(!concise_with(&[("NO_COLOR", "1")]).contains('\u{1b}'));
    let colored = concise_with(&[("FORCE_COLOR", "1")]);
    // The path bold, the separators cyan, the severity bold red and the
    // rule red; the message plain.
    let first = colored.lines().next().unwrap_or_default();
    assert!(
        first.starts_with(
            "\u{1b}[1mfixtures/rules/duplicate-key/bad/tools.json\u{1b}[0m\u{1b}[36m:\u{1b}[0m"
        ),
        "{first:?}"
    );
    assert!(
        first.contains("\u{1b}[1m\u{1b}[31merror\u{1b}[0m\u{1b}[31m[duplicate-key]\u{1b}[0m key "),
        "{first:?}"
    );
    assert!(!first.ends_with("\u{1b}[0m"), "{first:?}");
    // Without the escapes it is the plain line.
    let stripped: String = {
        let mut out = String::new();
        let mut rest = colored.as_str();
        while let Some(at) = rest.find('\u{1b}') {
            out.push_str(&rest[..at]);
            let end = rest[at..].find('m').map_or(rest.len(), |m| at + m + 1);
            rest = &rest[end..];
        }
        out.push_str(rest);
        out
    };
    assert_eq!(stripped, plain);
    // --color never wins over FORCE_COLOR; a report written to a file
    // never has colors.
    let never = Command::new(env!("CARGO_BIN_EXE_toolc"))
        .args([
            "--color",
            "never",
            "lint",
            "--format",
            "concise",
            "fixtures/rules/duplicate-key/bad",
        ])
        .current_dir(super::root())
        .env("FORCE_COLOR", "1")
        .output()
        .expect("run toolc");
    assert!(!String::from_utf8_lossy(&never.stdout).contains('\u{1b}'));
    let dir = TempDir::new("concise-file");
    let report = dir.path().join("report.txt");
    let to_file = Command::new(env!("CARGO_BIN_EXE_toolc"))
        .args([
            "lint",
            "--format",
            "concise",
            "fixtures/rules/duplicate-key/bad",
            "-o",
        ])
        .arg(&report)
        .current_dir(super::root())
        .env("FORCE_COLOR", "1")
        .output()
        .expect("run toolc");
    assert_eq!(to_file.status.code(), Some(1));
    let written = std::fs::read_to_string(&report).expect("the report");
    assert_eq!(written, plain);
}
