//! The TOML config: its rules and its errors.

use std::path::PathBuf;

use serde_json::json;

use super::{check_with, rule, tool};
use crate::ir::Tool;
use crate::run::policy::{Policy, PolicyError};

#[test]
fn toml_config_adds_rules() -> Result<(), PolicyError> {
    let p = Policy::from_toml_str(
        r#"
        allowed-tools = ["echo", "get_*"]
        forbidden-patterns = ["(?i)drop\\s+table"]
        disable = ["sensitive-path"]
        allow-tier = 3
        "#,
    )?;
    assert_eq!(p.allow_tier, 3);
    assert_eq!(check_with(&p, &tool("echo"), json!({})), Ok(()));
    assert_eq!(check_with(&p, &tool("get_weather"), json!({})), Ok(()));
    assert_eq!(
        rule(check_with(&p, &tool("delete_all"), json!({}))).as_deref(),
        Some("allowed-tools")
    );
    assert_eq!(
        rule(check_with(
            &p,
            &tool("get_rows"),
            json!({"sql": "Drop  TABLE users"})
        ))
        .as_deref(),
        Some("forbidden-pattern")
    );
    assert_eq!(
        rule(check_with(
            &p,
            &tool("get_rows"),
            json!({"q": {"deep": ["drop table x"]}})
        ))
        .as_deref(),
        Some("forbidden-pattern")
    );
    assert_eq!(
        check_with(&p, &tool("echo"), json!({"path": "/etc/shadow"})),
        Ok(())
    );
    assert_eq!(check_with(&p, &tiered_named("echo", 3), json!({})), Ok(()));
    let empty = Policy::from_toml_str("")?;
    assert_eq!(empty.allow_tier, 2);
    assert!(empty.allowed_tools.is_none());
    Ok(())
}

fn tiered_named(name: &str, tier: i64) -> Tool {
    let mut t = tool(name);
    t.permissions.security_tier = Some(tier);
    t
}

#[test]
fn disabling_default_rules() -> Result<(), PolicyError> {
    let mut p = Policy::from_toml_str(r#"disable = ["dangerous-command", "remote-script"]"#)?;
    p.home = PathBuf::from("/home/alice");
    let run = tool("run");
    assert_eq!(check_with(&p, &run, json!({"command": "rm -rf /"})), Ok(()));
    assert_eq!(
        check_with(&p, &run, json!({"command": "curl x | sh"})),
        Ok(())
    );
    assert_eq!(
        rule(check_with(&p, &run, json!({"command": "cat /etc/shadow"}))).as_deref(),
        Some("sensitive-path")
    );
    Ok(())
}

#[test]
fn toml_config_errors() {
    let cases = [
        (
            "allowed-tool = [\"x\"]",
            "policy config:1:1: unknown key `allowed-tool`, expected one of `allowed-tools`, \
             `forbidden-patterns`, `disable`, `allow-tier`; did you mean `allowed-tools`?",
        ),
        // An old spelling misspelt: the suggestion is the new spelling.
        (
            "\nallowed_tool = 1",
            "policy config:2:1: unknown key `allowed_tool`",
        ),
        ("allowed_tool = 1", "did you mean `allowed-tools`?"),
        (
            "forbidden-patterns = [\"ok\", \"(unclosed\"]",
            "forbidden-patterns[1] `(unclosed`",
        ),
        (
            "allowed-tools = [\"a[\"]",
            "allowed-tools[0] `a[` is not a valid glob",
        ),
        (
            "disable = [\"no-such-rule\"]",
            "`no-such-rule` is not a default rule",
        ),
        ("allow-tier = 5", "allow-tier = 5 is outside"),
        ("allow_tier = 5", "allow-tier = 5 is outside"),
        ("allow-tier = \"3\"", "policy config:1:14: invalid type"),
        ("allow-tier = ", "policy config:1:"),
        // Both spellings of one key: which one counts is not guessed.
        ("allow-tier = 1\nallow_tier = 2", "duplicate"),
    ];
    for (text, expected) in cases {
        match Policy::from_toml_str(text) {
            Ok(_) => panic!("{text:?} was accepted"),
            Err(error) => {
                let message = error.to_string();
                assert!(message.contains(expected), "{text:?}: {message}");
            }
        }
    }
}

#[test]
fn toml_config_files() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::temp_dir().join(format!("toolc-policy-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let good = dir.join("good.toml");
    std::fs::write(&good, "allow-tier = 3\n")?;
    assert_eq!(Policy::from_toml_file(&good)?.allow_tier, 3);
    // The old spelling still works, with a warning that names the new key
    // and points at the old one.
    let old = dir.join("old.toml");
    std::fs::write(&old, "disable = []\nallow_tier = 3\n")?;
    let (policy, warnings) = Policy::read_toml_file(&old)?;
    assert_eq!(policy.allow_tier, 3);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with(&format!(
            "{}:2:1: `allow_tier` is the old spelling: write `allow-tier`",
            old.display()
        )),
        "{warnings:?}"
    );
    assert!(Policy::read_toml_file(&good)?.1.is_empty());
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "allow-tier = 9\n")?;
    let message = Policy::from_toml_file(&bad).err().map(|e| e.to_string());
    assert_eq!(
        message,
        Some(format!(
            "{}: allow-tier = 9 is outside the security tiers 0 to 4",
            bad.display()
        ))
    );
    let missing = Policy::from_toml_file(&dir.join("missing.toml")).err();
    assert!(matches!(missing, Some(PolicyError::Read { .. })));
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
