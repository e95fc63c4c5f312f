//! ## What it does
//! Reports a tool whose parameter schema is not an object schema at its
//! root: the schema is not a JSON object, has no `type`, or its `type` is
//! something other than `"object"`. Applies to every format that carries
//! parameters (NORA `parameters`, agentcli `schema`, OpenAI `parameters`,
//! Anthropic `input_schema`, MCP `inputSchema`).
//!
//! ## Why is this bad?
//! A tool call's arguments are always a JSON object. OpenAI rejects other
//! roots ("Invalid schema for function: schema must be a JSON Schema of
//! 'type: \"object\"'"), and so do Anthropic, MCP clients and LM Studio.
//!
//! ## Example
//! ```json
//! {"tools": [{"name": "echo", "command": ["./tools/bin/echo"], "schema": {"type": "string"}}]}
//! ```
//!
//! ## Use instead
//! ```json
//! {"tools": [{"name": "echo", "command": ["./tools/bin/echo"],
//!   "schema": {"type": "object", "properties": {"text": {"type": "string"}}}}]}
//! ```

use serde_json::Value;

use crate::diagnostic::{Fix, Severity};
use crate::lint::Rule;
use crate::lint::findings::Findings;
use crate::lint::fix::insert_member;
use crate::lint::parameter_schema::ParameterSchema;

pub(crate) const RULE: Rule = Rule {
    name: "parameters-not-object",
    code: "TC301",
    severity: Severity::Error,
    summary: "the parameter schema's root is not {\"type\": \"object\"}",
    fixable: true,
    targets: &[],
};

pub(crate) fn check(parameters: &ParameterSchema, out: &mut Findings) {
    let at = parameters.root;
    let mut fix = None;
    let (pointer, message) = match parameters.value {
        Value::Object(schema) => {
            let type_at = format!("{at}/type");
            match schema.get("type") {
                Some(Value::String(t)) if t == "object" => return,
                None => {
                    // Tool arguments are always an object: saying so
                    // changes nothing the tool accepts.
                    fix = parameters
                        .editable()
                        .and_then(|manifest| insert_member(&manifest, at, "type", "\"object\""))
                        .map(|edit| Fix::safe("add \"type\": \"object\"", vec![edit]));
                    (type_at, "the parameter schema has no \"type\"".to_string())
                }
                Some(other) => (
                    type_at,
                    format!("the parameter schema's root type is {other}, not \"object\""),
                ),
            }
        }
        _ => (
            at.to_string(),
            "the parameter schema must be a JSON object".to_string(),
        ),
    };
    out.push(
        parameters
            .at_value(&RULE, pointer, message)
            .with_help("tool arguments are a JSON object: use {\"type\": \"object\", \"properties\": {...}}")
            .with_fix(fix),
    );
}
