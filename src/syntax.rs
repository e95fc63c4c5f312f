//! Syntax errors in the code toolc reads beside manifests (Python,
//! TypeScript): where the parser first could not make sense of the text.

/// Why a text does not parse: the first place the parser could not make
/// sense of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// Byte offset into the text.
    pub offset: usize,
    /// 1-based line of `offset`.
    pub line: usize,
    /// 1-based column of `offset`, in characters.
    pub column: usize,
    /// What is wrong, e.g. `invalid syntax` or `missing ":"`.
    pub message: String,
}

impl std::fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at {}:{}", self.message, self.line, self.column)
    }
}

impl std::error::Error for SyntaxError {}

/// 1-based line and column (in characters) of a byte offset; an offset
/// inside a character counts that character.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut at = offset.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// A syntax error at `offset` of `text`.
pub(crate) fn error_at(text: &str, offset: usize, message: &str) -> SyntaxError {
    let (line, column) = line_column(text, offset);
    SyntaxError {
        offset: offset.min(text.len()),
        line,
        column,
        message: message.to_string(),
    }
}

/// How deep brackets may nest in the code toolc parses. The parser's time
/// and memory grow with depth (a TypeScript file nested a million levels
/// took 7 s and 1.4 GB; a tenth of that, under a second). The readers
/// cope with thousands of levels (what is too deep for them is left out),
/// and strings holding unbalanced brackets count too, so the bound is far
/// above any real code.
pub(crate) const MAX_NESTING: usize = 100_000;

/// A syntax error where the brackets of `text` (`(`, `[`, `{`) first nest
/// deeper than [`MAX_NESTING`]. They are counted wherever they stand,
/// strings and comments included: a quick upper bound, checked before the
/// parser runs, that real code does not come near.
pub(crate) fn too_deep(text: &str) -> Option<SyntaxError> {
    let mut depth = 0usize;
    for (offset, byte) in text.bytes().enumerate() {
        match byte {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    let message = format!("brackets nested deeper than {MAX_NESTING} levels");
                    return Some(error_at(text, offset, &message));
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}
