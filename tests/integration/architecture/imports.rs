//! The file graph of `src/` and its cycles, for
//! [`files_import_no_cycles`](super::files_import_no_cycles), whose doc
//! comment says which paths are read and where each leads: a small reader
//! of Rust text (comments, literals, attributes, use trees), not a parser.

use std::collections::BTreeMap;

/// For each file under `src/`, the files it depends on, each with the
/// first path that leads there.
pub(super) type Imports = BTreeMap<String, BTreeMap<String, String>>;

/// The file graph of `files` (paths under `src/`). `main.rs` is another
/// crate (the binary), which names the library as `toolc`: left out.
pub(super) fn imports(files: &BTreeMap<String, String>) -> Imports {
    let modules: BTreeMap<Vec<String>, &str> = files
        .keys()
        .filter_map(|path| Some((module_of(path)?, path.as_str())))
        .collect();
    let mut graph = Imports::new();
    for (path, text) in files {
        let Some(module) = module_of(path) else {
            continue;
        };
        let targets = graph.entry(path.clone()).or_default();
        let code = code_only(text);
        for written in anchored_paths(&tokens(&code)) {
            let mut here = module.clone();
            here.extend(written.inline.iter().map(|name| name.to_string()));
            let Some(target) = file_of(&here, &written.segments, &modules) else {
                continue;
            };
            if target != path.as_str() {
                targets.entry(target.to_string()).or_insert_with(|| {
                    let path = written.segments.join("::");
                    path.strip_suffix("::self").unwrap_or(&path).to_string()
                });
            }
        }
    }
    graph
}

/// The module a file under `src/` is (`run/launch.rs` and
/// `run/launch/mod.rs` are `["run", "launch"]`, `lib.rs` the root), or
/// `None` for the binary's `main.rs`.
fn module_of(path: &str) -> Option<Vec<String>> {
    let stem = path.strip_suffix(".rs")?;
    let mut module: Vec<String> = stem.split('/').map(str::to_string).collect();
    match stem {
        "main" => return None,
        "lib" => module.clear(),
        _ if stem.ends_with("/mod") => {
            module.pop();
        }
        _ => {}
    }
    Some(module)
}

/// The file `segments` (an anchored path, anchor first) leads to when
/// written in module `here`: the deepest module along it that has one.
fn file_of<'m>(
    here: &[String],
    segments: &[&str],
    modules: &BTreeMap<Vec<String>, &'m str>,
) -> Option<&'m str> {
    let (mut module, rest) = match segments.split_first() {
        Some((&("crate" | "$crate"), rest)) => (Vec::new(), rest),
        _ => (here.to_vec(), segments),
    };
    for &segment in rest {
        match segment {
            // Also inside a group: `use super::a::{self, b}`.
            "self" => {}
            "super" => {
                module.pop();
            }
            name => module.push(name.to_string()),
        }
    }
    (0..=module.len())
        .rev()
        .find_map(|len| modules.get(&module[..len]).copied())
}

/// `text` as code only: its comments and its string and character
/// literals become spaces (line breaks stay), so that no path is read in
/// them and no brace of a literal counts.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut code = String::with_capacity(text.len());
    let mut at = 0;
    while at < chars.len() {
        match not_code_end(&chars, at) {
            Some(end) => {
                let end = end.min(chars.len());
                code.extend(
                    chars[at..end]
                        .iter()
                        .map(|&c| if c == '\n' { c } else { ' ' }),
                );
                at = end;
            }
            None => {
                code.push(chars[at]);
                at += 1;
            }
        }
    }
    code
}

/// Where the comment or literal starting at `at` ends (past its last
/// character), or `None` when none starts there.
fn not_code_end(chars: &[char], at: usize) -> Option<usize> {
    let next = chars.get(at + 1).copied();
    let starts_word = at == 0 || !is_identifier_char(chars[at - 1]);
    match (chars[at], next) {
        ('/', Some('/')) => Some(position_from(chars, at, |c| c == '\n').unwrap_or(chars.len())),
        ('/', Some('*')) => Some(block_comment_end(chars, at)),
        ('"', _) => Some(string_end(chars, at + 1)),
        // A character literal: escaped (`'\''`, `'\u{7f}'`) or one
        // character (`'}'`). Anything else is a lifetime or a label.
        ('\'', Some('\\')) => Some(position_from(chars, at + 3, |c| c == '\'')? + 1),
        ('\'', Some(_)) if chars.get(at + 2) == Some(&'\'') => Some(at + 3),
        ('r' | 'b' | 'c', _) if starts_word => raw_string_end(chars, at),
        _ => None,
    }
}

/// The first position from `from` whose character is `wanted`.
fn position_from(chars: &[char], from: usize, wanted: impl Fn(char) -> bool) -> Option<usize> {
    chars
        .get(from..)?
        .iter()
        .position(|&c| wanted(c))
        .map(|offset| from + offset)
}

