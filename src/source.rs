//! Source text and positions.
//!
//! Everything inside toolc speaks in byte spans; line and column numbers are
//! computed only when a diagnostic is rendered. Columns are 1-based and count
//! characters (not bytes), which is what editors show.
//!
//! Reading a file from disk with a size limit ([`read_regular_file`]) is
//! here too: every reader of manifests and package code goes through it.

use std::io::Read;
use std::path::Path;
use std::sync::{Arc, OnceLock};

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
    /// Where each line starts, found on the first position asked for:
    /// most sources of a large run are never asked.
    line_starts: OnceLock<Vec<usize>>,
    ascii: bool,
    /// Characters before each [`BLOCK`]-byte block of a non-ASCII text,
    /// built on the first column query, so columns on long lines (minified
    /// files) cost a block's scan, not the line's.
    chars_before_block: OnceLock<Vec<usize>>,
}

/// Small: a finding may ask for a column per hidden character (a fix that
/// removes each of a million), and the table costs a word per block.
const BLOCK: usize = 256;

/// What a text was when a run read it: its length and a hash of it. A run
/// that lets go of a file's text and reads the file again later (to show a
/// snippet, or to generate from it) compares fingerprints, so positions
/// found in the first text are never shown in, and nothing is generated
/// from, a text that changed meanwhile, even to one of the same length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fingerprint {
    len: usize,
    hash: u64,
}

/// The hasher of every fingerprint in a run: one seed for the whole run,
/// chosen at random. The texts are the user's, and a fixed seed would let
/// a file be crafted to collide with another.
pub(crate) fn run_hasher() -> impl std::hash::Hasher {
    use std::hash::BuildHasher;
    static SEED: OnceLock<foldhash::quality::RandomState> = OnceLock::new();
    SEED.get_or_init(foldhash::quality::RandomState::default)
        .build_hasher()
}

impl Fingerprint {
    pub fn of(text: &str) -> Fingerprint {
        use std::hash::Hasher;
        let mut hasher = run_hasher();
        hasher.write(text.as_bytes());
        Fingerprint {
            len: text.len(),
            hash: hasher.finish(),
        }
    }

    /// The text's length in bytes.
    pub fn text_len(self) -> usize {
        self.len
    }
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
        Source {
            path: path.into(),
            ascii: text.is_ascii(),
            text,
            line_starts: OnceLock::new(),
            chars_before_block: OnceLock::new(),
        }
    }

    fn line_starts(&self) -> &[usize] {
        self.line_starts.get_or_init(|| {
            let newlines = memchr::memchr_iter(b'\n', self.text.as_bytes());
            std::iter::once(0).chain(newlines.map(|i| i + 1)).collect()
        })
    }

    /// How many characters precede the byte offset (a character boundary).
    fn chars_before(&self, offset: usize) -> usize {
        if self.ascii {
            return offset;
        }
        let blocks = self.chars_before_block.get_or_init(|| {
            let mut counts = vec![0];
            let mut total = 0;
            for block in self.text.as_bytes().chunks(BLOCK) {
                total += count_chars(block);
                counts.push(total);
            }
            counts
        });
        let block = offset / BLOCK;
        blocks[block] + count_chars(&self.text.as_bytes()[block * BLOCK..offset])
    }

    /// The span of the character starting at `offset`: one whole character
    /// (even a multi-byte one), or empty at the end of the text.
    pub fn char_span(&self, offset: usize) -> Span {
        let offset = offset.min(self.text.len());
        let width = self
            .text
            .get(offset..)
            .and_then(|rest| rest.chars().next())
            .map_or(0, char::len_utf8);
        Span::new(offset, offset + width)
    }

    /// The 0-based index of the line holding a byte offset.
    pub fn line_index(&self, offset: usize) -> usize {
        match self
            .line_starts()
            .binary_search(&offset.min(self.text.len()))
        {
            Ok(i) => i,
            Err(i) => i - 1,
        }
    }

    /// How many lines the text has (a final line without a newline counts).
    pub fn line_count(&self) -> usize {
        self.line_starts().len()
    }

    /// The byte range of a 0-based line, its line break included.
    pub fn line_span(&self, line: usize) -> Span {
        let start = self
            .line_starts()
            .get(line)
            .copied()
            .unwrap_or(self.text.len());
        let end = self
            .line_starts()
            .get(line + 1)
            .copied()
            .unwrap_or(self.text.len());
        Span::new(start, end)
    }

    /// The line and column of a byte offset. Offsets past the end clamp to
    /// the end; offsets inside a multi-byte character count that character.
    pub fn line_col(&self, offset: usize) -> LineCol {
        let offset = offset.min(self.text.len());
        let line_index = self.line_index(offset);
        let line_start = self.line_starts()[line_index];
        let mut end = offset;
        while end > line_start && !self.text.is_char_boundary(end) {
            end -= 1;
        }
        let column = self.chars_before(end) - self.chars_before(line_start) + 1;
        LineCol {
            line: line_index + 1,
            column,
        }
    }
}

/// Characters in UTF-8 bytes: every byte that does not continue a character.
fn count_chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count()
}

/// Why a file could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// Larger than the limit (its size in bytes); it was not read.
    TooLarge(u64),
    /// Not a regular file, or the system refused it (the reason).
    Io(String),
}

/// A regular file's bytes, at most `limit` of them. Only regular files are
/// opened, so a FIFO or a device named like a manifest cannot block.
pub fn read_regular_file(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let io = |e: std::io::Error| ReadError::Io(format!("cannot read: {e}"));
    let metadata = std::fs::metadata(path).map_err(io)?;
    if !metadata.is_file() {
        return Err(ReadError::Io("cannot read: not a regular file".to_string()));
    }
    if metadata.len() > limit {
        return Err(ReadError::TooLarge(metadata.len()));
    }
    let file = std::fs::File::open(path).map_err(io)?;
    // Read at most one byte past the limit: the file may grow after stat.
    let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0));
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge(bytes.len() as u64));
    }
    Ok(bytes)
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

    #[test]
    fn columns_on_long_non_ascii_lines_match_counting() {
        let line: String = "aé€😀".repeat(3000);
        let text = format!("x\n{line}\n");
        let source = Source::new("x", text.clone());
        for (offset, _) in text.char_indices().step_by(997) {
            let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
            let expected = text[line_start..offset].chars().count() + 1;
            assert_eq!(source.line_col(offset).column, expected, "offset {offset}");
        }
    }
}
