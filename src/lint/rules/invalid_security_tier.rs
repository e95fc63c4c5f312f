//! ## What it does
//! Reports a Nachos tool whose `provides.securityTier` is not an integer
//! from 0 to 4 (0 safe, 1 standard, 2 elevated, 3 restricted, 4 dangerous).
//!
//! ## Why is this bad?
//! The tier decides whether the tool may run at all and under which
//! approval; an out-of-range or fractional tier is either refused by the
//! gateway or, worse, compared as something it is not.
//!
//! ## Example
//! ```json
//! "provides": {"tool": "filesystem_write", "securityTier": 5}
//! ```
//!
//! ## Use instead
//! ```json
//! "provides": {"tool": "filesystem_write", "securityTier": 2}
//! ```

use serde_json::Value;

use crate::diagnostic::Severity;
use crate::ir::Format;
use crate::lint::findings::Findings;
use crate::lint::{Manifest, Rule};

pub(crate) const RULE: Rule = Rule {
    name: "invalid-security-tier",
    code: "TC601",
    severity: Severity::Error,
    summary: "a Nachos security tier that is not an integer from 0 to 4",
    fixable: false,
    targets: &[],
};

const POINTER: &str = "/provides/securityTier";

/// The tier a value stands for: a whole number from 0 to 4 (`2.0` is 2, as
/// JSON Schema's `integer` and JavaScript both read it).
pub(crate) fn tier_value(value: &Value) -> Option<i64> {
    let number = value.as_f64()?;
    (number.fract() == 0.0 && (0.0..=4.0).contains(&number)).then_some(number as i64)
}

pub(crate) fn check(manifest: &Manifest, out: &mut Findings) {
    if manifest.format() != Format::Nachos || manifest.toolset.tools.is_empty() {
        return;
    }
    let Some(tier) = manifest.raw(POINTER) else {
        return;
    };
    if tier_value(tier).is_some() {
        return;
    }
    out.push(
        manifest
            .at_value(
                &RULE,
                POINTER,
                format!("security tier {tier} is not an integer from 0 to 4"),
            )
            .with_help("use 0 (safe), 1 (standard), 2 (elevated), 3 (restricted) or 4 (dangerous)"),
    );
}
