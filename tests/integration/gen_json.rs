//! `toolc gen openai | anthropic | mcp | gemini`: the provider JSON targets.
//! Each is snapshotted over fixtures and the real-world corpus; the strict
//! OpenAI output passes toolc's own strict rules, the MCP output validates
//! against the MCP 2025-11-25 schema, and the Gemini output stays inside
//! Gemini's schema subset (and passes toolc's Gemini rules), cyclic
//! references included.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{TempDir, Test, root};

/// Where the corpus is, so that paths (and snapshots) stay relative.
fn shared() -> PathBuf {
    root().join("../shared")
}

/// Fixtures that generate without errors, one or more tools each, no two
/// tools with the same name.
const NORA: &str = "fixtures/rules/nora-property-missing-required/good";
const STRICT_FIXTURES: [&str; 4] = [
    "fixtures/rules/strict-all-required/bad",
    "fixtures/rules/strict-additional-properties/bad",
    "fixtures/rules/strict-unsupported-format/bad",
    NORA,
];
/// Fixtures whose manifests have error-level findings (a root without a
/// type, a property without one): generated with --allow-errors.
const FIXTURES_WITH_ERRORS: [&str; 3] = [
    "fixtures/rules/strict-unsupported-keyword/bad",
    "fixtures/rules/root-combinator/bad",
    "fixtures/rules/gemini-typeless-node/bad",
];
const GEMINI_FIXTURES: [&str; 2] = [
    "fixtures/rules/gemini-unsupported-keyword/bad",
    "fixtures/rules/gemini-enum-not-string/bad",
];
const MCP_FIXTURE: &str = "fixtures/rules/mcp-annotation-conflict/good";
const COMPOSITION: &str = "corpus/mcp-examples/tool-with-composition-input-schema.json";
const ARRAY_OUTPUT: &str = "corpus/mcp-examples/tool-with-array-output-schema.json";
const PLAIN_MCP: &str = "corpus/mcp-examples/with-default-2020-12-input-schema.json";

/// Runs `toolc gen TARGET ARGS...` in `dir`, expecting success.
fn generate(dir: &Path, target: &str, args: &[&str]) -> super::Output {
    let output = Test::new()
        .current_dir(dir)
        .args(["gen", target])
        .args(args)
        // Every note on its own line, as these tests read them.
        .args(["--show-notes"])
        .run();
    assert_eq!(
        output.code, 0,
        "gen {target} {args:?} failed:\n{}",
        output.stderr
    );
    output
}

