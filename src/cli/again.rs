//! Reading a manifest again, as the run read it: for a writer that
//! makes a manifest's output again at the end, from its IR (a name
//! another manifest took, a package two manifests share), rather than
//! keep every manifest's IR until then.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{CliError, ReadArgs};
use crate::ir::ToolSet;
use crate::json::Document;
use crate::source::Fingerprint;

/// What a run kept of a manifest to read its IR again: where it is, how
/// it is shown, and what the first read saw (its text's fingerprint, and
/// [`crate::project::PackageCode::fingerprint`]).
pub(super) struct ReadAgain<'a> {
    pub(super) file: &'a Path,
    pub(super) path: &'a str,
    pub(super) text: Option<Fingerprint>,
    pub(super) code: u64,
}

/// A manifest read again: its IR, the document it came from, and its text
/// (shown as the first read showed it).
pub(super) type Again = (ToolSet, Arc<Document>, crate::source::Source);

/// Reads a manifest's IR again, with its document and text (see
/// [`reload`]).
pub(super) type Reload<'a> = dyn Fn(ReadAgain<'_>) -> Result<Again, CliError> + 'a;

/// The IR of the manifest `again` names, read again as the run read it:
/// its text must be the one the run linted, and its package code (and a
/// provider document's record beside it) must give the IR what they gave
/// then, or gen and convert would write what no check has seen. A live
/// server's document is read again from memory (`held`).
pub(super) fn reload(
    read: &ReadArgs,
    output: Option<&PathBuf>,
    held: &[crate::project::HeldDocument],
    again: ReadAgain<'_>,
) -> Result<Again, CliError> {
    let options = crate::lint::LintOptions {
        exclude: output.into_iter().cloned().collect(),
        ..read.options()
    };
    let linter = crate::lint::Linter::new(options)?;
    let project = match held.iter().find(|document| document.path == again.path) {
        Some(document) => {
            document.load_configured(&linter.load_options(), linter.configuration())?
        }
        None => crate::project::Project::load_configured(
            &[again.file.to_path_buf()],
            &linter.load_options(),
            linter.configuration(),
        )?,
    };
    let manifest = project
        .manifests
        .into_iter()
        .next()
        .filter(|manifest| {
            Some(manifest.fingerprint) == again.text && manifest.code.fingerprint == again.code
        })
        .ok_or_else(|| CliError::InputChanged(again.path.to_string()))?;
    let set = ToolSet {
        path: again.path.to_string(),
        ..manifest.toolset
    };
    let source = crate::source::Source::new(again.path, manifest.source.text);
    Ok((set, manifest.document, source))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Fingerprint;
    use clap::Parser;

    #[derive(Parser)]
    struct Read {
        #[command(flatten)]
        read: ReadArgs,
    }

    /// What a run that read `file` keeps to read it again: the
    /// fingerprints of its text and of what its code gave the IR.
    fn first_read(read: &ReadArgs, file: &Path) -> (Option<Fingerprint>, u64) {
        let linter = crate::lint::Linter::new(read.options()).unwrap();
        let project = crate::project::Project::load_configured(
            &[file.to_path_buf()],
            &linter.load_options(),
            linter.configuration(),
        )
        .unwrap();
        let manifest = &project.manifests[0];
        (Some(manifest.fingerprint), manifest.code.fingerprint)
    }

    /// gen rust and convert read a manifest again to name its tools apart
    /// from another's: they must write from the text the run linted, and
    /// from what the package code gave the IR then, or not at all.
    #[test]
    fn a_manifest_read_again_must_hold_the_text_the_run_linted() {
        let dir = std::env::temp_dir().join(format!("toolc-reload-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("tools.json");
        let linted = r#"{"tools": [{"name": "get_time", "description": "Tell the time.", "schema": {"type": "object"}, "command": ["/bin/true"]}]}"#;
        std::fs::write(&file, linted).unwrap();
        let read = Read::parse_from(["toolc"]).read;
        let (text, code) = first_read(&read, &file);
        assert_eq!(text, Some(Fingerprint::of(linted)));
        let again = || ReadAgain {
            file: &file,
            path: "tools.json",
            text,
            code,
        };

        let (set, ..) = reload(&read, None, &[], again()).unwrap();
        assert_eq!(set.tools[0].name, "get_time");

        let swapped = linted.replace("get_time", "rm_rf_ok");
        assert_eq!(swapped.len(), linted.len());
        std::fs::write(&file, swapped).unwrap();
        let refused = reload(&read, None, &[], again());
        assert!(matches!(refused, Err(CliError::InputChanged(ref p)) if p == "tools.json"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// An AgentStack tool's parameters come from `__init__.py`: a module
    /// changed since the run read it is refused, though `config.json` is
    /// the same.
    #[test]
    fn a_manifest_read_again_must_get_the_same_parameters_from_its_code() {
        let dir = std::env::temp_dir().join(format!("toolc-reload-code-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let config = r#"{"name": "clock", "category": "time", "tools": ["get_time"]}"#;
        std::fs::write(dir.join("config.json"), config).unwrap();
        let module = "def get_time(zone: str) -> str:\n    \"\"\"Tell the time.\n\n    Args:\n        zone: The time zone.\n    \"\"\"\n    return zone\n";
        std::fs::write(dir.join("__init__.py"), module).unwrap();
        let read = Read::parse_from(["toolc"]).read;
        let file = dir.join("config.json");
        let (text, code) = first_read(&read, &file);
        let again = || ReadAgain {
            file: &file,
            path: "config.json",
            text,
            code,
        };
        assert!(reload(&read, None, &[], again()).is_ok());

        std::fs::write(dir.join("__init__.py"), module.replace("zone", "rm_rf")).unwrap();
        let refused = reload(&read, None, &[], again());
        assert!(
            matches!(refused, Err(CliError::InputChanged(_))),
            "{refused:?}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A provider document's renamed parameters are in the record beside
    /// it: a record changed, or made, since the run read the document is
    /// refused, though the document is the same.
    #[test]
    fn a_manifest_read_again_must_have_the_same_record_beside_it() {
        let dir = std::env::temp_dir().join(format!("toolc-reload-record-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("mcp.json");
        let document = r#"{"tools": [{"name": "get_time", "description": "Tell the time.", "inputSchema": {"type": "object", "properties": {"zone_name": {"type": "string"}}}}]}"#;
        std::fs::write(&file, document).unwrap();
        let record = crate::formats::carry::sidecar_path(&file);
        let names = |original: &str| {
            format!(
                r#"{{"x-toolc": {{"parameter_names": {{"get_time": {{"zone_name": "{original}"}}}}}}}}"#
            )
        };
        let read = Read::parse_from(["toolc"]).read;
        for (first, then) in [
            (Some("zone.name"), Some("rm_rf")),
            (None, Some("rm_rf")),
            (Some("zone.name"), None),
        ] {
            let _ = std::fs::remove_file(&record);
            if let Some(first) = first {
                std::fs::write(&record, names(first)).unwrap();
            }
            let (text, code) = first_read(&read, &file);
            let again = || ReadAgain {
                file: &file,
                path: "mcp.json",
                text,
                code,
            };
            assert!(reload(&read, None, &[], again()).is_ok());
            match then {
                Some(then) => std::fs::write(&record, names(then)).unwrap(),
                None => std::fs::remove_file(&record).unwrap(),
            }
            let refused = reload(&read, None, &[], again());
            assert!(
                matches!(refused, Err(CliError::InputChanged(_))),
                "{first:?} -> {then:?}: {refused:?}"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
