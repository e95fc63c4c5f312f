//! The tool's own permissions: tiers, `allowed_dirs`, extensions,
//! `allow_http`, actions.

use serde_json::{Value, json};

use super::{check, check_with, policy, rule, tool};
use crate::ir::{Action, Tool};

fn tiered(tier: i64) -> Tool {
    let mut t = tool("tiered");
    t.permissions.security_tier = Some(tier);
    t
}

#[test]
fn security_tiers() {
    let cases: &[(i64, i64, Option<bool>, bool)] = &[
        // (tier, allow_tier, approver answer, runs)
        (0, 2, None, true),
        (1, 2, None, true),
        (2, 2, None, true),
        (3, 2, None, false),
        (3, 2, Some(false), false),
        (3, 2, Some(true), true),
        (3, 3, None, true),
        (3, 4, None, true),
        (2, 1, None, false),
        (2, 1, Some(true), true),
        (4, 2, None, false),
        (4, 4, None, false),
        (4, 4, Some(true), false),
        (5, 4, Some(true), false),
        (-1, 2, Some(true), false),
    ];
    for &(tier, allow_tier, answer, runs) in cases {
        let mut p = policy();
        p.allow_tier = allow_tier;
        if let Some(answer) = answer {
            p.approver = Some(Box::new(move |_: &Tool, _: &Value| answer));
        }
        let result = check_with(&p, &tiered(tier), json!({}));
        if runs {
            assert_eq!(result, Ok(()), "tier {tier} allow {allow_tier} {answer:?}");
        } else {
            assert_eq!(
                rule(result).as_deref(),
                Some("security-tier"),
                "tier {tier} allow {allow_tier} {answer:?}"
            );
        }
    }
}

#[test]
fn the_approver_is_not_asked_about_a_refused_call() {
    let mut p = policy();
    p.approver = Some(Box::new(|_: &Tool, _: &Value| panic!("asked")));
    let mut t = tiered(3);
    t.name = "run".into();
    assert_eq!(
        rule(check_with(&p, &t, json!({"command": "rm -rf /"}))).as_deref(),
        Some("dangerous-command")
    );
}

/// A call's own approval stands in for the approver, counts only above
/// `allow_tier`, and never lets tier 4 or another rule's refusal through.
#[test]
fn a_calls_own_approval() {
    use super::super::{Approval, Call};
    let mut p = policy();
    p.approver = Some(Box::new(|_: &Tool, _: &Value| panic!("asked")));
    let refused = Approval::Refused("the client declined it".to_string());
    let check = |tool: &Tool, arguments: Value, approval: &Approval| {
        let call = Call {
            tool,
            arguments: &arguments,
            dir: std::path::Path::new(super::DIR),
        };
        p.check_approving(&call, approval)
    };
    assert_eq!(check(&tiered(3), json!({}), &Approval::Granted), Ok(()));
    assert_eq!(check(&tiered(2), json!({}), &refused), Ok(()));
    let denial = check(&tiered(3), json!({}), &refused).err();
    assert_eq!(
        denial.map(|d| d.message).as_deref(),
        Some(
            "Tool `tiered` has security tier 3, above the allowed tier 2, and the client declined it."
        )
    );
    assert_eq!(
        rule(check(&tiered(4), json!({}), &Approval::Granted)).as_deref(),
        Some("security-tier")
    );
    let mut t = tiered(3);
    t.name = "run".into();
    let dangerous = check(&t, json!({"command": "rm -rf /"}), &Approval::Granted);
    assert_eq!(rule(dangerous).as_deref(), Some("dangerous-command"));
    assert!(p.needs_approval(&tiered(3)));
    assert!(p.needs_approval(&tiered(4)));
    assert!(!p.needs_approval(&tiered(2)));
    assert!(!p.needs_approval(&tool("untiered")));
}

fn confined(dirs: &[&str]) -> Tool {
    let mut t = tool("read_file");
    t.permissions.allowed_dirs = Some(dirs.iter().map(|d| d.to_string()).collect());
    t
}

