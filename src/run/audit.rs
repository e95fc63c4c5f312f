//! The audit log: one JSON line per call, appended.
//!
//! ```json
//! {"time":"2026-11-22T10:04:05.120Z","tool":"echo","arguments_sha256":"9f2c…","decision":"allowed",
//!  "success":true,"code":null,"duration_ms":4,"exit_code":0}
//! ```
//!
//! The arguments are never written, only a SHA-256 digest of their
//! canonical JSON (object keys sorted) in which the values of
//! secret-looking keys (`password`, `token`, `api_key`, `secret`, ...) are
//! replaced by a fixed marker first: the digest identifies a call without
//! letting anyone test guesses of a secret against it.

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::time::SystemTime;

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::ToolResult;

/// What the runner decided about a call.
#[derive(Debug, Clone, Copy)]
pub(super) enum Decision {
    Allowed,
    Denied,
    Invalid,
    NotFound,
}

impl Decision {
    fn as_str(self) -> &'static str {
        match self {
            Decision::Allowed => "allowed",
            Decision::Denied => "denied",
            Decision::Invalid => "invalid",
            Decision::NotFound => "not_found",
        }
    }
}

/// Opens the log for appending, without waiting: a FIFO that nothing
/// reads would block the open until something did, before any tool ran.
/// Such a FIFO is refused; one with a reader (a log collector) is fine,
/// and writes to it wait as usual.
pub(super) fn open(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    open_without_waiting(path, &mut options)
}

/// Opens `path` as `options` say, without waiting for a reader: a FIFO
/// that nothing reads is refused (each write would wait for one) instead
/// of blocking the open. Writes to what was opened wait as usual.
#[cfg(unix)]
pub(crate) fn open_without_waiting(
    path: &Path,
    options: &mut std::fs::OpenOptions,
) -> std::io::Result<File> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::OpenOptionsExt;
    let file = options
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ENXIO) => std::io::Error::new(
                e.kind(),
                "it is a FIFO that nothing reads (each call would wait for a reader)",
            ),
            _ => e,
        })?;
    // SAFETY: fcntl on the descriptor just opened, owned by `file`.
    unsafe {
        let fd = file.as_raw_fd();
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(file)
}

#[cfg(not(unix))]
pub(crate) fn open_without_waiting(
    path: &Path,
    options: &mut std::fs::OpenOptions,
) -> std::io::Result<File> {
    options.open(path)
}

/// Something besides the file that takes every call's record (the NATS
/// worker publishes it): called with the record `--audit` writes, on the
/// thread that made the call.
pub type AuditSink = std::sync::Arc<dyn Fn(&Value) + Send + Sync>;

/// The call's record: what the log's line holds.
pub(super) fn line(
    tool: &str,
    arguments: &Value,
    decision: Decision,
    result: &ToolResult,
) -> Value {
    json!({
        "time": crate::clock::rfc3339(SystemTime::now()),
        "tool": tool,
        "arguments_sha256": digest(arguments),
        "decision": decision.as_str(),
        "success": result.success,
        "code": result.code().map(|c| c.as_str()),
        "duration_ms": result.metadata.duration_ms,
        "exit_code": result.metadata.exit_code,
    })
}

/// Appends the call's record `line` to the log. A failed write is
/// reported on stderr, once per call; it does not change the call's
/// result.
pub(super) fn record(log: &Mutex<File>, line: &Value) {
    let mut text = line.to_string();
    text.push('\n');
    let Ok(mut file) = log.lock() else { return };
    // One write per line: with O_APPEND, lines of concurrent runners
    // never interleave.
    if let Err(e) = file.write_all(text.as_bytes()) {
        eprintln!("toolc: cannot write the audit log: {e}");
    }
}

/// Whether a key names a secret.
pub(crate) fn secret_key(key: &str) -> bool {
    let key = key.to_ascii_lowercase().replace('-', "_");
    const WORDS: [&str; 11] = [
        "password",
        "passwd",
        "passphrase",
        "secret",
        "token",
        "api_key",
        "apikey",
        "private_key",
        "credential",
        "authorization",
        "cookie",
    ];
    WORDS.iter().any(|w| key.contains(w)) || key == "auth" || key.ends_with("_key") || key == "key"
}

/// The canonical JSON of `value` with secret values masked, hashed.
pub(crate) fn digest(value: &Value) -> String {
    let masked = mask(value);
    let mut hasher = Sha256::new();
    hasher.update(masked.to_string().as_bytes());
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A copy with object keys sorted and secret-looking values replaced.
fn mask(value: &Value) -> Value {
    match value {
        Value::Object(object) => {
            let mut keys: Vec<&String> = object.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for key in keys {
                let inner = &object[key];
                let masked = if secret_key(key) {
                    json!("[secret]")
                } else {
                    mask(inner)
                };
                out.insert(key.clone(), masked);
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(mask).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_do_not_change_the_digest() {
        let a = digest(&json!({"user": "ann", "password": "hunter2"}));
        let b = digest(&json!({"password": "other", "user": "ann"}));
        let c = digest(&json!({"user": "bob", "password": "hunter2"}));
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!(secret_key("GITHUB_TOKEN"));
        assert!(secret_key("api-key"));
        assert!(!secret_key("path"));
        assert!(!secret_key("monkey"));
    }
}
