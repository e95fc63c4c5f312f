//! ## What it does
//! Reports a NORA tool whose `entrypoint` is not a file. The path resolves
//! against the directory of `tool.json`, not the directory toolc runs in.
//!
//! ## Why is this bad?
//! NORA loads the entrypoint script and calls its `run(params)`; a tool
//! whose script is missing fails on every call.
//!
//! ## Example
//! `tools/fetch/tool.json` says `"entrypoint": "fetch.py"` but the
//! directory holds `main.py`.
//!
//! ## Use instead
//! ```json
//! {"name": "fetch", "entrypoint": "main.py", ...}
//! ```

use crate::diagnostic::Severity;
use crate::lint::findings::Findings;
use crate::lint::{Manifest, Rule};
use crate::project::FileState;

pub(crate) const RULE: Rule = Rule {
    name: "entrypoint-not-found",
    code: "TC402",
    severity: Severity::Error,
    summary: "a NORA entrypoint script does not exist",
    fixable: false,
    targets: &[],
};

pub(crate) fn check(manifest: &Manifest, out: &mut Findings) {
    let Some(file) = &manifest.code.entrypoint else {
        return;
    };
    let (entrypoint, resolved) = (&file.written, &file.path);
    let problem = match file.state {
        FileState::File { .. } => return,
        FileState::NotFile => "is not a file",
        FileState::Missing => "does not exist",
    };
    out.push(
        manifest
            .at_value(
                &RULE,
                "/entrypoint",
                format!(
                    "entrypoint \"{entrypoint}\" {problem} ({})",
                    resolved.display()
                ),
            )
            .with_help(
                "the entrypoint is a Python script beside tool.json that defines run(params)",
            ),
    );
}
