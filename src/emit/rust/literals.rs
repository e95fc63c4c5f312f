//! Text pasted into generated code: string literals, raw JSON literals,
//! `//` comments and doc comment lines, each safe where it goes.

/// A Rust string literal of `text`. `Debug` escapes quotes, backslashes,
/// control and invisible characters (bidirectional overrides would trip
/// the deny-by-default `text_direction_codepoint_in_literal` lint) in
/// Rust's own syntax.
pub(super) fn string_literal(text: &str) -> String {
    format!("{text:?}")
}

/// A raw string literal of JSON text, with enough `#`s to hold it.
/// Characters a literal must not show (see [`string_literal`]) become JSON
/// `\u` escapes, which are the same JSON; they can only occur in strings.
pub(super) fn raw_json_literal(json: &str) -> String {
    let shown = |c: char| !(is_invisible(c) || (c.is_control() && c != '\n'));
    // Most schemas are printable ASCII with line breaks: kept as they are.
    let plain = json
        .bytes()
        .all(|b| (0x20..0x7f).contains(&b) || b == b'\n');
    let text = if plain || json.chars().all(shown) {
        std::borrow::Cow::Borrowed(json)
    } else {
        let mut text = String::with_capacity(json.len());
        for c in json.chars() {
            if shown(c) {
                text.push(c);
            } else {
                text.push_str(&format!("\\u{:04x}", c as u32));
            }
        }
        std::borrow::Cow::Owned(text)
    };
    let mut longest = 0;
    for (i, _) in text.match_indices('"') {
        let run = text[i + 1..].chars().take_while(|c| *c == '#').count();
        longest = longest.max(run);
    }
    let hashes = "#".repeat(longest + 1);
    format!("r{hashes}\"{text}\"{hashes}")
}

/// Text for a `//` comment or a doc comment line: one line, with control
/// and invisible characters spelled out as `\u{..}` (a bare carriage
/// return ends nothing but is an error in a doc comment; bidirectional
/// overrides trip the deny-by-default `text_direction_codepoint_in_comment`
/// lint). Runs of whitespace become one space.
pub(super) fn comment_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_whitespace() && c.is_ascii() {
            if !out.ends_with(' ') {
                out.push(' ');
            }
        } else if c.is_control() || is_invisible(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out.trim().to_string()
}

/// Doc comment lines of a description. Rustdoc reads them as Markdown and
/// `cargo test` runs the code blocks in them as doctests, so no line may
/// open one: indentation is dropped (comment_text trims and squeezes
/// spaces) and runs of three backticks or tildes are escaped.
pub(super) fn doc_lines(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text
        .lines()
        .map(|line| escape_fences(&comment_text(line)))
        .collect();
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    let leading = lines.iter().take_while(|l| l.is_empty()).count();
    lines.drain(..leading);
    lines.dedup_by(|a, b| a.is_empty() && b.is_empty());
    lines
}

fn escape_fences(line: &str) -> String {
    if !line.contains("```") && !line.contains("~~~") {
        return line.to_owned();
    }
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let run = chars[i..].iter().take_while(|x| **x == c).count();
        if (c == '`' || c == '~') && run >= 3 {
            for _ in 0..run {
                out.push('\\');
                out.push(c);
            }
        } else {
            out.extend(&chars[i..i + run]);
        }
        i += run;
    }
    out
}

/// Zero-width, direction and line-separator characters.
fn is_invisible(c: char) -> bool {
    matches!(c as u32, 0x200B..=0x200F | 0x2028..=0x202E | 0x2060..=0x206F | 0xFEFF)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pasted_text_is_inert() {
        assert_eq!(
            string_literal("a\"b\\c\u{202e}"),
            "\"a\\\"b\\\\c\\u{202e}\""
        );
        assert_eq!(raw_json_literal("{\"a\":\"#\"}"), "r##\"{\"a\":\"#\"}\"##");
        assert_eq!(
            raw_json_literal("{\"a\":\"\u{7}\u{200b}\u{e9}\"}\n"),
            "r#\"{\"a\":\"\\u0007\\u200b\u{e9}\"}\n\"#"
        );
        assert_eq!(raw_json_literal("\"\u{e9}\"##"), "r###\"\"\u{e9}\"##\"###");
        assert_eq!(comment_text("a\r\n  b\u{2066}"), "a b\\u{2066}");
        assert_eq!(
            doc_lines("x\n\n\n    ```rust\ny\n"),
            ["x", "", "\\`\\`\\`rust", "y"]
        );
    }
}
