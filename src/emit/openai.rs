//! OpenAI function tools: `[{"type": "function", "function": {...}}]`, and
//! the Responses API's `[{"type": "function", "name", ..., "strict"}]`.
//!
//! With `--strict`, each function gets `"strict": true` and its parameters
//! are rewritten into the subset of JSON Schema that strict mode
//! (Structured Outputs) accepts, the subset toolc's own `strict-*` rules
//! check: every object is closed (`"additionalProperties": false`), every
//! property is required and an optional one may be null instead, `oneOf`
//! becomes `anyOf`, `allOf` is merged, a union at the root is flattened, and
//! what strict mode rejects outright (`not`, `if`, `patternProperties`, an
//! unsupported `format`, ...) is removed. Every change is a note at the
//! place in the manifest it concerns; the size limits of strict mode
//! (`strict-limits`) are not something a rewrite can meet, and stay lint's.

use serde_json::{Map, Value, json};

use super::parameters::{
    SchemaNotes, ensure_root_object, in_2020_12, one_object_root, parameters_or_empty,
    properties_as_objects, remove_root_refused, require_types,
};
use super::{EmitError, Generated, Note, Options, Schema};
use crate::ir::{Tool, ToolSet};
use crate::json;
use crate::providers::openai::{STRICT_FORMATS, STRICT_REJECTED};
use crate::providers::{GenHandling, Target};
use crate::schema::{
    Origins, RefGuard, Refusal, RewriteNotes, flatten_root_unions, for_each_subschema_mut,
    is_object_schema, merge_all_of, one_of_to_any_of, property_at,
};

/// The OpenAI tools array for every tool of `toolsets`, in order, as
/// written without `--strict`. Tools whose parameters are unknown get an
/// empty object schema.
pub fn tools(toolsets: &[ToolSet]) -> Value {
    let entries = super::tools(toolsets)
        .map(|(set, tool)| entry(set, tool, false, Schema::Adapted).0)
        .collect();
    Value::Array(entries)
}

/// `toolc gen openai`.
pub fn generate(toolsets: &[ToolSet], options: &Options) -> Result<Generated, EmitError> {
    super::JsonTarget::Openai {
        strict: options.strict,
    }
    .generate(toolsets)
}

/// One tool's `{"type": "function", "function": {...}}`, and the notes
/// about what was changed to make OpenAI accept it.
pub(crate) fn entry(
    set: &ToolSet,
    tool: &Tool,
    strict: bool,
    schema: Schema,
) -> (Value, Vec<Note>) {
    let mut sink = SchemaNotes::for_tool(set, tool);
    let mut parameters = match schema {
        Schema::Adapt(given) => given,
        Schema::Adapted => parameters_or_empty(tool),
    };
    ensure_root_object(&mut parameters, &mut sink);
    properties_as_objects(&mut parameters, &mut sink);
    in_2020_12(&mut parameters, Target::Openai.display(), &mut sink);
    if strict {
        require_types(&mut parameters, &mut sink);
        parameters = strict_schema(parameters, &mut sink);
    } else {
        if Target::Openai.rejects_root_combinators() {
            one_object_root(&mut parameters, &mut sink);
        }
        if let Value::Object(root) = &mut parameters {
            declare_array_items(root, &mut sink);
        }
    }
    // After the combinators are merged or flattened: a branch may have
    // brought one of these to the root.
    remove_root_refused(&mut parameters, Target::Openai, &mut sink);
    let mut function = Map::new();
    function.insert("name".into(), Value::String(tool.name.clone()));
    if let Some(description) = &tool.description {
        function.insert("description".into(), Value::String(description.clone()));
    }
    function.insert("parameters".into(), parameters);
    if strict {
        function.insert("strict".into(), Value::Bool(true));
    } else if let Some(flag) = tool
        .extra
        .extensions
        .get("strict")
        .filter(|s| s.is_boolean())
    {
        function.insert("strict".into(), flag.clone());
    }
    (
        json!({"type": "function", "function": function}),
        sink.into_notes(),
    )
}

