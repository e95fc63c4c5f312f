//! A tool's declared egress, enforced: the connect proxy a proxied tool
//! reaches the network through.
//!
//! A Nachos tool declaring `egress: ["api.example.com", …]`, and the
//! built-in `shell`, run in an empty network namespace whose only way out
//! is a listener on the namespace's loopback that toolc accepts on
//! ([`super::netns`]). The tool's environment points `HTTP_PROXY`,
//! `HTTPS_PROXY` (and their lower-case and `ALL_PROXY` spellings) at it,
//! with `NO_PROXY` cleared. The proxy speaks two requests:
//!
//! - `CONNECT host:port` (HTTPS and any other TCP protocol a client
//!   tunnels), answered `200` and then relayed byte for byte;
//! - a request in absolute form (`GET http://host:port/path HTTP/1.1`),
//!   sent on to the host in origin form with `Connection: close`.
//!
//! Before connecting, toolc checks the host and port against the
//! [`Allow`] list, resolves the host itself and keeps only the addresses
//! the list lets through: public addresses (as `fetch` decides them,
//! [`crate::run::builtin::non_public`]), and loopback, private and
//! link-local ones only when the entry names them (an address such as
//! `127.0.0.1:8080` or `localhost:8080`), or, for the shell, when
//! `--allow-private-network` lets `fetch` reach them too. The addresses
//! checked are the addresses connected to: there is nothing to rebind.
//! Anything refused is answered `403` with the reason, so the tool's
//! error says it. UDP, raw TCP to any other address, `::1` and the
//! host's abstract sockets have no route in the namespace; UNIX sockets
//! are refused by the seccomp filter.
//!
//! Bounds: [`MAX_OPEN`] connections at a time and [`MAX_TOTAL`] per
//! call; a request head within [`HEAD_LIMIT`] bytes and [`HEAD_TIMEOUT`];
//! an outgoing connection within [`CONNECT_TIMEOUT`]; a relay idle for
//! [`IDLE_TIMEOUT`] is closed. The proxy ends with the call: toolc closes
//! the listener, every relay stops at once, and a connection still being
//! made is abandoned before any of its request is sent.
//!
//! One long-lived thread accepts for every call's proxy: it polls each
//! call's listener, which is registered together with that call's
//! allow-list (a connection is only ever checked against the list of the
//! call whose namespace it came from), and starts a thread per
//! connection.

use std::io::{self, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use super::builtin::{Reach, non_public};
use super::netns::{self, Listening};

/// Connections open at once through one call's proxy.
const MAX_OPEN: usize = 32;
/// Connections one call may make in all.
const MAX_TOTAL: usize = 1024;
/// The most a request head may hold.
const HEAD_LIMIT: usize = 16 * 1024;
/// The time a client has to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// The time an outgoing connection has to be made.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// A relay where nothing moves this long is closed.
const IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// How long the acceptor waits after an accept failed for want of
/// descriptors.
const OUT_OF_DESCRIPTORS_PAUSE: Duration = Duration::from_millis(20);

/// The environment a proxied tool gets: every common spelling of the
/// proxy variables, pointing at the namespace's listener, and `NO_PROXY`
/// empty (so that no client goes around it, which would fail anyway).
pub(crate) fn proxy_environment() -> Vec<(String, String)> {
    let url = format!("http://127.0.0.1:{}", netns::PROXY_PORT);
    let mut env: Vec<(String, String)> = [
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ]
    .into_iter()
    .map(|name| (name.to_string(), url.clone()))
    .collect();
    env.push(("NO_PROXY".into(), String::new()));
    env.push(("no_proxy".into(), String::new()));
    env
}

/// Where a proxied tool may connect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Allow {
    /// The hosts and ports a tool declares (Nachos `egress`).
    Listed(Vec<Destination>),
    /// Any host and port, reached as `fetch` reaches them (the shell).
    Any(Reach),
}

/// One declared egress entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Destination {
    /// Lower case, without brackets or a trailing dot; `*.` kept for a
    /// wildcard of subdomains.
    host: String,
    /// The one port allowed; `None` allows 80 and 443 (HTTP and HTTPS).
    port: Option<u16>,
}

