//! The Nachos tool class (`toolc::emit::typescript::nachos_class`): what it
//! writes, the front end (`toolc::project`) reads back to the same tool id, display name,
//! description, tier and parameter schema, for hand-picked schemas (nested
//! objects, arrays, enums, defaults, strings that need escapes, keys that
//! need quotes, every kind of number) and for a few hundred generated ones;
//! and every class type-checks with the real TypeScript compiler
//! (`tsc --noEmit --strict` and the stricter options a project may turn on)
//! against a declaration of the `@nachos/types` module written here, with
//! broken classes as controls that tsc does reject. One class is a reviewed
//! snapshot.
//!
//! The compile test needs tsc. `scripts/test` installs a pinned
//! TypeScript into target/test-node and says where (`TOOLC_TEST_TSC`); a
//! missing tsc fails the test, it never skips it.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Map, Value, json};
use toolc::emit::templates::Templates;
use toolc::emit::typescript::{NachosClass, nachos_class};
use toolc::ir::Tool;
use toolc::project::{LoadOptions, Project};

use super::TempDir;

fn templates() -> Templates {
    Templates::new(None).expect("the embedded templates")
}

fn tool(name: &str, parameters: Option<Value>) -> Tool {
    let mut tool = Tool::new(name.to_string(), "/name".to_string(), String::new());
    tool.parameters = parameters.map(toolc::ir::SharedValue::new);
    tool
}

fn class_of(tool: &Tool) -> NachosClass {
    nachos_class(tool, &templates()).unwrap_or_else(|e| panic!("no class for {}: {e}", tool.name))
}

/// What the class should declare: the tool's schema with `type` first
/// (`object` when missing), or the empty object schema.
fn expected_schema(tool: &Tool) -> Value {
    let Some(Value::Object(root)) = tool.parameters.as_deref() else {
        return json!({"type": "object", "properties": {}, "required": []});
    };
    let mut schema = Map::new();
    schema.insert(
        "type".to_string(),
        root.get("type").cloned().unwrap_or(json!("object")),
    );
    for (key, value) in root {
        if key != "type" {
            schema.insert(key.clone(), value.clone());
        }
    }
    as_javascript_numbers(Value::Object(schema))
}

/// The value as JavaScript holds it, with one number type: a whole float
/// (`3.0`) that an integer holds exactly is that integer, as the class's
/// runtime value (and so toolc reading it) has it.
fn as_javascript_numbers(value: Value) -> Value {
    const MAX_EXACT: f64 = 9_007_199_254_740_992.0;
    match value {
        Value::Number(n) => match n.as_f64() {
            Some(f) if !n.is_i64() && !n.is_u64() && f.fract() == 0.0 && f.abs() <= MAX_EXACT => {
                Value::from(f as i64)
            }
            _ => Value::Number(n),
        },
        Value::Array(items) => Value::Array(items.into_iter().map(as_javascript_numbers).collect()),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (k, as_javascript_numbers(v)))
                .collect(),
        ),
        other => other,
    }
}

/// Renders the class of `tool`, reads it back through the front end (as
/// the package of a Nachos manifest) and checks every property.
fn assert_round_trip(tool: &Tool) -> NachosClass {
    let class = class_of(tool);
    let dir = TempDir::new("round-trip");
    dir.write(&format!("src/{}", class.file_name), &class.contents);
    let manifest = json!({"name": "t", "version": "1.0.0", "type": "tool",
        "provides": {"tool": tool.name}});
    let project = Project::from_documents(
        [(
            dir.path().join("manifest.json").display().to_string(),
            manifest.to_string(),
        )],
        &LoadOptions::default(),
    );
    let loaded = project.manifests.first().expect("the manifest loads");
    let search = loaded
        .code
        .class_search(0)
        .expect("the package was searched");
    let Some(found) = &search.found else {
        panic!(
            "the class of {} is not found again ({:?}):\n{}",
            tool.name, search.unreadable, class.contents
        );
    };
    let read = &found.class;
    assert!(
        read.unsupported.is_empty(),
        "not literals: {:?}\n{}",
        read.unsupported,
        class.contents
    );
    assert_eq!(read.class_name, class.class_name);
    let title = tool.title.clone().filter(|t| !t.trim().is_empty());
    assert_eq!(read.name, Some(title.clone().unwrap_or(tool.name.clone())));
    let description = tool.description.clone().filter(|d| !d.trim().is_empty());
    assert_eq!(
        read.description,
        Some(description.or(title).unwrap_or(tool.name.clone()))
    );
    assert_eq!(
        read.security_tier,
        Some(tool.permissions.security_tier.unwrap_or(1))
    );
    assert!(read.parameters.is_some(), "a parameters object");
    let schema = loaded
        .code
        .derived
        .first()
        .map(|derived| derived.schema.clone())
        .expect("a schema");
    let expected = expected_schema(tool);
    assert_eq!(
        schema, expected,
        "the schema changed:\n{}\nwritten as:\n{}",
        expected, class.contents
    );
    class
}

