//! ## What it does
//! Warns about an AgentStack dependency without a version specifier
//! (`requests` rather than `requests>=2.31`).
//!
//! ## Why is this bad?
//! AgentStack installs the package's dependencies into the user's project;
//! an unpinned one installs whatever is newest that day, so the tool breaks
//! the day its library ships an incompatible release.
//!
//! ## Example
//! ```json
//! "dependencies": ["firecrawl-py"]
//! ```
//!
//! ## Use instead
//! ```json
//! "dependencies": ["firecrawl-py>=1.6.4"]
//! ```

use serde_json::Value;

use crate::diagnostic::Severity;
use crate::ir::Format;
use crate::json;
use crate::lint::findings::Findings;
use crate::lint::{Manifest, Rule};

pub(crate) const RULE: Rule = Rule {
    name: "unpinned-dependency",
    code: "TC503",
    severity: Severity::Warning,
    summary: "an AgentStack dependency without a version specifier",
    fixable: false,
    targets: &[],
};

/// PEP 440 comparison operators and PEP 508 direct references.
const SPECIFIERS: &[&str] = &["==", ">=", "<=", "~=", "!=", "<", ">", "@"];

pub(crate) fn check(manifest: &Manifest, out: &mut Findings) {
    if manifest.format() != Format::Agentstack {
        return;
    }
    let Some(Value::Array(dependencies)) = manifest.raw("/dependencies") else {
        return;
    };
    for (i, dependency) in dependencies.iter().enumerate() {
        let Some(dependency) = dependency.as_str() else {
            continue;
        };
        if SPECIFIERS.iter().any(|s| dependency.contains(s)) {
            continue;
        }
        out.push(
            manifest
                .at_value(
                    &RULE,
                    json::join("/dependencies", i),
                    format!("dependency \"{dependency}\" has no version specifier"),
                )
                .with_help(format!(
                    "pin a range, e.g. \"{}>=1.0,<2\", so installs stay reproducible",
                    dependency.trim()
                )),
        );
    }
}
