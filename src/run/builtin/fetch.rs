//! The built-in `fetch` tool: one HTTP GET, its redirects followed and
//! checked here, and the addresses it may reach.
//!
//! By default `fetch` reaches public addresses only. Every host, the
//! first and each redirect's, is resolved by [`PublicOnly`], which drops
//! the loopback, private, link-local, shared (carrier-grade NAT),
//! unspecified, multicast, broadcast and reserved addresses (IPv4, IPv6,
//! and IPv4 carried inside IPv6) and hands ureq only the addresses that
//! remain: the addresses checked are the addresses connected to, so a name
//! that resolves to a public address for the check and to 127.0.0.1 for
//! the connection (DNS rebinding) has nothing to rebind. A host with no
//! public address is a `POLICY_DENIED` result (rule `private-network`)
//! naming the address and what it is; [`Reach::Any`]
//! (`toolc run --allow-private-network`) lifts the check for tools that
//! are meant to call services on the machine or the local network.

use std::collections::BTreeMap;
use std::io::{self, Read};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::Instant;

use serde_json::{Map, Value, json};
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::{DefaultConnector, NextTimeout};

use super::{
    FETCH_CAP, FETCH_MAX_REDIRECTS, FETCH_TIMEOUT, Failure, Outcome, execution_error, failure,
    string_argument, too_large,
};
use crate::run::ErrorCode;
use crate::run::ToolResult;
use crate::run::policy::DenialRule;

/// Which addresses `fetch` may connect to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reach {
    /// Public addresses only (the default).
    #[default]
    Public,
    /// Any address, loopback and private networks included.
    Any,
}

/// Why `ip` is not a public address, or `None` when it is.
pub(crate) fn non_public(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => non_public_v4(v4),
        IpAddr::V6(v6) => non_public_v6(v6),
    }
}

fn non_public_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    let kind = if ip.is_unspecified() || a == 0 {
        "an unspecified (\"this network\") address"
    } else if ip.is_loopback() {
        "a loopback address"
    } else if ip.is_private() {
        "a private-network address"
    } else if ip.is_link_local() {
        "a link-local address (cloud metadata services live there)"
    } else if a == 100 && (64..128).contains(&b) {
        "a shared (carrier-grade NAT) address"
    } else if a == 192 && b == 0 && c == 0 {
        "an IETF protocol assignment address"
    } else if a == 198 && (b == 18 || b == 19) {
        "a benchmarking-network address"
    } else if ip.is_multicast() {
        "a multicast address"
    } else if ip.is_broadcast() || a >= 240 {
        "a reserved address"
    } else {
        return None;
    };
    Some(kind)
}

fn non_public_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let segments = ip.segments();
    // IPv4 inside IPv6: mapped (::ffff:a.b.c.d), compatible (::a.b.c.d),
    // NAT64 (64:ff9b::a.b.c.d) and 6to4 (2002:AABB:CCDD::) all reach the
    // IPv4 address they carry.
    if let Some(v4) = ip.to_ipv4_mapped() {
        return non_public_v4(v4);
    }
    let embedded = |high: u16, low: u16| Ipv4Addr::from((u32::from(high) << 16) | u32::from(low));
    if segments[..6] == [0, 0, 0, 0, 0, 0] && !ip.is_unspecified() && !ip.is_loopback() {
        return non_public_v4(embedded(segments[6], segments[7]));
    }
    // IPv4-translated (::ffff:0:a.b.c.d) and NAT64, well-known and
    // local-use (64:ff9b:1::/48), also carry one in their last 32 bits.
    if segments[..6] == [0, 0, 0, 0, 0xffff, 0]
        || segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0]
        || segments[..3] == [0x64, 0xff9b, 1]
    {
        return non_public_v4(embedded(segments[6], segments[7]));
    }
    if segments[0] == 0x2002 {
        return non_public_v4(embedded(segments[1], segments[2]));
    }
    let kind = if ip.is_unspecified() {
        "an unspecified address"
    } else if ip.is_loopback() {
        "a loopback address"
    } else if segments[0] & 0xfe00 == 0xfc00 {
        "a unique-local (private-network) address"
    } else if segments[0] & 0xffc0 == 0xfe80 || segments[0] & 0xffc0 == 0xfec0 {
        "a link-local address"
    } else if ip.is_multicast() {
        "a multicast address"
    } else {
        return None;
    };
    Some(kind)
}

/// A host whose every address is refused.
#[derive(Debug)]
struct Refused {
    host: String,
    address: IpAddr,
    kind: &'static str,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} resolves to {}, {}",
            self.host, self.address, self.kind
        )
    }
}

impl std::error::Error for Refused {}

/// The system resolver, with every address that is not public dropped.
#[derive(Debug, Default)]
struct PublicOnly {
    system: DefaultResolver,
}

