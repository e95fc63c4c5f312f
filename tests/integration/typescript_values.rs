//! The parameters toolc reads from a Nachos tool class are the value the
//! class has at runtime. Each package here is written out, read by toolc
//! (`toolc convert --to mcp`, its `inputSchema`), and compiled by tsc to
//! CommonJS; node then evaluates `new Class().parameters`, and the two JSON
//! values must be equal, key order included. Where toolc cannot evaluate an
//! expression, `typescript-unsupported-expression` must name it at its
//! line and column, and the value it read must differ from node's (or node
//! must fail): never a wrong value without a warning.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use super::gen_typescript::tsc;
use super::{TempDir, Test, root};

/// The runtime part of `@nachos/types` that classes import, and the types
/// they name, for tsc.
const NACHOS_TYPES_JS: &str =
    "exports.SecurityTier = { SAFE: 0, STANDARD: 1, ELEVATED: 2, RESTRICTED: 3, DANGEROUS: 4 };\n";
const NACHOS_TYPES_DTS: &str = "export declare enum SecurityTier { SAFE = 0, STANDARD = 1, ELEVATED = 2, RESTRICTED = 3, DANGEROUS = 4 }
export type ParameterSchema = Record<string, unknown>;
export interface Tool { readonly toolId: string }
export type ToolConfig = Record<string, unknown>;
export type ToolResult = Record<string, unknown>;
export type ValidationResult = { valid: boolean; errors?: string[] };
export type ToolParameters = Record<string, unknown>;
export type HealthStatus = Record<string, unknown>;
";

/// Evaluates each `[name, file, toolId]`: the parameters of the exported
/// class whose instances have that `toolId`, or why there are none.
const EVALUATE_JS: &str = r#"
const path = require('path');
const results = {};
for (const [name, file, id] of JSON.parse(process.argv[2])) {
  try {
    const exported = require(path.resolve(file));
    const classes = Object.values(exported).filter((v) => typeof v === 'function');
    const tool = classes.map((C) => new C()).find((t) => t.toolId === id);
    results[name] = tool ? { value: tool.parameters } : { error: `no class with toolId ${id}` };
  } catch (e) {
    results[name] = { error: String(e) };
  }
}
process.stdout.write(JSON.stringify(results));
"#;

/// A tool package: its class, and what toolc must report about it.
struct Package {
    /// The tool id, the package's folder and the class file's name.
    name: &'static str,
    /// Other files of the package, beside the class (`src/NAME.ts`).
    others: &'static [(&'static str, &'static str)],
    source: &'static str,
    /// Expressions toolc cannot evaluate: (line, text); the column is where
    /// the text first occurs on that line.
    unsupported: &'static [(usize, &'static str)],
}

const CONSTS: &str = r#"import { SecurityTier, type ParameterSchema, type Tool } from '@nachos/types';

const MODES = ['fast', 'exact'] as const;
const LIMIT: number = 50;
const UNIT = 'milliseconds' satisfies string;
const URL_PROPERTY = { type: 'string', format: 'uri' } satisfies Record<string, unknown>;
export const FLAGS = { verbose: true, level: null } as const;
const RATIO = <number>0.25;
const PAIR = [1, 'two', [3.5]] as const, NESTED = { pair: PAIR };

export class ConstsTool implements Tool {
  readonly toolId = 'consts';
  readonly securityTier = SecurityTier.SAFE;
  readonly parameters: ParameterSchema = {
    type: 'object',
    properties: {
      mode: { type: 'string', enum: MODES },
      limit: { type: 'integer', maximum: LIMIT, description: UNIT },
      url: URL_PROPERTY,
      flags: FLAGS,
      ratio: { type: 'number', default: RATIO },
      nested: NESTED,
    },
    required: ['mode'],
  };
}
"#;

const OBJECT_SPREADS: &str = r#"import type { Tool } from '@nachos/types';

const TIMEOUT = { type: 'integer', minimum: 1 };
const COMMON = {
  timeout: TIMEOUT,
  verbose: { type: 'boolean', default: false },
};
const OVERRIDES = { ...COMMON, timeout: { ...TIMEOUT, maximum: 60 } };
const NOTHING = null;

