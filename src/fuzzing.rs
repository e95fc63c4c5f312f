//! The entry points shared by the cargo-fuzz targets (`fuzz/fuzz_targets/`)
//! and the test that replays their corpus and saved crashes on stable
//! (`tests/integration/fuzz_replay.rs`). Not public API: it exists so that
//! the fuzzers reach the crate's private readers, and may change at any
//! time.
//!
//! Each entry point takes the fuzzer's bytes, runs one area of toolc on
//! them through the same calls a user's run makes, and checks what must
//! hold whatever the input: nothing panics, every span lies in its text,
//! the machine formats are valid JSON, SARIF or XML, a fixed manifest still
//! parses, a converted or generated document reads back. A broken
//! invariant comes back as an `Err` with a sentence saying which; the
//! fuzz targets turn it into a panic, the replay test into a failure naming
//! the file.
//!
//! The inputs that hold a manifest start with a selector byte (which file
//! name, format, renderer or target) followed by the manifest; code beside
//! it (a NORA entrypoint, an AgentStack `__init__.py`, a Nachos class)
//! follows the first NUL byte. `scripts/fuzz` builds seeds in that layout.

use std::sync::Arc;

use serde_json::Value;

use crate::json;
use crate::source::{Source, Span};
use crate::syntax::line_column;
use case::split_at_nul;

/// A broken invariant, in words.
pub type Violation = String;

/// What an entry point found: nothing, or a broken invariant.
pub type Checked = Result<(), Violation>;

/// An entry point: the fuzzer's bytes in, what they broke out.
pub type EntryPoint = fn(&[u8]) -> Checked;

/// Every fuzz target: its name (the cargo-fuzz target, the directories
/// under `fuzz/corpus/` and `fuzz/regressions/`) and its entry point.
pub const TARGETS: [(&str, EntryPoint); 8] = [
    ("json", parse_json),
    ("lower", lower),
    ("python", read_python),
    ("typescript", read_typescript),
    ("fix", apply_fixes),
    ("render", render),
    ("convert", convert),
    ("gen", generate),
];

macro_rules! ensure {
    ($condition:expr, $($message:tt)+) => {
        if !$condition {
            return Err(format!($($message)+));
        }
    };
}

// After the macro: the submodules use it.
mod case;
mod output;
mod pipeline;

pub use pipeline::{apply_fixes, convert, generate, lower, render};

// ------------------------------------------------------------ json, spans

/// The span-preserving JSON parser and its source map: the value is the one
/// `serde_json` reads; every value's span holds that value, every key's
/// span that key; lines and columns agree with the readers' own count.
pub fn parse_json(data: &[u8]) -> Checked {
    let text: Arc<str> = Arc::from(String::from_utf8_lossy(data).as_ref());
    let ours = json::parse(&text);
    let theirs: Result<Value, _> = serde_json::from_str(&text);
    let document = match (ours, theirs) {
        (Ok(document), Ok(value)) => {
            ensure!(
                document.value == value,
                "the value differs from serde_json's"
            );
            document
        }
        (Ok(document), Err(e)) => {
            ensure!(
                e.to_string().contains("recursion limit"),
                "serde_json refuses what toolc accepts: {e}"
            );
            document
        }
        (Err(e), Ok(_)) => return Err(format!("toolc refuses what serde_json reads: {e:?}")),
        (Err(e), Err(_)) => {
            ensure!(
                e.offset <= text.len(),
                "error offset {} past the end",
                e.offset
            );
            return Ok(());
        }
    };
    let source = Source::new("fuzz.json", text.clone());
    check_node(&document, &source, &document.value, String::new(), None)?;
    let missing = json::join("", "\u{0}absent");
    let located = document.map.locate(&missing);
    ensure!(!located.exact, "an absent member was located exactly");
    span_in(&text, located.span, "the span of an absent member")?;
    for duplicate in &document.duplicate_keys {
        for span in [duplicate.span, duplicate.first] {
            ensure!(
                string_at(&text, span)? == duplicate.key,
                "duplicate key {:?}: a span holds another key",
                duplicate.key
            );
        }
        ensure!(
            duplicate.first.start < duplicate.span.start,
            "duplicate key {:?}: the first occurrence is not first",
            duplicate.key
        );
        let last = json::pointer_tokens(&duplicate.pointer).last();
        ensure!(
            last.as_deref() == Some(duplicate.key.as_str()),
            "duplicate key {:?} at pointer {:?}",
            duplicate.key,
            duplicate.pointer
        );
    }
    Ok(())
}

