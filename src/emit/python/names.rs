//! Python names for tools, parameters, modules and packages.
//!
//! Manifest names are wire names: `offsetBytes`, `max-bytes`, `from`, `2d`.
//! Where Python needs an identifier (a function, a parameter, a module, a
//! class), the name becomes snake_case ASCII; a keyword gets a trailing `_`
//! (PEP 8's `class_`), a leading digit a prefix naming the kind of thing
//! (`arg_2d`, `tool_2d`). Siblings that end up with the same identifier are
//! told apart by a suffix (`max_bytes_2`), so generated code never defines a
//! name twice. Wherever the wire name must survive (a dict key, a JSON
//! property) it is kept as it is; these names are only for Python syntax.

use std::collections::{BTreeSet, HashMap};

/// Python's keywords (soft keywords like `match` and `type` are valid names).
pub(crate) const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// Names ruff's default rules reject as ambiguous (E741-E743: `l`, `O`, `I`;
/// after lowercasing only `l` remains).
const AMBIGUOUS: &[&str] = &["l"];

/// The builtins type hints use: a module-level function or a submodule
/// with one of these names would shadow it for the annotations after it
/// (`from .list import ListTool` makes `list` the module in `__init__`).
pub(crate) const HINT_BUILTINS: &[&str] = &["str", "int", "float", "bool", "list", "dict", "type"];

/// What an identifier names: it decides the prefix of a name that would
/// start with a digit or be empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Parameter,
    Tool,
    Package,
}

impl Kind {
    fn prefix(self) -> &'static str {
        match self {
            Kind::Parameter => "arg",
            Kind::Tool => "tool",
            Kind::Package => "package",
        }
    }
}

/// The snake_case words of a name: split at non-alphanumeric characters,
/// at lower-to-upper case changes (`offsetBytes`) and at the end of an
/// acronym (`HTTPServer` → `http`, `server`). Non-ASCII characters separate
/// words too: generated identifiers are ASCII.
fn words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut words = Vec::new();
    let mut current = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            continue;
        }
        if c.is_ascii_uppercase() && !current.is_empty() {
            let previous = chars[i - 1];
            let next_is_lower = chars.get(i + 1).is_some_and(char::is_ascii_lowercase);
            let boundary = previous.is_ascii_lowercase()
                || previous.is_ascii_digit()
                || (previous.is_ascii_uppercase() && next_is_lower);
            if boundary {
                words.push(std::mem::take(&mut current));
            }
        }
        current.push(c.to_ascii_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// A snake_case identifier for `name`, before keyword and uniqueness checks:
/// never empty, never starting with a digit or an underscore.
pub(crate) fn snake_case(name: &str, kind: Kind) -> String {
    let joined = words(name).join("_");
    if joined.is_empty() {
        kind.prefix().to_string()
    } else if joined.starts_with(|c: char| c.is_ascii_digit()) {
        format!("{}_{joined}", kind.prefix())
    } else {
        joined
    }
}

/// [`snake_case`] with a trailing `_` for keywords and ambiguous names:
/// an identifier, but not necessarily a distinct one.
pub(crate) fn identifier(name: &str, kind: Kind) -> String {
    let mut base = snake_case(name, kind);
    if KEYWORDS.contains(&base.as_str()) || AMBIGUOUS.contains(&base.as_str()) {
        base.push('_');
    }
    base
}

/// Whether `name` can stay as it is where an identifier is all Python
/// needs (a function, a parameter): ASCII, starting with a letter (a leading
/// `_` is left to the generated code's own names), not a keyword, not
/// ambiguous.
pub(crate) fn is_plain_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !KEYWORDS.contains(&name)
        && !AMBIGUOUS.contains(&name)
}

/// Which names [`Namer::assign`] leaves as they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keep {
    /// Plain identifiers ([`is_plain_identifier`]): `maxResults` stays.
    Identifiers,
    /// snake_case identifiers only, for modules and directories.
    SnakeCase,
}

/// A PascalCase class name for a tool: `get_time` → `GetTimeTool`.
pub(crate) fn class_name(tool_name: &str) -> String {
    let mut name: String = snake_case(tool_name, Kind::Tool)
        .split('_')
        .map(|word| {
            let mut chars = word.chars();
            match chars.next() {
                Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
                None => String::new(),
            }
        })
        .collect();
    name.push_str("Tool");
    name
}

/// The longest class name [`path_class_name`] makes: a field or a
/// parameter with its hint must still fit on a line.
const MAX_CLASS_NAME: usize = 32;

