//! AgentStack tool parameters from the package's Python code.
//!
//! An AgentStack `config.json` names its tools; their parameters are the
//! parameters of the functions `__init__.py` defines. This module turns one
//! such function (as [`crate::python`] read it) into the JSON Schema a
//! developer would write by hand:
//!
//! - type hints: `str`, `int`, `float`, `bool`, `list[T]`/`List[T]`,
//!   `dict`/`Dict[str, T]`, `Optional[T]`, `T | None`, `Union[...]`,
//!   `Literal[...]`, read from the annotation's source text with a small
//!   recursive parser of the subscript syntax; anything else (no hint, a
//!   class, a forward reference, `Callable[...]`) gives a property without
//!   `type`, and [`ParameterSource::type_unknown`] says so for
//!   `python-type-hint-unknown` (`Any` gives none either, on purpose);
//! - parameters without a default are `required`, unless their hint admits
//!   `None`; literal defaults become `default`;
//! - the docstring's parameter sections (Google `Args:`, NumPy
//!   `Parameters` / `----------`, reST `:param name:`) give the property
//!   descriptions, and its first line the tool's summary.
//!
//! `self`, `cls`, `*args` and `**kwargs` are not parameters of the tool, and
//! functions whose name starts with `_` are never tools. Lowering stays pure:
//! the caller reads and parses the file.

use std::ops::Range;

use serde_json::{Map, Value, json};

use crate::python::{self, ParameterKind};

/// What one AgentStack function gives its tool: the parameter schema and
/// summary, and where each part came from, for findings about them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FunctionSchema {
    pub(crate) schema: Value,
    pub(crate) summary: Option<String>,
    /// Bytes of the `def` statement in the module's text.
    pub(crate) def_span: Range<usize>,
    /// The parameters that became properties, in order.
    pub(crate) parameters: Vec<ParameterSource>,
}

/// One parameter of a tool function, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParameterSource {
    pub(crate) name: String,
    /// Bytes of the parameter in the module's text.
    pub(crate) span: Range<usize>,
    /// The type hint as written.
    pub(crate) annotation: Option<String>,
    /// Whether the property has no type for want of a hint toolc knows:
    /// there is none, it does not parse, or it names a type toolc does not
    /// know (a class, a forward reference, `Callable[...]`). `Any` says
    /// "any type" on purpose and is not counted.
    pub(crate) type_unknown: bool,
}

/// The parameter schema of `function` in `module`, its docstring's summary
/// line and where each parameter is; `None` when the module does not define
/// the function at top level or it is private.
pub(crate) fn function_schema(module: &python::Module, function: &str) -> Option<FunctionSchema> {
    if function.starts_with('_') {
        return None;
    }
    let def = module.function(function)?;
    let docs = def.docstring.as_deref().map(parse_docstring);
    let mut properties = Map::new();
    let mut required = Vec::new();
    let mut sources = Vec::new();
    for parameter in &def.parameters {
        if matches!(
            parameter.kind,
            ParameterKind::VarPositional | ParameterKind::VarKeyword
        ) || parameter.name == "self"
            || parameter.name == "cls"
        {
            continue;
        }
        let hint = parameter.annotation.as_deref().and_then(parse_hint);
        let (mut schema, nullable) = match &hint {
            Some(hint) => hint_schema(hint),
            None => (Map::new(), false),
        };
        let type_unknown = !["type", "enum", "anyOf"]
            .iter()
            .any(|k| schema.contains_key(*k))
            && !hint.as_ref().is_some_and(admits_anything);
        if let Some(default) = parameter.default.as_deref().and_then(parse_literal) {
            schema.insert("default".into(), default);
        }
        if let Some(description) = docs
            .as_ref()
            .and_then(|d| d.params.iter().find(|(n, _)| *n == parameter.name))
            .map(|(_, d)| d.clone())
            .filter(|d| !d.is_empty())
        {
            schema.insert("description".into(), Value::String(description));
        }
        if parameter.default.is_none() && !nullable {
            required.push(Value::String(parameter.name.clone()));
        }
        properties.insert(parameter.name.clone(), Value::Object(schema));
        sources.push(ParameterSource {
            name: parameter.name.clone(),
            span: parameter.span.clone(),
            annotation: parameter.annotation.clone(),
            type_unknown,
        });
    }
    let mut root = Map::new();
    root.insert("type".into(), json!("object"));
    root.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        root.insert("required".into(), Value::Array(required));
    }
    Some(FunctionSchema {
        schema: Value::Object(root),
        summary: docs.and_then(|d| d.summary),
        def_span: def.span.clone(),
        parameters: sources,
    })
}

