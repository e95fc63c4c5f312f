//! Source text and positions.
//!
//! Everything inside toolc speaks in byte spans; line and column numbers are
//! computed only when a diagnostic is rendered. Columns are 1-based and count
//! characters (not bytes), which is what editors show.

use std::sync::Arc;

/// A half-open byte range into a [`Source`]'s text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    pub fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One file's text, as read (a leading UTF-8 byte order mark removed).
#[derive(Debug, Clone)]
pub struct Source {
    /// The path as the user named it or as the walk found it.
    pub path: String,
    pub text: Arc<str>,
    line_starts: Vec<usize>,
}

/// A 1-based line and character column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineCol {
    pub line: usize,
    pub column: usize,
}

impl Source {
    pub fn new(path: impl Into<String>, text: impl Into<Arc<str>>) -> Self {
        let text: Arc<str> = text.into();
        let mut line_starts = vec![0];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        Source {
            path: path.into(),
            text,
            line_starts,
        }
    }

    /// The line and column of a byte offset. Offsets past the end clamp to
    /// the end; offsets inside a multi-byte character count that character.
    pub fn line_col(&self, offset: usize) -> LineCol {
        let offset = offset.min(self.text.len());
        let line_index = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let line_start = self.line_starts[line_index];
        let mut end = offset;
        while end > line_start && !self.text.is_char_boundary(end) {
            end -= 1;
        }
        let column = self.text[line_start..end].chars().count() + 1;
        LineCol {
            line: line_index + 1,
            column,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_characters_not_bytes() {
        let source = Source::new("x", "{\n  \"é\": 1\n}");
        let colon = source.text.find(':').unwrap_or(0);
        assert_eq!(source.line_col(colon), LineCol { line: 2, column: 6 });
        assert_eq!(source.line_col(0), LineCol { line: 1, column: 1 });
        assert_eq!(source.line_col(1000).line, 3);
    }
}