impl Allow {
    /// The allow-list of declared egress entries: `host`, `host:port`,
    /// `[v6]:port`, `*.domain`, optionally with an `http://` or
    /// `https://` scheme (which gives the default port) and a path
    /// (ignored). An entry that is none of these allows nothing.
    pub(crate) fn listed(entries: &[String]) -> Allow {
        Allow::Listed(entries.iter().filter_map(|e| destination(e)).collect())
    }

    /// The addresses of `host:port` the proxy may connect to, or why
    /// none.
    fn resolve(&self, host: &str, port: u16) -> Result<Vec<SocketAddr>, String> {
        let host = normalize(host);
        let (named, reach) = match self {
            Allow::Listed(list) => {
                let entry = list
                    .iter()
                    .find(|d| d.matches(&host, port))
                    .ok_or_else(|| format!("{host}:{port} is not in the tool's declared egress"))?;
                // An entry that names an address, or localhost, names a
                // non-public destination on purpose.
                let named = entry.host.parse::<IpAddr>().is_ok() || entry.host == "localhost";
                (named, Reach::Public)
            }
            Allow::Any(reach) => (false, *reach),
        };
        let addresses: Vec<SocketAddr> = match host.parse::<IpAddr>() {
            Ok(ip) => vec![SocketAddr::new(ip, port)],
            Err(_) => (host.as_str(), port)
                .to_socket_addrs()
                .map_err(|e| format!("cannot resolve {host}: {e}"))?
                .collect(),
        };
        let mut refused = None;
        let allowed: Vec<SocketAddr> = addresses
            .into_iter()
            .filter(|address| {
                if named || reach == Reach::Any {
                    return true;
                }
                match non_public(address.ip()) {
                    None => true,
                    Some(kind) => {
                        refused.get_or_insert((address.ip(), kind));
                        false
                    }
                }
            })
            .collect();
        let how = match self {
            Allow::Listed(_) => "only an egress entry naming it reaches it",
            Allow::Any(_) => "--allow-private-network lets the tool reach it",
        };
        match (allowed.is_empty(), refused) {
            (true, Some((ip, kind))) if ip.to_string() == host => {
                Err(format!("{host} is {kind}: {how}"))
            }
            (true, Some((ip, kind))) => Err(format!("{host} resolves to {ip}, {kind}: {how}")),
            (true, None) => Err(format!("{host} has no address")),
            (false, _) => Ok(allowed),
        }
    }
}

impl Destination {
    fn matches(&self, host: &str, port: u16) -> bool {
        let port_ok = match self.port {
            Some(allowed) => allowed == port,
            None => port == 80 || port == 443,
        };
        let host_ok = match self.host.strip_prefix("*.") {
            Some(domain) => host.len() > domain.len() + 1 && host.ends_with(&format!(".{domain}")),
            None => self.host == host,
        };
        port_ok && host_ok
    }
}

fn normalize(host: &str) -> String {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.trim_end_matches('.').to_ascii_lowercase()
}

fn destination(entry: &str) -> Option<Destination> {
    let entry = entry.trim();
    let (rest, default_port) = if let Some(rest) = entry.strip_prefix("https://") {
        (rest, Some(443))
    } else if let Some(rest) = entry.strip_prefix("http://") {
        (rest, Some(80))
    } else {
        (entry, None)
    };
    let authority = rest.split('/').next().unwrap_or_default();
    let (host, port) = split_host_port(authority)?;
    let port = match port {
        Some(text) => Some(text.parse::<u16>().ok().filter(|p| *p != 0)?),
        None => default_port,
    };
    let host = normalize(host);
    (!host.is_empty()).then_some(Destination { host, port })
}

/// `host`, `host:port`, `[v6]`, `[v6]:port`, or a bare IPv6 address.
fn split_host_port(authority: &str) -> Option<(&str, Option<&str>)> {
    if let Some(rest) = authority.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        return match after.strip_prefix(':') {
            Some(port) => Some((host, Some(port))),
            None if after.is_empty() => Some((host, None)),
            None => None,
        };
    }
    if authority.parse::<std::net::Ipv6Addr>().is_ok() {
        return Some((authority, None));
    }
    match authority.rsplit_once(':') {
        Some((host, port)) => Some((host, Some(port))),
        None => Some((authority, None)),
    }
}

