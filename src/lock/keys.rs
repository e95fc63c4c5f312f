//! How a lock file names its sources: a file by its path relative to the
//! lock file's directory, a live server by its `mcp://<name>` (or
//! `nats://<server>`, or URL) as it is.
//!
//! toolc shows a file by the path it was given, relative to the directory
//! it runs in. A lock file is committed beside the project and read from
//! wherever toolc runs (a subdirectory finds the `toolc.lock` beside the
//! `toolc.toml` that applies there), so its keys cannot depend on that
//! directory: `tools/a.json` run from the project's root and `a.json` run
//! from `tools/` are one source, pinned as `tools/a.json` when the lock is
//! at the root.
//!
//! Paths are compared as written, made absolute against the current
//! directory and with `.` and `..` resolved by their names: symbolic links
//! are not followed, so a source keeps the key its path shows. The paths
//! are the shown ones ([`crate::project::display_path`] writes them; a
//! `/` there is always a separator), so a key is shown the same way.

/// What turns a source as toolc shows it into its key in one lock file,
/// and back.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Keys {
    /// The lock file's directory: absolute, as names.
    dir: Vec<String>,
    /// The directory shown paths are relative to (the current one):
    /// absolute, as names.
    cwd: Vec<String>,
}

impl Keys {
    /// The keys of the lock file at `lock_file` (shown, absolute or
    /// relative to `cwd`), for paths shown relative to `cwd` (absolute).
    pub fn new(lock_file: &str, cwd: &str) -> Keys {
        let cwd = absolute(&[], cwd);
        let mut dir = absolute(&cwd, lock_file);
        dir.pop();
        Keys { dir, cwd }
    }

    /// The key of the source shown as `shown`.
    pub fn key(&self, shown: &str) -> String {
        if is_live(shown) {
            return shown.to_string();
        }
        relative(&self.dir, &absolute(&self.cwd, shown))
    }

    /// Whether the pinned source `key` is the file or directory shown as
    /// `root`, or under it (a live server is under no path).
    pub fn under(&self, key: &str, root: &str) -> bool {
        if is_live(key) || is_live(root) {
            return false;
        }
        absolute(&self.dir, key).starts_with(&absolute(&self.cwd, root))
    }
}

/// Whether a source is a live server's document rather than a file.
pub fn is_live(source: &str) -> bool {
    source.contains("://")
}

/// `path` against `base` (both absolute once made so), as names, with
/// `.` and `..` resolved by name (`..` of the root is the root).
fn absolute(base: &[String], path: &str) -> Vec<String> {
    let mut names = if path.starts_with('/') {
        Vec::new()
    } else {
        base.to_vec()
    };
    for name in path.split('/') {
        match name {
            "" | "." => {}
            ".." => {
                names.pop();
            }
            name => names.push(name.to_string()),
        }
    }
    names
}

/// The path from the directory `from` to `to`, as `/`-separated names
/// (`.`: the directory itself).
fn relative(from: &[String], to: &[String]) -> String {
    let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
    let mut names: Vec<&str> = vec![".."; from.len() - common];
    names.extend(to[common..].iter().map(String::as_str));
    if names.is_empty() {
        ".".to_string()
    } else {
        names.join("/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_relative_to_the_lock_files_directory_whatever_the_cwd() {
        let at_root = Keys::new("toolc.lock", "/repo");
        let in_sub = Keys::new("../toolc.lock", "/repo/tools");
        let found = Keys::new("/repo/toolc.lock", "/repo/tools");
        assert_eq!(at_root.key("tools/a.json"), "tools/a.json");
        assert_eq!(at_root.key("./tools/../tools/a.json"), "tools/a.json");
        assert_eq!(in_sub.key("a.json"), "tools/a.json");
        assert_eq!(found.key("./a.json"), "tools/a.json");
        assert_eq!(found.key("/repo/tools/a.json"), "tools/a.json");
        assert_eq!(found.key("../../elsewhere/b.json"), "../elsewhere/b.json");
        assert_eq!(in_sub.key("mcp://time"), "mcp://time");
        assert_eq!(in_sub.key("nats://127.0.0.1:4222"), "nats://127.0.0.1:4222");
        assert_eq!(Keys::default().key("./tools/a.json"), "tools/a.json");
    }

    #[test]
    fn a_root_covers_the_keys_under_it() {
        let in_sub = Keys::new("../toolc.lock", "/repo/tools");
        assert!(in_sub.under("tools/a.json", "."));
        assert!(in_sub.under("tools/a.json", "a.json"));
        assert!(!in_sub.under("other/a.json", "."));
        assert!(in_sub.under("other/a.json", ".."));
        assert!(!in_sub.under("toolsmith/a.json", "../tools"));
        assert!(!in_sub.under("mcp://time", "/"));
    }
}
