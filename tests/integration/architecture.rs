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

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

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
