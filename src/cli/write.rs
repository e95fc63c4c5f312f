//! Writing generated files: plan first, then write each through a
//! temporary file and a rename.
//!
//! Who a file on disk belongs to decides what may happen to it
//! ([`crate::emit::marker`]): a file toolc wrote (its mark, and its digest
//! when it has one, say so) is rewritten without `--force`; a file with the
//! mark whose digest shows it was edited since, or one written before its
//! generator signed its files, is never rewritten if that would drop a
//! line (the lines are listed, `--force` or not); a file without the mark
//! is toolc's to replace only with `--force`. Skeletons are the
//! developer's: written once, never rewritten; a stubs file may only grow.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use super::diff::LineDiff;
use super::{CliError, Outcome, staged};
use crate::emit::marker::{self, Provenance};
use crate::emit::{FileKind, GeneratedFile};

/// How to write: `--force`, `--dry-run` and `--check`.
#[derive(Debug, Clone, Copy)]
pub(super) struct WriteMode {
    pub(super) force: bool,
    pub(super) dry_run: bool,
    /// Write nothing; show how the files on disk differ from what would be
    /// written, as a diff on standard output, and exit 1 if they do.
    pub(super) check: bool,
}

/// Who a file to write belongs to once written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ownership {
    /// toolc's: rewritten from the manifests every time.
    Toolc,
    /// The developer's: written when missing, then never touched.
    Skeleton,
    /// The developer's, to which toolc only adds: written when missing;
    /// when there, replaced only by a text that begins with all of it.
    Grows,
    /// The developer's program (a stub `convert --to agentcli` writes):
    /// written when missing, executable, then never touched.
    Program,
}

impl From<FileKind> for Ownership {
    fn from(kind: FileKind) -> Ownership {
        match kind {
            FileKind::Owned => Ownership::Toolc,
            FileKind::Skeleton => Ownership::Skeleton,
            FileKind::Program => Ownership::Program,
        }
    }
}

/// What writing a file would do.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Plan {
    New,
    Unchanged,
    /// A file toolc did not write (no mark) is there: replaced only with
    /// `--force`.
    Changed,
    /// toolc's own file, as it wrote it: rewritten.
    Update,
    /// A document toolc wrote, edited since (its digest, in the record
    /// beside it, no longer matches): replaced only with `--force`.
    Edited,
    /// Writing would drop these lines (line number, text) that toolc
    /// cannot vouch for: never written.
    Drops(Vec<(usize, String)>),
    /// A stubs file that gains what the new text adds at its end.
    Append,
    /// Something that is not a regular file is in the way (a directory where
    /// the file goes, a file where a directory goes): nothing can be written.
    Blocked,
    /// A skeleton that is there already: the developer's, left alone.
    Kept,
}

fn plan(path: &Path, pieces: &[&str], kind: Ownership, above: &mut Above) -> Plan {
    if path.parent().is_some_and(|parent| above.blocked(parent)) {
        return Plan::Blocked;
    }
    match std::fs::symlink_metadata(path) {
        Err(_) => Plan::New,
        Ok(_) if !path.is_file() => Plan::Blocked,
        Ok(_) if matches!(kind, Ownership::Skeleton | Ownership::Program) => Plan::Kept,
        Ok(_) => match holds(path, pieces) {
            Ok(true) => Plan::Unchanged,
            Ok(false) => match std::fs::read(path) {
                Ok(bytes) => plan_replacing(path, &String::from_utf8_lossy(&bytes), pieces, kind),
                Err(_) => Plan::Blocked,
            },
            Err(_) => Plan::Blocked,
        },
    }
}

