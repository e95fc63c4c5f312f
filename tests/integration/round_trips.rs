//! Round trips through AgentStack restore what they carried: parameter
//! names Python cannot spell (`max-bytes`) or readers take for a method's
//! own (`self`), nested object schemas, and the order of the tools, also
//! when the package's Python is regenerated in between.

use std::path::Path;

use serde_json::{Value, json};

use super::{TempDir, Test};

/// Three MCP tools, not in name order: renamed parameters, a nested object
/// two levels deep, and one without parameters.
fn source() -> Value {
    json!({"tools": [
        {"name": "zeta", "description": "Reads bytes.", "inputSchema": {
            "type": "object",
            "properties": {
                "max-bytes": {"type": "integer", "description": "How many bytes."},
                "self": {"type": "string", "description": "Who asks."}
            },
            "required": ["max-bytes"]}},
        {"name": "alpha", "description": "Places an order.", "inputSchema": {
            "type": "object",
            "properties": {
                "order": {"type": "object", "description": "The order.", "properties": {
                    "id": {"type": "string", "description": "Order id."},
                    "address": {"type": "object", "description": "Where to.", "properties": {
                        "street": {"type": "string"},
                        "zip": {"type": "integer"}
                    }, "required": ["street"]}
                }, "required": ["id"]}
            },
            "required": ["order"]}},
        {"name": "mid", "description": "Takes nothing.", "inputSchema": {
            "type": "object", "properties": {}}}
    ]})
}

fn toolc(args: &[&str], dir: &Path) {
    let output = Test::new().args(args).current_dir(dir).run();
    assert_eq!(output.code, 0, "toolc {args:?} failed:\n{}", output.stderr);
}

fn read_json(path: &Path) -> Value {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Name, description and parameters of each tool, in order.
fn tools(mcp: &Value) -> Vec<(Value, Value, Value)> {
    mcp["tools"]
        .as_array()
        .expect("a tools array")
        .iter()
        .map(|t| {
            (
                t["name"].clone(),
                t["description"].clone(),
                t["inputSchema"].clone(),
            )
        })
        .collect()
}

/// A directory holding `mcp.json` (the source) converted to AgentStack
/// under `as/`.
fn converted() -> TempDir {
    let dir = TempDir::new("round-trip-agentstack");
    dir.write("mcp.json", source().to_string());
    toolc(
        &["convert", "--to", "agentstack", "-o", "as", "mcp.json"],
        dir.path(),
    );
    dir
}

#[test]
fn mcp_through_agentstack_keeps_names_descriptions_parameters_and_order() {
    let dir = converted();
    toolc(
        &["convert", "--to", "mcp", "-o", "back.json", "as"],
        dir.path(),
    );
    let back = read_json(&dir.path().join("back.json"));
    assert_eq!(tools(&back), tools(&source()));
}

#[test]
fn regenerating_the_python_keeps_them_too() {
    let dir = converted();
    toolc(
        &[
            "gen",
            "python",
            "--style",
            "agentstack",
            "-o",
            "regen",
            "as",
        ],
        dir.path(),
    );
    toolc(
        &["convert", "--to", "mcp", "-o", "back.json", "regen"],
        dir.path(),
    );
    let back = read_json(&dir.path().join("back.json"));
    assert_eq!(tools(&back), tools(&source()));
}

#[test]
fn python_names_are_recorded_and_self_is_not_taken() {
    let dir = converted();
    let config = read_json(&dir.path().join("as/tools/config.json"));
    assert_eq!(
        config["tools"]["zeta"]["x-toolc"]["parameter_names"],
        json!({"max_bytes": "max-bytes", "self_": "self"})
    );
    let init = std::fs::read_to_string(dir.path().join("as/tools/__init__.py")).expect("read");
    assert!(init.contains("    self_: str | None = None,"), "{init}");
    assert!(!init.contains("    self:"), "{init}");
}

#[test]
fn a_changed_function_still_maps_its_renamed_parameters_back() {
    let dir = converted();
    let init_path = dir.path().join("as/tools/__init__.py");
    let init = std::fs::read_to_string(&init_path).expect("read");
    let changed = init.replacen(
        "    self_: str | None = None,\n",
        "    self_: str | None = None,\n    extra: int = 1,\n",
        1,
    );
    assert_ne!(changed, init, "the function zeta takes self_");
    std::fs::write(&init_path, changed).expect("write");
    toolc(
        &["convert", "--to", "mcp", "-o", "back.json", "as"],
        dir.path(),
    );
    let back = read_json(&dir.path().join("back.json"));
    let zeta = &back["tools"][0]["inputSchema"];
    let names: Vec<&String> = zeta["properties"]
        .as_object()
        .expect("properties")
        .keys()
        .collect();
    assert_eq!(names, ["max-bytes", "self", "extra"]);
    assert_eq!(zeta["required"], json!(["max-bytes"]));
}

/// For every target that writes one file (or one package), the tools come
/// back in the order the source declares them.
#[test]
fn single_file_targets_keep_the_tool_order() {
    let dir = TempDir::new("round-trip-order");
    dir.write("mcp.json", source().to_string());
    let order = ["zeta", "alpha", "mid"];
    for target in ["openai", "anthropic", "agentcli", "agentstack", "mcp"] {
        let out = format!("out-{target}");
        let written = match target {
            "agentstack" => out.clone(),
            _ => format!("{out}.json"),
        };
        toolc(
            &["convert", "--to", target, "-o", &written, "mcp.json"],
            dir.path(),
        );
        let back = format!("back-{target}.json");
        toolc(
            &["convert", "--to", "mcp", "-o", &back, &written],
            dir.path(),
        );
        let names: Vec<Value> = tools(&read_json(&dir.path().join(&back)))
            .into_iter()
            .map(|(name, _, _)| name)
            .collect();
        assert_eq!(names, order, "through {target}");
    }
}
