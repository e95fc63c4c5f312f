//! The source map of a parsed document, and JSON Pointer utilities.
//!
//! The parser records one [`Node`] per value in document order (pre-order):
//! its span, its key's span, and the index just past its subtree, so the
//! children of a node are found by hopping from subtree end to subtree end.
//! Looking a pointer up walks that arena, decoding keys only then; large
//! containers get an index on the first lookup.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::Value;

use super::decode_string;
use crate::source::Span;

/// A node of the source map: 20 bytes, since a large document has one per
/// value (offsets fit in 32 bits: [`super::parse`] refuses longer texts).
#[derive(Debug, Clone)]
pub(super) struct Node {
    start: u32,
    end: u32,
    /// The member's key including its quotes; `key_end == 0` when the node
    /// is no member (a key is at least `""`, so never ends at 0).
    key_start: u32,
    key_end: u32,
    /// Index one past this node's last descendant (children are the nodes
    /// from `index + 1`, each followed by its own subtree), with
    /// [`OBJECT_BIT`] set for objects.
    subtree_end: u32,
}

const OBJECT_BIT: u32 = 1 << 31;

/// How many nodes a source map holds at most (the object bit takes one of
/// `subtree_end`'s 32).
pub(super) const MAX_NODES: usize = (OBJECT_BIT - 1) as usize;

impl Node {
    /// An open node starting at `start` (closed by [`Node::close`]).
    pub(super) fn open(start: usize, key: Option<Span>, is_object: bool) -> Node {
        let (key_start, key_end) = key.map_or((0, 0), |k| (narrow(k.start), narrow(k.end)));
        Node {
            start: narrow(start),
            end: narrow(start),
            key_start,
            key_end,
            subtree_end: if is_object { OBJECT_BIT } else { 0 },
        }
    }

    pub(super) fn close(&mut self, end: usize, subtree_end: usize) {
        self.end = narrow(end);
        self.subtree_end = (self.subtree_end & OBJECT_BIT) | narrow(subtree_end);
    }

    pub(super) fn span(&self) -> Span {
        Span::new(self.start as usize, self.end as usize)
    }

    pub(super) fn key(&self) -> Option<Span> {
        (self.key_end != 0).then(|| Span::new(self.key_start as usize, self.key_end as usize))
    }

    pub(super) fn subtree_end(&self) -> usize {
        (self.subtree_end & !OBJECT_BIT) as usize
    }

    pub(super) fn is_object(&self) -> bool {
        self.subtree_end & OBJECT_BIT != 0
    }
}

/// An offset or index the parser has already bounded to 32 bits.
fn narrow(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Maps JSON Pointers of one document to byte spans.
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    pub(super) text: std::sync::Arc<str>,
    pub(super) nodes: Vec<Node>,
    /// Children of the large containers, built on the first lookup, so that
    /// many lookups into one huge array or object stay linear overall.
    pub(super) index: OnceLock<HashMap<usize, Children>>,
}

/// Containers with more children than this get an index.
const INDEXED_FROM: usize = 32;

#[derive(Debug, Clone)]
pub(super) enum Children {
    Items(Vec<usize>),
    /// Key to the last member with that key (the last one wins).
    Members(HashMap<String, usize>),
}

/// Where a pointer lands: the value, or, when the pointer names something that
/// is absent (a missing member), the nearest enclosing value that exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Located {
    pub span: Span,
    pub exact: bool,
}

impl SourceMap {
    /// The text of the document.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The text of the document, shared.
    pub fn shared_text(&self) -> std::sync::Arc<str> {
        self.text.clone()
    }

    /// How many values the document holds (every scalar, array and object).
    pub fn values(&self) -> usize {
        self.nodes.len()
    }

    /// The span of the value at `pointer`.
    pub fn value_span(&self, pointer: &str) -> Option<Span> {
        self.find(pointer).map(|i| self.nodes[i].span())
    }

    /// The span of the key (with quotes) of the member at `pointer`; `None`
    /// for array items, the root, and missing members.
    pub fn key_span(&self, pointer: &str) -> Option<Span> {
        self.nodes[self.find(pointer)?].key()
    }

    /// The value span at `pointer`, or for an absent pointer a short span at
    /// the nearest existing ancestor: its key when it has one, else its first
    /// character. A caret there reads as "this object lacks ...".
    pub fn locate(&self, pointer: &str) -> Located {
        let mut tokens = pointer_tokens(pointer);
        let mut current = 0;
        if self.nodes.is_empty() {
            return Located {
                span: Span::new(0, 0),
                exact: false,
            };
        }
        for token in tokens.by_ref() {
            match self.child(current, &token) {
                Some(next) => current = next,
                None => {
                    let node = &self.nodes[current];
                    let span = node.key().unwrap_or_else(|| {
                        let start = node.span().start;
                        Span::new(start, start + 1)
                    });
                    return Located { span, exact: false };
                }
            }
        }
        Located {
            span: self.nodes[current].span(),
            exact: true,
        }
    }

