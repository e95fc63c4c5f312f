//! The base protocol over a byte stream: `Content-Length` headers, then a
//! JSON-RPC 2.0 message. A reader thread turns the stream into messages, a
//! writer thread writes them; both hold only bounded queues, so a client
//! that floods the server waits for it, and one that never reads stops
//! getting notifications rather than growing the server's memory.

use std::io::{BufRead, Read, Write};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};

use serde_json::{Value, json};

/// The largest message read: a document of tens of megabytes fits
/// (escaped in JSON it grows a little); a larger one is skipped unread
/// and answered with an error, so a bad length cannot make the server
/// allocate what it says.
pub const MAX_MESSAGE: usize = 96 * 1024 * 1024;

/// How many messages wait between the threads and the server's loop.
const QUEUE: usize = 64;

/// What the reader hands the server.
#[derive(Debug)]
pub enum Incoming {
    Message(Value),
    /// A message that could not be read as JSON-RPC: the error to answer
    /// with (`id` null, as JSON-RPC says when the id cannot be known).
    Invalid {
        code: i64,
        message: String,
    },
    /// The stream ended (or its framing broke beyond repair).
    Closed,
}

/// JSON-RPC's codes for what cannot be read.
pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;

/// Reads messages from `input` on a thread of its own.
pub fn reader(input: impl BufRead + Send + 'static) -> Receiver<Incoming> {
    let (send, receive) = sync_channel(QUEUE);
    let spawned = std::thread::Builder::new()
        .name("toolc-lsp-reader".into())
        .spawn(move || read_loop(input, &send));
    if spawned.is_err() {
        let (send, receive) = sync_channel(1);
        let _ = send.send(Incoming::Closed);
        return receive;
    }
    receive
}

fn read_loop(mut input: impl BufRead, send: &SyncSender<Incoming>) {
    loop {
        let incoming = match read_one(&mut input) {
            Ok(Some(incoming)) => incoming,
            Ok(None) | Err(_) => {
                let _ = send.send(Incoming::Closed);
                return;
            }
        };
        if send.send(incoming).is_err() {
            return;
        }
    }
}

/// One message, `None` at the end of the stream. An I/O error or a header
/// block that never ends is the end: there is no way back into step.
pub(super) fn read_one(input: &mut impl BufRead) -> std::io::Result<Option<Incoming>> {
    let mut length: Option<usize> = None;
    let mut bad_length = false;
    let mut line = Vec::new();
    let mut headers = 0;
    loop {
        line.clear();
        // A header line longer than this is no header.
        let read = input.by_ref().take(8192).read_until(b'\n', &mut line)?;
        if read == 0 {
            return Ok(None);
        }
        headers += 1;
        if headers > 64 || !line.ends_with(b"\n") {
            return Err(std::io::Error::other("malformed headers"));
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if length.is_none() && !bad_length && headers == 1 {
                // A blank line between messages: tolerate it.
                headers = 0;
                continue;
            }
            break;
        }
        if let Some((name, value)) = text.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-length")
        {
            match value.trim().parse::<usize>() {
                Ok(n) => length = Some(n),
                Err(_) => bad_length = true,
            }
        }
    }
    let Some(length) = length.filter(|_| !bad_length) else {
        // Without a length the body cannot be found: nothing follows in step.
        return Err(std::io::Error::other("no Content-Length"));
    };
    // A length no client sends: the stream is not worth reading on.
    if length > MAX_MESSAGE.saturating_mul(16) {
        return Err(std::io::Error::other("an impossible Content-Length"));
    }
    if length > MAX_MESSAGE {
        std::io::copy(
            &mut input.by_ref().take(length as u64),
            &mut std::io::sink(),
        )?;
        return Ok(Some(Incoming::Invalid {
            code: INVALID_REQUEST,
            message: format!(
                "a message of {length} bytes is over toolc's limit of {MAX_MESSAGE} bytes; it was skipped"
            ),
        }));
    }
    let mut body = vec![0; length];
    input.read_exact(&mut body)?;
    Ok(Some(match serde_json::from_slice::<Value>(&body) {
        Ok(value) if value.is_object() => Incoming::Message(value),
        Ok(_) => Incoming::Invalid {
            code: INVALID_REQUEST,
            message: "a JSON-RPC message is an object".into(),
        },
        Err(error) => Incoming::Invalid {
            code: PARSE_ERROR,
            message: format!("the message is not JSON: {error}"),
        },
    }))
}

