//! ## What it does
//! Reports a file or directory that could not be read: permission denied, a
//! dangling symbolic link, something that is not a regular file (a FIFO, a
//! device), or a symbolic link loop met while walking a directory.
//!
//! ## Why is this bad?
//! toolc could not check what is there, so a clean result would be a false
//! assurance.
//!
//! ## Example
//! `tools/fetch/tool.json -> ../missing/tool.json` (a dangling link), or
//! `tools/loop -> ..` (a loop).
//!
//! ## Use instead
//! Fix or remove the link, make the file readable, or exclude the path in
//! `.gitignore`.

use crate::diagnostic::Severity;
use crate::lint::Rule;

pub(crate) const RULE: Rule = Rule {
    name: "io-error",
    code: "TC005",
    severity: Severity::Error,
    summary: "a file or directory could not be read",
    fixable: false,
    targets: &[],
};
