//! The front end: everything toolc knows about a set of manifests, loaded
//! once.
//!
//! Loading finds the files (`walk`: named files and walked directories,
//! with the ignore rules), recognizes each one's format (by name, then by
//! content, or as forced), reads it within a size limit, parses it with
//! spans, reads the package code it depends on (an AgentStack package's
//! `__init__.py`, a Nachos package's TypeScript, a NORA entrypoint, the
//! programs an agentcli manifest names) and lowers it into the full IR,
//! parameter schemas from code included. Each package file is read once
//! per run, however many manifests or checks need it.
//!
//! What goes wrong becomes a typed [`LoadProblem`] on that file, never a
//! failure of the whole load; only a named path that does not exist fails
//! it ([`LoadError`]). Nothing here knows about rules or severities: lint
//! maps problems to its rules, and gen, convert and run use the IR.
//!
//! Two entry points: [`Project::load`] from paths on disk, and
//! [`Project::from_documents`] from documents in memory. An editor's
//! unsaved buffers of package code go in an [`Overlay`] of the load
//! options: every read of a file at one of its paths reads the buffer.

pub mod config;
mod exclude;
mod names;
mod overlay;
mod package;
mod read;
pub mod settings;
mod walk;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

pub use crate::formats::{Decided, Detection};
use crate::ir::{Format, ToolSet};
use crate::source::{Source, Span};
pub use config::{ConfigError, Resolver};

/// The parsed document of a manifest: its value and where each part is.
pub use crate::json::{Document, SourceMap};
/// What the front end read of package code.
pub use crate::python::Module as PythonSyntax;
pub use crate::typescript::{Found as FoundClass, Search as ClassSearch, ToolClass};
pub use names::{
    NameClash, NameEntry, Repeats, ViewCandidate, declares_runtime, is_source, name_clashes,
    view_scope, views,
};
pub use overlay::Overlay;
pub use package::{
    DerivedSchema, EntrypointFile, FileState, Origin, PackageCode, ProgramFile, PythonModule,
    ReadLog, UntypedParameter,
};
pub use read::source_again;
pub(crate) use walk::{Candidate, CanonicalDirs, walk_builder};
pub use walk::{DEFAULT_EXCLUDE, Exclusion, Walked, display_path};

/// Files larger than this are reported, not read, unless the caller says
/// otherwise.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 16 * 1024 * 1024;

/// The size limit also bounds a manifest's values: one for every this many
/// bytes (1,398,101 under the default limit). Real manifests spend 15 to
/// 80 bytes a value (the corpus 21 to 27), while a value parsed costs about
/// a hundred bytes of memory and may be copied once more into the IR (an
/// argv, a schema): a 10 MB manifest of one-digit numbers (`[1,1,1,...]`,
/// five million values) would need well over a gigabyte.
pub const BYTES_PER_VALUE: u64 = 12;

/// How many JSON values a manifest under the size limit `max_size` may hold.
pub fn max_values(max_size: u64) -> usize {
    usize::try_from(max_size / BYTES_PER_VALUE).unwrap_or(usize::MAX)
}

/// How to load.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// Treat every file as this format instead of detecting it.
    pub input_format: Option<Format>,
    /// Paths not to read, at any depth (a generator's own output).
    pub exclude: Vec<PathBuf>,
    /// What walks leave out (the configured globs); `None`:
    /// [`DEFAULT_EXCLUDE`].
    pub exclusion: Option<Arc<dyn Exclusion>>,
    /// Files (manifests and package code) larger than this are not read.
    pub max_file_size: u64,
    /// Counts every file read, when given (see [`ReadLog`]).
    pub read_log: Option<Arc<ReadLog>>,
    /// Texts read in place of files (an editor's unsaved buffers).
    pub overlay: Option<Arc<Overlay>>,
    /// Read a named file as a directory walk reads it: one that holds no
    /// manifest (package.json, a settings file with comments) is skipped,
    /// not reported. pre-commit names every changed JSON file.
    pub ignore_unknown: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            input_format: None,
            exclude: Vec::new(),
            exclusion: None,
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            read_log: None,
            overlay: None,
            ignore_unknown: false,
        }
    }
}

