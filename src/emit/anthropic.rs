//! Anthropic tools: `[{"name", "description", "input_schema"}]`.
//!
//! Anthropic refuses `anyOf`, `oneOf` and `allOf` at the root of an
//! `input_schema` (`input_schema does not support oneOf, allOf, or anyOf at
//! the top level`), and so does OpenAI strict mode. The root is therefore
//! made one object schema: an `allOf` is merged, a union is flattened, each
//! with a note.
//!
//! The schema repairs that more than one JSON target needs live here too, so
//! that each is written once: `SchemaNotes` (notes pointing into the
//! manifest), `ensure_root_object`, `merge_all_of` and
//! `flatten_root_unions` (both following references through a
//! `RefGuard`, which ends cycles and bounds growth), and `rename_key`.
//! The OpenAI strict rewrite and the Gemini conversion use them.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::{EmitError, Generated, Note, Options, Output, json_document};
use crate::diagnostic::Severity;
use crate::ir::{Tool, ToolSet};
use crate::json;

/// `toolc gen anthropic`.
pub fn generate(toolsets: &[ToolSet], _options: &Options) -> Result<Generated, EmitError> {
    let (tools, notes) = build(toolsets);
    Ok(Generated {
        output: Output::Document(json_document(&tools)?),
        notes,
    })
}

/// The Anthropic tools array for every tool of `toolsets`, in order.
pub fn tools(toolsets: &[ToolSet]) -> Value {
    build(toolsets).0
}

fn build(toolsets: &[ToolSet]) -> (Value, Vec<Note>) {
    let mut notes = Vec::new();
    let entries: Vec<Value> = super::tools(toolsets)
        .map(|(set, tool)| {
            let mut sink = SchemaNotes::for_tool(set, tool);
            let mut schema = parameters_or_empty(tool);
            ensure_root_object(&mut schema, &mut sink);
            let original = schema.clone();
            if let Value::Object(root) = &mut schema {
                let mut origins = Origins::new();
                let mut guard = RefGuard::new();
                merge_all_of(root, "", 0, &original, &mut guard, &mut origins, &mut sink);
                flatten_root_unions(root, &original, &mut guard, &mut origins, &mut sink);
            }
            notes.extend(sink.into_notes());
            let mut entry = Map::new();
            entry.insert("name".into(), Value::String(tool.name.clone()));
            if let Some(description) = &tool.description {
                entry.insert("description".into(), Value::String(description.clone()));
            }
            entry.insert("input_schema".into(), schema);
            Value::Object(entry)
        })
        .collect();
    (Value::Array(entries), notes)
}

/// A tool's parameter schema, or an empty object schema when the manifest
/// does not say (the CLI warns about those).
pub(super) fn parameters_or_empty(tool: &Tool) -> Value {
    tool.parameters
        .clone()
        .unwrap_or_else(crate::formats::no_parameters)
}

/// Where the properties merged into an object schema came from: property
/// name → pointer of its schema, relative to the parameter schema's root.
/// Properties not listed are where they are (`AT/properties/NAME`).
pub(super) type Origins = BTreeMap<String, String>;

/// The pointer of property `name` of the object schema at `at`.
pub(super) fn property_at(at: &str, origins: &Origins, name: &str) -> String {
    origins
        .get(name)
        .cloned()
        .unwrap_or_else(|| json::join(&json::join(at, "properties"), name))
}

/// Collects the notes about one tool's parameter schema. Pointers are given
/// relative to the schema root and stored relative to the manifest (the
/// tool's `parameters_at` in front). A schema the manifest does not hold (an
/// empty one made up for a tool whose parameters are unknown) has nothing
/// to point at, so its notes are dropped. The same note is kept once: an
/// inlined definition repeats the notes of its source.
pub(super) struct SchemaNotes<'a> {
    path: &'a str,
    base: Option<&'a str>,
    seen: BTreeSet<(String, String)>,
    notes: Vec<Note>,
}

