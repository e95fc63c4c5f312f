//! ## What it does
//! Warns about a parameter of an AgentStack tool function whose schema
//! toolc cannot derive from the text as pydantic would: a parameter without
//! a hint (`def search(query)`); a hint that names a class not defined in
//! the package as an `Enum`, `TypedDict`, dataclass or pydantic model (an
//! imported class, a forward reference, `Callable[...]`), also inside a
//! container (`list[Document]`); `Annotated` metadata other than `Field`;
//! or a default that is not a literal, `Field(...)` or a member of a
//! package enum (`root: str = os.getcwd()`). (`Any` says "any type" on
//! purpose and is not reported.) The finding sits at the first such
//! parameter in `__init__.py`, and names each, its hint as written and its
//! line.
//!
//! ## Why is this bad?
//! The parameter schema an agent framework shows the model comes from these
//! hints. Without a type the model guesses, and guesses differently from call
//! to call: a number arrives as `"5"`, a list as a comma-separated string.
//! Providers such as Gemini reject schema nodes without a type outright.
//!
//! ## Example
//! `__init__.py`:
//! ```python
//! def search(query, filters: SearchFilters) -> str:
//!     ...
//! ```
//!
//! ## Use instead
//! Hint every parameter with a type that has a JSON Schema counterpart:
//! ```python
//! def search(query: str, filters: dict[str, str]) -> str:
//!     ...
//! ```

use crate::diagnostic::Severity;
use crate::lint::findings::Findings;
use crate::lint::{Manifest, Rule};

pub(crate) const RULE: Rule = Rule {
    name: "python-type-hint-unknown",
    code: "TC507",
    severity: Severity::Warning,
    summary: "an AgentStack tool function's parameter has no type hint toolc can translate",
    fixable: false,
    targets: &[],
};

pub(crate) fn check(manifest: &Manifest, out: &mut Findings) {
    for derived in &manifest.code.derived {
        let Some(tool) = manifest.toolset.tools.get(derived.tool) else {
            continue;
        };
        let definition = &derived.origin.definition;
        let file = &derived.origin.file;
        // One finding per tool, naming every such parameter: they all sit
        // at the tool's name.
        let message = match derived.untyped.as_slice() {
            [] => continue,
            [parameter] => {
                let name = &parameter.name;
                let line = parameter.line;
                match &parameter.hint {
                    None => format!(
                        "parameter {name:?} of {definition} has no type hint, so its property has no \"type\" ({file}:{line})"
                    ),
                    Some(hint) => format!(
                        "parameter {name:?} of {definition} has the type hint `{}`, which toolc cannot turn into a JSON Schema type, so its property has no \"type\" ({file}:{line})",
                        shown_hint(hint)
                    ),
                }
            }
            several => {
                let listed: Vec<String> = several
                    .iter()
                    .map(|p| {
                        let hint = match &p.hint {
                            None => "no hint".to_string(),
                            Some(hint) => format!("`{}`", shown_hint(hint)),
                        };
                        format!("{:?}: {hint} ({file}:{})", p.name, p.line)
                    })
                    .collect();
                format!(
                    "parameters of {definition} without a type hint toolc can turn into a JSON Schema type, so their properties have no \"type\": {}",
                    listed.join(", ")
                )
            }
        };
        const HELP: &str = "hint each with str, int, float, bool, list[...], dict[str, ...], Optional[...] or Literal[...]";
        // In the code, at the first such parameter, when the module is
        // the one the schema came from; else at the tool's name.
        let first_line = derived.untyped.first().map(|p| p.line).unwrap_or(0);
        let in_module = manifest
            .code
            .python
            .as_ref()
            .filter(|m| m.path.ends_with(file) && first_line > 0);
        let diagnostic = match in_module {
            Some(module) => {
                let source = crate::source::Source::new("", module.text.clone());
                let line = source.line_span(first_line - 1);
                let text = source.text.get(line.start..line.end).unwrap_or_default();
                let indent = text.len() - text.trim_start().len();
                let span = crate::source::Span::new(
                    line.start + indent,
                    line.start + text.trim_end().len(),
                );
                let name = manifest.tool_name_span(tool);
                manifest.in_code(
                    &RULE,
                    &module.path,
                    span,
                    message,
                    (name, "the tool in the manifest"),
                )
            }
            None => manifest.at_tool_name(&RULE, tool, message),
        };
        out.push(diagnostic.with_help(HELP));
    }
}

/// A hint on one line, cut short when long.
fn shown_hint(hint: &str) -> String {
    const SHOWN: usize = 60;
    let one_line = hint.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= SHOWN {
        return one_line;
    }
    one_line.chars().take(SHOWN).collect::<String>() + "..."
}
