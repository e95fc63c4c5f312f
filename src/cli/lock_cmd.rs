//! `toolc lock`, and the `--locked` flags of lint and serve: where the
//! lock file is, and reading it (the file itself is [`crate::lock`]'s).
//!
//! The lock file is the one `--lock-file` names; otherwise `toolc.lock`
//! in the current directory, else the one beside the configuration that
//! applies to the current directory (`--config`, or the nearest
//! toolc.toml). `toolc lock` writes to that file, and to `./toolc.lock`
//! when there is none. Either way a file's key is its path relative to
//! the lock file's directory, so the lock reads the same from any
//! directory ([`crate::lock::Keys`]). One `toolc lock` at a time reads
//! and replaces a lock file ([`crate::lock::exclusive`]).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::live_args::LiveArgs;
use super::run_cmd::parse_seconds;
use super::{CliError, Outcome, ReadArgs, write_atomically};
use crate::lint::Linter;
use crate::lock::{self, Drift, Keys, Lock, LockError, Locked};
use crate::project::{HeldDocument, Project, display_path};

#[derive(Debug, clap::Args)]
pub(super) struct LockArgs {
    /// Files and directories whose tools to pin.
    ///
    /// Default: ., unless a live server is named. Read as `toolc lint` reads them.
    paths: Vec<PathBuf>,
    /// Replace what the lock file pins for the sources read.
    ///
    /// With what they define now. Without it, an existing lock file that would change is left alone (exit 1) and
    /// the changes are listed: review them with `toolc lint --locked` first. Sources
    /// pinned in the file that this run does not read (another directory, a live
    /// server not named) stay pinned.
    #[arg(long)]
    update: bool,
    /// The lock file to write.
    ///
    /// Default: the toolc.lock `lint --locked` would read, else ./toolc.lock.
    #[arg(long, value_name = "FILE")]
    lock_file: Option<PathBuf>,
    /// The seconds to wait for another `toolc lock` of the file.
    ///
    /// One writes it at a time, so that none loses the other's pins; past it nothing is
    /// written (exit 2).
    #[arg(long, value_name = "SECONDS", default_value = "30", value_parser = parse_seconds)]
    wait: Duration,
    #[command(flatten)]
    read: ReadArgs,
    #[command(flatten)]
    live: LiveArgs,
}

/// `--locked` and `--lock-file`, for lint and serve.
#[derive(Debug, clap::Args)]
#[command(next_help_heading = super::heading::LOCK)]
pub(super) struct LockedArgs {
    /// Check every tool against the definitions toolc.lock pins.
    ///
    /// `toolc lock` writes it. lint: a tool added, removed or changed is a finding of
    /// tool-drift (TC957), an error (exit 1), with what changed; a live server is
    /// listed twice in its session, and a tool that differs between the listings is one
    /// too. serve: such a tool is not served (withheld, not served with its old
    /// definition, as its manifest may run it differently now) and stderr says what
    /// changed; under --watch a tool that changes is withdrawn so (clients are told the
    /// list changed, the new definition is never listed); with --nats-url the fleet's
    /// tools (pinned by `toolc lock --nats-url`) are checked so at every poll; the lock
    /// is read once, at start. The file is --lock-file, else ./toolc.lock, else the
    /// toolc.lock beside the toolc.toml that applies here; none is an error (exit 2).
    /// Its paths are relative to its own directory, so it is checked alike from any
    /// directory.
    #[arg(long)]
    pub(super) locked: bool,
    /// The lock file --locked reads.
    #[arg(long, value_name = "FILE", requires = "locked")]
    pub(super) lock_file: Option<PathBuf>,
}

/// Where the lock file is: `named`, else `./toolc.lock`, else the one
/// beside the configuration of the current directory. `Err` holds the
/// places looked at, for the message.
fn find(named: Option<&Path>, linter: &Linter) -> Result<Result<PathBuf, Vec<PathBuf>>, CliError> {
    if let Some(named) = named {
        return Ok(if named.is_file() {
            Ok(named.to_path_buf())
        } else {
            Err(vec![named.to_path_buf()])
        });
    }
    let here = PathBuf::from(lock::FILE_NAME);
    if here.is_file() {
        return Ok(Ok(here));
    }
    let mut looked = vec![here];
    if let Some(dir) = linter.configuration().config_dir(Path::new("."))? {
        let beside = dir.join(lock::FILE_NAME);
        if beside.is_file() {
            return Ok(Ok(beside));
        }
        looked.push(beside);
    }
    Ok(Err(looked))
}

impl LockedArgs {
    /// The lock file `--locked` reads, read; `None` without `--locked`.
    pub(super) fn read(&self, linter: &Linter) -> Result<Option<(PathBuf, Lock)>, CliError> {
        if !self.locked {
            return Ok(None);
        }
        match find(self.lock_file.as_deref(), linter)? {
            Ok(path) => {
                let lock = Lock::read(&path)?;
                Ok(Some((path, lock)))
            }
            Err(looked) => {
                let shown: Vec<String> = looked.iter().map(|p| crate::terminal::path(p)).collect();
                Err(CliError::LockMissing(shown.join(" or ")))
            }
        }
    }
}