impl Resolver for PublicOnly {
    fn resolve(
        &self,
        uri: &ureq::http::Uri,
        config: &ureq::config::Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let resolved = self.system.resolve(uri, config, timeout)?;
        let mut public = self.empty();
        let mut refused = None;
        for socket in resolved.iter() {
            match non_public(socket.ip()) {
                None => public.push(*socket),
                Some(kind) => {
                    refused.get_or_insert((socket.ip(), kind));
                }
            }
        }
        match refused {
            Some((address, kind)) if public.is_empty() => {
                Err(ureq::Error::Other(Box::new(Refused {
                    host: uri.host().unwrap_or_default().to_string(),
                    address,
                    kind,
                })))
            }
            _ => Ok(public),
        }
    }
}

/// Runs `fetch` with already-validated `arguments`.
pub(super) fn fetch(arguments: &Value, reach: Reach) -> Outcome {
    let url = string_argument(arguments, "url")?;
    let mut uri = http_uri(url).map_err(|why| {
        failure(
            ErrorCode::ValidationError,
            format!("{url:?} is refused: {why}"),
        )
    })?;
    // Redirects are followed here rather than by ureq, so that each
    // Location is checked: ureq would take a `file:` Location for a
    // relative path on the same host.
    let config = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .proxy(None)
        .max_redirects(0)
        .build();
    let agent = match reach {
        Reach::Public => {
            ureq::Agent::with_parts(config, DefaultConnector::default(), PublicOnly::default())
        }
        Reach::Any => ureq::Agent::new_with_config(config),
    };
    let deadline = Instant::now() + FETCH_TIMEOUT;
    let mut redirects = 0;
    let mut response = loop {
        let remaining = deadline.saturating_duration_since(Instant::now());
        if remaining.is_zero() {
            return Err(timed_out(url));
        }
        let response = agent
            .get(uri.clone())
            .config()
            .timeout_global(Some(remaining))
            .build()
            .call()
            .map_err(|e| http_failure(url, e))?;
        let Some(location) = redirect_location(&response) else {
            break response;
        };
        redirects += 1;
        if redirects > FETCH_MAX_REDIRECTS {
            return Err(execution_error(format!(
                "fetching {url:?} was redirected more than {FETCH_MAX_REDIRECTS} times"
            )));
        }
        uri = redirect_target(&uri, &location).map_err(|why| {
            execution_error(format!(
                "fetching {url:?} was redirected to {location:?}, which is refused: {why}"
            ))
        })?;
    };
    let status = response.status().as_u16();
    let mut headers: BTreeMap<String, String> = BTreeMap::new();
    for (name, value) in response.headers() {
        let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
        headers
            .entry(name.as_str().to_ascii_lowercase())
            .and_modify(|joined| {
                joined.push_str(", ");
                joined.push_str(&value);
            })
            .or_insert(value);
    }
    let mut body = Vec::new();
    response
        .body_mut()
        .as_reader()
        .take(FETCH_CAP + 1)
        .read_to_end(&mut body)
        .map_err(|e| http_failure(url, ureq::Error::from(e)))?;
    if body.len() as u64 > FETCH_CAP {
        return Err(too_large(
            format!("the body of {url:?} is larger than the {FETCH_CAP}-byte (5 MiB) limit"),
            FETCH_CAP,
        ));
    }
    let (body, encoding) = match String::from_utf8(body) {
        Ok(text) => (text, "utf-8"),
        Err(e) => (base64(e.as_bytes()), "base64"),
    };
    Ok(ToolResult::ok(json!({
        "status": status,
        "headers": headers,
        "body": body,
        "body_encoding": encoding,
    })))
}

/// Parses an absolute `http` or `https` URL; the error says why not.
fn http_uri(url: &str) -> Result<ureq::http::Uri, String> {
    let scheme = url_scheme(url).ok_or("it is not an absolute URL")?;
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return Err(format!(
            "fetch supports only http:// and https:// URLs, not {scheme}:"
        ));
    }
    let uri: ureq::http::Uri = url
        .parse()
        .map_err(|e| format!("it is not a valid URL ({e})"))?;
    if uri.host().is_none_or(str::is_empty) {
        return Err("it has no host".to_string());
    }
    Ok(uri)
}

/// The scheme of an absolute URL (RFC 3986: a letter, then letters,
/// digits, `+`, `-` or `.`, then `:`), or `None` for a relative reference.
fn url_scheme(url: &str) -> Option<&str> {
    let (scheme, _) = url.split_once(':')?;
    let mut chars = scheme.chars();
    let first_is_letter = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    let rest_is_valid = chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    (first_is_letter && rest_is_valid).then_some(scheme)
}

/// The Location of a redirect that is to be followed (301, 302, 303, 307,
/// 308 with a Location header); other responses are final.
fn redirect_location(response: &ureq::http::Response<ureq::Body>) -> Option<String> {
    if !matches!(response.status().as_u16(), 301 | 302 | 303 | 307 | 308) {
        return None;
    }
    let location = response.headers().get("location")?;
    Some(String::from_utf8_lossy(location.as_bytes()).into_owned())
}

