//! `toolc serve --nats-url`: a NATS fleet as the served tools, the MCP
//! front door of workers that answer on NATS.
//!
//! The tools are the fleet's as discovery finds them
//! ([`crate::nats::discover`]: every instance's `$SRV.INFO`, schemas from
//! the endpoints' metadata), asked again every poll interval; a list that
//! differs is served from then on and the clients are told, as `--watch`
//! tells them of edited manifests ([`super::watch`]). A `tools/call` is
//! one Nachos request on the tool's subject, made and retried by
//! [`crate::nats::call`], and the worker's `ToolResult` becomes the MCP
//! result: its content, or `isError` with "CODE: message" text.
//!
//! The fleet is not the runner: the workers validate, authorize and run
//! the calls, so no approval is asked here and the runner's flags do not
//! apply, but for the call's time limit.
//!
//! Under `--locked`, every list discovery finds is checked against the
//! pins of the fleet's `nats://<server>` source first
//! ([`super::pinned::admit_fleet`]): a tool not pinned, or that differs
//! from its pin, is not served, and the log says so when that changes.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::pinned::{self, Pinned};
use super::shared::Shared;
use super::{Handler, Served, call, log, watch};
use crate::nats::call::{Idempotency, Outcome, Plan};
use crate::nats::connect::{ConnectError, Options};
use crate::nats::discover::{self, DiscoverError};
use crate::nats::nachos::{self, ToolResult};
use crate::run::ErrorCode;

/// The code of a call no worker of the fleet answers: none serves the
/// tool (any more).
const NO_WORKER: &str = "NO_WORKER";

/// The envelope's `source` of the requests the front door sends.
const SOURCE: &str = "toolc-serve";
/// How long past its deadline a call waits for a send held up by a lost
/// connection.
const CALL_GRACE: Duration = Duration::from_secs(1);

/// A connection to the fleet and how it is asked.
pub(crate) struct Fleet {
    client: async_nats::Client,
    /// The servers, as shown (credentials masked).
    shown: String,
    /// The time one call may take, retries included.
    timeout: Duration,
    /// How often discovery is asked again.
    poll: Duration,
    /// Every tool name the fleet ever listed: a call of one that is gone
    /// is told its workers left, not that it never existed.
    seen: Mutex<BTreeSet<String>>,
    /// `--locked`: the pins the fleet's tools are checked against.
    pins: Option<FleetPins>,
}

/// The pins of a fleet's tools, and what checking them last told.
struct FleetPins {
    pinned: Pinned,
    /// The fleet's document, as `toolc lock --nats-url` names it.
    source: String,
    /// The lines the last check logged: a poll logs only what changed.
    told: Mutex<Vec<String>>,
    /// The tools the last check withheld.
    withheld: Mutex<BTreeSet<String>>,
}

impl FleetPins {
    /// The tools of `tools` that match their pins; the rest are withheld,
    /// and logged when that is news.
    fn admit(&self, tools: Vec<discover::Tool>) -> Vec<discover::Tool> {
        let names: Vec<String> = tools.iter().map(|t| t.name.clone()).collect();
        let (admitted, told) = pinned::admit_fleet(tools, &self.source, &self.pinned);
        let mut last = self.told.lock().unwrap_or_else(PoisonError::into_inner);
        for line in told.iter().filter(|line| !last.contains(line)) {
            log::notice(format_args!("--locked: {line}"));
        }
        *last = told;
        let served: BTreeSet<&str> = admitted.iter().map(|t| t.name.as_str()).collect();
        *self.withheld.lock().unwrap_or_else(PoisonError::into_inner) = names
            .into_iter()
            .filter(|name| !served.contains(name.as_str()))
            .collect();
        admitted
    }
}

/// Where a fleet tool's requests go, and whether it may be sent twice.
#[derive(Debug, Clone)]
pub(crate) struct Route {
    subject: String,
    idempotent: bool,
}

