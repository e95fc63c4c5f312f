//! A span-preserving JSON parser.
//!
//! toolc needs what `serde_json` does not give: the byte span of every key and
//! value (so a diagnostic can put a caret under `"timeoutSec"` on line 12),
//! every duplicate key (serde_json keeps the last one silently), and safety on
//! hostile input. The parser is iterative, with an explicit stack, so deep
//! nesting cannot overflow the call stack; it still stops at [`MAX_DEPTH`]
//! levels because everything downstream (schema validation, dropping the
//! value) recurses.
//!
//! It builds the same `serde_json::Value` that `serde_json::from_str` would
//! (last duplicate wins, same number representation), plus a [`SourceMap`]:
//! an arena of nodes in document order, each with its value span, its key span
//! and the index just past its subtree. Looking a JSON Pointer up walks the
//! arena and decodes keys only then, so parsing allocates no pointer strings.

use std::collections::HashMap;

use serde_json::{Map, Number, Value};

use crate::source::Span;

mod exact;
mod map;

pub(crate) use exact::from_str_exact;
use map::{MAX_NODES, Node};
pub use map::{SourceMap, join, kind_of, pointer_tokens, push_token, value_at};

/// How deep arrays and objects may nest. Real manifests stay far below; the
/// limit is about keeping recursive consumers safe.
pub const MAX_DEPTH: usize = 256;

/// Why a document could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub kind: ParseErrorKind,
    pub message: String,
    /// Byte offset of the problem.
    pub offset: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseErrorKind {
    /// Not JSON: a syntax error, an empty document, a number out of range.
    Syntax,
    /// Nesting deeper than [`MAX_DEPTH`].
    TooDeep,
    /// More values than the caller allows, or a text over 4 GiB (the
    /// source map counts in 32 bits).
    TooLarge,
}

/// A second occurrence of a key in one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateKey {
    pub key: String,
    /// Pointer of the member (both occurrences share it).
    pub pointer: String,
    /// The repeated key.
    pub span: Span,
    /// The key's first occurrence.
    pub first: Span,
}

/// How many duplicate keys a document records; the rest are counted.
/// A text of `{"name": "a", "name": "a"}` objects repeats a key every 24
/// bytes, and a record (its key, pointer and two spans) takes five times
/// that; no more are ever shown.
pub const KEPT_DUPLICATE_KEYS: usize = crate::diagnostic::FINDINGS_PER_RULE;

/// A parsed document.
#[derive(Debug, Clone)]
pub struct Document {
    pub value: Value,
    pub map: SourceMap,
    /// The first [`KEPT_DUPLICATE_KEYS`] duplicate keys, in document order.
    pub duplicate_keys: Vec<DuplicateKey>,
    /// How many more the document repeats.
    pub more_duplicate_keys: usize,
}

/// An open array or object. Their members wait on the parser's stacks
/// ([`Parser::items`], [`Parser::members`]) and are moved into a vector or
/// map of their exact size when it closes: one grown member by member
/// keeps room for up to twice its members (a one-member object, room for
/// three: 336 bytes), and a manifest can be hundreds of thousands of
/// small objects. Each member is hashed once, at the close.
enum Frame {
    Array {
        node: usize,
        /// Where its items start in [`Parser::items`].
        start: usize,
    },
    Object {
        node: usize,
        /// Where its members start in [`Parser::members`].
        start: usize,
        /// The key of the member being parsed.
        key: String,
    },
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    nodes: Vec<Node>,
    /// How many values the document may hold.
    max_values: usize,
    /// The items of the open arrays, outermost first.
    items: Vec<Value>,
    /// The members of the open objects, outermost first.
    members: Vec<(String, Value)>,
    /// Recorded as objects close (an inner one before the outer one that
    /// holds it), put in document order at the end.
    duplicates: Vec<DuplicateKey>,
    /// Where the last of them in document order is.
    last_kept: usize,
    more_duplicates: usize,
}

/// Parses a whole document.
pub fn parse(text: &std::sync::Arc<str>) -> Result<Document, ParseError> {
    parse_within(text, MAX_NODES)
}