#[test]
fn allowed_dirs_confine_path_arguments() {
    // (allowed_dirs, path, runs)
    let cases: &[(&[&str], &str, bool)] = &[
        (&["data"], "data/a.txt", true),
        (&["data"], "./data/sub/a.txt", true),
        (&["data"], "data", true),
        (&["data"], "/work/project/data/a.txt", true),
        (&["data"], "data/../data/a.txt", true),
        (&["data"], "data/../secret.txt", false),
        (&["data"], "../project/data/x", true),
        (&["data"], "../other/data/x", false),
        (&["data"], "database/x", false),
        (&["data"], "/tmp/a.txt", false),
        (&["data"], "a.txt", false),
        (&["./data/"], "data/a.txt", true),
        (&["."], "a.txt", true),
        (&["."], "../a.txt", false),
        (&["/tmp"], "/tmp/x/y", true),
        (&["/tmp"], "/tmp2/x", false),
        (&["/tmp"], "/tmp/../etc/hosts", false),
        (&["~/docs"], "~/docs/a.md", true),
        (&["~/docs"], "/home/alice/docs/a.md", true),
        (&["~/docs"], "/home/bob/docs/a.md", false),
        (&["*"], "/anything/at/all", true),
        (&["data/*"], "data/2024/x.csv", true),
        (&["data/*"], "data", false),
        (&["/srv/*/public"], "/srv/app/public/i.html", true),
        (&["/srv/*/public"], "/srv/app/private/i.html", false),
        (&[], "data/a.txt", false),
        (&["data", "/tmp"], "/tmp/a", true),
    ];
    for &(dirs, path, runs) in cases {
        let result = check(&confined(dirs), json!({ "path": path }));
        if runs {
            assert_eq!(result, Ok(()), "{dirs:?} {path:?}");
        } else {
            assert_eq!(
                rule(result).as_deref(),
                Some("allowed-dirs"),
                "{dirs:?} {path:?}"
            );
        }
    }
}

#[test]
fn allowed_dirs_ignore_arguments_that_are_not_paths() {
    let t = confined(&["data"]);
    let arguments = json!({"query": "hello world", "limit": 3, "target_language": "French"});
    assert_eq!(check(&t, arguments), Ok(()));
    assert_eq!(
        rule(check(&t, json!({"query": "/etc/hosts"}))).as_deref(),
        Some("allowed-dirs")
    );
    assert_eq!(
        rule(check(&t, json!({"dest": "/tmp/out.txt"}))).as_deref(),
        Some("allowed-dirs")
    );
}

fn with_extensions(extensions: Value) -> Tool {
    let mut t = tool("read_file");
    t.permissions
        .extra
        .insert("allowed_extensions".into(), extensions);
    t
}

#[test]
fn allowed_extensions_confine_file_paths() {
    // (allowed_extensions, arguments, runs)
    let cases = [
        (json!(["*"]), json!({"path": "a.exe"}), true),
        (json!([".txt", "md"]), json!({"path": "notes/a.txt"}), true),
        (json!([".txt", "md"]), json!({"path": "README.MD"}), true),
        (json!([".txt", "md"]), json!({"path": "a.exe"}), false),
        (json!([".txt", "md"]), json!({"path": "a.txt.sh"}), false),
        (json!(["*.txt"]), json!({"path": "a.txt"}), true),
        (json!([".txt"]), json!({"path": "notes"}), true),
        (json!([".txt"]), json!({"file_path": "notes"}), false),
        (json!([".txt"]), json!({"title": "a.exe"}), true),
        (json!([]), json!({"path": "a.txt"}), false),
    ];
    for (extensions, arguments, runs) in cases {
        let result = check(&with_extensions(extensions.clone()), arguments.clone());
        if runs {
            assert_eq!(result, Ok(()), "{extensions} {arguments}");
        } else {
            assert_eq!(
                rule(result).as_deref(),
                Some("allowed-extensions"),
                "{extensions} {arguments}"
            );
        }
    }
}