/// Resolves a Location against the URL that answered with it (RFC 3986
/// section 5.2, without dot-segment removal: the server sees `..` as sent).
fn redirect_target(base: &ureq::http::Uri, location: &str) -> Result<ureq::http::Uri, String> {
    let location = location.split('#').next().unwrap_or("").trim();
    let scheme = base.scheme_str().unwrap_or("http");
    let authority = base.authority().map(|a| a.as_str()).unwrap_or("");
    let absolute = if url_scheme(location).is_some() {
        location.to_string()
    } else if location.starts_with("//") {
        format!("{scheme}:{location}")
    } else if location.starts_with('/') {
        format!("{scheme}://{authority}{location}")
    } else if location.is_empty() || location.starts_with('?') {
        format!("{scheme}://{authority}{}{location}", base.path())
    } else {
        let path = base.path();
        let directory = &path[..path.rfind('/').map_or(0, |i| i + 1)];
        let directory = if directory.is_empty() { "/" } else { directory };
        format!("{scheme}://{authority}{directory}{location}")
    };
    http_uri(&absolute)
}

fn timed_out(url: &str) -> Failure {
    failure(
        ErrorCode::Timeout,
        format!(
            "fetching {url:?} took longer than {} s",
            FETCH_TIMEOUT.as_secs()
        ),
    )
}

fn http_failure(url: &str, error: ureq::Error) -> Failure {
    match error {
        ureq::Error::Timeout(_) => timed_out(url),
        ureq::Error::Io(e) if e.kind() == io::ErrorKind::TimedOut => timed_out(url),
        ureq::Error::Other(e) if e.is::<Refused>() => {
            let mut details = Map::new();
            details.insert("rule".to_string(), json!(DenialRule::PrivateNetwork.id()));
            Box::new(ToolResult::fail_with(
                ErrorCode::PolicyDenied,
                format!(
                    "fetch refuses {url:?}: {e}; only public addresses are reached unless toolc runs with --allow-private-network"
                ),
                details,
            ))
        }
        other => execution_error(format!("fetching {url:?} failed: {other}")),
    }
}

/// Standard base64 with padding (RFC 4648), for bodies that are not text.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let sextet = |shift: u32| char::from(ALPHABET[((n >> shift) & 63) as usize]);
        out.push(sextet(18));
        out.push(sextet(12));
        out.push(if chunk.len() > 1 { sextet(6) } else { '=' });
        out.push(if chunk.len() > 2 { sextet(0) } else { '=' });
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn refused(text: &str) -> Option<&'static str> {
        non_public(text.parse().unwrap())
    }

    #[test]
    fn loopback_private_link_local_and_reserved_addresses_are_not_public() {
        for address in [
            "0.0.0.0",
            "0.1.2.3",
            "127.0.0.1",
            "127.255.255.254",
            "10.0.0.1",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "100.127.255.255",
            "192.0.0.8",
            "198.18.0.1",
            "224.0.0.1",
            "240.0.0.1",
            "255.255.255.255",
            "::",
            "::1",
            "fe80::1",
            "fec0::1",
            "fc00::1",
            "fd12:3456::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "::10.0.0.1",
            "64:ff9b::a00:1",
            "64:ff9b:1::7f00:1",
            "::ffff:0:7f00:1",
            "2002:7f00:1::",
            "2002:a9fe:a9fe::1",
        ] {
            assert!(refused(address).is_some(), "{address} passed as public");
        }
    }

    #[test]
    fn public_addresses_pass() {
        for address in [
            "1.1.1.1",
            "8.8.8.8",
            "93.184.216.34",
            "100.63.255.255",
            "100.128.0.1",
            "172.15.255.255",
            "172.32.0.1",
            "192.169.0.1",
            "198.20.0.1",
            "2606:4700:4700::1111",
            "2001:4860:4860::8888",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2002:808:808::1",
        ] {
            assert_eq!(refused(address), None, "{address} refused");
        }
    }

    #[test]
    fn redirect_targets_resolve_against_the_url_that_answered() {
        let base: ureq::http::Uri = "http://h:8/a/b?q=1".parse().unwrap();
        let target = |location: &str| redirect_target(&base, location).map(|u| u.to_string());
        assert_eq!(target("https://x/y").unwrap(), "https://x/y");
        assert_eq!(target("//x/y").unwrap(), "http://x/y");
        assert_eq!(target("/y#frag").unwrap(), "http://h:8/y");
        assert_eq!(target("c").unwrap(), "http://h:8/a/c");
        assert_eq!(target("?r=2").unwrap(), "http://h:8/a/b?r=2");
        assert!(target("file:///etc/passwd").is_err());
        assert!(target("javascript:alert(1)").is_err());
    }

    #[test]
    fn base64_matches_rfc_4648_vectors() {
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), encoded);
        }
    }
}
