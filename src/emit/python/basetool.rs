//! The `basetool` style: a `tools` package of agent-framework classes.
//!
//! `tools/bases.py` (the `BaseTool` ABC and `create_json_schema`),
//! `tools/types.py` (`ToolResult`), `tools/__init__.py` and a module per
//! tool with its `BaseTool` subclass. The subclass's `parameters` keep the
//! manifest's property names as keys (the wire names the model sends); only
//! module and class names are Python identifiers.

use serde::Serialize;
use serde_json::Value;

use super::layout::{self, Expr};
use super::names::{HINT_BUILTINS, Keep, Kind, Namer, class_name};
use super::{ALL_DETAILS, Tree, doc, doc_line, parameter_text};
use crate::emit::templates::LazyList;
use crate::emit::{EmitError, Options};
use crate::ir::ToolSet;

/// The package directory under `-o DIR`.
const PACKAGE: &str = "tools";

/// `python/basetool/__init__.py.j2`'s context.
#[derive(Debug, Serialize)]
struct InitContext {
    /// In the manifests' order.
    tools: Vec<InitTool>,
    /// The names of `__all__`, in the order ruff wants (RUF022).
    exports: Vec<String>,
    /// The modules to import from: the tools' and `bases`, `types`, in
    /// isort's natural order (`step2` before `step10`).
    import_order: Vec<String>,
    /// The same modules, each with what it imports (a tool module, its
    /// class), so that the template needs no search of `tools` per module:
    /// with one, 13,000 tools took 47 s.
    imports: Vec<Import>,
}

/// One `from .module import ...` of `tools/__init__.py`.
#[derive(Debug, Clone, Serialize)]
struct Import {
    module: String,
    /// The tool class a tool module exports; none for `bases` and `types`.
    class_name: Option<String>,
    wrap: bool,
}

#[derive(Debug, Serialize)]
struct InitTool {
    module: String,
    class_name: String,
    /// The import does not fit in 88 columns: isort puts the name on a
    /// line of its own, in parentheses.
    wrap: bool,
}

/// ruff's line length.
const LINE_LENGTH: usize = 88;

/// `python/basetool/tool.py.j2`'s context: the skeleton of one tool's
/// class, the developer's. It holds no fact the model is sent: those are
/// its spec's, in `specs.py`.
#[derive(Debug, Serialize)]
struct ToolContext {
    source_doc: String,
    tool: ToolSkeleton,
}

#[derive(Debug, Serialize)]
struct ToolSkeleton {
    name_doc: String,
    class_name: String,
    spec_name: String,
    /// `from .specs import Spec` does not fit in 88 columns.
    wrap_spec: bool,
    /// A hint of `run` names `Any`.
    uses_any: bool,
    run_parameters: Vec<RunParameter>,
}

/// One keyword `run` takes.
#[derive(Debug, Serialize)]
struct RunParameter {
    name: String,
    /// Its hint (`| None` added when it is optional).
    hint: String,
    required: bool,
}

/// `python/basetool/specs.py.j2`'s context: `tools` is every tool's
/// [`ToolClass`], made a template value as the template reaches it
/// ([`LazyList`]).
#[derive(Debug, Serialize)]
struct SpecsContext {
    tools: minijinja::value::Value,
}

/// One tool's spec: what the model is sent.
#[derive(Debug, Serialize)]
struct ToolClass {
    name_doc: String,
    spec_name: String,
    source_doc: String,
    /// `(("wire name", "keyword"), ...)`, laid out after `    arguments = `.
    arguments_literal: String,
    /// The class docstring's prose: the description (or a fallback).
    description_doc: String,
    name_literal: String,
    /// The `description` attribute (empty when the manifest has none).
    description_literal: String,
    properties_literal: String,
    required_literal: String,
    /// The parameter schema's other root keywords (`additionalProperties`,
    /// `$defs`, ...) as a dict literal, or null when there are none.
    extra_literal: Option<String>,
    parameters: Vec<ClassParameter>,
}

#[derive(Debug, Serialize)]
struct ClassParameter {
    key_doc: String,
    json_type_doc: String,
    required: bool,
    description_doc: String,
}

/// What `tools/__init__.py` exports besides the tool classes.
const EXPORTS: &[&str] = &["TOOLS", "BaseTool", "ToolResult", "create_json_schema"];

/// One piece of a name in a natural sort: text, or a number.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Piece {
    Number(u128),
    Text(String),
}

