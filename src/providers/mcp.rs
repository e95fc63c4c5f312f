//! The Model Context Protocol's facts that toolc's own code reads, written
//! once: the revisions `toolc serve` offers and where they differ, the
//! rules for a tool's name, the values a tool's enumerated members take,
//! the annotation hints, the members of a `tools/list` result besides its
//! tools, the Streamable HTTP session header, and the JSON-RPC framing of
//! the one answer toolc writes without rmcp (the stdio screen's refusal).
//!
//! rmcp, the official SDK, speaks the protocol: its message types, method
//! names and error codes are used as rmcp names them. Where a fact here is
//! one rmcp names too (a revision, an error code, a header), it is taken
//! from rmcp rather than written again, so the value exists once; what
//! lives here is toolc's choice among them and what the specification
//! says of it. The lint rules, gen, convert, serve and the CLI read these.

use rmcp::model::{ElicitationCapability, ErrorCode, ProtocolVersion};

/// The revisions `toolc serve` offers, oldest first; `--protocol-version`
/// picks among them. 2025-06-18 and 2025-11-25 agree on a session by the
/// `initialize` handshake; 2026-07-28 has none (each request says its
/// revision, and `server/discover` tells a client what the server speaks).
pub(crate) const SERVED_VERSIONS: [ProtocolVersion; 3] = [
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2026_07_28,
];

/// The first revision in which a server sends the client no request of
/// its own (2026-07-28): a call that needs the user's answer is answered
/// with an `InputRequiredResult`, and the client calls again with the
/// answer. Before it, the server asks with an `elicitation/create` request
/// on the session while the call waits.
pub(crate) const INPUT_REQUIRED_SINCE: ProtocolVersion = ProtocolVersion::V_2026_07_28;

/// Whether a session of revision `version` is asked for its user's input
/// with an `InputRequiredResult` (see [`INPUT_REQUIRED_SINCE`]).
pub(crate) fn asks_with_input_required(version: &ProtocolVersion) -> bool {
    // A revision is a date, YYYY-MM-DD: its text sorts as the dates do,
    // and an unknown later revision counts as a later one.
    version.as_str() >= INPUT_REQUIRED_SINCE.as_str()
}

/// Whether a client whose `elicitation` capability is `capability` can be
/// asked to fill in a form. 2025-11-25 split the capability into `form`
/// and `url`; an `elicitation` object naming neither (all a 2025-06-18
/// client declares) means form.
pub(crate) fn elicits_forms(capability: &ElicitationCapability) -> bool {
    capability.form.is_some() || capability.url.is_none()
}

/// The revision whose `Tool` gen holds what it writes to (an object
/// `outputSchema`, well-formed `icons` and `execution`), named in the
/// notes of what it drops.
pub(crate) const TOOL_REVISION: ProtocolVersion = ProtocolVersion::V_2025_11_25;

/// The longest tool name, in characters: "Tool names SHOULD be between 1
/// and 128 characters in length (inclusive)" (2025-11-25, Tool names).
pub(crate) const TOOL_NAME_MAX_LENGTH: usize = 128;

