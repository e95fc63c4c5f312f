//! Where a large module's top-level statements begin, found by a quick
//! scan, so that tree-sitter parses the module a run of statements at a
//! time and never holds the whole module's tree.
//!
//! tree-sitter keeps every node of the text it parses, hundreds of bytes
//! each: a 7 MB module of one-token lines took 2.4 GB, and so did one that
//! opens a triple-quoted string and never closes it (its error recovery
//! reads every line as code). Parsed in runs of about [`RUN_BYTES`], a
//! module's memory is its text and one run's tree. The scan also finds
//! what no run could hold: a string that never ends, and a single
//! statement of more than [`MAX_STATEMENT_TOKENS`] tokens.

use std::ops::Range;

/// About how many bytes of statements one parse reads.
pub(super) const RUN_BYTES: usize = 64 * 1024;

/// The most tokens (and escape sequences in strings, which tree-sitter
/// makes a node each) one top-level statement may hold: a `def` or a
/// literal ten times the size of any real one, whose tree takes tens of
/// megabytes.
pub(super) const MAX_STATEMENT_TOKENS: usize = 100_000;

/// Runs of whole top-level statements covering a text of `len` bytes
/// whose statements start at `starts` ([`scan`]), each about
/// [`RUN_BYTES`] long (or one statement when it is longer).
pub(super) fn runs(len: usize, starts: &[(usize, bool)]) -> Vec<Range<usize>> {
    let mut runs = Vec::new();
    let mut run_start = 0;
    for &(start, splittable) in starts {
        if splittable && start - run_start >= RUN_BYTES {
            runs.push(run_start..start);
            run_start = start;
        }
    }
    if run_start < len || runs.is_empty() {
        runs.push(run_start..len);
    }
    runs
}

/// The scanner's state between bytes.
struct Scan<'a> {
    bytes: &'a [u8],
    at: usize,
    /// Brackets open.
    depth: usize,
    /// The tokens of the statement being read, and where it began.
    tokens: usize,
    statement: usize,
}

impl Scan<'_> {
    fn token(&mut self) -> Result<(), (usize, String)> {
        self.tokens += 1;
        if self.tokens > MAX_STATEMENT_TOKENS {
            return Err((
                self.statement,
                format!(
                    "a statement of more than {MAX_STATEMENT_TOKENS} tokens and escapes, beyond what toolc reads in one statement"
                ),
            ));
        }
        Ok(())
    }

    /// Skips a string whose quote `quote` (tripled when `triple`) is at
    /// `self.at`, counting its escapes, and in an f-string (or t-string)
    /// its replacement fields, which tree-sitter makes nodes of too; an
    /// error for a triple-quoted one that never ends.
    fn string(&mut self, quote: u8, triple: bool) -> Result<(), (usize, String)> {
        let open = self.at;
        let formatted = formatted_prefix(&self.bytes[..open]);
        self.at += if triple { 3 } else { 1 };
        self.token()?;
        while self.at < self.bytes.len() {
            match self.bytes[self.at] {
                b'\\' => {
                    self.token()?;
                    self.at += 2;
                }
                b'{' if formatted => {
                    self.token()?;
                    self.at += 1;
                }
                b'\n' if !triple => return Ok(()),
                byte if byte == quote => {
                    if !triple {
                        self.at += 1;
                        return Ok(());
                    }
                    if self.bytes.get(self.at..self.at + 3) == Some(&[quote; 3][..]) {
                        self.at += 3;
                        return Ok(());
                    }
                    self.at += 1;
                }
                _ => self.at += 1,
            }
        }
        if triple {
            return Err((
                open,
                "unterminated triple-quoted string literal".to_string(),
            ));
        }
        Ok(())
    }
}

/// Whether the string prefix that ends `before` (the letters right
/// before a quote, at most three: `f`, `rf`, `Fr`, `t`...) makes a
/// formatted string.
fn formatted_prefix(before: &[u8]) -> bool {
    let letters = before
        .iter()
        .rev()
        .take(4)
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count();
    let prefix = &before[before.len() - letters..];
    letters <= 3
        && prefix.iter().all(|b| b"rRbBuUfFtT".contains(b))
        && prefix.iter().any(|b| b"fFtT".contains(b))
}