/// The order of an "isort-style" `__all__`: SCREAMING_CASE names, then
/// CamelCase, then the rest, each in natural order (`Tool2` before `Tool10`).
fn isort_key(name: &str) -> (u8, Vec<Piece>) {
    let category = if name.chars().any(|c| c.is_ascii_alphabetic())
        && !name.chars().any(|c| c.is_ascii_lowercase())
    {
        0
    } else if name.starts_with(|c: char| c.is_ascii_uppercase()) {
        1
    } else {
        2
    };
    let mut pieces = Vec::new();
    let mut rest = name;
    while let Some(first) = rest.chars().next() {
        let digits = first.is_ascii_digit();
        let end = rest
            .find(|c: char| c.is_ascii_digit() != digits)
            .unwrap_or(rest.len());
        let (run, tail) = rest.split_at(end);
        pieces.push(match run.parse::<u128>() {
            Ok(n) if digits => Piece::Number(n),
            _ => Piece::Text(run.to_string()),
        });
        rest = tail;
    }
    (category, pieces)
}

/// Names a keyword of `run` may not take: `self`, and the names its
/// module uses.
const RUN_RESERVED: &[&str] = &["self", "ToolResult", "Any", "None"];

/// A tuple literal.
fn tuple(items: Vec<Expr>) -> Expr {
    let mut tuple = Expr::list(items);
    if let Expr::Seq { open, close, .. } = &mut tuple {
        *open = '(';
        *close = ')';
    }
    tuple
}

/// A tuple literal laid out like [`Expr::layout`]: one item on one line
/// takes a comma, or `(x)` would be no tuple.
fn tuple_layout(items: Vec<Expr>, indent: usize, column: usize) -> String {
    let single = items.len() == 1;
    let text = tuple(items).layout(indent, column, 0);
    match text.strip_suffix(')') {
        Some(inner) if single && !text.contains('\n') => format!("{inner},)"),
        _ => text,
    }
}

/// The hint of a keyword of `run`: the Python type of the JSON the model
/// sends (`dict[str, Any]` for an object, `list[Any]` for an array), with
/// `| None` when the argument is optional.
fn run_hint(schema: &Value, required: bool) -> String {
    let one = |t: &str| match t {
        "string" => "str",
        "integer" => "int",
        "number" => "float",
        "boolean" => "bool",
        "array" => "list[Any]",
        "object" => "dict[str, Any]",
        "null" => "None",
        _ => "Any",
    };
    let mut hints: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![one(t)],
        Some(Value::Array(types)) => types
            .iter()
            .map(|t| one(t.as_str().unwrap_or("")))
            .collect(),
        _ => vec!["Any"],
    };
    if hints.contains(&"Any") {
        return "Any".to_string();
    }
    hints.dedup();
    if !required && !hints.contains(&"None") {
        hints.push("None");
    }
    hints.join(" | ")
}

/// An empty context, for the templates that take no variables.
#[derive(Debug, Serialize)]
struct NoContext {}

/// One tool's class and spec, made on their own (on the worker that read
/// its manifest): everything but the names of its module and classes,
/// which depend on every other tool's (see [`place`]).
#[derive(Debug)]
pub(super) struct BaseTool {
    name: String,
    /// `spec_name` is empty until placed.
    class: ToolClass,
    /// `class_name`, `spec_name` and `wrap_spec` are empty until placed.
    skeleton: ToolContext,
}

/// Each tool of `set`, made ready for [`place`].
pub(super) fn tools(set: &ToolSet) -> Vec<BaseTool> {
    set.tools
        .iter()
        .map(|tool| {
            let (properties, root) = super::parameters(tool);
            let (fallback_description, _) = super::description_or_fallback(tool);
            let properties_value: serde_json::Map<String, Value> = properties
                .iter()
                .map(|p| (p.key.clone(), p.schema.clone()))
                .collect();
            let required: Vec<Expr> = properties
                .iter()
                .filter(|p| p.required)
                .map(|p| Expr::Str(p.key.clone()))
                .collect();
            let extra_literal = (!root.is_empty()).then(|| {
                Expr::from_json(&Value::Object(root)).layout(8, "        extra=".len(), 1)
            });
            let keys: Vec<&str> = properties.iter().map(|p| p.key.as_str()).collect();
            let keywords = Namer::with_reserved(RUN_RESERVED).assign(
                &keys,
                Kind::Parameter,
                Keep::Identifiers,
            );
            let arguments: Vec<Expr> = keys
                .iter()
                .zip(&keywords)
                .map(|(key, keyword)| {
                    tuple(vec![Expr::Str(key.to_string()), Expr::Str(keyword.clone())])
                })
                .collect();
            let mut run_parameters: Vec<RunParameter> = properties
                .iter()
                .zip(&keywords)
                .map(|(p, keyword)| RunParameter {
                    name: keyword.clone(),
                    hint: run_hint(&p.schema, p.required),
                    required: p.required,
                })
                .collect();
            run_parameters.sort_by_key(|p| !p.required);
            let class = ToolClass {
                name_doc: doc_line(&tool.name),
                spec_name: String::new(),
                source_doc: doc(&set.path),
                arguments_literal: tuple_layout(arguments, 4, "    arguments = ".len()),
                description_doc: doc(&fallback_description),
                name_literal: layout::string_literal(&tool.name),
                description_literal: Expr::Str(tool.description.clone().unwrap_or_default())
                    .layout(4, "    description = ".len(), 0),
                properties_literal: Expr::from_json(&Value::Object(properties_value)).layout(
                    8,
                    "        properties=".len(),
                    1,
                ),
                required_literal: Expr::list(required).layout(8, "        required=".len(), 1),
                extra_literal,
                parameters: properties
                    .iter()
                    .map(|p| ClassParameter {
                        key_doc: doc_line(&p.key),
                        json_type_doc: doc_line(&super::hints::json_type(&p.schema)),
                        required: p.required,
                        description_doc: doc(&parameter_text(p, ALL_DETAILS, None)),
                    })
                    .collect(),
            };
            let skeleton = ToolContext {
                source_doc: doc(&set.path),
                tool: ToolSkeleton {
                    name_doc: doc_line(&tool.name),
                    class_name: String::new(),
                    wrap_spec: false,
                    spec_name: String::new(),
                    uses_any: run_parameters.iter().any(|p| p.hint.contains("Any")),
                    run_parameters,
                },
            };
            BaseTool {
                name: tool.name.clone(),
                class,
                skeleton,
            }
        })
        .collect()
}

