//! What Anthropic's Messages API takes in a tool's `input_schema` beyond
//! JSON Schema: its rule for the top-level property names (the request
//! fails with "Property keys should match pattern
//! '^[a-zA-Z0-9_.-]{1,64}$'" otherwise).

/// The longest property name Anthropic takes.
pub(crate) const PROPERTY_NAME_MAX_LENGTH: usize = 64;

/// Whether Anthropic takes `name` as a top-level property name: 1 to
/// [`PROPERTY_NAME_MAX_LENGTH`] ASCII letters, digits, `_`, `.` and `-`.
pub(crate) fn is_property_name(name: &str) -> bool {
    (1..=PROPERTY_NAME_MAX_LENGTH).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn property_names_are_words_dots_and_dashes() {
        assert!(is_property_name("max-bytes"));
        assert!(is_property_name("filter.id"));
        assert!(!is_property_name("filter[id]"));
        assert!(!is_property_name("$top"));
        assert!(!is_property_name(""));
        assert!(!is_property_name(&"a".repeat(65)));
    }
}
