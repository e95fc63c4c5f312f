//! Renaming the parameters a target cannot spell.
//!
//! JSON Schema takes any string as a property name; some targets take
//! fewer (NORA's `^[a-zA-Z0-9_]+$`, Gemini's identifiers of at most 64
//! characters). Rather than refuse such a tool, a writer gives each
//! top-level property the target rejects a name it takes, the same one
//! every time (every character the target refuses becomes `_`; a `_` goes
//! in front where the name must not start as it does; `_2`, `_3`, ... end a
//! name already taken), and records the pairs (new name, original name)
//! where the output can hold them (see `formats::carry::PARAMETER_NAMES`),
//! so that converting back, and running the tool, restore the original.

use serde_json::{Map, Value};

/// The property names a target takes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NameRule {
    /// Whether the target takes `name`.
    pub(crate) accepts: fn(&str) -> bool,
    /// The longest name it takes, in bytes, if it says.
    pub(crate) max_len: Option<usize>,
}

/// What renaming the top-level properties of a schema did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Renames {
    /// (new name, original name), in the order of the properties.
    pub(crate) renamed: Vec<(String, String)>,
    /// Properties no name the rule takes can stand for, left as they are.
    pub(crate) refused: Vec<String>,
}

/// Gives every top-level property of `schema` that `rule` rejects a name it
/// takes, in place (the order of the properties and the `required` list
/// follow).
pub(crate) fn rename_properties(schema: &mut Value, rule: NameRule) -> Renames {
    let mut renames = Renames::default();
    let Some(Value::Object(properties)) = schema.get("properties") else {
        return renames;
    };
    if properties.keys().all(|name| (rule.accepts)(name)) {
        return renames;
    }
    // Names the target takes keep them; the others get one no property has.
    let mut taken: Vec<String> = properties
        .keys()
        .filter(|name| (rule.accepts)(name))
        .cloned()
        .collect();
    let mut new_properties = Map::new();
    for (name, property) in properties {
        let new_name = if (rule.accepts)(name) {
            Some(name.clone())
        } else {
            free_name(name, rule, &taken)
        };
        match new_name {
            Some(new_name) => {
                if new_name != *name {
                    taken.push(new_name.clone());
                    renames.renamed.push((new_name.clone(), name.clone()));
                }
                new_properties.insert(new_name, property.clone());
            }
            None => {
                renames.refused.push(name.clone());
                new_properties.insert(name.clone(), property.clone());
            }
        }
    }
    let new_name = |old: &str| -> Option<String> {
        renames
            .renamed
            .iter()
            .find(|(_, original)| original == old)
            .map(|(new, _)| new.clone())
    };
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| {
            names
                .iter()
                .map(|name| match name.as_str().and_then(new_name) {
                    Some(new) => Value::String(new),
                    None => name.clone(),
                })
                .collect::<Vec<Value>>()
        });
    if let Some(object) = schema.as_object_mut() {
        object.insert("properties".into(), Value::Object(new_properties));
        if let Some(required) = required {
            object.insert("required".into(), Value::Array(required));
        }
    }
    renames
}

/// A property below a schema's top level that a writer renamed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NestedRename {
    /// The pointer to the property in the renamed schema
    /// (`/properties/headers/properties/x_trace`): the key of its record,
    /// which no top-level name can be, since those never hold a `/`.
    pub(crate) at: String,
    /// The pointer to it in the schema as given, with the original names.
    pub(crate) was_at: String,
    /// Its original name.
    pub(crate) original: String,
}

/// What renaming the properties below a schema's top level did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct NestedRenames {
    pub(crate) renamed: Vec<NestedRename>,
    /// Pointers, in the schema as given, of properties no name the rule
    /// takes can stand for, left as they are.
    pub(crate) refused: Vec<String>,
}

/// Gives every property `rule` rejects below the top level of `schema` (in
/// the objects of its properties, its `items` and the branches of its
/// `anyOf`, `oneOf` and `allOf`, at any depth) a name the rule takes, in
/// place, as [`rename_properties`] does for the top level, which this
/// leaves alone. A property inside a renamed one is recorded under its
/// parent's new name.
pub(crate) fn rename_nested_properties(schema: &mut Value, rule: NameRule) -> NestedRenames {
    let mut renames = NestedRenames::default();
    rename_below(schema, rule, &mut String::new(), "", true, &mut renames);
    renames
}

