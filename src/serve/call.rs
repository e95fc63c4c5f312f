//! `tools/call`: one call through the runner, on a blocking thread, with a
//! slot of the concurrency bound, cancelled when the client cancels the
//! request (or, under 2026-07-28 over HTTP, goes away) or the server
//! stops.
//!
//! The result: the tool's output as text content, plus
//! `structuredContent` when the output is JSON and the tool declares an
//! `outputSchema` (which it must match, else the call is an
//! `INVALID_OUTPUT` failure); a failure, validation error, policy refusal
//! or timeout is a result with `isError: true` whose text starts with the
//! [`ToolResult`]'s code and message (and gives its details as JSON), so
//! the model can correct itself. An unknown tool is a JSON-RPC
//! invalid-params error.

use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::shared::Shared;
use super::{Served, log};
use crate::run::{Approval, CancelToken, ErrorCode, Runner, ToolResult};

/// Calls the tool `request` names; `cancelled` fires when the client
/// cancels this request; `approval` answers a tier that needs it (see
/// [`super::approval`]).
pub(super) async fn call(
    shared: &Arc<Shared>,
    runner: Arc<Runner>,
    request: CallToolRequestParams,
    cancelled: CancellationToken,
    approval: Approval,
) -> Result<CallToolResult, ErrorData> {
    let served = shared.served();
    let name = request.name.to_string();
    let Some(tool) = served.tool(&name) else {
        return Err(unknown(&served, &name));
    };
    let structured = tool.output_schema.is_some();
    let arguments = Value::Object(request.arguments.unwrap_or_default());
    let stop = shared.shutdown.clone();
    let _in_flight = InFlight::enter(shared);
    // A slot first: calls beyond the bound wait here, and a call cancelled
    // while it waits never runs; the runner still records it (audit) as
    // the cancelled call it is.
    let permit = tokio::select! {
        biased;
        _ = stop.cancelled() => None,
        _ = cancelled.cancelled() => None,
        permit = shared.calls.clone().acquire_owned() => permit.ok(),
    };
    let Some(permit) = permit else {
        let token = CancelToken::new();
        token.cancel();
        let result = runner.call_approved(&name, arguments, &token, &approval);
        return Ok(to_mcp(stopped(&name, result, &stop), false));
    };
    let token = CancelToken::new();
    // Should rmcp ever drop this future without cancelling the request,
    // the call stops all the same.
    let _stop_if_dropped = CancelOnDrop(token.clone());
    let (tool_name, call_token) = (name.clone(), token.clone());
    let mut job = tokio::task::spawn_blocking(move || {
        let result = runner.call_approved(&tool_name, arguments, &call_token, &approval);
        // The slot is free once the tool's processes are gone.
        drop(permit);
        result
    });
    let joined = tokio::select! {
        joined = &mut job => joined,
        _ = stop.cancelled() => {
            token.cancel();
            job.await
        }
        _ = cancelled.cancelled() => {
            token.cancel();
            job.await
        }
    };
    let result = joined.map_err(|e| {
        ErrorData::internal_error(format!("the call of \"{name}\" failed: {e}"), None)
    })?;
    let result = if token.is_cancelled() {
        stopped(&name, result, &stop)
    } else {
        result
    };
    let result = checked(&served, &name, result, structured);
    log_result(&name, &result);
    Ok(to_mcp(result, structured))
}

/// The answer to a call of `name`, which `served` does not list: an
/// invalid-params error, with the nearest name listed.
pub(super) fn unknown(served: &Served, name: &str) -> ErrorData {
    let known = served.tools.iter().map(|t| t.name.as_ref());
    let data = crate::suggest::did_you_mean(name, known).map(|near| json!({"did_you_mean": near}));
    ErrorData::invalid_params(format!("no tool named \"{name}\""), data)
}

/// Cancels its token when dropped (a finished call ignores it).
struct CancelOnDrop(CancelToken);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// An MCP failure result: "CODE: message", and the details, when there
/// are any, as JSON on a line of their own (a model reads the code first).
pub(super) fn failure(code: &str, message: &str, details: Option<&Value>) -> CallToolResult {
    let mut text = format!("{code}: {message}");
    if let Some(details) = details {
        let details = serde_json::to_string(details).unwrap_or_default();
        text.push_str(&format!("\ndetails: {details}"));
    }
    CallToolResult::error(vec![ContentBlock::text(text)])
}