/// A running proxy for one call; dropping it stops it.
pub(crate) struct Proxy {
    /// The call's entry in the acceptor's list.
    id: u64,
    /// Closing this ends every relay of the call (they poll its peer).
    stop: Option<OwnedFd>,
}

impl Proxy {
    /// Starts the proxy of one call: the shared acceptor ([`acceptor`])
    /// serves `listening` under `allow` (receiving the listener from the
    /// child first when it is handed over) until the proxy is dropped.
    pub(crate) fn start(listening: Listening, allow: Allow) -> io::Result<Proxy> {
        let (stop_watch, stop) = stop_pair()?;
        let state = match listening {
            Listening::Ready(listener) => State::Listening(nonblocking(listener)?),
            Listening::Handed(channel) => State::Waiting(channel),
        };
        let served = Served {
            allow: Arc::new(allow),
            stop: Arc::new(stop_watch),
            state: Mutex::new(state),
            open: Arc::new(AtomicUsize::new(0)),
            total: AtomicUsize::new(0),
        };
        let id = acceptor()?.register(served);
        Ok(Proxy {
            id,
            stop: Some(stop),
        })
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Ok(acceptor) = acceptor() {
            acceptor.unregister(self.id);
        }
    }
}

/// One call's proxy as the acceptor holds it: the listener and the
/// allow-list travel together, so a connection accepted on a call's
/// listener is only ever checked against that call's list.
struct Served {
    allow: Arc<Allow>,
    /// The end the call's relays watch: closed when the call ends.
    stop: Arc<OwnedFd>,
    state: Mutex<State>,
    /// Connections open now.
    open: Arc<AtomicUsize>,
    /// Connections accepted in all.
    total: AtomicUsize,
}

enum State {
    /// The child is to hand the listener over on this channel.
    Waiting(OwnedFd),
    Listening(TcpListener),
    /// The child sent none: nothing to serve.
    Closed,
}

/// The one thread that accepts for every call's proxy, and the calls it
/// serves. A thread started for each call and joined at its end cost the
/// call more than the rest of the proxy; one thread polling every
/// listener costs it a registration.
struct Acceptor {
    calls: Mutex<Calls>,
    /// Written to when the list changes: the thread polls anew.
    wake: OwnedFd,
}

#[derive(Default)]
struct Calls {
    next: u64,
    served: Vec<(u64, Arc<Served>)>,
}

/// The acceptor, started by the first proxied call.
fn acceptor() -> io::Result<&'static Acceptor> {
    static ACCEPTOR: OnceLock<Result<Acceptor, String>> = OnceLock::new();
    ACCEPTOR
        .get_or_init(|| {
            // SAFETY: eventfd returns a new descriptor or -1.
            let fd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
            if fd < 0 {
                return Err(io::Error::last_os_error().to_string());
            }
            // SAFETY: the descriptor was just made and is owned by nobody.
            let wake = unsafe { OwnedFd::from_raw_fd(fd) };
            std::thread::Builder::new()
                .name("toolc-egress".into())
                .spawn(accept_forever)
                .map_err(|e| e.to_string())?;
            Ok(Acceptor {
                calls: Mutex::new(Calls::default()),
                wake,
            })
        })
        .as_ref()
        .map_err(|e| io::Error::other(format!("the egress acceptor did not start: {e}")))
}

impl Acceptor {
    fn lock(&self) -> std::sync::MutexGuard<'_, Calls> {
        self.calls
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn register(&self, served: Served) -> u64 {
        let mut calls = self.lock();
        calls.next += 1;
        let id = calls.next;
        calls.served.push((id, Arc::new(served)));
        drop(calls);
        self.wake();
        id
    }

    /// Takes the call off the list: the thread lets go of its listener
    /// when it next wakes, which this asks it to do now.
    fn unregister(&self, id: u64) {
        self.lock().served.retain(|(served, _)| *served != id);
        self.wake();
    }