/// [`rename_nested_properties`] for the node at `at` (in the renamed
/// schema) that was at `was_at`; `top` is the schema's root.
fn rename_below(
    node: &mut Value,
    rule: NameRule,
    at: &mut String,
    was_at: &str,
    top: bool,
    out: &mut NestedRenames,
) {
    let Value::Object(_) = node else {
        return;
    };
    let here = if top {
        Renames::default()
    } else {
        rename_properties(node, rule)
    };
    let original = |name: &str| -> String {
        here.renamed
            .iter()
            .find(|(new, _)| new == name)
            .map_or(name, |(_, original)| original.as_str())
            .to_string()
    };
    let properties_at = crate::json::join(at, "properties");
    let was_properties_at = crate::json::join(was_at, "properties");
    for (new, original) in &here.renamed {
        out.renamed.push(NestedRename {
            at: crate::json::join(&properties_at, new),
            was_at: crate::json::join(&was_properties_at, original),
            original: original.clone(),
        });
    }
    out.refused.extend(
        here.refused
            .iter()
            .map(|name| crate::json::join(&was_properties_at, name)),
    );
    let Value::Object(members) = node else {
        return;
    };
    let mark = at.len();
    for (keyword, child) in members.iter_mut() {
        match (keyword.as_str(), child) {
            ("properties", Value::Object(properties)) => {
                for (name, property) in properties.iter_mut() {
                    crate::json::push_token(at, "properties");
                    crate::json::push_token(at, name);
                    let was = crate::json::join(&was_properties_at, original(name));
                    rename_below(property, rule, at, &was, false, out);
                    at.truncate(mark);
                }
            }
            ("items", items @ Value::Object(_)) => {
                crate::json::push_token(at, "items");
                let was = crate::json::join(was_at, "items");
                rename_below(items, rule, at, &was, false, out);
                at.truncate(mark);
            }
            (union @ ("anyOf" | "oneOf" | "allOf"), Value::Array(branches)) => {
                let union = union.to_string();
                for (i, branch) in branches.iter_mut().enumerate() {
                    crate::json::push_token(at, &union);
                    crate::json::push_token(at, i);
                    let was = crate::json::join(&crate::json::join(was_at, &union), i);
                    rename_below(branch, rule, at, &was, false, out);
                    at.truncate(mark);
                }
            }
            _ => {}
        }
    }
}

/// Gives back its original name to the property a [`NestedRename`] record
/// names at `at` in `schema` (its `required` follows), in place; nothing
/// when the pointer names no property any more, or the original name is
/// taken there. Records inside a renamed property name it by its new
/// name: restore the longest pointers first.
pub(crate) fn restore_nested_name(schema: &mut Value, at: &str, original: &str) {
    let Some((parent, name)) = at.rsplit_once('/') else {
        return;
    };
    let Some(node_at) = parent.strip_suffix("/properties") else {
        return;
    };
    let name = name.replace("~1", "/").replace("~0", "~");
    let Some(node) = schema.pointer_mut(node_at) else {
        return;
    };
    let Some(Value::Object(properties)) = node.get("properties") else {
        return;
    };
    if !properties.contains_key(&name) || properties.contains_key(original) {
        return;
    }
    let properties: Map<String, Value> = properties
        .iter()
        .map(|(key, value)| {
            let key = if *key == name { original } else { key };
            (key.to_string(), value.clone())
        })
        .collect();
    if let Some(Value::Array(required)) = node.get_mut("required") {
        for entry in required.iter_mut() {
            if entry.as_str() == Some(name.as_str()) {
                *entry = Value::String(original.to_string());
            }
        }
    }
    if let Some(object) = node.as_object_mut() {
        object.insert("properties".into(), Value::Object(properties));
    }
}