/// What a scan of a module finds.
pub(super) struct Scanned {
    /// Each top-level statement's offset after the first, and whether a
    /// run may end before it (not between a decorator and what it
    /// decorates).
    pub(super) starts: Vec<(usize, bool)>,
    /// The comments that are alone on their line, from `#` to the line
    /// break (a `\r` before it left out).
    pub(super) comment_lines: Vec<Range<usize>>,
}

/// Scans a module for its statements and comment lines.
pub(super) fn scan(bytes: &[u8]) -> Result<Scanned, (usize, String)> {
    let mut scan = Scan {
        bytes,
        at: 0,
        depth: 0,
        tokens: 0,
        statement: 0,
    };
    let mut starts = Vec::new();
    let mut comment_lines = Vec::new();
    let mut decorator = bytes.first() == Some(&b'@');
    // Whether the line being read goes on past its break (a backslash).
    let mut continued = false;
    // Whether the line being read has held only blanks so far.
    let mut blank = true;
    while scan.at < bytes.len() {
        let byte = bytes[scan.at];
        match byte {
            b'\n' => {
                scan.at += 1;
                blank = true;
                if scan.depth == 0 && !continued && begins_statement(&bytes[scan.at..]) {
                    starts.push((scan.at, !decorator));
                    decorator = bytes[scan.at] == b'@';
                    scan.tokens = 0;
                    scan.statement = scan.at;
                }
                continued = false;
                continue;
            }
            b'\\' => {
                blank = false;
                continued = bytes.get(scan.at + 1) == Some(&b'\n')
                    || bytes.get(scan.at + 1..scan.at + 3) == Some(b"\r\n");
                scan.at += 1;
                continue;
            }
            b'#' => {
                // A comment line is blanked before parsing (see
                // `python::parse`): no node, no token.
                if !blank {
                    scan.token()?;
                }
                let start = scan.at;
                while scan.at < bytes.len() && bytes[scan.at] != b'\n' {
                    scan.at += 1;
                }
                if blank {
                    let end = if bytes[..scan.at].ends_with(b"\r") {
                        scan.at - 1
                    } else {
                        scan.at
                    };
                    comment_lines.push(start..end.max(start));
                }
                continue;
            }
            b'\'' | b'"' => {
                blank = false;
                let triple = bytes.get(scan.at..scan.at + 3) == Some(&[byte; 3][..]);
                scan.string(byte, triple)?;
                continue;
            }
            b'(' | b'[' | b'{' => scan.depth += 1,
            b')' | b']' | b'}' => scan.depth = scan.depth.saturating_sub(1),
            _ if byte.is_ascii_whitespace() => {
                scan.at += 1;
                continue;
            }
            _ => {}
        }
        blank = false;
        if byte == b'_' || byte.is_ascii_alphanumeric() || byte >= 0x80 {
            while scan.at < bytes.len()
                && (bytes[scan.at] == b'_'
                    || bytes[scan.at].is_ascii_alphanumeric()
                    || bytes[scan.at] >= 0x80)
            {
                scan.at += 1;
            }
        } else {
            scan.at += 1;
        }
        continued = false;
        scan.token()?;
    }
    Ok(Scanned {
        starts,
        comment_lines,
    })
}