/// The MCP result of a runner's result.
pub(super) fn to_mcp(result: ToolResult, structured: bool) -> CallToolResult {
    if let Some(error) = &result.error {
        let details = (!error.details.is_empty()).then(|| Value::Object(error.details.clone()));
        return failure(error.code.as_str(), &error.message, details.as_ref());
    }
    let output = result.output.unwrap_or(Value::Null);
    let text = match &output {
        Value::String(text) => text.clone(),
        other => serde_json::to_string(other).unwrap_or_default(),
    };
    let mut mcp = CallToolResult::success(vec![ContentBlock::text(text)]);
    if structured {
        mcp.structured_content = Some(output);
    }
    mcp
}

/// `result`, or an `INVALID_OUTPUT` failure when its output is to be
/// structured content and does not match the tool's `outputSchema` (MCP
/// requires structured results to match it).
pub(super) fn checked(
    served: &Served,
    name: &str,
    result: ToolResult,
    structured: bool,
) -> ToolResult {
    let Some(output) = result
        .output
        .as_ref()
        .filter(|_| structured && result.error.is_none())
    else {
        return result;
    };
    let Some(problems) = structure_problems(served, name, output) else {
        return result;
    };
    let mut failed = ToolResult::fail(ErrorCode::InvalidOutput, problems);
    failed.metadata = result.metadata;
    failed
}

/// Why `output` cannot be tool `name`'s structured content, said as an
/// `INVALID_OUTPUT` message; `None` when it can. A client checks
/// structured content against the schema, and wants some: a text output
/// (a bare JSON string) of such a tool is no result it accepts either.
pub(super) fn structure_problems(served: &Served, name: &str, output: &Value) -> Option<String> {
    let problems = match served.output_mismatch(name, output) {
        Some(problems) => problems,
        None if !output.is_object() => {
            "(root): structured content must be a JSON object".to_string()
        }
        None => return None,
    };
    Some(format!(
        "the output of \"{name}\" does not match its outputSchema: {problems}"
    ))
}

/// `result` of a call cancelled before it ended (or began), saying why:
/// the server stopping (a signal) is no client's doing. A call that
/// failed for another reason first (invalid arguments, a policy refusal)
/// keeps its result.
fn stopped(name: &str, mut result: ToolResult, stop: &CancellationToken) -> ToolResult {
    let was_cancelled = result
        .error
        .as_ref()
        .is_some_and(|e| e.details.get("cancelled") == Some(&Value::Bool(true)));
    if let Some(error) = result.error.as_mut().filter(|_| was_cancelled) {
        let why = if stop.is_cancelled() {
            "the server is shutting down (it was sent a signal)"
        } else {
            "the client cancelled the call"
        };
        log::info(format_args!("call {name}: cancelled: {why}"));
        error.message = format!("\"{name}\" was cancelled: {why}; {}", error.message);
    }
    result
}

/// A call the server answered or is answering: counted until dropped, so
/// that a stopping server answers (and audits) every call it took.
pub(super) struct InFlight(Arc<Shared>);

impl InFlight {
    pub(super) fn enter(shared: &Arc<Shared>) -> InFlight {
        shared
            .in_flight
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        InFlight(Arc::clone(shared))
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0
            .in_flight
            .fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
    }
}

fn log_result(name: &str, result: &ToolResult) {
    let ms = result.metadata.duration_ms;
    match &result.error {
        None => log::info(format_args!("call {name}: ok in {ms} ms")),
        Some(error) => log::info(format_args!(
            "call {name}: {} in {ms} ms: {}",
            error.code, error.message
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_carry_code_message_and_details() {
        let mut details = serde_json::Map::new();
        details.insert("rule".into(), json!("security-tier"));
        let mcp = to_mcp(
            ToolResult::fail_with(ErrorCode::PolicyDenied, "no", details),
            true,
        );
        assert_eq!(mcp.is_error, Some(true));
        assert_eq!(mcp.structured_content, None);
        let text = serde_json::to_value(&mcp.content).unwrap().to_string();
        assert!(text.contains("POLICY_DENIED: no"), "{text}");
        assert!(text.contains("security-tier"), "{text}");
    }

    #[test]
    fn json_output_is_structured_only_with_an_output_schema() {
        let output = json!({"sum": 3});
        let with = to_mcp(ToolResult::ok(output.clone()), true);
        assert_eq!(with.structured_content, Some(output.clone()));
        let without = to_mcp(ToolResult::ok(output), false);
        assert_eq!(without.structured_content, None);
    }
}
