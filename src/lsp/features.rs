//! What the editor asks about a place: hover, document symbols, go to
//! definition.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};

use super::documents::uri_of;
use super::position::LineIndex;
use super::{INVALID_PARAMS, Outcome, Server, absolute};
use crate::diagnostic::Rule;
use crate::emit::JsonTarget;
use crate::ir::{Format, Tool};
use crate::project::Manifest;
use crate::source::Span;

/// Rules whose findings mark text that has no effect: editors fade it.
pub(super) fn unnecessary(rule: &Rule) -> bool {
    matches!(rule.name, "duplicate-key" | "unknown-field")
}

/// The byte offset in the checked text (after any byte order mark) of the
/// request's position, in the open document at `path`.
pub(super) fn offset_of(
    server: &Server,
    path: &Path,
    params: &Value,
) -> Result<usize, (i64, String)> {
    let position: lsp_types::Position = params
        .get("position")
        .cloned()
        .and_then(|p| serde_json::from_value(p).ok())
        .ok_or((INVALID_PARAMS, "position is missing".to_string()))?;
    let document = server
        .documents
        .get(path)
        .ok_or((INVALID_PARAMS, "the document is not open".to_string()))?;
    let offset = document
        .lines
        .offset(&document.text, position, server.encoding);
    Ok(offset.saturating_sub(bom(&document.text)))
}

/// Bytes of a byte order mark at the start of `text`.
pub(super) fn bom(text: &str) -> usize {
    if text.starts_with('\u{feff}') { 3 } else { 0 }
}

/// Whether `span` holds `offset` (its end too, where a cursor after the
/// last character is).
fn holds(span: Span, offset: usize) -> bool {
    span.start <= offset && offset <= span.end
}

/// The loaded manifest of the open document at `path`, if it is one.
fn manifest_at<'a>(outcome: &'a Outcome, path: &Path) -> Option<&'a Manifest> {
    match outcome {
        Outcome::Checked(checked) => checked.manifest(path),
        _ => None,
    }
}

/// The tool whose name is at `offset`.
fn tool_at(manifest: &Manifest, offset: usize) -> Option<(usize, &Tool)> {
    manifest
        .toolset
        .tools
        .iter()
        .enumerate()
        .find(|(_, tool)| holds(manifest.tool_name_span(tool), offset))
}

pub(super) fn hover(server: &mut Server, params: &Value) -> Result<Value, (i64, String)> {
    let path = server.document_path(params)?;
    let offset = offset_of(server, &path, params)?;
    let outcome = server.outcome(&path);
    let mut parts: Vec<String> = Vec::new();
    if let Some(manifest) = manifest_at(&outcome, &path)
        && let Some((_, tool)) = tool_at(manifest, offset)
    {
        parts.push(what_a_model_sees(manifest, tool));
    }
    if let Outcome::Checked(checked) = &*outcome {
        let mut rules: Vec<&'static Rule> = checked
            .diagnostics_in(&path)
            .into_iter()
            .filter(|d| d.span.is_some_and(|span| holds(span, offset)))
            .map(|d| d.rule)
            .collect();
        rules.dedup_by_key(|rule| rule.code);
        for rule in rules {
            parts.push(format!(
                "**{} {}**\n\n{}",
                rule.code,
                rule.name,
                crate::lint::documentation(rule).trim()
            ));
        }
    }
    if parts.is_empty() {
        return Ok(Value::Null);
    }
    Ok(json!({"contents": {"kind": "markdown", "value": parts.join("\n\n---\n\n")}}))
}

/// A tool as OpenAI and MCP are sent it, from the manifest as loaded.
fn what_a_model_sees(manifest: &Manifest, tool: &Tool) -> String {
    let mut text = format!("**{}**: what a model sees", tool.name);
    for (label, target) in [
        ("OpenAI", JsonTarget::Openai { strict: false }),
        ("MCP", JsonTarget::Mcp),
    ] {
        let (entry, _) = target.entry(&manifest.toolset, tool);
        let shown = serde_json::to_string_pretty(&entry).unwrap_or_default();
        text.push_str(&format!("\n\n{label}:\n```json\n{shown}\n```"));
    }
    text
}

