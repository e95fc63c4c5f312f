//! `toolc gen rust`: every stub's `validate()` against the jsonschema
//! crate, for every tool of every fixture and corpus manifest that gen
//! rust accepts. Arguments come from a small deterministic generator (an
//! instance built from the schema, and mutations of it: a required
//! property dropped, wrong types, values out of range, an extra property,
//! wrong enum values, combinator branches alone and two at a time);
//! jsonschema says which the schema accepts. One crate holds every
//! generated module and a main that prints each tool's schema, then runs
//! `validate()` on every pair: it must never say valid where jsonschema
//! rejects, nor invalid where jsonschema accepts; it may say undecided
//! (what it cannot check), and the test counts how often.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use serde_json::{Map, Value, json};

use super::gen_rust::{CARGO_TOML, write};
use super::{Test, root};

/// The generated crate, beside gen_rust's (same target directory).
const CRATE: &str = "validate";
const PACKAGE: &str = "toolc_gen_rust_validate";
/// At most this many argument values per tool, to bound the run.
const PAIRS_PER_TOOL: usize = 150;
/// The fixture whose tools exercise every combinator at the root.
const COMBINATORS: &str = "fixtures/gen/rust-validate/tools.json";

#[test]
fn generated_validate_agrees_with_jsonschema() {
    let groups = generated_modules();
    let binary = build_crate(&groups);
    let modules: Vec<String> = groups.into_iter().map(|(_, module)| module).collect();
    let described = run(&binary, "describe", "[]");
    let tools = described.as_array().expect("describe prints a list");
    let stubs: usize = modules
        .iter()
        .map(|m| m.matches("        Box::new(").count())
        .sum();
    assert_eq!(tools.len(), stubs, "one described tool per stub");

    let mut pairs = Vec::new();
    let mut expected = Vec::new();
    let mut not_compiled = Vec::new();
    for tool in tools {
        let schema = &tool["schema"];
        let Ok(validator) = jsonschema::validator_for(schema) else {
            not_compiled.push(tool["id"].to_string());
            continue;
        };
        for args in instances(schema) {
            expected.push((
                tool["id"].as_str().unwrap_or("").to_string(),
                validator.is_valid(&args),
            ));
            pairs.push(json!([tool["module"], tool["index"], args]));
        }
    }
    let verdicts = run(
        &binary,
        "validate",
        &Value::Array(pairs.clone()).to_string(),
    );
    let verdicts = verdicts.as_array().expect("validate prints a list");
    assert_eq!(verdicts.len(), pairs.len());

    let (mut agree, mut undecided, mut accepted) = (0, 0, 0);
    let mut wrong = Vec::new();
    for ((pair, (id, schema_accepts)), verdict) in pairs.iter().zip(&expected).zip(verdicts) {
        let valid = verdict["valid"] == true;
        let invalid = verdict["errors"].as_array().is_some_and(|e| !e.is_empty());
        accepted += usize::from(*schema_accepts);
        if !valid && !invalid {
            undecided += 1;
        } else if valid == *schema_accepts && invalid != *schema_accepts {
            agree += 1;
        } else {
            wrong.push(format!(
                "{id}: {} jsonschema {} but validate() says {verdict}",
                pair[2],
                if *schema_accepts {
                    "accepts"
                } else {
                    "rejects"
                }
            ));
        }
    }
    eprintln!(
        "gen rust validate(): {} tools in {} modules ({} schemas jsonschema does not compile: {}), \
         {} pairs ({accepted} accepted by jsonschema), {agree} agree, {undecided} undecided",
        tools.len(),
        modules.len(),
        not_compiled.len(),
        not_compiled.join(", "),
        pairs.len(),
    );
    assert!(
        wrong.is_empty(),
        "{} disagreements:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert!(tools.len() > 500, "only {} tools", tools.len());
    assert!(
        accepted > 0 && accepted < pairs.len(),
        "{accepted} of {}",
        pairs.len()
    );
    // Undecided is the exception (`pattern` and the like), not the rule.
    assert!(
        undecided * 10 < pairs.len(),
        "{undecided} of {} undecided",
        pairs.len()
    );
    combinator_fixture_is_covered(&pairs, &expected, verdicts);
}

/// The root combinators' tools took part, and each rejected pair of
/// theirs got a definite answer where the schema needs no regex or format.
fn combinator_fixture_is_covered(pairs: &[Value], expected: &[(String, bool)], verdicts: &[Value]) {
    let mut seen = BTreeSet::new();
    for ((pair, (id, accepts)), verdict) in pairs.iter().zip(expected).zip(verdicts) {
        let id = id.as_str();
        if ["pick_one", "any_target", "all_limits", "fetch_source"].contains(&id) {
            seen.insert((id.to_string(), *accepts));
            assert_eq!(verdict["valid"], *accepts, "{id}: {} -> {verdict}", pair[2]);
        }
    }
    for id in ["pick_one", "any_target", "all_limits", "fetch_source"] {
        for accepts in [true, false] {
            assert!(
                seen.contains(&(id.to_string(), accepts)),
                "{COMBINATORS}: no pair of {id} that jsonschema {}",
                if accepts { "accepts" } else { "rejects" }
            );
        }
    }
}

/// Every `.json` file under fixtures/ and ../shared/corpus, sorted.
fn manifests() -> Vec<String> {
    let mut found = Vec::new();
    for top in ["fixtures", "../shared/corpus"] {
        let dir = root().join(top);
        assert!(dir.is_dir(), "{} is missing", dir.display());
        for entry in walkdir::WalkDir::new(&dir).sort_by_file_name() {
            let entry = entry.expect("walk");
            if entry.path().extension().is_some_and(|x| x == "json") {
                let relative = entry.path().strip_prefix(&dir).expect("prefix");
                found.push(format!("{top}/{}", relative.display()));
            }
        }
    }
    found
}

/// The modules: manifests that gen rust accepts on their own, put
/// together in groups whose tool names differ (gen refuses one module
/// with two tools of the same name).
fn generated_modules() -> Vec<(Vec<String>, String)> {
    let mut groups: Vec<(Vec<String>, BTreeSet<String>)> = Vec::new();
    let mut accepted = 0;
    for path in manifests() {
        let output = Test::new().args(["gen", "rust", &path]).run();
        if output.code != 0 {
            continue;
        }
        let names = tool_names(&output.stdout);
        if names.is_empty() {
            continue;
        }
        accepted += 1;
        match groups
            .iter_mut()
            .find(|(_, taken)| taken.is_disjoint(&names))
        {
            Some((paths, taken)) => {
                paths.push(path);
                taken.extend(names);
            }
            None => groups.push((vec![path], names)),
        }
    }
    assert!(
        accepted > 100,
        "gen rust accepted only {accepted} manifests"
    );
    assert!(
        groups
            .iter()
            .any(|(paths, _)| paths.iter().any(|p| p == COMBINATORS)),
        "gen rust refuses {COMBINATORS}"
    );
    groups
        .into_iter()
        .flat_map(|(paths, _)| generate(&paths))
        .collect()
}

/// The module of `paths` (with them), or of its halves when gen refuses
/// them together.
fn generate(paths: &[String]) -> Vec<(Vec<String>, String)> {
    let output = Test::new().args(["gen", "rust"]).args(paths).run();
    if output.code == 0 {
        return vec![(paths.to_vec(), output.stdout)];
    }
    assert!(paths.len() > 1, "gen rust {paths:?}: {}", output.stderr);
    let (first, second) = paths.split_at(paths.len() / 2);
    let mut modules = generate(first);
    modules.extend(generate(second));
    modules
}

/// The tool names a module lists in `all_tools()` (each stub's comment).
fn tool_names(module: &str) -> BTreeSet<String> {
    let lines: Vec<&str> = module.lines().collect();
    lines
        .windows(2)
        .filter(|pair| pair[1].trim_start().starts_with("Box::new("))
        .filter_map(|pair| pair[0].trim_start().strip_prefix("// "))
        .map(str::to_string)
        .collect()
}

/// Writes the crate (module `m<i>` and its stubs `m<i>_impl.rs`, as gen
/// rust writes them, per group of manifests, and the main) and builds it
/// once, warnings denied; the path of its binary.
fn build_crate(modules: &[(Vec<String>, String)]) -> std::path::PathBuf {
    let base = root().join("target/gen-rust-check");
    let dir = base.join(CRATE);
    let _ = std::fs::remove_dir_all(dir.join("src"));
    write(
        &dir.join("Cargo.toml"),
        &CARGO_TOML.replace("toolc_gen_rust_check", PACKAGE),
    );
    std::fs::copy(root().join("Cargo.lock"), dir.join("Cargo.lock")).expect("copy Cargo.lock");
    for (index, (paths, module)) in modules.iter().enumerate() {
        let file = dir.join(format!("src/m{index}.rs"));
        let _ = std::fs::create_dir_all(dir.join("src"));
        let output = Test::new()
            .args(["gen", "rust"])
            .args(paths)
            .args(["-o", file.to_str().expect("a UTF-8 path")])
            .run();
        assert_eq!(output.code, 0, "{paths:?}: {}", output.stderr);
        let written = std::fs::read_to_string(&file).expect("the module");
        let count = |text: &str| text.matches("        Box::new(").count();
        assert_eq!(count(&written), count(module), "{paths:?}");
    }
    write(&dir.join("src/main.rs"), &main_rs(modules.len()));
    let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string()))
        .args(["build", "--offline", "--quiet"])
        .current_dir(&dir)
        .env("RUSTFLAGS", "-D warnings")
        .env("CARGO_TARGET_DIR", base.join("target"))
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_RUSTFLAGS")
        .output()
        .expect("run cargo");
    assert!(
        output.status.success(),
        "cargo build in {}:\n{}",
        dir.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    base.join("target/debug").join(PACKAGE)
}

