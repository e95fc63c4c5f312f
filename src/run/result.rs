//! What every call ends in: one [`ToolResult`], the contract `toolc run`
//! prints as a single JSON line.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::sandbox::SandboxMode;

/// The outcome of one call, whatever the tool's runtime.
///
/// ```json
/// {"success": true, "output": {"echo": "hi"}, "metadata": {"duration_ms": 3, "exit_code": 0}}
/// {"success": false, "error": {"code": "TIMEOUT", "message": "...", "details": {}}, "metadata": {...}}
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    pub success: bool,
    /// The tool's output on success: a JSON value, or a string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
    /// Why the call failed or was refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ToolError>,
    pub metadata: Metadata,
}

/// A failed or refused call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolError {
    pub code: ErrorCode,
    pub message: String,
    /// Structured facts about the failure: the violations of a
    /// `VALIDATION_ERROR`, the rule of a `POLICY_DENIED`, the limit that
    /// was hit, the exception type of a Python error.
    #[serde(default)]
    pub details: Map<String, Value>,
}

/// The stable error codes of the result contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    /// The arguments do not match the tool's parameter schema; nothing ran.
    ValidationError,
    /// A rule or a permission forbids the call; nothing ran.
    PolicyDenied,
    /// No tool of that name.
    NotFound,
    /// The tool ran longer than its time limit and was killed.
    Timeout,
    /// The tool printed more than the output cap and was killed.
    OutputTooLarge,
    /// The tool did not print the JSON it must.
    InvalidOutput,
    /// The tool failed: an error it reported, a non-zero exit, an exception.
    ExecutionError,
    /// toolc itself failed to run the tool (e.g. the program cannot start).
    InternalError,
    /// The tool reached the call's memory or process limit (its cgroup's
    /// OOM kill, a refused fork, a refused allocation) and was killed with
    /// everything it started.
    ResourceLimit,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::ValidationError => "VALIDATION_ERROR",
            ErrorCode::PolicyDenied => "POLICY_DENIED",
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::Timeout => "TIMEOUT",
            ErrorCode::OutputTooLarge => "OUTPUT_TOO_LARGE",
            ErrorCode::InvalidOutput => "INVALID_OUTPUT",
            ErrorCode::ExecutionError => "EXECUTION_ERROR",
            ErrorCode::InternalError => "INTERNAL_ERROR",
            ErrorCode::ResourceLimit => "RESOURCE_LIMIT",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Facts about the call, present whether it succeeded or not.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Metadata {
    /// Wall time from the call to its result, validation included.
    pub duration_ms: u64,
    /// The exit status of the tool's process, when one ran and exited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The signal that ended the tool's process, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// How the process was confined: `namespaces+landlock` (its own
    /// user, PID, mount, IPC and, without network, network namespaces,
    /// and Landlock rules), `landlock` (Landlock alone: user namespaces
    /// are unavailable or turned off), `namespaces` (a kernel without
    /// Landlock), or `none` (neither, or the sandbox turned off). Absent
    /// when no process ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxMode>,
    /// How the network of a tool with an egress allow-list (and of the
    /// built-in shell) was confined: `proxied` (an empty network
    /// namespace whose only way out is toolc's checking proxy) or
    /// `unenforced` (the host's network, as `--allow-unenforced-egress`
    /// allowed where namespaces are unavailable). Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub egress: Option<EgressMode>,
}

/// How a tool's declared egress was enforced ([`Metadata::egress`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EgressMode {
    /// Through toolc's egress proxy, the only way out of the tool's
    /// network namespace.
    Proxied,
    /// Not enforced: the tool had the host's network.
    Unenforced,
}

impl ToolResult {
    pub fn ok(output: Value) -> Self {
        ToolResult {
            success: true,
            output: Some(output),
            error: None,
            metadata: Metadata::default(),
        }
    }

    pub fn fail(code: ErrorCode, message: impl Into<String>) -> Self {
        ToolResult::fail_with(code, message, Map::new())
    }

    pub fn fail_with(
        code: ErrorCode,
        message: impl Into<String>,
        details: Map<String, Value>,
    ) -> Self {
        ToolResult {
            success: false,
            output: None,
            error: Some(ToolError {
                code,
                message: message.into(),
                details,
            }),
            metadata: Metadata::default(),
        }
    }

    /// The error code, when the call failed.
    pub fn code(&self) -> Option<ErrorCode> {
        self.error.as_ref().map(|e| e.code)
    }

    /// The result as one line of JSON.
    pub fn to_json_line(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| {
            r#"{"success":false,"error":{"code":"INTERNAL_ERROR","message":"result not serializable","details":{}},"metadata":{"duration_ms":0}}"#.to_string()
        })
    }
}
