//! AgentStack tools take their parameters from the package's `__init__.py`:
//! `toolc gen openai` on a package with typed, documented functions gives
//! the schema a developer would write by hand, checked field by field.

use serde_json::{Value, json};

use super::{TempDir, Test, root};

const PACKAGE: &str = "fixtures/gen/agentstack-python";

fn generate(path: &str) -> Vec<Value> {
    generate_with(path, &[])
}

fn generate_with(path: &str, flags: &[&str]) -> Vec<Value> {
    let mut args = vec!["gen", "openai"];
    args.extend_from_slice(flags);
    args.push(path);
    let output = Test::new().args(args).run();
    assert_eq!(output.code, 0, "gen openai failed:\n{}", output.stderr);
    let document: Value = serde_json::from_str(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", output.stdout));
    document.as_array().cloned().expect("a list of tools")
}

/// The `function` object of the tool named `name`.
fn function<'a>(tools: &'a [Value], name: &str) -> &'a Value {
    tools
        .iter()
        .map(|t| &t["function"])
        .find(|f| f["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name} in {tools:?}"))
}

fn property<'a>(function: &'a Value, name: &str) -> &'a Value {
    let property = &function["parameters"]["properties"][name];
    assert!(property.is_object(), "no property {name} in {function}");
    property
}

