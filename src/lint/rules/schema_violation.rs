//! ## What it does
//! Checks each manifest against its format's JSON Schema (shipped in
//! toolc's `schemas/` folder) and reports every value of the wrong type,
//! every missing required field and every value out of range, at the exact
//! value. Where a more specific rule reports the same defect (for example
//! `missing-name`, `invalid-security-tier`), only the specific rule speaks.
//!
//! ## Why is this bad?
//! The framework that loads the manifest expects this structure; a value of
//! the wrong shape is either rejected at load time or, worse, misread.
//!
//! ## Example
//! ```json
//! {"tools": [{"name": "fetch", "command": ["./tools/bin/fetch"], "timeoutSec": "5"}]}
//! ```
//!
//! ## Use instead
//! ```json
//! {"tools": [{"name": "fetch", "command": ["./tools/bin/fetch"], "timeoutSec": 5}]}
//! ```

use crate::diagnostic::Severity;
use crate::lint::Rule;

pub(crate) const RULE: Rule = Rule {
    name: "schema-violation",
    code: "TC901",
    severity: Severity::Error,
    summary: "a value does not match the format's structure",
    fixable: false,
    targets: &[],
};
