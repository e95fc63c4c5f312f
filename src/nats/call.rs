//! Calling one tool over NATS, as `toolc call --nats` and the MCP front
//! door (`toolc serve --nats-url`) both do: one Nachos envelope sent on
//! the tool's subject, retried by the rules below, and what came of it.
//!
//! The request goes out with a reply subject of its own (an inbox this
//! call subscribes to), so every attempt shares it: a late answer to an
//! earlier attempt is as good as the answer to the last one. Every
//! attempt carries the same envelope, the same id included, so a worker
//! that already answered it answers again from its cache rather than
//! running the tool twice.
//!
//! - No responders (the server's immediate 503: nobody subscribes to the
//!   subject) and a busy worker (a `ToolResult` whose error is `BUSY` or
//!   says `retryable`) are retried with backoff until the call's deadline.
//! - An attempt that gets no answer in its own time is sent again only
//!   when the tool is idempotent (said by the caller, or by the endpoint's
//!   `annotations` metadata in `$SRV.INFO`, asked only then); otherwise
//!   the call keeps waiting for that one answer until the deadline, and
//!   past it the outcome is unknown: the tool may have run.
//! - Anyone may publish on the inbox: a reply that is not an answer to this
//!   envelope (unreadable, no response, another request's
//!   `correlationId`) is not taken; if no answer comes, the outcome says
//!   what came instead.

use std::pin::Pin;
use std::time::{Duration, Instant};

use futures_core::Stream;
use serde_json::{Map, Value};

use super::discover;
#[cfg(doc)]
use super::nachos::request_subject;
use super::nachos::{BUSY, Envelope, RESPONSE_TYPE, RETRYABLE, ToolResult};
use crate::providers::mcp::IDEMPOTENT_HINT;

/// The first pause before a retry; each later one doubles, up to
/// [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(50);
const MAX_BACKOFF: Duration = Duration::from_secs(1);
/// How long `$SRV.INFO` answers are gathered when a timed-out call asks
/// whether its tool is idempotent.
const ANNOTATIONS_WINDOW: Duration = Duration::from_millis(300);

/// Whether a tool may be called twice for one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Idempotency {
    /// Known: yes or no.
    Known(bool),
    /// Ask the fleet (`$SRV.INFO` annotations) when it matters.
    Ask,
}

/// How one call is made.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The subject the tool answers on ([`request_subject`] of a
    /// Nachos tool id, or a discovered endpoint's).
    pub subject: String,
    /// Who sends it (the envelope's `source`).
    pub source: String,
    /// The tool's arguments.
    pub arguments: Map<String, Value>,
    /// Everything, retries included, ends by then.
    pub timeout: Duration,
    /// How long one attempt waits before an idempotent tool is called
    /// again; `None`: a third of `timeout` (at least 1 s).
    pub attempt_timeout: Option<Duration>,
    pub idempotency: Idempotency,
}

/// What came of a call.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// A worker answered (a busy answer too, when no retry got another).
    Answered { result: ToolResult, attempts: u32 },
    /// Nobody subscribes to the tool's subject, to the end.
    NoWorker { attempts: u32 },
    /// An idempotent tool that no attempt got an answer from.
    TimedOut { attempts: u32, strays: Strays },
    /// A tool not known to be idempotent whose one request went
    /// unanswered: it may have run, or not.
    Unknown { strays: Strays },
}

/// The replies that came on the call's inbox but were not its answer
/// (unreadable, or answering another request): when no answer comes, the
/// user is told of them rather than that nothing came.
#[derive(Debug, Clone, Default)]
pub struct Strays {
    pub count: u32,
    /// What the first one was.
    pub first: Option<String>,
}

impl Strays {
    /// "N answer(s) came that were no Nachos answer to this call (the
    /// first: ...)", when any came.
    pub fn told(&self) -> Option<String> {
        let first = self.first.as_deref()?;
        Some(format!(
            "{} answer(s) came that were no Nachos answer to this call (the first: {first})",
            self.count
        ))
    }

    fn add(&mut self, what: String) {
        self.count += 1;
        self.first.get_or_insert(what);
    }
}

/// Why a call could not be made at all.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    #[error("cannot subscribe to the reply subject: {0}")]
    Subscribe(String),
    #[error("cannot send the request: {0}")]
    Publish(String),
    #[error("the connection to NATS closed during the call")]
    Closed,
}

