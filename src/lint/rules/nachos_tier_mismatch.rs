//! ## What it does
//! Reports a Nachos tool whose manifest declares a different
//! `provides.securityTier` than its TypeScript class's `securityTier`.
//!
//! The class is the one whose `toolId` is `provides.tool` (see
//! `nachos-class-missing`); its tier is read from `SecurityTier.SAFE`,
//! `STANDARD`, `ELEVATED`, `RESTRICTED` or `DANGEROUS` (0 to 4) or a number
//! literal. A class whose tier is another expression, and a manifest whose
//! tier is missing or invalid (`invalid-security-tier`), are not compared.
//!
//! ## Why is this bad?
//! The gateway decides from the manifest whether and with which approval a
//! tool may run, while the tool enforces its own tier: when they disagree,
//! one of them is wrong, and a tool may run with fewer checks than its
//! author meant.
//!
//! ## Example
//! `manifest.json`:
//! ```json
//! "provides": {"tool": "filesystem_write", "securityTier": 1}
//! ```
//! and the class:
//! ```ts
//! readonly securityTier = SecurityTier.ELEVATED;
//! ```
//!
//! ## Use instead
//! ```json
//! "provides": {"tool": "filesystem_write", "securityTier": 2}
//! ```

use crate::diagnostic::Severity;
use crate::lint::findings::Findings;
use crate::lint::{Manifest, Rule};
use crate::typescript;

use super::invalid_security_tier::tier_value;
use super::nachos_class_missing::{search, shown_path};

pub(crate) const RULE: Rule = Rule {
    name: "nachos-tier-mismatch",
    code: "TC604",
    severity: Severity::Error,
    summary: "a Nachos manifest's security tier differs from its TypeScript class's",
    fixable: false,
    targets: &[],
};

const POINTER: &str = "/provides/securityTier";

fn tier_name(tier: i64) -> String {
    let name = usize::try_from(tier)
        .ok()
        .and_then(|t| typescript::TIERS.get(t))
        .map_or("unknown", |n| n);
    format!("{tier} ({})", name.to_ascii_lowercase())
}

pub(crate) fn check(manifest: &Manifest, out: &mut Findings) {
    let Some(declared) = manifest.raw(POINTER).and_then(tier_value) else {
        return;
    };
    let Some((_, search)) = search(manifest) else {
        return;
    };
    let Some(found) = &search.found else {
        return;
    };
    let (Some(class_tier), Some(span)) = (
        found.class.security_tier,
        found.class.security_tier_span.clone(),
    ) else {
        return;
    };
    if class_tier == declared {
        return;
    }
    let (line, _) = crate::syntax::line_column(&found.text, span.start);
    let class = if found.class.class_name.is_empty() {
        "the tool's class".to_string()
    } else {
        format!("class {}", found.class.class_name)
    };
    out.push(
        manifest
            .at_value(
                &RULE,
                POINTER,
                format!(
                    "the manifest declares security tier {}, but {class} ({}:{line}) declares {}",
                    tier_name(declared),
                    shown_path(manifest, &found.path),
                    tier_name(class_tier),
                ),
            )
            .with_help("make provides.securityTier and the class's securityTier the same"),
    );
}