/// One tool's Responses API entry, `{"type": "function", "name",
/// "description", "parameters", "strict"}`: the function of [`entry`]
/// without its wrapper, with the same schema and notes. `strict` is always
/// written, since a Responses tool without it is strict
/// ([`crate::providers::openai::RESPONSES_STRICT_BY_DEFAULT`]): `true` with `--strict`, otherwise
/// what the manifest said, else `false` (the schema was not made strict).
pub(crate) fn responses_entry(
    set: &ToolSet,
    tool: &Tool,
    strict: bool,
    schema: Schema,
) -> (Value, Vec<Note>) {
    let (chat, notes) = entry(set, tool, strict, schema);
    let mut flat = Map::new();
    flat.insert("type".into(), Value::String("function".into()));
    if let Value::Object(mut chat) = chat
        && let Some(Value::Object(function)) = chat.shift_remove("function")
    {
        flat.extend(function);
    }
    // Unsaid, strict would be on (`RESPONSES_STRICT_BY_DEFAULT`) for a
    // schema not made strict: said `false` instead.
    let said = tool.extra.extensions.get("strict").and_then(Value::as_bool);
    let written = strict || said.unwrap_or(false);
    flat.insert("strict".into(), Value::Bool(written));
    (Value::Object(flat), notes)
}

/// Gives every array schema without `items` (or `prefixItems`) an items
/// schema of strings: OpenAI rejects the array otherwise, strict mode or
/// not ([`Target::requires_array_items`]).
fn declare_array_items(root: &mut Map<String, Value>, notes: &mut SchemaNotes) {
    if !Target::Openai.requires_array_items() {
        return;
    }
    for_each_subschema_mut(root, "", &mut |node, at| {
        if is_array_schema(node) && !node.contains_key("items") && !node.contains_key("prefixItems")
        {
            node.insert("items".into(), json!({"type": "string"}));
            notes.warning(&json::join(at, "items"), NO_ITEMS);
        }
    });
}

const NO_ITEMS: &str =
    "this array schema has no \"items\", which OpenAI requires: declared as an array of strings";

fn is_array_schema(node: &Map<String, Value>) -> bool {
    match node.get("type") {
        Some(Value::String(t)) => t == "array",
        Some(Value::Array(types)) => types.iter().any(|t| t == "array"),
        _ => false,
    }
}

/// `schema` in strict mode's subset.
fn strict_schema(mut schema: Value, notes: &mut SchemaNotes) -> Value {
    let original = schema.clone();
    let mut rewrite = StrictRewrite {
        root: &original,
        guard: RefGuard::new(),
        notes,
    };
    rewrite.node(&mut schema, "", 0);
    schema
}

struct StrictRewrite<'r, 'n, 'a> {
    /// The schema as it was, for following `$ref`s of `allOf` branches.
    root: &'r Value,
    guard: RefGuard,
    notes: &'n mut SchemaNotes<'a>,
}

