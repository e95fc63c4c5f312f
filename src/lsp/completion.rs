//! Completion of a manifest's keys and enumerated values from its format's
//! schema (the one toolc ships in `schemas/` and checks against).
//!
//! Completion happens while the user types, when the text does not parse,
//! so where the cursor is is read from the text before it, token by
//! token: the path of keys and indices down to the innermost object or
//! array, and whether a key or a value comes next.

use serde_json::{Map, Value, json};

use crate::ir::Format;

/// Containers deeper than this offer nothing (lint's own nesting limit is
/// lower).
const MAX_DEPTH: usize = 512;

/// A step down from a container.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

/// What the cursor is in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Place {
    /// The steps down to the innermost container.
    path: Vec<Step>,
    /// A key comes next (or is being typed); else a value of `key`
    /// (objects) or an item (arrays).
    key_next: bool,
    /// The key whose value is being typed.
    key: Option<String>,
    /// Where the token being typed starts (its opening quote), in bytes.
    token_start: usize,
    /// The keys the innermost object already has.
    present: Vec<String>,
}

#[derive(Debug)]
enum Frame {
    Object {
        key: Option<String>,
        expect_key: bool,
        present: Vec<String>,
    },
    Array {
        index: usize,
    },
}

/// Reads `text` up to `offset`; `None` outside any object or array, or
/// where no completion makes sense (inside a number, after a value).
pub(super) fn place(text: &str, offset: usize) -> Option<Place> {
    let bytes = text.as_bytes();
    let end = offset.min(bytes.len());
    let mut stack: Vec<Frame> = Vec::new();
    let mut at = 0;
    // Where each container was entered from: the step from its parent.
    let mut steps: Vec<Step> = Vec::new();
    let mut token_start = end;
    let mut in_string = false;
    while at < end {
        let byte = bytes[at];
        match byte {
            b'"' => {
                let start = at;
                let mut close = None;
                let mut i = at + 1;
                while i < end {
                    match bytes[i] {
                        b'\\' => i += 2,
                        b'"' => {
                            close = Some(i);
                            break;
                        }
                        _ => i += 1,
                    }
                }
                let Some(close) = close else {
                    // The cursor is inside this string.
                    in_string = true;
                    token_start = start;
                    break;
                };
                let value: String = serde_json::from_str(&text[start..=close]).unwrap_or_default();
                if let Some(Frame::Object {
                    key,
                    expect_key: true,
                    present,
                }) = stack.last_mut()
                {
                    present.push(value.clone());
                    *key = Some(value);
                }
                at = close + 1;
                continue;
            }
            b'{' | b'[' => {
                // Deeper than any manifest: no completion, and no memory
                // spent on a stack of brackets.
                if stack.len() >= MAX_DEPTH {
                    return None;
                }
                let step = match stack.last() {
                    Some(Frame::Object { key, .. }) => Step::Key(key.clone().unwrap_or_default()),
                    Some(Frame::Array { index }) => Step::Index(*index),
                    None => Step::Index(0),
                };
                if !stack.is_empty() {
                    steps.push(step);
                }
                stack.push(if byte == b'{' {
                    Frame::Object {
                        key: None,
                        expect_key: true,
                        present: Vec::new(),
                    }
                } else {
                    Frame::Array { index: 0 }
                });
            }
            b'}' | b']' => {
                stack.pop();
                steps.pop();
            }
            b':' => {
                if let Some(Frame::Object { expect_key, .. }) = stack.last_mut() {
                    *expect_key = false;
                }
            }
            b',' => match stack.last_mut() {
                Some(Frame::Object {
                    key, expect_key, ..
                }) => {
                    *key = None;
                    *expect_key = true;
                }
                Some(Frame::Array { index }) => *index += 1,
                None => {}
            },
            _ => {}
        }
        at += 1;
    }
    let top = stack.last()?;
    // Outside a string: only at a blank place (after `{`, `,`, `:`, `[`).
    if !in_string {
        let before = text[..end].trim_end_matches([' ', '\t', '\r', '\n']);
        if !before.ends_with(['{', ',', ':', '[']) {
            return None;
        }
    }
    let path = steps;
    Some(match top {
        Frame::Object {
            key,
            expect_key,
            present,
        } => Place {
            path,
            key_next: *expect_key,
            key: if *expect_key { None } else { key.clone() },
            token_start,
            present: present.clone(),
        },
        Frame::Array { .. } => Place {
            path: path.into_iter().chain([Step::Index(0)]).collect(),
            key_next: false,
            key: None,
            token_start,
            present: Vec::new(),
        },
    })
}