export class ObjectSpreadsTool implements Tool {
  readonly toolId = 'object_spreads';
  readonly parameters = {
    type: 'object',
    properties: {
      query: { type: 'string' },
      ...COMMON,
      // Replaces the spread's value in its place.
      verbose: { type: 'boolean', default: true },
      extra: { type: 'string', description: 'kept' },
      ...OVERRIDES,
      ...NOTHING,
      ...{ extra: { type: 'string', description: 'replaced' } },
    },
    required: ['query'],
  };
}
"#;

const ARRAY_SPREADS: &str = r#"import type { Tool } from '@nachos/types';

const BASE = ['alpha', 'beta'] as const;
const MORE = [...BASE, 'gamma'];
const KEYS = ['query'];

export class ArraySpreadsTool implements Tool {
  readonly toolId = 'array_spreads';
  readonly parameters = {
    type: 'object',
    properties: {
      query: { type: 'string', enum: [...MORE, 'delta', ...BASE] },
      letters: { type: 'array', examples: [...'xyz'], default: [1, , 2] },
    },
    required: [...KEYS],
  };
}
"#;

const TEMPLATES: &str = r#"import type { Tool } from '@nachos/types';

const NOUN = 'file';
const MAX = 3;

export class TemplatesTool implements Tool {
  readonly toolId = 'templates';
  readonly description = `Reads files.`;
  readonly parameters = {
    type: 'object',
    properties: {
      path: {
        type: 'string',
        description: `The ${NOUN} to read, at most ${MAX} levels deep (${null}, ${true}).`,
        title: `Tab\there, \u{1F600}, \x41, back\`tick`,
        examples: [`multi
line`, 'con' + 'cat' + ` ${NOUN}`, 'limit: ' + MAX, 'half: ' + 0.5],
      },
      depth: { type: 'integer', maximum: MAX + 1 },
    },
  };
}
"#;

const UNARY: &str = r#"import type { Tool } from '@nachos/types';

const LIMIT = 10;
const EMPTY = '';

export class UnaryTool implements Tool {
  readonly toolId = 'unary';
  readonly parameters = {
    type: 'object',
    properties: {
      flag: { type: 'boolean', default: !0, examples: [!1, !'', !EMPTY, !![], !!LIMIT, !null] },
      offset: { type: 'integer', minimum: -1, maximum: +1, default: -(2), examples: [(((3))), -LIMIT, +LIMIT, - -4, -0, +true] },
      size: { type: 'number', examples: [1e3, 0x10, 2.0, 1_000, 0.1, -1.5e-7, 1e21, .5, 0b101, 0o17] },
    },
  };
}
"#;

const KEY_ORDER: &str = r#"import type { Tool } from '@nachos/types';

const NAME = 'name';
const INDEX = 7;

export class KeyOrderTool implements Tool {
  readonly toolId = 'key_order';
  readonly parameters = {
    type: 'object',
    properties: {
      z: { type: 'string' },
      10: { type: 'string' },
      2: { type: 'string' },
      '1': { type: 'string' },
      1.50: { type: 'number' },
      0x20: { type: 'number' },
      [NAME]: { type: 'string' },
      [INDEX]: { type: 'string' },
      ['lit' + 'eral']: { type: 'string' },
      '01': { type: 'string' },
      a: { type: 'string', description: 'first' },
      ...{ a: { type: 'string', description: 'second' }, z: { type: 'number' } },
    },
  };
}
"#;

const MEMBERS: &str = r#"import type { Tool } from '@nachos/types';

const SCHEMAS = {
  query: { type: 'string', minLength: 1 },
  limits: [1, 5, 25],
  nested: { deeper: { value: 'found' } },
} as const;

export class MembersTool implements Tool {
  readonly toolId = 'members';
  readonly parameters = {
    type: 'object',
    properties: {
      query: SCHEMAS.query,
      again: SCHEMAS['query'],
      limit: { type: 'integer', maximum: SCHEMAS.limits[2], default: SCHEMAS.limits[0] },
      deep: { type: 'string', default: SCHEMAS.nested.deeper.value },
    },
  };
}
"#;

/// The whole `parameters` is a `const`, declared below the class: a field's
/// initializer runs when the class is instantiated, after the file ran.
const DECLARED_BELOW: &str = r#"import type { ParameterSchema, Tool } from '@nachos/types';

