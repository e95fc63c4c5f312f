//! The parameters toolc reads from an AgentStack package's Python equal
//! pydantic's for the same signatures.
//!
//! The reference is pydantic's JSON Schema (validation mode) of a model
//! with one field per parameter, `create_model(name, param=(hint, default
//! or ...))`: the model LangChain's `create_schema_from_function` builds
//! from a function, which CrewAI and AgentStack tools go through
//! (tests/integration/python_schemas_reference.py builds it, in the test
//! venv's Python with the pinned pydantic). toolc's side is what
//! `toolc convert --to mcp` prints for the same package: MCP's
//! `inputSchema` carries the parameters as read (`gen openai` would adapt
//! them to OpenAI, e.g. give untyped arrays string items).
//!
//! Before comparing, both sides are normalised, only where the difference
//! is not one of meaning:
//! - `$ref`s are replaced by the `$defs` they point to (toolc inlines the
//!   package's classes; pydantic refers to them), the `$ref`'s sibling
//!   keywords (`default`, `description`) kept over the definition's;
//! - `title` keywords are dropped (pydantic titles every model and field
//!   after its Python name; toolc does not, and no validator reads them);
//! - `additionalProperties: true` and `items: {}` are dropped: they are
//!   JSON Schema's defaults, which pydantic spells out for bare `dict` and
//!   `list`;
//! - a top-level property's `description` that pydantic has not is
//!   dropped from toolc's side: pydantic's model does not read docstrings,
//!   toolc takes the `Args:` section's text (checked separately below);
//! - key order does not count (JSON objects compare as maps).

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::{TempDir, Test, sdk};

const INIT_PY: &str = include_str!("python_schemas/__init__.py");
const CONFIG: &str = include_str!("python_schemas/config.json");
const REFERENCE: &str = include_str!("python_schemas_reference.py");

/// toolc's tools in `dir`: name → (parameters, description).
fn toolc_tools(dir: &std::path::Path) -> BTreeMap<String, (Value, Value)> {
    let output = Test::new()
        .args([
            "convert",
            "--to",
            "mcp",
            "-o",
            "-",
            dir.to_str().expect("utf-8 path"),
        ])
        .run();
    assert_eq!(
        output.code, 0,
        "convert --to mcp failed:\n{}",
        output.stderr
    );
    let document: Value = output.json();
    document["tools"]
        .as_array()
        .expect("a list of tools")
        .iter()
        .map(|t| {
            let name = t["name"].as_str().expect("a name").to_string();
            (name, (t["inputSchema"].clone(), t["description"].clone()))
        })
        .collect()
}

/// pydantic's parameters and summary of each function, by name.
fn pydantic_reference(dir: &std::path::Path, names: &[&str]) -> Map<String, Value> {
    let mut args = vec![dir.to_str().expect("utf-8 path")];
    args.extend_from_slice(names);
    let out = sdk::run_python(REFERENCE, &args, "");
    match serde_json::from_str(&out) {
        Ok(Value::Object(map)) => map,
        other => panic!("the reference printed {other:?}:\n{out}"),
    }
}

/// Replaces `$ref`s by their definitions and drops `$defs`, `title`s and
/// spelled-out defaults (see the module's doc).
fn normalise(schema: &Value, defs: &Map<String, Value>, depth: usize) -> Value {
    assert!(depth < 64, "a recursive $ref in {schema}");
    let Value::Object(map) = schema else {
        return match schema {
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|i| normalise(i, defs, depth + 1))
                    .collect(),
            ),
            other => other.clone(),
        };
    };
    let mut out = Map::new();
    if let Some(Value::String(reference)) = map.get("$ref") {
        let name = reference.trim_start_matches("#/$defs/");
        let target = defs
            .get(name)
            .unwrap_or_else(|| panic!("no $defs entry {reference}"));
        if let Value::Object(target) = normalise(target, defs, depth + 1) {
            out.extend(target);
        }
    }
    for (key, value) in map {
        match key.as_str() {
            "$ref" | "$defs" | "title" => {}
            "additionalProperties" if *value == json!(true) => {}
            "items" if *value == json!({}) => {}
            "properties" => {
                let properties = value
                    .as_object()
                    .expect("properties is an object")
                    .iter()
                    .map(|(k, v)| (k.clone(), normalise(v, defs, depth + 1)))
                    .collect();
                out.insert(key.clone(), Value::Object(properties));
            }
            _ => {
                out.insert(key.clone(), normalise(value, defs, depth + 1));
            }
        }
    }
    Value::Object(out)
}

fn normalised(schema: &Value) -> Value {
    let defs = schema["$defs"].as_object().cloned().unwrap_or_default();
    let mut schema = normalise(schema, &defs, 0);
    // `required` is a set.
    if let Some(Value::Array(required)) = schema.get_mut("required") {
        required.sort_by_key(|v| v.to_string());
    }
    schema
}

/// Drops the descriptions toolc took from the docstring's `Args:` where
/// pydantic has none (see the module's doc).
fn without_docstring_descriptions(toolc: &mut Value, reference: &Value) {
    let Some(properties) = toolc["properties"].as_object_mut() else {
        return;
    };
    for (name, property) in properties.iter_mut() {
        if reference["properties"][name].get("description").is_none()
            && let Some(property) = property.as_object_mut()
        {
            property.remove("description");
        }
    }
}

