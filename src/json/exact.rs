//! A `serde_json::Value` whose arrays and objects are allocated at their
//! final size, for documents toolc does not need spans of (a call's
//! arguments).
//!
//! `serde_json::from_str::<Value>` grows each array by doubling, since
//! JSON does not say how long an array is: an array of 8 M numbers (16 MB
//! of `0,`) ends in a 268 MB vector after copying through every smaller
//! one, and the allocator keeps the freed ones for a while, so the parse
//! peaked at 1 GB, 60 times its input. Here a first pass over the text
//! counts the members of every array and object, in the order they open
//! (the order serde visits them in), and each is then allocated once.
//! The counts are only capacities: a count that is wrong (on text that is
//! not JSON, which serde_json then refuses) costs growth, never a wrong
//! value.

use std::cell::Cell;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Parses `text` as `serde_json::from_str` would, allocating every array
/// and object at its final size.
pub(crate) fn from_str_exact(text: &str) -> serde_json::Result<Value> {
    let counts = member_counts(text.as_bytes());
    let next = Cell::new(0);
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = Exact {
        counts: &counts,
        next: &next,
    }
    .deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(value)
}

/// The number of members of each array and object of `bytes`, in the
/// order they open.
fn member_counts(bytes: &[u8]) -> Vec<usize> {
    let mut counts = Vec::new();
    // The index in `counts` of each open container.
    let mut open: Vec<usize> = Vec::new();
    let (mut in_string, mut escaped) = (false, false);
    for &byte in bytes {
        if in_string {
            if escaped {
                escaped = false;
            } else if byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = false;
            }
            continue;
        }
        if matches!(byte, b' ' | b'\n' | b'\r' | b'\t') {
            continue;
        }
        // Anything but its closing bracket makes a container non-empty:
        // it then holds one member more than its commas.
        if let Some(&index) = open.last()
            && !matches!(byte, b']' | b'}')
            && let Some(count) = counts.get_mut(index)
            && *count == 0
        {
            *count = 1;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                open.push(counts.len());
                counts.push(0);
            }
            b']' | b'}' => {
                open.pop();
            }
            b',' => {
                if let Some(count) = open.last().and_then(|&index| counts.get_mut(index)) {
                    *count += 1;
                }
            }
            _ => {}
        }
    }
    counts
}

/// A value, with the member counts of the containers still to come.
#[derive(Clone, Copy)]
struct Exact<'a> {
    counts: &'a [usize],
    next: &'a Cell<usize>,
}

impl Exact<'_> {
    /// The member count of the container that opens now.
    fn take_count(&self) -> usize {
        let index = self.next.get();
        self.next.set(index + 1);
        self.counts.get(index).copied().unwrap_or(0)
    }
}

impl<'de> DeserializeSeed<'de> for Exact<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Exact<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
        Ok(Number::from_f64(value).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_string()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(self.take_count());
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let mut members = Map::with_capacity(self.take_count());
        while let Some(key) = access.next_key::<String>()? {
            let value = access.next_value_seed(self)?;
            members.insert(key, value);
        }
        Ok(Value::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_follow_the_order_containers_open_in() {
        let text = r#"{"a": [1, [], [2, "x,]"], {"b": {}}], "c": "[{"}"#;
        assert_eq!(member_counts(text.as_bytes()), [2, 4, 0, 2, 1, 0]);
    }

    #[test]
    fn values_match_serde_json() {
        for text in [
            r#"{"a": [1, -2, 3.5, 1e300, true, null, "s\"\\"], "b": {"c": []}}"#,
            "[]",
            "  \"x\" ",
            "[[[[]]], {}, {\"k\": [0, 0]}]",
        ] {
            let expected: Result<Value, _> = serde_json::from_str(text);
            let got = from_str_exact(text);
            assert_eq!(got.ok(), expected.ok(), "{text}");
        }
        assert!(from_str_exact("[1,").is_err());
        assert!(from_str_exact("[1] x").is_err());
        assert!(from_str_exact("]]][[[").is_err());
    }

    #[test]
    fn arrays_hold_exactly_their_members() {
        let text = format!("[{}0]", "0,".repeat(1000));
        let Ok(Value::Array(items)) = from_str_exact(&text) else {
            panic!("an array")
        };
        assert_eq!((items.len(), items.capacity()), (1001, 1001));
    }
}
