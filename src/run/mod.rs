//! The embedded runner: validate, authorize, sandbox and execute tools.

pub mod builtin;
pub mod policy;
mod result;

pub use result::{ErrorCode, Metadata, ToolError, ToolResult};
