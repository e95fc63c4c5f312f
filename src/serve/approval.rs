//! Tier-3 approval in `toolc serve`: a Nachos tool whose security tier is
//! above the policy's `allow-tier` runs only when the MCP client's user
//! approves the call.
//!
//! The server asks before the call runs, and only about a call that would
//! otherwise run ([`Runner::needs_approval`]: the tool exists, the
//! arguments are valid, every other rule lets it through); the answer goes
//! to the runner as the call's [`Approval`], which the policy counts last.
//! Asking first, rather than from inside the blocking call, is what
//! the revisions from [`mcp::INPUT_REQUIRED_SINCE`] on need: there the
//! server cannot send the client a request; it answers the call with an
//! `InputRequiredResult` and the client calls again with the user's answer.
//!
//! - Legacy revisions (those before): an `elicitation/create` form
//!   request on the session's peer, with one required boolean, `approve`,
//!   when the client declared the elicitation capability.
//! - From [`mcp::INPUT_REQUIRED_SINCE`] on: the same form inside an
//!   `InputRequiredResult`, with a
//!   `requestState` that is only a random handle to the question, kept
//!   here ([`Pending`]) and bound to the tool and its arguments: the
//!   client's echo of it is untrusted, so it carries nothing, answers
//!   once, and expires ([`PENDING_FOR`]). An unknown, expired or
//!   mismatched handle is asked again, never taken as an approval.
//! - A client that declared no elicitation support is not asked: the call
//!   is refused by the policy (`POLICY_DENIED`, rule `security-tier`),
//!   saying that approval was needed and the client cannot be asked.
//!
//! Only an accepted form whose `approve` is `true` approves; a decline, a
//! cancel, `approve: false`, a malformed answer or no answer refuses.

use std::collections::{BTreeMap, VecDeque};
use std::io::Read;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestParams, ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationSchema, InputRequest, InputRequiredResult,
};
use rmcp::service::RequestContext;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::log;
use crate::providers::mcp;
use crate::run::{Approval, Runner};

/// How long a 2026-07-28 client has to come back with its user's answer.
pub(crate) const PENDING_FOR: Duration = Duration::from_secs(10 * 60);
/// How long a legacy client has to answer an elicitation.
const ASK_FOR: Duration = Duration::from_secs(10 * 60);
/// The most questions waiting for an answer at once; past it the oldest
/// is forgotten (its call is asked again if it comes back).
const MAX_PENDING: usize = 256;
/// The key of the one input request of an `InputRequiredResult`.
const INPUT_KEY: &str = "approval";
/// The form's one field.
const FIELD: &str = "approve";
/// The most characters of the arguments the question shows.
const SHOWN_ARGUMENTS: usize = 2000;

/// What to do with a call.
#[derive(Debug)]
pub(crate) enum Decision {
    /// Run it with this approval ([`Approval::Configured`] when it needs
    /// none).
    Run(Approval),
    /// Answer with this `InputRequiredResult` (2026-07-28): the client
    /// asks its user and calls again.
    Ask(InputRequiredResult),
}

