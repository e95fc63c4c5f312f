//! How toolc reaches a NATS server: the options every NATS command shares
//! (`serve --nats`, `call --nats`, `--nats-url`), in one place, and the
//! connection made with them.
//!
//! Servers are given as `NATS_URL` gives them: one URL, or several
//! separated by commas (a cluster; the client picks among them and fails
//! over). A URL may carry `user:password@` or a lone token before the
//! host (the NATS client does not read them from the URL: toolc takes
//! them out and logs in with them, unless flags give credentials);
//! `tls://` asks for TLS. Credentials may also come from flags: a
//! user and password, a token, an NKey seed file or a `.creds` file (a
//! JWT and its seed), and a CA file makes TLS trust a private authority.
//! No credential is ever shown: [`Options::shown`] is what logs and
//! errors print.
//!
//! Connecting fails in bounded time ([`Options::connect_timeout`]) with
//! a message that names the server and the cause; once connected, the
//! client reconnects by itself, forever, with backoff, and subscribes
//! again (async-nats's own behaviour), reporting each change of state to
//! the `events` callback.

use std::path::PathBuf;
use std::time::Duration;

use crate::live::url::{redacted, scrub};

/// How long connecting may take before it is an error, unless told.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// Where the servers are and how to log in.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The servers' URLs (at least one).
    pub urls: Vec<String>,
    /// A user and password (flags; without them, a URL's own).
    pub user_password: Option<(String, String)>,
    pub token: Option<String>,
    /// A file holding an NKey seed (`SU…`).
    pub nkey_file: Option<PathBuf>,
    /// A `.creds` file: a user JWT and its NKey seed.
    pub creds_file: Option<PathBuf>,
    /// A PEM file of certificate authorities TLS trusts besides the
    /// system's.
    pub tls_ca_file: Option<PathBuf>,
    /// `None`: [`CONNECT_TIMEOUT`].
    pub connect_timeout: Option<Duration>,
}

/// Why toolc could not connect.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("no NATS server given: pass a URL (or set NATS_URL)")]
    NoServer,
    #[error("cannot read {what} {path}: {error}")]
    Credentials {
        what: &'static str,
        path: String,
        error: std::io::Error,
    },
    #[error("cannot connect to NATS at {servers}: {why}")]
    Connect { servers: String, why: String },
    #[error("cannot connect to NATS at {servers}: no answer within {seconds} s")]
    TimedOut { servers: String, seconds: u64 },
}

/// A change of the connection's state, told to the `events` callback of
/// [`connect`] (as text fit for a log; no credentials in it).
pub type Events = std::sync::Arc<dyn Fn(String) + Send + Sync>;

impl Options {
    /// Options for the servers of `urls` as `NATS_URL` writes them (one
    /// or several, comma-separated; blanks ignored).
    pub fn for_urls(urls: &str) -> Options {
        Options {
            urls: split_urls(urls),
            ..Options::default()
        }
    }