impl StrictRewrite<'_, '_, '_> {
    /// Rewrites the subschema at `at` (a pointer relative to the schema
    /// root), `depth` levels of JSON nesting below the root.
    fn node(&mut self, node: &mut Value, at: &str, depth: usize) {
        let Value::Object(node) = node else {
            return;
        };
        let mut origins = Origins::new();
        let entered = merge_all_of(
            node,
            at,
            depth,
            self.root,
            &mut self.guard,
            &mut origins,
            self.notes,
        );
        if depth == 0 && Target::OpenaiStrict.rejects_root_combinators() {
            flatten_root_unions(node, self.root, &mut self.guard, &mut origins, self.notes);
        }
        let inlined = self.inline_ref_with_siblings(node, at, depth);
        if node.get("default").is_some_and(Value::is_null) {
            node.shift_remove("default");
            self.notes.info(
                &json::join(at, "default"),
                "removed \"default\": null (strict mode lets the property be null instead)",
            );
        }
        self.remove_rejected(node, at);
        self.array_items(node, at);
        let union = one_of_to_any_of(node, at, self.notes, "strict mode");
        self.children(node, at, depth, &origins, union);
        // After the subschemas: a property is made nullable once its own
        // `allOf` and `oneOf` are rewritten.
        self.close(node, at, depth, &origins);
        self.guard.leave(entered + inlined);
    }

    /// Strict mode takes a `$ref` only alone: a reference with other
    /// keywords beside it (a description, a default) is replaced by the
    /// definition it points to, the keywords beside it winning, as OpenAI's
    /// own SDKs normalise it. Returns how many references it entered.
    fn inline_ref_with_siblings(
        &mut self,
        node: &mut Map<String, Value>,
        at: &str,
        depth: usize,
    ) -> usize {
        // A definition may itself be a reference beside other keywords:
        // followed until none is left (the guard stops a cycle).
        let mut entered = 0;
        while self.inline_one_ref(node, at, depth) {
            entered += 1;
        }
        entered
    }

    /// One step of [`Self::inline_ref_with_siblings`]: whether a reference
    /// beside other keywords was inlined (not when there is none, nor when
    /// it cannot be, which is an error).
    fn inline_one_ref(&mut self, node: &mut Map<String, Value>, at: &str, depth: usize) -> bool {
        let Some(Value::String(reference)) = node.get("$ref") else {
            return false;
        };
        if node.len() == 1 {
            return false;
        }
        let reference = reference.clone();
        match self.guard.enter(self.root, &reference, depth) {
            Ok((Value::Object(definition), _)) => {
                node.shift_remove("$ref");
                for (key, value) in definition {
                    if !node.contains_key(key) {
                        node.insert(key.clone(), value.clone());
                    }
                }
                self.notes.info(
                    &json::join(at, "$ref"),
                    format!(
                        "inlined \"$ref\": \"{reference}\" (strict mode takes a reference only \
                         without other keywords beside it)"
                    ),
                );
                true
            }
            Ok(_) => {
                self.guard.leave(1);
                false
            }
            Err(refusal) => {
                let refusal = match refusal {
                    Refusal::NotLocal => "it is not a reference into this schema",
                    Refusal::Cycle => "the definition refers to itself",
                    Refusal::TooLarge => "copying it would make the schema too large",
                };
                self.notes.error(
                    &json::join(at, "$ref"),
                    format!(
                        "strict mode takes \"$ref\": \"{reference}\" only without other keywords \
                         beside it, and it cannot be inlined ({refusal}); move the other keywords \
                         into the definition"
                    ),
                );
                false
            }
        }
    }

    /// OpenAI rejects an array schema without an `items` schema.
    fn array_items(&mut self, node: &mut Map<String, Value>, at: &str) {
        if !is_array_schema(node) || node.get("items").is_some_and(Value::is_object) {
            return;
        }
        let was = node.insert("items".into(), json!({"type": "string"}));
        let message = match was {
            Some(value) => format!(
                "\"items\": {value} is no schema OpenAI accepts: declared as an array of strings"
            ),
            None => NO_ITEMS.to_string(),
        };
        self.notes.warning(&json::join(at, "items"), message);
    }

    fn remove_rejected(&mut self, node: &mut Map<String, Value>, at: &str) {
        // `allOf` and `oneOf` are rewritten by their own steps.
        let removed = STRICT_REJECTED
            .iter()
            .filter_map(|k| match k.when_generating {
                GenHandling::RemovedLosing(loss) => Some((k.name, loss)),
                GenHandling::Removed | GenHandling::Rewritten => None,
            });
        for (keyword, loss) in removed {
            if node.shift_remove(keyword).is_some() {
                self.notes.warning(
                    &json::join(at, keyword),
                    format!("removed \"{keyword}\", which OpenAI strict mode rejects: {loss}"),
                );
            }
        }
        if let Some(Value::String(format)) = node.get("format")
            && !STRICT_FORMATS.contains(&format.as_str())
        {
            let message = format!(
                "removed \"format\": \"{format}\", which OpenAI strict mode does not support; \
                 say in the description what the string holds"
            );
            node.shift_remove("format");
            self.notes.warning(&json::join(at, "format"), message);
        }
    }

    /// Rewrites every subschema below `node`: properties, items, union
    /// branches (under `union` in the manifest) and definitions. (An
    /// `additionalProperties` schema goes.)
    fn children(
        &mut self,
        node: &mut Map<String, Value>,
        at: &str,
        depth: usize,
        origins: &Origins,
        union: &str,
    ) {
        for (keyword, value) in node.iter_mut() {
            let source = if keyword == "anyOf" {
                union
            } else {
                keyword.as_str()
            };
            let keyword_at = json::join(at, source);
            match (keyword.as_str(), value) {
                ("properties", Value::Object(properties)) => {
                    for (name, property) in properties.iter_mut() {
                        self.node(property, &property_at(at, origins, name), depth + 2);
                    }
                }
                ("$defs" | "definitions", Value::Object(definitions)) => {
                    for (name, definition) in definitions.iter_mut() {
                        self.node(definition, &json::join(&keyword_at, name), depth + 2);
                    }
                }
                ("items", item @ Value::Object(_)) => self.node(item, &keyword_at, depth + 1),
                ("items" | "prefixItems" | "anyOf", Value::Array(list)) => {
                    for (i, item) in list.iter_mut().enumerate() {
                        self.node(item, &json::join(&keyword_at, i), depth + 2);
                    }
                }
                _ => {}
            }
        }
    }

    /// Closes an object schema and requires all its properties, letting the
    /// ones that were optional be null.
    fn close(&mut self, node: &mut Map<String, Value>, at: &str, depth: usize, origins: &Origins) {
        if !is_object_schema(node) {
            return;
        }
        let additional_at = json::join(at, "additionalProperties");
        let declares_properties = node.contains_key("properties");
        match node.get("additionalProperties") {
            Some(Value::Bool(false)) => {}
            // An object of free keys (a `Dict[str, int]`, a bare `dict`)
            // closed would accept only `{}`: strict mode cannot express it.
            Some(open) if !declares_properties && *open != json!(false) => {
                self.notes.error(
                    &additional_at,
                    "strict mode cannot express an object of free keys: closed, as strict mode \
                     requires, it would accept only {}; declare its properties, or generate \
                     without --strict",
                );
                node.insert("additionalProperties".into(), Value::Bool(false));
            }
            None if !declares_properties && depth > 0 => {
                self.notes.error(
                    at,
                    "strict mode cannot express an object without declared properties: closed, \
                     as strict mode requires, it would accept only {}; declare its properties, \
                     or generate without --strict",
                );
                node.insert("additionalProperties".into(), Value::Bool(false));
            }
            None => {
                node.insert("additionalProperties".into(), Value::Bool(false));
                self.notes.info(
                    at,
                    "added \"additionalProperties\": false (strict mode accepts closed objects only)",
                );
            }
            Some(_) => {
                node.insert("additionalProperties".into(), Value::Bool(false));
                self.notes.warning(
                    &additional_at,
                    "\"additionalProperties\" became false (strict mode accepts closed objects \
                     only): keys other than the declared properties are no longer accepted",
                );
            }
        }
        let names: Vec<String> = match node.get("properties") {
            Some(Value::Object(properties)) => properties.keys().cloned().collect(),
            _ => return,
        };
        // Every property, in the order of `properties` (as OpenAI's SDKs
        // write it), then any other name the manifest listed.
        let listed: Vec<Value> = match node.get("required") {
            Some(Value::Array(required)) => required.clone(),
            _ => Vec::new(),
        };
        let mut required: Vec<Value> = names.iter().map(|n| Value::String(n.clone())).collect();
        required.extend(
            listed
                .iter()
                .filter(|n| !required.contains(n))
                .cloned()
                .collect::<Vec<_>>(),
        );
        for name in names {
            if listed.contains(&Value::String(name.clone())) {
                continue;
            }
            if let Some(Value::Object(properties)) = node.get_mut("properties")
                && let Some(property) = properties.get_mut(&name)
            {
                make_nullable(property);
            }
            self.notes.info(
                &property_at(at, origins, &name),
                format!(
                    "property \"{name}\" was optional: it is now required and may be null \
                     (strict mode requires every property)"
                ),
            );
        }
        node.insert("required".into(), Value::Array(required));
    }
}