/// A manifest that parsed: its text, document, IR and package code.
#[derive(Debug, Clone)]
pub struct Manifest {
    /// Where the manifest is on disk (its `source.path` is how it is
    /// shown, which is lossy for names that are not UTF-8).
    pub file: PathBuf,
    /// The text as the run read it, to know a later read of `file` sees
    /// the same text.
    pub fingerprint: crate::source::Fingerprint,
    pub source: Source,
    /// Shared with the IR: the parameter schemas of its tools are parts of
    /// it ([`crate::ir::SharedValue`]).
    pub document: std::sync::Arc<Document>,
    /// The full IR: parameter schemas (from the manifest or from code),
    /// runtime, permissions and the fields other formats cannot carry.
    pub toolset: ToolSet,
    /// How its format was decided.
    pub detection: Detection,
    /// `toolc gen` wrote it from other manifests (it says so in its
    /// `"x-toolc"`).
    pub generated: bool,
    /// The directory holding the manifest; relative paths in it resolve here.
    pub dir: PathBuf,
    /// What the front end read of the package's code.
    pub code: PackageCode,
}

impl Manifest {
    pub fn path(&self) -> &str {
        &self.source.path
    }

    pub fn format(&self) -> Format {
        self.toolset.format
    }

    /// Where a tool's name is: the string value, or the key when the format
    /// names tools by key (AgentStack's permissions map).
    pub fn tool_name_span(&self, tool: &crate::ir::Tool) -> Span {
        if tool.name_is_key {
            self.document.map.key_or_locate(&tool.name_at)
        } else {
            self.document.map.locate(&tool.name_at).span
        }
    }
}

/// What kept a file from loading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProblemKind {
    /// Larger than the size limit; not read.
    TooLarge,
    /// Not a regular file, or the system refused to read it.
    Unreadable,
    /// A directory walk could not go on (a link loop, a closed directory).
    Walk,
    InvalidUtf8,
    InvalidJson,
    /// Nested deeper than the parser goes.
    TooDeep,
    /// A file named explicitly that matches no format.
    UnknownFormat,
}

/// A problem loading one file, at a place in it when there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadProblem {
    pub kind: ProblemKind,
    pub path: String,
    pub span: Option<Span>,
    pub message: String,
}

/// A file that is a manifest (it was named, or its name says so) but could
/// not be loaded.
#[derive(Debug, Clone)]
pub struct Failure {
    /// Where the file is on disk.
    pub file: PathBuf,
    /// How it is shown.
    pub path: String,
    /// The format its name or the caller gave it, if any.
    pub format: Option<Format>,
    /// Its text, when it was read.
    pub source: Option<Source>,
    pub problem: LoadProblem,
}

/// What loading one file gave.
#[derive(Debug)]
pub enum Loaded {
    Manifest(Box<Manifest>),
    Failed(Box<Failure>),
    /// A file that is no manifest, or not one worth a finding.
    Skipped(Skipped),
    /// A walk error, not tied to one manifest.
    WalkProblem(LoadProblem),
}

/// A file a run looked at and left alone: a JSON file in a walked
/// directory that is no manifest, or a file with a generic name
/// (`config.json`) whose content is no manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// How it is shown.
    pub path: String,
    /// Named on the command line (not met in a walk).
    pub named: bool,
    /// Why it was not linted.
    pub why: String,
    /// Left alone because the configuration excludes it, not for what it
    /// holds.
    pub excluded: bool,
}

/// Why a load could not happen at all.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The path as given; shown on one line that cannot act on a terminal.
    #[error("{}: no such file or directory", crate::terminal::one_line(.0))]
    PathNotFound(String),
    /// A `toolc.toml` that applies could not be used.
    #[error(transparent)]
    Config(#[from] ConfigError),
}

/// A document held in memory rather than read from a file (the tools a
/// live MCP server listed): read as `format`, whatever `--input-format`
/// says, and shown as `path`. It cannot be read again, so a run keeps its
/// text to the end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldDocument {
    pub path: String,
    pub format: Format,
    pub text: String,
}

impl HeldDocument {
    /// The file in the current directory whose configuration a document held
    /// in memory takes: the `toolc.toml` found from there (none matches a
    /// per-file override).
    pub const CONFIGURED_AS: &str = "-";

    /// Loads the document as `options` say, within the size limit of the
    /// current directory's configuration.
    pub fn load_configured(
        &self,
        options: &LoadOptions,
        configuration: &Arc<Resolver>,
    ) -> Result<Project, LoadError> {
        let options = LoadOptions {
            max_file_size: configuration.max_file_size(Path::new(Self::CONFIGURED_AS))?,
            ..configuration.load_options(options.clone())
        };
        Ok(Project::collect(vec![self.load(&options)]))
    }

    /// Loads the document as `options` say, with its own format.
    pub(crate) fn load(&self, options: &LoadOptions) -> Loaded {
        let options = LoadOptions {
            input_format: Some(self.format),
            ..options.clone()
        };
        let candidate = Candidate::named(PathBuf::from(&self.path));
        Loader::new(&options).load_text(&candidate, self.text.as_bytes(), options.max_file_size)
    }
}

