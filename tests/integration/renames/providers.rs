//! `gen gemini` and `gen anthropic` (and `convert --to anthropic`) rename
//! the parameters the provider rejects rather than refuse, say so with
//! both names, and record the renames beside the document
//! (`FILE.x-toolc.json`), which the front end reads back with it.

use serde_json::{Value, json};

use super::super::{TempDir, Test};
use super::toolc;

fn project(dir: &TempDir, properties: Value, required: Value) {
    let manifest = json!({"tools": [{
        "name": "fetch",
        "description": "Fetches a URL.",
        "command": ["./tools/bin/fetch"],
        "schema": {"type": "object", "properties": properties, "required": required}
    }]});
    dir.write("a/tools.json", manifest.to_string());
}

fn read_json(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("JSON")
}

fn property_names(schema: &Value) -> Vec<String> {
    schema["properties"]
        .as_object()
        .expect("properties")
        .keys()
        .cloned()
        .collect()
}

/// Each (original, new) pair is named together on one line of `stderr`.
fn assert_notes_name(stderr: &str, pairs: &[(&str, &str)]) {
    for (original, new) in pairs {
        assert!(
            stderr.lines().any(
                |l| l.contains(&format!("\"{original}\"")) && l.contains(&format!("\"{new}\""))
            ),
            "no note with {original} and {new}:\n{stderr}"
        );
    }
}

#[test]
fn gemini_renames_reports_and_records() {
    let dir = TempDir::new("renames-gemini");
    project(
        &dir,
        json!({"url": {"type": "string"}, "user-agent": {"type": "string"},
               "follow-links": {"type": "boolean"}}),
        json!(["url", "user-agent"]),
    );
    let output = Test::new()
        .args(["gen", "gemini", "-o", "gemini.json", "a", "--show-notes"])
        .current_dir(dir.path())
        .run();
    assert_eq!(output.code, 0, "{}", output.stderr);
    assert_notes_name(
        &output.stderr,
        &[
            ("user-agent", "user_agent"),
            ("follow-links", "follow_links"),
        ],
    );
    let document = read_json(&dir.path().join("gemini.json"));
    let parameters = &document["functionDeclarations"][0]["parameters"];
    assert_eq!(
        property_names(parameters),
        ["url", "user_agent", "follow_links"]
    );
    assert_eq!(parameters["required"], json!(["url", "user_agent"]));
    let record = read_json(&dir.path().join("gemini.json.x-toolc.json"));
    assert_eq!(
        record["x-toolc"]["parameter_names"],
        json!({"fetch": {"user_agent": "user-agent", "follow_links": "follow-links"}})
    );
    // With what wrote the document and its digest (gen knows it as its own).
    assert_eq!(record["x-toolc"]["generated"], json!("toolc gen gemini"));
    assert!(record["x-toolc"]["digest"].is_string(), "{record}");
}

#[test]
fn anthropic_renames_and_reading_back_restores() {
    let dir = TempDir::new("renames-anthropic");
    let properties = json!({"filter[id]": {"type": "string"}, "$top": {"type": "integer"},
                            "max-bytes": {"type": "integer"}});
    project(&dir, properties.clone(), json!(["filter[id]"]));
    for command in [
        &["gen", "anthropic", "-o", "gen.json", "a"][..],
        &["convert", "--to", "anthropic", "-o", "convert.json", "a"][..],
    ] {
        toolc(command, dir.path());
        let file = command[command.len() - 2];
        let document = read_json(&dir.path().join(file));
        // `-` is Anthropic's; `[`, `]` and `$` are not.
        assert_eq!(
            property_names(&document[0]["input_schema"]),
            ["filter_id_", "_top", "max-bytes"]
        );
        // Read back with its record, the document has the original names.
        toolc(
            &["convert", "--to", "mcp", "-o", "back.json", file],
            dir.path(),
        );
        let back = read_json(&dir.path().join("back.json"));
        assert_eq!(
            back["tools"][0]["inputSchema"]["properties"].to_string(),
            properties.to_string(),
            "{file}"
        );
        assert_eq!(
            back["tools"][0]["inputSchema"]["required"],
            json!(["filter[id]"])
        );
        std::fs::remove_file(dir.path().join("back.json")).expect("remove");
    }
}

