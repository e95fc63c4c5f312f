//! Structural validation: each format's JSON Schema (in `schemas/`, embedded
//! at build time and compiled once) checked with the jsonschema crate.
//!
//! Each violation becomes `schema-violation` at the exact span of the
//! offending value; keys the format does not define become `unknown-field`
//! warnings at the key, with a suggestion when a known key is close.

use std::sync::OnceLock;

use jsonschema::error::ValidationErrorKind;
use serde_json::Value;

use super::Manifest;
use super::rules::{schema_violation, unknown_field};
use crate::diagnostic::Diagnostic;
use crate::ir::Format;
use crate::json;
use crate::lint::findings::{Findings, PER_RULE};
use crate::suggest::did_you_mean;

/// The structural schema of a format, as shipped in `schemas/`.
pub fn schema_text(format: Format) -> &'static str {
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

type Compiled = (Value, jsonschema::Validator);

/// The schema of `format` and its validator, compiled at first use: a
/// run that reads one format (`toolc run` of one manifest) compiles one
/// of the nine.
fn compiled(format: Format) -> Result<&'static Compiled, String> {
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
        let schema: Value = serde_json::from_str(schema_text(format))
            .map_err(|e| format!("schema of {format} does not parse: {e}"))?;
        let validator = jsonschema::validator_for(&schema)
            .map_err(|e| format!("schema of {format} does not compile: {e}"))?;
        Ok((schema, validator))
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// Where `document` fails the schema of `format`, and why, as the
/// validator says it, those `lint` reports as errors: for writers that must
/// not write what `lint` would reject (convert checks each manifest it
/// builds). Empty when valid; an
/// `Err` when the format's own schema cannot be compiled.
pub(crate) fn violations(
    format: Format,
    document: &Value,
) -> Result<Vec<(String, String)>, String> {
    let (_, validator) = compiled(format)?;
    Ok(validator
        .iter_errors(document)
        // What lint reports as an error: an unknown key is
        // `unknown-field`'s, a warning (and a manifest may carry its own).
        .filter(|error| {
            let rule = match error.kind() {
                ValidationErrorKind::AdditionalProperties { .. } => &unknown_field::RULE,
                _ => &schema_violation::RULE,
            };
            rule.severity == crate::diagnostic::Severity::Error
        })
        .map(|error| {
            (
                error.instance_path().as_str().to_string(),
                error.to_string(),
            )
        })
        .collect())
}

/// How many of a document's values the structural check looks at when the
/// document is invalid. The validator gathers every error before it yields
/// the first (about 400 bytes each, with the copy below), and an invalid
/// value can be one byte of a two-byte array item: past this many values,
/// errors are looked for in a copy whose arrays stop once this many values
/// were taken. Twice what a rule shows in a file ([`PER_RULE`]): enough for
/// a full page of findings when every other value is wrong, and a bound
/// (about 8 MB) that a megabyte of input does not dwarf, where 100,000
/// values held 40 MB of errors at the peak of linting 50,000 tools.
pub(crate) const CHECKED_VALUES: usize = 2 * PER_RULE;