/// Schemas a person writes, and the values that need care in TypeScript.
fn hand_picked() -> Vec<Tool> {
    let mut tools = vec![
        tool(
            "web_fetch",
            Some(json!({
                "type": "object",
                "properties": {
                    "url": {"type": "string", "description": "The absolute http(s) URL.", "format": "uri"},
                    "method": {"type": "string", "enum": ["GET", "HEAD"], "default": "GET"},
                    "headers": {
                        "type": "object",
                        "properties": {"user-agent": {"type": "string"}, "accept": {"type": "string", "default": "*/*"}},
                    },
                    "selectors": {"type": "array", "items": {"type": "string"}, "default": []},
                },
                "required": ["url"],
            })),
        ),
        tool(
            "strings",
            Some(json!({
                "type": "object",
                "properties": {
                    "quotes": {"type": "string", "default": "it's \"quoted\" `back` ${x}"},
                    "slashes": {"type": "string", "default": "C:\\path\\to\\file", "pattern": "^\\d+\\.\\d+$"},
                    "lines": {"type": "string", "description": "one\ntwo\r\nthree\tfour\u{2028}five\u{2029}six"},
                    "controls": {"type": "string", "default": "\u{0}\u{1}\u{1b}\u{7f}\u{85}"},
                    "unicode": {"type": "string", "default": "héllo wörld 🌮 日本語 \u{feff}"},
                    "comment": {"type": "string", "description": "ends a comment */ and starts one /*"},
                },
            })),
        ),
        tool(
            "keys",
            Some(json!({
                "type": "object",
                "properties": {
                    "a-b": {"type": "string"}, "1x": {"type": "string"}, "1": {"type": "string"},
                    "": {"type": "string"}, "with space": {"type": "string"}, "it's": {"type": "string"},
                    "$ref": {"type": "string"}, "_ok": {"type": "string"}, "default": {"type": "string"},
                    "class": {"type": "string"}, "é": {"type": "string"}, "a\nb": {"type": "string"},
                },
                "required": ["a-b", "1x", "it's", "a\nb", ""],
            })),
        ),
        tool(
            "numbers",
            Some(json!({
                "type": "object",
                "properties": {
                    "n": {"type": "number", "minimum": -3, "maximum": 1e100, "default": 1.5,
                          "examples": [0, -0.5, 1e-7, 2.5e-300, 123456789012345u64, -8999999999999999i64, 3.0]},
                    "flags": {"type": "array", "items": {"type": "boolean"}, "default": [true, false]},
                    "nothing": {"type": "string", "default": null},
                    "integer": {"type": "integer", "minimum": 0},
                },
            })),
        ),
        tool(
            "json_schema",
            Some(json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": {
                    "mode": {"anyOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "null"}]},
                    "deep": {"type": "object", "properties": {"deeper": {"type": "object", "properties": {"x": {"type": ["string", "null"]}}, "required": ["x"]}}},
                    "tuple": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false},
                    "ref": {"$ref": "#/$defs/thing"},
                },
                "$defs": {"thing": {"type": "object", "additionalProperties": {"type": "string"}}},
                "additionalProperties": false,
            })),
        ),
        tool("no_parameters", None),
        tool(
            "untyped_root",
            Some(json!({"properties": {"a": {"type": "string"}}})),
        ),
        tool("empty_root", Some(json!({}))),
        tool(
            "typed_later",
            Some(json!({"required": [], "properties": {}, "type": "object"})),
        ),
        tool(
            "long",
            Some(json!({
                "type": "object",
                "properties": {
                    "choice": {"type": "string", "enum": ["first choice", "second choice", "third choice", "fourth choice"]},
                    "text": {"type": "string", "description": "x".repeat(200)},
                },
                "required": ["choice", "text", "a_required_name_that_is_long", "another_long_required_name", "and_one_more"],
            })),
        ),
    ];
    let mut described = tool(
        "filesystem_write",
        Some(
            json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
        ),
    );
    described.title = Some("Filesystem 'Write'".to_string());
    described.description =
        Some("Write a file.\n\nIt's \"safe\" \\ within the workspace */ only.".repeat(3));
    described.permissions.security_tier = Some(2);
    tools.push(described);
    for tier in [0, 3, 4, 5, -1, 100] {
        let mut tiered = tool(&format!("tier_{tier}").replace('-', "minus_"), None);
        tiered.permissions.security_tier = Some(tier);
        tiered.title = Some(String::new());
        tiered.description = Some("  ".to_string());
        tools.push(tiered);
    }
    let mut titled = tool("titled", None);
    titled.title = Some("A Title".to_string());
    tools.push(titled);
    tools
}

