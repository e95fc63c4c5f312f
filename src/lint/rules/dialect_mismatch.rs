//! ## What it does
//! Reports a parameter schema whose root `$schema` names a dialect other
//! than JSON Schema draft 2020-12 (`https://json-schema.org/draft/2020-12/schema`,
//! with or without a trailing `#`), for example draft-07. Runs only with
//! `--target anthropic` or `mcp`. A warning: a schema that uses nothing
//! the dialects disagree on works anyway.
//!
//! ## Why is this bad?
//! Both read the schema as draft 2020-12, whatever `$schema` says:
//!
//! - Anthropic checks every `input_schema` against draft 2020-12 and rejects
//!   the request when it does not match: `tools.0.custom.input_schema: JSON
//!   schema is invalid. It must match JSON Schema draft 2020-12
//!   (https://json-schema.org/draft/2020-12). Learn more about tool use at
//!   https://docs.anthropic.com/en/docs/tool-use.` Older idioms such as a
//!   tuple `items` array (draft-07) or a boolean `exclusiveMinimum`
//!   (draft-04) fail that check.
//! - MCP (2025-11-25) makes 2020-12 the default dialect and the one every
//!   implementation must support; other dialects are optional, so a client
//!   may not honour them. The MCP specification's own examples include a
//!   draft-07 `inputSchema`, which is why this is a warning and not an error.
//!
//! ## Example
//! ```json
//! {"name": "calculate_sum", "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#",
//!   "type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}}
//! ```
//!
//! ## Use instead
//! ```json
//! {"name": "calculate_sum", "inputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema",
//!   "type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}}
//! ```

use serde_json::Value;

use crate::diagnostic::Severity;
use crate::json;
use crate::lint::findings::Findings;
use crate::lint::parameter_schema::ParameterSchema;
use crate::lint::settings::{agree, provider_list};
use crate::lint::{Rule, Target};

pub(crate) const RULE: Rule = Rule {
    name: "dialect-mismatch",
    code: "TC709",
    severity: Severity::Warning,
    summary: "a parameter schema's $schema is not JSON Schema draft 2020-12",
    fixable: false,
    targets: &[Target::Anthropic, Target::Mcp],
};

const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

pub(crate) fn check(parameters: &ParameterSchema, out: &mut Findings) {
    let Some(dialect) = parameters.value.get("$schema") else {
        return;
    };
    let declared = match dialect {
        Value::String(uri) if uri.strip_suffix('#').unwrap_or(uri) == DRAFT_2020_12 => {
            return;
        }
        Value::String(uri) => format!("{uri:?}"),
        other => other.to_string(),
    };
    let readers = parameters.manifest.settings.providers(&RULE);
    out.push(
        parameters
            .at_value(
                &RULE,
                json::join(parameters.root, "$schema"),
                format!(
                    "the parameter schema declares \"$schema\": {declared}; {} {} JSON Schema draft 2020-12",
                    provider_list(&readers),
                    agree(&readers, "expects", "expect")
                ),
            )
            .with_help(format!(
                "write the schema in draft 2020-12 and declare \"$schema\": \"{DRAFT_2020_12}\", or leave \"$schema\" out"
            )),
    );
}
