//! What a started server writes on its standard output, read on its way
//! to rmcp: the `tools` of each answer as the server wrote them, by
//! JSON-RPC id, and the first line that is not JSON (rmcp would skip it),
//! which ends the session.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};

use super::MAX_LISTING_BYTES;

/// The most bytes of one line of a server's output: rmcp's own limit.
const MAX_LINE: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;

/// How much of a line that is not JSON an error shows, in characters.
const SHOWN: usize = 80;

/// What a server wrote on its standard output, as toolc read it: the
/// `tools` member of every answer (by its id, as compact JSON), and the
/// first line that is not JSON.
#[derive(Default)]
pub(super) struct Capture {
    /// The line being read, up to its newline.
    line: Vec<u8>,
    /// The `tools` of each answer not yet taken, by id, with the length
    /// of its line.
    tools: HashMap<String, (serde_json::Value, usize)>,
    /// The bytes of the lines whose tools are held in `tools`: answers to
    /// ids toolc never asked for stay, and count.
    held: usize,
    /// Why a line is not JSON, and its start.
    pub(super) not_json: Option<String>,
}

pub(super) type Shared = Arc<Mutex<Capture>>;

/// The capture, whatever a thread that panicked with it left.
pub(super) fn lock(capture: &Shared) -> MutexGuard<'_, Capture> {
    capture.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Capture {
    /// Takes bytes read from the server, line by line; a line that is not
    /// JSON (or longer than [`MAX_LINE`]) is an error of the read, which
    /// ends the session.
    fn record(&mut self, mut bytes: &[u8]) -> std::io::Result<()> {
        while let Some(end) = bytes.iter().position(|b| *b == b'\n') {
            self.line.extend_from_slice(&bytes[..end]);
            bytes = &bytes[end + 1..];
            let line = std::mem::take(&mut self.line);
            self.take(&line)?;
        }
        self.line.extend_from_slice(bytes);
        if self.line.len() > MAX_LINE {
            let shown = start_of(&self.line);
            return self.refuse(format!("a line longer than {MAX_LINE} bytes: {shown}"));
        }
        Ok(())
    }

    /// One whole line, without its newline: rmcp skips an empty line and
    /// a byte order mark.
    fn take(&mut self, line: &[u8]) -> std::io::Result<()> {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        match serde_json::from_slice::<serde_json::Value>(line) {
            Err(error) => {
                let shown = start_of(line);
                self.refuse(format!(
                    "a line that is not JSON ({error}): {shown}; over stdio a server may write \
                     only JSON-RPC messages there (its logs belong on standard error)"
                ))
            }
            Ok(serde_json::Value::Object(mut message)) => {
                let tools = message
                    .get_mut("result")
                    .and_then(serde_json::Value::as_object_mut)
                    .and_then(|result| result.remove("tools"));
                if let (Some(id), Some(tools)) = (message.get("id"), tools) {
                    self.held = self.held.saturating_add(line.len());
                    if self.held > MAX_LISTING_BYTES {
                        return self.refuse(format!(
                            "answers holding more than {} MiB of tools",
                            MAX_LISTING_BYTES >> 20
                        ));
                    }
                    if let Some((_, size)) = self.tools.insert(id.to_string(), (tools, line.len()))
                    {
                        self.held = self.held.saturating_sub(size);
                    }
                }
                Ok(())
            }
            // rmcp decides what other JSON is.
            Ok(_) => Ok(()),
        }
    }

    /// The tools of the answer with the id `id`, taken out.
    pub(super) fn answer(&mut self, id: &str) -> Option<serde_json::Value> {
        let (tools, size) = self.tools.remove(id)?;
        self.held = self.held.saturating_sub(size);
        Some(tools)
    }

    /// Records why the output is malformed, and fails the read.
    fn refuse(&mut self, why: String) -> std::io::Result<()> {
        self.not_json.get_or_insert(why);
        Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "the server wrote malformed data",
        ))
    }
}