impl Fleet {
    /// Connects to the servers of `options` (the connection lives on the
    /// runtime this runs on); with `pinned` (`--locked`), only the tools
    /// that match their pins are served.
    pub(crate) async fn connect(
        options: &Options,
        timeout: Duration,
        poll: Duration,
        pinned: Option<Pinned>,
    ) -> Result<Fleet, ConnectError> {
        let client = crate::nats::connect::connect(options, "toolc serve --nats-url", None).await?;
        let pins = pinned.map(|pinned| FleetPins {
            pinned,
            source: discover::document_path(options),
            told: Mutex::new(Vec::new()),
            withheld: Mutex::new(BTreeSet::new()),
        });
        Ok(Fleet {
            client,
            shown: options.shown(),
            timeout,
            poll,
            seen: Mutex::new(BTreeSet::new()),
            pins,
        })
    }

    /// The fleet's tools now (those that match their pins, under
    /// `--locked`), served by `fleet`.
    pub(crate) async fn discover(fleet: &Arc<Fleet>) -> Result<Served, DiscoverError> {
        let window = discover::WINDOW.min(fleet.poll);
        let infos = discover::infos(&fleet.client, window).await?;
        let tools = discover::tools(&infos);
        let tools = match &fleet.pins {
            Some(pins) => pins.admit(tools),
            None => tools,
        };
        Ok(Served::fleet(Arc::clone(fleet), &tools))
    }

    /// The MCP entries and routes of `tools`; a tool whose definition is
    /// no MCP tool (a schema that is not a JSON object) is left out, said
    /// in the log.
    pub(super) fn entries(
        &self,
        tools: &[discover::Tool],
    ) -> (Vec<rmcp::model::Tool>, HashMap<String, Route>) {
        let mut entries = Vec::new();
        let mut routes = HashMap::new();
        for tool in tools {
            match serde_json::from_value::<rmcp::model::Tool>(tool.definition.clone()) {
                Ok(entry) => {
                    let idempotent = entry
                        .annotations
                        .as_ref()
                        .and_then(|a| a.idempotent_hint)
                        .unwrap_or(false);
                    let route = Route {
                        subject: tool.subject.clone(),
                        idempotent,
                    };
                    routes.insert(tool.name.clone(), route);
                    entries.push(entry);
                }
                Err(error) => log::warn(format_args!(
                    "fleet tool \"{}\" on {} is not served: its definition is no MCP tool ({error})",
                    tool.name, tool.subject
                )),
            }
        }
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend(routes.keys().cloned());
        (entries, routes)
    }

    fn connected(&self) -> bool {
        self.client.connection_state() == async_nats::connection::State::Connected
    }

    /// Whether the fleet served `name` once, and does not now for a
    /// reason of its own (its workers left, not `--locked`).
    fn was_seen(&self, name: &str) -> bool {
        let withheld = self.pins.as_ref().is_some_and(|pins| {
            pins.withheld
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .contains(name)
        });
        !withheld
            && self
                .seen
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .contains(name)
    }
}

