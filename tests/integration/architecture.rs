//! The layering of `src/`, checked: a lower layer never names a higher one.
//!
//! Each file belongs to the top-level module it sits in (`src/lint/rules/x.rs`
//! is `lint`); every `crate::<module>` path in it (also inside `use
//! crate::{a, b}` groups) is an edge to that module. An edge must go to a
//! module of a strictly lower layer. A module missing from [`LAYERS`] fails
//! the test too, so a new module gets its place on purpose.
//!
//! The same reading checks that lint's rules do no I/O: they check what the
//! front end (`project`) loaded.
//!
//! Within and across modules, no two files depend on each other, directly
//! or through a longer cycle: [`files_import_no_cycles`] says how a file's
//! dependencies are read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

mod imports;

use imports::{cycles, describe, imports};

/// Every top-level module and its layer, lowest first. Readers, then the
/// IR and the formats, the front end, lint, the backends, serve, the CLI.
const LAYERS: &[(&str, u8)] = &[
    ("source", 0),
    // Time as toolc writes it (the audit log, NATS services).
    ("clock", 0),
    ("suggest", 0),
    // How text is shown to people, used by the CLI and the server's log.
    ("terminal", 0),
    ("providers", 0),
    // Live MCP servers as input: a reader that makes a document of them.
    ("live", 0),
    // NATS: the connection, the Nachos and NATS services protocols' facts.
    ("nats", 1),
    ("syntax", 1),
    ("diagnostic", 1),
    ("json", 2),
    ("python", 2),
    ("typescript", 2),
    ("ir", 3),
    ("schema", 3),
    ("formats", 4),
    // Pinned tool definitions (toolc.lock): read by lint and serve.
    ("lock", 4),
    ("project", 5),
    ("lint", 6),
    ("emit", 7),
    ("convert", 8),
    ("run", 8),
    ("serve", 9),
    // The language server: lint and emit for an editor.
    ("lsp", 9),
    ("cli", 10),
    // The fuzz targets' entry points, which drive every layer.
    ("fuzzing", 11),
];

/// The top-level module a file under `src/` belongs to (`None` for the
/// crate root and the binary).
fn top_module(relative: &Path) -> Option<String> {
    let mut parts = relative.components();
    let first = parts.next()?.as_os_str().to_string_lossy().into_owned();
    if parts.next().is_some() {
        return Some(first);
    }
    let name = first.strip_suffix(".rs")?;
    (!matches!(name, "lib" | "main")).then(|| name.to_string())
}

/// The identifier `text` starts with.
fn leading_identifier(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// The modules `text` names through `crate::` paths.
fn named_modules(text: &str) -> BTreeSet<String> {
    let code: String = text
        .lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let mut names = BTreeSet::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        let items = match rest.strip_prefix('{') {
            Some(group) => &group[..group.find('}').unwrap_or(group.len())],
            None => leading_identifier(rest),
        };
        for item in items.split(',') {
            let name = leading_identifier(item.trim());
            if !name.is_empty() {
                names.insert(name.to_string());
            }
        }
    }
    names
}

/// The edges that break the layering, and the modules the table lacks.
fn violations(files: &BTreeMap<String, String>) -> Vec<String> {
    let layer: BTreeMap<&str, u8> = LAYERS.iter().copied().collect();
    let mut found = Vec::new();
    for (path, text) in files {
        let Some(from) = top_module(Path::new(path)) else {
            continue;
        };
        let Some(&from_layer) = layer.get(from.as_str()) else {
            found.push(format!("{path}: module `{from}` has no layer in LAYERS"));
            continue;
        };
        for to in named_modules(text) {
            if to == from || matches!(to.as_str(), "self" | "super") {
                continue;
            }
            match layer.get(to.as_str()) {
                // A name the crate root defines (a macro, an item of lib.rs).
                None => {}
                Some(&to_layer) if to_layer < from_layer => {}
                Some(&to_layer) => found.push(format!(
                    "{path}: `{from}` (layer {from_layer}) uses `crate::{to}` (layer {to_layer}); layers only call downward"
                )),
            }
        }
    }
    found
}