    fn wake(&self) {
        let one = 1u64.to_ne_bytes();
        // SAFETY: an 8-byte write to an eventfd from a valid buffer; a
        // full counter (EAGAIN) means the thread is woken anyway.
        unsafe { libc::write(self.wake.as_raw_fd(), one.as_ptr().cast(), one.len()) };
    }
}

/// The acceptor thread: polls the wake-up and every call's listener (or
/// hand-over channel), accepts, and hands each connection to a thread.
fn accept_forever() {
    // The thread starts within `acceptor`'s initialization, which this
    // waits for; it failed only if this thread never ran.
    let Ok(acceptor) = acceptor() else {
        return;
    };
    loop {
        let served: Vec<Arc<Served>> = acceptor
            .lock()
            .served
            .iter()
            .map(|(_, served)| Arc::clone(served))
            .collect();
        // The snapshot holds every descriptor polled: none closes, and no
        // number is reused, while the poll runs.
        let guards: Vec<_> = served.iter().map(|s| s.lock()).collect();
        let mut fds: Vec<BorrowedFd> = vec![acceptor.wake.as_fd()];
        let mut polled = Vec::new();
        for (index, guard) in guards.iter().enumerate() {
            let fd = match &**guard {
                State::Waiting(channel) => channel.as_fd(),
                State::Listening(listener) => listener.as_fd(),
                State::Closed => continue,
            };
            fds.push(fd);
            polled.push(index);
        }
        let ready = poll(&fds, None);
        drop(fds);
        drop(guards);
        let Ok(ready) = ready else {
            continue;
        };
        if ready[0] {
            let mut count = [0u8; 8];
            // SAFETY: an 8-byte read from the eventfd into a valid buffer.
            unsafe { libc::read(acceptor.wake.as_raw_fd(), count.as_mut_ptr().cast(), 8) };
        }
        for (slot, &index) in polled.iter().enumerate() {
            if ready[slot + 1] {
                served[index].ready();
            }
        }
    }
}

/// A pipe: (the end watched, the end whose closing says stop).
fn stop_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let (read, write) = io::pipe()?;
    Ok((OwnedFd::from(read), OwnedFd::from(write)))
}

