//! Paths as the policy compares them: absolute and lexically normal.
//!
//! `~` and `$HOME` expand to the policy's home, a relative path resolves
//! against the manifest's directory, `//`, `/./` and `..` fold away, and
//! `/proc/<pid>/root/…` and `/proc/<pid>/cwd/…` (also under `task/<tid>`)
//! fold to the path beneath them, which is what they reach on a process
//! whose root or working directory is `/`. Symbolic links are the
//! sandbox's business, not the policy's. A glob (`/etc/sha*ow`) is
//! matched against the names the sensitive-path rule knows and expanded
//! against the file system (the only place the policy reads it) before
//! the check.

use std::path::Path;
use std::sync::LazyLock;

use globset::GlobBuilder;
use regex::Regex;
use regex::bytes::Regex as BytesRegex;

use super::shell;

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

/// What `$TMPDIR` names in a call: its scratch directory, made under the
/// temporary directory when the call starts (its name is only known
/// then: this one stands for it).
pub(super) fn scratch() -> String {
    let tmp = std::env::temp_dir();
    normalize(&format!("{}/$TMPDIR", tmp.to_string_lossy()))
}

/// `~`, `~/x`, `~user/x`, `$HOME/x` and `${HOME}/x`; `$TMPDIR/x` and
/// `${TMPDIR}/x` (see [`scratch`]).
fn expand_home(raw: &str, home: &str) -> String {
    for variable in ["${TMPDIR}", "$TMPDIR"] {
        if let Some(rest) = raw.strip_prefix(variable)
            && (rest.is_empty() || rest.starts_with('/'))
        {
            return format!("{}{rest}", scratch());
        }
    }
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

/// Folds `//`, `.` and `..` (never above `/`) in an absolute path, and
/// `/proc/<pid>/root` or `/proc/<pid>/cwd` to `/`. `/dev/fd` and
/// `/proc/net` are links into `/proc/self`, and `..` after them is read
/// as the kernel reads it.
pub(super) fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            part => {
                parts.push(part);
                // The links to a process's own directory: `..` after them
                // goes where the link leads (`/dev/fd/..` is `/proc/self`).
                match parts.as_slice() {
                    ["dev", "fd"] => parts = vec!["proc", "self", "fd"],
                    ["proc", "net" | "mounts"] => parts.insert(1, "self"),
                    _ => {}
                }
                if is_proc_root(&parts) {
                    parts.clear();
                }
            }
        }
    }
    format!("/{}", parts.join("/"))
}

/// `proc/<any>/root`, `proc/<any>/cwd`, `proc/<any>/task/<any>/root` ….
fn is_proc_root(parts: &[&str]) -> bool {
    match parts {
        ["proc", _, last] | ["proc", _, "task", _, last] => matches!(*last, "root" | "cwd"),
        _ => false,
    }
}

/// Why a normal path is sensitive, or `None`.
pub(super) fn sensitive(path: &str) -> Option<&'static str> {
    static SYSTEM: LazyLock<Result<Regex, regex::Error>> = LazyLock::new(|| {
        Regex::new(r"^/etc/(shadow|gshadow|passwd|master\.passwd|sudoers)(-|\.d)?(/|$)")
    });
    static PRIVATE_KEY: LazyLock<Result<Regex, regex::Error>> = LazyLock::new(|| {
        Regex::new(r"(?i)^(id_(rsa|dsa|ecdsa|ed25519)(_sk)?|.+\.(pem|key|p12|pfx|ppk))$")
    });
    static PROCESS: LazyLock<Result<Regex, regex::Error>> =
        LazyLock::new(|| Regex::new(r"^/proc/[^/]+/(task/[^/]+/)?environ$"));
    static HOST_KEY: LazyLock<Result<Regex, regex::Error>> =
        LazyLock::new(|| Regex::new(r"^/etc/ssh/ssh_host_[^/]*_key$"));
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
    } else if matches(&PROCESS, path) {
        Some("a process's environment, where its secrets are")
    } else if matches(&HOST_KEY, path) {
        Some("an SSH host private key")
    } else if name == ".netrc" || name == "_netrc" {
        Some("a .netrc file of passwords")
    } else if name == ".git-credentials" {
        Some("a git credentials file")
    } else if components.ends_with(&[".docker", "config.json"]) {
        Some("a Docker credentials file")
    } else if components.ends_with(&[".kube", "config"]) {
        Some("a Kubernetes credentials file")
    } else if components.ends_with(&[".cargo", "credentials.toml"])
        || components.ends_with(&[".cargo", "credentials"])
    {
        Some("a Cargo registry token file")
    } else if components.ends_with(&[".config", "gh", "hosts.yml"]) {
        Some("a GitHub CLI token file")
    } else if matches(&DOTENV, name) && !matches(&DOTENV_TEMPLATE, name) {
        Some("a .env file of secrets")
    } else if matches(&PRIVATE_KEY, name) {
        Some("a private key")
    } else {
        None
    }
}