/// What replacing `old`, the text at `path`, with `pieces` would do.
fn plan_replacing(path: &Path, old: &str, pieces: &[&str], kind: Ownership) -> Plan {
    let new = pieces.concat();
    // Line ends a checkout converted change nothing the file says.
    if old.contains("\r\n") && old.replace("\r\n", "\n") == new {
        return Plan::Unchanged;
    }
    if kind == Ownership::Grows {
        return if new.starts_with(old) {
            Plan::Append
        } else {
            Plan::Drops(dropped_lines(old, &new))
        };
    }
    let json = path.extension().is_some_and(|e| e == "json");
    // A signed file whose digest is the new text's says the same, laid out
    // otherwise (a formatter, a checkout's line ends): left as it is.
    if let (Some(was), Some(will)) = (marker::intact_digest(old), marker::intact_digest(&new))
        && was.eq_ignore_ascii_case(will)
    {
        return Plan::Unchanged;
    }
    let by_mark = marker::provenance(old, json);
    if json && by_mark == Provenance::Foreign {
        return match marker::provenance_by_record(old, record_beside(path).as_deref()) {
            Provenance::Intact => Plan::Update,
            Provenance::Edited => Plan::Edited,
            Provenance::Foreign | Provenance::Marked => Plan::Changed,
        };
    }
    let vouched = match by_mark {
        Provenance::Foreign => return Plan::Changed,
        Provenance::Intact => true,
        // Written before its generator signed its files, or by one that
        // does not sign: only a signing generator cannot vouch for it.
        Provenance::Marked => !new.contains(marker::DIGEST_KEY),
        Provenance::Edited => false,
    };
    if vouched {
        return Plan::Update;
    }
    match dropped_lines(old, &new) {
        dropped if dropped.is_empty() => Plan::Update,
        dropped => Plan::Drops(dropped),
    }
}

/// The text of the record beside the JSON document at `path` (see
/// `formats::carry::SIDECAR_SUFFIX`), if there is one toolc may read.
fn record_beside(path: &Path) -> Option<String> {
    /// A record holds a digest and a few names: anything larger is not one.
    const LIMIT: u64 = 16 * 1024 * 1024;
    let record = crate::formats::carry::sidecar_path(path);
    let meta = std::fs::metadata(&record).ok()?;
    if !meta.is_file() || meta.len() > LIMIT {
        return None;
    }
    std::fs::read_to_string(&record).ok()
}

/// The lines of `old` (numbered from 1) that are not in `new`, blank
/// ones aside.
fn dropped_lines(old: &str, new: &str) -> Vec<(usize, String)> {
    LineDiff::new(old, new)
        .removed()
        .filter_map(|(number, line)| {
            let line = line.trim_end_matches(['\n', '\r']);
            (!line.trim().is_empty()).then(|| (number, line.to_string()))
        })
        .collect()
}

/// What is known of the directories above the files of a run: whether
/// something that is not a directory is in the way at or above each. A
/// tree target writes tens of thousands of files into a few thousand
/// directories, and each directory is looked at once.
#[derive(Default)]
struct Above {
    blocked: HashMap<PathBuf, bool>,
}

impl Above {
    /// Whether `dir` or one of its ancestors exists and is not a
    /// directory (following symbolic links, as creating the file would).
    fn blocked(&mut self, dir: &Path) -> bool {
        if dir.as_os_str().is_empty() {
            return false;
        }
        if let Some(&known) = self.blocked.get(dir) {
            return known;
        }
        let here = std::fs::metadata(dir).is_ok_and(|m| !m.is_dir());
        let blocked = here || dir.parent().is_some_and(|parent| self.blocked(parent));
        self.blocked.insert(dir.to_path_buf(), blocked);
        blocked
    }
}

