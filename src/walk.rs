//! Finding the files to lint.
//!
//! Named files are taken as they are. Directories are walked recursively
//! (ignore's walker: walkdir plus .gitignore semantics), following symbolic
//! links, skipping VCS and build directories, dependency trees and Python
//! virtual environments, and whatever the repository's `.gitignore` files
//! exclude. A walk error (a symlink loop, an unreadable directory) becomes an
//! `io-error` finding; a named path that does not exist fails the run.

use std::path::{Path, PathBuf};

use crate::diagnostic::Diagnostic;
use crate::lint::LintError;
use crate::lint::rules::io_error;

/// A file to read.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub path: PathBuf,
    /// How the path is shown in diagnostics.
    pub display: String,
    /// Named on the command line (so it must be a manifest).
    pub explicit: bool,
}

#[derive(Debug, Default)]
pub struct Found {
    pub files: Vec<Candidate>,
    pub skipped: usize,
    pub diagnostics: Vec<Diagnostic>,
}

/// Directory names never walked into.
const SKIPPED_DIRS: &[&str] = &[
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

pub fn discover(paths: &[PathBuf]) -> Result<Found, LintError> {
    let mut found = Found::default();
    for path in paths {
        let metadata = std::fs::metadata(path).or_else(|_| std::fs::symlink_metadata(path));
        let Ok(metadata) = metadata else {
            return Err(LintError::PathNotFound(path.display().to_string()));
        };
        if metadata.is_dir() {
            walk_directory(path, &mut found);
        } else {
            found.files.push(Candidate {
                path: path.clone(),
                display: display_path(path),
                explicit: true,
            });
        }
    }
    found.files.sort_by(|a, b| a.display.cmp(&b.display));
    found.files.dedup_by(|a, b| a.display == b.display);
    Ok(found)
}

fn walk_directory(root: &Path, found: &mut Found) {
    let walker = ignore::WalkBuilder::new(root)
        .hidden(false)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .require_git(false)
        .ignore(false)
        .parents(true)
        .follow_links(true)
        .filter_entry(|entry| entry.depth() == 0 || !is_skipped_dir(entry))
        .build();
    for entry in walker {
        match entry {
            Ok(entry) => {
                let is_file = entry.file_type().is_some_and(|t| !t.is_dir());
                let is_json = entry.path().extension().is_some_and(|e| e == "json");
                if is_file && is_json {
                    found.files.push(Candidate {
                        path: entry.path().to_path_buf(),
                        display: display_path(entry.path()),
                        explicit: false,
                    });
                }
            }
            Err(error) => {
                let path = error_path(&error)
                    .map(display_path)
                    .unwrap_or_else(|| display_path(root));
                found.diagnostics.push(
                    io_error::RULE
                        .diagnostic(&path, "", None, walk_error_message(&error))
                        .with_help("fix or remove the link or directory, or add it to .gitignore"),
                );
            }
        }
    }
}

fn is_skipped_dir(entry: &ignore::DirEntry) -> bool {
    if !entry.file_type().is_some_and(|t| t.is_dir()) {
        return false;
    }
    let name = entry.file_name().to_string_lossy();
    SKIPPED_DIRS.contains(&name.as_ref()) || entry.path().join("pyvenv.cfg").is_file()
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

fn walk_error_message(error: &ignore::Error) -> String {
    match error {
        ignore::Error::Loop { ancestor, child } => format!(
            "symbolic link loop: {} points back to {}",
            display_path(child),
            display_path(ancestor)
        ),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithPath { err, .. } => {
            walk_error_message(err)
        }
        other => format!("cannot read: {other}"),
    }
}

/// A path as shown to the user: without a leading `./`.
pub fn display_path(path: &Path) -> String {
    let shown = path.display().to_string();
    match shown.strip_prefix("./") {
        Some(rest) if !rest.is_empty() => rest.to_string(),
        _ => shown,
    }
}