fn document(output: &super::Output) -> Value {
    serde_json::from_str(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", output.stdout))
}

/// What a snapshot holds: the document, then the notes and warnings.
fn rendered(output: &super::Output) -> String {
    format!("{}----- stderr -----\n{}", output.stdout, output.stderr)
}

fn with_errors(paths: &[&'static str]) -> Vec<&'static str> {
    let mut args = vec!["--allow-errors"];
    args.extend(paths);
    args
}

// ---------------------------------------------------------------- snapshots

#[test]
fn openai_snapshot() {
    let output = generate(&root(), "openai", &[NORA, MCP_FIXTURE]);
    insta::assert_snapshot!("openai_fixtures", rendered(&output));
    let output = generate(
        &shared(),
        "openai",
        &[COMPOSITION, "corpus/nachos/tools/filesystem"],
    );
    insta::assert_snapshot!("openai_corpus", rendered(&output));
}

#[test]
fn openai_strict_snapshot() {
    let mut args = vec!["--strict"];
    args.extend(STRICT_FIXTURES);
    let output = generate(&root(), "openai", &args);
    insta::assert_snapshot!("openai_strict_fixtures", rendered(&output));
    let mut args = vec!["--strict"];
    args.extend(with_errors(&FIXTURES_WITH_ERRORS[..2]));
    let output = generate(&root(), "openai", &args);
    insta::assert_snapshot!("openai_strict_fixtures_with_errors", rendered(&output));
    let output = generate(
        &shared(),
        "openai",
        // (Its free-key maps are errors under --strict: see the report.)
        &["--strict", "--allow-errors", "corpus/agentcli", COMPOSITION],
    );
    insta::assert_snapshot!("openai_strict_corpus", rendered(&output));
}

#[test]
fn anthropic_snapshot() {
    let output = generate(
        &root(),
        "anthropic",
        &with_errors(&[NORA, FIXTURES_WITH_ERRORS[1]]),
    );
    insta::assert_snapshot!("anthropic_fixtures", rendered(&output));
    let output = generate(
        &shared(),
        "anthropic",
        &[COMPOSITION, "corpus/nachos/tools/filesystem"],
    );
    insta::assert_snapshot!("anthropic_corpus", rendered(&output));
}

#[test]
fn mcp_snapshot() {
    let output = generate(&root(), "mcp", &[MCP_FIXTURE, NORA]);
    insta::assert_snapshot!("mcp_fixtures", rendered(&output));
    let output = generate(
        &shared(),
        "mcp",
        &[
            "corpus/agentstack/permissions",
            "corpus/nachos/tools",
            ARRAY_OUTPUT,
        ],
    );
    insta::assert_snapshot!("mcp_corpus", rendered(&output));
}

#[test]
fn gemini_snapshot() {
    let mut paths = GEMINI_FIXTURES.to_vec();
    paths.extend(FIXTURES_WITH_ERRORS);
    let output = generate(&root(), "gemini", &with_errors(&paths));
    insta::assert_snapshot!("gemini_fixtures", rendered(&output));
    let output = generate(&shared(), "gemini", &["corpus/agentcli", COMPOSITION]);
    insta::assert_snapshot!("gemini_corpus", rendered(&output));
}

// ------------------------------------------------------------------- openai

/// Every strict-* rule (and root-combinator, which strict mode also
/// enforces) finds nothing in the strict output.
#[test]
fn openai_strict_output_passes_the_strict_rules() {
    let runs: [(PathBuf, Vec<&str>); 3] = [
        (root(), STRICT_FIXTURES.to_vec()),
        (root(), with_errors(&FIXTURES_WITH_ERRORS)),
        // The agentcli corpus has maps of free keys, which strict mode
        // cannot express: refused without --allow-errors (see interop.rs).
        (
            shared(),
            vec![
                "--allow-errors",
                "corpus/agentcli",
                COMPOSITION,
                "corpus/nachos/tools/filesystem",
            ],
        ),
    ];
    for (dir, paths) in runs {
        let mut args = vec!["--strict"];
        args.extend(&paths);
        let output = generate(&dir, "openai", &args);
        let tools = document(&output);
        for tool in tools.as_array().expect("array") {
            assert_eq!(tool["function"]["strict"], true, "{tool}");
        }
        let findings = relint(&output.stdout, "openai-strict", "openai.json");
        let strict: Vec<&Value> = findings
            .iter()
            .filter(|d| {
                let rule = d["rule"].as_str().unwrap_or_default();
                rule.starts_with("strict-") || rule == "root-combinator"
            })
            .collect();
        assert!(
            strict.is_empty(),
            "strict findings in the output of {paths:?}:\n{strict:#?}"
        );
    }
}

/// Lints `text` written to a file, with `--target TARGET`; the findings.
fn relint(text: &str, target: &str, name: &str) -> Vec<Value> {
    let dir = TempDir::new(&format!("gen-json-relint-{target}"));
    dir.write(name, text);
    let report = Test::new()
        .current_dir(dir.path())
        .args(["lint", "--format", "json", "--target", target, name])
        .run()
        .json();
    assert_eq!(report["summary"]["files"], 1, "{report}");
    report["diagnostics"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn openai_strict_makes_optional_properties_required_and_nullable() {
    let output = generate(&root(), "openai", &["--strict", NORA]);
    let parameters = &document(&output)[0]["function"]["parameters"];
    assert_eq!(parameters["required"], json!(["path", "max_bytes"]));
    assert_eq!(parameters["additionalProperties"], false);
    assert_eq!(
        parameters["properties"]["max_bytes"]["type"],
        json!(["integer", "null"])
    );
    assert_eq!(parameters["properties"]["path"]["type"], "string");
    // The note points at the property in NORA's own file, line and column.
    assert!(
        output.stderr.contains(&format!(
            "note: {NORA}/tool.json:9:7: property \"max_bytes\" was optional"
        )),
        "{}",
        output.stderr
    );
    assert!(
        output
            .stderr
            .contains("(at /parameters/properties/max_bytes)"),
        "{}",
        output.stderr
    );
}

#[test]
fn openai_without_strict_keeps_the_schema() {
    let input =
        std::fs::read_to_string(root().join("fixtures/rules/strict-all-required/bad/openai.json"))
            .expect("fixture");
    let input: Value = serde_json::from_str(&input).expect("JSON");
    let output = generate(
        &root(),
        "openai",
        &["fixtures/rules/strict-all-required/bad"],
    );
    assert_eq!(document(&output), input);
    assert!(output.stderr.is_empty(), "{}", output.stderr);
}

// ---------------------------------------------------------------- anthropic

#[test]
fn anthropic_input_schemas_are_objects_without_root_combinators() {
    let output = generate(
        &root(),
        "anthropic",
        &with_errors(&[
            NORA,
            MCP_FIXTURE,
            FIXTURES_WITH_ERRORS[0],
            FIXTURES_WITH_ERRORS[1],
        ]),
    );
    let tools = document(&output);
    let tools = tools.as_array().expect("array");
    assert_eq!(tools.len(), 1 + 4 + 2 + 4);
    for tool in tools {
        let keys: Vec<&str> = tool
            .as_object()
            .expect("object")
            .keys()
            .map(String::as_str)
            .collect();
        // (`strict` where the source said it: Anthropic has it too.)
        let keys: Vec<&str> = keys.into_iter().filter(|k| *k != "strict").collect();
        assert_eq!(keys, ["name", "description", "input_schema"], "{tool}");
        let schema = &tool["input_schema"];
        assert_eq!(schema["type"], "object", "{tool}");
        for combinator in ["anyOf", "oneOf", "allOf"] {
            assert!(schema.get(combinator).is_none(), "{tool}");
        }
    }
    let findings = relint(&output.stdout, "anthropic", "anthropic-tools.json");
    assert!(
        findings.iter().all(|d| d["rule"] != "root-combinator"),
        "{findings:#?}"
    );
}

// ---------------------------------------------------------------------- mcp

fn mcp_validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(shared().join("schemas/mcp-2025-11-25.schema.json"))
        .expect("read the MCP schema");
    let schema: Value = serde_json::from_str(&text).expect("schema is JSON");
    let list_tools_result = json!({
        "$schema": schema["$schema"],
        "$defs": schema["$defs"],
        "$ref": "#/$defs/ListToolsResult",
    });
    jsonschema::options()
        .build(&list_tools_result)
        .expect("compile the MCP schema")
}

fn assert_valid_mcp(validator: &jsonschema::Validator, result: &Value, what: &str) {
    let errors: Vec<String> = validator
        .iter_errors(result)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "the tools/list result of {what} does not validate:\n{}",
        errors.join("\n")
    );
}

#[test]
fn mcp_output_validates_against_the_mcp_schema() {
    let validator = mcp_validator();
    // The validator is not vacuous.
    assert!(!validator.is_valid(&json!({"tools": [{"name": "x"}]})));
    assert!(
        !validator.is_valid(&json!({"tools": [{"name": "x", "inputSchema": {"type": "string"}}]}))
    );
    let runs: [(PathBuf, Vec<&str>); 4] = [
        (shared(), vec!["corpus/agentstack/permissions"]),
        (
            shared(),
            vec![
                "corpus/nachos/tools",
                "corpus/agentcli",
                PLAIN_MCP,
                ARRAY_OUTPUT,
            ],
        ),
        (shared(), vec![COMPOSITION]),
        (
            root(),
            with_errors(&[
                NORA,
                MCP_FIXTURE,
                FIXTURES_WITH_ERRORS[0],
                FIXTURES_WITH_ERRORS[1],
            ]),
        ),
    ];
    for (dir, paths) in runs {
        let output = generate(&dir, "mcp", &paths);
        let result = document(&output);
        assert!(!result["tools"].as_array().expect("tools").is_empty());
        assert_valid_mcp(&validator, &result, &format!("{paths:?}"));
    }
}

fn mcp_tool<'v>(result: &'v Value, name: &str) -> &'v Value {
    result["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name} in {result}"))
}

