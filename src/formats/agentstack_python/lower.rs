//! Type hints and defaults to JSON Schema, as pydantic spells them for
//! input validation (`model_json_schema()`, validation mode), with the
//! classes of the package inlined where pydantic would use `$defs`/`$ref`:
//!
//! - `Optional[X]`, `X | None`: `anyOf: [X, {"type": "null"}]`;
//! - `datetime`, `date`, `time`, `timedelta`, `UUID`, `Path`, `bytes`:
//!   strings with their `format`; `Decimal`: a number or a string;
//! - `Enum` classes of the package: `enum` of their values, with the type
//!   they share and the class docstring as `description`;
//! - `TypedDict`, dataclass and `BaseModel` classes of the package: object
//!   schemas of their annotated fields, the docstring as `description`;
//!   with `use_attribute_docstrings` in the class's `__pydantic_config__`
//!   or `model_config`, the string after a field as its `description`;
//! - `Annotated[T, Field(...)]` and `= Field(...)`: constraints (`ge` →
//!   `minimum`, `min_length` → `minLength` or `minItems`, ...), `default`,
//!   `description`.
//!
//! What cannot be derived from the text (a class from another module, a
//! default computed by a call, metadata other than `Field`) is listed in
//! [`Lowering::lost`], for `python-type-hint-unknown`.

use serde_json::{Map, Value, json};

use super::hints::{Hint, parse_hint};
use super::syntax::{Expr, parse_expr};
use crate::python::{Class, Module};

/// How many class schemas one function may inline: nested classes that
/// each use another twice would otherwise grow the schema exponentially.
const MAX_INLINED_CLASSES: usize = 256;

/// Lowers the hints and defaults of one function, with its module's
/// classes at hand.
pub(super) struct Lowering<'m> {
    module: &'m Module,
    /// The classes being inlined, outermost first: one met again is
    /// recursive and stays without a type.
    open: Vec<String>,
    inlined: usize,
    /// What could not be derived, as written, since the last [`take_lost`].
    ///
    /// [`take_lost`]: Lowering::take_lost
    lost: Vec<String>,
}

impl<'m> Lowering<'m> {
    pub(super) fn new(module: &'m Module) -> Self {
        Lowering {
            module,
            open: Vec::new(),
            inlined: 0,
            lost: Vec::new(),
        }
    }

    /// What could not be derived since the last call.
    pub(super) fn take_lost(&mut self) -> Vec<String> {
        std::mem::take(&mut self.lost)
    }

    /// The schema of a hint as written, its property-level `Field` facts
    /// included; `None` when the text is not a hint toolc reads.
    pub(super) fn annotation(&mut self, text: &str) -> Option<Map<String, Value>> {
        let Some(hint) = parse_hint(text) else {
            self.lost.push(text.to_string());
            return None;
        };
        Some(self.schema(&hint))
    }

    /// Gives `schema` what a default written as `text` says: a `default`,
    /// `Field` constraints. Returns whether the value stays required
    /// (`Field(...)`, or `Field()` without a default).
    pub(super) fn default(&mut self, text: &str, schema: &mut Map<String, Value>) -> bool {
        let Some(expr) = parse_expr(text) else {
            self.lost.push(format!("default {text}"));
            return false;
        };
        match &expr {
            Expr::Call { args, keywords, .. } if expr.base_name() == Some("Field") => {
                let mut required = true;
                if let Some(first) = args.first() {
                    required = self.set_default(first, schema);
                }
                for (keyword, value) in keywords {
                    match keyword.as_str() {
                        "default" => required = self.set_default(value, schema),
                        "default_factory" => required = false,
                        _ => {}
                    }
                }
                self.constrain(schema, keywords);
                required
            }
            _ => self.set_default(&expr, schema),
        }
    }

    /// A default value: a literal, `...` (none: required), or a member of
    /// an enum of the package. Returns whether the value stays required.
    fn set_default(&mut self, value: &Expr, schema: &mut Map<String, Value>) -> bool {
        let found = match value {
            Expr::Literal(value) => Some(value.clone()),
            Expr::Name(name) if name == "..." => return true,
            Expr::Name(name) => self.enum_member(name),
            Expr::Call { .. } => None,
        };
        match found {
            Some(value) => {
                schema.insert("default".into(), value);
            }
            None => self.lost.push(format!("default {}", describe(value))),
        }
        false
    }

    /// The value of `Class.MEMBER` when `Class` is an enum of the module.
    fn enum_member(&self, name: &str) -> Option<Value> {
        let (class, member) = name.rsplit_once('.')?;
        let class = self.module.class(class)?;
        if !matches!(self.kind(class, 0), Some(Kind::Enum)) {
            return None;
        }
        enum_values(class)?
            .into_iter()
            .find(|(name, _)| *name == member)
            .map(|(_, value)| value)
    }

