//! ## What it does
//! Reports a manifest file that declares more tools than a target provider
//! accepts in one request: 128 for OpenAI, 512 for Gemini
//! (`openai-max-tools`, `gemini-max-tools` under `[limits]` in
//! `toolc.toml`). The finding points at the first tool beyond the limit.
//! Runs only with `--target openai`, `openai-strict` or `gemini`.
//!
//! ## Why is this bad?
//! A client that offers all of the file's tools at once gets the whole
//! request rejected:
//!
//! - OpenAI: `Invalid 'tools': array too long. Expected an array with
//!   maximum length 128, but got an array with length 129 instead.` (code
//!   `array_above_max_length`)
//! - Gemini: `tools[0].function_declarations: [FIELD_INVALID] At most 512
//!   function declarations can be specified.`
//!
//! Long before those limits, models also pick the wrong tool more often.
//!
//! ## Example
//! An OpenAI tools file generated from a cloud API, one tool per operation:
//! ```text
//! {"tools": [
//!   {"type": "function", "function": {"name": "list_instances", ...}},
//!   ... 128 more function tools ...
//! ]}
//! ```
//!
//! ## Use instead
//! Split the tools into files by task, each within the limit, and offer
//! only the set a conversation needs:
//! ```text
//! compute-tools.json   {"tools": [... 45 function tools ...]}
//! storage-tools.json   {"tools": [... 30 function tools ...]}
//! ```

use crate::diagnostic::Severity;
use crate::lint::findings::Findings;
use crate::lint::settings::{exceeded, limits_sentence};
use crate::lint::{Manifest, Rule, Target};

pub(crate) const RULE: Rule = Rule {
    name: "too-many-tools",
    code: "TC705",
    severity: Severity::Error,
    summary: "more tools in one file than a target provider accepts in a request",
    fixable: false,
    targets: &[Target::Openai, Target::Gemini],
};

pub(crate) fn check(manifest: &Manifest, out: &mut Findings) {
    let count = manifest.toolset.tools.len();
    let limits = &manifest.settings.limits;
    let over = exceeded(
        count,
        &manifest.settings.providers(&RULE),
        |provider| match provider {
            Target::Gemini => limits.gemini_max_tools,
            _ => limits.openai_max_tools,
        },
    );
    let Some(&smallest) = over.keys().next() else {
        return;
    };
    let Some(first_beyond) = manifest.toolset.tools.get(smallest) else {
        return;
    };
    out.push(
        manifest
            .at_value(
                &RULE,
                first_beyond.origin.clone(),
                format!(
                    "the file declares {count} tools; {} in one request (this is tool {})",
                    limits_sentence(&over, "accepts", "accept"),
                    smallest + 1
                ),
            )
            .with_help("split the tools into several files and offer only the set a task needs"),
    );
}
