//! What each model provider accepts in a tool declaration, written once:
//! the providers themselves ([`Target`]), their tool-name rules, their
//! limits (name and description length, tools per request), and, per
//! provider module, the JSON Schema keywords and formats they accept or
//! reject ([`openai`] for strict mode, [`gemini`]) and, for MCP, the
//! protocol's facts ([`mcp`]: revisions, tool names, annotations, ...).
//!
//! The lint rules that check a manifest for a provider and the emitters that
//! write for it both read these tables, so that toolc never emits what its
//! own rules reject. The figures here are the providers' documented ones;
//! `[limits]` in `toolc.toml` can override some for linting (see
//! `lint::settings::Limits`). This module is a low layer: it knows the
//! providers, JSON and rmcp's names for MCP, nothing of lint, emit or the
//! CLI.

pub(crate) mod anthropic;
pub(crate) mod gemini;
pub(crate) mod mcp;
pub(crate) mod openai;

/// A model provider whose rejections a profile of rules checks for, and
/// that gen writes for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Target {
    Openai,
    /// OpenAI with `"strict": true` (Structured Outputs).
    OpenaiStrict,
    Anthropic,
    Gemini,
    Mcp,
}

/// The providers that refuse `anyOf`, `oneOf` and `allOf` at the
/// root of a parameter schema: OpenAI, strict mode or not (`schema must be
/// a JSON Schema of 'type: "object"'`), and Anthropic (`input_schema does
/// not support oneOf, allOf, or anyOf at the top level`).
pub const ROOT_COMBINATOR_REJECTERS: &[Target] =
    &[Target::Openai, Target::OpenaiStrict, Target::Anthropic];

impl Target {
    pub const ALL: [Target; 5] = [
        Target::Openai,
        Target::OpenaiStrict,
        Target::Anthropic,
        Target::Gemini,
        Target::Mcp,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Target::Openai => "openai",
            Target::OpenaiStrict => "openai-strict",
            Target::Anthropic => "anthropic",
            Target::Gemini => "gemini",
            Target::Mcp => "mcp",
        }
    }

    /// How the provider is named in messages.
    pub fn display(self) -> &'static str {
        match self {
            Target::Openai => "OpenAI",
            Target::OpenaiStrict => "OpenAI strict mode",
            Target::Anthropic => "Anthropic",
            Target::Gemini => "Gemini",
            Target::Mcp => "MCP",
        }
    }

    pub fn from_name(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == name)
    }

    /// `openai-strict` is OpenAI too: everything OpenAI rejects, strict mode
    /// rejects as well.
    pub fn includes(self, other: Target) -> bool {
        self == other || (self == Target::OpenaiStrict && other == Target::Openai)
    }

    /// The longest tool name the provider accepts, in characters: OpenAI
    /// (`string too long. Expected a string with maximum length 64`),
    /// Anthropic (`^[a-zA-Z0-9_-]{1,64}$`) and Gemini (`with a maximum
    /// length of 64`) take 64; MCP [`mcp::TOOL_NAME_MAX_LENGTH`].
    pub fn tool_name_max_length(self) -> usize {
        match self {
            Target::Openai | Target::OpenaiStrict | Target::Anthropic | Target::Gemini => 64,
            Target::Mcp => mcp::TOOL_NAME_MAX_LENGTH,
        }
    }

    /// Whether the provider accepts `c` in a tool name: ASCII letters,
    /// digits, `_` and `-` everywhere (OpenAI's and Anthropic's
    /// `^[a-zA-Z0-9_-]+$`); MCP also `.` ([`mcp::accepts_in_tool_name`]);
    /// Gemini also `.` and `:`.
    pub fn accepts_in_tool_name(self, c: char) -> bool {
        let word = c.is_ascii_alphanumeric() || c == '_' || c == '-';
        match self {
            Target::Mcp => mcp::accepts_in_tool_name(c),
            Target::Gemini => word || c == '.' || c == ':',
            Target::Openai | Target::OpenaiStrict | Target::Anthropic => word,
        }
    }

    /// Whether the provider accepts `c` as the first character of a tool
    /// name. Gemini requires a letter or `_` (`Must start with a letter or
    /// an underscore`); the others take any character they take elsewhere.
    pub fn accepts_tool_name_start(self, c: char) -> bool {
        match self {
            Target::Gemini => c.is_ascii_alphabetic() || c == '_',
            _ => self.accepts_in_tool_name(c),
        }
    }

    /// The longest tool description the provider accepts, in characters,
    /// if it sets one: OpenAI's `maximum length 1024`.
    pub fn description_max_length(self) -> Option<usize> {
        match self {
            Target::Openai | Target::OpenaiStrict => Some(1024),
            Target::Anthropic | Target::Gemini | Target::Mcp => None,
        }
    }

    /// Whether the provider rejects an array schema without `items`:
    /// OpenAI (`array schema missing items`, strict or not) and Gemini
    /// (`items: missing field`).
    pub fn requires_array_items(self) -> bool {
        matches!(self, Target::Openai | Target::OpenaiStrict | Target::Gemini)
    }

    /// Whether the provider refuses a combinator (`anyOf`, `oneOf`, `allOf`) at
    /// the root of a parameter schema: Anthropic (`input_schema does not
    /// support oneOf, allOf, or anyOf at the top level`) and OpenAI strict
    /// mode.
    pub fn rejects_root_combinators(self) -> bool {
        ROOT_COMBINATOR_REJECTERS.contains(&self)
    }

    /// The keywords the provider refuses at the root of a parameter schema
    /// ([`ROOT_REFUSED`]), each with what gen does with it there.
    pub(crate) fn root_refused(self) -> impl Iterator<Item = &'static Keyword> {
        ROOT_REFUSED
            .iter()
            .filter(move |(_, refusers)| refusers.contains(&self))
            .map(|(keyword, _)| keyword)
    }

    /// How many tools one request may offer, if the provider sets a limit:
    /// OpenAI 128 (`array too long`), Gemini 512 (`At most 512 function
    /// declarations can be specified`).
    pub fn max_tools(self) -> Option<usize> {
        match self {
            Target::Openai | Target::OpenaiStrict => Some(128),
            Target::Gemini => Some(512),
            Target::Anthropic | Target::Mcp => None,
        }
    }
}

