//! ## What it does
//! Warns when an agentcli program (under `./tools/bin/` or absolute) does
//! not exist or is not executable. Relative programs resolve against the
//! directory of `tools.json`, not the directory toolc runs in. A manifest
//! of another format converted from agentcli runs the program its
//! `"x-toolc"` object keeps, resolved against that manifest's directory:
//! it is checked the same way.
//!
//! ## Why is this bad?
//! Every call of the tool will fail. Before a build this is expected (the
//! binaries under `tools/bin/` are often build outputs), which is why this
//! is a warning.
//!
//! ## Example
//! `tools.json` lists `["./tools/bin/fetch"]` but `tools/bin/fetch` was
//! never built, or lost its executable bit.
//!
//! ## Use instead
//! Build the tool (`make tools`), fix the path, or `chmod +x` the program.

use crate::diagnostic::Severity;
use crate::formats::agentcli_command::program;
use crate::lint::command_path::{programs_run, where_programs_are};
use crate::lint::findings::Findings;
use crate::lint::{Manifest, Rule};
use crate::project::FileState;

pub(crate) const RULE: Rule = Rule {
    name: "command-not-found",
    code: "TC204",
    severity: Severity::Warning,
    summary: "an agentcli program is missing or not executable",
    fixable: false,
    targets: &[],
};

pub(crate) fn check(manifest: &Manifest, out: &mut Findings) {
    for (pointer, command) in programs_run(manifest) {
        let Some(program) = program(command) else {
            continue;
        };
        let Some(file) = manifest.code.program(program) else {
            continue;
        };
        let resolved = &file.path;
        let problem = match file.state {
            FileState::Missing => "does not exist",
            FileState::NotFile => "is not a file",
            FileState::File { executable: false } => "is not executable",
            FileState::File { executable: true } => continue,
        };
        out.push(
            manifest
                .at_value(
                    &RULE,
                    format!("{pointer}/0"),
                    format!("program \"{program}\" {problem} ({})", resolved.display()),
                )
                .with_help(format!(
                    "build the tool or fix the path; {}",
                    where_programs_are(manifest)
                )),
        );
    }
}