/// Makes the call of `plan` on `client`.
pub async fn call(client: &async_nats::Client, plan: &Plan) -> Result<Outcome, CallError> {
    let started = Instant::now();
    let deadline = started + plan.timeout;
    let attempt_timeout = plan
        .attempt_timeout
        .unwrap_or_else(|| (plan.timeout / 3).max(Duration::from_secs(1)));
    let subject = plan.subject.clone();
    let envelope = Envelope::request(&plan.source, plan.arguments.clone());
    let body = serde_json::to_vec(&envelope).unwrap_or_default();
    let inbox = client.new_inbox();
    let mut replies = client
        .subscribe(inbox.clone())
        .await
        .map_err(|e| CallError::Subscribe(e.to_string()))?;
    let send = || async {
        client
            .publish_with_reply(subject.clone(), inbox.clone(), body.clone().into())
            .await
            .map_err(|e| CallError::Publish(e.to_string()))?;
        client
            .flush()
            .await
            .map_err(|e| CallError::Publish(e.to_string()))
    };
    let mut idempotency = plan.idempotency;
    let mut attempts = 1;
    let mut backoff = FIRST_BACKOFF;
    // Whether the last attempt was told there was nobody to answer.
    let mut nobody = false;
    // The last busy answer, given if no retry gets a better one.
    let mut busy: Option<ToolResult> = None;
    let mut strays = Strays::default();
    send().await?;
    let mut attempt_ends = Instant::now() + attempt_timeout;
    loop {
        let wait_until = attempt_ends.min(deadline);
        let next = tokio::time::timeout_at(wait_until.into(), next_message(&mut replies)).await;
        match next {
            Ok(None) => return Err(CallError::Closed),
            Ok(Some(message)) => {
                let retry = if message.status == Some(async_nats::StatusCode::NO_RESPONDERS) {
                    nobody = true;
                    true
                } else {
                    match answer(&message.payload, &envelope.id) {
                        Ok(result) if !is_busy(&result) => {
                            let _ = replies.unsubscribe().await;
                            return Ok(Outcome::Answered { result, attempts });
                        }
                        Ok(result) => {
                            nobody = false;
                            busy = Some(result);
                            true
                        }
                        // Not this call's answer (anyone may publish on
                        // its inbox): noted, and the call keeps waiting.
                        Err(what) => {
                            strays.add(what);
                            false
                        }
                    }
                };
                if retry {
                    if Instant::now() + backoff >= deadline {
                        let _ = replies.unsubscribe().await;
                        return Ok(match busy {
                            Some(result) if !nobody => Outcome::Answered { result, attempts },
                            _ => Outcome::NoWorker { attempts },
                        });
                    }
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                    attempts += 1;
                    send().await?;
                    attempt_ends = Instant::now() + attempt_timeout;
                }
            }
            Err(_) if Instant::now() >= deadline => {
                let _ = replies.unsubscribe().await;
                return Ok(match (idempotency, busy) {
                    (_, Some(result)) if !nobody => Outcome::Answered { result, attempts },
                    (Idempotency::Known(true), _) => Outcome::TimedOut { attempts, strays },
                    _ => Outcome::Unknown { strays },
                });
            }
            Err(_) => {
                if idempotency == Idempotency::Ask {
                    let annotated = discover::annotations(client, &subject, ANNOTATIONS_WINDOW)
                        .await
                        .is_some_and(|a| a.get(IDEMPOTENT_HINT) == Some(&Value::Bool(true)));
                    idempotency = Idempotency::Known(annotated);
                }
                if idempotency == Idempotency::Known(true) {
                    attempts += 1;
                    nobody = false;
                    send().await?;
                    attempt_ends = Instant::now() + attempt_timeout;
                } else {
                    // Sent once, never again: wait for its answer to the end.
                    attempt_ends = deadline;
                }
            }
        }
    }
}

/// The next message of `subscriber`, `None` when it ended.
async fn next_message(subscriber: &mut async_nats::Subscriber) -> Option<async_nats::Message> {
    std::future::poll_fn(|cx| Pin::new(&mut *subscriber).poll_next(cx)).await
}

