//! Nachos tools take their parameters from the TypeScript class whose
//! `toolId` is the manifest's `provides.tool`: `toolc gen openai` on a tool
//! package gives the schema a developer would write by hand, checked field
//! by field.

use serde_json::{Value, json};

use super::{TempDir, Test, root};

const PACKAGE: &str = "fixtures/gen/nachos-typescript";

fn generate(path: &str) -> Vec<Value> {
    let output = Test::new().args(["gen", "openai", path]).run();
    assert_eq!(output.code, 0, "gen openai failed:\n{}", output.stderr);
    let document: Value = serde_json::from_str(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", output.stdout));
    document.as_array().cloned().expect("a list of tools")
}

fn only_function(tools: &[Value]) -> &Value {
    assert_eq!(tools.len(), 1, "{tools:?}");
    &tools[0]["function"]
}

fn property<'a>(function: &'a Value, name: &str) -> &'a Value {
    let property = &function["parameters"]["properties"][name];
    assert!(property.is_object(), "no property {name} in {function}");
    property
}

#[test]
fn the_class_gives_name_description_and_root() {
    let tools = generate(PACKAGE);
    let fetch = only_function(&tools);
    assert_eq!(fetch["name"], "web_fetch");
    // The manifest has no description: the class's is used.
    assert_eq!(
        fetch["description"],
        "Fetch a web page and return its content as text or markdown."
    );
    let parameters = &fetch["parameters"];
    assert_eq!(parameters["type"], "object");
    assert_eq!(parameters["required"], json!(["url"]));
    let names: Vec<&str> = parameters["properties"]
        .as_object()
        .expect("properties")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        names,
        [
            "url",
            "method",
            "format",
            "timeoutMs",
            "maxBytes",
            "followRedirects",
            "headers",
            "selectors"
        ]
    );
}

#[test]
fn strings_enums_and_defaults() {
    let tools = generate(PACKAGE);
    let fetch = only_function(&tools);
    let url = property(fetch, "url");
    assert_eq!(url["type"], "string");
    assert_eq!(url["format"], "uri");
    assert_eq!(url["description"], "The absolute http(s) URL to fetch.");
    assert!(url.get("default").is_none());

    let method = property(fetch, "method");
    assert_eq!(method["type"], "string");
    assert_eq!(method["enum"], json!(["GET", "HEAD"]));
    assert_eq!(method["default"], "GET");
    assert_eq!(
        method["description"],
        "HTTP method; HEAD returns only the headers."
    );

    // A backtick string without substitutions is a string.
    let format = property(fetch, "format");
    assert_eq!(format["enum"], json!(["text", "markdown", "html"]));
    assert_eq!(format["default"], "markdown");
    assert_eq!(format["description"], "How to return the body.");
}

#[test]
fn numbers_and_booleans() {
    let tools = generate(PACKAGE);
    let fetch = only_function(&tools);
    let timeout = property(fetch, "timeoutMs");
    assert_eq!(timeout["type"], "integer");
    assert_eq!(timeout["minimum"], 100);
    // `60_000`: numeric separators are read.
    assert_eq!(timeout["maximum"], 60000);
    assert_eq!(timeout["default"], 10000);
    assert_eq!(
        timeout["description"],
        "Give up after this many milliseconds."
    );

    let max_bytes = property(fetch, "maxBytes");
    assert_eq!(max_bytes["type"], "number");
    assert_eq!(max_bytes["default"].as_f64(), Some(1.5e6));

    let follow = property(fetch, "followRedirects");
    assert_eq!(follow["type"], "boolean");
    assert_eq!(follow["default"], true);
    assert_eq!(follow["description"], "Follow 3xx redirects.");
}

#[test]
fn nested_objects_and_arrays() {
    let tools = generate(PACKAGE);
    let fetch = only_function(&tools);
    assert_eq!(
        property(fetch, "headers"),
        &json!({
            "type": "object",
            "description": "Extra request headers.",
            "properties": {
                "user-agent": {"type": "string", "description": "User-Agent header."},
                "accept": {"type": "string", "description": "Accept header.", "default": "*/*"}
            },
            "required": []
        })
    );
    assert_eq!(
        property(fetch, "selectors"),
        &json!({
            "type": "array",
            "description": "CSS selectors whose text to keep; all of the page when empty.",
            "items": {"type": "string"},
            "default": []
        })
    );
}

#[test]
fn the_manifest_description_wins_and_non_literals_are_left_out() {
    let dir = TempDir::new("nachos-typescript");
    dir.write(
        "tool/manifest.json",
        r#"{"name": "Echo", "version": "1.0.0", "type": "tool", "description": "Echo text back.",
            "provides": {"tool": "echo", "securityTier": 0}}"#,
    );
    dir.write(
        "tool/src/tools/echo.ts",
        "let MAX = 10;\nexport class EchoTool {\n  readonly toolId = 'echo';\n  readonly description = 'From the class.';\n  readonly securityTier = SecurityTier.SAFE;\n  readonly parameters = {\n    type: 'object',\n    properties: {\n      text: { type: 'string', maxLength: MAX },\n      times: { type: 'integer', default: -1 },\n    },\n  };\n}\n",
    );
    // Declaration files and node_modules are not searched.
    dir.write(
        "tool/echo.d.ts",
        "declare class X { toolId = 'echo'; parameters = {}; }\n",
    );
    let path = dir.path().join("tool");
    let tools = generate(path.to_str().expect("UTF-8 path"));
    let echo = only_function(&tools);
    assert_eq!(echo["description"], "Echo text back.");
    assert_eq!(
        echo["parameters"],
        json!({
            "type": "object",
            "properties": {
                "text": {"type": "string"},
                "times": {"type": "integer", "default": -1}
            }
        })
    );
}

#[test]
fn without_a_class_the_parameters_stay_unknown() {
    let manifest =
        std::fs::read_to_string(root().join(PACKAGE).join("manifest.json")).expect("read manifest");
    for source in [
        None,
        Some("export class Other { readonly toolId = 'other'; }\n"),
    ] {
        let dir = TempDir::new("nachos-no-class");
        dir.write("tool/manifest.json", &manifest);
        if let Some(source) = source {
            dir.write("tool/src/other.ts", source);
        }
        let path = dir.path().join("tool");
        let tools = generate(path.to_str().expect("UTF-8 path"));
        let fetch = only_function(&tools);
        assert_eq!(
            fetch["parameters"],
            json!({"type": "object", "properties": {}}),
            "{source:?}"
        );
        assert!(fetch.get("description").is_none());
    }
}
