//! A quick, conservative answer to "is this schema valid under the JSON
//! Schema 2020-12 meta-schema?" for the keywords tool schemas are made of.
//!
//! The real meta-schema (through `jsonschema`) stays the judge: it is an
//! `allOf` of seven vocabularies joined by `$dynamicRef`s, and validating
//! every parameter schema of a large repository against it was an eighth
//! of `toolc lint`'s time. [`surely_valid`] walks a schema once and says
//! `true` only when every keyword it meets is one whose rule it knows and
//! the value keeps that rule; on anything else (an unknown dialect feature
//! such as `$ref`, a number where an integer is wanted, a value of the
//! wrong kind) it says `false`, meaning "ask the meta-schema". A `true`
//! the meta-schema would contradict is a bug: the test below checks every
//! keyword against a palette of right and wrong values.

use serde_json::{Map, Value};

/// Deeper than this, leave it to the meta-schema.
const MAX_DEPTH: usize = 64;

/// The seven type names of `type`.
const SIMPLE_TYPES: &[&str] = &[
    "array", "boolean", "integer", "null", "number", "object", "string",
];

/// What a keyword's value must be.
#[derive(Clone, Copy)]
enum Shape {
    /// Anything (`const`, `default`, and every keyword the meta-schema
    /// does not name).
    Any,
    Schema,
    /// A non-empty array of schemas.
    SchemaList,
    /// An object whose values are schemas.
    SchemaMap,
    String,
    Boolean,
    Number,
    /// A number greater than zero (`multipleOf`).
    Positive,
    /// An integer of at least zero, written as one.
    Count,
    Array,
    /// An array of distinct strings (`required`).
    UniqueStrings,
    /// `type`: a type name, or a non-empty array of distinct ones.
    Type,
    /// A keyword whose rule is not written here: ask the meta-schema.
    Unsure,
}

/// The 2020-12 meta-schema's keywords (with the ones it keeps from earlier
/// drafts) and what each must hold; a keyword not listed is unconstrained.
fn shape(keyword: &str) -> Shape {
    match keyword {
        "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
            Shape::SchemaMap
        }
        "additionalProperties"
        | "items"
        | "not"
        | "if"
        | "then"
        | "else"
        | "contains"
        | "propertyNames"
        | "unevaluatedItems"
        | "unevaluatedProperties"
        | "contentSchema" => Shape::Schema,
        "allOf" | "anyOf" | "oneOf" | "prefixItems" => Shape::SchemaList,
        "type" => Shape::Type,
        "enum" | "examples" => Shape::Array,
        "const" | "default" => Shape::Any,
        "multipleOf" => Shape::Positive,
        "maximum" | "exclusiveMaximum" | "minimum" | "exclusiveMinimum" => Shape::Number,
        "maxLength" | "minLength" | "maxItems" | "minItems" | "maxContains" | "minContains"
        | "maxProperties" | "minProperties" => Shape::Count,
        "required" => Shape::UniqueStrings,
        "uniqueItems" | "deprecated" | "readOnly" | "writeOnly" => Shape::Boolean,
        // `pattern` and `patternProperties` names are regular expressions
        // by format, an annotation the meta-schema does not assert (the
        // palette test below holds an invalid one to notice if it starts).
        "title" | "description" | "$comment" | "format" | "contentEncoding"
        | "contentMediaType" | "pattern" => Shape::String,
        // URIs, anchors, references and the rest: their rules
        // (formats, patterns, references) are the meta-schema's to apply.
        "$schema" | "$id" | "$ref" | "$anchor" | "$dynamicRef" | "$dynamicAnchor"
        | "$recursiveRef" | "$recursiveAnchor" | "$vocabulary" | "dependentRequired"
        | "dependencies" => Shape::Unsure,
        _ => Shape::Any,
    }
}

/// Whether `schema` is certainly valid under the 2020-12 meta-schema;
/// `false` when it is not, or when this quick check cannot tell.
/// A root `$schema` naming 2020-12 is allowed (the dialect this checks).
pub(crate) fn surely_valid(schema: &Value) -> bool {
    let Value::Object(object) = schema else {
        return schema.is_boolean();
    };
    object.iter().all(|(keyword, value)| {
        if keyword == "$schema" {
            value
                .as_str()
                .is_some_and(|d| d.trim_end_matches('#') == DIALECT)
        } else {
            value_ok(shape(keyword), value, 1)
        }
    })
}

/// The dialect whose meta-schema this mirrors.
pub(crate) const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

fn schema_ok(schema: &Value, depth: usize) -> bool {
    match schema {
        Value::Bool(_) => true,
        Value::Object(object) => depth < MAX_DEPTH && object_ok(object, depth),
        _ => false,
    }
}

fn object_ok(object: &Map<String, Value>, depth: usize) -> bool {
    object
        .iter()
        .all(|(keyword, value)| value_ok(shape(keyword), value, depth + 1))
}

fn value_ok(shape: Shape, value: &Value, depth: usize) -> bool {
    match shape {
        Shape::Any => true,
        Shape::Unsure => false,
        Shape::Schema => schema_ok(value, depth),
        Shape::SchemaList => value
            .as_array()
            .is_some_and(|items| !items.is_empty() && items.iter().all(|s| schema_ok(s, depth))),
        Shape::SchemaMap => value
            .as_object()
            .is_some_and(|map| map.values().all(|s| schema_ok(s, depth))),
        Shape::String => value.is_string(),
        Shape::Boolean => value.is_boolean(),
        Shape::Number => value.is_number(),
        Shape::Positive => value.as_f64().is_some_and(|n| n > 0.0),
        Shape::Count => value.is_u64(),
        Shape::Array => value.is_array(),
        Shape::UniqueStrings => value
            .as_array()
            .is_some_and(|items| distinct_strings(items, |_| true)),
        Shape::Type => match value {
            Value::String(name) => SIMPLE_TYPES.contains(&name.as_str()),
            Value::Array(items) => {
                !items.is_empty() && distinct_strings(items, |n| SIMPLE_TYPES.contains(&n))
            }
            _ => false,
        },
    }
}

