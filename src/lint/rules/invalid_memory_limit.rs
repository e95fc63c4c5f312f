//! ## What it does
//! Reports a Nachos tool whose `capabilities.resources.memory` is not a
//! size toolc can apply: a number with an optional unit, `Ki`, `Mi`, `Gi`,
//! `Ti` (powers of 1024) or `K`, `M`, `G`, `T`, `KB`, `MB`, `GB`, `TB`
//! (powers of 1000), of at least 1Mi (below it no tool can even start).
//!
//! ## Why is this bad?
//! The limit bounds the tool's memory when it runs. A value that cannot be
//! read as a size bounds nothing: the tool would run without the limit its
//! manifest asks for. Lowercase `m` and `g` are refused too, because
//! Docker reads `512m` as 512 mebibytes and Kubernetes as 512 millibytes.
//!
//! ## Example
//! ```json
//! "capabilities": {"resources": {"memory": "512m"}}
//! ```
//!
//! ## Use instead
//! ```json
//! "capabilities": {"resources": {"memory": "512Mi"}}
//! ```

use serde_json::Value;

use crate::diagnostic::Severity;
use crate::formats::nachos::{MEMORY_POINTER, MIN_MEMORY, memory_bytes};
use crate::ir::Format;
use crate::lint::findings::Findings;
use crate::lint::{Manifest, Rule};

pub(crate) const RULE: Rule = Rule {
    name: "invalid-memory-limit",
    code: "TC606",
    severity: Severity::Error,
    summary: "a Nachos memory limit that is not a size toolc can apply",
    fixable: false,
    targets: &[],
};

pub(crate) fn check(manifest: &Manifest, out: &mut Findings) {
    if manifest.format() != Format::Nachos || manifest.toolset.tools.is_empty() {
        return;
    }
    let Some(memory) = manifest.raw(MEMORY_POINTER) else {
        return;
    };
    match memory.as_str().and_then(memory_bytes) {
        Some(bytes) if bytes >= MIN_MEMORY => return,
        Some(bytes) => {
            out.push(
                manifest
                    .at_value(
                        &RULE,
                        MEMORY_POINTER,
                        format!("memory limit {memory} ({bytes} bytes) is below 1Mi, the least toolc applies: no tool can even start with less"),
                    )
                    .with_help("give at least \"1Mi\", e.g. \"512Mi\""),
            );
            return;
        }
        None => {}
    }
    let shown = match memory {
        Value::String(text) => format!("\"{text}\""),
        other => other.to_string(),
    };
    out.push(
        manifest
            .at_value(
                &RULE,
                MEMORY_POINTER,
                format!("memory limit {shown} is not a size toolc can apply"),
            )
            .with_help(
                "write a number with a unit, e.g. \"512Mi\" or \"1Gi\" (Ki, Mi, Gi, Ti: powers of 1024; K, M, G, T, KB, MB, GB, TB: powers of 1000)",
            ),
    );
}
