//! ## What it does
//! Reports a tool name that Gemini rejects for its first character: Gemini
//! requires a letter or `_` there, so a name starting with a digit, `.`,
//! `:` or `-` fails even though Gemini accepts those characters elsewhere
//! in the name. (A first character Gemini accepts nowhere is reported by
//! `name-charset` instead.) Runs only with `--target gemini`.
//!
//! ## Why is this bad?
//! Gemini rejects the whole request, so every call that offers the tool
//! fails with `Invalid function name. Must start with a letter or an
//! underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots
//! (.), colons (:), or dashes (-), with a maximum length of 64.` The usual
//! cause is a generated name: a numbered variant (`3d_render`), or a client
//! that prefixes tool names with a server name that starts with a digit.
//! OpenAI and Anthropic accept such names, so the tool works there and
//! breaks on Gemini only.
//!
//! ## Example
//! ```json
//! [{"type": "function", "function": {"name": "2fa_generate_code",
//!   "parameters": {"type": "object", "properties": {}}}}]
//! ```
//!
//! ## Use instead
//! ```json
//! [{"type": "function", "function": {"name": "generate_2fa_code",
//!   "parameters": {"type": "object", "properties": {}}}}]
//! ```

use crate::diagnostic::Severity;
use crate::lint::findings::Findings;
use crate::lint::shown;
use crate::lint::{Manifest, Rule, Target};

pub(crate) const RULE: Rule = Rule {
    name: "name-start",
    code: "TC703",
    severity: Severity::Error,
    summary: "a tool name that does not start with a letter or `_` (Gemini)",
    fixable: false,
    targets: &[Target::Gemini],
};

pub(crate) fn check(manifest: &Manifest, out: &mut Findings) {
    for tool in &manifest.toolset.tools {
        let Some(first) = tool.name.chars().next() else {
            continue;
        };
        // Only characters Gemini accepts after the start; others are a
        // `name-charset` finding at the same place.
        let gemini = Target::Gemini;
        if gemini.accepts_tool_name_start(first) || !gemini.accepts_in_tool_name(first) {
            continue;
        }
        out.push(
            manifest
                .at_tool_name(
                    &RULE,
                    tool,
                    format!(
                        "tool name {} starts with {first:?}; Gemini requires a letter or '_' first",
                        shown(&tool.name)
                    ),
                )
                .with_help("start the name with a letter, or prefix it with '_'"),
        );
    }
}
