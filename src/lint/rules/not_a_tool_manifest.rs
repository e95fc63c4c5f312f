//! ## What it does
//! Notes a Nachos manifest whose `type` is `channel` or `core`: it is a
//! Nachos package, but it declares no tool, so toolc reads it and checks
//! nothing else in it.
//!
//! ## Why is this bad?
//! It is not: this is information, so that a lint run over a Nachos
//! repository accounts for every manifest it met.
//!
//! ## Example
//! ```json
//! {"name": "nachos-channel-slack", "version": "0.0.0", "type": "channel", "provides": {"channel": "slack"}}
//! ```
//!
//! ## Use instead
//! Nothing to change. To keep such files out of a lint run, leave their
//! directories out of the paths you pass.

use serde_json::Value;

use crate::diagnostic::Severity;
use crate::ir::Format;
use crate::lint::findings::Findings;
use crate::lint::{Manifest, Rule};

pub(crate) const RULE: Rule = Rule {
    name: "not-a-tool-manifest",
    code: "TC602",
    severity: Severity::Info,
    summary: "a Nachos channel or core manifest, which declares no tool",
    fixable: false,
    targets: &[],
};

/// Whether this is a Nachos manifest that declares no tool.
pub(crate) fn applies(manifest: &Manifest) -> bool {
    manifest.format() == Format::Nachos
        && matches!(
            manifest.raw("/type"),
            Some(Value::String(kind)) if kind == "channel" || kind == "core"
        )
}

pub(crate) fn check(manifest: &Manifest, out: &mut Findings) {
    if !applies(manifest) {
        return;
    }
    let kind = manifest
        .raw("/type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    out.push(
        manifest
            .at_value(
                &RULE,
                "/type",
                format!("Nachos {kind} manifest: it declares no tool, so toolc checks nothing else in it"),
            )
            .with_help("nothing to do; toolc lints Nachos manifests of type \"tool\""),
    );
}
