//! Reading Python source: the top-level function definitions of a module.
//!
//! NORA tools are Python scripts whose `run(params)` the framework calls, and
//! AgentStack packages declare their tools as the functions of `__init__.py`.
//! This module parses such a file with a real Python parser (tree-sitter's
//! Python grammar, not regular expressions) and returns what the rules and
//! readers need: each top-level `def` with its parameters, annotations,
//! defaults (as source text), decorators and docstring; each top-level
//! class with its bases, decorators, docstring and the names its body
//! assigns (the fields of a dataclass, `TypedDict` or pydantic model, the
//! members of an `Enum`); and the other names the module binds at top level
//! (imports, assignments, classes).
//!
//! Parsing never panics, whatever the text. Spans are byte offsets into the
//! text that was parsed.

use std::ops::Range;

use tree_sitter::{Node, Parser};

/// What a module defines at its top level.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Module {
    /// Top-level `def`s (plain, `async`, decorated), in source order. A name
    /// defined twice appears twice; the last one is what Python keeps.
    /// Functions nested in other functions, in classes or in compound
    /// statements (`if`, `try`, ...) are not listed.
    pub functions: Vec<Function>,
    /// Top-level classes (plain or decorated), in source order.
    pub classes: Vec<Class>,
    /// Other names bound by top-level statements: imports (`import a.b`
    /// binds `a`; `from m import f as g` binds `g`), assignments (`x = ...`,
    /// `x: T = ...`, `(x) = ...`, `x, y = ...`) and classes; and every name
    /// bound inside top-level compound statements (`if`, `try`, `with`,
    /// `for`, `while`), functions included, since which one runs is only
    /// known at run time. Star imports bind nothing here.
    pub bindings: Vec<String>,
    /// A top-level `from m import *`: names may be bound that toolc cannot
    /// see.
    pub star_import: bool,
}

impl Module {
    /// The function Python ends up with under `name`: the last top-level
    /// `def` of that name.
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().rev().find(|f| f.name == name)
    }

    /// The class Python ends up with under `name`: the last top-level
    /// `class` of that name.
    pub fn class(&self, name: &str) -> Option<&Class> {
        self.classes.iter().rev().find(|c| c.name == name)
    }

    /// Whether a top-level statement other than `def` binds `name`.
    pub fn binds(&self, name: &str) -> bool {
        self.bindings.iter().any(|b| b == name)
    }
}

/// One top-level function definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    /// `async def`.
    pub is_async: bool,
    /// Each decorator's expression as source text, without the `@`.
    pub decorators: Vec<String>,
    pub parameters: Vec<Parameter>,
    /// The return annotation as source text.
    pub returns: Option<String>,
    /// The docstring, with its quotes and prefix removed and indentation
    /// cleaned as `inspect.cleandoc` does. Escape sequences are kept as
    /// written.
    pub docstring: Option<String>,
    /// Bytes of the `def` statement (from `def` or `async`, decorators not
    /// included) to the end of its body.
    pub span: Range<usize>,
    /// Bytes of the function's name.
    pub name_span: Range<usize>,
}

impl Function {
    /// The parameters a caller may pass positionally.
    pub fn positional(&self) -> impl Iterator<Item = &Parameter> {
        self.parameters.iter().filter(|p| {
            matches!(
                p.kind,
                ParameterKind::PositionalOnly | ParameterKind::PositionalOrKeyword
            )
        })
    }

    /// Whether the function accepts `*args`.
    pub fn has_var_positional(&self) -> bool {
        self.parameters
            .iter()
            .any(|p| p.kind == ParameterKind::VarPositional)
    }
}

/// One top-level class definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Class {
    pub name: String,
    /// Each base and keyword argument of the `class` line as source text
    /// (`Enum`, `str`, `total=False`).
    pub bases: Vec<String>,
    /// Each decorator's expression as source text, without the `@`.
    pub decorators: Vec<String>,
    /// The docstring, cleaned as for functions.
    pub docstring: Option<String>,
    /// The assignments of the class body, in source order: `name: hint`,
    /// `name: hint = value`, `name = value`. Methods and nested statements
    /// are not listed.
    pub assignments: Vec<ClassAssignment>,
    /// Bytes of the `class` statement to the end of its body.
    pub span: Range<usize>,
}

/// One `name: hint = value` (either part optional) in a class body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassAssignment {
    pub name: String,
    /// The annotation as source text.
    pub annotation: Option<String>,
    /// The assigned value as source text.
    pub value: Option<String>,
    /// The string literal right after the statement (an attribute
    /// docstring, which pydantic reads with `use_attribute_docstrings`),
    /// cleaned as docstrings are.
    pub docstring: Option<String>,
    /// Bytes of the statement.
    pub span: Range<usize>,
}