/// The main: `describe` prints `[{module, index, id, schema}]`; `validate`
/// reads `[[module, index, args]]` and prints each `ValidationResult`.
fn main_rs(modules: usize) -> String {
    let mut text = String::from("use serde_json::{Value, json};\nuse std::io::Read;\n\n");
    let mut describe = Vec::new();
    let mut validate = Vec::new();
    for index in 0..modules {
        text.push_str(&format!(
            "// A library module: what this main does not use is not dead.\n\
             #[allow(dead_code)]\n\
             mod m{index};\n\n\
             fn describe_m{index}() -> Vec<Value> {{\n\
             \x20   let tools = m{index}::all_tools();\n\
             \x20   let described = tools.iter().enumerate().map(|(index, tool)| {{\n\
             \x20       json!({{\"module\": {index}, \"index\": index, \"id\": tool.tool_id(), \"schema\": tool.parameters()}})\n\
             \x20   }});\n\
             \x20   described.collect()\n\
             }}\n\n\
             fn validate_m{index}(index: usize, args: &Value) -> Value {{\n\
             \x20   serde_json::to_value(m{index}::all_tools()[index].validate(args)).unwrap()\n\
             }}\n\n"
        ));
        describe.push(format!("describe_m{index}"));
        validate.push(format!("validate_m{index}"));
    }
    text.push_str(&format!(
        "fn main() {{\n\
         \x20   let describe: &[fn() -> Vec<Value>] = &[{}];\n\
         \x20   let validate: &[fn(usize, &Value) -> Value] = &[{}];\n\
         \x20   let mut input = String::new();\n\
         \x20   std::io::stdin().read_to_string(&mut input).unwrap();\n\
         \x20   let out: Vec<Value> = if std::env::args().nth(1).as_deref() == Some(\"describe\") {{\n\
         \x20       describe.iter().flat_map(|f| f()).collect()\n\
         \x20   }} else {{\n\
         \x20       let pairs: Vec<(usize, usize, Value)> = serde_json::from_str(&input).unwrap();\n\
         \x20       pairs.iter().map(|(m, i, args)| validate[*m](*i, args)).collect()\n\
         \x20   }};\n\
         \x20   println!(\"{{}}\", Value::Array(out));\n\
         }}\n",
        describe.join(", "),
        validate.join(", ")
    ));
    text
}

