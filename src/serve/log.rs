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
    // One line, whatever a client named itself or a tool printed: nothing
    // in it acts on the terminal or starts a line of its own.
    let message = message.to_string();
    let line = format!(
        "toolc serve: {}: {}\n",
        level.label(),
        crate::terminal::one_line(&message)
    );
    // Nothing is left to tell a failure to if stderr is gone.
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

/// Writes `message` as `toolc serve: MESSAGE`, whatever the level: what a
/// user or a supervisor waits for (the server is ready, and where).
pub(crate) fn notice(message: Arguments<'_>) {
    let line = format!(
        "toolc serve: {}\n",
        crate::terminal::one_line(&message.to_string())
    );
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

/// Sends the events of rmcp and the other libraries (which report through
/// `tracing`) to this log, one level quieter than they say: rmcp warns of
/// every error answer the server sends, which is the client's mistake
/// (an unknown tool, a stale cursor), not the server's; its errors (a
/// session that failed) are toolc's warnings. At `--log-level debug`
/// their debug events show too (trace events never do). Installed once per process; a second call changes
/// nothing.
pub(crate) fn capture_library_events() {
    let _ = tracing::subscriber::set_global_default(Libraries);
}

/// A `tracing` subscriber that writes each enabled event as one line.
struct Libraries;

impl Libraries {
    /// The level of `tracing` events kept at the current log level.
    fn threshold() -> tracing::Level {
        if enabled(Level::Debug) {
            tracing::Level::DEBUG
        } else if enabled(Level::Info) {
            tracing::Level::WARN
        } else {
            tracing::Level::ERROR
        }
    }
}

impl tracing::Subscriber for Libraries {
    fn enabled(&self, metadata: &tracing::Metadata<'_>) -> bool {
        // tracing's levels grow more verbose upwards: ERROR < ... < TRACE.
        metadata.is_event() && *metadata.level() <= Libraries::threshold()
    }

    fn new_span(&self, _span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        // Spans are not shown; they need an id all the same.
        tracing::span::Id::from_u64(1)
    }

    fn record(&self, _span: &tracing::span::Id, _values: &tracing::span::Record<'_>) {}

    fn record_follows_from(&self, _span: &tracing::span::Id, _follows: &tracing::span::Id) {}

    fn event(&self, event: &tracing::Event<'_>) {
        let metadata = event.metadata();
        let level = match *metadata.level() {
            tracing::Level::ERROR => Level::Warn,
            tracing::Level::WARN => Level::Info,
            _ => Level::Debug,
        };
        let mut text = Fields::default();
        event.record(&mut text);
        write(
            level,
            format_args!("{}: {}{}", metadata.target(), text.message, text.rest),
        );
    }

    fn enter(&self, _span: &tracing::span::Id) {}

    fn exit(&self, _span: &tracing::span::Id) {}
}

/// An event's message, then its other fields as ` name=value`.
#[derive(Default)]
struct Fields {
    message: String,
    rest: String,
}

impl tracing::field::Visit for Fields {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.message = format!("{value:?}");
        } else {
            self.rest.push_str(&format!(" {}={value:?}", field.name()));
        }
    }

    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        if field.name() == "message" {
            self.message = value.to_string();
        } else {
            self.rest.push_str(&format!(" {}={value}", field.name()));
        }
    }
}