/// Parses a whole document of at most `max_values` values (every scalar,
/// array and object counts one).
///
/// A value costs about a hundred bytes parsed (its `serde_json::Value`
/// and its source map node) and can take two bytes of text, so a bound on
/// the bytes alone does not bound memory; this does.
pub fn parse_within(text: &std::sync::Arc<str>, max_values: usize) -> Result<Document, ParseError> {
    if u32::try_from(text.len()).is_err() {
        return Err(ParseError {
            kind: ParseErrorKind::TooLarge,
            message: "the text is over 4 GiB; toolc does not read JSON that large".to_string(),
            offset: 0,
        });
    }
    let mut parser = Parser {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        nodes: Vec::new(),
        max_values: max_values.min(MAX_NODES),
        items: Vec::new(),
        members: Vec::new(),
        duplicates: Vec::new(),
        last_kept: 0,
        more_duplicates: 0,
    };
    parser.skip_whitespace();
    if parser.pos == parser.bytes.len() {
        return Err(ParseError {
            kind: ParseErrorKind::Syntax,
            message: if text.is_empty() {
                "the file is empty".to_string()
            } else {
                "the file holds only whitespace".to_string()
            },
            offset: parser.pos,
        });
    }
    let value = parser.document()?;
    // Held as long as the document: no room for more (a vector grown by
    // doubling holds up to twice its entries, and a manifest of small
    // objects has millions of nodes).
    parser.nodes.shrink_to_fit();
    parser
        .duplicates
        .sort_by_key(|duplicate| duplicate.span.start);
    parser.duplicates.shrink_to_fit();
    let map = SourceMap {
        text: text.clone(),
        nodes: parser.nodes,
        index: std::sync::OnceLock::new(),
    };
    Ok(Document {
        value,
        map,
        duplicate_keys: parser.duplicates,
        more_duplicate_keys: parser.more_duplicates,
    })
}

/// The pointer of the member being parsed, from the parser's stack; an
/// array's index is the count of its items so far.
fn stack_pointer(stack: &[Frame], items: usize) -> String {
    let mut tokens = Vec::with_capacity(stack.len());
    // Each array's items end where the next array's start, the innermost's
    // at the end of the stack of items.
    let mut end = items;
    for frame in stack.iter().rev() {
        match frame {
            Frame::Array { start, .. } => {
                tokens.push((end - start).to_string());
                end = *start;
            }
            Frame::Object { key, .. } => tokens.push(key.clone()),
        }
    }
    let mut pointer = String::new();
    for token in tokens.iter().rev() {
        push_token(&mut pointer, token);
    }
    pointer
}

/// The children of the closed array or object `container`, in order.
fn children(nodes: &[Node], container: usize) -> impl Iterator<Item = &Node> {
    let end = nodes[container].subtree_end();
    let mut child = container + 1;
    std::iter::from_fn(move || {
        let node = nodes.get(child).filter(|_| child < end)?;
        child = node.subtree_end().max(child + 1);
        Some(node)
    })
}

/// Where the keys of the members of the closed object `object` are, in
/// order, and where each key first is.
fn key_spans(text: &str, nodes: &[Node], object: usize) -> (Vec<Span>, HashMap<String, Span>) {
    let spans: Vec<Span> = children(nodes, object).filter_map(Node::key).collect();
    let mut first = HashMap::new();
    for &key in &spans {
        if let Ok((decoded, _)) = decode_string(text, key.start + 1) {
            first.entry(decoded).or_insert(key);
        }
    }
    (spans, first)
}