fn run(binary: &Path, mode: &str, input: &str) -> Value {
    use std::io::Write;
    let mut child = Command::new(binary)
        .arg(mode)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run the generated crate");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(input.as_bytes()).expect("write pairs");
    drop(stdin);
    let output = child.wait_with_output().expect("wait");
    assert!(
        output.status.success(),
        "{mode}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("the crate prints JSON")
}

// ---------------------------------------------------------------------------
// Arguments from a schema: an instance built from it, and mutations.
// ---------------------------------------------------------------------------

/// The argument values tried against `schema`, without repeats.
fn instances(schema: &Value) -> Vec<Value> {
    let maker = Maker { root: schema };
    let base = maker.example(schema, 0);
    let mut found = vec![base.clone(), json!({}), Value::Null, json!([])];
    found.push(only_required(schema, &base));
    // Combinator branches at the root: alone, over the base, two at a time.
    for keyword in ["oneOf", "anyOf", "allOf"] {
        let branches: Vec<Value> = schema[keyword]
            .as_array()
            .into_iter()
            .flatten()
            .map(|branch| maker.example(branch, 1))
            .collect();
        for (index, branch) in branches.iter().enumerate() {
            found.push(branch.clone());
            found.push(merged(&base, branch));
            found.push(merged(&only_required(schema, &base), branch));
            for other in branches.iter().skip(index + 1) {
                found.push(merged(&merged(&base, branch), other));
            }
        }
    }
    for keyword in ["not", "if", "then", "else"] {
        if let Some(branch) = schema.get(keyword) {
            let example = maker.example(branch, 1);
            found.push(merged(&base, &example));
            found.push(merged(&only_required(schema, &base), &example));
        }
    }
    mutate(&maker, schema, &base, &mut Vec::new(), 0, &mut found);
    let mut seen = BTreeSet::new();
    found.retain(|value| seen.insert(value.to_string()));
    found.truncate(PAIRS_PER_TOOL);
    found
}

/// `base` with only the properties `schema` requires.
fn only_required(schema: &Value, base: &Value) -> Value {
    let required: Vec<&str> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    match base {
        Value::Object(members) => Value::Object(
            members
                .iter()
                .filter(|(key, _)| required.contains(&key.as_str()))
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `over`'s members on top of `base` when both are objects, else `over`.
fn merged(base: &Value, over: &Value) -> Value {
    match (base, over) {
        (Value::Object(base), Value::Object(over)) => {
            let mut out = base.clone();
            for (key, value) in over {
                out.insert(key.clone(), value.clone());
            }
            Value::Object(out)
        }
        _ => over.clone(),
    }
}

/// Mutations of `base` (an instance of `schema`) at `path` and below:
/// each property dropped or replaced by values around its schema, an
/// extra property.
fn mutate(
    maker: &Maker,
    schema: &Value,
    base: &Value,
    path: &mut Vec<String>,
    depth: usize,
    found: &mut Vec<Value>,
) {
    let schema = maker.resolved(schema);
    let Some(members) = base_at(base, path).and_then(Value::as_object) else {
        return;
    };
    let members = members.clone();
    found.push(replaced(base, path, |object| {
        object.insert("toolc_extra".to_string(), json!(1));
    }));
    let properties = schema["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    for (name, property) in &properties {
        if members.contains_key(name) {
            found.push(replaced(base, path, |object| {
                object.remove(name);
            }));
        }
        for value in around(maker, property) {
            found.push(replaced(base, path, |object| {
                object.insert(name.clone(), value.clone());
            }));
        }
        if depth < 2 && members.get(name).is_some_and(Value::is_object) {
            path.push(name.clone());
            mutate(maker, property, base, path, depth + 1, found);
            path.pop();
        }
    }
}

fn base_at<'v>(base: &'v Value, path: &[String]) -> Option<&'v Value> {
    path.iter().try_fold(base, |value, key| value.get(key))
}

/// `base` with the object at `path` changed by `change`.
fn replaced(base: &Value, path: &[String], change: impl FnOnce(&mut Map<String, Value>)) -> Value {
    let mut out = base.clone();
    let mut at = &mut out;
    for key in path {
        at = &mut at[key.as_str()];
    }
    if let Value::Object(object) = at {
        change(object);
    }
    out
}

/// Values on both sides of what `schema` allows: other types, the
/// bounds and one past them, lengths and counts around the limits, wrong
/// enum values, each combinator branch and two branches together.
fn around(maker: &Maker, schema: &Value) -> Vec<Value> {
    let schema = maker.resolved(schema);
    let mut values = vec![
        Value::Null,
        json!(true),
        json!(0),
        json!(-1),
        json!(1.5),
        json!(2.0),
        json!(""),
        json!("not-in-the-enum"),
        json!([]),
        json!({}),
    ];
    values.push(maker.example(schema, 1));
    for keyword in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
        if let Some(bound) = schema[keyword].as_f64() {
            values.extend([json!(bound), json!(bound - 1.0), json!(bound + 1.0)]);
            if schema["type"] == "number" {
                values.extend([json!(bound - 0.5), json!(bound + 0.5)]);
            }
        }
    }
    if let Some(divisor) = schema["multipleOf"].as_f64() {
        values.extend([json!(divisor), json!(divisor + 1.0), json!(divisor * 3.0)]);
    }
    for keyword in ["minLength", "maxLength"] {
        if let Some(limit) = schema[keyword].as_u64() {
            for length in [limit.saturating_sub(1), limit, limit + 1] {
                values.push(json!("é".repeat(length as usize)));
            }
        }
    }
    let item = maker.example(&schema["items"], 1);
    for keyword in ["minItems", "maxItems"] {
        if let Some(limit) = schema[keyword].as_u64() {
            for count in [limit.saturating_sub(1), limit, limit + 1] {
                values.push(Value::Array(vec![item.clone(); count as usize]));
            }
        }
    }
    values.push(json!([item.clone(), item.clone()]));
    values.push(json!([item, 7]));
    for value in schema["enum"].as_array().into_iter().flatten() {
        values.push(value.clone());
    }
    for keyword in ["oneOf", "anyOf", "allOf"] {
        let branches: Vec<Value> = schema[keyword]
            .as_array()
            .into_iter()
            .flatten()
            .map(|branch| maker.example(branch, 1))
            .collect();
        values.extend(branches.iter().cloned());
        if let [first, second, ..] = branches.as_slice() {
            values.push(merged(first, second));
        }
    }
    let example = maker.example(schema, 1);
    if let Value::Object(members) = &example {
        let mut extra = members.clone();
        extra.insert("toolc_extra".to_string(), json!("x"));
        values.push(Value::Object(extra));
        for key in members.keys() {
            let mut fewer = members.clone();
            fewer.remove(key);
            values.push(Value::Object(fewer));
        }
    }
    values
}

/// Builds an instance from a schema, best effort: jsonschema, not the
/// maker, says whether it is valid.
struct Maker<'s> {
    root: &'s Value,
}

