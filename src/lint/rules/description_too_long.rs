//! ## What it does
//! Reports a tool description longer than OpenAI accepts: 1024 characters
//! (`openai-description-length` under `[limits]` in `toolc.toml`). Runs only
//! with `--target openai` or `openai-strict`.
//!
//! ## Why is this bad?
//! OpenAI rejects the whole request, so every call that offers the tool
//! fails with `Invalid 'tools[0].function.description': string too long.
//! Expected a string with maximum length 1024, but got a string with length
//! 2357 instead.` (code `string_above_max_length`). Anthropic and MCP take
//! much longer descriptions, so a tool written for them often breaks only
//! when it is offered to an OpenAI model.
//!
//! ## Example
//! ```json
//! {"tools": [{"name": "query_logs", "command": ["./tools/bin/query_logs"],
//!   "description": "Query the log store. ... (two pages of query syntax, examples and caveats)"}]}
//! ```
//!
//! ## Use instead
//! ```json
//! {"tools": [{"name": "query_logs", "command": ["./tools/bin/query_logs"],
//!   "description": "Query the log store with a filter expression; see the `filter` parameter for the syntax.",
//!   "schema": {"type": "object", "properties": {"filter": {"type": "string",
//!     "description": "level:error AND service:api; fields: level, service, host, msg"}}}}]}
//! ```

use serde_json::Value;

use crate::diagnostic::Severity;
use crate::ir::{Format, Tool};
use crate::lint::findings::Findings;
use crate::lint::{Manifest, Rule, Target};

pub(crate) const RULE: Rule = Rule {
    name: "description-too-long",
    code: "TC704",
    severity: Severity::Error,
    summary: "a tool description longer than OpenAI accepts (1024 characters)",
    fixable: false,
    targets: &[Target::Openai],
};

pub(crate) fn check(manifest: &Manifest, out: &mut Findings) {
    let limit = manifest.settings.limits.openai_description_length;
    for tool in &manifest.toolset.tools {
        let Some(at) = description_at(manifest, tool) else {
            continue;
        };
        let Some(Value::String(description)) = manifest.raw(&at) else {
            continue;
        };
        let length = description.chars().count();
        if length <= limit {
            continue;
        }
        out.push(
            manifest
                .at_value(
                    &RULE,
                    at,
                    format!("description is {length} characters; OpenAI allows at most {limit}"),
                )
                .with_help(
                    "keep what the tool does and when to use it; move details into the parameters' descriptions",
                ),
        );
    }
}

/// Where a tool's description is: beside its name, except in Nachos
/// (the package's `description`) and AgentStack (in the Python docstring).
fn description_at(manifest: &Manifest, tool: &Tool) -> Option<String> {
    match manifest.format() {
        Format::Agentstack => None,
        Format::Nachos => Some("/description".to_string()),
        Format::Nora
        | Format::Agentcli
        | Format::Openai
        | Format::OpenaiResponses
        | Format::Anthropic
        | Format::Mcp
        | Format::Gemini => tool
            .name_at
            .rsplit_once('/')
            .map(|(parent, _)| format!("{parent}/description")),
    }
}
