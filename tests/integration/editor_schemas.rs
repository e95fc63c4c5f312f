//! The JSON Schemas editors use without toolc (schemas/): valid 2020-12,
//! stable `$id`s that the SchemaStore entries name, each one accepting the
//! good files of its format, as a validator other than toolc's (Python's
//! jsonschema) reads them; `toolc schema` prints them; gen and convert
//! write a `"$schema"` key that names them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::{TempDir, root};

fn toolc() -> Command {
    Command::new(env!("CARGO_BIN_EXE_toolc"))
}

fn schemas() -> BTreeMap<String, Value> {
    let mut found = BTreeMap::new();
    for entry in std::fs::read_dir(root().join("schemas")).expect("schemas/") {
        let path = entry.expect("entry").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_string();
        if let Some(format) = name.strip_suffix(".schema.json") {
            let text = std::fs::read_to_string(&path).expect("read");
            found.insert(
                format.to_string(),
                serde_json::from_str(&text).expect("JSON"),
            );
        }
    }
    found
}

#[test]
fn each_schema_has_a_stable_id_that_the_catalog_names() {
    let schemas = schemas();
    assert_eq!(schemas.len(), 9, "{:?}", schemas.keys());
    let catalog: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("schemas/schemastore-catalog.json")).expect("catalog"),
    )
    .expect("JSON");
    let entries = catalog["schemas"].as_array().expect("schemas");
    assert_eq!(entries.len(), schemas.len());
    for (format, schema) in &schemas {
        assert_eq!(
            schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
            "{format}"
        );
        let id = schema["$id"]
            .as_str()
            .unwrap_or_else(|| panic!("{format} has no $id"));
        assert_eq!(
            id,
            format!("https://json.schemastore.org/toolc-{format}.json")
        );
        let entry = entries
            .iter()
            .find(|e| e["url"] == id)
            .unwrap_or_else(|| panic!("no catalog entry for {id}"));
        assert!(entry["name"].as_str().is_some_and(|n| !n.is_empty()));
        assert!(entry["description"].as_str().is_some_and(|n| !n.is_empty()));
        // SchemaStore refuses generic names: a match names a directory.
        for glob in entry["fileMatch"].as_array().into_iter().flatten() {
            let glob = glob.as_str().unwrap_or("");
            let directories = glob.split('/').filter(|p| !p.contains('*')).count();
            assert!(
                glob.contains('/') && directories >= 2,
                "{format}: {glob} is not scoped to a directory"
            );
        }
        // `toolc schema` prints the file as it is.
        let printed = toolc()
            .args(["schema", format])
            .output()
            .expect("toolc schema");
        assert!(printed.status.success());
        let text = std::fs::read_to_string(root().join(format!("schemas/{format}.schema.json")))
            .expect("read");
        assert_eq!(String::from_utf8_lossy(&printed.stdout), text, "{format}");
    }
}

/// The good files of the rules' fixtures and the real corpus, by format
/// (as `toolc lint` detected it, which only sorts them).
fn good_files() -> BTreeMap<String, Vec<PathBuf>> {
    let fixtures = root().join("fixtures/rules");
    let corpus = root().join("../shared/corpus");
    let mut paths: Vec<PathBuf> = walkdir::WalkDir::new(&fixtures)
        .into_iter()
        .flatten()
        .filter(|e| e.path().components().any(|c| c.as_os_str() == "good"))
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .map(|e| e.into_path())
        .collect();
    for pattern in ["agentstack/main", "nachos"] {
        paths.extend(
            walkdir::WalkDir::new(corpus.join(pattern))
                .into_iter()
                .flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
                .map(|e| e.into_path()),
        );
    }
    let mut by_format: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for path in paths {
        let output = toolc()
            .args(["lint", "--format", "json"])
            .arg(&path)
            .output()
            .expect("lint");
        let report: Value = serde_json::from_slice(&output.stdout).expect("JSON report");
        // Clean as lint reads the structure: no error, and no unknown key
        // (which lint reads from the schema's closed objects as a
        // warning, as editors show a schema's complaints).
        let errors = report["diagnostics"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|d| {
                d["severity"] == "error"
                    || d["rule"] == "unknown-field"
                    // A Nachos channel or core package: the schema is of
                    // tool manifests, as the catalog's match says.
                    || d["rule"] == "not-a-tool-manifest"
            });
        let format = report["files"][0]["format"].as_str().map(str::to_string);
        if let (Some(format), false) = (format, errors) {
            by_format.entry(format).or_default().push(path);
        }
    }
    by_format
}