fn required(function: &Value) -> Vec<&str> {
    function["parameters"]["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn property_names(function: &Value) -> Vec<&str> {
    function["parameters"]["properties"]
        .as_object()
        .expect("properties")
        .keys()
        .map(String::as_str)
        .collect()
}

#[test]
fn tools_are_the_listed_public_functions() {
    let tools = generate(PACKAGE);
    let names: Vec<&str> = tools
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert_eq!(
        names,
        ["search_papers", "summarize", "tag_paper", "export_results"]
    );
    for tool in &tools {
        assert_eq!(tool["function"]["parameters"]["type"], "object");
    }
}

#[test]
fn google_style_function() {
    let tools = generate(PACKAGE);
    let search = function(&tools, "search_papers");
    // The whole description before `Args:`, as LangChain's and CrewAI's
    // tool wrappers give it to the model, not only its first line.
    assert_eq!(
        search["description"],
        "Search the paper index for a query.\n\nResults come back as JSON lines, best match first."
    );
    assert_eq!(
        property_names(search),
        [
            "query",
            "limit",
            "min_score",
            "open_access",
            "fields",
            "year",
            "venue",
            "sort"
        ]
    );
    assert_eq!(required(search), ["query"]);

    let query = property(search, "query");
    assert_eq!(query["type"], "string");
    assert_eq!(query["description"], "What to look for, in plain words.");
    assert!(query.get("default").is_none());

    let limit = property(search, "limit");
    assert_eq!(limit["type"], "integer");
    assert_eq!(limit["default"], 10);
    assert_eq!(limit["description"], "How many results to return.");

    let min_score = property(search, "min_score");
    assert_eq!(min_score["type"], "number");
    assert_eq!(min_score["default"], 0.5);
    assert_eq!(
        min_score["description"],
        "The lowest relevance score to keep, between 0 and 1."
    );

    let open_access = property(search, "open_access");
    assert_eq!(open_access["type"], "boolean");
    assert_eq!(open_access["default"], false);
    assert_eq!(open_access["description"], "Only papers anyone can read.");

    let fields = property(search, "fields");
    assert_eq!(fields["type"], "array");
    assert_eq!(fields["items"], json!({"type": "string"}));
    assert_eq!(fields["default"], json!(["title", "abstract"]));
    assert_eq!(fields["description"], "Which fields to search.");

    let year = property(search, "year");
    // Optional: the type or null, as pydantic has it.
    assert_eq!(
        year["anyOf"],
        json!([{"type": "integer"}, {"type": "null"}])
    );
    assert_eq!(year["default"], Value::Null);
    assert_eq!(year["description"], "Only papers from this year.");

    let venue = property(search, "venue");
    // Optional: the type or null, as pydantic has it.
    assert_eq!(
        venue["anyOf"],
        json!([{"type": "string"}, {"type": "null"}])
    );
    assert_eq!(venue["default"], Value::Null);
    assert_eq!(
        venue["description"],
        "Only papers from this journal or conference."
    );

    let sort = property(search, "sort");
    assert_eq!(sort["type"], "string");
    assert_eq!(sort["enum"], json!(["relevance", "date"]));
    assert_eq!(sort["default"], "relevance");
    assert_eq!(sort["description"], "How to order the results.");
}

#[test]
fn numpy_style_function() {
    let tools = generate(PACKAGE);
    let summarize = function(&tools, "summarize");
    assert_eq!(summarize["description"], "Summarize one paper.");
    assert_eq!(
        property_names(summarize),
        ["paper_id", "weights", "max_words"]
    );
    assert_eq!(required(summarize), ["paper_id", "weights"]);

    let paper_id = property(summarize, "paper_id");
    assert_eq!(paper_id["type"], "string");
    assert_eq!(
        paper_id["description"],
        "The paper's identifier in the index."
    );

    let weights = property(summarize, "weights");
    assert_eq!(weights["type"], "object");
    assert_eq!(weights["additionalProperties"], json!({"type": "integer"}));
    assert_eq!(
        weights["description"],
        "How much each section counts towards the summary."
    );

    // No hint: no type, but the default and the description stay.
    let max_words = property(summarize, "max_words");
    assert!(max_words.get("type").is_none(), "{max_words}");
    assert_eq!(max_words["default"], 200);
    assert_eq!(max_words["description"], "The summary's length limit.");
}

#[test]
fn rest_style_function() {
    let tools = generate(PACKAGE);
    let tag = function(&tools, "tag_paper");
    assert_eq!(tag["description"], "Attach tags to a paper.");
    // self, *args and **kwargs are not parameters of the tool.
    assert_eq!(property_names(tag), ["paper_id", "tags", "note"]);
    assert_eq!(required(tag), ["paper_id", "tags"]);

    let paper_id = property(tag, "paper_id");
    assert_eq!(paper_id["type"], "string");
    assert_eq!(paper_id["description"], "The paper's identifier.");

    let tags = property(tag, "tags");
    assert_eq!(tags["type"], "array");
    assert_eq!(tags["items"], json!({"type": "string"}));
    assert_eq!(tags["description"], "The tags to attach, lowercase.");

    let note = property(tag, "note");
    // Optional: the type or null, as pydantic has it.
    assert_eq!(note["anyOf"], json!([{"type": "string"}, {"type": "null"}]));
    assert_eq!(note["default"], Value::Null);
    assert_eq!(note["description"], "A note stored with the tags.");
}

#[test]
fn undocumented_function() {
    let tools = generate(PACKAGE);
    let export = function(&tools, "export_results");
    assert!(export.get("description").is_none(), "{export}");
    assert_eq!(property_names(export), ["destination", "format", "options"]);
    assert_eq!(required(export), ["destination"]);
    assert_eq!(property(export, "destination"), &json!({}));
    assert_eq!(
        property(export, "format"),
        &json!({"type": "string", "enum": ["csv", "json"], "default": "csv"})
    );
    assert_eq!(
        property(export, "options"),
        &json!({"type": "object", "default": {}})
    );
}

#[test]
fn without_usable_python_the_parameters_stay_unknown() {
    let config =
        std::fs::read_to_string(root().join(PACKAGE).join("config.json")).expect("read config");
    for init in [None, Some("def search_papers(:\n"), Some("\u{0}\u{ff}")] {
        let dir = TempDir::new("agentstack-python");
        dir.write("research/config.json", &config);
        if let Some(init) = init {
            dir.write("research/__init__.py", init);
        }
        let path = dir.path().join("research");
        // A module that does not parse is python-syntax-error, an error:
        // gen goes ahead only when told to.
        let tools = generate_with(path.to_str().expect("UTF-8 path"), &["--allow-errors"]);
        let search = function(&tools, "search_papers");
        assert_eq!(
            search["parameters"],
            json!({"type": "object", "properties": {}}),
            "{init:?}"
        );
        assert!(search.get("description").is_none());
    }
    // Not UTF-8 at all.
    let dir = TempDir::new("agentstack-python-bytes");
    dir.write("research/config.json", &config);
    dir.write(
        "research/__init__.py",
        b"def search_papers(q: str):\n    '\xff'\n",
    );
    let path = dir.path().join("research");
    let tools = generate(path.to_str().expect("UTF-8 path"));
    assert_eq!(
        function(&tools, "search_papers")["parameters"],
        json!({"type": "object", "properties": {}})
    );
}

#[test]
fn deeply_nested_python_does_not_crash_the_generator() {
    let dir = TempDir::new("agentstack-python-deep");
    dir.write(
        "pkg/config.json",
        r#"{"name": "pkg", "category": "c", "tools": ["f"]}"#,
    );
    let default = "[".repeat(5000) + &"]".repeat(5000);
    let hint = "list[".repeat(10_000) + "int" + &"]".repeat(10_000);
    dir.write(
        "pkg/__init__.py",
        format!("def f(x={default}, y: {hint} = None):\n    return ''\n"),
    );
    let path = dir.path().join("pkg");
    let tools = generate(path.to_str().expect("UTF-8 path"));
    let f = function(&tools, "f");
    // Too deep to read: no default, no type; but the tool and its parameters are there.
    assert!(f["parameters"]["properties"]["x"].get("default").is_none());
    assert!(f["parameters"]["properties"]["y"].get("type").is_none());
}
