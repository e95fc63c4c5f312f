//! The one way out of a proxied tool's network namespace: a TCP listener
//! on the namespace's own loopback, made by the tool's child process and
//! handed to toolc.
//!
//! A tool with an egress allow-list gets an empty network namespace, as a
//! tool without network does. Between clone and exec, the child (still
//! holding its capabilities in its new user namespace, and before any
//! filter) brings the namespace's `lo` up, binds and listens on
//! `127.0.0.1:`[`PROXY_PORT`] there, sends the listening socket to toolc
//! over a UNIX socket pair made before the clone (`SCM_RIGHTS`) and
//! closes its own copies. toolc, in the host's namespace, accepts on that
//! socket: what the tool connects to at `127.0.0.1:PROXY_PORT` reaches
//! toolc's proxy ([`super::egress`]), and nothing else in the namespace
//! has a route anywhere. The port is fixed because the namespace is new
//! and empty: nothing else can hold it, and the tool's environment, built
//! before the clone, can name it.
//!
//! The child's half only makes system calls on stack memory: it runs in
//! the copy of one thread of a threaded program.
//!
//! Making a network namespace is the dearest part of a call: 0.85 ms of
//! the kernel's time on the machines toolc is measured on, against
//! 0.27 ms for a clone with no new namespace. Where toolc may make one
//! itself (it has `CAP_SYS_ADMIN`, as root), one thread makes the next
//! call's ahead of time ([`prepared`]): it moves itself into a new
//! namespace (`unshare(CLONE_NEWNET)` changes only the calling thread),
//! brings its loopback up for a proxied tool and listens there on
//! `127.0.0.1:PROXY_PORT` itself (so that the child neither makes a
//! listener nor hands one over), keeps a descriptor of the namespace (and
//! of the listener) and waits until a call takes them, then makes the
//! next. A call's child joins it with
//! `setns` before it leaves toolc's user namespace ([`super::sandbox`]),
//! so every call still has a namespace of its own, new and used once;
//! only its making moved off the call's path. Without the capability
//! (toolc not root), calls make theirs in the clone, as before.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::{Condvar, Mutex, OnceLock};

/// The port of the proxy inside a tool's network namespace.
pub(crate) const PROXY_PORT: u16 = 3128;

/// Which system call of the child's half failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Failed {
    /// Bringing the loopback interface up.
    Loopback,
    /// Making, binding or listening on the proxy's socket.
    Listen,
    /// Sending it to toolc.
    Send,
}

/// A socket pair for the hand-over: (toolc's end, the child's end), both
/// close-on-exec.
pub(crate) fn channel() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: socketpair fills the array with two new descriptors.
    let made = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    };
    if made != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned by nobody.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// `struct ifreq` as far as `SIOCSIFFLAGS` reads it: the name, the flags,
/// and the rest of the union.
#[repr(C)]
struct InterfaceFlags {
    name: [u8; libc::IFNAMSIZ],
    flags: libc::c_short,
    _rest: [u8; 22],
}

/// A control-message buffer for one descriptor, aligned for `cmsghdr`.
#[repr(C, align(8))]
struct OneDescriptor([u8; 32]);

