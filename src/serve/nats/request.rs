//! One Nachos tool request: read the envelope, run the call through the
//! runner (validation, policy, sandbox, limits, audit), answer with the
//! envelope and `ToolResult` Nachos expects, always as a JSON body; a
//! failure also carries the `$SRV` error headers.

use std::sync::Arc;
use std::time::Instant;

use serde_json::{Map, Value, json};

use super::Worker;
use super::endpoints::Endpoint;
use super::recent::{self, Answer, Claim};
use crate::nats::nachos::{
    self, BUSY, Envelope, RESULT_TOO_LARGE, RETRYABLE, SHUTTING_DOWN, VALIDATION_ERROR,
};
use crate::nats::service::{ERROR_CODE_HEADER, ERROR_HEADER};
use crate::run::{Approval, CancelToken, ErrorCode};
use crate::serve::log;

/// Room left in a reply for its headers and the protocol line.
const HEADROOM: usize = 512;

/// Answers `message`, a request on `endpoint`'s subject.
pub(super) async fn answer(worker: Arc<Worker>, endpoint: usize, message: async_nats::Message) {
    let started = Instant::now();
    let async_nats::Message {
        subject,
        reply,
        payload,
        ..
    } = message;
    let Some(reply) = reply else {
        log::debug(format_args!(
            "a message on {subject} without a reply subject: ignored"
        ));
        return;
    };
    let Some(endpoint) = worker.endpoints.list.get(endpoint) else {
        return;
    };
    let answer = respond(&worker, endpoint, payload).await;
    let took = started.elapsed();
    endpoint.count(took, answer.error.as_ref().map(|(text, _)| text.clone()));
    send(&worker, reply, answer).await;
}

/// Publishes `answer` on `reply`.
pub(super) async fn send(worker: &Worker, reply: async_nats::Subject, answer: Answer) {
    let mut headers = async_nats::HeaderMap::new();
    if let Some((text, code)) = &answer.error {
        headers.insert(ERROR_HEADER, text.as_str());
        headers.insert(ERROR_CODE_HEADER, code.to_string().as_str());
    }
    if let Err(error) = worker
        .client
        .publish_with_headers(reply, headers, answer.body.into())
        .await
    {
        log::warn(format_args!("cannot send a reply: {error}"));
    }
}

/// The answer to a request whose body is `body`.
async fn respond(worker: &Arc<Worker>, endpoint: &Endpoint, body: impl AsRef<[u8]>) -> Answer {
    let tool = endpoint.tool.as_str();
    let size = body.as_ref().len();
    if size > worker.max_request {
        let message = format!(
            "the request is {size} bytes, over the limit of {} bytes",
            worker.max_request
        );
        let details = json!({"size": size, "limit": worker.max_request});
        return failure(None, tool, VALIDATION_ERROR, message, Some(details));
    }
    let request = match read(body.as_ref()) {
        Ok(request) => request,
        Err(why) => return failure(None, tool, VALIDATION_ERROR, why, None),
    };
    // Only the id and the arguments are kept from here on: a request that
    // waits (for a slot, or for the answer to its id) holds no more of
    // what the peer sent.
    drop(body);
    let Some(arguments) = request.arguments() else {
        let why = "the envelope's payload is not an object of arguments".to_string();
        return failure(Some(&request.id), tool, VALIDATION_ERROR, why, None);
    };
    let id = request.id;
    let key = format!("{}\n{id}", endpoint.subject);
    let sender = match worker.recent.claim(&key) {
        Claim::Answered(answer) => return answer,
        Claim::Running(waiting) => {
            drop(arguments);
            return match recent::wait(waiting).await {
                Some(answer) => answer,
                None => failure(
                    Some(&id),
                    tool,
                    nachos::EXECUTION_ERROR,
                    "the first request with this id went unanswered".into(),
                    None,
                ),
            };
        }
        Claim::Crowded => {
            let message = format!(
                "{} requests with this id wait for its answer already; retry",
                recent::MAX_WAITING
            );
            let details = json!({RETRYABLE: true});
            return failure(Some(&id), tool, BUSY, message, Some(details));
        }
        Claim::New(sender) => sender,
    };
    let Ok(permit) = Arc::clone(&worker.slots).try_acquire_owned() else {
        let message = format!(
            "the worker is busy: {} call(s) running, its limit; retry",
            worker.max_concurrency
        );
        let details = json!({RETRYABLE: true});
        let answer = failure(Some(&id), tool, BUSY, message, Some(details));
        worker.recent.forget(&key, sender, answer.clone());
        return answer;
    };
    let result = call(worker, tool, arguments).await;
    drop(permit);
    let answer = reply(worker, &id, tool, result);
    worker.recent.finish(&key, sender, answer.clone());
    answer
}

/// The request envelope in `body`, or why there is none.
fn read(body: &[u8]) -> Result<Envelope, String> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| format!("the request is not JSON ({e}); send a Nachos envelope"))?;
    let envelope: Envelope = serde_json::from_value(value).map_err(|e| {
        format!("the request is not a Nachos envelope ({e}): send {{id, timestamp, source, type, payload}}")
    })?;
    if envelope.kind != nachos::REQUEST_TYPE {
        return Err(format!(
            "the envelope's type is \"{}\", not \"{}\"",
            envelope.kind,
            nachos::REQUEST_TYPE
        ));
    }
    if envelope.id.is_empty() {
        return Err("the envelope has an empty id".to_string());
    }
    Ok(envelope)
}

