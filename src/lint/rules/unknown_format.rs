//! ## What it does
//! Reports a file named on the command line that matches none of the
//! manifest formats toolc reads. (JSON files met while walking a directory
//! that match no format, and files with a generic name such as
//! `config.json` whose content is no manifest, are skipped and counted
//! instead; `--show-skipped` lists them.)
//!
//! ## Why is this bad?
//! You asked for this file to be checked, and nothing was checked.
//!
//! ## Example
//! `toolc lint package.json`
//!
//! ## Use instead
//! Name the format when the file name and content do not tell it:
//! `toolc lint --input-format openai my-tools.json`.

use crate::diagnostic::Severity;
use crate::lint::Rule;

pub(crate) const RULE: Rule = Rule {
    name: "unknown-format",
    code: "TC006",
    severity: Severity::Error,
    summary: "a file named on the command line matches no manifest format",
    fixable: false,
    targets: &[],
};
