//! ## What it does
//! Reports an agentcli program path that leaves `./tools/bin/` once `.` and
//! `..` are resolved, with backslashes counted as separators too:
//! `./tools/bin/../x`, `.\tools\bin\..\x` and `../x` all escape.
//!
//! ## Why is this bad?
//! The `./tools/bin/` rule exists so that an agent can run only the tools
//! that were built for it. A path that climbs out runs some other program
//! with the agent's arguments, and agentcli refuses it.
//!
//! ## Example
//! ```json
//! {"tools": [{"name": "fetch", "command": ["./tools/bin/../../scripts/fetch.sh"]}]}
//! ```
//!
//! ## Use instead
//! ```json
//! {"tools": [{"name": "fetch", "command": ["./tools/bin/fetch"]}]}
//! ```

use crate::diagnostic::Severity;
use crate::formats::agentcli_command::{BIN_PREFIX, CommandPath, classify, program};
use crate::lint::command_path::commands;
use crate::lint::findings::Findings;
use crate::lint::{Manifest, Rule};

pub(crate) const RULE: Rule = Rule {
    name: "command-escapes-bin",
    code: "TC203",
    severity: Severity::Error,
    summary: "an agentcli program path climbs out of ./tools/bin/",
    fixable: false,
    targets: &[],
};

pub(crate) fn check(manifest: &Manifest, out: &mut Findings) {
    for (pointer, command) in commands(manifest) {
        let Some(program) = program(command) else {
            continue;
        };
        let CommandPath::EscapesBin(resolved) = classify(program) else {
            continue;
        };
        out.push(
            manifest
                .at_value(
                    &RULE,
                    format!("{pointer}/0"),
                    format!(
                        "program \"{program}\" resolves to \"{resolved}\", outside {BIN_PREFIX}"
                    ),
                )
                .with_help(format!(
                    "name a program inside {BIN_PREFIX} without \"..\", or use an absolute path"
                )),
        );
    }
}
