//! Shell words as text, apart from the grammar: line continuations,
//! the escapes of patterns (quoted glob characters keep a `\`), the
//! escapes of `"…"` and `$'…'`, and brace expansion (`{a,b}`, `{a..e}`),
//! bounded. The bounds of a pattern are here too: past them it is too
//! complex to check ([`too_complex`]), for the shell's walk and the path
//! rules alike.

/// `text` with its line continuations (a `\` before a newline) removed,
/// as the shell removes them before it splits words: outside `'…'`,
/// `$'…'` and comments. The grammar keeps `r\⏎m` one word with a newline
/// in it; the shell runs `rm`. A quoted here-document keeps its
/// continuations, which this does not know: the rules read both texts.
pub(in crate::run::policy) fn join_lines(text: &str) -> String {
    #[derive(PartialEq)]
    enum State {
        Plain,
        Single,
        AnsiC,
        Double,
        Comment,
    }
    let mut out = String::with_capacity(text.len());
    let mut state = State::Plain;
    let mut chars = text.chars().peekable();
    let mut previous = '\n';
    while let Some(c) = chars.next() {
        match state {
            State::Plain | State::Double if c == '\\' => {
                match chars.next() {
                    Some('\n') => {}
                    Some(next) => {
                        out.push(c);
                        out.push(next);
                    }
                    None => out.push(c),
                }
                previous = 'x';
                continue;
            }
            State::AnsiC if c == '\\' => {
                out.push(c);
                if let Some(next) = chars.next() {
                    out.push(next);
                }
                continue;
            }
            State::Plain => match c {
                '\'' if previous == '$' => state = State::AnsiC,
                '\'' => state = State::Single,
                '"' => state = State::Double,
                '#' if previous.is_whitespace() || ";&|()<>".contains(previous) => {
                    state = State::Comment
                }
                _ => {}
            },
            State::Single | State::AnsiC if c == '\'' => state = State::Plain,
            State::Double if c == '"' => state = State::Plain,
            State::Comment if c == '\n' => state = State::Plain,
            _ => {}
        }
        out.push(c);
        previous = c;
    }
    out
}

/// Characters a glob or a brace expansion gives a meaning to.
const PATTERN_CHARS: &[char] = &['*', '?', '[', ']', '{', '}', ',', '\\'];

