//! ## What it does
//! Reports `anyOf`, `oneOf` or `allOf` at the root of a tool's parameter
//! schema, and, for OpenAI, `enum` and `not` there too (the keywords each
//! provider refuses at the root are one table in `src/providers`). Runs
//! only with `--target anthropic`, `openai` or `openai-strict`.
//!
//! ## Why is this bad?
//! They reject the schema, and with it the whole request:
//!
//! - Anthropic: `tools.0.custom.input_schema: input_schema does not support
//!   oneOf, allOf, or anyOf at the top level`
//! - OpenAI, with `"strict": true` or without: the parameters must be a
//!   plain object schema, not `anyOf`; the request fails with
//!   `Invalid schema for function 'NAME': ...`.
//!
//! Such roots come from generators: a Pydantic `Union` of models, a zod
//! `z.union([...])` or `.and(...)` passed through `zod-to-json-schema`, or
//! an "exactly one of these arguments" rule. The tool works with MCP
//! clients that never call a model API, and breaks as soon as one does.
//!
//! ## Example
//! ```json
//! [{"name": "get_resource", "input_schema": {"type": "object", "anyOf": [
//!   {"properties": {"id": {"type": "string"}}, "required": ["id"]},
//!   {"properties": {"path": {"type": "string"}}, "required": ["path"]}]}}]
//! ```
//!
//! ## Use instead
//! Declare every property at the root and say in the descriptions which to
//! give; check the combination in the tool itself.
//! ```json
//! [{"name": "get_resource", "input_schema": {"type": "object", "properties": {
//!   "id": {"type": "string", "description": "Resource ID (give this or path)"},
//!   "path": {"type": "string", "description": "Resource path (give this or id)"}}}}]
//! ```

use serde_json::Value;

use crate::diagnostic::Severity;
use crate::json;
use crate::lint::Rule;
use crate::lint::findings::Findings;
use crate::lint::parameter_schema::ParameterSchema;
use crate::lint::settings::{agree, provider_list};
use crate::providers::ROOT_REFUSED;

pub(crate) const RULE: Rule = Rule {
    name: "root-combinator",
    code: "TC706",
    severity: Severity::Error,
    summary: "anyOf/oneOf/allOf at the root of a parameter schema",
    fixable: false,
    targets: crate::providers::ROOT_COMBINATOR_REJECTERS,
};

pub(crate) fn check(parameters: &ParameterSchema, out: &mut Findings) {
    let Value::Object(schema) = parameters.value else {
        return;
    };
    let enabled = parameters.manifest.settings.providers(&RULE);
    for (keyword, _) in ROOT_REFUSED
        .iter()
        .filter(|(k, _)| schema.contains_key(k.name))
    {
        let keyword = keyword.name;
        let rejecting: Vec<_> = enabled
            .iter()
            .copied()
            .filter(|t| t.root_refused().any(|k| k.name == keyword))
            .collect();
        if rejecting.is_empty() {
            continue;
        }
        out.push(
            parameters
                .at_key(
                    &RULE,
                    json::join(parameters.root, keyword),
                    format!(
                        "\"{keyword}\" at the root of the parameter schema; {} {} it there",
                        provider_list(&rejecting),
                        agree(&rejecting, "rejects", "reject")
                    ),
                )
                .with_help(
                    "declare every property at the root, say in the descriptions which to give, and check the combination in the tool",
                ),
        );
    }
}