    fn schema(&mut self, hint: &Hint) -> Map<String, Value> {
        match hint {
            Hint::Union(members) => self.union(members),
            Hint::Literal(values) => literal_schema(values),
            Hint::Annotated(inner, metadata) => {
                let mut schema = self.schema(inner);
                for item in metadata {
                    match item {
                        Expr::Call { keywords, .. } if item.base_name() == Some("Field") => {
                            self.constrain(&mut schema, keywords);
                        }
                        // A plain string documents the value; pydantic
                        // ignores it.
                        Expr::Literal(Value::String(_)) => {}
                        other => self.lost.push(describe(other)),
                    }
                }
                schema
            }
            Hint::List(items) => self.array(items.as_deref(), false),
            Hint::Set(items) => self.array(items.as_deref(), true),
            Hint::Dict(values) => {
                let mut schema = typed("object");
                // `dict[str, Any]` allows any value, JSON Schema's default.
                if let Some(values) = values {
                    let values = self.schema(values);
                    if !values.is_empty() {
                        schema.insert("additionalProperties".into(), Value::Object(values));
                    }
                }
                schema
            }
            Hint::Named(name) => self.class(name).unwrap_or_else(|| {
                self.lost.push(name.clone());
                Map::new()
            }),
            Hint::Str => typed("string"),
            Hint::Int => typed("integer"),
            Hint::Float => typed("number"),
            Hint::Bool => typed("boolean"),
            Hint::None => typed("null"),
            Hint::Bytes => formatted("binary"),
            Hint::Formatted(format) => formatted(format),
            Hint::Decimal => any_of(vec![typed("number"), typed("string")]),
            Hint::Any | Hint::Unknown => Map::new(),
        }
    }

    fn array(&mut self, items: Option<&Hint>, unique: bool) -> Map<String, Value> {
        let mut schema = typed("array");
        if let Some(items) = items {
            let items = self.schema(items);
            schema.insert("items".into(), Value::Object(items));
        }
        if unique {
            schema.insert("uniqueItems".into(), json!(true));
        }
        schema
    }

    /// A union is `anyOf` its members, nested unions flattened, `None`
    /// last as `{"type": "null"}`, as pydantic orders it.
    fn union(&mut self, members: &[Hint]) -> Map<String, Value> {
        let mut schemas = Vec::new();
        let mut nullable = false;
        for member in members {
            if *member == Hint::None {
                nullable = true;
                continue;
            }
            let schema = self.schema(member);
            match schema.get("anyOf") {
                Some(Value::Array(inner)) if schema.len() == 1 => {
                    for s in inner {
                        if s == &json!({"type": "null"}) {
                            nullable = true;
                        } else if let Value::Object(s) = s {
                            schemas.push(s.clone());
                        }
                    }
                }
                _ => schemas.push(schema),
            }
        }
        if nullable {
            schemas.push(typed("null"));
        }
        if schemas.len() == 1 {
            return schemas.remove(0);
        }
        any_of(schemas)
    }

    /// `Field(...)` keywords as schema keywords. Constraints on a nullable
    /// value apply to its non-null member, as pydantic puts them.
    fn constrain(&mut self, schema: &mut Map<String, Value>, keywords: &[(String, Expr)]) {
        for (keyword, value) in keywords {
            let Expr::Literal(value) = value else {
                if !matches!(keyword.as_str(), "default" | "default_factory") {
                    self.lost.push(format!("{keyword}={}", describe(value)));
                }
                continue;
            };
            let mut kind = String::new();
            on_constrained(schema, |target| {
                kind = target
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
            });
            let key = match (keyword.as_str(), kind.as_str()) {
                ("ge", _) => "minimum",
                ("gt", _) => "exclusiveMinimum",
                ("le", _) => "maximum",
                ("lt", _) => "exclusiveMaximum",
                ("multiple_of", _) => "multipleOf",
                ("min_length", "array") => "minItems",
                ("max_length", "array") => "maxItems",
                ("min_length", "object") => "minProperties",
                ("max_length", "object") => "maxProperties",
                ("min_length", _) => "minLength",
                ("max_length", _) => "maxLength",
                ("pattern", _) => "pattern",
                ("description" | "title" | "examples", _) => {
                    schema.insert(keyword.clone(), value.clone());
                    continue;
                }
                ("default" | "default_factory", _) => continue,
                _ => {
                    self.lost.push(format!("{keyword}={value}"));
                    continue;
                }
            };
            on_constrained(schema, |target| {
                target.insert(key.into(), value.clone());
            });
        }
    }

