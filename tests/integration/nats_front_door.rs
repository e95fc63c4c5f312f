//! `toolc serve --nats-url`: an MCP server whose tools are a NATS fleet's.
//! nats-py `nats.micro` services (see [`crate::nats_front::Service`]) are
//! the workers; a raw stdio MCP client lists their tools, calls them and
//! hears of workers coming and going.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::nats_front::{Service, metadata};
use crate::nats_server::NatsServer;
use crate::serve_hostile::RawStdio;

fn add_schema() -> Value {
    json!({"type": "object",
           "properties": {"a": {"type": "number", "description": "The first addend."},
                          "b": {"type": "number", "description": "The second addend."}},
           "required": ["a", "b"]})
}

fn tool(name: &str, description: &str) -> Value {
    json!({"name": name, "metadata": metadata(description, &add_schema(), None)})
}

/// The front door of the fleet at `url`, polling it every half second.
fn front_door(url: &str, more: &[&str]) -> RawStdio {
    let mut args: Vec<String> = ["--nats-url", url, "--nats-poll", "0.5"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.extend(more.iter().map(|s| s.to_string()));
    RawStdio::start(&args)
}

/// Waits (at most 15 s) for `notifications/tools/list_changed`.
fn await_list_changed(client: &mut RawStdio, why: &str) {
    let started = Instant::now();
    loop {
        assert!(started.elapsed() < Duration::from_secs(15), "{why}");
        let message = client.next_message();
        if message["method"] == "notifications/tools/list_changed" {
            return;
        }
    }
}

fn call(client: &mut RawStdio, name: &str, arguments: Value) -> Value {
    let answer = client.request("tools/call", json!({"name": name, "arguments": arguments}));
    answer
        .get("result")
        .cloned()
        .unwrap_or_else(|| panic!("{answer}"))
}

fn text(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{result}"))
        .to_string()
}

#[test]
fn nats_front_door_lists_the_fleets_tools_and_forwards_calls() {
    let server = NatsServer::start();
    let service = Service::start(
        &server.url,
        "adders",
        &json!([tool("add", "Add two numbers.")]),
    );
    let mut client = front_door(&server.url, &[]);
    let listed = client.request("tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().expect("tools");
    assert_eq!(tools.len(), 1, "{listed}");
    assert_eq!(tools[0]["name"], "add");
    assert_eq!(tools[0]["description"], "Add two numbers.");
    assert_eq!(tools[0]["inputSchema"], add_schema());

    let result = call(&mut client, "add", json!({"a": 2, "b": 3}));
    assert_ne!(result["isError"], true, "{result}");
    let answer: Value = serde_json::from_str(&text(&result)).expect("the service's JSON");
    assert_eq!(answer, json!({"tool": "add", "args": {"a": 2, "b": 3}}));
    let requests = service.requests();
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert_eq!(requests[0]["type"], "tool.request");
    assert_eq!(requests[0]["payload"], json!({"a": 2, "b": 3}));

    // A name the fleet never served is the protocol error of any server.
    let unknown = client.request("tools/call", json!({"name": "ad", "arguments": {}}));
    assert!(unknown.get("error").is_some(), "{unknown}");
    assert!(client.end().success());
}

#[test]
fn nats_front_door_tells_clients_when_workers_come_and_go() {
    let server = NatsServer::start();
    let _adders = Service::start(
        &server.url,
        "adders",
        &json!([tool("add", "Add two numbers.")]),
    );
    let mut client = front_door(&server.url, &["--timeout", "3"]);
    assert_eq!(client.tool_names(), ["add"]);

    let multipliers = Service::start(
        &server.url,
        "multipliers",
        &json!([tool("multiply", "Multiply two numbers.")]),
    );
    await_list_changed(
        &mut client,
        "no list_changed after a worker with a new tool came",
    );
    assert_eq!(client.tool_names(), ["add", "multiply"]);
    let result = call(&mut client, "multiply", json!({"a": 4, "b": 5}));
    assert!(text(&result).contains("\"tool\": \"multiply\""), "{result}");

    drop(multipliers);
    await_list_changed(
        &mut client,
        "no list_changed after the last worker of a tool left",
    );
    assert_eq!(client.tool_names(), ["add"]);
    let started = Instant::now();
    let gone = call(&mut client, "multiply", json!({"a": 1, "b": 1}));
    assert_eq!(gone["isError"], true, "{gone}");
    let said = text(&gone);
    assert!(said.starts_with("NO_WORKER: "), "{said}");
    assert!(said.contains("\"multiply\""), "{said}");
    assert!(started.elapsed() < Duration::from_secs(2), "{said}");
    assert!(client.end().success());
}

#[test]
fn nats_front_door_answers_a_call_whose_worker_just_left() {
    let server = NatsServer::start();
    let _adders = Service::start(
        &server.url,
        "adders",
        &json!([tool("add", "Add two numbers.")]),
    );
    let leaving = Service::start(&server.url, "leaving", &json!([tool("half", "Halve.")]));
    // Polled rarely: the call goes out before the fleet is asked again.
    let mut client = RawStdio::start(&[
        "--nats-url".to_string(),
        server.url.clone(),
        "--nats-poll".to_string(),
        "60".to_string(),
        "--timeout".to_string(),
        "2".to_string(),
    ]);
    assert_eq!(client.tool_names(), ["add", "half"]);
    drop(leaving);
    let started = Instant::now();
    let gone = call(&mut client, "half", json!({"a": 1, "b": 1}));
    assert_eq!(gone["isError"], true, "{gone}");
    let said = text(&gone);
    assert!(
        said.starts_with("NO_WORKER: no worker serves \"half\""),
        "{said}"
    );
    assert!(started.elapsed() < Duration::from_secs(6), "{said}");
    assert!(client.end().success());
}

#[test]
fn nats_front_door_keeps_its_tools_and_answers_while_nats_is_down() {
    let mut server = NatsServer::start();
    let _adders = Service::start(
        &server.url,
        "adders",
        &json!([tool("add", "Add two numbers.")]),
    );
    let mut client = front_door(&server.url, &["--timeout", "2"]);
    assert_eq!(client.tool_names(), ["add"]);
    server.kill();
    // Polls that cannot reach NATS are no news of the workers.
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(client.tool_names(), ["add"]);
    let started = Instant::now();
    let result = call(&mut client, "add", json!({"a": 1, "b": 2}));
    assert_eq!(result["isError"], true, "{result}");
    assert!(text(&result).contains("\"add\""), "{result}");
    assert!(started.elapsed() < Duration::from_secs(8), "{result}");
    assert!(client.end().success());
}
