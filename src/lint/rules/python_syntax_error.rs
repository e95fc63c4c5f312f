//! ## What it does
//! Reports an AgentStack package whose `__init__.py` (beside `config.json`)
//! does not parse as Python, with the line and column of the first error.
//! The finding sits on the `tools` key of `config.json`, the list of what
//! cannot be loaded. (A NORA entrypoint that does not parse is reported by
//! `entrypoint-missing-run`.)
//!
//! ## Why is this bad?
//! AgentStack imports the package to offer its tools: a syntax error fails
//! the import, and with it every tool of the package. toolc cannot read the
//! tools' parameters from it either.
//!
//! ## Example
//! ```python
//! def search(query: str) -> str
//!     return ""
//! ```
//!
//! ## Use instead
//! ```python
//! def search(query: str) -> str:
//!     return ""
//! ```

use crate::diagnostic::Severity;
use crate::ir::Format;
use crate::lint::findings::Findings;
use crate::lint::{Manifest, Rule};

pub(crate) const RULE: Rule = Rule {
    name: "python-syntax-error",
    code: "TC506",
    severity: Severity::Error,
    summary: "an AgentStack package's __init__.py does not parse",
    fixable: false,
    targets: &[],
};

pub(crate) fn check(manifest: &Manifest, out: &mut Findings) {
    if manifest.format() != Format::Agentstack {
        return;
    }
    let Some(module) = &manifest.code.python else {
        return;
    };
    let Err(error) = &module.parsed else {
        return;
    };
    let span = crate::source::Source::new("", module.text.clone()).char_span(error.offset);
    let tools = manifest.document.map.key_or_locate("/tools");
    out.push(
        manifest
            .in_code(
                &RULE,
                &module.path,
                span,
                format!("__init__.py does not parse: {error}"),
                (
                    tools,
                    "the package's tools, which AgentStack imports from it",
                ),
            )
            .with_help(format!(
                "fix the Python at line {} of {}; AgentStack cannot import the package",
                error.line,
                module.path.display()
            )),
    );
}
