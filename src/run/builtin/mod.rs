//! The built-in tools: `list_files`, `read_file`, `write_file`, `shell` and
//! `fetch`, confined to one [`Workspace`].
//!
//! This module owns what each built-in does once its arguments are valid
//! and the policy has let the call through: it declares the tools
//! ([`toolset`]) and runs them ([`call`]). Argument validation, the policy
//! engine and the process executor that runs `shell` live elsewhere in the
//! runner; `shell` only comes back as an [`Action::Shell`] for it.
//!
//! Choices a caller can see:
//! - Every path argument goes through [`Workspace::resolve`], which follows
//!   symbolic links itself and refuses, as a `workspace` [`Denial`] (a
//!   `POLICY_DENIED` result), any path that ends up outside the root. On
//!   Linux the file is then opened beneath a descriptor of the root with
//!   `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` ([`super::beneath`]),
//!   so a process that swaps a directory for a link between the check and
//!   the use makes the call fail rather than escape. A file path ending in
//!   `/` is an error.
//! - `list_files` answers `{"entries": [...], "truncated": bool}` rather
//!   than a bare array, so a listing cut at [`LIST_CAP`] entries says so.
//!   Entries are sorted by name within each directory; a recursive listing
//!   puts a directory's contents right after it and never follows links.
//!   `size` is the length in bytes of a regular file, `null` otherwise.
//! - `read_file` reads at most [`READ_CAP`] (1 MiB, 1,048,576 bytes).
//! - `fetch` accepts only `http` and `https` URLs: anything else is a
//!   `VALIDATION_ERROR` (the schema's `pattern` says so and [`call`] checks
//!   again). It ignores proxy environment variables, so that the host the
//!   policy sees is the host it connects to. A non-2xx status is still a
//!   success carrying that status. A body that is not UTF-8 comes back in
//!   base64, and `body_encoding` (`"utf-8"` or `"base64"`) says which.
//!   Repeated response headers are joined with `", "`. Redirects (301,
//!   302, 303, 307, 308) are followed here, up to
//!   [`FETCH_MAX_REDIRECTS`], each target checked for http/https; a
//!   redirect elsewhere is an `EXECUTION_ERROR` (a request was made). The
//!   [`FETCH_TIMEOUT`] budget spans all hops and the body (`TIMEOUT`).
//!   Only public addresses are reached unless the workspace's [`Reach`]
//!   is [`Reach::Any`]: a host that resolves to loopback, private or
//!   link-local addresses only is a `private-network` denial (see the
//!   `fetch` module).
//! - Missing files and other I/O failures are `EXECUTION_ERROR`s:
//!   `NOT_FOUND` means an unknown tool name.

use std::fs;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::ir::{Action as Permission, Format, Permissions, Runtime, Tool, ToolSet};
use crate::run::policy::{Denial, DenialRule};
use crate::run::{ErrorCode, ToolResult};

mod fetch;
pub use fetch::Reach;
#[cfg(target_os = "linux")]
pub(crate) use fetch::non_public;

/// The names of the built-in tools.
pub const NAMES: [&str; 5] = ["list_files", "read_file", "write_file", "shell", "fetch"];

/// One built-in tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    ListFiles,
    ReadFile,
    WriteFile,
    Shell,
    Fetch,
}

impl Builtin {
    /// Every built-in, in the order [`toolset`] declares them.
    pub const ALL: [Builtin; 5] = [
        Builtin::ListFiles,
        Builtin::ReadFile,
        Builtin::WriteFile,
        Builtin::Shell,
        Builtin::Fetch,
    ];

    /// The tool's name, as agents call it.
    pub fn name(self) -> &'static str {
        match self {
            Builtin::ListFiles => "list_files",
            Builtin::ReadFile => "read_file",
            Builtin::WriteFile => "write_file",
            Builtin::Shell => "shell",
            Builtin::Fetch => "fetch",
        }
    }

    /// The built-in called `name`.
    pub fn from_name(name: &str) -> Option<Builtin> {
        Builtin::ALL.into_iter().find(|tool| tool.name() == name)
    }
}

