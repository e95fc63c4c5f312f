//! Merging `allOf` branches into the schema that holds them, and
//! flattening a union at the root of a parameter schema into one object.

use serde_json::{Map, Value};

use super::refs::{Branch, RefGuard, branches};
use super::{Origins, RewriteNotes, property_at};
use crate::json;

/// How many times a schema may bring in another `allOf` (through a merged
/// branch or a followed `$ref`) before the rest is dropped.
const MAX_MERGE_ROUNDS: usize = 32;

/// Merges the `allOf` branches of `node` (at `at`, `depth` levels of JSON
/// nesting deep) into it when they agree (the properties and `required` of
/// object branches add up; any other keyword must not contradict the
/// node's), and drops the `allOf` with a warning when they do not. A
/// branch's local `$ref` is replaced by what it refers to in `root` first,
/// as far as `guard` allows (otherwise the `$ref` stays, merged like any
/// keyword). Merged properties are recorded in `origins`. Returns how many
/// references were entered: the caller leaves them once it is done with
/// the node's subschemas.
pub(crate) fn merge_all_of(
    node: &mut Map<String, Value>,
    at: &str,
    depth: usize,
    root: &Value,
    guard: &mut RefGuard,
    origins: &mut Origins,
    notes: &mut impl RewriteNotes,
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
pub(crate) fn flatten_root_unions(
    root: &mut Map<String, Value>,
    original: &Value,
    guard: &mut RefGuard,
    origins: &mut Origins,
    notes: &mut impl RewriteNotes,
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