/// Calls the fleet tool `request` names, through `fleet` as `served`
/// lists it; `cancelled` fires when the client cancels the request.
pub(super) async fn call(
    shared: &Arc<Shared>,
    served: &Served,
    fleet: &Fleet,
    routes: &HashMap<String, Route>,
    request: CallToolRequestParams,
    cancelled: CancellationToken,
) -> Result<CallToolResult, ErrorData> {
    let name = request.name.to_string();
    let Some(route) = routes.get(&name) else {
        if fleet.was_seen(&name) {
            log::info(format_args!("call {name}: no worker serves it any more"));
            return Ok(failure(
                NO_WORKER,
                &format!(
                    "no worker serves \"{name}\" any more: the last worker of the fleet at {} that served it left",
                    fleet.shown
                ),
            ));
        }
        return Err(call::unknown(served, &name));
    };
    let plan = Plan {
        subject: route.subject.clone(),
        source: SOURCE.to_string(),
        arguments: request.arguments.unwrap_or_default(),
        timeout: fleet.timeout,
        attempt_timeout: None,
        idempotency: Idempotency::Known(route.idempotent),
    };
    let stop = shared.shutdown.clone();
    let _in_flight = call::InFlight::enter(shared);
    let permit = tokio::select! {
        biased;
        _ = stop.cancelled() => None,
        _ = cancelled.cancelled() => None,
        permit = shared.calls.clone().acquire_owned() => permit.ok(),
    };
    let outcome = match permit {
        None => None,
        // The call's own deadline does not cover a send that waits for a
        // lost connection to come back: this one does.
        Some(_permit) => tokio::select! {
            outcome = tokio::time::timeout(
                fleet.timeout + CALL_GRACE,
                crate::nats::call::call(&fleet.client, &plan),
            ) => Some(outcome),
            _ = stop.cancelled() => None,
            _ = cancelled.cancelled() => None,
        },
    };
    let seconds = fleet.timeout.as_secs_f64();
    let result = match outcome {
        None => {
            let why = if stop.is_cancelled() {
                "the server is shutting down (it was sent a signal)"
            } else {
                "the client cancelled the call"
            };
            failure(
                "CANCELLED",
                &format!(
                    "\"{name}\" was cancelled: {why}; a request already sent may still run on a worker"
                ),
            )
        }
        Some(Err(_)) => failure(
            "NATS_UNREACHABLE",
            &format!(
                "\"{name}\" got no answer within {seconds} s: the connection to NATS at {} is down; the request may still be delivered when it is back",
                fleet.shown
            ),
        ),
        Some(Ok(Err(error))) => failure(
            "EXECUTION_ERROR",
            &format!("cannot call \"{name}\" over NATS: {error}"),
        ),
        Some(Ok(Ok(Outcome::Answered { result, attempts }))) => {
            if attempts > 1 {
                log::info(format_args!("call {name}: answered attempt {attempts}"));
            }
            to_mcp(served, &name, &result)
        }
        Some(Ok(Ok(Outcome::NoWorker { attempts }))) => failure(
            NO_WORKER,
            &format!(
                "no worker serves \"{name}\": nobody answers on {} at {} ({attempts} attempt(s) in {seconds} s)",
                route.subject, fleet.shown
            ),
        ),
        Some(Ok(Ok(Outcome::TimedOut { attempts, strays }))) => failure(
            "TIMEOUT",
            &format!(
                "\"{name}\" timed out: no answer to {attempts} attempt(s) within {seconds} s{}",
                told(&strays)
            ),
        ),
        Some(Ok(Ok(Outcome::Unknown { strays }))) => failure(
            "UNKNOWN_OUTCOME",
            &format!(
                "\"{name}\" did not answer within {seconds} s, and the outcome is unknown: the tool may have run (it is not known to be idempotent, so it was sent once){}",
                told(&strays)
            ),
        ),
    };
    if result.is_error == Some(true) {
        log::info(format_args!("call {name}: failed"));
    } else {
        log::info(format_args!("call {name}: ok"));
    }
    Ok(result)
}

/// What came instead of an answer, as the end of a sentence ("" when
/// nothing came).
fn told(strays: &crate::nats::call::Strays) -> String {
    strays
        .told()
        .map_or_else(String::new, |strays| format!("; {strays}"))
}

/// A failure result: "CODE: message".
fn failure(code: &str, message: &str) -> CallToolResult {
    call::failure(code, message, None)
}

