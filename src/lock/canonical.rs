//! The canonical JSON text of a value, as RFC 8785 (the JSON
//! Canonicalization Scheme) writes it, and the SHA-256 digest of a tool
//! definition's canonical text.
//!
//! - objects: members sorted by their keys compared as UTF-16 code units,
//!   each key once;
//! - no whitespace between tokens;
//! - strings: `"` and `\` escaped, the control characters U+0000 to
//!   U+001F written `\b`, `\t`, `\n`, `\f`, `\r` or `\u00xx` (lowercase
//!   hex), every other character as itself (UTF-8);
//! - numbers: as ECMAScript's `Number.prototype.toString` writes the
//!   IEEE 754 double they are (`1`, `1.5`, `1e+21`, `1e-7`, `-0` as `0`).
//!
//! For a value made of strings, booleans, null and integers whose
//! magnitude is at most 2^53, that is the text Python's
//! `json.dumps(value, sort_keys=True, separators=(",", ":"),
//! ensure_ascii=False)` gives (Python sorts by code point, which orders
//! keys alike unless they hold characters above U+FFFF).

use std::fmt::Write as _;

use serde_json::Value;
use sha2::{Digest, Sha256};

/// The canonical text of `value`.
pub fn to_string(value: &Value) -> String {
    let mut text = String::new();
    write_value(value, Numbers::Canonical, &mut text);
    text
}

/// The canonical text of `value`, but with numbers as JSON holds them
/// (integers digit for digit, other numbers as serde_json writes them),
/// for messages: two integers past 2^53 that differ read as one double,
/// and would look alike in canonical form.
pub fn to_string_as_held(value: &Value) -> String {
    let mut text = String::new();
    write_value(value, Numbers::AsHeld, &mut text);
    text
}

/// How numbers are written.
#[derive(Clone, Copy)]
enum Numbers {
    /// As ECMAScript writes the double they read as (RFC 8785).
    Canonical,
    /// As serde_json holds and writes them.
    AsHeld,
}

/// The SHA-256 digest of `value`'s canonical text, as 64 lowercase hex
/// digits.
pub fn sha256(value: &Value) -> String {
    let digest = Sha256::digest(to_string(value).as_bytes());
    let mut hex = String::with_capacity(64);
    for byte in digest {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

/// The members of `object` in canonical order (see the module's docs).
pub(crate) fn sorted_members(object: &serde_json::Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut members: Vec<(&String, &Value)> = object.iter().collect();
    members.sort_by(|(a, _), (b, _)| a.encode_utf16().cmp(b.encode_utf16()));
    members
}

fn write_value(value: &Value, numbers: Numbers, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(number) => match numbers {
            Numbers::Canonical => write_number(number, out),
            Numbers::AsHeld => {
                let _ = write!(out, "{number}");
            }
        },
        Value::String(text) => write_string(text, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, numbers, out);
            }
            out.push(']');
        }
        Value::Object(object) => {
            out.push('{');
            for (i, (key, member)) in sorted_members(object).into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(key, out);
                out.push(':');
                write_value(member, numbers, out);
            }
            out.push('}');
        }
    }
}

fn write_string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The largest integer every double holds exactly, and its negative.
const EXACT: u64 = 1 << 53;

fn write_number(number: &serde_json::Number, out: &mut String) {
    // An integer a double holds exactly is written as its digits, which is
    // what ECMAScript writes for it (up to 2^53 < 10^21).
    if let Some(n) = number.as_u64().filter(|n| *n <= EXACT) {
        let _ = write!(out, "{n}");
    } else if let Some(n) = number.as_i64().filter(|n| n.unsigned_abs() <= EXACT) {
        let _ = write!(out, "{n}");
    } else {
        // Every other number is the double it reads as (serde_json has
        // no NaN nor infinity).
        out.push_str(&es_number(number.as_f64().unwrap_or(0.0)));
    }
}

/// A finite double as ECMAScript's `Number.prototype.toString` writes it:
/// the shortest digits that read back as the same double, in plain
/// notation for exponents from -7 to 20, in exponent notation otherwise.
pub(crate) fn es_number(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return "0".to_string();
    }
    // Rust's `{:e}` gives the shortest round-trip digits too:
    // "1.2345e3", "5e-7".
    let scientific = format!("{:e}", x.abs());
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let exponent: i64 = exponent.parse().unwrap_or(0);
    // ECMAScript's names: x = 0.digits × 10^n, k digits.
    let k = i64::try_from(digits.len()).unwrap_or(i64::MAX);
    let n = exponent + 1;
    let mut text = String::new();
    if x < 0.0 {
        text.push('-');
    }
    if k <= n && n <= 21 {
        text.push_str(&digits);
        text.extend(std::iter::repeat_n(
            '0',
            usize::try_from(n - k).unwrap_or(0),
        ));
    } else if 0 < n && n <= 21 {
        let point = usize::try_from(n).unwrap_or(0);
        text.push_str(&digits[..point]);
        text.push('.');
        text.push_str(&digits[point..]);
    } else if -6 < n && n <= 0 {
        text.push_str("0.");
        text.extend(std::iter::repeat_n('0', usize::try_from(-n).unwrap_or(0)));
        text.push_str(&digits);
    } else {
        text.push_str(&digits[..1]);
        if digits.len() > 1 {
            text.push('.');
            text.push_str(&digits[1..]);
        }
        let _ = write!(text, "e{}{}", if n > 0 { '+' } else { '-' }, (n - 1).abs());
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn members_are_sorted_by_utf16_code_units_without_whitespace() {
        let value = json!({"b": [1, true, null], "a": {"z": "x", "\u{e000}": 1, "\u{1f600}": 2}});
        // U+1F600 is the surrogate pair D83D DE00, before U+E000.
        assert_eq!(
            to_string(&value),
            "{\"a\":{\"z\":\"x\",\"\u{1f600}\":2,\"\u{e000}\":1},\"b\":[1,true,null]}"
        );
    }

    #[test]
    fn strings_escape_only_what_they_must() {
        let value = json!("a\"b\\c\n\t\u{1}\u{7f}é\u{2028}/");
        assert_eq!(
            to_string(&value),
            "\"a\\\"b\\\\c\\n\\t\\u0001\u{7f}é\u{2028}/\""
        );
    }

    #[test]
    fn numbers_are_written_as_ecmascript_writes_them() {
        // The examples of RFC 8785, appendix B.
        let cases: &[(f64, &str)] = &[
            (0.0, "0"),
            (-0.0, "0"),
            (1.0, "1"),
            (-1.5, "-1.5"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (1e-7, "1e-7"),
            (0.000001, "0.000001"),
            (333333333.3333333, "333333333.3333333"),
            (9007199254740994.0, "9007199254740994"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (295147905179352830000.0, "295147905179352830000"),
            (-1.2345e-10, "-1.2345e-10"),
        ];
        for (x, text) in cases {
            assert_eq!(es_number(*x), *text, "{x:e}");
        }
        assert_eq!(
            to_string(&json!([1.0, 10, -3, 18446744073709551615u64])),
            "[1,10,-3,18446744073709552000]"
        );
    }

    #[test]
    fn the_digest_is_sha256_of_the_canonical_text() {
        assert_eq!(
            sha256(&json!({})),
            "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
    }
}
