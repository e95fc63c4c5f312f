//! What `toolc gen PROVIDER` writes passes `toolc lint --target PROVIDER`:
//! for every fixture manifest and every corpus manifest that gen accepts
//! (without --allow-errors), and for every provider (`gen openai --strict`
//! under `openai-strict`), the output has no error-level finding. The
//! emitters and the provider rules read one table (`src/providers/`); this
//! test is what keeps the two sides agreeing.
//!
//! Some findings are about what gen copies unchanged from the manifest and
//! has no right to change: a tool's name, its description, how many tools a
//! file offers, a property's name, the size of a schema. Those are allowed
//! in the output only when the manifest itself, linted with the same
//! target, reports the same rule: the emitter carried the problem, it did
//! not make it.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{TempDir, Test, root};

/// The providers, and the gen arguments that write for each.
const PROVIDERS: [(&str, &[&str]); 5] = [
    ("openai", &["openai"]),
    ("openai-strict", &["openai", "--strict"]),
    ("anthropic", &["anthropic"]),
    ("mcp", &["mcp"]),
    ("gemini", &["gemini"]),
];

/// Rules about what gen carries over from the manifest unchanged.
const CARRIED: &[&str] = &[
    "invalid-tool-name",
    "name-too-long",
    "name-charset",
    "name-start",
    "description-too-long",
    "too-many-tools",
    "strict-limits",
    "gemini-property-name",
];

/// Every manifest to generate from: the fixtures' and the corpus's JSON
/// files, as paths relative to the project root.
fn manifests() -> Vec<String> {
    let corpus = root().join("../shared/corpus");
    assert!(
        corpus.is_dir(),
        "the corpus is missing: {} (CI clones the project beside shared/)",
        corpus.display()
    );
    let mut found = Vec::new();
    for dir in [root().join("fixtures"), corpus] {
        for entry in walkdir::WalkDir::new(&dir) {
            let entry = entry.expect("walk");
            if entry.path().extension().is_some_and(|x| x == "json") {
                found.push(relative(entry.path()));
            }
        }
    }
    found.sort();
    found
}

fn relative(path: &Path) -> String {
    let root = root();
    match path.strip_prefix(&root) {
        Ok(inside) => inside.display().to_string(),
        // The corpus sits beside the project.
        Err(_) => {
            let shared = root.join("..");
            let rest = path.strip_prefix(&shared).expect("under the shared dir");
            format!("../{}", rest.display())
        }
    }
}

/// The error-level findings of `toolc lint --target TARGET PATH` (run in
/// `dir`), and the format the file was read as.
fn errors(dir: &Path, target: &str, path: &str) -> (Vec<Value>, String) {
    let report = Test::new()
        .current_dir(dir)
        .args(["lint", "--format", "json", "--target", target, path])
        .run()
        .json();
    let format = report["files"][0]["format"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let errors = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["severity"] == "error")
        .cloned()
        .collect();
    (errors, format)
}

/// What gen wrote, as a file `lint` reads: Gemini's
/// `{"functionDeclarations": [...]}` is no manifest format, but each
/// declaration is an OpenAI function (`name`, `description`,
/// `parameters`), so the declarations are linted as OpenAI tools.
/// `None` when the output holds no tool.
fn lintable(provider: &str, output: &str) -> Option<String> {
    let document: Value = serde_json::from_str(output)
        .unwrap_or_else(|e| panic!("gen {provider} wrote no JSON ({e}):\n{output}"));
    let tools = match provider {
        "gemini" => {
            let declarations = document["functionDeclarations"]
                .as_array()
                .expect("functionDeclarations");
            let tools: Vec<Value> = declarations
                .iter()
                .map(|d| json!({"type": "function", "function": d}))
                .collect();
            return (!tools.is_empty())
                .then(|| serde_json::to_string_pretty(&tools).expect("serialize"));
        }
        "mcp" => document["tools"].as_array().map_or(0, Vec::len),
        _ => document.as_array().map_or(0, Vec::len),
    };
    (tools > 0).then(|| output.to_string())
}

/// What one manifest's output for one provider is found to have wrong;
/// `None` when gen wrote no tool for it (the manifest has errors, is no
/// manifest, or declares no tool).
fn mismatches(
    manifest: &str,
    provider: &str,
    gen_args: &[&str],
    scratch: &Path,
) -> Option<Vec<String>> {
    let output = Test::new()
        .args(["gen"])
        .args(gen_args)
        .args([manifest])
        .run();
    if output.code != 0 {
        return None;
    }
    let text = lintable(provider, &output.stdout)?;
    let name = format!(
        "{}-{provider}.json",
        manifest.replace(['/', '.'], "_").trim_start_matches('_')
    );
    std::fs::write(scratch.join(&name), text).expect("write output");
    let (found, _) = errors(scratch, provider, &name);
    if found.is_empty() {
        return Some(Vec::new());
    }
    let (in_manifest, format) = errors(&root(), provider, manifest);
    let carried = |rule: &str| {
        CARRIED.contains(&rule) && in_manifest.iter().any(|d| d["rule"] == rule)
            // The front end lowers a Python `Any` to a schema without a
            // type, which the rule leaves to python-type-hint-unknown in an
            // AgentStack package.
            || (rule == "property-missing-type" && format == "agentstack")
    };
    let wrong = found
        .iter()
        .filter(|d| !carried(d["rule"].as_str().unwrap_or_default()))
        .map(|d| {
            format!(
                "gen {} {manifest}: {} at {}: {}",
                gen_args.join(" "),
                d["rule"].as_str().unwrap_or_default(),
                d["pointer"].as_str().unwrap_or_default(),
                d["message"].as_str().unwrap_or_default()
            )
        })
        .collect();
    Some(wrong)
}

