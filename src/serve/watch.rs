//! `toolc serve --watch`: the manifests read again when they change, and
//! clients told that the tool list changed.
//!
//! What is watched is what a load read (its [`ReadLog`]: the manifests and
//! the package code they named, Python and TypeScript) plus every file that
//! could join the next load: the JSON, Python, TypeScript and TOML files
//! under the directories given, walked as the front end walks them
//! (`.gitignore` applies; VCS, build, dependency and virtual-environment
//! directories are left out; toolc.toml's excludes are not read, so more
//! may be watched than is loaded). Each poll ([`POLL`]) takes a
//! [`Fingerprint`] of these files: path, size, modification time and a
//! SHA-256 digest of the content (hashed again only when the file's stat
//! changed, or changed lately). The
//! digest catches an edit that keeps the size and lands within the
//! clock's resolution; a file replaced by a rename (as editors save) is a
//! new size, time or digest like any other edit, and a file that appears
//! or goes away changes the set of paths. Polling rather than inotify: it
//! needs no watch per directory to add and remove as directories come and
//! go, and what it reads is small (manifests and their code).
//!
//! A change is loaded once the fingerprint stays the same for two polls
//! in a row, so one save in several writes is one reload ([`Watch::poll`]).
//! A reload that loads replaces the served tools ([`Handler::replace`]:
//! calls in flight finish on the old runner) and, when the listed tools
//! differ, tells every client: legacy sessions by
//! `notifications/tools/list_changed` on their peer, 2026-07-28 clients on
//! their `subscriptions/listen` stream ([`Changes`]). A reload that fails
//! leaves the previous tools served and logs why.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use rmcp::ErrorData;
use rmcp::model::SubscriptionFilter;
use rmcp::service::SubscriptionContext;
use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;

use super::{Handler, Served, log};
use crate::project::ReadLog;

/// How often the watched files are looked at.
pub(crate) const POLL: Duration = Duration::from_millis(400);

/// The longest one legacy session's `list_changed` may take to send.
const NOTIFY_FOR: Duration = Duration::from_secs(5);

/// The files a walk of a directory given watches, by extension: manifests
/// (JSON), package code (Python, TypeScript) and configuration (TOML).
const WATCHED_EXTENSIONS: &[&str] = &["json", "py", "ts", "mts", "cts", "toml"];

/// Loads the served tools again, counting what it reads in the log; the
/// error is the text to log (the lint report in concise form).
pub(crate) type Load = dyn Fn(&Arc<ReadLog>) -> Result<Served, String> + Send + Sync;

/// One file as a poll saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seen {
    /// Not there, or not readable as a file.
    Missing,
    File {
        size: u64,
        modified: Option<SystemTime>,
        digest: [u8; 32],
    },
}

impl Seen {
    /// The file at `path` now; `None` when it is one of the `ignored`
    /// files (by device and inode, however its path is spelled).
    fn of(path: &Path, ignored: &[FileId], digests: &mut Digests) -> Option<Seen> {
        let Ok(mut file) = open_without_waiting(path) else {
            return Some(Seen::Missing);
        };
        let Ok(metadata) = file.metadata() else {
            return Some(Seen::Missing);
        };
        if file_id(path, &metadata).is_some_and(|id| ignored.contains(&id)) {
            return None;
        }
        if !metadata.is_file() {
            return Some(Seen::Missing);
        }
        let stamp = Stamp::of(&metadata);
        if let Some(digest) = stamp.as_ref().and_then(|s| digests.reusable(path, s)) {
            return Some(Seen::File {
                size: metadata.len(),
                modified: metadata.modified().ok(),
                digest,
            });
        }
        let mut hasher = Sha256::new();
        let mut buffer = [0u8; 16 * 1024];
        loop {
            match file.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => hasher.update(&buffer[..n]),
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return Some(Seen::Missing),
            }
        }
        let digest: [u8; 32] = hasher.finalize().into();
        if let Some(stamp) = stamp {
            digests.0.insert(path.to_path_buf(), (stamp, digest));
        }
        Some(Seen::File {
            size: metadata.len(),
            modified: metadata.modified().ok(),
            digest,
        })
    }
}