#[test]
fn hand_picked_schemas_round_trip() {
    for tool in hand_picked() {
        assert_round_trip(&tool);
    }
}

/// A seeded xorshift: the same values on every run.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }

    fn text(&mut self) -> String {
        const PIECES: &[&str] = &[
            "a", "Z", "_", "$", "-", " ", "1", "'", "\"", "\\", "\n", "\r", "\t", "`", "${", "*/",
            "é", "🌮", "\u{2028}", "\u{2029}", "\u{0}", "\u{1f}", "日", "{", "}", ":",
        ];
        let length = self.below(6);
        (0..length).map(|_| self.pick(PIECES)).collect()
    }

    /// A number JSON and JavaScript agree on: integers within 2^53,
    /// floats that are finite.
    fn number(&mut self) -> Value {
        match self.below(4) {
            0 => json!(self.below(1000) as i64 - 500),
            1 => json!((self.below(1 << 52) as i64) * if self.below(2) == 0 { 1 } else { -1 }),
            2 => json!(self.below(100_000) as f64 / 64.0 - 100.0),
            _ => json!(f64::from_bits(self.next() >> 2).min(1e300) * 1e-10),
        }
    }

    fn scalar(&mut self) -> Value {
        match self.below(6) {
            0 => Value::Null,
            1 => Value::Bool(self.below(2) == 0),
            2 | 3 => self.number(),
            _ => Value::String(self.text()),
        }
    }

    /// Any JSON value, at most `depth` levels deep.
    fn value(&mut self, depth: u32) -> Value {
        if depth == 0 || self.below(3) == 0 {
            return self.scalar();
        }
        let length = self.below(4);
        if self.below(2) == 0 {
            Value::Array((0..length).map(|_| self.value(depth - 1)).collect())
        } else {
            Value::Object(
                (0..length)
                    .map(|_| (self.text(), self.value(depth - 1)))
                    .collect(),
            )
        }
    }

    /// A property schema, sometimes one Nachos' ParameterSchema declares
    /// exactly, sometimes with more of JSON Schema.
    fn property(&mut self, depth: u32) -> Value {
        let mut schema = Map::new();
        let kind = self.pick(&["string", "number", "boolean", "object", "array", "integer"]);
        schema.insert("type".to_string(), json!(kind));
        if self.below(2) == 0 {
            schema.insert("description".to_string(), json!(self.text()));
        }
        if self.below(4) == 0 {
            let values = (0..self.below(4)).map(|_| self.scalar()).collect();
            schema.insert("enum".to_string(), Value::Array(values));
        }
        if self.below(4) == 0 {
            schema.insert("default".to_string(), self.value(3));
        }
        if self.below(5) == 0 {
            schema.insert("minimum".to_string(), self.number());
        }
        match kind {
            "object" if depth > 0 => {
                schema.insert("properties".to_string(), self.properties(depth - 1));
                if self.below(3) == 0 {
                    schema.insert("required".to_string(), json!([self.text()]));
                }
            }
            "array" if depth > 0 => {
                schema.insert("items".to_string(), self.property(depth - 1));
            }
            _ => {}
        }
        if self.below(8) == 0 {
            schema.insert(self.text(), self.value(2));
        }
        Value::Object(schema)
    }

    fn properties(&mut self, depth: u32) -> Value {
        Value::Object(
            (0..self.below(5))
                .map(|_| (self.text(), self.property(depth)))
                .collect(),
        )
    }

    fn tool(&mut self, index: usize) -> Tool {
        let mut root = Map::new();
        if self.below(6) != 0 {
            root.insert("type".to_string(), json!("object"));
        }
        let properties = self.properties(3);
        let names: Vec<Value> = properties
            .as_object()
            .map(|p| {
                p.keys()
                    .filter(|_| self.below(2) == 0)
                    .map(|k| json!(k))
                    .collect()
            })
            .unwrap_or_default();
        root.insert("properties".to_string(), properties);
        if self.below(4) != 0 {
            root.insert("required".to_string(), Value::Array(names));
        }
        if self.below(4) == 0 {
            root.insert(
                "additionalProperties".to_string(),
                json!(self.below(2) == 0),
            );
        }
        let mut tool = tool(&format!("generated_{index}"), Some(Value::Object(root)));
        tool.title = Some(self.text()).filter(|_| self.below(2) == 0);
        tool.description = Some(self.text()).filter(|_| self.below(3) != 0);
        tool.permissions.security_tier = match self.below(8) {
            0 => None,
            7 => Some(self.below(20) as i64 - 10),
            tier => Some(tier as i64 - 1),
        };
        tool
    }
}

