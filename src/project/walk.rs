//! Finding the files to load.
//!
//! Named files are taken as they are. Directories are walked recursively
//! (ignore's walker: walkdir plus .gitignore semantics), following symbolic
//! links, skipping VCS and build directories, dependency trees and Python
//! virtual environments, and whatever the repository's `.gitignore` files
//! exclude. A walk error (a symlink loop, an unreadable directory) becomes a
//! [`ProblemKind::Walk`] problem; a named path that does not exist fails the
//! load.
//!
//! Discovery is an iterator, so files are loaded (and linted) while the
//! walk is still going.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::{LoadError, LoadProblem, ProblemKind, Skipped};

/// A file to read.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    pub path: PathBuf,
    /// How the path is shown in diagnostics.
    pub display: String,
    /// Named on the command line (so it must be a manifest).
    pub explicit: bool,
}

impl Candidate {
    /// A file named by the caller.
    pub(crate) fn named(path: PathBuf) -> Self {
        Candidate {
            display: display_path(&path),
            path,
            explicit: true,
        }
    }
}

/// What discovery yields.
#[derive(Debug)]
pub(crate) enum Found {
    File(Candidate),
    /// A walk error.
    Problem(LoadProblem),
    /// A named path that the exclusions leave out (`force-exclude`).
    Excluded(Skipped),
}

/// The paths a run leaves out of its walks (`exclude`, `extend-exclude`
/// and `--exclude` globs); the caller decides how they are configured.
pub trait Exclusion: Send + Sync + std::fmt::Debug {
    /// Whether the walk leaves out `path` (a directory, or a `.json`
    /// file), with everything under it.
    fn excludes(&self, path: &Path) -> bool;
    /// Whether the walk leaves out `entry`, a directory or `.json` file
    /// it met: [`Exclusion::excludes`] of its path, unless the
    /// implementation makes use of what the walk knows of it.
    fn excludes_walked(&self, entry: Walked<'_>) -> bool {
        self.excludes(entry.path)
    }
    /// Whether a path named on the command line is left out: by default
    /// it is read even when excluded; ruff's `force-exclude` leaves it out.
    fn excludes_named(&self, path: &Path) -> bool;
}

/// A directory or `.json` file a walk met.
#[derive(Debug, Clone, Copy)]
pub struct Walked<'a> {
    pub path: &'a Path,
    /// A directory that is not a symbolic link: its canonical path is its
    /// parent's plus its name, with no system call to resolve it.
    pub plain_dir: bool,
}

/// Directory names walks leave out unless the caller's [`Exclusion`]
/// says otherwise: version control, build output, dependency trees and
/// Python environments.
pub const DEFAULT_EXCLUDE: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    "target",
    "node_modules",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".pytest_cache",
];

/// Checks that every named path exists, then yields the files to read,
/// leaving out everything at or below the `exclude`d paths (a generator's
/// own output must not be read back as input) and what `exclusion`
/// excludes.
pub(crate) fn discover(
    paths: &[PathBuf],
    exclude: &[PathBuf],
    exclusion: Option<Arc<dyn Exclusion>>,
) -> Result<impl Iterator<Item = Found> + Send + use<>, LoadError> {
    let mut roots = Vec::with_capacity(paths.len());
    for path in paths {
        let metadata = std::fs::metadata(path).or_else(|_| std::fs::symlink_metadata(path));
        let Ok(metadata) = metadata else {
            return Err(LoadError::PathNotFound(path.display().to_string()));
        };
        roots.push((path.clone(), metadata.is_dir()));
    }
    let excluded = Excluded::new(
        exclude
            .iter()
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .collect(),
    );
    let roots_excluded = excluded.clone();
    Ok(roots
        .into_iter()
        .filter(move |(path, _)| !roots_excluded.covers(path))
        .flat_map(move |(path, is_dir)| {
            let forced_out = exclusion.as_ref().is_some_and(|x| x.excludes_named(&path));
            if forced_out {
                let skipped = Found::Excluded(Skipped {
                    path: display_path(&path),
                    named: false,
                    why: "excluded (force-exclude)".to_string(),
                    excluded: true,
                });
                return Box::new(std::iter::once(skipped))
                    as Box<dyn Iterator<Item = Found> + Send>;
            }
            let walked = is_dir
                .then(|| walk_directory(&path, excluded.clone(), exclusion.clone()))
                .into_iter()
                .flatten();
            let named = (!is_dir).then(|| Found::File(Candidate::named(path)));
            Box::new(named.into_iter().chain(walked))
        }))
}

