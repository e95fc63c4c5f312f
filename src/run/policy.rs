//! Policy: what may run. (Interface; the rule engine is being written.)

use std::path::Path;

use serde_json::Value;

use crate::ir::Tool;

/// Why a call was refused: the rule that refused it and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    /// A stable identifier of the rule, e.g. `dangerous-command`,
    /// `sensitive-path`, `security-tier`, `allowed-dirs`, `allow-http`,
    /// `undeclared-action`, `forbidden-pattern`, `allowed-tools`.
    pub rule: String,
    /// One sentence for the caller: what was refused and why.
    pub message: String,
}

/// One call, as the policy sees it.
pub struct Call<'a> {
    pub tool: &'a Tool,
    pub arguments: &'a Value,
    /// The manifest's directory: relative paths in arguments and in
    /// `allowed_dirs` resolve against it.
    pub dir: &'a Path,
}

/// Approves a tier-3 tool's call when `--allow-tier 3` was not given.
pub type Approver = dyn Fn(&Tool, &Value) -> bool + Send + Sync;

/// The rules a runner applies before anything runs.
pub struct Policy {
    /// The highest security tier that runs without approval (default 2).
    pub allow_tier: i64,
    pub approver: Option<Box<Approver>>,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            allow_tier: 2,
            approver: None,
        }
    }
}

/// Why a policy file could not be read.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct PolicyError(String);

impl Policy {
    /// Reads user rules from a TOML file.
    pub fn from_toml_file(path: &Path) -> Result<Policy, PolicyError> {
        let _ = path;
        Ok(Policy::default())
    }

    /// `Ok` when the call may run, else the first rule that refuses it.
    pub fn check(&self, call: &Call) -> Result<(), Denial> {
        let _ = call;
        Ok(())
    }
}