#[test]
fn mcp_annotations_follow_what_the_manifest_says() {
    let output = generate(
        &shared(),
        "mcp",
        &[
            "corpus/agentstack/permissions/sql",
            "corpus/agentstack/permissions/code_interpreter",
            "corpus/nachos/tools/filesystem/manifest.read.json",
            "corpus/nachos/tools/browser",
        ],
    );
    let result = document(&output);
    // AgentStack actions: ["read"] only, read/write/delete, execute.
    assert_eq!(
        mcp_tool(&result, "get_schema")["annotations"],
        json!({"readOnlyHint": true})
    );
    assert_eq!(
        mcp_tool(&result, "execute_query")["annotations"],
        json!({"readOnlyHint": false, "destructiveHint": true})
    );
    // Nachos: no network egress is a closed world; the display name is the title.
    let read = mcp_tool(&result, "filesystem_read");
    assert_eq!(read["annotations"], json!({"openWorldHint": false}));
    assert!(read["title"].is_string());
    // Egress to the web is an open world.
    assert_eq!(
        mcp_tool(&result, "browser")["annotations"],
        json!({"openWorldHint": true})
    );
}

#[test]
fn mcp_keeps_what_an_mcp_input_says() {
    let output = generate(&root(), "mcp", &[MCP_FIXTURE]);
    let result = document(&output);
    assert_eq!(
        mcp_tool(&result, "git_log")["annotations"],
        json!({"title": "Git log", "readOnlyHint": true, "openWorldHint": false})
    );
    let dir = TempDir::new("gen-mcp-output-schema");
    dir.write(
        "server.json",
        r#"{"tools": [{"name": "stats", "title": "Stats", "description": "Counts.",
            "inputSchema": {"type": "object", "properties": {}},
            "outputSchema": {"type": "object", "properties": {"count": {"type": "integer"}}},
            "_meta": {"example.com/owner": "ops"}}]}"#,
    );
    let output = generate(dir.path(), "mcp", &["server.json"]);
    let tool = &document(&output)["tools"][0];
    let keys: Vec<&str> = tool
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "name",
            "title",
            "description",
            "inputSchema",
            "outputSchema",
            "_meta"
        ]
    );
    assert_eq!(
        tool["outputSchema"]["properties"]["count"]["type"],
        "integer"
    );
    // An output schema MCP 2025-11-25 does not allow is dropped, with a warning.
    let output = generate(&shared(), "mcp", &[ARRAY_OUTPUT]);
    assert!(document(&output)["tools"][0].get("outputSchema").is_none());
    assert!(
        output.stderr.contains(&format!(
            "warning: {ARRAY_OUTPUT}:9:3: dropped \"outputSchema\""
        )),
        "{}",
        output.stderr
    );
}

