//! `--fix`, `--unsafe-fixes` and `--diff`, byte for byte.

use super::{TempDir, Test};

const NORA: &str = r#"{
  "name": "search",
  "description": "Search the docs",
  "entrypoint": "main.py",
  "parameters": {
    "type": "object",
    "properties": {
      "query": {"type": "string", "description": "What to look for"},
      "limit": {
        "type": "integer",
        "description": "How many results"
      }
    }
  }
}
"#;

/// What the two safe fixes must produce: only the inserted flags differ.
const NORA_FIXED: &str = r#"{
  "name": "search",
  "description": "Search the docs",
  "entrypoint": "main.py",
  "parameters": {
    "type": "object",
    "properties": {
      "query": {"type": "string", "description": "What to look for", "required": false},
      "limit": {
        "type": "integer",
        "description": "How many results",
        "required": false
      }
    }
  }
}
"#;

const AGENTCLI: &str = "{\"tools\": [{\"name\": \"go\", \"description\": \"Go\",\r\n  \"command\": [\"tools\\\\bin\\\\go\", \"--fast\"],\r\n  \"schema\": {\"properties\": {}}}]}\r\n";
const AGENTCLI_FIXED: &str = "{\"tools\": [{\"name\": \"go\", \"description\": \"Go\",\r\n  \"command\": [\"./tools/bin/go\", \"--fast\"],\r\n  \"schema\": {\"properties\": {}, \"type\": \"object\"}}]}\r\n";

fn project() -> TempDir {
    let dir = TempDir::new("fixes");
    dir.write("search/tool.json", NORA);
    dir.write("search/main.py", "def run(params):\n    return ''\n");
    dir.write("cli/tools.json", AGENTCLI);
    let program = dir.write("cli/tools/bin/go", "#!/bin/sh\necho '{}'\n");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    dir
}

fn read(dir: &TempDir, path: &str) -> String {
    std::fs::read_to_string(dir.path().join(path)).expect("read")
}

#[test]
fn fix_changes_only_what_the_fixes_touch_and_reaches_a_fixed_point() {
    let dir = project();
    let before = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--format", "json"])
        .run()
        .json();
    let rules: Vec<&str> = before["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter_map(|d| d["rule"].as_str())
        .collect();
    assert_eq!(
        rules,
        [
            "command-outside-bin",
            "parameters-not-object",
            "nora-property-missing-required",
            "nora-property-missing-required"
        ]
    );
    let output = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--fix"])
        .run();
    assert_eq!(output.code, 0, "{}{}", output.stdout, output.stderr);
    assert_eq!(read(&dir, "search/tool.json"), NORA_FIXED);
    assert_eq!(read(&dir, "cli/tools.json"), AGENTCLI_FIXED);
    assert!(
        output
            .stderr
            .contains("Fixed 4 findings in 2 files; 0 remain."),
        "{}",
        output.stderr
    );
    assert_eq!(output.stdout, "No problems found in 2 files.\n");
    // A second run finds nothing to fix and changes nothing.
    let again = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--fix"])
        .run();
    assert!(
        again.stderr.contains("Fixed 0 findings in 0 files"),
        "{}",
        again.stderr
    );
    assert_eq!(read(&dir, "search/tool.json"), NORA_FIXED);
    assert_eq!(read(&dir, "cli/tools.json"), AGENTCLI_FIXED);
}

#[test]
fn diff_shows_the_fixes_and_writes_nothing() {
    let dir = project();
    let output = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--diff"])
        .run();
    assert_eq!(output.code, 1);
    assert!(
        output
            .stdout
            .contains("--- a/search/tool.json\n+++ b/search/tool.json\n"),
        "{}",
        output.stdout
    );
    assert!(
        output.stdout.contains("+        \"required\": false\n"),
        "{}",
        output.stdout
    );
    assert!(
        output
            .stdout
            .contains("-  \"command\": [\"tools\\\\bin\\\\go\", \"--fast\"],"),
        "{}",
        output.stdout
    );
    assert_eq!(read(&dir, "search/tool.json"), NORA);
    assert_eq!(read(&dir, "cli/tools.json"), AGENTCLI);
    let clean = TempDir::new("diff-clean");
    clean.write(
        "tools.json",
        r#"{"tools": [{"name": "t", "description": "T", "command": ["/bin/true"]}]}"#,
    );
    let none = Test::new()
        .current_dir(clean.path())
        .args(["lint", "--diff"])
        .run();
    assert_eq!((none.code, none.stdout.as_str()), (0, ""));
}

#[test]
fn fixes_leave_alone_what_they_cannot_fix_and_say_what_remains() {
    let dir = TempDir::new("fix-remains");
    let text = r#"{"tools": [{"name": "a b", "description": "D", "command": ["tools/bin/x"]}]}"#;
    dir.write("tools.json", text);
    let output = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--fix", "--format", "concise"])
        .run();
    assert_eq!(output.code, 1);
    assert_eq!(
        read(&dir, "tools.json"),
        r#"{"tools": [{"name": "a b", "description": "D", "command": ["./tools/bin/x"]}]}"#
    );
    assert!(
        output
            .stderr
            .contains("Fixed 1 finding in 1 file; 2 remain."),
        "{}",
        output.stderr
    );
    assert!(
        output.stdout.contains("invalid-tool-name"),
        "{}",
        output.stdout
    );
}

const STRICT: &str = r#"[
  {
    "type": "function",
    "function": {
      "name": "get_weather",
      "description": "Weather for a city",
      "parameters": {
        "type": "object",
        "properties": {
          "city": {"type": "string", "description": "City name"},
          "unit": {"type": "string", "enum": ["c", "f"], "description": "Unit"},
          "days": {"type": ["integer"], "description": "Days ahead"}
        },
        "required": ["city"]
      }
    }
  }
]
"#;

