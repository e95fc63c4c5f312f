//! Provider documents toolc writes, read as input: OpenAI's Responses API
//! tools (`gen openai-responses`) with their own strict default, and
//! Gemini's function declarations (`gen gemini`, or a request's `tools`)
//! in Gemini's schema subset.

use serde_json::{Value, json};

use super::{Output, TempDir, Test};

/// Two parameters, one optional.
fn parameters() -> Value {
    json!({"type": "object", "properties": {
        "query": {"type": "string", "description": "What to look for."},
        "limit": {"type": "integer", "description": "At most this many."}
    }, "required": ["query"]})
}

fn mcp_source() -> Value {
    json!({"tools": [
        {"name": "search", "description": "Search the index.", "inputSchema": parameters()},
        {"name": "ping", "description": "Check the index is up.", "inputSchema": {"type": "object", "properties": {}}}
    ]})
}

fn toolc(dir: &TempDir, args: &[&str]) -> Output {
    Test::new().current_dir(dir.path()).args(args).run()
}

fn read(dir: &TempDir, file: &str) -> Value {
    let text = std::fs::read_to_string(dir.path().join(file)).expect("written");
    serde_json::from_str(&text).expect("JSON")
}

/// The report of `lint --format json FILE`.
fn lint(dir: &TempDir, file: &str) -> Value {
    toolc(dir, &["lint", "--format", "json", file]).json()
}