// ------------------------------------------------------------------- gemini

/// Keywords that must not appear in any schema node of Gemini output.
const NOT_FOR_GEMINI: &[&str] = &[
    "$ref",
    "$defs",
    "definitions",
    "$schema",
    "const",
    "additionalProperties",
    "propertyNames",
    "patternProperties",
    "multipleOf",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "oneOf",
    "allOf",
    "not",
    "$comment",
    "examples",
    "uniqueItems",
    "prefixItems",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
];

/// The fields of Gemini's `Schema` message: nothing else may appear.
const GEMINI_FIELDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

/// Checks one schema node and everything below it; returns how many
/// nodes it visited.
fn assert_gemini_node(node: &Value, at: &str) -> usize {
    let object = node
        .as_object()
        .unwrap_or_else(|| panic!("{at}: a schema node that is not an object: {node}"));
    for keyword in NOT_FOR_GEMINI {
        assert!(
            !object.contains_key(*keyword),
            "{at}: has {keyword:?}: {node}"
        );
    }
    for key in object.keys() {
        assert!(
            GEMINI_FIELDS.contains(&key.as_str()),
            "{at}: has {key:?}: {node}"
        );
    }
    if object.get("type").is_some_and(|t| t == "string")
        && let Some(format) = object.get("format")
    {
        assert!(
            format == "enum" || format == "date-time",
            "{at}: format {format}"
        );
    }
    match object.get("type") {
        Some(Value::String(_)) => {}
        None => assert!(
            object.contains_key("anyOf"),
            "{at}: no type and no anyOf: {node}"
        ),
        Some(other) => panic!("{at}: type is not one string: {other}"),
    }
    if object.get("type").is_some_and(|t| t == "array") {
        assert!(
            object["items"].is_object(),
            "{at}: an array without items: {node}"
        );
    }
    if let Some(values) = object.get("enum") {
        let values = values.as_array().expect("enum is an array");
        assert!(values.iter().all(Value::is_string), "{at}: enum {values:?}");
    }
    let mut visited = 1;
    if let Some(properties) = object.get("properties") {
        for (name, property) in properties.as_object().expect("properties is an object") {
            visited += assert_gemini_node(property, &format!("{at}/properties/{name}"));
        }
    }
    if let Some(items) = object.get("items") {
        visited += assert_gemini_node(items, &format!("{at}/items"));
    }
    if let Some(branches) = object.get("anyOf") {
        for (i, branch) in branches
            .as_array()
            .expect("anyOf is an array")
            .iter()
            .enumerate()
        {
            visited += assert_gemini_node(branch, &format!("{at}/anyOf/{i}"));
        }
    }
    visited
}

