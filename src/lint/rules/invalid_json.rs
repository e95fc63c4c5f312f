//! ## What it does
//! Reports a manifest that is not valid JSON: a syntax error, an empty file,
//! a number out of range, or bytes that are not UTF-8. The caret points at
//! the first character the parser could not accept. A UTF-8 byte order mark
//! at the start is accepted.
//!
//! ## Why is this bad?
//! Nothing can read the file: the agent framework that loads it fails at
//! start-up, and no other check can run on it.
//!
//! ## Example
//! ```json
//! {"tools": [{"name": "fetch",}]}
//! ```
//!
//! ## Use instead
//! ```json
//! {"tools": [{"name": "fetch"}]}
//! ```

use crate::diagnostic::Severity;
use crate::lint::Rule;

pub(crate) const RULE: Rule = Rule {
    name: "invalid-json",
    code: "TC001",
    severity: Severity::Error,
    summary: "the file is not valid UTF-8 JSON",
    fixable: false,
    targets: &[],
};
