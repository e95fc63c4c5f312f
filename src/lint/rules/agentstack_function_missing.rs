//! ## What it does
//! Reports a tool that an AgentStack `config.json` lists but that the
//! package's `__init__.py` (beside the config) neither defines nor binds at
//! its top level.
//!
//! The module is read with a real Python parser. A top-level `def`, an
//! import (`from .impl import search`, `import x as search`), an assignment
//! (`search = make_search()`) or a class of that name all count; a `def`
//! nested in a function, a class or an `if`/`try` block does not. When the
//! module has a top-level star import (`from .impl import *`), toolc cannot
//! tell what it binds and says nothing. A package without `__init__.py`, or
//! whose `__init__.py` cannot be read, is not UTF-8 or does not parse, is
//! skipped.
//!
//! ## Why is this bad?
//! AgentStack imports the package and looks each listed tool up as an
//! attribute of the module; a missing function makes it refuse the whole
//! package at import time, so none of its tools can be used.
//!
//! ## Example
//! `config.json`:
//! ```json
//! {"name": "search", "category": "search", "tools": ["web_search", "news_search"]}
//! ```
//! and `__init__.py`:
//! ```python
//! def web_search(query: str) -> str:
//!     ...
//! ```
//!
//! ## Use instead
//! Define (or import) every tool the config lists, or remove the entry:
//! ```python
//! def web_search(query: str) -> str:
//!     ...
//!
//! def news_search(query: str) -> str:
//!     ...
//! ```

use crate::diagnostic::Severity;
use crate::ir::Format;
use crate::lint::findings::Findings;
use crate::lint::{Manifest, Rule};

pub(crate) const RULE: Rule = Rule {
    name: "agentstack-function-missing",
    code: "TC504",
    severity: Severity::Error,
    summary: "an AgentStack config lists a function its __init__.py does not define",
    fixable: false,
    targets: &[],
};

pub(crate) fn check(manifest: &Manifest, out: &mut Findings) {
    if manifest.format() != Format::Agentstack {
        return;
    }
    let Some(python) = &manifest.code.python else {
        return;
    };
    let Ok(module) = &python.parsed else {
        return;
    };
    if module.star_import {
        return;
    }
    for tool in &manifest.toolset.tools {
        let name = tool.function_name();
        if name.is_empty() || module.function(name).is_some() || module.binds(name) {
            continue;
        }
        out.push(
            manifest
                .at_tool_name(
                    &RULE,
                    tool,
                    format!("__init__.py does not define the function {name}"),
                )
                .with_help(format!(
                    "define `def {name}(...)` in __init__.py (or import it there), or remove it from tools"
                )),
        );
    }
}

#[cfg(test)]
mod tests {

    fn star(text: &str) -> bool {
        crate::python::parse(text).expect("parses").star_import
    }

    #[test]
    fn star_imports_are_seen() {
        assert!(star("from .impl import *\n"));
        assert!(star("import os\nfrom impl import *  # all\n"));
        assert!(!star("from .impl import search\n"));
        // Under a condition it may bind anything just the same.
        assert!(star("if x:\n    from .impl import *\n"));
    }
}