// ------------------------------------------------------------------ tokens

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Name(String),
    Str(String),
    Num(Value),
    Punct(char),
}

/// Splits Python expression text into tokens; `None` on anything the
/// small grammars here do not read (f-strings, bytes, operators).
fn tokenize(text: &str) -> Option<Vec<Token>> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() || c == '\\' && chars.get(i + 1) == Some(&'\n') {
            i += 1;
        } else if c == '"' || c == '\'' {
            let (value, next) = string_literal(&chars, i)?;
            tokens.push(Token::Str(value));
            i = next;
        } else if c.is_ascii_digit()
            || c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit)
        {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric()
                    || chars[i] == '.'
                    || chars[i] == '_'
                    || matches!(chars[i], '+' | '-') && matches!(chars[i - 1], 'e' | 'E'))
            {
                i += 1;
            }
            let raw: String = chars[start..i].iter().filter(|c| **c != '_').collect();
            tokens.push(Token::Num(number(&raw)?));
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '.')
            {
                i += 1;
            }
            let name: String = chars[start..i].iter().collect();
            if matches!(chars.get(i), Some('"' | '\'')) {
                // A string prefix: raw and unicode strings read as strings.
                if !matches!(name.as_str(), "r" | "R" | "u" | "U") {
                    return None;
                }
                let (value, next) = string_literal(&chars, i)?;
                let value = if name.eq_ignore_ascii_case("r") {
                    chars[i + 1..next - 1].iter().collect()
                } else {
                    value
                };
                tokens.push(Token::Str(value));
                i = next;
            } else {
                tokens.push(Token::Name(name));
            }
        } else if "[](){},:|-+".contains(c) {
            tokens.push(Token::Punct(c));
            i += 1;
        } else {
            return None;
        }
    }
    Some(tokens)
}

/// A single-line string literal starting at `start` (a quote): its value
/// and the index after the closing quote.
fn string_literal(chars: &[char], start: usize) -> Option<(String, usize)> {
    let quote = chars[start];
    let mut value = String::new();
    let mut i = start + 1;
    while i < chars.len() {
        match chars[i] {
            c if c == quote => return Some((value, i + 1)),
            '\\' => {
                let escaped = *chars.get(i + 1)?;
                match escaped {
                    'n' => value.push('\n'),
                    't' => value.push('\t'),
                    'r' => value.push('\r'),
                    '\\' | '\'' | '"' => value.push(escaped),
                    '\n' => {}
                    other => {
                        value.push('\\');
                        value.push(other);
                    }
                }
                i += 2;
            }
            '\n' => return None,
            c => {
                value.push(c);
                i += 1;
            }
        }
    }
    None
}

fn number(raw: &str) -> Option<Value> {
    if let Ok(n) = raw.parse::<i64>() {
        return Some(json!(n));
    }
    let lower = raw.to_ascii_lowercase();
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if let Some(digits) = lower.strip_prefix(prefix) {
            return i64::from_str_radix(digits, radix).ok().map(|n| json!(n));
        }
    }
    raw.parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
        .map(Value::Number)
}

struct Cursor {
    tokens: Vec<Token>,
    at: usize,
}

/// Brackets may nest this deep in a hint or a default; deeper text is read
/// as unknown. The grammars below recurse once per bracket, on a worker
/// thread's stack: this bound keeps hostile input from overflowing it.
const MAX_NESTING: usize = 32;

