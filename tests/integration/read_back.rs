//! What toolc writes, it reads back: every `gen` target that writes
//! manifests or provider JSON and every `convert --to` format, run over the
//! fixtures and the real-world corpus, and the output read again through
//! the front end (the real binary).
//!
//! For each target and input:
//! - every file written that holds tools is read, as a format toolc knows
//!   (`lint --format json`: no file without a format, no manifest skipped);
//! - the tools read back are the tools of the input: the same names (once
//!   the target's recorded renames are undone, [`undo_renames`]), the same
//!   descriptions, and every property of the input's parameters still
//!   there;
//! - the parameters read back mean what the document written says
//!   ([`Meaning`]): for provider JSON the test reads the written schema
//!   itself (Gemini's dialect too) and compares.
//!
//! `gen openai --strict` (and `openai-responses --strict`) rewrite schemas
//! on purpose: every property becomes required and nullable, objects are
//! closed, what strict mode rejects is removed. What is compared there is
//! what strict mode keeps: the names, descriptions and property names of
//! the input, and the read-back schema against the written one, null
//! aside ([`Meaning`] takes types and enum values without `null`).
//!
//! `gen rust` and `gen python --style basetool` write code that no format
//! reads: they are not read back (their own tests compile and run it).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{TempDir, Test, root};

/// How a target writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// One document of provider JSON, whose tools the test reads itself.
    Document(Provider),
    /// A tree of manifests under a directory.
    Tree,
}

/// The provider documents, by where their tools and schemas are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Provider {
    OpenaiChat,
    OpenaiResponses,
    Anthropic,
    Mcp,
    Gemini,
}

struct Target {
    label: &'static str,
    args: &'static [&'static str],
    shape: Shape,
}

const TARGETS: &[Target] = &[
    Target {
        label: "gen openai",
        args: &["gen", "openai"],
        shape: Shape::Document(Provider::OpenaiChat),
    },
    Target {
        label: "gen openai --strict",
        args: &["gen", "openai", "--strict"],
        shape: Shape::Document(Provider::OpenaiChat),
    },
    Target {
        label: "gen openai-responses",
        args: &["gen", "openai-responses"],
        shape: Shape::Document(Provider::OpenaiResponses),
    },
    Target {
        label: "gen openai-responses --strict",
        args: &["gen", "openai-responses", "--strict"],
        shape: Shape::Document(Provider::OpenaiResponses),
    },
    Target {
        label: "gen anthropic",
        args: &["gen", "anthropic"],
        shape: Shape::Document(Provider::Anthropic),
    },
    Target {
        label: "gen mcp",
        args: &["gen", "mcp"],
        shape: Shape::Document(Provider::Mcp),
    },
    Target {
        label: "gen gemini",
        args: &["gen", "gemini"],
        shape: Shape::Document(Provider::Gemini),
    },
    Target {
        label: "gen python --style nora",
        args: &["gen", "python", "--style", "nora"],
        shape: Shape::Tree,
    },
    Target {
        label: "gen python --style agentstack",
        args: &["gen", "python", "--style", "agentstack"],
        shape: Shape::Tree,
    },
    Target {
        label: "convert --to openai",
        args: &["convert", "--to", "openai"],
        shape: Shape::Document(Provider::OpenaiChat),
    },
    Target {
        label: "convert --to anthropic",
        args: &["convert", "--to", "anthropic"],
        shape: Shape::Document(Provider::Anthropic),
    },
    Target {
        label: "convert --to mcp",
        args: &["convert", "--to", "mcp"],
        shape: Shape::Document(Provider::Mcp),
    },
    Target {
        label: "convert --to nora",
        args: &["convert", "--to", "nora"],
        shape: Shape::Tree,
    },
    Target {
        label: "convert --to agentcli",
        args: &["convert", "--to", "agentcli"],
        shape: Shape::Tree,
    },
    Target {
        label: "convert --to agentstack",
        args: &["convert", "--to", "agentstack"],
        shape: Shape::Tree,
    },
    Target {
        label: "convert --to nachos",
        args: &["convert", "--to", "nachos"],
        shape: Shape::Tree,
    },
];