/// The end of the `/* */` comment at `at`; they nest.
fn block_comment_end(chars: &[char], at: usize) -> usize {
    let mut depth = 0;
    let mut i = at;
    while i + 1 < chars.len() {
        match (chars[i], chars[i + 1]) {
            ('/', '*') => {
                depth += 1;
                i += 2;
            }
            ('*', '/') => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return i;
                }
            }
            _ => i += 1,
        }
    }
    chars.len()
}

/// The end of a `"…"` string whose text starts at `from`.
fn string_end(chars: &[char], from: usize) -> usize {
    let mut i = from;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    chars.len()
}

/// The end of the raw string (`r"…"`, `r#"…"#`, `br"…"`, `cr"…"`) at
/// `at`, or `None` when none starts there (`r#type` is an identifier).
fn raw_string_end(chars: &[char], at: usize) -> Option<usize> {
    let mut i = at;
    if chars[i] != 'r' {
        i += 1;
    }
    if chars.get(i) != Some(&'r') {
        return None;
    }
    let hashes = chars[i + 1..].iter().take_while(|&&c| c == '#').count();
    i += 1 + hashes;
    if chars.get(i) != Some(&'"') {
        return None;
    }
    let mut from = i + 1;
    while let Some(quote) = position_from(chars, from, |c| c == '"') {
        let closing = chars[quote + 1..].iter().take_while(|&&c| c == '#').count();
        if closing >= hashes {
            return Some(quote + 1 + hashes);
        }
        from = quote + 1;
    }
    Some(chars.len())
}

fn is_identifier_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn is_identifier(token: &str) -> bool {
    token
        .trim_start_matches('$')
        .starts_with(|c: char| c.is_alphabetic() || c == '_')
}

/// The tokens of `code` that paths are read from: identifiers (`$crate`
/// too), `::`, and every other character alone.
fn tokens(code: &str) -> Vec<&str> {
    let mut tokens = Vec::new();
    let mut rest = code.trim_start();
    while let Some(first) = rest.chars().next() {
        let word = rest.strip_prefix('$').unwrap_or(rest);
        let identifier = word
            .find(|c: char| !is_identifier_char(c))
            .unwrap_or(word.len());
        let len = if rest.starts_with("::") {
            2
        } else if identifier > 0 {
            identifier + (rest.len() - word.len())
        } else {
            first.len_utf8()
        };
        tokens.push(&rest[..len]);
        rest = rest[len..].trim_start();
    }
    tokens
}

/// An anchored path as written (anchor first), and the inline modules
/// (outermost first) it is written in.
struct Written<'t> {
    inline: Vec<&'t str>,
    segments: Vec<&'t str>,
}

/// Every anchored path in `tokens`, outside `#[cfg(test)]` modules and
/// visibility restrictions.
fn anchored_paths<'t>(tokens: &[&'t str]) -> Vec<Written<'t>> {
    let mut found = Vec::new();
    // The inline modules around, each with the brace depth it opened at.
    let mut inline: Vec<(&str, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut at = 0;
    while at < tokens.len() {
        if let Some(end) = test_module_end(tokens, at) {
            at = end;
            continue;
        }
        let before = |back: usize| at.checked_sub(back).map(|i| tokens[i]);
        match tokens[at] {
            "{" => depth += 1,
            "}" => {
                depth = depth.saturating_sub(1);
                if inline.last().is_some_and(|&(_, opened)| opened == depth) {
                    inline.pop();
                }
            }
            "mod" if tokens.get(at + 2) == Some(&"{") => inline.push((tokens[at + 1], depth)),
            "crate" | "$crate" | "super" | "self"
                if tokens.get(at + 1) == Some(&"::")
                    && before(1) != Some("::")
                    && !(before(1) == Some("in") && before(2) == Some("(")) =>
            {
                let mut paths = Vec::new();
                at = use_tree(tokens, at, Vec::new(), &mut paths);
                let names: Vec<&str> = inline.iter().map(|&(name, _)| name).collect();
                found.extend(paths.into_iter().map(|segments| Written {
                    inline: names.clone(),
                    segments,
                }));
                continue;
            }
            _ => {}
        }
        at += 1;
    }
    found
}

/// The paths of the use tree (or the inline path) at `at`, each after
/// `prefix`: the leaves of its groups. Returns where the tree ends.
fn use_tree<'t>(
    tokens: &[&'t str],
    mut at: usize,
    mut path: Vec<&'t str>,
    paths: &mut Vec<Vec<&'t str>>,
) -> usize {
    loop {
        match tokens.get(at) {
            Some(&"{") => return group(tokens, at + 1, &path, paths),
            Some(&"*") => {
                paths.push(path);
                return at + 1;
            }
            Some(&name) if is_identifier(name) => {
                path.push(name);
                at += 1;
            }
            _ => break,
        }
        if tokens.get(at) != Some(&"::") {
            break;
        }
        at += 1;
    }
    paths.push(path);
    at
}