fn generated_tools(count: usize) -> Vec<Tool> {
    let mut random = Random(0x5eed_1234_abcd_0001);
    (0..count).map(|i| random.tool(i)).collect()
}

#[test]
fn generated_schemas_round_trip() {
    for tool in generated_tools(400) {
        assert_round_trip(&tool);
    }
}

#[test]
fn what_cannot_be_a_class_is_an_error() {
    let templates = templates();
    let nameless = tool("", None);
    assert!(nachos_class(&nameless, &templates).is_err());
    let not_an_object = tool("array", Some(json!([1])));
    assert!(nachos_class(&not_an_object, &templates).is_err());
    let mut deep = json!("bottom");
    for _ in 0..70 {
        deep = json!({"type": "object", "properties": {"a": deep}});
    }
    let too_deep = tool("deep", Some(deep));
    let error = nachos_class(&too_deep, &templates).expect_err("too deep");
    assert!(error.to_string().contains("deeper"), "{error}");
}

#[test]
fn notes_say_what_the_class_assumes() {
    let class = class_of(&tool(
        "bare",
        Some(json!({"type": "object", "properties": {"n": {"type": "integer"}}})),
    ));
    assert_eq!(class.notes.len(), 3, "{:?}", class.notes);
    assert!(class.notes[0].contains("no description"));
    assert!(class.notes[1].contains("SecurityTier.STANDARD"));
    assert!(class.notes[2].contains("/properties/n/type"));
    assert!(class.contents.contains("as unknown as ParameterSchema;"));
    let mut complete = tool(
        "complete",
        Some(json!({"type": "object", "properties": {"n": {"type": "number"}}})),
    );
    complete.description = Some("Counts.".to_string());
    complete.permissions.security_tier = Some(0);
    let class = class_of(&complete);
    assert_eq!(class.notes, Vec::<String>::new());
    assert!(
        class
            .contents
            .contains("readonly parameters: ParameterSchema = {")
    );
}