impl Cursor {
    fn new(text: &str) -> Option<Self> {
        let tokens = tokenize(text)?;
        let mut depth: usize = 0;
        for token in &tokens {
            match token {
                Token::Punct('[' | '(' | '{') => {
                    depth += 1;
                    if depth > MAX_NESTING {
                        return None;
                    }
                }
                Token::Punct(']' | ')' | '}') => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        Some(Cursor { tokens, at: 0 })
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn next(&mut self) -> Option<Token> {
        let token = self.tokens.get(self.at).cloned();
        self.at += 1;
        token
    }

    fn eat(&mut self, punct: char) -> bool {
        if self.peek() == Some(&Token::Punct(punct)) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn done(&self) -> bool {
        self.at >= self.tokens.len()
    }
}

// ------------------------------------------------------------------- hints

/// A type hint, as far as toolc understands it.
#[derive(Debug, Clone, PartialEq)]
enum Hint {
    Str,
    Int,
    Float,
    Bool,
    None,
    List(Option<Box<Hint>>),
    Dict(Option<Box<Hint>>),
    Union(Vec<Hint>),
    Literal(Vec<Value>),
    /// `Any`: no `type`, on purpose.
    Any,
    /// Anything else (a class, a forward reference): no `type`.
    Unknown,
}

/// Parses an annotation's source text; `None` when it is not even
/// well-formed subscript syntax.
fn parse_hint(text: &str) -> Option<Hint> {
    let mut cursor = Cursor::new(text)?;
    let hint = union(&mut cursor)?;
    cursor.done().then_some(hint)
}

/// `primary ('|' primary)*`
fn union(cursor: &mut Cursor) -> Option<Hint> {
    let mut members = vec![primary(cursor)?];
    while cursor.eat('|') {
        members.push(primary(cursor)?);
    }
    Some(if members.len() == 1 {
        members.remove(0)
    } else {
        Hint::Union(members)
    })
}

/// `NAME ('[' union (',' union)* ']')?`, or a string (a forward reference).
fn primary(cursor: &mut Cursor) -> Option<Hint> {
    let name = match cursor.next()? {
        Token::Name(name) => name,
        Token::Str(text) => return Some(parse_hint(&text).unwrap_or(Hint::Unknown)),
        _ => return None,
    };
    let base = name.rsplit('.').next().unwrap_or(&name).to_string();
    if base == "Literal" && cursor.peek() == Some(&Token::Punct('[')) {
        cursor.next();
        let mut values = Vec::new();
        loop {
            values.push(literal(cursor)?);
            if !cursor.eat(',') {
                break;
            }
            if cursor.peek() == Some(&Token::Punct(']')) {
                break;
            }
        }
        return cursor.eat(']').then_some(Hint::Literal(values));
    }
    let mut args = Vec::new();
    if cursor.eat('[') {
        loop {
            args.push(union(cursor)?);
            if !cursor.eat(',') || cursor.peek() == Some(&Token::Punct(']')) {
                break;
            }
        }
        if !cursor.eat(']') {
            return None;
        }
    }
    let first = |args: &mut Vec<Hint>| (!args.is_empty()).then(|| Box::new(args.remove(0)));
    Some(match (base.as_str(), args.len()) {
        ("str", 0) => Hint::Str,
        ("int", 0) => Hint::Int,
        ("float", 0) => Hint::Float,
        ("bool", 0) => Hint::Bool,
        ("None" | "NoneType", 0) => Hint::None,
        ("Any", 0) => Hint::Any,
        ("list" | "List" | "Sequence" | "set" | "Set" | "Iterable", 0 | 1) => {
            Hint::List(first(&mut args))
        }
        ("dict" | "Dict" | "Mapping", 0) => Hint::Dict(None),
        ("dict" | "Dict" | "Mapping", 2) => Hint::Dict(Some(Box::new(args.remove(1)))),
        ("Optional", 1) => Hint::Union(vec![args.remove(0), Hint::None]),
        ("Union", n) if n > 0 => Hint::Union(args),
        ("Annotated", n) if n > 0 => args.remove(0),
        _ => Hint::Unknown,
    })
}

/// Whether a hint is `Any`, or a union with `Any` in it.
fn admits_anything(hint: &Hint) -> bool {
    match hint {
        Hint::Any => true,
        Hint::Union(members) => members.iter().any(admits_anything),
        _ => false,
    }
}

/// The JSON Schema of a hint, and whether it admits `None`.
fn hint_schema(hint: &Hint) -> (Map<String, Value>, bool) {
    match hint {
        Hint::Union(members) => {
            let nullable = members.iter().any(|m| match m {
                Hint::None => true,
                Hint::Literal(values) => values.contains(&Value::Null),
                _ => false,
            });
            let rest: Vec<&Hint> = members.iter().filter(|m| **m != Hint::None).collect();
            let schemas: Vec<Map<String, Value>> = rest.iter().map(|m| hint_schema(m).0).collect();
            let schema = match schemas.len() {
                0 => Map::new(),
                1 => schemas.into_iter().next().unwrap_or_default(),
                _ if schemas.iter().all(|s| s.contains_key("type")) => {
                    let mut any_of = Map::new();
                    any_of.insert(
                        "anyOf".into(),
                        Value::Array(schemas.into_iter().map(Value::Object).collect()),
                    );
                    any_of
                }
                _ => Map::new(),
            };
            (schema, nullable)
        }
        Hint::Literal(values) => {
            let nullable = values.contains(&Value::Null);
            let values: Vec<Value> = values.iter().filter(|v| !v.is_null()).cloned().collect();
            let mut schema = Map::new();
            if !values.is_empty() && values.iter().all(Value::is_string) {
                schema.insert("type".into(), json!("string"));
            } else if !values.is_empty() && values.iter().all(|v| v.is_i64() || v.is_u64()) {
                schema.insert("type".into(), json!("integer"));
            } else if !values.is_empty() && values.iter().all(Value::is_boolean) {
                schema.insert("type".into(), json!("boolean"));
            }
            schema.insert("enum".into(), Value::Array(values));
            (schema, nullable)
        }
        Hint::None => (Map::new(), true),
        other => (plain_schema(other), false),
    }
}

fn plain_schema(hint: &Hint) -> Map<String, Value> {
    let mut schema = Map::new();
    let simple = |t: &str| json!(t);
    match hint {
        Hint::Str => {
            schema.insert("type".into(), simple("string"));
        }
        Hint::Int => {
            schema.insert("type".into(), simple("integer"));
        }
        Hint::Float => {
            schema.insert("type".into(), simple("number"));
        }
        Hint::Bool => {
            schema.insert("type".into(), simple("boolean"));
        }
        Hint::List(items) => {
            schema.insert("type".into(), simple("array"));
            if let Some(items) = items {
                schema.insert("items".into(), Value::Object(hint_schema(items).0));
            }
        }
        Hint::Dict(values) => {
            schema.insert("type".into(), simple("object"));
            if let Some(values) = values {
                schema.insert(
                    "additionalProperties".into(),
                    Value::Object(hint_schema(values).0),
                );
            }
        }
        Hint::None | Hint::Union(_) | Hint::Literal(_) | Hint::Any | Hint::Unknown => {}
    }
    schema
}

// ---------------------------------------------------------------- literals

/// A default value's source text as JSON, when it is a literal.
fn parse_literal(text: &str) -> Option<Value> {
    let mut cursor = Cursor::new(text)?;
    let value = literal(&mut cursor)?;
    cursor.done().then_some(value)
}

fn literal(cursor: &mut Cursor) -> Option<Value> {
    match cursor.next()? {
        Token::Str(mut text) => {
            // Implicit concatenation: "a" "b".
            while let Some(Token::Str(more)) = cursor.peek().cloned() {
                text.push_str(&more);
                cursor.next();
            }
            Some(Value::String(text))
        }
        Token::Num(n) => Some(n),
        Token::Punct('-') => match cursor.next()? {
            Token::Num(n) => number_negated(&n),
            _ => None,
        },
        Token::Punct('+') => match cursor.next()? {
            Token::Num(n) => Some(n),
            _ => None,
        },
        Token::Name(name) => match name.as_str() {
            "True" => Some(Value::Bool(true)),
            "False" => Some(Value::Bool(false)),
            "None" => Some(Value::Null),
            _ => None,
        },
        Token::Punct(open @ ('[' | '(')) => {
            let close = if open == '[' { ']' } else { ')' };
            let mut items = Vec::new();
            while !cursor.eat(close) {
                items.push(literal(cursor)?);
                if !cursor.eat(',') {
                    return cursor.eat(close).then_some(Value::Array(items));
                }
            }
            Some(Value::Array(items))
        }
        Token::Punct('{') => {
            let mut object = Map::new();
            while !cursor.eat('}') {
                let Value::String(key) = literal(cursor)? else {
                    return None;
                };
                if !cursor.eat(':') {
                    return None;
                }
                object.insert(key, literal(cursor)?);
                if !cursor.eat(',') {
                    return cursor.eat('}').then_some(Value::Object(object));
                }
            }
            Some(Value::Object(object))
        }
        Token::Punct(_) => None,
    }
}

fn number_negated(n: &Value) -> Option<Value> {
    if let Some(i) = n.as_i64() {
        return Some(json!(-i));
    }
    n.as_f64()
        .and_then(|f| serde_json::Number::from_f64(-f))
        .map(Value::Number)
}

// -------------------------------------------------------------- docstrings

mod docstrings;

use docstrings::parse_docstring;

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(hint: &str) -> (Value, bool) {
        let (schema, nullable) = hint_schema(&parse_hint(hint).expect("parses"));
        (Value::Object(schema), nullable)
    }

    #[test]
    fn simple_hints() {
        assert_eq!(schema("str"), (json!({"type": "string"}), false));
        assert_eq!(schema("int"), (json!({"type": "integer"}), false));
        assert_eq!(schema("float"), (json!({"type": "number"}), false));
        assert_eq!(schema("bool"), (json!({"type": "boolean"}), false));
        assert_eq!(schema("Any"), (json!({}), false));
        assert_eq!(schema("MyClass"), (json!({}), false));
        assert_eq!(schema("'int'"), (json!({"type": "integer"}), false));
    }

    #[test]
    fn container_hints() {
        assert_eq!(
            schema("list[str]"),
            (json!({"type": "array", "items": {"type": "string"}}), false)
        );
        assert_eq!(
            schema("typing.List[ int ]"),
            (
                json!({"type": "array", "items": {"type": "integer"}}),
                false
            )
        );
        assert_eq!(schema("list"), (json!({"type": "array"}), false));
        assert_eq!(schema("dict"), (json!({"type": "object"}), false));
        assert_eq!(
            schema("Dict[str, int]"),
            (
                json!({"type": "object", "additionalProperties": {"type": "integer"}}),
                false
            )
        );
        assert_eq!(
            schema("dict[str, list[float]]"),
            (
                json!({"type": "object", "additionalProperties": {"type": "array", "items": {"type": "number"}}}),
                false
            )
        );
        assert_eq!(
            schema("list[Foo]"),
            (json!({"type": "array", "items": {}}), false)
        );
    }

    #[test]
    fn optional_hints() {
        assert_eq!(schema("Optional[int]"), (json!({"type": "integer"}), true));
        assert_eq!(schema("str | None"), (json!({"type": "string"}), true));
        assert_eq!(schema("None | str"), (json!({"type": "string"}), true));
        assert_eq!(
            schema("Union[str, None]"),
            (json!({"type": "string"}), true)
        );
        assert_eq!(
            schema("int | str"),
            (
                json!({"anyOf": [{"type": "integer"}, {"type": "string"}]}),
                false
            )
        );
        assert_eq!(
            schema("Optional[list[str]]"),
            (json!({"type": "array", "items": {"type": "string"}}), true)
        );
    }

    #[test]
    fn literal_hints() {
        assert_eq!(
            schema("Literal['a', \"b\"]"),
            (json!({"type": "string", "enum": ["a", "b"]}), false)
        );
        assert_eq!(
            schema("typing.Literal[1, 2, 3]"),
            (json!({"type": "integer", "enum": [1, 2, 3]}), false)
        );
        assert_eq!(
            schema("Literal[1, 'a']"),
            (json!({"enum": [1, "a"]}), false)
        );
        assert_eq!(
            schema("Literal['a', None]"),
            (json!({"type": "string", "enum": ["a"]}), true)
        );
    }

    #[test]
    fn malformed_hints_are_tolerated() {
        for text in [
            "list[",
            "dict[str,",
            "Literal[x]",
            "a + b",
            "f'x'",
            "]",
            "",
            "int int",
        ] {
            assert_eq!(parse_hint(text), None, "{text}");
        }
        assert_eq!(parse_hint("Callable[[int], str]"), None);
        assert_eq!(parse_hint("Tuple[int, str]"), Some(Hint::Unknown));
    }

    #[test]
    fn literal_defaults() {
        assert_eq!(parse_literal("10"), Some(json!(10)));
        assert_eq!(parse_literal("-2.5"), Some(json!(-2.5)));
        assert_eq!(parse_literal("1_000"), Some(json!(1000)));
        assert_eq!(parse_literal("0x10"), Some(json!(16)));
        assert_eq!(parse_literal("'a\\'b'"), Some(json!("a'b")));
        assert_eq!(parse_literal("r'\\d+'"), Some(json!("\\d+")));
        assert_eq!(parse_literal("True"), Some(json!(true)));
        assert_eq!(parse_literal("None"), Some(Value::Null));
        assert_eq!(
            parse_literal("['a', 1, [False]]"),
            Some(json!(["a", 1, [false]]))
        );
        assert_eq!(parse_literal("('a',)"), Some(json!(["a"])));
        assert_eq!(
            parse_literal("{'k': 1, \"j\": [None],}"),
            Some(json!({"k": 1, "j": [null]}))
        );
        for text in [
            "os.getcwd()",
            "x",
            "f'a'",
            "b'a'",
            "1 + 2",
            "[x]",
            "{1: 2}",
            "lambda: 1",
        ] {
            assert_eq!(parse_literal(text), None, "{text}");
        }
    }

    #[test]
    fn functions_become_schemas() {
        let module = python::parse(
            "def f(self, a: int, b: str = 'x', c: Optional[int] = None, *args, d: bool, **kw):\n    \"\"\"Do f.\n\n    Args:\n        a: The a.\n    \"\"\"\n\ndef _private(a):\n    pass\n",
        )
        .expect("parses");
        let found = function_schema(&module, "f").expect("defined");
        assert_eq!(found.summary.as_deref(), Some("Do f."));
        let schema = found.schema;
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {
                    "a": {"type": "integer", "description": "The a."},
                    "b": {"type": "string", "default": "x"},
                    "c": {"type": "integer", "default": null},
                    "d": {"type": "boolean"},
                },
                "required": ["a", "d"],
            })
        );
        assert_eq!(function_schema(&module, "_private"), None);
        assert_eq!(function_schema(&module, "missing"), None);
    }

