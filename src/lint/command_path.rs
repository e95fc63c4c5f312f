//! The `command` arrays of an agentcli manifest, as the command rules read
//! them; where a program points, and which program a command names, are
//! [`crate::formats::agentcli_command`]'s.

use serde_json::Value;

use super::Manifest;
use crate::ir::{Format, Runtime};

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

/// [`commands`], and in a manifest of another format the agentcli command
/// a tool was converted from and runs (its `"x-toolc"` object keeps it):
/// whether the program is there. agentcli's rules on where a program may
/// be (`./tools/bin/`) are agentcli's runner's, not checked on those.
pub(crate) fn programs_run<'m>(manifest: &Manifest<'m>) -> Vec<(String, Option<&'m Value>)> {
    if manifest.format() == Format::Agentcli {
        return commands(manifest);
    }
    let loaded: &'m crate::project::Manifest = manifest.loaded;
    loaded
        .toolset
        .tools
        .iter()
        .filter(|t| matches!(t.runtime, Runtime::Command { .. }))
        .filter_map(|t| {
            let carried = t
                .extra
                .carried
                .iter()
                .find(|c| c.format == Format::Agentcli && c.key == "command")?;
            Some((carried.at.clone(), Some(&carried.value)))
        })
        .collect()
}

/// Where a relative program of `manifest` is looked for, for a help text.
pub(crate) fn where_programs_are(manifest: &Manifest) -> String {
    match manifest.format() {
        Format::Agentcli => format!(
            "relative programs resolve against the directory of {}",
            crate::formats::agentcli::FILE_NAME
        ),
        format => format!(
            "this {format} manifest runs the agentcli program its tool was converted from (kept in \"x-toolc\"), and a relative one resolves against the manifest's directory; put the program there, or remove \"agentcli\" from the tool's \"x-toolc\" to run its {format} code instead"
        ),
    }
}