/// Runs the call on a blocking thread; cancelled once the worker's grace
/// period is over.
async fn call(worker: &Arc<Worker>, tool: &str, arguments: Map<String, Value>) -> ToolOutcome {
    let served = worker.handler.served();
    let structured = served.tool(tool).is_some_and(|t| t.output_schema.is_some());
    let token = CancelToken::new();
    // A worker serves manifests (`--nats` with PATHs), never a fleet.
    let Some(runner) = served.runner().map(Arc::clone) else {
        return ToolOutcome::Failed(
            ErrorCode::InternalError.as_str(),
            format!("\"{tool}\" is not served from a manifest here"),
            None,
            0,
        );
    };
    let (name, call_token) = (tool.to_string(), token.clone());
    let mut job = tokio::task::spawn_blocking(move || {
        runner.call_approved(
            &name,
            Value::Object(arguments),
            &call_token,
            &Approval::Configured,
        )
    });
    let joined = tokio::select! {
        joined = &mut job => joined,
        _ = worker.cancel.cancelled() => {
            token.cancel();
            job.await
        }
    };
    let result = match joined {
        Ok(result) => result,
        Err(error) => {
            return ToolOutcome::Failed(
                ErrorCode::InternalError.as_str(),
                format!("the call failed: {error}"),
                None,
                0,
            );
        }
    };
    let result = crate::serve::call::checked(&served, tool, result, structured);
    if token.is_cancelled() && result.error.is_some() {
        return ToolOutcome::Failed(
            SHUTTING_DOWN,
            // Says why a call that was running fine failed: the caller
            // may retry it on another worker.
            format!(
                "\"{tool}\" was cancelled: the worker is shutting down and its grace period ({} s) for running calls is over",
                worker.grace.as_secs_f64()
            ),
            Some(json!({RETRYABLE: true})),
            result.metadata.duration_ms,
        );
    }
    ToolOutcome::Ran(result)
}

enum ToolOutcome {
    Ran(crate::run::ToolResult),
    Failed(&'static str, String, Option<Value>, u64),
}

/// The answer carrying `outcome`, or a small error if it would not fit in
/// the server's `max_payload`.
fn reply(worker: &Worker, request_id: &str, tool: &str, outcome: ToolOutcome) -> Answer {
    let result = match outcome {
        ToolOutcome::Ran(result) => to_nachos(result),
        ToolOutcome::Failed(code, message, details, ms) => {
            nachos::ToolResult::failure(code, message, details, ms)
        }
    };
    let answer = encode(Some(request_id), tool, &result);
    let limit = limit(worker);
    if answer.body.len() <= limit {
        return answer;
    }
    let size = answer.body.len();
    let duration = result.metadata.as_ref().map_or(0, |m| m.duration);
    let message = format!(
        "the result of \"{tool}\" is {size} bytes, over the NATS server's limit of {limit} bytes for a reply"
    );
    let details = json!({"size": size, "limit": limit});
    let too_large = nachos::ToolResult::failure(RESULT_TOO_LARGE, message, Some(details), duration);
    encode(Some(request_id), tool, &too_large)
}

/// The most a reply's body may hold.
fn limit(worker: &Worker) -> usize {
    let max_payload = worker.client.server_info().max_payload;
    max_payload.saturating_sub(HEADROOM).max(HEADROOM)
}

/// A failure answer.
fn failure(
    request_id: Option<&str>,
    tool: &str,
    code: &str,
    message: String,
    details: Option<Value>,
) -> Answer {
    encode(
        request_id,
        tool,
        &nachos::ToolResult::failure(code, message, details, 0),
    )
}

/// The envelope of `result`, answering `request_id` (when the request had
/// one), with the service error of a failure.
fn encode(request_id: Option<&str>, tool: &str, result: &nachos::ToolResult) -> Answer {
    let mut envelope = Envelope::response(request_id.unwrap_or_default(), tool, result);
    if request_id.is_none() {
        envelope.correlation_id = None;
    }
    let body = serde_json::to_vec(&envelope).unwrap_or_default();
    let error = result.error.as_ref().map(|error| {
        let text =
            crate::terminal::one_line(&format!("{}: {}", error.code, error.message)).into_owned();
        (text, status(&error.code))
    });
    Answer { body, error }
}

/// The `Nats-Service-Error-Code` of an error code, HTTP-like.
fn status(code: &str) -> u16 {
    match code {
        VALIDATION_ERROR => 400,
        "POLICY_DENIED" => 403,
        "NOT_FOUND" => 404,
        RESULT_TOO_LARGE => 413,
        BUSY | SHUTTING_DOWN => 503,
        "TIMEOUT" => 504,
        _ => 500,
    }
}

/// toolc's result as Nachos's: the output as one text block (JSON output
/// as its JSON text), the error's code, message and details.
pub(super) fn to_nachos(result: crate::run::ToolResult) -> nachos::ToolResult {
    let duration = result.metadata.duration_ms;
    if let Some(error) = result.error {
        let details = (!error.details.is_empty()).then(|| Value::Object(error.details));
        return nachos::ToolResult::failure(error.code.as_str(), error.message, details, duration);
    }
    let text = match result.output.unwrap_or(Value::Null) {
        Value::String(text) => text,
        other => other.to_string(),
    };
    nachos::ToolResult::text(text, duration)
}