/// Every `.rs` file under `dir`, by its path relative to `dir`.
fn sources(dir: &Path) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.expect("walk src");
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "rs") {
            let relative = path.strip_prefix(dir).expect("under src");
            let text = std::fs::read_to_string(path).expect("read source");
            files.insert(relative.to_string_lossy().replace('\\', "/"), text);
        }
    }
    files
}

#[test]
fn layers_only_call_downward() {
    let files = sources(&super::root().join("src"));
    assert!(files.len() > 50, "src/ was not read");
    let found = violations(&files);
    assert!(found.is_empty(), "layering broken:\n{}", found.join("\n"));
}

#[test]
fn a_back_edge_is_caught() {
    let mut files = BTreeMap::new();
    files.insert(
        "project/read.rs".to_string(),
        "use crate::json::Document;\nuse crate::{ir::Format, lint::Rule};\n".to_string(),
    );
    files.insert(
        "syntax/mod.rs".to_string(),
        "// crate::cli in a comment is no edge\nfn f() { crate::source::read(); }\n".to_string(),
    );
    files.insert("brand_new.rs".to_string(), String::new());
    let found = violations(&files);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(found[0].contains("module `brand_new` has no layer"));
    assert!(found[1].contains("`project` (layer 5) uses `crate::lint` (layer 6)"));
}

#[test]
fn rules_do_no_io() {
    let rules = super::root().join("src/lint/rules");
    for (path, text) in sources(&rules) {
        for io in [
            "std::fs",
            "File::open",
            "read_to_string",
            "read_dir",
            ".metadata(",
            ".exists()",
            ".is_file()",
        ] {
            assert!(
                !text.contains(io),
                "src/lint/rules/{path} uses {io}: rules check what the front end loaded"
            );
        }
    }
}

/// No two files of `src/` depend on each other, directly or through a
/// longer cycle: every strongly connected component of the file graph is
/// one file.
///
/// A file depends on the files its *anchored* paths lead to: every path
/// that starts with `crate::` (`$crate::` in a macro), `super::` or
/// `self::`, in a `use` (every leaf of its groups, nested ones too: `use
/// super::{a, b::{c, d}}` names `super::a`, `super::b::c`,
/// `super::b::d`) or inline in code (`super::sandbox::apply(..)`).
///
/// - A path is read from the module of the file it is written in
///   (`run/launch.rs` and `run/launch/mod.rs` are both `run::launch`, so
///   `super` from either is `run`), or of the inline `mod name { .. }` it
///   is written in.
/// - It leads to the file of the deepest module along it that has a file:
///   `super::sandbox::apply` from `run/launch.rs` leads to `run/sandbox.rs`
///   (or `run/sandbox/mod.rs`), `crate::run::Runner` to `run/mod.rs`.
/// - A name is found in the file the path names, not where it is defined:
///   `super::Thing` leads to the parent's file even when the parent only
///   re-exports `Thing` from a sibling. The parent is what the file names,
///   and a re-export is a use like any other, so a child that names its
///   parent depends on it.
/// - Declaring a submodule (`mod child;`) is no edge: a child naming its
///   parent (`super::Thing`) makes no cycle with that declaration. A parent
///   that names something of the child through an anchored path
///   (`self::child::f`, `crate::run::launch::f`) depends on it.
/// - A file naming itself is no edge.
///
/// Not read, so never an edge:
///
/// - Bare paths (`launch::start()`, or a name a `use` brought in; the
///   `use` itself is read). One consequence: a parent that calls a child
///   it declares as `child::f()` is not seen to depend on it. That is how
///   the modules of `src/` compose their children while the children use
///   the types their parent holds; counting it would make nearly every
///   `mod.rs` a cycle with its children, a layout this test does not ask
///   to change. Sibling files name each other anchored first
///   (`super::sibling`, `crate::run::sibling`), so they are seen, unless
///   through a glob of their parent (`use super::*`, which leads to the
///   parent's file; only test modules use one today).
/// - A visibility restriction (`pub(in crate::cli)`): it says who may see
///   an item and uses nothing.
/// - Comments (`//`, `//!`, `///`, `/* */`), string and character
///   literals, and `#[cfg(test)]` inline modules: a unit test module uses
///   what it tests (`use super::*`) without the file depending on it.
#[test]
fn files_import_no_cycles() {
    let files = sources(&super::root().join("src"));
    let graph = imports(&files);
    let edges: usize = graph.values().map(BTreeMap::len).sum();
    assert!(
        edges > files.len(),
        "only {edges} imports read in {} files: src/ was not read",
        files.len()
    );
    let found = cycles(&graph);
    let mut problems = Vec::new();
    problems.extend(found.iter().map(|cycle| describe(cycle, &graph)));
    assert!(
        problems.is_empty(),
        "files of src/ depend on each other:\n{}",
        problems.join("\n")
    );
}