/// Compares each function's parameters and summary with pydantic's;
/// returns the names that differ, each with both sides.
fn differences(dir: &std::path::Path, names: &[&str]) -> Vec<String> {
    let toolc = toolc_tools(dir);
    let reference = pydantic_reference(dir, names);
    let mut differ = Vec::new();
    for name in names {
        let Some(expected) = reference.get(*name) else {
            differ.push(format!("{name}: pydantic has no such function"));
            continue;
        };
        if let Some(error) = expected.get("error") {
            differ.push(format!("{name}: pydantic gives no schema: {error}"));
            continue;
        }
        let Some((parameters, description)) = toolc.get(*name) else {
            differ.push(format!("{name}: toolc wrote no tool"));
            continue;
        };
        let want = normalised(&expected["parameters"]);
        let mut got = normalised(parameters);
        without_docstring_descriptions(&mut got, &want);
        if got != want {
            differ.push(format!("{name}:\n  toolc:    {got}\n  pydantic: {want}"));
        }
        if *description != expected["summary"] {
            differ.push(format!(
                "{name}: description {description} but the docstring's summary is {}",
                expected["summary"]
            ));
        }
    }
    differ
}

fn package() -> TempDir {
    let temp = TempDir::new("python-schemas");
    temp.write("python_schemas/__init__.py", INIT_PY);
    temp.write("python_schemas/config.json", CONFIG);
    temp
}

fn tool_names() -> Vec<String> {
    let config: Value = serde_json::from_str(CONFIG).expect("config.json");
    config["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t.as_str().expect("a name").to_string())
        .collect()
}

#[test]
fn parameters_read_from_python_equal_pydantic_s() {
    let temp = package();
    let names = tool_names();
    assert!(names.len() >= 20, "{names:?}");
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let differ = differences(&temp.path().join("python_schemas"), &names);
    assert!(
        differ.is_empty(),
        "{} of {} functions differ from pydantic:\n{}",
        differ.len(),
        names.len(),
        differ.join("\n")
    );
}

#[test]
fn docstring_args_describe_the_properties() {
    let temp = package();
    let tools = toolc_tools(&temp.path().join("python_schemas"));
    let (parameters, description) = &tools["long_summary"];
    assert_eq!(parameters["properties"]["a"]["description"], "A number.");
    assert_eq!(
        *description,
        json!("A summary that runs\nover three lines\nof the docstring.")
    );
}

#[test]
fn run_accepts_null_for_optional_parameters_and_requires_them() {
    let temp = TempDir::new("python-schemas-run");
    temp.write(
        "nullable/config.json",
        r#"{"name": "nullable", "category": "testing", "tools": {"greet": {"actions": ["read"]}}}"#,
    );
    temp.write(
        "nullable/__init__.py",
        "from typing import Optional\n\n\n\
         def greet(name: Optional[str], times: int | None = None) -> str:\n    \
         \"\"\"Greet someone, or no one.\"\"\"\n    \
         return f\"hello {name} x{times}\"\n",
    );
    let config = temp.path().join("nullable/config.json");
    let call = |args: &str| {
        let output = Test::new()
            .args([
                "run",
                config.to_str().expect("utf-8 path"),
                "greet",
                "--args",
                args,
            ])
            .run();
        let result: Value = output.json();
        result
    };
    let result = call(r#"{"name": null, "times": null}"#);
    assert_eq!(result["success"], json!(true), "{result}");
    assert_eq!(result["output"], json!("hello None xNone"), "{result}");
    // Optional without a default is still required, as pydantic has it.
    let result = call("{}");
    assert_eq!(result["success"], json!(false), "{result}");
    assert_eq!(
        result["error"]["code"],
        json!("VALIDATION_ERROR"),
        "{result}"
    );
    let result = call(r#"{"name": 3}"#);
    assert_eq!(
        result["error"]["code"],
        json!("VALIDATION_ERROR"),
        "{result}"
    );
}

#[test]
fn what_cannot_be_derived_is_a_warning_at_its_line() {
    let temp = TempDir::new("python-schemas-unknown");
    temp.write(
        "pkg/config.json",
        r#"{"name": "pkg", "category": "testing", "tools": ["search"]}"#,
    );
    temp.write(
        "pkg/__init__.py",
        "import os\nfrom elsewhere import Options\n\n\n\
         def search(\n    query: str,\n    options: Options,\n    root: str = os.getcwd(),\n) -> str:\n    \
         \"\"\"Search.\"\"\"\n    return query\n",
    );
    let output = Test::new()
        .args([
            "lint",
            "--format",
            "json",
            temp.path().join("pkg").to_str().expect("utf-8 path"),
        ])
        .run();
    let report: Value = output.json();
    let found: Vec<(String, u64)> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["rule"] == "python-type-hint-unknown")
        .map(|d| {
            (
                d["path"].as_str().unwrap_or("").to_string(),
                d["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(found.len(), 1, "{report}");
    assert!(found[0].0.ends_with("__init__.py"), "{found:?}");
    // At the first parameter toolc cannot derive: `options: Options`.
    assert_eq!(found[0].1, 7, "{report}");
    let message = report["diagnostics"]
        .as_array()
        .and_then(|d| d.iter().find(|d| d["rule"] == "python-type-hint-unknown"))
        .map(|d| d["message"].as_str().unwrap_or("").to_string())
        .unwrap_or_default();
    assert!(message.contains("\"options\""), "{message}");
    assert!(message.contains("\"root\""), "{message}");
}
