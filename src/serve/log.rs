//! The server's log: one line per event on stderr (never stdout, which
//! carries the stdio transport's protocol), filtered by `--log-level`.

use std::fmt::Arguments;
use std::io::Write;
use std::sync::atomic::{AtomicU8, Ordering};

/// How much the server tells, least first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub(crate) enum Level {
    Error = 0,
    Warn = 1,
    Info = 2,
    Debug = 3,
}

impl Level {
    fn label(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warn => "warning",
            Level::Info => "info",
            Level::Debug => "debug",
        }
    }
}

/// The most detailed level written; `warn` until [`set_level`].
static LEVEL: AtomicU8 = AtomicU8::new(Level::Warn as u8);

pub(crate) fn set_level(level: Level) {
    LEVEL.store(level as u8, Ordering::Relaxed);
}

/// Whether messages at `level` are written.
pub(crate) fn enabled(level: Level) -> bool {
    level as u8 <= LEVEL.load(Ordering::Relaxed)
}

/// Writes `message` at `level`, as `toolc serve: LEVEL: MESSAGE`.
pub(crate) fn write(level: Level, message: Arguments<'_>) {
    if !enabled(level) {
        return;
    }
    let line = format!("toolc serve: {}: {message}\n", level.label());
    // Nothing is left to tell a failure to if stderr is gone.
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

pub(crate) fn error(message: Arguments<'_>) {
    write(Level::Error, message);
}

pub(crate) fn warn(message: Arguments<'_>) {
    write(Level::Warn, message);
}

pub(crate) fn info(message: Arguments<'_>) {
    write(Level::Info, message);
}

pub(crate) fn debug(message: Arguments<'_>) {
    write(Level::Debug, message);
}
