//! PLACEHOLDER: gen rust (being written; replace this whole file).

use super::{EmitError, Generated, Options};
use crate::ir::ToolSet;

pub fn generate(_toolsets: &[ToolSet], _options: &Options) -> Result<Generated, EmitError> {
    Err(EmitError::Unsupported("gen rust is not written yet".to_string()))
}