/// Brings the loopback interface of the calling thread's network
/// namespace up. No allocation.
fn loopback_up() -> Result<(), i32> {
    // SAFETY: system calls on a stack structure and a descriptor made
    // and closed here.
    unsafe {
        let control = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if control < 0 {
            return Err(errno());
        }
        let mut request = InterfaceFlags {
            name: [0; libc::IFNAMSIZ],
            flags: (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short,
            _rest: [0; 22],
        };
        request.name[..2].copy_from_slice(b"lo");
        // The request is a c_ulong for glibc and a c_int for musl (the
        // static release binary): `as _` is whichever this libc takes.
        let up = libc::ioctl(control, libc::SIOCSIFFLAGS as _, &mut request);
        let error = errno();
        libc::close(control);
        if up != 0 {
            return Err(error);
        }
    }
    Ok(())
}

/// A listener on `127.0.0.1:PROXY_PORT` of the calling thread's network
/// namespace, close-on-exec. No allocation.
fn listen() -> Result<RawFd, i32> {
    // SAFETY: system calls on a stack structure and a descriptor made
    // here (closed again on failure).
    unsafe {
        let listener = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        if listener < 0 {
            return Err(errno());
        }
        let mut address: libc::sockaddr_in = std::mem::zeroed();
        address.sin_family = libc::AF_INET as libc::sa_family_t;
        address.sin_port = PROXY_PORT.to_be();
        address.sin_addr.s_addr = u32::from(std::net::Ipv4Addr::LOCALHOST).to_be();
        if libc::bind(
            listener,
            std::ptr::addr_of!(address).cast(),
            std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
        ) != 0
            || libc::listen(listener, 64) != 0
        {
            let error = errno();
            libc::close(listener);
            return Err(error);
        }
        Ok(listener)
    }
}

/// In the child, in its new network namespace: brings `lo` up (unless
/// the namespace was [`prepared`] with it up), listens on
/// `127.0.0.1:PROXY_PORT`, sends the listener over `channel` and closes
/// it and `channel`. No allocation.
pub(crate) fn hand_over_listener(channel: RawFd, loopback: bool) -> Result<(), (Failed, i32)> {
    if loopback {
        loopback_up().map_err(|e| (Failed::Loopback, e))?;
    }
    let listener = listen().map_err(|e| (Failed::Listen, e))?;
    let sent = send_descriptor(channel, listener);
    // SAFETY: closes the two descriptors this child owns.
    unsafe {
        libc::close(listener);
        libc::close(channel);
    }
    sent.map_err(|e| (Failed::Send, e))
}

/// Where a proxied call's listener comes from.
pub(crate) enum Listening {
    /// Made with the call's namespace, ahead of time ([`prepared`]).
    Ready(OwnedFd),
    /// To be received on this channel from the call's child
    /// ([`hand_over_listener`], [`receive_listener`]).
    Handed(OwnedFd),
}

/// A network namespace made ahead of time.
pub(crate) struct Prepared {
    /// The namespace, for the call's child to join.
    pub namespace: OwnedFd,
    /// For a proxied tool (loopback up): the proxy's listener on
    /// `127.0.0.1:PROXY_PORT` in it, made by toolc there, so that the
    /// child neither makes nor hands one over.
    pub listener: Option<OwnedFd>,
}

/// Sends `fd` over the UNIX socket `channel` with one byte of data.
fn send_descriptor(channel: RawFd, fd: RawFd) -> Result<(), i32> {
    // SAFETY: sendmsg on a message whose buffers live on this stack; the
    // CMSG_* helpers stay within `control`.
    unsafe {
        let mut byte = [0u8; 1];
        let mut data = libc::iovec {
            iov_base: byte.as_mut_ptr().cast(),
            iov_len: 1,
        };
        let mut control = OneDescriptor([0; 32]);
        let space = libc::CMSG_SPACE(std::mem::size_of::<RawFd>() as u32) as usize;
        let mut message: libc::msghdr = std::mem::zeroed();
        message.msg_iov = &mut data;
        message.msg_iovlen = 1;
        message.msg_control = control.0.as_mut_ptr().cast();
        message.msg_controllen = space.min(control.0.len()) as _;
        let header = libc::CMSG_FIRSTHDR(&message);
        if header.is_null() {
            return Err(libc::EINVAL);
        }
        (*header).cmsg_level = libc::SOL_SOCKET;
        (*header).cmsg_type = libc::SCM_RIGHTS;
        (*header).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<RawFd>() as u32) as _;
        std::ptr::write_unaligned(libc::CMSG_DATA(header).cast::<RawFd>(), fd);
        if libc::sendmsg(channel, &message, libc::MSG_NOSIGNAL) != 1 {
            return Err(errno());
        }
    }
    Ok(())
}

/// In toolc: receives the listener the child sent on `channel`. `None`
/// when the channel closed without one (the child failed before, or
/// never got that far).
pub(crate) fn receive_listener(channel: &OwnedFd) -> io::Result<Option<OwnedFd>> {
    // SAFETY: recvmsg into buffers on this stack; a descriptor received
    // is owned by this process from then on.
    unsafe {
        let mut byte = [0u8; 1];
        let mut data = libc::iovec {
            iov_base: byte.as_mut_ptr().cast(),
            iov_len: 1,
        };
        let mut control = OneDescriptor([0; 32]);
        let mut message: libc::msghdr = std::mem::zeroed();
        message.msg_iov = &mut data;
        message.msg_iovlen = 1;
        message.msg_control = control.0.as_mut_ptr().cast();
        message.msg_controllen = control.0.len() as _;
        let got = loop {
            let got = libc::recvmsg(channel.as_raw_fd(), &mut message, libc::MSG_CMSG_CLOEXEC);
            if got >= 0 || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                break got;
            }
        };
        if got < 0 {
            return Err(io::Error::last_os_error());
        }
        let mut header = libc::CMSG_FIRSTHDR(&message);
        let mut received = None;
        while !header.is_null() {
            if (*header).cmsg_level == libc::SOL_SOCKET && (*header).cmsg_type == libc::SCM_RIGHTS {
                let fd = std::ptr::read_unaligned(libc::CMSG_DATA(header).cast::<RawFd>());
                received = Some(OwnedFd::from_raw_fd(fd));
            }
            header = libc::CMSG_NXTHDR(&message, header);
        }
        Ok(received)
    }
}

