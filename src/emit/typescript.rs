//! TypeScript for Nachos: the class skeleton of a Nachos tool, for
//! `toolc convert --to nachos`.
//!
//! A Nachos tool is a TypeScript class implementing the `Tool` interface of
//! `@nachos/types`: `toolId`, `name`, `description`, `securityTier` and
//! `readonly parameters` properties, and `initialize`, `validate`, `execute`
//! and `healthCheck` methods. [`nachos_class`] writes one from a [`Tool`],
//! through the template `templates/nachos/tool.ts.j2` (whose README lists
//! the variables); this module computes what the template receives:
//!
//! - the class and file names, from the tool's name (`web_fetch` →
//!   `WebFetchTool` in `web-fetch-tool.ts`);
//! - single-quoted string literals and the `parameters` object literal,
//!   laid out readably (`literal`);
//! - the security tier: `SecurityTier.SAFE` ... `DANGEROUS` for 0 to 4, a
//!   number cast to `SecurityTier` otherwise, [`DEFAULT_SECURITY_TIER`]
//!   when the tool has none;
//! - whether the schema fits Nachos' `ParameterSchema` type (then it is
//!   declared with that type and TypeScript checks it) or uses more of JSON
//!   Schema (`integer`, `anyOf`, nested `required`, ...; then it is cast,
//!   with a comment saying what does not fit), so the class compiles
//!   against the real `@nachos/types` either way.
//!
//! `crate::typescript` reads such a class back (`find_tool_class`,
//! `parameters_schema`) to the same tool id, name, description, tier and
//! schema; the tests check that, and compile the classes with `tsc`.
//! `validate` checks the required parameters are present; `execute`
//! validates, then answers a `NOT_IMPLEMENTED` failure; `healthCheck`
//! reports healthy. Only `@nachos/types` is imported, as Nachos tools do.

mod literal;

use serde::Serialize;
use serde_json::{Map, Value};

use super::EmitError;
use super::templates::Templates;
use crate::ir::Tool;
use crate::typescript::TIERS;

use literal::{Place, WIDTH};

/// The tier written when a tool has none: `SecurityTier.STANDARD` (1),
/// "limited access". `SAFE` would claim the tool has no side effects,
/// which nobody has checked; a higher tier would ask for approvals the
/// source format never asked for. The class says it is a default.
pub const DEFAULT_SECURITY_TIER: i64 = 1;

/// The template [`nachos_class`] renders.
pub const TEMPLATE: &str = "nachos/tool.ts.j2";

/// A Nachos tool class, ready to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NachosClass {
    /// The file's name, relative to the tool package's `src/`
    /// (`browser-tool.ts`).
    pub file_name: String,
    /// The exported class (`BrowserTool`).
    pub class_name: String,
    pub contents: String,
    /// What the class says that the tool did not: a default tier, a
    /// fallback description, a schema cast past `ParameterSchema`; for the
    /// caller to report.
    pub notes: Vec<String>,
}

/// The class of the Nachos tool `tool` (its name is the `toolId`), from
/// the template `nachos/tool.ts.j2` of `templates`.
///
/// Fails when the tool has no name, when its parameters are not a JSON
/// object, or when they nest deeper than the TypeScript reader follows.
pub fn nachos_class(tool: &Tool, templates: &Templates) -> Result<NachosClass, EmitError> {
    if tool.name.is_empty() {
        return Err(EmitError::Unsupported(
            "a Nachos tool needs a toolId, and this tool has no name".to_string(),
        ));
    }
    let mut notes = Vec::new();
    let names = Names::of(&tool.name);
    let display_name = non_empty(tool.title.as_deref()).unwrap_or(&tool.name);
    let description = match non_empty(tool.description.as_deref()) {
        Some(description) => description.to_string(),
        None => {
            notes.push(format!(
                "tool \"{}\" has no description: the class uses \"{display_name}\"",
                tool.name
            ));
            display_name.to_string()
        }
    };
    let tier = Tier::of(tool.permissions.security_tier);
    if tool.permissions.security_tier.is_none() {
        notes.push(format!(
            "tool \"{}\" has no security tier: the class says SecurityTier.{}, review it",
            tool.name, TIERS[DEFAULT_SECURITY_TIER as usize]
        ));
    }
    let schema = parameters(tool)?;
    let parameters_cast = literal::parameter_schema_misfit(&schema).map(|m| literal::escape(&m));
    if let Some(misfit) = &parameters_cast {
        notes.push(format!(
            "tool \"{}\": the parameters are cast to ParameterSchema, which does not declare all of them ({misfit})",
            tool.name
        ));
    }
    let description_literal = literal::string_literal(&description);
    let context = Context {
        class_name: names.class.clone(),
        doc: doc_comment(&description),
        tool_id_literal: literal::string_literal(&tool.name),
        name_literal: literal::string_literal(display_name),
        description_wraps: "  readonly description = ".len()
            + description_literal.chars().count()
            + 1
            > WIDTH,
        description_literal,
        security_tier: tier.expression,
        security_tier_comment: tier.comment,
        parameters_literal: literal::layout(
            &schema,
            Place {
                base: 2,
                used: "  readonly parameters: ParameterSchema = ".len(),
                after: 1,
            },
            true,
        ),
        parameters_cast,
        required_literal: required_literal(&schema),
    };
    let contents = templates.render(TEMPLATE, &context)?;
    Ok(NachosClass {
        file_name: names.file,
        class_name: names.class,
        contents,
        notes,
    })
}

