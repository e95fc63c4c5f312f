//! ## What it does
//! Reports a provider tool list (OpenAI, Anthropic or MCP JSON), or a
//! manifest `toolc gen python` wrote, that repeats the tools of a manifest
//! in the same run, as `toolc gen` writes one, but no longer matches them:
//! a tool's description, or its parameters' names, types or
//! descriptions, differ from the manifest's.
//!
//! Such a list is a view of the manifest's tools, not a second
//! declaration: it never counts as a clash, and `gen` and `convert` leave
//! it out of their input.
//!
//! ## Why is this bad?
//! The file sent to the model describes tools that are no longer the ones
//! that run: a renamed parameter is never filled in, a changed meaning is
//! never told.
//!
//! ## Example
//! `tools.json` gives `fetch_url` a parameter `url`; the committed
//! `openai.json`, generated before it was renamed, still says `address`.
//!
//! ## Use instead
//! Generate it again with the command the help names (`toolc gen openai
//! tools.json -o openai.json --force`; for a manifest `toolc gen python`
//! wrote, the `gen python` command that writes its directory again, which
//! keeps the tool bodies), and check it in CI with `--check`.

use std::collections::{BTreeSet, HashMap};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;

use serde_json::Value;

use crate::diagnostic::{Diagnostic, Related, Severity};
use crate::ir::{Format, Tool};
use crate::lint::{Manifest, Rule};
use crate::source::Span;

pub(crate) const RULE: Rule = Rule {
    name: "stale-tool-list",
    code: "TC104",
    severity: Severity::Warning,
    summary: "a provider tool list that repeats a manifest's tools but no longer matches them",
    fixable: false,
    targets: &[],
};

/// What the check across files needs of one tool, once its document is
/// gone: digests, not the texts.
#[derive(Debug, Clone)]
pub(crate) struct ToolFacts {
    format: Format,
    /// `toolc gen` marked its manifest as written from others.
    generated: bool,
    name: String,
    description: u64,
    parameters: u64,
    path: Arc<str>,
    pointer: String,
    span: Span,
    line: usize,
}

impl ToolFacts {
    /// The tool's name, its manifest's path and where its name is.
    pub(crate) fn declared(&self) -> (&str, &str, Span) {
        (&self.name, &self.path, self.span)
    }

    /// Its manifest declares tools of its own (see
    /// [`crate::project::is_source`]).
    fn is_source(&self) -> bool {
        crate::project::is_source(self.format, self.generated)
    }
}

fn digest(value: impl Hash) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

/// The top-level parameters as every generated list keeps them, sorted
/// by name: each one's name (the one it was declared with, where a writer
/// renamed it and recorded that), type and description. What a provider's
/// generation changes is left out: strict mode makes every property
/// required and its type nullable (`["string", "null"]`), so `required`
/// and a `"null"` in a type are not compared.
fn parameter_shape(tool: &Tool) -> Vec<(&str, Vec<&str>, &str)> {
    let Some(properties) = tool
        .parameters
        .as_ref()
        .and_then(|p| p.get("properties"))
        .and_then(Value::as_object)
    else {
        return Vec::new();
    };
    let mut shape: Vec<(&str, Vec<&str>, &str)> = properties
        .iter()
        .map(|(name, property)| {
            let mut types = types_of(property);
            types.retain(|t| *t != "null");
            types.sort_unstable();
            types.dedup();
            let description = property
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .trim();
            (tool.original_name(name), types, description)
        })
        .collect();
    shape.sort_unstable();
    shape
}

/// A property's JSON types: its `type`, else those of its `anyOf` or
/// `oneOf` branches (an AgentStack function's optional `T | None` reads
/// back as `anyOf: [T, null]`).
fn types_of(property: &Value) -> Vec<&str> {
    match property.get("type") {
        Some(Value::String(one)) => vec![one.as_str()],
        Some(Value::Array(several)) => several.iter().filter_map(Value::as_str).collect(),
        _ => ["anyOf", "oneOf"]
            .iter()
            .filter_map(|k| property.get(*k).and_then(Value::as_array))
            .flatten()
            .flat_map(types_of)
            .collect(),
    }
}

/// The facts of a manifest's tools.
pub(crate) fn facts(manifest: &Manifest) -> Vec<ToolFacts> {
    let path: Arc<str> = manifest.path().into();
    // Sized once: kept for the whole run, and a vector collected by
    // doubling holds up to twice its facts.
    let mut facts = Vec::with_capacity(manifest.toolset.tools.len());
    facts.extend(manifest.named_tools().map(|(tool, span, line)| ToolFacts {
        format: manifest.format(),
        generated: manifest.generated,
        name: tool.name.clone(),
        description: digest(tool.description.as_deref().unwrap_or_default().trim()),
        parameters: digest(parameter_shape(tool)),
        path: path.clone(),
        pointer: tool.name_at.clone(),
        span,
        line,
    }));
    facts
}

