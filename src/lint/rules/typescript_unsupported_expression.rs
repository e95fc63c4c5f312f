//! ## What it does
//! Reports an expression in a Nachos tool class's `parameters` whose value
//! toolc cannot tell without running code: a call (`buildSchema()`), a name
//! imported from another file, a `let` or `var`, a function's parameter,
//! `undefined`, a `const` used before its declaration.
//!
//! toolc reads `parameters` with a real TypeScript parser and evaluates it
//! as JavaScript would: literals, arrays and objects, `const`s of the same
//! file (with `as const`, `satisfies` or a type), spreads, computed keys,
//! member access, templates, `!`, `-`, `+`. Anything else it leaves out of
//! the tool's schema and reports here (file, line and column, and the
//! expression) rather than guessing its value. One finding lists every such
//! expression (the first ten); it is placed on the manifest's
//! `provides.tool`, which names the class.
//!
//! ## Why is this bad?
//! The schema that toolc generates (`toolc gen`, `toolc convert`) and checks
//! lacks what the expression would have added: a property, an enum, a
//! limit. The model then sees a different schema than the tool validates.
//!
//! ## Example
//! ```ts
//! import { MAX } from './limits';
//! export class SearchTool implements Tool {
//!   readonly toolId = 'search';
//!   readonly parameters = {
//!     type: 'object',
//!     properties: { limit: { type: 'integer', maximum: MAX } },
//!   };
//! }
//! ```
//!
//! ## Use instead
//! ```ts
//! const MAX = 50;
//! export class SearchTool implements Tool {
//!   readonly toolId = 'search';
//!   readonly parameters = {
//!     type: 'object',
//!     properties: { limit: { type: 'integer', maximum: MAX } },
//!   };
//! }
//! ```

use crate::diagnostic::Severity;
use crate::lint::findings::Findings;
use crate::lint::{Manifest, Rule};

use super::nachos_class_missing::{search, shown_path};

pub(crate) const RULE: Rule = Rule {
    name: "typescript-unsupported-expression",
    code: "TC605",
    severity: Severity::Warning,
    summary: "a value in a Nachos tool class's parameters that toolc cannot evaluate",
    fixable: false,
    targets: &[],
};

/// The longest expression text quoted in a message.
const MAX_SHOWN: usize = 80;

/// How many expressions one message lists.
const MAX_LISTED: usize = 10;

pub(crate) fn check(manifest: &Manifest, out: &mut Findings) {
    let Some((_, search)) = search(manifest) else {
        return;
    };
    let Some(found) = &search.found else {
        return;
    };
    let unsupported = &found.class.unsupported;
    if unsupported.is_empty() {
        return;
    }
    let file = shown_path(manifest, &found.path);
    let mut listed: Vec<String> = unsupported
        .iter()
        .take(MAX_LISTED)
        .map(|u| {
            let (line, column) = crate::syntax::line_column(&found.text, u.span.start);
            let mut shown: String = u.text.split_whitespace().collect::<Vec<_>>().join(" ");
            if shown.chars().count() > MAX_SHOWN {
                shown = shown.chars().take(MAX_SHOWN).collect::<String>() + "...";
            }
            format!("{file}:{line}:{column}: `{shown}`")
        })
        .collect();
    if unsupported.len() > MAX_LISTED {
        listed.push(format!("and {} more", unsupported.len() - MAX_LISTED));
    }
    let what = if unsupported.len() == 1 {
        "a value that toolc cannot evaluate"
    } else {
        "values that toolc cannot evaluate"
    };
    let message = format!(
        "the class's parameters hold {what}, left out of the schema: {}",
        listed.join(", ")
    );
    let first = &unsupported[0].span;
    let span = crate::source::Span::new(first.start, first.end);
    let tool = manifest.document.map.locate("/provides/tool").span;
    out.push(
        manifest
            .in_code(
                &RULE,
                &found.path,
                span,
                message,
                (tool, "the tool in the manifest"),
            )
            .with_help(
                "write each value as a literal, or as a `const` of the same file built from literals",
            ),
    );
}
