//! Text shown to a person: on a terminal, in a CI log, in a report a
//! person reads. A file name, a tool's description, a client's name or a
//! configuration file's text may hold characters that act on the terminal
//! (an escape sequence can set the clipboard with OSC 52, make a link with
//! OSC 8, retitle the window with OSC 0, clear the screen with `ESC[2J`),
//! reorder what is shown (U+202E RIGHT-TO-LEFT OVERRIDE and the other
//! bidirectional controls) or start a line that is not one (a line break,
//! U+2028 LINE SEPARATOR). Every printer for people shows such characters
//! through this module, as escapes (`\u{1b}`, `\u{202e}`, `\n`), the way
//! ripgrep and ruff show them.
//!
//! It sits in the lowest layer because its callers span the layers: the
//! CLI's renderers and messages, and the server's log (`serve`), which
//! cannot reach up into the CLI. Machine formats (JSON, SARIF) do not use
//! it: they carry the exact text, serde escaping what JSON must.

use std::borrow::Cow;

/// Whether `c` must not reach a terminal as it is: a control character
/// (C0, DEL, C1), a bidirectional control, or a line or paragraph
/// separator.
pub(crate) fn is_unsafe(c: char) -> bool {
    c.is_control() || is_bidi_control(c) || matches!(c, '\u{2028}' | '\u{2029}')
}

/// The characters that change the order text is shown in (Unicode's
/// Bidi_Control property; the trojan-source characters).
fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
    )
}

/// `text` as one line that cannot act on the terminal: every unsafe
/// character, line breaks and tabs included, is shown as its escape. For
/// a value (a path, a name, a message) set into a line of toolc's own.
pub(crate) fn one_line(text: &str) -> Cow<'_, str> {
    escaped(text, |_| false)
}

/// A path as [`one_line`] shows it (its bytes that are not UTF-8 as
/// U+FFFD, as `Path::display` shows them).
pub(crate) fn path(path: &std::path::Path) -> String {
    one_line(&path.to_string_lossy()).into_owned()
}

/// `text` with its line breaks and tabs kept as layout (a multi-line
/// message, a parser's error with its snippet) and every other unsafe
/// character shown as its escape.
pub(crate) fn keeping_lines(text: &str) -> Cow<'_, str> {
    escaped(text, |c| matches!(c, '\n' | '\t'))
}

/// `text` with every unsafe character other than line breaks and tabs
/// replaced by `?`s of its length in bytes, so that byte offsets into it
/// (a snippet's spans) stay valid.
pub(crate) fn same_length(text: &str) -> Cow<'_, str> {
    let harmful = |c: char| is_unsafe(c) && !matches!(c, '\n' | '\r' | '\t');
    if !text.chars().any(harmful) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if harmful(c) {
            out.extend(std::iter::repeat_n('?', c.len_utf8()));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `text` with each unsafe character that `kept` does not keep escaped.
fn escaped(text: &str, kept: impl Fn(char) -> bool) -> Cow<'_, str> {
    let escapes = |c: char| is_unsafe(c) && !kept(c);
    if !text.chars().any(escapes) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if escapes(c) {
            push_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `\n`, `\r` and `\t` as Rust writes them; any other character as
/// `\u{HEX}`.
fn push_escape(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c => out.extend(c.escape_unicode()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_controls_bidi_and_separators() {
        assert_eq!(
            one_line("a\u{1b}]52;c;QQ==\u{7}\nb\u{202e}c\u{2028}d\te"),
            "a\\u{1b}]52;c;QQ==\\u{7}\\nb\\u{202e}c\\u{2028}d\\te"
        );
        assert_eq!(keeping_lines("a\n\u{9b}b\tc"), "a\n\\u{9b}b\tc");
        assert_eq!(same_length("x\u{202e}y\n"), "x???y\n");
        assert!(matches!(one_line("plain é"), Cow::Borrowed(_)));
    }
}
