//! Reading TypeScript source: the Nachos tool class of a package.
//!
//! A Nachos tool's parameters live in its TypeScript class, not in its
//! manifest: a class implementing the `Tool` interface with a `toolId`
//! property equal to the manifest's `provides.tool`, and `name`,
//! `description`, `securityTier` and `readonly parameters = {...}`
//! properties. This module parses a file with a real TypeScript parser
//! (tree-sitter's TypeScript grammar, not regular expressions) and reads
//! those properties.
//!
//! The `parameters` expression becomes the JSON of the value JavaScript
//! gives it when the class is instantiated: literals, arrays and objects,
//! with what they use from the same file (`const`s, spreads, `!0`, ...;
//! see `evaluate`). Anything toolc cannot evaluate without running code (a
//! call, an import, a `let`) is left out of the JSON and listed in
//! [`ToolClass::unsupported`] with its span: reported, never guessed.
//!
//! Parsing never panics, whatever the text. Spans are byte offsets into the
//! text that was parsed.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value};
use tree_sitter::{Node, Parser};

mod evaluate;
mod literals;
mod scope;

use evaluate::Evaluator;
use literals::{literal_string, string_value, tier_value};

/// Nachos' `SecurityTier` enum members, in tier order.
pub const TIERS: [&str; 5] = ["SAFE", "STANDARD", "ELEVATED", "RESTRICTED", "DANGEROUS"];

/// The class of a Nachos tool, as far as its literal properties say.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolClass {
    /// The class's own name (`FilesystemWriteTool`); empty for an
    /// anonymous class expression.
    pub class_name: String,
    /// Bytes of the class (from `class`, decorators and `export` not
    /// included).
    pub span: Range<usize>,
    /// The `toolId` property's value.
    pub tool_id: String,
    /// The `name` property: the tool's display name.
    pub name: Option<String>,
    pub description: Option<String>,
    /// The `securityTier` property: `SecurityTier.SAFE` ... `DANGEROUS` are
    /// 0 to 4; a number literal is taken as written (whole numbers only).
    pub security_tier: Option<i64>,
    /// Bytes of the `securityTier` value, when the class has one.
    pub security_tier_span: Option<Range<usize>>,
    /// The `parameters` value as JSON, without the values toolc cannot
    /// evaluate. `None` when the class has no `parameters` property or its
    /// value is not an object (that value is then in `unsupported`).
    pub parameters: Option<Value>,
    /// Bytes of the `parameters` value, when the class has one.
    pub parameters_span: Option<Range<usize>>,
    /// Expressions in `parameters`, or in the `const`s it uses, that toolc
    /// cannot evaluate.
    pub unsupported: Vec<Unsupported>,
}

/// An expression whose value toolc cannot tell without running code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported {
    /// Bytes of the expression.
    pub span: Range<usize>,
    /// The expression as written.
    pub text: String,
}

pub use crate::syntax::SyntaxError;
use crate::syntax::error_at;

/// Finds the class whose `toolId` property is the string `tool_id`, or
/// reports the first syntax error of the file.
pub fn find_tool_class(text: &str, tool_id: &str) -> Result<Option<ToolClass>, SyntaxError> {
    if let Some(error) = crate::syntax::too_deep(text, crate::syntax::Language::TypeScript) {
        return Err(error);
    }
    let mut parser = Parser::new();
    if parser
        .set_language(&tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into())
        .is_err()
    {
        return Err(error_at(text, 0, "the TypeScript parser is unavailable"));
    }
    let Some(tree) = parser.parse(text, None) else {
        return Err(error_at(text, 0, "the TypeScript parser gave up"));
    };
    let root = tree.root_node();
    if let Some((offset, message)) = first_error(root) {
        return Err(error_at(text, offset, &message));
    }
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if matches!(
            node.kind(),
            "class_declaration" | "abstract_class_declaration" | "class"
        ) && let Some(class) = read_class(node, text, tool_id)
        {
            return Ok(Some(class));
        }
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    Ok(None)
}

