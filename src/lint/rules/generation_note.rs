//! ## What it does
//! Reported by `toolc gen` (and by `toolc convert` for the code skeletons
//! and defaults it writes), not by `lint`: something the generator had to
//! change so that the target accepts the tool, or could not carry into
//! it, at its place in the source manifest. An `info` is a change that
//! keeps the tool's meaning (OpenAI `--strict` makes an optional property
//! required and nullable; a Rust type becomes `serde_json::Value`); a
//! `warning` is a loss (a keyword the provider rejects is dropped, a root
//! `anyOf` is flattened and no longer enforced).
//!
//! ## Why is this bad?
//! The generated tool is not exactly the one in the manifest. A change
//! that nobody sees lets a model send what the manifest forbids, or makes
//! the provider refuse a request that the manifest allows; knowing each
//! one lets the team accept it or change the manifest.
//!
//! ## Example
//! `toolc gen openai --strict tools/` with a NORA tool whose property
//! `max_bytes` has `"required": false` reports
//! `property "max_bytes" was optional: it is now required and may be null`:
//! strict mode requires every property.
//!
//! ## Use instead
//! Write the manifest in what the target accepts (here, make the property
//! required, or generate without `--strict`), or accept the change.
//! `--format json` (or `sarif`, `github`, `junit`) gives every note with
//! its line and column, like `toolc lint`.

use crate::diagnostic::Severity;
use crate::lint::Rule;

pub(crate) const RULE: Rule = Rule {
    name: "generation-note",
    code: "TC904",
    severity: Severity::Info,
    summary: "a change gen made to fit the target, or something it could not carry",
    fixable: false,
    targets: &[],
};
