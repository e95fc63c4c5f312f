//! ## What it does
//! Reported by `toolc convert`, not by `lint`: a field of the source
//! manifest that the target format cannot express, at the field's place in
//! the source. Where the target tolerates extra keys (NORA, agentcli,
//! AgentStack, Nachos, and MCP in `_meta`), the field is kept in an
//! `"x-toolc"` object, so converting back restores it; OpenAI and
//! Anthropic tool JSON reject unknown keys, so there it is dropped.
//! `--strict` makes every loss an error and writes nothing.
//!
//! ## Why is this bad?
//! A conversion that silently drops an agentcli `timeoutSec`, an AgentStack
//! package's `env` or a Nachos tool's network egress gives a tool that
//! behaves differently from the one that was reviewed. Knowing each loss
//! lets the team carry it over by hand or choose another target.
//!
//! ## Example
//! `toolc convert tools.json --to nora -o tools/` with
//! ```json
//! {"tools": [{"name": "fetch", "command": ["./bin/fetch"], "timeoutSec": 5}]}
//! ```
//! reports `command` and `timeoutSec`: NORA runs a Python entrypoint and
//! has no timeout.
//!
//! ## Use instead
//! Convert to a format that expresses the fields (here, keep agentcli), or
//! accept the loss: the NORA `tool.json` keeps them in
//! `"x-toolc": {"agentcli": {"command": [...], "timeoutSec": 5}}`, which
//! `toolc convert --to agentcli` reads back.

use crate::diagnostic::Severity;
use crate::lint::Rule;

pub(crate) const RULE: Rule = Rule {
    name: "conversion-loss",
    code: "TC903",
    severity: Severity::Warning,
    summary: "a field the conversion's target format cannot express",
    fixable: false,
    targets: &[],
};