/// One parameter of a function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parameter {
    /// The name without `*` or `**`.
    pub name: String,
    pub kind: ParameterKind,
    /// The annotation as source text.
    pub annotation: Option<String>,
    /// The default value as source text.
    pub default: Option<String>,
    /// Bytes of the whole parameter (name, annotation and default).
    pub span: Range<usize>,
}

impl Parameter {
    /// A positional or keyword-only parameter without a default.
    pub fn is_required(&self) -> bool {
        self.default.is_none()
            && !matches!(
                self.kind,
                ParameterKind::VarPositional | ParameterKind::VarKeyword
            )
    }
}

/// How a parameter can be passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParameterKind {
    /// Before a `/`.
    PositionalOnly,
    /// An ordinary parameter.
    PositionalOrKeyword,
    /// `*args`.
    VarPositional,
    /// After `*` or `*args`.
    KeywordOnly,
    /// `**kwargs`.
    VarKeyword,
}

pub use crate::syntax::SyntaxError;
use crate::syntax::error_at;

mod statements;
mod strings;

use strings::{cleandoc, string_value};

/// Parses a module and lists its top-level definitions, or reports the
/// first syntax error.
pub fn parse(text: &str) -> Result<Module, SyntaxError> {
    if let Some(error) = crate::syntax::too_deep(text, crate::syntax::Language::Python) {
        return Err(error);
    }
    // A large module is parsed a run of statements at a time: its tree
    // would take hundreds of times its size (see `statements`).
    let scanned = statements::scan(text.as_bytes());
    let runs = if text.len() <= statements::RUN_BYTES {
        std::iter::once(0..text.len()).collect()
    } else {
        match &scanned {
            Ok(scanned) => statements::runs(text.len(), &scanned.starts),
            Err((offset, message)) => return Err(error_at(text, *offset, message)),
        }
    };
    // tree-sitter's Python scanner looks past every comment line that
    // follows for the next line's indentation, again at each of them: 10,000
    // comment lines took 8 s. It reads a copy with those lines blanked
    // (spaces, the same offsets), and the module is read from the text
    // itself. Should the scan have misread a string (a case it does not
    // know), the copy does not parse, and the text itself is parsed.
    if let Ok(scanned) = &scanned
        && !scanned.comment_lines.is_empty()
    {
        let mut copy = text.as_bytes().to_vec();
        for line in &scanned.comment_lines {
            copy[line.clone()].fill(b' ');
        }
        if let Ok(copy) = String::from_utf8(copy)
            && let Ok(module) = parse_runs(text, &copy, &runs)
        {
            return Ok(module);
        }
    }
    parse_runs(text, text, &runs)
}

/// The module `text`, parsed from `parsed` (the text, or a copy of it of
/// the same length) `runs` at a time.
fn parse_runs(
    text: &str,
    parsed: &str,
    runs: &[std::ops::Range<usize>],
) -> Result<Module, SyntaxError> {
    let mut parser = Parser::new();
    if parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .is_err()
    {
        return Err(error_at(text, 0, "the Python parser is unavailable"));
    }
    let mut module = Module::default();
    // The row of each run's start, counted on from the previous one's.
    let (mut row, mut counted) = (0, 0);
    for run in runs.iter().cloned() {
        if run.start != 0 || run.end != text.len() {
            let bytes = text.as_bytes();
            row += bytes[counted..run.start]
                .iter()
                .filter(|b| **b == b'\n')
                .count();
            let end_row = row
                + bytes[run.start..run.end]
                    .iter()
                    .filter(|b| **b == b'\n')
                    .count();
            let end_column = run.end - text[..run.end].rfind('\n').map_or(0, |i| i + 1);
            counted = run.start;
            let range = tree_sitter::Range {
                start_byte: run.start,
                end_byte: run.end,
                // Each run starts a line: a top-level statement.
                start_point: tree_sitter::Point::new(row, 0),
                end_point: tree_sitter::Point::new(end_row, end_column),
            };
            if parser.set_included_ranges(&[range]).is_err() {
                return Err(error_at(text, run.start, "the Python parser gave up"));
            }
        }
        let Some(tree) = parser.parse(parsed, None) else {
            return Err(error_at(text, run.start, "the Python parser gave up"));
        };
        let root = tree.root_node();
        if let Some((offset, message)) = first_error(root, text) {
            return Err(error_at(text, offset, &message));
        }
        let mut cursor = root.walk();
        for statement in root.named_children(&mut cursor) {
            read_statement(statement, text, &mut module);
        }
    }
    if let Some(Parameter { name, span, .. }) = repeated_parameter(&module) {
        let message = format!("duplicate argument '{name}' in function definition");
        return Err(error_at(text, span.start, &message));
    }
    Ok(module)
}