#[test]
fn strict_mode_safe_and_unsafe_fixes() {
    let dir = TempDir::new("strict-fixes");
    dir.write("openai.json", STRICT);
    let safe = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--target", "openai-strict", "--fix", "openai.json"])
        .run();
    assert_eq!(
        safe.code, 1,
        "two properties are still optional: {}",
        safe.stdout
    );
    assert_eq!(
        read(&dir, "openai.json"),
        STRICT.replace(
            "        \"required\": [\"city\"]\n",
            "        \"required\": [\"city\"],\n        \"additionalProperties\": false\n"
        )
    );
    assert!(
        safe.stderr.contains("Fixed 1 finding in 1 file; 2 remain."),
        "{}",
        safe.stderr
    );
    let unsafe_fixes = Test::new()
        .current_dir(dir.path())
        .args([
            "lint",
            "--target",
            "openai-strict",
            "--fix",
            "--unsafe-fixes",
            "openai.json",
        ])
        .run();
    assert_eq!(unsafe_fixes.code, 0, "{}", unsafe_fixes.stdout);
    let expected = STRICT
        .replace(
            "        \"required\": [\"city\"]\n",
            "        \"required\": [\"city\", \"unit\", \"days\"],\n        \"additionalProperties\": false\n",
        )
        .replace(
            r#"{"type": "string", "enum": ["c", "f"], "description": "Unit"}"#,
            r#"{"type": ["string", "null"], "enum": ["c", "f", null], "description": "Unit"}"#,
        )
        .replace(r#"{"type": ["integer"], "#, r#"{"type": ["integer", "null"], "#);
    assert_eq!(read(&dir, "openai.json"), expected);
}

/// Every fix, safe and unsafe, under every target, on copies of all the
/// fixtures: what parsed before still parses, and a second pass has
/// nothing left to do.
#[test]
fn every_fix_on_every_fixture_keeps_json_valid_and_settles() {
    let dir = TempDir::new("fix-everything");
    let source = super::root().join("fixtures");
    let mut parsed_before = Vec::new();
    for entry in walkdir::WalkDir::new(&source).follow_links(false) {
        let entry = entry.expect("walk fixtures");
        let relative = entry.path().strip_prefix(&source).expect("prefix");
        let target = dir.path().join(relative);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).expect("mkdir");
        } else if entry.file_type().is_file() {
            std::fs::copy(entry.path(), &target).expect("copy");
            let text = std::fs::read(entry.path()).expect("read");
            if entry.path().extension().is_some_and(|e| e == "json")
                && serde_json::from_slice::<serde_json::Value>(&text).is_ok()
            {
                parsed_before.push(target);
            }
        }
    }
    assert!(
        parsed_before.len() > 100,
        "{} fixture files",
        parsed_before.len()
    );
    for target in ["", "openai", "openai-strict", "anthropic", "gemini", "mcp"] {
        let mut args = vec!["lint", "--fix", "--unsafe-fixes", "--format", "concise"];
        if !target.is_empty() {
            args.extend(["--target", target]);
        }
        args.push(".");
        let first = Test::new().current_dir(dir.path()).args(&args).run();
        assert!(first.code <= 1, "--target {target:?}: {}", first.stderr);
        let second = Test::new().current_dir(dir.path()).args(&args).run();
        assert!(
            second.stderr.contains("Fixed 0 findings in 0 files"),
            "--target {target:?}: a second pass still fixed: {}",
            second.stderr
        );
        for path in &parsed_before {
            let text = std::fs::read(path).expect("read");
            assert!(
                serde_json::from_slice::<serde_json::Value>(&text).is_ok(),
                "--target {target:?} broke {}",
                path.display()
            );
        }
    }
}