/// The earliest ERROR or MISSING node.
fn first_error(root: Node) -> Option<(usize, String)> {
    if !root.has_error() {
        return None;
    }
    let mut best: Option<(usize, String)> = None;
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if !node.has_error() && !node.is_missing() {
            continue;
        }
        if best
            .as_ref()
            .is_some_and(|(at, _)| node.start_byte() >= *at)
        {
            continue;
        }
        if node.is_missing() {
            best = Some((node.start_byte(), format!("missing \"{}\"", node.kind())));
            continue;
        }
        if node.is_error() {
            best = Some((node.start_byte(), "invalid syntax".to_string()));
            continue;
        }
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    best
}

pub(super) fn source<'t>(node: Node, text: &'t str) -> &'t str {
    text.get(node.byte_range()).unwrap_or("")
}

/// The class's fields by name: `name = value` property declarations in
/// the class body (static or not, any modifiers).
fn read_class(class: Node, text: &str, tool_id: &str) -> Option<ToolClass> {
    let body = class.child_by_field_name("body")?;
    let mut fields: Vec<(String, Node)> = Vec::new();
    let mut cursor = body.walk();
    for member in body.named_children(&mut cursor) {
        if member.kind() != "public_field_definition" {
            continue;
        }
        let (Some(name), Some(value)) = (
            member.child_by_field_name("name"),
            member.child_by_field_name("value"),
        ) else {
            continue;
        };
        let key = match name.kind() {
            "string" => string_value(name, text)?,
            _ => source(name, text).to_string(),
        };
        fields.push((key, value));
    }
    let field = |key: &str| fields.iter().rev().find(|(k, _)| k == key).map(|(_, v)| *v);
    let id = field("toolId").and_then(|v| literal_string(v, text))?;
    if id != tool_id {
        return None;
    }
    let mut class_tool = ToolClass {
        class_name: class
            .child_by_field_name("name")
            .map(|n| source(n, text).to_string())
            .unwrap_or_default(),
        span: class.byte_range(),
        tool_id: id,
        name: field("name").and_then(|v| literal_string(v, text)),
        description: field("description").and_then(|v| literal_string(v, text)),
        security_tier: None,
        security_tier_span: None,
        parameters: None,
        parameters_span: None,
        unsupported: Vec::new(),
    };
    if let Some(tier) = field("securityTier") {
        class_tool.security_tier_span = Some(tier.byte_range());
        class_tool.security_tier = tier_value(tier, text);
    }
    if let Some(parameters) = field("parameters") {
        class_tool.parameters_span = Some(parameters.byte_range());
        let mut evaluator = Evaluator::new(text);
        let value = evaluator.evaluate(parameters, 0);
        let mut unsupported = evaluator.into_unsupported();
        class_tool.parameters = value.filter(Value::is_object);
        if class_tool.parameters.is_none() && unsupported.is_empty() {
            unsupported.push(Unsupported {
                span: parameters.byte_range(),
                text: source(parameters, text).to_string(),
            });
        }
        class_tool.unsupported = unsupported;
    }
    Some(class_tool)
}

/// The `.ts` files of a Nachos tool package, sorted: those in `dir` itself
/// and, recursively, those under `dir/src`. `node_modules` and declaration
/// files (`.d.ts`) are skipped; symbolic links are not followed.
pub fn package_files(dir: &Path) -> Vec<PathBuf> {
    const MAX_FILES: usize = 2000;
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .filter(|p| is_source(p))
        .collect();
    let walker = walkdir::WalkDir::new(dir.join("src"))
        .follow_links(false)
        .max_depth(32)
        .into_iter()
        .filter_entry(|e| e.file_name() != "node_modules");
    for entry in walker.flatten() {
        if entry.file_type().is_file() && is_source(entry.path()) {
            files.push(entry.into_path());
        }
        if files.len() >= MAX_FILES {
            break;
        }
    }
    files.sort();
    files.dedup();
    files
}

/// Whether a file's name makes it TypeScript source: `.ts`, not `.d.ts`.
fn is_source(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    name.ends_with(".ts") && !name.ends_with(".d.ts")
}