    /// The servers, as logs and errors show them: credentials and queries
    /// replaced by `***`.
    pub fn shown(&self) -> String {
        self.urls
            .iter()
            .map(|url| redacted(url))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// `text` with every credential of these options replaced by `***`.
    pub fn scrubbed(&self, text: &str) -> String {
        let mut text = self
            .urls
            .iter()
            .fold(text.to_string(), |text, url| scrub(url, &text));
        let secrets = self
            .user_password
            .iter()
            .flat_map(|(user, password)| [user.as_str(), password.as_str()])
            .chain(self.token.as_deref());
        for secret in secrets.filter(|s| s.len() >= 4) {
            text = text.replace(secret, "***");
        }
        text
    }

    fn timeout(&self) -> Duration {
        self.connect_timeout.unwrap_or(CONNECT_TIMEOUT)
    }
}

/// `urls` split at commas, each trimmed, blanks dropped.
pub fn split_urls(urls: &str) -> Vec<String> {
    urls.split(',')
        .map(str::trim)
        .filter(|url| !url.is_empty())
        .map(str::to_string)
        .collect()
}

/// Connects to the servers of `options` as client `name` (what the server
/// shows for this connection). Fails in bounded time; once connected the
/// client reconnects forever on its own, telling `events` of each change.
pub async fn connect(
    options: &Options,
    name: &str,
    events: Option<Events>,
) -> Result<async_nats::Client, ConnectError> {
    if options.urls.is_empty() {
        return Err(ConnectError::NoServer);
    }
    let (urls, from_url) = without_credentials(&options.urls);
    let mut connect = async_nats::ConnectOptions::new()
        .name(name)
        .connection_timeout(options.timeout())
        // A request's own timeout is the caller's to choose.
        .request_timeout(None)
        .max_reconnects(None);
    let flagged = options.user_password.is_some()
        || options.token.is_some()
        || options.nkey_file.is_some()
        || options.creds_file.is_some();
    if let Some((user, password)) = &options.user_password {
        connect = connect.user_and_password(user.clone(), password.clone());
    }
    if let Some(token) = &options.token {
        connect = connect.token(token.clone());
    }
    match from_url.filter(|_| !flagged) {
        Some(UrlCredentials::UserPassword(user, password)) => {
            connect = connect.user_and_password(user, password);
        }
        Some(UrlCredentials::Token(token)) => connect = connect.token(token),
        None => {}
    }
    // A file that cannot be read (or used) is named as such, rather than
    // as a refused login or a TLS failure.
    let unusable = |what: &'static str, path: &std::path::Path| {
        let path = path.display().to_string();
        move |error| ConnectError::Credentials { what, path, error }
    };
    if let Some(path) = &options.nkey_file {
        let seed = std::fs::read_to_string(path).map_err(unusable("the NKey seed file", path))?;
        let seed = seed.trim();
        // async-nats checks the seed only when the server asks for a
        // signature, and then says "failed signing nonce"; checked here,
        // a file that holds no seed is named (never the text it holds).
        nkeys::KeyPair::from_seed(seed)
            .map_err(|why| {
                let why = format!("it holds no NKey seed ({})", why.kind().as_str());
                std::io::Error::new(std::io::ErrorKind::InvalidData, why)
            })
            .map_err(unusable("the NKey seed file", path))?;
        connect = connect.nkey(seed.to_string());
    }
    if let Some(path) = &options.creds_file {
        let creds =
            std::fs::read_to_string(path).map_err(unusable("the credentials file", path))?;
        connect = connect
            .credentials(&creds)
            .map_err(unusable("the credentials file", path))?;
    }
    if let Some(path) = &options.tls_ca_file {
        std::fs::metadata(path).map_err(unusable("the TLS CA file", path))?;
        connect = connect
            .add_root_certificates(path.clone())
            .require_tls(true);
    }
    if let Some(events) = events {
        let shown = options.clone();
        connect = connect.event_callback(move |event| {
            let events = std::sync::Arc::clone(&events);
            let text = shown.scrubbed(&event.to_string());
            async move { events(text) }
        });
    }
    let servers = options.shown();
    // async-nats's connection timeout covers each attempt's handshake; the
    // whole connect (resolving, every URL) is bounded here as well.
    let limit = options.timeout() + Duration::from_secs(1);
    match tokio::time::timeout(limit, connect.connect(urls.as_slice())).await {
        Ok(Ok(client)) => Ok(client),
        Ok(Err(error)) => Err(ConnectError::Connect {
            servers,
            why: options.scrubbed(&describe(&error)),
        }),
        Err(_) => Err(ConnectError::TimedOut {
            servers,
            seconds: limit.as_secs(),
        }),
    }
}

/// Credentials written in a server URL.
#[derive(Debug, PartialEq)]
enum UrlCredentials {
    UserPassword(String, String),
    Token(String),
}

/// `urls` without their user information, and the first credentials
/// found in them (percent-decoded).
fn without_credentials(urls: &[String]) -> (Vec<String>, Option<UrlCredentials>) {
    let mut found = None;
    let stripped = urls
        .iter()
        .map(|url| {
            let (scheme, rest) = url
                .split_once("://")
                .map_or(("", url.as_str()), |(s, r)| (s, r));
            let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
            let (authority, tail) = rest.split_at(end);
            let Some((userinfo, host)) = authority.rsplit_once('@') else {
                return url.clone();
            };
            if found.is_none() && !userinfo.is_empty() {
                found = Some(match userinfo.split_once(':') {
                    Some((user, password)) => {
                        UrlCredentials::UserPassword(decoded(user), decoded(password))
                    }
                    None => UrlCredentials::Token(decoded(userinfo)),
                });
            }
            if scheme.is_empty() {
                format!("{host}{tail}")
            } else {
                format!("{scheme}://{host}{tail}")
            }
        })
        .collect();
    (stripped, found)
}