/// The names a glob is matched against before the sensitive-path check.
const SENSITIVE_NAMES: &[&str] = &[
    "shadow",
    "shadow-",
    "gshadow",
    "gshadow-",
    "passwd",
    "passwd-",
    "master.passwd",
    "sudoers",
    "sudoers.d",
    ".ssh",
    ".gnupg",
    ".aws",
    "credentials",
    ".env",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "authorized_keys",
    "environ",
    "ssh",
    "ssh_host_rsa_key",
    "ssh_host_ecdsa_key",
    "ssh_host_ed25519_key",
    "ssh_host_dsa_key",
    ".netrc",
    ".git-credentials",
    ".docker",
    "config.json",
    ".kube",
    "config",
    ".cargo",
    "credentials.toml",
    ".config",
    "gh",
    "hosts.yml",
];

/// A glob compiled to a regex; `None` when it is not a valid glob or its
/// regex does not compile (never a panic: globset's own matcher panics on
/// a regex too big to compile).
fn compile(glob: &str) -> Option<GlobRegex> {
    if shell::too_complex(glob).is_some() {
        return None;
    }
    let glob = GlobBuilder::new(glob)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .ok()?;
    BytesRegex::new(glob.regex()).ok().map(GlobRegex)
}

/// A compiled glob.
pub(super) struct GlobRegex(BytesRegex);

impl GlobRegex {
    fn is_match(&self, text: &str) -> bool {
        self.0.is_match(text.as_bytes())
    }
}

/// The most paths one glob stands for in the checks.
const MAX_GLOB_PATHS: usize = 256;

/// The sensitive path a word of a command or argument names, and why:
/// for a glob (`pattern`), any path it matches among the known sensitive
/// names or on the file system.
pub(super) fn sensitive_word(
    word: &str,
    pattern: bool,
    dir: &Path,
    home: &Path,
) -> Option<(String, &'static str)> {
    if !pattern {
        let path = resolve(word, dir, home);
        return sensitive(&path).map(|what| (path, what));
    }
    if shell::too_complex(word).is_some() {
        // Not checked, so not allowed.
        return Some((word.to_string(), "a pattern too complex to check"));
    }
    let resolved = resolve(word, dir, home);
    let components: Vec<&str> = resolved.split('/').filter(|c| !c.is_empty()).collect();
    let candidates = named(&components).into_iter().chain(on_disk(&components));
    for candidate in candidates {
        let path = normalize(&shell::unescape(&candidate));
        if let Some(what) = sensitive(&path) {
            return Some((path, what));
        }
    }
    None
}

/// A glob component as a matcher (a leading `.` must be written, as in
/// the shell); `None` for a literal component.
fn component_matcher(component: &str) -> Option<GlobRegex> {
    if !shell::is_glob(component) {
        return None;
    }
    compile(component)
}

fn matches_name(component: &str, matcher: &GlobRegex, name: &str) -> bool {
    let dot_written = component.starts_with('.') || component.starts_with("\\.");
    (dot_written || !name.starts_with('.')) && matcher.is_match(name)
}

/// The paths the pattern's components make when each glob that spells
/// part of a name (`sha*ow`, `.ss?`; not a bare `*`) is replaced by the
/// sensitive names it matches.
fn named(components: &[&str]) -> Vec<String> {
    let mut paths = vec![String::new()];
    for component in components {
        let spelled = component.chars().any(|c| c.is_alphanumeric());
        let names: Vec<String> = match component_matcher(component) {
            Some(matcher) if spelled => {
                let names: Vec<String> = SENSITIVE_NAMES
                    .iter()
                    .filter(|name| matches_name(component, &matcher, name))
                    .map(|name| name.to_string())
                    .collect();
                if names.is_empty() {
                    vec![component.to_string()]
                } else {
                    names
                }
            }
            _ => vec![component.to_string()],
        };
        paths = paths
            .iter()
            .flat_map(|path| names.iter().map(move |name| format!("{path}/{name}")))
            .take(MAX_GLOB_PATHS)
            .collect();
    }
    paths
}

/// The paths the pattern matches on the file system now, as the shell
/// would expand it (at most [`MAX_GLOB_PATHS`]).
fn on_disk(components: &[&str]) -> Vec<String> {
    let mut paths = vec![String::new()];
    for component in components {
        let Some(matcher) = component_matcher(component) else {
            for path in &mut paths {
                path.push('/');
                path.push_str(component);
            }
            continue;
        };
        let mut next = Vec::new();
        for path in &paths {
            let listed = if path.is_empty() { "/" } else { path.as_str() };
            let Ok(entries) = std::fs::read_dir(shell::unescape(listed)) else {
                continue;
            };
            for entry in entries.flatten().take(MAX_GLOB_PATHS * 4) {
                let name = entry.file_name().to_string_lossy().into_owned();
                if matches_name(component, &matcher, &name) && next.len() < MAX_GLOB_PATHS {
                    next.push(format!("{path}/{}", escape_name(&name)));
                }
            }
        }
        paths = next;
    }
    paths
}

/// A file's name as a literal part of a pattern.
fn escape_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// One entry of `permissions.allowed_dirs`, resolved.
pub(super) enum AllowedDir {
    Anywhere,
    Under(String),
    /// An entry with glob characters: a path is inside when it or one of
    /// its ancestors matches.
    Glob(GlobRegex),
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
        compile(&resolved).map(AllowedDir::Glob)
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