/// Whether `relative`, a path below a package's directory, is one of the
/// files [`package_files`] would list: source in the directory itself or
/// under `src/`, outside `node_modules`.
pub fn is_package_file(relative: &Path) -> bool {
    let parts: Vec<_> = relative.components().collect();
    is_source(relative)
        && match parts.as_slice() {
            [_] => true,
            [first, .., _] => {
                first.as_os_str() == "src" && !parts.iter().any(|p| p.as_os_str() == "node_modules")
            }
            [] => false,
        }
}

/// The class found in a package, with the file it is in.
#[derive(Debug, Clone)]
pub struct Found {
    pub path: PathBuf,
    pub text: Arc<str>,
    pub class: ToolClass,
}

/// What searching a package for a tool class gave.
#[derive(Debug, Clone, Default)]
pub struct Search {
    /// How many `.ts` files the package has.
    pub files: usize,
    /// The first class (in file order) whose `toolId` matches.
    pub found: Option<Found>,
    /// Files that could not be searched: unreadable, too large, not UTF-8,
    /// or not valid TypeScript, with the reason.
    pub unreadable: Vec<(PathBuf, String)>,
}

/// Searches a package's `files` (see [`package_files`]) for the class of
/// `tool_id`, reading each file through `read` (its text, or why it could
/// not be had).
pub fn search_package(
    files: Vec<PathBuf>,
    tool_id: &str,
    read: &dyn Fn(&Path) -> Result<Arc<str>, String>,
) -> Search {
    let mut search = Search {
        files: files.len(),
        ..Search::default()
    };
    if tool_id.is_empty() {
        return search;
    }
    for path in files {
        let text = match read(&path) {
            Ok(text) => text,
            Err(reason) => {
                search.unreadable.push((path, reason));
                continue;
            }
        };
        match find_tool_class(&text, tool_id) {
            Ok(Some(class)) => {
                search.found = Some(Found { path, text, class });
                return search;
            }
            Ok(None) => {}
            Err(error) => search
                .unreadable
                .push((path, format!("does not parse: {error}"))),
        }
    }
    search
}

