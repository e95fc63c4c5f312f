//! Type hints read from an annotation's source text with a small recursive
//! parser of the subscript syntax: builtins, `typing` containers, unions,
//! `Literal`, `Annotated` with its metadata, the standard library types
//! pydantic gives a string format, and any other name (a class the package
//! may define), which [`super::lower`] resolves.

use serde_json::Value;

use super::syntax::{Cursor, Expr, Token, expr, literal};

/// A type hint, as far as toolc understands it.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Hint {
    Str,
    Int,
    Float,
    Bool,
    None,
    /// `bytes`: a string, `format: binary`.
    Bytes,
    /// `datetime`, `date`, `time`, `timedelta`, `UUID`, `Path`: a string
    /// with this `format`.
    Formatted(&'static str),
    /// `Decimal`: a number or a string.
    Decimal,
    List(Option<Box<Hint>>),
    /// `set[T]`, `frozenset[T]`: an array of unique items.
    Set(Option<Box<Hint>>),
    Dict(Option<Box<Hint>>),
    Union(Vec<Hint>),
    Literal(Vec<Value>),
    /// `Annotated[T, metadata...]`.
    Annotated(Box<Hint>, Vec<Expr>),
    /// `Any`: no `type`, on purpose.
    Any,
    /// Another name: a class of the package, or of a library.
    Named(String),
    /// Anything else (a forward reference, `Callable[...]`, `Tuple[...]`):
    /// no `type`.
    Unknown,
}

/// Parses an annotation's source text; `None` when it is not even
/// well-formed subscript syntax.
pub(super) fn parse_hint(text: &str) -> Option<Hint> {
    let mut cursor = Cursor::new(text)?;
    let hint = union(&mut cursor)?;
    cursor.done().then_some(hint)
}

/// `primary ('|' primary)*`
fn union(cursor: &mut Cursor) -> Option<Hint> {
    let mut members = vec![primary(cursor)?];
    while cursor.eat('|') {
        members.push(primary(cursor)?);
    }
    Some(if members.len() == 1 {
        members.remove(0)
    } else {
        Hint::Union(members)
    })
}

/// `NAME ('[' union (',' union)* ']')?`, or a string (a forward reference).
fn primary(cursor: &mut Cursor) -> Option<Hint> {
    let name = match cursor.next()? {
        Token::Name(name) => name,
        Token::Str(text) => return Some(parse_hint(&text).unwrap_or(Hint::Unknown)),
        _ => return None,
    };
    let base = name.rsplit('.').next().unwrap_or(&name).to_string();
    let subscripted = cursor.peek() == Some(&Token::Punct('['));
    if base == "Literal" && subscripted {
        cursor.next();
        let values = list_of(cursor, literal)?;
        return Some(Hint::Literal(values));
    }
    if base == "Annotated" && subscripted {
        cursor.next();
        let inner = union(cursor)?;
        let mut metadata = Vec::new();
        if cursor.eat(',') && !cursor.eat(']') {
            metadata = list_of(cursor, expr)?;
        } else if !cursor.at_close() {
            return None;
        } else {
            cursor.next();
        }
        return Some(Hint::Annotated(Box::new(inner), metadata));
    }
    let mut args = Vec::new();
    if cursor.eat('[') {
        args = list_of(cursor, union)?;
    }
    let first = |args: &mut Vec<Hint>| (!args.is_empty()).then(|| Box::new(args.remove(0)));
    Some(match (base.as_str(), args.len()) {
        ("str", 0) => Hint::Str,
        ("int", 0) => Hint::Int,
        ("float", 0) => Hint::Float,
        ("bool", 0) => Hint::Bool,
        ("bytes", 0) => Hint::Bytes,
        ("None" | "NoneType", 0) => Hint::None,
        ("Any", 0) => Hint::Any,
        ("datetime", 0) => Hint::Formatted("date-time"),
        ("date", 0) => Hint::Formatted("date"),
        ("time", 0) => Hint::Formatted("time"),
        ("timedelta", 0) => Hint::Formatted("duration"),
        ("UUID", 0) => Hint::Formatted("uuid"),
        ("Path" | "PurePath" | "PosixPath", 0) => Hint::Formatted("path"),
        ("Decimal", 0) => Hint::Decimal,
        ("list" | "List" | "Sequence" | "Iterable", 0 | 1) => Hint::List(first(&mut args)),
        ("set" | "Set" | "frozenset" | "FrozenSet", 0 | 1) => Hint::Set(first(&mut args)),
        ("dict" | "Dict" | "Mapping", 0) => Hint::Dict(None),
        ("dict" | "Dict" | "Mapping", 2) => Hint::Dict(Some(Box::new(args.remove(1)))),
        ("Optional", 1) => Hint::Union(vec![args.remove(0), Hint::None]),
        ("Union", n) if n > 0 => Hint::Union(args),
        (_, 0) => Hint::Named(name),
        _ => Hint::Unknown,
    })
}

/// `item (',' item)* ','? ']'`, after the `[`.
fn list_of<T>(cursor: &mut Cursor, item: fn(&mut Cursor) -> Option<T>) -> Option<Vec<T>> {
    let mut items = Vec::new();
    loop {
        items.push(item(cursor)?);
        if !cursor.eat(',') || cursor.at_close() {
            break;
        }
    }
    cursor.eat(']').then_some(items)
}

/// Whether a hint is `Any`, or a union with `Any` in it.
pub(super) fn admits_anything(hint: &Hint) -> bool {
    match hint {
        Hint::Any => true,
        Hint::Union(members) => members.iter().any(admits_anything),
        Hint::Annotated(inner, _) => admits_anything(inner),
        _ => false,
    }
}