    /// The schema of a class of the module, inlined; `None` when the name
    /// is no class toolc can read (then the caller reports it).
    fn class(&mut self, name: &str) -> Option<Map<String, Value>> {
        let module = self.module;
        let class = module.class(name)?;
        let kind = self.kind(class, 0)?;
        if self.open.iter().any(|open| open == name) || self.inlined >= MAX_INLINED_CLASSES {
            return None;
        }
        self.inlined += 1;
        self.open.push(name.to_string());
        let schema = match kind {
            Kind::Enum => enum_values(class).map(|values| enum_schema(&values)),
            Kind::Object { total } => Some(self.object(class, total)),
        };
        self.open.pop();
        let mut schema = schema?;
        if let Some(doc) = class.docstring.as_deref().filter(|d| !d.is_empty()) {
            schema.insert("description".into(), json!(doc));
        }
        Some(schema)
    }

    fn object(&mut self, class: &Class, total: bool) -> Map<String, Value> {
        let mut properties = Map::new();
        let mut required: Vec<String> = Vec::new();
        let attribute_docs = uses_attribute_docstrings(class);
        for field in self.fields(class, 0) {
            let Some(annotation) = field.annotation.as_deref() else {
                continue;
            };
            let (marked, annotation) = required_marker(annotation);
            let mut schema = self.annotation(annotation).unwrap_or_default();
            // The string describes the field over its class's docstring;
            // a `Field(description=...)` (in the annotation, or the value
            // read below) over the string.
            if attribute_docs
                && !annotation.contains("description=")
                && let Some(doc) = field.docstring.as_deref().filter(|d| !d.is_empty())
            {
                schema.insert("description".into(), json!(doc));
            }
            let is_required = match field.value.as_deref() {
                Some(value) => self.default(value, &mut schema),
                None => marked.unwrap_or(total),
            };
            required.retain(|r| *r != field.name);
            if is_required {
                required.push(field.name.clone());
            }
            properties.insert(field.name.clone(), Value::Object(schema));
        }
        let mut schema = typed("object");
        schema.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            schema.insert("required".into(), json!(required));
        }
        schema
    }

    /// The annotated fields of a class, its bases' (of the module) first.
    fn fields(&self, class: &'m Class, depth: usize) -> Vec<&'m crate::python::ClassAssignment> {
        let mut fields = Vec::new();
        if depth < MAX_BASE_DEPTH {
            for base in &class.bases {
                if let Some(parent) = self.module.class(base) {
                    fields.extend(self.fields(parent, depth + 1));
                }
            }
        }
        fields.extend(class.assignments.iter().filter(|a| {
            a.annotation.as_deref().is_some_and(|t| {
                !t.trim_start().starts_with("ClassVar") && !a.name.starts_with('_')
            })
        }));
        fields
    }

    /// What a class is to pydantic, by its bases and decorators (or its
    /// bases' in the module).
    fn kind(&self, class: &Class, depth: usize) -> Option<Kind> {
        let last = |text: &str| {
            let callee = text.split('(').next().unwrap_or(text).trim();
            callee.rsplit('.').next().unwrap_or(callee).to_string()
        };
        if class.decorators.iter().any(|d| last(d) == "dataclass") {
            return Some(Kind::Object { total: true });
        }
        for base in &class.bases {
            match last(base).as_str() {
                "Enum" | "IntEnum" | "StrEnum" | "Flag" | "IntFlag" => return Some(Kind::Enum),
                "BaseModel" => return Some(Kind::Object { total: true }),
                "TypedDict" => {
                    let partial = class
                        .bases
                        .iter()
                        .any(|b| b.replace(' ', "") == "total=False");
                    return Some(Kind::Object { total: !partial });
                }
                _ => {}
            }
            if depth < MAX_BASE_DEPTH
                && let Some(parent) = self.module.class(base)
                && let Some(kind) = self.kind(parent, depth + 1)
            {
                return Some(kind);
            }
        }
        None
    }
}

/// Whether the class's pydantic config (`__pydantic_config__` of a
/// dataclass or TypedDict, `model_config` of a model) turns on
/// `use_attribute_docstrings`: then the string literal after a field is
/// its description.
fn uses_attribute_docstrings(class: &Class) -> bool {
    class
        .assignments
        .iter()
        .filter(|a| a.name == "__pydantic_config__" || a.name == "model_config")
        .filter_map(|a| a.value.as_deref())
        .any(|value| {
            let compact: String = value
                .chars()
                .filter(|c| !c.is_whitespace())
                .map(|c| if c == '\'' { '"' } else { c })
                .collect();
            compact.contains("\"use_attribute_docstrings\":True")
                || compact.contains("use_attribute_docstrings=True")
        })
}