/// A class's `parameters` as a standard JSON Schema with root
/// `{"type": "object"}`.
///
/// Nachos' `ParameterSchema` is JSON-Schema-shaped (`{type: 'object',
/// properties, required}`); such an object is kept as written, with
/// `type: "object"` added first when it is missing. An object without
/// `type` or `properties` is read as a bare map of property name to
/// property schema; a property's boolean `required: true` then moves into
/// the root's `required` list.
pub fn parameters_schema(parameters: &Value) -> Option<Value> {
    let object = parameters.as_object()?;
    if object.contains_key("type") || object.contains_key("properties") {
        if object.get("type").is_some_and(|t| t != "object") {
            return Some(parameters.clone());
        }
        let mut schema = Map::new();
        schema.insert("type".to_string(), Value::from("object"));
        for (key, value) in object {
            if key != "type" {
                schema.insert(key.clone(), value.clone());
            }
        }
        return Some(Value::Object(schema));
    }
    let mut properties = Map::new();
    let mut required = Vec::new();
    for (name, property) in object {
        let mut property = property.clone();
        if let Some(p) = property.as_object_mut()
            && let Some(Value::Bool(flag)) = p.get("required").cloned()
        {
            p.remove("required");
            if flag {
                required.push(Value::from(name.clone()));
            }
        }
        properties.insert(name.clone(), property);
    }
    let mut schema = Map::new();
    schema.insert("type".to_string(), Value::from("object"));
    schema.insert("properties".to_string(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".to_string(), Value::Array(required));
    }
    Some(Value::Object(schema))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn reads_a_tool_class() {
        let text =
            "class Echo { toolId = 'echo'; readonly parameters = {type: 'object', required: []}; }";
        let class = find_tool_class(text, "echo").unwrap().unwrap();
        assert_eq!(class.class_name, "Echo");
        assert_eq!(class.parameters.unwrap()["type"], "object");
    }

    fn class(text: &str, id: &str) -> ToolClass {
        match find_tool_class(text, id) {
            Ok(Some(class)) => class,
            other => panic!("no class {id} in {text:?}: {other:?}"),
        }
    }

    fn parameters(literal: &str) -> (Value, Vec<Unsupported>, String) {
        let text = format!("class T {{ toolId = 't'; readonly parameters = {literal}; }}");
        let c = class(&text, "t");
        (c.parameters.unwrap_or(Value::Null), c.unsupported, text)
    }

    #[test]
    fn literals_of_every_kind() {
        let (value, unsupported, _) = parameters(
            r#"{
                a: 'single', b: "double", c: `back`, d: 'it\'s\n\u0041',
                e: 42, f: -3, g: 2.5, h: -0.5, i: 1e3, j: 0x10, k: 1_000,
                l: true, m: false, n: null,
                o: [1, 'two', [3], {four: 4}],
                p: {nested: {deeper: []}},
            }"#,
        );
        assert!(unsupported.is_empty(), "{unsupported:?}");
        assert_eq!(
            value,
            json!({
                "a": "single", "b": "double", "c": "back", "d": "it's\nA",
                "e": 42, "f": -3, "g": 2.5, "h": -0.5, "i": 1000, "j": 16, "k": 1000,
                "l": true, "m": false, "n": null,
                "o": [1, "two", [3], {"four": 4}],
                "p": {"nested": {"deeper": []}},
            })
        );
    }

    #[test]
    fn quoted_and_bare_keys_and_trailing_commas() {
        let (value, unsupported, _) = parameters(
            r#"{ bare: 1, 'single': 2, "double": 3, "with space": [4, 5,], 6: 'six', }"#,
        );
        assert!(unsupported.is_empty());
        assert_eq!(
            value,
            json!({"bare": 1, "single": 2, "double": 3, "with space": [4, 5], "6": "six"})
        );
    }

    #[test]
    fn key_order_is_kept() {
        let (value, _, _) = parameters("{ z: 1, a: 2, m: 3 }");
        let keys: Vec<&String> = value
            .as_object()
            .map(|o| o.keys().collect())
            .unwrap_or_default();
        assert_eq!(keys, ["z", "a", "m"]);
    }

    #[test]
    fn unsupported_expressions_are_reported_with_spans() {
        let (value, unsupported, text) = parameters(
            "{ a: LIMIT, b: make(), ...base, c: `x${y}`, d: [1, other], e: 'ok', f: undefined, [k]: 1 }",
        );
        assert_eq!(value, json!({"d": [1], "e": "ok"}));
        let texts: Vec<&str> = unsupported.iter().map(|u| u.text.as_str()).collect();
        assert_eq!(
            texts,
            ["LIMIT", "make()", "base", "y", "other", "undefined", "k"]
        );
        for u in &unsupported {
            assert_eq!(&text[u.span.clone()], u.text);
        }
    }

    /// The texts of what could not be evaluated in `parameters` of a class
    /// written after `prelude`, and the value read.
    fn evaluated(prelude: &str, literal: &str) -> (Value, Vec<String>) {
        let text =
            format!("{prelude}\nclass T {{ toolId = 't'; readonly parameters = {literal}; }}");
        let c = class(&text, "t");
        let texts = c.unsupported.iter().map(|u| u.text.clone()).collect();
        (c.parameters.unwrap_or(Value::Null), texts)
    }

    #[test]
    fn same_file_consts_and_spreads_are_evaluated() {
        let (value, unsupported) = evaluated(
            "const A = ['x'] as const; const B: number = 2; const O = {k: A, n: -B} satisfies object;",
            "{ ...O, n: !0, list: [...A, 'y'], [`k${B}`]: O.k[0], 3: 'three' }",
        );
        assert!(unsupported.is_empty(), "{unsupported:?}");
        assert_eq!(
            serde_json::to_string(&value).unwrap_or_default(),
            r#"{"3":"three","k":["x"],"n":true,"list":["x","y"],"k2":"x"}"#
        );
    }

    #[test]
    fn names_that_are_not_consts_are_reported() {
        for prelude in [
            "let A = 1;",
            "var A = 1;",
            "function A() {}",
            "import { A } from './a';",
            "declare const A: number;",
            "const { A } = { A: 1 };",
            "",
        ] {
            let (value, unsupported) = evaluated(prelude, "{ a: A, b: 1 }");
            assert_eq!(value, json!({"b": 1}), "{prelude}");
            assert_eq!(unsupported, ["A"], "{prelude}");
        }
    }

    #[test]
    fn consts_that_the_file_changes_are_reported() {
        for change in [
            "A.push('y');",
            "A[0] = 'z';",
            "O.k.n += 1;",
            "delete O.k;",
            "Object.assign(O, {});",
            "function f() { O.k.n++; }",
        ] {
            let prelude = format!("const A = ['x']; const O = {{k: {{n: 1}}}};\n{change}");
            let (value, unsupported) = evaluated(&prelude, "{ a: A, o: O, b: 1 }");
            assert_eq!(unsupported.len(), 1, "{change}: {unsupported:?}");
            assert_eq!(value.as_object().map(|o| o.len()), Some(2), "{change}");
        }
        let (_, unsupported) = evaluated(
            "const A = ['x']; const ok = A.includes('x') && A.length;",
            "{ a: A }",
        );
        assert!(unsupported.is_empty(), "{unsupported:?}");
    }

    #[test]
    fn cycles_and_uses_before_declaration_are_reported() {
        let (value, unsupported) = evaluated("const A = { b: B }; const B = { a: A };", "{ a: A }");
        assert_eq!(value, json!({"a": {}}));
        assert_eq!(unsupported, ["B"]);
        let (_, unsupported) = evaluated("const A = [...A];", "{ a: A }");
        assert_eq!(unsupported, ["A"]);
        // A field's initializer runs after the file: a later const is fine.
        let text = "class T { toolId = 't'; parameters = { a: A }; }\nconst A = 1;";
        assert_eq!(class(text, "t").parameters, Some(json!({"a": 1})));
        // A static one runs where the class is: before the const.
        let text = "class T { static toolId = 't'; static parameters = { a: A }; }\nconst A = 1;";
        assert_eq!(class(text, "t").unsupported.len(), 1);
    }

    #[test]
    fn long_chains_and_doubling_spreads_end_in_a_report() {
        let mut chain = String::from("const A0 = 1;");
        for i in 1..5000 {
            chain.push_str(&format!("\nconst A{i} = A{};", i - 1));
        }
        let (value, unsupported) = evaluated(&chain, "{ a: A4999 }");
        assert_eq!(value, json!({}));
        assert_eq!(unsupported.len(), 1, "{unsupported:?}");

        let mut doubling = String::from("const D0 = [1, 2];");
        // 25 levels stay within the depth limit; 2^26 values do not fit
        // the step budget.
        for i in 1..25 {
            doubling.push_str(&format!("\nconst D{i} = [...D{0}, ...D{0}];", i - 1));
        }
        let started = std::time::Instant::now();
        let (_, unsupported) = evaluated(&doubling, "{ a: D24 }");
        assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
        assert_eq!(unsupported.len(), 1, "{unsupported:?}");
    }

    #[test]
    fn parameters_that_are_not_an_object_are_reported() {
        let (value, unsupported, _) = parameters("buildSchema()");
        assert_eq!(value, Value::Null);
        assert_eq!(unsupported.len(), 1);
        assert_eq!(unsupported[0].text, "buildSchema()");
        let (value, unsupported, _) = parameters("[1, 2]");
        assert_eq!(value, Value::Null);
        assert_eq!(unsupported[0].text, "[1, 2]");
    }

    #[test]
    fn a_real_class_is_read() {
        let text = r#"
import { Tool, SecurityTier, ParameterSchema } from '@nachos/types';

export class WriteTool implements Tool {
  readonly toolId = 'filesystem_write';
  readonly name = "Filesystem Write";
  readonly description = `Write a file.`;
  readonly securityTier = SecurityTier.ELEVATED;
  readonly parameters: ParameterSchema = {
    type: 'object',
    properties: { path: { type: 'string' } },
    required: ['path'],
  } as const;

  async execute(params: Record<string, unknown>): Promise<ToolResult> {
    return { success: true };
  }
}
"#;
        let c = class(text, "filesystem_write");
        assert_eq!(c.class_name, "WriteTool");
        assert_eq!(c.name.as_deref(), Some("Filesystem Write"));
        assert_eq!(c.description.as_deref(), Some("Write a file."));
        assert_eq!(c.security_tier, Some(2));
        let span = c.security_tier_span.clone().unwrap_or(0..0);
        assert_eq!(&text[span], "SecurityTier.ELEVATED");
        assert_eq!(
            c.parameters,
            Some(
                json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})
            )
        );
        assert!(c.unsupported.is_empty());
    }

    #[test]
    fn tiers_by_enum_and_number() {
        for (tier, expected) in [
            ("SecurityTier.SAFE", Some(0)),
            ("SecurityTier.STANDARD", Some(1)),
            ("SecurityTier.RESTRICTED", Some(3)),
            ("SecurityTier.DANGEROUS", Some(4)),
            ("3", Some(3)),
            ("Tier.SAFE", None),
            ("SecurityTier.HIGH", None),
            ("level", None),
        ] {
            let text = format!("class T {{ toolId = 't'; securityTier = {tier}; }}");
            assert_eq!(class(&text, "t").security_tier, expected, "{tier}");
        }
    }

    #[test]
    fn the_class_with_the_tool_id_is_chosen() {
        let text = "class A { toolId = 'a'; name = 'A' }\nexport default class B { static toolId = \"b\"; name = 'B' }\nconst C = class { toolId = 'c'; };";
        assert_eq!(class(text, "a").name.as_deref(), Some("A"));
        assert_eq!(class(text, "b").class_name, "B");
        assert_eq!(class(text, "c").class_name, "");
        assert_eq!(find_tool_class(text, "d"), Ok(None));
        assert_eq!(find_tool_class("", "a"), Ok(None));
        assert_eq!(find_tool_class("class A { toolId = ID; }", "ID"), Ok(None));
    }

    #[test]
    fn syntax_errors_give_a_position() {
        let error = find_tool_class("class A {\n  toolId = 'a'\n  parameters = {a: };\n}\n", "a");
        match error {
            Err(e) => {
                assert_eq!(e.line, 3, "{e}");
                assert!(e.to_string().contains(" at 3:"), "{e}");
            }
            Ok(other) => panic!("parsed: {other:?}"),
        }
        assert!(find_tool_class("class {{{", "a").is_err());
    }

    #[test]
    fn any_input_is_handled_without_panicking() {
        let mut inputs: Vec<String> = vec![
            "\u{0}\u{FFFD}".into(),
            "class".into(),
            "class A { toolId = 'a'; parameters = {".into(),
            "`".into(),
            "class A { toolId = 'a'; parameters = {a: '\\u{110000}', b: '\\x', c: 1e999, d: 0xZZ}; }"
                .into(),
            "[".repeat(5000),
        ];
        inputs.push(format!(
            "class A {{ toolId = 'a'; parameters = {}1{}; }}",
            "{a: [".repeat(200),
            "]}".repeat(200)
        ));
        for (i, input) in inputs.iter().enumerate() {
            let _ = find_tool_class(input, "a");
            // Cut at every few bytes, including inside characters.
            for cut in (0..input.len().min(400)).step_by(7) {
                if let Some(prefix) = input.get(..cut) {
                    let _ = find_tool_class(prefix, "a");
                }
            }
            let _ = i;
        }
        let deep = format!(
            "class A {{ toolId = 'a'; parameters = {}1{}; }}",
            "{a: ".repeat(100),
            "}".repeat(100)
        );
        let c = class(&deep, "a");
        assert_eq!(c.unsupported.len(), 1);
    }

    #[test]
    fn schemas_are_normalised() {
        assert_eq!(
            parameters_schema(&json!({"properties": {"a": {"type": "string"}}, "required": ["a"]})),
            Some(
                json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]})
            )
        );
        assert_eq!(
            parameters_schema(
                &json!({"a": {"type": "string", "required": true}, "b": {"type": "number", "required": false}})
            ),
            Some(
                json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "number"}}, "required": ["a"]})
            )
        );
        assert_eq!(parameters_schema(&json!([1])), None);
    }
}
