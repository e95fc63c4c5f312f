//! Writing `toolc gen rust`: the module (toolc's, rewritten and checked)
//! to `-o FILE`, and beside it the stubs file (the developer's: written
//! when missing, then only appended to with the stubs of new tools). With
//! no `-o`, the module alone goes to standard output.

use std::io::Write;
use std::path::Path;

use super::write::{self, Ownership, WriteMode};
use super::{CliError, Outcome};
use crate::emit::Options;
use crate::emit::rust::Rendered;

/// The most of a stubs file toolc reads to append to it.
const STUBS_LIMIT: u64 = 64 * 1024 * 1024;

pub(super) fn write_rust(
    mode: &WriteMode,
    output: Option<&Path>,
    rendered: Rendered,
    options: &Options,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Outcome, CliError> {
    let stubs_name = &rendered.stubs.file_name;
    let Some(path) = output else {
        if !mode.check {
            writeln!(
                err,
                "note: the module calls each tool's `run` in {stubs_name} beside it; write both with -o FILE"
            )?;
        }
        return write::write_document(mode, None, &rendered.pieces, out, err);
    };
    let stubs_path = path.with_file_name(stubs_name);
    let mut files = vec![(path.to_path_buf(), rendered.pieces, Ownership::Toolc)];
    match read_stubs(&stubs_path)? {
        None => {
            let pieces = rendered.stubs.file_pieces(options)?;
            files.push((stubs_path, pieces, Ownership::Grows));
        }
        Some(text) => match rendered.stubs.missing_from(&text, options)? {
            // Listed, so that --dry-run says it is kept.
            None => files.push((stubs_path, vec![text], Ownership::Skeleton)),
            Some((appendix, names)) => {
                if !mode.check && !mode.dry_run {
                    for name in &names {
                        writeln!(
                            err,
                            "note: {} has no `impl Run` for tool \"{}\": its stub is appended",
                            crate::terminal::path(&stubs_path),
                            crate::terminal::one_line(name)
                        )?;
                    }
                }
                files.push((stubs_path, vec![text, appendix], Ownership::Grows));
            }
        },
    }
    write::write_files(mode, &files, out, err)
}

/// The stubs file's text, `None` when there is no file there. Anything
/// else in the way is left to the writer to report.
fn read_stubs(path: &Path) -> Result<Option<String>, CliError> {
    let wrap = |source| CliError::Write {
        path: path.to_path_buf(),
        source,
    };
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() && meta.len() > STUBS_LIMIT => Err(wrap(std::io::Error::other(
            "the stubs file is too large to append to",
        ))),
        Ok(meta) if meta.is_file() => match std::fs::read(path) {
            Ok(bytes) => String::from_utf8(bytes)
                .map(Some)
                .map_err(|_| wrap(std::io::Error::other("the stubs file is not UTF-8"))),
            Err(source) => Err(wrap(source)),
        },
        _ => Ok(None),
    }
}
