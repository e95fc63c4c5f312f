//! Identifiers from JSON names: snake case fields, UpperCamelCase types and
//! variants, never a keyword, never a raw identifier, unique where needed.

use std::collections::{BTreeSet, HashMap};

/// Names the module defines or imports itself; generated types avoid them,
/// and the prelude's types, so no generated name shadows one in use.
const RESERVED_TYPE_NAMES: &str = "Tool ToolResult ToolError SecurityTier ValidationResult \
    HealthStatus SchemaOutcome SchemaFindings SchemaChecker Serialize Deserialize Value Map Option Some None Result Ok Err Vec String Box \
    Send Sync Sized Copy Clone Default Debug PartialEq Eq Hash Self";

/// Strict, reserved and edition keywords: not usable as plain identifiers.
/// `self`, `Self`, `super` and `crate` cannot even be raw identifiers, and
/// raw identifiers are avoided throughout anyway.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "Self", "static", "struct", "super", "trait", "true", "try", "type",
    "typeof", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Names already taken in one namespace; a taken name gets a number.
pub(super) struct Names {
    used: BTreeSet<String>,
    /// For each base that was taken, the number to try next: `used` only
    /// grows, so a smaller one cannot be free, and a thousand tools named
    /// `fetch` cost a thousand probes, not half a million.
    next_number: HashMap<String, usize>,
}

impl Names {
    pub(super) fn new() -> Self {
        Names {
            used: RESERVED_TYPE_NAMES
                .split_whitespace()
                .map(str::to_string)
                .collect(),
            next_number: HashMap::new(),
        }
    }

    pub(super) fn empty() -> Self {
        Names {
            used: BTreeSet::new(),
            next_number: HashMap::new(),
        }
    }

    /// The names claimed so far, besides the reserved ones.
    pub(super) fn claimed(&self) -> Vec<String> {
        let reserved: Vec<&str> = RESERVED_TYPE_NAMES.split_whitespace().collect();
        self.used
            .iter()
            .filter(|name| !reserved.contains(&name.as_str()))
            .cloned()
            .collect()
    }

    /// Whether any of `names` is taken.
    pub(super) fn takes_any(&self, names: &[String]) -> bool {
        names.iter().any(|name| self.used.contains(name))
    }

    /// Takes `names` as they are (claimed elsewhere, checked free).
    pub(super) fn take(&mut self, names: Vec<String>) {
        self.used.extend(names);
    }

    pub(super) fn claim(&mut self, base: &str) -> String {
        let mut candidate = base.to_string();
        if self.used.contains(&candidate) {
            let mut number = self.next_number.get(base).copied().unwrap_or(2);
            candidate = format!("{base}{number}");
            while self.used.contains(&candidate) {
                number += 1;
                candidate = format!("{base}{number}");
            }
            self.next_number.insert(base.to_string(), number + 1);
        }
        self.used.insert(candidate.clone());
        candidate
    }
}

/// A field name: snake case, ASCII, not a keyword (`type` → `type_`), not
/// starting with a digit (`2nd` → `field_2nd`).
pub(super) fn snake_case(name: &str) -> String {
    let words = words(name);
    if words.is_empty() {
        return "field".to_string();
    }
    let joined = words
        .iter()
        .map(|w| w.to_ascii_lowercase())
        .collect::<Vec<_>>()
        .join("_");
    if joined.starts_with(|c: char| c.is_ascii_digit()) {
        format!("field_{joined}")
    } else if KEYWORDS.contains(&joined.as_str()) {
        format!("{joined}_")
    } else {
        joined
    }
}

/// The field names of a struct's properties, in the order given. They do
/// not depend on that order, so reordering the properties never moves a
/// value to another field: a property whose name is already a field name
/// (`from_path`) keeps it, then the others, by their JSON names in sorted
/// order, get theirs spelled ([`snake_case`]), numbered when taken
/// (`from-path` beside `from_path` is `from_path2`).
pub(super) fn field_names<'a>(keys: impl IntoIterator<Item = &'a String>) -> Vec<String> {
    let keys: Vec<&String> = keys.into_iter().collect();
    let mut names = Names::empty();
    let mut chosen: HashMap<&str, String> = HashMap::new();
    for key in &keys {
        if snake_case(key) == **key {
            chosen.insert(key.as_str(), names.claim(key));
        }
    }
    let mut spelled: Vec<&String> = keys
        .iter()
        .copied()
        .filter(|key| !chosen.contains_key(key.as_str()))
        .collect();
    spelled.sort();
    for key in spelled {
        let name = names.claim(&snake_case(key));
        chosen.insert(key.as_str(), name);
    }
    keys.iter()
        .map(|key| chosen.get(key.as_str()).cloned().unwrap_or_default())
        .collect()
}