/// The first parameter that repeats a name in its `def` (`def f(a, a)`):
/// tree-sitter accepts it, Python refuses to compile the module.
fn repeated_parameter(module: &Module) -> Option<&Parameter> {
    module.functions.iter().find_map(|function| {
        let mut seen = std::collections::HashSet::new();
        function.parameters.iter().find(|p| !seen.insert(&p.name))
    })
}

fn read_statement(statement: Node, text: &str, module: &mut Module) {
    match statement.kind() {
        "function_definition" => module
            .functions
            .push(read_function(statement, Vec::new(), text)),
        "decorated_definition" => {
            let decorators = decorators(statement, text);
            match statement.child_by_field_name("definition") {
                Some(def) if def.kind() == "function_definition" => {
                    module.functions.push(read_function(def, decorators, text));
                }
                Some(def) if def.kind() == "class_definition" => {
                    if let Some(name) = def.child_by_field_name("name") {
                        module.bindings.push(source(name, text).to_string());
                    }
                    module.classes.push(read_class(def, decorators, text));
                }
                Some(def) => read_statement(def, text, module),
                None => {}
            }
        }
        "class_definition" => {
            if let Some(name) = statement.child_by_field_name("name") {
                module.bindings.push(source(name, text).to_string());
            }
            module.classes.push(read_class(statement, Vec::new(), text));
        }
        "import_statement" | "import_from_statement" => read_import(statement, text, module),
        "if_statement" | "try_statement" | "with_statement" | "for_statement"
        | "while_statement" => read_conditional(statement, text, module, 0),
        "expression_statement" => {
            let mut cursor = statement.walk();
            for child in statement.named_children(&mut cursor) {
                if child.kind() == "assignment" {
                    read_assignment(child, text, module);
                }
            }
        }
        _ => {}
    }
}

/// How deep compound statements are searched for bindings.
const MAX_CONDITIONAL_DEPTH: usize = 8;

/// The names a compound statement's blocks may bind: any definition,
/// import or assignment in them, at any depth up to a bound.
fn read_conditional(statement: Node, text: &str, module: &mut Module, depth: usize) {
    if depth > MAX_CONDITIONAL_DEPTH {
        return;
    }
    let mut cursor = statement.walk();
    for child in statement.named_children(&mut cursor) {
        match child.kind() {
            "function_definition" | "class_definition" => {
                if let Some(name) = child.child_by_field_name("name") {
                    module.bindings.push(source(name, text).to_string());
                }
            }
            "decorated_definition" => {
                let name = child
                    .child_by_field_name("definition")
                    .and_then(|d| d.child_by_field_name("name"));
                if let Some(name) = name {
                    module.bindings.push(source(name, text).to_string());
                }
            }
            "import_statement" | "import_from_statement" => read_import(child, text, module),
            "expression_statement" => {
                let mut inner = child.walk();
                for assignment in child.named_children(&mut inner) {
                    if assignment.kind() == "assignment" {
                        read_assignment(assignment, text, module);
                    }
                }
            }
            // Blocks and clauses (`else`, `elif`, `except`, `finally`) and
            // nested compound statements.
            _ => read_conditional(child, text, module, depth + 1),
        }
    }
}

fn read_import(statement: Node, text: &str, module: &mut Module) {
    let mut wildcard = statement.walk();
    if statement
        .named_children(&mut wildcard)
        .any(|c| c.kind() == "wildcard_import")
    {
        module.star_import = true;
    }
    let module_name = statement.child_by_field_name("module_name").map(|n| n.id());
    let mut cursor = statement.walk();
    for name in statement.children_by_field_name("name", &mut cursor) {
        if Some(name.id()) == module_name {
            continue;
        }
        let bound = match name.kind() {
            "aliased_import" => name
                .child_by_field_name("alias")
                .map(|alias| source(alias, text).to_string()),
            // `import a.b` binds `a`; `from m import f` binds `f`.
            _ => source(name, text).split('.').next().map(str::to_string),
        };
        if let Some(bound) = bound {
            module.bindings.push(bound.trim().to_string());
        }
    }
}

fn read_assignment(assignment: Node, text: &str, module: &mut Module) {
    if let Some(left) = assignment.child_by_field_name("left") {
        bind_targets(left, text, module, 0);
    }
    // `a = b = value`: the right side is another assignment.
    if let Some(right) = assignment.child_by_field_name("right")
        && right.kind() == "assignment"
    {
        read_assignment(right, text, module);
    }
}

/// The names an assignment target binds: `x`, `(x)`, `x, y`, `[x, (y, z)]`.
/// (Attributes and subscripts bind no module name.)
fn bind_targets(target: Node, text: &str, module: &mut Module, depth: usize) {
    match target.kind() {
        "identifier" => module.bindings.push(source(target, text).to_string()),
        "parenthesized_expression"
        | "pattern_list"
        | "tuple_pattern"
        | "list_pattern"
        | "tuple"
        | "list"
        | "expression_list"
            if depth < MAX_CONDITIONAL_DEPTH =>
        {
            let mut cursor = target.walk();
            for child in target.named_children(&mut cursor) {
                bind_targets(child, text, module, depth + 1);
            }
        }
        _ => {}
    }
}

