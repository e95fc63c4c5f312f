//! ## What it does
//! Reports a tool name longer than a target provider accepts: 64 characters
//! for OpenAI, Anthropic and Gemini, 128 for MCP (each configurable under
//! `[limits]` in `toolc.toml`: `openai-name-length`, `anthropic-name-length`,
//! `gemini-name-length`, `mcp-name-length`). Runs only with `--target`
//! `openai`, `openai-strict`, `anthropic`, `gemini` or `mcp`.
//!
//! ## Why is this bad?
//! The provider rejects the whole request, not just the tool, so one long
//! name breaks every call that offers it. What comes back:
//!
//! - OpenAI: `Invalid 'tools[0].function.name': string too long. Expected a
//!   string with maximum length 64, but got a string with length 72 instead.`
//! - Anthropic: `tools.0.custom.name: String should match pattern
//!   '^[a-zA-Z0-9_-]{1,64}$'`
//! - Gemini: `Invalid function name. Must start with a letter or an
//!   underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots
//!   (.), colons (:), or dashes (-), with a maximum length of 64.`
//! - MCP: the specification (2025-11-25) says tool names SHOULD be 1 to 128
//!   characters; clients that forward MCP tools to a model also add a prefix
//!   (Claude Code's `mcp__SERVER__`), so long names reach the 64-character
//!   limits above sooner than they seem to.
//!
//! Generated names are the usual cause: a server prefix, a module path and a
//! verbose function name add up quickly.
//!
//! ## Example
//! ```json
//! [{"type": "function", "function": {
//!   "name": "mcp__github__create_or_update_file_contents_in_repository_default_branch",
//!   "parameters": {"type": "object", "properties": {}}}}]
//! ```
//!
//! ## Use instead
//! ```json
//! [{"type": "function", "function": {
//!   "name": "github_put_file",
//!   "parameters": {"type": "object", "properties": {}}}}]
//! ```

use crate::diagnostic::Severity;
use crate::lint::findings::Findings;
use crate::lint::settings::{exceeded, limits_sentence};
use crate::lint::{Manifest, Rule, Target, shown};

pub(crate) const RULE: Rule = Rule {
    name: "name-too-long",
    code: "TC701",
    severity: Severity::Error,
    summary: "a tool name longer than a target provider accepts (64; MCP 128)",
    fixable: false,
    targets: &[
        Target::Openai,
        Target::Anthropic,
        Target::Mcp,
        Target::Gemini,
    ],
};

pub(crate) fn check(manifest: &Manifest, out: &mut Findings) {
    let providers = manifest.settings.providers(&RULE);
    for tool in &manifest.toolset.tools {
        if tool.name.is_empty() {
            continue;
        }
        let length = tool.name.chars().count();
        let over = exceeded(length, &providers, |p| {
            manifest.settings.limits.name_length(p)
        });
        let Some(&shortest) = over.keys().next() else {
            continue;
        };
        out.push(
            manifest
                .at_tool_name(
                    &RULE,
                    tool,
                    format!(
                        "tool name {} is {length} characters; {}",
                        shown(&tool.name),
                        limits_sentence(&over, "allows", "allow")
                    ),
                )
                .with_help(format!("shorten the name to at most {shortest} characters")),
        );
    }
}
