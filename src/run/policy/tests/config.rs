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
        allowed_tools = ["echo", "get_*"]
        forbidden_patterns = ["(?i)drop\\s+table"]
        disable = ["sensitive-path"]
        allow_tier = 3
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
        ("allowed_tool = [\"x\"]", "unknown field `allowed_tool`"),
        (
            "forbidden_patterns = [\"ok\", \"(unclosed\"]",
            "forbidden_patterns[1] `(unclosed`",
        ),
        (
            "allowed_tools = [\"a[\"]",
            "allowed_tools[0] `a[` is not a valid glob",
        ),
        (
            "disable = [\"no-such-rule\"]",
            "`no-such-rule` is not a default rule",
        ),
        ("allow_tier = 5", "allow_tier = 5 is outside"),
        ("allow_tier = \"3\"", "invalid policy config"),
        ("allow_tier = ", "invalid policy config"),
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
    std::fs::write(&good, "allow_tier = 3\n")?;
    assert_eq!(Policy::from_toml_file(&good)?.allow_tier, 3);
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "allow_tier = 9\n")?;
    let message = Policy::from_toml_file(&bad).err().map(|e| e.to_string());
    assert_eq!(
        message,
        Some(format!(
            "{}: allow_tier = 9 is outside the security tiers 0 to 4",
            bad.display()
        ))
    );
    let missing = Policy::from_toml_file(&dir.join("missing.toml")).err();
    assert!(matches!(missing, Some(PolicyError::Read { .. })));
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