fn decorators(decorated: Node, text: &str) -> Vec<String> {
    let mut cursor = decorated.walk();
    decorated
        .named_children(&mut cursor)
        .filter(|c| c.kind() == "decorator")
        .map(|d| {
            source(d, text)
                .trim_start()
                .trim_start_matches('@')
                .trim()
                .to_string()
        })
        .collect()
}

fn read_function(def: Node, decorators: Vec<String>, text: &str) -> Function {
    let name = def.child_by_field_name("name");
    let is_async = def.child(0).is_some_and(|c| c.kind() == "async");
    let parameters = def
        .child_by_field_name("parameters")
        .map(|p| read_parameters(p, text))
        .unwrap_or_default();
    Function {
        name: name
            .map(|n| source(n, text).to_string())
            .unwrap_or_default(),
        is_async,
        decorators,
        parameters,
        returns: def
            .child_by_field_name("return_type")
            .map(|r| source(r, text).to_string()),
        docstring: def
            .child_by_field_name("body")
            .and_then(|body| docstring(body, text)),
        span: def.byte_range(),
        name_span: name.map(|n| n.byte_range()).unwrap_or(0..0),
    }
}

fn read_class(class: Node, decorators: Vec<String>, text: &str) -> Class {
    let bases = class
        .child_by_field_name("superclasses")
        .map(|list| {
            let mut cursor = list.walk();
            list.named_children(&mut cursor)
                .filter(|c| c.kind() != "comment")
                .map(|c| source(c, text).to_string())
                .collect()
        })
        .unwrap_or_default();
    let body = class.child_by_field_name("body");
    let mut assignments: Vec<ClassAssignment> = Vec::new();
    if let Some(body) = body {
        let mut cursor = body.walk();
        let mut follows_assignment = false;
        for statement in body.named_children(&mut cursor) {
            if statement.kind() == "comment" {
                continue;
            }
            if std::mem::replace(&mut follows_assignment, false)
                && let Some(doc) = string_statement(statement, text)
            {
                if let Some(last) = assignments.last_mut() {
                    last.docstring = Some(doc);
                }
                continue;
            }
            if statement.kind() != "expression_statement" || statement.named_child_count() != 1 {
                continue;
            }
            let Some(assignment) = first_named_child(statement) else {
                continue;
            };
            let Some(left) = assignment.child_by_field_name("left") else {
                continue;
            };
            if assignment.kind() != "assignment" || left.kind() != "identifier" {
                continue;
            }
            assignments.push(ClassAssignment {
                name: source(left, text).to_string(),
                annotation: assignment
                    .child_by_field_name("type")
                    .map(|t| source(t, text).to_string()),
                value: assignment
                    .child_by_field_name("right")
                    .map(|v| source(v, text).to_string()),
                docstring: None,
                span: statement.byte_range(),
            });
            follows_assignment = true;
        }
    }
    Class {
        name: class
            .child_by_field_name("name")
            .map(|n| source(n, text).to_string())
            .unwrap_or_default(),
        bases,
        decorators,
        docstring: body.and_then(|body| docstring(body, text)),
        assignments,
        span: class.byte_range(),
    }
}

fn read_parameters(list: Node, text: &str) -> Vec<Parameter> {
    let mut parameters: Vec<Parameter> = Vec::new();
    let mut keyword_only = false;
    let mut cursor = list.walk();
    for node in list.named_children(&mut cursor) {
        let (name_node, annotation, default) = match node.kind() {
            "identifier" | "list_splat_pattern" | "dictionary_splat_pattern" | "tuple_pattern" => {
                (Some(node), None, None)
            }
            "typed_parameter" => (
                first_named_child(node),
                node.child_by_field_name("type"),
                None,
            ),
            "default_parameter" | "typed_default_parameter" => (
                node.child_by_field_name("name"),
                node.child_by_field_name("type"),
                node.child_by_field_name("value"),
            ),
            "keyword_separator" => {
                keyword_only = true;
                continue;
            }
            "positional_separator" => {
                // Everything so far is positional-only.
                for p in &mut parameters {
                    if p.kind == ParameterKind::PositionalOrKeyword {
                        p.kind = ParameterKind::PositionalOnly;
                    }
                }
                continue;
            }
            _ => continue,
        };
        let Some(name_node) = name_node else {
            continue;
        };
        let kind = match name_node.kind() {
            "list_splat_pattern" => {
                keyword_only = true;
                ParameterKind::VarPositional
            }
            "dictionary_splat_pattern" => ParameterKind::VarKeyword,
            _ if keyword_only => ParameterKind::KeywordOnly,
            _ => ParameterKind::PositionalOrKeyword,
        };
        let name = source(name_node, text)
            .trim_start_matches('*')
            .trim()
            .to_string();
        parameters.push(Parameter {
            name,
            kind,
            annotation: annotation.map(|a| source(a, text).to_string()),
            default: default.map(|d| source(d, text).to_string()),
            span: node.byte_range(),
        });
    }
    parameters
}