impl Maker<'_> {
    /// `schema`, or what its local `$ref` names.
    fn resolved<'v>(&'v self, schema: &'v Value) -> &'v Value {
        let mut schema = schema;
        for _ in 0..8 {
            match schema["$ref"].as_str().and_then(|r| r.strip_prefix('#')) {
                Some(pointer) => match self.root.pointer(pointer) {
                    Some(target) => schema = target,
                    None => break,
                },
                None => break,
            }
        }
        schema
    }

    fn example(&self, schema: &Value, depth: usize) -> Value {
        let schema = self.resolved(schema);
        if depth > 6 || !schema.is_object() {
            return json!({});
        }
        if let Some(value) = schema.get("const") {
            return value.clone();
        }
        if let Some(first) = schema["enum"].as_array().and_then(|values| values.first()) {
            return first.clone();
        }
        let mut value = match self.kind(schema).as_str() {
            "object" => self.object(schema, depth),
            "array" => {
                let count = schema["minItems"].as_u64().unwrap_or(1).max(1);
                let item = self.example(&schema["items"], depth + 1);
                // Distinct items where they can be: numbers count up.
                (0..count)
                    .map(|n| match &item {
                        Value::Number(_) => json!(n),
                        other => other.clone(),
                    })
                    .collect()
            }
            "string" => json!(string_example(schema)),
            "integer" => number_example(schema, true),
            "number" => number_example(schema, false),
            "boolean" => json!(true),
            "null" => Value::Null,
            _ => json!("x"),
        };
        for keyword in ["allOf", "oneOf", "anyOf"] {
            let branches = schema[keyword].as_array().into_iter().flatten();
            // allOf: every branch; oneOf and anyOf: the first.
            let take = if keyword == "allOf" { usize::MAX } else { 1 };
            for branch in branches.take(take) {
                value = merged(&value, &self.example(branch, depth + 1));
            }
        }
        value
    }

    fn kind(&self, schema: &Value) -> String {
        let named = match &schema["type"] {
            Value::String(kind) => Some(kind.as_str()),
            Value::Array(kinds) => kinds
                .iter()
                .filter_map(Value::as_str)
                .find(|k| *k != "null"),
            _ => None,
        };
        let inferred = if schema.get("properties").is_some() || schema.get("required").is_some() {
            "object"
        } else if schema.get("items").is_some() {
            "array"
        } else {
            "none"
        };
        named.unwrap_or(inferred).to_string()
    }

    fn object(&self, schema: &Value, depth: usize) -> Value {
        let mut members = Map::new();
        for (name, property) in schema["properties"].as_object().into_iter().flatten() {
            members.insert(name.clone(), self.example(property, depth + 1));
        }
        for name in schema["required"].as_array().into_iter().flatten() {
            if let Some(name) = name.as_str() {
                members.entry(name.to_string()).or_insert(json!("x"));
            }
        }
        Value::Object(members)
    }
}

