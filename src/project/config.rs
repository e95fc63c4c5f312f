//! `toolc.toml`: finding it, reading it, and folding it with the command
//! line into each file's [`Settings`].
//!
//! For each linted file the nearest configuration counts, found by walking
//! up from the file's directory to the repository root (the directory
//! holding `.git`) — unless `--config` names one for every file. As in
//! ruff, a configuration is a `toolc.toml`, or the `[tool.toolc]` table of
//! a `pyproject.toml` (same keys): in one directory `toolc.toml` wins, and
//! a `pyproject.toml` without `[tool.toolc]` is no configuration (the walk
//! goes on up). A `pyproject.toml` the walk has to read and cannot parse is
//! an error, as in ruff: toolc cannot tell whether it configures toolc.
//! Precedence, lowest
//! first: each rule's default, the file's `[rules]`, the `[[overrides]]`
//! whose `files` globs match (relative to the configuration's directory, in
//! order), then the command line (`--severity`, `--select`, `--ignore`,
//! `--target`, `--max-file-size`).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use toml::Spanned;

use super::exclude::{CommandLineExclusions, Exclusions, PathGlobs, glob_forms};
use super::settings::{Level, Limits, ScopedIgnore, Settings, Target};
use super::{CanonicalDirs, Exclusion, LoadOptions, Walked};
use crate::diagnostic::Rule;
use crate::suggest::did_you_mean;

/// The configuration file's name.
pub const FILE_NAME: &str = "toolc.toml";

/// Python's project file, whose `[tool.toolc]` table is a configuration.
pub const PYPROJECT: &str = "pyproject.toml";

/// The table of a `pyproject.toml` that holds toolc's keys.
const PYPROJECT_TABLE: &str = "tool.toolc";

/// Where the keys of the configuration file at `path` live: `""` at the
/// root of a `toolc.toml`, `"tool.toolc."` in a `pyproject.toml` (what a
/// table header written into the file starts with).
pub fn key_prefix(path: &Path) -> String {
    if is_pyproject(path) {
        format!("{PYPROJECT_TABLE}.")
    } else {
        String::new()
    }
}

fn is_pyproject(path: &Path) -> bool {
    path.file_name().is_some_and(|name| name == PYPROJECT)
}

/// The largest configuration file read: real ones are a few hundred bytes.
pub const MAX_CONFIG_SIZE: u64 = 1024 * 1024;

/// The rules a configuration may name: the registry of the checks (lint's),
/// handed to the front end so that `[rules]` and `--select` are validated
/// where they are read.
pub type Rules = &'static [&'static Rule];

/// Why a configuration could not be used: the message says where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct ConfigFile {
    #[serde(default)]
    targets: Vec<Spanned<String>>,
    max_file_size: Option<Spanned<SizeValue>>,
    #[serde(default)]
    limits: Limits,
    #[serde(default)]
    rules: BTreeMap<Spanned<String>, Spanned<String>>,
    #[serde(default)]
    overrides: Vec<OverrideFile>,
    exclude: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    extend_exclude: Vec<Spanned<String>>,
    #[serde(default)]
    force_exclude: bool,
}

/// A `pyproject.toml`: only `[tool.toolc]` is read, other keys are left.
#[derive(Debug, Deserialize)]
struct Pyproject {
    tool: Option<PyprojectTools>,
}