fn first_named_child(node: Node) -> Option<Node> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).next()
}

/// The docstring of a body: its first statement, when that is a string
/// literal on its own.
fn docstring(body: Node, text: &str) -> Option<String> {
    string_statement(first_named_child(body)?, text)
}

/// The cleaned text of a statement that is a string literal on its own.
fn string_statement(first: Node, text: &str) -> Option<String> {
    if first.kind() != "expression_statement" || first.named_child_count() != 1 {
        return None;
    }
    let mut literal = first_named_child(first)?;
    // `("long" "text")`: one string to Python.
    while literal.kind() == "parenthesized_expression" && literal.named_child_count() == 1 {
        literal = first_named_child(literal)?;
    }
    let raw = match literal.kind() {
        "string" => string_value(source(literal, text))?,
        "concatenated_string" => {
            let mut cursor = literal.walk();
            let parts: Option<Vec<String>> = literal
                .named_children(&mut cursor)
                .map(|part| string_value(source(part, text)))
                .collect();
            parts?.concat()
        }
        _ => return None,
    };
    Some(cleandoc(&raw))
}

/// The earliest ERROR or MISSING node (or empty block), and what to say
/// about it. An ERROR node starts where tree-sitter began skipping, which
/// can be before the token CPython would point at (for `def f()` without
/// its colon, at `def`).
fn first_error(root: Node, text: &str) -> Option<(usize, String)> {
    let mut best: Option<(usize, String)> = None;
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if best
            .as_ref()
            .is_some_and(|(at, _)| node.start_byte() >= *at)
        {
            continue;
        }
        if node.is_missing() {
            best = Some((
                node.start_byte(),
                format!("missing {}", describe(node.kind())),
            ));
            continue;
        }
        if node.is_error() {
            best = Some((node.start_byte(), "invalid syntax".to_string()));
            continue;
        }
        // tree-sitter accepts a block with no statement (`def f():` then
        // an unindented line); Python does not.
        if node.kind() == "block" && !has_statement(node) {
            best = Some((
                next_token(text, node.start_byte()),
                "expected an indented block".to_string(),
            ));
            continue;
        }
        // Below a node without errors only an empty block is left to
        // find, and only statements that hold blocks lead to one.
        let clean = !node.has_error();
        let mut cursor = node.walk();
        let children: Vec<Node> = node
            .children(&mut cursor)
            .filter(|child| !clean || BLOCK_HOLDERS.contains(&child.kind()))
            .collect();
        stack.extend(children.into_iter().rev());
    }
    best
}

/// The node kinds of tree-sitter-python's grammar that can hold a `block`,
/// directly or below (from its node-types.json): no expression and no
/// simple statement can.
const BLOCK_HOLDERS: &[&str] = &[
    "block",
    "case_clause",
    "class_definition",
    "decorated_definition",
    "elif_clause",
    "else_clause",
    "except_clause",
    "finally_clause",
    "for_statement",
    "function_definition",
    "if_statement",
    "match_statement",
    "module",
    "try_statement",
    "while_statement",
    "with_statement",
];

/// Where the next token after `offset` starts: past blanks, line breaks
/// and comments (where CPython reports an empty block).
fn next_token(text: &str, offset: usize) -> usize {
    let mut at = offset.min(text.len());
    loop {
        let rest = text.get(at..).unwrap_or("");
        let trimmed = rest.trim_start();
        at += rest.len() - trimmed.len();
        if !trimmed.starts_with('#') {
            return at;
        }
        at += trimmed.find('\n').unwrap_or(trimmed.len());
    }
}

fn has_statement(block: Node) -> bool {
    let mut cursor = block.walk();
    block
        .named_children(&mut cursor)
        .any(|c| c.kind() != "comment")
}

fn describe(kind: &str) -> String {
    if kind.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && kind.len() > 2 {
        kind.replace('_', " ")
    } else {
        format!("\"{kind}\"")
    }
}