#[test]
fn allow_http_false_forbids_urls() {
    let mut no_http = tool("fetch_page");
    no_http.permissions.allow_http = Some(false);
    let mut no_egress = tool("fetch_page");
    no_egress.permissions.network_egress = Some(Vec::new());
    let mut run = tool("run");
    run.permissions.allow_http = Some(false);
    for t in [&no_http, &no_egress] {
        for url in [
            "http://x.io",
            "https://x.io/a",
            "HTTPS://X.IO",
            "ftp://x.io/f",
            "wss://x.io/s",
        ] {
            assert_eq!(
                rule(check(t, json!({ "url": url }))).as_deref(),
                Some("allow-http"),
                "{url}"
            );
        }
        assert_eq!(
            rule(check(t, json!({ "urls": [{ "href": "https://x.io" }] }))).as_deref(),
            Some("allow-http")
        );
        assert_eq!(
            check(t, json!({ "text": "see https://x.io for more" })),
            Ok(())
        );
        assert_eq!(check(t, json!({ "name": "example.com" })), Ok(()));
    }
    assert_eq!(
        rule(check(&run, json!({ "command": "curl https://x.io" }))).as_deref(),
        Some("allow-http")
    );
    let mut allowed = tool("fetch_page");
    allowed.permissions.allow_http = Some(true);
    assert_eq!(check(&allowed, json!({ "url": "https://x.io" })), Ok(()));
    let mut some_egress = tool("fetch_page");
    some_egress.permissions.network_egress = Some(vec!["x.io".into()]);
    assert_eq!(
        check(&some_egress, json!({ "url": "https://x.io" })),
        Ok(())
    );
}

fn acting(name: &str, actions: &[&str]) -> Tool {
    let mut t = tool(name);
    t.permissions.actions = Some(actions.iter().map(|a| Action::parse(a)).collect());
    t
}

#[test]
fn undeclared_actions_are_refused() {
    // (tool name, declared actions, arguments, runs)
    let cases = [
        ("read_file", &["read"][..], json!({"path": "a.txt"}), true),
        ("search", &["read"][..], json!({"query": "x"}), true),
        ("delete_file", &["read", "write"][..], json!({}), false),
        ("delete_file", &["delete"][..], json!({}), true),
        ("removeItem", &["read"][..], json!({}), false),
        ("rm_tmp", &["read"][..], json!({}), false),
        ("write_file", &["read"][..], json!({}), false),
        ("write_file", &["write"][..], json!({}), true),
        // AgentStack spells its actions exactly (lint's `unknown-action`
        // reports these): none of them is `write`.
        ("write_file", &["Write"][..], json!({}), false),
        ("write_file", &["WRITE"][..], json!({}), false),
        ("write_file", &[" write"][..], json!({}), false),
        ("create_issue", &["read"][..], json!({}), false),
        ("update_record", &["read"][..], json!({}), false),
        ("save_note", &["read"][..], json!({}), false),
        ("set_config", &["read"][..], json!({}), false),
        ("move_file", &["read"][..], json!({}), false),
        ("run_tests", &["read"][..], json!({}), false),
        ("execute_query", &["read"][..], json!({}), false),
        ("shell", &["read"][..], json!({}), false),
        ("open_shell", &["read"][..], json!({}), false),
        ("run_tests", &["execute"][..], json!({}), true),
        (
            "lint",
            &["read"][..],
            json!({"command": "cargo clippy"}),
            false,
        ),
        (
            "lint",
            &["read", "execute"][..],
            json!({"command": "cargo clippy"}),
            true,
        ),
        ("lint", &["read"][..], json!({"zip_code": "12345"}), true),
        ("lint", &[][..], json!({}), false),
    ];
    for (name, actions, arguments, runs) in cases {
        let result = check(&acting(name, actions), arguments.clone());
        if runs {
            assert_eq!(result, Ok(()), "{name} {actions:?} {arguments}");
        } else {
            assert_eq!(
                rule(result).as_deref(),
                Some("undeclared-action"),
                "{name} {actions:?} {arguments}"
            );
        }
    }
    // Without `actions`, nothing is checked.
    assert_eq!(check(&tool("delete_everything"), json!({})), Ok(()));
}

#[test]
fn undeclared_action_names_the_command_argument() {
    let Err(denial) = check(
        &acting("lint", &["read"]),
        json!({"command": "cargo clippy"}),
    ) else {
        panic!("not refused");
    };
    assert!(
        denial
            .message
            .starts_with("Argument `/command` = \"cargo clippy\" is a command")
    );
}