/// A type name part: UpperCamelCase, ASCII; `fallback` when nothing is left.
pub(super) fn camel_case(name: &str, fallback: &str) -> String {
    let joined: String = words(name)
        .iter()
        .map(|word| {
            let mut chars = word.chars();
            match chars.next() {
                Some(first) => {
                    first.to_ascii_uppercase().to_string() + &chars.as_str().to_ascii_lowercase()
                }
                None => String::new(),
            }
        })
        .collect();
    if joined.is_empty() {
        fallback.to_string()
    } else {
        joined
    }
}

/// An enum variant: UpperCamelCase, not starting with a digit, not `Self`.
pub(super) fn variant_name(value: &str) -> String {
    let name = camel_case(value, "Empty");
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("V{name}")
    } else if name == "Self" {
        "SelfValue".to_string()
    } else {
        name
    }
}

/// The words of a JSON name: split at anything not alphanumeric and at case
/// changes (`maxResults`, `HTTPServer`, `max-bytes`). Latin letters with
/// accents lose them (`größe` → `grosse`); other non-ASCII characters become
/// `u` and their hex code, so that the name stays distinct and readable.
fn words(name: &str) -> Vec<String> {
    let mut ascii = String::new();
    for c in name.chars() {
        if c.is_ascii() {
            ascii.push(c);
        } else if let Some(plain) = latin_letter(c) {
            ascii.push_str(plain);
        } else if c.is_alphanumeric() {
            ascii.push_str(&format!(" u{:04x} ", c as u32));
        } else {
            ascii.push(' ');
        }
    }
    let chars: Vec<char> = ascii.chars().collect();
    let mut words = Vec::new();
    let mut word = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            continue;
        }
        let previous = i.checked_sub(1).and_then(|p| chars.get(p)).copied();
        let next = chars.get(i + 1).copied();
        let boundary = c.is_ascii_uppercase()
            && previous.is_some_and(|p| {
                p.is_ascii_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_ascii_uppercase() && next.is_some_and(|n| n.is_ascii_lowercase()))
            });
        if boundary && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        word.push(c);
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// The unaccented ASCII form of a Latin-1 letter.
fn latin_letter(c: char) -> Option<&'static str> {
    const TABLE: [&str; 64] = [
        "A", "A", "A", "A", "A", "A", "AE", "C", "E", "E", "E", "E", "I", "I", "I", "I", //
        "D", "N", "O", "O", "O", "O", "O", "", "O", "U", "U", "U", "U", "Y", "TH", "ss", //
        "a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i", //
        "d", "n", "o", "o", "o", "o", "o", "", "o", "u", "u", "u", "u", "y", "th", "y",
    ];
    let index = (c as u32).checked_sub(0xC0)?;
    TABLE.get(index as usize).copied().filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_names_are_snake_case_identifiers() {
        let cases = [
            ("type", "type_"),
            ("self", "self_"),
            ("match", "match_"),
            ("max-bytes", "max_bytes"),
            ("maxResults", "max_results"),
            ("HTTPServer", "http_server"),
            ("contentBase64", "content_base64"),
            ("2nd_pass", "field_2nd_pass"),
            ("größe", "grosse"),
            ("名前", "u540d_u524d"),
            ("", "field"),
            ("--", "field"),
            ("already_snake", "already_snake"),
        ];
        for (json, rust) in cases {
            assert_eq!(snake_case(json), rust, "{json:?}");
        }
    }

    #[test]
    fn type_and_variant_names_are_camel_case() {
        assert_eq!(camel_case("code_runner_python", "X"), "CodeRunnerPython");
        assert_eq!(camel_case("fs.read-file", "X"), "FsReadFile");
        assert_eq!(camel_case("", "Unnamed"), "Unnamed");
        assert_eq!(variant_name("ultra-fast"), "UltraFast");
        assert_eq!(variant_name("1x"), "V1x");
        assert_eq!(variant_name(""), "Empty");
        assert_eq!(variant_name("self"), "SelfValue");
    }

    #[test]
    fn field_names_do_not_depend_on_order() {
        let keys = |list: &[&str]| list.iter().map(|k| k.to_string()).collect::<Vec<_>>();
        let forward = field_names(&keys(&["from-path", "from_path", "From Path"]));
        assert_eq!(forward, ["from_path3", "from_path", "from_path2"]);
        let backward = field_names(&keys(&["From Path", "from_path", "from-path"]));
        assert_eq!(backward, ["from_path2", "from_path", "from_path3"]);
    }

    #[test]
    fn taken_names_get_numbers() {
        let mut names = Names::new();
        assert_eq!(names.claim("ToolResult"), "ToolResult2");
        assert_eq!(names.claim("Fetch"), "Fetch");
        assert_eq!(names.claim("Fetch"), "Fetch2");
    }
}
