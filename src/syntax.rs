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

/// The languages whose code toolc parses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Language {
    Python,
    TypeScript,
}

/// A syntax error where `text` first nests deeper than [`MAX_NESTING`]
/// levels, counted before the parser runs as a quick upper bound that
/// real code does not come near:
///
/// - brackets (`(`, `[`, `{`), wherever they stand, strings and comments
///   included;
/// - outside strings and comments, operators chained within one
///   expression: `a ? b : c ? d : ...`, `!!!x`, `not not x`,
///   `a if b else c if d else ...`, `a.b.c...`, `a = b = ...` nest without
///   a bracket, one level an operator (a keyword that chains, such as
///   `not` or `typeof`, counts as one). Their count starts again at `;`,
///   at a `,` between items (of a list, an object, a call's arguments, a
///   declaration; in TypeScript a `,` in parentheses or a statement
///   chains a sequence, `a, (b, (c, ...))`, and counts), and at a line
///   break between two operands (a new statement, with or without a
///   semicolon), never inside a chain split over lines.
pub(crate) fn too_deep(text: &str, language: Language) -> Option<SyntaxError> {
    let bytes = text.as_bytes();
    let mut brackets = 0usize;
    for (offset, byte) in bytes.iter().enumerate() {
        match byte {
            b'(' | b'[' | b'{' => {
                brackets += 1;
                if brackets > MAX_NESTING {
                    let message = format!("brackets nested deeper than {MAX_NESTING} levels");
                    return Some(error_at(text, offset, &message));
                }
            }
            b')' | b']' | b'}' => brackets = brackets.saturating_sub(1),
            _ => {}
        }
    }
    let offset = Chains::new(language).deepest(bytes)?;
    let message = format!(
        "an expression nested deeper than {MAX_NESTING} levels (operators chained without brackets)"
    );
    Some(error_at(text, offset, &message))
}

/// The count of chained operators, per open bracket.
struct Chains {
    language: Language,
    /// For each open bracket level: whether a `,` there separates items
    /// (rather than chaining a sequence), and the operators chained.
    levels: Vec<(bool, usize)>,
    total: usize,
    /// The last token was an operator (a chain goes on over a line
    /// break); else an operand (a `(` after it opens a call).
    after_operator: bool,
    line_break: bool,
    /// The bracket level of the TypeScript declaration being read (0:
    /// none), whose `,` before `name =` or `name:` separates declarators.
    declaring: usize,
}

impl Chains {
    fn new(language: Language) -> Chains {
        Chains {
            language,
            levels: vec![(language == Language::Python, 0)],
            total: 0,
            after_operator: true,
            line_break: false,
            declaring: 0,
        }
    }

    /// Whether a `,` just before `at` separates the declarators of a
    /// TypeScript declaration: one at its level, before `name =` or
    /// `name:`.
    fn declarator_follows(&self, bytes: &[u8], at: usize) -> bool {
        if self.declaring != self.levels.len() {
            return false;
        }
        let rest = bytes.get(at..).unwrap_or_default();
        let rest = rest.trim_ascii_start();
        let name = rest
            .iter()
            .take_while(|b| **b == b'_' || **b == b'$' || b.is_ascii_alphanumeric())
            .count();
        let after = rest[name..].trim_ascii_start();
        name > 0
            && (after.first() == Some(&b':')
                || after.first() == Some(&b'=') && after.get(1) != Some(&b'='))
    }

    fn reset(&mut self) {
        if let Some(level) = self.levels.last_mut() {
            self.total -= level.1;
            level.1 = 0;
        }
    }

    fn chain(&mut self) {
        if let Some(level) = self.levels.last_mut() {
            level.1 += 1;
            self.total += 1;
        }
    }

    /// A token begins: a line break before it between two operands ends
    /// the statement.
    fn token(&mut self, operator: bool) {
        if self.line_break && !self.after_operator && !operator {
            self.reset();
        }
        self.line_break = false;
        self.after_operator = operator;
    }

    /// The offset where the chained operators first pass [`MAX_NESTING`].
    fn deepest(mut self, bytes: &[u8]) -> Option<usize> {
        let python = self.language == Language::Python;
        let mut at = 0;
        while at < bytes.len() {
            let byte = bytes[at];
            let start = at;
            at += 1;
            match byte {
                b'\n' => self.line_break = true,
                _ if byte.is_ascii_whitespace() => {}
                b'#' if python => at = skip_to(bytes, at, b"\n"),
                b'/' if !python && bytes.get(at) == Some(&b'/') => at = skip_to(bytes, at, b"\n"),
                b'/' if !python && bytes.get(at) == Some(&b'*') => {
                    at = skip_past(bytes, at + 1, b"*/");
                }
                b'\'' | b'"' | b'`' => {
                    self.token(false);
                    let triple = python && bytes.get(at..at + 2) == Some(&[byte, byte][..]);
                    at = if triple {
                        skip_past(bytes, at + 2, &[byte, byte, byte])
                    } else {
                        skip_string(bytes, at, byte)
                    };
                }
                b'(' | b'[' | b'{' => {
                    // Items: in a list, an object, a call's arguments (a
                    // `(` after an operand), and anything in Python.
                    let items = python || byte != b'(' || !self.after_operator;
                    self.token(true);
                    self.levels.push((items, 0));
                }
                b')' | b']' | b'}' => {
                    if self.levels.len() > 1 {
                        self.total -= self.levels.pop().map_or(0, |(_, count)| count);
                    }
                    self.token(false);
                }
                b';' => {
                    self.token(true);
                    self.reset();
                    self.declaring = 0;
                }
                b',' => {
                    self.token(true);
                    let items = self.levels.last().is_some_and(|(items, _)| *items);
                    if items || self.declarator_follows(bytes, at) {
                        self.reset();
                    } else {
                        self.chain();
                    }
                }
                _ if is_operator(byte) => {
                    self.token(true);
                    self.chain();
                }
                _ if byte == b'_' || byte.is_ascii_alphanumeric() => {
                    while at < bytes.len()
                        && (bytes[at] == b'_' || bytes[at].is_ascii_alphanumeric())
                    {
                        at += 1;
                    }
                    let word = &bytes[start..at];
                    if self.chains(word) {
                        self.token(true);
                        self.chain();
                    } else {
                        if !python && matches!(word, b"var" | b"let" | b"const") {
                            self.declaring = self.levels.len();
                        }
                        self.token(false);
                    }
                }
                _ => self.token(false),
            }
            if self.total > MAX_NESTING {
                return Some(start);
            }
        }
        None
    }