/// The paths of the group whose items start at `at` (after its `{`);
/// returns where the group ends (after its `}`). A rename (`a as b`) is
/// skipped.
fn group<'t>(
    tokens: &[&'t str],
    mut at: usize,
    prefix: &[&'t str],
    paths: &mut Vec<Vec<&'t str>>,
) -> usize {
    loop {
        match tokens.get(at) {
            None => return at,
            Some(&"}") => return at + 1,
            Some(&",") => at += 1,
            Some(_) => {
                at = use_tree(tokens, at, prefix.to_vec(), paths);
                while tokens.get(at).is_some_and(|t| !matches!(*t, "," | "}")) {
                    at += 1;
                }
            }
        }
    }
}

/// Where the `#[cfg(test)]` inline module whose attributes start at `at`
/// ends (after its `}`), or `None` when none starts there.
fn test_module_end(tokens: &[&str], at: usize) -> Option<usize> {
    let end = attribute_end(tokens, at)?;
    let condition = tokens[at + 2..end - 1].strip_prefix(&["cfg", "("])?;
    let test_only = condition == ["test", ")"]
        || (condition.first() == Some(&"all")
            && condition.contains(&"test")
            && !condition.iter().any(|t| matches!(*t, "not" | "any")));
    if !test_only {
        return None;
    }
    let mut i = end;
    while let Some(next) = attribute_end(tokens, i) {
        i = next;
    }
    if tokens.get(i) == Some(&"pub") {
        i += 1;
        if tokens.get(i) == Some(&"(") {
            i = position_of(tokens, i, ")")? + 1;
        }
    }
    if tokens.get(i) != Some(&"mod") || tokens.get(i + 2) != Some(&"{") {
        return None;
    }
    let mut depth = 0;
    for (offset, token) in tokens[i + 2..].iter().enumerate() {
        match *token {
            "{" => depth += 1,
            "}" => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 2 + offset + 1);
                }
            }
            _ => {}
        }
    }
    Some(tokens.len())
}

/// The end (after its `]`) of the outer attribute `#[…]` at `at`.
fn attribute_end(tokens: &[&str], at: usize) -> Option<usize> {
    if tokens.get(at..at + 2)? != ["#", "["] {
        return None;
    }
    let mut depth = 0;
    for (offset, token) in tokens[at + 1..].iter().enumerate() {
        match *token {
            "[" => depth += 1,
            "]" => {
                depth -= 1;
                if depth == 0 {
                    return Some(at + 1 + offset + 1);
                }
            }
            _ => {}
        }
    }
    None
}

fn position_of(tokens: &[&str], from: usize, wanted: &str) -> Option<usize> {
    tokens[from..]
        .iter()
        .position(|t| *t == wanted)
        .map(|offset| from + offset)
}

/// The strongly connected components of `graph` with more than one file
/// (Tarjan's algorithm): each sorted, in the order of their first file.
pub(super) fn cycles(graph: &Imports) -> Vec<Vec<String>> {
    let mut search = Components {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for file in graph.keys() {
        if !search.index.contains_key(file.as_str()) {
            search.visit(file);
        }
    }
    let mut found = search.found;
    found.sort();
    found
}

/// Tarjan's search, one depth-first walk over the files.
struct Components<'g> {
    graph: &'g Imports,
    /// Each file visited, in the order of its visit.
    index: BTreeMap<&'g str, usize>,
    /// The lowest index reachable from each file through the files on the
    /// stack.
    low: BTreeMap<&'g str, usize>,
    /// The files visited whose component is not complete yet.
    stack: Vec<&'g str>,
    found: Vec<Vec<String>>,
}

impl<'g> Components<'g> {
    fn visit(&mut self, file: &'g str) {
        let index = self.index.len();
        self.index.insert(file, index);
        self.low.insert(file, index);
        self.stack.push(file);
        let graph = self.graph;
        for next in graph.get(file).into_iter().flat_map(BTreeMap::keys) {
            let next = next.as_str();
            let reached = match self.index.get(next) {
                None => {
                    self.visit(next);
                    self.low[next]
                }
                Some(&seen) if self.stack.contains(&next) => seen,
                Some(_) => continue,
            };
            if reached < self.low[file] {
                self.low.insert(file, reached);
            }
        }
        if self.low[file] != index {
            return;
        }
        let at = self.stack.iter().rposition(|f| *f == file).unwrap_or(0);
        let mut component: Vec<String> = self.stack.drain(at..).map(str::to_string).collect();
        if component.len() > 1 {
            component.sort();
            self.found.push(component);
        }
    }
}

/// A cycle as the failure shows it: its files, and each edge between them
/// with the path that makes it.
pub(super) fn describe(cycle: &[String], graph: &Imports) -> String {
    let mut text = format!("a cycle of {} files:", cycle.len());
    for from in cycle {
        for (to, path) in &graph[from] {
            if cycle.contains(to) {
                text.push_str(&format!("\n  src/{from} → src/{to} ({path})"));
            }
        }
    }
    text
}
