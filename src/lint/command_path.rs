//! The `command` arrays of an agentcli manifest, as the command rules read
//! them; where a program points is [`crate::formats::agentcli_command`]'s.

use serde_json::Value;

use super::Manifest;
use crate::ir::{Format, Runtime};

pub(crate) use crate::formats::agentcli_command::{BIN_PREFIX, CommandPath, classify};

/// The `command` array of every agentcli tool, with its pointer.
pub(crate) fn commands<'m>(manifest: &Manifest<'m>) -> Vec<(String, Option<&'m Value>)> {
    if manifest.format() != Format::Agentcli {
        return Vec::new();
    }
    manifest
        .loaded
        .toolset
        .tools
        .iter()
        .filter(|t| matches!(t.runtime, Runtime::Command { .. }))
        .map(|t| {
            let pointer = format!("{}/command", t.origin);
            let value = crate::json::value_at(&manifest.loaded.document.value, &pointer);
            (pointer, value)
        })
        .collect()
}

/// The program of a command array, if it is a non-empty string.
pub(crate) fn program(command: Option<&Value>) -> Option<&str> {
    command?
        .as_array()?
        .first()?
        .as_str()
        .filter(|p| !p.trim().is_empty())
}