/// Each directory as a walk names it → its canonical path (`None`: it
/// cannot be resolved), each resolved once: a tree of many files asks
/// about a few directories many times. A directory the walk met that is
/// not a symbolic link is learnt from its parent ([`CanonicalDirs::learn`]),
/// so only the walk's roots cost `realpath`'s system call per component.
/// What it holds is true of the tree as the walk saw it: it lives as
/// long as one load.
#[derive(Debug, Default)]
pub(crate) struct CanonicalDirs(Mutex<HashMap<PathBuf, Option<PathBuf>>>);

impl CanonicalDirs {
    fn known(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Option<PathBuf>>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn get(&self, dir: &Path) -> Option<PathBuf> {
        if let Some(known) = self.known().get(dir) {
            return known.clone();
        }
        // Resolved without the lock: other threads go on meanwhile, and
        // two resolving one directory agree.
        let canonical = std::fs::canonicalize(dir).ok();
        self.known().insert(dir.to_path_buf(), canonical.clone());
        canonical
    }

    /// Records that the directory `dir` (as the walk names it) is
    /// `canonical`.
    pub(crate) fn learn(&self, dir: &Path, canonical: PathBuf) {
        self.known().insert(dir.to_path_buf(), Some(canonical));
    }
}

/// Paths (canonical) whose contents a run leaves alone, and the canonical
/// form of each directory the walk has asked about.
#[derive(Debug, Clone)]
struct Excluded {
    paths: Vec<PathBuf>,
    canonical_dirs: Arc<CanonicalDirs>,
}

impl Excluded {
    fn new(paths: Vec<PathBuf>) -> Self {
        Excluded {
            paths,
            canonical_dirs: Arc::default(),
        }
    }

    fn covers(&self, path: &Path) -> bool {
        !self.paths.is_empty()
            && std::fs::canonicalize(path).is_ok_and(|p| self.covers_canonical(&p))
    }

    fn covers_canonical(&self, canonical: &Path) -> bool {
        self.paths.iter().any(|x| canonical.starts_with(x))
    }

    /// Whether a walked entry is at or below an excluded path. Only what
    /// the walk enters or reads is asked about: directories and `.json`
    /// files. An entry that is not a symbolic link is its directory's
    /// canonical path plus its name, so each directory is resolved once,
    /// not once per file in it.
    fn covers_entry(&self, entry: &ignore::DirEntry) -> bool {
        if self.paths.is_empty() {
            return false;
        }
        let path = entry.path();
        let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
        if !is_dir && path.extension().is_none_or(|e| e != "json") {
            return false;
        }
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return self.covers(path);
        };
        if entry.path_is_symlink() || parent.as_os_str().is_empty() {
            return self.covers(path);
        }
        let Some(canonical) = self.canonical_dirs.get(parent).map(|dir| dir.join(name)) else {
            return false;
        };
        let covered = self.covers_canonical(&canonical);
        if is_dir && !covered {
            self.canonical_dirs.learn(path, canonical);
        }
        covered
    }
}

/// A walk of `root` as the front end walks: hidden files included,
/// `.gitignore` files (nested, and their parents') obeyed whether or not
/// `root` is in a git repository, no global git excludes, no `.ignore`
/// files, links followed. The caller adds what it leaves out.
pub(crate) fn walk_builder(root: &Path) -> ignore::WalkBuilder {
    let mut builder = ignore::WalkBuilder::new(root);
    builder
        .hidden(false)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .require_git(false)
        .ignore(false)
        .parents(true)
        .follow_links(true);
    builder
}

fn walk_directory(
    root: &Path,
    excluded: Excluded,
    exclusion: Option<Arc<dyn Exclusion>>,
) -> impl Iterator<Item = Found> + Send + use<> {
    let root = root.to_path_buf();
    let walker = walk_builder(&root)
        .filter_entry(move |entry| {
            entry.depth() == 0
                || !(is_left_out(entry, exclusion.as_deref()) || excluded.covers_entry(entry))
        })
        .build();
    walker.filter_map(move |entry| match entry {
        Ok(entry) => {
            let is_file = entry.file_type().is_some_and(|t| !t.is_dir());
            let is_json = entry.path().extension().is_some_and(|e| e == "json");
            (is_file && is_json).then(|| {
                Found::File(Candidate {
                    path: entry.path().to_path_buf(),
                    display: display_path(entry.path()),
                    explicit: false,
                })
            })
        }
        Err(error) => {
            let path = error_path(&error)
                .map(display_path)
                .unwrap_or_else(|| display_path(&root));
            Some(Found::Problem(LoadProblem {
                kind: ProblemKind::Walk,
                path,
                span: None,
                message: walk_error_message(&error),
            }))
        }
    })
}

