//! `sensitive-path` and how denials name arguments.

use serde_json::json;

use super::{check, rule, tool};
use crate::run::policy::DenialRule;

const SENSITIVE_PATHS: &[&str] = &[
    "/etc/shadow",
    "/etc/passwd",
    "/etc/gshadow",
    "/etc/sudoers",
    "/etc/sudoers.d/admins",
    "/etc/shadow-",
    "//etc///shadow",
    "/etc/./passwd",
    "/tmp/../etc/passwd",
    "/var/../../etc/shadow",
    "../../../../../../etc/passwd",
    "file:///etc/passwd",
    "~/.ssh",
    "~/.ssh/id_rsa",
    "~/.ssh/authorized_keys",
    "$HOME/.ssh/config",
    "${HOME}/.ssh/known_hosts",
    "~bob/.ssh/id_ed25519",
    "/root/.ssh/authorized_keys",
    "/home/bob/.ssh/id_rsa",
    "/home/alice/./.ssh",
    ".env",
    "./.env",
    ".env.local",
    ".env.production",
    "x/.env",
    "/srv/app/.env",
    "id_rsa",
    "keys/id_ed25519",
    "deploy/id_ecdsa",
    "server.pem",
    "tls/server.key",
    "/etc/ssl/private/site.KEY",
    "~/.aws/credentials",
    "~/.gnupg/secring.gpg",
    "~/.SSH/config",
    "app/.ENV",
    "*.key",
];

#[test]
fn sensitive_paths_are_refused_in_path_arguments() {
    let read = tool("read_file");
    for path in SENSITIVE_PATHS {
        assert_eq!(
            rule(check(&read, json!({ "path": path }))).as_deref(),
            Some("sensitive-path"),
            "path {path:?}"
        );
        assert_eq!(
            rule(check(&read, json!({ "options": { "targetFile": path } }))).as_deref(),
            Some("sensitive-path"),
            "nested {path:?}"
        );
    }
}

#[test]
fn sensitive_paths_are_refused_in_commands() {
    let run = tool("run");
    for path in SENSITIVE_PATHS {
        let command = format!("cat {path}");
        assert_eq!(
            rule(check(&run, json!({ "command": command }))).as_deref(),
            Some("sensitive-path"),
            "{command:?}"
        );
    }
    let more = [
        "grep root /etc/passwd",
        "scp host:/etc/shadow .",
        "tool --config=/etc/sudoers",
        "cat \"/etc/shadow\"",
        "cp ~/.ssh/id_rsa /tmp/x",
        "source .env && run",
    ];
    for command in more {
        assert_eq!(
            rule(check(&run, json!({ "command": command }))).as_deref(),
            Some("sensitive-path"),
            "{command:?}"
        );
    }
    assert_eq!(
        rule(check(&run, json!({ "args": ["cat", "/etc/shadow"] }))).as_deref(),
        Some("sensitive-path")
    );
}

#[test]
fn sensitive_looking_paths_that_are_not_run() {
    let read = tool("read_file");
    let paths = [
        "README.md",
        "/etc/hosts",
        "/etc/passwords.txt",
        "docs/passwd.md",
        ".envrc",
        ".env.example",
        ".env.sample",
        "config/.env.template",
        "environment.ts",
        "src/env.rs",
        "~/.ssh_notes.txt",
        "keys/id_rsa.pub",
        "keyboard.md",
        "monkey.txt",
        "/home/alice/notes/key-points.md",
    ];
    for path in paths {
        assert_eq!(check(&read, json!({ "path": path })), Ok(()), "{path:?}");
    }
    let run = tool("run");
    for command in [
        "cat README.md",
        "echo passwd",
        "ls ~/.sshrc",
        "curl https://x.io/.env",
    ] {
        assert_eq!(
            check(&run, json!({ "command": command })),
            Ok(()),
            "{command:?}"
        );
    }
}

#[test]
fn values_shaped_like_paths_are_paths_under_any_key() {
    let t = tool("lookup");
    assert_eq!(
        rule(check(&t, json!({ "q": "/etc/shadow" }))).as_deref(),
        Some("sensitive-path")
    );
    assert_eq!(
        rule(check(&t, json!({ "items": ["~/.ssh/id_rsa"] }))).as_deref(),
        Some("sensitive-path")
    );
    // A sentence is not a path, and `target_language` holds no path.
    assert_eq!(
        check(&t, json!({ "q": "/etc/shadow is where hashes live" })),
        Ok(())
    );
    assert_eq!(check(&t, json!({ "target_language": "French" })), Ok(()));
    // `target` is a weak path key: a value starting with `.` is a path.
    assert_eq!(
        rule(check(&t, json!({ "target": ".env" }))).as_deref(),
        Some("sensitive-path")
    );
}

#[test]
fn denial_names_the_argument_pointer_and_value() {
    let run = tool("run");
    let denial = check(&run, json!({ "job": { "shell/cmd": "sudo rm -rf /" } }));
    let Err(denial) = denial else {
        panic!("not refused");
    };
    assert_eq!(denial.rule, DenialRule::DangerousCommand);
    assert_eq!(
        denial.message,
        "Argument `/job/shell~1cmd` = \"sudo rm -rf /\" would delete `/` recursively."
    );
    let long = format!("rm -rf / {}", "x".repeat(200));
    let Err(denial) = check(&run, json!({ "command": long })) else {
        panic!("not refused");
    };
    assert!(denial.message.contains("xxx...\""), "{}", denial.message);
    assert!(denial.message.len() < 200, "{}", denial.message);
    let read = tool("read_file");
    let Err(denial) = check(&read, json!({ "path": "../../etc/shadow" })) else {
        panic!("not refused");
    };
    assert_eq!(
        denial.message,
        "Argument `/path` = \"../../etc/shadow\" names `/etc/shadow`, which is a system account or sudo file."
    );
}

/// The walk skips a string it has just looked at with the same
/// classification; one that differs only in how its key classifies it, or
/// comes after many repeats, is still looked at and named by its pointer.
#[test]
fn repeated_strings_do_not_hide_a_refusal() {
    let read = tool("read_file");
    let mut items = vec![json!("notes.txt"); 1000];
    items.push(json!("../../etc/shadow"));
    let Err(denial) = check(&read, json!({ "a": items })) else {
        panic!("not refused");
    };
    assert!(
        denial.message.starts_with("Argument `/a/1000` ="),
        "{}",
        denial.message
    );
    // `.env` under `note` is text; under `path` it is a sensitive path.
    let Err(denial) = check(&read, json!({ "note": ".env", "path": ".env" })) else {
        panic!("not refused");
    };
    assert!(
        denial.message.starts_with("Argument `/path` ="),
        "{}",
        denial.message
    );
    let mut confined = tool("read_file");
    confined.permissions.allowed_dirs = Some(vec!["data".into()]);
    let arguments = json!({ "a": ["data/x", "data/x", "/etc/hosts", "data/x", "/etc/hosts"] });
    let Err(denial) = check(&confined, arguments) else {
        panic!("not refused");
    };
    assert!(
        denial.message.starts_with("Argument `/a/2` ="),
        "{}",
        denial.message
    );
}
