//! The parameter schema as every provider JSON emitter starts from it: the
//! tool's schema (or an empty object schema), made an object schema at the
//! root, and [`SchemaNotes`], which turns what a schema pass reports into
//! [`Note`]s pointing into the manifest.

use std::collections::BTreeSet;

use serde_json::Value;

use super::Note;
use crate::diagnostic::Severity;
use crate::ir::{Tool, ToolSet};
use crate::json;
use crate::schema::{Origins, RefGuard, RewriteNotes, flatten_root_unions, merge_all_of};

/// A tool's parameter schema, or an empty object schema when the manifest
/// does not say (the CLI warns about those).
pub(crate) fn parameters_or_empty(tool: &Tool) -> Value {
    tool.parameters
        .as_deref()
        .cloned()
        .unwrap_or_else(crate::formats::no_parameters)
}

/// Collects the notes about one tool's parameter schema. Pointers are given
/// relative to the schema root and stored relative to the manifest (the
/// tool's `parameters_at` in front). Parameters read from code (an
/// AgentStack function, a Nachos class) are not in the manifest: their
/// notes point at the tool's declaration and name the place in the schema
/// (as do those of an empty schema made up for a tool whose parameters are
/// unknown, which has none to speak of). The same note is kept once: an
/// inlined definition repeats the notes of its source.
pub(crate) struct SchemaNotes<'a> {
    path: &'a str,
    base: Base<'a>,
    seen: BTreeSet<(String, String)>,
    notes: Vec<Note>,
}

/// Where a [`SchemaNotes`] points.
enum Base<'a> {
    /// The schema is in the manifest, here.
    InManifest(&'a str),
    /// The schema was read from code; the tool is declared here.
    FromCode(&'a str),
}

impl<'a> SchemaNotes<'a> {
    pub(crate) fn for_tool(set: &'a ToolSet, tool: &'a Tool) -> Self {
        // (convert takes the parameters out of the tool before adapting
        // them: where they were is what counts.)
        let base = match &tool.parameters_at {
            Some(at) => Base::InManifest(at),
            None => Base::FromCode(&tool.origin),
        };
        SchemaNotes {
            path: &set.path,
            base,
            seen: BTreeSet::new(),
            notes: Vec::new(),
        }
    }

    fn push(&mut self, severity: Severity, at: &str, message: String) {
        let (pointer, message) = match self.base {
            Base::InManifest(base) => (format!("{base}{at}"), message),
            Base::FromCode(origin) if at.is_empty() => (
                origin.to_string(),
                format!("(the parameters read from code) {message}"),
            ),
            Base::FromCode(origin) => (
                origin.to_string(),
                format!("(the parameters read from code, at {at}) {message}"),
            ),
        };
        if self.seen.insert((pointer.clone(), message.clone())) {
            self.notes.push(Note {
                path: self.path.to_string(),
                pointer,
                severity,
                message,
            });
        }
    }

    pub(crate) fn into_notes(self) -> Vec<Note> {
        self.notes
    }
}

impl RewriteNotes for SchemaNotes<'_> {
    fn info(&mut self, at: &str, message: impl Into<String>) {
        self.push(Severity::Info, at, message.into());
    }

    fn warning(&mut self, at: &str, message: impl Into<String>) {
        self.push(Severity::Warning, at, message.into());
    }

    fn error(&mut self, at: &str, message: impl Into<String>) {
        self.push(Severity::Error, at, message.into());
    }
}

/// Reports, as errors, the properties of `schema` that say nothing of their
/// type, for a target that refuses them (OpenAI strict mode: every schema
/// needs a `type`) and where no writer can guess one. From Python, such a
/// property is a parameter without a usable hint (`python-type-hint-unknown`
/// says which).
pub(crate) fn require_types(schema: &mut Value, notes: &mut impl RewriteNotes) {
    for (at, name) in crate::schema::untyped_properties(schema) {
        notes.error(
            &at,
            format!(
                "property \"{name}\" has no \"type\" and nothing else says what its values are; \
                 give it one (in Python: a type hint toolc reads)"
            ),
        );
    }
}