pub(super) fn check(manifest: &Manifest, out: &mut Findings) -> Result<(), String> {
    let (schema, validator) = compiled(manifest.format())?;
    let document = &manifest.document;
    let values = document.map.values();
    let partial = values > CHECKED_VALUES && !validator.is_valid(&document.value);
    let prefix;
    let checked = if partial {
        let mut budget = CHECKED_VALUES;
        prefix = first_values(&document.value, &mut budget);
        out.push_note(
            schema_violation::RULE
                .diagnostic(
                    manifest.path(),
                    "",
                    None,
                    format!(
                        "the document does not match the {} format, and is too large to look for every mismatch: only its first {CHECKED_VALUES} of {values} values were checked",
                        manifest.format()
                    ),
                )
                .with_help("fix the findings shown and run toolc again; the rest is checked once the start is valid"),
        );
        &prefix
    } else {
        &document.value
    };
    for error in validator.iter_errors(checked) {
        let at = error.instance_path().as_str();
        // Past its limit a rule's findings are only counted: no message
        // or place to work out.
        let (rule, findings) = match error.kind() {
            ValidationErrorKind::AdditionalProperties { unexpected } => {
                (&unknown_field::RULE, unexpected.len())
            }
            _ => (&schema_violation::RULE, 1),
        };
        if out.is_full(rule) {
            out.skip(rule, findings);
            continue;
        }
        match error.kind() {
            ValidationErrorKind::AdditionalProperties { unexpected } => {
                let known = known_keys(schema, error.schema_path().as_str());
                // A `"$schema"` at the root names the file's schema for
                // editors; every format accepts it.
                let unexpected = unexpected
                    .iter()
                    .filter(|key| !(at.is_empty() && key.as_str() == crate::formats::SCHEMA_KEY));
                for key in unexpected {
                    out.push(unknown(manifest, &json::join(at, key), key, &known));
                }
            }
            ValidationErrorKind::Required { property } => {
                let name = property.as_str().unwrap_or_default();
                out.push(
                    manifest
                        .at_value(
                            &schema_violation::RULE,
                            json::join(at, name),
                            format!("missing required field \"{name}\""),
                        )
                        .with_help(format!("add \"{name}\" to this object")),
                );
            }
            ValidationErrorKind::PropertyNames { error: inner } => {
                let name = inner.instance().as_str().unwrap_or_default().to_string();
                out.push(manifest.at_key(
                    &schema_violation::RULE,
                    json::join(at, &name),
                    format!("invalid name \"{name}\": {inner}"),
                ));
            }
            _ => out.push(
                manifest
                    .at_value(&schema_violation::RULE, at, shortened(error.to_string()))
                    .with_help(format!(
                        "the {} format's structure is in toolc's schemas/{}.schema.json",
                        manifest.format(),
                        manifest.format()
                    )),
            ),
        }
    }
    Ok(())
}

/// A copy of `value` that stops each array once `budget` values were
/// taken, keeping an array's first item (so `minItems: 1` still holds) and
/// every object member (so `required` still does).
fn first_values(value: &Value, budget: &mut usize) -> Value {
    *budget = budget.saturating_sub(1);
    match value {
        Value::Array(items) => {
            let mut kept = Vec::new();
            for item in items {
                if *budget == 0 && !kept.is_empty() {
                    break;
                }
                kept.push(first_values(item, budget));
            }
            Value::Array(kept)
        }
        Value::Object(members) => Value::Object(
            members
                .iter()
                .map(|(key, member)| (key.clone(), first_values(member, budget)))
                .collect(),
        ),
        scalar => scalar.clone(),
    }
}

fn unknown(manifest: &Manifest, pointer: &str, key: &str, known: &[String]) -> Diagnostic {
    let diagnostic = manifest.at_key(
        &unknown_field::RULE,
        pointer,
        format!(
            "unknown field \"{key}\" (not part of the {} format)",
            manifest.format()
        ),
    );
    match did_you_mean(key, known.iter().map(String::as_str)) {
        Some(close) => diagnostic.with_help(format!("did you mean \"{close}\"?")),
        None if known.is_empty() => diagnostic.with_help("remove it"),
        None => diagnostic.with_help(format!(
            "remove it; the fields known here are {}",
            known.join(", ")
        )),
    }
}

/// The property names a schema object defines, given the path of its
/// `additionalProperties` keyword.
fn known_keys(schema: &Value, keyword_path: &str) -> Vec<String> {
    let parent = keyword_path
        .rsplit_once('/')
        .map(|(parent, _)| parent)
        .unwrap_or("");
    schema
        .pointer(parent)
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

/// A validator's message cut short: it quotes the offending value, which
/// can be megabytes (the caret shows where it is).
fn shortened(message: String) -> String {
    const SHOWN: usize = 300;
    if message.chars().count() <= SHOWN {
        return message;
    }
    let head: String = message.chars().take(SHOWN).collect();
    format!("{head}…")
}
