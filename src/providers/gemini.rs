//! Gemini's function declarations: the fields of its `Schema` message (a
//! subset of OpenAPI 3.0, which is what Gemini reads `parameters` as), the
//! JSON Schema keywords it rejects and what to do about each, the formats
//! it takes per type, and its rule for property names. Read by the
//! `gemini-*` rules and by `gen gemini`.
//!
//! Gemini fails the whole request for a name that is not a field of its
//! schema: `Unknown name "additionalProperties" at
//! 'tools[0].function_declarations[0].parameters': Cannot find field.`

use super::{GenHandling, Keyword};

/// The fields of Gemini's `Schema` message; any other name fails the
/// request.
pub(crate) const SCHEMA_FIELDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

/// Keywords the Gemini rules accept at the root of a parameter schema
/// only: definitions, and a reference to them (Vertex AI's schema has root
/// definitions). `gen gemini` inlines the references and removes these
/// anyway, so its output holds them nowhere.
pub(crate) const ROOT_ONLY: &[&str] = &["$ref", "$defs", "definitions"];

const CONDITION: &str = "drop the condition and say it in the \"description\", or split the tool";
const CONDITION_LOST: &str = "the condition is no longer checked";
const DEPENDENCY: &str = "say the dependency in the \"description\"";
const DEPENDENCY_LOST: &str = "the dependency is no longer checked";
const BOUND: &str = "the bound is no longer checked; say it in the description";
const DEFINITIONS: &str = "inline the definitions where they are used";

/// The JSON Schema keywords Gemini rejects that toolc knows what to do
/// about, in the order `gen gemini` removes them. Any other keyword that is
/// not in [`SCHEMA_FIELDS`] is rejected too, and removed.
pub(crate) const REJECTED: &[Keyword] = &[
    removed("$schema", "remove it"),
    removed("$comment", "remove it"),
    removed("$defs", DEFINITIONS),
    removed("definitions", DEFINITIONS),
    losing(
        "propertyNames",
        "remove it and describe the keys in the \"description\"",
        "the key names are no longer checked",
    ),
    losing(
        "patternProperties",
        "list the keys as properties, or take an array of {\"key\", \"value\"} objects",
        "keys matching the pattern can no longer be described",
    ),
    losing(
        "multipleOf",
        "remove it and state the step in the \"description\"",
        "the step is no longer checked; say it in the description",
    ),
    losing(
        "exclusiveMinimum",
        "use \"minimum\" (and say the bound is exclusive in the \"description\")",
        BOUND,
    ),
    losing(
        "exclusiveMaximum",
        "use \"maximum\" (and say the bound is exclusive in the \"description\")",
        BOUND,
    ),
    losing(
        "not",
        "state what is allowed instead (an \"enum\", a \"pattern\")",
        "the excluded values are accepted again",
    ),
    losing(
        "examples",
        "move the examples into the \"description\"",
        "move the examples into the description",
    ),
    losing(
        "uniqueItems",
        "remove it and say it in the \"description\"",
        "duplicates are no longer refused; say it in the description",
    ),
    losing(
        "prefixItems",
        "use \"items\" with one schema for every element",
        "the position of each item is no longer described",
    ),
    losing("if", CONDITION, CONDITION_LOST),
    losing("then", CONDITION, CONDITION_LOST),
    losing("else", CONDITION, CONDITION_LOST),
    losing("dependentRequired", DEPENDENCY, DEPENDENCY_LOST),
    losing("dependentSchemas", DEPENDENCY, DEPENDENCY_LOST),
    rewritten(
        "additionalProperties",
        "remove it: Gemini's objects have exactly the properties listed",
    ),
    rewritten("const", "use \"enum\" with the one value (and a \"type\")"),
    rewritten("oneOf", "use \"anyOf\""),
    rewritten("allOf", "merge the branches into one schema"),
    rewritten("$ref", "inline the definition it refers to"),
];

const fn removed(name: &'static str, instead: &'static str) -> Keyword {
    Keyword {
        name,
        instead,
        when_generating: GenHandling::Removed,
    }
}

const fn losing(name: &'static str, instead: &'static str, loss: &'static str) -> Keyword {
    Keyword {
        name,
        instead,
        when_generating: GenHandling::RemovedLosing(loss),
    }
}

const fn rewritten(name: &'static str, instead: &'static str) -> Keyword {
    Keyword {
        name,
        instead,
        when_generating: GenHandling::Rewritten,
    }
}

/// What to do about `keyword` in a schema node, `None` when Gemini accepts
/// it there (a field of its schema, or a root-only keyword at the root).
/// A keyword Gemini does not know at all gets a generic [`Keyword`].
pub(crate) fn rejected_keyword(keyword: &str, at_root: bool) -> Option<Keyword> {
    if SCHEMA_FIELDS.contains(&keyword) || (at_root && ROOT_ONLY.contains(&keyword)) {
        return None;
    }
    let known = REJECTED.iter().find(|k| k.name == keyword).copied();
    Some(known.unwrap_or(Keyword {
        name: "",
        instead: "remove it: it is not a field of Gemini's schema",
        when_generating: GenHandling::Removed,
    }))
}

/// Whether `gen gemini` keeps the subschemas under `keyword` (so that the
/// Gemini rules check them): properties, a single `items` schema (`listed`
/// is false), union branches (`oneOf` becomes `anyOf`, `allOf` is merged),
/// and definitions of the root (inlined where they are used). Anything
/// else goes with its keyword.
pub(crate) fn keeps_subschemas(keyword: &str, listed: bool, at_root: bool) -> bool {
    match keyword {
        "properties" | "anyOf" | "oneOf" | "allOf" => true,
        "items" => !listed,
        "$defs" | "definitions" => at_root,
        _ => false,
    }
}

/// The formats Gemini takes for a type (`only 'enum' and 'date-time' are
/// supported for STRING type`); none for other types.
pub(crate) fn formats_for(schema_type: Option<&str>) -> &'static [&'static str] {
    match schema_type {
        Some("string") => &["enum", "date-time"],
        Some("integer") => &["int32", "int64"],
        Some("number") => &["float", "double"],
        _ => &[],
    }
}

/// The longest property name Gemini is known to take.
pub(crate) const PROPERTY_NAME_MAX_LENGTH: usize = 64;

/// Whether Gemini takes `name` as a property name: an identifier (a letter
/// or `_`, then letters, digits and `_`) of at most
/// [`PROPERTY_NAME_MAX_LENGTH`] characters.
pub(crate) fn is_property_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name.len() <= PROPERTY_NAME_MAX_LENGTH
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_accepted_and_known_keywords_explained() {
        assert_eq!(rejected_keyword("description", false), None);
        assert_eq!(rejected_keyword("$defs", true), None);
        let defs = rejected_keyword("$defs", false).map(|k| k.instead);
        assert_eq!(defs, Some(DEFINITIONS));
        let unknown = rejected_keyword("discriminator", true).map(|k| k.when_generating);
        assert_eq!(unknown, Some(GenHandling::Removed));
        // No keyword is both a field and rejected.
        assert!(REJECTED.iter().all(|k| !SCHEMA_FIELDS.contains(&k.name)));
    }

    #[test]
    fn property_names_are_identifiers() {
        assert!(is_property_name("user_id"));
        assert!(is_property_name("_x1"));
        assert!(!is_property_name("user-id"));
        assert!(!is_property_name("2fa"));
        assert!(!is_property_name(&"a".repeat(65)));
    }
}
