//! Python source text for values the templates place: literals laid out to
//! fit the line, and prose wrapped and escaped for docstrings.
//!
//! Generated code passes `ruff check --select E,F,W`, line length (88)
//! included, so a long description or a large schema literal must break
//! across lines the way a formatter would: flat when it fits, else one item
//! per line with a trailing comma, long strings split into implicitly
//! concatenated pieces inside parentheses. The templates own the layout of
//! everything else; a laid-out value's continuation lines are indented
//! relative to the line it starts on, so a template places it with
//! minijinja's `indent` filter.

use serde_json::Value;

/// The line length generated code keeps to (ruff's default).
pub(crate) const LINE_LENGTH: usize = 88;
/// The width prose is wrapped to in docstrings: fits at the indentation of
/// a method docstring's argument descriptions (16 columns).
pub(crate) const TEXT_WIDTH: usize = 72;
const INDENT: usize = 4;

/// A Python expression, to be laid out.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Expr {
    /// Source text used as it is: a name, a number, `True`.
    Atom(String),
    /// A string value (rendered as a literal; split when too long).
    Str(String),
    /// `head` followed by bracketed items: a list, a dict, a call, a
    /// subscript. `trailing_comma` says whether a broken layout may end with a
    /// comma (not in subscripts: `Optional[str,]` is a tuple).
    Seq {
        head: String,
        open: char,
        close: char,
        items: Vec<Expr>,
        trailing_comma: bool,
    },
    /// `A | B | None`: alternatives of a type hint.
    Union(Vec<Expr>),
    /// `key: value` in a dict, or `name=value` in a call (`separator`).
    Pair {
        key: Box<Expr>,
        separator: &'static str,
        value: Box<Expr>,
    },
}

impl Expr {
    pub(crate) fn atom(text: impl Into<String>) -> Expr {
        Expr::Atom(text.into())
    }

    pub(crate) fn list(items: Vec<Expr>) -> Expr {
        Expr::Seq {
            head: String::new(),
            open: '[',
            close: ']',
            items,
            trailing_comma: true,
        }
    }

    pub(crate) fn subscript(head: &str, items: Vec<Expr>) -> Expr {
        Expr::Seq {
            head: head.to_string(),
            open: '[',
            close: ']',
            items,
            trailing_comma: false,
        }
    }

    /// `key=value` in a call (`separator` `=`), or `"key": value`.
    pub(crate) fn pair(key: &str, separator: &'static str, value: Expr) -> Expr {
        Expr::Pair {
            key: Box::new(Expr::atom(key)),
            separator,
            value: Box::new(value),
        }
    }

    pub(crate) fn union(alternatives: Vec<Expr>) -> Expr {
        Expr::Union(alternatives)
    }

    /// A dict literal from a JSON value, or any JSON value as a Python
    /// literal (`true` → `True`, `null` → `None`).
    pub(crate) fn from_json(value: &Value) -> Expr {
        match value {
            Value::Null => Expr::atom("None"),
            Value::Bool(true) => Expr::atom("True"),
            Value::Bool(false) => Expr::atom("False"),
            Value::Number(n) => Expr::atom(n.to_string()),
            Value::String(s) => Expr::Str(s.clone()),
            Value::Array(items) => Expr::list(items.iter().map(Expr::from_json).collect()),
            Value::Object(members) => Expr::Seq {
                head: String::new(),
                open: '{',
                close: '}',
                items: members
                    .iter()
                    .map(|(k, v)| Expr::Pair {
                        key: Box::new(Expr::Str(k.clone())),
                        separator: ": ",
                        value: Box::new(Expr::from_json(v)),
                    })
                    .collect(),
                trailing_comma: true,
            },
        }
    }

    /// The expression on one line.
    pub(crate) fn flat(&self) -> String {
        match self {
            Expr::Atom(text) => text.clone(),
            Expr::Str(s) => string_literal(s),
            Expr::Seq {
                head,
                open,
                close,
                items,
                ..
            } => {
                let inner: Vec<String> = items.iter().map(Expr::flat).collect();
                format!("{head}{open}{}{close}", inner.join(", "))
            }
            Expr::Union(alternatives) => {
                let flat: Vec<String> = alternatives.iter().map(Expr::flat).collect();
                flat.join(" | ")
            }
            Expr::Pair {
                key,
                separator,
                value,
            } => format!("{}{separator}{}", key.flat(), value.flat()),
        }
    }