fn string_example(schema: &Value) -> String {
    let text = match schema["format"].as_str() {
        Some("date-time") => "2024-05-01T12:00:00Z",
        Some("date") => "2024-05-01",
        Some("time") => "12:00:00Z",
        Some("email") => "ada@example.com",
        Some("uri" | "url" | "uri-reference") => "https://example.com/a",
        Some("hostname") => "example.com",
        Some("ipv4") => "192.0.2.1",
        Some("ipv6") => "2001:db8::1",
        Some("uuid") => "123e4567-e89b-12d3-a456-426614174000",
        _ => "text",
    };
    let mut text = text.to_string();
    let least = schema["minLength"].as_u64().unwrap_or(0) as usize;
    while text.chars().count() < least {
        text.push('x');
    }
    if let Some(most) = schema["maxLength"].as_u64() {
        text = text.chars().take(most as usize).collect();
    }
    text
}

fn number_example(schema: &Value, integer: bool) -> Value {
    let low = schema["minimum"].as_f64().or_else(|| {
        schema["exclusiveMinimum"]
            .as_f64()
            .map(|b| b + if integer { 1.0 } else { 0.5 })
    });
    let high = schema["maximum"].as_f64().or_else(|| {
        schema["exclusiveMaximum"]
            .as_f64()
            .map(|b| b - if integer { 1.0 } else { 0.5 })
    });
    let mut number = low.or(high.map(|h| h.min(1.0))).unwrap_or(1.0);
    if let Some(divisor) = schema["multipleOf"].as_f64().filter(|d| *d > 0.0) {
        number = (number / divisor).ceil() * divisor;
    }
    if integer {
        json!(number as i64)
    } else if low.is_none() && high.is_none() {
        json!(1.5)
    } else {
        json!(number)
    }
}