/// The most entries one `list_files` call returns.
pub const LIST_CAP: usize = 10_000;
/// The largest file `read_file` returns: 1 MiB.
pub const READ_CAP: u64 = 1 << 20;
/// The largest response body `fetch` returns: 5 MiB.
pub const FETCH_CAP: u64 = 5 << 20;
/// The time one `fetch` may take, redirects and body included.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(30);
/// The most redirects one `fetch` follows.
pub const FETCH_MAX_REDIRECTS: u32 = 5;

/// How many symbolic links [`Workspace::resolve`] follows before giving up
/// (Linux's own limit).
const MAX_LINK_HOPS: usize = 40;

/// The built-in tools as a [`ToolSet`]: MCP format, no runtime (the runner
/// knows how to run them), each with a standard JSON Schema and the actions
/// it needs.
pub fn toolset() -> ToolSet {
    let tools = Builtin::ALL
        .into_iter()
        .enumerate()
        .map(|(index, builtin)| declare(index, builtin))
        .collect();
    ToolSet {
        path: "builtin".to_string(),
        format: Format::Mcp,
        package: None,
        tools,
        carried: Vec::new(),
    }
}

fn declare(index: usize, builtin: Builtin) -> Tool {
    let (description, parameters, action) = match builtin {
        Builtin::ListFiles => (
            "List the entries of a directory in the workspace. Returns {\"entries\": [{\"name\", \"type\" (file, dir, symlink or other), \"size\" (bytes, files only)}], \"truncated\"}, sorted by name. With recursive, names are paths relative to the listed directory; symbolic links are listed, not followed. At most 10000 entries; truncated is true when there were more.",
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Directory to list, relative to the workspace root (\".\" for the root)."},
                    "recursive": {"type": "boolean", "description": "Also list the contents of subdirectories. Default false."}
                },
                "required": ["path"],
                "additionalProperties": false
            }),
            Permission::Read,
        ),
        Builtin::ReadFile => (
            "Read a UTF-8 text file in the workspace and return its contents as a string. Files over 1 MiB and files that are not UTF-8 text are refused.",
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "File to read, relative to the workspace root."}
                },
                "required": ["path"],
                "additionalProperties": false
            }),
            Permission::Read,
        ),
        Builtin::WriteFile => (
            "Write text to a file in the workspace, replacing it if it exists and creating missing parent directories. The file is replaced in one step: readers see the old or the new contents, never a part. Returns {\"path\", \"bytes\"}.",
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "File to write, relative to the workspace root."},
                    "content": {"type": "string", "description": "The complete new contents of the file."}
                },
                "required": ["path", "content"],
                "additionalProperties": false
            }),
            Permission::Write,
        ),
        Builtin::Shell => (
            "Run a shell command line in the workspace (by default in its root) and return what it printed and its exit status.",
            json!({
                "type": "object",
                "properties": {
                    "command": {"type": "string", "description": "The command line to run."},
                    "cwd": {"type": "string", "description": "Directory to run it in, relative to the workspace root. Default: the root."}
                },
                "required": ["command"],
                "additionalProperties": false
            }),
            Permission::Execute,
        ),
        Builtin::Fetch => (
            "Fetch a URL with HTTP GET (http and https only) and return {\"status\", \"headers\", \"body\", \"body_encoding\"}. A 404 or 500 status is returned, not treated as a failure. Follows up to 5 redirects; gives up after 30 seconds; bodies over 5 MiB are refused. A body that is not UTF-8 text is returned in base64 (body_encoding \"base64\").",
            json!({
                "type": "object",
                "properties": {
                    "url": {"type": "string", "pattern": "^[hH][tT][tT][pP][sS]?://", "description": "An absolute http:// or https:// URL."}
                },
                "required": ["url"],
                "additionalProperties": false
            }),
            Permission::Read,
        ),
    };
    let mut tool = Tool::new(
        builtin.name().to_string(),
        format!("/tools/{index}/name"),
        format!("/tools/{index}"),
    );
    tool.description = Some(description.to_string());
    tool.parameters = Some(crate::ir::SharedValue::new(parameters));
    tool.runtime = Runtime::Unspecified;
    *tool.permissions = Permissions {
        actions: Some(vec![action]),
        // fetch reaches the network (an open world to MCP clients).
        allow_http: (builtin == Builtin::Fetch).then_some(true),
        ..Permissions::default()
    };
    tool
}