/// A file's identity and times, as `stat` gives them.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    size: u64,
    modified: (i64, i64),
    changed: (i64, i64),
}

impl Stamp {
    #[cfg(unix)]
    fn of(metadata: &std::fs::Metadata) -> Option<Stamp> {
        use std::os::unix::fs::MetadataExt;
        Some(Stamp {
            dev: metadata.dev(),
            ino: metadata.ino(),
            size: metadata.len(),
            modified: (metadata.mtime(), metadata.mtime_nsec()),
            changed: (metadata.ctime(), metadata.ctime_nsec()),
        })
    }

    /// No status-change time outside Unix: every poll hashes the file.
    #[cfg(not(unix))]
    fn of(_metadata: &std::fs::Metadata) -> Option<Stamp> {
        None
    }
}

/// What tells a file from another however its path is spelled: device and
/// inode on Unix, the canonical path elsewhere.
#[cfg(unix)]
type FileId = (u64, u64);
#[cfg(not(unix))]
type FileId = PathBuf;

#[cfg(unix)]
fn file_id(_path: &Path, metadata: &std::fs::Metadata) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    Some((metadata.dev(), metadata.ino()))
}

#[cfg(not(unix))]
fn file_id(path: &Path, _metadata: &std::fs::Metadata) -> Option<FileId> {
    std::fs::canonicalize(path).ok()
}

/// Opens `path` for reading without waiting: on Unix, opening a FIFO for
/// reading otherwise waits for a writer, and the poll (and with it
/// --watch) would hang for good.
#[cfg(unix)]
fn open_without_waiting(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_without_waiting(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::File::open(path)
}

/// How recent a file's status change must be for its digest to be taken
/// again even though its stamp is the same: more than the coarsest
/// timestamp granularity of a file system.
const RECENT: Duration = Duration::from_secs(2);

/// The digests of the last poll, by path, with the stamp they were taken
/// at. Hashing every watched file every poll cost most of a core for a few
/// thousand files; a file whose stamp is unchanged and whose last status
/// change is older than [`RECENT`] cannot have been written since (a
/// write, or setting its times back, makes its ctime now), so its digest
/// is reused.
#[derive(Debug, Default)]
struct Digests(BTreeMap<PathBuf, (Stamp, [u8; 32])>);

impl Digests {
    fn reusable(&self, path: &Path, stamp: &Stamp) -> Option<[u8; 32]> {
        let (known, digest) = self.0.get(path)?;
        if known != stamp {
            return None;
        }
        let changed = std::time::UNIX_EPOCH.checked_add(Duration::new(
            u64::try_from(stamp.changed.0).ok()?,
            u32::try_from(stamp.changed.1).ok()?,
        ))?;
        let age = SystemTime::now().duration_since(changed).ok()?;
        (age > RECENT).then_some(*digest)
    }
}

/// The watched files as one poll saw them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Fingerprint(BTreeMap<PathBuf, Seen>);

impl Fingerprint {
    /// The paths whose state differs between `self` and `other` (added,
    /// removed or changed), for the log.
    fn changed<'a>(&'a self, other: &'a Fingerprint) -> Vec<&'a Path> {
        let paths: BTreeSet<&PathBuf> = self.0.keys().chain(other.0.keys()).collect();
        paths
            .into_iter()
            .filter(|p| self.0.get(*p) != other.0.get(*p))
            .map(PathBuf::as_path)
            .collect()
    }
}

/// The paths given and what the last load read: what to look at.
#[derive(Debug)]
struct Watched {
    roots: Vec<PathBuf>,
    read: BTreeSet<PathBuf>,
    /// Files the server writes itself (the audit log): never a change.
    ignored: Vec<PathBuf>,
    /// The digests of the last fingerprint.
    digests: std::sync::Mutex<Digests>,
}

impl Watched {
    fn fingerprint(&self) -> Fingerprint {
        let ignored: Vec<FileId> = self
            .ignored
            .iter()
            .filter_map(|p| file_id(p, &std::fs::metadata(p).ok()?))
            .collect();
        let mut paths = self.read.clone();
        for root in &self.roots {
            if root.is_dir() {
                walk(root, &mut paths);
            } else {
                paths.insert(root.clone());
            }
        }
        let mut digests = self
            .digests
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut fresh = Digests::default();
        let seen = paths
            .into_iter()
            .filter_map(|path| {
                let seen = Seen::of(&path, &ignored, &mut digests)?;
                if let Some(entry) = digests.0.remove(&path) {
                    fresh.0.insert(path.clone(), entry);
                }
                Some((path, seen))
            })
            .collect();
        // Only the paths of this poll are kept: files gone are forgotten.
        *digests = fresh;
        Fingerprint(seen)
    }
}

/// Adds the watched files under `root` to `paths`, walking as the front
/// end walks (see [`crate::project::DEFAULT_EXCLUDE`]).
fn walk(root: &Path, paths: &mut BTreeSet<PathBuf>) {
    let walker = crate::project::walk_builder(root)
        .filter_entry(|entry| {
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            entry.depth() == 0
                || !is_dir
                || !(entry.path().join("pyvenv.cfg").is_file()
                    || crate::project::DEFAULT_EXCLUDE
                        .contains(&entry.file_name().to_string_lossy().as_ref()))
        })
        .build();
    for entry in walker.flatten() {
        let is_file = entry.file_type().is_some_and(|t| !t.is_dir());
        let watched = entry
            .path()
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| WATCHED_EXTENSIONS.contains(&e));
        if is_file && watched {
            paths.insert(entry.into_path());
        }
    }
}