/// Asserts the Gemini subset over a whole document; the declarations.
fn assert_gemini_document(output: &super::Output) -> Vec<Value> {
    let document = document(output);
    let keys: Vec<&String> = document.as_object().expect("object").keys().collect();
    assert_eq!(keys, ["functionDeclarations"]);
    let declarations = document["functionDeclarations"]
        .as_array()
        .expect("declarations")
        .clone();
    for declaration in &declarations {
        let name = declaration["name"].as_str().expect("name");
        // A tool without arguments has no `parameters` (Gemini rejects an
        // object with no properties); one with arguments has an object.
        let Some(parameters) = declaration.get("parameters") else {
            continue;
        };
        let properties = parameters["properties"].as_object().map_or(0, |p| p.len());
        assert!(
            properties > 0 || parameters.get("anyOf").is_some(),
            "{name}: empty parameters"
        );
        assert_eq!(parameters["type"], "object", "{name}");
        assert!(assert_gemini_node(parameters, name) >= 1);
    }
    declarations
}

/// The declarations as OpenAI tools, for linting with `--target gemini`.
fn as_openai_tools(declarations: &[Value]) -> String {
    let tools: Vec<Value> = declarations
        .iter()
        .map(|d| json!({"type": "function", "function": d}))
        .collect();
    serde_json::to_string_pretty(&tools).expect("serialize")
}

#[test]
fn gemini_output_is_in_geminis_subset() {
    let mut fixtures = GEMINI_FIXTURES.to_vec();
    fixtures.extend(FIXTURES_WITH_ERRORS);
    fixtures.extend([NORA, "fixtures/rules/strict-additional-properties/bad"]);
    let runs: [(PathBuf, Vec<&str>); 3] = [
        (root(), with_errors(&fixtures)),
        (shared(), vec!["corpus/agentcli", COMPOSITION, PLAIN_MCP]),
        (
            shared(),
            vec!["corpus/agentstack/permissions/sql", "corpus/nachos/tools"],
        ),
    ];
    for (dir, paths) in runs {
        let output = generate(&dir, "gemini", &paths);
        let declarations = assert_gemini_document(&output);
        let findings = relint(&as_openai_tools(&declarations), "gemini", "gemini.json");
        let gemini: Vec<&Value> = findings
            .iter()
            .filter(|d| {
                let rule = d["rule"].as_str().unwrap_or_default();
                rule.starts_with("gemini-") || rule == "array-missing-items"
            })
            .collect();
        assert!(
            gemini.is_empty(),
            "Gemini findings in the output of {paths:?}:\n{gemini:#?}"
        );
    }
}

