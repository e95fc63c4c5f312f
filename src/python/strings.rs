//! The value of a Python string literal, and the cleaning `inspect`
//! gives a docstring: what Python itself would make of the text, so that
//! a docstring toolc writes reads back as the text it was written from
//! (escapes undone, lines kept), and one a developer wrote reads as
//! Python's tools (`inspect.getdoc`) read it.

/// The value of a string literal's source text: the characters between
/// its quotes, its newlines made `\n` (Python's tokenizer reads `\r\n`
/// and `\r` so) and, unless it is raw, its escapes undone. `None` for
/// f-strings, t-strings and bytes, which are not docstrings.
pub(super) fn string_value(literal: &str) -> Option<String> {
    let quote_at = literal.find(['"', '\''])?;
    let prefix = literal[..quote_at].to_ascii_lowercase();
    if prefix.contains('f') || prefix.contains('b') || prefix.contains('t') {
        return None;
    }
    let quoted = &literal[quote_at..];
    let body = ["\"\"\"", "'''", "\"", "'"].into_iter().find_map(|quote| {
        let fits =
            quoted.len() >= 2 * quote.len() && quoted.starts_with(quote) && quoted.ends_with(quote);
        fits.then(|| quoted.get(quote.len()..quoted.len() - quote.len()))
            .flatten()
    })?;
    let body = body.replace("\r\n", "\n").replace('\r', "\n");
    Some(if prefix.contains('r') {
        body
    } else {
        unescape(&body)
    })
}

/// Python's escape sequences undone: `\\`, the quotes, `\a \b \f \n \r
/// \t \v`, octal, `\xhh`, `\uhhhh`, `\Uhhhhhhhh`, and a backslash before a
/// newline (the line goes on). An escape Python does not know (`\d`), or
/// `\N{...}` (whose names toolc has no table of), keeps its backslash, as
/// Python keeps an unknown one.
fn unescape(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(&next) = chars.peek() else {
            out.push('\\');
            break;
        };
        let simple = match next {
            '\n' => Some(None),
            '\\' => Some(Some('\\')),
            '\'' => Some(Some('\'')),
            '"' => Some(Some('"')),
            'a' => Some(Some('\u{7}')),
            'b' => Some(Some('\u{8}')),
            'f' => Some(Some('\u{c}')),
            'n' => Some(Some('\n')),
            'r' => Some(Some('\r')),
            't' => Some(Some('\t')),
            'v' => Some(Some('\u{b}')),
            _ => None,
        };
        if let Some(value) = simple {
            chars.next();
            out.extend(value);
            continue;
        }
        let digits = |chars: &mut std::iter::Peekable<std::str::Chars>, radix, most| {
            let mut text = String::new();
            while text.len() < most
                && let Some(&d) = chars.peek()
                && d.is_digit(radix)
            {
                text.push(d);
                chars.next();
            }
            text
        };
        let mut lookahead = chars.clone();
        let (text, radix, need) = match next {
            '0'..='7' => (digits(&mut lookahead, 8, 3), 8, 1),
            'x' | 'u' | 'U' => {
                lookahead.next();
                let need = match next {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                (digits(&mut lookahead, 16, need), 16, need)
            }
            _ => (String::new(), 16, 1),
        };
        let value = (text.len() >= need)
            .then(|| u32::from_str_radix(&text, radix).ok())
            .flatten()
            .and_then(char::from_u32);
        match value {
            Some(value) => {
                out.push(value);
                chars = lookahead;
            }
            // Not an escape Python knows (or one it refuses): as written.
            None => out.push('\\'),
        }
    }
    out
}

/// Python's `inspect.cleandoc`: tabs expanded (to tab stops of 8), the
/// first line's leading whitespace removed, the least indentation of the
/// other lines that are not blank removed from each of them, empty lines
/// at the start and end dropped. Nothing else: a line's trailing
/// whitespace stays, as in Python.
pub(super) fn cleandoc(doc: &str) -> String {
    let expanded = expand_tabs(doc);
    let mut lines: Vec<&str> = expanded.split('\n').collect();
    let indent = |line: &str| line.chars().take_while(|c| c.is_whitespace()).count();
    let margin = lines
        .iter()
        .skip(1)
        .filter(|l| !l.trim_start().is_empty())
        .map(|l| indent(l))
        .min();
    let mut cleaned: Vec<String> = Vec::with_capacity(lines.len());
    if let Some(first) = lines.first_mut() {
        cleaned.push(first.trim_start().to_string());
    }
    for line in lines.iter().skip(1) {
        let skip = margin.unwrap_or(0);
        cleaned.push(line.chars().skip(skip).collect());
    }
    while cleaned.last().is_some_and(String::is_empty) {
        cleaned.pop();
    }
    let start = cleaned.iter().take_while(|l| l.is_empty()).count();
    cleaned[start..].join("\n")
}

/// `str.expandtabs()`: each tab to the next column that is a multiple of
/// 8, columns counted from each line's start.
fn expand_tabs(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut column = 0;
    for c in text.chars() {
        match c {
            '\t' => {
                let spaces = 8 - column % 8;
                out.extend(std::iter::repeat_n(' ', spaces));
                column += spaces;
            }
            '\n' | '\r' => {
                out.push(c);
                column = 0;
            }
            c => {
                out.push(c);
                column += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_undone_as_python_does() {
        let value = |text: &str| string_value(text).expect("a string");
        assert_eq!(value(r#""a\\b\"c\'d""#), "a\\b\"c'd");
        assert_eq!(value(r#""\x41\101\u00e9\U0001F600\t\n""#), "AAé😀\t\n");
        assert_eq!(value("\"\"\"one \\\ntwo\"\"\""), "one two");
        assert_eq!(value(r#""\d \N{DASH} \x4""#), "\\d \\N{DASH} \\x4");
        assert_eq!(value(r#"r"\d\n""#), "\\d\\n");
        assert_eq!(value("'''a\r\nb'''"), "a\nb");
        assert_eq!(value(r#""\\""#), "\\");
        assert_eq!(string_value(r#"f"x""#), None);
        assert_eq!(string_value(r#"b"x""#), None);
    }

    #[test]
    fn cleandoc_is_pythons() {
        assert_eq!(
            cleandoc("  First.\n    Kept  \n      deeper\n\n    "),
            "First.\nKept  \n  deeper"
        );
        assert_eq!(cleandoc("\n\n    A\n    B\n\n"), "A\nB");
        assert_eq!(cleandoc("a\tb\n\tc"), "a       b\nc");
    }
}