const OPENAI_ONLY: &[Target] = &[Target::Openai, Target::OpenaiStrict];

/// Every keyword a provider refuses at the root of a parameter schema, and
/// the providers that refuse it there: the combinators (refused by
/// [`ROOT_COMBINATOR_REJECTERS`]), and,
/// for OpenAI, strict mode or not, `enum` and `not` too (the parameters
/// must be one plain object schema: `schema must have type 'object' and not
/// have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level`). gen
/// merges or flattens the combinators and removes the rest.
pub(crate) const ROOT_REFUSED: &[(Keyword, &[Target])] = &[
    (
        Keyword {
            name: "anyOf",
            instead: "declare every property at the root and say in the descriptions which to give",
            when_generating: GenHandling::Rewritten,
        },
        ROOT_COMBINATOR_REJECTERS,
    ),
    (
        Keyword {
            name: "oneOf",
            instead: "declare every property at the root and say in the descriptions which to give",
            when_generating: GenHandling::Rewritten,
        },
        ROOT_COMBINATOR_REJECTERS,
    ),
    (
        Keyword {
            name: "allOf",
            instead: "merge the branches into the root schema",
            when_generating: GenHandling::Rewritten,
        },
        ROOT_COMBINATOR_REJECTERS,
    ),
    (
        Keyword {
            name: "enum",
            instead: "list the allowed values of each property on the property",
            when_generating: GenHandling::RemovedLosing(
                "the arguments are no longer limited to the values it listed",
            ),
        },
        OPENAI_ONLY,
    ),
    (
        Keyword {
            name: "not",
            instead: "state what is allowed instead, on the properties it concerns",
            when_generating: GenHandling::RemovedLosing(
                "the arguments it excluded are accepted again",
            ),
        },
        OPENAI_ONLY,
    ),
];

/// A JSON Schema keyword a provider does not take as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Keyword {
    pub(crate) name: &'static str,
    /// What a manifest's author writes instead (the lint finding's help).
    pub(crate) instead: &'static str,
    /// What `gen` does with it.
    pub(crate) when_generating: GenHandling,
}

/// What `gen` does with a keyword the provider rejects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GenHandling {
    /// A step of its own rewrites it into what the provider takes (`allOf`
    /// merged, `oneOf` to `anyOf`, `const` to `enum`, a `$ref` inlined), or
    /// removes it with a note that depends on its value.
    Rewritten,
    /// Removed; nothing the model could use is lost.
    Removed,
    /// Removed, losing what the text says.
    RemovedLosing(&'static str),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for target in Target::ALL {
            assert_eq!(Target::from_name(target.name()), Some(target));
        }
        assert_eq!(Target::from_name("gemeni"), None);
    }

    #[test]
    fn tool_name_characters_follow_the_documented_patterns() {
        for target in Target::ALL {
            assert!(
                "get_weather-2"
                    .chars()
                    .all(|c| target.accepts_in_tool_name(c))
            );
            assert!(!target.accepts_in_tool_name(' '));
            assert!(!target.accepts_in_tool_name('/'));
        }
        assert!(Target::Mcp.accepts_in_tool_name('.'));
        assert!(!Target::Mcp.accepts_in_tool_name(':'));
        assert!(Target::Gemini.accepts_in_tool_name(':'));
        assert!(!Target::Openai.accepts_in_tool_name('.'));
        assert!(!Target::Gemini.accepts_tool_name_start('2'));
        assert!(Target::Gemini.accepts_tool_name_start('_'));
        assert!(Target::Openai.accepts_tool_name_start('2'));
    }

    #[test]
    fn limits_are_the_documented_ones() {
        assert_eq!(Target::Mcp.tool_name_max_length(), 128);
        assert_eq!(Target::Anthropic.tool_name_max_length(), 64);
        assert_eq!(Target::OpenaiStrict.description_max_length(), Some(1024));
        assert_eq!(Target::Anthropic.description_max_length(), None);
        assert_eq!(Target::Gemini.max_tools(), Some(512));
    }

    #[test]
    fn root_refusals_agree_with_the_combinator_table() {
        for target in Target::ALL {
            let refused: Vec<&str> = target.root_refused().map(|k| k.name).collect();
            for combinator in ["anyOf", "oneOf", "allOf"] {
                assert_eq!(
                    refused.contains(&combinator),
                    target.rejects_root_combinators()
                );
            }
        }
        let openai: Vec<&str> = Target::Openai.root_refused().map(|k| k.name).collect();
        assert_eq!(openai, ["anyOf", "oneOf", "allOf", "enum", "not"]);
    }
}