#[cfg(unix)]
#[test]
fn fix_keeps_a_byte_order_mark_a_symlink_and_the_file_mode() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new("fix-keeps");
    let text = "\u{feff}{\"tools\": [{\"name\": \"go\", \"description\": \"Go\", \"command\": [\"tools/bin/go\"]}]}\n";
    let real = dir.write("real/tools.json", text);
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    std::os::unix::fs::symlink("real/tools.json", dir.path().join("tools.json")).expect("symlink");
    let output = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--fix", "tools.json"])
        .run();
    assert!(
        output.stderr.contains("Fixed 1 finding in 1 file"),
        "{}",
        output.stderr
    );
    let link = std::fs::symlink_metadata(dir.path().join("tools.json")).expect("link");
    assert!(
        link.file_type().is_symlink(),
        "the link was replaced by a file"
    );
    assert_eq!(
        std::fs::read_to_string(&real).expect("read"),
        text.replace("\"tools/bin/go\"", "\"./tools/bin/go\"")
    );
    let mode = std::fs::metadata(&real).expect("meta").permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
}

#[cfg(unix)]
#[test]
fn fix_writes_to_a_file_whose_name_is_not_utf8() {
    use std::os::unix::ffi::OsStrExt;
    let dir = TempDir::new("fix-non-utf8");
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.json");
    let path = dir.path().join("nu").join(name);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(&path, STRICT).expect("write");
    let output = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--target", "openai-strict", "--fix", "nu"])
        .run();
    assert!(
        output.stderr.contains("Fixed 1 finding in 1 file"),
        "{}",
        output.stderr
    );
    assert!(
        std::fs::read_to_string(&path)
            .expect("read")
            .contains("\"additionalProperties\": false")
    );
    let entries = std::fs::read_dir(dir.path().join("nu"))
        .expect("dir")
        .count();
    assert_eq!(entries, 1, "a second file appeared");
}

