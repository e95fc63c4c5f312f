//! What a model reads of a tool, for the tool-poisoning rules.
//!
//! A tool's name, title, description and schema go into the model's
//! context as they are, and so does anything a server adds beside them:
//! property names, `enum` values, defaults, examples, keys no standard
//! defines. [`tools`] gathers every such string of every tool of a
//! manifest, each with the JSON Pointer it sits at, so that the rules of
//! the family (`invisible-unicode`, `confusable-tool-name`,
//! `hidden-instruction`, `sensitive-data-request`, `exfiltration-channel`,
//! `tool-shadowing`) look at the same text and point into it: a finding's
//! span is the offending phrase itself, mapped through `\uXXXX` escapes
//! back to the line and column of the file.
//!
//! What the runtime reads and the model never sees (a command, an
//! entrypoint, the environment, `_meta`) is left out. Text the front end
//! read from code (an AgentStack function's docstring, a Nachos class) has
//! no place in the manifest: its findings sit at the tool's name.

pub(crate) mod cues;
pub(crate) mod invisible;
pub(crate) mod names;
pub(crate) mod text;

use serde_json::Value;

use crate::diagnostic::Diagnostic;
use crate::ir::Tool;
use crate::json::{join, value_at};
use crate::lint::{Manifest, Rule};
use crate::schema;
use crate::source::Span;

pub(crate) use text::Normal;

/// One string a model reads: a value, or an object key (a property name,
/// an invented member).
#[derive(Debug, Clone)]
pub(crate) struct Piece<'a> {
    pub pointer: String,
    pub is_key: bool,
    pub text: &'a str,
    /// Read from code, not from the manifest: no place in its text.
    pub from_code: bool,
}

/// A tool and the strings of it a model reads.
pub(crate) struct ToolView<'a> {
    pub tool: &'a Tool,
    pub pieces: Vec<Piece<'a>>,
    /// The names of its top-level parameters, in lower case.
    parameters: std::collections::HashSet<String>,
    purpose: std::cell::OnceCell<String>,
}

impl ToolView<'_> {
    /// Whether `word` (in lower case) names one of its top-level
    /// parameters.
    pub(crate) fn is_parameter(&self, word: &str) -> bool {
        self.parameters.contains(word)
    }

    /// What the tool says it is for: its name and the first sentence of
    /// its description, normalized. A tool may name what it manages.
    pub(crate) fn purpose(&self) -> &str {
        self.purpose.get_or_init(|| self.read_purpose())
    }

    fn read_purpose(&self) -> String {
        let mut purpose = text::Normal::new(&self.tool.name).text;
        if let Some(description) = &self.tool.description {
            let normal = text::Normal::new(description);
            let first = text::sentences(&normal.text)
                .map(|range| &normal.text[range])
                .find(|sentence| !sentence.trim().is_empty())
                .unwrap_or_default();
            // What it says before any markup, and no more than a sentence
            // says: an instruction in a comment or a tag is no purpose.
            let plain = first
                .split(['<', '\n'])
                .find(|s| !s.trim().is_empty())
                .unwrap_or("");
            const WORDS: usize = 24;
            for word in plain.split_whitespace().take(WORDS) {
                purpose.push(' ');
                purpose.push_str(word);
            }
        }
        purpose
    }
}

/// Members of a tool the runtime reads and a model does not see.
const NOT_SEEN: &[&str] = &[
    "_meta",
    "args",
    "cache_control",
    "class",
    "command",
    "cwd",
    "dependencies",
    "entrypoint",
    "env",
    "icons",
    "image",
    "memory",
    "network",
    "permissions",
    "runtime",
    "sandbox",
    "security",
    "strict",
    "tier",
    "timeout",
    "timeoutSec",
    "url",
    "version",
    "x-toolc",
];

/// Members whose value is a schema.
const SCHEMA_MEMBERS: &[&str] = &[
    "parameters",
    "inputSchema",
    "input_schema",
    "schema",
    "outputSchema",
    "output_schema",
    "parametersJsonSchema",
    "responseJsonSchema",
];