/// Self-reference through `$defs`, `definitions`, the root (`#`), a
/// mutual pair and `allOf`.
const CYCLES: &str = r##"[{"type": "function", "function": {
  "name": "walk_tree",
  "description": "Walk a tree.",
  "parameters": {
    "type": "object",
    "properties": {
      "tree": {"$ref": "#/$defs/Node"},
      "again": {"$ref": "#", "description": "The same arguments, nested."},
      "ping": {"$ref": "#/definitions/Ping"},
      "merged": {"$ref": "#/$defs/Merged"}
    },
    "required": ["tree"],
    "$defs": {
      "Node": {
        "type": "object",
        "description": "A tree node.",
        "properties": {
          "label": {"type": "string", "description": "Label."},
          "children": {"type": "array", "description": "Children.", "items": {"$ref": "#/$defs/Node"}}
        }
      },
      "Merged": {"allOf": [{"$ref": "#/$defs/Merged"}, {"properties": {"x": {"type": "integer", "description": "X."}}}]}
    },
    "definitions": {
      "Ping": {"type": "object", "description": "Ping.", "properties": {"pong": {"$ref": "#/definitions/Pong"}}},
      "Pong": {"type": "object", "description": "Pong.", "properties": {"ping": {"$ref": "#/definitions/Ping"}}}
    }
  }
}}]"##;

#[test]
fn gemini_cyclic_refs_end_in_an_object_with_a_warning() {
    let dir = TempDir::new("gen-gemini-cycles");
    dir.write("openai.json", CYCLES);
    let output = generate(dir.path(), "gemini", &["--allow-errors", "openai.json"]);
    let declarations = assert_gemini_document(&output);
    let parameters = &declarations[0]["parameters"];
    let tree = &parameters["properties"]["tree"];
    assert_eq!(tree["description"], "A tree node.");
    // One level inlined, then the cycle: an object without properties.
    let child = &tree["properties"]["children"]["items"];
    assert_eq!(
        child,
        &json!({"type": "object", "description": "A tree node."})
    );
    assert_eq!(
        parameters["properties"]["again"],
        json!({"type": "object", "description": "The same arguments, nested."})
    );
    let ping = &parameters["properties"]["ping"];
    assert_eq!(
        ping["properties"]["pong"]["properties"]["ping"]["type"],
        "object"
    );
    assert_eq!(
        parameters["properties"]["merged"]["properties"]["x"]["type"],
        "integer"
    );
    for pointer in [
        "/0/function/parameters/$defs/Node/properties/children/items/$ref",
        "/0/function/parameters/properties/again/$ref",
        "/0/function/parameters/definitions/Pong/properties/ping/$ref",
    ] {
        assert!(
            output.stderr.lines().any(|l| l.starts_with("warning: ")
                && l.contains("refers to a schema that contains it")
                && l.ends_with(&format!("(at {pointer})"))),
            "no cycle warning at {pointer}:\n{}",
            output.stderr
        );
    }
    // The other JSON targets keep references and end too.
    for target in ["openai", "anthropic", "mcp"] {
        let output = generate(
            dir.path(),
            target,
            &["--allow-errors", "--strict", "openai.json"],
        );
        assert!(output.stdout.contains("#/$defs/Node"), "{target}");
    }
}

/// Definitions that each use the next one twice: inlining everything would
/// double the schema at every level.
#[test]
fn gemini_inlining_stops_at_a_budget() {
    let mut definitions = serde_json::Map::new();
    for level in 0..40 {
        let next = json!({"$ref": format!("#/$defs/D{}", level + 1)});
        definitions.insert(
            format!("D{level}"),
            json!({"type": "object", "description": format!("Level {level}."),
                   "properties": {"left": next, "right": next}}),
        );
    }
    definitions.insert(
        "D40".into(),
        json!({"type": "string", "description": "Leaf."}),
    );
    let tools = json!([{"type": "function", "function": {
        "name": "grow", "description": "Grow.",
        "parameters": {"type": "object", "properties": {"root": {"$ref": "#/$defs/D0"}},
                       "$defs": definitions}}}]);
    let dir = TempDir::new("gen-gemini-budget");
    dir.write("openai.json", serde_json::to_string(&tools).expect("JSON"));
    let output = generate(dir.path(), "gemini", &["--allow-errors", "openai.json"]);
    assert!(
        output.stdout.len() < 64 << 20,
        "{} bytes",
        output.stdout.len()
    );
    assert_gemini_document(&output);
    assert!(
        output.stderr.contains("too large to inline"),
        "{}",
        output.stderr.lines().last().unwrap_or_default()
    );
}

