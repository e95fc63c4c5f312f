//! AgentStack `config.json`: a package of Python functions.
//!
//! `tools` comes in two shapes found in AgentStack's history: a list of
//! function names, or a map from function name to permissions
//! (`{"actions": [...], ...}`). `env` comes as a map or as a list of one-key
//! maps. Parameters live in the package's Python code, not here.

use serde_json::{Map, Value};

use super::{extensions, string_field, string_list};
use crate::ir::{Action, EnvVar, Package, Permissions, Runtime, Tool};
use crate::json;

/// The file an AgentStack package's manifest is, in the package's
/// directory.
pub(crate) const FILE_NAME: &str = "config.json";

/// The Python module beside [`FILE_NAME`] that defines the package's tool
/// functions.
pub(crate) const MODULE_FILE: &str = "__init__.py";

/// The actions toolc's writers give a tool that declares none (AgentStack
/// wants some): `read`, the least a tool can do. They are recorded as made
/// up (see [`super::carry::ASSUMED`]), so reading them back still knows.
pub(crate) const DEFAULT_ACTIONS: [Action; 1] = [Action::Read];

const KNOWN: &[&str] = &[
    "name",
    "category",
    "description",
    "url",
    "cta",
    "env",
    "dependencies",
    "post_install",
    "post_remove",
    "tools",
];

pub(super) fn lower(value: &Value) -> (Option<Package>, Vec<Tool>) {
    let Some(object) = value.as_object() else {
        return (None, Vec::new());
    };
    let package = Package {
        name: string_field(object, "name"),
        category: string_field(object, "category"),
        description: string_field(object, "description"),
        url: string_field(object, "url"),
        cta: string_field(object, "cta"),
        env: env_vars(object.get("env")),
        dependencies: string_list(object.get("dependencies")),
        post_install: string_field(object, "post_install"),
        post_remove: string_field(object, "post_remove"),
        extensions: extensions(object, KNOWN),
        ..Package::default()
    };
    let module = package.name.clone().unwrap_or_default();
    let tools = match object.get("tools") {
        Some(Value::Array(names)) => names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let at = format!("/tools/{i}");
                let name = name.as_str().unwrap_or_default().to_string();
                function_tool(&module, name, at)
            })
            .collect(),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(name, permissions)| {
                let at = json::join("/tools", name);
                let mut tool = function_tool(&module, name.clone(), at);
                tool.name_is_key = true;
                if let Some(permissions) = permissions.as_object() {
                    *tool.permissions = lower_permissions(permissions);
                }
                tool
            })
            .collect(),
        _ => Vec::new(),
    };
    (Some(package), tools)
}

fn function_tool(module: &str, name: String, at: String) -> Tool {
    let mut tool = Tool::new(name.clone(), at.clone(), at);
    tool.runtime = Runtime::PythonFunction {
        module: module.to_string(),
        function: name,
    };
    tool
}

fn lower_permissions(object: &Map<String, Value>) -> Permissions {
    Permissions {
        actions: object.get("actions").map(|a| {
            string_list(Some(a))
                .iter()
                .map(|action| Action::parse(action))
                .collect()
        }),
        allowed_dirs: object.get("allowed_dirs").map(|d| string_list(Some(d))),
        allow_http: object.get("allow_http").and_then(Value::as_bool),
        extra: extensions(object, &["actions", "allowed_dirs", "allow_http"]),
        ..Permissions::default()
    }
}

fn env_vars(env: Option<&Value>) -> Vec<EnvVar> {
    let var = |(name, default): (&String, &Value)| EnvVar {
        name: name.clone(),
        default: default.clone(),
    };
    match env {
        Some(Value::Object(map)) => map.iter().map(var).collect(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_object)
            .flat_map(|m| m.iter().map(var))
            .collect(),
        _ => Vec::new(),
    }
}