impl<'a> SchemaNotes<'a> {
    pub(super) fn for_tool(set: &'a ToolSet, tool: &'a Tool) -> Self {
        SchemaNotes {
            path: &set.path,
            base: tool.parameters.as_ref().and(tool.parameters_at.as_deref()),
            seen: BTreeSet::new(),
            notes: Vec::new(),
        }
    }

    pub(super) fn info(&mut self, at: &str, message: impl Into<String>) {
        self.push(Severity::Info, at, message.into());
    }

    pub(super) fn warning(&mut self, at: &str, message: impl Into<String>) {
        self.push(Severity::Warning, at, message.into());
    }

    fn push(&mut self, severity: Severity, at: &str, message: String) {
        let Some(base) = self.base else {
            return;
        };
        let pointer = format!("{base}{at}");
        if self.seen.insert((pointer.clone(), message.clone())) {
            self.notes.push(Note {
                path: self.path.to_string(),
                pointer,
                severity,
                message,
            });
        }
    }

    pub(super) fn into_notes(self) -> Vec<Note> {
        self.notes
    }
}

/// Every provider wants the parameters to be an object schema: a root
/// without `type` gets `"type": "object"` in front, and a root that is not a
/// JSON object at all (only with `--allow-errors`) is replaced by an empty
/// object schema.
pub(super) fn ensure_root_object(schema: &mut Value, notes: &mut SchemaNotes) {
    match schema {
        Value::Object(root) if !root.contains_key("type") => {
            root.shift_insert(0, "type".into(), Value::String("object".into()));
            notes.info(
                "",
                "the parameter schema has no \"type\": added \"type\": \"object\"",
            );
        }
        Value::Object(_) => {}
        other => {
            notes.warning(
                "",
                format!(
                    "the parameter schema is {}, not a JSON object: generated an empty object schema",
                    json::kind_of(other)
                ),
            );
            *other = crate::formats::no_parameters();
        }
    }
}

/// How many times a schema may bring in another `allOf` (through a merged
/// branch or a followed `$ref`) before the rest is dropped.
const MAX_MERGE_ROUNDS: usize = 32;
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
pub(super) struct RefGuard {
    /// The references being copied, outermost first.
    expanding: Vec<String>,
    /// How much the copies have added so far.
    added: usize,
}

/// Why a reference is not followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Refusal {
    /// Not a reference into the schema itself.
    NotLocal,
    /// The definition contains the reference: a cycle.
    Cycle,
    /// Copying it would grow the schema past the budget.
    TooLarge,
}