/// Whether the walk leaves out `entry`: a Python virtual environment, or
/// what the caller's exclusion (else [`DEFAULT_EXCLUDE`]) names. Only
/// directories and `.json` files are asked about.
fn is_left_out(entry: &ignore::DirEntry, exclusion: Option<&dyn Exclusion>) -> bool {
    let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
    if !is_dir && entry.path().extension().is_none_or(|e| e != "json") {
        return false;
    }
    if is_dir && entry.path().join("pyvenv.cfg").is_file() {
        return true;
    }
    match exclusion {
        Some(exclusion) => exclusion.excludes_walked(Walked {
            path: entry.path(),
            plain_dir: is_dir && !entry.path_is_symlink(),
        }),
        None => is_dir && DEFAULT_EXCLUDE.contains(&entry.file_name().to_string_lossy().as_ref()),
    }
}

fn error_path(error: &ignore::Error) -> Option<&Path> {
    match error {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::Loop { child, .. } => Some(child),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        ignore::Error::Partial(errors) => errors.first().and_then(error_path),
        _ => None,
    }
}

/// The error without the path (diagnostics carry the path separately).
fn walk_error_message(error: &ignore::Error) -> String {
    match error {
        ignore::Error::Loop { ancestor, child } => format!(
            "symbolic link loop: {} points back to {}",
            display_path(child),
            display_path(ancestor)
        ),
        ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithPath { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => walk_error_message(err),
        // walkdir's own text repeats the path; the OS error alone says it.
        ignore::Error::Io(io) => {
            let os_error = io
                .get_ref()
                .and_then(|e| e.downcast_ref::<walkdir::Error>())
                .and_then(walkdir::Error::io_error);
            match os_error.and_then(std::io::Error::raw_os_error) {
                Some(code) => format!("cannot read: {}", std::io::Error::from_raw_os_error(code)),
                None => format!("cannot read: {io}"),
            }
        }
        ignore::Error::Partial(errors) => errors
            .first()
            .map(walk_error_message)
            .unwrap_or_else(|| "cannot read".to_string()),
        other => format!("cannot read: {other}"),
    }
}

/// A file's identity within one run: its path without `.` components, so
/// `./a/tools.json` and `a/tools.json` are one file. Not its display
/// string, which is lossy for names that are not UTF-8.
pub(crate) fn identity(path: &Path) -> PathBuf {
    path.components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect()
}

/// A path as shown to the user: without a leading `./`. Bytes of a name
/// that are not UTF-8 are shown as `\xNN`, not all as U+FFFD, and a
/// backslash as `\\` (as `ls -b` does): reports tell files apart by this
/// string (their texts, their snippets), so no two paths may show alike.
pub fn display_path(path: &Path) -> String {
    let shown = escaped(path);
    match shown.strip_prefix("./") {
        Some(rest) if !rest.is_empty() => rest.to_string(),
        _ => shown,
    }
}

#[cfg(unix)]
fn escaped(path: &Path) -> String {
    use std::fmt::Write as _;
    use std::os::unix::ffi::OsStrExt;
    let bytes = path.as_os_str().as_bytes();
    let mut shown = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for part in chunk.valid().split_inclusive('\\') {
            shown.push_str(part);
            if part.ends_with('\\') {
                shown.push('\\');
            }
        }
        for byte in chunk.invalid() {
            let _ = write!(shown, "\\x{byte:02X}");
        }
    }
    shown
}

#[cfg(not(unix))]
fn escaped(path: &Path) -> String {
    path.display().to_string()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn no_two_paths_are_shown_alike() {
        let shown = |bytes: &[u8]| display_path(Path::new(std::ffi::OsStr::from_bytes(bytes)));
        assert_eq!(shown(b"./a/tools.json"), "a/tools.json");
        assert_eq!(shown(b"caf\xc3\xa9.json"), "café.json");
        assert_eq!(shown(b"x\xff.json"), "x\\xFF.json");
        // The text `\xFF` in a name that is UTF-8 is not that byte.
        assert_eq!(shown(b"x\\xFF.json"), "x\\\\xFF.json");
        let names: [&[u8]; 6] = [
            b"x\xff",
            b"x\\xFF",
            b"x\\\xff",
            b"x\\\\xFF",
            b"x\xef\xbf\xbd",
            b"x\\",
        ];
        let all: std::collections::BTreeSet<String> = names.iter().map(|n| shown(n)).collect();
        assert_eq!(all.len(), names.len(), "{all:?}");
    }
}
