//! ## What it does
//! Reports a key that appears twice in one JSON object.
//!
//! ## Why is this bad?
//! JSON parsers disagree on duplicates, and most (serde_json, Python's
//! `json`, JavaScript's `JSON.parse`) keep the last value without a word: the
//! first declaration is silently ignored, which is rarely what the author
//! meant.
//!
//! ## Example
//! ```json
//! {"name": "fetch", "description": "Fetch a URL", "name": "http_fetch"}
//! ```
//!
//! ## Use instead
//! ```json
//! {"name": "http_fetch", "description": "Fetch a URL"}
//! ```

use crate::diagnostic::{Related, Severity};
use crate::lint::findings::Findings;
use crate::lint::{Manifest, Rule};

pub(crate) const RULE: Rule = Rule {
    name: "duplicate-key",
    code: "TC002",
    severity: Severity::Error,
    summary: "a key appears twice in one object",
    fixable: false,
    targets: &[],
};

pub(crate) fn check(manifest: &Manifest, out: &mut Findings) {
    for duplicate in &manifest.document.duplicate_keys {
        let first_line = manifest.line_of(duplicate.first);
        out.push(
            RULE.diagnostic(
                manifest.path(),
                duplicate.pointer.clone(),
                Some(duplicate.span),
                format!(
                    "key \"{}\" is already defined at line {first_line}; this later value wins",
                    duplicate.key
                ),
            )
            .with_help("remove one of the two, or rename it")
            .with_related(Related {
                path: manifest.path().to_string(),
                span: duplicate.first,
                message: "first defined here".to_string(),
            }),
        );
    }
    // Past those the document recorded, it counted (see
    // `json::KEPT_DUPLICATE_KEYS`).
    out.skip(&RULE, manifest.document.more_duplicate_keys);
}
