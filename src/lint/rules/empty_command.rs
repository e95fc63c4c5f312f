//! ## What it does
//! Reports an agentcli tool whose `command` does not name a program: the
//! key is missing, the array is empty, the first element is an empty string,
//! or `command` is a string instead of an argv array.
//!
//! ## Why is this bad?
//! agentcli runs `command[0]` with the rest as arguments, never through a
//! shell; without a program there is nothing to run, and a command line
//! given as one string is not split.
//!
//! ## Example
//! ```json
//! {"tools": [{"name": "fetch", "command": []}]}
//! ```
//!
//! ## Use instead
//! ```json
//! {"tools": [{"name": "fetch", "command": ["./tools/bin/fetch", "--quiet"]}]}
//! ```

use serde_json::Value;

use crate::diagnostic::Severity;
use crate::formats::agentcli_command::program;
use crate::lint::command_path::commands;
use crate::lint::findings::Findings;
use crate::lint::{Manifest, Rule};

pub(crate) const RULE: Rule = Rule {
    name: "empty-command",
    code: "TC201",
    severity: Severity::Error,
    summary: "an agentcli tool's command names no program",
    fixable: false,
    targets: &[],
};

pub(crate) fn check(manifest: &Manifest, out: &mut Findings) {
    for (pointer, command) in commands(manifest) {
        if program(command).is_some() {
            continue;
        }
        let (pointer, message) = match command {
            None => (pointer, "the tool has no \"command\"".to_string()),
            Some(Value::String(s)) => (
                pointer,
                format!("\"command\" must be an argv array, not the string \"{s}\""),
            ),
            Some(Value::Array(items)) if items.is_empty() => (
                pointer,
                "\"command\" is empty; it needs at least the program".to_string(),
            ),
            Some(Value::Array(items)) if items[0].is_string() => (
                format!("{pointer}/0"),
                "the program (command[0]) is an empty string".to_string(),
            ),
            Some(Value::Array(_)) => continue, // a non-string element: schema-violation
            Some(_) => (pointer, "\"command\" must be an argv array".to_string()),
        };
        out.push(
            manifest
                .at_value(&RULE, pointer, message)
                .with_help("give the program and its arguments as an array, e.g. [\"./tools/bin/fetch\", \"--quiet\"]"),
        );
    }
}