/// The namespaces made ahead of time: at most one waiting of each kind,
/// loopback up (for a proxied tool) and down (for a tool without
/// network: a datagram it sends to `127.0.0.1` fails at once rather than
/// vanishing).
#[derive(Default)]
struct Pool {
    /// Indexed by "loopback up".
    ready: [Option<Prepared>; 2],
    /// The kinds asked for so far: only those are made.
    wanted: [bool; 2],
    /// The maker thread runs.
    started: bool,
    /// This process may not make network namespaces (or the thread could
    /// not start): calls make theirs in the clone.
    unavailable: bool,
}

impl Pool {
    /// The first kind asked for and not waiting.
    fn missing(&self) -> Option<usize> {
        (0..2).find(|&kind| self.wanted[kind] && self.ready[kind].is_none())
    }
}

struct Shared {
    pool: Mutex<Pool>,
    /// Signalled when a namespace is taken or a new kind asked for.
    changed: Condvar,
}

fn shared() -> &'static Shared {
    static SHARED: OnceLock<Shared> = OnceLock::new();
    SHARED.get_or_init(|| Shared {
        pool: Mutex::new(Pool::default()),
        changed: Condvar::new(),
    })
}

fn lock(shared: &Shared) -> std::sync::MutexGuard<'_, Pool> {
    shared
        .pool
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A new network namespace, its loopback up when `loopback`, made ahead
/// of time for the caller's child to join; `None` when none is ready (the
/// first call of each kind, calls at the same time) or this process
/// cannot make them. Each is given out once. The first request starts
/// the thread that makes them.
pub(crate) fn prepared(loopback: bool) -> Option<Prepared> {
    let kind = usize::from(loopback);
    let shared = shared();
    let mut pool = lock(shared);
    if pool.unavailable {
        return None;
    }
    if !pool.started {
        pool.started = true;
        let spawned = std::thread::Builder::new()
            .name("toolc-netns".into())
            .spawn(make_namespaces);
        if spawned.is_err() {
            pool.unavailable = true;
            return None;
        }
    }
    pool.wanted[kind] = true;
    let ready = pool.ready[kind].take();
    drop(pool);
    shared.changed.notify_all();
    ready
}

/// The maker thread: a new namespace of each kind asked for whenever none
/// of that kind is waiting. Ends for good, marking the pool unavailable,
/// at the first refusal.
fn make_namespaces() {
    let shared = shared();
    let mut pool = lock(shared);
    loop {
        let Some(kind) = pool.missing() else {
            pool = shared
                .changed
                .wait(pool)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            continue;
        };
        drop(pool);
        let made = make_one(kind == 1);
        pool = lock(shared);
        match made {
            Ok(namespace) => pool.ready[kind] = Some(namespace),
            Err(_) => {
                pool.unavailable = true;
                pool.ready = [None, None];
                return;
            }
        }
    }
}

/// Moves this thread into a new network namespace, brings its loopback
/// up and listens on it for the proxy when `loopback`, and returns a
/// descriptor of it (and of the listener).
fn make_one(loopback: bool) -> io::Result<Prepared> {
    // SAFETY: unshare affects this thread only (CLONE_NEWNET needs no
    // single-threaded process); open returns a new descriptor or -1.
    let namespace = unsafe {
        if libc::unshare(libc::CLONE_NEWNET) != 0 {
            return Err(io::Error::last_os_error());
        }
        let fd = libc::open(
            c"/proc/thread-self/ns/net".as_ptr(),
            libc::O_RDONLY | libc::O_CLOEXEC,
        );
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        OwnedFd::from_raw_fd(fd)
    };
    let listener = if loopback {
        loopback_up().map_err(io::Error::from_raw_os_error)?;
        let fd = listen().map_err(io::Error::from_raw_os_error)?;
        // SAFETY: `listen` made the descriptor; nothing else owns it.
        Some(unsafe { OwnedFd::from_raw_fd(fd) })
    } else {
        None
    };
    Ok(Prepared {
        namespace,
        listener,
    })
}

fn errno() -> i32 {
    io::Error::last_os_error().raw_os_error().unwrap_or(0)
}
