//! The places destructive commands are judged by: the working directory
//! as `cd` leaves it, the paths that must not be deleted (`/`, the home
//! directory, the top-level system directories, a glob over one of them),
//! the paths outside the workspace (the call's directory) and the call's
//! scratch directory (`$TMPDIR`), which no tree delete may reach, and the
//! block devices that must not be written.

use std::path::{Path, PathBuf};

use super::paths::{normalize, resolve, scratch};
use super::programs::{operands, value_of};
use super::shell::{self, Word};

/// Top-level directories whose loss breaks the system.
const SYSTEM_DIRS: &[&str] = &[
    "bin", "boot", "dev", "etc", "home", "lib", "lib32", "lib64", "mnt", "media", "opt", "proc",
    "root", "run", "sbin", "snap", "srv", "sys", "usr", "var",
];

/// What a destructive command's path argument is.
pub(super) enum Target {
    /// `/`, the home directory, a system directory, or a glob over one.
    Critical(String),
    /// Outside the workspace and the call's scratch directory (resolved).
    Outside(String),
    /// Known and harmless.
    Fine,
    /// Only known when it runs: why.
    Unknown(String),
}

/// Where relative paths resolve and what `~` means, as the commands go.
#[derive(Clone)]
pub(super) struct Places<'a> {
    pub dir: &'a Path,
    /// The working directory as `cd` leaves it, in the order the commands
    /// are written; `Err`: why it is only known when it runs.
    pub cwd: Result<PathBuf, String>,
    pub home: &'a Path,
}

impl Places<'_> {
    pub(super) fn cd(&mut self, args: &[Word]) {
        let target = operands(args).next();
        self.cwd = match target.map(|w| (w, w.value.as_deref())) {
            None => Ok(self.home.to_path_buf()),
            Some((_, Some(value)))
                if value != "-" && !value.starts_with("~+") && !value.starts_with("~-") =>
            {
                match &self.cwd {
                    Ok(cwd) => Ok(PathBuf::from(resolve(value, cwd, self.home))),
                    Err(why) => Err(why.clone()),
                }
            }
            Some((word, _)) => Err(format!("the working directory after `cd {}`", word.source)),
        };
    }

    /// The directory relative paths resolve against now.
    pub(super) fn here(&self) -> &Path {
        self.cwd.as_deref().unwrap_or(self.dir)
    }

    pub(super) fn target(&self, word: &Word) -> Target {
        if let Some(why) = &word.unknown {
            return Target::Unknown(why.clone());
        }
        let value = value_of(word);
        // `~+` and `~-` are $PWD and $OLDPWD, as they are when it runs.
        if value.starts_with("~+") || value.starts_with("~-") {
            let tilde = value.get(..2).unwrap_or(value);
            return Target::Unknown(format!("`{tilde}`, a directory only known when it runs"));
        }
        let absolute = value.starts_with(['/', '~'])
            || value.starts_with("$HOME")
            || value.starts_with("$TMPDIR");
        if let (Err(why), false) = (&self.cwd, absolute) {
            return Target::Unknown(why.clone());
        }
        if let Some(pattern) = &word.glob {
            // The directory the first glob component lists: `/*/` lists
            // `/`, `~/.*` the home directory.
            let literal: Vec<&str> = pattern
                .split('/')
                .take_while(|c| !['*', '?', '['].iter().any(|m| c.contains(*m)))
                .collect();
            let parent = shell::unescape(&literal.join("/"));
            let parent = if parent.is_empty() && pattern.starts_with('/') {
                "/".to_string()
            } else {
                parent
            };
            let parent = if parent.is_empty() {
                ".".to_string()
            } else {
                parent
            };
            if self.critical(&parent).is_some() {
                return Target::Critical(resolve(value, self.here(), self.home));
            }
        }
        match self.critical(value) {
            Some(path) => Target::Critical(path),
            None => self.outside(value).map_or(Target::Fine, Target::Outside),
        }
    }

    /// The resolved target when it is neither in the workspace (the
    /// call's directory) nor in the call's scratch directory. A glob is
    /// resolved as written (`/u*` is outside, `build/*` inside).
    pub(super) fn outside(&self, target: &str) -> Option<String> {
        let resolved = resolve(target, self.here(), self.home);
        let within = |root: &str| {
            resolved == root
                || resolved
                    .strip_prefix(root)
                    .is_some_and(|rest| rest.starts_with('/'))
        };
        let workspace = std::path::absolute(self.dir).unwrap_or_else(|_| self.dir.to_path_buf());
        let workspace = normalize(&workspace.to_string_lossy());
        (!within(&workspace) && !within(&scratch())).then_some(resolved)
    }

    /// The resolved target when it is `/`, the home directory or a system
    /// directory.
    pub(super) fn critical(&self, target: &str) -> Option<String> {
        let resolved = resolve(target, self.here(), self.home);
        let home = normalize(&self.home.to_string_lossy());
        let is_system = resolved
            .strip_prefix('/')
            .is_some_and(|name| SYSTEM_DIRS.contains(&name));
        (resolved == "/" || resolved == home || is_system).then_some(resolved)
    }
}

/// The normal device path when `target` is a block device under `/dev`.
pub(super) fn block_device(target: &str) -> Option<String> {
    const PREFIXES: &[&str] = &[
        "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "md", "dm-", "mapper/", "loop",
        "nbd", "mtdblock", "sr",
    ];
    if !target.starts_with('/') {
        return None;
    }
    let device = normalize(target);
    let name = device.strip_prefix("/dev/")?;
    PREFIXES
        .iter()
        .any(|p| name.starts_with(p))
        .then_some(device)
}
