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
}
