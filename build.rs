//! Collects each lint rule's `//!` documentation comment into a table that
//! `toolc explain` prints, so the comment in the rule's file is the one and
//! only source of its user documentation.

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
}

fn fail(message: &str) -> ! {
    eprintln!("build.rs: {message}");
    std::process::exit(1);
}
