//! ## What it does
//! With the `openai-strict` target, reports a `format` that OpenAI strict
//! mode does not support, at any depth of the parameter schema, at the
//! format's value. Strict mode supports `date-time`, `time`, `date`,
//! `duration`, `email`, `hostname`, `ipv4`, `ipv6` and `uuid`. Subschemas
//! under a keyword strict mode rejects (`not`, `if`, ...) are left to
//! `strict-unsupported-keyword`.
//!
//! ## Why is this bad?
//! OpenAI strict mode (`"strict": true`, Structured Outputs) rejects the
//! whole request for any other format:
//! `Invalid schema for function 'NAME': In context=('properties', 'url'), 'uri' is not a valid format.`
//! The usual culprit is a URL field: zod's `z.string().url()` and Pydantic's
//! `AnyUrl`/`HttpUrl` both emit `"format": "uri"`.
//!
//! ## Example
//! ```json
//! {"type": "object", "additionalProperties": false, "required": ["url"],
//!  "properties": {"url": {"type": "string", "format": "uri"}}}
//! ```
//!
//! ## Use instead
//! ```json
//! {"type": "object", "additionalProperties": false, "required": ["url"],
//!  "properties": {"url": {"type": "string", "description": "An absolute http(s) URL."}}}
//! ```

use serde_json::{Map, Value};

use crate::diagnostic::Severity;
use crate::json;
use crate::lint::findings::Findings;
use crate::lint::parameter_schema::ParameterSchema;
use crate::lint::rules::strict_unsupported_keyword::in_rejected_subschema;
use crate::lint::{Rule, Target};
use crate::providers::openai::STRICT_FORMATS;

pub(crate) const RULE: Rule = Rule {
    name: "strict-unsupported-format",
    code: "TC804",
    severity: Severity::Error,
    summary: "OpenAI strict mode: a \"format\" strict mode does not support",
    fixable: false,
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
    // A `format` that is not a string is `invalid-json-schema`'s finding.
    let Some(Value::String(format)) = node.get("format") else {
        return;
    };
    if STRICT_FORMATS.contains(&format.as_str()) {
        return;
    }
    if in_rejected_subschema(parameters, pointer) {
        return;
    }
    out.push(
        parameters
            .at_value(
                &RULE,
                json::join(pointer, "format"),
                format!(
                    "format \"{format}\" is not supported in OpenAI strict mode (it supports {})",
                    STRICT_FORMATS.join(", ")
                ),
            )
            .with_help(
                "remove \"format\" and say what the string holds in the \"description\", \
                 or constrain it with a \"pattern\"",
            ),
    );
}