    /// The expression laid out to start at column `column` of a line
    /// indented by `indent`, with `suffix` characters following it on its
    /// last line. Continuation lines are indented relative to `indent`.
    pub(crate) fn layout(&self, indent: usize, column: usize, suffix: usize) -> String {
        let flat = self.flat();
        if column + flat.chars().count() + suffix <= LINE_LENGTH {
            return flat;
        }
        let inner = " ".repeat(INDENT);
        match self {
            Expr::Atom(_) => flat,
            // Only a long Literal breaks: its items go on lines of their own.
            Expr::Union(alternatives) => {
                let mut column = column;
                let last = alternatives.len().saturating_sub(1);
                let mut parts = Vec::new();
                for (i, alternative) in alternatives.iter().enumerate() {
                    let rest = if i < last { 3 } else { suffix };
                    let text = alternative.layout(indent, column, rest);
                    column = match text.rsplit_once('\n') {
                        Some((_, line)) => indent + line.chars().count() + 3,
                        None => column + text.chars().count() + 3,
                    };
                    parts.push(text);
                }
                parts.join(" | ")
            }
            Expr::Str(s) => {
                let pieces = split_string(s, LINE_LENGTH.saturating_sub(indent + INDENT));
                let lines: Vec<String> = pieces.iter().map(|p| format!("{inner}{p}")).collect();
                format!("(\n{}\n)", lines.join("\n"))
            }
            Expr::Seq {
                head,
                open,
                close,
                items,
                trailing_comma,
            } => {
                if items.is_empty() {
                    return flat;
                }
                let child = indent + INDENT;
                let last = items.len() - 1;
                let lines: Vec<String> = items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| {
                        let comma = i < last || *trailing_comma;
                        let text = item.layout(child, child, usize::from(comma));
                        let text = indent_continuation(&text, INDENT);
                        format!("{inner}{text}{}", if comma { "," } else { "" })
                    })
                    .collect();
                format!("{head}{open}\n{}\n{close}", lines.join("\n"))
            }
            Expr::Pair {
                key,
                separator,
                value,
            } => {
                let key = key.flat();
                let start = column + key.chars().count() + separator.len();
                format!("{key}{separator}{}", value.layout(indent, start, suffix))
            }
        }
    }
}

/// Indents every line but the first by `width` spaces (blank lines stay
/// empty).
fn indent_continuation(text: &str, width: usize) -> String {
    let pad = " ".repeat(width);
    let mut lines = text.split('\n');
    let mut out = lines.next().unwrap_or_default().to_string();
    for line in lines {
        out.push('\n');
        if !line.is_empty() {
            out.push_str(&pad);
        }
        out.push_str(line);
    }
    out
}

/// A double-quoted Python string literal.
pub(crate) fn string_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            // Line and paragraph separators are line breaks to some tools.
            '\u{2028}' | '\u{2029}' | '\u{85}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `s` as string literals of at most `width` characters each (where words
/// allow), split after spaces, so that their concatenation is `s`.
fn split_string(s: &str, width: usize) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut current = String::new();
    for word in s.split_inclusive(' ') {
        let candidate = format!("{current}{word}");
        if !current.is_empty() && string_literal(&candidate).chars().count() > width {
            pieces.push(string_literal(&current));
            current = word.to_string();
        } else {
            current = candidate;
        }
    }
    if !current.is_empty() || pieces.is_empty() {
        pieces.push(string_literal(&current));
    }
    pieces
}