/// One tool as the front end reads it (through `gen mcp`, which writes
/// the IR's name, description and parameters as they are).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct ToolView {
    name: String,
    description: Option<String>,
    /// The parameters, as JSON.
    parameters: String,
}

/// The renames the output at `out` made to fit its target's narrower names,
/// undone from the records toolc writes with them: a tool's `"x-toolc"`
/// `parameter_names` (NORA's `tool.json`, AgentStack's `config.json`: new
/// name -> original), or the record beside a provider document,
/// `FILE.x-toolc.json` (tool -> new name -> original). A name that differs
/// and is recorded nowhere stays as it is, and the comparison reports it.
fn undo_renames(target: &Target, out: &Path, tools: Vec<ToolView>) -> Vec<ToolView> {
    let _ = target.label;
    let records = rename_records(out);
    tools
        .into_iter()
        .map(|mut tool| {
            let Some(names) = records.get(&tool.name) else {
                return tool;
            };
            let Ok(mut parameters) = serde_json::from_str::<Value>(&tool.parameters) else {
                return tool;
            };
            let original = |name: &str| names.get(name).cloned().unwrap_or(name.to_string());
            if let Some(Value::Object(properties)) = parameters.get_mut("properties") {
                let renamed = std::mem::take(properties);
                for (name, property) in renamed {
                    properties.insert(original(&name), property);
                }
            }
            if let Some(Value::Array(required)) = parameters.get_mut("required") {
                for name in required.iter_mut() {
                    if let Some(text) = name.as_str() {
                        *name = Value::String(original(text));
                    }
                }
            }
            tool.parameters = parameters.to_string();
            tool
        })
        .collect()
}

/// Every rename record of the output at `out` (a file, or a tree): tool
/// name -> (name in the output -> original name).
fn rename_records(out: &Path) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut records = BTreeMap::new();
    let files: Vec<PathBuf> = if out.is_dir() {
        walkdir::WalkDir::new(out)
            .into_iter()
            .filter_map(Result::ok)
            .map(|entry| entry.into_path())
            .filter(|path| path.extension().is_some_and(|e| e == "json"))
            .collect()
    } else {
        let mut beside = out.as_os_str().to_owned();
        beside.push(".x-toolc.json");
        vec![PathBuf::from(beside)]
    };
    let names = |value: &Value| -> BTreeMap<String, String> {
        value
            .as_object()
            .map(|map| {
                map.iter()
                    .filter_map(|(new, old)| Some((new.clone(), old.as_str()?.to_string())))
                    .collect()
            })
            .unwrap_or_default()
    };
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let Ok(document) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        let sidecar = file.to_string_lossy().ends_with(".x-toolc.json");
        if sidecar {
            let by_tool = &document["x-toolc"]["parameter_names"];
            for (tool, renamed) in by_tool.as_object().into_iter().flatten() {
                records.insert(tool.clone(), names(renamed));
            }
            continue;
        }
        // NORA: one tool per file, its record at the top.
        if let (Some(tool), record) = (
            document["name"].as_str(),
            &document["x-toolc"]["parameter_names"],
        ) && record.is_object()
            && document.get("entrypoint").is_some()
        {
            records.insert(tool.to_string(), names(record));
        }
        // AgentStack: each listed function's entry.
        if let Some(Value::Object(tools)) = document.get("tools") {
            for (tool, entry) in tools {
                let record = &entry["x-toolc"]["parameter_names"];
                if record.is_object() {
                    records.insert(tool.clone(), names(record));
                }
            }
        }
    }
    records
}

/// The tools of `paths` (relative to `dir`) as the front end reads them.
fn read_tools(dir: &Path, paths: &[&str]) -> Result<Vec<ToolView>, String> {
    let output = Test::new()
        .current_dir(dir)
        .args(["gen", "mcp", "--allow-errors"])
        .args(paths)
        .run();
    if output.code != 0 {
        return Err(format!("gen mcp exited {}: {}", output.code, output.stderr));
    }
    let document: Value =
        serde_json::from_str(&output.stdout).map_err(|e| format!("gen mcp wrote no JSON: {e}"))?;
    Ok(document["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|tool| ToolView {
            name: tool["name"].as_str().unwrap_or_default().to_string(),
            description: tool["description"].as_str().map(str::to_string),
            parameters: tool["inputSchema"].to_string(),
        })
        .collect())
}