#[test]
fn a_class_snapshot() {
    let mut fetch = hand_picked().remove(0);
    fetch.title = Some("Web Fetch".to_string());
    fetch.description =
        Some("Fetch a web page and return its content as text or markdown.".to_string());
    let class = class_of(&fetch);
    assert_eq!(class.file_name, "web-fetch-tool.ts");
    assert_eq!(class.class_name, "WebFetchTool");
    insta::assert_snapshot!("nachos_class_web_fetch", class.contents);
    let json_schema = hand_picked().remove(4);
    insta::assert_snapshot!("nachos_class_cast", class_of(&json_schema).contents);
}

/// The `@nachos/types` module as far as a tool class uses it, declared
/// from the shapes of Nachos' `tool.ts` (`Tool`, `ParameterSchema`,
/// `JSONSchemaProperty`, `ToolResult`, ...), so that what type-checks here
/// type-checks in a Nachos package.
const NACHOS_TYPES: &str = r#"declare module '@nachos/types' {
  export enum SecurityTier {
    SAFE = 0,
    STANDARD = 1,
    ELEVATED = 2,
    RESTRICTED = 3,
    DANGEROUS = 4,
  }

  export type ContentBlock =
    | { type: 'text'; text: string }
    | { type: 'image'; data: string; mimeType: string; source?: 'base64' | 'url' }
    | { type: 'file'; path: string; mimeType?: string; size?: number };

  export interface ToolResult {
    success: boolean;
    content: ContentBlock[];
    metadata?: { duration: number; cached?: boolean; warnings?: string[] };
    error?: { code: string; message: string; details?: unknown };
  }

  export interface ToolParameters {
    sessionId: string;
    callId: string;
    [key: string]: unknown;
  }

  export interface ValidationResult {
    valid: boolean;
    errors?: string[];
  }

  export interface HealthStatus {
    healthy: boolean;
    error?: string;
    details?: Record<string, unknown>;
  }

  export interface JSONSchemaProperty {
    type: 'string' | 'number' | 'boolean' | 'object' | 'array';
    description?: string;
    enum?: unknown[];
    format?: string;
    examples?: unknown[];
    items?: JSONSchemaProperty;
    properties?: Record<string, JSONSchemaProperty>;
    default?: unknown;
    minimum?: number;
    maximum?: number;
    minLength?: number;
    maxLength?: number;
    pattern?: string;
  }

  export interface ParameterSchema {
    type: 'object';
    properties: Record<string, JSONSchemaProperty>;
    required?: string[];
    additionalProperties?: boolean;
  }

  export interface ToolConfig {
    config: Record<string, unknown>;
    secrets: Record<string, string>;
    securityMode: 'strict' | 'standard' | 'permissive';
    limits?: { timeout?: number; maxMemory?: number; maxConcurrent?: number };
  }

  export interface Tool {
    readonly toolId: string;
    readonly name: string;
    readonly description: string;
    readonly securityTier: SecurityTier;
    readonly parameters: ParameterSchema;
    initialize(config: ToolConfig): Promise<void>;
    execute(params: ToolParameters): Promise<ToolResult>;
    validate(params: ToolParameters): ValidationResult;
    healthCheck(): Promise<HealthStatus>;
  }
}
"#;

/// tsc: `TOOLC_TEST_TSC`, else `tsc` on PATH; else the test fails.
pub(super) fn tsc() -> PathBuf {
    if let Some(path) = std::env::var_os("TOOLC_TEST_TSC").filter(|p| !p.is_empty()) {
        let path = PathBuf::from(path);
        assert!(
            path.is_file(),
            "TOOLC_TEST_TSC={} is not a file",
            path.display()
        );
        return path;
    }
    let on_path = std::env::var_os("PATH")
        .map(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join("tsc"))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default()
        .into_iter()
        .find(|candidate| candidate.is_file());
    on_path.unwrap_or_else(|| {
        panic!(
            "tsc is needed to type-check the generated TypeScript and is neither in TOOLC_TEST_TSC nor on PATH: \
             run the tests with scripts/test, which installs it into target/test-node"
        )
    })
}

