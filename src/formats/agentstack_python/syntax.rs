//! The small grammars toolc reads Python expression text with: tokens,
//! literals (`'a'`, `-2.5`, `[1, None]`, `{'k': True}`) and the expressions
//! a type hint's metadata or a parameter's default may be (`Field(ge=0)`,
//! `Color.RED`, `...`). Anything else reads as `None`: the caller says the
//! value cannot be derived.

use serde_json::{Map, Value, json};

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Token {
    Name(String),
    Str(String),
    Num(Value),
    Punct(char),
}

/// Splits Python expression text into tokens; `None` on anything the
/// small grammars here do not read (f-strings, bytes, operators).
fn tokenize(text: &str) -> Option<Vec<Token>> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() || c == '\\' && chars.get(i + 1) == Some(&'\n') {
            i += 1;
        } else if c == '"' || c == '\'' {
            let (value, next) = string_literal(&chars, i)?;
            tokens.push(Token::Str(value));
            i = next;
        } else if chars.get(i..i + 3) == Some(&['.', '.', '.']) {
            tokens.push(Token::Name("...".into()));
            i += 3;
        } else if c.is_ascii_digit()
            || c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit)
        {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric()
                    || chars[i] == '.'
                    || chars[i] == '_'
                    || matches!(chars[i], '+' | '-') && matches!(chars[i - 1], 'e' | 'E'))
            {
                i += 1;
            }
            let raw: String = chars[start..i].iter().filter(|c| **c != '_').collect();
            tokens.push(Token::Num(number(&raw)?));
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '.')
            {
                i += 1;
            }
            let name: String = chars[start..i].iter().collect();
            if matches!(chars.get(i), Some('"' | '\'')) {
                // A string prefix: raw and unicode strings read as strings.
                if !matches!(name.as_str(), "r" | "R" | "u" | "U") {
                    return None;
                }
                let (value, next) = string_literal(&chars, i)?;
                let value = if name.eq_ignore_ascii_case("r") {
                    chars[i + 1..next - 1].iter().collect()
                } else {
                    value
                };
                tokens.push(Token::Str(value));
                i = next;
            } else {
                tokens.push(Token::Name(name));
            }
        } else if "[](){},:|-+=".contains(c) {
            tokens.push(Token::Punct(c));
            i += 1;
        } else {
            return None;
        }
    }
    Some(tokens)
}

/// A single-line string literal starting at `start` (a quote): its value
/// and the index after the closing quote.
fn string_literal(chars: &[char], start: usize) -> Option<(String, usize)> {
    let quote = chars[start];
    let mut value = String::new();
    let mut i = start + 1;
    while i < chars.len() {
        match chars[i] {
            c if c == quote => return Some((value, i + 1)),
            '\\' => {
                let escaped = *chars.get(i + 1)?;
                match escaped {
                    'n' => value.push('\n'),
                    't' => value.push('\t'),
                    'r' => value.push('\r'),
                    '\\' | '\'' | '"' => value.push(escaped),
                    '\n' => {}
                    other => {
                        value.push('\\');
                        value.push(other);
                    }
                }
                i += 2;
            }
            '\n' => return None,
            c => {
                value.push(c);
                i += 1;
            }
        }
    }
    None
}

fn number(raw: &str) -> Option<Value> {
    if let Ok(n) = raw.parse::<i64>() {
        return Some(json!(n));
    }
    let lower = raw.to_ascii_lowercase();
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if let Some(digits) = lower.strip_prefix(prefix) {
            return i64::from_str_radix(digits, radix).ok().map(|n| json!(n));
        }
    }
    raw.parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
        .map(Value::Number)
}

pub(super) struct Cursor {
    tokens: Vec<Token>,
    at: usize,
}

/// Brackets may nest this deep in a hint or a default; deeper text is read
/// as unknown. The grammars below recurse once per bracket, on a worker
/// thread's stack: this bound keeps hostile input from overflowing it.
pub(super) const MAX_NESTING: usize = 32;

