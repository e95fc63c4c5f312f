//! Gemini function declarations: `{"functionDeclarations": [{"name",
//! "description", "parameters"}]}`.
//!
//! Gemini reads `parameters` as its own `Schema` message, a subset of
//! OpenAPI 3.0, and rejects the whole request for anything else. So each
//! schema is converted, node by node: local `$ref`s are inlined (a cycle
//! ends in an object without properties, with a warning), `const` becomes a
//! one-value `enum`, a type list becomes one `type` and `"nullable": true`,
//! `oneOf` becomes `anyOf`, `allOf` is merged, and the keywords Gemini
//! refuses are removed, each with a note at its place in the manifest.
//! Every node leaves with a `type` (or an `anyOf`), which Gemini requires,
//! and with nothing but the fields of Gemini's `Schema` (an unknown name
//! such as `discriminator` fails the request too); a `format` Gemini does
//! not take, an enum of non-strings, `properties` on a non-object and a
//! `required` name that is not a property are removed as well. What Gemini
//! accepts is read from `crate::providers::gemini`, the table toolc's
//! `gemini-*` rules check against.

use serde_json::{Map, Value, json};

use super::parameters::{SchemaNotes, ensure_root_object, parameters_or_empty};
use super::{EmitError, Generated, Note, Options, Schema};
use crate::ir::{Tool, ToolSet};
use crate::json;
use crate::providers::GenHandling;
use crate::providers::gemini::{self, PROPERTY_NAME_MAX_LENGTH};
use crate::schema::{
    NestedRenames, Origins, RefGuard, Refusal, RewriteNotes, merge_all_of, one_of_to_any_of,
    property_at, rename_key, rename_nested_properties, resolve_local_ref,
};

/// `toolc gen gemini`.
pub fn generate(toolsets: &[ToolSet], _options: &Options) -> Result<Generated, EmitError> {
    super::JsonTarget::Gemini.generate(toolsets)
}

/// One function declaration, and the notes about what was changed to make
/// Gemini accept it.
pub(crate) fn declaration(set: &ToolSet, tool: &Tool, schema: Schema) -> (Value, Vec<Note>) {
    let (declaration, notes, _) = declaration_and_renames(set, tool, schema);
    (declaration, notes)
}

/// [`declaration`], and the properties below the top level it renamed
/// (the top-level ones are renamed before, by `JsonTarget::entry_with`).
pub(crate) fn declaration_and_renames(
    set: &ToolSet,
    tool: &Tool,
    schema: Schema,
) -> (Value, Vec<Note>, NestedRenames) {
    let mut sink = SchemaNotes::for_tool(set, tool);
    let mut schema = match schema {
        Schema::Adapted => parameters_or_empty(tool),
        Schema::Adapt(given) => given,
    };
    ensure_root_object(&mut schema, &mut sink);
    let mut parameters = gemini_schema(schema, &mut sink);
    let renames = nested_names(&mut parameters, tool, &mut sink);
    let mut declaration = Map::new();
    declaration.insert("name".into(), Value::String(tool.name.clone()));
    if let Some(description) = &tool.description {
        declaration.insert("description".into(), Value::String(description.clone()));
    }
    // A tool without arguments has no `parameters`: Gemini rejects an
    // object schema whose `properties` is empty ("should be non-empty for
    // OBJECT type"), and the field is optional.
    let has_properties = parameters
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty());
    if has_properties || parameters.get("anyOf").is_some() {
        declaration.insert("parameters".into(), parameters);
    }
    (Value::Object(declaration), sink.into_notes(), renames)
}

/// Gemini's property names are identifiers. The top-level ones were
/// renamed already; those inside them are renamed here, in the converted
/// schema, so that the record of each (its pointer there) names the
/// property as the declaration has it. An info for each, an error for one
/// no identifier can stand for.
fn nested_names(parameters: &mut Value, tool: &Tool, sink: &mut SchemaNotes) -> NestedRenames {
    let Some(rule) = super::JsonTarget::Gemini.parameter_names() else {
        return NestedRenames::default();
    };
    let renames = rename_nested_properties(parameters, rule);
    for rename in &renames.renamed {
        let new = rename.at.rsplit('/').next().unwrap_or_default();
        sink.info(
            &rename.was_at,
            format!(
                "Gemini cannot name the property \"{}\" inside the parameters of tool \"{}\": it \
                 is \"{new}\" there, recorded beside the output (FILE{}) so that the arguments can \
                 be given back as \"{}\"",
                rename.original,
                tool.name,
                crate::formats::carry::SIDECAR_SUFFIX,
                rename.original
            ),
        );
    }
    for at in &renames.refused {
        let name = at.rsplit('/').next().unwrap_or_default();
        sink.error(
            at,
            format!(
                "Gemini can name the property \"{name}\" of tool \"{}\" in no way it takes \
                 (a letter or _, then letters, digits and _, at most {PROPERTY_NAME_MAX_LENGTH} \
                 characters)",
                tool.name
            ),
        );
    }
    renames
}