/// What the built-ins may touch: the root their file tools are confined
/// to, and the addresses `fetch` may reach.
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
    reach: Reach,
}

impl Workspace {
    /// Canonicalizes the root, which must exist and be a directory.
    pub fn new(root: &Path) -> io::Result<Workspace> {
        let root = fs::canonicalize(root)?;
        if !fs::metadata(&root)?.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                format!("workspace root {} is not a directory", root.display()),
            ));
        }
        Ok(Workspace {
            root,
            reach: Reach::Public,
        })
    }

    /// The same workspace, with `fetch` reaching `reach` (public
    /// addresses only by default).
    pub fn with_reach(self, reach: Reach) -> Workspace {
        Workspace { reach, ..self }
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves a path argument (relative to the root, or absolute) to a
    /// path inside the workspace, with every symbolic link along it
    /// followed.
    ///
    /// Walks the path one component at a time as the kernel would: `..`
    /// goes to the parent of what has been resolved so far, and a link is
    /// replaced by its target (absolute, or relative to the link's
    /// directory). Components that do not exist are taken as written
    /// (that is what `write_file` will create). The result must
    /// lie under the root; anything else, escapes through `..`, absolute
    /// paths and links alike, is refused with a `workspace` [`Denial`].
    pub fn resolve(&self, path: &str) -> Result<PathBuf, Denial> {
        let mut pending: Vec<PathBuf> = Vec::new();
        push_components(&mut pending, Path::new(path));
        let mut current = self.root.clone();
        let mut hops = 0;
        while let Some(part) = pending.pop() {
            match part.components().next() {
                Some(Component::RootDir | Component::Prefix(_)) => current = part,
                Some(Component::ParentDir) => {
                    current.pop();
                }
                Some(Component::Normal(name)) => {
                    let candidate = current.join(name);
                    // Checked even below a missing component: `..` can
                    // climb back to an existing directory.
                    let is_link = fs::symlink_metadata(&candidate)
                        .is_ok_and(|meta| meta.file_type().is_symlink());
                    if is_link {
                        hops += 1;
                        if hops > MAX_LINK_HOPS {
                            return Err(
                                self.denial(path, "it has too many levels of symbolic links")
                            );
                        }
                        let target = fs::read_link(&candidate).map_err(|e| {
                            let why =
                                format!("its link {} cannot be read: {e}", candidate.display());
                            self.denial(path, &why)
                        })?;
                        push_components(&mut pending, &target);
                    } else {
                        current = candidate;
                    }
                }
                Some(Component::CurDir) | None => {}
            }
        }
        if current.starts_with(&self.root) {
            Ok(current)
        } else {
            Err(self.denial(path, "it is outside the workspace"))
        }
    }

    fn denial(&self, path: &str, why: &str) -> Denial {
        Denial {
            rule: DenialRule::Workspace,
            message: format!("path {path:?} is refused: {why} ({})", self.root.display()),
        }
    }

    /// A resolved `path` relative to the root, for opening beneath it.
    #[cfg(target_os = "linux")]
    fn below_root<'p>(&self, path: &'p Path) -> io::Result<&'p Path> {
        path.strip_prefix(&self.root)
            .map_err(|_| io::Error::new(io::ErrorKind::PermissionDenied, "outside the workspace"))
    }

    /// `path` (inside the root) relative to the root, `.` for the root.
    fn relative(&self, path: &Path) -> String {
        match path.strip_prefix(&self.root) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
            Ok(rel) => rel.to_string_lossy().into_owned(),
            Err(_) => path.to_string_lossy().into_owned(),
        }
    }
}

/// Pushes `path`'s components onto a stack so that the first is popped
/// first; a root or prefix stays joined to nothing and restarts the walk.
fn push_components(stack: &mut Vec<PathBuf>, path: &Path) {
    let parts: Vec<PathBuf> = path
        .components()
        .map(|c| PathBuf::from(c.as_os_str()))
        .collect();
    stack.extend(parts.into_iter().rev());
}

/// What running a built-in comes to: done in process, or a shell command
/// for the runner's process executor.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// The call ran (or failed) here.
    Done(ToolResult),
    /// Run the shell command line `command` in `cwd`, an existing
    /// directory inside the workspace; the executor decides how.
    Shell { command: String, cwd: PathBuf },
}

