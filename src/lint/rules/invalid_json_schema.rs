//! ## What it does
//! Validates each tool's parameter schema against the JSON Schema
//! meta-schema of its dialect (`$schema`, 2020-12 when absent) and reports
//! every violation at its place: `"type": "text"`, `"required": "url"`,
//! `"minimum": "1"`. NORA parameters are checked after lowering NORA's
//! per-property `required` flags to a standard `required` array.
//!
//! ## Why is this bad?
//! Providers validate tool schemas and reject the request ("Invalid schema
//! for function ..."); the few that don't pass a schema to the model that
//! means something other than what the author wrote.
//!
//! ## Example
//! ```json
//! {"type": "object", "properties": {"url": {"type": "text"}}}
//! ```
//!
//! ## Use instead
//! ```json
//! {"type": "object", "properties": {"url": {"type": "string"}}}
//! ```

use serde_json::Value;

use crate::diagnostic::Severity;
use crate::formats::standard_parameters;
use crate::ir::Format;
use crate::lint::Rule;
use crate::lint::findings::Findings;
use crate::lint::parameter_schema::ParameterSchema;
use crate::schema;

pub(crate) const RULE: Rule = Rule {
    name: "invalid-json-schema",
    code: "TC305",
    severity: Severity::Error,
    summary: "a parameter schema is not valid JSON Schema",
    fixable: false,
    targets: &[],
};

pub(crate) fn check(parameters: &ParameterSchema, out: &mut Findings) {
    let raw @ Value::Object(_) = parameters.value else {
        return;
    };
    // NORA's dialect is checked in its standard form; others as written.
    // (The IR holds it lowered already; lowering again is the fallback.)
    let lowered;
    let schema = if parameters.format() == Format::Nora && !parameters.is_derived() {
        match &parameters.tool.parameters {
            Some(ir) => ir,
            None => {
                lowered = standard_parameters(Format::Nora, raw);
                &lowered
            }
        }
    } else {
        raw
    };
    let Value::Object(object) = schema else {
        return;
    };
    // An unknown or malformed `$schema` cannot be meta-validated here.
    if let Some(dialect) = object.get("$schema") {
        let known = dialect
            .as_str()
            .is_some_and(|d| schema::DIALECTS.contains(&d.trim_end_matches('#')));
        if !known {
            return;
        }
    }
    // Most tool schemas use a handful of keywords the quick walk knows;
    // only the rest (and anything it doubts) meets the meta-schema.
    if crate::schema::surely_valid(schema) {
        return;
    }
    let Ok(validator) = jsonschema::meta::validator_for(schema) else {
        return;
    };
    // Most schemas are valid: the short-circuiting check is far cheaper
    // than collecting errors.
    if validator.is_valid(schema) {
        return;
    }
    // The meta-schema often fails one value through several branches;
    // report each place once.
    let mut reported = std::collections::HashSet::new();
    for error in validator.iter_errors(schema) {
        let instance = error.instance_path().as_str();
        if !reported.insert(instance.to_string()) {
            continue;
        }
        let pointer = format!("{}{instance}", parameters.root);
        let message = match error.instance().as_ref() {
            // The meta-schema's `type` check is an anyOf whose own message
            // names no type; say what is wrong instead.
            Value::String(name)
                if instance.ends_with("/type") && !schema::TYPES.contains(&name.as_str()) =>
            {
                format!(
                    "\"{name}\" is not a JSON Schema type ({})",
                    schema::TYPES.join(", ")
                )
            }
            _ => format!("invalid JSON Schema: {error}"),
        };
        out.push(parameters.at_value(&RULE, pointer, message).with_help(
            "fix the schema keyword at the caret; see json-schema.org for its allowed values",
        ));
    }
}
