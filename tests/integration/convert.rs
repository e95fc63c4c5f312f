//! `toolc convert`: round trips between every pair of formats over the
//! fixtures and the corpus, with generated parameter schemas, and what the
//! writers do with a directory that already holds files.
//!
//! Conversions run in-process through `toolc::command_line` (the same code the
//! binary runs) so that the 49 format pairs over the whole corpus stay
//! fast; the IR of what was written is read back with the library.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use toolc::ir::{Format, ToolSet};

use super::{TempDir, Test, root};

/// Runs `toolc convert PATHS --to TO -o OUT --allow-errors`; returns the
/// exit code and standard error.
fn convert(paths: &[&Path], to: Format, out: &Path, extra: &[&str]) -> (u8, String) {
    let mut args: Vec<String> = vec!["toolc".into(), "convert".into()];
    args.extend(paths.iter().map(|p| p.display().to_string()));
    args.extend(
        [
            "--to",
            to.name(),
            "-o",
            &out.display().to_string(),
            "--allow-errors",
            "--color",
            "never",
        ]
        .map(str::to_string),
    );
    args.extend(extra.iter().map(|s| s.to_string()));
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    let code = toolc::command_line(args, &mut stdout, &mut stderr);
    (code, String::from_utf8_lossy(&stderr).into_owned())
}

/// Where a conversion into `format` writes under `dir`: the directory, or
/// a file in it for the one-document formats.
fn output_for(format: Format, dir: &Path) -> PathBuf {
    if toolc::convert::writes_document(format) {
        dir.join(format!("{}.json", format.name()))
    } else {
        dir.to_path_buf()
    }
}

/// The tool sets under `path`, read as `toolc gen` reads them.
fn read(path: &Path) -> Vec<ToolSet> {
    let options = toolc::project::LoadOptions::default();
    toolc::project::Project::load(&[path.to_path_buf()], &options)
        .expect("load")
        .manifests
        .into_iter()
        .map(|m| m.toolset)
        .collect()
}

/// A JSON value with object keys sorted and `required` lists sorted (they
/// are sets), so that two schemas that say the same compare equal.
fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(object) => {
            let sorted: BTreeMap<&String, Value> = object
                .iter()
                .map(|(k, v)| {
                    let v = match (k.as_str(), v) {
                        ("required", Value::Array(names)) => {
                            let mut names: Vec<Value> = names.iter().map(canonical).collect();
                            names.sort_by_key(|n| n.to_string());
                            Value::Array(names)
                        }
                        _ => canonical(v),
                    };
                    (k, v)
                })
                .collect();
            serde_json::to_value(sorted).expect("object")
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// What a round trip must keep of a tool.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Kept {
    name: String,
    description: Option<String>,
    parameters: String,
    /// The display name, when it differs from the name.
    title: Option<String>,
}

/// Every tool's kept fields (sorted), and its carried fields as
/// `name: format key = value` (sorted).
fn kept(toolsets: &[ToolSet]) -> (Vec<Kept>, Vec<String>) {
    let mut tools = Vec::new();
    let mut carried = Vec::new();
    for set in toolsets {
        for tool in &set.tools {
            let parameters = tool
                .parameters
                .as_deref()
                .cloned()
                .unwrap_or_else(|| json!({"type": "object", "properties": {}}));
            tools.push(Kept {
                name: tool.name.clone(),
                description: tool.description.clone(),
                parameters: canonical(&parameters).to_string(),
                title: tool.title.clone().filter(|t| *t != tool.name),
            });
            for field in &tool.extra.carried {
                carried.push(format!(
                    "{}: {} {} = {}",
                    tool.name,
                    field.format,
                    field.key,
                    canonical(&field.value)
                ));
            }
        }
    }
    tools.sort();
    carried.sort();
    (tools, carried)
}

/// What [`as_providers_take_it`] makes of a schema with a root union.
const FLATTENED: &str = "(a root combinator, flattened)";

