//! The worker's endpoints: one per tool, on the tool's Nachos subject, and
//! what `$SRV` says of them (INFO's metadata, STATS's counts).
//!
//! An endpoint's subject is the Nachos subject itself
//! (`nachos.tool.<token>.request`): one queue subscription serves the
//! Nachos gateway and NATS services clients alike, a request is counted
//! once whoever sent it, and a fleet discovered through `$SRV.INFO` is
//! called on the subjects Nachos calls. Its name is the subject token made
//! a valid endpoint name (unique: a clash gets `-2`, `-3`, ...).

use std::sync::Mutex;
use std::time::Duration;

use serde_json::Value;
use sha2::Digest;

use crate::nats::nachos::{request_subject, subject_token};
use crate::nats::service::{self, EndpointInfo, EndpointStats, Metadata};

/// One tool's endpoint.
pub(super) struct Endpoint {
    /// The tool's name, as the runner knows it.
    pub(super) tool: String,
    pub(super) name: String,
    pub(super) subject: String,
    pub(super) metadata: Metadata,
    counts: Mutex<Counts>,
}

#[derive(Default)]
struct Counts {
    requests: u64,
    errors: u64,
    last_error: String,
    processing: Duration,
}

/// Every endpoint, in manifest order.
pub(super) struct Endpoints {
    pub(super) list: Vec<Endpoint>,
    pub(super) queue: String,
}

impl Endpoints {
    /// The endpoints of `tools` (MCP entries, in manifest order), joining
    /// `queue`.
    pub(super) fn new(tools: &[rmcp::model::Tool], queue: &str) -> Endpoints {
        let mut list: Vec<Endpoint> = Vec::new();
        let mut taken = std::collections::HashSet::new();
        for tool in tools {
            let base = service::sanitized_name(&subject_token(&tool.name));
            let mut name = base.clone();
            let mut n = 1;
            while !taken.insert(name.clone()) {
                n += 1;
                name = format!("{base}-{n}");
            }
            list.push(Endpoint {
                tool: tool.name.to_string(),
                name,
                subject: request_subject(&tool.name),
                metadata: metadata(tool),
                counts: Mutex::new(Counts::default()),
            });
        }
        Endpoints {
            list,
            queue: queue.to_string(),
        }
    }

    /// The tools whose subject token is not their name, as `(name,
    /// token)`: told at start.
    pub(super) fn mapped(&self) -> Vec<(&str, String)> {
        self.list
            .iter()
            .map(|e| (e.tool.as_str(), subject_token(&e.tool)))
            .filter(|(tool, token)| tool != token)
            .collect()
    }

    pub(super) fn info(&self) -> Vec<EndpointInfo> {
        self.list
            .iter()
            .map(|e| EndpointInfo {
                name: e.name.clone(),
                subject: e.subject.clone(),
                queue_group: self.queue.clone(),
                metadata: e.metadata.clone(),
            })
            .collect()
    }

    pub(super) fn stats(&self) -> Vec<EndpointStats> {
        self.list
            .iter()
            .map(|e| {
                let counts = e.counts.lock().map(|c| {
                    (
                        c.requests,
                        c.errors,
                        c.last_error.clone(),
                        c.processing.as_nanos() as u64,
                    )
                });
                let (requests, errors, last_error, processing) =
                    counts.unwrap_or((0, 0, String::new(), 0));
                EndpointStats {
                    name: e.name.clone(),
                    subject: e.subject.clone(),
                    queue_group: self.queue.clone(),
                    num_requests: requests,
                    num_errors: errors,
                    last_error,
                    processing_time: processing,
                    average_processing_time: processing.checked_div(requests).unwrap_or(0),
                    data: serde_json::Map::new(),
                }
            })
            .collect()
    }
}

impl Endpoint {
    /// Counts one request that took `took`, failed with `error` if it did.
    pub(super) fn count(&self, took: Duration, error: Option<String>) {
        if let Ok(mut counts) = self.counts.lock() {
            counts.requests += 1;
            counts.processing += took;
            if let Some(error) = error {
                counts.errors += 1;
                counts.last_error = error;
            }
        }
    }
}

/// What INFO tells of a tool: its name, title, description, annotations,
/// input and output schemas (JSON text) and the SHA-256 of its whole MCP
/// entry.
fn metadata(tool: &rmcp::model::Tool) -> Metadata {
    use crate::nats::service::endpoint_keys as key;
    let mut metadata = Metadata::new();
    metadata.insert(key::TOOL.into(), tool.name.to_string());
    if let Some(title) = &tool.title {
        metadata.insert(key::TITLE.into(), title.to_string());
    }
    if let Some(description) = &tool.description {
        metadata.insert(key::DESCRIPTION.into(), description.to_string());
    }
    // What a client needs to decide whether a timed-out call may be sent
    // again (`idempotentHint`), among the rest.
    if let Some(annotations) = tool
        .annotations
        .as_ref()
        .and_then(|annotations| serde_json::to_string(annotations).ok())
    {
        metadata.insert(key::ANNOTATIONS.into(), annotations);
    }
    let input = Value::Object((*tool.input_schema).clone());
    metadata.insert(key::INPUT_SCHEMA.into(), input.to_string());
    if let Some(output) = &tool.output_schema {
        let output = Value::Object((**output).clone());
        metadata.insert(key::OUTPUT_SCHEMA.into(), output.to_string());
    }
    let entry = serde_json::to_string(tool).unwrap_or_default();
    let digest = sha2::Sha256::digest(entry.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    metadata.insert(key::DIGEST.into(), hex);
    metadata
}
