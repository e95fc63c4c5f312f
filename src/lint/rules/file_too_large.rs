//! ## What it does
//! Reports a manifest larger than the size limit (16 MiB unless
//! `--max-file-size` says otherwise). The file is not read.
//!
//! ## Why is this bad?
//! Tool manifests are small: a file this large is almost certainly not one
//! (a data dump, a generated artifact), and reading it would make a lint run
//! slow and memory-hungry.
//!
//! ## Example
//! A 40 MiB `tools.json` produced by a build step.
//!
//! ## Use instead
//! Keep generated files out of the linted tree (`.gitignore` them), or raise
//! the limit: `toolc lint --max-file-size 64MiB`.

use crate::diagnostic::Severity;
use crate::lint::Rule;

pub(crate) const RULE: Rule = Rule {
    name: "file-too-large",
    code: "TC003",
    severity: Severity::Error,
    summary: "the file is over the size limit and was not read",
    fixable: false,
    targets: &[],
};