/// `literal` with every pattern character escaped.
pub(in crate::run::policy) fn escape(literal: &str) -> String {
    let mut out = String::with_capacity(literal.len());
    for c in literal.chars() {
        if PATTERN_CHARS.contains(&c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Whether `pattern` has an unescaped glob or brace character.
pub(in crate::run::policy) fn is_glob(pattern: &str) -> bool {
    ['*', '?', '[', '{']
        .iter()
        .any(|c| has_unescaped(pattern, *c))
}

pub(super) fn has_unescaped(pattern: &str, wanted: char) -> bool {
    let mut escaped = false;
    for c in pattern.chars() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == wanted {
            return true;
        }
    }
    false
}

/// A pattern's literal text: backslashes removed.
pub(in crate::run::policy) fn unescape(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Inside `"…"`, a backslash escapes only `$`, `` ` ``, `"`, `\` and a newline.
pub(super) fn unescape_double_quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('\\', Some('\n')) => {
                chars.next();
            }
            ('\\', Some(&next)) if matches!(next, '$' | '`' | '"' | '\\') => {
                out.push(next);
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

/// The escapes of `$'…'`: `\n`, `\t`, `\xHH`, `\NNN`, `\uHHHH`, `\'` ….
pub(super) fn ansi_c(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(kind) = chars.next() else {
            out.push('\\');
            break;
        };
        let number = |chars: &mut std::iter::Peekable<std::str::Chars>, radix, most| {
            let mut digits = String::new();
            while digits.len() < most
                && let Some(&d) = chars.peek()
                && d.is_digit(radix)
            {
                digits.push(d);
                chars.next();
            }
            u32::from_str_radix(&digits, radix)
                .ok()
                .and_then(char::from_u32)
        };
        let decoded = match kind {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            'a' => Some('\x07'),
            'b' => Some('\x08'),
            'e' | 'E' => Some('\x1b'),
            'f' => Some('\x0c'),
            'v' => Some('\x0b'),
            '\\' | '\'' | '"' | '?' => Some(kind),
            'x' => number(&mut chars, 16, 2),
            'u' => number(&mut chars, 16, 4),
            'U' => number(&mut chars, 16, 8),
            '0'..='7' => {
                let mut digits = kind.to_string();
                while digits.len() < 3
                    && let Some(&d) = chars.peek()
                    && d.is_digit(8)
                {
                    digits.push(d);
                    chars.next();
                }
                u32::from_str_radix(&digits, 8)
                    .ok()
                    .and_then(char::from_u32)
            }
            _ => None,
        };
        match decoded {
            Some(c) => out.push(c),
            None => {
                out.push('\\');
                out.push(kind);
            }
        }
    }
    out
}

/// The longest glob pattern the policy builds a matcher for, in bytes
/// (a path is at most `PATH_MAX`, 4096).
const MAX_PATTERN_LEN: usize = 4096;

/// The most braces one glob pattern may have: each becomes an
/// alternation of the matcher's regex.
const MAX_PATTERN_BRACES: usize = 256;

/// Why `pattern` is too complex to check (too long, too many braces), or
/// `None`. Only such patterns are refused; a smaller one always compiles.
pub(in crate::run::policy) fn too_complex(pattern: &str) -> Option<String> {
    if pattern.len() > MAX_PATTERN_LEN {
        return Some(format!(
            "a pattern of {} bytes, more than the {MAX_PATTERN_LEN} the policy checks",
            pattern.len()
        ));
    }
    let braces = pattern.matches('{').count();
    if braces > MAX_PATTERN_BRACES {
        return Some(format!(
            "a pattern of {braces} braces, more than the {MAX_PATTERN_BRACES} the policy checks"
        ));
    }
    None
}

/// The most words one brace expansion makes (`{a,b}{c,d}…` grows fast).
const MAX_BRACE_WORDS: usize = 256;

/// The longest word brace expansion is applied to (its scan is quadratic).
const MAX_BRACE_LEN: usize = 4096;

/// `pre{a,b}post` → `preapost`, `prebpost`, nested and repeated; a brace
/// without a top-level comma stays as it is. Past [`MAX_BRACE_WORDS`]
/// words the rest stay unexpanded.
pub(super) fn braces(pattern: &str) -> Vec<String> {
    if pattern.len() > MAX_BRACE_LEN {
        return vec![pattern.to_string()];
    }
    let mut done = Vec::new();
    let mut pending = vec![pattern.to_string()];
    while let Some(word) = pending.pop() {
        if done.len() + pending.len() >= MAX_BRACE_WORDS {
            done.push(word);
            continue;
        }
        match expand_first(&word) {
            Some(words) => pending.extend(words.into_iter().rev()),
            None => done.push(word),
        }
    }
    done
}

/// The words the first brace of `pattern` makes, or `None`.
fn expand_first(pattern: &str) -> Option<Vec<String>> {
    let chars: Vec<char> = pattern.chars().collect();
    let (open, commas, close) = first_brace(&chars)?;
    let prefix: String = chars[..open].iter().collect();
    let suffix: String = chars[close + 1..].iter().collect();
    if commas.is_empty() {
        let items = range(&chars[open + 1..close])?;
        let words = items
            .into_iter()
            .map(|item| format!("{prefix}{item}{suffix}"));
        return Some(words.collect());
    }
    let mut bounds = vec![open];
    bounds.extend(commas);
    bounds.push(close);
    let words = bounds.windows(2).map(|pair| match pair {
        [from, to] => {
            let alternative: String = chars[from + 1..*to].iter().collect();
            format!("{prefix}{alternative}{suffix}")
        }
        _ => String::new(),
    });
    Some(words.collect())
}

/// The items of a sequence expression, `a..e`, `1..10`, `01..10..3`,
/// as pattern text; `None` when `content` is not one, or would make more
/// than [`MAX_BRACE_WORDS`] items.
fn range(content: &[char]) -> Option<Vec<String>> {
    let content: String = content.iter().collect();
    let parts: Vec<&str> = content.split("..").collect();
    let (from, to, step) = match parts.as_slice() {
        [from, to] => (*from, *to, None),
        [from, to, step] => (*from, *to, Some(step.parse::<i64>().ok()?)),
        _ => return None,
    };
    let step = step.map_or(1, i64::unsigned_abs).max(1);
    let numbers = (from.parse::<i64>(), to.parse::<i64>());
    let (first, last, width) = match numbers {
        (Ok(first), Ok(last)) => {
            let padded = |n: &str| n.trim_start_matches('-').starts_with('0') && n.len() > 1;
            let width = if padded(from) || padded(to) {
                from.len().max(to.len())
            } else {
                0
            };
            (first, last, Some(width))
        }
        _ => {
            let single = |text: &str| {
                let mut chars = text.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) if c.is_ascii_alphabetic() => Some(i64::from(c as u8)),
                    _ => None,
                }
            };
            (single(from)?, single(to)?, None)
        }
    };
    let count = first.abs_diff(last) / step + 1;
    if count > MAX_BRACE_WORDS as u64 {
        return None;
    }
    let mut items = Vec::new();
    let mut value = first;
    for _ in 0..count {
        let item = match width {
            Some(width) if value < 0 => format!(
                "-{:0>w$}",
                value.unsigned_abs(),
                w = width.saturating_sub(1)
            ),
            Some(width) => format!("{value:0>width$}"),
            None => u8::try_from(value).map(char::from).map(String::from).ok()?,
        };
        items.push(escape(&item));
        value = if first <= last {
            value.checked_add(step as i64)?
        } else {
            value.checked_sub(step as i64)?
        };
    }
    Some(items)
}

/// The first unescaped `{` with at least one top-level `,` before its
/// matching `}`, or a sequence (`{a..e}`): (open, commas, close).
fn first_brace(chars: &[char]) -> Option<(usize, Vec<usize>, usize)> {
    let mut index = 0;
    while index < chars.len() {
        match chars[index] {
            '\\' => index += 1,
            '{' => {
                if let Some((commas, close)) = matching_brace(chars, index)
                    && (!commas.is_empty() || range(&chars[index + 1..close]).is_some())
                {
                    return Some((index, commas, close));
                }
            }
            _ => {}
        }
        index += 1;
    }
    None
}

fn matching_brace(chars: &[char], open: usize) -> Option<(Vec<usize>, usize)> {
    let mut depth = 0usize;
    let mut commas = Vec::new();
    let mut index = open;
    while index < chars.len() {
        match chars[index] {
            '\\' => index += 1,
            '{' => depth += 1,
            '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some((commas, index));
                }
            }
            ',' if depth == 1 => commas.push(index),
            _ => {}
        }
        index += 1;
    }
    None
}