fn rules(report: &Value) -> Vec<String> {
    report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| d["rule"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn gen_openai_responses_writes_flat_tools_that_read_back() {
    let dir = TempDir::new("responses-gen");
    dir.write("mcp.json", mcp_source().to_string());
    let output = toolc(
        &dir,
        &[
            "gen",
            "openai-responses",
            "mcp.json",
            "-o",
            "responses.json",
        ],
    );
    assert_eq!(output.code, 0, "{}", output.stderr);
    let written = read(&dir, "responses.json");
    let first = &written[0];
    assert_eq!(first["type"], "function");
    assert_eq!(first["name"], "search");
    assert!(first.get("function").is_none(), "{first:#}");
    assert_eq!(first["parameters"], parameters());
    // Unsaid, strict would be on for a schema that is not strict's.
    assert_eq!(first["strict"], false, "{first:#}");

    let report = lint(&dir, "responses.json");
    assert_eq!(
        report["files"][0]["format"], "openai-responses",
        "{report:#}"
    );
    assert_eq!(report["files"][0]["tools"], 2);
    assert_eq!(report["summary"]["errors"], 0, "{report:#}");

    // --strict: strict mode's subset, and nothing strict mode refuses.
    let output = toolc(
        &dir,
        &[
            "gen",
            "openai-responses",
            "--strict",
            "mcp.json",
            "-o",
            "strict.json",
        ],
    );
    assert_eq!(output.code, 0, "{}", output.stderr);
    let strict = read(&dir, "strict.json");
    assert_eq!(strict[0]["strict"], true);
    assert_eq!(strict[0]["parameters"]["additionalProperties"], false);
    assert_eq!(
        strict[0]["parameters"]["required"],
        json!(["query", "limit"])
    );
    let report = lint(&dir, "strict.json");
    assert_eq!(report["summary"]["errors"], 0, "{report:#}");
}

/// A Responses tool that does not say `strict` is strict: lint checks it
/// for strict mode without being asked; one saying `false` is not.
#[test]
fn responses_tools_are_checked_for_strict_mode_unless_they_say_false() {
    let dir = TempDir::new("responses-strict");
    let tool = |name: &str, strict: Option<bool>| {
        let mut tool = json!({"type": "function", "name": name, "description": "Search.", "parameters": parameters()});
        if let Some(flag) = strict {
            tool["strict"] = json!(flag);
        }
        tool
    };
    dir.write("default.json", json!([tool("search", None)]).to_string());
    dir.write("lax.json", json!([tool("search", Some(false))]).to_string());
    let default = lint(&dir, "default.json");
    assert_eq!(default["files"][0]["format"], "openai-responses");
    let found = rules(&default);
    assert!(
        found.contains(&"strict-all-required".to_string()),
        "{default:#}"
    );
    assert!(
        found.contains(&"strict-additional-properties".to_string()),
        "{default:#}"
    );
    let lax = lint(&dir, "lax.json");
    assert!(
        rules(&lax).iter().all(|r| !r.starts_with("strict-")),
        "{lax:#}"
    );
    assert_eq!(lax["summary"]["errors"], 0, "{lax:#}");

    // The default carries over to Chat Completions, where it is not one.
    let output = toolc(
        &dir,
        &[
            "gen",
            "openai",
            "default.json",
            "lax.json",
            "--allow-errors",
        ],
    );
    let chat: Value = serde_json::from_str(&output.stdout).expect("JSON");
    assert_eq!(chat[0]["function"]["strict"], true, "{chat:#}");
    assert_eq!(chat[1]["function"]["strict"], false, "{chat:#}");
}

#[test]
fn a_list_mixing_chat_completions_and_responses_tools_is_an_error() {
    let dir = TempDir::new("responses-mixed");
    let mixed = json!({"tools": [
        {"type": "function", "function": {"name": "ping", "parameters": {"type": "object", "properties": {}}}},
        {"type": "function", "name": "search", "parameters": parameters()}
    ]});
    dir.write("tools/openai.json", mixed.to_string());
    for path in ["tools/openai.json", "tools"] {
        let output = toolc(&dir, &["lint", "--format", "json", path]);
        assert_eq!(output.code, 1, "{}", output.stdout);
        let report = output.json();
        let diagnostic = &report["diagnostics"][0];
        assert_eq!(diagnostic["rule"], "unknown-format", "{report:#}");
        assert_eq!(diagnostic["pointer"], "", "{report:#}");
        let message = diagnostic["message"].as_str().expect("message");
        assert!(
            message.contains("/tools/0 is a Chat Completions function tool")
                && message.contains("/tools/1 is a Responses API function tool"),
            "{message}"
        );
        // At the first entry of the other shape.
        assert_eq!(diagnostic["line"], 1);
        assert!(diagnostic["column"].as_u64() > Some(90), "{diagnostic:#}");
    }
}

#[test]
fn gen_gemini_output_reads_back_as_the_same_tools() {
    let dir = TempDir::new("gemini-read-back");
    dir.write("mcp.json", mcp_source().to_string());
    let output = toolc(&dir, &["gen", "gemini", "mcp.json", "-o", "gemini.json"]);
    assert_eq!(output.code, 0, "{}", output.stderr);
    let report = lint(&dir, "gemini.json");
    assert_eq!(report["files"][0]["format"], "gemini", "{report:#}");
    assert_eq!(report["files"][0]["tools"], 2);
    assert_eq!(report["summary"]["errors"], 0, "{report:#}");
    let back = toolc(&dir, &["gen", "mcp", "gemini.json"]);
    assert_eq!(back.code, 0, "{}", back.stderr);
    let back: Value = serde_json::from_str(&back.stdout).expect("JSON");
    assert_eq!(back["tools"][0]["name"], "search");
    assert_eq!(back["tools"][0]["description"], "Search the index.");
    assert_eq!(back["tools"][0]["inputSchema"], parameters());
    assert_eq!(
        back["tools"][1]["inputSchema"],
        json!({"type": "object", "properties": {}})
    );
}

/// A Gemini request's tools, in the OpenAPI spelling users write:
/// capital types, `nullable`, `propertyOrdering`; beside a built-in tool.
#[test]
fn gemini_request_tools_in_openapi_spelling_lower_to_json_schema() {
    let dir = TempDir::new("gemini-openapi");
    let request = json!({"tools": [{"functionDeclarations": [{
        "name": "set_alarm",
        "description": "Set an alarm.",
        "parameters": {
            "type": "OBJECT",
            "propertyOrdering": ["time", "label"],
            "properties": {
                "label": {"type": "STRING", "nullable": true, "description": "A label."},
                "time": {"type": "STRING", "description": "When, as HH:MM."},
                "days": {"type": "ARRAY", "items": {"type": "STRING", "format": "enum", "enum": ["mon", "tue"]}}
            },
            "required": ["time"]
        }
    }]}, {"googleSearch": {}}]});
    dir.write("request.json", request.to_string());
    let report = lint(&dir, "request.json");
    assert_eq!(report["files"][0]["format"], "gemini", "{report:#}");
    assert_eq!(report["summary"]["errors"], 0, "{report:#}");
    let output = toolc(&dir, &["gen", "mcp", "request.json"]);
    assert_eq!(output.code, 0, "{}", output.stderr);
    let mcp: Value = serde_json::from_str(&output.stdout).expect("JSON");
    let schema = &mcp["tools"][0]["inputSchema"];
    assert_eq!(
        *schema,
        json!({"type": "object", "properties": {
            "time": {"type": "string", "description": "When, as HH:MM."},
            "label": {"type": ["string", "null"], "description": "A label."},
            "days": {"type": "array", "items": {"type": "string", "enum": ["mon", "tue"]}}
        }, "required": ["time"]})
    );
    let order: Vec<&String> = schema["properties"]
        .as_object()
        .expect("properties")
        .keys()
        .collect();
    assert_eq!(order, ["time", "label", "days"]);
}

/// Gemini's own tools beside the declarations (`googleSearch`) are no
/// function any other format can hold: converting says so, where it is,
/// rather than dropping them unsaid; MCP keeps them for the way back.
#[test]
fn gemini_built_in_tools_are_reported_when_converting() {
    let dir = TempDir::new("gemini-built-ins");
    dir.write(
        "gemini.json",
        json!({"tools": [
            {"functionDeclarations": [{"name": "f", "description": "F.", "parameters": parameters()}]},
            {"googleSearch": {}},
            {"codeExecution": {}}
        ]})
        .to_string(),
    );
    let to_openai = toolc(
        &dir,
        &[
            "convert",
            "--to",
            "openai",
            "gemini.json",
            "-o",
            "openai.json",
            "--show-losses",
        ],
    );
    assert_eq!(to_openai.code, 0, "{}", to_openai.stderr);
    for key in ["googleSearch", "codeExecution"] {
        assert!(
            to_openai.stderr.contains(&format!(
                "gemini field \"{key}\" cannot be expressed in openai"
            )),
            "{key} dropped unsaid:\n{}",
            to_openai.stderr
        );
    }
    let strict = toolc(
        &dir,
        &[
            "convert",
            "--to",
            "openai",
            "gemini.json",
            "-o",
            "strict.json",
            "--strict",
        ],
    );
    assert_eq!(strict.code, 1, "{}", strict.stderr);
}
