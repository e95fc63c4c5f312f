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
//!   descriptions, and the paragraphs before them the tool's description.
//!
//! `self`, `cls`, `*args` and `**kwargs` are not parameters of the tool, and
//! functions whose name starts with `_` are never tools. Lowering stays pure:
//! the caller reads and parses the file.

use std::ops::Range;

use serde_json::{Map, Value, json};

use crate::python::{self, ParameterKind};

/// What one AgentStack function gives its tool: the parameter schema and
/// description, and where each part came from, for findings about them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FunctionSchema {
    pub(crate) schema: Value,
    pub(crate) description: Option<String>,
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

/// The parameter schema of `function` in `module`, its docstring's
/// description and where each parameter is; `None` when the module does not define
/// the function at top level or it is private.
pub(crate) fn function_schema(module: &python::Module, function: &str) -> Option<FunctionSchema> {
    if function.starts_with('_') {
        return None;
    }
    let def = module.function(function)?;
    let docs = def.docstring.as_deref().map(parse_docstring);
    let mut lowering = Lowering::new(module);
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
        let annotation = parameter.annotation.as_deref();
        let mut schema = annotation
            .and_then(|a| lowering.annotation(a))
            .unwrap_or_default();
        let anything = annotation
            .and_then(parse_hint)
            .is_some_and(|hint| admits_anything(&hint));
        let is_required = match parameter.default.as_deref() {
            Some(default) => lowering.default(default, &mut schema),
            None => true,
        };
        if !schema.contains_key("description")
            && let Some(description) = docs
                .as_ref()
                .and_then(|d| d.params.iter().find(|(n, _)| *n == parameter.name))
                .map(|(_, d)| d.clone())
                .filter(|d| !d.is_empty())
        {
            schema.insert("description".into(), Value::String(description));
        }
        let lost = lowering.take_lost();
        let type_unknown =
            annotation.is_none() || !lost.is_empty() || !(anything || typed(&schema));
        if is_required {
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
        description: docs.and_then(|d| d.description),
        def_span: def.span.clone(),
        parameters: sources,
    })
}

/// Whether a schema says what type its value has: a `type`, an `enum` or
/// `const`, or an `anyOf` whose members all do. (An array of untyped
/// items is still an array.)
fn typed(schema: &Map<String, Value>) -> bool {
    if ["type", "enum", "const"]
        .iter()
        .any(|k| schema.contains_key(*k))
    {
        return true;
    }
    match schema.get("anyOf") {
        Some(Value::Array(members)) => members.iter().all(|m| m.as_object().is_some_and(typed)),
        _ => false,
    }
}

mod docstrings;
mod hints;
mod lower;
mod syntax;

use docstrings::parse_docstring;
use hints::{admits_anything, parse_hint};
use lower::Lowering;

#[cfg(test)]
mod tests {
    use super::syntax::{MAX_NESTING, parse_literal};
    use super::*;

    fn schema(hint: &str) -> Value {
        let module = python::Module::default();
        Value::Object(Lowering::new(&module).annotation(hint).expect("parses"))
    }

    #[test]
    fn simple_hints() {
        assert_eq!(schema("str"), json!({"type": "string"}));
        assert_eq!(schema("int"), json!({"type": "integer"}));
        assert_eq!(schema("float"), json!({"type": "number"}));
        assert_eq!(schema("bool"), json!({"type": "boolean"}));
        assert_eq!(schema("Any"), json!({}));
        assert_eq!(schema("MyClass"), json!({}));
        assert_eq!(schema("'int'"), json!({"type": "integer"}));
        assert_eq!(
            schema("datetime.datetime"),
            json!({"type": "string", "format": "date-time"})
        );
        assert_eq!(schema("UUID"), json!({"type": "string", "format": "uuid"}));
        assert_eq!(
            schema("Decimal"),
            json!({"anyOf": [{"type": "number"}, {"type": "string"}]})
        );
    }

    #[test]
    fn container_hints() {
        assert_eq!(
            schema("list[str]"),
            json!({"type": "array", "items": {"type": "string"}})
        );
        assert_eq!(
            schema("typing.List[ int ]"),
            json!({"type": "array", "items": {"type": "integer"}})
        );
        assert_eq!(schema("list"), json!({"type": "array"}));
        assert_eq!(schema("dict"), json!({"type": "object"}));
        assert_eq!(
            schema("Dict[str, int]"),
            json!({"type": "object", "additionalProperties": {"type": "integer"}})
        );
        assert_eq!(
            schema("set[str]"),
            json!({"type": "array", "items": {"type": "string"}, "uniqueItems": true})
        );
        assert_eq!(schema("list[Foo]"), json!({"type": "array", "items": {}}));
    }

    #[test]
    fn optional_hints_admit_null() {
        let int_or_null = json!({"anyOf": [{"type": "integer"}, {"type": "null"}]});
        assert_eq!(schema("Optional[int]"), int_or_null);
        assert_eq!(schema("int | None"), int_or_null);
        assert_eq!(schema("None | int"), int_or_null);
        assert_eq!(schema("Union[int, None]"), int_or_null);
        assert_eq!(
            schema("Union[int, str, None]"),
            json!({"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]})
        );
        assert_eq!(
            schema("Optional[int | str]"),
            json!({"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]})
        );
        assert_eq!(
            schema("int | str"),
            json!({"anyOf": [{"type": "integer"}, {"type": "string"}]})
        );
    }

    #[test]
    fn literal_hints() {
        assert_eq!(
            schema("Literal['a', \"b\"]"),
            json!({"type": "string", "enum": ["a", "b"]})
        );
        assert_eq!(
            schema("typing.Literal[1, 2, 3]"),
            json!({"type": "integer", "enum": [1, 2, 3]})
        );
        assert_eq!(schema("Literal[1, 'a']"), json!({"enum": [1, "a"]}));
        assert_eq!(
            schema("Literal['a']"),
            json!({"type": "string", "const": "a"})
        );
    }

    #[test]
    fn annotated_field_gives_constraints() {
        assert_eq!(
            schema("Annotated[int, Field(ge=0, lt=10, description='n')]"),
            json!({"type": "integer", "minimum": 0, "exclusiveMaximum": 10, "description": "n"})
        );
        assert_eq!(
            schema("Annotated[list[str], Field(min_length=1)]"),
            json!({"type": "array", "items": {"type": "string"}, "minItems": 1})
        );
        assert_eq!(
            schema("Annotated[Optional[str], Field(max_length=3)]"),
            json!({"anyOf": [{"type": "string", "maxLength": 3}, {"type": "null"}]})
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
        assert_eq!(parse_hint("Tuple[int, str]"), Some(hints::Hint::Unknown));
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
        assert_eq!(found.description.as_deref(), Some("Do f."));
        let schema = found.schema;
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {
                    "a": {"type": "integer", "description": "The a."},
                    "b": {"type": "string", "default": "x"},
                    "c": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": null},
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
                ("e", Some("list[Foo]")),
                ("f", Some("Optional[Doc]")),
            ]
        );
        for name in ["a", "b", "c", "d", "f", "g"] {
            assert_eq!(found.schema["properties"][name].get("type"), None, "{name}");
        }
        // A container of unknown items is still a container, and reported
        // for its items; `Any` is meant.
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