#[cfg(unix)]
#[test]
fn fix_reads_only_what_lint_reads() {
    let dir = TempDir::new("fix-reads");
    let made = std::process::Command::new("mkfifo")
        .arg(
            dir.path()
                .join("fifo/tools.json")
                .parent()
                .map(|p| {
                    std::fs::create_dir_all(p).expect("mkdir");
                    p.join("tools.json")
                })
                .expect("path"),
        )
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let big = STRICT.replace("Weather for a city", &"w".repeat(500));
    dir.write("big/openai.json", &big);
    let output = Test::new()
        .current_dir(dir.path())
        .args([
            "lint",
            "--target",
            "openai-strict",
            "--max-file-size",
            "300",
            "--fix",
            ".",
        ])
        .run();
    assert!(
        output.stderr.contains("Fixed 0 findings in 0 files"),
        "{}",
        output.stderr
    );
    assert_eq!(
        read(&dir, "big/openai.json"),
        big,
        "a file too large to read was rewritten"
    );
}

#[test]
fn the_unsafe_strict_fix_only_applies_where_null_can_be_allowed() {
    let dir = TempDir::new("nullable");
    let text = r#"[{"type": "function", "function": {"name": "f", "description": "F", "parameters": {
  "type": "object", "additionalProperties": false, "required": [],
  "properties": {
    "either": {"anyOf": [{"type": "string"}, {"type": "integer"}], "description": "E"},
    "fixed": {"type": "string", "const": "x", "description": "C"}
  }}}}]
"#;
    dir.write("openai.json", text);
    let output = Test::new()
        .current_dir(dir.path())
        .args([
            "lint",
            "--target",
            "openai-strict",
            "--fix",
            "--unsafe-fixes",
            "--format",
            "concise",
            "openai.json",
        ])
        .run();
    assert_eq!(output.code, 1);
    let expected = text
        .replace(r#""required": []"#, r#""required": ["either"]"#)
        .replace(
            r#"[{"type": "string"}, {"type": "integer"}]"#,
            r#"[{"type": "string"}, {"type": "integer"}, {"type": "null"}]"#,
        );
    assert_eq!(read(&dir, "openai.json"), expected);
    assert!(
        output.stdout.contains("strict-all-required") && output.stdout.contains("\"fixed\""),
        "{}",
        output.stdout
    );
}

