//! ## What it does
//! Reports an entry of a tool's `"x-toolc": {"ignore": [...]}` list (the
//! JSON counterpart of ruff's `# noqa`) that suppressed nothing in this run:
//! no finding of the rules it names is inside that tool's object. An entry
//! that names no rule (a misspelled name or code) is reported too. `--fix`
//! removes the entry, and the `"ignore"` list and the `"x-toolc"` object
//! when that leaves them empty (the MCP `_meta` too).
//!
//! As with ruff's `RUF100`, an entry is only unused when one of the rules
//! it names ran: a rule turned off (`[rules]`, `--ignore`, `--select`) or
//! one for a provider that is not among the targets (`strict-*` without
//! `openai-strict`) checked nothing, so its entry is kept. Ignores apply to
//! the findings of each file's own checks; the findings that compare files
//! (a tool name repeated in a sibling directory, a stale generated list,
//! another manifest's tools shadowed) are configured in `toolc.toml`.
//!
//! ## Why is this bad?
//! An ignore outlives the finding it was written for: once the tool is
//! fixed, the entry stays and would hide the next, unrelated finding of
//! that rule on the tool. A misspelled entry never hid anything.
//!
//! ## Example
//! ```json
//! {"tools": [{"name": "fetch_url", "command": ["./tools/bin/fetch"],
//!             "x-toolc": {"ignore": ["invalid-tool-name"]}}]}
//! ```
//!
//! ## Use instead
//! ```json
//! {"tools": [{"name": "fetch_url", "command": ["./tools/bin/fetch"]}]}
//! ```

use crate::diagnostic::Severity;
use crate::lint::Rule;

pub(crate) const RULE: Rule = Rule {
    name: "unused-ignore",
    code: "TC905",
    severity: Severity::Warning,
    summary: "an \"x-toolc\" ignore entry that suppresses nothing",
    fixable: true,
    targets: &[],
};
