//! The stdio transport's screen: every line from the client is looked at
//! before rmcp reads it, and the ones rmcp would drop without a word (too
//! long for it, or nested deeper than its JSON parser goes) are answered
//! here with a JSON-RPC error, so a client waiting on them hears why.
//!
//! rmcp reads and writes through an in-memory pipe; one task feeds it the
//! lines that pass, another copies its answers to stdout, a line at a
//! time, with the screen's error answers between them (never inside one).

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use super::log;
use crate::providers::mcp::{INVALID_REQUEST, JSONRPC_VERSION};

/// The deepest nesting of arrays and objects a request may have: serde_json
/// stops at 128, and rmcp's message wraps what it parses in two levels.
pub(super) const MAX_DEPTH: usize = 126;

/// How much of an oversized line is kept to find its `id`.
const ID_PREFIX: usize = 4096;

/// The size of the in-memory pipe between the screen and rmcp.
const PIPE: usize = 64 * 1024;

/// The pair rmcp serves on, and the task that writes its answers out.
pub(super) struct Screened {
    pub(super) pipes: (
        tokio::io::ReadHalf<tokio::io::DuplexStream>,
        tokio::io::WriteHalf<tokio::io::DuplexStream>,
    ),
    /// Ends once every answer rmcp wrote is on the client's side, or
    /// writing to it failed: the session's end is not the answers' end,
    /// and a server that exits before this loses what a client piped in
    /// before closing stdin.
    pub(super) written: tokio::task::JoinHandle<()>,
    /// Tells when the client has stopped taking answers after its input
    /// ended.
    pub(super) stall: Stall,
}

/// Whether a client whose input has ended still takes its answers.
#[derive(Clone)]
pub(super) struct Stall {
    /// Cancelled once the screen stops reading the client's input (its
    /// end, a read error, or rmcp gone).
    input_ended: CancellationToken,
    /// The bytes written to the client so far.
    written: Arc<AtomicU64>,
}

impl Stall {
    /// Completes once the client's input has ended and then nothing was
    /// written to it for `quiet`: a client that still reads, however
    /// slowly, is waited for; one that stopped reading is not.
    pub(super) async fn stalled(&self, quiet: Duration) {
        self.input_ended.cancelled().await;
        let mut seen = self.written.load(Ordering::Relaxed);
        let mut since = Instant::now();
        loop {
            tokio::time::sleep(STALL_POLL).await;
            let now = self.written.load(Ordering::Relaxed);
            if now != seen {
                (seen, since) = (now, Instant::now());
            } else if since.elapsed() >= quiet {
                return;
            }
        }
    }
}

/// How often [`Stall::stalled`] looks at the bytes written.
const STALL_POLL: Duration = Duration::from_millis(250);

/// `stdio` (client lines in, answers out) screened: the pair rmcp serves
/// on. Lines over `max` bytes or nested deeper than [`MAX_DEPTH`] are
/// answered with an error and not passed on.
pub(super) fn screened<R, W>((input, output): (R, W), max: usize) -> Screened
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (rmcp, screen) = tokio::io::duplex(PIPE);
    let (from_rmcp, to_rmcp) = tokio::io::split(screen);
    let (errors, refused) = mpsc::unbounded_channel();
    let stall = Stall {
        input_ended: CancellationToken::new(),
        written: Arc::new(AtomicU64::new(0)),
    };
    let ended = stall.input_ended.clone();
    tokio::spawn(async move {
        feed(input, to_rmcp, errors, max).await;
        ended.cancel();
    });
    let written = tokio::spawn(answer(
        from_rmcp,
        Counted {
            output,
            written: Arc::clone(&stall.written),
        },
        refused,
    ));
    Screened {
        pipes: tokio::io::split(rmcp),
        written,
        stall,
    }
}

/// The client's output, counting the bytes it takes.
struct Counted<W> {
    output: W,
    written: Arc<AtomicU64>,
}

impl<W: AsyncWrite + Unpin> AsyncWrite for Counted<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.output).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = &polled {
            self.written.fetch_add(*n as u64, Ordering::Relaxed);
        }
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.output).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.output).poll_shutdown(cx)
    }
}

/// One line from the client, as read.
enum Line {
    /// A whole line within the size limit (its newline dropped).
    Whole(Vec<u8>),
    /// A line over the limit: its first bytes.
    Oversized(Vec<u8>),
    /// The end of the input.
    End,
}

