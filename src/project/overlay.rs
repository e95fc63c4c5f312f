//! Documents held in memory in place of files: an editor's unsaved
//! buffers. Whatever the front end would read from a file at one of these
//! paths (a manifest, an AgentStack `__init__.py`, a NORA entrypoint, a
//! Nachos package's TypeScript) it reads from here instead, so positions
//! in what it reports are positions in the buffer the user sees.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// Texts by path, each path made absolute and lexically normal
/// (`a/./b/../c` is `a/c`) so that a path a manifest names and the path an
/// editor gives meet whatever their spelling; symbolic links are not
/// followed.
#[derive(Debug, Clone, Default)]
pub struct Overlay {
    texts: BTreeMap<PathBuf, Arc<str>>,
}

impl Overlay {
    pub fn new() -> Overlay {
        Overlay::default()
    }

    /// Holds `text` for the file at `path`, in place of what is on disk.
    pub fn insert(&mut self, path: &Path, text: impl Into<Arc<str>>) {
        self.texts.insert(normal(path), text.into());
    }

    /// Lets the file at `path` be read from disk again.
    pub fn remove(&mut self, path: &Path) {
        self.texts.remove(&normal(path));
    }

    /// The text held for `path`, if any.
    pub fn get(&self, path: &Path) -> Option<&Arc<str>> {
        if self.texts.is_empty() {
            return None;
        }
        self.texts.get(&normal(path))
    }

    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    /// The held paths below `dir` (at any depth), relative to it, in
    /// order: files that may exist only in the editor.
    pub fn paths_under(&self, dir: &Path) -> impl Iterator<Item = &Path> {
        let dir = normal(dir);
        self.texts
            .range(dir.clone()..)
            .map_while(move |(path, _)| path.strip_prefix(&dir).ok())
            .filter(|relative| !relative.as_os_str().is_empty())
    }
}

/// `path` made absolute (against the current directory) with `.` and `..`
/// taken out by reading it, not the file system.
fn normal(path: &Path) -> PathBuf {
    let absolute;
    let path = if path.is_absolute() {
        path
    } else {
        absolute = std::env::current_dir()
            .map(|cwd| cwd.join(path))
            .unwrap_or_else(|_| path.to_path_buf());
        &absolute
    };
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_of_one_path_meet() {
        let mut overlay = Overlay::new();
        overlay.insert(Path::new("/w/pkg/./tools/../__init__.py"), "x = 1\n");
        assert_eq!(
            overlay.get(Path::new("/w/pkg/__init__.py")).map(|t| &**t),
            Some("x = 1\n")
        );
        assert!(overlay.get(Path::new("/w/pkg/other.py")).is_none());
        overlay.remove(Path::new("/w/pkg/__init__.py"));
        assert!(overlay.is_empty());
    }

    #[test]
    fn paths_under_a_directory() {
        let mut overlay = Overlay::new();
        for path in ["/w/a/src/x.ts", "/w/a/y.ts", "/w/ab/z.ts", "/w/b/q.ts"] {
            overlay.insert(Path::new(path), "");
        }
        let under: Vec<&Path> = overlay.paths_under(Path::new("/w/a")).collect();
        assert_eq!(under, [Path::new("src/x.ts"), Path::new("y.ts")]);
    }
}