/// Every item a string that `allowed` accepts, none twice.
fn distinct_strings(items: &[Value], allowed: impl Fn(&str) -> bool) -> bool {
    let mut seen: Vec<&str> = Vec::with_capacity(items.len());
    for item in items {
        let Some(text) = item.as_str() else {
            return false;
        };
        if !allowed(text) || seen.contains(&text) {
            return false;
        }
        seen.push(text);
    }
    true
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{DIALECT, surely_valid};

    /// What the rule asks the meta-schema (an unknown `$schema` is no
    /// "valid").
    fn meta_valid(schema: &Value) -> bool {
        jsonschema::meta::validator_for(schema).is_ok_and(|v| v.is_valid(schema))
    }

    /// Every keyword the meta-schema names, and one it does not.
    const KEYWORDS: &[&str] = &[
        "$schema",
        "$id",
        "$ref",
        "$anchor",
        "$dynamicRef",
        "$dynamicAnchor",
        "$recursiveRef",
        "$recursiveAnchor",
        "$vocabulary",
        "$comment",
        "$defs",
        "definitions",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
        "dependentSchemas",
        "dependencies",
        "prefixItems",
        "items",
        "contains",
        "properties",
        "patternProperties",
        "additionalProperties",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
        "type",
        "const",
        "enum",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "maxLength",
        "minLength",
        "pattern",
        "maxItems",
        "minItems",
        "uniqueItems",
        "maxContains",
        "minContains",
        "maxProperties",
        "minProperties",
        "required",
        "dependentRequired",
        "format",
        "contentEncoding",
        "contentMediaType",
        "contentSchema",
        "title",
        "description",
        "default",
        "deprecated",
        "readOnly",
        "writeOnly",
        "examples",
        "x-unknown",
    ];

    fn palette() -> Vec<Value> {
        vec![
            json!(null),
            json!(true),
            json!(false),
            json!(0),
            json!(3),
            json!(-1),
            json!(0.0),
            json!(2.0),
            json!(1.5),
            json!(-0.5),
            json!(1e300),
            json!(""),
            json!("string"),
            json!("text"),
            json!("("),
            json!("#/$defs/a"),
            json!([]),
            json!(["string"]),
            json!(["string", "null"]),
            json!(["string", "string"]),
            json!(["a", "b"]),
            json!(["a", 1]),
            json!([{}]),
            json!([{"type": "string"}, true]),
            json!([{"type": 1}]),
            json!({}),
            json!({"type": "string"}),
            json!({"type": "text"}),
            json!({"a": {}}),
            json!({"a": true}),
            json!({"a": 1}),
            json!({"a": {"type": "text"}}),
            json!({"a": ["b"]}),
            json!({"(": {}}),
        ]
    }

    /// Never "surely valid" where the meta-schema says invalid, for every
    /// keyword with every value, at the root and nested in a property.
    #[test]
    fn never_contradicts_the_meta_schema() {
        let mut agreed_valid = 0;
        for keyword in KEYWORDS {
            for value in palette() {
                let mut inner = serde_json::Map::new();
                inner.insert((*keyword).to_string(), value.clone());
                let root = Value::Object(inner.clone());
                let nested = json!({"type": "object", "properties": {"p": Value::Object(inner)}});
                for schema in [root, nested] {
                    let fast = surely_valid(&schema);
                    let meta = meta_valid(&schema);
                    assert!(
                        !fast || meta,
                        "quick check says valid, meta-schema says invalid: {schema}"
                    );
                    agreed_valid += usize::from(fast);
                }
            }
        }
        // It must also be worth having: most valid combinations pass.
        assert!(agreed_valid > 500, "only {agreed_valid} quick passes");
    }

    #[test]
    fn typical_tool_schemas_pass_quickly() {
        let schemas = [
            json!({"type": "object", "properties": {}}),
            json!({"$schema": DIALECT, "type": "object"}),
            json!({"$schema": format!("{DIALECT}#"), "type": "object"}),
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Where", "minLength": 1},
                    "mode": {"type": "string", "enum": ["r", "w"], "default": "r"},
                    "count": {"type": ["integer", "null"], "minimum": 0, "maximum": 10},
                    "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
                    "opts": {
                        "type": "object",
                        "properties": {"deep": {"type": "boolean"}},
                        "additionalProperties": false
                    },
                    "either": {"anyOf": [{"type": "string"}, {"type": "number"}]}
                },
                "required": ["path"],
                "additionalProperties": false,
                "x-vendor": {"anything": [1, 2]}
            }),
        ];
        for schema in schemas {
            assert!(surely_valid(&schema), "{schema}");
            assert!(meta_valid(&schema), "{schema}");
        }
    }

    #[test]
    fn wrong_values_are_left_to_the_meta_schema() {
        for schema in [
            json!({"type": "text"}),
            json!({"required": "url"}),
            json!({"required": ["a", "a"]}),
            json!({"minimum": "1"}),
            json!({"minLength": 1.0}),
            json!({"properties": {"a": 1}}),
            json!({"anyOf": []}),
            json!({"$ref": "#/$defs/a"}),
            json!({"$schema": "http://json-schema.org/draft-07/schema#"}),
            json!({"properties": {"a": {"$schema": DIALECT}}}),
            json!(1),
        ] {
            assert!(!surely_valid(&schema), "{schema}");
        }
    }
}