impl Cursor {
    pub(super) fn new(text: &str) -> Option<Self> {
        let tokens = tokenize(text)?;
        let mut depth: usize = 0;
        for token in &tokens {
            match token {
                Token::Punct('[' | '(' | '{') => {
                    depth += 1;
                    if depth > MAX_NESTING {
                        return None;
                    }
                }
                Token::Punct(']' | ')' | '}') => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        Some(Cursor { tokens, at: 0 })
    }

    pub(super) fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    pub(super) fn next(&mut self) -> Option<Token> {
        let token = self.tokens.get(self.at).cloned();
        self.at += 1;
        token
    }

    pub(super) fn eat(&mut self, punct: char) -> bool {
        if self.peek() == Some(&Token::Punct(punct)) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    /// Whether the next token closes a subscript.
    pub(super) fn at_close(&self) -> bool {
        self.peek() == Some(&Token::Punct(']'))
    }

    pub(super) fn done(&self) -> bool {
        self.at >= self.tokens.len()
    }
}

/// A default value's source text as JSON, when it is a literal.
#[cfg(test)]
pub(super) fn parse_literal(text: &str) -> Option<Value> {
    let mut cursor = Cursor::new(text)?;
    let value = literal(&mut cursor)?;
    cursor.done().then_some(value)
}

pub(super) fn literal(cursor: &mut Cursor) -> Option<Value> {
    match cursor.next()? {
        Token::Str(mut text) => {
            // Implicit concatenation: "a" "b".
            while let Some(Token::Str(more)) = cursor.peek().cloned() {
                text.push_str(&more);
                cursor.next();
            }
            Some(Value::String(text))
        }
        Token::Num(n) => Some(n),
        Token::Punct('-') => match cursor.next()? {
            Token::Num(n) => number_negated(&n),
            _ => None,
        },
        Token::Punct('+') => match cursor.next()? {
            Token::Num(n) => Some(n),
            _ => None,
        },
        Token::Name(name) => match name.as_str() {
            "True" => Some(Value::Bool(true)),
            "False" => Some(Value::Bool(false)),
            "None" => Some(Value::Null),
            _ => None,
        },
        Token::Punct(open @ ('[' | '(')) => {
            let close = if open == '[' { ']' } else { ')' };
            let mut items = Vec::new();
            while !cursor.eat(close) {
                items.push(literal(cursor)?);
                if !cursor.eat(',') {
                    return cursor.eat(close).then_some(Value::Array(items));
                }
            }
            Some(Value::Array(items))
        }
        Token::Punct('{') => {
            let mut object = Map::new();
            while !cursor.eat('}') {
                let Value::String(key) = literal(cursor)? else {
                    return None;
                };
                if !cursor.eat(':') {
                    return None;
                }
                object.insert(key, literal(cursor)?);
                if !cursor.eat(',') {
                    return cursor.eat('}').then_some(Value::Object(object));
                }
            }
            Some(Value::Object(object))
        }
        Token::Punct(_) => None,
    }
}

fn number_negated(n: &Value) -> Option<Value> {
    if let Some(i) = n.as_i64() {
        return Some(json!(-i));
    }
    n.as_f64()
        .and_then(|f| serde_json::Number::from_f64(-f))
        .map(Value::Number)
}

/// A Python expression as far as toolc reads one.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Expr {
    Literal(Value),
    /// A (dotted) name: `Color.RED`, `...`.
    Name(String),
    /// `callee(args, keyword=value)`.
    Call {
        callee: String,
        args: Vec<Expr>,
        keywords: Vec<(String, Expr)>,
    },
}

impl Expr {
    /// The last part of a name or callee: `Field` for `pydantic.Field`.
    pub(super) fn base_name(&self) -> Option<&str> {
        match self {
            Expr::Name(name) | Expr::Call { callee: name, .. } => name.rsplit('.').next(),
            Expr::Literal(_) => None,
        }
    }
}

/// Reads expression text; `None` when it is not a literal, a name or a
/// call of those.
pub(super) fn parse_expr(text: &str) -> Option<Expr> {
    let mut cursor = Cursor::new(text)?;
    let value = expr(&mut cursor)?;
    cursor.done().then_some(value)
}

pub(super) fn expr(cursor: &mut Cursor) -> Option<Expr> {
    let name = match cursor.peek() {
        Some(Token::Name(name)) if !matches!(name.as_str(), "True" | "False" | "None") => {
            name.clone()
        }
        _ => return literal(cursor).map(Expr::Literal),
    };
    cursor.next();
    if !cursor.eat('(') {
        return Some(Expr::Name(name));
    }
    let mut args = Vec::new();
    let mut keywords = Vec::new();
    while !cursor.eat(')') {
        let keyword = match (cursor.peek(), cursor.tokens.get(cursor.at + 1)) {
            (Some(Token::Name(keyword)), Some(Token::Punct('='))) => Some(keyword.clone()),
            _ => None,
        };
        if let Some(keyword) = keyword {
            cursor.next();
            cursor.next();
            keywords.push((keyword, expr(cursor)?));
        } else {
            args.push(expr(cursor)?);
        }
        if !cursor.eat(',') {
            if !cursor.eat(')') {
                return None;
            }
            break;
        }
    }
    Some(Expr::Call {
        callee: name,
        args,
        keywords,
    })
}
