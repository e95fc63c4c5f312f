//! Which paths the walks leave out: `exclude`, `extend-exclude`
//! and `force-exclude` in `toolc.toml`, and `--exclude`,
//! `--extend-exclude` and `--force-exclude` on the command line, with
//! ruff's meaning:
//!
//! - a pattern without a `/` (`legacy`, `*.generated.json`) matches a file
//!   or directory of that name anywhere below;
//! - a pattern with one (`vendor/tools`, `gen/*.json`) matches that path
//!   relative to the directory of the `toolc.toml` that declares it (the
//!   current directory for the command line), and everything under it;
//! - `exclude` replaces the defaults ([`crate::project::DEFAULT_EXCLUDE`]),
//!   `extend-exclude` adds to them; the command line's `--exclude`
//!   replaces the file's `exclude`;
//! - paths named on the command line are read even when excluded, unless
//!   `force-exclude` is on (for pre-commit hooks, which name files).
//!
//! The configuration that applies to a path is the nearest `toolc.toml`
//! above it, as for its settings.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::DEFAULT_EXCLUDE;

/// Globs with ruff's meaning, relative to `base`.
#[derive(Debug)]
pub(crate) struct PathGlobs {
    base: PathBuf,
    /// The patterns as written (what `--show-settings` prints).
    pub patterns: Vec<String>,
    /// Patterns without a `/`: matched against each name.
    names: globset::GlobSet,
    /// Patterns with one: matched against the path below `base`.
    paths: globset::GlobSet,
}

impl PathGlobs {
    /// `base` must be canonical. The error names the pattern.
    pub(crate) fn new(base: PathBuf, patterns: &[String]) -> Result<PathGlobs, String> {
        let mut names = globset::GlobSetBuilder::new();
        let mut paths = globset::GlobSetBuilder::new();
        for pattern in patterns {
            let glob = |text: &str| {
                globset::GlobBuilder::new(text)
                    .literal_separator(true)
                    .build()
                    .map_err(|e| format!("invalid glob {pattern:?}: {}", e.kind()))
            };
            let trimmed = pattern.trim_end_matches('/');
            if trimmed.is_empty() {
                return Err(format!("invalid glob {pattern:?}: it is empty"));
            }
            if trimmed.contains('/') {
                for form in glob_forms(trimmed) {
                    paths.add(glob(&form)?);
                }
            } else {
                names.add(glob(trimmed)?);
            }
        }
        let built = |set: globset::GlobSetBuilder| set.build().map_err(|e| e.to_string());
        Ok(PathGlobs {
            base,
            patterns: patterns.to_vec(),
            names: built(names)?,
            paths: built(paths)?,
        })
    }

    /// The defaults: [`DEFAULT_EXCLUDE`]'s names, anywhere.
    pub(crate) fn defaults() -> PathGlobs {
        let names: Vec<String> = DEFAULT_EXCLUDE.iter().map(|n| n.to_string()).collect();
        // Plain names are always valid globs.
        PathGlobs::new(PathBuf::from("/"), &names).unwrap_or_else(|_| PathGlobs {
            base: PathBuf::from("/"),
            patterns: Vec::new(),
            names: globset::GlobSet::empty(),
            paths: globset::GlobSet::empty(),
        })
    }

    /// Whether the canonical `path`, or (for a path named on the command
    /// line, `ancestors`) a directory above it below `base`, matches.
    pub(crate) fn matches(&self, path: &Path, ancestors: bool) -> bool {
        let relative = path.strip_prefix(&self.base).ok();
        if relative.is_some_and(|r| !r.as_os_str().is_empty() && self.paths.is_match(r)) {
            return true;
        }
        if self.names.is_empty() {
            return false;
        }
        match relative {
            Some(relative) if ancestors => relative
                .components()
                .any(|c| self.names.is_match(Path::new(c.as_os_str()))),
            _ => path
                .file_name()
                .is_some_and(|name| self.names.is_match(Path::new(name))),
        }
    }
}

/// The exclusions that apply in one directory: the sets of globs, any of
/// which excludes, and whether named paths are excluded too.
#[derive(Debug)]
pub(crate) struct Exclusions {
    pub sets: Vec<Arc<PathGlobs>>,
    pub force: bool,
}

impl Exclusions {
    /// What a configuration file's `exclude` (replacing the command
    /// line's or the defaults), `extend-exclude` and `force-exclude` make
    /// of the command line's.
    pub(crate) fn fold(
        command_line: &CommandLineExclusions,
        exclude: Option<Arc<PathGlobs>>,
        extend: Option<Arc<PathGlobs>>,
        force: bool,
    ) -> Exclusions {
        let base = command_line
            .exclude
            .clone()
            .or(exclude)
            .unwrap_or_else(|| command_line.defaults.clone());
        let mut sets = vec![base];
        sets.extend(extend);
        sets.extend(command_line.extend.clone());
        Exclusions {
            sets,
            force: force || command_line.force,
        }
    }
}

/// The command line's exclusions, relative to the current directory.
#[derive(Debug)]
pub(crate) struct CommandLineExclusions {
    pub exclude: Option<Arc<PathGlobs>>,
    pub extend: Option<Arc<PathGlobs>>,
    pub force: bool,
    pub defaults: Arc<PathGlobs>,
}

impl CommandLineExclusions {
    pub(crate) fn new(
        exclude: Option<&[String]>,
        extend: &[String],
        force: bool,
    ) -> Result<CommandLineExclusions, String> {
        let cwd = std::env::current_dir()
            .and_then(std::fs::canonicalize)
            .map_err(|e| format!("cannot read the current directory: {e}"))?;
        let globs = |flag: &str, patterns: &[String]| {
            PathGlobs::new(cwd.clone(), patterns)
                .map(Arc::new)
                .map_err(|e| format!("{flag}: {e}"))
        };
        Ok(CommandLineExclusions {
            exclude: exclude.map(|p| globs("--exclude", p)).transpose()?,
            extend: (!extend.is_empty())
                .then(|| globs("--extend-exclude", extend))
                .transpose()?,
            force,
            defaults: Arc::new(PathGlobs::defaults()),
        })
    }
}

/// The globs a pattern stands for, relative to the configuration's
/// directory: a leading `./` or `/` means that directory, and a pattern also
/// covers everything below what it names (`legacy`, `legacy/` and
/// `legacy/**` all mean the directory's files), as in `.gitignore`.
pub(crate) fn glob_forms(pattern: &str) -> Vec<String> {
    let trimmed = pattern.trim_start_matches("./").trim_start_matches('/');
    let trimmed = trimmed.trim_end_matches('/');
    if trimmed.ends_with("/**") || trimmed == "**" {
        return vec![trimmed.to_string()];
    }
    vec![trimmed.to_string(), format!("{trimmed}/**")]
}
