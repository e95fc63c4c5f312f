//! What toolc's HTTP client sends to an MCP server over HTTP, seen by a
//! server that records each request: the URL's user information as basic
//! authentication, same-origin 307 redirects followed and others refused,
//! and the proxy the environment names (unless `no_proxy` exempts the
//! host). The server answers 500 or a redirect, so each lint fails the
//! handshake; what matters is what reached it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;

use super::Test;

/// A server on loopback that records the head of each request (its
/// request line and headers, header names in lower case) and answers it
/// with what `answer` makes of it.
struct Recorder {
    port: u16,
    heads: mpsc::Receiver<String>,
}

impl Recorder {
    fn start(answer: impl Fn(&str) -> String + Send + 'static) -> Recorder {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("address").port();
        let (send, heads) = mpsc::channel();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let mut reader = BufReader::new(stream.try_clone().expect("clone"));
                let mut head = String::new();
                let mut length = 0usize;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    let line = match line.split_once(':') {
                        Some((name, value)) if !head.is_empty() => {
                            format!("{}:{value}", name.to_ascii_lowercase())
                        }
                        _ => line,
                    };
                    if let Some(value) = line.strip_prefix("content-length:") {
                        length = value.trim().parse().unwrap_or(0);
                    }
                    head.push_str(&line);
                }
                let mut body = vec![0; length];
                let _ = reader.read_exact(&mut body);
                let reply = answer(&head);
                let _ = stream.write_all(reply.as_bytes());
                if send.send(head).is_err() {
                    return;
                }
            }
        });
        Recorder { port, heads }
    }

    /// The heads recorded so far.
    fn heads(&self) -> Vec<String> {
        self.heads.try_iter().collect()
    }
}

const FAILED: &str =
    "HTTP/1.1 500 Internal Server Error\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";

fn redirect(location: &str) -> String {
    format!(
        "HTTP/1.1 307 Temporary Redirect\r\nlocation: {location}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
    )
}

fn lint(url: &str) -> Test {
    Test::new()
        .args(["lint", "--mcp-url", url])
        .env("http_proxy", "")
        .env("HTTP_PROXY", "")
        .env("all_proxy", "")
        .env("ALL_PROXY", "")
}

#[test]
fn user_information_goes_as_basic_authentication() {
    let server = Recorder::start(|_| FAILED.to_string());
    let url = format!("http://alice:p%40ss@127.0.0.1:{}/mcp", server.port);
    let output = lint(&url).run();
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert!(!output.stderr.contains("p%40ss"), "{}", output.stderr);
    let heads = server.heads();
    assert!(!heads.is_empty(), "no request reached the server");
    for head in &heads {
        assert!(head.starts_with("POST /mcp HTTP/1.1\r\n"), "{head}");
        // base64 of alice:p@ss
        assert!(
            head.contains("authorization: Basic YWxpY2U6cEBzcw==\r\n"),
            "{head}"
        );
        assert!(!head.contains("alice:"), "{head}");
    }
}

#[test]
fn a_same_origin_307_is_followed_and_another_origin_refused() {
    let server = Recorder::start(|head| {
        if head.starts_with("POST /mcp ") {
            redirect("/moved?x=1")
        } else {
            FAILED.to_string()
        }
    });
    let output = lint(&format!("http://127.0.0.1:{}/mcp", server.port)).run();
    assert_eq!(output.code, 2, "{}", output.stderr);
    let heads = server.heads();
    assert!(
        heads
            .iter()
            .any(|h| h.starts_with("POST /moved?x=1 HTTP/1.1\r\n")),
        "{heads:?}"
    );

    let elsewhere = Recorder::start(|_| FAILED.to_string());
    let target = format!("http://127.0.0.1:{}/mcp", elsewhere.port);
    let server = Recorder::start(move |_| redirect(&target));
    let output = lint(&format!("http://127.0.0.1:{}/mcp", server.port)).run();
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert!(
        output.stderr.contains(&format!(
            "redirected to another origin (http://127.0.0.1:{}), which is not followed",
            elsewhere.port
        )),
        "{}",
        output.stderr
    );
    assert!(elsewhere.heads().is_empty());
}

#[test]
fn the_environments_proxy_is_used_unless_no_proxy_exempts_the_host() {
    let proxy = Recorder::start(|_| FAILED.to_string());
    let server = Recorder::start(|_| FAILED.to_string());
    let url = format!("http://127.0.0.1:{}/mcp", server.port);
    let proxied = lint(&url)
        .env("http_proxy", &format!("http://127.0.0.1:{}", proxy.port))
        .env("no_proxy", "example.com")
        .env("NO_PROXY", "")
        .run();
    assert_eq!(proxied.code, 2, "{}", proxied.stderr);
    // ureq tunnels through the proxy (CONNECT) for http:// too.
    let heads = proxy.heads();
    assert!(
        heads
            .iter()
            .any(|h| h.starts_with(&format!("CONNECT 127.0.0.1:{} HTTP/1.1\r\n", server.port))),
        "{heads:?}"
    );
    assert!(server.heads().is_empty());

    let direct = lint(&url)
        .env("http_proxy", &format!("http://127.0.0.1:{}", proxy.port))
        .env("no_proxy", "localhost, 127.0.0.0/8")
        .run();
    assert_eq!(direct.code, 2, "{}", direct.stderr);
    assert!(
        !server.heads().is_empty(),
        "the request did not reach the server"
    );
    assert!(proxy.heads().is_empty());
}

/// A proxy toolc cannot use is an error naming the variable, never a
/// reason to connect without it.
#[test]
fn a_proxy_toolc_cannot_use_is_an_error_not_a_direct_connection() {
    let server = Recorder::start(|_| FAILED.to_string());
    let url = format!("http://127.0.0.1:{}/mcp", server.port);
    for (value, says) in [
        (
            "socks5://127.0.0.1:1",
            "(socks5://…): only http:// and https:// proxies",
        ),
        (
            "bogus:://x",
            "(bogus:://…): only http:// and https:// proxies",
        ),
    ] {
        let output = lint(&url).env("http_proxy", value).run();
        assert_eq!(output.code, 2, "{value}: {}", output.stderr);
        assert!(
            output
                .stderr
                .contains(&format!("http_proxy names a proxy toolc cannot use {says}")),
            "{value}: {}",
            output.stderr
        );
        assert!(!output.stderr.contains("panicked"), "{}", output.stderr);
        assert!(server.heads().is_empty(), "{value}: connected directly");
    }
}

/// An event larger than the transport's 16 MiB limit ends the listing with
/// a message that says so (rmcp alone sees a stream that ended).
#[test]
fn an_event_over_the_size_limit_is_named_as_such() {
    let server = Recorder::start(|_| {
        let data = "x".repeat(17 * 1024 * 1024);
        format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\ndata: {data}\n\n",
            data.len() + 8
        )
    });
    let output = lint(&format!("http://127.0.0.1:{}/mcp", server.port)).run();
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert!(
        output
            .stderr
            .contains("an event of its stream is larger than the 16777216-byte limit"),
        "{}",
        output.stderr
    );
}
