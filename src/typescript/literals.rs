//! TypeScript literals as JSON: strings with their escapes, numbers as
//! JavaScript reads them, and the security tier.

use serde_json::{Number, Value};
use tree_sitter::Node;

use super::{TIERS, source};

/// `expr as const`, `expr satisfies T`, `<T>expr`, `(expr)`, `expr!`: the
/// expression.
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
            "type_assertion" => {
                let mut cursor = node.walk();
                let last = node.named_children(&mut cursor).last();
                match last {
                    Some(inner) => node = inner,
                    None => return node,
                }
            }
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
        let magnitude = i64::from_str_radix(lower.get(2..)?, radix).ok()? as f64;
        return js_number(if negative { -magnitude } else { magnitude });
    }
    let value: f64 = lower.parse().ok()?;
    js_number(if negative { -value } else { value })
}

/// The largest integer a JavaScript number holds exactly: 2^53.
const MAX_EXACT: f64 = 9_007_199_254_740_992.0;

/// A JavaScript number as JSON: whole numbers that are exact as integers
/// (JavaScript has one number type: `1e3` is `1000`, `-0` is `0`), others as
/// floats; `None` for `NaN` and the infinities, which JSON cannot hold.
pub(super) fn js_number(value: f64) -> Option<Value> {
    if !value.is_finite() {
        return None;
    }
    if value.fract() == 0.0 && value.abs() <= MAX_EXACT {
        return Some(Value::from(value as i64));
    }
    Number::from_f64(value).map(Value::Number)
}

/// `String(number)` as JavaScript writes it: plain digits from 1e-6 up to
/// 1e21, exponent form (`1e+21`, `1.5e-7`) outside.
pub(super) fn js_number_string(value: f64) -> String {
    if value == 0.0 {
        return "0".to_string();
    }
    let magnitude = value.abs();
    if (1e-6..1e21).contains(&magnitude) {
        // Rust writes the shortest digits that read back, without exponent.
        return format!("{value}");
    }
    let written = format!("{value:e}");
    match written.split_once('e') {
        Some((digits, exponent)) if !exponent.starts_with('-') => format!("{digits}e+{exponent}"),
        _ => written,
    }
}
