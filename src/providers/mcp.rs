//! The Model Context Protocol's facts that toolc's own code reads, written
//! once: the rules for a tool's name and the members of a `tools/list`
//! result besides its tools. The lint rules, gen and convert read these.

/// The longest tool name, in characters: "Tool names SHOULD be between 1
/// and 128 characters in length (inclusive)" (2025-11-25, Tool names).
pub(crate) const TOOL_NAME_MAX_LENGTH: usize = 128;

/// Whether a tool name may hold `c`: "uppercase and lowercase ASCII
/// letters (A-Z, a-z), digits (0-9), underscore (_), hyphen (-), and dot
/// (.)" (2025-11-25, Tool names).
pub(crate) fn accepts_in_tool_name(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// The members of a `tools/list` result besides its tools, with the
/// values toolc writes. The 2026-07-28 revision requires `resultType`
/// (`complete`), `cacheScope` (`public`: a manifest's tools hold nothing of
/// any one user) and `ttlMs` (0: stale at once, fetched again whenever
/// needed); earlier revisions allow the extra members. Read back, they are
/// the document's own, not fields of its tools to carry elsewhere.
pub(crate) fn list_result_members() -> [(&'static str, serde_json::Value); 3] {
    [
        ("resultType", serde_json::Value::from("complete")),
        ("cacheScope", serde_json::Value::from("public")),
        ("ttlMs", serde_json::Value::from(0)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_are_letters_digits_and_three_marks() {
        assert!("get_weather-v2.1".chars().all(accepts_in_tool_name));
        for c in [' ', '/', ':', '@', 'é'] {
            assert!(!accepts_in_tool_name(c), "{c}");
        }
        assert_eq!(TOOL_NAME_MAX_LENGTH, 128);
    }

    #[test]
    fn list_results_say_complete_public_and_stale() {
        let members = list_result_members();
        let keys: Vec<&str> = members.iter().map(|(key, _)| *key).collect();
        assert_eq!(keys, ["resultType", "cacheScope", "ttlMs"]);
    }
}