impl Parser<'_> {
    fn error(&self, message: impl Into<String>, offset: usize) -> ParseError {
        ParseError {
            kind: ParseErrorKind::Syntax,
            message: message.into(),
            offset,
        }
    }

    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn open_node(&mut self, key: Option<Span>, is_object: bool) -> Result<usize, ParseError> {
        if self.nodes.len() >= self.max_values {
            return Err(ParseError {
                kind: ParseErrorKind::TooLarge,
                message: format!(
                    "the document holds more than {} JSON values",
                    self.max_values
                ),
                offset: self.pos,
            });
        }
        self.nodes.push(Node::open(self.pos, key, is_object));
        Ok(self.nodes.len() - 1)
    }

    /// Opens an object or array at `pos` (its bracket) when the nesting
    /// allows, and moves past the bracket and any whitespace.
    fn open_container(
        &mut self,
        depth: usize,
        key: Option<Span>,
        is_object: bool,
    ) -> Result<usize, ParseError> {
        if depth >= MAX_DEPTH {
            return Err(ParseError {
                kind: ParseErrorKind::TooDeep,
                message: format!("nesting deeper than {MAX_DEPTH} levels"),
                offset: self.pos,
            });
        }
        let node = self.open_node(key, is_object)?;
        self.pos += 1;
        self.skip_whitespace();
        Ok(node)
    }

    fn close_node(&mut self, node: usize) {
        let subtree_end = self.nodes.len();
        self.nodes[node].close(self.pos, subtree_end);
    }

    fn document(&mut self) -> Result<Value, ParseError> {
        let mut stack: Vec<Frame> = Vec::new();
        let mut key_span = None;
        'value: loop {
            self.skip_whitespace();
            let mut value = match self.peek() {
                Some(b'{') => {
                    let node = self.open_container(stack.len(), key_span, true)?;
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                        self.close_node(node);
                        Value::Object(Map::new())
                    } else {
                        let (key, span) = self.member_key()?;
                        key_span = Some(span);
                        stack.push(Frame::Object {
                            node,
                            start: self.members.len(),
                            key,
                        });
                        continue 'value;
                    }
                }
                Some(b'[') => {
                    let node = self.open_container(stack.len(), key_span, false)?;
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                        self.close_node(node);
                        Value::Array(Vec::new())
                    } else {
                        key_span = None;
                        stack.push(Frame::Array {
                            node,
                            start: self.items.len(),
                        });
                        continue 'value;
                    }
                }
                _ => {
                    let node = self.open_node(key_span, false)?;
                    let value = self.scalar()?;
                    self.close_node(node);
                    value
                }
            };
            // Attach the finished value to its container; close containers
            // whose last member this was.
            loop {
                match stack.last_mut() {
                    None => {
                        self.skip_whitespace();
                        if self.at_comment() {
                            return Err(self.comment("the end of the file"));
                        }
                        if self.pos != self.bytes.len() {
                            return Err(
                                self.error("trailing characters after the JSON value", self.pos)
                            );
                        }
                        return Ok(value);
                    }
                    Some(Frame::Array { node: array, start }) => {
                        self.items.push(value);
                        self.skip_whitespace();
                        match self.peek() {
                            Some(b',') => {
                                self.pos += 1;
                                key_span = None;
                                continue 'value;
                            }
                            Some(b']') => {
                                self.pos += 1;
                                let (array, start) = (*array, *start);
                                stack.pop();
                                self.close_node(array);
                                value = Value::Array(self.items.drain(start..).collect());
                            }
                            _ => return Err(self.expected("`,` or `]`")),
                        }
                    }
                    Some(Frame::Object {
                        node: object,
                        start,
                        key,
                    }) => {
                        self.members.push((std::mem::take(key), value));
                        self.skip_whitespace();
                        match self.peek() {
                            Some(b',') => {
                                self.pos += 1;
                                self.skip_whitespace();
                                let (next_key, span) = self.member_key()?;
                                *key = next_key;
                                key_span = Some(span);
                                continue 'value;
                            }
                            Some(b'}') => {
                                self.pos += 1;
                                let (object, start) = (*object, *start);
                                self.close_node(object);
                                let map = self.close_object(object, start, &stack);
                                stack.pop();
                                value = Value::Object(map);
                            }
                            _ => return Err(self.expected("`,` or `}`")),
                        }
                    }
                }
            }
        }
    }

    /// The map of the object `object` (closed, on top of `stack`), from
    /// its members from `start` on; records its duplicate keys. As in
    /// serde_json, a later value of a key replaces the earlier one in the
    /// earlier one's place.
    fn close_object(&mut self, object: usize, start: usize, stack: &[Frame]) -> Map<String, Value> {
        let count = self.members.len() - start;
        let mut map = Map::with_capacity(count);
        // Where the members' keys are, and where each key first is:
        // looked up only when the object repeats a key.
        let mut spans: Option<(Vec<Span>, HashMap<String, Span>)> = None;
        let members = self.members.drain(start..);
        for (index, (key, value)) in members.enumerate() {
            match map.entry(key) {
                serde_json::map::Entry::Vacant(entry) => {
                    entry.insert(value);
                }
                serde_json::map::Entry::Occupied(mut entry) => {
                    entry.insert(value);
                    let key = entry.key().clone();
                    // Past the kept ones, a key repeated after all of them
                    // is only counted (an outer object that closes later
                    // can still hold one before them).
                    if self.duplicates.len() >= KEPT_DUPLICATE_KEYS
                        && self.last_kept < self.nodes[object].span().start
                    {
                        self.more_duplicates += 1;
                        continue;
                    }
                    let (member_spans, first_spans) =
                        spans.get_or_insert_with(|| key_spans(self.text, &self.nodes, object));
                    let span = member_spans.get(index).copied().unwrap_or_default();
                    let first = first_spans.get(key.as_str()).copied().unwrap_or(span);
                    // The pointer names the repeated key, as a member of
                    // the object on top of the stack.
                    let mut pointer = stack_pointer(&stack[..stack.len() - 1], self.items.len());
                    push_token(&mut pointer, &key);
                    self.duplicates.push(DuplicateKey {
                        key,
                        pointer,
                        span,
                        first,
                    });
                    self.last_kept = self.last_kept.max(span.start);
                    if self.duplicates.len() > KEPT_DUPLICATE_KEYS {
                        // One from an outer object, before some kept: the
                        // last in document order goes.
                        self.duplicates
                            .sort_by_key(|duplicate| duplicate.span.start);
                        self.duplicates.pop();
                        self.more_duplicates += 1;
                        self.last_kept = self.duplicates.last().map_or(0, |last| last.span.start);
                    }
                }
            }
        }
        if map.len() < count {
            // Room was made for the repeated keys too: a manifest of
            // objects that each repeat a key would keep twice the room.
            let mut exact = Map::with_capacity(map.len());
            exact.extend(map);
            return exact;
        }
        map
    }

    fn expected(&self, what: &str) -> ParseError {
        match self.peek() {
            None => self.error(format!("unexpected end of file, expected {what}"), self.pos),
            Some(_) if self.at_comment() => self.comment(what),
            Some(_) => self.error(format!("expected {what}"), self.pos),
        }
    }

    /// Whether a `//` or `/*` comment starts here (JSONC, JSON5).
    fn at_comment(&self) -> bool {
        matches!(self.bytes.get(self.pos..self.pos + 2), Some(b"//" | b"/*"))
    }

    fn comment(&self, what: &str) -> ParseError {
        self.error(
            format!("comments are not allowed in JSON (expected {what})"),
            self.pos,
        )
    }

    /// Parses `"key"` and the `:` after it; leaves `pos` at the value.
    fn member_key(&mut self) -> Result<(String, Span), ParseError> {
        if self.peek() != Some(b'"') {
            return Err(self.expected("a string key"));
        }
        let start = self.pos;
        let (key, end) = decode_string(self.text, start + 1)?;
        self.pos = end;
        let span = Span::new(start, end);
        self.skip_whitespace();
        if self.peek() != Some(b':') {
            return Err(self.expected("`:`"));
        }
        self.pos += 1;
        Ok((key, span))
    }

    fn scalar(&mut self) -> Result<Value, ParseError> {
        match self.peek() {
            Some(b'"') => {
                let (s, end) = decode_string(self.text, self.pos + 1)?;
                self.pos = end;
                Ok(Value::String(s))
            }
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            None => Err(self.error("unexpected end of file, expected a value", self.pos)),
            Some(_) if self.at_comment() => Err(self.comment("a value")),
            Some(_) => Err(self.error("expected a value", self.pos)),
        }
    }

    fn literal(&mut self, word: &str, value: Value) -> Result<Value, ParseError> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.error("expected a value", self.pos))
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<Value, ParseError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        let int_start = self.pos;
        let int_digits = self.digits();
        if int_digits == 0 {
            return Err(self.error("invalid number: expected a digit", self.pos));
        }
        if int_digits > 1 && self.bytes[int_start] == b'0' {
            return Err(self.error("invalid number: leading zero", int_start));
        }
        let mut integral = true;
        if self.peek() == Some(b'.') {
            integral = false;
            self.pos += 1;
            if self.digits() == 0 {
                return Err(self.error("invalid number: expected a digit after `.`", self.pos));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            integral = false;
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.error("invalid number: expected an exponent", self.pos));
            }
        }
        // The slice is ASCII digits and signs, so it is valid UTF-8.
        let text = std::str::from_utf8(&self.bytes[start..self.pos]).unwrap_or("");
        if integral {
            if let Ok(n) = text.parse::<u64>() {
                return Ok(Value::Number(n.into()));
            }
            // serde_json reads `-0` as the float -0.0; so do we.
            if let Ok(n) = text.parse::<i64>()
                && n != 0
            {
                return Ok(Value::Number(n.into()));
            }
        }
        text.parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| self.error("number out of range", start))
    }
}

