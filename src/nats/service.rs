//! NATS services (ADR-32, "micro"): the facts of the discovery protocol
//! every NATS user's tooling speaks (`nats micro ls`, nats-py's
//! `nats.micro`, `@nats-io/services`), in one place: the subjects an
//! instance answers, the shapes of its PING, INFO and STATS replies, the
//! headers of an endpoint's error, and the rules on names.
//!
//! The shapes are the superset every parser accepts: `metadata` always an
//! object (never null or absent), per endpoint `queue_group` and
//! `metadata`, `last_error` empty when there was none, `data` an object,
//! `started` in UTC with milliseconds and `Z` (nats-py fails on nine
//! digits), times in integer nanoseconds.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The three verbs an instance answers.
pub const VERBS: [&str; 3] = ["PING", "INFO", "STATS"];

/// The queue group endpoints join unless told otherwise.
pub const DEFAULT_QUEUE: &str = "q";

/// The header carrying an endpoint error's text.
pub const ERROR_HEADER: &str = "Nats-Service-Error";
/// The header carrying an endpoint error's code (a number, as text).
pub const ERROR_CODE_HEADER: &str = "Nats-Service-Error-Code";

pub const PING_TYPE: &str = "io.nats.micro.v1.ping_response";
pub const INFO_TYPE: &str = "io.nats.micro.v1.info_response";
pub const STATS_TYPE: &str = "io.nats.micro.v1.stats_response";

/// The subjects on which an instance answers `verb`: for every service,
/// for services named `name`, and for this instance (`id`). Plain
/// subscriptions (every instance answers), not a queue group.
pub fn subjects(verb: &str, name: &str, id: &str) -> [String; 3] {
    [
        format!("$SRV.{verb}"),
        format!("$SRV.{verb}.{name}"),
        format!("$SRV.{verb}.{name}.{id}"),
    ]
}

/// `name` made a valid service or endpoint name: every other character
/// becomes `_` (an empty name becomes `_`). Callers that need names to
/// stay apart check the results for collisions.
pub fn sanitized_name(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if cleaned.is_empty() {
        "_".to_string()
    } else {
        cleaned
    }
}

/// A new instance id: 22 characters of `[0-9A-Za-z]`, random, as NUIDs
/// are.
pub fn instance_id() -> String {
    nuid::next().to_string()
}

/// `time` as `started` is written: UTC, milliseconds, `Z`.
pub fn timestamp(time: std::time::SystemTime) -> String {
    crate::clock::rfc3339(time)
}

/// The keys of a toolc endpoint's metadata (values are strings; schemas
/// and annotations as JSON text): how a client learns a tool from
/// `$SRV.INFO` alone. What a toolc worker writes and what discovery
/// (`--nats-url`, `call`'s idempotency) reads.
pub mod endpoint_keys {
    /// The tool's own name (the endpoint's name is sanitized).
    pub const TOOL: &str = "tool";
    pub const TITLE: &str = "title";
    pub const DESCRIPTION: &str = "description";
    /// Its MCP annotations (`idempotentHint` among them), as JSON text.
    pub const ANNOTATIONS: &str = "annotations";
    /// Its input schema, as JSON text.
    pub const INPUT_SCHEMA: &str = "input_schema";
    /// Its output schema, as JSON text (only when it declares one).
    pub const OUTPUT_SCHEMA: &str = "output_schema";
    /// The SHA-256 (hex) of the tool's whole definition (its MCP entry).
    pub const DIGEST: &str = "sha256";
}

/// Metadata: string keys to string values.
pub type Metadata = BTreeMap<String, String>;

/// What identifies an instance, in every reply.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Identity {
    pub name: String,
    pub id: String,
    pub version: String,
    #[serde(default)]
    pub metadata: Metadata,
}

/// The reply to `$SRV.PING`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Ping {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(flatten)]
    pub identity: Identity,
}

/// One endpoint as INFO lists it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct EndpointInfo {
    pub name: String,
    pub subject: String,
    #[serde(default)]
    pub queue_group: String,
    #[serde(default)]
    pub metadata: Metadata,
}

/// The reply to `$SRV.INFO`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Info {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(flatten)]
    pub identity: Identity,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub endpoints: Vec<EndpointInfo>,
}

/// One endpoint as STATS counts it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EndpointStats {
    pub name: String,
    pub subject: String,
    #[serde(default)]
    pub queue_group: String,
    pub num_requests: u64,
    pub num_errors: u64,
    pub last_error: String,
    /// Nanoseconds, in all.
    pub processing_time: u64,
    /// Nanoseconds, per request.
    pub average_processing_time: u64,
    #[serde(default)]
    pub data: serde_json::Map<String, serde_json::Value>,
}

/// The reply to `$SRV.STATS`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Stats {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(flatten)]
    pub identity: Identity,
    pub started: String,
    #[serde(default)]
    pub endpoints: Vec<EndpointStats>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_made_valid() {
        assert_eq!(sanitized_name("a.b c/é"), "a_b_c__");
        assert_eq!(sanitized_name(""), "_");
    }

    #[test]
    fn subjects_are_the_three_forms() {
        assert_eq!(
            subjects("PING", "toolc", "ID"),
            ["$SRV.PING", "$SRV.PING.toolc", "$SRV.PING.toolc.ID"]
        );
    }
}