#[test]
fn each_schema_accepts_its_formats_good_files_in_another_validator() {
    let by_format = good_files();
    for format in [
        "nora",
        "agentcli",
        "agentstack",
        "nachos",
        "mcp",
        "openai",
        "anthropic",
    ] {
        assert!(
            by_format.get(format).is_some_and(|files| !files.is_empty()),
            "no good {format} file found: {:?}",
            by_format.keys()
        );
    }
    let script = r#"
import json, sys
from jsonschema import Draft202012Validator
checked = 0
for line in sys.stdin:
    schema_path, path = line.rstrip("\n").split("\t")
    schema = json.load(open(schema_path))
    Draft202012Validator.check_schema(schema)
    errors = list(Draft202012Validator(schema).iter_errors(json.load(open(path))))
    if errors:
        print(f"{path}: {errors[0].message} at {list(errors[0].absolute_path)}")
        sys.exit(1)
    checked += 1
print(checked)
"#;
    let mut input = String::new();
    let mut count = 0;
    for (format, files) in &by_format {
        let schema = root().join(format!("schemas/{format}.schema.json"));
        for file in files {
            input.push_str(&format!("{}\t{}\n", schema.display(), file.display()));
            count += 1;
        }
    }
    let output = run_python(script, &input);
    assert_eq!(output.trim(), count.to_string(), "{output}");
}

fn run_python(script: &str, input: &str) -> String {
    use std::io::Write;
    let mut child = Command::new(super::sdk::python())
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write");
    let output = child.wait_with_output().expect("wait");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "{stdout}");
    stdout
}

fn first_key(path: &Path) -> (String, Value) {
    let text = std::fs::read_to_string(path).expect("read");
    let value: serde_json::Map<String, Value> = serde_json::from_str(&text).expect("object");
    let (key, value) = value.into_iter().next().expect("a member");
    (key, value)
}

#[test]
fn gen_and_convert_write_a_schema_key_that_lints_clean() {
    let dir = TempDir::new("schema-key-out");
    let source = root().join("fixtures/rules/property-missing-type/good/tools.json");
    let mcp = dir.path().join("mcp.json");
    let status = toolc()
        .args(["gen", "mcp", "--schema-key", "-o"])
        .arg(&mcp)
        .arg(&source)
        .status()
        .expect("gen");
    assert!(status.success());
    assert_eq!(
        first_key(&mcp),
        (
            "$schema".into(),
            "https://json.schemastore.org/toolc-mcp.json".into()
        )
    );
    let out = dir.path().join("nora");
    let status = toolc()
        .args(["convert", "--to", "nora", "--schema-key", "-o"])
        .arg(&out)
        .arg(&source)
        .status()
        .expect("convert");
    assert!(status.success());
    let manifest = out.join("search_web/tool.json");
    assert_eq!(
        first_key(&manifest),
        (
            "$schema".into(),
            "https://json.schemastore.org/toolc-nora.json".into()
        )
    );
    let lint = toolc()
        .args(["lint", "--format", "json"])
        .arg(&mcp)
        .output()
        .expect("lint");
    let report: Value = serde_json::from_slice(&lint.stdout).expect("report");
    assert_eq!(report["diagnostics"], serde_json::json!([]), "{report}");
    // An array has no place for the key: refused, nothing written.
    let refused = toolc()
        .args(["gen", "openai", "--schema-key"])
        .arg(&source)
        .output()
        .expect("gen");
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("no place for a \"$schema\" key")
            || String::from_utf8_lossy(&refused.stderr)
                .contains("with a place for a \"$schema\" key")
    );
}
