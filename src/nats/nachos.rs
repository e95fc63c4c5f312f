//! The Nachos tool protocol on NATS, in one place: the subjects, the
//! envelope every message travels in, and the `ToolResult` a tool worker
//! answers with, as the Nachos seed's gateway and workers write them.
//!
//! A gateway sends `{id, timestamp, source, type: "tool.request",
//! correlationId?, payload}` on `nachos.tool.<toolId>.request`, the
//! tool's arguments flattened into `payload` beside the reserved keys
//! `sessionId`, `callId` and `sandbox` (not arguments: stripped before
//! validation). The worker answers `{id, timestamp, source: <toolId>,
//! type: "tool.response", correlationId: <request id>, payload:
//! ToolResult}`, always as a JSON body (the gateway parses every reply
//! and reads no header).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::Digest;

use super::service::timestamp;

/// The subject of Nachos health pings.
pub const HEALTH_SUBJECT: &str = "nachos.health.ping";
/// Where audit records go unless told otherwise.
pub const AUDIT_SUBJECT: &str = "nachos.audit.log";
/// The keys of a request's payload that are not the tool's arguments.
pub const RESERVED_KEYS: [&str; 3] = ["sessionId", "callId", "sandbox"];
/// The envelope types.
pub const REQUEST_TYPE: &str = "tool.request";
pub const RESPONSE_TYPE: &str = "tool.response";
/// The error codes the seed's workers use.
pub const VALIDATION_ERROR: &str = "VALIDATION_ERROR";
pub const EXECUTION_ERROR: &str = "EXECUTION_ERROR";
/// The codes toolc's workers add: past the concurrency bound (try again,
/// or another worker), a reply over the server's `max_payload`, a call cut
/// short because the worker stops.
pub const BUSY: &str = "BUSY";
pub const RESULT_TOO_LARGE: &str = "RESULT_TOO_LARGE";
pub const SHUTTING_DOWN: &str = "SHUTTING_DOWN";
/// The key of an error's `details` that says the call may be sent again.
pub const RETRYABLE: &str = "retryable";

/// The subject a tool answers on.
pub fn request_subject(tool_id: &str) -> String {
    format!("nachos.tool.{}.request", subject_token(tool_id))
}

/// `tool_id` as one subject token. An id that is one already (no `.`,
/// `*`, `>`, whitespace or control character, not empty) is itself;
/// another has those characters replaced by `_` and a digest of the whole
/// id appended (`-` and 8 hex digits), so that two ids never map to one
/// token and the mapping is the same on every machine.
pub fn subject_token(tool_id: &str) -> String {
    let bad = |c: char| matches!(c, '.' | '*' | '>') || c.is_whitespace() || c.is_control();
    if !tool_id.is_empty() && !tool_id.chars().any(bad) {
        return tool_id.to_string();
    }
    let cleaned: String = tool_id
        .chars()
        .map(|c| if bad(c) { '_' } else { c })
        .collect();
    let digest = sha2::Sha256::digest(tool_id.as_bytes());
    let hex: String = digest[..4].iter().map(|b| format!("{b:02x}")).collect();
    format!("{cleaned}-{hex}")
}

/// A message on the Nachos bus.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Envelope {
    pub id: String,
    pub timestamp: String,
    pub source: String,
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correlation_id: Option<String>,
    #[serde(default)]
    pub payload: Value,
}

impl Envelope {
    /// A request from `source` carrying `arguments` (its id new).
    pub fn request(source: &str, arguments: Map<String, Value>) -> Envelope {
        Envelope {
            id: new_id(),
            timestamp: now(),
            source: source.to_string(),
            kind: REQUEST_TYPE.to_string(),
            correlation_id: None,
            payload: Value::Object(arguments),
        }
    }

    /// The answer of tool `tool_id` to `request`.
    pub fn response(request_id: &str, tool_id: &str, result: &ToolResult) -> Envelope {
        Envelope {
            id: new_id(),
            timestamp: now(),
            source: tool_id.to_string(),
            kind: RESPONSE_TYPE.to_string(),
            correlation_id: Some(request_id.to_string()),
            payload: serde_json::to_value(result).unwrap_or(Value::Null),
        }
    }

    /// The tool's arguments in a request's payload: the payload object
    /// without the reserved keys. `None` when the payload is no object.
    pub fn arguments(&self) -> Option<Map<String, Value>> {
        let mut arguments = self.payload.as_object()?.clone();
        for key in RESERVED_KEYS {
            arguments.remove(key);
        }
        Some(arguments)
    }
}

/// A tool's answer, as Nachos's `ToolResult`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ToolResult {
    pub success: bool,
    #[serde(default)]
    pub content: Vec<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<ResultMetadata>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ResultError>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ResultMetadata {
    /// Milliseconds.
    pub duration: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warnings: Option<Vec<String>>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ResultError {
    pub code: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

impl ToolResult {
    /// A success whose content is one text block.
    pub fn text(text: String, duration_ms: u64) -> ToolResult {
        ToolResult {
            success: true,
            content: vec![serde_json::json!({"type": "text", "text": text})],
            metadata: Some(ResultMetadata {
                duration: duration_ms,
                cached: None,
                warnings: None,
            }),
            error: None,
        }
    }

    /// A failure with `code` and `message`.
    pub fn failure(
        code: &str,
        message: String,
        details: Option<Value>,
        duration_ms: u64,
    ) -> ToolResult {
        ToolResult {
            success: false,
            content: Vec::new(),
            metadata: Some(ResultMetadata {
                duration: duration_ms,
                cached: None,
                warnings: None,
            }),
            error: Some(ResultError {
                code: code.to_string(),
                message,
                details,
            }),
        }
    }
}

/// A new envelope id.
pub fn new_id() -> String {
    nuid::next().to_string()
}

fn now() -> String {
    timestamp(std::time::SystemTime::now())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_ids_become_one_token_each() {
        assert_eq!(subject_token("read_file"), "read_file");
        let dotted = subject_token("fs.read");
        assert!(
            dotted.starts_with("fs_read-") && !dotted.contains('.'),
            "{dotted}"
        );
        assert_ne!(subject_token("fs.read"), subject_token("fs_read"));
        assert_eq!(subject_token("fs.read"), dotted);
        assert_eq!(
            request_subject("a b"),
            format!("nachos.tool.{}.request", subject_token("a b"))
        );
        assert!(!subject_token("").is_empty());
    }

    #[test]
    fn reserved_keys_are_not_arguments() {
        let mut payload = Map::new();
        payload.insert("path".into(), Value::from("x"));
        payload.insert("sessionId".into(), Value::from("s"));
        payload.insert("callId".into(), Value::from("c"));
        payload.insert("sandbox".into(), Value::from(true));
        let request = Envelope::request("gateway", payload);
        let arguments = request.arguments().unwrap();
        assert_eq!(arguments.keys().collect::<Vec<_>>(), ["path"]);
        let json = serde_json::to_value(&request).unwrap();
        assert_eq!(json["type"], "tool.request");
        assert!(json.get("correlationId").is_none());
    }

    #[test]
    fn a_response_answers_its_request() {
        let result = ToolResult::text("hi".into(), 3);
        let response = Envelope::response("req-1", "echo", &result);
        let json = serde_json::to_value(&response).unwrap();
        assert_eq!(json["correlationId"], "req-1");
        assert_eq!(json["source"], "echo");
        assert_eq!(json["type"], "tool.response");
        assert_eq!(json["payload"]["success"], true);
        assert_eq!(json["payload"]["metadata"]["duration"], 3);
        assert_eq!(json["payload"]["content"][0]["text"], "hi");
    }
}