/// JSON Pointer escaping of one reference token.
fn token(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

pub(super) fn symbols(server: &mut Server, params: &Value) -> Result<Value, (i64, String)> {
    let path = server.document_path(params)?;
    let outcome = server.outcome(&path);
    let Some(manifest) = manifest_at(&outcome, &path) else {
        return Ok(json!([]));
    };
    let document = server.documents.get(&path);
    let Some(document) = document else {
        return Ok(json!([]));
    };
    let skip = bom(&document.text);
    let range = |span: Span| {
        let range = document.lines.range(
            &document.text,
            span.start + skip,
            span.end + skip,
            server.encoding,
        );
        serde_json::to_value(range).unwrap_or(Value::Null)
    };
    let map = &manifest.document.map;
    let mut symbols = Vec::new();
    for tool in &manifest.toolset.tools {
        let name = manifest.tool_name_span(tool);
        let whole = map.locate(&tool.origin).span;
        let whole = Span::new(whole.start.min(name.start), whole.end.max(name.end));
        let mut children = Vec::new();
        if let (Some(at), Some(parameters)) = (&tool.parameters_at, &tool.parameters)
            && let Some(properties) = parameters.get("properties").and_then(Value::as_object)
        {
            for (property, schema) in properties {
                let pointer = format!("{at}/properties/{}", token(property));
                let located = map.locate(&pointer);
                if !located.exact {
                    continue;
                }
                let key = map.key_or_locate(&pointer);
                let value = located.span;
                let detail = schema.get("type").map(|t| match t {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                });
                children.push(json!({
                    "name": property,
                    "detail": detail,
                    "kind": 7,
                    "range": range(Span::new(key.start.min(value.start), value.end.max(key.end))),
                    "selectionRange": range(key),
                }));
            }
        }
        let display = if tool.name.is_empty() {
            "(unnamed)"
        } else {
            tool.name.as_str()
        };
        symbols.push(json!({
            "name": display,
            "detail": tool.description.as_deref().map(|d| first_line(d, 80)),
            "kind": 12,
            "range": range(whole),
            "selectionRange": range(name),
            "children": children,
        }));
    }
    Ok(Value::Array(symbols))
}

/// The first line of `text`, at most `max` characters.
fn first_line(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or("");
    match line.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_string(),
    }
}

pub(super) fn definition(server: &mut Server, params: &Value) -> Result<Value, (i64, String)> {
    let path = server.document_path(params)?;
    let offset = offset_of(server, &path, params)?;
    let outcome = server.outcome(&path);
    let Some(manifest) = manifest_at(&outcome, &path) else {
        return Ok(Value::Null);
    };
    let found = match manifest.format() {
        Format::Agentstack => {
            tool_at(manifest, offset).and_then(|(index, _)| python_function(manifest, index))
        }
        Format::Nachos => {
            tool_at(manifest, offset).and_then(|(index, _)| typescript_class(manifest, index))
        }
        Format::Agentcli => program(manifest, offset),
        Format::Nora => entrypoint(manifest, offset),
        _ => None,
    };
    let Some((file, text, span)) = found else {
        return Ok(Value::Null);
    };
    let file = absolute(&file);
    let Some(uri) = uri_of(&file) else {
        return Ok(Value::Null);
    };
    // Positions in the text the user sees: the open buffer, else the text
    // the check read.
    let text: Arc<str> = match server.documents.get(&file) {
        Some(document) => document.text.clone(),
        None => text,
    };
    let lines = LineIndex::new(&text);
    let range = lines.range(&text, span.start, span.end, server.encoding);
    Ok(json!({"uri": uri.as_str(), "range": range}))
}

/// A place in a file: its path, the text read, a span of it.
type Place = (PathBuf, Arc<str>, Span);