/// Runs built-in `name` with already-validated `arguments` (an object
/// matching its schema). Never panics: a missing argument or an unknown
/// name is a failed result.
pub fn call(workspace: &Workspace, name: &str, arguments: &Value) -> Action {
    match Builtin::from_name(name) {
        Some(builtin) => run(workspace, builtin, arguments),
        None => Action::Done(ToolResult::fail(
            ErrorCode::NotFound,
            format!("no built-in tool named {name:?}"),
        )),
    }
}

/// Runs `builtin` with already-validated `arguments`.
pub fn run(workspace: &Workspace, builtin: Builtin, arguments: &Value) -> Action {
    let result = match builtin {
        Builtin::ListFiles => list_files(workspace, arguments),
        Builtin::ReadFile => read_file(workspace, arguments),
        Builtin::WriteFile => write_file(workspace, arguments),
        Builtin::Shell => return shell(workspace, arguments),
        Builtin::Fetch => fetch::fetch(arguments, workspace.reach),
    };
    Action::Done(result.unwrap_or_else(|failure| *failure))
}

/// A failed call, boxed: a `ToolResult` is too large for an `Err`.
type Failure = Box<ToolResult>;

/// A call's outcome before it is folded into one [`ToolResult`].
type Outcome = Result<ToolResult, Failure>;

fn failure(code: ErrorCode, message: String) -> Failure {
    Box::new(ToolResult::fail(code, message))
}

fn string_argument<'a>(arguments: &'a Value, key: &str) -> Result<&'a str, Failure> {
    arguments.get(key).and_then(Value::as_str).ok_or_else(|| {
        failure(
            ErrorCode::ValidationError,
            format!("argument {key:?} must be a string"),
        )
    })
}

fn resolve(workspace: &Workspace, path: &str) -> Result<PathBuf, Failure> {
    workspace.resolve(path).map_err(|denial| {
        let mut details = Map::new();
        details.insert("rule".to_string(), json!(denial.rule.id()));
        Box::new(ToolResult::fail_with(
            ErrorCode::PolicyDenied,
            denial.message,
            details,
        ))
    })
}

fn execution_error(message: String) -> Failure {
    failure(ErrorCode::ExecutionError, message)
}

fn too_large(message: String, limit: u64) -> Failure {
    let mut details = Map::new();
    details.insert("limit_bytes".to_string(), Value::from(limit));
    Box::new(ToolResult::fail_with(
        ErrorCode::OutputTooLarge,
        message,
        details,
    ))
}

fn list_files(workspace: &Workspace, arguments: &Value) -> Outcome {
    let path = string_argument(arguments, "path")?;
    let recursive = arguments
        .get("recursive")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let dir = resolve(workspace, path)?;
    match fs::metadata(&dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => return Err(execution_error(format!("{path:?} is not a directory"))),
        Err(e) => return Err(execution_error(format!("cannot list {path:?}: {e}"))),
    }
    let cannot = |e: io::Error| execution_error(format!("cannot list {path:?}: {e}"));
    #[cfg(target_os = "linux")]
    let dir = super::beneath::Directory::open(
        &workspace.root,
        workspace.below_root(&dir).map_err(cannot)?,
    )
    .map_err(cannot)?;
    let mut listing = Listing::default();
    listing.walk(&dir, "", recursive).map_err(cannot)?;
    Ok(ToolResult::ok(json!({
        "entries": listing.entries,
        "truncated": listing.truncated,
    })))
}

/// The entries of a `list_files` call, gathered up to [`LIST_CAP`].
#[derive(Default)]
struct Listing {
    entries: Vec<Value>,
    truncated: bool,
}

/// A directory a listing can walk: held open beneath the root on Linux
/// (see [`super::beneath::Directory`]), a path elsewhere.
trait Walkable: Sized {
    fn entries(&self) -> io::Result<fs::ReadDir>;
    fn child(&self, name: &std::ffi::OsStr) -> io::Result<Self>;
}

#[cfg(target_os = "linux")]
impl Walkable for super::beneath::Directory {
    fn entries(&self) -> io::Result<fs::ReadDir> {
        super::beneath::Directory::entries(self)
    }

    fn child(&self, name: &std::ffi::OsStr) -> io::Result<Self> {
        super::beneath::Directory::child(self, name)
    }
}