export class DeclaredBelowTool implements Tool {
  readonly toolId = 'declared_below';
  readonly parameters: ParameterSchema = SCHEMA;
}

const BASE = { type: 'object', properties: { id: { type: 'string' } } } as const;
const SCHEMA = { ...BASE, required: ['id'] } satisfies ParameterSchema;
"#;

/// Names resolve to the nearest declaration, as in JavaScript.
const SCOPES: &str = r#"import type { Tool } from '@nachos/types';

const KIND = 'outer';
const LIMIT = 10;

export const ScopesTool = (() => {
  const KIND = 'inner';
  return class implements Tool {
    readonly toolId = 'scopes';
    readonly parameters = {
      type: 'object',
      properties: { kind: { type: 'string', default: KIND, maximum: LIMIT } },
    };
  };
})();
"#;

/// A function's parameter hides the file's `const` of the same name.
const SHADOWED: &str = r#"import type { Tool } from '@nachos/types';

const LIMIT = 10;

function build(LIMIT: number) {
  return class implements Tool {
    readonly toolId = 'shadowed';
    readonly parameters = {
      type: 'object',
      properties: { n: { type: 'integer', maximum: LIMIT } },
    };
  };
}

export const ShadowedTool = build(99);
"#;

/// What toolc does not evaluate: calls, imports, `let`, `undefined`, a
/// `const` array that the file changes.
const UNRESOLVED: &str = r#"import type { Tool } from '@nachos/types';
import { SHARED } from './shared';

let MAX = 5;
MAX = 7;
const made = () => ['a', 'b'];
const ORDER = ['x'];
ORDER.push('y');

export class UnresolvedTool implements Tool {
  readonly toolId = 'unresolved';
  readonly parameters = {
    type: 'object',
    properties: {
      a: { type: 'string', enum: made() },
      b: { type: 'integer', maximum: MAX },
      c: SHARED,
      d: { type: 'string', default: undefined, title: 'kept' },
      e: { type: 'string', enum: ORDER },
    },
  };
}
"#;

/// A `const` used before its declaration throws in JavaScript (here while
/// the file runs): toolc must not give it a value.
const BEFORE_DECLARATION: &str = r#"import type { Tool } from '@nachos/types';

const FIRST = { next: SECOND };
const SECOND = { back: FIRST };

export class BeforeDeclarationTool implements Tool {
  readonly toolId = 'before_declaration';
  readonly parameters = { type: 'object', properties: { loop: FIRST } };
}
"#;

const PACKAGES: &[Package] = &[
    Package {
        name: "consts",
        others: &[],
        source: CONSTS,
        unsupported: &[],
    },
    Package {
        name: "object_spreads",
        others: &[],
        source: OBJECT_SPREADS,
        unsupported: &[],
    },
    Package {
        name: "array_spreads",
        others: &[],
        source: ARRAY_SPREADS,
        unsupported: &[],
    },
    Package {
        name: "templates",
        others: &[],
        source: TEMPLATES,
        unsupported: &[],
    },
    Package {
        name: "unary",
        others: &[],
        source: UNARY,
        unsupported: &[],
    },
    Package {
        name: "key_order",
        others: &[],
        source: KEY_ORDER,
        unsupported: &[],
    },
    Package {
        name: "members",
        others: &[],
        source: MEMBERS,
        unsupported: &[],
    },
    Package {
        name: "declared_below",
        others: &[],
        source: DECLARED_BELOW,
        unsupported: &[],
    },
    Package {
        name: "scopes",
        others: &[],
        source: SCOPES,
        unsupported: &[],
    },
    Package {
        name: "shadowed",
        others: &[],
        source: SHADOWED,
        unsupported: &[(10, "LIMIT")],
    },
    Package {
        name: "unresolved",
        others: &[(
            "src/shared.ts",
            "export const SHARED = { type: 'boolean' };\n",
        )],
        source: UNRESOLVED,
        unsupported: &[
            (15, "made()"),
            (16, "MAX"),
            (17, "SHARED"),
            (18, "undefined"),
            (19, "ORDER"),
        ],
    },
    Package {
        name: "before_declaration",
        others: &[],
        source: BEFORE_DECLARATION,
        unsupported: &[(3, "SECOND")],
    },
];

