//! agentcli's rules on a tool's `command`: which program it names, and
//! where that program points, lexically. lint's command rules, the front
//! end (which reads the programs) and convert (which writes commands and
//! their stubs) all ask here.
//!
//! agentcli runs only programs under `./tools/bin/` (relative to the
//! manifest) or given by an absolute path. The check is lexical, as agentcli's
//! own is: backslashes are separators too, `.` and `..` are resolved, and
//! the result must stay strictly inside `tools/bin`.

use serde_json::Value;

/// The prefix relative programs must start with.
pub(crate) const BIN_PREFIX: &str = "./tools/bin/";

/// The program of a `command` array as a manifest holds it: its first
/// item, if that is a string that is not blank.
pub(crate) fn program(command: Option<&Value>) -> Option<&str> {
    command?
        .as_array()?
        .first()?
        .as_str()
        .filter(|p| !p.trim().is_empty())
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CommandPath {
    /// An absolute path (`/usr/bin/x`, `C:\x`, `\\host\x`).
    Absolute,
    /// Starts with `./tools/bin/` and stays inside; the normalized path
    /// relative to the manifest directory.
    InsideBin(String),
    /// A relative path that does not use the prefix and has no `..`.
    OutsideBin,
    /// Leaves `tools/bin` (or the manifest directory) through `..`; the
    /// normalized path.
    EscapesBin(String),
}

pub(crate) fn classify(program: &str) -> CommandPath {
    let slashed = program.replace('\\', "/");
    let bytes = slashed.as_bytes();
    let drive = bytes.len() >= 3 && bytes[0].is_ascii_alphabetic() && &bytes[1..3] == b":/";
    if slashed.starts_with('/') || drive {
        return CommandPath::Absolute;
    }
    let mut parts: Vec<&str> = Vec::new();
    let mut climbs = false;
    for part in slashed.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
                climbs = true;
            }
            _ => parts.push(part),
        }
    }
    let normalized = if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    };
    let inside = parts.len() >= 3 && parts[0] == "tools" && parts[1] == "bin";
    if slashed.starts_with(BIN_PREFIX) {
        if inside && !climbs_out_of_bin(&slashed) {
            CommandPath::InsideBin(normalized)
        } else {
            CommandPath::EscapesBin(normalized)
        }
    } else if climbs {
        CommandPath::EscapesBin(normalized)
    } else {
        CommandPath::OutsideBin
    }
}

/// Whether a path under the prefix ever climbs above `tools/bin` on its way,
/// as `./tools/bin/../bin/x` does: agentcli refuses any `..` that leaves the
/// directory, even if a later component comes back.
fn climbs_out_of_bin(slashed: &str) -> bool {
    let mut depth: i64 = 0;
    for part in slashed[BIN_PREFIX.len()..].split('/') {
        match part {
            "" | "." => {}
            ".." => depth -= 1,
            _ => depth += 1,
        }
        if depth < 0 {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_like_agentcli() {
        assert_eq!(
            classify("./tools/bin/fetch"),
            CommandPath::InsideBin("tools/bin/fetch".into())
        );
        assert_eq!(
            classify(".\\tools\\bin\\fetch"),
            CommandPath::InsideBin("tools/bin/fetch".into())
        );
        assert_eq!(classify("/usr/bin/env"), CommandPath::Absolute);
        assert_eq!(classify("C:\\tools\\x.exe"), CommandPath::Absolute);
        assert_eq!(classify("python3"), CommandPath::OutsideBin);
        assert_eq!(classify("tools/bin/fetch"), CommandPath::OutsideBin);
        assert_eq!(classify("./scripts/x"), CommandPath::OutsideBin);
        assert_eq!(
            classify("./tools/bin/../x"),
            CommandPath::EscapesBin("tools/x".into())
        );
        assert_eq!(
            classify(".\\tools\\bin\\..\\x"),
            CommandPath::EscapesBin("tools/x".into())
        );
        assert_eq!(classify("../x"), CommandPath::EscapesBin("x".into()));
        assert_eq!(
            classify("./tools/bin/"),
            CommandPath::EscapesBin("tools/bin".into())
        );
        assert_eq!(
            classify("./tools/bin/../bin/x"),
            CommandPath::EscapesBin("tools/bin/x".into())
        );
        assert_eq!(
            classify("./tools/bin/sub/../x"),
            CommandPath::InsideBin("tools/bin/x".into())
        );
    }
}