impl RefGuard {
    pub(super) fn new() -> Self {
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
    pub(super) fn enter<'v>(
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
    pub(super) fn leave(&mut self, count: usize) {
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
struct Branch {
    index: usize,
    schema: Value,
    at: String,
}

/// Merges the `allOf` branches of `node` (at `at`, `depth` levels of JSON
/// nesting deep) into it when they agree (the properties and `required` of
/// object branches add up; any other keyword must not contradict the
/// node's), and drops the `allOf` with a warning when they do not. A
/// branch's local `$ref` is replaced by what it refers to in `root` first,
/// as far as `guard` allows (otherwise the `$ref` stays, merged like any
/// keyword). Merged properties are recorded in `origins`. Returns how many
/// references were entered: the caller leaves them once it is done with
/// the node's subschemas.
pub(super) fn merge_all_of(
    node: &mut Map<String, Value>,
    at: &str,
    depth: usize,
    root: &Value,
    guard: &mut RefGuard,
    origins: &mut Origins,
    notes: &mut SchemaNotes,
) -> usize {
    let all_of_at = json::join(at, "allOf");
    let mut entered = 0;
    for round in 0.. {
        let Some(all_of) = node.shift_remove("allOf") else {
            break;
        };
        if round == MAX_MERGE_ROUNDS {
            notes.warning(
                &all_of_at,
                "dropped \"allOf\": its branches keep bringing in more \"allOf\" (a recursive \
                 definition?); its constraints are no longer checked",
            );
            break;
        }
        let Value::Array(items) = all_of else {
            notes.warning(
                &all_of_at,
                "dropped \"allOf\": it is not an array of schemas",
            );
            break;
        };
        let mut round_entered = 0;
        let branches = branches(
            items,
            &all_of_at,
            depth,
            root,
            guard,
            &mut round_entered,
            notes,
        );
        let mut merged = node.clone();
        let mut merged_origins = origins.clone();
        let outcome = branches
            .into_iter()
            .try_for_each(|branch| merge_branch(&mut merged, branch, &mut merged_origins));
        match outcome {
            Ok(()) => {
                *node = merged;
                *origins = merged_origins;
                entered += round_entered;
                notes.info(&all_of_at, "merged the \"allOf\" branches into this schema");
            }
            Err(reason) => {
                guard.leave(round_entered);
                notes.warning(
                    &all_of_at,
                    format!(
                        "dropped \"allOf\", which cannot be merged into one schema ({reason}); \
                         its constraints are no longer checked"
                    ),
                );
                break;
            }
        }
    }
    entered
}

/// The subschemas of a combinator, local references followed. A branch
/// whose reference leads back to a schema being expanded adds nothing that
/// can be written out, and is dropped with a warning.
fn branches(
    items: Vec<Value>,
    list_at: &str,
    depth: usize,
    root: &Value,
    guard: &mut RefGuard,
    entered: &mut usize,
    notes: &mut SchemaNotes,
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
pub(super) fn resolve_local_ref<'v>(
    root: &'v Value,
    reference: &str,
) -> Option<(&'v Value, String)> {
    let pointer = reference.strip_prefix('#')?;
    if !pointer.is_empty() && !pointer.starts_with('/') {
        return None;
    }
    json::value_at(root, pointer).map(|target| (target, pointer.to_string()))
}

/// Annotations a branch cannot contradict: the node's own wins.
const ANNOTATIONS: &[&str] = &[
    "description",
    "title",
    "default",
    "examples",
    "$comment",
    "additionalProperties",
];

fn merge_branch(
    node: &mut Map<String, Value>,
    branch: Branch,
    origins: &mut Origins,
) -> Result<(), String> {
    let index = branch.index;
    let members = match branch.schema {
        Value::Object(members) => members,
        Value::Bool(true) => return Ok(()),
        _ => return Err(format!("branch {index} is not an object schema")),
    };
    for (key, value) in members {
        match key.as_str() {
            "properties" => merge_properties(node, value, &branch.at, origins)?,
            "required" => merge_required(node, value),
            _ if ANNOTATIONS.contains(&key.as_str()) => {
                node.entry(key).or_insert(value);
            }
            _ => match node.get(&key) {
                None => {
                    node.insert(key, value);
                }
                Some(existing) if *existing == value => {}
                Some(_) => return Err(format!("branch {index} sets \"{key}\" differently")),
            },
        }
    }
    Ok(())
}

fn merge_properties(
    node: &mut Map<String, Value>,
    properties: Value,
    branch_at: &str,
    origins: &mut Origins,
) -> Result<(), String> {
    let Value::Object(properties) = properties else {
        return Err("a branch's \"properties\" is not an object".to_string());
    };
    let Value::Object(target) = node
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()))
    else {
        return Err("\"properties\" is not an object".to_string());
    };
    for (name, schema) in properties {
        match target.get(&name) {
            None => {
                origins.insert(name.clone(), property_at(branch_at, &Origins::new(), &name));
                target.insert(name, schema);
            }
            Some(existing) if *existing == schema => {}
            Some(_) => return Err(format!("property \"{name}\" is declared differently twice")),
        }
    }
    Ok(())
}

fn merge_required(node: &mut Map<String, Value>, required: Value) {
    let Value::Array(names) = required else {
        return;
    };
    let entry = node
        .entry("required")
        .or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(existing) = entry {
        for name in names {
            if !existing.contains(&name) {
                existing.push(name);
            }
        }
    }
}

/// Turns `anyOf` and `oneOf` at the root of a parameter schema into one
/// object: every property of the object branches is accepted, and a
/// property is required when every branch requires it. Which combination
/// to give is no longer enforced, and the note says so.
pub(super) fn flatten_root_unions(
    root: &mut Map<String, Value>,
    original: &Value,
    guard: &mut RefGuard,
    origins: &mut Origins,
    notes: &mut SchemaNotes,
) {
    for keyword in ["anyOf", "oneOf"] {
        let Some(union) = root.shift_remove(keyword) else {
            continue;
        };
        let at = json::join("", keyword);
        let Value::Array(items) = union else {
            notes.warning(
                &at,
                format!("dropped the root \"{keyword}\": it is not an array of schemas"),
            );
            continue;
        };
        let mut common: Option<Vec<Value>> = None;
        let mut count = 0;
        // The root stays in place: the references followed need no leaving.
        let mut entered = 0;
        for branch in branches(items, &at, 0, original, guard, &mut entered, notes) {
            let i = branch.index;
            let Value::Object(mut members) = branch.schema else {
                notes.warning(
                    &json::join(&at, i),
                    format!("dropped branch {i}: it is not an object schema"),
                );
                continue;
            };
            let Some(properties) = members.shift_remove("properties") else {
                notes.warning(
                    &json::join(&at, i),
                    format!(
                        "dropped branch {i}: it declares no properties to flatten into the root"
                    ),
                );
                continue;
            };
            count += 1;
            let required = match members.get("required") {
                Some(Value::Array(names)) => names.clone(),
                _ => Vec::new(),
            };
            common = Some(match common {
                None => required,
                Some(previous) => previous
                    .into_iter()
                    .filter(|n| required.contains(n))
                    .collect(),
            });
            if let Err(reason) = merge_properties(root, properties, &branch.at, origins) {
                notes.warning(
                    &json::join(&at, i),
                    format!("kept the first declaration: {reason}"),
                );
            }
        }
        if let Some(common) = common.filter(|names| !names.is_empty()) {
            merge_required(root, Value::Array(common));
        }
        notes.warning(
            &at,
            format!(
                "flattened the root \"{keyword}\" into one object schema (a combinator is not \
                 accepted at the root): the properties of its {count} branches are all accepted, \
                 and which of them to give is no longer enforced; say it in the description"
            ),
        );
    }
}

/// Renames a key in place, keeping its position (and so the output order).
/// Makes a `oneOf` an `anyOf` for a provider that has no `oneOf` (its
/// name in `provider` for the notes); returns the keyword the `anyOf`
/// branches are under in the manifest.
pub(super) fn one_of_to_any_of(
    node: &mut Map<String, Value>,
    at: &str,
    notes: &mut SchemaNotes,
    provider: &str,
) -> &'static str {
    if !node.contains_key("oneOf") {
        return "anyOf";
    }
    let one_of_at = json::join(at, "oneOf");
    if node.contains_key("anyOf") {
        node.shift_remove("oneOf");
        notes.warning(
            &one_of_at,
            format!(
                "removed \"oneOf\" beside an \"anyOf\" ({provider} has no \"oneOf\"): its \
                 branches are no longer checked"
            ),
        );
        "anyOf"
    } else {
        rename_key(node, "oneOf", "anyOf");
        notes.info(
            &one_of_at,
            format!(
                "\"oneOf\" became \"anyOf\" ({provider} has no \"oneOf\"): a value that \
                 matches several branches is no longer refused"
            ),
        );
        "oneOf"
    }
}

pub(super) fn rename_key(map: &mut Map<String, Value>, from: &str, to: &str) {
    let old = std::mem::take(map);
    for (key, value) in old {
        if key == from {
            map.insert(to.to_string(), value);
        } else {
            map.insert(key, value);
        }
    }
}
