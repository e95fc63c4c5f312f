//! ## What it does
//! With the `openai-strict` target, reports each property that is defined in
//! `properties` but missing from the same schema's `required` array, at any
//! depth of the parameter schema, one finding per property, at its key. (A
//! NORA tool's top-level property counts as required when it says
//! `"required": true`.) Subschemas under a keyword strict mode rejects
//! (`not`, `if`, `then`, ...) are left to `strict-unsupported-keyword`.
//!
//! ## Why is this bad?
//! OpenAI strict mode (`"strict": true`, Structured Outputs) has no optional
//! properties: the model always sends every key. A schema that leaves one
//! out is rejected, together with the whole request:
//! `Invalid schema for function 'NAME': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'unit'.`
//! Optional Pydantic fields (`unit: str | None = None`) and zod's
//! `.optional()` produce exactly this. The strict way to say "optional" is
//! to require the key and let its value be `null`.
//!
//! ## Example
//! ```json
//! {"type": "object", "additionalProperties": false, "required": ["city"],
//!  "properties": {"city": {"type": "string"}, "unit": {"type": "string"}}}
//! ```
//!
//! ## Use instead
//! ```json
//! {"type": "object", "additionalProperties": false, "required": ["city", "unit"],
//!  "properties": {"city": {"type": "string"}, "unit": {"type": ["string", "null"]}}}
//! ```

use serde_json::{Map, Value};

use crate::diagnostic::{Fix, Severity};
use crate::ir::Format;
use crate::json;
use crate::lint::findings::Findings;
use crate::lint::fix::{append_item, insert_member, replace_value};
use crate::lint::parameter_schema::ParameterSchema;
use crate::lint::rules::strict_unsupported_keyword::in_rejected_subschema;
use crate::lint::{Manifest, Rule, Target};

pub(crate) const RULE: Rule = Rule {
    name: "strict-all-required",
    code: "TC802",
    severity: Severity::Error,
    summary: "OpenAI strict mode: a property is not listed in \"required\"",
    fixable: true,
    targets: &[Target::OpenaiStrict],
};

/// Checks one subschema of a tool's parameters (called for every node by
/// the shared schema walk).
pub(crate) fn check_node(
    parameters: &ParameterSchema,
    pointer: &str,
    node: &Map<String, Value>,
    out: &mut Findings,
) {
    let Some(Value::Object(properties)) = node.get("properties") else {
        return;
    };
    if in_rejected_subschema(parameters, pointer) {
        return;
    }
    let required: Vec<&str> = match node.get("required") {
        None => Vec::new(),
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        // A `required` that is not an array is `invalid-json-schema`'s finding.
        Some(_) => return,
    };
    // NORA marks required top-level properties with a flag of their own.
    let nora_root = parameters.format() == Format::Nora
        && !parameters.is_derived()
        && parameters.is_root(pointer);
    for (name, property) in properties {
        let flagged = nora_root && property.get("required") == Some(&Value::Bool(true));
        if flagged || required.contains(&name.as_str()) {
            continue;
        }
        let property_at = json::join(&json::join(pointer, "properties"), name);
        let fix = parameters.editable().and_then(|manifest| {
            required_and_nullable(&manifest, pointer, &property_at, name, nora_root)
        });
        out.push(
            parameters
                .at_key(
                    &RULE,
                    property_at.clone(),
                    format!(
                        "property \"{name}\" is not in \"required\"; OpenAI strict mode \
                         requires every property to be required"
                    ),
                )
                .with_help(format!(
                    "add \"{name}\" to \"required\"; to keep it optional, let it be null: \
                     \"type\": [\"T\", \"null\"]"
                ))
                .with_fix(fix),
        );
    }
}

/// The unsafe fix: list the property as required and let it be null, which
/// is how strict mode spells "optional". Callers must now send the key.
fn required_and_nullable(
    manifest: &Manifest,
    object_at: &str,
    property_at: &str,
    name: &str,
    nora_root: bool,
) -> Option<Fix> {
    let quoted = serde_json::to_string(name).ok()?;
    let require = if nora_root {
        // NORA marks required properties with their own flag.
        match manifest.raw(&json::join(property_at, "required")) {
            Some(_) => replace_value(
                manifest,
                &json::join(property_at, "required"),
                "true".to_string(),
            ),
            None => insert_member(manifest, property_at, "required", "true"),
        }
    } else {
        match manifest.raw(&json::join(object_at, "required")) {
            Some(_) => append_item(manifest, &json::join(object_at, "required"), &quoted),
            None => insert_member(manifest, object_at, "required", &format!("[{quoted}]")),
        }
    }?;
    let mut edits = vec![require];
    // Only a property that can be made nullable gets the fix: otherwise it
    // would turn an optional argument into a mandatory, non-null one.
    let property = manifest.raw(property_at)?.as_object()?;
    if property.contains_key("const") || property.contains_key("$ref") {
        return None;
    }
    let type_at = json::join(property_at, "type");
    let any_of_at = json::join(property_at, "anyOf");
    match (property.get("type"), property.get("anyOf")) {
        (Some(Value::String(kind)), _) if kind == "null" => {}
        (Some(Value::String(kind)), _) => {
            edits.push(replace_value(
                manifest,
                &type_at,
                format!("[{}, \"null\"]", serde_json::to_string(kind).ok()?),
            )?);
        }
        (Some(Value::Array(kinds)), _) => {
            if !kinds.iter().any(|k| k == "null") {
                edits.push(append_item(manifest, &type_at, "\"null\"")?);
            }
        }
        (None, Some(Value::Array(branches))) => {
            let nullable = branches
                .iter()
                .any(|b| b.get("type") == Some(&Value::from("null")));
            if !nullable {
                edits.push(append_item(manifest, &any_of_at, "{\"type\": \"null\"}")?);
            }
        }
        _ => return None,
    }
    // A nullable enum must list null among its values, or null still fails.
    let enum_at = json::join(property_at, "enum");
    if let Some(Value::Array(values)) = manifest.raw(&enum_at)
        && !values.contains(&Value::Null)
    {
        edits.push(append_item(manifest, &enum_at, "null")?);
    }
    Some(Fix::unsafe_(
        format!("make \"{name}\" required and nullable"),
        edits,
    ))
}
