//! ## What it does
//! Reports a tool name that does not match `^[a-zA-Z0-9_-]{1,64}$`: more
//! than 64 characters, or a character other than ASCII letters, digits, `_`
//! and `-` (a space, a dot, a slash, a non-ASCII letter).
//!
//! It runs whatever the targets. Where a provider rule (`name-too-long`,
//! `name-charset`) reports the same name, that more precise finding
//! replaces this one; to judge names only by the targets' limits (MCP, for
//! one, allows 128 characters and dots), turn this rule off.
//!
//! ## Why is this bad?
//! OpenAI and Anthropic both require tool names to match that pattern and
//! reject the whole request otherwise (OpenAI: "Invalid
//! 'tools[0].function.name': string does not match pattern"), so one bad
//! name breaks every call that offers the tool.
//!
//! ## Example
//! ```json
//! {"name": "fetch url", "description": "Fetch a URL", "entrypoint": "main.py", "parameters": {"type": "object", "properties": {}}}
//! ```
//!
//! ## Use instead
//! ```json
//! {"name": "fetch_url", "description": "Fetch a URL", "entrypoint": "main.py", "parameters": {"type": "object", "properties": {}}}
//! ```

use crate::diagnostic::Severity;
use crate::lint::findings::Findings;
use crate::lint::{Manifest, Rule, Target};

pub(crate) const RULE: Rule = Rule {
    name: "invalid-tool-name",
    code: "TC103",
    severity: Severity::Error,
    summary: "a tool name OpenAI and Anthropic reject (^[a-zA-Z0-9_-]{1,64}$)",
    fixable: false,
    targets: &[],
};

/// The providers whose shared name pattern this rule checks.
const PROVIDERS: [Target; 2] = [Target::Openai, Target::Anthropic];

fn accepted(c: char) -> bool {
    PROVIDERS.iter().all(|p| p.accepts_in_tool_name(c))
}

pub(crate) fn check(manifest: &Manifest, out: &mut Findings) {
    for tool in &manifest.toolset.tools {
        if tool.name.is_empty() {
            continue;
        }
        let length = tool.name.chars().count();
        let max_len = PROVIDERS
            .iter()
            .map(|p| p.tool_name_max_length())
            .min()
            .unwrap_or_default();
        let bad_char = tool.name.chars().find(|&c| !accepted(c));
        let message = match bad_char {
            Some(c) => format!(
                "tool name \"{}\" contains {}, which OpenAI and Anthropic reject",
                tool.name,
                describe(c)
            ),
            None if length > max_len => format!(
                "tool name \"{}\" is {length} characters long; OpenAI and Anthropic allow at most {max_len}",
                tool.name
            ),
            None => continue,
        };
        out.push(
            manifest
                .at_tool_name(&RULE, tool, message)
                .with_help(format!(
                    "use only ASCII letters, digits, `_` and `-`, at most {max_len} characters"
                )),
        );
    }
}

fn describe(c: char) -> String {
    match c {
        ' ' => "a space".to_string(),
        c if c.is_control() => format!("the control character U+{:04X}", c as u32),
        c => format!("'{c}'"),
    }
}
