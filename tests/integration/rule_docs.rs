//! docs/rules/: a page per rule that people can link to (SARIF's helpUri
//! and the language server's codeDescription point at them), each exactly
//! what `toolc explain RULE` prints, and docs/rules/README.md, their index,
//! exactly what `toolc rules --format markdown` prints. The pages are made
//! by the binary from the rules' own documentation; this test says when a
//! page differs, and with TOOLC_UPDATE_DOCS set writes them first.

use std::collections::BTreeMap;
use std::path::Path;

use super::{Test, root, rule_names};

/// The variable that makes the test write the pages before comparing.
const UPDATE: &str = "TOOLC_UPDATE_DOCS";

/// Every file docs/rules/ should hold, and its text, from the binary.
fn expected_pages() -> BTreeMap<String, String> {
    let mut pages = BTreeMap::new();
    for name in rule_names() {
        let page = Test::new().args(["explain", &name]).run();
        assert_eq!(page.code, 0, "{name}: {}", page.stderr);
        pages.insert(format!("{name}.md"), page.stdout);
    }
    let index = Test::new().args(["rules", "--format", "markdown"]).run();
    assert_eq!(index.code, 0, "{}", index.stderr);
    pages.insert("README.md".to_string(), index.stdout);
    pages
}

/// The names of the files in `dir`.
fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|entry| entry.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn rule_docs_are_what_toolc_explain_prints() {
    let dir = root().join("docs/rules");
    let pages = expected_pages();
    if std::env::var_os(UPDATE).is_some() {
        std::fs::create_dir_all(&dir).expect("make docs/rules");
        for (file, text) in &pages {
            std::fs::write(dir.join(file), text).expect("write a page");
        }
        for file in files_in(&dir) {
            if !pages.contains_key(&file) {
                std::fs::remove_file(dir.join(&file)).expect("remove a stale page");
            }
        }
    }
    let differ: Vec<&String> = pages
        .iter()
        .filter(|(file, text)| std::fs::read_to_string(dir.join(file)).ok().as_ref() != Some(*text))
        .map(|(file, _)| file)
        .collect();
    let extra: Vec<String> = files_in(&dir)
        .into_iter()
        .filter(|file| !pages.contains_key(file))
        .collect();
    assert!(
        differ.is_empty() && extra.is_empty(),
        "docs/rules/ is not what the rules' documentation gives: {differ:?} differ or are \
         missing, {extra:?} are no rule's page. Regenerate them with \
         `{UPDATE}=1 scripts/test --test integration -- rule_docs`"
    );
}

#[test]
fn rule_docs_index_lists_every_rule_with_its_page() {
    let index = Test::new().args(["rules", "--format", "markdown"]).run();
    let rules = super::rules_json();
    let rows: Vec<&str> = index
        .stdout
        .lines()
        .filter(|line| line.starts_with("| TC"))
        .collect();
    assert_eq!(rows.len(), rules.len(), "{}", index.stdout);
    for (row, rule) in rows.iter().zip(&rules) {
        let name = rule["name"].as_str().expect("name");
        let fixable = if rule["fixable"] == true { "yes" } else { "" };
        let expected = format!(
            "| {} | [{name}]({name}.md) | {} | {fixable} |",
            rule["code"].as_str().expect("code"),
            rule["summary"].as_str().expect("summary"),
        );
        assert_eq!(*row, expected);
    }
    // A page says what `toolc rules` says of its rule.
    let page = Test::new().args(["explain", "tc102"]).run().stdout;
    assert!(
        page.starts_with("# duplicate-tool-name (TC102)\n\n"),
        "{page}"
    );
    assert!(page.contains("- Default severity: error\n"), "{page}");
    assert!(page.contains("- Automatic fix: no"), "{page}");
}