/// Lets `null` through a property schema: a `null` in its type (and its
/// enum), a `{"type": "null"}` branch in its union, or, for a `$ref` or a
/// `const`, a union of the schema and null. A schema without a type
/// accepts null already.
fn make_nullable(property: &mut Value) {
    let Value::Object(schema) = property else {
        return;
    };
    let null = Value::String("null".into());
    if schema.contains_key("$ref") || schema.contains_key("const") {
        let description = schema.shift_remove("description");
        let inner = std::mem::take(schema);
        if let Some(description) = description {
            schema.insert("description".into(), description);
        }
        schema.insert(
            "anyOf".into(),
            json!([Value::Object(inner), {"type": "null"}]),
        );
        return;
    }
    match schema.get_mut("type") {
        Some(Value::String(kind)) if *kind == "null" => {}
        Some(kind @ Value::String(_)) => *kind = Value::Array(vec![kind.clone(), null]),
        Some(Value::Array(kinds)) => {
            if !kinds.contains(&null) {
                kinds.push(null);
            }
        }
        _ => {
            if let Some(Value::Array(branches)) = schema.get_mut("anyOf")
                && !branches.iter().any(accepts_null)
            {
                branches.push(json!({"type": "null"}));
            }
        }
    }
    if let Some(Value::Array(values)) = schema.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
}

fn accepts_null(branch: &Value) -> bool {
    match branch.get("type") {
        Some(Value::String(kind)) => kind == "null",
        Some(Value::Array(kinds)) => kinds.iter().any(|k| k == "null"),
        _ => false,
    }
}
