//! The fork server's control channel: JSON lines over a Unix socket, with
//! descriptors (a call's stdout and stderr pipes) passed as `SCM_RIGHTS`.
//!
//! One request and its reply at a time: the caller holds the channel's
//! lock for the exchange, so replies need no ids.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::run::cancel::{self, CancelToken};

/// How long a send may block: the server reads at once unless it is hung.
const SEND_LIMIT: Duration = Duration::from_secs(10);

/// Why an exchange failed.
#[derive(Debug)]
pub(super) enum WireError {
    /// The socket failed or the server closed it (it died).
    Io(io::Error),
    /// No reply before the deadline.
    TimedOut,
    /// The caller's token was cancelled while waiting.
    Cancelled,
    /// The reply is not a JSON object.
    Garbled(String),
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WireError::Io(e) => write!(f, "{e}"),
            WireError::TimedOut => f.write_str("it did not answer in time"),
            WireError::Cancelled => f.write_str("the call was cancelled"),
            WireError::Garbled(line) => write!(f, "it answered {line:?}"),
        }
    }
}

/// toolc's end of a server's control socket.
pub(super) struct Channel {
    socket: UnixStream,
    /// Bytes read past the last reply's newline.
    pending: Vec<u8>,
    /// Descriptors the server sent (a call's pidfd), until taken.
    fds: Vec<OwnedFd>,
}

impl Channel {
    pub(super) fn new(socket: UnixStream) -> io::Result<Channel> {
        socket.set_write_timeout(Some(SEND_LIMIT))?;
        Ok(Channel {
            socket,
            pending: Vec::new(),
            fds: Vec::new(),
        })
    }

    /// Sends `message` as one line, with `fds` attached to its first byte.
    pub(super) fn send(&mut self, message: &Value, fds: &[RawFd]) -> Result<(), WireError> {
        let mut line =
            serde_json::to_vec(message).map_err(|e| WireError::Garbled(e.to_string()))?;
        line.push(b'\n');
        let mut sent = send_with_fds(self.socket.as_raw_fd(), &line, fds).map_err(WireError::Io)?;
        while sent < line.len() {
            sent += send_with_fds(self.socket.as_raw_fd(), &line[sent..], &[])
                .map_err(WireError::Io)?;
        }
        Ok(())
    }

    /// The descriptors received so far (with the last reply), taken.
    pub(super) fn take_fds(&mut self) -> Vec<OwnedFd> {
        std::mem::take(&mut self.fds)
    }

    /// The next reply, waiting until `deadline` (and no longer than the
    /// `cancel` token allows).
    pub(super) fn receive(
        &mut self,
        deadline: Instant,
        cancel: Option<&CancelToken>,
    ) -> Result<Value, WireError> {
        loop {
            if let Some(end) = memchr::memchr(b'\n', &self.pending) {
                let line: Vec<u8> = self.pending.drain(..=end).collect();
                let text = String::from_utf8_lossy(&line);
                return match serde_json::from_slice::<Value>(&line) {
                    Ok(value) if value.is_object() => Ok(value),
                    _ => Err(WireError::Garbled(text.trim().to_string())),
                };
            }
            if cancel.is_some_and(CancelToken::is_cancelled) {
                return Err(WireError::Cancelled);
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(WireError::TimedOut);
            }
            let mut wait = deadline - now;
            if cancel.is_some() {
                wait = wait.min(cancel::CHECK_INTERVAL);
            }
            self.socket
                .set_read_timeout(Some(wait.max(Duration::from_millis(1))))
                .map_err(WireError::Io)?;
            let mut buffer = [0u8; 16 * 1024];
            match receive_with_fds(&self.socket, &mut buffer, &mut self.fds) {
                Ok(0) => {
                    return Err(WireError::Io(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the server closed its socket",
                    )));
                }
                Ok(n) => self.pending.extend_from_slice(&buffer[..n]),
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock
                            | io::ErrorKind::TimedOut
                            | io::ErrorKind::Interrupted
                    ) => {}
                Err(e) => return Err(WireError::Io(e)),
            }
        }
    }
}

