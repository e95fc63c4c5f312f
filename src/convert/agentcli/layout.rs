//! Giving an agentcli file back as it was written: each tool's entry as
//! the text it had (see [`Layout`]) while the tool still reads as that
//! text, and the file's own text around the entries, in place of toolc's
//! layout.
//!
//! What is assembled is checked before it is used: it must read as
//! exactly the document toolc would write (the file's `$schema` aside,
//! which no writer carries), or toolc's layout is written instead. So a
//! tool edited since (in a NORA directory, say) comes back edited, never
//! as its stale text, and a hand-edited record can only ever give back
//! JSON that means what toolc would have written.

use serde_json::{Map, Value};

use crate::formats::SCHEMA_KEY;
use crate::ir::{Format, Layout};
use crate::json::Document;
use crate::source::Span;

/// A tool entry the writer built, and how the tool was written.
pub(super) struct Entry<'a> {
    pub(super) value: &'a Value,
    pub(super) layout: Option<&'a Layout>,
    /// Its place among the tools of the file the layout is from.
    pub(super) position: usize,
}

/// The layout of an agentcli file, if `layout` is one.
fn agentcli(layout: Option<&Layout>) -> Option<&Layout> {
    layout.filter(|l| l.format == Format::Agentcli)
}

/// Whether the tool was written without a `schema`, which agentcli reads
/// as no parameters: an empty object schema is then no schema to add.
pub(super) fn written_without_schema(layout: Option<&Layout>) -> bool {
    agentcli(layout)
        .and_then(|l| serde_json::from_str::<Value>(l.entry()).ok())
        .is_some_and(|entry| entry.as_object().is_some_and(|o| !o.contains_key("schema")))
}

/// The text of `root` (the document the writer built, its `tools` the
/// values of `entries`) in the layout its tools were written in: each
/// entry as its recorded text where it still reads as that, or that text
/// with the members changed since written anew, otherwise (a new tool, a
/// member added or removed) in toolc's layout at the file's indentation;
/// the file's head, tail and separators around them. `None` when no
/// entry has a layout, when they come from different files or out of
/// their order, or when the result would not read as `root`.
pub(super) fn assemble(root: &Value, entries: &[Entry]) -> Option<String> {
    let layouts: Vec<(usize, &Layout)> = entries
        .iter()
        .filter_map(|e| Some((e.position, agentcli(e.layout)?)))
        .collect();
    let (_, first) = layouts.first()?;
    let one_file = layouts
        .iter()
        .all(|(_, l)| l.head() == first.head() && l.tail() == first.tail());
    let in_order = layouts.windows(2).all(|pair| pair[0].0 < pair[1].0);
    if !one_file || !in_order {
        return None;
    }
    let indent = last_line_indent(first.head());
    let separator = layouts
        .iter()
        .rev()
        .find_map(|(_, l)| l.before().map(str::to_string))
        .unwrap_or_else(|| match first.head().contains('\n') {
            true => format!(",\n{indent}"),
            false => ", ".to_string(),
        });
    let mut text = first.head().to_string();
    for (index, entry) in entries.iter().enumerate() {
        let layout = agentcli(entry.layout);
        if index > 0 {
            text.push_str(layout.and_then(Layout::before).unwrap_or(&separator));
        }
        let written = match layout {
            Some(layout) if reads_as(layout.entry(), entry.value) => layout.entry().to_string(),
            Some(layout) => match patched(layout.entry(), entry.value) {
                Some(patched) => patched,
                None => indented(entry.value, indent)?,
            },
            None => indented(entry.value, indent)?,
        };
        text.push_str(&written);
    }
    text.push_str(first.tail());
    means(&text, root).then_some(text)
}

/// The recorded text of an entry with each value that changed since
/// written anew (in toolc's layout, at its line's indentation), the rest
/// as it was: an edit changes only what was edited. An object whose keys
/// are the same (in the same order, below the entry) is patched member by
/// member; any other changed value is written whole. `None` when the
/// entry gained or lost a member, or the result would not read as
/// `value`.
fn patched(text: &str, value: &Value) -> Option<String> {
    let recorded = crate::json::parse(&std::sync::Arc::from(text)).ok()?;
    let mut changes = Vec::new();
    changed_spans(&recorded, "", &recorded.value, value, &mut changes)?;
    changes.sort_by_key(|(span, _): &(Span, String)| span.start);
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (span, replacement) in changes {
        out.push_str(text.get(at..span.start)?);
        out.push_str(&replacement);
        at = span.end;
    }
    out.push_str(text.get(at..)?);
    reads_as(&out, value).then_some(out)
}