/// Copies the client's lines to rmcp, screening each.
async fn feed<R, W>(input: R, mut to_rmcp: W, errors: mpsc::UnboundedSender<String>, max: usize)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut input = BufReader::new(input);
    loop {
        let line = match read_line(&mut input, max).await {
            Ok(line) => line,
            Err(error) => {
                log::warn(format_args!("cannot read stdin: {error}"));
                break;
            }
        };
        let refusal = match &line {
            Line::End => break,
            Line::Oversized(start) => Some((
                request_id(start),
                format!("the request is larger than --max-request-size ({max} bytes)"),
            )),
            Line::Whole(text) if depth(text) > MAX_DEPTH => Some((
                request_id(text),
                format!("the request is nested more than {MAX_DEPTH} levels deep"),
            )),
            Line::Whole(_) => None,
        };
        if let Some((id, why)) = refusal {
            log::warn(format_args!("refused a request: {why}"));
            let answer = json!({"jsonrpc": JSONRPC_VERSION, "id": id,
                "error": {"code": INVALID_REQUEST, "message": format!("Invalid request: {why}")}});
            if errors.send(answer.to_string()).is_err() {
                break;
            }
            continue;
        }
        if let Line::Whole(mut text) = line {
            text.push(b'\n');
            if to_rmcp.write_all(&text).await.is_err() || to_rmcp.flush().await.is_err() {
                break;
            }
        }
    }
    // rmcp sees the end of the input as the client's going away.
    let _ = to_rmcp.shutdown().await;
}

/// Reads one line of at most `max` bytes; of a longer one only the first
/// [`ID_PREFIX`] bytes are kept, the rest read and dropped.
async fn read_line<R: AsyncRead + Unpin>(
    input: &mut BufReader<R>,
    max: usize,
) -> std::io::Result<Line> {
    let mut line = Vec::new();
    let mut oversized = false;
    loop {
        let buffer = input.fill_buf().await?;
        if buffer.is_empty() {
            // An unfinished last line is no message, unless too long.
            return Ok(if oversized {
                Line::Oversized(line)
            } else {
                Line::End
            });
        }
        let (taken, ended) = match buffer.iter().position(|&b| b == b'\n') {
            Some(at) => (at, true),
            None => (buffer.len(), false),
        };
        if !oversized && line.len() + taken > max {
            oversized = true;
            line.truncate(ID_PREFIX);
        }
        let room = if oversized {
            ID_PREFIX.saturating_sub(line.len()).min(taken)
        } else {
            taken
        };
        line.extend_from_slice(&buffer[..room]);
        input.consume(if ended { taken + 1 } else { taken });
        if ended {
            return Ok(if oversized {
                Line::Oversized(line)
            } else {
                Line::Whole(line)
            });
        }
    }
}

/// How many bytes of rmcp's answers may wait for a slow client: rmcp
/// writes into this buffer and never waits on the client below it (rmcp
/// gives up on answers it could not write a few seconds after stdin
/// ends), and a client that reads nothing holds no more than this.
const ANSWERS_BUFFERED: usize = 64 * 1024 * 1024;

/// Takes rmcp's answers as fast as rmcp writes them, whole lines, into
/// `lines`, within [`ANSWERS_BUFFERED`] bytes (`room`).
async fn take_answers<R: AsyncRead + Unpin>(
    from_rmcp: R,
    lines: mpsc::UnboundedSender<(Vec<u8>, tokio::sync::OwnedSemaphorePermit)>,
    room: Arc<tokio::sync::Semaphore>,
) {
    let mut from_rmcp = BufReader::new(from_rmcp);
    loop {
        let mut line = Vec::new();
        match from_rmcp.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        if line.last() != Some(&b'\n') {
            // rmcp ended in the middle of a message (it stops writing the
            // answers it gave up on): half a message is no message.
            log::warn(format_args!(
                "an answer cut short at the end of the session was not sent"
            ));
            return;
        }
        let weight = u32::try_from(line.len().min(ANSWERS_BUFFERED)).unwrap_or(u32::MAX);
        let Ok(permit) = Arc::clone(&room).acquire_many_owned(weight).await else {
            return;
        };
        if lines.send((line, permit)).is_err() {
            return;
        }
    }
}