/// What OpenAI and Anthropic documents can hold of a parameter schema, by
/// the changes `convert` reports for them (README: they are adapted as
/// `gen` adapts them): JSON Schema 2020-12, so no other dialect's
/// `$schema`; a root union flattened (its result is not compared: only
/// that it was changed, and said so, which the notes tests check).
fn as_providers_take_it(parameters: &str) -> String {
    let mut schema: Value = serde_json::from_str(parameters).expect("canonical JSON");
    let Some(root) = schema.as_object_mut() else {
        return parameters.to_string();
    };
    if ["anyOf", "oneOf", "allOf"]
        .iter()
        .any(|k| root.contains_key(*k))
    {
        return FLATTENED.to_string();
    }
    if root
        .get("$schema")
        .and_then(Value::as_str)
        .is_some_and(|dialect| !dialect.contains("2020-12"))
    {
        root.remove("$schema");
    }
    canonical(&schema).to_string()
}

/// Converts `inputs` into every format A, then A → B → A for every B, and
/// checks that the second A has the name, description and parameters of
/// every tool of the first, and, where B keeps extra keys, every carried
/// field and title too. Returns the failures.
fn round_trips(inputs: &[&Path], label: &str) -> Vec<String> {
    let mut failures = Vec::new();
    let temp = TempDir::new(&format!("convert-rt-{label}"));
    let written = || {
        Format::ALL
            .into_iter()
            .filter(|f| toolc::convert::writes(*f))
    };
    for a in written() {
        let a_dir = temp.path().join(format!("a-{a}"));
        std::fs::create_dir_all(&a_dir).expect("dir");
        let a_out = output_for(a, &a_dir);
        let (code, stderr) = convert(inputs, a, &a_out, &[]);
        assert_eq!(code, 0, "{label}: convert --to {a}: {stderr}");
        let first = read(&a_out);
        let (first_tools, first_carried) = kept(&first);
        assert!(!first_tools.is_empty(), "{label}: --to {a} wrote no tool");
        for b in written() {
            let b_dir = temp.path().join(format!("b-{a}-{b}"));
            std::fs::create_dir_all(&b_dir).expect("dir");
            let b_out = output_for(b, &b_dir);
            let (code, stderr) = convert(&[&a_out], b, &b_out, &[]);
            if code != 0 {
                failures.push(format!("{label}: {a} -> {b}: exit {code}: {stderr}"));
                continue;
            }
            let back_dir = temp.path().join(format!("c-{a}-{b}"));
            std::fs::create_dir_all(&back_dir).expect("dir");
            let back_out = output_for(a, &back_dir);
            let (code, stderr) = convert(&[&b_out], a, &back_out, &[]);
            if code != 0 {
                failures.push(format!("{label}: {a} -> {b} -> {a}: exit {code}: {stderr}"));
                continue;
            }
            let (tools, carried) = kept(&read(&back_out));
            let tolerant = !matches!(b, Format::Openai | Format::Anthropic);
            let strip = |tools: &[Kept]| -> Vec<Kept> {
                tools
                    .iter()
                    .map(|t| Kept {
                        title: if tolerant { t.title.clone() } else { None },
                        parameters: if tolerant {
                            t.parameters.clone()
                        } else {
                            as_providers_take_it(&t.parameters)
                        },
                        ..t.clone()
                    })
                    .collect()
            };
            let (want, mut got) = (strip(&first_tools), strip(&tools));
            // A flattened root union is compared only for being flattened.
            for tool in &mut got {
                if want
                    .iter()
                    .any(|w| w.name == tool.name && w.parameters == FLATTENED)
                {
                    tool.parameters = FLATTENED.to_string();
                }
            }
            if want != got {
                let missing: Vec<_> = want.iter().filter(|t| !got.contains(t)).collect();
                let extra: Vec<_> = got.iter().filter(|t| !want.contains(t)).collect();
                failures.push(format!(
                    "{label}: {a} -> {b} -> {a} changed tools:\n  lost {missing:#?}\n  got {extra:#?}"
                ));
            }
            if tolerant {
                let lost: Vec<&String> = first_carried
                    .iter()
                    .filter(|c| !carried.contains(c))
                    .collect();
                if !lost.is_empty() {
                    failures.push(format!(
                        "{label}: {a} -> {b} -> {a} lost carried fields {lost:#?}"
                    ));
                }
            }
        }
    }
    failures
}