/// Decides how the call `request` runs on `runner`, asking the client
/// first when its tier needs approval (see the [module docs](self)); a
/// question still open when the server stops (`stop`) is a refusal.
pub(crate) async fn decide(
    pending: &Pending,
    runner: &Runner,
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
    stop: &CancellationToken,
) -> Decision {
    let name = request.name.as_ref();
    let arguments = Value::Object(request.arguments.clone().unwrap_or_default());
    if !runner.needs_approval(name, &arguments) {
        return Decision::Run(Approval::Configured);
    }
    let modern = context
        .protocol_version()
        .is_some_and(|v| mcp::asks_with_input_required(&v));
    let can_ask = context
        .client_capabilities()
        .and_then(|c| c.elicitation)
        .is_some_and(|e| mcp::elicits_forms(&e));
    if modern && let Some(handle) = &request.request_state {
        if pending.answered(handle, name, &arguments) {
            let answer = request
                .input_responses
                .as_ref()
                .and_then(|r| r.get(INPUT_KEY));
            let approval = answer.map_or_else(no_answer, of_response);
            log_answer(name, &approval);
            return Decision::Run(approval);
        }
        log::warn(format_args!(
            "call {name}: its request state names no pending approval of this call (unknown, expired or for other arguments); asking again"
        ));
    }
    if !can_ask {
        log::info(format_args!(
            "call {name}: needs approval, and the client declared no elicitation support"
        ));
        return Decision::Run(Approval::Refused(
            "needs approval, which this client cannot be asked for (it declared no elicitation support)"
                .to_string(),
        ));
    }
    let question = question(runner, name, &arguments);
    if modern {
        return match pending.open(name, &arguments) {
            Ok(handle) => {
                log::info(format_args!("call {name}: asking the client for approval"));
                let mut requests = BTreeMap::new();
                requests.insert(
                    INPUT_KEY.to_string(),
                    InputRequest::Elicitation(ElicitRequest::new(question)),
                );
                Decision::Ask(InputRequiredResult::new(Some(requests), Some(handle)))
            }
            Err(error) => Decision::Run(Approval::Refused(format!(
                "needs approval, which could not be asked for ({error})"
            ))),
        };
    }
    log::info(format_args!("call {name}: asking the client for approval"));
    let asked = tokio::select! {
        asked = context.peer.create_elicitation_with_timeout(question, Some(ASK_FOR)) => asked,
        _ = context.ct.cancelled() => {
            return Decision::Run(Approval::Refused(
                "the call was cancelled while waiting for approval".to_string(),
            ));
        }
        _ = stop.cancelled() => {
            return Decision::Run(Approval::Refused(
                "the server stopped while waiting for approval".to_string(),
            ));
        }
    };
    let approval = match asked {
        Ok(result) => of_result(&result),
        Err(error) => Approval::Refused(format!(
            "needs approval, which the client did not give ({error})"
        )),
    };
    log_answer(name, &approval);
    Decision::Run(approval)
}

fn log_answer(name: &str, approval: &Approval) {
    match approval {
        Approval::Granted => log::info(format_args!("call {name}: approved by the client")),
        Approval::Refused(why) => log::info(format_args!("call {name}: not approved: {why}")),
        Approval::Configured => {}
    }
}

/// The form that asks for approval of calling `name` with `arguments`.
fn question(runner: &Runner, name: &str, arguments: &Value) -> ElicitRequestParams {
    let tier = runner
        .tools()
        .find(|t| t.name == name)
        .and_then(|t| t.permissions.security_tier)
        .map_or_else(String::new, |tier| format!(" (security tier {tier})"));
    let mut shown = serde_json::to_string_pretty(arguments).unwrap_or_default();
    if shown.chars().count() > SHOWN_ARGUMENTS {
        shown = shown.chars().take(SHOWN_ARGUMENTS).collect::<String>() + "\n…";
    }
    let message = format!(
        "The tool `{name}`{tier} runs only with your approval. Approve this call?\nArguments:\n{shown}"
    );
    let schema = ElicitationSchema::builder()
        .required_bool_property(FIELD, |b| {
            b.title("Approve")
                .description(format!("Run `{name}` with these arguments"))
        })
        .build();
    let requested_schema = schema.unwrap_or_else(|_| ElicitationSchema::new(BTreeMap::new()));
    ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema,
    }
}

/// The approval an elicitation's result gives.
fn of_result(result: &ElicitResult) -> Approval {
    match result.action {
        ElicitationAction::Accept => {
            let approve = result.content.as_ref().and_then(|c| c.get(FIELD));
            if approve == Some(&Value::Bool(true)) {
                Approval::Granted
            } else {
                Approval::Refused("the user did not approve the call".to_string())
            }
        }
        ElicitationAction::Decline => Approval::Refused("the user declined the call".to_string()),
        ElicitationAction::Cancel => {
            Approval::Refused("the user cancelled the approval".to_string())
        }
        _ => Approval::Refused("the client's answer was not an approval".to_string()),
    }
}

/// The approval an `inputResponses` entry (an elicitation's result as
/// JSON) gives.
fn of_response(response: &Value) -> Approval {
    match serde_json::from_value::<ElicitResult>(response.clone()) {
        Ok(result) => of_result(&result),
        Err(_) => Approval::Refused("the client's answer was not an approval".to_string()),
    }
}

fn no_answer() -> Approval {
    Approval::Refused("the client called again without the user's answer".to_string())
}