#[test]
fn gen_output_lints_clean_under_its_provider() {
    let manifests = manifests();
    assert!(manifests.len() > 150, "only {} manifests", manifests.len());
    let scratch = TempDir::new("gen-lints-clean");
    let scratch: PathBuf = scratch.path().to_path_buf();
    // Two workers: the machine the tests run on has two cores.
    let halves = manifests.split_at(manifests.len() / 2);
    let (linted, found): (Vec<usize>, Vec<Vec<String>>) = std::thread::scope(|scope| {
        let workers: Vec<_> = [halves.0, halves.1]
            .into_iter()
            .map(|half| {
                let scratch = &scratch;
                scope.spawn(move || {
                    let mut linted = 0;
                    let mut found = Vec::new();
                    for manifest in half {
                        for (provider, gen_args) in PROVIDERS {
                            if let Some(wrong) = mismatches(manifest, provider, gen_args, scratch) {
                                linted += 1;
                                found.extend(wrong);
                            }
                        }
                    }
                    (linted, found)
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("worker"))
            .unzip()
    });
    // Most fixtures and the whole corpus generate, for every provider.
    let linted: usize = linted.iter().sum();
    assert!(linted > 500, "only {linted} outputs were linted");
    let found = found.concat();
    assert!(
        found.is_empty(),
        "gen wrote what lint rejects:\n{}",
        found.join("\n")
    );
}

#[test]
fn a_carried_finding_is_reported_in_the_manifest_too() {
    // A name Gemini refuses goes through gen unchanged: the manifest linted
    // for Gemini reports it, so the output may.
    let dir = TempDir::new("gen-lints-clean-carried");
    dir.write(
        "functions.json",
        r#"[{"type": "function", "function": {"name": "2fa_code", "description": "Make a code.",
            "parameters": {"type": "object", "properties": {}}}}]"#,
    );
    let (in_manifest, format) = errors(dir.path(), "gemini", "functions.json");
    assert_eq!(format, "openai");
    assert!(in_manifest.iter().any(|d| d["rule"] == "name-start"));
    let output = Test::new()
        .current_dir(dir.path())
        .args(["gen", "gemini", "functions.json"])
        .run();
    assert_eq!(output.code, 0, "{}", output.stderr);
    let text = lintable("gemini", &output.stdout).expect("a tool");
    dir.write("out.json", text);
    let (found, _) = errors(dir.path(), "gemini", "out.json");
    let rules: Vec<&str> = found.iter().filter_map(|d| d["rule"].as_str()).collect();
    assert_eq!(rules, ["name-start"]);
}

#[test]
fn gemini_rules_report_what_gen_gemini_removes() {
    // Keywords outside Gemini's schema, known or not, and a format Gemini
    // does not take for strings: lint reports each, gen removes each.
    let dir = TempDir::new("gen-lints-clean-gemini");
    dir.write(
        "functions.json",
        r#"[{"type": "function", "function": {"name": "fetch", "description": "Fetch a page.",
  "parameters": {"type": "object", "properties": {
    "url": {"type": "string", "format": "uri", "description": "The page."},
    "kind": {"type": "string", "enum": ["a", "b"], "x-order": 2, "description": "Kind."},
    "ids": {"type": "array", "items": {"type": "integer"}, "contains": {"type": "integer"},
            "description": "Ids."}
  }}}}]"#,
    );
    let (found, _) = errors(dir.path(), "gemini", "functions.json");
    let mut pointers: Vec<&str> = found
        .iter()
        .filter(|d| d["rule"] == "gemini-unsupported-keyword")
        .filter_map(|d| d["pointer"].as_str())
        .collect();
    pointers.sort_unstable();
    let at = "/0/function/parameters/properties";
    assert_eq!(
        pointers,
        [
            format!("{at}/ids/contains"),
            format!("{at}/kind/x-order"),
            format!("{at}/url/format"),
        ]
    );
    let output = Test::new()
        .current_dir(dir.path())
        .args(["gen", "gemini", "functions.json"])
        .run();
    assert_eq!(output.code, 0, "{}", output.stderr);
    let document: Value = serde_json::from_str(&output.stdout).expect("JSON");
    let properties = &document["functionDeclarations"][0]["parameters"]["properties"];
    assert!(properties["url"].get("format").is_none());
    assert!(properties["kind"].get("x-order").is_none());
    assert!(properties["ids"].get("contains").is_none());
}
