//! Following local `$ref`s for a pass that copies definitions into place,
//! with a guard that ends cycles and bounds growth.

use serde_json::{Map, Value};

use super::RewriteNotes;
use crate::json;

/// How much schema (in [`measure`]'s units) following references may add
/// to one tool's schema.
const INLINE_BUDGET: usize = 1 << 20;
/// How deep (in JSON nesting) a schema may grow by following references:
/// below toolc's own parser limit, so that the output reads back.
const MAX_INLINED_DEPTH: usize = 200;

/// Follows local `$ref`s for a rewrite that copies definitions into place
/// (merging an `allOf` branch, inlining for Gemini), refusing a reference
/// met again below itself (a cycle) and growth past a budget, so that a
/// rewrite always ends and its output stays readable.
pub(crate) struct RefGuard {
    /// The references being copied, outermost first.
    expanding: Vec<String>,
    /// How much the copies have added so far.
    added: usize,
}

/// Why a reference is not followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Not a reference into the schema itself.
    NotLocal,
    /// The definition contains the reference: a cycle.
    Cycle,
    /// Copying it would grow the schema past the budget.
    TooLarge,
}

impl RefGuard {
    pub(crate) fn new() -> Self {
        RefGuard {
            // The root is being rewritten: `"$ref": "#"` is a cycle at once.
            expanding: vec!["#".to_string()],
            added: 0,
        }
    }

    /// The definition `reference` points to in `root`, and its pointer,
    /// when it may be copied to a place `depth` levels of JSON nesting
    /// deep. An accepted reference counts as being expanded until
    /// [`RefGuard::leave`].
    pub(crate) fn enter<'v>(
        &mut self,
        root: &'v Value,
        reference: &str,
        depth: usize,
    ) -> Result<(&'v Value, String), Refusal> {
        let (target, at) = resolve_local_ref(root, reference).ok_or(Refusal::NotLocal)?;
        if self.expanding.iter().any(|r| r == reference) {
            return Err(Refusal::Cycle);
        }
        let (size, target_depth) = measure(target);
        if self.added + size > INLINE_BUDGET || depth + target_depth > MAX_INLINED_DEPTH {
            return Err(Refusal::TooLarge);
        }
        self.added += size;
        self.expanding.push(reference.to_string());
        Ok((target, at))
    }

    /// Ends the expansion of the last `count` references entered.
    pub(crate) fn leave(&mut self, count: usize) {
        for _ in 0..count {
            if self.expanding.len() > 1 {
                self.expanding.pop();
            }
        }
    }
}

/// The size of a schema (its nodes and the length of its strings) and its
/// JSON nesting depth: what copying it adds.
fn measure(value: &Value) -> (usize, usize) {
    let fold = |(size, depth): (usize, usize), (s, d): (usize, usize)| (size + s, depth.max(d + 1));
    match value {
        Value::Object(members) => members
            .iter()
            .map(|(k, v)| {
                let (size, depth) = measure(v);
                (size + k.len(), depth)
            })
            .fold((1, 1), fold),
        Value::Array(items) => items.iter().map(measure).fold((1, 1), fold),
        Value::String(text) => (1 + text.len(), 0),
        _ => (1, 0),
    }
}

/// One subschema of a combinator: its place in the list, its schema (a
/// followed reference replaced) and the pointer that schema came from.
pub(super) struct Branch {
    pub(super) index: usize,
    pub(super) schema: Value,
    pub(super) at: String,
}

/// The subschemas of a combinator, local references followed. A branch
/// whose reference leads back to a schema being expanded adds nothing that
/// can be written out, and is dropped with a warning.
pub(super) fn branches(
    items: Vec<Value>,
    list_at: &str,
    depth: usize,
    root: &Value,
    guard: &mut RefGuard,
    entered: &mut usize,
    notes: &mut impl RewriteNotes,
) -> Vec<Branch> {
    let mut branches = Vec::new();
    let mut followed: Vec<String> = Vec::new();
    for (i, schema) in items.into_iter().enumerate() {
        let at = json::join(list_at, i);
        // The same definition twice in one list adds nothing the first did not.
        let reference = schema
            .get("$ref")
            .and_then(Value::as_str)
            .map(str::to_string);
        if let Some(reference) = reference {
            if followed.contains(&reference) {
                continue;
            }
            followed.push(reference);
        }
        match follow_ref(i, schema, at.clone(), depth + 2, root, guard, entered) {
            (_, Some(Refusal::Cycle)) => notes.warning(
                &at,
                format!("dropped branch {i}: its \"$ref\" leads back to the schema it is in"),
            ),
            (branch, _) => branches.push(branch),
        }
    }
    branches
}

/// A schema whose `$ref` points into `root` is replaced by the definition,
/// with the schema's other keywords (a `description`, say) on top, as long
/// as `guard` allows; the refusal that stopped it, if any.
fn follow_ref(
    index: usize,
    mut schema: Value,
    mut at: String,
    depth: usize,
    root: &Value,
    guard: &mut RefGuard,
    entered: &mut usize,
) -> (Branch, Option<Refusal>) {
    while let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let (target, target_at) = match guard.enter(root, reference, depth) {
            Ok(found) => found,
            Err(refusal) => return (Branch { index, schema, at }, Some(refusal)),
        };
        *entered += 1;
        let mut resolved = match target {
            Value::Object(definition) => definition.clone(),
            _ => Map::new(),
        };
        if let Value::Object(siblings) = schema {
            for (key, value) in siblings.into_iter().filter(|(k, _)| k != "$ref") {
                resolved.insert(key, value);
            }
        }
        schema = Value::Object(resolved);
        at = target_at;
    }
    (Branch { index, schema, at }, None)
}

/// What a local reference (`#`, `#/$defs/Name`, `#/definitions/Name`, any
/// `#/pointer`) refers to in `root`, with the pointer of the target.
pub(crate) fn resolve_local_ref<'v>(
    root: &'v Value,
    reference: &str,
) -> Option<(&'v Value, String)> {
    let pointer = reference.strip_prefix('#')?;
    if !pointer.is_empty() && !pointer.starts_with('/') {
        return None;
    }
    json::value_at(root, pointer).map(|target| (target, pointer.to_string()))
}
