//! The executor of tools served elsewhere: a Nachos tool is a service
//! answering on a NATS subject, which toolc does not call yet. Its calls
//! fail with an `EXECUTION_ERROR` that names the subject, so a caller
//! knows where the tool lives.

use crate::ir::Tool;
use crate::run::{ErrorCode, ToolResult};

/// Where a remote tool answers.
#[derive(Debug, Clone)]
pub(in crate::run) struct RemoteTool {
    /// The NATS subject of its requests (`nachos.tool.<id>.request`).
    pub subject: String,
}

/// A call of a remote tool: not implemented yet, said plainly.
pub(super) fn run(tool: &Tool, remote: &RemoteTool) -> ToolResult {
    ToolResult::fail(
        ErrorCode::ExecutionError,
        format!(
            "\"{}\" is a Nachos service answering on NATS subject {}; toolc run executes commands and Python tools only",
            tool.name, remote.subject
        ),
    )
}