/// The watcher's state: what is watched, what the last load saw, and a
/// change seen once that waits for the next poll to settle.
#[derive(Debug)]
pub(crate) struct Watch {
    watched: Watched,
    loaded: Fingerprint,
    settling: Option<Fingerprint>,
}

impl Watch {
    /// Watches `roots` (the paths given to `toolc serve`, and the policy
    /// file), never the `ignored` files (what the server writes itself);
    /// nothing is loaded yet.
    pub(crate) fn new(roots: Vec<PathBuf>, ignored: Vec<PathBuf>) -> Watch {
        Watch {
            watched: Watched {
                roots,
                read: BTreeSet::new(),
                ignored,
                digests: Default::default(),
            },
            loaded: Fingerprint::default(),
            settling: None,
        }
    }

    /// The watched files now: take it before a load, and give it to
    /// [`Watch::loaded`] after.
    pub(crate) fn snapshot(&self) -> Fingerprint {
        self.watched.fingerprint()
    }

    /// A load (good or bad) that started when the files were `before` has
    /// read what `log` lists. A file edited while the load ran differs from
    /// `before`, so the next polls load again; a file the load read for the
    /// first time is taken as it is now.
    pub(crate) fn loaded(&mut self, before: Fingerprint, log: &ReadLog) {
        self.watched.read = log.reads().into_keys().collect();
        let mut now = self.watched.fingerprint();
        for (path, seen) in before.0 {
            if let Some(slot) = now.0.get_mut(&path) {
                *slot = seen;
            }
        }
        self.loaded = now;
        self.settling = None;
    }

    /// One poll: the fingerprint to load from when a change has settled
    /// (the same two polls in a row, and not what was loaded).
    pub(crate) fn poll(&mut self) -> Option<Fingerprint> {
        let now = self.watched.fingerprint();
        self.settle(now)
    }

