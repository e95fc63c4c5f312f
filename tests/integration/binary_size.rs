//! `scripts/check-binary-size`, which the release workflow runs on the
//! binaries it builds (the CI builds no release binary): over the limit it
//! fails, and with README.md it fails when the README's "a binary of about
//! N MB" is not the measured size. Files of a chosen length stand in for
//! the binary.

use std::path::Path;
use std::process::{Command, Output};

use super::{TempDir, root};

fn check(binary: &Path, limit: &str, readme: Option<&Path>) -> Output {
    let mut command = Command::new("bash");
    command
        .arg(root().join("scripts/check-binary-size"))
        .arg(binary)
        .arg(limit);
    if let Some(readme) = readme {
        command.arg(readme);
    }
    command.output().expect("run scripts/check-binary-size")
}

/// A sparse file of `bytes` bytes.
fn file_of(dir: &TempDir, name: &str, bytes: u64) -> std::path::PathBuf {
    let path = dir.path().join(name);
    let file = std::fs::File::create(&path).expect("create the stand-in binary");
    file.set_len(bytes).expect("size the stand-in binary");
    path
}

/// The whole MB README.md quotes for the installed binary.
fn readme_figure() -> u64 {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("read README.md");
    let (_, after) = readme
        .split_once("binary of about ")
        .expect("README.md says \"a binary of about N MB\"");
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    assert!(
        after[digits.len()..].starts_with(" MB"),
        "README.md's binary size is not in MB: {after:.20}"
    );
    digits.parse().expect("a whole number of MB")
}

#[test]
fn a_binary_over_the_limit_fails() {
    let temp = TempDir::new("binary-size-limit");
    let binary = file_of(&temp, "toolc", 25_000_001);
    let over = check(&binary, "25", None);
    assert_eq!(over.status.code(), Some(1), "{over:?}");
    let stderr = String::from_utf8_lossy(&over.stderr);
    assert!(stderr.contains("over the limit of 25 MB"), "{stderr}");

    let within = check(&binary, "25.5", None);
    assert!(within.status.success(), "{within:?}");
    assert!(
        String::from_utf8_lossy(&within.stdout)
            .contains("25.0 MB (25000001 bytes), within 25.5 MB"),
        "{within:?}"
    );

    let bad = check(&binary, "25MB", None);
    assert_eq!(bad.status.code(), Some(2), "{bad:?}");
}

#[test]
fn the_readme_figure_is_checked_against_the_binary() {
    let figure = readme_figure();
    let readme = root().join("README.md");
    let temp = TempDir::new("binary-size-readme");

    let matching = file_of(&temp, "matching", figure * 1_000_000 + 400_000);
    let output = check(&matching, "1000", Some(&readme));
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(&format!("(about {figure} MB) matches")),
        "{stdout}"
    );

    let grown = file_of(&temp, "grown", (figure + 2) * 1_000_000);
    let output = check(&grown, "1000", Some(&readme));
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("update the figure"), "{stderr}");
}
