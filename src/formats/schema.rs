//! Each format's structural schema: the JSON Schema in `schemas/`
//! (embedded at build time, compiled at first use), and where a document
//! breaks it.
//!
//! A document breaks a format's structure in two ways: a value of the
//! wrong shape (a wrong type, a missing required member, a bad name), or a
//! key the format does not define. The second is no breakage to any
//! reader: each keeps such keys as the tool's extensions, and a manifest
//! may carry its own. [`violations`] are the first kind only, what no
//! writer may write; which finding each kind becomes is lint's
//! (`lint::structure`).

use std::sync::OnceLock;

use jsonschema::ValidationError;
use jsonschema::error::ValidationErrorKind;
use serde_json::Value;

use crate::ir::Format;

/// The structural schema of a format, as shipped in `schemas/`.
pub fn text(format: Format) -> &'static str {
    match format {
        Format::Nora => include_str!("../../schemas/nora.schema.json"),
        Format::Agentcli => include_str!("../../schemas/agentcli.schema.json"),
        Format::Agentstack => include_str!("../../schemas/agentstack.schema.json"),
        Format::Nachos => include_str!("../../schemas/nachos.schema.json"),
        Format::Openai => include_str!("../../schemas/openai.schema.json"),
        Format::OpenaiResponses => include_str!("../../schemas/openai-responses.schema.json"),
        Format::Gemini => include_str!("../../schemas/gemini.schema.json"),
        Format::Anthropic => include_str!("../../schemas/anthropic.schema.json"),
        Format::Mcp => include_str!("../../schemas/mcp.schema.json"),
    }
}

/// The `$id` of a format's schema: what a manifest's `"$schema"` key names
/// for editors to find it.
pub fn id(format: Format) -> Option<String> {
    let schema: Value = serde_json::from_str(text(format)).ok()?;
    schema.get("$id")?.as_str().map(str::to_string)
}

/// A format's schema, parsed, and its validator.
pub(crate) type Compiled = (Value, jsonschema::Validator);

/// The schema of `format` and its validator, compiled at first use: a
/// run that reads one format (`toolc run` of one manifest) compiles one
/// of the nine. An `Err` when the format's own schema does not parse or
/// compile.
pub(crate) fn compiled(format: Format) -> Result<&'static Compiled, String> {
    static COMPILED: [OnceLock<Result<Compiled, String>>; Format::ALL.len()] =
        [const { OnceLock::new() }; Format::ALL.len()];
    let Some(slot) = Format::ALL
        .iter()
        .position(|f| *f == format)
        .and_then(|at| COMPILED.get(at))
    else {
        return Err(format!("no schema for {format}"));
    };
    slot.get_or_init(|| {
        let schema: Value = serde_json::from_str(text(format))
            .map_err(|e| format!("schema of {format} does not parse: {e}"))?;
        let validator = jsonschema::validator_for(&schema)
            .map_err(|e| format!("schema of {format} does not compile: {e}"))?;
        Ok((schema, validator))
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// Whether a validator error is about keys the format does not define,
/// rather than a value of the wrong shape.
pub(crate) fn is_undefined_key(error: &ValidationError) -> bool {
    matches!(
        error.kind(),
        ValidationErrorKind::AdditionalProperties { .. }
    )
}

/// Where `document` breaks the structure of `format`, and how, as the
/// validator says it: each value of the wrong shape, by its JSON Pointer
/// (keys the format does not define are none, see the module docs). For
/// writers that must not write a manifest its format's readers refuse
/// (convert checks each one it builds). Empty when the document is
/// well-formed; an `Err` when the format's own schema cannot be compiled.
pub(crate) fn violations(
    format: Format,
    document: &Value,
) -> Result<Vec<(String, String)>, String> {
    let (_, validator) = compiled(format)?;
    Ok(validator
        .iter_errors(document)
        .filter(|error| !is_undefined_key(error))
        .map(|error| {
            (
                error.instance_path().as_str().to_string(),
                error.to_string(),
            )
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_schema_compiles() {
        for format in Format::ALL {
            assert!(compiled(format).is_ok(), "{format}");
        }
    }

    #[test]
    fn undefined_keys_are_no_violation() {
        let document = json!({"tools": [{
            "name": "fetch",
            "command": ["./tools/bin/fetch"],
            "timeoutSec": "5",
            "colour": "red"
        }]});
        let found = violations(Format::Agentcli, &document).expect("schema compiles");
        let pointers: Vec<&str> = found.iter().map(|(at, _)| at.as_str()).collect();
        assert_eq!(pointers, ["/tools/0/timeoutSec"]);
    }

    /// The shipped AgentStack schema spells out the actions for editors
    /// that use it without toolc: the same list as [`crate::ir::Action`].
    #[test]
    fn the_agentstack_schema_lists_the_defined_actions() {
        let (schema, _) = compiled(Format::Agentstack).expect("schema compiles");
        let listed = schema
            .pointer("/properties/tools/additionalProperties/properties/actions/items/enum")
            .and_then(Value::as_array)
            .expect("an enum of actions");
        let listed: Vec<&str> = listed.iter().filter_map(Value::as_str).collect();
        let defined: Vec<&str> = crate::ir::Action::defined_names().collect();
        assert_eq!(listed, defined);
    }
}