/// Checks the value at `pointer` and everything under it.
fn check_node(
    document: &json::Document,
    source: &Source,
    value: &Value,
    pointer: String,
    key: Option<&str>,
) -> Checked {
    let text = &source.text;
    let span = document
        .map
        .value_span(&pointer)
        .ok_or_else(|| format!("no span for {pointer:?}"))?;
    let slice = span_in(text, span, &format!("the value of {pointer:?}"))?;
    match serde_json::from_str::<Value>(slice) {
        Ok(again) => ensure!(
            again == *value,
            "the span of {pointer:?} holds another value"
        ),
        Err(e) if e.to_string().contains("recursion limit") => {}
        Err(e) => return Err(format!("the span of {pointer:?} is not JSON: {e}")),
    }
    ensure!(
        json::value_at(&document.value, &pointer) == Some(value),
        "value_at({pointer:?}) finds another value"
    );
    let located = document.map.locate(&pointer);
    ensure!(
        located.exact && located.span == span,
        "locate({pointer:?}) differs from value_span"
    );
    match (key, document.map.key_span(&pointer)) {
        (Some(key), Some(key_span)) => ensure!(
            string_at(text, key_span)? == key,
            "the key span of {pointer:?} holds another key"
        ),
        (None, None) => {}
        (Some(_), None) => return Err(format!("no key span for member {pointer:?}")),
        (None, Some(_)) => return Err(format!("a key span for {pointer:?}, which has no key")),
    }
    for offset in [span.start, span.end] {
        let at = source.line_col(offset);
        ensure!(
            (at.line, at.column) == line_column(text, offset),
            "line and column of offset {offset} disagree"
        );
    }
    match value {
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                check_node(document, source, item, json::join(&pointer, index), None)?;
            }
        }
        Value::Object(members) => {
            for (name, member) in members {
                let at = json::join(&pointer, name);
                check_node(document, source, member, at, Some(name))?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// The text a span covers, when the span lies in the text on character
/// boundaries.
pub(super) fn span_in<'t>(text: &'t str, span: Span, what: &str) -> Result<&'t str, Violation> {
    ensure!(
        span.start <= span.end,
        "{what}: span {span:?} ends before it starts"
    );
    text.get(span.start..span.end)
        .ok_or_else(|| format!("{what}: span {span:?} is outside the text or splits a character"))
}

/// The JSON string a span holds, decoded.
fn string_at(text: &str, span: Span) -> Result<String, Violation> {
    let slice = span_in(text, span, "a key")?;
    serde_json::from_str(slice).map_err(|e| format!("key span {span:?} holds no string: {e}"))
}

fn range_in(text: &str, range: &std::ops::Range<usize>, what: &str) -> Checked {
    span_in(text, Span::new(range.start, range.end), what).map(|_| ())
}

fn range_within(inner: &std::ops::Range<usize>, outer: &std::ops::Range<usize>) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}

// ---------------------------------------------------------- code readers

/// The Python reader: spans lie in the text; the schema read from each
/// function's signature is a valid JSON Schema of an object.
pub fn read_python(data: &[u8]) -> Checked {
    let text = String::from_utf8_lossy(data);
    let module = match crate::python::parse(&text) {
        Ok(module) => module,
        Err(error) => return syntax_error_in(&text, &error),
    };
    for function in &module.functions {
        let what = format!("def {}", function.name);
        range_in(&text, &function.span, &what)?;
        range_in(&text, &function.name_span, &what)?;
        ensure!(
            range_within(&function.name_span, &function.span),
            "{what}: its name is outside it"
        );
        for parameter in &function.parameters {
            range_in(&text, &parameter.span, &what)?;
            ensure!(
                range_within(&parameter.span, &function.span),
                "{what}: parameter {} is outside it",
                parameter.name
            );
        }
        let Some(found) =
            crate::formats::agentstack_python::function_schema(&module, &function.name)
        else {
            continue;
        };
        ensure!(
            found.schema.get("type") == Some(&Value::from("object")),
            "{what}: the schema is not an object's"
        );
        ensure!(
            jsonschema::meta::is_valid(&found.schema),
            "{what}: the schema read from it is no valid JSON Schema: {}",
            found.schema
        );
    }
    Ok(())
}

/// The TypeScript reader: the class found has the tool id asked for, and
/// every span lies in the text (the parameters' inside the class). The
/// input is the tool id, a NUL byte, then the code.
pub fn read_typescript(data: &[u8]) -> Checked {
    let (tool_id, code) = split_at_nul(data);
    let tool_id = String::from_utf8_lossy(tool_id);
    let text = String::from_utf8_lossy(code.unwrap_or_default());
    let class = match crate::typescript::find_tool_class(&text, &tool_id) {
        Ok(Some(class)) => class,
        Ok(None) => return Ok(()),
        Err(error) => return syntax_error_in(&text, &error),
    };
    ensure!(
        class.tool_id == tool_id,
        "found the class of {:?}",
        class.tool_id
    );
    range_in(&text, &class.span, "the class")?;
    for (range, what) in [
        (&class.parameters_span, "parameters"),
        (&class.security_tier_span, "securityTier"),
    ] {
        if let Some(range) = range {
            range_in(&text, range, what)?;
            ensure!(
                range_within(range, &class.span),
                "{what} is outside the class"
            );
        }
    }
    for unsupported in &class.unsupported {
        range_in(&text, &unsupported.span, "an unsupported value")?;
        ensure!(
            text.get(unsupported.span.clone()) == Some(unsupported.text.as_str()),
            "an unsupported value's text is not what its span holds"
        );
    }
    if let Some(schema) = class
        .parameters
        .as_ref()
        .and_then(crate::typescript::parameters_schema)
    {
        ensure!(schema.is_object(), "the parameters schema is not an object");
    }
    Ok(())
}

fn syntax_error_in(text: &str, error: &crate::syntax::SyntaxError) -> Checked {
    ensure!(error.offset <= text.len(), "syntax error past the end");
    let at = Source::new("code", text).line_col(error.offset);
    ensure!(
        (at.line, at.column) == (error.line, error.column),
        "syntax error at {}:{}, which is {}:{}",
        error.line,
        error.column,
        at.line,
        at.column
    );
    Ok(())
}
