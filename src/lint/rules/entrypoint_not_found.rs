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

use crate::diagnostic::{Diagnostic, Severity};
use crate::lint::{Manifest, Rule};

pub(crate) const RULE: Rule = Rule {
    name: "entrypoint-not-found",
    code: "TC402",
    severity: Severity::Error,
    summary: "a NORA entrypoint script does not exist",
    targets: &[],
};

pub(crate) fn check(manifest: &Manifest, out: &mut Vec<Diagnostic>) {
    let Some((entrypoint, resolved)) = manifest.nora_entrypoint() else {
        return;
    };
    if resolved.is_file() {
        return;
    }
    let problem = if resolved.exists() {
        "is not a file"
    } else {
        "does not exist"
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
