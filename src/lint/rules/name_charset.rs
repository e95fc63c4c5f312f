//! ## What it does
//! Reports a tool name with a character a target provider does not accept,
//! naming the first such character and the providers that reject it. OpenAI
//! and Anthropic accept ASCII letters, digits, `_` and `-`; MCP also `.`;
//! Gemini also `.` and `:`. Runs only with `--target` `openai`,
//! `openai-strict`, `anthropic`, `gemini` or `mcp`.
//!
//! ## Why is this bad?
//! The provider rejects the whole request, not just the tool. MCP servers
//! often use dotted or namespaced names (`github.create_issue`) that are
//! fine over MCP and fail as soon as a client forwards them to a model.
//! What comes back:
//!
//! - OpenAI: `Invalid 'tools[0].function.name': string does not match
//!   pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`
//! - Anthropic: `tools.0.custom.name: String should match pattern
//!   '^[a-zA-Z0-9_-]{1,64}$'`
//! - Gemini: `Invalid function name. Must start with a letter or an
//!   underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots
//!   (.), colons (:), or dashes (-), with a maximum length of 64.`
//! - MCP: the specification (2025-11-25) says tool names SHOULD use only
//!   ASCII letters, digits, `_`, `-` and `.`, and SHOULD NOT contain spaces,
//!   commas or other special characters.
//!
//! ## Example
//! ```json
//! {"tools": [{"name": "github.create_issue", "inputSchema": {"type": "object", "properties": {}}}]}
//! ```
//!
//! ## Use instead
//! ```json
//! {"tools": [{"name": "github_create_issue", "inputSchema": {"type": "object", "properties": {}}}]}
//! ```

use crate::diagnostic::Severity;
use crate::lint::findings::Findings;
use crate::lint::settings::{agree, provider_list};
use crate::lint::shown;
use crate::lint::{Manifest, Rule, Target};

pub(crate) const RULE: Rule = Rule {
    name: "name-charset",
    code: "TC702",
    severity: Severity::Error,
    summary: "a tool name with a character a target provider rejects",
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
    let accepted_by_all = |c: char| providers.iter().all(|&p| p.accepts_in_tool_name(c));
    for tool in &manifest.toolset.tools {
        let Some(bad) = tool.name.chars().find(|&c| !accepted_by_all(c)) else {
            continue;
        };
        let rejecting: Vec<Target> = providers
            .iter()
            .copied()
            .filter(|&p| !p.accepts_in_tool_name(bad))
            .collect();
        let suggestion: String = tool
            .name
            .chars()
            .map(|c| if accepted_by_all(c) { c } else { '_' })
            .collect();
        out.push(
            manifest
                .at_tool_name(
                    &RULE,
                    tool,
                    format!(
                        "tool name {} contains {}, which {} {}",
                        shown(&tool.name),
                        describe(bad),
                        provider_list(&rejecting),
                        agree(&rejecting, "rejects", "reject")
                    ),
                )
                .with_help(format!("rename the tool, e.g. {}", shown(&suggestion))),
        );
    }
}

fn describe(c: char) -> String {
    match c {
        ' ' => "a space".to_string(),
        c if c.is_control() || c.is_whitespace() => format!("the character U+{:04X}", c as u32),
        c => format!("{c:?}"),
    }
}