/// What `nachos/tool.ts.j2` receives (see `templates/nachos/README.md`).
#[derive(Debug, Serialize)]
struct Context {
    class_name: String,
    doc: String,
    tool_id_literal: String,
    name_literal: String,
    description_literal: String,
    description_wraps: bool,
    security_tier: String,
    security_tier_comment: Option<String>,
    parameters_literal: String,
    parameters_cast: Option<String>,
    required_literal: Option<String>,
}

fn non_empty(text: Option<&str>) -> Option<&str> {
    text.filter(|t| !t.trim().is_empty())
}

/// The class and file names of a tool.
#[derive(Debug)]
struct Names {
    class: String,
    file: String,
}

impl Names {
    /// The tool name's words (split at anything but ASCII letters and
    /// digits, and where a lower-case letter meets an upper-case one) in
    /// PascalCase plus `Tool` for the class, in kebab-case plus `-tool.ts`
    /// for the file; no second `Tool` when the name ends in one.
    fn of(name: &str) -> Names {
        let mut words = words(name);
        if words.is_empty() {
            words.push("nachos".to_string());
        }
        if words.last().is_none_or(|w| !w.eq_ignore_ascii_case("tool")) {
            words.push("tool".to_string());
        }
        let mut class: String = words.iter().map(|w| capitalized(w)).collect();
        if class.starts_with(|c: char| c.is_ascii_digit()) {
            class.insert(0, '_');
        }
        // `Tool` is the interface the class implements.
        if class == "Tool" {
            class.push_str("Tool");
        }
        let file: Vec<String> = words.iter().map(|w| w.to_ascii_lowercase()).collect();
        Names {
            class,
            file: format!("{}.ts", file.join("-")),
        }
    }
}

fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            words.extend((!current.is_empty()).then(|| std::mem::take(&mut current)));
            previous_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && previous_lower {
            words.push(std::mem::take(&mut current));
        }
        previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        current.push(c);
    }
    words.extend((!current.is_empty()).then_some(current));
    words
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

/// How the class writes its tier.
#[derive(Debug)]
struct Tier {
    expression: String,
    comment: Option<String>,
}

impl Tier {
    fn of(tier: Option<i64>) -> Tier {
        let value = tier.unwrap_or(DEFAULT_SECURITY_TIER);
        let member = usize::try_from(value).ok().and_then(|i| TIERS.get(i));
        let comment = match (tier, member) {
            (None, _) => {
                Some("The manifest gave no tier; this default needs a review.".to_string())
            }
            (Some(_), None) => Some(format!(
                "Tier {value} is not a SecurityTier member (0 to 4); kept as given."
            )),
            (Some(_), Some(_)) => None,
        };
        let expression = match member {
            Some(member) => format!("SecurityTier.{member}"),
            None => format!("{value} as SecurityTier"),
        };
        Tier {
            expression,
            comment,
        }
    }
}

/// How deep the TypeScript reader follows a literal (its `MAX_DEPTH`,
/// counted from the `parameters` object).
const MAX_DEPTH: usize = 64;

