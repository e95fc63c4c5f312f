//! Text as the poisoning rules match it, and the way back to the source.
//!
//! [`Normal`] lowercases a string, spells out Unicode tag characters as
//! the ASCII they encode, drops characters that render as nothing, and
//! reads an identifier (`content_from_reading_ssh_id_rsa`, `toolsList`)
//! as the words it is made of (a path such as `~/.npmrc` keeps its dots), remembering for every character where it
//! came from, so that a match in the normal text is a span of the
//! original.

use std::ops::Range;

use crate::source::Span;

use super::invisible;
use super::shape::Shape;

/// A string, normalized for matching, with the way back.
#[derive(Default)]
pub(crate) struct Normal {
    pub text: String,
    /// For each character of `text`: its offset there, and the offset in
    /// the original of the character it came from; empty when each byte
    /// came from the byte at the same offset.
    offsets: Vec<(u32, u32)>,
    original_len: usize,
}

impl Normal {
    pub(crate) fn new(original: &str) -> Normal {
        let mut normal = Normal::default();
        normal.refill(original, Shape::of(original));
        normal
    }

    /// Reads `original` (of `shape`) into this one, keeping what it
    /// allocated: a walk normalizes a million strings with one buffer.
    pub(crate) fn refill(&mut self, original: &str, shape: Shape) {
        self.text.clear();
        self.offsets.clear();
        self.original_len = original.len();
        // Most text is ASCII: read in bulk, it needs no way back.
        if append_plain(&mut self.text, original, shape) {
            return;
        }
        let identifier = !original.chars().any(char::is_whitespace);
        let (text, offsets) = (&mut self.text, &mut self.offsets);
        let mut previous_lower = false;
        // The end of the character reference just read.
        let mut resume = 0;
        for (at, c) in original.char_indices() {
            if at < resume {
                continue;
            }
            let mut push = |c: char| {
                offsets.push((text.len() as u32, at as u32));
                text.push(c);
            };
            if c == '&'
                && let Some((decoded, len)) = character_reference(&original[at..])
            {
                resume = at + len;
                if !invisible::renders_as_nothing(decoded) {
                    for lower in decoded.to_lowercase() {
                        push(lower);
                    }
                }
                previous_lower = false;
                continue;
            }
            if let Some(ascii) = invisible::tag_ascii(c) {
                push(ascii.to_ascii_lowercase());
                previous_lower = false;
                continue;
            }
            if invisible::renders_as_nothing(c) {
                continue;
            }
            match c {
                '_' if identifier => push(' '),
                '\u{2018}' | '\u{2019}' | '\u{02BC}' => push('\''),
                '\u{201C}' | '\u{201D}' => push('"'),
                c if c.is_uppercase() => {
                    if identifier && previous_lower {
                        push(' ');
                    }
                    for lower in c.to_lowercase() {
                        push(lower);
                    }
                }
                c => push(c),
            }
            previous_lower = c.is_lowercase() || c.is_ascii_digit();
        }
    }

    /// The offset in the original of the character at `offset` of the
    /// normal text (the original's end for the normal text's end).
    pub(crate) fn original(&self, offset: usize) -> usize {
        if offset >= self.text.len() {
            return self.original_len;
        }
        if self.offsets.is_empty() {
            return offset;
        }
        let i = self
            .offsets
            .partition_point(|&(normal, _)| normal as usize <= offset);
        self.offsets
            .get(i.saturating_sub(1))
            .map_or(0, |&(_, original)| original as usize)
    }

    /// The original bytes that `range` of the normal text came from.
    pub(crate) fn original_range(&self, range: Range<usize>) -> Range<usize> {
        let start = self.original(range.start);
        let end = self.original(range.end).max(start);
        start..end
    }
}

/// Appends to `out` what a normal text of `original` holds, for a text
/// the rules only ask whether anything could match in ([`Normal`] keeps
/// the way back): one text of all the strings of a tool.
pub(crate) fn append_normal(out: &mut String, original: &str, shape: Shape, scratch: &mut Normal) {
    if !append_plain(out, original, shape) {
        scratch.refill(original, shape);
        out.push_str(&scratch.text);
    }
}

