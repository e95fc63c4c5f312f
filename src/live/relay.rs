//! The standard error of a configured server, relayed to toolc's with the
//! secrets of its entry taken out: a server that fails to log in often
//! says so with the key it was given.

use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};

use super::config::Scrubber;

/// The longest piece relayed at once, in bytes: a longer line is relayed
/// in pieces (a secret cut across two of them may then show in part).
const MAX_PIECE: u64 = 64 * 1024;

/// How long the relay may go on once the server's listing ended (and the
/// server was killed): what it wrote before is still in the pipe.
pub(super) const GRACE: Duration = Duration::from_millis(500);

/// Copies `stderr` to toolc's standard error, line by line, each scrubbed,
/// until the server closes it.
pub(super) async fn relay(stderr: tokio::process::ChildStderr, scrubber: Scrubber) {
    let mut reader = BufReader::new(stderr);
    let mut piece = Vec::new();
    loop {
        piece.clear();
        let read = (&mut reader)
            .take(MAX_PIECE)
            .read_until(b'\n', &mut piece)
            .await;
        if !matches!(read, Ok(n) if n > 0) {
            return;
        }
        let shown = scrubber.scrub(&String::from_utf8_lossy(&piece));
        // Nothing is left to tell if toolc's standard error is gone.
        let _ = std::io::Write::write_all(&mut std::io::stderr(), shown.as_bytes());
    }
}