#[derive(Debug, Deserialize)]
struct PyprojectTools {
    toolc: Option<ConfigFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OverrideFile {
    files: Vec<Spanned<String>>,
    #[serde(default)]
    rules: BTreeMap<Spanned<String>, Spanned<String>>,
    /// Only the findings on these tools (by name) ...
    #[serde(default)]
    tools: Vec<Spanned<String>>,
    /// ... or at or under these JSON Pointers: the rules are turned off
    /// there, not for the whole file.
    #[serde(default)]
    pointers: Vec<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum SizeValue {
    Bytes(u64),
    Text(String),
}

/// What the command line says; `None` or empty where it says nothing.
#[derive(Debug, Clone, Default)]
pub struct CommandLine {
    pub config: Option<PathBuf>,
    pub targets: Vec<Target>,
    pub max_file_size: Option<u64>,
    /// Only these rules run (all when `None`).
    pub select: Option<Vec<&'static Rule>>,
    pub ignore: Vec<&'static Rule>,
    pub severity: Vec<(&'static Rule, Level)>,
    /// Replaces the configuration's `exclude` (globs).
    pub exclude: Option<Vec<String>>,
    /// Added to the configuration's exclusions.
    pub extend_exclude: Vec<String>,
    /// Leave out excluded paths even when named.
    pub force_exclude: bool,
    /// Read named files as a walk reads them (`--ignore-unknown`).
    pub ignore_unknown: bool,
    /// `--locked`: the pinned tool definitions to check against.
    pub lock: Option<Arc<crate::lock::Locked>>,
    /// These rules run only where they are at the error level, wherever
    /// the levels come from: a caller that acts on errors alone (the
    /// runner, which loads a manifest without errors and shows nothing,
    /// and checks a refused one again with every rule) names the rules
    /// whose findings at a lower level change nothing for it, and does
    /// not pay for them (the poisoning rules' patterns took 4.7 ms of
    /// each `toolc run` to build).
    pub only_as_errors: Vec<&'static Rule>,
}

/// One configuration file, validated.
#[derive(Debug)]
struct Loaded {
    /// The file it was read from.
    file: PathBuf,
    dir: PathBuf,
    base: Arc<Settings>,
    overrides: Vec<(globset::GlobSet, Override)>,
    exclusions: Arc<Exclusions>,
}

/// The settings of one path and where they came from
/// ([`Resolver::explain`]).
#[derive(Debug)]
pub struct Explained {
    /// The configuration file (`None`: the defaults and the command line).
    pub file: Option<PathBuf>,
    pub settings: Arc<Settings>,
    /// The `[[overrides]]` entries of the file that match the path,
    /// numbered from 1 in the file's order.
    pub overrides: Vec<usize>,
    /// The exclusion globs the walk starts from (the defaults, the file's
    /// `exclude` or `--exclude`), and those added to them.
    pub exclude: Vec<String>,
    pub extend_exclude: Vec<String>,
    pub force_exclude: bool,
}

/// What an `[[overrides]]` entry does to the files it matches.
#[derive(Debug)]
enum Override {
    /// Sets rule levels for the whole file.
    Levels(BTreeMap<&'static str, Level>),
    /// Turns rules off for some tools or pointers of the file.
    Scoped(ScopedIgnore),
}

/// Finds and caches each file's settings during a run.
#[derive(Debug)]
pub struct Resolver {
    command_line: CommandLine,
    rules: Rules,
    command_line_exclusions: CommandLineExclusions,
    /// The exclusions where no configuration file applies.
    no_file_exclusions: Arc<Exclusions>,
    explicit: Option<Arc<Loaded>>,
    defaults: Arc<Settings>,
    /// Canonical directory → its configuration (`None`: no file applies).
    by_dir: DirCache,
    /// The same for each directory as the walk named it.
    by_named_dir: DirCache,
}

impl Resolver {
    /// Reads the configuration the command line names (`--config`); the
    /// others are read as paths need them. `rules` are those `[rules]`
    /// may name.
    pub fn new(command_line: CommandLine, rules: Rules) -> Result<Resolver, ConfigError> {
        let exclusions = CommandLineExclusions::new(
            command_line.exclude.as_deref(),
            &command_line.extend_exclude,
            command_line.force_exclude,
        )
        .map_err(ConfigError)?;
        let explicit = match &command_line.config {
            Some(path) => {
                let dir = path
                    .parent()
                    .filter(|p| !p.as_os_str().is_empty())
                    .unwrap_or(Path::new("."));
                let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
                let loaded = load(path, dir, &command_line, rules, &exclusions)?;
                // Named, a pyproject.toml must configure toolc.
                let loaded = loaded.ok_or_else(|| {
                    config_error(path, format!("has no [{PYPROJECT_TABLE}] table"))
                })?;
                Some(Arc::new(loaded))
            }
            None => None,
        };
        let defaults = Arc::new(apply_command_line(
            Settings::default(),
            &command_line,
            rules,
        ));
        let no_file_exclusions = Arc::new(Exclusions::fold(&exclusions, None, None, false));
        Ok(Resolver {
            command_line,
            rules,
            command_line_exclusions: exclusions,
            no_file_exclusions,
            explicit,
            defaults,
            by_dir: Mutex::new(HashMap::new()),
            by_named_dir: Mutex::new(HashMap::new()),
        })
    }

    /// The directory of the configuration file that applies to the
    /// directory `dir` (`--config`'s, or the nearest one), if any.
    pub fn config_dir(&self, dir: &Path) -> Result<Option<PathBuf>, ConfigError> {
        let config = match &self.explicit {
            Some(config) => Some(config.clone()),
            None => self.config_for_dir(dir)?,
        };
        Ok(config.map(|config| config.dir.clone()))
    }

    /// The configuration file that applies to the file at `path`
    /// (`--config`'s, or the nearest `toolc.toml` or `pyproject.toml` with
    /// `[tool.toolc]`), if any: what its settings came from.
    pub fn config_file(&self, path: &Path) -> Result<Option<PathBuf>, ConfigError> {
        Ok(self.config_of(path)?.map(|config| config.file.clone()))
    }

    /// `options` with this configuration's exclusions for the walks.
    pub fn load_options(self: &Arc<Self>, options: LoadOptions) -> LoadOptions {
        LoadOptions {
            exclusion: Some(Arc::new(Configured::new(self.clone()))),
            ignore_unknown: options.ignore_unknown || self.command_line.ignore_unknown,
            ..options
        }
    }

    /// The size limit of the file at `path`, from its configuration.
    pub fn max_file_size(&self, path: &Path) -> Result<u64, ConfigError> {
        Ok(self.settings_for(path)?.max_file_size)
    }

    /// The settings for the file at `path`.
    pub fn settings_for(&self, path: &Path) -> Result<Arc<Settings>, ConfigError> {
        let Some(config) = self.config_of(path)? else {
            return Ok(self.defaults.clone());
        };
        let absolute = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let relative = absolute.strip_prefix(&config.dir).unwrap_or(&absolute);
        let matching: Vec<&Override> = config
            .overrides
            .iter()
            .filter(|(globs, _)| globs.is_match(relative))
            .map(|(_, applied)| applied)
            .collect();
        if matching.is_empty() {
            return Ok(config.base.clone());
        }
        let mut settings = (*config.base).clone();
        for applied in matching {
            match applied {
                Override::Levels(levels) => {
                    settings.levels.extend(levels.iter().map(|(k, v)| (*k, *v)));
                }
                Override::Scoped(ignore) => settings.scoped_ignores.push(ignore.clone()),
            }
        }
        // The command line still wins over the overrides.
        Ok(Arc::new(apply_command_line(
            settings,
            &self.command_line,
            self.rules,
        )))
    }

    /// What applies to `path` (a file, or a directory: what its files get
    /// before any `[[overrides]]`), and where it came from, for
    /// `--show-settings`.
    pub fn explain(&self, path: &Path) -> Result<Explained, ConfigError> {
        let is_dir = path.is_dir();
        let config = if is_dir {
            match &self.explicit {
                Some(config) => Some(config.clone()),
                None => self.config_for_dir(path)?,
            }
        } else {
            self.config_of(path)?
        };
        let settings = match (&config, is_dir) {
            (Some(config), true) => config.base.clone(),
            (None, true) => self.defaults.clone(),
            (_, false) => self.settings_for(path)?,
        };
        let mut overrides = Vec::new();
        if let (Some(config), false) = (&config, is_dir) {
            let absolute = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
            let relative = absolute.strip_prefix(&config.dir).unwrap_or(&absolute);
            overrides = (1..)
                .zip(&config.overrides)
                .filter(|(_, (globs, _))| globs.is_match(relative))
                .map(|(number, _)| number)
                .collect();
        }
        let exclusions = match &config {
            Some(config) => config.exclusions.clone(),
            None => self.no_file_exclusions.clone(),
        };
        let mut sets = exclusions.sets.iter().map(|set| set.patterns.clone());
        Ok(Explained {
            file: config.map(|config| config.file.clone()),
            settings,
            overrides,
            exclude: sets.next().unwrap_or_default(),
            extend_exclude: sets.flatten().collect(),
            force_exclude: exclusions.force,
        })
    }

    /// The configuration of the file at `path`.
    fn config_of(&self, path: &Path) -> Result<Option<Arc<Loaded>>, ConfigError> {
        if let Some(config) = &self.explicit {
            return Ok(Some(config.clone()));
        }
        let dir = path.parent().unwrap_or(Path::new("."));
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        self.config_for_dir(dir)
    }

    /// The exclusions for the entries of the canonical directory `dir`.
    pub(crate) fn exclusions_for(&self, dir: &Path) -> Result<Arc<Exclusions>, ConfigError> {
        let config = match &self.explicit {
            Some(config) => Some(config.clone()),
            None => self.config_for_canonical(dir)?,
        };
        Ok(config.map_or_else(|| self.no_file_exclusions.clone(), |c| c.exclusions.clone()))
    }

    /// The configuration for files in `dir` (as the walk named it): each
    /// directory is canonicalized once and each canonical directory looked
    /// up once, so a tree of many directories costs two `stat`s per
    /// directory rather than a walk to the root per file.
    fn config_for_dir(&self, dir: &Path) -> Result<Option<Arc<Loaded>>, ConfigError> {
        if let Some(found) = cached(&self.by_named_dir, dir) {
            return Ok(found);
        }
        let found = match std::fs::canonicalize(dir) {
            Ok(canonical) => self.config_for_canonical(&canonical)?,
            Err(_) => None,
        };
        remember(&self.by_named_dir, dir, &found);
        Ok(found)
    }

    /// The nearest configuration from the canonical `dir` up to the
    /// repository root (the directory holding `.git`), loaded: in each
    /// directory a `toolc.toml`, else a `pyproject.toml` with `[tool.toolc]`.
    fn config_for_canonical(&self, dir: &Path) -> Result<Option<Arc<Loaded>>, ConfigError> {
        if let Some(found) = cached(&self.by_dir, dir) {
            return Ok(found);
        }
        let mut here = None;
        for name in [FILE_NAME, PYPROJECT] {
            let candidate = dir.join(name);
            if !candidate.is_file() {
                continue;
            }
            here = load(
                &candidate,
                dir.to_path_buf(),
                &self.command_line,
                self.rules,
                &self.command_line_exclusions,
            )?;
            if here.is_some() {
                break;
            }
        }
        let found = if let Some(loaded) = here {
            Some(Arc::new(loaded))
        } else if dir.join(".git").exists() {
            None
        } else {
            match dir.parent() {
                Some(parent) => self.config_for_canonical(parent)?,
                None => None,
            }
        };
        // Two threads may load the same file; either result is the same.
        remember(&self.by_dir, dir, &found);
        Ok(found)
    }
}

/// The exclusions a command line and its `toolc.toml` files configure,
/// for one load: the canonical paths it learns from its walks are not
/// kept past it (a language server's next check may find a directory
/// replaced by a link).
#[derive(Debug)]
struct Configured {
    resolver: Arc<Resolver>,
    canonical_dirs: CanonicalDirs,
}

impl Configured {
    fn new(resolver: Arc<Resolver>) -> Configured {
        Configured {
            resolver,
            canonical_dirs: CanonicalDirs::default(),
        }
    }

    /// Whether `path` is excluded; `plain_dir` when the walk met it as a
    /// directory that is not a symbolic link, whose canonical path is
    /// then learnt for its entries.
    fn is_excluded(&self, path: &Path, named: bool, plain_dir: bool) -> bool {
        let dir = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        let Some(canonical_dir) = self.canonical_dirs.get(dir) else {
            return false;
        };
        let canonical = match path.file_name() {
            Some(name) => {
                let canonical = canonical_dir.join(name);
                if plain_dir {
                    self.canonical_dirs.learn(path, canonical.clone());
                }
                canonical
            }
            None => canonical_dir.clone(),
        };
        // A broken toolc.toml is reported when a file needs its settings.
        let Ok(rules) = self.resolver.exclusions_for(&canonical_dir) else {
            return false;
        };
        if named && !rules.force {
            return false;
        }
        rules
            .sets
            .iter()
            .any(|globs| globs.matches(&canonical, named))
    }
}

impl Exclusion for Configured {
    fn excludes(&self, path: &Path) -> bool {
        self.is_excluded(path, false, false)
    }

    fn excludes_walked(&self, entry: Walked<'_>) -> bool {
        self.is_excluded(entry.path, false, entry.plain_dir)
    }

    fn excludes_named(&self, path: &Path) -> bool {
        self.is_excluded(path, true, false)
    }
}

type DirCache = Mutex<HashMap<PathBuf, Option<Arc<Loaded>>>>;

fn cached(cache: &DirCache, dir: &Path) -> Option<Option<Arc<Loaded>>> {
    cache.lock().ok().and_then(|c| c.get(dir).cloned())
}

fn remember(cache: &DirCache, dir: &Path, found: &Option<Arc<Loaded>>) {
    if let Ok(mut cache) = cache.lock() {
        cache.insert(dir.to_path_buf(), found.clone());
    }
}

fn config_error(path: &Path, message: impl std::fmt::Display) -> ConfigError {
    ConfigError(format!("{}: {message}", crate::terminal::path(path)))
}

/// `text` as a TOML basic string, on one line whatever it holds (so it can
/// be a key too): what toolc writes into a configuration (the editor's
/// "ignore" action) and prints as one (`--show-settings`).
pub(crate) fn basic_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A `toolc.toml` (or another TOML file of toolc's: a `pyproject.toml`,
/// a runner's policy) being read, for errors that show where they are.
pub(crate) struct ConfigText<'a> {
    pub path: &'a Path,
    pub text: &'a str,
}

impl ConfigText<'_> {
    /// `message` at the bytes `span`: `PATH:LINE:COLUMN: message`, then
    /// the line with the place underlined.
    pub(crate) fn error(
        &self,
        span: Option<std::ops::Range<usize>>,
        message: impl std::fmt::Display,
    ) -> ConfigError {
        let Some(span) = span.filter(|s| s.start <= self.text.len()) else {
            return config_error(self.path, message);
        };
        let source = crate::source::Source::new("", self.text);
        let at = source.line_col(span.start);
        let (line, column) = (at.line, at.column);
        let whole = source.line_span(line - 1);
        let line_text = self
            .text
            .get(whole.start..whole.end)
            .unwrap_or_default()
            .trim_end_matches(['\n', '\r']);
        let before = self.text.get(whole.start..span.start).unwrap_or_default();
        let end = span.end.clamp(span.start, whole.start + line_text.len());
        let width = self
            .text
            .get(span.start..end)
            .map_or(1, |t| t.chars().count().max(1));
        let number = line.to_string();
        let gutter = " ".repeat(number.len());
        let pad: String = before
            .chars()
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        ConfigError(format!(
            "{}:{line}:{column}: {message}\n{gutter} |\n{number} | {line_text}\n{gutter} | {pad}{}",
            crate::terminal::path(self.path),
            "^".repeat(width)
        ))
    }

    /// An error of the TOML reader, with a "did you mean" for an unknown
    /// key (serde names it, and the keys it expected).
    pub(crate) fn toml_error(&self, error: &toml::de::Error) -> ConfigError {
        let message = error.message().trim_end();
        let quoted: Vec<&str> = message.split('`').skip(1).step_by(2).collect();
        let hint = match quoted.split_first() {
            Some((unknown, expected)) if message.starts_with("unknown field") => {
                did_you_mean(unknown, expected.iter().copied())
                    .map(|close| format!("; did you mean `{close}`?"))
            }
            _ => None,
        };
        self.error(
            error.span(),
            format!("{message}{}", hint.unwrap_or_default()),
        )
    }
}

/// The configuration in the file at `path`: `None` for a `pyproject.toml`
/// without `[tool.toolc]`.
fn load(
    path: &Path,
    dir: PathBuf,
    command_line: &CommandLine,
    rules: Rules,
    command_line_exclusions: &CommandLineExclusions,
) -> Result<Option<Loaded>, ConfigError> {
    // A regular file of a bounded size: a FIFO or a device named by
    // --config cannot block the run, and a huge file from an untrusted
    // repository cannot exhaust memory in the TOML reader.
    let bytes = crate::source::read_regular_file(path, MAX_CONFIG_SIZE).map_err(|e| match e {
        crate::source::ReadError::TooLarge(size) => config_error(
            path,
            format!("is {size} bytes, over the limit of {MAX_CONFIG_SIZE} bytes for a configuration file"),
        ),
        crate::source::ReadError::Io(message) => config_error(path, message),
    })?;
    let text = String::from_utf8(bytes).map_err(|_| config_error(path, "is not UTF-8"))?;
    let at = ConfigText { path, text: &text };
    let file: ConfigFile = if is_pyproject(path) {
        let pyproject: Pyproject = toml::from_str(&text).map_err(|e| at.toml_error(&e))?;
        match pyproject.tool.and_then(|tool| tool.toolc) {
            Some(file) => file,
            None => return Ok(None),
        }
    } else {
        toml::from_str(&text).map_err(|e| at.toml_error(&e))?
    };
    let mut settings = Settings {
        limits: file.limits,
        ..Settings::default()
    };
    for name in &file.targets {
        let target = parse_target(name.get_ref()).map_err(|e| at.error(Some(name.span()), e))?;
        settings.targets.insert(target);
    }
    if let Some(size) = &file.max_file_size {
        settings.max_file_size = match size.get_ref() {
            SizeValue::Bytes(n) => *n,
            SizeValue::Text(text) => {
                parse_size(text).map_err(|e| at.error(Some(size.span()), e))?
            }
        };
    }
    settings.levels = parse_levels(&file.rules, rules, &at)?;
    let mut overrides = Vec::new();
    for entry in &file.overrides {
        let mut globs = globset::GlobSetBuilder::new();
        for pattern in &entry.files {
            for form in glob_forms(pattern.get_ref()) {
                let glob = globset::GlobBuilder::new(&form)
                    .literal_separator(true)
                    .build()
                    .map_err(|e| {
                        at.error(Some(pattern.span()), format!("overrides: {}", e.kind()))
                    })?;
                globs.add(glob);
            }
        }
        let globs = globs
            .build()
            .map_err(|e| config_error(path, format!("overrides: {e}")))?;
        let levels = parse_levels(&entry.rules, rules, &at)?;
        let applied = if entry.tools.is_empty() && entry.pointers.is_empty() {
            Override::Levels(levels)
        } else {
            Override::Scoped(scoped_ignore(entry, levels, &at)?)
        };
        overrides.push((globs, applied));
    }
    let globs = |key: &str, patterns: &[Spanned<String>]| {
        let texts: Vec<String> = patterns.iter().map(|p| p.get_ref().clone()).collect();
        PathGlobs::new(dir.clone(), &texts)
            .map(Arc::new)
            .map_err(|e| {
                // The error names the pattern: point at it.
                let span = patterns
                    .iter()
                    .find(|p| e.contains(&format!("{:?}", p.get_ref())))
                    .map(Spanned::span);
                at.error(span, format!("{key}: {e}"))
            })
    };
    let exclude = file
        .exclude
        .as_deref()
        .map(|p| globs("exclude", p))
        .transpose()?;
    let extend = (!file.extend_exclude.is_empty())
        .then(|| globs("extend-exclude", &file.extend_exclude))
        .transpose()?;
    let exclusions = Exclusions::fold(command_line_exclusions, exclude, extend, file.force_exclude);
    Ok(Some(Loaded {
        file: path.to_path_buf(),
        dir,
        base: Arc::new(apply_command_line(settings, command_line, rules)),
        overrides,
        exclusions: Arc::new(exclusions),
    }))
}

/// RFC 6901: empty, or `/`-separated tokens in which `~` is only ever the
/// start of `~0` or `~1`.
fn is_json_pointer(text: &str) -> bool {
    if !(text.is_empty() || text.starts_with('/')) {
        return false;
    }
    let mut escapes = text.split('~').skip(1);
    escapes.all(|after| after.starts_with(['0', '1']))
}

/// An override that names `tools` or `pointers`: it can only turn rules
/// off there (a rule off for the file does not run, so no level of one
/// tool could bring its findings back).
fn scoped_ignore(
    entry: &OverrideFile,
    levels: BTreeMap<&'static str, Level>,
    at: &ConfigText,
) -> Result<ScopedIgnore, ConfigError> {
    if let Some((_, level)) = entry
        .rules
        .iter()
        .find(|(_, level)| level.get_ref() != "off")
    {
        return Err(at.error(
            Some(level.span()),
            "an override with `tools` or `pointers` only turns rules \"off\" for them; set other levels in an override without `tools` and `pointers`",
        ));
    }
    if entry.rules.is_empty() {
        let first = entry.tools.first().or(entry.pointers.first());
        return Err(at.error(
            first.map(Spanned::span),
            "an override with `tools` or `pointers` needs `rules` to turn off there, e.g. rules = { \"invalid-tool-name\" = \"off\" }",
        ));
    }
    if let Some(pointer) = entry
        .pointers
        .iter()
        .find(|p| !is_json_pointer(p.get_ref()))
    {
        return Err(at.error(
            Some(pointer.span()),
            format!(
                "\"{}\" is not a JSON Pointer (\"\" is the whole document, \"/tools/0\" its first tool)",
                pointer.get_ref()
            ),
        ));
    }
    let texts = |items: &[Spanned<String>]| items.iter().map(|i| i.get_ref().clone()).collect();
    Ok(ScopedIgnore {
        tools: texts(&entry.tools),
        pointers: texts(&entry.pointers),
        rules: levels.into_keys().collect(),
    })
}

fn apply_command_line(
    mut settings: Settings,
    command_line: &CommandLine,
    rules: Rules,
) -> Settings {
    settings.lock = command_line.lock.clone();
    if !command_line.targets.is_empty() {
        settings.targets = command_line.targets.iter().copied().collect();
    }
    if let Some(size) = command_line.max_file_size {
        settings.max_file_size = size;
    }
    for (rule, level) in &command_line.severity {
        settings.levels.insert(rule.name, *level);
    }
    if let Some(selected) = &command_line.select {
        let selected: BTreeSet<&str> = selected.iter().map(|r| r.name).collect();
        for rule in rules {
            if !selected.contains(rule.name) {
                settings.levels.insert(rule.name, Level::Off);
            } else if settings.levels.get(rule.name) == Some(&Level::Off) {
                // Selected on the command line: on, whatever the file says.
                settings.levels.remove(rule.name);
            }
        }
    }
    for rule in &command_line.ignore {
        settings.levels.insert(rule.name, Level::Off);
    }
    for rule in &command_line.only_as_errors {
        if settings.level(rule) != Level::On(crate::diagnostic::Severity::Error) {
            settings.levels.insert(rule.name, Level::Off);
        }
    }
    settings
}

fn parse_levels(
    levels: &BTreeMap<Spanned<String>, Spanned<String>>,
    rules: Rules,
    at: &ConfigText,
) -> Result<BTreeMap<&'static str, Level>, ConfigError> {
    levels
        .iter()
        .map(|(name, level)| {
            let rule =
                parse_rule(rules, name.get_ref()).map_err(|e| at.error(Some(name.span()), e))?;
            let level =
                parse_level(level.get_ref()).map_err(|e| at.error(Some(level.span()), e))?;
            Ok((rule.name, level))
        })
        .collect()
}

/// A rule of `rules` by name or code, or an error that suggests the
/// closest name.
pub fn parse_rule(rules: Rules, name: &str) -> Result<&'static Rule, String> {
    rules
        .iter()
        .copied()
        .find(|rule| rule.answers_to(name))
        .ok_or_else(|| {
            let hint = did_you_mean(name, rules.iter().map(|r| r.name))
                .map(|close| format!("; did you mean \"{close}\"?"))
                .unwrap_or_else(|| "; `toolc rules` lists them".to_string());
            format!("unknown rule \"{name}\"{hint}")
        })
}

pub fn parse_level(name: &str) -> Result<Level, String> {
    Level::from_name(name)
        .ok_or_else(|| format!("unknown level \"{name}\"; use off, info, warning or error"))
}

pub fn parse_target(name: &str) -> Result<Target, String> {
    Target::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Target::ALL.iter().map(|t| t.name()).collect();
        let hint = did_you_mean(name, names.iter().copied())
            .map(|close| format!("did you mean \"{close}\"? "))
            .unwrap_or_default();
        format!(
            "unknown target \"{name}\"; {hint}targets are {}",
            names.join(", ")
        )
    })
}