/// Appends the normal text of `original` (of `shape`) to `out` when each
/// of its bytes comes from the byte at the same offset ([`Shape::plain`],
/// not a camel-case identifier); `false`, appending nothing, otherwise.
fn append_plain(out: &mut String, original: &str, shape: Shape) -> bool {
    if !shape.plain() {
        return false;
    }
    let identifier = !original.bytes().any(|b| char::from(b).is_whitespace());
    let camel = identifier
        && original.as_bytes().windows(2).any(|w| {
            (w[0].is_ascii_lowercase() || w[0].is_ascii_digit()) && w[1].is_ascii_uppercase()
        });
    if camel {
        return false;
    }
    let start = out.len();
    if identifier {
        // An identifier's underscores read as spaces.
        for (i, word) in original.split('_').enumerate() {
            if i > 0 {
                out.push(' ');
            }
            out.push_str(word);
        }
    } else {
        out.push_str(original);
    }
    out[start..].make_ascii_lowercase();
    true
}

/// The character an HTML character reference at the start of `text`
/// (`&#73;`, `&#x49;`, `&lt;`) stands for, and the reference's length.
fn character_reference(text: &str) -> Option<(char, usize)> {
    // The longest reference read: `&#x10FFFF;`.
    const LONGEST: usize = 10;
    let end = text.bytes().take(LONGEST).position(|b| b == b';')?;
    let body = text.get(1..end)?;
    let c = match body.strip_prefix('#') {
        Some(number) => {
            let value = match number.strip_prefix(['x', 'X']) {
                Some(hex) if hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
                    u32::from_str_radix(hex, 16).ok()?
                }
                None if number.bytes().all(|b| b.is_ascii_digit()) => number.parse().ok()?,
                _ => return None,
            };
            char::from_u32(value)?
        }
        None => match body {
            "lt" => '<',
            "gt" => '>',
            "amp" => '&',
            "quot" => '"',
            "apos" => '\'',
            "nbsp" => '\u{a0}',
            _ => return None,
        },
    };
    Some((c, end + 1))
}

/// The sentences of a (normal) text, as byte ranges: text up to a `.`,
/// `!` or `?` followed by white space, or up to an empty line.
pub(crate) fn sentences(text: &str) -> impl Iterator<Item = Range<usize>> + '_ {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            let b = bytes[i];
            i += 1;
            let next = bytes.get(i).copied();
            let ends = match b {
                b'.' | b'!' | b'?' => next.is_none_or(|n| n.is_ascii_whitespace()),
                b'\n' => {
                    let rest = &bytes[i..];
                    let blank = rest
                        .iter()
                        .take_while(|&&c| c == b' ' || c == b'\t')
                        .count();
                    rest.get(blank) == Some(&b'\n')
                }
                _ => false,
            };
            if ends {
                let range = start..i;
                start = i;
                return Some(range);
            }
        }
        if start < bytes.len() {
            let range = start..bytes.len();
            start = bytes.len();
            return Some(range);
        }
        None
    })
}

/// The offset in the source of byte `decoded` of the JSON string (or key)
/// whose token is `token` (quotes included), through its escapes.
pub(crate) fn source_offset(source: &str, token: Span, decoded: usize) -> Option<usize> {
    let bytes = source.as_bytes();
    if bytes.get(token.start) != Some(&b'"') {
        return None;
    }
    let mut at = token.start + 1;
    let mut count = 0;
    while at < token.end.min(bytes.len()) {
        if count >= decoded {
            return (count == decoded).then_some(at);
        }
        match bytes[at] {
            b'"' => break,
            b'\\' => {
                let (len, width) = escape(bytes, at)?;
                at += len;
                count += width;
            }
            _ => {
                let width = source[at..].chars().next()?.len_utf8();
                at += width;
                count += width;
            }
        }
    }
    (count == decoded).then_some(at)
}

/// [`source_offset`] for many decoded offsets (sorted), in one pass.
pub(crate) fn source_offsets(source: &str, token: Span, decoded: &[usize]) -> Vec<Option<usize>> {
    let bytes = source.as_bytes();
    let mut out = vec![None; decoded.len()];
    if bytes.get(token.start) != Some(&b'"') {
        return out;
    }
    let mut next = 0;
    let mut at = token.start + 1;
    let mut count = 0;
    loop {
        while next < decoded.len() && decoded[next] <= count {
            if decoded[next] == count {
                out[next] = Some(at);
            }
            next += 1;
        }
        if next == decoded.len() || at >= token.end.min(bytes.len()) || bytes[at] == b'"' {
            return out;
        }
        let step = if bytes[at] == b'\\' {
            escape(bytes, at)
        } else {
            source[at..]
                .chars()
                .next()
                .map(|c| (c.len_utf8(), c.len_utf8()))
        };
        let Some((len, width)) = step else {
            return out;
        };
        at += len;
        count += width;
    }
}