/// `sendmsg` of `bytes` with `fds` as `SCM_RIGHTS` (none when empty);
/// never raises SIGPIPE. Returns how many bytes went.
fn send_with_fds(socket: RawFd, bytes: &[u8], fds: &[RawFd]) -> io::Result<usize> {
    let mut iov = libc::iovec {
        iov_base: bytes.as_ptr() as *mut libc::c_void,
        iov_len: bytes.len(),
    };
    let payload = std::mem::size_of_val(fds) as u32;
    // SAFETY: CMSG_SPACE is arithmetic on its argument.
    let space = unsafe { libc::CMSG_SPACE(payload) } as usize;
    // u64 words: the control buffer must be aligned for `cmsghdr`.
    let mut control = vec![0u64; space.div_ceil(8)];
    // SAFETY: an all-zero msghdr is valid (null pointers, zero lengths).
    let mut message: libc::msghdr = unsafe { std::mem::zeroed() };
    message.msg_iov = &mut iov;
    message.msg_iovlen = 1;
    if !fds.is_empty() {
        message.msg_control = control.as_mut_ptr().cast();
        message.msg_controllen = space as _;
        // SAFETY: the control buffer holds CMSG_SPACE(payload) bytes, so
        // the first header and its data fit; the data is written
        // unaligned, byte for byte.
        unsafe {
            let header = libc::CMSG_FIRSTHDR(&message);
            if header.is_null() {
                return Err(io::Error::other("no room for the descriptors"));
            }
            (*header).cmsg_level = libc::SOL_SOCKET;
            (*header).cmsg_type = libc::SCM_RIGHTS;
            (*header).cmsg_len = libc::CMSG_LEN(payload) as _;
            std::ptr::copy_nonoverlapping(
                fds.as_ptr().cast::<u8>(),
                libc::CMSG_DATA(header),
                payload as usize,
            );
        }
    }
    loop {
        // SAFETY: the message points at live buffers of the stated sizes.
        let sent = unsafe { libc::sendmsg(socket, &message, libc::MSG_NOSIGNAL) };
        if sent >= 0 {
            return Ok(sent as usize);
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

/// The most descriptors one message may carry; more are cut off (and
/// closed by the kernel).
const MAX_FDS: usize = 4;

/// `recvmsg` into `buffer`, close-on-exec descriptors that came with the
/// bytes appended to `fds`. Honours the socket's read timeout.
fn receive_with_fds(
    socket: &UnixStream,
    buffer: &mut [u8],
    fds: &mut Vec<OwnedFd>,
) -> io::Result<usize> {
    let mut iov = libc::iovec {
        iov_base: buffer.as_mut_ptr().cast(),
        iov_len: buffer.len(),
    };
    let payload = (MAX_FDS * std::mem::size_of::<RawFd>()) as u32;
    // SAFETY: CMSG_SPACE is arithmetic on its argument.
    let space = unsafe { libc::CMSG_SPACE(payload) } as usize;
    let mut control = vec![0u64; space.div_ceil(8)];
    // SAFETY: an all-zero msghdr is valid (null pointers, zero lengths).
    let mut message: libc::msghdr = unsafe { std::mem::zeroed() };
    message.msg_iov = &mut iov;
    message.msg_iovlen = 1;
    message.msg_control = control.as_mut_ptr().cast();
    message.msg_controllen = space as _;
    // SAFETY: the message points at live buffers of the stated sizes.
    let got = unsafe { libc::recvmsg(socket.as_raw_fd(), &mut message, libc::MSG_CMSG_CLOEXEC) };
    if got < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel filled the control buffer up to msg_controllen;
    // CMSG_FIRSTHDR and CMSG_NXTHDR stay within it, and the descriptors
    // are read unaligned.
    unsafe {
        let mut header = libc::CMSG_FIRSTHDR(&message);
        while !header.is_null() {
            if (*header).cmsg_level == libc::SOL_SOCKET && (*header).cmsg_type == libc::SCM_RIGHTS {
                let data = libc::CMSG_DATA(header);
                let bytes = (*header).cmsg_len as usize - (data as usize - header as usize);
                for i in 0..bytes / std::mem::size_of::<RawFd>() {
                    let fd = std::ptr::read_unaligned(data.cast::<RawFd>().add(i));
                    fds.push(OwnedFd::from_raw_fd(fd));
                }
            }
            header = libc::CMSG_NXTHDR(&message, header);
        }
    }
    Ok(got as usize)
}

/// A pipe, both ends close-on-exec: (read, write).
pub(super) fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: pipe2 fills the two-element array on success.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and belong to nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}