/// Parses `16MiB`, `512KiB`, `2GiB`, `10MB`, `1000` (bytes).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let number: u64 = digits
        .parse()
        .map_err(|_| format!("\"{text}\" is not a size (e.g. 16MiB, 512KiB, 1000000)"))?;
    let multiplier: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" => 1000,
        "kib" => 1 << 10,
        "m" | "mb" => 1000 * 1000,
        "mib" => 1 << 20,
        "g" | "gb" => 1000 * 1000 * 1000,
        "gib" => 1 << 30,
        other => {
            return Err(format!(
                "unknown size unit \"{other}\" (use B, KiB, MiB, GiB, KB, MB, GB)"
            ));
        }
    };
    number
        .checked_mul(multiplier)
        .ok_or_else(|| format!("size \"{text}\" is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Severity;

    #[test]
    fn json_pointers_are_told_from_other_text() {
        for pointer in ["", "/", "/tools/0", "/tools/a~1b/~0", "/~01", "/tools/"] {
            assert!(is_json_pointer(pointer), "{pointer:?}");
        }
        for text in ["tools/0", "/x~2", "/x~", "/~/0", "#/tools/0"] {
            assert!(!is_json_pointer(text), "{text:?}");
        }
    }

    static DUPLICATE: Rule = Rule {
        name: "duplicate-tool-name",
        code: "TC102",
        severity: Severity::Error,
        summary: "",
        fixable: false,
        targets: &[],
    };
    static KNOWN: Rules = &[&DUPLICATE];

    #[test]
    fn sizes() {
        assert_eq!(parse_size("16MiB"), Ok(16 << 20));
        assert_eq!(parse_size("512kib"), Ok(512 << 10));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("2 MB"), Ok(2_000_000));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("5XB").is_err());
        assert!(parse_size("99999999999999GiB").is_err());
    }

    #[test]
    fn rules_are_named_by_name_or_code() {
        assert_eq!(parse_rule(KNOWN, "duplicate-tool-name"), Ok(&DUPLICATE));
        assert_eq!(parse_rule(KNOWN, "tc102"), Ok(&DUPLICATE));
    }

    #[test]
    fn unknown_names_suggest() {
        assert_eq!(
            parse_rule(KNOWN, "duplicate-tool-names").err().as_deref(),
            Some("unknown rule \"duplicate-tool-names\"; did you mean \"duplicate-tool-name\"?")
        );
        assert!(
            parse_target("openai-stric")
                .unwrap_err()
                .contains("did you mean \"openai-strict\"")
        );
        assert!(parse_level("fatal").is_err());
    }
}