/// A PascalCase class name from a path of names (a tool, its property, a
/// nested property...): `["draw", "origin", "offset"]` → `DrawOriginOffset`.
/// A long path keeps its last names (those that tell the most), cut to
/// [`MAX_CLASS_NAME`] characters; never empty, never starting with a digit.
pub(crate) fn path_class_name<S: AsRef<str>>(path: &[S]) -> String {
    let pascal: Vec<String> = path
        .iter()
        .map(|name| {
            words(name.as_ref())
                .iter()
                .map(|word| {
                    let mut chars = word.chars();
                    match chars.next() {
                        Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
                        None => String::new(),
                    }
                })
                .collect()
        })
        .collect();
    let mut start = 0;
    while start + 1 < pascal.len() && pascal[start..].concat().len() > MAX_CLASS_NAME {
        start += 1;
    }
    let mut name: String = pascal[start..].concat();
    name.truncate(MAX_CLASS_NAME);
    if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        name.insert_str(0, "Object");
        name.truncate(MAX_CLASS_NAME);
    }
    name
}

/// Hands out distinct identifiers within one scope (a module's functions,
/// a function's parameters, a directory's entries).
#[derive(Debug, Default)]
pub(crate) struct Namer {
    taken: BTreeSet<String>,
    reserved: BTreeSet<String>,
    /// For each candidate (with its separator) that needed a suffix, the
    /// suffix to try next: `taken` only grows, so no smaller one can be
    /// free, and a thousand tools named `fetch` cost a thousand probes,
    /// not half a million.
    next_suffix: HashMap<String, usize>,
}

impl Namer {
    /// A scope where `reserved` names are taken from the start (names the
    /// generated code itself defines or uses).
    pub(crate) fn with_reserved(reserved: &[&str]) -> Namer {
        Namer {
            taken: BTreeSet::new(),
            reserved: reserved.iter().map(|s| s.to_string()).collect(),
            next_suffix: HashMap::new(),
        }
    }

    /// Takes `name` out of the scope from now on.
    pub(crate) fn reserve(&mut self, name: &str) {
        self.reserved.insert(name.to_string());
    }

    /// A snake_case identifier for `name`, distinct from every one handed
    /// out before in this scope.
    pub(crate) fn identifier(&mut self, name: &str, kind: Kind) -> String {
        let mut base = identifier(name, kind);
        if self.reserved.contains(&base) {
            base.push('_');
        }
        self.unique(base)
    }

    /// Identifiers for a scope's `names` (in order): a name that `keep`
    /// accepts stays as it is; the others become snake_case identifiers that
    /// differ from those (and from each other), handed out in the sorted
    /// order of the names, so that no identifier depends on the order of
    /// the scope.
    pub(crate) fn assign<S: AsRef<str>>(
        &mut self,
        names: &[S],
        kind: Kind,
        keep: Keep,
    ) -> Vec<String> {
        let mut assigned: Vec<Option<String>> = names
            .iter()
            .map(|name| {
                let name = name.as_ref();
                let acceptable = match keep {
                    Keep::Identifiers => is_plain_identifier(name),
                    Keep::SnakeCase => identifier(name, kind) == name,
                };
                let keeps =
                    acceptable && !self.reserved.contains(name) && !self.taken.contains(name);
                keeps.then(|| self.unique(name.to_string()))
            })
            .collect();
        // The others in the order of their names, not of the scope: a
        // reordered manifest keeps every identifier where it was.
        let mut spelled: Vec<usize> = (0..names.len())
            .filter(|&i| assigned[i].is_none())
            .collect();
        spelled.sort_by(|&a, &b| names[a].as_ref().cmp(names[b].as_ref()).then(a.cmp(&b)));
        for i in spelled {
            assigned[i] = Some(self.identifier(names[i].as_ref(), kind));
        }
        assigned.into_iter().flatten().collect()
    }

    /// `candidate` itself if it is free, else `candidate_2`, `candidate_3`...
    pub(crate) fn unique(&mut self, candidate: String) -> String {
        self.unique_with(candidate, "_")
    }

    /// A free class name: `candidate`, else `candidate2`, `candidate3`...
    /// (CamelCase stays CamelCase).
    pub(crate) fn unique_class(&mut self, candidate: String) -> String {
        self.unique_with(candidate, "")
    }

