//! Structural validation: each format's JSON Schema
//! ([`crate::formats::schema`]) checked against a manifest, and what each
//! mismatch becomes.
//!
//! A value of the wrong shape becomes `schema-violation` at the exact span
//! of the offending value; keys the format does not define become
//! `unknown-field` warnings at the key, with a suggestion when a known key
//! is close.

use jsonschema::error::ValidationErrorKind;
use serde_json::Value;

use super::Manifest;
use super::rules::{schema_violation, unknown_field};
use crate::diagnostic::Diagnostic;
use crate::json;
use crate::lint::findings::{Findings, PER_RULE};
use crate::suggest::did_you_mean;

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
    let (schema, validator) = crate::formats::schema::compiled(manifest.format())?;
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

#[cfg(test)]
mod tests {
    use crate::diagnostic::Severity;
    use crate::ir::Format;
    use crate::lint::{LintOptions, Linter};
    use crate::project::HeldDocument;

    /// What convert refuses to write ([`crate::formats::schema::violations`])
    /// is what lint reports as a structural error: a value of the wrong
    /// shape is; a key the format does not define is a warning.
    #[test]
    fn lint_errors_are_the_format_violations() {
        let text = r#"{"tools": [{"name": "fetch", "command": ["./tools/bin/fetch"],
            "timeoutSec": "5", "colour": "red"},
            {"name": "x", "command": ["./tools/bin/x"], "envPassthrough": "HOME"}]}"#;
        let linter = Linter::new(LintOptions::default()).expect("no configuration");
        let held = HeldDocument {
            path: "tools.json".to_string(),
            format: Format::Agentcli,
            text: text.to_string(),
        };
        let report = linter.lint_inputs(&[], &[held]).expect("lints");
        let structural = |severity: Severity| {
            report
                .diagnostics
                .iter()
                .filter(|d| matches!(d.rule.name, "schema-violation" | "unknown-field"))
                .filter(|d| d.severity == severity)
                .count()
        };
        let document: serde_json::Value = serde_json::from_str(text).expect("parses");
        let violations =
            crate::formats::schema::violations(Format::Agentcli, &document).expect("compiles");
        assert_eq!(violations.len(), 2, "{violations:?}");
        assert_eq!(structural(Severity::Error), violations.len(), "{report:?}");
        assert_eq!(structural(Severity::Warning), 1, "{report:?}");
    }
}