    fn settle(&mut self, now: Fingerprint) -> Option<Fingerprint> {
        if now == self.loaded {
            self.settling = None;
            return None;
        }
        if self.settling.as_ref() == Some(&now) {
            self.settling = None;
            return Some(now);
        }
        self.settling = Some(now);
        None
    }

    /// The files that changed since the last load, for the log.
    fn describe(&self, now: &Fingerprint) -> String {
        let changed = self.loaded.changed(now);
        let mut shown: Vec<String> = changed
            .iter()
            .take(5)
            .map(|p| p.display().to_string())
            .collect();
        if changed.len() > shown.len() {
            shown.push(format!("and {} more", changed.len() - shown.len()));
        }
        shown.join(", ")
    }
}

/// The tool list's changes, for the `subscriptions/listen` streams of
/// 2026-07-28 clients: each change bumps a generation that every stream
/// waits on.
#[derive(Debug)]
pub(crate) struct Changes {
    generation: tokio::sync::watch::Sender<u64>,
}

impl Default for Changes {
    fn default() -> Self {
        Changes {
            generation: tokio::sync::watch::Sender::new(0),
        }
    }
}

impl Changes {
    /// Tells every open stream that the tool list changed.
    pub(crate) fn announce(&self) {
        self.generation.send_modify(|g| *g = g.wrapping_add(1));
    }

    /// What a `subscriptions/listen` request gets: the tool list's changes
    /// when the server watches, else nothing (the request is then not
    /// served).
    pub(crate) fn accepted(watching: bool) -> Option<SubscriptionFilter> {
        watching.then(|| SubscriptionFilter::builder().tools_list_changed().build())
    }

    /// Serves one stream until the client cancels it or the server stops
    /// (a graceful end: the SDK then sends the final result).
    pub(crate) async fn listen(
        &self,
        context: SubscriptionContext,
        stop: CancellationToken,
    ) -> Result<(), ErrorData> {
        let mut generation = self.generation.subscribe();
        generation.mark_unchanged();
        log::debug(format_args!("subscription {} opened", context.sink().id()));
        loop {
            tokio::select! {
                _ = context.cancelled() => break,
                _ = stop.cancelled() => break,
                changed = generation.changed() => {
                    if changed.is_err() {
                        break;
                    }
                    if let Err(error) = context.sink().notify_tool_list_changed().await {
                        log::debug(format_args!("subscription {}: {error}", context.sink().id()));
                        break;
                    }
                }
            }
        }
        log::debug(format_args!("subscription {} closed", context.sink().id()));
        Ok(())
    }
}

/// Polls until the server stops, loading the manifests again with `load`
/// when they change and telling the clients when the tool list did.
pub(crate) async fn run(handler: Handler, mut watch: Watch, load: Arc<Load>) {
    let stop = handler.stopping();
    let mut ticks = tokio::time::interval(POLL);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = ticks.tick() => {}
        }
        // Polls and loads read files: a blocking thread does them.
        let polled = tokio::task::spawn_blocking(move || {
            let due = watch.poll();
            let changed = due.as_ref().map(|now| watch.describe(now));
            (watch, due.zip(changed))
        })
        .await;
        let Ok((returned, due)) = polled else {
            log::error(format_args!(
                "--watch stopped: a poll of the manifests failed"
            ));
            return;
        };
        watch = returned;
        let Some((before, changed)) = due else {
            continue;
        };
        log::info(format_args!(
            "changed: {changed}; loading the manifests again"
        ));
        let load = Arc::clone(&load);
        let loaded = tokio::task::spawn_blocking(move || {
            let log = Arc::new(ReadLog::new());
            let outcome = load(&log);
            watch.loaded(before, &log);
            (watch, outcome)
        })
        .await;
        let Ok((returned, outcome)) = loaded else {
            log::error(format_args!(
                "--watch stopped: loading the manifests failed"
            ));
            return;
        };
        watch = returned;
        match outcome {
            Ok(served) => publish(&handler, served).await,
            Err(report) => log::error(format_args!(
                "the manifests were not reloaded; the previous tools stay served:\n{}",
                report.trim_end()
            )),
        }
    }
}

