//! `toolc lint` following ruff's command-line conventions: quiet and
//! silent runs, `--statistics`, standard input, fixable marks and
//! `--show-fixes`, rule selectors by code prefix, shell completions, the
//! `gitlab` and `pylint` formats, and colors decided per output stream.

use super::root;

/// Runs `command` (a shell command line) under `script`, in a pseudo
/// terminal, with the color variables cleared and a color terminal set;
/// returns what the terminal showed.
fn in_terminal(command: &str) -> String {
    let mut script = std::process::Command::new("script");
    script
        .args(["-qec", command, "/dev/null"])
        .current_dir(root())
        .env("TERM", "xterm-256color");
    for name in [
        "NO_COLOR",
        "FORCE_COLOR",
        "CLICOLOR",
        "CLICOLOR_FORCE",
        "TOOLC_OUTPUT_FORMAT",
    ] {
        script.env_remove(name);
    }
    let output = script
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run script (util-linux) for a pseudo terminal");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A report on standard error is colored when standard error is a
/// terminal, not when standard output is: convert's refusal shows its
/// findings on standard error.
#[test]
fn colors_follow_the_stream_the_report_goes_to() {
    let dir = super::TempDir::new("color-streams");
    let toolc = env!("CARGO_BIN_EXE_toolc");
    let bad = "fixtures/rules/command-outside-bin/bad/tools.json";
    let out = dir.path().join("out");
    let err_file = dir.path().join("stderr.txt");
    // Standard output a terminal, standard error a file: no colors in it.
    let shown = in_terminal(&format!(
        "{toolc} convert {bad} --to mcp -o '{}' 2>'{}'",
        out.display(),
        err_file.display()
    ));
    let err = std::fs::read_to_string(&err_file).expect("stderr file");
    assert!(err.contains("command-outside-bin"), "{err}\n{shown}");
    assert!(!err.contains('\u{1b}'), "{err}");
    // Standard error the terminal, standard output elsewhere: colors.
    let shown = in_terminal(&format!(
        "{toolc} convert {bad} --to mcp -o '{}' >/dev/null",
        out.display()
    ));
    assert!(shown.contains("command-outside-bin"), "{shown}");
    assert!(shown.contains('\u{1b}'), "{shown}");
}