/// The name `name` gets: its spelling under `rule`, with `_2`, `_3`, ...
/// where that is taken; `None` when the rule takes no such name.
fn free_name(name: &str, rule: NameRule, taken: &[String]) -> Option<String> {
    let base = spelled(name, rule);
    for n in 1..=taken.len() + 1 {
        let suffix = if n == 1 {
            String::new()
        } else {
            format!("_{n}")
        };
        let mut stem = base.clone();
        if let Some(max) = rule.max_len {
            let room = max.checked_sub(suffix.len())?;
            stem.truncate(room);
        }
        let candidate = format!("{stem}{suffix}");
        if (rule.accepts)(&candidate) && !taken.contains(&candidate) {
            return Some(candidate);
        }
    }
    None
}

/// `name` with every character but ASCII letters, digits and `_` made
/// `_`, and a `_` in front if the rule still rejects how it starts.
fn spelled(name: &str, rule: NameRule) -> String {
    let mut spelled: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let starts_badly = |s: &str| {
        let first: String = s.chars().take(1).collect();
        !(rule.accepts)(&first)
    };
    if spelled.is_empty() || starts_badly(&spelled) {
        spelled.insert(0, '_');
    }
    spelled
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn word(name: &str) -> bool {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    }

    fn identifier(name: &str) -> bool {
        name.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && word(name)
            && name.len() <= 8
    }

    #[test]
    fn rejected_names_are_spelled_and_kept_apart() {
        let mut schema = json!({"type": "object", "properties": {
            "max-bytes": {}, "max_bytes": {}, "max.bytes": {}, "ok": {}
        }, "required": ["max-bytes", "ok"]});
        let rule = NameRule {
            accepts: word,
            max_len: None,
        };
        let renames = rename_properties(&mut schema, rule);
        assert_eq!(
            renames.renamed,
            [
                ("max_bytes_2".to_string(), "max-bytes".to_string()),
                ("max_bytes_3".to_string(), "max.bytes".to_string())
            ]
        );
        let names: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        assert_eq!(names, ["max_bytes_2", "max_bytes", "max_bytes_3", "ok"]);
        assert_eq!(schema["required"], json!(["max_bytes_2", "ok"]));
    }

    #[test]
    fn starts_and_lengths_follow_the_rule() {
        let mut schema = json!({"properties": {"2fa": {}, "very-long-name": {}}});
        let rule = NameRule {
            accepts: identifier,
            max_len: Some(8),
        };
        let renames = rename_properties(&mut schema, rule);
        assert_eq!(
            renames.renamed,
            [
                ("_2fa".to_string(), "2fa".to_string()),
                ("very_lon".to_string(), "very-long-name".to_string())
            ]
        );
        assert!(renames.refused.is_empty());
    }

    #[test]
    fn nested_renames_are_recorded_by_pointer_and_restored() {
        let given = json!({"type": "object", "properties": {
            "top-level": {"type": "object", "properties": {"a-b": {}, "ok": {}},
                          "required": ["a-b"]},
            "list": {"items": {"anyOf": [{"properties": {"2x": {}}}]}}
        }});
        let mut schema = given.clone();
        let rule = NameRule {
            accepts: identifier,
            max_len: None,
        };
        let renames = rename_nested_properties(&mut schema, rule);
        let records: Vec<(&str, &str, &str)> = renames
            .renamed
            .iter()
            .map(|r| (r.at.as_str(), r.was_at.as_str(), r.original.as_str()))
            .collect();
        assert_eq!(
            records,
            [
                (
                    "/properties/top-level/properties/a_b",
                    "/properties/top-level/properties/a-b",
                    "a-b"
                ),
                (
                    "/properties/list/items/anyOf/0/properties/_2x",
                    "/properties/list/items/anyOf/0/properties/2x",
                    "2x"
                ),
            ]
        );
        // The top level is left to `rename_properties`.
        assert!(schema["properties"].get("top-level").is_some());
        assert_eq!(
            schema["properties"]["top-level"]["required"],
            json!(["a_b"])
        );
        for record in renames.renamed.iter().rev() {
            restore_nested_name(&mut schema, &record.at, &record.original);
        }
        assert_eq!(schema, given);
    }
}
