//! `toolc gen python` parameter names users can keep: they do not depend
//! on the order of the properties, and a parameter that takes the name
//! another had is an error at import naming the tool, not a warning.

use serde_json::{Value, json};

use super::TempDir;
use super::gen_python_keep::{drive, fill_in, generate, write_manifest};

/// One tool, `limit`, with the parameters `keys` in that order.
fn manifest(keys: &[&str]) -> Value {
    let properties: serde_json::Map<String, Value> = keys
        .iter()
        .map(|key| (key.to_string(), json!({"type": "integer"})))
        .collect();
    json!({"tools": [{"name": "limit", "description": "Limits.",
        "inputSchema": {"type": "object", "properties": properties}}]})
}

const BASETOOL_DRIVER: &str = r#"
import asyncio
import json
import sys

sys.path.insert(0, sys.argv[1])
import tools

result = asyncio.run(tools.TOOLS[0]().execute(json.loads(sys.argv[2] if len(sys.argv) > 2 else '{"max-bytes": 100, "max bytes": 7}')))
print(json.dumps(result.output if result.success else "Error: " + result.error))
"#;

/// `max-bytes` and `max bytes` both spell `max_bytes`: whichever comes
/// first, `max_bytes` is `max bytes` (the first in sorted order: a space
/// sorts before `-`), so the filled code reads the same value.
#[test]
fn python_names_do_not_depend_on_the_order_of_the_properties() {
    for keys in [["max-bytes", "max bytes"], ["max bytes", "max-bytes"]] {
        let dir = TempDir::new("gen-python-names-order");
        write_manifest(&dir, &manifest(&keys));
        let generated = generate(dir.path(), "basetool", &[]);
        assert_eq!(generated.code, 0, "{}", generated.stderr);
        let out = dir.path().join("out");
        fill_in(
            &out.join("tools/limit.py"),
            "return ToolResult(success=True, output=str(max_bytes))",
        );
        let answer = drive(BASETOOL_DRIVER, &out).unwrap_or_else(|e| panic!("{keys:?}: {e}"));
        assert_eq!(answer, json!("7"), "{keys:?}");
    }
}

/// `max-bytes` alone is `max_bytes`; adding `max_bytes` gives it that
/// name and `max-bytes` becomes `max_bytes_2`. The filled function, which
/// takes `max_bytes` only, must not run reading the other value: the
/// import fails, naming the tool.
fn added_parameter_is_an_import_error(style: &str, stub: &str, body: &str, import: &str) {
    let dir = TempDir::new(&format!("gen-python-names-added-{style}"));
    write_manifest(&dir, &manifest(&["max-bytes"]));
    assert_eq!(generate(dir.path(), style, &[]).code, 0);
    let out = dir.path().join("out");
    let filled = fill_in(&out.join(stub), body);
    assert!(
        filled.contains("max_bytes") && !filled.contains("max_bytes_2"),
        "{filled}"
    );
    write_manifest(&dir, &manifest(&["max-bytes", "max_bytes"]));
    let again = generate(dir.path(), style, &[]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let driver =
        format!("import sys\nsys.path.insert(0, sys.argv[1])\nimport {import}\nprint('{{}}')");
    let error = drive(&driver, &out).expect_err("the import must fail");
    assert!(
        error.contains("TypeError")
            && error.contains("tool limit")
            && error.contains("max_bytes_2"),
        "{error}"
    );
}

#[test]
fn basetool_added_parameter_taking_a_name_is_an_import_error() {
    added_parameter_is_an_import_error(
        "basetool",
        "tools/limit.py",
        "return ToolResult(success=True, output=str(max_bytes))",
        "tools",
    );
}

#[test]
fn agentstack_added_parameter_taking_a_name_is_an_import_error() {
    added_parameter_is_an_import_error(
        "agentstack",
        "limit/impl/limit.py",
        "return str(max_bytes)",
        "limit",
    );
}