/// The subschemas `schema` gives the value at `path`, with `$ref`s into
/// the same document followed and `allOf`/`anyOf`/`oneOf`/`then`/`else`
/// branches all taken.
fn schemas_at<'a>(
    root: &'a Value,
    schema: &'a Value,
    path: &[Step],
    depth: usize,
) -> Vec<&'a Value> {
    if depth > 32 {
        return Vec::new();
    }
    let mut here = vec![schema];
    let mut expanded = Vec::new();
    while let Some(schema) = here.pop() {
        if expanded.len() > 64 {
            break;
        }
        if let Some(target) = schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix('#'))
            && let Some(found) = root.pointer(target)
        {
            here.push(found);
        }
        for key in ["allOf", "anyOf", "oneOf"] {
            if let Some(branches) = schema.get(key).and_then(Value::as_array) {
                here.extend(branches);
            }
        }
        for key in ["then", "else"] {
            if let Some(branch) = schema.get(key) {
                here.push(branch);
            }
        }
        expanded.push(schema);
    }
    let Some((step, rest)) = path.split_first() else {
        return expanded;
    };
    let mut next = Vec::new();
    for schema in expanded {
        match step {
            Step::Key(key) => {
                if let Some(found) = schema.pointer(&format!(
                    "/properties/{}",
                    key.replace('~', "~0").replace('/', "~1")
                )) {
                    next.push(found);
                } else if let Some(found) =
                    schema.get("additionalProperties").filter(|v| v.is_object())
                {
                    next.push(found);
                }
                if let Some(patterns) = schema.get("patternProperties").and_then(Value::as_object) {
                    next.extend(patterns.values());
                }
            }
            Step::Index(index) => {
                if let Some(found) = schema.get("prefixItems").and_then(|p| p.get(index)) {
                    next.push(found);
                } else if let Some(found) = schema.get("items").filter(|v| v.is_object()) {
                    next.push(found);
                }
            }
        }
    }
    next.into_iter()
        .flat_map(|schema| schemas_at(root, schema, rest, depth + 1))
        .collect()
}

/// The completion items at `place` in a manifest of `format`: keys the
/// object may have and does not yet, or the values an enumeration or a
/// constant allows.
pub(super) fn items(format: Format, place: &Place) -> Vec<Value> {
    let Ok(root) = serde_json::from_str::<Value>(crate::formats::schema::text(format)) else {
        return Vec::new();
    };
    let mut path = place.path.clone();
    if !place.key_next {
        path.extend(place.key.clone().map(Step::Key));
    }
    let schemas = schemas_at(&root, &root, &path, 0);
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    if place.key_next {
        for schema in &schemas {
            let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                continue;
            };
            let required = super::strings_at(schema, "/required");
            for (name, property) in properties {
                if place.present.contains(name) || !seen.insert(name.clone()) {
                    continue;
                }
                out.push(item(
                    &Value::String(name.clone()),
                    14,
                    property,
                    required.contains(&name.as_str()),
                ));
            }
        }
    } else {
        for schema in &schemas {
            let values: Vec<&Value> = match (schema.get("enum"), schema.get("const")) {
                (Some(Value::Array(values)), _) => values.iter().collect(),
                (_, Some(value)) => vec![value],
                _ if schema.get("type") == Some(&json!("boolean")) => {
                    vec![&Value::Bool(true), &Value::Bool(false)]
                }
                _ => Vec::new(),
            };
            for value in values {
                if seen.insert(value.to_string()) {
                    out.push(item(value, 20, schema, false));
                }
            }
        }
    }
    out
}

/// One completion item: `value` as JSON text, of LSP kind `kind`.
fn item(value: &Value, kind: u32, schema: &Value, required: bool) -> Value {
    let text = value.to_string();
    let label = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let mut out = Map::new();
    out.insert("label".into(), json!(label));
    out.insert("kind".into(), json!(kind));
    out.insert("insertText".into(), json!(text));
    // Required keys first, then by name.
    out.insert(
        "sortText".into(),
        json!(format!("{}{label}", if required { 0 } else { 1 })),
    );
    if let Some(description) = schema.get("description").and_then(Value::as_str) {
        out.insert("documentation".into(), json!(description));
    }
    if required {
        out.insert("detail".into(), json!("required"));
    }
    Value::Object(out)
}

/// Where the token being typed starts.
pub(super) fn token_start(place: &Place) -> usize {
    place.token_start
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Option<Place> {
        let offset = text.find('|').unwrap_or(text.len());
        place(&text.replace('|', ""), offset)
    }

    #[test]
    fn the_place_is_read_from_unfinished_text() {
        let found = at(r#"{"name": "x", "parameters": {"type": "object", |"#).expect("place");
        assert_eq!(found.path, [Step::Key("parameters".into())]);
        assert!(found.key_next);
        assert_eq!(found.present, ["type"]);
        let found = at(r#"{"tools": {"find": {"actions": ["re|"#).expect("place");
        assert_eq!(
            found.path,
            [
                Step::Key("tools".into()),
                Step::Key("find".into()),
                Step::Key("actions".into()),
                Step::Index(0)
            ]
        );
        assert!(!found.key_next);
        let found = at(r#"{"name": "a,b{", "entry|"#).expect("place");
        assert!(found.key_next && found.path.is_empty());
        assert_eq!(found.present, ["name"]);
        // After a finished value nothing is offered.
        assert!(at(r#"{"name": "x" |"#).is_none());
        assert!(at("|").is_none());
    }

    #[test]
    fn keys_and_values_come_from_the_formats_schema() {
        let labels = |format: Format, text: &str| -> Vec<String> {
            let place = at(text).expect("place");
            items(format, &place)
                .iter()
                .filter_map(|i| i["label"].as_str().map(str::to_string))
                .collect()
        };
        let keys = labels(Format::Nora, r#"{"name": "x", |"#);
        assert!(keys.contains(&"entrypoint".to_string()), "{keys:?}");
        assert!(!keys.contains(&"name".to_string()), "{keys:?}");
        let actions = labels(Format::Agentstack, r#"{"tools": {"find": {"actions": [|"#);
        assert!(actions.contains(&"read".to_string()), "{actions:?}");
        let required = labels(
            Format::Nora,
            r#"{"parameters": {"type": "object", "properties": {"who": {"required": |"#,
        );
        assert_eq!(required, ["true", "false"]);
    }
}