/// Prose for a docstring: escaped (backslashes, triple quotes, control
/// characters), each line of `text` wrapped to `width`, blank lines kept
/// (runs of them collapsed), lines joined with `\n`, no trailing space.
/// It may end with a `"`: templates put a docstring's closing quotes on a
/// line of their own.
pub(crate) fn docstring_text(text: &str, width: usize) -> String {
    let mut lines: Vec<String> = Vec::new();
    for source_line in text.lines() {
        let words: Vec<String> = source_line
            .split_whitespace()
            .map(docstring_escape)
            .collect();
        if words.is_empty() {
            if lines.last().is_some_and(|l| !l.is_empty()) {
                lines.push(String::new());
            }
            continue;
        }
        let mut line = String::new();
        for word in words {
            if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
                lines.push(std::mem::take(&mut line));
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&word);
        }
        lines.push(line);
    }
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    lines.join("\n")
}

/// A text for a docstring that Python reads back as exactly that text
/// once `inspect.cleandoc` has taken the docstring's indentation off (and
/// toolc's reader with it), laid out for a docstring whose quotes open at
/// column `indent` (the lines after the first indented by `indent`): each
/// line as written, never reflowed; backslashes and triple quotes
/// escaped, control characters and line or paragraph separators written
/// as escapes, and so is whitespace at the end of a line (which a linter
/// would take for a slip, and a formatter would remove). A line longer
/// than [`LINE_LENGTH`] goes on in the next line of the file after a
/// backslash (preferably after a space), at column 0: a backslash before
/// a newline is no character of the string, and indentation would be.
/// Some texts no docstring can hold, as `cleandoc` reads it: whitespace
/// at the start or blank lines at the end, a tab; the writer checks what
/// reads back.
pub(crate) fn docstring_exact(text: &str, indent: usize) -> String {
    let mut out = String::new();
    for (i, line) in text.split('\n').enumerate() {
        let units = exact_units(line);
        if i > 0 {
            out.push('\n');
            if !units.is_empty() {
                out.push_str(&" ".repeat(indent));
            }
        }
        let column = if i == 0 { indent + 3 } else { indent };
        continued(&units, column, &mut out);
    }
    out
}

/// The pieces of a line as the literal writes them, one per character
/// (escaped where need be), never split by a line break.
fn exact_units(line: &str) -> Vec<String> {
    let body = line.trim_end_matches(char::is_whitespace);
    let mut units: Vec<String> = body
        .chars()
        .map(|c| match c {
            '\\' => "\\\\".to_string(),
            c if c.is_control() || c == '\u{2028}' || c == '\u{2029}' => python_escape(c),
            c => c.to_string(),
        })
        .collect();
    units.extend(line[body.len()..].chars().map(python_escape));
    // Every third quote in a row is escaped with the two before it.
    let mut quotes = 0;
    for at in 0..units.len() {
        if units[at] != "\"" {
            quotes = 0;
            continue;
        }
        quotes += 1;
        if quotes == 3 {
            for unit in &mut units[at - 2..=at] {
                *unit = "\\\"".to_string();
            }
            quotes = 0;
        }
    }
    units
}

/// Writes `units` from `column` on, going on in a new line (after a
/// backslash) where a line would pass [`LINE_LENGTH`]; a character outside
/// ASCII counts two columns, as a wide one does.
fn continued(units: &[String], column: usize, out: &mut String) {
    let width = |unit: &String| {
        unit.chars()
            .map(|c| if c.is_ascii() { 1 } else { 2 })
            .sum::<usize>()
    };
    let mut line: Vec<&String> = Vec::new();
    let mut used = column;
    for unit in units {
        // One column for the backslash.
        if used + width(unit) + 1 > LINE_LENGTH && !line.is_empty() {
            let keep = line
                .iter()
                .rposition(|u| u.as_str() == " ")
                .filter(|&at| at > 0)
                .map_or(line.len(), |at| at + 1);
            let rest = line.split_off(keep);
            out.extend(line.iter().map(|u| u.as_str()));
            out.push_str("\\\n");
            used = rest.iter().map(|u| width(u)).sum();
            line = rest;
        }
        used += width(unit);
        line.push(unit);
    }
    out.extend(line.iter().map(|u| u.as_str()));
}