/// The good fixture of every rule and the generator fixtures, copied into
/// one tree (each under its own directory).
pub(super) fn fixture_tree(temp: &TempDir) -> PathBuf {
    let tree = temp.path().join("fixtures");
    let mut sources: Vec<(String, PathBuf)> = Vec::new();
    for entry in std::fs::read_dir(root().join("fixtures/rules")).expect("rules") {
        let dir = entry.expect("entry").path();
        let name = dir
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        sources.push((format!("rules-{name}"), dir.join("good")));
    }
    for name in ["agentstack-python", "nachos-typescript"] {
        sources.push((
            format!("gen-{name}"),
            root().join("fixtures/gen").join(name),
        ));
    }
    for (name, source) in sources {
        if source.is_dir() {
            copy_tree(&source, &tree.join(name));
        }
    }
    tree
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.expect("walk");
        let target = to.join(entry.path().strip_prefix(from).expect("prefix"));
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).expect("dir");
        } else if entry.file_type().is_file() {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

#[test]
fn every_pair_round_trips_over_the_fixtures() {
    let temp = TempDir::new("convert-fixtures");
    let tree = fixture_tree(&temp);
    let failures = round_trips(&[&tree], "fixtures");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_pair_round_trips_over_the_corpus() {
    let corpus = root().join("../shared/corpus");
    assert!(
        corpus.is_dir(),
        "the corpus is missing: {}",
        corpus.display()
    );
    let failures = round_trips(&[&corpus], "corpus");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A deterministic generator of parameter schemas: nested objects, arrays,
/// enums, defaults, constraints, odd property names and texts.
struct Generator(u64);

impl Generator {
    fn next(&mut self) -> u64 {
        // xorshift64
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn text(&mut self) -> String {
        const PIECES: &[&str] = &[
            "path",
            "the file",
            "a \"quoted\" word",
            "back\\slash",
            "line\nbreak",
            "ünïcode",
            "emoji 🦀",
            "tab\there",
            "<tag>",
            "it's",
            "{braces}",
            "${x}",
        ];
        let n = 1 + self.below(3);
        (0..n)
            .map(|_| PIECES[self.below(PIECES.len() as u64) as usize])
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn key(&mut self) -> String {
        const KEYS: &[&str] = &[
            "path",
            "count",
            "mode",
            "recursive",
            "limit",
            "query",
            "tags",
            "options",
            "x1",
            "max_depth",
            "encoding",
            "filter",
        ];
        KEYS[self.below(KEYS.len() as u64) as usize].to_string()
    }

    fn schema(&mut self, depth: u32) -> Value {
        let mut schema = serde_json::Map::new();
        let kind = if depth >= 3 {
            self.below(4)
        } else {
            self.below(6)
        };
        match kind {
            0 => {
                schema.insert("type".into(), json!("string"));
                if self.below(3) == 0 {
                    schema.insert("enum".into(), json!([self.text(), self.text()]));
                }
                if self.below(4) == 0 {
                    schema.insert("pattern".into(), json!("^[a-z]+$"));
                }
            }
            1 => {
                schema.insert("type".into(), json!("integer"));
                if self.below(2) == 0 {
                    schema.insert("minimum".into(), json!(self.below(10)));
                }
                if self.below(3) == 0 {
                    schema.insert("default".into(), json!(self.below(100)));
                }
            }
            2 => {
                schema.insert("type".into(), json!("number"));
                if self.below(3) == 0 {
                    schema.insert("default".into(), json!(1.5));
                }
            }
            3 => {
                schema.insert("type".into(), json!("boolean"));
                if self.below(2) == 0 {
                    schema.insert("default".into(), json!(self.below(2) == 0));
                }
            }
            4 => {
                schema.insert("type".into(), json!("array"));
                schema.insert("items".into(), self.schema(depth + 1));
            }
            _ => {
                let object = self.object(depth + 1);
                return object;
            }
        }
        if self.below(3) != 0 {
            schema.insert("description".into(), json!(self.text()));
        }
        Value::Object(schema)
    }

    fn object(&mut self, depth: u32) -> Value {
        let mut properties = serde_json::Map::new();
        let mut required = Vec::new();
        for _ in 0..self.below(5) {
            let key = self.key();
            if properties.contains_key(&key) {
                continue;
            }
            if self.below(2) == 0 {
                required.push(json!(key.clone()));
            }
            properties.insert(key, self.schema(depth));
        }
        let mut object = serde_json::Map::new();
        object.insert("type".into(), json!("object"));
        if depth > 0 && self.below(2) == 0 {
            object.insert("description".into(), json!(self.text()));
        }
        object.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            object.insert("required".into(), Value::Array(required));
        }
        Value::Object(object)
    }
}

#[test]
fn generated_parameter_schemas_round_trip_through_every_format() {
    let temp = TempDir::new("convert-generated");
    let mut generator = Generator(0x9E37_79B9_7F4A_7C15);
    let tools: Vec<Value> = (0..40)
        .map(|i| {
            json!({
                "name": format!("tool_{i}"),
                "description": generator.text(),
                "schema": generator.object(0),
                "command": [format!("./tools/bin/tool_{i}")],
            })
        })
        .collect();
    let input = temp.write(
        "in/tools.json",
        serde_json::to_string_pretty(&json!({"tools": tools})).expect("json"),
    );
    let failures = round_trips(&[&input], "generated");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn convert_refuses_to_overwrite_a_hand_edited_manifest_without_force() {
    let temp = TempDir::new("convert-hand-edited");
    let input = temp.write(
        "in/tools.json",
        r#"{"tools": [{"name": "echo", "description": "Echo", "command": ["/bin/echo"], "schema": {"type": "object", "properties": {"text": {"type": "string", "description": "what to say"}}}}]}"#,
    );
    let out = temp.path().join("out");
    let (code, stderr) = convert(&[&input], Format::Nora, &out, &[]);
    assert_eq!(code, 0, "{stderr}");
    let manifest = out.join("echo/tool.json");
    let script = out.join("echo/main.py");
    assert!(manifest.is_file() && script.is_file());

    // The developer edits both files.
    let edited_manifest = std::fs::read_to_string(&manifest)
        .expect("manifest")
        .replace("Echo", "Echo, edited by hand");
    std::fs::write(&manifest, &edited_manifest).expect("write");
    std::fs::write(&script, "def run(params):\n    return params['text']\n").expect("write");

    let (code, stderr) = convert(&[&input], Format::Nora, &out, &[]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("exists and differs"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&manifest).expect("read"),
        edited_manifest
    );

    // --force rewrites the manifest, and still never the code.
    let (code, stderr) = convert(&[&input], Format::Nora, &out, &["--force"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        !std::fs::read_to_string(&manifest)
            .expect("read")
            .contains("by hand")
    );
    assert_eq!(
        std::fs::read_to_string(&script).expect("read"),
        "def run(params):\n    return params['text']\n"
    );
}

#[test]
fn strict_turns_losses_into_errors_and_writes_nothing() {
    let temp = TempDir::new("convert-strict");
    let input = temp.write(
        "in/tools.json",
        r#"{"tools": [{"name": "echo", "description": "Echo", "command": ["/bin/echo"], "timeoutSec": 5}]}"#,
    );
    let out = temp.path().join("out");
    let output = Test::new()
        .args([
            "convert",
            &input.display().to_string(),
            "--to",
            "nora",
            "-o",
            &out.display().to_string(),
            "--strict",
            "--format",
            "json",
        ])
        .run();
    assert_eq!(output.code, 1, "{}", output.stderr);
    assert!(!out.exists(), "--strict wrote {}", out.display());
    let report = output.json();
    let losses: Vec<(String, String, u64, u64)> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            assert_eq!(d["rule"], "conversion-loss");
            assert_eq!(d["severity"], "error");
            (
                d["pointer"].as_str().expect("pointer").to_string(),
                d["path"].as_str().expect("path").to_string(),
                d["line"].as_u64().expect("line"),
                d["column"].as_u64().expect("column"),
            )
        })
        .collect();
    let text = std::fs::read_to_string(&input).expect("input");
    let column = |key: &str| text.find(&format!("\"{key}\"")).expect("key") as u64 + 1;
    let path = input.display().to_string();
    assert_eq!(
        losses,
        vec![
            (
                "/tools/0/command".to_string(),
                path.clone(),
                1,
                column("command")
            ),
            (
                "/tools/0/timeoutSec".to_string(),
                path,
                1,
                column("timeoutSec")
            ),
        ]
    );
}

#[test]
fn an_interrupted_conversion_leaves_no_half_written_file() {
    // Many tools, so that the run spends its time writing; killed at
    // different moments, every manifest it leaves is complete.
    let temp = TempDir::new("convert-interrupted");
    let tools: Vec<Value> = (0..3000)
        .map(|i| {
            json!({"name": format!("tool_{i}"), "description": "x".repeat(2000),
                   "command": ["/bin/true"], "schema": {"type": "object", "properties": {}}})
        })
        .collect();
    let input = temp.write(
        "in/tools.json",
        serde_json::to_string(&json!({"tools": tools})).expect("json"),
    );
    let binary = env!("CARGO_BIN_EXE_toolc");
    let mut interrupted = 0;
    // Killed once this many manifests are in place: while writing, not
    // before (a kill before the first write would check nothing).
    for (round, written) in [1usize, 200, 1000, 2000, 2900].into_iter().enumerate() {
        let out = temp.path().join(format!("out-{round}"));
        let mut child = std::process::Command::new(binary)
            .args([
                "convert",
                &input.display().to_string(),
                "--to",
                "nora",
                "-o",
            ])
            .arg(&out)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn");
        let started = std::time::Instant::now();
        loop {
            let finished = child.try_wait().expect("try_wait").is_some();
            if finished || manifests_in(&out) >= written {
                break;
            }
            assert!(
                started.elapsed() < std::time::Duration::from_secs(120),
                "the conversion wrote nothing in 120 s"
            );
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let _ = child.kill();
        let _ = child.wait();
        let left = manifests_in(&out);
        assert!(left >= written.min(3000), "round {round}: {left} manifests");
        if left < 3000 {
            interrupted += 1;
        }
        for entry in walkdir::WalkDir::new(&out) {
            let entry = entry.expect("walk");
            let name = entry.file_name().to_string_lossy().into_owned();
            if !entry.file_type().is_file() || name.ends_with(".tmp") {
                continue;
            }
            let text = std::fs::read_to_string(entry.path()).expect("read");
            if name == "tool.json" {
                let value: Value = serde_json::from_str(&text)
                    .unwrap_or_else(|e| panic!("{}: {e}", entry.path().display()));
                assert_eq!(value["description"].as_str().map(str::len), Some(2000));
            } else {
                assert!(text.contains("def run("), "{}", entry.path().display());
            }
        }
    }
    assert!(interrupted > 0, "no round was killed before the end");
}

/// How many `tool.json` files are under `dir`.
fn manifests_in(dir: &Path) -> usize {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_name() == "tool.json")
        .count()
}

/// The losses of converting `fixtures/convert/<from>` into every format,
/// one `path:line:column message` line each, by target.
fn loss_report(from: Format) -> String {
    let temp = TempDir::new(&format!("convert-losses-{from}"));
    let dir = root().join("fixtures/convert");
    let mut report = String::new();
    for to in Format::ALL
        .into_iter()
        .filter(|f| toolc::convert::writes(*f))
    {
        let out = output_for(to, &temp.path().join(to.name()));
        let output = Test::new()
            .current_dir(&dir)
            .args([
                "convert",
                from.name(),
                "--to",
                to.name(),
                "-o",
                &out.display().to_string(),
                "--format",
                "json",
            ])
            .run();
        assert_eq!(output.code, 0, "{from} -> {to}: {}", output.stderr);
        report.push_str(&format!("--to {to}\n"));
        // The writers' notes (generation-note) share the report; this
        // snapshot is about the losses.
        for d in output.json()["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .filter(|d| d["rule"] == "conversion-loss")
        {
            report.push_str(&format!(
                "  {}:{}:{} {}\n",
                d["path"].as_str().expect("path"),
                d["line"],
                d["column"],
                d["message"].as_str().expect("message")
            ));
        }
    }
    report
}

#[test]
fn loss_reports_of_every_pair() {
    // (fixtures/convert holds a manifest of each format convert writes.)
    for from in Format::ALL
        .into_iter()
        .filter(|f| toolc::convert::writes(*f))
    {
        insta::assert_snapshot!(format!("losses_from_{from}"), loss_report(from));
    }
}

/// Two directories whose names differ only in bytes that are not UTF-8:
/// each finding is positioned in its own file's text, and the two files
/// are told apart in the report.
#[cfg(unix)]
#[test]
fn files_whose_names_differ_in_bytes_that_are_not_utf8_keep_their_own_positions() {
    use std::os::unix::ffi::OsStrExt;
    let temp = TempDir::new("convert-non-utf8-names");
    let one_line = r#"{"tools": [{"name": "a", "description": "Say a.", "schema": {"type": "object"}, "command": ["/bin/true"], "timeoutSec": 5}]}"#;
    let spread = "{\n  \"tools\": [\n    {\n      \"name\": \"b\",\n      \"description\": \"Say b.\",\n      \"schema\": {\"type\": \"object\"},\n\n\n   \"command\": [\"/bin/true\"],\n\"timeoutSec\": 5\n    }\n  ]\n}\n";
    let mut texts = std::collections::BTreeMap::new();
    for (byte, text) in [(0xffu8, one_line), (0xfe, spread)] {
        let name = [b'x', byte];
        let dir = temp
            .path()
            .join("nu")
            .join(std::ffi::OsStr::from_bytes(&name));
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join("tools.json"), text).expect("write");
        texts.insert(format!("nu/x\\x{byte:02X}/tools.json"), text);
    }
    let output = Test::new()
        .current_dir(temp.path())
        .args([
            "convert", "nu", "--to", "mcp", "-o", "out.json", "--format", "json",
        ])
        .run();
    assert_eq!(output.code, 0, "{}", output.stderr);
    let report = output.json();
    let mut seen = std::collections::BTreeSet::new();
    for diagnostic in report["diagnostics"].as_array().expect("diagnostics") {
        let path = diagnostic["path"].as_str().expect("path");
        let text = texts
            .get(path)
            .unwrap_or_else(|| panic!("unknown path {path:?}"));
        let key = diagnostic["pointer"]
            .as_str()
            .and_then(|p| p.rsplit('/').next())
            .expect("pointer");
        let offset = text.find(&format!("\"{key}\"")).expect("key in text");
        let line = text[..offset].matches('\n').count() + 1;
        let column = offset - text[..offset].rfind('\n').map_or(0, |i| i + 1) + 1;
        assert_eq!(
            (diagnostic["line"].as_u64(), diagnostic["column"].as_u64()),
            (Some(line as u64), Some(column as u64)),
            "{path} {key}"
        );
        seen.insert(path.to_string());
    }
    assert_eq!(seen.len(), 2, "{seen:?}");
}

/// A package named after a Python keyword is spelled as gen python spells
/// it (`import_`) in what AgentStack reads, in the directory convert
/// writes it to (`import`) notwithstanding.
#[test]
fn an_agentstack_package_named_after_a_keyword_is_spelled_for_python() {
    let dir = TempDir::new("convert-keyword-package");
    dir.write(
        "kw/mcp.json",
        r#"{"tools": [{"name": "import", "description": "Import a thing.", "inputSchema": {"type": "object", "properties": {}}}]}"#,
    );
    let output = Test::new()
        .current_dir(dir.path())
        .args(["convert", "--to", "agentstack", "kw/mcp.json", "-o", "out"])
        .run();
    assert_eq!(output.code, 0, "{}", output.stderr);
    let module = std::fs::read_to_string(dir.path().join("out/import/__init__.py")).unwrap();
    assert!(
        module.starts_with("\"\"\"AgentStack tools: import_."),
        "{module}"
    );
}