/// Names every tool's module and classes, apart from the others' and from
/// the package's own, and renders the package: a module per tool, then
/// `__init__.py`, `specs.py`, `bases.py` and `types.py`.
pub(super) fn place(
    tools: Vec<BaseTool>,
    options: &Options,
    out: &mut Tree,
) -> Result<(), EmitError> {
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_str()).collect();
    let mut reserved = vec!["bases", "types", "specs"];
    reserved.extend(HINT_BUILTINS);
    let modules = Namer::with_reserved(&reserved).assign(&names, Kind::Tool, Keep::SnakeCase);
    let mut classes = Namer::with_reserved(&["BaseTool", "ToolResult"]);
    let mut specs = Vec::new();
    let mut init = InitContext {
        tools: Vec::new(),
        exports: Vec::new(),
        import_order: Vec::new(),
        imports: Vec::new(),
    };
    for (tool, module) in tools.into_iter().zip(modules) {
        let BaseTool {
            mut class,
            mut skeleton,
            ..
        } = tool;
        let class_name = classes.unique_class(class_name(&module));
        let spec_name = classes.unique_class(format!("{class_name}Spec"));
        class.spec_name = spec_name.clone();
        specs.push(class);
        skeleton.tool.class_name = class_name.clone();
        skeleton.tool.wrap_spec =
            format!("from .specs import {spec_name}").chars().count() > LINE_LENGTH;
        skeleton.tool.spec_name = spec_name;
        out.render(
            options,
            "basetool/tool.py.j2",
            format!("{PACKAGE}/{module}.py"),
            skeleton,
        )?;
        let wrap = format!("from .{module} import {class_name}")
            .chars()
            .count()
            > LINE_LENGTH;
        init.tools.push(InitTool {
            module,
            class_name,
            wrap,
        });
    }
    init.exports = EXPORTS.iter().map(|s| s.to_string()).collect();
    init.exports
        .extend(init.tools.iter().map(|t| t.class_name.clone()));
    init.exports.sort_by_key(|name| isort_key(name));
    init.imports = init
        .tools
        .iter()
        .map(|t| Import {
            module: t.module.clone(),
            class_name: Some(t.class_name.clone()),
            wrap: t.wrap,
        })
        .chain(["bases", "types"].map(|module| Import {
            module: module.to_string(),
            class_name: None,
            wrap: false,
        }))
        .collect();
    init.imports
        .sort_by_cached_key(|import| isort_key(&import.module));
    init.import_order = init.imports.iter().map(|i| i.module.clone()).collect();
    out.render(
        options,
        "basetool/__init__.py.j2",
        format!("{PACKAGE}/__init__.py"),
        &init,
    )?;
    out.render(
        options,
        "basetool/specs.py.j2",
        format!("{PACKAGE}/specs.py"),
        SpecsContext {
            tools: LazyList::value(specs),
        },
    )?;
    out.render(
        options,
        "basetool/bases.py.j2",
        format!("{PACKAGE}/bases.py"),
        NoContext {},
    )?;
    out.render(
        options,
        "basetool/types.py.j2",
        format!("{PACKAGE}/types.py"),
        NoContext {},
    )?;
    Ok(())
}
