//! ## What it does
//! With the `openai-strict` target, reports the JSON Schema keywords that
//! OpenAI strict mode does not support, at any depth of the parameter
//! schema, at the keyword: `allOf`, `oneOf`, `not`, `if`, `then`, `else`,
//! `dependentRequired`, `dependentSchemas`, `patternProperties` and
//! `propertyNames`. (`anyOf` is supported below the root; a combinator at
//! the root itself is `root-combinator`'s finding.) Keywords inside a
//! subschema that goes away with its keyword (under `not`, `if`, ...) are
//! not reported again.
//!
//! ## Why is this bad?
//! OpenAI strict mode (`"strict": true`, Structured Outputs) accepts a
//! subset of JSON Schema and rejects the whole request for anything else:
//! `Invalid schema for function 'NAME': In context=('properties', 'data'), 'allOf' is not permitted.`
//! Pydantic v1 wraps a described `$ref` in `allOf`, Pydantic v2 emits
//! `oneOf` for discriminated unions, zod emits `oneOf` for `z.xor`, and MCP
//! servers declare maps with `propertyNames` (`'propertyNames' is not
//! permitted`).
//!
//! ## Example
//! ```json
//! {"type": "object", "additionalProperties": false, "required": ["target"],
//!  "properties": {"target": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}}
//! ```
//!
//! ## Use instead
//! ```json
//! {"type": "object", "additionalProperties": false, "required": ["target"],
//!  "properties": {"target": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}}
//! ```

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::diagnostic::Severity;
use crate::json;
use crate::lint::findings::Findings;
use crate::lint::parameter_schema::ParameterSchema;
use crate::lint::{Rule, Target};
use crate::providers::Keyword;
use crate::providers::openai::{STRICT_REJECTED, STRICT_SUBSCHEMAS_DROPPED};

pub(crate) const RULE: Rule = Rule {
    name: "strict-unsupported-keyword",
    code: "TC803",
    severity: Severity::Error,
    summary: "OpenAI strict mode: the schema uses a keyword strict mode rejects",
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
    if in_rejected_subschema(parameters, pointer) {
        return;
    }
    for Keyword {
        name: keyword,
        instead,
        ..
    } in STRICT_REJECTED
    {
        if !node.contains_key(*keyword) {
            continue;
        }
        // What OpenAI refuses at the root is reported there by
        // `root-combinator`.
        if parameters.is_root(pointer)
            && Target::OpenaiStrict
                .root_refused()
                .any(|refused| refused.name == *keyword)
        {
            continue;
        }
        out.push(
            parameters
                .at_key(
                    &RULE,
                    json::join(pointer, keyword),
                    format!("\"{keyword}\" is not supported in OpenAI strict mode"),
                )
                .with_help(*instead),
        );
    }
}

/// Whether the subschema at `pointer` lies inside one that goes away when
/// strict mode's rules are met (under `not`, `if`, `additionalProperties`,
/// ...).
pub(crate) fn in_rejected_subschema(parameters: &ParameterSchema, pointer: &str) -> bool {
    // Most pointers hold none of these tokens; only those are parsed.
    if !pointer
        .split('/')
        .any(|t| STRICT_SUBSCHEMAS_DROPPED.contains(&t))
    {
        return false;
    }
    schema_path(parameters, pointer).is_some_and(|steps| {
        steps
            .iter()
            .any(|s| STRICT_SUBSCHEMAS_DROPPED.contains(&s.keyword))
    })
}

/// One step down a parameter schema: the keyword, and for keywords that
/// hold several subschemas the member taken (`properties`/`city`,
/// `anyOf`/`1`).
#[derive(Debug, PartialEq)]
pub(crate) struct PathStep<'p> {
    pub(crate) keyword: &'p str,
    pub(crate) member: Option<Cow<'p, str>>,
}

/// Keywords that map names to subschemas, and that list subschemas (as in
/// the shared schema walk; `items` is a list only when an index follows).
const NAMED: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];
const LISTED: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems", "items"];

/// The steps from the root of the parameter schema down to `pointer` (none
/// for the root itself); `None` when the schema does not hold it. A
/// property named like a keyword (`"not"`) is a member, not a step, because
/// the path is read from the root down.
pub(crate) fn schema_path<'p>(
    parameters: &ParameterSchema,
    pointer: &'p str,
) -> Option<Vec<PathStep<'p>>> {
    let below = pointer
        .strip_prefix(parameters.root)
        .filter(|rest| rest.is_empty() || rest.starts_with('/'))?;
    let mut tokens = below.split('/').skip(1).peekable();
    let mut steps = Vec::new();
    while let Some(keyword) = tokens.next() {
        let listed = LISTED.contains(&keyword)
            && tokens
                .peek()
                .is_some_and(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()));
        let member = if NAMED.contains(&keyword) || listed {
            Some(unescape(tokens.next()?))
        } else {
            None
        };
        steps.push(PathStep { keyword, member });
    }
    Some(steps)
}

fn unescape(token: &str) -> Cow<'_, str> {
    if token.contains('~') {
        Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
    } else {
        Cow::Borrowed(token)
    }
}