/// What a parameter schema means, for comparing one written in one
/// dialect with one read back in another: per node, its types (lowercase,
/// without `null`: Gemini says `nullable`), its properties, `items` and
/// `anyOf` branches (Gemini's and strict mode's spelling of `oneOf`), the
/// required names, the enum values (without `null`) and the description.
/// Keywords a target removes with a note are compared through the
/// written document, which no longer has them either.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Meaning(Value);

impl Meaning {
    fn of(schema: &Value) -> Meaning {
        Meaning(meaning(schema))
    }
}

fn meaning(schema: &Value) -> Value {
    let Value::Object(node) = schema else {
        return Value::Null;
    };
    let mut out = serde_json::Map::new();
    let types: BTreeSet<String> = match node.get("type") {
        Some(Value::String(t)) => [t.to_ascii_lowercase()].into(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_ascii_lowercase)
            .collect(),
        _ => BTreeSet::new(),
    };
    let types: Vec<Value> = types
        .into_iter()
        .filter(|t| t != "null")
        .map(Value::String)
        .collect();
    if !types.is_empty() {
        out.insert("type".into(), Value::Array(types));
    }
    if let Some(Value::Object(properties)) = node.get("properties") {
        let properties: BTreeMap<&String, Value> =
            properties.iter().map(|(k, v)| (k, meaning(v))).collect();
        out.insert("properties".into(), serde_json::json!(properties));
    }
    if let Some(items) = node.get("items") {
        out.insert("items".into(), meaning(items));
    }
    for union in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = node.get(union) {
            let branches: Vec<Value> = branches
                .iter()
                .map(meaning)
                .filter(|b| *b != serde_json::json!({"type": []}))
                .filter(|b| b.as_object().is_some_and(|o| !o.is_empty()))
                .collect();
            out.insert("anyOf".into(), Value::Array(branches));
        }
    }
    if let Some(Value::Array(required)) = node.get("required") {
        let required: BTreeSet<&str> = required.iter().filter_map(Value::as_str).collect();
        out.insert("required".into(), serde_json::json!(required));
    }
    if let Some(Value::Array(values)) = node.get("enum") {
        let values: Vec<&Value> = values.iter().filter(|v| !v.is_null()).collect();
        out.insert("enum".into(), serde_json::json!(values));
    }
    if let Some(description) = node.get("description") {
        out.insert("description".into(), description.clone());
    }
    Value::Object(out)
}

/// The tools of a provider document as written: name and parameters
/// (an absent schema is an empty object schema, as every reader takes it).
fn written_tools(provider: Provider, document: &Value) -> Vec<(String, Meaning)> {
    let (list, name_of, schema_of): (Option<&Vec<Value>>, &[&str], &[&str]) = match provider {
        Provider::OpenaiChat => (
            document.as_array(),
            &["function", "name"],
            &["function", "parameters"],
        ),
        Provider::OpenaiResponses => (document.as_array(), &["name"], &["parameters"]),
        Provider::Anthropic => (document.as_array(), &["name"], &["input_schema"]),
        Provider::Mcp => (document["tools"].as_array(), &["name"], &["inputSchema"]),
        Provider::Gemini => (
            document["functionDeclarations"].as_array(),
            &["name"],
            &["parameters"],
        ),
    };
    let at = |tool: &Value, path: &[&str]| path.iter().fold(tool.clone(), |v, k| v[*k].clone());
    list.cloned()
        .unwrap_or_default()
        .iter()
        .map(|tool| {
            let name = at(tool, name_of).as_str().unwrap_or_default().to_string();
            let schema = match at(tool, schema_of) {
                Value::Null => serde_json::json!({"type": "object", "properties": {}}),
                schema => schema,
            };
            (name, Meaning::of(&schema))
        })
        .collect()
}

