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
    /// Ends once every answer rmcp wrote is on the client's side: the
    /// session's end is not the answers' end, and a server that exits
    /// before this loses what a client piped in before closing stdin.
    pub(super) written: tokio::task::JoinHandle<()>,
    /// Cancelled once the client's input has ended (or cannot be read).
    pub(super) input_ended: CancellationToken,
}

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
    let input_ended = CancellationToken::new();
    let ended = input_ended.clone();
    tokio::spawn(async move {
        feed(input, to_rmcp, errors, max).await;
        ended.cancel();
    });
    let written = tokio::spawn(answer(from_rmcp, output, refused));
    Screened {
        pipes: tokio::io::split(rmcp),
        written,
        input_ended,
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

/// Copies rmcp's answers to the client, the screen's refusals between
/// them, a whole line at a time.
async fn answer<R, W>(from_rmcp: R, mut output: W, mut refused: mpsc::UnboundedReceiver<String>)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut from_rmcp = BufReader::new(from_rmcp);
    // Kept across turns: a read interrupted by a refusal resumes here.
    let mut line = Vec::new();
    let mut screen_open = true;
    loop {
        tokio::select! {
            read = from_rmcp.read_until(b'\n', &mut line) => {
                match read {
                    Ok(0) | Err(_) => {
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
                    }
                    Ok(_) => {}
                }
                if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
                    break;
                }
                line.clear();
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