#[test]
fn every_json_target_is_deterministic() {
    for target in ["openai", "anthropic", "mcp", "gemini"] {
        let args = ["--strict", "--allow-errors", "corpus/agentcli", COMPOSITION];
        let first = generate(&shared(), target, &args);
        let second = generate(&shared(), target, &args);
        assert_eq!(first.stdout, second.stdout, "{target}");
        assert_eq!(first.stderr, second.stderr, "{target}");
    }
}

/// `-o` naming one of the inputs (or a link to it) would leave it out of
/// the reading as an earlier run's output and then write over it (lint:
/// write its report over it): refused, even with --force, and the
/// manifest stays as it was.
#[cfg(unix)]
#[test]
fn gen_convert_and_lint_refuse_an_output_that_is_one_of_their_inputs() {
    let temp = TempDir::new("gen-output-is-input");
    let manifest = temp.path().join("tools.json");
    let text = r#"{"tools": [{"name": "get_time", "description": "Tell the time.", "schema": {"type": "object"}, "command": ["/bin/true"]}]}"#;
    std::fs::write(&manifest, text).expect("write");
    std::os::unix::fs::symlink("tools.json", temp.path().join("link.json")).expect("symlink");
    for output in ["tools.json", "link.json", "./tools.json"] {
        for command in [
            vec!["gen", "openai", "tools.json", "-o", output, "--force"],
            vec![
                "convert",
                "tools.json",
                "--to",
                "mcp",
                "-o",
                output,
                "--force",
            ],
            vec!["lint", "tools.json", "-o", output],
        ] {
            let run = Test::new().current_dir(temp.path()).args(&command).run();
            assert_eq!(run.code, 2, "{command:?}: {}", run.stderr);
            assert!(
                run.stderr.contains("is the input tools.json"),
                "{command:?}: {}",
                run.stderr
            );
            assert_eq!(std::fs::read_to_string(&manifest).expect("read"), text);
        }
    }
    // Any other name is written as before.
    let run = Test::new()
        .current_dir(temp.path())
        .args(["gen", "openai", "tools.json", "-o", "openai.json"])
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let names: Vec<String> = std::fs::read_dir(temp.path())
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    // The document, and its record beside it (its digest: toolc's own).
    assert!(names.contains(&"openai.json.x-toolc.json".to_string()));
    assert_eq!(
        names.len(),
        4,
        "no temporary file may stay behind: {names:?}"
    );
}

/// `-o -` is standard output, for gen, convert and lint alike: no file
/// named `-` appears.
#[test]
fn an_output_of_dash_is_standard_output() {
    let temp = TempDir::new("output-dash");
    let text = r#"{"tools": [{"name": "get_time", "description": "Tell the time.", "schema": {"type": "object"}, "command": ["/bin/true"]}]}"#;
    std::fs::write(temp.path().join("tools.json"), text).expect("write");
    for (command, expected) in [
        (
            vec!["gen", "openai", "tools.json", "-o", "-"],
            "\"type\": \"function\"",
        ),
        (
            vec!["convert", "tools.json", "--to", "mcp", "-o", "-"],
            "\"inputSchema\"",
        ),
        (
            vec!["lint", "tools.json", "--format", "json", "-o", "-"],
            "\"summary\"",
        ),
    ] {
        let run = Test::new().current_dir(temp.path()).args(&command).run();
        assert!(run.code == 0, "{command:?}: {}", run.stderr);
        assert!(run.stdout.contains(expected), "{command:?}: {}", run.stdout);
        assert!(
            !temp.path().join("-").exists(),
            "{command:?} wrote a file named -"
        );
    }
}
