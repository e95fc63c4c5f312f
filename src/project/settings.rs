//! What is checked for one file: the provider targets, their limits, and
//! each rule's level, after the configuration file and the command line
//! have had their say (see [`super::config`]). The rules are lint's; a
//! level is kept by a rule's name, so the front end needs no registry to
//! hold one.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::DEFAULT_MAX_FILE_SIZE;
use crate::diagnostic::{Rule, Severity};
use crate::providers::openai;

/// The providers live with what they accept; settings name them here too.
pub use crate::providers::Target;

/// Provider limits that change over time; `[limits]` in `toolc.toml`. The
/// defaults are the providers' documented figures (`crate::providers`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct Limits {
    pub openai_name_length: usize,
    pub anthropic_name_length: usize,
    pub mcp_name_length: usize,
    pub gemini_name_length: usize,
    pub openai_description_length: usize,
    pub openai_max_tools: usize,
    pub gemini_max_tools: usize,
    /// OpenAI strict mode: nesting depth of object schemas.
    pub strict_max_depth: usize,
    /// OpenAI strict mode: object properties in one schema, in total.
    pub strict_max_properties: usize,
    /// OpenAI strict mode: enum values in one schema, in total.
    pub strict_max_enum_values: usize,
    /// OpenAI strict mode: characters of all property names, definition
    /// names, enum and const values in one schema.
    pub strict_max_string_length: usize,
}

impl Default for Limits {
    fn default() -> Self {
        // Every provider named here sets the limit: `usize::MAX` is never used.
        let set = |limit: Option<usize>| limit.unwrap_or(usize::MAX);
        Limits {
            openai_name_length: Target::Openai.tool_name_max_length(),
            anthropic_name_length: Target::Anthropic.tool_name_max_length(),
            mcp_name_length: Target::Mcp.tool_name_max_length(),
            gemini_name_length: Target::Gemini.tool_name_max_length(),
            openai_description_length: set(Target::Openai.description_max_length()),
            openai_max_tools: set(Target::Openai.max_tools()),
            gemini_max_tools: set(Target::Gemini.max_tools()),
            strict_max_depth: openai::STRICT_MAX_DEPTH,
            strict_max_properties: openai::STRICT_MAX_PROPERTIES,
            strict_max_enum_values: openai::STRICT_MAX_ENUM_VALUES,
            strict_max_string_length: openai::STRICT_MAX_STRING_LENGTH,
        }
    }
}

impl Limits {
    pub fn name_length(&self, target: Target) -> usize {
        match target {
            Target::Openai | Target::OpenaiStrict => self.openai_name_length,
            Target::Anthropic => self.anthropic_name_length,
            Target::Mcp => self.mcp_name_length,
            Target::Gemini => self.gemini_name_length,
        }
    }
}

/// A rule's level: a severity, or off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Off,
    On(Severity),
}

impl Level {
    pub fn from_name(name: &str) -> Option<Level> {
        match name {
            "off" => Some(Level::Off),
            "info" => Some(Level::On(Severity::Info)),
            "warning" => Some(Level::On(Severity::Warning)),
            "error" => Some(Level::On(Severity::Error)),
            _ => None,
        }
    }
}

/// Everything that decides what is reported for one file.
#[derive(Debug, Clone)]
pub struct Settings {
    pub targets: BTreeSet<Target>,
    pub limits: Limits,
    pub max_file_size: u64,
    /// Levels that differ from the rules' defaults.
    pub levels: BTreeMap<&'static str, Level>,
    /// The pinned tool definitions `--locked` checks against (rule
    /// `tool-drift`); `None` without `--locked`.
    pub lock: Option<std::sync::Arc<crate::lock::Locked>>,
    /// Rules turned off for some tools or JSON Pointers of the file only
    /// (`[[overrides]]` with `tools` or `pointers`): lint drops their
    /// findings there.
    pub scoped_ignores: Vec<ScopedIgnore>,
}

/// Rules whose findings on some tools, or at or under some JSON Pointers,
/// are not reported (an `[[overrides]]` entry of `toolc.toml` that names
/// `tools` or `pointers`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopedIgnore {
    /// The tools, by name: findings inside their objects.
    pub tools: Vec<String>,
    /// Findings at these pointers or under them.
    pub pointers: Vec<String>,
    /// The rules, by name.
    pub rules: Vec<&'static str>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            targets: BTreeSet::new(),
            limits: Limits::default(),
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            levels: BTreeMap::new(),
            lock: None,
            scoped_ignores: Vec::new(),
        }
    }
}

impl Settings {
    pub fn level(&self, rule: &Rule) -> Level {
        self.levels
            .get(rule.name)
            .copied()
            .unwrap_or(Level::On(rule.severity))
    }

    /// Whether a rule's checks run: it is not off, and it belongs to no
    /// provider or to one of the targets.
    pub fn runs(&self, rule: &Rule) -> bool {
        self.level(rule) != Level::Off
            && (rule.targets.is_empty() || self.targets_of(rule).next().is_some())
    }

    /// The enabled targets a provider rule checks for, each named once, for
    /// messages. A rule about what OpenAI rejects counts `openai-strict` as
    /// OpenAI; a rule that names strict mode itself keeps it apart.
    pub fn providers(&self, rule: &Rule) -> Vec<Target> {
        let mut providers: Vec<Target> = self
            .targets_of(rule)
            .map(|t| {
                if t == Target::OpenaiStrict && !rule.targets.contains(&Target::OpenaiStrict) {
                    Target::Openai
                } else {
                    t
                }
            })
            .collect();
        providers.sort();
        providers.dedup();
        providers
    }

    /// The enabled targets a provider rule checks for.
    pub fn targets_of<'a>(&'a self, rule: &'a Rule) -> impl Iterator<Item = Target> + 'a {
        self.targets
            .iter()
            .copied()
            .filter(|t| rule.targets.iter().any(|r| t.includes(*r)))
    }
}