/// The MCP result of a worker's `ToolResult` for tool `name`: a failure
/// as "CODE: message" (and its details as JSON), a success as its
/// content, structured when the tool declares an `outputSchema` (which
/// the output must then match: else an `INVALID_OUTPUT` failure).
fn to_mcp(served: &Served, name: &str, result: &ToolResult) -> CallToolResult {
    if !result.success || result.error.is_some() {
        return match &result.error {
            Some(error) => call::failure(&error.code, &error.message, error.details.as_ref()),
            None => failure(nachos::EXECUTION_ERROR, &texts(result)),
        };
    }
    let content = serde_json::from_value::<Vec<ContentBlock>>(Value::Array(result.content.clone()))
        .unwrap_or_else(|_| {
            let text = serde_json::to_string(&result.content).unwrap_or_default();
            vec![ContentBlock::text(text)]
        });
    let mut mcp = CallToolResult::success(content);
    if served.tool(name).is_some_and(|t| t.output_schema.is_some()) {
        let output = crate::nats::call::as_run_result(result)
            .get("output")
            .cloned()
            .unwrap_or(Value::Null);
        if let Some(problems) = call::structure_problems(served, name, &output) {
            return failure(ErrorCode::InvalidOutput.as_str(), &problems);
        }
        mcp.structured_content = Some(output);
    }
    mcp
}

/// The text of `result`'s text blocks, one a line.
fn texts(result: &ToolResult) -> String {
    let lines: Vec<&str> = result
        .content
        .iter()
        .filter_map(|block| block.get("text").and_then(Value::as_str))
        .collect();
    if lines.is_empty() {
        "the worker reported a failure".to_string()
    } else {
        lines.join("\n")
    }
}

/// Asks the fleet for its tools every poll interval until the server
/// stops, serving what it finds and telling the clients when the list
/// changed. A round that cannot ask (or is not connected throughout)
/// keeps the tools served.
pub(crate) async fn poll(handler: Handler, fleet: Arc<Fleet>) {
    let stop = handler.stopping();
    let mut ticks = tokio::time::interval(fleet.poll);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // The first tick is at once; the tools were discovered at the start.
    ticks.tick().await;
    loop {
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = ticks.tick() => {}
        }
        // Disconnected, nobody answers: that is no news of the workers.
        if !fleet.connected() {
            log::debug(format_args!(
                "not connected to NATS; the fleet is asked again when it is"
            ));
            continue;
        }
        match Fleet::discover(&fleet).await {
            Ok(served) if fleet.connected() => watch::publish(&handler, served).await,
            Ok(_) => log::debug(format_args!(
                "the connection to NATS dropped while the fleet was asked; the previous tools stay served"
            )),
            Err(error) => log::warn(format_args!(
                "the fleet's tools were not asked again ({error}); the previous tools stay served"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nats::nachos::ResultError;

    fn text_of(result: &CallToolResult) -> String {
        serde_json::to_value(&result.content).unwrap().to_string()
    }

    fn nothing_served() -> Served {
        Served {
            source: super::super::Source::Local(Arc::new(
                crate::run::Runner::from_toolsets(Vec::new(), Default::default()).unwrap(),
            )),
            tools: Vec::new(),
            output_schemas: HashMap::new(),
        }
    }

    #[test]
    fn failures_read_code_colon_message() {
        let served = nothing_served();
        let failed = ToolResult {
            success: false,
            content: Vec::new(),
            metadata: None,
            error: Some(ResultError {
                code: "VALIDATION_ERROR".into(),
                message: "a is required".into(),
                details: Some(serde_json::json!({"field": "a"})),
            }),
        };
        let mcp = to_mcp(&served, "add", &failed);
        assert_eq!(mcp.is_error, Some(true));
        let text = text_of(&mcp);
        assert!(text.contains("VALIDATION_ERROR: a is required"), "{text}");
        assert!(text.contains("field"), "{text}");
        let bare = ToolResult {
            success: false,
            content: vec![serde_json::json!({"type": "text", "text": "boom"})],
            metadata: None,
            error: None,
        };
        assert!(text_of(&to_mcp(&served, "add", &bare)).contains("EXECUTION_ERROR: boom"));
    }

    #[test]
    fn successes_keep_their_content() {
        let served = nothing_served();
        let mcp = to_mcp(&served, "add", &ToolResult::text("{\"sum\": 3}".into(), 1));
        assert_eq!(mcp.is_error, Some(false));
        assert!(text_of(&mcp).contains("sum"));
        assert_eq!(mcp.structured_content, None);
    }
}
