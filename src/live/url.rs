//! What of an `--mcp-url` may be shown: its credentials (the user
//! information before `@`, which the HTTP client, `http.rs`, sends as
//! basic authentication, and the query, where tokens often go) never
//! reach an error message, a report or a document name.

/// The parts of `url` that are secret, as written in it.
struct Secrets<'a> {
    /// `user:password` (or a lone token) before the `@` of the authority.
    userinfo: Option<&'a str>,
    /// What follows `?`, up to `#`.
    query: Option<&'a str>,
}

fn secrets(url: &str) -> Secrets<'_> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    let userinfo = authority.rsplit_once('@').map(|(userinfo, _)| userinfo);
    let query = url
        .split_once('?')
        .map(|(_, query)| query.split('#').next().unwrap_or(query));
    Secrets {
        userinfo: userinfo.filter(|s| !s.is_empty()),
        query: query.filter(|s| !s.is_empty()),
    }
}

/// `url` with its user information and query replaced by `***`.
pub(crate) fn redacted(url: &str) -> String {
    scrub(url, url)
}

/// `text` (an error's message, which may quote the URL as the HTTP client
/// rewrote it) with the secrets of `url` replaced by `***`: the whole user
/// information, its user and password apart (the client sends them
/// separately), and the query.
pub(crate) fn scrub(url: &str, text: &str) -> String {
    let secrets = secrets(url);
    let mut text = text.to_string();
    if let Some(userinfo) = secrets.userinfo {
        text = text.replace(userinfo, "***");
        for part in userinfo.split(':').filter(|part| part.len() >= 4) {
            text = text.replace(part, "***");
        }
    }
    if let Some(query) = secrets.query {
        text = text.replace(query, "***");
    }
    text
}

/// The host and port of `url`, without user information.
pub(super) fn host(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_and_queries_are_hidden() {
        let url = "https://alice:s3cret-pw@example.test:8443/mcp?token=abc#x";
        assert_eq!(redacted(url), "https://***@example.test:8443/mcp?***#x");
        assert_eq!(host(url), "example.test:8443");
        let message = "error sending request for url (https://example.test:8443/mcp?token=abc)";
        assert_eq!(
            scrub(url, message),
            "error sending request for url (https://example.test:8443/mcp?***)"
        );
        assert_eq!(scrub(url, "password s3cret-pw"), "password ***");
        let plain = "http://127.0.0.1:8000/mcp";
        assert_eq!(redacted(plain), plain);
        assert_eq!(host(plain), "127.0.0.1:8000");
        assert_eq!(redacted("http://ghp_token@h/"), "http://***@h/");
    }
}