    /// Where a diagnostic about the member named by `pointer` should point:
    /// its key when it has one (for "this field is wrong" messages), else
    /// wherever [`SourceMap::locate`] lands.
    pub fn key_or_locate(&self, pointer: &str) -> Span {
        self.key_span(pointer)
            .unwrap_or_else(|| self.locate(pointer).span)
    }

    fn find(&self, pointer: &str) -> Option<usize> {
        if self.nodes.is_empty() {
            return None;
        }
        let mut current = 0;
        for token in pointer_tokens(pointer) {
            current = self.child(current, &token)?;
        }
        Some(current)
    }

    fn children(&self, parent: usize) -> impl Iterator<Item = usize> + '_ {
        let end = self.nodes[parent].subtree_end();
        let mut next = parent + 1;
        std::iter::from_fn(move || {
            if next >= end {
                return None;
            }
            let current = next;
            next = self.nodes[current].subtree_end();
            Some(current)
        })
    }

    fn child(&self, parent: usize, token: &str) -> Option<usize> {
        match self.index.get_or_init(|| self.build_index()).get(&parent) {
            Some(Children::Items(items)) => return items.get(parse_array_index(token)?).copied(),
            Some(Children::Members(members)) => return members.get(token).copied(),
            None => {}
        }
        if self.nodes[parent].is_object() {
            // The last occurrence wins, as in the parsed value.
            self.children(parent)
                .filter(|&c| {
                    self.nodes[c]
                        .key()
                        .is_some_and(|k| self.key_equals(k, token))
                })
                .last()
        } else {
            let index: usize = parse_array_index(token)?;
            self.children(parent).nth(index)
        }
    }

    fn build_index(&self) -> HashMap<usize, Children> {
        let mut index = HashMap::new();
        for (parent, node) in self.nodes.iter().enumerate() {
            if node.subtree_end() <= parent + 1 + INDEXED_FROM {
                continue;
            }
            let children: Vec<usize> = self.children(parent).collect();
            if children.len() <= INDEXED_FROM {
                continue;
            }
            let entry = if node.is_object() {
                Children::Members(
                    children
                        .into_iter()
                        .map(|c| {
                            (
                                self.nodes[c]
                                    .key()
                                    .map(|k| self.key_text(k))
                                    .unwrap_or_default(),
                                c,
                            )
                        })
                        .collect(),
                )
            } else {
                Children::Items(children)
            };
            index.insert(parent, entry);
        }
        index
    }

    fn key_equals(&self, key: Span, token: &str) -> bool {
        let raw = &self.text[key.start + 1..key.end - 1];
        if !raw.contains('\\') {
            return raw == token;
        }
        decode_string(&self.text, key.start + 1)
            .map(|(s, _)| s == token)
            .unwrap_or(false)
    }

    fn key_text(&self, key: Span) -> String {
        decode_string(&self.text, key.start + 1)
            .map(|(s, _)| s)
            .unwrap_or_default()
    }
}

fn parse_array_index(token: &str) -> Option<usize> {
    if token.is_empty() || (token.len() > 1 && token.starts_with('0')) {
        return None;
    }
    if !token.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    token.parse().ok()
}

/// The value `pointer` names inside `value`, like `Value::pointer` but
/// without allocating for tokens that need no unescaping.
pub fn value_at<'v>(value: &'v Value, pointer: &str) -> Option<&'v Value> {
    if pointer.is_empty() {
        return Some(value);
    }
    let mut current = value;
    for raw in pointer.strip_prefix('/')?.split('/') {
        let token: std::borrow::Cow<str> = if raw.contains('~') {
            raw.replace("~1", "/").replace("~0", "~").into()
        } else {
            raw.into()
        };
        current = match current {
            Value::Object(map) => map.get(token.as_ref())?,
            Value::Array(items) => items.get(parse_array_index(&token)?)?,
            _ => return None,
        };
    }
    Some(current)
}

/// Splits a JSON Pointer into unescaped reference tokens.
pub fn pointer_tokens(pointer: &str) -> impl Iterator<Item = String> + '_ {
    pointer
        .split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
}

/// Escapes one reference token for a JSON Pointer.
fn escape_token(token: &str) -> String {
    if token.contains(['~', '/']) {
        token.replace('~', "~0").replace('/', "~1")
    } else {
        token.to_string()
    }
}

/// Appends a token to a pointer.
pub fn join(pointer: &str, token: impl std::fmt::Display) -> String {
    let mut joined = String::with_capacity(pointer.len() + 16);
    joined.push_str(pointer);
    push_token(&mut joined, token);
    joined
}

/// Appends a token to a pointer in place: a walk that keeps one pointer
/// and truncates it on the way back builds no string per node.
pub fn push_token(pointer: &mut String, token: impl std::fmt::Display) {
    use std::fmt::Write;
    pointer.push('/');
    let start = pointer.len();
    // Writing to a `String` cannot fail.
    let _ = write!(pointer, "{token}");
    if pointer[start..].contains(['~', '/']) {
        let escaped = escape_token(&pointer[start..]);
        pointer.truncate(start);
        pointer.push_str(&escaped);
    }
}

/// What kind of JSON value this is, with its article, for messages.
pub fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
