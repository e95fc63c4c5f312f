//! What lint makes of a file's settings: the provider a manifest's own
//! shape asks for, and the sentences that name providers and their limits.
//! The settings themselves are the front end's ([`crate::project::settings`]).

use std::collections::BTreeMap;

use crate::diagnostic::Diagnostic;
use crate::ir::{Format, Tool};

pub use crate::project::settings::{Level, Limits, ScopedIgnore, Settings, Target};

/// The settings of a manifest that is a request to one provider by its
/// shape: a Responses API tool list is checked for OpenAI, and for strict
/// mode when a tool is strict (the API's default,
/// [`crate::providers::openai::RESPONSES_STRICT_BY_DEFAULT`]), whatever the
/// targets. `None` for every other manifest.
pub(crate) fn own_provider_settings(
    format: Format,
    tools: &[Tool],
    settings: &Settings,
) -> Option<Settings> {
    if format != Format::OpenaiResponses {
        return None;
    }
    let mut own = settings.clone();
    own.targets.insert(Target::Openai);
    if tools.iter().any(responses_tool_is_strict) {
        own.targets.insert(Target::OpenaiStrict);
    }
    Some(own)
}

/// Whether a Responses tool is strict (lowering records the default).
fn responses_tool_is_strict(tool: &Tool) -> bool {
    tool.extra
        .extensions
        .get("strict")
        .and_then(serde_json::Value::as_bool)
        == Some(true)
}

/// Drops the strict-mode findings about a Responses tool that says
/// `"strict": false`: strict mode's rules are for the strict ones.
pub(crate) fn drop_strict_findings_of_lax_tools(tools: &[Tool], diagnostics: &mut Vec<Diagnostic>) {
    let lax: Vec<String> = tools
        .iter()
        .filter(|tool| !responses_tool_is_strict(tool))
        .map(|tool| format!("{}/", tool.origin))
        .collect();
    if lax.is_empty() {
        return;
    }
    diagnostics.retain(|d| {
        d.rule.targets != [Target::OpenaiStrict]
            || !lax
                .iter()
                .any(|origin| d.pointer.starts_with(origin.as_str()))
    });
}

/// "OpenAI", "OpenAI and Anthropic", "OpenAI, Anthropic and Gemini".
pub fn provider_list(providers: &[Target]) -> String {
    let names: Vec<&str> = providers.iter().map(|t| t.display()).collect();
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => (*last).to_string(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// The verb form that agrees with a list of providers.
pub fn agree<'a>(providers: &[Target], one: &'a str, many: &'a str) -> &'a str {
    if providers.len() == 1 { one } else { many }
}

/// The providers whose limit `figure` exceeds, grouped by that limit,
/// smallest first.
pub fn exceeded(
    figure: usize,
    providers: &[Target],
    limit: impl Fn(Target) -> usize,
) -> BTreeMap<usize, Vec<Target>> {
    let mut over: BTreeMap<usize, Vec<Target>> = BTreeMap::new();
    for &provider in providers {
        let limit = limit(provider);
        if figure > limit {
            over.entry(limit).or_default().push(provider);
        }
    }
    over
}

/// "OpenAI and Anthropic allow at most 64, MCP allows at most 128", with
/// the verb in its two forms (`allows`/`allow`).
pub fn limits_sentence(over: &BTreeMap<usize, Vec<Target>>, one: &str, many: &str) -> String {
    over.iter()
        .map(|(limit, rejecting)| {
            format!(
                "{} {} at most {limit}",
                provider_list(rejecting),
                agree(rejecting, one, many)
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}
