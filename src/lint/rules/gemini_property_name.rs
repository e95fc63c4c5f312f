//! ## What it does
//! With the `gemini` target, reports a property name that is not an
//! identifier: it must start with a letter or an underscore and go on with
//! letters, digits and underscores only, 64 characters at most
//! (`^[A-Za-z_][A-Za-z0-9_]{0,63}$`). At any depth of the parameter schema,
//! at the property's key.
//!
//! ## Why is this bad?
//! Gemini's function calling is built around identifiers: function names
//! must start with a letter or an underscore and are limited to 64
//! characters (`Invalid function name. Must start with a letter or an
//! underscore. ... with a maximum length of 64.`), and the SDKs build
//! declarations from function signatures, whose parameter names are
//! identifiers. Property names such as `user-id`, `$filter`, `2fa_code` or
//! `page size` fall outside the conservative subset that every Gemini
//! surface (Gemini API, Vertex AI, the SDKs) is known to round-trip, and
//! the model's arguments come back under names that code in other
//! languages cannot bind. toolc has no API error text on record for this
//! case; treat the rule as a portability check and turn it off in
//! `toolc.toml` if your Gemini integration accepts the names.
//!
//! ## Example
//! ```json
//! {"type": "object", "properties": {"user-id": {"type": "string"}}}
//! ```
//!
//! ## Use instead
//! ```json
//! {"type": "object", "properties": {"user_id": {"type": "string"}}}
//! ```

use serde_json::{Map, Value};

use crate::diagnostic::Severity;
use crate::json;
use crate::lint::findings::Findings;
use crate::lint::parameter_schema::ParameterSchema;
use crate::lint::rules::gemini_unsupported_keyword::in_rejected_subschema;
use crate::lint::{Rule, Target};
use crate::providers::gemini::{PROPERTY_NAME_MAX_LENGTH, is_property_name};

pub(crate) const RULE: Rule = Rule {
    name: "gemini-property-name",
    code: "TC809",
    severity: Severity::Error,
    summary: "Gemini: a property name is not an identifier of at most 64 characters",
    fixable: false,
    targets: &[Target::Gemini],
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
    let properties_at = json::join(pointer, "properties");
    for name in properties.keys() {
        if is_property_name(name) {
            continue;
        }
        out.push(
            parameters
                .at_key(
                    &RULE,
                    json::join(&properties_at, name),
                    format!(
                        "property name \"{name}\" is not an identifier Gemini accepts \
                         (a letter or _, then letters, digits and _, at most {PROPERTY_NAME_MAX_LENGTH})"
                    ),
                )
                .with_help(format!("rename it, e.g. to \"{}\"", identifier_like(name))),
        );
    }
}

/// A close name that passes: other characters become `_`, a leading digit
/// gets a `_` before it, and the result is cut to the maximum length.
fn identifier_like(name: &str) -> String {
    let mut fixed: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if !fixed.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        fixed.insert(0, '_');
    }
    fixed.chars().take(PROPERTY_NAME_MAX_LENGTH).collect()
}
