//! ## What it does
//! Reports an agentcli tool whose program is a relative path that does not
//! start with `./tools/bin/`, such as `python3`, `bin/fetch` or
//! `tools/bin/fetch` (without the leading `./`).
//!
//! ## Why is this bad?
//! agentcli runs relative programs only from `./tools/bin/`, resolved
//! against the directory of `tools.json`; anything else is refused, or,
//! with a bare name, would depend on whatever `PATH` holds on the machine
//! running the agent.
//!
//! ## Example
//! ```json
//! {"tools": [{"name": "fetch", "command": ["tools/bin/fetch"]}]}
//! ```
//!
//! ## Use instead
//! ```json
//! {"tools": [{"name": "fetch", "command": ["./tools/bin/fetch"]}]}
//! ```
//! or an absolute path such as `"/usr/local/bin/fetch"`.

use crate::diagnostic::{Edit, Fix, Severity};
use crate::formats::agentcli_command::{BIN_PREFIX, CommandPath, classify, program};
use crate::lint::command_path::commands;
use crate::lint::findings::Findings;
use crate::lint::{Manifest, Rule};

pub(crate) const RULE: Rule = Rule {
    name: "command-outside-bin",
    code: "TC202",
    severity: Severity::Error,
    summary: "a relative agentcli program outside ./tools/bin/",
    fixable: true,
    targets: &[],
};

pub(crate) fn check(manifest: &Manifest, out: &mut Findings) {
    for (pointer, command) in commands(manifest) {
        let Some(program) = program(command) else {
            continue;
        };
        if classify(program) != CommandPath::OutsideBin {
            continue;
        }
        let pointer = format!("{pointer}/0");
        // A path that, written with forward slashes and without `.`
        // segments, names a program inside ./tools/bin/ is fixed by writing
        // it that way.
        let normalized = format!("./{}", program.replace('\\', "/").trim_start_matches("./"));
        let inside = match classify(&normalized) {
            CommandPath::InsideBin(inside) => Some(inside),
            _ => None,
        };
        let bare = !program.contains(['/', '\\']);
        let (message, help) = if inside.is_some() {
            (
                format!("program \"{program}\" is under tools/bin/ but lacks the leading \"./\""),
                format!("agentcli runs relative programs only when they start with {BIN_PREFIX}"),
            )
        } else if bare {
            (
                format!("program \"{program}\" is a bare name, not a path under {BIN_PREFIX}"),
                format!(
                    "agentcli does not search PATH: write the program's absolute path (`command -v {program}` prints it), or put it in {BIN_PREFIX}"
                ),
            )
        } else {
            (
                format!("relative program \"{program}\" is not under {BIN_PREFIX}"),
                format!(
                    "agentcli runs relative programs only from {BIN_PREFIX} (relative to tools.json); move the program there or use an absolute path"
                ),
            )
        };
        let mut diagnostic = manifest.at_value(&RULE, pointer, message).with_help(help);
        if let Some(inside) = inside
            && let Some(span) = diagnostic.span
        {
            let replacement = format!("./{inside}");
            diagnostic.fix = Some(Fix::safe(
                format!("write the program as \"{replacement}\""),
                vec![Edit {
                    span,
                    replacement: serde_json::Value::String(replacement).to_string(),
                }],
            ));
        }
        out.push(diagnostic);
    }
}