    #[test]
    fn missing_and_unknown_hints_give_no_type_and_are_marked() {
        let text = "def f(a, b: MyClass, c: \"Foo\", d: Callable[[int], str], e: list[Foo],\n      f: Optional[Doc] = None, g: Any, h: int, i: Literal[1, 'a'], j: 'int'):\n    pass\n";
        let module = python::parse(text).expect("parses");
        let found = function_schema(&module, "f").expect("defined");
        let untyped: Vec<(&str, Option<&str>)> = found
            .parameters
            .iter()
            .filter(|p| p.type_unknown)
            .map(|p| (p.name.as_str(), p.annotation.as_deref()))
            .collect();
        assert_eq!(
            untyped,
            [
                ("a", None),
                ("b", Some("MyClass")),
                ("c", Some("\"Foo\"")),
                ("d", Some("Callable[[int], str]")),
                ("f", Some("Optional[Doc]")),
            ]
        );
        for name in ["a", "b", "c", "d", "f", "g"] {
            assert_eq!(found.schema["properties"][name].get("type"), None, "{name}");
        }
        // A container of unknown items is still a container; `Any` is meant.
        assert_eq!(found.schema["properties"]["e"]["type"], "array");
        assert_eq!(
            &text[found.parameters[5].span.clone()],
            "f: Optional[Doc] = None"
        );
    }

    #[test]
    fn deep_nesting_is_unknown_not_a_stack_overflow() {
        let deep_default = "[".repeat(5000) + &"]".repeat(5000);
        assert_eq!(parse_literal(&deep_default), None);
        let deep_hint = "list[".repeat(10_000) + "int" + &"]".repeat(10_000);
        assert!(parse_hint(&deep_hint).is_none());
        let fine = "[".repeat(MAX_NESTING) + &"]".repeat(MAX_NESTING);
        assert!(parse_literal(&fine).is_some());
    }
}