/// The Nachos tool packages among the fixtures, with the expressions toolc
/// reports in them.
const FIXTURES: &[(&str, &[(usize, &str)])] = &[
    ("fixtures/gen/nachos-typescript", &[]),
    ("fixtures/convert/nachos/browser", &[]),
    ("fixtures/run/nachos/dangerous_echo", &[]),
    ("fixtures/run/nachos/elevated_echo", &[]),
    ("fixtures/run/nachos/memory_hog", &[]),
    ("fixtures/rules/nachos-tier-mismatch/good", &[]),
    ("fixtures/rules/typescript-unsupported-expression/good", &[]),
    (
        "fixtures/rules/typescript-unsupported-expression/bad",
        &[(16, "defaultHeaders()")],
    ),
];

/// One package to compare: where it is, its tool id, its class file and
/// the expected reports as `file:line:column: `text``.
struct Checked {
    dir: std::path::PathBuf,
    tool_id: String,
    class_file: String,
    reports: Vec<String>,
}

fn expected_report(file: &str, source: &str, line: usize, text: &str) -> String {
    let written = source
        .lines()
        .nth(line - 1)
        .unwrap_or_else(|| panic!("{file} has no line {line}"));
    let at = written
        .find(text)
        .unwrap_or_else(|| panic!("{text:?} is not on line {line} of {file}: {written}"));
    let column = written[..at].chars().count() + 1;
    format!("src/{file}:{line}:{column}: `{text}`")
}

fn written_packages(dir: &TempDir) -> Vec<Checked> {
    PACKAGES
        .iter()
        .map(|package| {
            let manifest = format!(
                r#"{{"name": "{0}", "version": "1.0.0", "type": "tool", "description": "Checks {0}.", "provides": {{"tool": "{0}", "securityTier": 0}}}}"#,
                package.name
            );
            dir.write(&format!("{}/manifest.json", package.name), manifest);
            let class_file = format!("{}.ts", package.name);
            dir.write(&format!("{}/src/{class_file}", package.name), package.source);
            for (path, text) in package.others {
                dir.write(&format!("{}/{path}", package.name), text);
            }
            Checked {
                dir: dir.path().join(package.name),
                tool_id: package.name.to_string(),
                reports: package
                    .unsupported
                    .iter()
                    .map(|(line, text)| expected_report(&class_file, package.source, *line, text))
                    .collect(),
                class_file,
            }
        })
        .collect()
}

fn fixture_packages() -> Vec<Checked> {
    FIXTURES
        .iter()
        .map(|(folder, unsupported)| {
            let dir = root().join(folder);
            let manifest: Value = serde_json::from_str(
                &std::fs::read_to_string(dir.join("manifest.json")).expect("read the manifest"),
            )
            .expect("the manifest is JSON");
            let tool_id = manifest["provides"]["tool"]
                .as_str()
                .expect("provides.tool");
            let files = ts_files(&dir.join("src"));
            assert_eq!(files.len(), 1, "one class file in {folder}: {files:?}");
            let class_file = files[0].clone();
            let source =
                std::fs::read_to_string(dir.join("src").join(&class_file)).expect("read the class");
            Checked {
                reports: unsupported
                    .iter()
                    .map(|(line, text)| expected_report(&class_file, &source, *line, text))
                    .collect(),
                dir,
                tool_id: tool_id.to_string(),
                class_file,
            }
        })
        .collect()
}

fn ts_files(dir: &Path) -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".ts"))
        .collect();
    files.sort();
    files
}