/// The questions asked of 2026-07-28 clients that wait for their answer,
/// oldest first.
#[derive(Debug, Default)]
pub(crate) struct Pending {
    questions: Mutex<VecDeque<Question>>,
}

#[derive(Debug)]
struct Question {
    handle: String,
    tool: String,
    arguments: Value,
    asked: Instant,
}

impl Pending {
    /// Remembers a question about calling `tool` with `arguments`; its
    /// handle is the `requestState` to give the client.
    pub(crate) fn open(&self, tool: &str, arguments: &Value) -> std::io::Result<String> {
        let handle = random_handle()?;
        let mut questions = self.lock();
        let now = Instant::now();
        questions.retain(|q| now.duration_since(q.asked) < PENDING_FOR);
        while questions.len() >= MAX_PENDING {
            questions.pop_front();
        }
        questions.push_back(Question {
            handle: handle.clone(),
            tool: tool.to_string(),
            arguments: arguments.clone(),
            asked: now,
        });
        Ok(handle)
    }

    /// Whether `handle` names a question, still open, about this very call
    /// (the same tool and arguments). The question is closed either way:
    /// a handle answers once.
    pub(crate) fn answered(&self, handle: &str, tool: &str, arguments: &Value) -> bool {
        let mut questions = self.lock();
        let Some(at) = questions.iter().position(|q| q.handle == handle) else {
            return false;
        };
        let Some(question) = questions.remove(at) else {
            return false;
        };
        question.asked.elapsed() < PENDING_FOR
            && question.tool == tool
            && question.arguments == *arguments
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Question>> {
        self.questions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// 128 random bits from the kernel, as hex.
fn random_handle() -> std::io::Result<String> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_handle_answers_once_and_only_for_its_call() {
        let pending = Pending::default();
        let args = json!({"text": "x"});
        let handle = pending.open("deploy", &args).unwrap();
        assert_eq!(handle.len(), 32);
        assert!(!pending.answered("not-a-handle", "deploy", &args));
        assert!(pending.answered(&handle, "deploy", &args));
        assert!(
            !pending.answered(&handle, "deploy", &args),
            "answered twice"
        );

        let handle = pending.open("deploy", &args).unwrap();
        assert!(!pending.answered(&handle, "deploy", &json!({"text": "y"})));
        assert!(
            !pending.answered(&handle, "deploy", &args),
            "a mismatch closes it"
        );
        let handle = pending.open("deploy", &args).unwrap();
        assert!(!pending.answered(&handle, "other", &args));
        assert_ne!(pending.open("deploy", &args).unwrap(), handle);
    }

    #[test]
    fn expired_questions_do_not_answer() {
        let pending = Pending::default();
        let args = json!({});
        let handle = pending.open("deploy", &args).unwrap();
        if let Some(asked) = Instant::now().checked_sub(PENDING_FOR) {
            pending.lock()[0].asked = asked;
            assert!(!pending.answered(&handle, "deploy", &args));
        }
    }

    #[test]
    fn the_oldest_question_goes_past_the_bound() {
        let pending = Pending::default();
        let args = json!({});
        let first = pending.open("deploy", &args).unwrap();
        for _ in 0..MAX_PENDING {
            pending.open("deploy", &args).unwrap();
        }
        assert_eq!(pending.lock().len(), MAX_PENDING);
        assert!(!pending.answered(&first, "deploy", &args));
    }

    #[test]
    fn only_an_accepted_true_approves() {
        let cases = [
            (
                json!({"action": "accept", "content": {"approve": true}}),
                true,
            ),
            (
                json!({"action": "accept", "content": {"approve": false}}),
                false,
            ),
            (
                json!({"action": "accept", "content": {"approve": "true"}}),
                false,
            ),
            (json!({"action": "accept"}), false),
            (json!({"action": "decline"}), false),
            (json!({"action": "cancel"}), false),
            (json!({"approve": true}), false),
            (json!("yes"), false),
        ];
        for (response, approves) in cases {
            let approval = of_response(&response);
            assert_eq!(approval == Approval::Granted, approves, "{response}");
            if !approves {
                assert!(matches!(approval, Approval::Refused(_)), "{response}");
            }
        }
    }
}