/// Whether a line that starts at the top level with `line` begins a
/// statement: it is not blank, not a comment (which may sit at column 0
/// inside a block), and not the `else`, `elif`, `except` or `finally` of
/// the statement before.
fn begins_statement(line: &[u8]) -> bool {
    let Some(&first) = line.first() else {
        return false;
    };
    if first.is_ascii_whitespace() || first == b'#' {
        return false;
    }
    let word = line
        .iter()
        .take_while(|b| **b == b'_' || b.is_ascii_alphanumeric())
        .count();
    !matches!(&line[..word], b"else" | b"elif" | b"except" | b"finally")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The runs of `text`, or what the scan found that no run could hold.
    fn runs_of(text: &str) -> Result<Vec<Range<usize>>, (usize, String)> {
        Ok(runs(text.len(), &scan(text.as_bytes())?.starts))
    }

    fn texts(text: &str) -> Vec<&str> {
        runs_of(text)
            .expect("runs")
            .into_iter()
            .map(|r| &text[r])
            .collect()
    }

    #[test]
    fn a_small_module_is_one_run() {
        let text = "import os\n\ndef f():\n    return 1\n";
        assert_eq!(texts(text), [text]);
    }

    #[test]
    fn runs_end_only_between_whole_statements() {
        let body = "def f(a):\n    x = '''\nnot a statement\n'''\n# column 0\n    return (\n1)\n";
        let decorated =
            "@decorator\ndef g():\n    pass\nelse_ = 1\ntry:\n    pass\nexcept E:\n    pass\n";
        let text = format!("{}{decorated}", body.repeat(RUN_BYTES / body.len() + 1));
        let runs = texts(&text);
        assert!(runs.len() >= 2, "{}", runs.len());
        assert_eq!(runs.concat(), text);
        for run in &runs {
            assert!(
                run.starts_with("def f(a):") || run.starts_with("@decorator"),
                "{:?}",
                &run[..20]
            );
        }
    }

    #[test]
    fn an_unterminated_triple_quoted_string_is_found() {
        let text = format!("x = 1\ny = \"\"\"{}", "a\n".repeat(10));
        assert_eq!(
            runs_of(&text),
            Err((10, "unterminated triple-quoted string literal".to_string()))
        );
        // An escaped quote does not end it, and a closed one is fine.
        assert!(runs_of("s = \"\"\"a\\\"\"\"\"\n").is_ok());
    }

    #[test]
    fn a_statement_of_too_many_tokens_is_refused() {
        let text = format!("t = 1\nx = [{}]\n", "1,".repeat(MAX_STATEMENT_TOKENS));
        let (at, message) = runs_of(&text).expect_err("too many");
        assert_eq!(at, 6);
        assert!(message.contains("more than 100000 tokens"), "{message}");
        let escapes = format!("x = \"{}\"\n", "\\n".repeat(MAX_STATEMENT_TOKENS));
        assert!(runs_of(&escapes).is_err());
    }

    /// A module parsed a run at a time reads as the whole: every
    /// definition, at its place.
    #[test]
    fn the_fields_of_an_f_string_count_as_tokens() {
        let fields = "{a}".repeat(MAX_STATEMENT_TOKENS);
        for prefix in ["f", "F", "rf", "fR", "t"] {
            let text = format!("x = {prefix}\"{fields}\"\n");
            assert!(runs_of(&text).is_err(), "{prefix}");
        }
        // Braces in a plain string, or after a name ending in f, are text.
        for prefix in ["", "r", "b", "self.f("] {
            let text = format!("x = {prefix}\"{fields}\"\n");
            assert!(runs_of(&text).is_ok(), "{prefix:?}");
        }
        assert!(formatted_prefix(b"x = f"));
        assert!(!formatted_prefix(b"x = elf"));
        assert!(!formatted_prefix(b"x = "));
    }

    #[test]
    fn a_large_module_parses_as_one() {
        let mut text = String::from("import os\n");
        for i in 0..3000 {
            text.push_str(&format!(
                "@decorate\ndef f{i}(a: int, b: str = \"x\") -> str:\n    \"\"\"Doc {i}.\n\ndef not_one(): pass\n\"\"\"\n# at column 0\n    return (\nb)\n\n"
            ));
        }
        text.push_str("try:\n    import json\nexcept ImportError:\n    pass\n");
        assert!(runs_of(&text).expect("runs").len() > 3);
        let module = crate::python::parse(&text).expect("parses");
        assert_eq!(module.functions.len(), 3000);
        let last = &module.functions[2999];
        assert_eq!(last.name, "f2999");
        assert_eq!(last.parameters.len(), 2);
        assert_eq!(&text[last.name_span.clone()], "f2999");
        assert_eq!(
            last.docstring.as_deref(),
            Some("Doc 2999.\n\ndef not_one(): pass")
        );
        // An error in a late run is reported where it is.
        let broken = format!("{text}def g(:\n    pass\n");
        let error = crate::python::parse(&broken).expect_err("broken");
        assert_eq!(error.line, text.matches('\n').count() + 1, "{error}");
    }
}
