//! Paths as the policy compares them: absolute and lexically normal.
//!
//! Nothing here touches the file system: `~` and `$HOME` expand to the
//! policy's home, a relative path resolves against the manifest's
//! directory, and `//`, `/./` and `..` fold away. Symbolic links are the
//! sandbox's business, not the policy's.

use std::path::Path;
use std::sync::LazyLock;

use globset::{GlobBuilder, GlobMatcher};
use regex::Regex;

/// `raw` as an absolute, normal path (a `/`-separated string).
pub(super) fn resolve(raw: &str, dir: &Path, home: &Path) -> String {
    let raw = strip_file_scheme(raw);
    let home = home.to_string_lossy();
    let expanded = expand_home(raw, &home);
    let joined = if expanded.starts_with('/') {
        expanded
    } else {
        let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        format!("{}/{expanded}", dir.to_string_lossy())
    };
    normalize(&joined)
}

fn strip_file_scheme(raw: &str) -> &str {
    match raw.get(..7) {
        Some(scheme) if scheme.eq_ignore_ascii_case("file://") => &raw[7..],
        _ => raw,
    }
}

/// `~`, `~/x`, `~user/x`, `$HOME/x` and `${HOME}/x`.
fn expand_home(raw: &str, home: &str) -> String {
    for variable in ["${HOME}", "$HOME"] {
        if let Some(rest) = raw.strip_prefix(variable)
            && (rest.is_empty() || rest.starts_with('/'))
        {
            return format!("{home}{rest}");
        }
    }
    let Some(rest) = raw.strip_prefix('~') else {
        return raw.to_string();
    };
    let (user, rest) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    match user {
        "" => format!("{home}{rest}"),
        "root" => format!("/root{rest}"),
        user => format!("/home/{user}{rest}"),
    }
}

/// Folds `//`, `.` and `..` (never above `/`) in an absolute path.
pub(super) fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    format!("/{}", parts.join("/"))
}

/// Why a normal path is sensitive, or `None`.
pub(super) fn sensitive(path: &str) -> Option<&'static str> {
    static SYSTEM: LazyLock<Result<Regex, regex::Error>> = LazyLock::new(|| {
        Regex::new(r"^/etc/(shadow|gshadow|passwd|master\.passwd|sudoers)(-|\.d)?(/|$)")
    });
    static PRIVATE_KEY: LazyLock<Result<Regex, regex::Error>> = LazyLock::new(|| {
        Regex::new(r"(?i)^(id_(rsa|dsa|ecdsa|ed25519)(_sk)?|.+\.(pem|key|p12|pfx|ppk))$")
    });
    static DOTENV: LazyLock<Result<Regex, regex::Error>> =
        LazyLock::new(|| Regex::new(r"^\.env(\.[^/]+)?$"));
    static DOTENV_TEMPLATE: LazyLock<Result<Regex, regex::Error>> =
        LazyLock::new(|| Regex::new(r"^\.env\.(example|sample|template|dist|defaults)$"));
    let matches = |pattern: &LazyLock<Result<Regex, regex::Error>>, text: &str| match &**pattern {
        Ok(regex) => regex.is_match(text),
        // A pattern that does not compile is a bug: fail closed.
        Err(_) => true,
    };
    // Lower case: `.SSH` is `.ssh` on a case-insensitive file system.
    let lower = path.to_lowercase();
    let components: Vec<&str> = lower.split('/').filter(|c| !c.is_empty()).collect();
    let name = components.last().copied().unwrap_or("");
    if matches(&SYSTEM, path) {
        Some("a system account or sudo file")
    } else if components.contains(&".ssh") {
        Some("inside an SSH directory")
    } else if components.contains(&".gnupg") {
        Some("inside a GnuPG directory")
    } else if components.ends_with(&[".aws", "credentials"]) {
        Some("an AWS credentials file")
    } else if matches(&DOTENV, name) && !matches(&DOTENV_TEMPLATE, name) {
        Some("a .env file of secrets")
    } else if matches(&PRIVATE_KEY, name) {
        Some("a private key")
    } else {
        None
    }
}

/// One entry of `permissions.allowed_dirs`, resolved.
pub(super) enum AllowedDir {
    Anywhere,
    Under(String),
    /// An entry with glob characters: a path is inside when it or one of
    /// its ancestors matches.
    Glob(GlobMatcher),
}

impl AllowedDir {
    /// `entry` as written in the manifest; `None` when it is not a valid glob.
    pub(super) fn new(entry: &str, dir: &Path, home: &Path) -> Option<AllowedDir> {
        let entry = entry.trim();
        if entry == "*" || entry == "**" {
            return Some(AllowedDir::Anywhere);
        }
        let resolved = resolve(entry, dir, home);
        if !resolved.contains(['*', '?', '[', '{']) {
            return Some(AllowedDir::Under(resolved));
        }
        let glob = GlobBuilder::new(&resolved)
            .literal_separator(true)
            .build()
            .ok()?;
        Some(AllowedDir::Glob(glob.compile_matcher()))
    }

    /// Whether the normal path `path` is this directory or inside it.
    pub(super) fn contains(&self, path: &str) -> bool {
        match self {
            AllowedDir::Anywhere => true,
            AllowedDir::Under(dir) => {
                dir == "/"
                    || path == dir
                    || path
                        .strip_prefix(dir.as_str())
                        .is_some_and(|r| r.starts_with('/'))
            }
            AllowedDir::Glob(matcher) => ancestors(path).any(|a| matcher.is_match(a)),
        }
    }
}

/// `/a/b/c`, `/a/b`, `/a`, `/`.
fn ancestors(path: &str) -> impl Iterator<Item = &str> {
    let mut next = Some(path);
    std::iter::from_fn(move || {
        let current = next?;
        next = match current.rfind('/') {
            Some(0) if current.len() > 1 => Some("/"),
            Some(0) | None => None,
            Some(index) => Some(&current[..index]),
        };
        Some(current)
    })
}