/// An escape at `at`: how many source bytes it takes and how many bytes
/// it decodes to.
fn escape(bytes: &[u8], at: usize) -> Option<(usize, usize)> {
    if bytes.get(at + 1) != Some(&b'u') {
        return Some((2, 1));
    }
    let unit = hex4(bytes, at + 2)?;
    if (0xD800..0xDC00).contains(&unit)
        && bytes.get(at + 6) == Some(&b'\\')
        && bytes.get(at + 7) == Some(&b'u')
        && hex4(bytes, at + 8).is_some_and(|low| (0xDC00..0xE000).contains(&low))
    {
        return Some((12, 4));
    }
    let width = char::from_u32(unit).map_or(3, char::len_utf8);
    Some((6, width))
}

fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = std::str::from_utf8(bytes.get(at..at + 4)?).ok()?;
    u32::from_str_radix(digits, 16).ok()
}

/// A phrase of a tool's text quoted for a message: white space collapsed,
/// characters that render as nothing spelled out, long phrases cut.
pub(crate) fn quoted(phrase: &str) -> String {
    const LONGEST: usize = 100;
    let mut out = String::new();
    let mut count = 0;
    let mut space = false;
    for c in phrase.trim().chars() {
        if count >= LONGEST {
            out.push('…');
            break;
        }
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space {
            out.push(' ');
            count += 1;
            space = false;
        }
        if invisible::renders_as_nothing(c) || invisible::tag_ascii(c).is_some() || c.is_control() {
            out.push_str(&format!("\\u{{{:04X}}}", c as u32));
        } else {
            out.push(c);
        }
        count += 1;
    }
    format!("\"{out}\"")
}

/// Whether `word` occurs in `text` with no letter, digit or `_` around it.
pub(crate) fn word_at(text: &str, word: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    !word.is_empty()
        && text.match_indices(word).any(|(at, _)| {
            let before = text[..at].chars().next_back();
            let after = text[at + word.len()..].chars().next();
            !before.is_some_and(is_word) && !after.is_some_and(is_word)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_read_as_words() {
        assert_eq!(
            Normal::new("content_from_reading_ssh_id_rsa").text,
            "content from reading ssh id rsa"
        );
        assert_eq!(Normal::new("includeAllHistory").text, "include all history");
    }

    #[test]
    fn appended_text_is_the_normal_text() {
        let mut scratch = Normal::default();
        for original in [
            "Reads a FILE.",
            "max_results",
            "includeAllHistory",
            "ÜBER_alles",
            "a\u{E0068}\u{200B}b",
            "tab\there",
            "",
        ] {
            let mut out = String::from("x\n");
            append_normal(&mut out, original, Shape::of(original), &mut scratch);
            assert_eq!(
                out,
                format!("x\n{}", Normal::new(original).text),
                "{original:?}"
            );
        }
    }

    #[test]
    fn tags_are_spelled_and_offsets_map_back() {
        let original = "a\u{E0068}\u{E0069}\u{200B}b";
        let normal = Normal::new(original);
        assert_eq!(normal.text, "ahib");
        assert_eq!(normal.original(1), 1);
        assert_eq!(normal.original(3), original.len() - 1);
    }

    #[test]
    fn sentences_split_at_stops_and_blank_lines() {
        let text = "one two. three\nfour\n\nfive";
        let got: Vec<&str> = sentences(text).map(|r| &text[r]).collect();
        assert_eq!(got, ["one two.", " three\nfour\n", "\nfive"]);
    }

    #[test]
    fn character_references_are_read_as_their_characters() {
        let normal = Normal::new("Returns it. &#73;gnore &lt;b&gt; AT&T &#xZZ; &;");
        assert_eq!(normal.text, "returns it. ignore <b> at&t &#xzz; &;");
        let at = normal.text.find("ignore").unwrap();
        assert_eq!(normal.original_range(at..at + 6), 12..22);
    }

    #[test]
    fn offsets_go_through_escapes() {
        let source = r#""a\u200bb\ud83d\ude00c""#;
        let token = Span::new(0, source.len());
        // "a" 1 byte, U+200B 3 bytes, "b", then a 4-byte emoji, then "c".
        assert_eq!(source_offset(source, token, 0), Some(1));
        assert_eq!(source_offset(source, token, 1), Some(2));
        assert_eq!(source_offset(source, token, 4), Some(8));
        assert_eq!(source_offset(source, token, 5), Some(9));
        assert_eq!(source_offset(source, token, 9), Some(21));
    }
}