    fn unique_with(&mut self, candidate: String, separator: &str) -> String {
        let free = |namer: &Namer, name: &str| {
            !namer.taken.contains(name) && !namer.reserved.contains(name)
        };
        let name = if free(self, &candidate) {
            candidate
        } else {
            let stem = format!("{candidate}{separator}");
            let mut n = self.next_suffix.get(&stem).copied().unwrap_or(2);
            let mut name = format!("{stem}{n}");
            while !free(self, &name) {
                n += 1;
                name = format!("{stem}{n}");
            }
            self.next_suffix.insert(stem, n + 1);
            name
        };
        self.taken.insert(name.clone());
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case_splits_words_and_makes_identifiers() {
        let cases = [
            ("offsetBytes", "offset_bytes"),
            ("max-bytes", "max_bytes"),
            ("HTTPServer", "http_server"),
            ("getHTTP2Response", "get_http2_response"),
            ("2d", "arg_2d"),
            ("__init__", "init"),
            ("", "arg"),
            ("héllo wörld", "h_llo_w_rld"),
            ("user.name", "user_name"),
        ];
        for (name, expected) in cases {
            assert_eq!(snake_case(name, Kind::Parameter), expected, "{name}");
        }
    }

    #[test]
    fn keywords_ambiguous_names_and_clashes_get_suffixes() {
        let mut namer = Namer::with_reserved(&["list"]);
        assert_eq!(namer.identifier("class", Kind::Parameter), "class_");
        assert_eq!(namer.identifier("From", Kind::Parameter), "from_");
        assert_eq!(namer.identifier("l", Kind::Parameter), "l_");
        assert_eq!(namer.identifier("list", Kind::Tool), "list_");
        assert_eq!(namer.identifier("max_bytes", Kind::Parameter), "max_bytes");
        assert_eq!(namer.identifier("maxBytes", Kind::Parameter), "max_bytes_2");
        assert_eq!(
            namer.identifier("max-bytes", Kind::Parameter),
            "max_bytes_3"
        );
    }

    #[test]
    fn names_that_are_identifiers_keep_them() {
        let mut namer = Namer::with_reserved(&["types"]);
        let names = ["max-bytes", "maxBytes", "max_bytes", "types", "class", "ok"];
        assert_eq!(
            namer.assign(&names, Kind::Parameter, Keep::SnakeCase),
            [
                "max_bytes_2",
                "max_bytes_3",
                "max_bytes",
                "types_",
                "class_",
                "ok"
            ]
        );
        let mut namer = Namer::default();
        let names = [
            "max-bytes",
            "maxBytes",
            "max_bytes",
            "_private",
            "l",
            "größe",
        ];
        assert_eq!(
            namer.assign(&names, Kind::Parameter, Keep::Identifiers),
            [
                "max_bytes_2",
                "maxBytes",
                "max_bytes",
                "private",
                "l_",
                "gr_e"
            ]
        );
    }

    #[test]
    fn repeated_names_take_the_next_free_suffix() {
        let mut namer = Namer::with_reserved(&["fetch_4"]);
        assert_eq!(namer.unique("fetch_2".to_string()), "fetch_2");
        let names: Vec<String> = (0..5).map(|_| namer.unique("fetch".to_string())).collect();
        assert_eq!(names, ["fetch", "fetch_3", "fetch_5", "fetch_6", "fetch_7"]);
        assert_eq!(namer.unique_class("Fetch".to_string()), "Fetch");
        assert_eq!(namer.unique_class("Fetch".to_string()), "Fetch2");
        assert_eq!(namer.unique("fetch_8".to_string()), "fetch_8");
        assert_eq!(namer.unique("fetch".to_string()), "fetch_9");
    }

    #[test]
    fn class_names_are_pascal_case() {
        assert_eq!(class_name("get_time"), "GetTimeTool");
        assert_eq!(class_name("fs-read-file"), "FsReadFileTool");
        assert_eq!(class_name("2d"), "Tool2dTool");
        assert_eq!(
            path_class_name(&["draw_shape", "origin", "offset"]),
            "DrawShapeOriginOffset"
        );
        assert_eq!(path_class_name(&["2d", "x"]), "Object2dX");
        assert_eq!(
            path_class_name(&[
                "fetch_web_page_content",
                "request_options",
                "retry_policy",
                "backoff"
            ]),
            "RequestOptionsRetryPolicyBackoff"
        );
        assert_eq!(path_class_name(&["a".repeat(40)]).len(), 32);
        assert_eq!(path_class_name::<&str>(&[]), "Object");
    }
}
