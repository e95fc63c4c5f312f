//! TypeScript literals as JSON: the values of a tool class's properties
//! (strings with their escapes, numbers, booleans, `null`, arrays, objects),
//! with every expression that is not a literal collected, never guessed.

use serde_json::{Map, Number, Value};
use tree_sitter::Node;

use super::{TIERS, Unsupported, source};

/// `expr as const`, `expr satisfies T`, `(expr)`, `expr!`: the expression.
pub(super) fn unwrap(node: Node) -> Node {
    let mut node = node;
    for _ in 0..64 {
        match node.kind() {
            "as_expression"
            | "satisfies_expression"
            | "parenthesized_expression"
            | "non_null_expression" => match node.named_child(0) {
                Some(inner) => node = inner,
                None => return node,
            },
            _ => return node,
        }
    }
    node
}

pub(super) fn tier_value(node: Node, text: &str) -> Option<i64> {
    let node = unwrap(node);
    match node.kind() {
        "member_expression" => {
            let object = node.child_by_field_name("object")?;
            let property = node.child_by_field_name("property")?;
            if source(object, text) != "SecurityTier" {
                return None;
            }
            TIERS
                .iter()
                .position(|t| *t == source(property, text))
                .map(|i| i as i64)
        }
        "number" | "unary_expression" => match number_value(node, text)? {
            Value::Number(n) => n.as_i64(),
            _ => None,
        },
        _ => None,
    }
}

/// A string literal's value (a template string without substitutions
/// counts).
pub(super) fn literal_string(node: Node, text: &str) -> Option<String> {
    let node = unwrap(node);
    match node.kind() {
        "string" | "template_string" => string_value(node, text),
        _ => None,
    }
}

/// The value of a `string` or substitution-free `template_string` node.
pub(super) fn string_value(node: Node, text: &str) -> Option<String> {
    let mut cursor = node.walk();
    if node
        .named_children(&mut cursor)
        .any(|c| c.kind() == "template_substitution")
    {
        return None;
    }
    let raw = source(node, text);
    let inner = raw.get(1..raw.len().checked_sub(1)?)?;
    Some(unescape(inner))
}

/// JavaScript string escapes: `\n`, `\t`, `\\`, quotes, `\xHH`, `\uHHHH`,
/// `\u{H...}`, line continuations. An unknown escape stands for its
/// character, as in JavaScript.
pub(super) fn unescape(inner: &str) -> String {
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            break;
        };
        match e {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'v' => out.push('\u{b}'),
            '0' => out.push('\0'),
            '\n' => {}
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
            }
            'x' => {
                let hex: String = chars.by_ref().take(2).collect();
                out.extend(u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32));
            }
            'u' => {
                let hex: String = if chars.peek() == Some(&'{') {
                    chars.next();
                    chars.by_ref().take_while(|c| *c != '}').collect()
                } else {
                    chars.by_ref().take(4).collect()
                };
                out.push(
                    u32::from_str_radix(&hex, 16)
                        .ok()
                        .and_then(char::from_u32)
                        .unwrap_or('\u{FFFD}'),
                );
            }
            other => out.push(other),
        }
    }
    out
}

/// A number literal, possibly negated: an integer when it is whole and
/// fits, a float otherwise; `None` for what JSON cannot hold (`NaN`,
/// infinities, bigints).
pub(super) fn number_value(node: Node, text: &str) -> Option<Value> {
    let (negative, literal) = match node.kind() {
        "number" => (false, node),
        "unary_expression" => {
            let operator = node.child_by_field_name("operator")?;
            let argument = unwrap(node.child_by_field_name("argument")?);
            if argument.kind() != "number" {
                return None;
            }
            match source(operator, text) {
                "-" => (true, argument),
                "+" => (false, argument),
                _ => return None,
            }
        }
        _ => return None,
    };
    let written = source(literal, text).replace('_', "");
    let lower = written.to_ascii_lowercase();
    let radix = match lower.get(..2) {
        Some("0x") => Some(16),
        Some("0o") => Some(8),
        Some("0b") => Some(2),
        _ => None,
    };
    if lower.ends_with('n') {
        return None;
    }
    if let Some(radix) = radix {
        let magnitude = i64::from_str_radix(lower.get(2..)?, radix).ok()?;
        return Some(Value::from(if negative { -magnitude } else { magnitude }));
    }
    let value: f64 = lower.parse().ok()?;
    let value = if negative { -value } else { value };
    if !value.is_finite() {
        return None;
    }
    let whole = !lower.contains(['.', 'e']);
    if whole && value.abs() < 9.0e15 {
        return Some(Value::from(value as i64));
    }
    Number::from_f64(value).map(Value::Number)
}

/// How deep literals may nest before the rest is reported as unsupported.
pub(super) const MAX_DEPTH: usize = 64;

pub(super) fn unsupported(node: Node, text: &str, out: &mut Vec<Unsupported>) -> Option<Value> {
    out.push(Unsupported {
        span: node.byte_range(),
        text: source(node, text).to_string(),
    });
    None
}

/// A literal expression as JSON; anything else goes to `out`.
pub(super) fn convert(
    node: Node,
    text: &str,
    out: &mut Vec<Unsupported>,
    depth: usize,
) -> Option<Value> {
    if depth > MAX_DEPTH {
        return unsupported(node, text, out);
    }
    let node = unwrap(node);
    match node.kind() {
        "string" | "template_string" => match string_value(node, text) {
            Some(s) => Some(Value::String(s)),
            None => unsupported(node, text, out),
        },
        "number" | "unary_expression" => match number_value(node, text) {
            Some(n) => Some(n),
            None => unsupported(node, text, out),
        },
        "true" => Some(Value::Bool(true)),
        "false" => Some(Value::Bool(false)),
        "null" => Some(Value::Null),
        "array" => {
            let mut items = Vec::new();
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                if child.kind() == "comment" {
                    continue;
                }
                if let Some(item) = convert(child, text, out, depth + 1) {
                    items.push(item);
                }
            }
            Some(Value::Array(items))
        }
        "object" => {
            let mut object = Map::new();
            let mut cursor = node.walk();
            for member in node.named_children(&mut cursor) {
                match member.kind() {
                    "comment" => {}
                    "pair" => {
                        let (Some(key), Some(value)) = (
                            member.child_by_field_name("key"),
                            member.child_by_field_name("value"),
                        ) else {
                            unsupported(member, text, out);
                            continue;
                        };
                        let key = match key.kind() {
                            "property_identifier" | "number" => source(key, text).to_string(),
                            "string" => match string_value(key, text) {
                                Some(k) => k,
                                None => {
                                    unsupported(key, text, out);
                                    continue;
                                }
                            },
                            _ => {
                                unsupported(key, text, out);
                                continue;
                            }
                        };
                        if let Some(value) = convert(value, text, out, depth + 1) {
                            object.insert(key, value);
                        }
                    }
                    _ => {
                        unsupported(member, text, out);
                    }
                }
            }
            Some(Value::Object(object))
        }
        _ => unsupported(node, text, out),
    }
}