/// Keys that are the vocabulary of manifests and schemas, not text.
const VOCABULARY: &[&str] = &[
    "name",
    "title",
    "description",
    "type",
    "function",
    "annotations",
    "format",
    "enum",
    "const",
    "default",
    "examples",
    "example",
    "required",
    "$ref",
    "$schema",
    "$id",
    "$comment",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "multipleOf",
    "nullable",
    "readOnly",
    "writeOnly",
    "deprecated",
    "contentMediaType",
    "contentEncoding",
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
    "id",
    "tools",
];

fn is_vocabulary(key: &str) -> bool {
    [
        VOCABULARY,
        NOT_SEEN,
        SCHEMA_MEMBERS,
        schema::MAPS,
        schema::SINGLE,
        schema::LISTS,
    ]
    .iter()
    .any(|list| list.contains(&key))
}

#[derive(Clone, Copy)]
enum Context {
    Tool,
    Schema,
    SchemaMap,
    Data,
}

/// Every tool of the manifest with the strings of it a model reads.
pub(crate) fn tools<'a>(manifest: &'a Manifest) -> Vec<ToolView<'a>> {
    let root = &manifest.document.value;
    manifest
        .toolset
        .tools
        .iter()
        .map(|tool| {
            let mut pieces = Vec::new();
            if let Some(value) = value_at(root, &tool.origin) {
                match value {
                    Value::Object(_) => gather(value, &tool.origin, Context::Tool, &mut pieces),
                    Value::String(_) => gather(value, &tool.origin, Context::Data, &mut pieces),
                    _ => {}
                }
            }
            if tool.name_is_key && !pieces.iter().any(|p| p.pointer == tool.name_at) {
                pieces.push(Piece {
                    pointer: tool.name_at.clone(),
                    is_key: true,
                    text: &tool.name,
                    from_code: false,
                });
            }
            if let Some(description) = &tool.description
                && !pieces.iter().any(|p| !p.is_key && p.text == description)
            {
                pieces.push(from_code(tool, description));
            }
            if tool.parameters_at.is_none()
                && let Some(parameters) = &tool.parameters
            {
                let mut derived = Vec::new();
                gather(parameters, "", Context::Schema, &mut derived);
                pieces.extend(derived.into_iter().map(|p| Piece {
                    from_code: true,
                    pointer: tool.name_at.clone(),
                    ..p
                }));
            }
            let parameters = tool
                .parameters
                .as_deref()
                .and_then(|p| p.get("properties"))
                .and_then(Value::as_object)
                .map(|p| p.keys().map(|name| name.to_lowercase()).collect())
                .unwrap_or_default();
            ToolView {
                tool,
                pieces,
                parameters,
                purpose: std::cell::OnceCell::new(),
            }
        })
        .collect()
}

fn from_code<'a>(tool: &'a Tool, text: &'a str) -> Piece<'a> {
    Piece {
        pointer: tool.name_at.clone(),
        is_key: false,
        text,
        from_code: true,
    }
}