/// Everything loaded from a set of paths or documents.
#[derive(Debug, Default)]
pub struct Project {
    /// The manifests that parsed, in path order.
    pub manifests: Vec<Manifest>,
    /// The files that could not be loaded, in path order.
    pub failures: Vec<Failure>,
    pub walk_problems: Vec<LoadProblem>,
    /// The files looked at and left alone, in path order.
    pub skipped: Vec<Skipped>,
}

impl Project {
    /// Loads the manifests at `paths` (files or directories).
    pub fn load(paths: &[PathBuf], options: &LoadOptions) -> Result<Project, LoadError> {
        let limit = options.max_file_size;
        Project::load_with(paths, options, &|_: &Path| Ok::<u64, LoadError>(limit))
    }

    /// Loads with a size limit that may differ per file (a configuration
    /// file can set it for its directory).
    pub fn load_with<E>(
        paths: &[PathBuf],
        options: &LoadOptions,
        limit: &(dyn Fn(&Path) -> Result<u64, E> + Sync),
    ) -> Result<Project, E>
    where
        E: From<LoadError> + Send,
    {
        let loaded = load_each(paths, options, limit, &|loaded| Ok(loaded))?;
        Ok(Project::collect(loaded))
    }

    /// Loads the manifests at `paths` as `configuration` says: what its
    /// `toolc.toml` files exclude is left out, and each file is read
    /// within the size limit its configuration sets.
    pub fn load_configured(
        paths: &[PathBuf],
        options: &LoadOptions,
        configuration: &Arc<Resolver>,
    ) -> Result<Project, LoadError> {
        let options = configuration.load_options(options.clone());
        Project::load_with(paths, &options, &|path: &Path| {
            Ok::<u64, LoadError>(configuration.settings_for(path)?.max_file_size)
        })
    }

    /// Loads documents held in memory: each a path (which says where the
    /// manifest would be, for its format and its package code) and its
    /// text, as a `String` or as bytes (standard input, which may not be
    /// UTF-8: that is a problem of the document, as for a file). A
    /// document over `options.max_file_size` is reported, not read.
    pub fn from_documents<T: AsRef<[u8]>>(
        documents: impl IntoIterator<Item = (String, T)>,
        options: &LoadOptions,
    ) -> Project {
        let documents = documents
            .into_iter()
            .map(|(path, text)| (PathBuf::from(path), text));
        Project::from_texts(documents, options, true)
    }

    /// Like [`Project::from_documents`], but each document is taken as a
    /// directory walk would take the file: one that is not a tool manifest
    /// is skipped, not reported (an editor's open JSON files, most of
    /// which are not manifests).
    /// The paths are the files' (any bytes, as the system names them).
    pub fn from_buffers<T: AsRef<[u8]>>(
        documents: impl IntoIterator<Item = (PathBuf, T)>,
        options: &LoadOptions,
    ) -> Project {
        Project::from_texts(documents, options, false)
    }

    fn from_texts<T: AsRef<[u8]>>(
        documents: impl IntoIterator<Item = (PathBuf, T)>,
        options: &LoadOptions,
        named: bool,
    ) -> Project {
        let loader = Loader::new(options);
        let loaded = documents
            .into_iter()
            .map(|(path, text)| {
                let candidate = Candidate {
                    explicit: named,
                    ..Candidate::named(path)
                };
                loader.load_text(&candidate, text.as_ref(), options.max_file_size)
            })
            .collect();
        Project::collect(loaded)
    }

    pub(crate) fn collect(loaded: Vec<Loaded>) -> Project {
        let mut project = Project::default();
        for item in loaded {
            match item {
                Loaded::Manifest(manifest) => project.manifests.push(*manifest),
                Loaded::Failed(failure) => project.failures.push(*failure),
                Loaded::Skipped(skipped) => project.skipped.push(skipped),
                Loaded::WalkProblem(problem) => project.walk_problems.push(problem),
            }
        }
        project.manifests.sort_by(|a, b| a.path().cmp(b.path()));
        project.failures.sort_by(|a, b| a.path.cmp(&b.path));
        project.skipped.sort_by(|a, b| a.path.cmp(&b.path));
        project
    }

    /// The IR of every manifest, in path order.
    pub fn toolsets(&self) -> impl Iterator<Item = &ToolSet> {
        self.manifests.iter().map(|m| &m.toolset)
    }
}