/// How the lock file at `path` names the sources this run shows: paths
/// relative to the lock file's directory ([`Keys`]).
pub(super) fn keys(path: &Path) -> Result<Keys, CliError> {
    let cwd = std::env::current_dir().map_err(LockError::CurrentDir)?;
    Ok(Keys::new(&display_path(path), &display_path(&cwd)))
}

/// What `--locked` checks a lint run against: the lock, the run's paths,
/// and the definitions of each live server's second listing.
pub(super) fn locked(
    path: &Path,
    lock: Lock,
    paths: &[PathBuf],
    second: &[HeldDocument],
    linter: &Linter,
) -> Result<Arc<Locked>, CliError> {
    let mut relisted = BTreeMap::new();
    for document in second {
        let project = document.load_configured(&linter.load_options(), linter.configuration())?;
        let definitions = project
            .manifests
            .first()
            .map(|m| lock::definitions(&m.toolset))
            .unwrap_or_default();
        relisted.insert(document.path.clone(), definitions);
    }
    Ok(Arc::new(Locked {
        lock,
        shown: display_path(path),
        relisted,
        roots: paths.iter().map(|p| display_path(p)).collect(),
        keys: keys(path)?,
    }))
}

pub(super) fn run(
    args: &LockArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Outcome, CliError> {
    let paths = if args.paths.is_empty() && !args.live.any() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    if let Some(missing) = paths.iter().find(|p| !p.exists()) {
        return Err(CliError::PathNotFound(missing.clone()));
    }
    let linter = Linter::new(args.read.options())?;
    let held = args.live.fetch(&paths)?;
    let mut project = if paths.is_empty() {
        Project::default()
    } else {
        Project::load_configured(&paths, &linter.load_options(), linter.configuration())?
    };
    for document in &held {
        let loaded = document.load_configured(&linter.load_options(), linter.configuration())?;
        project.manifests.extend(loaded.manifests);
        project.failures.extend(loaded.failures);
    }
    let target = match &args.lock_file {
        Some(path) => path.clone(),
        None => find(None, &linter)?.unwrap_or_else(|_| PathBuf::from(lock::FILE_NAME)),
    };
    let shown = display_path(&target);
    let keys = keys(&target)?;
    let read: Vec<(String, Vec<(String, serde_json::Value)>)> = project
        .manifests
        .iter()
        .map(|m| (keys.key(m.path()), lock::definitions(&m.toolset)))
        .collect();
    let roots = Locked {
        roots: paths.iter().map(|p| display_path(p)).collect(),
        keys,
        ..Locked::default()
    };
    // From reading the file to replacing it, no other `toolc lock` does
    // either: each merges into what the one before wrote. Held to the end.
    let _exclusive = lock::exclusive(&target, args.wait)?;
    let existing = match std::fs::metadata(&target) {
        Err(_) => None,
        // Not even --update replaces a device, a pipe or a directory (one a
        // symbolic link leads to, too): reading it would never end, and the
        // rename would put the lock where the device was.
        Ok(metadata) if !metadata.is_file() => {
            return Err(LockError::Unwritable {
                path: target.clone(),
                reason: lock::Unwritable::NotAFile,
            }
            .into());
        }
        Ok(_) => match Lock::read(&target) {
            Ok(existing) => Some(existing),
            // A broken file is what --update replaces, but not a file a
            // symbolic link leads to (a repository can ship toolc.lock ->
            // ~/.ssh/authorized_keys): that one may be anything.
            Err(error) if args.update => match std::fs::canonicalize(&target) {
                Ok(to) if is_link(&target) => {
                    return Err(LockError::Unwritable {
                        path: target.clone(),
                        reason: lock::Unwritable::LinkedToOther {
                            to,
                            why: crate::terminal::one_line(&why(&error)).into_owned(),
                        },
                    }
                    .into());
                }
                _ => None,
            },
            Err(error) => return Err(error.into()),
        },
    };
    // A pinned source the run met and could not read (it no longer loads,
    // no longer reads as a manifest, or the walk could not reach it) keeps
    // the pins it had: what it defines now is unknown, and dropping them
    // would pass whatever it defines once it loads again off as newly
    // added. One the configuration excludes, or that is gone, is unpinned.
    let pinned = |key: &String| {
        existing
            .as_ref()
            .is_some_and(|lock| lock.sources.contains_key(key))
    };
    // Each: its path, why it was not read, and whether it failed to load
    // (a file toolc took for a manifest, said even when nothing pins it).
    let met: Vec<(&str, &str, bool)> = project
        .failures
        .iter()
        .map(|f| (f.path.as_str(), f.problem.message.as_str(), true))
        .chain(
            project
                .skipped
                .iter()
                .filter(|s| !s.excluded)
                .map(|s| (s.path.as_str(), s.why.as_str(), false)),
        )
        .chain(
            project
                .walk_problems
                .iter()
                .map(|p| (p.path.as_str(), p.message.as_str(), false)),
        )
        .collect();
    let mut unread = Vec::new();
    for (path, why, failed) in met {
        let key = roots.keys.key(path);
        if pinned(&key) {
            writeln!(
                err,
                "warning: {}: pinned, but not read now ({}): its pins are kept as they were; \
                 delete it, or its entry in {shown}, to unpin it",
                crate::terminal::one_line(path),
                crate::terminal::one_line(why)
            )?;
            unread.push(key);
        } else if failed {
            writeln!(
                err,
                "warning: {}: not pinned: {}",
                crate::terminal::one_line(path),
                crate::terminal::one_line(why)
            )?;
        }
    }
    let read_paths: Vec<&str> = read.iter().map(|(path, _)| path.as_str()).collect();
    // Kept: what this run neither read nor was asked to read, and what it
    // could not read.
    let kept = existing.iter().flat_map(|lock| {
        lock.sources
            .iter()
            .filter(|(source, _)| {
                !read_paths.contains(&source.as_str())
                    && (!roots.covers(source) || unread.contains(source))
            })
            .map(|(source, pins)| {
                let definitions = pins.iter().map(|(n, d)| (n.clone(), d.clone())).collect();
                (source.clone(), definitions)
            })
    });
    let new = Lock::of(kept.chain(read.iter().cloned()));
    let text = new.to_text().map_err(|reason| LockError::Unwritable {
        path: target.clone(),
        reason,
    })?;
    let summary = format!("{} tool(s) of {} source(s)", new.tools(), new.sources.len());
    // Pins that were not checked are no lock up to date: without --update
    // that is a refusal, as a change is.
    if !unread.is_empty() && !args.update {
        return refuse(
            err,
            &format!(
                "{shown} pins source(s) this run could not read, so their tools could not be \
                 checked"
            ),
            &unread,
            "make them load again, or delete them, then run `toolc lock` again",
        );
    }
    // Only a file read as a lock can hold the same text: a broken one
    // replaced by --update is not read again (it may be of any size).
    if existing.is_some() && std::fs::read_to_string(&target).is_ok_and(|old| old == text) {
        if !unread.is_empty() {
            writeln!(
                out,
                "{shown} is unchanged: {summary}, the pins of {} source(s) not read kept",
                unread.len()
            )?;
            return Ok(Outcome::Clean);
        }
        writeln!(out, "{shown} is up to date: {summary}")?;
        return Ok(Outcome::Clean);
    }
    let changes = existing
        .as_ref()
        .map(|old| changes(old, &new))
        .unwrap_or_default();
    if !changes.is_empty() && !args.update {
        return refuse(
            err,
            &format!("{shown} pins other tools than the sources define now"),
            &changes,
            "review them (`toolc lint --locked` shows each change), then pin them with `toolc lock --update`",
        );
    }
    write_atomically(&target, text.as_bytes())?;
    for change in &changes {
        writeln!(err, "{}", crate::terminal::one_line(change))?;
    }
    writeln!(out, "wrote {shown}: {summary}")?;
    Ok(Outcome::Clean)
}

/// Writes nothing: says why (`what`, then each of `items` on a line of
/// its own) and what to do.
fn refuse(
    err: &mut dyn Write,
    what: &str,
    items: &[String],
    advice: &str,
) -> Result<Outcome, CliError> {
    writeln!(err, "error: {what}; nothing was written:")?;
    for item in items {
        writeln!(err, "  {}", crate::terminal::one_line(item))?;
    }
    writeln!(err, "{advice}")?;
    Ok(Outcome::Refused)
}

/// Why a file is not a lock, without the advice to replace it.
fn why(error: &LockError) -> String {
    match error {
        LockError::NotJson { message, .. } => format!("not JSON: {message}"),
        LockError::Invalid { message, .. } => message.clone(),
        LockError::Read { source, .. } => source.to_string(),
        other => other.to_string(),
    }
}

/// Whether `path` is a symbolic link.
fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// What differs between two locks, one line each.
fn changes(old: &Lock, new: &Lock) -> Vec<String> {
    let none = lock::Pins::new();
    let sources: std::collections::BTreeSet<&String> =
        old.sources.keys().chain(new.sources.keys()).collect();
    let mut lines = Vec::new();
    for source in sources {
        let before = old.sources.get(source).unwrap_or(&none);
        let now: Vec<(String, serde_json::Value)> = new
            .sources
            .get(source)
            .unwrap_or(&none)
            .iter()
            .map(|(n, d)| (n.clone(), d.clone()))
            .collect();
        for drift in lock::compare(before, &now) {
            lines.push(match drift {
                Drift::Added { tool } => format!("{source}: tool {tool:?} added"),
                Drift::Removed { tool } => format!("{source}: tool {tool:?} removed"),
                Drift::Changed { tool, changes } => {
                    let described: Vec<String> =
                        changes.iter().map(lock::Change::describe).collect();
                    format!("{source}: tool {tool:?} changed: {}", described.join("; "))
                }
            });
        }
    }
    lines
}