/// Whether a tool name may hold `c`: "uppercase and lowercase ASCII
/// letters (A-Z, a-z), digits (0-9), underscore (_), hyphen (-), and dot
/// (.)" (2025-11-25, Tool names).
pub(crate) fn accepts_in_tool_name(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// The values of a tool's `execution.taskSupport` (2025-11-25); without
/// one a tool is `forbidden` task-augmented execution.
pub(crate) const TASK_SUPPORT: [&str; 3] = ["forbidden", "optional", "required"];

/// The values of an icon's `theme` (2025-11-25): the background it is
/// drawn for.
pub(crate) const ICON_THEMES: [&str; 2] = ["dark", "light"];

/// The `ToolAnnotations` hint that the tool does not change its
/// environment (default `false`).
pub(crate) const READ_ONLY_HINT: &str = "readOnlyHint";

/// The hint that the tool may destroy, not only add (default `true`).
pub(crate) const DESTRUCTIVE_HINT: &str = "destructiveHint";

/// The hint that calling the tool again with the same arguments has no
/// further effect (default `false`).
pub(crate) const IDEMPOTENT_HINT: &str = "idempotentHint";

/// The hint that the tool reaches beyond a closed domain, the web for
/// example (default `true`).
pub(crate) const OPEN_WORLD_HINT: &str = "openWorldHint";

/// The hints "meaningful only when `readOnlyHint == false`", as the
/// specification says of each.
pub(crate) const WRITE_HINTS: [&str; 2] = [DESTRUCTIVE_HINT, IDEMPOTENT_HINT];

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

/// The Streamable HTTP header that names the session (`Mcp-Session-Id`):
/// the server gives it with its answer to `initialize`, the client sends it
/// with every later request, so a POST without it starts a session.
/// Header names are case-insensitive.
pub(crate) const SESSION_ID_HEADER: &str = rmcp::transport::common::http_header::HEADER_SESSION_ID;

/// The `jsonrpc` member of every message: MCP messages are JSON-RPC 2.0.
pub(crate) const JSONRPC_VERSION: &str = "2.0";

/// JSON-RPC's "Invalid Request" error (-32600): what was sent is not a
/// request toolc will read.
pub(crate) const INVALID_REQUEST: ErrorCode = ErrorCode::INVALID_REQUEST;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn served_versions_are_sorted_and_known_to_rmcp() {
        let dates: Vec<&str> = SERVED_VERSIONS
            .iter()
            .map(ProtocolVersion::as_str)
            .collect();
        assert_eq!(dates, ["2025-06-18", "2025-11-25", "2026-07-28"]);
        for version in &SERVED_VERSIONS {
            assert!(ProtocolVersion::KNOWN_VERSIONS.contains(version));
        }
    }

    #[test]
    fn input_required_starts_with_2026_07_28() {
        let asks = |v: &ProtocolVersion| asks_with_input_required(v);
        assert!(!asks(&ProtocolVersion::V_2025_06_18));
        assert!(!asks(&ProtocolVersion::V_2025_11_25));
        assert!(asks(&ProtocolVersion::V_2026_07_28));
    }

    #[test]
    fn elicitation_without_modes_means_forms() {
        let declared = |json: serde_json::Value| {
            elicits_forms(&serde_json::from_value::<ElicitationCapability>(json).unwrap())
        };
        assert!(declared(serde_json::json!({})));
        assert!(declared(serde_json::json!({"form": {}})));
        assert!(declared(serde_json::json!({"form": {}, "url": {}})));
        assert!(!declared(serde_json::json!({"url": {}})));
    }

    #[test]
    fn tool_names_are_letters_digits_and_three_marks() {
        assert!("get_weather-v2.1".chars().all(accepts_in_tool_name));
        for c in [' ', '/', ':', '@', 'é'] {
            assert!(!accepts_in_tool_name(c), "{c}");
        }
        assert_eq!(TOOL_NAME_MAX_LENGTH, 128);
    }

    #[test]
    fn destructive_and_idempotent_are_the_write_hints() {
        assert_eq!(WRITE_HINTS, ["destructiveHint", "idempotentHint"]);
        assert!(!WRITE_HINTS.contains(&READ_ONLY_HINT));
        assert!(!WRITE_HINTS.contains(&OPEN_WORLD_HINT));
    }

    #[test]
    fn list_results_say_complete_public_and_stale() {
        let members = list_result_members();
        let keys: Vec<&str> = members.iter().map(|(key, _)| *key).collect();
        assert_eq!(keys, ["resultType", "cacheScope", "ttlMs"]);
    }

    #[test]
    fn wire_values() {
        assert_eq!(SESSION_ID_HEADER.to_ascii_lowercase(), "mcp-session-id");
        assert_eq!(INVALID_REQUEST.0, -32600);
        assert_eq!(JSONRPC_VERSION, "2.0");
    }
}