/// Adds to `changes` the span of each value under `pointer` of the
/// recorded entry that `new` changes, with its new text.
fn changed_spans(
    recorded: &Document,
    pointer: &str,
    old: &Value,
    new: &Value,
    changes: &mut Vec<(Span, String)>,
) -> Option<()> {
    if same_text(old, new) {
        return Some(());
    }
    let entry = pointer.is_empty();
    match (old, new) {
        (Value::Object(old), Value::Object(new)) if same_keys(old, new, entry) => {
            for (key, member) in old {
                let at = crate::json::join(pointer, key);
                changed_spans(recorded, &at, member, new.get(key)?, changes)?;
            }
            Some(())
        }
        _ if entry => None,
        _ => {
            let span = recorded.map.value_span(pointer)?;
            let text = recorded.map.text();
            let line_start = text.get(..span.start)?.rfind('\n').map_or(0, |at| at + 1);
            let line = text.get(line_start..span.start)?;
            let indent = line.get(..line.len() - line.trim_start_matches([' ', '\t']).len())?;
            changes.push((span, indented(new, indent)?));
            Some(())
        }
    }
}

/// Whether two objects have the same keys: in the same order, unless
/// `any_order` (an entry's members, which agentcli reads in any order).
fn same_keys(a: &Map<String, Value>, b: &Map<String, Value>, any_order: bool) -> bool {
    a.len() == b.len()
        && match any_order {
            true => a.keys().all(|key| b.contains_key(key)),
            false => a.keys().eq(b.keys()),
        }
}

/// The spaces and tabs that begin the last line of `head`, where the
/// first entry starts: the indentation of the entries.
fn last_line_indent(head: &str) -> &str {
    let line = head.rsplit('\n').next().unwrap_or_default();
    match head.contains('\n') && line.chars().all(|c| c == ' ' || c == '\t') {
        true => line,
        false => "",
    }
}

/// `value` pretty-printed, its lines after the first indented by `indent`.
fn indented(value: &Value, indent: &str) -> Option<String> {
    let text = serde_json::to_string_pretty(value).ok()?;
    // A JSON string escapes its line breaks: every raw one is layout.
    Some(text.replace('\n', &format!("\n{indent}")))
}

/// Whether `text` reads as the entry `value`.
fn reads_as(text: &str, value: &Value) -> bool {
    serde_json::from_str::<Value>(text).is_ok_and(|read| same_members(&read, value))
}

/// Whether the assembled `text` reads as `root`, its `$schema` aside.
fn means(text: &str, root: &Value) -> bool {
    let (Ok(Value::Object(mut read)), Some(root)) =
        (serde_json::from_str::<Value>(text), root.as_object())
    else {
        return false;
    };
    read.shift_remove(SCHEMA_KEY);
    read.len() == root.len()
        && root
            .iter()
            .all(|(key, value)| match (value, read.get(key)) {
                (Value::Array(tools), Some(Value::Array(items))) if key == "tools" => {
                    tools.len() == items.len()
                        && tools.iter().zip(items).all(|(a, b)| same_members(a, b))
                }
                (value, Some(other)) => same_text(value, other),
                (_, None) => false,
            })
}

/// Whether two objects have the same members, in any order, each written
/// alike (the order inside a member counts: a schema's properties are
/// read in order); other values, whether they are written alike.
fn same_members(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => same_objects(a, b),
        _ => same_text(a, b),
    }
}

fn same_objects(a: &Map<String, Value>, b: &Map<String, Value>) -> bool {
    a.len() == b.len()
        && a.iter()
            .all(|(key, value)| b.get(key).is_some_and(|other| same_text(value, other)))
}

/// Whether two values serialize alike (object members in order).
fn same_text(a: &Value, b: &Value) -> bool {
    serde_json::to_string(a).ok() == serde_json::to_string(b).ok()
}
