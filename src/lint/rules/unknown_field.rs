//! ## What it does
//! Reports a key that the manifest's format does not define, with a
//! suggestion when it looks like a misspelling of a known key.
//!
//! ## Why is this bad?
//! Frameworks ignore keys they do not know, so a misspelled `timeoutSecs`
//! silently leaves the tool with the default timeout.
//!
//! ## Example
//! ```json
//! {"tools": [{"name": "fetch", "command": ["./tools/bin/fetch"], "timeoutSecs": 5}]}
//! ```
//!
//! ## Use instead
//! ```json
//! {"tools": [{"name": "fetch", "command": ["./tools/bin/fetch"], "timeoutSec": 5}]}
//! ```

use crate::diagnostic::Severity;
use crate::lint::Rule;

pub(crate) const RULE: Rule = Rule {
    name: "unknown-field",
    code: "TC902",
    severity: Severity::Warning,
    summary: "a key the format does not define",
    fixable: false,
    targets: &[],
};
