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
    for (original, new) in [
        ("user-agent", "user_agent"),
        ("follow-links", "follow_links"),
    ] {
        assert!(
            output.stderr.lines().any(
                |l| l.contains(&format!("\"{original}\"")) && l.contains(&format!("\"{new}\""))
            ),
            "no note with {original} and {new}:\n{}",
            output.stderr
        );
    }
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