/// Finds the views among the files (see [`crate::project::views`]) and
/// reports each tool of one that differs from its declaration.
pub(crate) fn check_views(all: &[ToolFacts], out: &mut Vec<Diagnostic>) {
    let mut by_file: Vec<crate::project::ViewCandidate> = Vec::new();
    let mut file_of: HashMap<&str, usize> = HashMap::new();
    for tool in all {
        let at = *file_of.entry(&tool.path).or_insert_with(|| {
            by_file.push(crate::project::ViewCandidate {
                path: &tool.path,
                source: tool.is_source(),
                generated: tool.generated,
                names: Vec::new(),
            });
            by_file.len() - 1
        });
        by_file[at].names.push(&tool.name);
    }
    let views = crate::project::views(&by_file);
    let scopes: HashMap<&str, &str> = by_file
        .iter()
        .zip(&views)
        .filter_map(|(file, scope)| Some((file.path, scope.as_deref()?)))
        .collect();
    if scopes.is_empty() {
        return;
    }
    // The declarations of each name, in path order.
    let mut declared: HashMap<&str, Vec<&ToolFacts>> = HashMap::new();
    for tool in all.iter().filter(|t| t.is_source()) {
        declared.entry(&tool.name).or_default().push(tool);
    }
    for declarations in declared.values_mut() {
        declarations.sort_by(|a, b| a.path.cmp(&b.path));
    }
    // Each view's tools with their declarations, and the manifests each
    // view repeats: the help regenerates it from all of them.
    let mut stale = Vec::new();
    let mut sources_of: HashMap<&str, BTreeSet<&str>> = HashMap::new();
    for tool in all {
        let Some(scope) = scopes.get(tool.path.as_ref()) else {
            continue;
        };
        let source = declared
            .get(tool.name.as_str())
            .and_then(|d| d.iter().find(|s| s.path.starts_with(scope)));
        let Some(source) = source else {
            continue;
        };
        sources_of
            .entry(&tool.path)
            .or_default()
            .insert(&source.path);
        let what = match (
            tool.description != source.description,
            tool.parameters != source.parameters,
        ) {
            (true, true) => "its description and its parameters differ",
            (true, false) => "its description differs",
            (false, true) => "its parameters differ",
            (false, false) => continue,
        };
        stale.push((tool, *source, what));
    }
    for (tool, source, what) in stale {
        let sources = sources_of.get(tool.path.as_ref());
        out.push(
            RULE.diagnostic(
                &tool.path,
                tool.pointer.clone(),
                Some(tool.span),
                format!(
                    "out of date: tool \"{}\" repeats {}:{}, but {what}",
                    tool.name, source.path, source.line
                ),
            )
            .with_help(regenerate_help(
                tool,
                sources.into_iter().flatten().copied(),
            ))
            .with_related(Related {
                path: source.path.to_string(),
                span: source.span,
                message: "declared here".to_string(),
            }),
        );
    }
}

/// The command that writes the view `tool` is in again, from `sources`
/// (the manifests its tools repeat), as it was written: `--force`
/// replaces the out-of-date file (a provider list carries no mark of
/// toolc's), and `gen python` never replaces the bodies the developer
/// filled in.
fn regenerate_help<'a>(tool: &ToolFacts, sources: impl Iterator<Item = &'a str>) -> String {
    let sources: Vec<String> = sources.map(shell_word).collect();
    let sources = sources.join(" ");
    let style = match tool.format {
        Format::Nora => Some("nora"),
        Format::Agentstack => Some("agentstack"),
        _ => None,
    };
    match style {
        // `gen python` writes DIR/<tool>/tool.json, DIR/<package>/config.json.
        Some(style) if tool.generated => {
            let dir = std::path::Path::new(tool.path.as_ref())
                .parent()
                .and_then(std::path::Path::parent)
                .map(|d| d.to_string_lossy().into_owned())
                .filter(|d| !d.is_empty())
                .unwrap_or_else(|| ".".to_string());
            format!(
                "generate it again (the tool bodies you filled in are kept): `toolc gen python --style {style} -o {} {sources} --force`",
                shell_word(&dir)
            )
        }
        _ => format!(
            "generate it again: `toolc gen {} {sources} -o {} --force` (and check it in CI with --check)",
            tool.format,
            shell_word(&tool.path)
        ),
    }
}

/// `word` as one shell word: quoted when it holds anything but letters,
/// digits and `_./-+:@`.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./-+:@".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}