/// Serves `served` from now on and tells the clients when the listed tools
/// differ from what was served.
pub(super) async fn publish(handler: &Handler, served: Served) {
    let count = served.tools.len();
    let previous = handler.replace(served);
    let now = handler.served();
    if same_tools(&previous.tools, &now.tools) {
        log::info(format_args!(
            "reloaded {count} tool(s); the tool list is unchanged"
        ));
        return;
    }
    log::info(format_args!(
        "reloaded {count} tool(s); telling the clients the tool list changed"
    ));
    handler.changes().announce();
    // Each session at once, each for a bounded time: a client that does
    // not read holds up no other, and the next poll at most NOTIFY_FOR.
    let mut told = tokio::task::JoinSet::new();
    for peer in handler.peers() {
        told.spawn(async move {
            match tokio::time::timeout(NOTIFY_FOR, peer.notify_tool_list_changed()).await {
                Ok(Ok(())) => {}
                Ok(Err(error)) => {
                    log::debug(format_args!("a session missed list_changed: {error}"));
                }
                Err(_) => log::debug(format_args!(
                    "a session missed list_changed: not sent within {NOTIFY_FOR:?}"
                )),
            }
        });
    }
    while told.join_next().await.is_some() {}
}

/// Whether two tool lists read the same to a client.
fn same_tools(a: &[rmcp::model::Tool], b: &[rmcp::model::Tool]) -> bool {
    let json = |tools: &[rmcp::model::Tool]| serde_json::to_value(tools).ok();
    a.len() == b.len() && json(a).is_some() && json(a) == json(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Dir(PathBuf);

    impl Dir {
        fn new(name: &str) -> Dir {
            let path = std::env::temp_dir().join(format!(
                "toolc-watch-{name}-{}-{:?}",
                std::process::id(),
                std::thread::current().id()
            ));
            let _ = std::fs::remove_dir_all(&path);
            std::fs::create_dir_all(&path).unwrap();
            Dir(path)
        }

        fn write(&self, name: &str, text: &str) -> PathBuf {
            let path = self.0.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
            path
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn started(dir: &Dir) -> Watch {
        let mut watch = Watch::new(vec![dir.0.clone()], Vec::new());
        let before = watch.snapshot();
        watch.loaded(before, &ReadLog::new());
        watch
    }

    /// A change is due on the second poll that sees it, once.
    fn due_after_settling(watch: &mut Watch) -> bool {
        watch.poll().is_none() && watch.poll().is_some() && watch.poll().is_none()
    }

    #[test]
    fn an_edit_is_one_reload_once_settled() {
        let dir = Dir::new("edit");
        dir.write("tools.json", "{}");
        let mut watch = started(&dir);
        assert_eq!(watch.poll(), None);
        dir.write("tools.json", "{\"a\": 1}");
        assert!(due_after_settling(&mut watch));
    }

    #[test]
    fn a_change_that_keeps_changing_waits() {
        let dir = Dir::new("busy");
        dir.write("tools.json", "{}");
        let mut watch = started(&dir);
        for n in 0..4 {
            dir.write("tools.json", &format!("{{\"n\": {n}}}"));
            assert_eq!(watch.poll(), None, "write {n}");
        }
        assert!(watch.poll().is_some());
    }

    #[test]
    fn same_size_same_time_edits_are_seen_by_their_digest() {
        let dir = Dir::new("digest");
        let path = dir.write("tools.json", "{\"a\": 1}");
        let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
        let mut watch = started(&dir);
        dir.write("tools.json", "{\"a\": 2}");
        let file = std::fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(modified).unwrap();
        assert!(due_after_settling(&mut watch));
    }

    #[test]
    fn new_and_removed_files_count_and_others_do_not() {
        let dir = Dir::new("files");
        dir.write("a/tools.json", "{}");
        let mut watch = started(&dir);
        dir.write("b/main.py", "def f(): pass");
        assert!(due_after_settling(&mut watch));
        watch.loaded(watch.snapshot(), &ReadLog::new());
        dir.write("notes.txt", "not watched");
        dir.write("node_modules/x/index.ts", "left out");
        dir.write(".git/config.json", "left out");
        assert_eq!(watch.poll(), None);
        assert_eq!(watch.poll(), None);
        std::fs::remove_file(dir.0.join("b/main.py")).unwrap();
        assert!(due_after_settling(&mut watch));
    }

    #[test]
    fn the_servers_own_files_are_not_changes() {
        let dir = Dir::new("ignored");
        dir.write("tools.json", "{}");
        let audit = dir.write("audit.json", "");
        let mut watch = Watch::new(vec![dir.0.clone()], vec![audit.clone()]);
        watch.loaded(watch.snapshot(), &ReadLog::new());
        dir.write("audit.json", "{\"tool\": \"echo\"}\n");
        assert_eq!(watch.poll(), None);
        assert_eq!(watch.poll(), None);
        dir.write("tools.json", "{\"a\": 1}");
        assert!(due_after_settling(&mut watch));
    }

    #[test]
    fn a_rename_over_the_file_is_a_change() {
        let dir = Dir::new("rename");
        let path = dir.write("tools.json", "{\"a\": 1}");
        let mut watch = started(&dir);
        let saved = dir.write("tools.json.swp", "{\"a\": 22}");
        std::fs::rename(&saved, &path).unwrap();
        assert!(due_after_settling(&mut watch));
    }

    #[test]
    fn what_a_load_read_beside_a_named_manifest_is_watched() {
        let dir = Dir::new("named");
        let manifest = dir.write(
            "tool.json",
            r#"{"name": "greet", "description": "Greet.", "entrypoint": "main.py",
                "parameters": {"type": "object", "properties": {}}}"#,
        );
        let script = dir.write("main.py", "def run(params):\n    return 'hi'\n");
        let mut watch = Watch::new(vec![manifest.clone()], Vec::new());
        let before = watch.snapshot();
        assert_eq!(before.0.len(), 1, "only the manifest is named");
        let log = Arc::new(ReadLog::new());
        let options = crate::project::LoadOptions {
            read_log: Some(Arc::clone(&log)),
            ..Default::default()
        };
        let project = crate::project::Project::load(&[manifest], &options).unwrap();
        assert_eq!(project.manifests.len(), 1);
        watch.loaded(before, &log);
        assert!(watch.loaded.0.contains_key(&script), "{:?}", watch.loaded);
        dir.write("main.py", "def run(params):\n    return 'hello'\n");
        assert!(due_after_settling(&mut watch));
    }

    #[test]
    fn an_edit_during_a_load_is_loaded_again() {
        let dir = Dir::new("during");
        dir.write("tools.json", "{}");
        let mut watch = Watch::new(vec![dir.0.clone()], Vec::new());
        let before = watch.snapshot();
        dir.write("tools.json", "{\"late\": true}");
        watch.loaded(before, &ReadLog::new());
        assert!(due_after_settling(&mut watch));
    }

    #[test]
    fn tool_lists_compare_as_clients_read_them() {
        let tool = |name: &str| -> rmcp::model::Tool {
            serde_json::from_value(
                serde_json::json!({"name": name, "inputSchema": {"type": "object"}}),
            )
            .unwrap()
        };
        assert!(same_tools(&[tool("a")], &[tool("a")]));
        assert!(!same_tools(&[tool("a")], &[tool("a"), tool("b")]));
        assert!(!same_tools(&[tool("a")], &[tool("b")]));
    }
}