/// Every provider wants the parameters to be an object schema: a root
/// without `type` gets `"type": "object"` in front, and a root that is not a
/// JSON object at all (only with `--allow-errors`) is replaced by an empty
/// object schema.
pub(crate) fn ensure_root_object(schema: &mut Value, notes: &mut SchemaNotes) {
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

/// Writes a property schema that is `true` or `false` as the object that
/// means the same (`{}`, `{"not": {}}`): MCP's 2025 schemas, OpenAI's
/// strict normaliser and most clients take property schemas to be objects.
pub(crate) fn properties_as_objects(schema: &mut Value, notes: &mut impl RewriteNotes) {
    let Value::Object(root) = schema else {
        return;
    };
    crate::schema::for_each_subschema_mut(root, "", &mut |node, at| {
        let Some(Value::Object(properties)) = node.get_mut("properties") else {
            return;
        };
        for (name, property) in properties.iter_mut() {
            let Value::Bool(accepts) = *property else {
                continue;
            };
            *property = if accepts {
                Value::Object(serde_json::Map::new())
            } else {
                serde_json::json!({"not": {}})
            };
            notes.info(
                &json::join(&json::join(at, "properties"), name),
                format!("the schema {accepts} is written as the object schema it stands for"),
            );
        }
    });
}

/// Makes the root one object schema, for a provider that refuses `anyOf`,
/// `oneOf` and `allOf` at the root (Anthropic: `input_schema does not
/// support oneOf, allOf, or anyOf at the top level`; OpenAI likewise): an
/// `allOf` is merged, a union flattened, each with a note.
pub(crate) fn one_object_root(schema: &mut Value, notes: &mut impl RewriteNotes) {
    let original = schema.clone();
    if let Value::Object(root) = schema {
        let mut origins = Origins::new();
        let mut guard = RefGuard::new();
        merge_all_of(root, "", 0, &original, &mut guard, &mut origins, notes);
        flatten_root_unions(root, &original, &mut guard, &mut origins, notes);
    }
}

/// Removes what `target` refuses at the root of a parameter schema and no
/// rewrite keeps ([`Target::root_refused`]: OpenAI's root `enum` and
/// `not`), each with a warning that says what is lost. The combinators are
/// [`one_object_root`]'s (or strict mode's).
pub(crate) fn remove_root_refused(
    schema: &mut Value,
    target: crate::providers::Target,
    notes: &mut impl RewriteNotes,
) {
    let Value::Object(root) = schema else {
        return;
    };
    for keyword in target.root_refused() {
        let crate::providers::GenHandling::RemovedLosing(loss) = keyword.when_generating else {
            continue;
        };
        if root.shift_remove(keyword.name).is_some() {
            notes.warning(
                &json::join("", keyword.name),
                format!(
                    "removed the root \"{}\", which {} refuses at the root of the parameters: {loss}",
                    keyword.name,
                    target.display()
                ),
            );
        }
    }
}

/// Puts a schema into JSON Schema 2020-12, the dialect OpenAI and
/// Anthropic read: a `$schema` naming another dialect goes (draft-07's
/// meaning is kept where it differs in spelling: a list of `items` is
/// 2020-12's `prefixItems`, and `additionalItems` its `items`).
pub(crate) fn in_2020_12(schema: &mut Value, provider: &str, notes: &mut impl RewriteNotes) {
    let Value::Object(root) = schema else {
        return;
    };
    if let Some(Value::String(dialect)) = root.get("$schema")
        && !dialect.contains("2020-12")
    {
        let message =
            format!("removed \"$schema\": \"{dialect}\": {provider} reads JSON Schema 2020-12");
        root.shift_remove("$schema");
        notes.info(&json::join("", "$schema"), message);
    }
    crate::schema::for_each_subschema_mut(root, "", &mut |node, at| {
        if matches!(node.get("items"), Some(Value::Array(_))) {
            crate::schema::rename_key(node, "items", "prefixItems");
            crate::schema::rename_key(node, "additionalItems", "items");
            notes.info(
                &json::join(at, "items"),
                "a list of \"items\" is \"prefixItems\" in JSON Schema 2020-12: renamed",
            );
        }
        for (exclusive, bound) in [
            ("exclusiveMaximum", "maximum"),
            ("exclusiveMinimum", "minimum"),
        ] {
            exclusive_bound(node, at, exclusive, bound, notes);
        }
        split_dependencies(node, at, notes);
    });
}

/// Draft-04's `"exclusiveMaximum": true` beside a `maximum` is 2020-12's
/// `"exclusiveMaximum": <the maximum>` (likewise for the minimum); `false`
/// says nothing.
fn exclusive_bound(
    node: &mut serde_json::Map<String, Value>,
    at: &str,
    exclusive: &str,
    bound: &str,
    notes: &mut impl RewriteNotes,
) {
    let Some(Value::Bool(flag)) = node.get(exclusive) else {
        return;
    };
    let flag = *flag;
    node.shift_remove(exclusive);
    if flag && let Some(limit) = node.shift_remove(bound) {
        node.insert(exclusive.to_string(), limit);
    }
    notes.info(
        &json::join(at, exclusive),
        format!(
            "a true or false \"{exclusive}\" (draft-04) is a number in JSON Schema 2020-12: \
             rewritten with \"{bound}\""
        ),
    );
}

/// Draft-07's `dependencies` is two keywords in JSON Schema 2020-12, which
/// ignores it: lists of names go to `dependentRequired`, schemas to
/// `dependentSchemas`.
fn split_dependencies(
    node: &mut serde_json::Map<String, Value>,
    at: &str,
    notes: &mut impl RewriteNotes,
) {
    let Some(Value::Object(dependencies)) = node.shift_remove("dependencies") else {
        return;
    };
    let (mut required, mut schemas) = (serde_json::Map::new(), serde_json::Map::new());
    for (name, dependency) in dependencies {
        match dependency {
            Value::Array(_) => required.insert(name, dependency),
            other => schemas.insert(name, other),
        };
    }
    for (keyword, members) in [
        ("dependentRequired", required),
        ("dependentSchemas", schemas),
    ] {
        if !members.is_empty() {
            node.insert(keyword.to_string(), Value::Object(members));
        }
    }
    notes.info(
        &json::join(at, "dependencies"),
        "\"dependencies\" is \"dependentRequired\" and \"dependentSchemas\" in JSON Schema \
         2020-12: split",
    );
}