#[test]
fn every_optional_property_is_fixed_however_many() {
    let dir = TempDir::new("many-optional");
    let properties: Vec<String> = (0..40)
        .map(|i| format!(r#""p{i}": {{"type": "string", "description": "P"}}"#))
        .collect();
    dir.write(
        "openai.json",
        format!(
            r#"[{{"type": "function", "function": {{"name": "f", "description": "F", "parameters": {{"type": "object", "additionalProperties": false, "properties": {{{}}}}}}}}}]"#,
            properties.join(", ")
        ),
    );
    let output = Test::new()
        .current_dir(dir.path())
        .args([
            "lint",
            "--target",
            "openai-strict",
            "--fix",
            "--unsafe-fixes",
            "openai.json",
        ])
        .run();
    assert_eq!(output.code, 0, "{}", output.stdout);
    assert!(
        output
            .stderr
            .contains("Fixed 40 findings in 1 file; 0 remain."),
        "{}",
        output.stderr
    );
}

#[test]
fn inserted_lines_use_the_files_line_endings() {
    let dir = TempDir::new("crlf-fix");
    let text = "[{\"type\": \"function\", \"function\": {\"name\": \"f\", \"description\": \"F\",\r\n  \"parameters\": {\r\n    \"type\": \"object\",\r\n    \"properties\": {}\r\n  }}}]\r\n";
    dir.write("openai.json", text);
    Test::new()
        .current_dir(dir.path())
        .args(["lint", "--target", "openai-strict", "--fix", "openai.json"])
        .run();
    assert_eq!(
        read(&dir, "openai.json"),
        text.replace(
            "\"properties\": {}\r\n",
            "\"properties\": {},\r\n    \"additionalProperties\": false\r\n"
        )
    );
}

#[test]
fn diff_goes_to_the_output_file_and_honours_exit_zero() {
    let dir = project();
    let output = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--diff", "--exit-zero", "-o", "fixes.diff"])
        .run();
    assert_eq!((output.code, output.stdout.as_str()), (0, ""));
    assert!(read(&dir, "fixes.diff").contains("+++ b/search/tool.json"));
    assert_eq!(read(&dir, "search/tool.json"), NORA);
    let lonely = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--unsafe-fixes"])
        .run();
    assert_eq!(lonely.code, 2);
    assert!(
        lonely
            .stderr
            .contains("--unsafe-fixes goes with --fix or --diff"),
        "{}",
        lonely.stderr
    );
}

/// Two byte order marks: the second is not JSON, so lint reports the file
/// and --fix and --diff leave it alone (they used to edit it three bytes
/// off, round after round).
#[test]
fn a_file_with_two_byte_order_marks_is_reported_not_fixed() {
    let dir = TempDir::new("fix-two-boms");
    let path = dir.path().join("tools.json");
    let mut bytes = b"\xEF\xBB\xBF\xEF\xBB\xBF".to_vec();
    bytes.extend_from_slice(STRICT.as_bytes());
    std::fs::write(&path, &bytes).expect("write");
    let fixed = Test::new()
        .current_dir(dir.path())
        .args([
            "lint",
            "--target",
            "openai-strict",
            "--fix",
            "--format",
            "concise",
            "tools.json",
        ])
        .run();
    assert_eq!(fixed.code, 1, "{}", fixed.stderr);
    assert!(fixed.stdout.contains("invalid-json"), "{}", fixed.stdout);
    assert_eq!(std::fs::read(&path).expect("read"), bytes);
    let diff = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--target", "openai-strict", "--diff", "tools.json"])
        .run();
    assert_eq!(
        (diff.code, diff.stdout.as_str()),
        (0, ""),
        "{}",
        diff.stderr
    );
}

/// Applies the unified diff `patch` in `dir` with `git apply` (which refuses
/// a malformed or misplaced hunk), stripping `strip` leading path parts.
pub(super) fn git_apply(dir: &std::path::Path, patch: &str, strip: u8) {
    use std::io::Write;
    let mut child = std::process::Command::new("git")
        .args(["apply", "--unsafe-paths", &format!("-p{strip}"), "-"])
        .current_dir(dir)
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("git apply");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(patch.as_bytes())
        .expect("write the patch");
    let output = child.wait_with_output().expect("git apply");
    assert!(
        output.status.success(),
        "git apply: {}\n{patch}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// What `--diff` prints is a patch that `git apply` takes and that makes
/// the files what `--fix` writes, CRLF lines and a last line without a
/// line break included.
#[test]
fn the_diff_applied_with_git_apply_gives_what_fix_writes() {
    let dir = project();
    let unterminated = "{\"tools\": [{\"name\": \"go\", \"description\": \"Go\",\n  \"command\": [\"tools\\\\bin\\\\go\"],\n  \"schema\": {\"properties\": {}}}]}";
    dir.write("end/tools.json", unterminated);
    let program = dir.write("end/tools/bin/go", "#!/bin/sh\necho '{}'\n");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let diff = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--diff"])
        .run();
    assert_eq!(diff.code, 1, "{}", diff.stderr);
    assert!(
        diff.stdout.contains("\\ No newline at end of file\n"),
        "{}",
        diff.stdout
    );
    git_apply(dir.path(), &diff.stdout, 1);
    assert_eq!(read(&dir, "search/tool.json"), NORA_FIXED);
    assert_eq!(read(&dir, "cli/tools.json"), AGENTCLI_FIXED);
    let patched = read(&dir, "end/tools.json");
    std::fs::write(dir.path().join("end/tools.json"), unterminated).expect("restore");
    let fixed = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--fix", "end"])
        .run();
    assert_eq!(fixed.code, 0, "{}", fixed.stderr);
    assert_eq!(patched, read(&dir, "end/tools.json"));
    assert_ne!(patched, unterminated);
}