/// How deep a class's bases in the module are followed.
const MAX_BASE_DEPTH: usize = 8;

#[derive(Debug, Clone, Copy)]
enum Kind {
    Enum,
    Object { total: bool },
}

/// An enum's members and their values, when every value is a literal.
fn enum_values(class: &Class) -> Option<Vec<(&str, Value)>> {
    class
        .assignments
        .iter()
        .filter(|a| a.annotation.is_none() && !a.name.starts_with('_'))
        .map(|a| {
            let value = parse_expr(a.value.as_deref()?)?;
            match value {
                Expr::Literal(value) => Some((a.name.as_str(), value)),
                _ => None,
            }
        })
        .collect()
}

fn enum_schema(members: &[(&str, Value)]) -> Map<String, Value> {
    let values: Vec<Value> = members.iter().map(|(_, v)| v.clone()).collect();
    let mut schema = Map::new();
    if let Some(kind) = shared_type(&values) {
        schema.insert("type".into(), json!(kind));
    }
    schema.insert("enum".into(), Value::Array(values));
    schema
}

/// pydantic's `Literal`: one value is a `const`, several an `enum`, with
/// the type they share; `None` among them is a `null` member.
fn literal_schema(values: &[Value]) -> Map<String, Value> {
    let nullable = values.contains(&Value::Null);
    let values: Vec<Value> = values.iter().filter(|v| !v.is_null()).cloned().collect();
    let mut schema = Map::new();
    if let Some(kind) = shared_type(&values) {
        schema.insert("type".into(), json!(kind));
    }
    match values.as_slice() {
        [] => return typed("null"),
        [one] => schema.insert("const".into(), one.clone()),
        _ => schema.insert("enum".into(), Value::Array(values)),
    };
    if nullable {
        return any_of(vec![schema, typed("null")]);
    }
    schema
}

/// The JSON type all `values` have, if they share one.
fn shared_type(values: &[Value]) -> Option<&'static str> {
    let kind = |v: &Value| match v {
        Value::String(_) => Some("string"),
        Value::Bool(_) => Some("boolean"),
        Value::Number(n) if n.is_f64() => Some("number"),
        Value::Number(_) => Some("integer"),
        _ => None,
    };
    let first = kind(values.first()?)?;
    values
        .iter()
        .all(|v| kind(v) == Some(first))
        .then_some(first)
}

/// Runs `f` on the member of a nullable `anyOf` that constraints apply
/// to, or on the schema itself.
fn on_constrained(schema: &mut Map<String, Value>, f: impl FnOnce(&mut Map<String, Value>)) {
    let null = json!({"type": "null"});
    let member = match schema.get("anyOf") {
        Some(Value::Array(members)) if members.len() == 2 && members.contains(&null) => {
            members.iter().position(|m| *m != null)
        }
        _ => None,
    };
    match member.and_then(|i| schema.get_mut("anyOf")?.get_mut(i)) {
        Some(Value::Object(member)) => f(member),
        _ => f(schema),
    }
}

fn typed(kind: &str) -> Map<String, Value> {
    let mut schema = Map::new();
    schema.insert("type".into(), json!(kind));
    schema
}

fn formatted(format: &str) -> Map<String, Value> {
    let mut schema = typed("string");
    schema.insert("format".into(), json!(format));
    schema
}

fn any_of(members: Vec<Map<String, Value>>) -> Map<String, Value> {
    let mut schema = Map::new();
    schema.insert(
        "anyOf".into(),
        Value::Array(members.into_iter().map(Value::Object).collect()),
    );
    schema
}

/// An expression as a finding shows it.
fn describe(expr: &Expr) -> String {
    match expr {
        Expr::Literal(value) => value.to_string(),
        Expr::Name(name) => name.clone(),
        Expr::Call { callee, .. } => format!("{callee}(...)"),
    }
}

/// A TypedDict field's `Required[X]` or `NotRequired[X]` (from `typing` or
/// `typing_extensions`, qualified or not): whether it says the key is
/// required, and `X`; otherwise nothing, and the annotation as it is.
fn required_marker(annotation: &str) -> (Option<bool>, &str) {
    let text = annotation.trim();
    let Some(inner) = text.strip_suffix(']') else {
        return (None, annotation);
    };
    let Some((callee, argument)) = inner.split_once('[') else {
        return (None, annotation);
    };
    match callee.trim().rsplit('.').next().unwrap_or_default() {
        "Required" => (Some(true), argument),
        "NotRequired" => (Some(false), argument),
        _ => (None, annotation),
    }
}