/// The Python function an AgentStack tool's schema was read from.
fn python_function(manifest: &Manifest, index: usize) -> Option<Place> {
    let derived = manifest.code.derived.iter().find(|d| d.tool == index)?;
    let module = manifest.code.python.as_ref()?;
    let text = module.text.clone();
    let line = derived.origin.line.checked_sub(1)?;
    let source = crate::source::Source::new("", text.clone());
    let span = source.line_span(line);
    let line_text = text.get(span.start..span.end).unwrap_or("");
    let indent = line_text.len() - line_text.trim_start().len();
    let end = span.start + line_text.trim_end().len();
    Some((
        module.path.clone(),
        text,
        Span::new(span.start + indent, end),
    ))
}

/// The TypeScript class of a Nachos tool.
fn typescript_class(manifest: &Manifest, index: usize) -> Option<Place> {
    let (_, search) = manifest.code.classes.iter().find(|(i, _)| *i == index)?;
    let found = search.found.as_ref()?;
    let span = Span::new(found.class.span.start, found.class.span.start);
    Some((found.path.clone(), found.text.clone(), span))
}

/// The program an agentcli tool's `command` names, when the cursor is in
/// that command.
fn program(manifest: &Manifest, offset: usize) -> Option<Place> {
    let map = &manifest.document.map;
    let tool = manifest
        .toolset
        .tools
        .iter()
        .find(|tool| holds(map.locate(&format!("{}/command", tool.origin)).span, offset))?;
    let command = manifest
        .document
        .value
        .pointer(&format!("{}/command", tool.origin))?;
    let first = match command {
        Value::Array(items) => items.first()?.as_str()?,
        Value::String(text) => text.split_whitespace().next()?,
        _ => return None,
    };
    let file = manifest.code.programs.iter().find(|p| p.program == first)?;
    if !matches!(file.state, crate::project::FileState::File { .. }) {
        return None;
    }
    Some((file.path.clone(), Arc::from(""), Span::new(0, 0)))
}

/// A NORA tool's entrypoint, when the cursor is on it.
fn entrypoint(manifest: &Manifest, offset: usize) -> Option<Place> {
    let span = manifest.document.map.locate("/entrypoint").span;
    if !holds(span, offset) {
        return None;
    }
    let file = manifest.code.entrypoint.as_ref()?;
    let text = file
        .module
        .as_ref()
        .map_or_else(|| Arc::from(""), |m| m.text.clone());
    Some((file.path.clone(), text, Span::new(0, 0)))
}

pub(super) fn completion(server: &mut Server, params: &Value) -> Result<Value, (i64, String)> {
    let path = server.document_path(params)?;
    let offset = offset_of(server, &path, params)?;
    let outcome = server.outcome(&path);
    // The format as detected, else as the file's name says.
    let format = manifest_at(&outcome, &path)
        .map(Manifest::format)
        .or_else(|| {
            path.file_name()
                .and_then(|n| n.to_str())
                .and_then(crate::formats::format_by_file_name)
        });
    let Some(format) = format else {
        return Ok(json!([]));
    };
    let Some(document) = server.documents.get(&path) else {
        return Ok(json!([]));
    };
    let skip = bom(&document.text);
    let text = &document.text[skip..];
    let Some(place) = super::completion::place(text, offset) else {
        return Ok(json!([]));
    };
    let start = super::completion::token_start(&place).min(offset);
    // Inside a string, the edit takes the closing quote just after the
    // cursor (an editor that closes quotes put it there); nothing further.
    let end = if start < offset && text[offset..].starts_with('"') {
        offset + 1
    } else {
        offset
    };
    let range = document
        .lines
        .range(&document.text, start + skip, end + skip, server.encoding);
    let range = serde_json::to_value(range).unwrap_or(Value::Null);
    let items: Vec<Value> = super::completion::items(format, &place)
        .into_iter()
        .map(|mut item| {
            let text = item["insertText"].clone();
            item["textEdit"] = json!({"range": range, "newText": text});
            item["filterText"] = text;
            item
        })
        .collect();
    Ok(json!({"isIncomplete": false, "items": items}))
}