/// Whether the file at `path` holds the concatenation of `pieces`, read a
/// block at a time: a regenerated document the size of its input is never
/// held twice, and one of another length is not read at all.
fn holds(path: &Path, pieces: &[&str]) -> std::io::Result<bool> {
    use std::io::Read;
    let size: usize = pieces.iter().map(|piece| piece.len()).sum();
    let mut file = std::fs::File::open(path)?;
    if file.metadata()?.len() != size as u64 {
        return Ok(false);
    }
    let mut block = vec![0; 64 * 1024];
    let mut expected = pieces.iter().map(|piece| piece.as_bytes());
    let mut pending: &[u8] = &[];
    loop {
        let read = file.read(&mut block)?;
        if read == 0 {
            return Ok(pending.is_empty() && expected.all(<[u8]>::is_empty));
        }
        let mut got = &block[..read];
        while !got.is_empty() {
            if pending.is_empty() {
                match expected.next() {
                    Some(next) => pending = next,
                    // The file grew while it was read.
                    None => return Ok(false),
                }
            }
            let n = pending.len().min(got.len());
            if pending[..n] != got[..n] {
                return Ok(false);
            }
            pending = &pending[n..];
            got = &got[n..];
        }
    }
}

/// Writes a document, given in pieces (written one after the other, never
/// joined in memory), to `output` or standard output.
pub(super) fn write_document(
    args: &WriteMode,
    output: Option<&Path>,
    pieces: &[String],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Outcome, CliError> {
    let Some(path) = output else {
        if args.check {
            return Err(CliError::Usage(
                "--check compares the output with a file: name it with -o FILE".to_string(),
            ));
        }
        if args.dry_run {
            let size: usize = pieces.iter().map(String::len).sum();
            writeln!(err, "would write {size} bytes to standard output")?;
        } else {
            // Pieces in writes of a pipe's size, as the whole document
            // used to go: a reader that stops early (`| head`) after a
            // small document has still been given all of it.
            let mut out = std::io::BufWriter::with_capacity(64 * 1024, out);
            for piece in pieces {
                out.write_all(piece.as_bytes())?;
            }
            out.flush()?;
        }
        return Ok(Outcome::Clean);
    };
    let pieces = pieces.iter().map(String::as_str).collect();
    let file = (path.to_path_buf(), pieces, Ownership::Toolc);
    write_planned(args, vec![file], None, &[], out, err)
}

/// Writes files named one by one, each with its owner, all or none.
pub(super) fn write_files(
    args: &WriteMode,
    files: &[(PathBuf, Vec<String>, Ownership)],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Outcome, CliError> {
    let files = files
        .iter()
        .map(|(path, pieces, kind)| {
            (
                path.clone(),
                pieces.iter().map(String::as_str).collect(),
                *kind,
            )
        })
        .collect();
    write_planned(args, files, None, &[], out, err)
}

/// Writes files under `dir`: all of them, or, when an existing one would
/// change and --force is absent, none (the changing ones are listed, exit 1).
pub(super) fn write_tree(
    args: &WriteMode,
    dir: &Path,
    files: &[GeneratedFile],
    known: &[PathBuf],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Outcome, CliError> {
    let files = files
        .iter()
        .map(|f| (dir.join(&f.path), vec![f.contents.as_str()], f.kind.into()))
        .collect();
    write_planned(args, files, Some(dir), known, out, err)
}

/// Writes each file (its path, its content in pieces, its kind) as
/// planned; `dir` is the output directory of a tree.
fn write_planned(
    args: &WriteMode,
    files: Vec<(PathBuf, Vec<&str>, Ownership)>,
    dir: Option<&Path>,
    known: &[PathBuf],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Outcome, CliError> {
    let mut above = Above::default();
    let planned: Vec<Planned> = files
        .into_iter()
        .map(|(path, pieces, kind)| {
            let plan = plan(&path, &pieces, kind, &mut above);
            Planned {
                path,
                plan,
                pieces,
                kind,
            }
        })
        .collect();
    if args.dry_run {
        for file in &planned {
            let what = match &file.plan {
                Plan::New => "would create",
                Plan::Changed | Plan::Edited => "would overwrite",
                Plan::Update => "would update",
                Plan::Drops(_) => "cannot write (it holds lines toolc did not write)",
                Plan::Append => "would append to",
                Plan::Unchanged => "unchanged",
                Plan::Kept => "kept (a skeleton, yours to fill in)",
                Plan::Blocked => "cannot write (something else is in the way)",
            };
            let why = match file.plan {
                Plan::Changed => " (only with --force: toolc did not write it)",
                Plan::Edited => " (only with --force: edited since toolc wrote it)",
                _ => "",
            };
            writeln!(err, "{what}: {}{why}", crate::terminal::path(&file.path))?;
        }
        return Ok(Outcome::Clean);
    }
    if args.check {
        let left: Vec<PathBuf> = dir
            .map(|dir| left_behind(dir, &planned, known))
            .unwrap_or_default()
            .into_iter()
            .map(|(path, _)| path)
            .collect();
        return check_planned(&planned, &left, out, err);
    }
    let blocked: Vec<PathBuf> = planned
        .iter()
        .filter(|file| file.plan == Plan::Blocked)
        .map(|file| file.path.clone())
        .collect();
    if !blocked.is_empty() {
        return Err(CliError::InTheWay(blocked));
    }
    if refuse_drops(&planned, err)? {
        return Ok(Outcome::Refused);
    }
    let changed: Vec<&Planned> = planned
        .iter()
        .filter(|file| matches!(file.plan, Plan::Changed | Plan::Edited))
        .collect();
    if !changed.is_empty() && !args.force {
        for file in &changed {
            let path = crate::terminal::path(&file.path);
            if file.plan == Plan::Edited {
                writeln!(
                    err,
                    "error: {path} exists and differs from what would be generated, and was edited since toolc wrote it (its digest in {} does not match)",
                    crate::terminal::path(&crate::formats::carry::sidecar_path(&file.path))
                )?;
            } else {
                writeln!(
                    err,
                    "error: {path} exists and differs from what would be generated, and toolc did not write it (it has no \"{GENERATED_MARK_SHOWN}\" mark)",
                )?;
            }
        }
        writeln!(
            err,
            "error: nothing was written; pass --force to replace it, or --dry-run to see the plan"
        )?;
        return Ok(Outcome::Refused);
    }
    // toolc's files that no tool of the manifests gives any more, exactly
    // as toolc wrote them: a loader reading the directory would still offer
    // them to the model, so they go once the new files are in place.
    // Only those of this run's generator: another generator's output in the
    // same directory is not this run's to remove.
    let generator = planned
        .iter()
        .filter(|file| file.kind == Ownership::Toolc)
        .find_map(|file| file.pieces.iter().find_map(|piece| generator_of(piece)));
    let gone: Vec<PathBuf> = dir
        .zip(generator)
        .map(|(dir, generator)| {
            left_behind(dir, &planned, known)
                .into_iter()
                .filter(|(path, provenance)| {
                    *provenance == Provenance::Intact
                        && std::fs::read(path).is_ok_and(|bytes| {
                            generator_of(&String::from_utf8_lossy(&bytes)) == Some(generator)
                        })
                })
                .map(|(path, _)| path)
                .collect()
        })
        .unwrap_or_default();
    if let Some(dir) = dir {
        warn_about_files_not_generated(dir, &planned, known, &gone, err)?;
    }
    stage_and_commit(&planned)?;
    if let Some(dir) = dir {
        remove_left_behind(dir, &gone, err)?;
    }
    Ok(Outcome::Clean)
}

/// The generator a file's mark names: `toolc gen python` in `"toolc gen
/// python; toolc-digest: ..."` or `(`toolc gen rust`)`.
fn generator_of(text: &str) -> Option<&str> {
    const GEN: &str = "toolc gen ";
    let start = text.find(GEN)?;
    let rest = &text[start + GEN.len()..];
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &text[start..start + GEN.len() + end])
}

/// Removes the files toolc wrote for tools that are gone (see
/// [`left_behind`]), saying so, and the directories under `dir` that this
/// leaves empty.
fn remove_left_behind(dir: &Path, gone: &[PathBuf], err: &mut dyn Write) -> Result<(), CliError> {
    for path in gone {
        match std::fs::remove_file(path) {
            Ok(()) => writeln!(
                err,
                "removed: {} (toolc's, and no tool of the manifests gives it any more)",
                crate::terminal::path(path)
            )?,
            Err(error) => writeln!(
                err,
                "warning: {} is toolc's and no tool gives it any more, but it could not be removed: {error}",
                crate::terminal::path(path)
            )?,
        }
        let mut parent = path.parent();
        while let Some(here) = parent.filter(|p| p.starts_with(dir) && *p != dir) {
            // Fails, and stops, at the first directory that is not empty.
            if std::fs::remove_dir(here).is_err() {
                break;
            }
            parent = here.parent();
        }
    }
    Ok(())
}

/// Writes every file that changes: all staged first (the directories made
/// before, each once), then all renamed into place; a failure while
/// staging removes what was staged and the directories made, and writes
/// nothing.
///
/// Staging runs on every core: a tree target writes a file per tool, a
/// corpus's worth of them (265,000 for 132,000 tools), and each costs
/// system calls more than anything else.
fn stage_and_commit(planned: &[Planned]) -> Result<(), CliError> {
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    let writing: Vec<&Planned> = planned
        .iter()
        .filter(|file| !matches!(file.plan, Plan::Unchanged | Plan::Kept))
        .collect();
    // In the order they were made: a directory after the one above it.
    let mut made: Vec<PathBuf> = Vec::new();
    let mut seen: HashSet<&Path> = HashSet::new();
    let gone = |made: &[PathBuf]| made.iter().rev().cloned().collect::<Vec<_>>();
    for file in &writing {
        let parent = file.path.parent().filter(|p| !p.as_os_str().is_empty());
        let Some(parent) = parent.filter(|parent| seen.insert(parent)) else {
            continue;
        };
        match staged::make_dirs(parent) {
            // Deepest first from make_dirs.
            Ok(dirs) => made.extend(dirs.into_iter().rev()),
            Err(error) => {
                staged::abandon(Vec::new(), &gone(&made));
                return Err(not_written(error));
            }
        }
    }
    let failed = AtomicBool::new(false);
    let results: Vec<Option<Result<staged::Staged, CliError>>> = writing
        .par_iter()
        .map(|file| {
            // Once one file fails, the others are not worth writing.
            if failed.load(Ordering::Relaxed) {
                return None;
            }
            let bytes: Vec<&[u8]> = file.pieces.iter().map(|p| p.as_bytes()).collect();
            let program = file.kind == Ownership::Program;
            let result = match file.plan {
                Plan::New => staged::stage_new(&file.path, &bytes, program),
                _ => staged::stage(&file.path, &bytes, program),
            };
            if result.is_err() {
                failed.store(true, Ordering::Relaxed);
            }
            Some(result)
        })
        .collect();
    let mut staged = Vec::with_capacity(results.len());
    let mut error = None;
    for result in results.into_iter().flatten() {
        match result {
            Ok(file) => staged.push(file),
            Err(e) => {
                error.get_or_insert(e);
            }
        }
    }
    if let Some(error) = error {
        staged::abandon(staged, &gone(&made));
        return Err(not_written(error));
    }
    staged::commit(staged)
}

/// A file that could not be staged: nothing was written.
fn not_written(error: CliError) -> CliError {
    match error {
        CliError::Write { path, source } => CliError::NotWritten { path, source },
        other => other,
    }
}

/// How the mark reads in messages.
const GENERATED_MARK_SHOWN: &str = "Generated by toolc";

/// A file of a run with its plan.
struct Planned<'a> {
    path: PathBuf,
    plan: Plan,
    pieces: Vec<&'a str>,
    kind: Ownership,
}

/// Refuses a run in which writing a file would drop lines toolc did not
/// write, naming each file and line; `--force` does not change that.
fn refuse_drops(planned: &[Planned], err: &mut dyn Write) -> Result<bool, CliError> {
    /// Lines shown per file; the rest are counted.
    const SHOWN: usize = 8;
    let mut refused = false;
    for file in planned {
        let Plan::Drops(lines) = &file.plan else {
            continue;
        };
        refused = true;
        let why = if file.kind == Ownership::Grows {
            "is yours, and toolc only adds to it"
        } else {
            "holds lines toolc did not write (edited since, or written by an older toolc)"
        };
        writeln!(
            err,
            "error: {} {why}; writing it would drop:",
            crate::terminal::path(&file.path)
        )?;
        for (number, line) in lines.iter().take(SHOWN) {
            writeln!(
                err,
                "  {}:{number}: {}",
                crate::terminal::path(&file.path),
                crate::terminal::one_line(line)
            )?;
        }
        if lines.len() > SHOWN {
            writeln!(err, "  ... and {} more lines", lines.len() - SHOWN)?;
        }
    }
    if refused {
        writeln!(
            err,
            "error: nothing was written (--force never drops such lines); move your code to the file that is yours, or remove the file, then run the command again"
        )?;
    }
    Ok(refused)
}

/// `--check`: the difference between the files on disk and what would be
/// written, as a unified diff on `out` (`/dev/null` for a file that is
/// missing), each stale file named on `err`; exit 1 when there is one.
/// Files that are the developer's (skeletons, stubs) are never stale.
fn check_planned(
    planned: &[Planned],
    left: &[PathBuf],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Outcome, CliError> {
    let mut stale = 0;
    let mut checked = 0;
    let mut blocked = 0;
    // toolc's files that no tool of the manifests gives any more: a loader
    // reading the directory still offers them to the model.
    for path in left {
        writeln!(
            err,
            "stale: {} is toolc's, and this run no longer generates it (its tool is gone?): running without --check removes it unless it was edited since",
            crate::terminal::path(path)
        )?;
        stale += 1;
    }
    for file in planned {
        let path = &file.path;
        let shown = crate::terminal::path(path);
        if file.kind != Ownership::Toolc {
            if matches!(file.plan, Plan::New | Plan::Append) {
                let what = if file.plan == Plan::New {
                    "would be created"
                } else {
                    "would gain stubs"
                };
                writeln!(err, "note: {shown} {what} (yours: not checked)")?;
            }
            continue;
        }
        checked += 1;
        let (old, old_name) = match &file.plan {
            Plan::Unchanged | Plan::Kept => continue,
            // Writing would fail too: the check cannot say what to do.
            Plan::Blocked => return Err(CliError::InTheWay(vec![path.clone()])),
            Plan::New => (String::new(), "/dev/null".to_string()),
            Plan::Changed | Plan::Edited | Plan::Update | Plan::Drops(_) | Plan::Append => {
                match std::fs::read(path) {
                    Ok(bytes) => (String::from_utf8_lossy(&bytes).into_owned(), shown.clone()),
                    Err(source) => {
                        return Err(CliError::Write {
                            path: path.clone(),
                            source,
                        });
                    }
                }
            }
        };
        let new: String = file.pieces.concat();
        let diff = LineDiff::new(&old, &new).unified(&old_name, &shown, 3);
        out.write_all(diff.as_bytes())?;
        // What running gen would do with it, where that is not simply
        // writing it: the advice below must name a command that works.
        let what = match &file.plan {
            Plan::New => "missing",
            Plan::Drops(_) => {
                blocked += 1;
                "differs from what would be generated, and holds lines toolc did not write: move them to the file that is yours (or delete them) first, since toolc never drops them"
            }
            Plan::Changed => {
                blocked += 1;
                "differs from what would be generated, and toolc did not write it: it is replaced only with --force"
            }
            Plan::Edited => {
                blocked += 1;
                "differs from what would be generated, and was edited since toolc wrote it: it is replaced only with --force"
            }
            _ => "differs from what would be generated",
        };
        writeln!(err, "stale: {shown} {what}")?;
        stale += 1;
    }
    if stale == 0 {
        writeln!(
            err,
            "up to date: {checked} file{}",
            if checked == 1 { "" } else { "s" }
        )?;
        return Ok(Outcome::Clean);
    }
    let then = if blocked == 0 {
        ""
    } else {
        " (after doing what is said above for the files it would not replace as they are)"
    };
    writeln!(
        err,
        "error: {stale} generated file{} out of date; run the same command without --check to write {}{then}",
        if stale == 1 { " is" } else { "s are" },
        if stale == 1 { "it" } else { "them" }
    )?;
    Ok(Outcome::Findings)
}

/// The files under `dir` that toolc wrote (they carry its mark) and that
/// this run does not generate: what a tool removed from the manifest left;
/// each with what its mark says.
fn left_behind(dir: &Path, planned: &[Planned], known: &[PathBuf]) -> Vec<(PathBuf, Provenance)> {
    if dir.as_os_str().is_empty() || !dir.is_dir() {
        return Vec::new();
    }
    let generated: HashSet<&PathBuf> = planned.iter().map(|file| &file.path).chain(known).collect();
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .flatten()
        .filter(|entry| entry.file_type().is_file())
        .map(walkdir::DirEntry::into_path)
        .filter(|path| !generated.contains(path))
        .filter_map(|path| {
            let json = path.extension().is_some_and(|e| e == "json");
            let bytes = std::fs::read(&path).ok()?;
            let provenance = marker::provenance(&String::from_utf8_lossy(&bytes), json);
            (provenance != Provenance::Foreign).then_some((path, provenance))
        })
        .collect()
}

/// Files in the output directory that this run did not generate (a tool
/// since removed from the manifest) are left alone, but said: a loader that
/// reads the directory would still find them.
fn warn_about_files_not_generated(
    dir: &Path,
    planned: &[Planned],
    known: &[PathBuf],
    removed: &[PathBuf],
    err: &mut dyn Write,
) -> Result<(), CliError> {
    if dir.as_os_str().is_empty() || !dir.is_dir() {
        return Ok(());
    }
    let generated: std::collections::HashSet<&PathBuf> = planned
        .iter()
        .map(|file| &file.path)
        .chain(known)
        .chain(removed)
        .collect();
    for entry in walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .flatten()
    {
        let path = entry.path().to_path_buf();
        if entry.file_type().is_file() && !generated.contains(&path) {
            writeln!(
                err,
                "warning: {} was not generated by this run (left as it is; remove it if its tool is gone)",
                crate::terminal::path(&path)
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_compares_the_whole_file_across_blocks_and_pieces() {
        let dir = std::env::temp_dir().join(format!("toolc-holds-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("out.json");
        // Three blocks and a bit, cut into pieces that straddle the blocks.
        let text: String = (0..200_000)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        std::fs::write(&path, &text).unwrap();
        let cuts = [0, 1, 65_535, 65_537, 131_072, 150_000, 150_000, 200_000];
        let pieces: Vec<&str> = cuts.windows(2).map(|w| &text[w[0]..w[1]]).collect();
        assert!(holds(&path, &pieces).unwrap());
        assert!(holds(&path, &[text.as_str(), ""]).unwrap());

        // One byte off in the last block, or at the very end.
        for at in [0, 65_536, 199_999] {
            let mut other = text.clone().into_bytes();
            other[at] = b'#';
            let other = String::from_utf8(other).unwrap();
            assert!(!holds(&path, &[other.as_str()]).unwrap(), "byte {at}");
        }
        // Shorter and longer documents.
        assert!(!holds(&path, &[&text[..199_999]]).unwrap());
        assert!(!holds(&path, &[text.as_str(), "x"]).unwrap());

        std::fs::write(&path, "").unwrap();
        assert!(holds(&path, &[]).unwrap());
        assert!(holds(&path, &["", ""]).unwrap());
        assert!(!holds(&path, &["x"]).unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