#[test]
fn import_cycles_are_caught() {
    let found = cycles(&imports(&synthetic(&[
        // Two files: a `use` one way, an inline path the other.
        ("run/a.rs", "use super::b::B;\n"),
        (
            "run/b.rs",
            "pub struct B;\nfn f() { super::a::helper(1); }\n",
        ),
        ("run/mod.rs", "mod a;\nmod b;\n"),
        // Three, through nested groups, `foo.rs` beside `foo/`, a
        // `mod.rs` and `$crate::`.
        (
            "one.rs",
            "use crate::two::{Thing, inner::{self as deep, Other}};\n",
        ),
        ("two.rs", "mod inner;\npub struct Thing;\n"),
        (
            "two/inner.rs",
            "macro_rules! m { () => { $crate::three::go() } }\n",
        ),
        (
            "three/mod.rs",
            "mod four;\nfn go() { super::one::start(); }\n",
        ),
        // Named by nobody: in no cycle.
        ("three/four.rs", "use super::super::{one, two::Thing};\n"),
    ])));
    assert_eq!(
        found,
        vec![
            vec!["one.rs", "three/mod.rs", "two/inner.rs"],
            vec!["run/a.rs", "run/b.rs"],
        ],
    );
}

#[test]
fn what_is_no_import_makes_no_cycle() {
    let graph = imports(&synthetic(&[
        // A parent that declares a child the child names, and a test
        // module using the child.
        (
            "p/mod.rs",
            "mod child;\npub struct Thing;\n#[cfg(test)]\n#[allow(unused)]\nmod tests {\n    use super::child::made;\n    const BRACE: char = '}';\n    mod more { use crate::p::child::made; }\n}\n",
        ),
        (
            "p/child.rs",
            "use super::Thing;\npub fn made() -> Thing { Thing }\n",
        ),
        // Paths in comments and literals.
        (
            "q/mod.rs",
            "//! [`self::r::f`]\nmod r;\n/// self::r::f\nfn g() {\n    // self::r::f();\n    /* self::r::f() /* nested */ self::r::f() */\n    let _ = \"self::r::f\";\n    let _ = r#\"self::r::f \"#;\n    let _ = '\\'';\n}\n",
        ),
        ("q/r.rs", "pub(crate) fn f() { super::g() }\n"),
        // A visibility restriction, and a path inside an inline module
        // that leads back to its own file.
        (
            "v/mod.rs",
            "mod w;\nfn h() { self::w::shown(); }\npub(crate) struct Base;\n",
        ),
        (
            "v/w.rs",
            "pub(in crate::v) fn shown() {}\nmod inner { use super::shown; }\n",
        ),
    ]));
    assert_eq!(cycles(&graph), Vec::<Vec<String>>::new(), "{graph:#?}");
    let edges = |from: &str| graph[from].keys().cloned().collect::<Vec<_>>();
    assert_eq!(edges("p/child.rs"), ["p/mod.rs"]);
    assert!(edges("p/mod.rs").is_empty());
    assert!(edges("q/mod.rs").is_empty());
    assert_eq!(edges("v/mod.rs"), ["v/w.rs"]);
    assert!(edges("v/w.rs").is_empty());
}

/// Files from `(path under src/, text)` pairs, as [`sources`] reads them.
fn synthetic(files: &[(&str, &str)]) -> BTreeMap<String, String> {
    files
        .iter()
        .map(|(path, text)| (path.to_string(), text.to_string()))
        .collect()
}