/// Runs tsc on `files` (and the `@nachos/types` declaration) in `dir`:
/// `--strict` and every stricter check a project may switch on, no output.
/// Returns whether it passed and what it printed.
fn type_check(dir: &Path, files: &[String]) -> (bool, String) {
    std::fs::write(dir.join("nachos-types.d.ts"), NACHOS_TYPES).expect("write the declaration");
    let output = Command::new(tsc())
        .current_dir(dir)
        .args([
            "--noEmit",
            "--strict",
            "--noUnusedLocals",
            "--noUnusedParameters",
            "--noImplicitReturns",
            "--noImplicitOverride",
            "--noPropertyAccessFromIndexSignature",
            "--noUncheckedIndexedAccess",
            "--exactOptionalPropertyTypes",
            "--verbatimModuleSyntax",
            "--target",
            "es2022",
            "--module",
            "esnext",
            "--moduleResolution",
            "bundler",
            "--pretty",
            "false",
            "nachos-types.d.ts",
        ])
        .args(files)
        .output()
        .unwrap_or_else(|e| panic!("run tsc: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

/// Writes each class into `dir` (under its own name: generated names can
/// repeat) and returns the file names.
fn write_classes(dir: &TempDir, classes: &[NachosClass]) -> Vec<String> {
    classes
        .iter()
        .enumerate()
        .map(|(i, class)| {
            let name = format!("{i:03}-{}", class.file_name);
            dir.write(&name, &class.contents);
            name
        })
        .collect()
}

#[test]
fn classes_type_check_with_tsc() {
    let dir = TempDir::new("gen-typescript");
    let mut tools = hand_picked();
    tools.extend(generated_tools(60));
    let classes: Vec<NachosClass> = tools.iter().map(class_of).collect();
    let cast = classes
        .iter()
        .filter(|c| c.contents.contains("as unknown as ParameterSchema"))
        .count();
    assert!(
        cast > 0 && cast < classes.len(),
        "both declared and cast schemas are checked ({cast} of {} cast)",
        classes.len()
    );
    let files = write_classes(&dir, &classes);
    let (passed, report) = type_check(dir.path(), &files);
    assert!(passed, "tsc rejects generated classes:\n{report}");
}

/// Controls: tsc, as run here, rejects a class that breaks the interface,
/// and a schema declared as ParameterSchema that it does not fit (the case
/// the cast exists for).
#[test]
fn tsc_rejects_broken_classes() {
    let dir = TempDir::new("gen-typescript-broken");
    let complete = {
        let mut tool = tool(
            "complete",
            Some(
                json!({"type": "object", "properties": {"n": {"type": "number"}}, "required": ["n"]}),
            ),
        );
        tool.description = Some("Counts.".to_string());
        class_of(&tool)
    };
    let (passed, report) = type_check(
        dir.path(),
        &write_classes(&dir, std::slice::from_ref(&complete)),
    );
    assert!(passed, "the control's base class fails:\n{report}");

    let unhealthy = complete
        .contents
        .replace("{ healthy: true }", "{ healthy: 'yes' }");
    assert_ne!(unhealthy, complete.contents);
    dir.write("unhealthy.ts", &unhealthy);
    let (passed, report) = type_check(dir.path(), &["unhealthy.ts".to_string()]);
    assert!(!passed, "tsc accepted a wrong healthCheck:\n{unhealthy}");
    assert!(
        report.contains("unhealthy.ts(") && report.contains("TS2322"),
        "{report}"
    );

    let integer = class_of(&tool(
        "integer",
        Some(json!({"type": "object", "properties": {"n": {"type": "integer"}}})),
    ));
    let declared = integer
        .contents
        .replace(
            "readonly parameters = {",
            "readonly parameters: ParameterSchema = {",
        )
        .replace("} as unknown as ParameterSchema;", "};");
    assert_ne!(declared, integer.contents);
    dir.write("declared.ts", &declared);
    let (passed, report) = type_check(dir.path(), &["declared.ts".to_string()]);
    assert!(
        !passed,
        "tsc accepted \"integer\" as a ParameterSchema type:\n{declared}"
    );
    assert!(report.contains("declared.ts("), "{report}");
}
