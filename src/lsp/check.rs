//! Checking what the editor shows: which manifests a document belongs to,
//! loading them with every open buffer in place of its file, and lint's
//! findings for one document.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diagnostic::Diagnostic;
use crate::ir::Format;
use crate::lint::{LintOptions, LintReport, Linter};
use crate::project::{self, LoadOptions, Project, Resolver};

use super::documents::Documents;

/// At most this many manifests are loaded beside a document's own to
/// check what is checked across files (a name declared twice among
/// sibling tool directories).
const MAX_SIBLINGS: usize = 256;

/// A document's manifests, loaded and checked.
pub struct Checked {
    pub project: Project,
    pub report: LintReport,
}

impl Checked {
    /// The findings in the file at `path`, as lint orders them.
    pub fn diagnostics_in(&self, path: &Path) -> Vec<&Diagnostic> {
        let shown = project::display_path(path);
        self.report
            .diagnostics
            .iter()
            .filter(|d| d.path == shown)
            .collect()
    }

    /// The loaded manifest at `path`, if it is one.
    pub fn manifest(&self, path: &Path) -> Option<&project::Manifest> {
        self.project.manifests.iter().find(|m| m.file == path)
    }
}

/// The manifests whose findings may concern the document at `path`: the
/// document itself when it is JSON; for package code, the manifests of its
/// package (an AgentStack `config.json` or NORA `tool.json` beside a
/// Python file, the Nachos manifests of the package a TypeScript file is
/// in).
pub fn manifests_of(path: &Path, documents: &Documents) -> Vec<PathBuf> {
    let exists = |p: &Path| documents.get(p).is_some() || p.is_file();
    let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let Some(dir) = path.parent() else {
        return Vec::new();
    };
    match extension {
        "py" => ["config.json", "tool.json"]
            .iter()
            .map(|name| dir.join(name))
            .filter(|p| exists(p))
            .collect(),
        "ts" => {
            // The package is the directory of the `.ts` file, or the one
            // holding the `src/` it is under.
            for package in dir.ancestors().take(8) {
                let found = files_in(package, documents)
                    .into_iter()
                    .filter(|p| is_named(p, Format::Nachos))
                    .collect::<Vec<_>>();
                if !found.is_empty() {
                    return found;
                }
                if package.file_name().is_some_and(|n| n == "src") {
                    continue;
                }
                if package != dir {
                    break;
                }
            }
            Vec::new()
        }
        _ => vec![path.to_path_buf()],
    }
}

fn is_named(path: &Path, format: Format) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .and_then(crate::formats::format_by_file_name)
        == Some(format)
}

/// The files directly in `dir`, on disk or open, in order.
fn files_in(dir: &Path, documents: &Documents) -> Vec<PathBuf> {
    let mut files: BTreeSet<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .take(4096)
        .collect();
    files.extend(
        documents
            .iter()
            .filter(|d| d.path.parent() == Some(dir))
            .map(|d| d.path.clone()),
    );
    files.into_iter().collect()
}

/// The manifests checked together with `manifest`: those its directory
/// names by a format's file name (the sources a provider tool list in it
/// may be a view of), the same file name in the sibling directories (tool
/// directories registered together), and open documents there; without
/// `manifest` itself.
fn siblings(manifest: &Path, documents: &Documents) -> Vec<PathBuf> {
    let Some(name) = manifest.file_name() else {
        return Vec::new();
    };
    let Some(dir) = manifest.parent() else {
        return Vec::new();
    };
    let named = |p: &PathBuf| {
        p.file_name()
            .and_then(|n| n.to_str())
            .and_then(crate::formats::format_by_file_name)
            .is_some()
    };
    let mut found: BTreeSet<PathBuf> = files_in(dir, documents).into_iter().filter(named).collect();
    // Sibling directories only for a format's file name, and not past a
    // repository's root: the directory beside it is another project's.
    let scope = dir
        .parent()
        .filter(|_| !dir.join(".git").exists())
        .filter(|_| crate::formats::format_by_file_name(&name.to_string_lossy()).is_some());
    if let Some(scope) = scope {
        found.extend(
            std::fs::read_dir(scope)
                .into_iter()
                .flatten()
                .flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.path().join(name))
                .filter(|p| p.is_file())
                .take(MAX_SIBLINGS),
        );
        found.extend(
            documents
                .iter()
                .filter(|d| d.path.parent().and_then(Path::parent) == Some(scope))
                .filter(|d| d.path.file_name() == Some(name))
                .map(|d| d.path.clone()),
        );
    }
    found.remove(manifest);
    found.into_iter().take(MAX_SIBLINGS).collect()
}

/// Whether a change to the file at `b` may change the findings of `a`: one
/// is in the other's directory or up to three directories below it (a
/// package's code and its manifest), or they share a grandparent (sibling
/// tool directories).
pub fn near(a: &Path, b: &Path) -> bool {
    let (Some(da), Some(db)) = (a.parent(), b.parent()) else {
        return true;
    };
    let below = |x: &Path, y: &Path| x.ancestors().take(4).any(|p| p == y);
    below(da, db) || below(db, da) || (da.parent().is_some() && da.parent() == db.parent())
}

/// Loads the manifests of the document at `path` (see [`manifests_of`]),
/// with their siblings, every open document read from the editor, and
/// checks them. `None` when the document belongs to no manifest, or its
/// configuration excludes it.
pub fn check(
    path: &Path,
    documents: &Documents,
    resolver: &Arc<Resolver>,
    lint: &LintOptions,
) -> Result<Option<Checked>, String> {
    // The unit tests' way to make a check fail as a bug would.
    #[cfg(test)]
    if path
        .file_name()
        .is_some_and(|n| n == "toolc-test-panic.json")
    {
        std::panic::panic_any("a check that panics, for a test");
    }
    let manifests = manifests_of(path, documents);
    if manifests.is_empty() {
        return Ok(None);
    }
    let overlay = documents.overlay();
    let options = resolver.load_options(LoadOptions {
        overlay: Some(Arc::new(overlay)),
        max_file_size: resolver.max_file_size(path).map_err(|e| e.to_string())?,
        ..LoadOptions::default()
    });
    // Left out as a walk leaves it out: by its name or a directory's above.
    if let Some(exclusion) = &options.exclusion
        && path.ancestors().take(64).any(|p| exclusion.excludes(p))
    {
        return Ok(None);
    }
    let mut all: BTreeSet<PathBuf> = manifests.iter().cloned().collect();
    for manifest in &manifests {
        all.extend(siblings(manifest, documents));
    }
    let mut texts = Vec::new();
    for file in all {
        let bytes = match documents.get(&file) {
            Some(document) => document.text.as_bytes().to_vec(),
            // A manifest on disk that cannot be read is not shown: an
            // open one is always read from the editor.
            None => match crate::source::read_regular_file(&file, options.max_file_size) {
                Ok(bytes) => bytes,
                Err(_) => continue,
            },
        };
        texts.push((file, bytes));
    }
    let project = Project::from_buffers(texts, &options);
    let linter = Linter::configured(lint.clone(), resolver.clone());
    let report = linter.check(&project).map_err(|e| e.to_string())?;
    Ok(Some(Checked { project, report }))
}
