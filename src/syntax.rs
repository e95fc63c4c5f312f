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

/// A syntax error where `text` first nests deeper than [`MAX_NESTING`]
/// levels, counted before the parser runs as a quick upper bound that
/// real code does not come near:
///
/// - brackets (`(`, `[`, `{`), wherever they stand, strings and comments
///   included;
/// - operators chained within one expression: `a ? b : c ? d : ...`,
///   `!!!x`, `a.b.c...`, `a = b = ...` nest without a bracket, one level
///   an operator. Their count starts again at `;`, at a `,` that separates
///   the items of a `[...]` or `{...}` (one in `(...)` or outside brackets
///   may chain a sequence, `a, (b, (c, ...))`, and counts as an
///   operator), and at a line break between two operands (a new
///   statement, with or without a semicolon), never inside a chain split
///   over lines.
pub(crate) fn too_deep(text: &str) -> Option<SyntaxError> {
    let bytes = text.as_bytes();
    let mut brackets = 0usize;
    // The operators chained at each open bracket level (with the bracket
    // that opened it), and their sum.
    let mut chained: Vec<(u8, usize)> = vec![(b'(', 0)];
    let mut total = 0usize;
    let mut last = b';';
    let mut line_break = false;
    for (offset, &byte) in bytes.iter().enumerate() {
        if byte == b'\n' {
            line_break = true;
            continue;
        }
        if byte.is_ascii_whitespace() {
            continue;
        }
        let here = chained.len() - 1;
        if line_break && !is_operator(last) && !is_operator(byte) {
            total -= chained[here].1;
            chained[here].1 = 0;
        }
        line_break = false;
        match byte {
            b'(' | b'[' | b'{' => {
                brackets += 1;
                chained.push((byte, 0));
            }
            b')' | b']' | b'}' => {
                brackets = brackets.saturating_sub(1);
                if chained.len() > 1 {
                    total -= chained.pop().map_or(0, |(_, count)| count);
                }
            }
            b';' => {
                total -= chained[here].1;
                chained[here].1 = 0;
            }
            b',' if chained[here].0 != b'(' => {
                total -= chained[here].1;
                chained[here].1 = 0;
            }
            b',' => {
                chained[here].1 += 1;
                total += 1;
            }
            _ if is_operator(byte) => {
                chained[here].1 += 1;
                total += 1;
            }
            _ => {}
        }
        last = byte;
        if brackets > MAX_NESTING {
            let message = format!("brackets nested deeper than {MAX_NESTING} levels");
            return Some(error_at(text, offset, &message));
        }
        if brackets + total > MAX_NESTING {
            let message = format!(
                "an expression nested deeper than {MAX_NESTING} levels (operators chained without a bracket, such as `a ? b : c ? d : ...`)"
            );
            return Some(error_at(text, offset, &message));
        }
    }
    None
}

/// The bytes of the operators that chain expressions in Python and
/// TypeScript.
fn is_operator(byte: u8) -> bool {
    matches!(
        byte,
        b'?' | b':'
            | b'='
            | b'!'
            | b'+'
            | b'-'
            | b'*'
            | b'/'
            | b'%'
            | b'<'
            | b'>'
            | b'&'
            | b'|'
            | b'^'
            | b'~'
            | b'.'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chains_nest_and_statements_do_not() {
        let chained = |unit: &str, n: usize| format!("const v = {}0;", unit.repeat(n));
        for unit in ["x?1:", "!", "a.", "a=", "a=>", "a+", "(a,"] {
            let deep = chained(unit, MAX_NESTING);
            assert!(too_deep(&deep).is_some(), "{unit}");
        }
        // Split over lines, a chain is still one expression.
        assert!(too_deep(&"x\n?1\n:".repeat(MAX_NESTING)).is_some());
        // Many statements, with or without semicolons, lists and objects
        // of many items, and a few deep chains, are fine.
        let statements = "const a = b.c.d + 1\n".repeat(MAX_NESTING);
        assert!(too_deep(&statements).is_none());
        let with_semicolons = "x = a ? b : c;".repeat(MAX_NESTING);
        assert!(too_deep(&with_semicolons).is_none());
        let list = format!("[{}]", "a.b, ".repeat(MAX_NESTING));
        assert!(too_deep(&list).is_none());
        let object = format!("{{{}}}", "k: a.b, ".repeat(MAX_NESTING));
        assert!(too_deep(&object).is_none());
        assert!(too_deep(&chained("x?1:", 1000)).is_none());
    }
}