/// The tool's parameter schema as the class declares it: `type: 'object'`
/// first (added when missing: the IR's root is an object schema, and
/// without `type` or `properties` Nachos reads an object as a bare map of
/// properties), the rest in the tool's order. No schema is an empty one.
pub(crate) fn parameters(tool: &Tool) -> Result<Value, EmitError> {
    let root = match tool.parameters.as_deref() {
        None => {
            let mut root = Map::new();
            root.insert("type".to_string(), Value::from("object"));
            root.insert("properties".to_string(), Value::Object(Map::new()));
            root.insert("required".to_string(), Value::Array(Vec::new()));
            return Ok(Value::Object(root));
        }
        Some(Value::Object(root)) => root,
        Some(other) => {
            return Err(EmitError::Unsupported(format!(
                "tool \"{}\": the parameters are {}, not an object schema",
                tool.name,
                crate::json::kind_of(other)
            )));
        }
    };
    let mut schema = Map::new();
    schema.insert(
        "type".to_string(),
        root.get("type").cloned().unwrap_or(Value::from("object")),
    );
    for (key, value) in root {
        if key != "type" {
            schema.insert(key.clone(), value.clone());
        }
    }
    let schema = Value::Object(schema);
    if literal::depth(&schema) > MAX_DEPTH {
        return Err(EmitError::Unsupported(format!(
            "tool \"{}\": the parameters nest deeper than {MAX_DEPTH} levels",
            tool.name
        )));
    }
    Ok(schema)
}

/// The required parameter names (strings only, in the schema's order) as
/// an array literal laid out after `    const required = `; `None` when
/// none is required.
fn required_literal(schema: &Value) -> Option<String> {
    let names: Vec<Value> = schema
        .get("required")?
        .as_array()?
        .iter()
        .filter(|name| name.is_string())
        .cloned()
        .collect();
    if names.is_empty() {
        return None;
    }
    let place = Place {
        base: 4,
        used: "    const required = ".len(),
        after: 1,
    };
    Some(literal::layout(&Value::Array(names), place, false))
}

/// The body of the class's `/** ... */` comment: the description's lines
/// (split at every JavaScript line terminator), each after ` * `, with
/// `*/` broken so it cannot end the comment and control characters spelt
/// as escapes.
fn doc_comment(description: &str) -> String {
    description
        .trim()
        .split("\r\n")
        .flat_map(|part| part.split(['\n', '\r', '\u{2028}', '\u{2029}']))
        .map(|line| {
            let line: String = line
                .trim_end()
                .replace("*/", "*\\/")
                .chars()
                .map(|c| match c {
                    '\t' => "\t".to_string(),
                    c if c.is_control() => format!("\\u{:04x}", u32::from(c)),
                    c => c.to_string(),
                })
                .collect();
            if line.is_empty() {
                " *".to_string()
            } else {
                format!(" * {line}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_tools() {
        for (name, class, file) in [
            ("browser", "BrowserTool", "browser-tool.ts"),
            ("web_fetch", "WebFetchTool", "web-fetch-tool.ts"),
            ("webFetch", "WebFetchTool", "web-fetch-tool.ts"),
            (
                "filesystem.write",
                "FilesystemWriteTool",
                "filesystem-write-tool.ts",
            ),
            ("search-tool", "SearchTool", "search-tool.ts"),
            ("HTTPGet", "HTTPGetTool", "httpget-tool.ts"),
            ("3d render", "_3dRenderTool", "3d-render-tool.ts"),
            ("tool", "ToolTool", "tool.ts"),
            ("üé", "NachosTool", "nachos-tool.ts"),
        ] {
            let names = Names::of(name);
            assert_eq!((names.class.as_str(), names.file.as_str()), (class, file));
        }
    }

    #[test]
    fn tiers() {
        for (tier, expression, commented) in [
            (None, "SecurityTier.STANDARD", true),
            (Some(0), "SecurityTier.SAFE", false),
            (Some(4), "SecurityTier.DANGEROUS", false),
            (Some(5), "5 as SecurityTier", true),
            (Some(-1), "-1 as SecurityTier", true),
        ] {
            let written = Tier::of(tier);
            assert_eq!(written.expression, expression);
            assert_eq!(written.comment.is_some(), commented);
        }
    }

    #[test]
    fn doc_comments_cannot_be_closed_early() {
        assert_eq!(doc_comment("a */ b\n\nc  "), " * a *\\/ b\n *\n * c");
        assert_eq!(
            doc_comment("a\r\nb\rc\u{2028}d\u{0}\te"),
            " * a\n * b\n * c\n * d\\u0000\te"
        );
    }
}