/// The names of the properties at every level of a schema, as pointers.
fn property_paths(schema: &Value, at: &str, out: &mut BTreeSet<String>) {
    let Value::Object(node) = schema else {
        return;
    };
    if let Some(Value::Object(properties)) = node.get("properties") {
        for (name, property) in properties {
            let here = format!("{at}/{name}");
            out.insert(here.clone());
            property_paths(property, &here, out);
        }
    }
    if let Some(items) = node.get("items") {
        property_paths(items, &format!("{at}[]"), out);
    }
}

/// What a read back can find different.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// The target failed, or wrote what toolc does not read.
    Unread,
    /// Tool names differ (a rename not undone).
    Names,
    Description,
    /// Properties at the root of the input's parameters are gone.
    PropertiesLost,
    /// The parameters read back do not mean what the document says.
    Parameters,
}

/// One difference found.
struct Difference {
    kind: Kind,
    text: String,
}

#[derive(Default)]
struct Differences(Vec<Difference>);

impl Differences {
    fn push(&mut self, kind: Kind, text: String) {
        self.0.push(Difference { kind, text });
    }
}

/// Where the output of `target` goes under `dir`.
fn output_path(target: &Target, dir: &Path) -> PathBuf {
    match target.shape {
        Shape::Document(_) => dir.join("out.json"),
        Shape::Tree => dir.join("out"),
    }
}

/// Generates `target` from `inputs` (relative to `base`) into `dir`, reads
/// it back and compares; returns what went wrong.
fn check_target(
    target: &Target,
    base: &Path,
    inputs: &[&str],
    source: &[ToolView],
    dir: &Path,
) -> Vec<Difference> {
    let label = target.label;
    let out = output_path(target, dir);
    let out_text = out.display().to_string();
    let output = Test::new()
        .current_dir(base)
        .args(target.args)
        .args(inputs)
        .args(["-o", &out_text, "--allow-errors", "--force"])
        .run();
    let mut failures = Differences::default();
    if output.code != 0 {
        failures.push(
            Kind::Unread,
            format!("{label}: exited {}: {}", output.code, output.stderr),
        );
        return failures.0;
    }

    // Every file written that holds tools is read, in a known format.
    let lint = Test::new()
        .current_dir(dir)
        .args(["lint", "--format", "json", "--show-skipped", &out_text])
        .run();
    let report = lint.json();
    for file in report["files"].as_array().cloned().unwrap_or_default() {
        if file["format"].is_null() {
            failures.push(
                Kind::Unread,
                format!(
                    "{label}: wrote {}, which toolc reads as no format",
                    file["path"]
                ),
            );
        }
    }
    let skipped: Vec<&str> = lint
        .stderr
        .lines()
        .filter(|l| l.starts_with("note: skipped "))
        .filter(|l| !(l.contains("package.json") || l.contains("tsconfig.json")))
        .collect();
    if !skipped.is_empty() {
        failures.push(
            Kind::Unread,
            format!("{label}: read back, files were skipped: {skipped:#?}"),
        );
    }

    // The same tools.
    let back = match read_tools(dir, &[&out_text]) {
        Ok(tools) => undo_renames(target, &out, tools),
        Err(error) => {
            failures.push(Kind::Unread, format!("{label}: read back: {error}"));
            return failures.0;
        }
    };
    let names = |tools: &[ToolView]| -> Vec<String> {
        let mut names: Vec<String> = tools.iter().map(|t| t.name.clone()).collect();
        names.sort();
        names
    };
    let (want, got) = (names(source), names(&back));
    if want != got {
        let lost: Vec<&String> = want.iter().filter(|n| !got.contains(n)).collect();
        let new: Vec<&String> = got.iter().filter(|n| !want.contains(n)).collect();
        failures.push(Kind::Names, format!(
            "{label}: the tools read back are not the input's: missing {lost:?}, unknown {new:?} \
             (a rename this target made that undo_renames does not undo yet?)"
        ));
        return failures.0;
    }
    let by_name = |tools: &[ToolView]| -> BTreeMap<String, Vec<ToolView>> {
        let mut map: BTreeMap<String, Vec<ToolView>> = BTreeMap::new();
        for tool in tools {
            map.entry(tool.name.clone()).or_default().push(tool.clone());
        }
        map
    };
    let (source_by_name, back_by_name) = (by_name(source), by_name(&back));
    for (name, sources) in &source_by_name {
        // Tools of one name (from several manifests) come back from a
        // tree in another order: paired by description.
        let mut sources = sources.clone();
        let mut backs = back_by_name[name].clone();
        sources.sort_by(|a, b| a.description.cmp(&b.description));
        backs.sort_by(|a, b| a.description.cmp(&b.description));
        for (source_tool, back_tool) in sources.iter().zip(&backs) {
            if source_tool.description != back_tool.description {
                failures.push(
                    Kind::Description,
                    format!(
                        "{label}: {name}: description {:?} read back as {:?}",
                        source_tool.description, back_tool.description
                    ),
                );
            }
            let parse = |text: &str| serde_json::from_str::<Value>(text).unwrap_or(Value::Null);
            let (mut had, mut has) = (BTreeSet::new(), BTreeSet::new());
            property_paths(&parse(&source_tool.parameters), "", &mut had);
            property_paths(&parse(&back_tool.parameters), "", &mut has);
            let lost: Vec<&String> = had.difference(&has).collect();
            // The root properties must all stay; below, a target may have
            // to drop a subschema it cannot express (noted when generated).
            let lost_at_root: Vec<&&String> = lost
                .iter()
                .filter(|p| p.matches('/').count() == 1 && !p.contains("[]"))
                .collect();
            if !lost_at_root.is_empty() {
                failures.push(
                    Kind::PropertiesLost,
                    format!("{label}: {name}: properties lost: {lost_at_root:?}"),
                );
            }
        }
    }

    // The parameters read back mean what the document says.
    if let Shape::Document(provider) = target.shape {
        let text = std::fs::read_to_string(&out).unwrap_or_default();
        let document: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        let written = written_tools(provider, &document);
        if written.len() != back.len() {
            failures.push(
                Kind::Unread,
                format!(
                    "{label}: the document holds {} tools, {} read back",
                    written.len(),
                    back.len()
                ),
            );
        }
        let back_in_order = read_tools(dir, &[&out_text]).unwrap_or_default();
        for ((name, meaning), tool) in written.iter().zip(&back_in_order) {
            let read = Meaning::of(&serde_json::from_str(&tool.parameters).unwrap_or(Value::Null));
            if *meaning != read {
                failures.push(Kind::Parameters, format!(
                    "{label}: {name}: the parameters read back differ from the ones written:\n  \
                     written {:#}\n  read    {:#}",
                    meaning.0, read.0
                ));
            }
        }
    }
    failures.0
}