/// Loads the files under `paths` in parallel and hands each to `visit` on
/// a worker thread as soon as it is loaded, so a caller that keeps only
/// what it computes (lint keeps findings) never holds every document at
/// once. A file both named and met in a walk is loaded once, as named.
pub(crate) fn load_each<T, E>(
    paths: &[PathBuf],
    options: &LoadOptions,
    limit: &(dyn Fn(&Path) -> Result<u64, E> + Sync),
    visit: &(dyn Fn(Loaded) -> Result<T, E> + Sync),
) -> Result<Vec<T>, E>
where
    T: Send,
    E: From<LoadError> + Send,
{
    let found = walk::discover(paths, &options.exclude, options.exclusion.clone())?;
    let loader = Loader::new(options);
    // Several paths may reach one file by other spellings (`a/../a/x`,
    // an absolute path, a link): then each file is known by its canonical
    // path. One path needs no system call per file.
    let several = paths.len() > 1;
    let identity = |path: &Path| {
        let canonical = several.then(|| std::fs::canonicalize(path).ok()).flatten();
        canonical.unwrap_or_else(|| walk::identity(path))
    };
    // Each named file's identity, and its spelling that is kept: the
    // first given. Which spelling a parallel load met first would differ
    // from run to run (and so would the paths in the report).
    let mut named: HashMap<PathBuf, &Path> = HashMap::new();
    for path in paths.iter().filter(|p| !p.is_dir()) {
        named.entry(identity(path)).or_insert(path.as_path());
    }
    let seen = Mutex::new(HashSet::new());
    let load_one = |found| {
        let candidate = match found {
            walk::Found::Problem(problem) => {
                return visit(Loaded::WalkProblem(problem)).map(Some);
            }
            walk::Found::Excluded(skipped) => {
                return visit(Loaded::Skipped(skipped)).map(Some);
            }
            walk::Found::File(candidate) => candidate,
        };
        let identity = identity(&candidate.path);
        match named.get(&identity) {
            // Met in a walk, or named again by another spelling: read as
            // its first name says.
            Some(kept) if !candidate.explicit || *kept != candidate.path => return Ok(None),
            _ => {}
        }
        let first = seen.lock().map(|mut s| s.insert(identity)).unwrap_or(true);
        if !first {
            return Ok(None);
        }
        let max_size = limit(&candidate.path)?;
        visit(loader.load_file(&candidate, max_size)).map(Some)
    };
    // One named file (`toolc run tools.json`) gains nothing from the
    // thread pool and would pay for starting it.
    let one_file = matches!(paths, [path] if !path.is_dir());
    let results: Vec<Option<T>> = if one_file {
        found.map(load_one).collect::<Result<_, E>>()?
    } else {
        found.par_bridge().map(load_one).collect::<Result<_, E>>()?
    };
    Ok(results.into_iter().flatten().collect())
}

/// One run's loading context: the options and the package files read so
/// far, shared by every file of the run.
pub(crate) struct Loader<'a> {
    options: &'a LoadOptions,
    packages: package::Cache,
}

impl<'a> Loader<'a> {
    pub(crate) fn new(options: &'a LoadOptions) -> Self {
        Loader {
            options,
            packages: package::Cache::new(options.read_log.clone(), options.overlay.clone()),
        }
    }

    /// Reads a file from disk and loads it.
    pub(crate) fn load_file(&self, candidate: &Candidate, max_size: u64) -> Loaded {
        if self.options.ignore_unknown && candidate.explicit {
            let walked = Candidate {
                explicit: false,
                ..candidate.clone()
            };
            return read::load_file(self, &walked, max_size);
        }
        read::load_file(self, candidate, max_size)
    }

    /// Loads a file's content (held by an editor, or as a fix rewrote it);
    /// its package code is read from disk, within `max_size`.
    pub(crate) fn load_text(&self, candidate: &Candidate, bytes: &[u8], max_size: u64) -> Loaded {
        read::load_bytes(self, candidate, bytes, max_size)
    }
}

/// The files under `paths` a load would read, in walk order, each once.
pub(crate) fn candidates(
    paths: &[PathBuf],
    options: &LoadOptions,
) -> Result<Vec<Candidate>, LoadError> {
    let mut seen = HashSet::new();
    Ok(
        walk::discover(paths, &options.exclude, options.exclusion.clone())?
            .filter_map(|found| match found {
                walk::Found::File(candidate) => Some(candidate),
                walk::Found::Problem(_) | walk::Found::Excluded(_) => None,
            })
            .filter(|candidate| seen.insert(walk::identity(&candidate.path)))
            .collect(),
    )
}

/// The directory of a manifest path, for resolving relative paths.
pub fn manifest_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}
