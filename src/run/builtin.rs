//! The built-in tools. (Placeholder until the implementation lands.)

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::policy::Denial;
use super::{ErrorCode, ToolResult};
use crate::ir::{Format, ToolSet};

pub const NAMES: [&str; 5] = ["list_files", "read_file", "write_file", "shell", "fetch"];

pub fn toolset() -> ToolSet {
    ToolSet {
        path: "builtin".to_string(),
        format: Format::Mcp,
        package: None,
        tools: Vec::new(),
        carried: Vec::new(),
    }
}

pub struct Workspace {
    root: PathBuf,
}

impl Workspace {
    pub fn new(root: &Path) -> std::io::Result<Workspace> {
        Ok(Workspace {
            root: std::fs::canonicalize(root)?,
        })
    }
    pub fn root(&self) -> &Path {
        &self.root
    }
    pub fn resolve(&self, path: &str) -> Result<PathBuf, Denial> {
        Ok(self.root.join(path))
    }
}

pub enum Action {
    Done(ToolResult),
    Shell { command: String, cwd: PathBuf },
}

pub fn call(workspace: &Workspace, name: &str, arguments: &Value) -> Action {
    let _ = (workspace, arguments);
    Action::Done(ToolResult::fail(ErrorCode::NotFound, name))
}
