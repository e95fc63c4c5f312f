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

/// `python/basetool/tool.py.j2`'s context.
#[derive(Debug, Serialize)]
struct ToolContext {
    source_doc: String,
    tool: ToolClass,
}

#[derive(Debug, Serialize)]
struct ToolClass {
    name_doc: String,
    class_name: String,
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

/// An empty context, for the templates that take no variables.
#[derive(Debug, Serialize)]
struct NoContext {}

pub(super) fn generate(
    toolsets: &[ToolSet],
    options: &Options,
    out: &mut Tree,
) -> Result<(), EmitError> {
    let tools: Vec<_> = crate::emit::tools(toolsets).collect();
    let names: Vec<&str> = tools.iter().map(|(_, tool)| tool.name.as_str()).collect();
    let mut reserved = vec!["bases", "types"];
    reserved.extend(HINT_BUILTINS);
    let modules = Namer::with_reserved(&reserved).assign(&names, Kind::Tool, Keep::SnakeCase);
    let mut classes = Namer::with_reserved(&["BaseTool", "ToolResult"]);
    let mut init = InitContext {
        tools: Vec::new(),
        exports: Vec::new(),
        import_order: Vec::new(),
        imports: Vec::new(),
    };
    for ((set, tool), module) in tools.into_iter().zip(modules) {
        let class_name = classes.unique_class(class_name(&module));
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
        let extra_literal = (!root.is_empty())
            .then(|| Expr::from_json(&Value::Object(root)).layout(8, "        extra=".len(), 1));
        let context = ToolContext {
            source_doc: doc(&set.path),
            tool: ToolClass {
                name_doc: doc_line(&tool.name),
                class_name: class_name.clone(),
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
            },
        };
        out.render(
            options,
            "basetool/tool.py.j2",
            format!("{PACKAGE}/{module}.py"),
            context,
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