/// Gathers the strings under `value` (at `pointer`) a model reads.
fn gather<'a>(value: &'a Value, pointer: &str, context: Context, out: &mut Vec<Piece<'a>>) {
    let mut stack: Vec<(&'a Value, String, Context)> = vec![(value, pointer.to_string(), context)];
    while let Some((value, pointer, context)) = stack.pop() {
        match value {
            Value::String(text) => out.push(Piece {
                pointer,
                is_key: false,
                text,
                from_code: false,
            }),
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate().rev() {
                    stack.push((item, join(&pointer, i), context));
                }
            }
            Value::Object(members) => {
                for (key, member) in members.iter().rev() {
                    let at = join(&pointer, key);
                    let next = match context {
                        Context::Tool if NOT_SEEN.contains(&key.as_str()) => continue,
                        Context::Tool if SCHEMA_MEMBERS.contains(&key.as_str()) => Context::Schema,
                        Context::Tool if key == "function" => Context::Tool,
                        Context::Tool => Context::Data,
                        Context::Schema if schema::MAPS.contains(&key.as_str()) => {
                            Context::SchemaMap
                        }
                        Context::Schema
                            if schema::SINGLE.contains(&key.as_str())
                                || schema::LISTS.contains(&key.as_str()) =>
                        {
                            Context::Schema
                        }
                        Context::Schema => Context::Data,
                        Context::SchemaMap => Context::Schema,
                        Context::Data => Context::Data,
                    };
                    if key == "_meta" {
                        continue;
                    }
                    let is_name = matches!(context, Context::SchemaMap);
                    if is_name || !is_vocabulary(key) {
                        out.push(Piece {
                            pointer: at.clone(),
                            is_key: true,
                            text: key,
                            from_code: false,
                        });
                    }
                    stack.push((member, at, next));
                }
            }
            _ => {}
        }
    }
}

/// Where bytes `range` of a piece's text are in the manifest's source:
/// the characters themselves, through any escapes (`\u200b`, a surrogate
/// pair), or the tool's name for text read from code.
pub(crate) fn span_of(
    manifest: &Manifest,
    tool: &Tool,
    piece: &Piece,
    range: std::ops::Range<usize>,
) -> Span {
    if piece.from_code {
        return manifest.tool_name_span(tool);
    }
    let map = &manifest.document.map;
    let token = if piece.is_key {
        map.key_span(&piece.pointer)
    } else {
        map.value_span(&piece.pointer)
    };
    let Some(token) = token else {
        return map.locate(&piece.pointer).span;
    };
    let source = map.text();
    match (
        text::source_offset(source, token, range.start),
        text::source_offset(source, token, range.end),
    ) {
        (Some(start), Some(end)) if start < end => Span::new(start, end),
        (Some(start), _) => Span::new(start, start + 1),
        _ => token,
    }
}

/// [`span_of`] for many ranges of one piece (in text order), in one pass
/// over its source: a string may hold a million hidden characters.
pub(crate) fn spans_of(
    manifest: &Manifest,
    tool: &Tool,
    piece: &Piece,
    ranges: Vec<std::ops::Range<usize>>,
) -> Vec<Span> {
    let map = &manifest.document.map;
    let token = if piece.is_key {
        map.key_span(&piece.pointer)
    } else {
        map.value_span(&piece.pointer)
    };
    let Some(token) = token.filter(|_| !piece.from_code) else {
        let at = span_of(manifest, tool, piece, 0..0);
        return ranges.iter().map(|_| at).collect();
    };
    let mut offsets: Vec<usize> = ranges.iter().flat_map(|r| [r.start, r.end]).collect();
    offsets.sort_unstable();
    let mapped = text::source_offsets(map.text(), token, &offsets);
    let at = |decoded: usize| offsets.binary_search(&decoded).ok().and_then(|i| mapped[i]);
    ranges
        .iter()
        .map(|r| match (at(r.start), at(r.end)) {
            (Some(start), Some(end)) if start < end => Span::new(start, end),
            _ => token,
        })
        .collect()
}

/// A finding of `rule` at bytes `range` of a piece's text.
pub(crate) fn at_text(
    manifest: &Manifest,
    rule: &'static Rule,
    view: &ToolView,
    piece: &Piece,
    range: std::ops::Range<usize>,
    message: impl Into<String>,
) -> Diagnostic {
    let span = span_of(manifest, view.tool, piece, range);
    rule.diagnostic(manifest.path(), piece.pointer.clone(), Some(span), message)
}

