//! Positions as the client counts them: a line and a character offset in
//! the line, the offset in UTF-16 code units unless the client and server
//! agreed on UTF-8 bytes (LSP 3.17 `positionEncoding`). toolc's spans are
//! byte offsets; this is the one place the two meet.

use lsp_types::{Position, Range};

/// How characters in a line are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
}

impl Encoding {
    /// The name the protocol gives it.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Utf8 => "utf-8",
            Encoding::Utf16 => "utf-16",
        }
    }

    /// Units of `c` in this encoding.
    fn width(self, c: char) -> usize {
        match self {
            Encoding::Utf8 => c.len_utf8(),
            Encoding::Utf16 => c.len_utf16(),
        }
    }
}

/// Where each line of a text starts. A line ends at `\n`, `\r\n` or a lone
/// `\r`, as the protocol says.
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        let bytes = text.as_bytes();
        let mut at = 0;
        while let Some(found) = memchr::memchr2(b'\n', b'\r', &bytes[at..]) {
            let end = at + found;
            let next = if bytes[end] == b'\r' && bytes.get(end + 1) == Some(&b'\n') {
                end + 2
            } else {
                end + 1
            };
            starts.push(next);
            at = next;
        }
        LineIndex { starts }
    }

    /// The byte span of line `line` without its line break.
    fn line(&self, text: &str, line: usize) -> (usize, usize) {
        let start = self.starts[line];
        let mut end = self.starts.get(line + 1).copied().unwrap_or(text.len());
        let bytes = text.as_bytes();
        while end > start && matches!(bytes[end - 1], b'\n' | b'\r') {
            end -= 1;
        }
        (start, end)
    }

    /// The position of byte `offset` (moved back to a character boundary,
    /// and to the text's end when past it).
    pub fn position(&self, text: &str, offset: usize, encoding: Encoding) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&start| start <= offset) - 1;
        let (start, end) = self.line(text, line);
        // An offset inside a line break counts as the line's end.
        let upto = offset.min(end);
        let bytes = &text.as_bytes()[start..upto];
        // Counted over bytes, which the compiler vectorizes: a minified
        // manifest is one long line, and a position is asked for each tool.
        let character = match encoding {
            Encoding::Utf8 => bytes.len(),
            Encoding::Utf16 => {
                // A character is one unit, two outside the BMP (a 4-byte
                // sequence, lead byte 0xF0 and above).
                let characters = bytes.iter().filter(|&&b| (b as i8) >= -0x40).count();
                let astral = bytes.iter().filter(|&&b| b >= 0xF0).count();
                characters + astral
            }
        };
        Position::new(to_u32(line), to_u32(character))
    }

    pub fn range(&self, text: &str, start: usize, end: usize, encoding: Encoding) -> Range {
        Range::new(
            self.position(text, start, encoding),
            self.position(text, end.max(start), encoding),
        )
    }

    /// The byte offset of `position`: a line past the last is the text's
    /// end, a character past the line's end is the line's end (as the
    /// protocol asks), and one inside a character (half a surrogate pair)
    /// is the character's start.
    pub fn offset(&self, text: &str, position: Position, encoding: Encoding) -> usize {
        let line = position.line as usize;
        if line >= self.starts.len() {
            return text.len();
        }
        let (start, end) = self.line(text, line);
        let wanted = position.character as usize;
        let mut units = 0;
        for (at, c) in text[start..end].char_indices() {
            let width = encoding.width(c);
            if units + width > wanted {
                return start + at;
            }
            units += width;
        }
        end
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_end_at_each_kind_of_break() {
        let text = "a\nb\r\nc\rd";
        let index = LineIndex::new(text);
        for (offset, line, character) in [(0, 0, 0), (2, 1, 0), (5, 2, 0), (7, 3, 0), (8, 3, 1)] {
            assert_eq!(
                index.position(text, offset, Encoding::Utf16),
                Position::new(line, character),
                "offset {offset}"
            );
        }
        // Inside `\r\n`: the end of line 1.
        assert_eq!(
            index.position(text, 4, Encoding::Utf16),
            Position::new(1, 1)
        );
    }

    #[test]
    fn characters_count_in_the_agreed_units() {
        // 😀 is 4 bytes, 2 UTF-16 units; é is 2 bytes, 1 unit; a tab is 1.
        let text = "\t\"😀é\": 1\n";
        let index = LineIndex::new(text);
        let colon = text.find(':').unwrap_or_default();
        assert_eq!(
            index.position(text, colon, Encoding::Utf16),
            Position::new(0, 6)
        );
        assert_eq!(
            index.position(text, colon, Encoding::Utf8),
            Position::new(0, 9)
        );
        for encoding in [Encoding::Utf8, Encoding::Utf16] {
            let position = index.position(text, colon, encoding);
            assert_eq!(index.offset(text, position, encoding), colon);
        }
        // Half of the emoji's surrogate pair: its start.
        assert_eq!(index.offset(text, Position::new(0, 3), Encoding::Utf16), 2);
        // Past the line's end: the line's end; past the last line: the end.
        assert_eq!(
            index.offset(text, Position::new(0, 99), Encoding::Utf16),
            text.len() - 1
        );
        assert_eq!(
            index.offset(text, Position::new(9, 0), Encoding::Utf16),
            text.len()
        );
    }
}