    /// Whether a word is a keyword that chains expressions.
    fn chains(&self, word: &[u8]) -> bool {
        match self.language {
            Language::Python => matches!(
                word,
                b"if" | b"else" | b"not" | b"and" | b"or" | b"lambda" | b"await" | b"in" | b"is"
            ),
            Language::TypeScript => matches!(
                word,
                b"typeof"
                    | b"void"
                    | b"await"
                    | b"new"
                    | b"delete"
                    | b"yield"
                    | b"in"
                    | b"instanceof"
            ),
        }
    }
}

/// The offset of the next `end` at or after `at` (or the end).
fn skip_to(bytes: &[u8], at: usize, end: &[u8]) -> usize {
    bytes[at.min(bytes.len())..]
        .windows(end.len())
        .position(|w| w == end)
        .map_or(bytes.len(), |i| at + i)
}

/// The offset just past the next `end` at or after `at` (or the end).
fn skip_past(bytes: &[u8], at: usize, end: &[u8]) -> usize {
    (skip_to(bytes, at, end) + end.len()).min(bytes.len())
}

/// The offset just past a string that opened with `quote` before `at`:
/// past its closing quote (a backslash escapes), or at its line break for
/// a quote that cannot span lines.
fn skip_string(bytes: &[u8], mut at: usize, quote: u8) -> usize {
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 2,
            b'\n' if quote != b'`' => return at,
            byte if byte == quote => return at + 1,
            _ => at += 1,
        }
    }
    bytes.len()
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

    fn deep(text: &str, language: Language) -> bool {
        too_deep(text, language).is_some()
    }

    #[test]
    fn chains_nest_and_statements_do_not() {
        let ts = Language::TypeScript;
        let py = Language::Python;
        let chained = |unit: &str, n: usize| format!("const v = {}0;", unit.repeat(n));
        for unit in ["x?1:", "!", "a.", "a=", "a=>", "a+", "(a,", "a,", "typeof "] {
            assert!(deep(&chained(unit, MAX_NESTING), ts), "{unit}");
        }
        for unit in ["1 if x else ", "not ", "-", "a."] {
            assert!(
                deep(&format!("v = {}0\n", unit.repeat(MAX_NESTING)), py),
                "{unit}"
            );
        }
        // Split over lines, a chain is still one expression.
        assert!(deep(&"x\n?1\n:".repeat(MAX_NESTING), ts));
        // Many statements, with or without semicolons, lists, objects,
        // tuples and calls of many items, declarations, strings and
        // comments full of operators, and a few deep chains, are fine.
        let fine = [
            ("const a = b.c.d + 1\n".repeat(MAX_NESTING), ts),
            ("x = a ? b : c;".repeat(MAX_NESTING), ts),
            (format!("[{}]", "a.b, ".repeat(MAX_NESTING)), ts),
            (format!("{{{}}}", "k: a.b, ".repeat(MAX_NESTING)), ts),
            (format!("f({})", "a.b, ".repeat(MAX_NESTING)), ts),
            (format!("var {}z=0;", "a=0,".repeat(MAX_NESTING)), ts),
            (
                format!("let {}z;", "a: number = 0, ".repeat(MAX_NESTING)),
                ts,
            ),
            (format!("const s = '{}';", "-".repeat(3 * MAX_NESTING)), ts),
            (
                format!("const s = `{}`;", "+\n".repeat(3 * MAX_NESTING)),
                ts,
            ),
            (
                format!(
                    "// {}\n/* {} */",
                    "!".repeat(3 * MAX_NESTING),
                    "?:".repeat(MAX_NESTING)
                ),
                ts,
            ),
            (chained("x?1:", 1000), ts),
            (format!("CODES = ({})\n", "1, ".repeat(MAX_NESTING)), py),
            (format!("SEP = '{}'\n", "-".repeat(3 * MAX_NESTING)), py),
            (
                format!("\"\"\"{}\"\"\"\n", "|---|---|\n".repeat(MAX_NESTING)),
                py,
            ),
            (format!("# {}\n", "=".repeat(3 * MAX_NESTING)), py),
            ("x = a if b else c\n".repeat(MAX_NESTING), py),
        ];
        for (text, language) in fine {
            assert!(!deep(&text, language), "{}", &text[..80.min(text.len())]);
        }
    }
}
