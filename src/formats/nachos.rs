//! Nachos `manifest.json` / `manifest.*.json`: a package that provides a
//! tool, a channel or a core service. Only `type: "tool"` declares a tool;
//! its parameters live in the tool's TypeScript class.

use serde_json::Value;

use super::{extensions, string_field, string_list};
use crate::ir::{Package, Permissions, Runtime, Tool};

const KNOWN: &[&str] = &[
    "name",
    "version",
    "type",
    "description",
    "capabilities",
    "provides",
];

pub(super) fn lower(value: &Value) -> (Option<Package>, Vec<Tool>) {
    let Some(object) = value.as_object() else {
        return (None, Vec::new());
    };
    let capabilities = object.get("capabilities");
    let package = Package {
        name: string_field(object, "name"),
        version: string_field(object, "version"),
        kind: string_field(object, "type"),
        description: string_field(object, "description"),
        secrets: string_list(capabilities.and_then(|c| c.get("secrets"))),
        extensions: extensions(object, KNOWN),
        ..Package::default()
    };
    if package.kind.as_deref() != Some("tool") {
        return (Some(package), Vec::new());
    }
    let provides = object.get("provides");
    let tool_id = provides
        .and_then(|p| p.get("tool"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let mut tool = Tool::new(tool_id.clone(), "/provides/tool".to_string(), String::new());
    tool.title = package.name.clone();
    tool.description = package.description.clone();
    tool.runtime = Runtime::NatsService {
        subject: format!("nachos.tool.{tool_id}.request"),
    };
    let network = capabilities.and_then(|c| c.get("network"));
    let resources = capabilities.and_then(|c| c.get("resources"));
    tool.permissions = Permissions {
        security_tier: provides
            .and_then(|p| p.get("securityTier"))
            .and_then(Value::as_f64)
            .filter(|t| t.fract() == 0.0)
            .map(|t| t as i64),
        network_egress: network
            .and_then(|n| n.get("egress"))
            .map(|e| string_list(Some(e))),
        memory: resources
            .and_then(|r| r.get("memory"))
            .and_then(Value::as_str)
            .map(str::to_string),
        cpus: resources
            .and_then(|r| r.get("cpus"))
            .and_then(Value::as_f64),
        ..Permissions::default()
    };
    (Some(package), vec![tool])
}
