//! What a NATS fleet serves, found through NATS services discovery: every
//! instance answers `$SRV.INFO`, and an endpoint's metadata describes its
//! tool ([`service::endpoint_keys`] and the keys beside it). The
//! answers of every instance within a short window are gathered and made
//! one MCP tool list, each tool once however many workers serve it: the
//! document `--nats-url` reads and the front door lists.

use std::collections::BTreeMap;
use std::pin::Pin;
use std::time::Duration;

use futures_core::Stream;
use serde_json::{Map, Value};

use super::service::{self, EndpointInfo, Info, endpoint_keys as key};

/// How long answers to `$SRV.INFO` are gathered unless told otherwise.
pub const WINDOW: Duration = Duration::from_millis(500);

/// Why discovery could not ask.
#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    #[error("cannot ask NATS services for their tools ($SRV.INFO): {0}")]
    Ask(String),
    #[error(transparent)]
    Connect(#[from] super::connect::ConnectError),
    #[error("cannot start the runtime of the NATS client")]
    Runtime(#[source] std::io::Error),
}

/// The tools the fleet at `options` serves, as [`document`] writes them,
/// asked once (answers gathered for `window`); blocking.
pub fn fetch(
    options: &super::connect::Options,
    window: Duration,
) -> Result<Vec<Tool>, DiscoverError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(DiscoverError::Runtime)?;
    let found = runtime.block_on(async {
        let client = super::connect::connect(options, "toolc discovery", None).await?;
        let infos = infos(&client, window).await?;
        Ok::<_, DiscoverError>(tools(&infos))
    });
    runtime.shutdown_background();
    found
}

/// One tool of the fleet.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    /// Its name (the MCP tool's).
    pub name: String,
    /// The subject its requests go to.
    pub subject: String,
    /// The MCP tool definition: name, title, description, inputSchema,
    /// outputSchema, annotations.
    pub definition: Value,
}

/// The `$SRV.INFO` answers of every instance that answers within
/// `window`, sorted by service name and instance id. Answers that are not
/// INFO replies are left out.
pub async fn infos(
    client: &async_nats::Client,
    window: Duration,
) -> Result<Vec<Info>, DiscoverError> {
    let inbox = client.new_inbox();
    let mut replies = client
        .subscribe(inbox.clone())
        .await
        .map_err(|e| DiscoverError::Ask(e.to_string()))?;
    let subject = format!("$SRV.{}", service::VERBS[1]);
    client
        .publish_with_reply(subject, inbox, Vec::new().into())
        .await
        .map_err(|e| DiscoverError::Ask(e.to_string()))?;
    client
        .flush()
        .await
        .map_err(|e| DiscoverError::Ask(e.to_string()))?;
    let mut found = Vec::new();
    let until = tokio::time::Instant::now() + window;
    loop {
        let next = std::future::poll_fn(|cx| Pin::new(&mut replies).poll_next(cx));
        match tokio::time::timeout_at(until, next).await {
            Ok(Some(message)) => {
                if message.status.is_some() {
                    // No responders: no instance at all.
                    continue;
                }
                if let Ok(info) = serde_json::from_slice::<Info>(&message.payload)
                    && info.kind == service::INFO_TYPE
                {
                    found.push(info);
                }
            }
            Ok(None) | Err(_) => break,
        }
    }
    let _ = replies.unsubscribe().await;
    found.sort_by(|a, b| {
        (&a.identity.name, &a.identity.id).cmp(&(&b.identity.name, &b.identity.id))
    });
    Ok(found)
}

/// The annotations the fleet gives the tool on `subject` (the first
/// instance that publishes them), `None` when none does.
pub async fn annotations(
    client: &async_nats::Client,
    subject: &str,
    window: Duration,
) -> Option<Map<String, Value>> {
    let infos = infos(client, window).await.ok()?;
    infos
        .iter()
        .flat_map(|info| &info.endpoints)
        .filter(|endpoint| endpoint.subject == subject)
        .find_map(|endpoint| {
            let text = endpoint.metadata.get(key::ANNOTATIONS)?;
            serde_json::from_str::<Map<String, Value>>(text).ok()
        })
}

/// The tools of `infos`, each once (the first instance's definition), in
/// name order. An endpoint whose subject is no tool's is left out (see
/// [`is_tool_subject`]).
pub fn tools(infos: &[Info]) -> Vec<Tool> {
    let mut by_name: BTreeMap<String, Tool> = BTreeMap::new();
    for endpoint in infos
        .iter()
        .flat_map(|info| &info.endpoints)
        .filter(|endpoint| is_tool_subject(&endpoint.subject))
    {
        let tool = tool(endpoint);
        by_name.entry(tool.name.clone()).or_insert(tool);
    }
    by_name.into_values().collect()
}