/// Compiles every package's `src` with tsc and evaluates each class with
/// node: the parameters by package index, or node's error.
fn runtime_values(work: &TempDir, packages: &[Checked]) -> Vec<Result<Value, String>> {
    work.write("node_modules/@nachos/types/index.js", NACHOS_TYPES_JS);
    work.write("node_modules/@nachos/types/index.d.ts", NACHOS_TYPES_DTS);
    work.write("evaluate.js", EVALUATE_JS);
    let mut sources = Vec::new();
    for (i, package) in packages.iter().enumerate() {
        for file in ts_files(&package.dir.join("src")) {
            let text = std::fs::read(package.dir.join("src").join(&file)).expect("read source");
            let relative = format!("ts/{i}/{file}");
            work.write(&relative, text);
            sources.push(relative);
        }
    }
    // tsc writes JavaScript even where it reports type errors (a `const`
    // used before its declaration is one); the output is checked instead.
    let compiled = Command::new(tsc())
        .current_dir(work.path())
        .args([
            "--module",
            "commonjs",
            "--target",
            "es2022",
            "--moduleResolution",
            "node10",
            "--strict",
            "--rootDir",
            "ts",
            "--outDir",
            "js",
            "--pretty",
            "false",
        ])
        .args(&sources)
        .output()
        .unwrap_or_else(|e| panic!("run tsc: {e}"));
    let report = String::from_utf8_lossy(&compiled.stdout).into_owned();
    let jobs: Vec<Value> = packages
        .iter()
        .enumerate()
        .map(|(i, package)| {
            let js = format!("js/{i}/{}", package.class_file.replace(".ts", ".js"));
            assert!(
                work.path().join(&js).is_file(),
                "tsc wrote no {js}:\n{report}"
            );
            serde_json::json!([i.to_string(), js, package.tool_id])
        })
        .collect();
    let evaluated = Command::new("node")
        .current_dir(work.path())
        .arg("evaluate.js")
        .arg(Value::Array(jobs).to_string())
        .output()
        .unwrap_or_else(|e| panic!("run node: {e}"));
    assert!(
        evaluated.status.success(),
        "node failed:\n{}",
        String::from_utf8_lossy(&evaluated.stderr)
    );
    let results: Value = serde_json::from_slice(&evaluated.stdout).expect("node printed JSON");
    (0..packages.len())
        .map(|i| {
            let result = &results[i.to_string()];
            match result.get("value") {
                Some(value) => Ok(value.clone()),
                None => Err(format!("{}\ntsc said:\n{report}", result["error"])),
            }
        })
        .collect()
}

/// The parameters toolc reads: the `inputSchema` of `convert --to mcp`.
fn toolc_value(package: &Checked) -> Value {
    let dir = package.dir.to_str().expect("UTF-8 path");
    let output = Test::new()
        .args(["convert", "--to", "mcp", "--allow-errors", dir])
        .run();
    assert_eq!(output.code, 0, "convert {dir}:\n{}", output.stderr);
    let document: Value = serde_json::from_str(&output.stdout).expect("MCP JSON");
    document["tools"][0]["inputSchema"].clone()
}

/// What `typescript-unsupported-expression` lists, as `file:line:column: `text``.
fn toolc_reports(package: &Checked) -> Vec<String> {
    let dir = package.dir.to_str().expect("UTF-8 path");
    let report = Test::new()
        .args(["lint", "--format", "json", dir])
        .run()
        .json();
    let findings: Vec<&Value> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["rule"] == "typescript-unsupported-expression")
        .collect();
    let Some(finding) = findings.first() else {
        return Vec::new();
    };
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let message = finding["message"].as_str().expect("message");
    let listed = message.split_once(": ").map(|(_, list)| list).unwrap_or("");
    let prefix = format!("{dir}/");
    listed
        .split(", ")
        .map(|item| item.trim_start_matches(prefix.as_str()).to_string())
        .collect()
}

/// Both values as text: equal JSON with keys in the same order.
fn ordered(value: &Value) -> String {
    serde_json::to_string_pretty(value).expect("JSON")
}

#[test]
fn parameters_equal_the_runtime_value() {
    let dir = TempDir::new("typescript-values");
    let work = TempDir::new("typescript-values-node");
    let mut packages = written_packages(&dir);
    packages.extend(fixture_packages());
    let runtime = runtime_values(&work, &packages);
    let mut equal = 0;
    for (package, runtime) in packages.iter().zip(runtime) {
        let name = package.dir.display();
        let read = toolc_value(package);
        let reports = toolc_reports(package);
        assert_eq!(reports, package.reports, "{name}: what toolc reports");
        if package.reports.is_empty() {
            let runtime = runtime.unwrap_or_else(|e| panic!("{name}: node failed: {e}"));
            assert_eq!(
                ordered(&read),
                ordered(&runtime),
                "{name}: toolc (left) and node (right)"
            );
            equal += 1;
        } else if let Ok(runtime) = runtime {
            assert_ne!(read, runtime, "{name}: reported, yet the value is node's");
        }
    }
    assert_eq!(equal, PACKAGES.len() - 3 + FIXTURES.len() - 1);
}