/// Copies rmcp's answers to the client, the screen's refusals between
/// them, a whole line at a time.
async fn answer<R, W>(from_rmcp: R, mut output: W, mut refused: mpsc::UnboundedReceiver<String>)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin,
{
    let room = Arc::new(tokio::sync::Semaphore::new(ANSWERS_BUFFERED));
    let (sender, mut lines) = mpsc::unbounded_channel();
    tokio::spawn(take_answers(from_rmcp, sender, room));
    let mut screen_open = true;
    loop {
        tokio::select! {
            line = lines.recv() => {
                let Some((line, _permit)) = line else {
                    // rmcp is done; refusals already made (the screen
                    // makes them before it ends rmcp's input) still go.
                    while let Ok(refusal) = refused.try_recv() {
                        let text = format!("{refusal}\n");
                        if output.write_all(text.as_bytes()).await.is_err() {
                            break;
                        }
                    }
                    let _ = output.flush().await;
                    break;
                };
                if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
                    break;
                }
            }
            refusal = refused.recv(), if screen_open => {
                let Some(refusal) = refusal else {
                    screen_open = false;
                    continue;
                };
                let text = format!("{refusal}\n");
                if output.write_all(text.as_bytes()).await.is_err() || output.flush().await.is_err() {
                    break;
                }
            }
        }
    }
}

/// How deeply `text`'s arrays and objects nest (strings skipped).
fn depth(text: &[u8]) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for &byte in text {
        if in_string {
            match (escaped, byte) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// The `id` of a request whose text may be cut short or too deep to
/// parse: the top-level object's `id` member when it is a number or a
/// string and whole, null otherwise.
fn request_id(text: &[u8]) -> Value {
    let mut depth = 0usize;
    let mut at = 0;
    // After `{` or `,` at the top level, the next string is a key.
    let mut key_next = false;
    while at < text.len() {
        let byte = text[at];
        match byte {
            b'"' => {
                let end = string_end(text, at);
                let Some(end) = end else { return Value::Null };
                if depth == 1 && key_next && &text[at..=end] == b"\"id\"" {
                    return id_value(&text[end + 1..]);
                }
                key_next = false;
                at = end;
            }
            b'{' | b'[' => {
                depth += 1;
                key_next = depth == 1 && byte == b'{';
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            b',' if depth == 1 => key_next = true,
            _ => {}
        }
        at += 1;
    }
    Value::Null
}

/// The index of the `"` closing the string that opens at `start`.
fn string_end(text: &[u8], start: usize) -> Option<usize> {
    let mut escaped = false;
    for (offset, &byte) in text[start + 1..].iter().enumerate() {
        match (escaped, byte) {
            (true, _) => escaped = false,
            (false, b'\\') => escaped = true,
            (false, b'"') => return Some(start + 1 + offset),
            _ => {}
        }
    }
    None
}

/// The value after an `"id"` key (`rest` starts after the key): a string
/// or a number, else null.
fn id_value(rest: &[u8]) -> Value {
    let rest = rest.trim_ascii_start();
    let Some(rest) = rest.strip_prefix(b":") else {
        return Value::Null;
    };
    let rest = rest.trim_ascii_start();
    let end = match rest.first() {
        Some(b'"') => string_end(rest, 0).map(|end| end + 1),
        Some(b'-' | b'0'..=b'9') => rest
            .iter()
            .position(|b| !matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')),
        _ => None,
    };
    end.and_then(|end| serde_json::from_slice::<Value>(&rest[..end]).ok())
        .filter(|id| id.is_string() || id.is_number())
        .unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_found_in_cut_or_deep_requests() {
        assert_eq!(
            request_id(br#"{"jsonrpc":"2.0","id":7,"params":[[["#),
            json!(7)
        );
        assert_eq!(
            request_id(br#"{"params":{"id":1},"id":"a\"b"}"#),
            json!("a\"b")
        );
        assert_eq!(
            request_id(br#"{"x":"\"id\":3","id" : -2.5e1}"#),
            json!(-25.0)
        );
        assert_eq!(request_id(br#"{"method":"x","id":12"#), Value::Null);
        assert_eq!(request_id(br#"[{"id":1}]"#), Value::Null);
        assert_eq!(request_id(br#"{"id":{"a":1}}"#), Value::Null);
    }

    #[test]
    fn depth_skips_strings() {
        assert_eq!(depth(br#"{"a":[1,{"b":"[[[{{"}]}"#), 3);
        assert_eq!(depth(b"1"), 0);
    }
}
