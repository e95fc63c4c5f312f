//! ## What it does
//! Reports a document whose arrays and objects nest deeper than 256 levels.
//! The caret points at the bracket that crosses the limit.
//!
//! ## Why is this bad?
//! No tool manifest or parameter schema needs that depth; such input is
//! malformed or hostile, and many JSON consumers (including providers' schema
//! validators) reject it or crash on it.
//!
//! ## Example
//! ```json
//! [[[[[[[[ ... 300 levels ... ]]]]]]]]
//! ```
//!
//! ## Use instead
//! Flatten the data; reuse schemas with `$ref` instead of repeating them
//! inline.

use crate::diagnostic::Severity;
use crate::lint::Rule;

pub(crate) const RULE: Rule = Rule {
    name: "nesting-too-deep",
    code: "TC004",
    severity: Severity::Error,
    summary: "arrays and objects nest deeper than 256 levels",
    fixable: false,
    targets: &[],
};
