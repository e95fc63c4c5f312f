//! ## What it does
//! Notes a public function (its name does not start with `_`) that an
//! AgentStack package's `__init__.py` defines at top level but `config.json`
//! does not list in `tools`. The note sits on the `tools` key and names the
//! function's line.
//!
//! ## Why is this bad?
//! Often it is not: a package may keep public helpers. But a tool written
//! and never listed is a common slip, and agents will never be offered it.
//! Make helpers private (`_name`) to say they are not tools.
//!
//! ## Example
//! ```python
//! def search(query: str) -> str: ...
//! def fetch_page(url: str) -> str: ...   # config.json lists only "search"
//! ```
//!
//! ## Use instead
//! ```json
//! "tools": ["search", "fetch_page"]
//! ```
//! or rename the helper `_fetch_page`.

use crate::diagnostic::Severity;
use crate::ir::Format;
use crate::lint::findings::Findings;
use crate::lint::{Manifest, Rule};

pub(crate) const RULE: Rule = Rule {
    name: "agentstack-unlisted-function",
    code: "TC505",
    severity: Severity::Info,
    summary: "a public function of __init__.py that config.json does not list",
    fixable: false,
    targets: &[],
};

pub(crate) fn check(manifest: &Manifest, out: &mut Findings) {
    if manifest.format() != Format::Agentstack || manifest.raw("/tools").is_none() {
        return;
    }
    let Some(python) = &manifest.code.python else {
        return;
    };
    let Ok(module) = &python.parsed else {
        return;
    };
    let bytes = python.text.as_bytes();
    let listed: std::collections::HashSet<&str> = manifest
        .toolset
        .tools
        .iter()
        .map(|t| t.function_name())
        .collect();
    // Functions come in file order: count lines once, as far as each one.
    let mut line = 1;
    let mut counted = 0;
    for function in &module.functions {
        let start = function.span.start.min(bytes.len()).max(counted);
        line += bytes[counted..start]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        counted = start;
        if listed.contains(function.name.as_str()) || function.name.starts_with('_') {
            continue;
        }
        out.push(
            manifest
                .at_key(
                    &RULE,
                    "/tools",
                    format!(
                        "__init__.py:{line} defines the public function {} but config.json does not list it",
                        function.name
                    ),
                )
                .with_help(format!(
                    "add \"{}\" to tools to offer it, or name it _{} if it is a helper",
                    function.name, function.name
                )),
        );
    }
}