/// `text` with its `%XX` escapes decoded (invalid ones kept as written).
fn decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(high), Some(low)) = (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            )
        {
            out.push((high * 16 + low) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether `text`, an event told to the `events` callback, says the
/// server entered lame-duck mode (it is going away: drain).
pub fn is_lame_duck(text: &str) -> bool {
    text == async_nats::Event::LameDuckMode.to_string()
}

/// What went wrong, said plainly (async-nats's kinds, with its own text).
fn describe(error: &async_nats::ConnectError) -> String {
    use async_nats::ConnectErrorKind as Kind;
    let what = match error.kind() {
        Kind::AuthorizationViolation => "the server refused the credentials",
        Kind::TimedOut => "no answer in time",
        Kind::Tls => "the TLS handshake failed",
        Kind::ServerParse => "a server URL could not be read",
        Kind::Dns => "the server's name could not be resolved",
        Kind::Authentication => "the credentials could not be used",
        // async-nats reports a TLS failure as an I/O error: the server was
        // reached, yet "could not be reached" would send the user looking
        // at the network instead of at the certificates.
        Kind::Io => match tls_cause(error) {
            Some(rustls::Error::InvalidCertificate(_)) => {
                "the TLS handshake failed: the server's certificate is not trusted (pass the CA that signed it with --nats-tls-ca)"
            }
            Some(_) => "the TLS handshake failed",
            None => "the server could not be reached",
        },
        _ => "the connection failed",
    };
    format!("{what} ({error})")
}

/// The TLS (rustls) error among the causes of `error`, as async-nats
/// wraps it: inside an I/O error.
fn tls_cause(error: &async_nats::ConnectError) -> Option<&rustls::Error> {
    let mut cause = std::error::Error::source(error);
    while let Some(error) = cause {
        let inner = error
            .downcast_ref::<std::io::Error>()
            .and_then(std::io::Error::get_ref)
            .and_then(|inner| inner.downcast_ref::<rustls::Error>());
        if let Some(tls) = error.downcast_ref::<rustls::Error>().or(inner) {
            return Some(tls);
        }
        cause = error.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_split_as_nats_url_lists_them() {
        assert_eq!(
            split_urls(" nats://a:4222, ,tls://b:4222 "),
            ["nats://a:4222", "tls://b:4222"]
        );
        assert!(split_urls(" , ").is_empty());
    }

    #[test]
    fn credentials_come_out_of_urls() {
        let urls = split_urls("nats://al%40ice:p%3Ass@h1:4222,nats://tok@h2:4222/x,h3:4222");
        let (stripped, found) = without_credentials(&urls);
        assert_eq!(stripped, ["nats://h1:4222", "nats://h2:4222/x", "h3:4222"]);
        assert_eq!(
            found,
            Some(UrlCredentials::UserPassword("al@ice".into(), "p:ss".into()))
        );
        let (_, found) = without_credentials(&split_urls("tls://s3cret@h:4222"));
        assert_eq!(found, Some(UrlCredentials::Token("s3cret".into())));
        assert_eq!(without_credentials(&split_urls("nats://h:1")).1, None);
    }

    #[test]
    fn credentials_are_never_shown() {
        let mut options =
            Options::for_urls("nats://alice:s3cret@host:4222,nats://tok3n@other:4222");
        options.token = Some("flagtoken".into());
        let shown = options.shown();
        assert!(
            !shown.contains("s3cret") && !shown.contains("tok3n"),
            "{shown}"
        );
        assert!(
            shown.contains("host:4222") && shown.contains("other:4222"),
            "{shown}"
        );
        let text = options.scrubbed("auth failed for alice:s3cret with flagtoken");
        assert!(
            !text.contains("s3cret") && !text.contains("flagtoken"),
            "{text}"
        );
    }
}