/// The start of `line`, quoted, at most [`SHOWN`] characters.
fn start_of(line: &[u8]) -> String {
    // A character is at most 4 bytes: enough bytes for SHOWN of them.
    let head = &line[..line.len().min(SHOWN * 4)];
    let text = String::from_utf8_lossy(head);
    let mut chars = text.chars();
    let shown: String = chars.by_ref().take(SHOWN).collect();
    let cut = chars.next().is_some() || head.len() < line.len();
    if cut {
        format!("{shown:?} (cut)")
    } else {
        format!("{shown:?}")
    }
}

/// The server's standard output as rmcp reads it, recorded on the way.
pub(super) struct Tee<R> {
    pub(super) inner: R,
    pub(super) capture: Shared,
}

impl<R: AsyncRead + Unpin> AsyncRead for Tee<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = polled {
            let read = &buf.filled()[before..];
            if let Err(error) = lock(&self.capture).record(read) {
                return Poll::Ready(Err(error));
            }
        }
        polled
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `capture` made of `chunks`, read one after the other: the
    /// tools by id, and why it refused a line.
    fn read(chunks: &[&[u8]]) -> (Vec<(String, serde_json::Value)>, Option<String>) {
        let mut capture = Capture::default();
        for chunk in chunks {
            if capture.record(chunk).is_err() {
                break;
            }
        }
        let mut tools: Vec<_> = capture
            .tools
            .into_iter()
            .map(|(id, (tools, _))| (id, tools))
            .collect();
        tools.sort_by(|a, b| a.0.cmp(&b.0));
        (tools, capture.not_json)
    }

    #[test]
    fn answers_are_taken_by_id_across_reads() {
        let (tools, refused) = read(&[
            b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"serverInfo\":{}}}\r\n\r\n  \n{\"jsonrpc\":\"2.0\",",
            b"\"id\":2,\"result\":{\"tools\":[{\"z\":1,\"name\":\"a\"}]}}\n",
            b"{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"result\":{\"tools\":[]}}\n{\"method\":\"notifications/message\"}\n[1]\n",
        ]);
        assert_eq!(refused, None);
        assert_eq!(
            tools,
            [
                ("\"x\"".to_string(), serde_json::json!([])),
                ("2".to_string(), serde_json::json!([{"z": 1, "name": "a"}])),
            ]
        );
        let keys: Vec<&String> = tools[1].1[0].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["z", "name"], "the server's order");
    }

    #[test]
    fn a_line_that_is_not_json_is_refused_with_its_start() {
        let (_, refused) = read(&[b"Server ready\n", b"{}\n"]);
        assert_eq!(
            refused.as_deref(),
            Some(
                "a line that is not JSON (expected value at line 1 column 1): \"Server ready\"; \
                 over stdio a server may write only JSON-RPC messages there (its logs belong on \
                 standard error)"
            )
        );
        let long = format!("{}\n", "é".repeat(200));
        let (_, refused) = read(&[long.as_bytes()]);
        let refused = refused.unwrap();
        assert!(
            refused.contains(&format!("\"{}\" (cut);", "é".repeat(SHOWN))),
            "{refused}"
        );
        // A half line is not judged before its end.
        let (_, refused) = read(&[b"{\"id\": 1,"]);
        assert_eq!(refused, None);
    }

    #[test]
    fn answers_to_ids_never_asked_are_bounded_too() {
        let mut capture = Capture::default();
        let name = "x".repeat(1 << 20);
        let mut refused = false;
        for id in 0..=(MAX_LISTING_BYTES >> 20) {
            let line = format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"tools\":[{{\"name\":\"{name}\"}}]}}}}\n"
            );
            refused = capture.record(line.as_bytes()).is_err();
            if refused {
                break;
            }
        }
        assert!(refused);
        let why = capture.not_json.unwrap();
        assert!(why.contains("more than 64 MiB of tools"), "{why}");
    }

    #[test]
    fn a_line_without_end_is_refused_past_the_limit() {
        let mut capture = Capture::default();
        let chunk = vec![b' '; 1 << 20];
        let mut refused = false;
        for _ in 0..=MAX_LINE / chunk.len() {
            refused = capture.record(&chunk).is_err();
            if refused {
                break;
            }
        }
        assert!(refused);
        let why = capture.not_json.unwrap();
        assert!(why.starts_with("a line longer than"), "{why}");
        assert!(why.len() < 200, "{why}");
    }
}