/// Writes messages to the client from a thread of its own.
#[derive(Clone)]
pub struct Outgoing {
    send: SyncSender<Value>,
}

impl Outgoing {
    /// A writer of `output`, and the thread's handle (it ends when every
    /// `Outgoing` is dropped and the queue is written).
    pub fn new(
        output: impl Write + Send + 'static,
    ) -> (Outgoing, Option<std::thread::JoinHandle<()>>) {
        let (send, receive) = sync_channel::<Value>(QUEUE);
        let handle = std::thread::Builder::new()
            .name("toolc-lsp-writer".into())
            .spawn(move || write_loop(output, &receive))
            .ok();
        (Outgoing { send }, handle)
    }

    /// A response (or anything the client waits for): waits for room.
    pub fn send(&self, message: Value) {
        let _ = self.send.send(message);
    }

    /// A notification: not sent (`false`) when the client has not read
    /// what came before, so that the server never waits on it.
    pub fn notify(&self, method: &str, params: Value) -> bool {
        let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        match self.send.try_send(message) {
            Ok(()) | Err(TrySendError::Disconnected(_)) => true,
            Err(TrySendError::Full(_)) => false,
        }
    }
}

fn write_loop(mut output: impl Write, receive: &Receiver<Value>) {
    for message in receive {
        let body = message.to_string();
        let written = write!(output, "Content-Length: {}\r\n\r\n", body.len())
            .and_then(|()| output.write_all(body.as_bytes()))
            .and_then(|()| output.flush());
        if written.is_err() {
            // The client went away: drain and drop what is left.
            for _ in receive {}
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(body: &str) -> Vec<u8> {
        format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
    }

    fn read_all(bytes: Vec<u8>) -> Vec<Incoming> {
        let mut input = std::io::Cursor::new(bytes);
        let mut out = Vec::new();
        while let Ok(Some(incoming)) = read_one(&mut input) {
            out.push(incoming);
        }
        out
    }

    #[test]
    fn messages_and_bad_ones_keep_the_stream_in_step() {
        let mut bytes = framed(r#"{"jsonrpc":"2.0","id":1,"method":"a"}"#);
        bytes.extend(framed("{not json"));
        bytes.extend(framed("[1, 2]"));
        bytes.extend(b"content-length: 2\r\nContent-Type: x\r\n\r\n{}");
        let read = read_all(bytes);
        assert_eq!(read.len(), 4, "{read:?}");
        assert!(matches!(&read[0], Incoming::Message(v) if v["id"] == 1));
        assert!(matches!(
            read[1],
            Incoming::Invalid {
                code: PARSE_ERROR,
                ..
            }
        ));
        assert!(matches!(
            read[2],
            Incoming::Invalid {
                code: INVALID_REQUEST,
                ..
            }
        ));
        assert!(
            matches!(&read[3], Incoming::Message(v) if v.as_object().is_some_and(|o| o.is_empty()))
        );
    }

    #[test]
    fn a_length_over_the_limit_is_skipped_not_allocated() {
        let mut bytes = format!("Content-Length: {}\r\n\r\n", MAX_MESSAGE + 1).into_bytes();
        bytes.extend(std::iter::repeat_n(b' ', MAX_MESSAGE + 1));
        bytes.extend(framed(r#"{"id":2}"#));
        let read = read_all(bytes);
        assert!(matches!(
            read[0],
            Incoming::Invalid {
                code: INVALID_REQUEST,
                ..
            }
        ));
        assert!(matches!(&read[1], Incoming::Message(v) if v["id"] == 2));
    }

    #[test]
    fn garbage_headers_end_the_stream() {
        assert!(read_all(b"hello\r\n\r\n{}".to_vec()).is_empty());
        assert!(read_all(b"Content-Length: x\r\n\r\n{}".to_vec()).is_empty());
    }
}