/// Where a piece is, for a message: "the description of tool `x`", "the
/// property name `y`".
pub(crate) fn place(view: &ToolView, piece: &Piece) -> String {
    let tool = crate::lint::shown(&view.tool.name);
    if piece.from_code {
        return format!("the text of tool {tool} read from its code");
    }
    let last = piece.pointer.rsplit('/').next().unwrap_or("");
    let field = if piece.is_key {
        "a key"
    } else {
        match last {
            "description" => "the description",
            "title" => "the title",
            "name" => "the name",
            "default" => "a default",
            _ if piece.pointer.contains("/enum/") => "an enum value",
            _ if piece.pointer.contains("/examples/") => "an example",
            _ if piece.pointer.contains("/required/") => "a required entry",
            _ => "a string",
        }
    };
    if piece.pointer.contains("/properties/") && !piece.is_key {
        format!("{field} of a parameter of tool {tool}")
    } else if piece.is_key && piece.pointer.contains("/properties/") {
        format!("a parameter name of tool {tool}")
    } else {
        format!("{field} of tool {tool}")
    }
}

/// What a text rule found in a piece: where in its normal text, and what
/// the text does there ("tells the model to keep it from the user").
pub(crate) struct Hit {
    pub range: std::ops::Range<usize>,
    pub what: String,
    /// The other tool the text reaches for, when it names one.
    pub reached: Option<String>,
}

impl Hit {
    pub(crate) fn new(range: std::ops::Range<usize>, what: impl Into<String>) -> Hit {
        Hit {
            range,
            what: what.into(),
            reached: None,
        }
    }
}

/// A rule of the family that reads text (`hidden-instruction`,
/// `sensitive-data-request`, `exfiltration-channel`, `tool-shadowing`):
/// what could match (one pass over a text), and what does.
pub(crate) struct TextRule {
    pub rule: &'static Rule,
    pub prefilter: &'static cues::Prefilter,
    pub help: &'static str,
    pub detect: fn(&Around, &ToolView, &Piece, &Normal) -> Option<Hit>,
}

/// What the text rules know of the manifest beside the piece they read.
pub(crate) struct Around {
    /// Its tools' names, in lower case.
    pub names: std::collections::HashSet<String>,
}

impl Around {
    fn of(manifest: &Manifest) -> Around {
        Around {
            names: manifest
                .toolset
                .tools
                .iter()
                .map(|t| t.name.to_lowercase())
                .filter(|n| !n.is_empty())
                .collect(),
        }
    }
}

/// Runs `rules` over every piece of every tool: the manifest walked once,
/// each piece read once, each rule reporting a piece's first hit, at the
/// phrase, quoting its sentence.
pub(crate) fn visit(
    manifest: &Manifest,
    rules: &[&TextRule],
    mut found: impl FnMut(&TextRule, Diagnostic, Hit),
) {
    if rules.is_empty() {
        return;
    }
    let context = Around::of(manifest);
    for view in tools(manifest) {
        for piece in &view.pieces {
            let normal = Normal::new(piece.text);
            for rule in rules {
                if !rule.prefilter.admits(&normal.text) {
                    continue;
                }
                let Some(hit) = (rule.detect)(&context, &view, piece, &normal) else {
                    continue;
                };
                let sentence = text::sentences(&normal.text)
                    .find(|s| {
                        s.start <= hit.range.start && hit.range.start < s.end.max(s.start + 1)
                    })
                    .unwrap_or(hit.range.clone());
                let quoted = text::quoted(&piece.text[normal.original_range(sentence)]);
                let message = format!("{} {}: {quoted}", place(&view, piece), hit.what);
                let range = normal.original_range(hit.range.clone());
                found(
                    rule,
                    at_text(manifest, rule.rule, &view, piece, range, message),
                    hit,
                );
            }
        }
    }
}

/// [`visit`], reporting each finding with its rule's help.
pub(crate) fn check_text(
    manifest: &Manifest,
    rules: &[&TextRule],
    out: &mut crate::lint::findings::Findings,
) {
    visit(manifest, rules, |rule, diagnostic, _| {
        out.push(diagnostic.with_help(rule.help));
    });
}

/// The sentences of a normal text, each with its text.
pub(crate) fn sentences(normal: &Normal) -> impl Iterator<Item = (usize, &str)> {
    text::sentences(&normal.text).map(|range| (range.start, &normal.text[range]))
}