fn source<'t>(node: Node, text: &'t str) -> &'t str {
    text.get(node.byte_range()).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_run_function() {
        let module = parse("def run(params: dict) -> str:\n    \"\"\"Run.\"\"\"\n").unwrap();
        let run = module.function("run").unwrap();
        assert_eq!(run.parameters[0].name, "params");
        assert_eq!(run.parameters[0].annotation.as_deref(), Some("dict"));
        assert_eq!(run.docstring.as_deref(), Some("Run."));
    }

    fn parsed(text: &str) -> Module {
        match parse(text) {
            Ok(module) => module,
            Err(e) => panic!("{text:?} does not parse: {e}"),
        }
    }

    fn names(module: &Module) -> Vec<&str> {
        module.functions.iter().map(|f| f.name.as_str()).collect()
    }

    #[test]
    fn finds_top_level_functions_with_their_spans() {
        let text = "import os\n\ndef run(params):\n    return 'x'\n\ndef helper(a, b):\n    pass\n";
        let module = parsed(text);
        assert_eq!(names(&module), ["run", "helper"]);
        let run = module.function("run").expect("run");
        assert_eq!(&text[run.span.clone()], "def run(params):\n    return 'x'");
        assert_eq!(&text[run.name_span.clone()], "run");
        assert!(!run.is_async);
        assert_eq!(run.parameters.len(), 1);
        assert_eq!(run.parameters[0].name, "params");
        assert_eq!(run.parameters[0].kind, ParameterKind::PositionalOrKeyword);
        assert!(run.parameters[0].is_required());
        assert!(module.binds("os"));
    }

    #[test]
    fn nested_functions_and_methods_are_not_top_level() {
        let text = "\
def outer():
    def run(params):
        pass
    return run

class Tool:
    def run(self, params):
        pass

if True:
    def run(params):
        pass
";
        let module = parsed(text);
        assert_eq!(names(&module), ["outer"]);
        assert!(module.function("run").is_none());
        assert!(module.binds("Tool"));
        assert_eq!(module.classes.len(), 1);
    }

    #[test]
    fn classes_give_bases_docstrings_and_body_assignments() {
        let text = "\
@dataclasses.dataclass(frozen=True)
class Point(Base, total=False):
    '''A point.'''
    x: int
    (
        'Horizon'
        'tal.'
    )
    # a comment
    y: float = 0.5
    RED = 'red'
    a, b = 1, 2
    'not a field docstring: it follows no assignment'
    def method(self):
        z: int = 1
";
        let module = parsed(text);
        let class = module.class("Point").expect("Point");
        assert_eq!(class.bases, ["Base", "total=False"]);
        assert_eq!(class.decorators, ["dataclasses.dataclass(frozen=True)"]);
        assert_eq!(class.docstring.as_deref(), Some("A point."));
        let fields: Vec<_> = class
            .assignments
            .iter()
            .map(|a| (a.name.as_str(), a.annotation.as_deref(), a.value.as_deref()))
            .collect();
        assert_eq!(
            fields,
            [
                ("x", Some("int"), None),
                ("y", Some("float"), Some("0.5")),
                ("RED", None, Some("'red'")),
            ]
        );
        let docs: Vec<_> = class
            .assignments
            .iter()
            .map(|a| a.docstring.as_deref())
            .collect();
        assert_eq!(docs, [Some("Horizontal."), None, None]);
        assert!(module.binds("Point"));
    }

    #[test]
    fn the_last_definition_wins() {
        let module = parsed("def run():\n    pass\n\ndef run(params):\n    pass\n");
        assert_eq!(module.function("run").map(|f| f.parameters.len()), Some(1));
    }

    #[test]
    fn decorators_async_hints_and_defaults() {
        let text = "\
@tool
@functools.lru_cache(maxsize=2)
async def fetch(url: str, /, retries: int = 3, *args, timeout: float | None = None, verbose=False, **kw: Any) -> dict[str, int]:
    '''Fetch a URL.

    Args:
        url: where.
    '''
";
        let module = parsed(text);
        let f = module.function("fetch").expect("fetch");
        assert!(f.is_async);
        assert_eq!(f.decorators, ["tool", "functools.lru_cache(maxsize=2)"]);
        assert!(text[f.span.clone()].starts_with("async def fetch"));
        assert_eq!(f.returns.as_deref(), Some("dict[str, int]"));
        assert_eq!(
            f.docstring.as_deref(),
            Some("Fetch a URL.\n\nArgs:\n    url: where.")
        );
        let summary: Vec<_> = f
            .parameters
            .iter()
            .map(|p| {
                (
                    p.name.as_str(),
                    p.kind,
                    p.annotation.as_deref(),
                    p.default.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                ("url", ParameterKind::PositionalOnly, Some("str"), None),
                (
                    "retries",
                    ParameterKind::PositionalOrKeyword,
                    Some("int"),
                    Some("3")
                ),
                ("args", ParameterKind::VarPositional, None, None),
                (
                    "timeout",
                    ParameterKind::KeywordOnly,
                    Some("float | None"),
                    Some("None")
                ),
                ("verbose", ParameterKind::KeywordOnly, None, Some("False")),
                ("kw", ParameterKind::VarKeyword, Some("Any"), None),
            ]
        );
        assert_eq!(f.positional().count(), 2);
        assert!(f.has_var_positional());
    }

    #[test]
    fn bare_star_makes_keyword_only_parameters() {
        let module = parsed("def run(params, *, mode):\n    pass\n");
        let run = module.function("run").expect("run");
        assert_eq!(run.parameters[1].name, "mode");
        assert_eq!(run.parameters[1].kind, ParameterKind::KeywordOnly);
        assert!(run.parameters[1].is_required());
    }

    #[test]
    fn docstrings_single_quoted_raw_and_absent() {
        let module = parsed(
            "def a():\n    \"One line.\"\n\ndef b():\n    r'''\n    Raw \\d.\n    '''\n\ndef c():\n    x = 1\n    'not a docstring'\n\ndef d():\n    f'no {1}'\n",
        );
        let docs: Vec<_> = module
            .functions
            .iter()
            .map(|f| f.docstring.as_deref())
            .collect();
        assert_eq!(docs, [Some("One line."), Some("Raw \\d."), None, None]);
    }

    #[test]
    fn imports_and_assignments_bind_names() {
        let module = parsed(
            "import a.b\nfrom m import run as go, other\nfrom n import *\nx = y = 1\nz: int = 2\n",
        );
        for name in ["a", "go", "other", "x", "y", "z"] {
            assert!(module.binds(name), "{name}: {:?}", module.bindings);
        }
        assert!(!module.binds("run"));
        assert!(!module.binds("m"));
    }

    #[test]
    fn syntax_errors_give_the_first_bad_position() {
        let error = parse("def ok():\n    pass\n\nx = (1 +\ndef run(params):\n    pass\n")
            .expect_err("error");
        assert!(error.line >= 4, "{error:?}");
        // tree-sitter skips the whole statement: the error starts at `def`.
        let error = parse("x = 1\ndef run(params)\n    return 1\n").expect_err("error");
        assert_eq!(
            (error.offset, error.line, error.column),
            (6, 2, 1),
            "{error:?}"
        );
        assert_eq!(error.message, "invalid syntax");
        let error = parse("def run(params):\nreturn 1\n").expect_err("error");
        assert_eq!(error.message, "expected an indented block");
        assert_eq!(error.line, 2, "{error:?}");
        let error = parse("def run(params):\n    # only a comment\n").expect_err("error");
        assert_eq!(error.message, "expected an indented block");
        let error = parse("def run(params:\n    pass\n").expect_err("error");
        assert!(error.line <= 2, "{error:?}");
        let error = parse("x = 1\ny = é $ 2\n").expect_err("error");
        assert_eq!(error.line, 2, "{error:?}");
        assert_eq!(
            error.to_string(),
            format!("{} at {}:{}", error.message, error.line, error.column)
        );
    }

    /// The search for an empty block descends, below nodes without
    /// errors, only into [`BLOCK_HOLDERS`]: they must be every kind of the
    /// grammar that can hold a block, directly or below.
    #[test]
    fn block_holders_are_every_kind_that_can_hold_a_block() {
        let types: serde_json::Value =
            serde_json::from_str(tree_sitter_python::NODE_TYPES).unwrap();
        let types = types.as_array().unwrap();
        let subtypes = |kind: &str| -> Option<Vec<String>> {
            let entry = types.iter().find(|t| t["type"] == kind)?;
            let subtypes = entry["subtypes"].as_array()?;
            Some(
                subtypes
                    .iter()
                    .map(|t| t["type"].as_str().unwrap().to_string())
                    .collect(),
            )
        };
        // A kind's possible children, supertypes expanded.
        let mut children: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        for entry in types {
            let mut specs: Vec<&serde_json::Value> = entry["fields"]
                .as_object()
                .map(|fields| fields.values().collect())
                .unwrap_or_default();
            specs.push(&entry["children"]);
            let mut kinds: Vec<String> = specs
                .iter()
                .filter_map(|spec| spec["types"].as_array())
                .flatten()
                .map(|t| t["type"].as_str().unwrap().to_string())
                .collect();
            let mut expanded = Vec::new();
            while let Some(kind) = kinds.pop() {
                match subtypes(&kind) {
                    Some(more) => kinds.extend(more),
                    None => expanded.push(kind),
                }
            }
            children.insert(entry["type"].as_str().unwrap().to_string(), expanded);
        }
        let mut holders: std::collections::BTreeSet<String> = ["block".to_string()].into();
        loop {
            let more: Vec<String> = children
                .iter()
                .filter(|(kind, inside)| {
                    !holders.contains(*kind) && inside.iter().any(|k| holders.contains(k))
                })
                .map(|(kind, _)| kind.clone())
                .collect();
            if more.is_empty() {
                break;
            }
            holders.extend(more);
        }
        let listed: std::collections::BTreeSet<String> =
            BLOCK_HOLDERS.iter().map(|k| k.to_string()).collect();
        assert_eq!(listed, holders);
    }

    /// An empty block is found wherever it is, in a module without other
    /// errors.
    #[test]
    fn an_empty_block_is_found_in_every_compound_statement() {
        for (text, line) in [
            ("class A:\n    def f(self):\n    # nothing\n", 3),
            ("@d\ndef f():\n# nothing\n", 3),
            ("if x:\n    pass\nelif y:\n# nothing\n", 4),
            ("try:\n    pass\nexcept E:\n# nothing\n", 4),
            ("try:\n    pass\nfinally:\n# nothing\n", 4),
            ("for a in b:\n    while c:\n    # nothing\n", 3),
            (
                "with a:\n    if b:\n        pass\n    else:\n    # nothing\n",
                5,
            ),
            ("match x:\n    case 1:\n    # nothing\n", 3),
        ] {
            let error = parse(text).expect_err(text);
            assert_eq!(error.message, "expected an indented block", "{text:?}");
            assert!(error.line >= line, "{text:?}: {error:?}");
        }
    }

    /// Comment lines are blanked in the copy tree-sitter reads; what is
    /// read is unchanged, a `#` line inside a string included.
    #[test]
    fn comment_lines_change_nothing_that_is_read() {
        let body = "    # a comment\n#at column 0\n\t  # tabbed\r\n";
        let text = format!(
            "import os\n{body}def run(params, limit=1):\n    \"\"\"Runs.\n    # kept in the docstring\n    \"\"\"\n    if params:\n{body}        x = '#not'  # trailing\n{body}    return x\n{body}"
        );
        let module = parsed(&text);
        let run = module.function("run").expect("run");
        assert_eq!(
            run.docstring.as_deref(),
            Some("Runs.\n# kept in the docstring")
        );
        assert_eq!(run.parameters.len(), 2);
        assert_eq!(&text[run.name_span.clone()], "run");
        // An error after comment lines is where it is.
        let broken = format!("{text}def g(:\n{body}    pass\n");
        let error = parse(&broken).expect_err("broken");
        assert_eq!(error.line, text.matches('\n').count() + 1, "{error}");
        // Many of them, in a module parsed in runs too.
        let long = format!(
            "def run(params):\n    if params:\n        x = 1\n{}    return x\n",
            "    # comment line\n".repeat(20_000)
        );
        assert!(long.len() > statements::RUN_BYTES);
        assert!(parsed(&long).function("run").is_some());
        // More comment lines in one statement than it may hold tokens:
        // they make no node, and count for nothing.
        let longer = format!(
            "def run(params):\n    x = 1\n{}    return x\n",
            "    # c\n".repeat(statements::MAX_STATEMENT_TOKENS + 1)
        );
        assert!(parsed(&longer).function("run").is_some());
    }

    #[test]
    fn empty_and_comment_only_files_define_nothing() {
        assert_eq!(parsed(""), Module::default());
        assert_eq!(parsed("# nothing\n\n"), Module::default());
        assert_eq!(parsed("\"\"\"Module docstring.\"\"\"\n").functions, []);
    }

    #[test]
    fn any_text_is_handled_without_panicking() {
        assert!(parse("def run(params):\n    pass\n").is_ok());
        // A cheap generator: every prefix of a mix of Python and junk, and
        // some pseudo-random strings.
        let sample = "@d\nasync def f(a: int = (1, [2]), /, *b, c, **d) -> 'x':\n    \"\"\"Doc\"\"\"\n\tclass K: pass\n\u{0}\u{feff}é😀 \\ ''' \" ( ] }";
        for end in 0..=sample.len() {
            if let Some(prefix) = sample.get(..end) {
                let _ = parse(prefix);
            }
        }
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..200 {
            let bytes: Vec<u8> = (0..64)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state % 128) as u8
                })
                .collect();
            // Below 128 every byte is a character of its own.
            let _ = parse(&String::from_utf8_lossy(&bytes));
        }
    }

    #[test]
    fn names_bound_under_conditions_and_by_patterns_count_as_bindings() {
        let module = parse(
            "import sys\n\
             if sys.version_info >= (3, 8):\n    def run(params):\n        return ''\n\
             else:\n    def run(params):\n        return ''\n\
             try:\n    from fast import search\nexcept ImportError:\n    def search(q):\n        return q\n\
             (fetch) = make()\n\
             a, (b, c) = 1, (2, 3)\n",
        )
        .expect("parses");
        for name in ["run", "search", "fetch", "a", "b", "c"] {
            assert!(module.binds(name), "{name}");
        }
        // A definition under a condition is not a known top-level function.
        assert!(module.function("run").is_none());
        assert!(!module.star_import);
    }
}