/// Every property name at every depth of `schema`'s object properties,
/// array items and union branches.
fn names_at_every_depth(schema: &Value, found: &mut Vec<String>) {
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (name, property) in properties {
            found.push(name.clone());
            names_at_every_depth(property, found);
        }
    }
    if let Some(items) = schema.get("items") {
        names_at_every_depth(items, found);
    }
    if let Some(branches) = schema.get("anyOf").and_then(Value::as_array) {
        for branch in branches {
            names_at_every_depth(branch, found);
        }
    }
}

#[test]
fn gemini_renames_inside_parameters_and_converting_back_restores_them() {
    let dir = TempDir::new("renames-gemini-nested");
    // A renamed parameter holding a renamed property, an array of objects
    // with one, a property two levels down, and a name Gemini takes beside
    // a rejected one that would be spelled like it.
    let properties = json!({
        "http-headers": {"type": "object", "properties": {
            "x-trace": {"type": "string"},
            "user agent": {"type": "string"}
        }, "required": ["x-trace"]},
        "filters": {"type": "array", "items": {"type": "object", "properties": {
            "field.name": {"type": "string"},
            "field_name": {"type": "string"}
        }}},
        "options": {"type": "object", "properties": {
            "deep": {"type": "object", "properties": {"2fa": {"type": "boolean"}}}
        }}
    });
    project(&dir, properties.clone(), json!(["http-headers"]));
    let output = Test::new()
        .args(["gen", "gemini", "-o", "gemini.json", "a", "--show-notes"])
        .current_dir(dir.path())
        .run();
    assert_eq!(output.code, 0, "{}", output.stderr);
    assert_notes_name(
        &output.stderr,
        &[
            ("x-trace", "x_trace"),
            ("user agent", "user_agent"),
            ("field.name", "field_name_2"),
            ("2fa", "_2fa"),
        ],
    );
    let document = read_json(&dir.path().join("gemini.json"));
    let parameters = &document["functionDeclarations"][0]["parameters"];
    let mut names = Vec::new();
    names_at_every_depth(parameters, &mut names);
    let identifier = |n: &str| {
        n.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    assert!(
        names.iter().all(|n| identifier(n)),
        "a name Gemini rejects is left: {names:?}"
    );
    assert_eq!(
        parameters["properties"]["http_headers"]["required"],
        json!(["x_trace"])
    );
    // Converting the declarations back gives every original name, at every
    // depth, and the required lists with them.
    toolc(
        &["convert", "gemini.json", "--to", "agentcli", "-o", "back"],
        dir.path(),
    );
    let back = read_json(&dir.path().join("back/tools.json"));
    let schema = &back["tools"][0]["schema"];
    let mut restored = Vec::new();
    names_at_every_depth(schema, &mut restored);
    let mut original = Vec::new();
    names_at_every_depth(&json!({"properties": properties}), &mut original);
    assert_eq!(restored, original);
    assert_eq!(
        schema["properties"]["http-headers"]["required"],
        json!(["x-trace"])
    );
}

/// What toolc just wrote with renamed parameters is not out of date: the
/// stale-tool-list check compares the names the parameters were declared
/// with, which the records give back.
#[test]
fn fresh_output_with_renames_is_not_stale() {
    let dir = TempDir::new("renames-not-stale");
    project(
        &dir,
        json!({"url": {"type": "string", "description": "The URL."},
               "max-bytes": {"type": "integer", "description": "Limit."},
               "follow.links": {"type": "boolean", "description": "Follow."}}),
        json!(["url", "max-bytes"]),
    );
    for args in [
        &["gen", "gemini", "a", "-o", "gemini.json"][..],
        &["gen", "anthropic", "a", "-o", "anthropic.json"],
        &["gen", "python", "a", "-o", "py"],
        &["convert", "--to", "nora", "a", "-o", "nora"],
    ] {
        toolc(args, dir.path());
    }
    let lint = Test::new()
        .args(["lint", ".", "--format", "concise"])
        .current_dir(dir.path())
        .run();
    assert!(
        !lint.stdout.contains("stale-tool-list"),
        "{}{}",
        lint.stdout,
        lint.stderr
    );
}