/// Every target over `inputs` (relative to `base`).
fn read_back_all(label: &str, base: &Path, inputs: &[&str]) {
    let source = read_tools(base, inputs).expect("the input reads");
    assert!(!source.is_empty(), "{label}: no tools in the input");
    let temp = TempDir::new(&format!("read-back-{label}"));
    let mut failures = Vec::new();
    for (i, target) in TARGETS.iter().enumerate() {
        let dir = temp.path().join(format!("{i}"));
        std::fs::create_dir_all(&dir).expect("dir");
        let found = check_target(target, base, inputs, &source, &dir);
        failures.extend(
            found
                .into_iter()
                .map(|d| format!("{:?}: {}", d.kind, d.text)),
        );
    }
    assert!(failures.is_empty(), "{label}:\n{}", failures.join("\n"));
}

#[test]
fn every_target_reads_back_from_the_fixtures() {
    let base = root().join("fixtures");
    read_back_all(
        "fixtures",
        &base,
        &[
            "convert",
            "gen/agentstack-python",
            "gen/nachos-typescript",
            "gen/python",
            "gen/rust-types/tools.json",
        ],
    );
}

#[test]
fn every_target_reads_back_from_the_corpus() {
    let base = root().join("../shared");
    assert!(base.join("corpus").is_dir(), "the corpus is missing");
    read_back_all("corpus", &base, &["corpus"]);
}
