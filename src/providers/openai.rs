//! OpenAI strict mode (`"strict": true`, Structured Outputs): the JSON
//! Schema keywords it rejects, the `format`s it supports, and the size
//! limits its grammar compiler enforces. Read by the `strict-*` rules and
//! by `gen openai --strict`.

use super::{GenHandling, Keyword};

/// Whether a Responses API function tool that does not say `strict` (or
/// says `null`) is strict: it is (`strict`: "Whether to enforce strict
/// parameter validation. Default `true`."), where a Chat Completions
/// function is not. So gen writes `strict` on every Responses tool, and
/// lint checks a Responses tool for strict mode unless it says `false`.
pub const RESPONSES_STRICT_BY_DEFAULT: bool = true;

const CONDITION: &str = "drop the condition and say it in the \"description\", or split the tool";
const CONDITION_LOST: &str = "the condition is no longer checked";
const DEPENDENCY: &str =
    "require the properties (nullable) and say the dependency in the \"description\"";
const DEPENDENCY_LOST: &str = "the dependency is no longer checked";
const KEY_LIST: &str =
    "list the keys as properties, or take an array of {\"key\", \"value\"} objects";

/// The keywords strict mode rejects anywhere in a schema (`'allOf' is not
/// permitted`). `anyOf` is accepted below the root; a combinator at the
/// root is refused by OpenAI and Anthropic alike (`root-combinator`).
pub(crate) const STRICT_REJECTED: &[Keyword] = &[
    Keyword {
        name: "allOf",
        instead: "merge the branches into one schema",
        when_generating: GenHandling::Rewritten,
    },
    Keyword {
        name: "oneOf",
        instead: "use \"anyOf\"",
        when_generating: GenHandling::Rewritten,
    },
    Keyword {
        name: "not",
        instead: "state what is allowed instead (an \"enum\", a \"pattern\")",
        when_generating: GenHandling::RemovedLosing("the excluded values are accepted again"),
    },
    Keyword {
        name: "if",
        instead: CONDITION,
        when_generating: GenHandling::RemovedLosing(CONDITION_LOST),
    },
    Keyword {
        name: "then",
        instead: CONDITION,
        when_generating: GenHandling::RemovedLosing(CONDITION_LOST),
    },
    Keyword {
        name: "else",
        instead: CONDITION,
        when_generating: GenHandling::RemovedLosing(CONDITION_LOST),
    },
    Keyword {
        name: "dependentRequired",
        instead: DEPENDENCY,
        when_generating: GenHandling::RemovedLosing(DEPENDENCY_LOST),
    },
    Keyword {
        name: "dependentSchemas",
        instead: DEPENDENCY,
        when_generating: GenHandling::RemovedLosing(DEPENDENCY_LOST),
    },
    Keyword {
        name: "patternProperties",
        instead: KEY_LIST,
        when_generating: GenHandling::RemovedLosing(
            "keys matching the pattern are no longer accepted",
        ),
    },
    Keyword {
        name: "propertyNames",
        instead: KEY_LIST,
        when_generating: GenHandling::RemovedLosing("the key names are no longer checked"),
    },
];

/// Keywords whose subschemas go away when strict mode's rules are met (the
/// keyword is removed, or `additionalProperties` becomes `false`), so
/// nothing inside them is checked for strict mode. (`allOf` and `oneOf`
/// branches stay: they are merged or become `anyOf` branches.)
pub(crate) const STRICT_SUBSCHEMAS_DROPPED: &[&str] = &[
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "patternProperties",
    "propertyNames",
    "additionalProperties",
];

/// The formats OpenAI's Structured Outputs documentation lists; any other
/// fails the request (`'uri' is not a valid format`).
pub(crate) const STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Strict mode's documented size limits for one schema.
pub(crate) const STRICT_MAX_DEPTH: usize = 10;
/// Object properties in one schema, in total.
pub(crate) const STRICT_MAX_PROPERTIES: usize = 5000;
/// Enum values in one schema, in total.
pub(crate) const STRICT_MAX_ENUM_VALUES: usize = 1000;
/// Characters of all property names, definition names, enum and const
/// values in one schema.
pub(crate) const STRICT_MAX_STRING_LENGTH: usize = 120_000;