/// `schema` in Gemini's subset.
fn gemini_schema(schema: Value, notes: &mut SchemaNotes) -> Value {
    let original = schema.clone();
    let mut conversion = Conversion {
        root: &original,
        guard: RefGuard::new(),
        notes,
    };
    conversion.convert(schema, "", 0)
}

struct Conversion<'r, 'n, 'a> {
    /// The schema as it was, for following `$ref`s.
    root: &'r Value,
    guard: RefGuard,
    notes: &'n mut SchemaNotes<'a>,
}

impl Conversion<'_, '_, '_> {
    /// Converts the subschema at `at` (a pointer relative to the schema
    /// root), `depth` levels of JSON nesting below the root.
    fn convert(&mut self, schema: Value, at: &str, depth: usize) -> Value {
        match schema {
            Value::Object(node) => self.convert_object(node, at, depth),
            // `true`, `false` or not a schema: nothing Gemini can say, so the
            // node is typed below like any other node without a type.
            _ => self.convert_object(Map::new(), at, depth),
        }
    }

    fn convert_object(&mut self, mut node: Map<String, Value>, at: &str, depth: usize) -> Value {
        let mut origins = Origins::new();
        let entered = merge_all_of(
            &mut node,
            at,
            depth,
            self.root,
            &mut self.guard,
            &mut origins,
            self.notes,
        );
        let converted = match node.shift_remove("$ref") {
            Some(reference) => self.inline(node, reference, at, depth),
            None => self.convert_node(node, at, depth, &origins),
        };
        self.guard.leave(entered);
        converted
    }

    fn convert_node(
        &mut self,
        mut node: Map<String, Value>,
        at: &str,
        depth: usize,
        origins: &Origins,
    ) -> Value {
        self.const_to_enum(&mut node, at);
        self.type_list(&mut node, at);
        let union = one_of_to_any_of(&mut node, at, self.notes, "Gemini");
        self.enum_values(&mut node, at);
        self.remove_rejected(&mut node, at);
        self.remove_unknown(&mut node, at);
        self.children(&mut node, at, origins, depth, union);
        self.null_branches(&mut node, at);
        self.array_items(&mut node, at);
        self.infer_type(&mut node, at);
        self.format(&mut node, at);
        self.object_keywords(&mut node, at);
        Value::Object(node)
    }

    /// Replaces a `$ref` by the converted definition it points to, with the
    /// node's other keywords on top; a cycle, a reference outside the
    /// schema, or one that would make the schema too large does not.
    fn inline(
        &mut self,
        node: Map<String, Value>,
        reference: Value,
        at: &str,
        depth: usize,
    ) -> Value {
        let ref_at = json::join(at, "$ref");
        let Some(reference) = reference.as_str().map(str::to_string) else {
            self.notes.warning(
                &ref_at,
                format!("removed \"$ref\": {reference}, which is not a reference"),
            );
            return self.convert_object(node, at, depth);
        };
        let root = self.root;
        let (target, target_at) = match self.guard.enter(root, &reference, depth) {
            Ok(found) => found,
            Err(Refusal::NotLocal) => {
                self.notes.warning(
                    &ref_at,
                    format!(
                        "removed \"$ref\": \"{reference}\", which does not point into the schema \
                         (Gemini has no references, and only those can be inlined)"
                    ),
                );
                return self.convert_object(node, at, depth);
            }
            Err(refusal) => {
                let why = if refusal == Refusal::Cycle {
                    "refers to a schema that contains it"
                } else {
                    "would make the schema too large to inline"
                };
                self.notes.warning(
                    &ref_at,
                    format!(
                        "\"$ref\": \"{reference}\" {why}; Gemini has no references, so here it \
                         is an object without declared properties"
                    ),
                );
                return placeholder(&node, root, &reference);
            }
        };
        self.notes.info(
            &ref_at,
            format!("inlined \"$ref\": \"{reference}\" (Gemini has no references)"),
        );
        let mut merged = match target {
            Value::Object(definition) => definition.clone(),
            _ => Map::new(),
        };
        for (key, value) in node {
            merged.insert(key, value);
        }
        let converted = self.convert_object(merged, &target_at, depth);
        self.guard.leave(1);
        converted
    }

    fn const_to_enum(&mut self, node: &mut Map<String, Value>, at: &str) {
        let Some(value) = node.get("const").cloned() else {
            return;
        };
        node.shift_remove("enum");
        rename_key(node, "const", "enum");
        node.insert("enum".into(), Value::Array(vec![value]));
        self.notes.info(
            &json::join(at, "const"),
            "\"const\" became a one-value \"enum\" (Gemini has no \"const\")",
        );
    }

    /// `["T", "null"]` → `"type": "T", "nullable": true`; several types
    /// become an `anyOf` of one branch per type.
    fn type_list(&mut self, node: &mut Map<String, Value>, at: &str) {
        let Some(Value::Array(types)) = node.get("type") else {
            return;
        };
        let listed = Value::Array(types.clone());
        let nullable = types.iter().any(|t| t == "null");
        let others: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        let type_at = json::join(at, "type");
        match others.as_slice() {
            [] => {
                node.insert("type".into(), Value::String("null".into()));
            }
            [one] => {
                node.insert("type".into(), one.clone());
                if nullable {
                    set_nullable(node);
                }
                self.notes.info(
                    &type_at,
                    format!(
                        "the type list {listed} became \"type\": {one}{} (Gemini takes one type)",
                        if nullable { ", \"nullable\": true" } else { "" }
                    ),
                );
            }
            _ if node.contains_key("anyOf") => {
                node.shift_remove("type");
                self.notes.warning(
                    &type_at,
                    format!(
                        "removed the type list {listed} beside an \"anyOf\" (Gemini takes one type)"
                    ),
                );
            }
            _ => {
                let branches = others.iter().map(|t| json!({"type": t})).collect();
                rename_key(node, "type", "anyOf");
                node.insert("anyOf".into(), Value::Array(branches));
                if nullable {
                    set_nullable(node);
                }
                self.notes.info(
                    &type_at,
                    format!("the type list {listed} became an \"anyOf\" of one branch per type (Gemini takes one type)"),
                );
            }
        }
    }

    /// Gemini's enum values are strings: a `null` among them becomes
    /// `"nullable": true`, and an enum of other values is dropped, its
    /// values listed in the description.
    fn enum_values(&mut self, node: &mut Map<String, Value>, at: &str) {
        let enum_at = json::join(at, "enum");
        let Some(Value::Array(values)) = node.get_mut("enum") else {
            if node.shift_remove("enum").is_some() {
                self.notes
                    .warning(&enum_at, "removed \"enum\": it is not an array");
            }
            return;
        };
        if values.contains(&Value::Null) {
            values.retain(|v| !v.is_null());
            set_nullable(node);
            self.notes.info(
                &enum_at,
                "the enum's null became \"nullable\": true (Gemini's enum values are strings)",
            );
        }
        let Some(Value::Array(values)) = node.get("enum") else {
            return;
        };
        if values.iter().all(Value::is_string) && !values.is_empty() {
            return;
        }
        let listed: Vec<String> = values.iter().map(Value::to_string).collect();
        node.shift_remove("enum");
        if listed.is_empty() {
            return;
        }
        let listed = listed.join(", ");
        let sentence = format!("One of: {listed}.");
        let description = match node.get("description").and_then(Value::as_str) {
            Some(text) if !text.is_empty() => format!("{text} {sentence}"),
            _ => sentence,
        };
        node.insert("description".into(), Value::String(description));
        self.notes.warning(
            &enum_at,
            format!(
                "removed the enum [{listed}] (Gemini's enum values are strings only): the values \
                 are listed in the description, and no longer checked"
            ),
        );
    }

    fn remove_rejected(&mut self, node: &mut Map<String, Value>, at: &str) {
        if let Some(additional) = node.shift_remove("additionalProperties") {
            let additional_at = json::join(at, "additionalProperties");
            if additional == Value::Bool(false) {
                self.notes.info(
                    &additional_at,
                    "removed \"additionalProperties\": false (Gemini does not accept it; its \
                     objects have the declared properties)",
                );
            } else {
                self.notes.warning(
                    &additional_at,
                    "removed \"additionalProperties\" (Gemini does not accept it): keys beyond \
                     the declared properties can no longer be described",
                );
            }
        }
        if let Some(Value::Array(_)) = node.get("items") {
            node.shift_remove("items");
            self.notes.warning(
                &json::join(at, "items"),
                "removed the list of \"items\" schemas (Gemini takes one items schema): the \
                 position of each item is no longer described",
            );
        }
        // The others are rewritten by steps of their own.
        let removed = gemini::REJECTED
            .iter()
            .filter_map(|k| match k.when_generating {
                GenHandling::Removed => Some((k.name, None)),
                GenHandling::RemovedLosing(loss) => Some((k.name, Some(loss))),
                GenHandling::Rewritten => None,
            });
        for (keyword, loss) in removed {
            if node.shift_remove(keyword).is_none() {
                continue;
            }
            let keyword_at = json::join(at, keyword);
            match loss {
                None if keyword.contains("def") => self.notes.info(
                    &keyword_at,
                    format!(
                        "removed \"{keyword}\": its definitions are inlined where they are used"
                    ),
                ),
                None => self.notes.info(
                    &keyword_at,
                    format!("removed \"{keyword}\", which Gemini does not accept"),
                ),
                Some(loss) => self.notes.warning(
                    &keyword_at,
                    format!("removed \"{keyword}\", which Gemini does not accept: {loss}"),
                ),
            }
        }
    }

    /// Removes what is not a field of Gemini's `Schema` message, which
    /// Gemini refuses as an unknown name (`discriminator`, `x-*`, `$id`,
    /// `contains`, ...), after the known keywords are handled.
    fn remove_unknown(&mut self, node: &mut Map<String, Value>, at: &str) {
        let unknown: Vec<String> = node
            .keys()
            .filter(|k| !gemini::SCHEMA_FIELDS.contains(&k.as_str()))
            .cloned()
            .collect();
        for keyword in unknown {
            node.shift_remove(&keyword);
            self.notes.warning(
                &json::join(at, &keyword),
                format!("removed \"{keyword}\", which is not a field of Gemini's schema"),
            );
        }
    }

    /// Converts the properties, the items schema and the union branches
    /// (under `union` in the manifest).
    fn children(
        &mut self,
        node: &mut Map<String, Value>,
        at: &str,
        origins: &Origins,
        depth: usize,
        union: &str,
    ) {
        for (keyword, value) in node.iter_mut() {
            match (keyword.as_str(), value) {
                ("properties", Value::Object(properties)) => {
                    for (name, property) in properties.iter_mut() {
                        let converted = self.convert(
                            std::mem::take(property),
                            &property_at(at, origins, name),
                            depth + 2,
                        );
                        *property = converted;
                    }
                }
                ("items", item @ Value::Object(_)) => {
                    let converted =
                        self.convert(std::mem::take(item), &json::join(at, "items"), depth + 1);
                    *item = converted;
                }
                ("anyOf", Value::Array(branches)) => {
                    let any_of_at = json::join(at, union);
                    for (i, branch) in branches.iter_mut().enumerate() {
                        let converted = self.convert(
                            std::mem::take(branch),
                            &json::join(&any_of_at, i),
                            depth + 2,
                        );
                        *branch = converted;
                    }
                }
                _ => {}
            }
        }
    }

    /// `{"type": "null"}` branches of an `anyOf` become `"nullable": true`;
    /// a single branch left over is merged into the node.
    fn null_branches(&mut self, node: &mut Map<String, Value>, at: &str) {
        let Some(Value::Array(branches)) = node.get("anyOf") else {
            return;
        };
        let is_null = |b: &Value| b.get("type").is_some_and(|t| t == "null");
        if !branches.iter().any(is_null) {
            return;
        }
        let others: Vec<Value> = branches.iter().filter(|b| !is_null(b)).cloned().collect();
        let any_of_at = json::join(at, "anyOf");
        match <[Value; 1]>::try_from(others) {
            Ok([Value::Object(only)]) => {
                node.shift_remove("anyOf");
                for (key, value) in only {
                    node.entry(key).or_insert(value);
                }
                self.notes.info(
                    &any_of_at,
                    "an \"anyOf\" of one schema and null became that schema with \"nullable\": true",
                );
            }
            Ok([other]) => {
                node.insert("anyOf".into(), Value::Array(vec![other]));
            }
            Err(others) if others.is_empty() => {
                node.shift_remove("anyOf");
                node.insert("type".into(), Value::String("null".into()));
            }
            Err(others) => {
                node.insert("anyOf".into(), Value::Array(others));
                self.notes.info(
                    &any_of_at,
                    "the \"anyOf\" branch {\"type\": \"null\"} became \"nullable\": true",
                );
            }
        }
        set_nullable(node);
    }

    /// Gemini refuses an array schema without `items` schema (a boolean
    /// `items` is no schema to Gemini either).
    fn array_items(&mut self, node: &mut Map<String, Value>, at: &str) {
        if !node.get("type").is_some_and(|t| t == "array") {
            return;
        }
        match node.get("items") {
            Some(Value::Object(_)) => {}
            Some(other) => {
                let was = other.to_string();
                node.insert("items".into(), json!({"type": "string"}));
                self.notes.warning(
                    &json::join(at, "items"),
                    format!(
                        "\"items\": {was} is no schema Gemini accepts: declared as an array of strings"
                    ),
                );
            }
            None => {
                node.insert("items".into(), json!({"type": "string"}));
                self.notes.warning(
                    at,
                    "this array schema has no \"items\", which Gemini requires: declared as an \
                     array of strings",
                );
            }
        }
    }

    /// Gives a node without `type` (and without `anyOf`) the type its
    /// keywords imply, or `string` with a warning.
    fn infer_type(&mut self, node: &mut Map<String, Value>, at: &str) {
        let union_without_properties =
            node.contains_key("anyOf") && !node.contains_key("properties");
        if node.contains_key("type") || union_without_properties {
            return;
        }
        let type_at = json::join(at, "type");
        let (kind, why) = if node.contains_key("enum") {
            ("string", "its enum values are strings")
        } else if node.contains_key("properties") {
            ("object", "it has properties")
        } else if node.contains_key("items") {
            ("array", "it has items")
        } else {
            node.shift_insert(0, "type".into(), Value::String("string".into()));
            self.notes.warning(
                &type_at,
                "this schema has no \"type\", which Gemini requires on every schema: declared \
                 as a string (say in the description what the value is)",
            );
            return;
        };
        node.shift_insert(0, "type".into(), Value::String(kind.into()));
        self.notes.info(
            &type_at,
            format!("added \"type\": \"{kind}\" ({why}; Gemini requires a type)"),
        );
    }

    /// Gemini accepts few formats (`only 'enum' and 'date-time' are
    /// supported for STRING type`); another is removed.
    fn format(&mut self, node: &mut Map<String, Value>, at: &str) {
        let Some(format) = node.get("format") else {
            return;
        };
        let accepted = gemini::formats_for(node.get("type").and_then(Value::as_str));
        if format.as_str().is_some_and(|f| accepted.contains(&f)) {
            return;
        }
        let message = format!(
            "removed \"format\": {format}, which Gemini does not accept here; say in the \
             description what the value holds"
        );
        node.shift_remove("format");
        self.notes.warning(&json::join(at, "format"), message);
    }

    /// Gemini takes `properties` and `required` on object schemas only
    /// (`only allowed for OBJECT type`), and a required name must be a
    /// declared property.
    fn object_keywords(&mut self, node: &mut Map<String, Value>, at: &str) {
        if !node.get("type").is_some_and(|t| t == "object") {
            for keyword in ["properties", "required"] {
                if node.shift_remove(keyword).is_some() {
                    self.notes.warning(
                        &json::join(at, keyword),
                        format!("removed \"{keyword}\", which Gemini takes on object schemas only"),
                    );
                }
            }
            return;
        }
        let declared: Vec<String> = match node.get("properties") {
            Some(Value::Object(properties)) => properties.keys().cloned().collect(),
            _ => Vec::new(),
        };
        let Some(Value::Array(required)) = node.get_mut("required") else {
            return;
        };
        let unknown: Vec<Value> = required
            .iter()
            .filter(|name| {
                !name
                    .as_str()
                    .is_some_and(|n| declared.iter().any(|d| d == n))
            })
            .cloned()
            .collect();
        required.retain(|name| !unknown.contains(name));
        if required.is_empty() {
            node.shift_remove("required");
        }
        for name in unknown {
            self.notes.warning(
                &json::join(at, "required"),
                format!("removed {name} from \"required\": it is not a declared property, which Gemini refuses"),
            );
        }
    }
}

/// What stands for a reference that is not inlined: an object, described.
fn placeholder(node: &Map<String, Value>, root: &Value, reference: &str) -> Value {
    let target = resolve_local_ref(root, reference).map(|(target, _)| target);
    let description = node
        .get("description")
        .or_else(|| target.and_then(|t| t.get("description")))
        .cloned()
        .unwrap_or_else(|| Value::String(format!("See {reference} (recursive; not expanded).")));
    json!({"type": "object", "description": description})
}

/// Sets `"nullable": true`, right after `type` when there is one.
fn set_nullable(node: &mut Map<String, Value>) {
    if let Some(flag) = node.get_mut("nullable") {
        *flag = Value::Bool(true);
        return;
    }
    let index = node
        .keys()
        .position(|k| k == "type")
        .map_or(node.len(), |i| i + 1);
    node.shift_insert(index, "nullable".into(), Value::Bool(true));
}
