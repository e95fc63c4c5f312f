//! The real-world corpus in `../shared/corpus`: every file is read and
//! classified, nothing in it is an error, and the findings are snapshotted.

use super::{Test, root};

fn corpus_parent() -> std::path::PathBuf {
    let shared = root().join("../shared");
    assert!(
        shared.join("corpus").is_dir(),
        "the corpus is missing: {} (CI clones the project beside shared/)",
        shared.join("corpus").display()
    );
    shared
}

fn expected_format(path: &str) -> &'static str {
    match path.split('/').nth(1) {
        Some("agentstack") => "agentstack",
        Some("nachos") => "nachos",
        Some("agentcli") => "agentcli",
        Some("mcp-examples") => "mcp",
        other => panic!("unexpected corpus folder {other:?} in {path}"),
    }
}

#[test]
fn every_corpus_file_is_read_and_classified() {
    let shared = corpus_parent();
    let output = Test::new()
        .current_dir(&shared)
        .args(["lint", "--format", "json", "corpus"])
        .run();
    let report = output.json();
    let mut on_disk: Vec<String> = walkdir::WalkDir::new(shared.join("corpus"))
        .into_iter()
        .map(|e| e.expect("walk corpus"))
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .map(|e| {
            e.path()
                .strip_prefix(&shared)
                .expect("prefix")
                .display()
                .to_string()
        })
        .collect();
    on_disk.sort();
    let files = report["files"].as_array().expect("files");
    let read: Vec<String> = files
        .iter()
        .map(|f| f["path"].as_str().expect("path").to_string())
        .collect();
    assert_eq!(read, on_disk);
    assert_eq!(report["summary"]["skipped"], 0);
    for file in files {
        let path = file["path"].as_str().expect("path");
        assert_eq!(file["format"], expected_format(path), "{path}");
    }
    let tools: u64 = files.iter().filter_map(|f| f["tools"].as_u64()).sum();
    assert!(tools > 100, "only {tools} tools read from the corpus");
    assert_eq!(
        report["summary"]["errors"], 0,
        "{:#}",
        report["diagnostics"]
    );
    assert_eq!(output.code, 0);
}

#[test]
fn corpus_findings() {
    let shared = corpus_parent();
    let report = Test::new()
        .current_dir(&shared)
        .args(["lint", "--format", "json", "corpus"])
        .run()
        .json();
    let lines: Vec<String> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            format!(
                "{}:{}:{}: {}[{}] {}",
                d["path"].as_str().unwrap_or(""),
                d["line"],
                d["column"],
                d["severity"].as_str().unwrap_or(""),
                d["rule"].as_str().unwrap_or(""),
                d["message"].as_str().unwrap_or("")
            )
        })
        .collect();
    insta::assert_snapshot!(lines.join("\n"));
}
