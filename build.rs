//! Collects each lint rule's `//!` documentation comment into a table that
//! `toolc explain` prints, so the comment in the rule's file is the one and
//! only source of its user documentation; and embeds every template under
//! `templates/` (by its path there), so the binary needs no files at run
//! time and adding a template needs no registration.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let rules_dir = Path::new("src/lint/rules");
    println!("cargo:rerun-if-changed={}", rules_dir.display());
    let mut entries: Vec<(String, String)> = Vec::new();
    let dir = std::fs::read_dir(rules_dir)
        .unwrap_or_else(|e| fail(&format!("read {}: {e}", rules_dir.display())));
    for entry in dir.flatten() {
        let path = entry.path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if stem == "mod" || path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        println!("cargo:rerun-if-changed={}", path.display());
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| fail(&format!("read {}: {e}", path.display())));
        let doc: Vec<&str> = text
            .lines()
            .take_while(|l| l.starts_with("//!"))
            .map(|l| {
                l.strip_prefix("//! ")
                    .unwrap_or(l.strip_prefix("//!").unwrap_or(l))
            })
            .collect();
        for section in [
            "## What it does",
            "## Why is this bad?",
            "## Example",
            "## Use instead",
        ] {
            if !doc.contains(&section) {
                fail(&format!(
                    "{}: the doc comment lacks \"{section}\"",
                    path.display()
                ));
            }
        }
        entries.push((stem.replace('_', "-"), doc.join("\n")));
    }
    entries.sort();
    let mut out = String::from(
        "/// Rule name and documentation, from each rule file's `//!` comment.\npub(crate) static RULE_DOCS: &[(&str, &str)] = &[\n",
    );
    for (name, doc) in &entries {
        let _ = writeln!(out, "    ({name:?}, {doc:?}),");
    }
    out.push_str("];\n");
    let out_dir = std::env::var("OUT_DIR").unwrap_or_else(|_| fail("OUT_DIR is not set"));
    std::fs::write(Path::new(&out_dir).join("rule_docs.rs"), out)
        .unwrap_or_else(|e| fail(&format!("write rule_docs.rs: {e}")));
    embed_templates(&out_dir);
}

/// Writes `templates.rs`: every file under templates/ but the READMEs, as
/// (path relative to templates/, contents), sorted by path.
fn embed_templates(out_dir: &str) {
    let root = Path::new("templates");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    collect(root, &mut files);
    files.sort();
    let mut out = String::from(
        "/// Every template under templates/, by its path there.\npub(crate) static EMBEDDED: &[(&str, &str)] = &[\n",
    );
    for path in files {
        let Ok(relative) = path.strip_prefix(root) else {
            continue;
        };
        let name = relative.to_string_lossy().replace('\\', "/");
        if name == "README.md" || name.ends_with("/README.md") {
            continue;
        }
        let absolute = std::fs::canonicalize(&path)
            .unwrap_or_else(|e| fail(&format!("{}: {e}", path.display())));
        let _ = writeln!(
            out,
            "    ({name:?}, include_str!({:?})),",
            absolute.display().to_string()
        );
    }
    out.push_str("];\n");
    std::fs::write(Path::new(out_dir).join("templates.rs"), out)
        .unwrap_or_else(|e| fail(&format!("write templates.rs: {e}")));
}

fn collect(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        println!("cargo:rerun-if-changed={}", path.display());
        if path.is_dir() {
            collect(&path, files);
        } else {
            files.push(path);
        }
    }
}

fn fail(message: &str) -> ! {
    eprintln!("build.rs: {message}");
    std::process::exit(1);
}