/// Whether `subject` may be a tool's: one a call may be published to
/// (tokens neither empty nor wildcards, no white space) and outside the
/// server's own APIs and reply space (`$JS.API`, `$SYS`, `$SRV`, `$KV`,
/// ..., `_INBOX.`). Any service on the bus may answer `$SRV.INFO`: one
/// naming such a subject as a tool's would have the front door send its
/// callers' arguments to a JetStream or system API.
fn is_tool_subject(subject: &str) -> bool {
    !subject.starts_with('$')
        && !subject.starts_with("_INBOX.")
        && !subject.chars().any(|c| c.is_whitespace() || c.is_control())
        && subject
            .split('.')
            .all(|token| !token.is_empty() && token != "*" && token != ">")
}

/// The tool an endpoint serves. A schema or annotations that are not JSON
/// are kept as their text, for the linter to say so.
fn tool(endpoint: &EndpointInfo) -> Tool {
    let meta = &endpoint.metadata;
    let name = meta
        .get(key::TOOL)
        .cloned()
        .unwrap_or_else(|| endpoint.name.clone());
    let json = |key: &str| {
        meta.get(key).map(|text| {
            serde_json::from_str::<Value>(text).unwrap_or_else(|_| Value::String(text.clone()))
        })
    };
    let mut definition = Map::new();
    definition.insert("name".into(), Value::String(name.clone()));
    if let Some(title) = meta.get(key::TITLE) {
        definition.insert("title".into(), Value::String(title.clone()));
    }
    if let Some(description) = meta.get(key::DESCRIPTION) {
        definition.insert("description".into(), Value::String(description.clone()));
    }
    let input = json(key::INPUT_SCHEMA).unwrap_or_else(|| serde_json::json!({"type": "object"}));
    definition.insert("inputSchema".into(), input);
    if let Some(output) = json(key::OUTPUT_SCHEMA) {
        definition.insert("outputSchema".into(), output);
    }
    if let Some(annotations) = json(key::ANNOTATIONS) {
        definition.insert("annotations".into(), annotations);
    }
    Tool {
        name,
        subject: endpoint.subject.clone(),
        definition: Value::Object(definition),
    }
}

/// The fleet at `options` as toolc names its document: `nats://` and its
/// first server (`nats://127.0.0.1:4222`, credentials left out). `toolc
/// lint --nats-url` shows its findings there, `toolc lock --nats-url`
/// pins its tools under it, and `toolc serve --nats-url --locked` looks
/// them up by it.
pub fn document_path(options: &super::connect::Options) -> String {
    let shown = options.shown();
    let first = shown.split(',').next().unwrap_or_default();
    format!("nats://{}", first.split("://").last().unwrap_or_default())
}

/// `tools` as an MCP tool list document, `{"tools": [...]}`, pretty.
pub fn document(tools: &[Tool]) -> String {
    let list: Vec<Value> = tools.iter().map(|t| t.definition.clone()).collect();
    serde_json::to_string_pretty(&serde_json::json!({ "tools": list })).unwrap_or_default() + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nats::service::Identity;

    #[test]
    fn only_subjects_a_tool_may_have_are_tools() {
        for good in ["nachos.tool.add.request", "tools.stats", "a"] {
            assert!(is_tool_subject(good), "{good}");
        }
        for bad in [
            "$JS.API.STREAM.DELETE.orders",
            "$SYS.REQ.SERVER.PING",
            "_INBOX.abc.1",
            "tools.*",
            "tools.>",
            "tools..x",
            "",
            "tools. x",
            "tools.\u{1b}x",
        ] {
            assert!(!is_tool_subject(bad), "{bad}");
        }
    }

    fn info(id: &str, endpoints: &[(&str, &[(&str, &str)])]) -> Info {
        Info {
            kind: service::INFO_TYPE.into(),
            identity: Identity {
                name: "toolc".into(),
                id: id.into(),
                version: "1.0.0".into(),
                metadata: Default::default(),
            },
            description: String::new(),
            endpoints: endpoints
                .iter()
                .map(|(name, meta)| EndpointInfo {
                    name: (*name).into(),
                    subject: format!("nachos.tool.{name}.request"),
                    queue_group: "q".into(),
                    metadata: meta
                        .iter()
                        .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
                        .collect(),
                })
                .collect(),
        }
    }

    #[test]
    fn endpoints_become_tools_once_each() {
        let schema = r#"{"type":"object","properties":{"x":{"type":"string"}}}"#;
        let a = info(
            "A",
            &[(
                "echo",
                &[
                    ("description", "Echo."),
                    ("input_schema", schema),
                    ("annotations", r#"{"idempotentHint":true}"#),
                ],
            )],
        );
        let b = info(
            "B",
            &[("echo", &[]), ("add", &[("input_schema", "not json")])],
        );
        let found = tools(&[a, b]);
        let names: Vec<&str> = found.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["add", "echo"]);
        assert_eq!(found[1].definition["description"], "Echo.");
        assert_eq!(
            found[1].definition["inputSchema"]["properties"]["x"]["type"],
            "string"
        );
        assert_eq!(found[1].definition["annotations"]["idempotentHint"], true);
        assert_eq!(found[0].definition["inputSchema"], "not json");
        assert_eq!(found[0].subject, "nachos.tool.add.request");
        let doc: Value = serde_json::from_str(&document(&found)).unwrap();
        assert_eq!(doc["tools"].as_array().map(Vec::len), Some(2));
    }
}