#[cfg(not(target_os = "linux"))]
impl Walkable for PathBuf {
    fn entries(&self) -> io::Result<fs::ReadDir> {
        fs::read_dir(self)
    }

    fn child(&self, name: &std::ffi::OsStr) -> io::Result<Self> {
        Ok(self.join(name))
    }
}

impl Listing {
    fn walk(&mut self, dir: &impl Walkable, prefix: &str, recursive: bool) -> io::Result<()> {
        let mut children: Vec<fs::DirEntry> = dir.entries()?.collect::<io::Result<_>>()?;
        children.sort_by_key(|entry| entry.file_name());
        for child in children {
            if self.entries.len() >= LIST_CAP {
                self.truncated = true;
                return Ok(());
            }
            let name = format!("{prefix}{}", child.file_name().to_string_lossy());
            // DirEntry::file_type and symlink_metadata do not follow links.
            let file_type = child.file_type()?;
            let (kind, size) = if file_type.is_symlink() {
                ("symlink", Value::Null)
            } else if file_type.is_dir() {
                ("dir", Value::Null)
            } else if file_type.is_file() {
                // (DirEntry::metadata does not follow a link either.)
                let len = child.metadata().map(|m| m.len())?;
                ("file", Value::from(len))
            } else {
                ("other", Value::Null)
            };
            self.entries
                .push(json!({"name": name, "type": kind, "size": size}));
            if recursive && file_type.is_dir() {
                self.walk(
                    &dir.child(&child.file_name())?,
                    &format!("{name}/"),
                    recursive,
                )?;
            }
        }
        Ok(())
    }
}

/// The `path` argument of a file built-in. A trailing `/` names a
/// directory (and the kernel would follow a link at the end of it): for a
/// file, it is an error.
fn file_path(arguments: &Value) -> Result<&str, Failure> {
    let path = string_argument(arguments, "path")?;
    if path.ends_with('/') || path.ends_with("/.") {
        return Err(execution_error(format!(
            "{path:?} ends with a slash (or \"/.\"), which names a directory: a file path names a file"
        )));
    }
    Ok(path)
}