/// Decodes a string whose opening quote is just before `start`; returns the
/// text and the offset just past the closing quote.
pub(super) fn decode_string(text: &str, start: usize) -> Result<(String, usize), ParseError> {
    let bytes = text.as_bytes();
    let syntax = |message: &str, offset: usize| ParseError {
        kind: ParseErrorKind::Syntax,
        message: message.to_string(),
        offset,
    };
    // Fast path: no escapes.
    let mut i = start;
    while let Some(&b) = bytes.get(i) {
        match b {
            // The quotes are ASCII, so both ends are character boundaries
            // of the (valid UTF-8) text: no validation needed.
            b'"' => {
                let content = text
                    .get(start..i)
                    .ok_or_else(|| syntax("invalid UTF-8 in string", start))?;
                return Ok((content.to_string(), i + 1));
            }
            b'\\' => break,
            0..=0x1f => return Err(syntax("control character in string", i)),
            _ => i += 1,
        }
    }
    let mut out: Vec<u8> = bytes[start..i].to_vec();
    loop {
        let Some(&b) = bytes.get(i) else {
            return Err(syntax("unexpected end of file inside a string", i));
        };
        match b {
            b'"' => {
                let text =
                    String::from_utf8(out).map_err(|_| syntax("invalid UTF-8 in string", start))?;
                return Ok((text, i + 1));
            }
            b'\\' => {
                let escape_at = i;
                let Some(&e) = bytes.get(i + 1) else {
                    return Err(syntax("unexpected end of file inside a string", i + 1));
                };
                i += 2;
                let c = match e {
                    b'"' => '"',
                    b'\\' => '\\',
                    b'/' => '/',
                    b'b' => '\u{8}',
                    b'f' => '\u{c}',
                    b'n' => '\n',
                    b'r' => '\r',
                    b't' => '\t',
                    b'u' => {
                        let (c, next) = decode_unicode_escape(bytes, escape_at)?;
                        i = next;
                        c
                    }
                    _ => return Err(syntax("invalid escape sequence", escape_at)),
                };
                let mut buffer = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buffer).as_bytes());
            }
            0..=0x1f => return Err(syntax("control character in string", i)),
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
}

fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    let text = std::str::from_utf8(digits).ok()?;
    if !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(text, 16).ok()
}

/// Decodes `\uXXXX` (and a following low surrogate) at `at`.
fn decode_unicode_escape(bytes: &[u8], at: usize) -> Result<(char, usize), ParseError> {
    let syntax = |message: &str| ParseError {
        kind: ParseErrorKind::Syntax,
        message: message.to_string(),
        offset: at,
    };
    let high = hex4(bytes, at + 2).ok_or_else(|| syntax("invalid \\u escape"))?;
    let after = at + 6;
    if (0xDC00..0xE000).contains(&high) {
        return Err(syntax("lone low surrogate in \\u escape"));
    }
    if !(0xD800..0xDC00).contains(&high) {
        let c = char::from_u32(high).ok_or_else(|| syntax("invalid \\u escape"))?;
        return Ok((c, after));
    }
    if bytes.get(after..after + 2) != Some(b"\\u") {
        return Err(syntax("lone high surrogate in \\u escape"));
    }
    let low = hex4(bytes, after + 2).ok_or_else(|| syntax("invalid \\u escape"))?;
    if !(0xDC00..0xE000).contains(&low) {
        return Err(syntax("lone high surrogate in \\u escape"));
    }
    let code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
    let c = char::from_u32(code).ok_or_else(|| syntax("invalid \\u escape"))?;
    Ok((c, after + 6))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn doc(text: &str) -> Document {
        parse(&Arc::from(text)).unwrap()
    }

    fn err(text: &str) -> ParseError {
        parse(&Arc::from(text)).unwrap_err()
    }

    fn slice(text: &str, span: Span) -> &str {
        &text[span.start..span.end]
    }

    #[test]
    fn values_match_serde_json() {
        let samples = [
            r#"{"a": [1, -2, 3.5, 1e3, 18446744073709551615, -9223372036854775808, 1e400000000000]}"#,
            r#"{"s": "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00", "n": null, "t": true, "f": false}"#,
            r#"[[], {}, [{}], "é", 0, -0, 0.0, 12345678901234567890123]"#,
            r#"{"k": 1, "k": 2}"#,
        ];
        for sample in samples {
            let expected: Result<Value, _> = serde_json::from_str(sample);
            match expected {
                Ok(v) => assert_eq!(doc(sample).value, v, "{sample}"),
                Err(_) => assert!(parse(&Arc::from(sample)).is_err(), "{sample}"),
            }
        }
    }

    #[test]
    fn spans_of_keys_and_values() {
        let text = "{\n  \"tools\": [\n    {\"name\": \"fetch\"}\n  ]\n}";
        let d = doc(text);
        assert_eq!(
            slice(text, d.map.value_span("/tools/0/name").unwrap()),
            "\"fetch\""
        );
        assert_eq!(
            slice(text, d.map.key_span("/tools/0/name").unwrap()),
            "\"name\""
        );
        assert_eq!(slice(text, d.map.value_span("").unwrap()), text);
        assert!(d.map.value_span("/tools/1").is_none());
        let missing = d.map.locate("/tools/0/description");
        assert!(!missing.exact);
        assert_eq!(slice(text, missing.span), "{");
        let missing_member = d.map.locate("/tools/0/x/y");
        assert_eq!(slice(text, missing_member.span), "{");
    }

    #[test]
    fn escaped_keys_and_pointer_escapes() {
        let text = r#"{"a/b": 1, "c~d": 2, "\u0065": 3}"#;
        let d = doc(text);
        assert_eq!(slice(text, d.map.value_span("/a~1b").unwrap()), "1");
        assert_eq!(slice(text, d.map.value_span("/c~0d").unwrap()), "2");
        assert_eq!(slice(text, d.map.value_span("/e").unwrap()), "3");
    }

    #[test]
    fn duplicate_keys_are_reported_with_both_spans() {
        let text = r#"{"a": {"k": 1, "k": 2}}"#;
        let d = doc(text);
        assert_eq!(d.duplicate_keys.len(), 1);
        let dup = &d.duplicate_keys[0];
        assert_eq!(dup.pointer, "/a/k");
        assert_eq!(dup.span.start, 15);
        assert_eq!(dup.first.start, 7);
        // Like serde_json, the last value wins, and so does the map.
        assert_eq!(d.value["a"]["k"], 2);
        assert_eq!(slice(text, d.map.value_span("/a/k").unwrap()), "2");
    }

    #[test]
    fn duplicate_keys_past_the_kept_ones_are_counted() {
        let repeated = KEPT_DUPLICATE_KEYS + 5;
        let text = format!("[{}]", vec![r#"{"k":1,"k":2}"#; repeated].join(","));
        let d = doc(&text);
        assert_eq!(d.duplicate_keys.len(), KEPT_DUPLICATE_KEYS);
        assert_eq!(d.more_duplicate_keys, 5);
        assert_eq!(d.duplicate_keys[0].pointer, "/0/k");
        let last = KEPT_DUPLICATE_KEYS - 1;
        assert_eq!(d.duplicate_keys[last].pointer, format!("/{last}/k"));
        // Counting changes nothing else: the last value still wins.
        assert_eq!(d.value[repeated - 1]["k"], 2);
    }

    #[test]
    fn duplicate_keys_are_in_document_order_across_nesting() {
        // The inner object closes first; its repeated key comes later.
        let text = r#"{"a": 1, "a": 2, "b": {"k": 1, "k": 2}, "a": 3}"#;
        let d = doc(text);
        let found: Vec<(&str, &str)> = d
            .duplicate_keys
            .iter()
            .map(|dup| (dup.pointer.as_str(), slice(text, dup.span)))
            .collect();
        assert_eq!(found, [("/a", "\"a\""), ("/b/k", "\"k\""), ("/a", "\"a\"")]);
        assert_eq!(d.duplicate_keys[0].span.start, 9);
        assert_eq!(d.duplicate_keys[0].first.start, 1);
        assert_eq!(d.duplicate_keys[2].first.start, 1);
        assert_eq!(d.value["a"], 3);
        // The member keeps its first place, as serde_json's map does.
        let keys: Vec<&String> = d.value.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["a", "b"]);
    }

    #[test]
    fn an_outer_repeated_key_before_the_kept_ones_is_kept() {
        let inner = vec![r#"{"k":1,"k":2}"#; KEPT_DUPLICATE_KEYS + 3].join(",");
        let text = format!(r#"{{"x": 1, "x": 2, "arr": [{inner}]}}"#);
        let d = doc(&text);
        assert_eq!(d.duplicate_keys.len(), KEPT_DUPLICATE_KEYS);
        assert_eq!(d.more_duplicate_keys, 4);
        assert_eq!(d.duplicate_keys[0].pointer, "/x");
        assert_eq!(d.duplicate_keys[1].pointer, "/arr/0/k");
        let last = KEPT_DUPLICATE_KEYS - 1;
        assert_eq!(
            d.duplicate_keys[last].pointer,
            format!("/arr/{}/k", last - 1)
        );
    }

    #[test]
    fn containers_hold_no_spare_room() {
        let d = doc(r#"{"a": [1, 2, 3, 4, 5], "b": {"c": 1, "d": 2, "e": 3}}"#);
        assert_eq!(d.value["a"].as_array().unwrap().capacity(), 5);
        let same = serde_json::from_str::<Value>(
            r#"{"a": [1, 2, 3, 4, 5], "b": {"c": 1, "d": 2, "e": 3}}"#,
        );
        assert_eq!(d.value, same.unwrap());
    }

    #[test]
    fn errors_have_positions() {
        assert_eq!(err("").message, "the file is empty");
        assert_eq!(err("  \n").offset, 3);
        assert_eq!(err("{\"a\": 1,}").offset, 8);
        assert_eq!(err("{\"a\" 1}").offset, 5);
        assert_eq!(err("[1 2]").offset, 3);
        assert_eq!(err("{\"a\": tru}").offset, 6);
        assert_eq!(err("\"abc").offset, 4);
        assert_eq!(err("01").offset, 0);
        assert_eq!(err("{} x").offset, 3);
        assert_eq!(err("\"\\ud800\"").offset, 1);
        assert_eq!(err("\"a\tb\"").offset, 2);
    }

    #[test]
    fn deep_nesting_is_refused_without_recursion() {
        let deep = "[".repeat(20_000) + &"]".repeat(20_000);
        let e = err(&deep);
        assert_eq!(e.kind, ParseErrorKind::TooDeep);
        assert_eq!(e.offset, MAX_DEPTH);
        let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert!(parse(&Arc::from(ok.as_str())).is_ok());
    }
}