/// The `ToolResult` of a reply envelope answering request `id`, or what
/// the reply is instead. An answer to another request (its
/// `correlationId` another id) is not this call's, nor is an envelope that
/// is no response (the request itself, sent back); a reply without a
/// `correlationId` is taken, as Nachos's workers send one when they could
/// not read the request.
fn answer(payload: &[u8], id: &str) -> Result<ToolResult, String> {
    let envelope: Envelope =
        serde_json::from_slice(payload).map_err(|_| format!("\"{}\"", excerpt(payload)))?;
    if envelope.kind != RESPONSE_TYPE {
        return Err(format!(
            "an envelope of type \"{}\", not \"{RESPONSE_TYPE}\"",
            excerpt(envelope.kind.as_bytes())
        ));
    }
    if let Some(other) = envelope.correlation_id.as_deref().filter(|c| *c != id) {
        return Err(format!(
            "an answer to another request, \"{}\"",
            excerpt(other.as_bytes())
        ));
    }
    serde_json::from_value(envelope.payload)
        .map_err(|e| format!("an envelope whose payload is no ToolResult ({e})"))
}

/// The start of `bytes` as one line of text, for a message.
fn excerpt(bytes: &[u8]) -> String {
    const MOST: usize = 80;
    let text = String::from_utf8_lossy(bytes);
    let mut shown: String = text.chars().take(MOST).collect();
    if text.chars().count() > MOST {
        shown.push_str("...");
    }
    crate::terminal::one_line(&shown).into_owned()
}

/// Whether `result` is a worker's "busy, try again".
pub fn is_busy(result: &ToolResult) -> bool {
    result.error.as_ref().is_some_and(|error| {
        error.code == BUSY
            || error
                .details
                .as_ref()
                .and_then(|d| d.get(RETRYABLE))
                .and_then(Value::as_bool)
                == Some(true)
    })
}

/// `result` in the shape `toolc run` prints: `{success, output?, error?,
/// metadata: {duration_ms}}`. The output is the content's one text block
/// read as JSON (or the text itself when it is not JSON); content of any
/// other shape is the output as it is (the list of blocks).
pub fn as_run_result(result: &ToolResult) -> Value {
    let mut line = Map::new();
    line.insert("success".into(), Value::Bool(result.success));
    if result.success || !result.content.is_empty() {
        let output = match result.content.as_slice() {
            [one] if one.get("type").and_then(Value::as_str) == Some("text") => {
                let text = one.get("text").and_then(Value::as_str).unwrap_or_default();
                serde_json::from_str::<Value>(text)
                    .unwrap_or_else(|_| Value::String(text.to_string()))
            }
            [] => Value::Null,
            blocks => Value::Array(blocks.to_vec()),
        };
        line.insert("output".into(), output);
    }
    if let Some(error) = &result.error {
        let details = match &error.details {
            Some(Value::Object(details)) => Value::Object(details.clone()),
            Some(other) => serde_json::json!({ "value": other }),
            None => Value::Object(Map::new()),
        };
        line.insert(
            "error".into(),
            serde_json::json!({"code": error.code, "message": error.message, "details": details}),
        );
    }
    let duration = result.metadata.as_ref().map_or(0, |m| m.duration);
    line.insert(
        "metadata".into(),
        serde_json::json!({ "duration_ms": duration }),
    );
    Value::Object(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_is_the_code_or_a_retryable_detail() {
        let busy = ToolResult::failure(BUSY, "full".into(), None, 0);
        assert!(is_busy(&busy));
        let retryable = ToolResult::failure(
            "X",
            "later".into(),
            Some(serde_json::json!({RETRYABLE: true})),
            0,
        );
        assert!(is_busy(&retryable));
        assert!(!is_busy(&ToolResult::failure(
            "EXECUTION_ERROR",
            "no".into(),
            None,
            0
        )));
        assert!(!is_busy(&ToolResult::text("ok".into(), 1)));
    }

    #[test]
    fn results_print_as_run_prints_them() {
        let json = as_run_result(&ToolResult::text("{\"n\": 2}".into(), 7));
        assert_eq!(
            json,
            serde_json::json!({"success": true, "output": {"n": 2}, "metadata": {"duration_ms": 7}})
        );
        let text = as_run_result(&ToolResult::text("plain words".into(), 1));
        assert_eq!(text["output"], "plain words");
        let failed = as_run_result(&ToolResult::failure(
            "VALIDATION_ERROR",
            "bad".into(),
            None,
            2,
        ));
        assert_eq!(failed["error"]["code"], "VALIDATION_ERROR");
        assert_eq!(failed["error"]["details"], serde_json::json!({}));
        assert!(failed.get("output").is_none());
    }
}