fn read_file(workspace: &Workspace, arguments: &Value) -> Outcome {
    let path = file_path(arguments)?;
    let resolved = resolve(workspace, path)?;
    let cannot = |e: io::Error| execution_error(format!("cannot read {path:?}: {e}"));
    // The resolved path has no links left; refuse FIFOs and devices before
    // opening them, since opening a FIFO can block.
    if !fs::symlink_metadata(&resolved).map_err(cannot)?.is_file() {
        return Err(execution_error(format!("{path:?} is not a regular file")));
    }
    let file = open_for_reading(workspace, &resolved).map_err(cannot)?;
    if !file.metadata().map_err(cannot)?.is_file() {
        return Err(execution_error(format!("{path:?} is not a regular file")));
    }
    let mut bytes = Vec::new();
    file.take(READ_CAP + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() as u64 > READ_CAP {
        return Err(too_large(
            format!("{path:?} is larger than the {READ_CAP}-byte (1 MiB) read limit"),
            READ_CAP,
        ));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        execution_error(format!(
            "{path:?} is not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })?;
    Ok(ToolResult::ok(Value::String(text)))
}

/// Opens a resolved path for reading: on Linux beneath the root's
/// descriptor, refusing a link swapped in since [`Workspace::resolve`]
/// (see [`super::beneath`]).
#[cfg(target_os = "linux")]
fn open_for_reading(workspace: &Workspace, path: &Path) -> io::Result<fs::File> {
    super::beneath::open_for_reading(&workspace.root, workspace.below_root(path)?)
}

#[cfg(all(unix, not(target_os = "linux")))]
fn open_for_reading(_workspace: &Workspace, path: &Path) -> io::Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_for_reading(_workspace: &Workspace, path: &Path) -> io::Result<fs::File> {
    fs::File::open(path)
}

/// Distinguishes the temporary files of concurrent writes in one process.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

fn write_file(workspace: &Workspace, arguments: &Value) -> Outcome {
    let path = file_path(arguments)?;
    let content = string_argument(arguments, "content")?;
    let target = resolve(workspace, path)?;
    let cannot = |e: io::Error| execution_error(format!("cannot write {path:?}: {e}"));
    let (Some(_), Some(file_name)) = (target.parent(), target.file_name()) else {
        return Err(execution_error(format!("{path:?} does not name a file")));
    };
    if fs::symlink_metadata(&target).is_ok_and(|m| m.is_dir()) {
        return Err(execution_error(format!("{path:?} is a directory")));
    }
    let temp = format!(
        ".{}.toolc-tmp-{}-{}",
        file_name.to_string_lossy(),
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    write_replacing(workspace, &target, &temp, content.as_bytes()).map_err(cannot)?;
    Ok(ToolResult::ok(json!({
        "path": workspace.relative(&target),
        "bytes": content.len(),
    })))
}

/// Writes `bytes` to `target` through a new temporary file `temp` beside
/// it (its directories created as needed), flushed, then renamed over it:
/// on Linux
/// beneath the root's descriptor, refusing a link swapped in since
/// [`Workspace::resolve`] (see [`super::beneath`]).
#[cfg(target_os = "linux")]
fn write_replacing(
    workspace: &Workspace,
    target: &Path,
    temp: &str,
    bytes: &[u8],
) -> io::Result<()> {
    super::beneath::write_replacing(
        &workspace.root,
        workspace.below_root(target)?,
        std::ffi::OsStr::new(temp),
        bytes,
    )
}

#[cfg(not(target_os = "linux"))]
fn write_replacing(
    _workspace: &Workspace,
    target: &Path,
    temp: &str,
    bytes: &[u8],
) -> io::Result<()> {
    let parent = target.parent().unwrap_or(target);
    fs::create_dir_all(parent)?;
    let temp = parent.join(temp);
    let written = write_new(&temp, bytes).and_then(|()| fs::rename(&temp, target));
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written
}

/// Writes `bytes` to a file that must not exist yet, and flushes it to disk
/// so that the rename that follows publishes complete contents.
#[cfg(not(target_os = "linux"))]
fn write_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

fn shell(workspace: &Workspace, arguments: &Value) -> Action {
    let command = match string_argument(arguments, "command") {
        Ok(command) => command.to_string(),
        Err(failure) => return Action::Done(*failure),
    };
    let cwd = match arguments.get("cwd").and_then(Value::as_str) {
        None => workspace.root().to_path_buf(),
        Some(cwd) => match resolve(workspace, cwd) {
            Ok(dir) if dir.is_dir() => dir,
            Ok(_) => {
                return Action::Done(*execution_error(format!("cwd {cwd:?} is not a directory")));
            }
            Err(failure) => return Action::Done(*failure),
        },
    };
    Action::Shell { command, cwd }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    /// A directory under the system temp dir holding `ws/` (the workspace)
    /// and `outside/`, removed when dropped.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Scratch {
            let dir =
                std::env::temp_dir().join(format!("toolc-builtin-{name}-{}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(dir.join("ws/sub")).unwrap();
            fs::create_dir_all(dir.join("outside")).unwrap();
            fs::write(dir.join("ws/sub/a.txt"), "a").unwrap();
            fs::write(dir.join("outside/secret"), "s").unwrap();
            Scratch(dir)
        }

        fn workspace(&self) -> Workspace {
            Workspace::new(&self.0.join("ws")).unwrap()
        }

        fn root(&self) -> PathBuf {
            fs::canonicalize(self.0.join("ws")).unwrap()
        }

        fn outside(&self) -> PathBuf {
            fs::canonicalize(self.0.join("outside")).unwrap()
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    /// A swapper that keeps replacing `ws/d` (a directory holding `f`)
    /// with a link to the outside directory, and back, while `call` runs
    /// 200 times; returns what each call returned.
    #[cfg(target_os = "linux")]
    fn race(scratch: &Scratch, call: impl Fn(&Workspace) -> ToolResult) -> Vec<ToolResult> {
        use std::sync::Arc;
        use std::sync::atomic::AtomicBool;
        let root = scratch.root();
        let outside = scratch.outside();
        fs::write(outside.join("f"), "outside").unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let swapper = {
            let stop = Arc::clone(&stop);
            let (dir, staged, link) = (root.join("d"), root.join("d.real"), root.join("d.link"));
            fs::create_dir_all(&staged).unwrap();
            fs::write(staged.join("f"), "inside").unwrap();
            std::os::unix::fs::symlink(&outside, &link).unwrap();
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    // rename(2) swaps atomically: `d` is always one of them.
                    let _ = fs::rename(&staged, &dir);
                    let _ = fs::rename(&dir, &staged);
                    let _ = fs::rename(&link, &dir);
                    let _ = fs::rename(&dir, &link);
                }
            })
        };
        let workspace = scratch.workspace();
        let results = (0..200).map(|_| call(&workspace)).collect();
        stop.store(true, Ordering::Relaxed);
        swapper.join().unwrap();
        results
    }

    #[test]
    fn a_file_path_with_a_trailing_slash_is_an_error() {
        let scratch = Scratch::new("trailing-slash");
        let ws = scratch.workspace();
        for (builtin, arguments) in [
            (Builtin::ReadFile, json!({"path": "sub/a.txt/"})),
            (
                Builtin::WriteFile,
                json!({"path": "sub/b.txt/", "content": "b"}),
            ),
            (Builtin::WriteFile, json!({"path": "sub/.", "content": "b"})),
        ] {
            let Action::Done(result) = run(&ws, builtin, &arguments) else {
                panic!("not a shell");
            };
            let error = result.error.expect("an error");
            assert_eq!(error.code, ErrorCode::ExecutionError, "{arguments}");
            assert!(
                error.message.contains("ends with a slash"),
                "{}",
                error.message
            );
        }
        assert!(!scratch.root().join("sub/b.txt").exists());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_directory_swapped_for_a_link_never_lets_read_file_out() {
        let scratch = Scratch::new("race-read");
        let results = race(&scratch, |ws| {
            match run(ws, Builtin::ReadFile, &json!({"path": "d/f"})) {
                Action::Done(result) => result,
                Action::Shell { .. } => panic!("read_file is not a shell"),
            }
        });
        let escaped = results
            .iter()
            .filter(|r| r.output.as_ref().is_some_and(|o| o == "outside"))
            .count();
        let inside = results
            .iter()
            .filter(|r| r.output.as_ref().is_some_and(|o| o == "inside"))
            .count();
        assert_eq!(escaped, 0, "{inside} inside, {escaped} outside of 200");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_directory_swapped_for_a_link_never_lets_list_files_out() {
        let scratch = Scratch::new("race-list");
        let results = race(&scratch, |ws| {
            match run(
                ws,
                Builtin::ListFiles,
                &json!({"path": "d", "recursive": true}),
            ) {
                Action::Done(result) => result,
                Action::Shell { .. } => panic!("list_files is not a shell"),
            }
        });
        // `secret` is only outside.
        let escaped = results
            .iter()
            .filter(|r| {
                r.output
                    .as_ref()
                    .is_some_and(|o| o.to_string().contains("secret"))
            })
            .count();
        assert_eq!(escaped, 0, "{escaped} of 200 listings showed the outside");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_directory_swapped_for_a_link_never_lets_write_file_out() {
        let scratch = Scratch::new("race-write");
        race(&scratch, |ws| {
            match run(
                ws,
                Builtin::WriteFile,
                &json!({"path": "d/planted", "content": "x"}),
            ) {
                Action::Done(result) => result,
                Action::Shell { .. } => panic!("write_file is not a shell"),
            }
        });
        assert!(
            !scratch.outside().join("planted").exists(),
            "write_file wrote outside the workspace"
        );
    }

    fn denied(ws: &Workspace, path: &str) {
        match ws.resolve(path) {
            Err(denial) => assert_eq!(denial.rule, DenialRule::Workspace, "{denial:?}"),
            Ok(resolved) => panic!("{path:?} resolved to {}", resolved.display()),
        }
    }

    #[test]
    fn relative_paths_resolve_under_the_root() {
        let scratch = Scratch::new("relative");
        let ws = scratch.workspace();
        let root = scratch.root();
        assert_eq!(ws.resolve("sub/a.txt").unwrap(), root.join("sub/a.txt"));
        assert_eq!(ws.resolve("./sub/./a.txt").unwrap(), root.join("sub/a.txt"));
        assert_eq!(ws.resolve("").unwrap(), root);
        assert_eq!(ws.resolve(".").unwrap(), root);
        assert_eq!(
            ws.resolve("sub/../new/file").unwrap(),
            root.join("new/file")
        );
    }

    #[test]
    fn dot_dot_escapes_are_refused() {
        let scratch = Scratch::new("dotdot");
        let ws = scratch.workspace();
        denied(&ws, "..");
        denied(&ws, "../outside/secret");
        denied(&ws, "a/../../x");
        denied(&ws, "sub/../../outside");
    }

    #[test]
    fn absolute_paths_inside_resolve_and_outside_are_refused() {
        let scratch = Scratch::new("absolute");
        let ws = scratch.workspace();
        let inside = scratch.root().join("sub/a.txt");
        assert_eq!(ws.resolve(inside.to_str().unwrap()).unwrap(), inside);
        denied(&ws, scratch.outside().join("secret").to_str().unwrap());
        denied(&ws, "/etc/passwd");
        denied(&ws, "/");
    }

    #[cfg(unix)]
    #[test]
    fn links_to_outside_are_refused_wherever_they_are() {
        use std::os::unix::fs::symlink;
        let scratch = Scratch::new("links-out");
        let ws = scratch.workspace();
        let root = scratch.root();
        symlink(scratch.outside().join("secret"), root.join("secret-link")).unwrap();
        symlink(scratch.outside(), root.join("out-dir")).unwrap();
        symlink("../../outside", root.join("sub/relative-out")).unwrap();
        symlink(scratch.outside().join("missing"), root.join("dangling")).unwrap();
        denied(&ws, "secret-link");
        denied(&ws, "out-dir/secret");
        denied(&ws, "out-dir/new-file");
        denied(&ws, "sub/relative-out/secret");
        denied(&ws, "dangling");
        denied(&ws, "dangling/deeper/new");
        // `..` climbing back from a missing directory still meets the link.
        denied(&ws, "missing/../out-dir/x");
    }

    #[cfg(unix)]
    #[test]
    fn links_inside_pointing_inside_are_followed() {
        use std::os::unix::fs::symlink;
        let scratch = Scratch::new("links-in");
        let ws = scratch.workspace();
        let root = scratch.root();
        symlink("sub/a.txt", root.join("a-link")).unwrap();
        symlink(root.join("sub"), root.join("sub-link")).unwrap();
        symlink("sub/not-yet", root.join("dangling-in")).unwrap();
        assert_eq!(ws.resolve("a-link").unwrap(), root.join("sub/a.txt"));
        assert_eq!(
            ws.resolve("sub-link/a.txt").unwrap(),
            root.join("sub/a.txt")
        );
        assert_eq!(ws.resolve("dangling-in").unwrap(), root.join("sub/not-yet"));
    }

    #[cfg(unix)]
    #[test]
    fn link_loops_are_refused() {
        use std::os::unix::fs::symlink;
        let scratch = Scratch::new("loop");
        let ws = scratch.workspace();
        let root = scratch.root();
        symlink("loop-b", root.join("loop-a")).unwrap();
        symlink("loop-a", root.join("loop-b")).unwrap();
        denied(&ws, "loop-a");
    }

    #[test]
    fn a_file_is_not_a_workspace() {
        let scratch = Scratch::new("not-dir");
        assert!(Workspace::new(&scratch.0.join("ws/sub/a.txt")).is_err());
        assert!(Workspace::new(&scratch.0.join("nowhere")).is_err());
    }

    #[test]
    fn toolset_declares_every_name_with_a_closed_schema() {
        let set = toolset();
        let names: Vec<&str> = set.tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, NAMES);
        for name in NAMES {
            assert_eq!(Builtin::from_name(name).map(Builtin::name), Some(name));
        }
        for tool in &set.tools {
            let schema = tool.parameters.as_ref().unwrap();
            assert_eq!(schema["type"], "object");
            assert_eq!(schema["additionalProperties"], false);
            for required in schema["required"].as_array().unwrap() {
                assert!(
                    schema["properties"]
                        .get(required.as_str().unwrap())
                        .is_some()
                );
            }
            assert!(tool.description.as_ref().is_some_and(|d| !d.is_empty()));
            assert_eq!(tool.permissions.actions.as_ref().map(Vec::len), Some(1));
        }
    }
}
