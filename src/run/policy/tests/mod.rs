//! The policy's behaviour through its public interface: each refused
//! variant names the right rule, each near miss runs.

mod commands;
mod config;
mod paths;
mod permissions;

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Call, Denial, Policy};
use crate::ir::Tool;

pub(super) const DIR: &str = "/work/project";

pub(super) fn policy() -> Policy {
    Policy {
        home: PathBuf::from("/home/alice"),
        ..Policy::default()
    }
}

pub(super) fn tool(name: &str) -> Tool {
    Tool::new(name.to_string(), "/name".into(), String::new())
}

pub(super) fn check_with(policy: &Policy, tool: &Tool, arguments: Value) -> Result<(), Denial> {
    policy.check(&Call {
        tool,
        arguments: &arguments,
        dir: Path::new(DIR),
    })
}

pub(super) fn check(tool: &Tool, arguments: Value) -> Result<(), Denial> {
    check_with(&policy(), tool, arguments)
}

pub(super) fn rule(result: Result<(), Denial>) -> Option<String> {
    result.err().map(|denial| denial.rule)
}