/// Polls `fds` for input for up to `timeout` (`None`: forever). The
/// readiness of each; all false on a timeout.
fn poll(fds: &[BorrowedFd], timeout: Option<Duration>) -> io::Result<Vec<bool>> {
    let mut polled: Vec<libc::pollfd> = fds
        .iter()
        .map(|fd| libc::pollfd {
            fd: fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let millis = timeout.map_or(-1, |t| t.as_millis().min(i32::MAX as u128) as i32);
    loop {
        // SAFETY: poll on a valid array of pollfd.
        let n = unsafe { libc::poll(polled.as_mut_ptr(), polled.len() as libc::nfds_t, millis) };
        if n >= 0 {
            return Ok(polled.iter().map(|p| p.revents != 0).collect());
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

impl Served {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Its descriptor is ready: the listener arrived on the channel (or
    /// the channel closed without one), or a client connects.
    fn ready(&self) {
        let mut state = self.lock();
        let client = match &*state {
            State::Waiting(channel) => {
                *state = match netns::receive_listener(channel) {
                    Ok(Some(listener)) => match nonblocking(listener) {
                        Ok(listener) => State::Listening(listener),
                        Err(_) => State::Closed,
                    },
                    _ => State::Closed,
                };
                return;
            }
            State::Listening(listener) => match listener.accept() {
                Ok((client, _)) => client,
                Err(error) => {
                    // Out of descriptors, the listener stays ready and
                    // every accept fails: a pause rather than a spin,
                    // until calls end and give some back.
                    if matches!(error.raw_os_error(), Some(libc::EMFILE | libc::ENFILE)) {
                        std::thread::sleep(OUT_OF_DESCRIPTORS_PAUSE);
                    }
                    return;
                }
            },
            State::Closed => return,
        };
        drop(state);
        self.serve(client);
    }

    /// One accepted connection: refused beyond the bounds, else served on
    /// a thread of its own (this thread accepts for every call).
    fn serve(&self, mut client: TcpStream) {
        let total = self.total.fetch_add(1, Ordering::SeqCst) + 1;
        if total > MAX_TOTAL || self.open.load(Ordering::SeqCst) >= MAX_OPEN {
            // Refused here, without a thread (a flood of connections must
            // not become a flood of threads) and without waiting: the
            // answer fits the socket's buffer, or is not sent.
            let _ = client.set_nonblocking(true);
            let _ = refuse(
                &mut client,
                503,
                "toolc: too many connections through the egress proxy for this call",
            );
            return;
        }
        if client.set_nonblocking(false).is_err() {
            return;
        }
        self.open.fetch_add(1, Ordering::SeqCst);
        let (allow, stop, done) = (
            Arc::clone(&self.allow),
            Arc::clone(&self.stop),
            Arc::clone(&self.open),
        );
        let spawned = std::thread::Builder::new()
            .name("toolc-egress-conn".into())
            .spawn(move || {
                let _ = connection(client, &allow, &stop);
                done.fetch_sub(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            // The closure, and the client with it, are gone.
            self.open.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// A listener that never blocks the acceptor: a client that connects and
/// resets before the accept leaves nothing to accept.
fn nonblocking(listener: OwnedFd) -> io::Result<TcpListener> {
    let listener = TcpListener::from(listener);
    listener.set_nonblocking(true)?;
    Ok(listener)
}

/// Answers `status` with `message` and closes.
fn refuse(client: &mut TcpStream, status: u16, message: &str) -> io::Result<()> {
    let reason = match status {
        400 => "Bad Request",
        403 => "Forbidden",
        502 => "Bad Gateway",
        _ => "Service Unavailable",
    };
    let body = format!("{message}\n");
    write!(
        client,
        "HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    client.flush()
}

/// One client connection: its request head, the check, the relay.
fn connection(mut client: TcpStream, allow: &Allow, stop: &OwnedFd) -> io::Result<()> {
    client.set_read_timeout(Some(HEAD_TIMEOUT))?;
    client.set_write_timeout(Some(IDLE_TIMEOUT))?;
    let (head, rest) = match read_head(&mut client) {
        Ok(got) => got,
        Err(_) => return refuse(&mut client, 400, "toolc: no complete request head"),
    };
    let request = match parse_request(&head) {
        Ok(request) => request,
        Err(why) => return refuse(&mut client, 400, &format!("toolc: {why}")),
    };
    let addresses = match allow.resolve(&request.host, request.port) {
        Ok(addresses) => addresses,
        Err(why) => {
            return refuse(
                &mut client,
                403,
                &format!("toolc egress proxy refused: {why}"),
            );
        }
    };
    let mut upstream = None;
    for address in &addresses {
        match connect(address, stop) {
            Connected::Yes(stream) => {
                upstream = Some(stream);
                break;
            }
            Connected::No => {}
            // The call is over: nothing of it goes out any more.
            Connected::Stopped => return Ok(()),
        }
    }
    let Some(mut upstream) = upstream else {
        let message = format!("toolc: cannot connect to {}:{}", request.host, request.port);
        return refuse(&mut client, 502, &message);
    };
    if stopped(stop) {
        return Ok(());
    }
    upstream.set_write_timeout(Some(IDLE_TIMEOUT))?;
    match request.forward {
        None => client.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")?,
        Some(head) => upstream.write_all(&head)?,
    }
    upstream.write_all(&rest)?;
    relay(client, upstream, stop)
}

/// How an outgoing connection went.
enum Connected {
    Yes(TcpStream),
    /// Refused, unreachable or not made within [`CONNECT_TIMEOUT`].
    No,
    /// The call ended first.
    Stopped,
}

/// Connects to `address` within [`CONNECT_TIMEOUT`], unless the call
/// ends first (`stop`): a connection still being made when its call is
/// answered is abandoned, so that no request of a call leaves after it.
fn connect(address: &SocketAddr, stop: &OwnedFd) -> Connected {
    let attempt = || -> io::Result<Connected> {
        let domain = socket2::Domain::for_address(*address);
        let socket = socket2::Socket::new(domain, socket2::Type::STREAM, None)?;
        socket.set_nonblocking(true)?;
        match socket.connect(&(*address).into()) {
            Ok(()) => {}
            Err(e) if e.raw_os_error() == Some(libc::EINPROGRESS) => {
                let mut fds = [
                    libc::pollfd {
                        fd: socket.as_raw_fd(),
                        events: libc::POLLOUT,
                        revents: 0,
                    },
                    libc::pollfd {
                        fd: stop.as_raw_fd(),
                        events: libc::POLLIN,
                        revents: 0,
                    },
                ];
                let deadline = std::time::Instant::now() + CONNECT_TIMEOUT;
                loop {
                    let left = deadline.saturating_duration_since(std::time::Instant::now());
                    if left.is_zero() {
                        return Ok(Connected::No);
                    }
                    let millis = left.as_millis().clamp(1, i32::MAX as u128) as i32;
                    // SAFETY: poll on a valid array of two pollfd.
                    let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, millis) };
                    if n < 0 {
                        let error = io::Error::last_os_error();
                        if error.kind() == io::ErrorKind::Interrupted {
                            continue;
                        }
                        return Err(error);
                    }
                    if fds[1].revents != 0 {
                        return Ok(Connected::Stopped);
                    }
                    if fds[0].revents != 0 {
                        break;
                    }
                }
                if let Some(error) = socket.take_error()? {
                    return Err(error);
                }
            }
            Err(e) => return Err(e),
        }
        socket.set_nonblocking(false)?;
        Ok(Connected::Yes(socket.into()))
    };
    attempt().unwrap_or(Connected::No)
}

/// Whether the call of `stop` has ended.
fn stopped(stop: &OwnedFd) -> bool {
    poll(&[stop.as_fd()], Some(Duration::ZERO)).map_or(true, |ready| ready[0])
}

/// Reads up to the end of the request head: (the head, bytes after it).
fn read_head(client: &mut TcpStream) -> io::Result<(Vec<u8>, Vec<u8>)> {
    let mut buffer = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    loop {
        if let Some(end) = find(&buffer, b"\r\n\r\n") {
            let rest = buffer.split_off(end + 4);
            return Ok((buffer, rest));
        }
        if buffer.len() > HEAD_LIMIT {
            return Err(io::Error::other("request head too long"));
        }
        let n = client.read(&mut chunk)?;
        if n == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        buffer.extend_from_slice(&chunk[..n]);
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// A request the proxy serves.
struct Request {
    host: String,
    port: u16,
    /// The head to send on (absolute form rewritten), `None` for CONNECT.
    forward: Option<Vec<u8>>,
}

fn parse_request(head: &[u8]) -> Result<Request, String> {
    let text = std::str::from_utf8(head).map_err(|_| "the request head is not UTF-8")?;
    let mut lines = text.split("\r\n");
    let line = lines.next().unwrap_or_default();
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err("a malformed request line".into());
    };
    if method.eq_ignore_ascii_case("CONNECT") {
        let (host, port) = split_host_port(target)
            .and_then(|(host, port)| Some((host, port?.parse::<u16>().ok()?)))
            .ok_or("CONNECT needs host:port")?;
        return Ok(Request {
            host: host.to_string(),
            port,
            forward: None,
        });
    }
    let Some(after) = target.strip_prefix("http://") else {
        return Err(
            "only CONNECT and absolute http:// requests go through the egress proxy".into(),
        );
    };
    let (authority, path) = match after.find(['/', '?']) {
        Some(at) => (&after[..at], &after[at..]),
        None => (after, "/"),
    };
    let path = if path.starts_with('?') {
        format!("/{path}")
    } else {
        path.to_string()
    };
    let (host, port) = split_host_port(authority).ok_or("a malformed host")?;
    let port = match port {
        Some(port) => port.parse::<u16>().map_err(|_| "a malformed port")?,
        None => 80,
    };
    let mut forward = format!("{method} {path} {version}\r\n");
    for header in lines.filter(|l| !l.is_empty()) {
        let name = header.split(':').next().unwrap_or_default().trim();
        let hop = [
            "connection",
            "proxy-connection",
            "proxy-authorization",
            "keep-alive",
        ];
        if hop.iter().any(|h| name.eq_ignore_ascii_case(h)) {
            continue;
        }
        forward.push_str(header);
        forward.push_str("\r\n");
    }
    forward.push_str("Connection: close\r\n\r\n");
    Ok(Request {
        host: host.to_string(),
        port,
        forward: Some(forward.into_bytes()),
    })
}

/// Copies both ways until both sides are done, nothing moves for
/// [`IDLE_TIMEOUT`], or the call ends.
fn relay(mut client: TcpStream, mut upstream: TcpStream, stop: &OwnedFd) -> io::Result<()> {
    client.set_read_timeout(None)?;
    let mut open = [true, true];
    let mut buffer = vec![0u8; 16 * 1024];
    while open[0] || open[1] {
        let ready = poll(
            &[client.as_fd(), upstream.as_fd(), stop.as_fd()],
            Some(IDLE_TIMEOUT),
        )?;
        if ready[2] || ready.iter().all(|r| !r) {
            return Ok(());
        }
        for side in 0..2 {
            if !ready[side] || !open[side] {
                continue;
            }
            let (from, to) = if side == 0 {
                (&mut client, &mut upstream)
            } else {
                (&mut upstream, &mut client)
            };
            let n = from.read(&mut buffer)?;
            if n == 0 {
                open[side] = false;
                let _ = to.shutdown(std::net::Shutdown::Write);
            } else {
                to.write_all(&buffer[..n])?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_parse_into_hosts_and_ports() {
        let list = Allow::listed(&[
            "API.Example.com".into(),
            "127.0.0.1:8080".into(),
            "https://secure.example.org/path".into(),
            "[::1]:9".into(),
            "*.cdn.example".into(),
            "bad:port".into(),
        ]);
        let Allow::Listed(list) = list else {
            panic!("listed")
        };
        let hosts: Vec<(&str, Option<u16>)> =
            list.iter().map(|d| (d.host.as_str(), d.port)).collect();
        assert_eq!(
            hosts,
            [
                ("api.example.com", None),
                ("127.0.0.1", Some(8080)),
                ("secure.example.org", Some(443)),
                ("::1", Some(9)),
                ("*.cdn.example", None),
            ]
        );
        assert!(list[0].matches("api.example.com", 443));
        assert!(!list[0].matches("api.example.com", 22));
        assert!(list[4].matches("a.cdn.example", 80));
        assert!(!list[4].matches("cdn.example", 80));
    }

    #[test]
    fn named_addresses_pass_and_undeclared_ones_do_not() {
        let allow = Allow::listed(&["127.0.0.1:8080".into()]);
        assert!(allow.resolve("127.0.0.1", 8080).is_ok());
        assert!(allow.resolve("127.0.0.1", 8081).is_err());
        let any = Allow::Any(Reach::Public);
        assert!(any.resolve("127.0.0.1", 80).is_err());
        assert!(any.resolve("[::1]", 80).is_err());
        assert!(Allow::Any(Reach::Any).resolve("127.0.0.1", 80).is_ok());
    }

    #[test]
    fn absolute_requests_are_rewritten_to_origin_form() {
        let head =
            b"GET http://h:81/a?b HTTP/1.1\r\nHost: h:81\r\nProxy-Connection: keep-alive\r\n\r\n";
        let request = parse_request(head).unwrap();
        assert_eq!((request.host.as_str(), request.port), ("h", 81));
        assert_eq!(
            String::from_utf8(request.forward.unwrap()).unwrap(),
            "GET /a?b HTTP/1.1\r\nHost: h:81\r\nConnection: close\r\n\r\n"
        );
        let connect = parse_request(b"CONNECT [::1]:443 HTTP/1.1\r\n\r\n").unwrap();
        assert_eq!((connect.host.as_str(), connect.port), ("::1", 443));
        assert!(parse_request(b"GET /x HTTP/1.1\r\n\r\n").is_err());
    }
}