/// `c` as a Python escape: `\xhh`, `\uhhhh` or `\Uhhhhhhhh`.
fn python_escape(c: char) -> String {
    match u32::from(c) {
        code @ 0..=0xff => format!("\\x{code:02x}"),
        code @ 0x100..=0xffff => format!("\\u{code:04x}"),
        code => format!("\\U{code:08x}"),
    }
}

fn docstring_escape(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    for c in word.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32 & 0xff)),
            '\u{2028}' | '\u{2029}' => out.push(' '),
            c => out.push(c),
        }
    }
    out.replace("\"\"\"", "\\\"\\\"\\\"")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn short_values_stay_flat() {
        let expr = Expr::from_json(&json!({"type": "string", "default": null, "x": [true, 1]}));
        assert_eq!(
            expr.layout(0, 0, 0),
            r#"{"type": "string", "default": None, "x": [True, 1]}"#
        );
    }

    #[test]
    fn long_values_break_one_item_per_line() {
        let description = "word ".repeat(30);
        let expr =
            Expr::from_json(&json!({"a": {"type": "string", "description": description.trim()}}));
        let text = expr.layout(4, 20, 1);
        let expected_start = "{\n    \"a\": {\n        \"type\": \"string\",\n        \"description\": (\n            \"word word";
        assert!(text.starts_with(expected_start), "{text}");
        for line in text.lines() {
            assert!(4 + line.len() <= LINE_LENGTH, "{line}");
        }
        assert!(text.ends_with("    },\n}"), "{text}");
    }

    #[test]
    fn subscripts_have_no_trailing_comma() {
        let values: Vec<Expr> = (0..20).map(|i| Expr::Str(format!("value{i}"))).collect();
        let hint = Expr::subscript("list", vec![Expr::subscript("Literal", values)]);
        let text = hint.layout(4, 10, 0);
        assert!(text.contains("\"value19\"\n    ]\n]"), "{text}");
    }

    #[test]
    fn long_unions_break_inside_their_literal() {
        let values: Vec<Expr> = (0..20).map(|i| Expr::Str(format!("value{i}"))).collect();
        let hint = Expr::union(vec![Expr::subscript("Literal", values), Expr::atom("None")]);
        let text = hint.layout(4, 10, 8);
        assert!(text.starts_with("Literal[\n    \"value0\",\n"), "{text}");
        assert!(text.ends_with("\"value19\"\n] | None"), "{text}");
    }

    #[test]
    fn string_literals_escape() {
        assert_eq!(string_literal("a\"b\\c\nd\u{1}"), r#""a\"b\\c\nd\x01""#);
    }

    #[test]
    fn docstring_exact_keeps_lines_and_escapes() {
        let text = docstring_exact("a  \n\n\nq\"\"\"\"\\d\t\u{2028}\u{a0}", 4);
        assert_eq!(
            text,
            "a\\x20\\x20\n\n\n    q\\\"\\\"\\\"\"\\\\d\\x09\\u2028\\xa0"
        );
    }

    #[test]
    fn docstring_exact_goes_on_after_a_backslash_past_the_line_length() {
        let long = "word ".repeat(30);
        let text = docstring_exact(long.trim_end(), 4);
        let lines: Vec<&str> = text.split('\n').collect();
        assert!(lines.len() > 1, "{text}");
        assert!(lines[0].chars().count() + 7 <= LINE_LENGTH, "{text}");
        for line in &lines[..lines.len() - 1] {
            assert!(line.ends_with(" \\"), "{line}");
        }
        assert_eq!(text.replace("\\\n", ""), long.trim_end());
        // No space: the break comes where the line is full, never inside
        // an escape.
        let text = docstring_exact(&"\\".repeat(60), 0);
        let lines: Vec<&str> = text.split('\n').collect();
        assert_eq!(lines[0].len(), LINE_LENGTH - 3);
        assert_eq!(text.replace("\\\n", ""), "\\\\".repeat(60));
    }

    #[test]
    fn docstring_text_wraps_and_escapes() {
        let text = docstring_text("one two three four\n\n\nfive \"\"\" six \\d \"", 9);
        assert_eq!(
            text,
            "one two\nthree\nfour\n\nfive\n\\\"\\\"\\\"\nsix \\\\d \""
        );
    }
}
