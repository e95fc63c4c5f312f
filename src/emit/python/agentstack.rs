//! The `agentstack` style: `<package>/config.json` and
//! `<package>/__init__.py` (toolc's) with one typed, documented function per
//! tool, calling the developer's function in `<package>/impl/<module>.py`
//! (written once), bound and checked by `<package>/impl/__init__.py`.
//!
//! Each manifest becomes a package named after its AgentStack package name,
//! else its only tool, else its directory; manifests that get the same name
//! share one package. AgentStack finds a tool by its function's name and
//! reads its parameters from the signature, so in this style the Python
//! identifiers are the wire names: a renamed tool or parameter is reported,
//! and recorded in the tool's `"x-toolc"` in config.json so that reading
//! the package gives the manifest's names back: a parameter's in
//! `parameter_names`, a tool's in `name` (with `name_as`, the function it
//! stands for), which `toolc run` and `toolc serve` then call it by.
//!
//! A tool's description is its function's docstring, before the sections,
//! written line for line so that Python (`inspect.getdoc`) and toolc's
//! reader give back the text of the manifest; a tool without one gets a
//! docstring of sections only. What a docstring cannot hold exactly
//! (whitespace around it, a tab, a line that reads as a section heading)
//! is kept in the tool's `"x-toolc"` `description`, as the reader finds
//! when the module is read back.

use std::path::Path;

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::hints::{self, At, Dataclass, Hints};
use super::layout::Expr;
use super::names::{self, HINT_BUILTINS, Keep, Kind, Namer};
use super::{Details, Parameter, Tree, doc, json_text, parameter_text};
use crate::diagnostic::Severity;
use crate::emit::{EmitError, Options};
use crate::formats::agentstack::{DEFAULT_ACTIONS, FILE_NAME, MODULE_FILE};
use crate::formats::agentstack_python::FunctionSchema;
use crate::formats::carry;
use crate::ir::{Format, Runtime, Tool, ToolSet};

/// Names the module imports: a function may not take them.
const MODULE_NAMES: &[&str] = &["Any", "ClassVar", "Literal", "dataclass"];

/// Names a parameter may not take: readers of AgentStack code (toolc's
/// among them) take `self` and `cls` for a method's own, not the tool's.
const PARAMETER_RESERVED: &[&str] = &["self", "cls"];

/// `python/agentstack/__init__.py.j2`'s context.
#[derive(Debug, Serialize)]
struct ModuleContext {
    package: PackageDoc,
    /// The `typing` names the hints use, comma-separated (empty: no import).
    typing_imports: String,
    /// The dataclasses the hints name, each after those its fields name.
    classes: Vec<Dataclass>,
    functions: Vec<Function>,
}

#[derive(Debug, Serialize)]
struct PackageDoc {
    name: String,
    description_doc: String,
    sources_doc: Vec<String>,
}

#[derive(Debug, Serialize)]
struct Function {
    name: String,
    /// Its implementation's module: `impl/<module>.py`.
    module: String,
    /// The tool's description for the docstring, exact and indented (see
    /// [`super::doc_exact`]); none when the tool has none.
    description_doc: Option<String>,
    /// The description (or a stand-in) wrapped, for the skeleton's
    /// docstring, which is not read back.
    skeleton_doc: String,
    /// Required parameters first, then optional ones, each in manifest order.
    parameters: Vec<FunctionParameter>,
    /// The required parameters that may not be `None`.
    required: Vec<String>,
    /// `_bind("name", required=[...], optional=[...])`, laid out after
    /// `_impl_name = `: the implementation, checked at import.
    bind_literal: String,
    /// The call of the implementation with every argument by name, laid
    /// out after `    return `.
    call_literal: String,
    /// (Python name, manifest name) of the parameters renamed for Python.
    #[serde(skip)]
    renamed: Vec<(String, String)>,
}

/// `python/agentstack/implementation.py.j2`'s context: the skeleton of one
/// tool's implementation, `impl/<function>.py`, the developer's.
#[derive(Debug, Serialize)]
struct ImplementationContext<'a> {
    package: &'a PackageDoc,
    f: &'a Function,
    /// The `typing` names its hints use (`TYPE_CHECKING` when it names a
    /// dataclass), comma-separated, or empty.
    typing_imports: String,
    /// The package's dataclasses its hints name, imported for type
    /// checkers only (the package imports this module).
    classes: Vec<String>,
    /// `    from .. import A, B` fits on one line.
    classes_fit: bool,
}

/// An empty context, for the templates that take no variables.
#[derive(Debug, Serialize)]
struct NoContext {}

/// The `typing` names a hint may use.
const TYPING_NAMES: &[&str] = &["Any", "Literal"];

/// The identifiers of a hint's source text, outside its string literals.
fn identifiers_in(hint: &str) -> std::collections::BTreeSet<&str> {
    let mut found = std::collections::BTreeSet::new();
    let mut rest = hint;
    while let Some(c) = rest.chars().next() {
        if c == '"' || c == '\'' {
            // Skip the literal, escapes included.
            let mut escaped = false;
            let end = rest[1..]
                .char_indices()
                .find(|&(_, d)| {
                    let closes = d == c && !escaped;
                    escaped = d == '\\' && !escaped;
                    closes
                })
                .map_or(rest.len(), |(i, _)| i + 2);
            rest = &rest[end..];
        } else if c.is_alphabetic() || c == '_' {
            let end = rest
                .find(|d: char| !(d.is_alphanumeric() || d == '_'))
                .unwrap_or(rest.len());
            found.insert(&rest[..end]);
            rest = &rest[end..];
        } else {
            rest = &rest[c.len_utf8()..];
        }
    }
    found
}

/// What the implementation of `f` imports: `typing` names and dataclasses.
fn implementation_imports(f: &Function, classes: &[Dataclass]) -> (String, Vec<String>) {
    let mut used = std::collections::BTreeSet::new();
    for p in &f.parameters {
        used.extend(identifiers_in(&p.hint));
        used.extend(p.default.as_deref().map(identifiers_in).unwrap_or_default());
    }
    let mut classes: Vec<String> = classes
        .iter()
        .filter(|c| used.contains(c.name.as_str()))
        .map(|c| c.name.clone())
        .collect();
    // isort's order.
    classes.sort();
    let mut typing: Vec<&str> = TYPING_NAMES
        .iter()
        .copied()
        .filter(|t| used.contains(t))
        .collect();
    typing.sort_unstable();
    if !classes.is_empty() {
        // isort puts constants before classes.
        typing.insert(0, "TYPE_CHECKING");
    }
    (typing.join(", "), classes)
}

#[derive(Debug, Serialize)]
struct FunctionParameter {
    name: String,
    /// The type hint, laid out after `    name: `.
    hint: String,
    /// The default's literal, null for a required parameter.
    default: Option<String>,
    description_doc: String,
}

/// `python/agentstack/config.json.j2`'s context.
#[derive(Debug, Serialize)]
struct ConfigContext {
    /// The AgentStack config as pretty-printed JSON.
    config_json: String,
}

/// The manifests that make one package.
struct Package<'a> {
    name: String,
    sets: Vec<&'a ToolSet>,
}

/// The package `set`'s tools go to (manifests of the same name share
/// one), or none for a manifest without tools.
pub(super) fn package_of(set: &ToolSet) -> Option<String> {
    (!set.tools.is_empty()).then(|| package_name(set))
}

/// Renders the package `name` holding the tools of `sets`, in order; gives
/// each function, as toolc's reader reads it back from the module (in the
/// order of config.json's tools).
pub(super) fn render(
    name: String,
    sets: Vec<&ToolSet>,
    options: &Options,
    out: &mut Tree,
) -> Result<Vec<Option<FunctionSchema>>, EmitError> {
    generate_package(&Package { name, sets }, options, out)
}

/// The AgentStack package name, else the only tool's name, else the
/// manifest's directory, else the first tool's name; snake_case.
fn package_name(set: &ToolSet) -> String {
    let agentstack_name = set
        .package
        .as_ref()
        .filter(|_| set.format == Format::Agentstack)
        .and_then(|p| p.name.clone())
        .filter(|n| !n.is_empty());
    let directory = || {
        Path::new(&set.path)
            .parent()
            .and_then(Path::file_name)
            .map(|d| d.to_string_lossy().into_owned())
            .filter(|d| !d.is_empty() && d != "." && d != "..")
    };
    let first_tool = || set.tools.first().map(|t| t.name.clone());
    let name = match agentstack_name {
        Some(name) => Some(name),
        None if set.tools.len() == 1 => first_tool(),
        None => directory().or_else(first_tool),
    };
    names::identifier(&name.unwrap_or_default(), Kind::Package)
}

fn generate_package(
    package: &Package,
    options: &Options,
    out: &mut Tree,
) -> Result<Vec<Option<FunctionSchema>>, EmitError> {
    let names: Vec<&str> = package
        .sets
        .iter()
        .flat_map(|set| set.tools.iter().map(|tool| tool.name.as_str()))
        .collect();
    let mut reserved = MODULE_NAMES.to_vec();
    reserved.extend(HINT_BUILTINS);
    let function_names =
        Namer::with_reserved(&reserved).assign(&names, Kind::Tool, Keep::Identifiers);
    let mut taken: Vec<&str> = function_names.iter().map(String::as_str).collect();
    taken.extend(MODULE_NAMES);
    let mut module_hints = Hints::new(&taken);
    let name_refs: Vec<&str> = function_names.iter().map(String::as_str).collect();
    // Module names are snake_case (N999), apart within the package.
    let mut modules = Namer::default()
        .assign(&name_refs, Kind::Tool, Keep::SnakeCase)
        .into_iter();
    let mut function_names = function_names.into_iter();
    let mut functions = Vec::new();
    // Each tool's config entry, by its function's name.
    let mut entries: Vec<(String, Map<String, Value>, &Tool)> = Vec::new();
    for set in &package.sets {
        let mut defaulted = Vec::new();
        let mut defaulted_at = None;
        for tool in &set.tools {
            let name = function_names.next().unwrap_or_default();
            if name != tool.name {
                out.note(
                    set,
                    tool.name_at.clone(),
                    Severity::Info,
                    format!("AgentStack calls a tool by its function's name: tool \"{}\" is function \"{name}\" (config.json keeps its name in \"x-toolc\": reading the package back, toolc run and toolc serve call it \"{}\")", tool.name, tool.name),
                );
            }
            let module = modules.next().unwrap_or_default();
            let function = function(out, set, tool, name.clone(), module, &mut module_hints);
            let (mut entry, declared) = tool_permissions(tool);
            carry::record_parameter_names(&mut entry, &function.renamed);
            if name != tool.name {
                super::record_in_x_toolc(&mut entry, "name", json!(tool.name));
                super::record_in_x_toolc(&mut entry, "name_as", json!(name));
            }
            functions.push(function);
            if !declared {
                defaulted.push(format!("\"{name}\""));
                defaulted_at.get_or_insert_with(|| super::tool_pointer(tool));
            }
            entries.push((name, entry, tool));
        }
        if !defaulted.is_empty() {
            out.note(
                set,
                defaulted_at.unwrap_or_default(),
                Severity::Warning,
                format!(
                    "the manifest declares no permissions for {}: config.json grants the actions {}; review them",
                    defaulted.join(", "),
                    json!(DEFAULT_ACTIONS)
                ),
            );
        }
    }
    let description = agentstack_package(package)
        .and_then(|p| p.description.clone())
        .unwrap_or_else(|| format!("AgentStack tools: {}.", package.name));
    let context = ModuleContext {
        package: PackageDoc {
            name: package.name.clone(),
            description_doc: doc(&description),
            sources_doc: package.sets.iter().map(|s| doc(&s.path)).collect(),
        },
        typing_imports: module_hints.imports.line(),
        classes: module_hints.dataclasses,
        functions,
    };
    let directory = &package.name;
    let module = out.render(
        options,
        "agentstack/__init__.py.j2",
        format!("{directory}/{MODULE_FILE}"),
        &context,
    )?;
    let read_back = read_back(module, entries.iter().map(|(name, ..)| name));
    let mut permissions = Map::new();
    for ((name, mut entry, tool), read) in entries.into_iter().zip(&read_back) {
        // What the docstring cannot hold, config.json keeps.
        let description = read.as_ref().and_then(|f| f.description.as_ref());
        if description != tool.description.as_ref() {
            super::record_in_x_toolc(&mut entry, "description", json!(tool.description));
        }
        permissions.insert(name, Value::Object(entry));
    }
    let mut config = config(package, permissions);
    carry::mark_generated(&mut config, &super::signed_writer());
    out.render(
        options,
        "agentstack/config.json.j2",
        format!("{directory}/{FILE_NAME}"),
        ConfigContext {
            config_json: json_text(&config)?,
        },
    )?;
    out.render(
        options,
        "agentstack/impl__init__.py.j2",
        format!("{directory}/impl/__init__.py"),
        NoContext {},
    )?;
    for f in &context.functions {
        let (typing_imports, classes) = implementation_imports(f, &context.classes);
        out.render(
            options,
            "agentstack/implementation.py.j2",
            format!("{directory}/impl/{}.py", f.module),
            ImplementationContext {
                package: &context.package,
                f,
                typing_imports,
                classes_fit: format!("    from .. import {}", classes.join(", ")).len()
                    <= super::layout::LINE_LENGTH,
                classes,
            },
        )?;
    }
    Ok(read_back)
}

/// Each of `functions` as toolc's reader reads it from the module text
/// `module` (none where it finds no function): its description is what
/// the docstring gives back.
fn read_back<'a>(
    module: &str,
    functions: impl Iterator<Item = &'a String>,
) -> Vec<Option<FunctionSchema>> {
    let parsed = crate::python::parse(module).ok();
    functions
        .map(|name| crate::formats::agentstack_python::function_schema(parsed.as_ref()?, name))
        .collect()
}

/// The first AgentStack package data among the package's manifests.
fn agentstack_package<'a>(package: &Package<'a>) -> Option<&'a crate::ir::Package> {
    package
        .sets
        .iter()
        .filter(|s| s.format == Format::Agentstack)
        .find_map(|s| s.package.as_ref())
}

/// The config: name, category, the package data AgentStack knows (from an
/// AgentStack manifest), environment variables and dependencies when any
/// manifest names them, and the tools' permissions.
fn config(package: &Package, tools: Map<String, Value>) -> Value {
    let source = agentstack_package(package);
    let mut config = Map::new();
    config.insert("name".into(), json!(package.name));
    let category = source
        .and_then(|p| p.category.clone())
        .unwrap_or_else(|| "custom".to_string());
    config.insert("category".into(), json!(category));
    // What no manifest said is made up: recorded as such, so that
    // converting the package does not take it for the user's.
    let mut made_up = Map::new();
    if source.and_then(|p| p.name.as_ref()) != Some(&package.name) {
        made_up.insert("/name".into(), json!(package.name));
    }
    if source.and_then(|p| p.category.as_ref()).is_none() {
        made_up.insert("/category".into(), json!(category));
    }
    for (key, value) in [
        ("description", source.and_then(|p| p.description.clone())),
        ("url", source.and_then(|p| p.url.clone())),
        ("cta", source.and_then(|p| p.cta.clone())),
    ] {
        if let Some(value) = value {
            config.insert(key.into(), json!(value));
        }
    }
    let env = environment(package);
    if !env.is_empty() {
        config.insert("env".into(), Value::Object(env));
    }
    let mut dependencies: Vec<String> = Vec::new();
    for set in &package.sets {
        for dependency in set.package.iter().flat_map(|p| &p.dependencies) {
            if !dependencies.contains(dependency) {
                dependencies.push(dependency.clone());
            }
        }
    }
    if !dependencies.is_empty() {
        config.insert("dependencies".into(), json!(dependencies));
    }
    for (key, value) in [
        ("post_install", source.and_then(|p| p.post_install.clone())),
        ("post_remove", source.and_then(|p| p.post_remove.clone())),
    ] {
        if let Some(value) = value {
            config.insert(key.into(), json!(value));
        }
    }
    config.insert("tools".into(), Value::Object(tools));
    if !made_up.is_empty() {
        super::record_in_x_toolc(&mut config, carry::ASSUMED, Value::Object(made_up));
    }
    Value::Object(config)
}

/// Environment variables: AgentStack's own (with their defaults), the ones
/// agentcli passes through and Nachos secrets (without defaults).
fn environment(package: &Package) -> Map<String, Value> {
    let mut env = Map::new();
    for set in &package.sets {
        if let Some(p) = &set.package {
            for var in &p.env {
                env.entry(var.name.clone())
                    .or_insert_with(|| var.default.clone());
            }
            for secret in &p.secrets {
                env.entry(secret.clone()).or_insert(Value::Null);
            }
        }
        for tool in &set.tools {
            if let Runtime::Command {
                env_passthrough, ..
            } = &tool.runtime
            {
                for name in env_passthrough {
                    env.entry(name.clone()).or_insert(Value::Null);
                }
            }
        }
    }
    env
}

/// A tool's permissions entry, and whether the manifest declared actions.
fn tool_permissions(tool: &Tool) -> (Map<String, Value>, bool) {
    let declared = tool
        .permissions
        .actions
        .as_ref()
        .filter(|a| !a.is_empty() && !tool.permissions.actions_assumed);
    let actions = match declared {
        Some(actions) => json!(actions),
        None => json!(DEFAULT_ACTIONS),
    };
    let mut entry = Map::new();
    entry.insert("actions".into(), actions.clone());
    if let Some(dirs) = &tool.permissions.allowed_dirs {
        entry.insert("allowed_dirs".into(), json!(dirs));
    }
    if let Some(allow) = tool.permissions.allow_http {
        entry.insert("allow_http".into(), json!(allow));
    }
    for (key, value) in &tool.permissions.extra {
        entry.insert(key.clone(), value.clone());
    }
    // Made up, they are recorded as such (see `carry::ASSUMED`).
    if declared.is_none() {
        let mut made_up = Map::new();
        made_up.insert("/actions".into(), actions);
        super::record_in_x_toolc(&mut entry, carry::ASSUMED, Value::Object(made_up));
    }
    (entry, declared.is_some())
}

/// One tool's function: identifiers, hints and defaults for its parameters.
/// Constraints a type hint cannot carry: the generated function accepts
/// what they forbid, so each one dropped is a warning.
const LOST_IN_SIGNATURE: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "additionalProperties",
    "propertyNames",
];

fn function(
    out: &mut Tree,
    set: &ToolSet,
    tool: &Tool,
    name: String,
    module: String,
    module_hints: &mut Hints,
) -> Function {
    let (properties, root) = super::parameters(tool);
    super::note_root_constraints(out, set, tool, &root);
    // A tool without a description gets a docstring of sections only;
    // the skeleton's docstring says something.
    let (description, fallback) = super::description_or_fallback(tool);
    let keys: Vec<&str> = properties.iter().map(|p| p.key.as_str()).collect();
    let python_names =
        Namer::with_reserved(PARAMETER_RESERVED).assign(&keys, Kind::Parameter, Keep::Identifiers);
    let mut ordered: Vec<(&Parameter, &String)> = properties
        .iter()
        .zip(&python_names)
        .filter(|(p, _)| p.required)
        .collect();
    ordered.extend(
        properties
            .iter()
            .zip(&python_names)
            .filter(|(p, _)| !p.required),
    );
    let mut parameters = Vec::new();
    let mut required = Vec::new();
    let mut renamed = Vec::new();
    let mut renamed_names = Vec::new();
    for (p, python_name) in ordered {
        let python_name = python_name.clone();
        // The docstring says nothing of a rename: config.json records it
        // (`parameter_names`), and a sentence here would be read back
        // into the parameter's description, which then differs from the
        // manifest's.
        if python_name != p.key {
            renamed.push(format!("\"{}\" is \"{python_name}\"", p.key));
            renamed_names.push((python_name.clone(), p.key.clone()));
        }
        if p.required && !p.nullable() {
            required.push(python_name.clone());
        }
        let lost: Vec<&str> = LOST_IN_SIGNATURE
            .iter()
            .copied()
            .filter(|k| p.schema.get(*k).is_some())
            .collect();
        if !lost.is_empty() {
            let pointer = crate::json::join(
                &crate::json::join(&super::parameters_pointer(tool), "properties"),
                &p.key,
            );
            out.note(
                set,
                pointer,
                Severity::Warning,
                format!(
                    "a Python signature cannot say {}: the function body must check it",
                    lost.join(", ")
                ),
            );
        }
        let at = At::parameter(&name, &p.key, &p.pointer);
        let (parameter, details) = signature_parameter(p, python_name, module_hints, &at);
        for (pointer, field) in module_hints.take_fields() {
            let lost: Vec<&str> = LOST_IN_SIGNATURE
                .iter()
                .copied()
                .filter(|k| field.contains_key(*k))
                .collect();
            if !lost.is_empty() {
                out.note(
                    set,
                    pointer,
                    Severity::Warning,
                    format!(
                        "a dataclass field cannot say {}: the function body must check it",
                        lost.join(", ")
                    ),
                );
            }
        }
        for (pointer, not_fields) in module_hints.take_kept() {
            out.note(
                set,
                pointer,
                Severity::Info,
                format!(
                    "an object whose property names are not all Python field names ({}) stays dict[str, Any]",
                    not_fields.join(", ")
                ),
            );
        }
        parameters.push(FunctionParameter {
            description_doc: doc(&parameter_text(p, details, None)),
            ..parameter
        });
    }
    if !renamed.is_empty() {
        out.note(
            set,
            super::parameters_pointer(tool),
            Severity::Info,
            format!(
                "tool \"{}\": parameter names must be Python identifiers: {}",
                tool.name,
                renamed.join(", ")
            ),
        );
    }
    let names = |required: bool| -> Expr {
        let names = parameters
            .iter()
            .filter(|p| p.default.is_none() == required)
            .map(|p| Expr::Str(p.name.clone()));
        Expr::list(names.collect())
    };
    let bind = Expr::Seq {
        head: "_bind".to_string(),
        open: '(',
        close: ')',
        items: vec![
            Expr::Str(module.clone()),
            Expr::Str(name.clone()),
            Expr::pair("required", "=", names(true)),
            Expr::pair("optional", "=", names(false)),
        ],
        trailing_comma: true,
    };
    let call = Expr::Seq {
        head: format!("_impl_{name}"),
        open: '(',
        close: ')',
        items: parameters
            .iter()
            .map(|p| Expr::pair(&p.name, "=", Expr::atom(&p.name)))
            .collect(),
        trailing_comma: true,
    };
    Function {
        module,
        bind_literal: bind.layout(0, format!("_impl_{name} = ").len(), 0),
        call_literal: call.layout(4, "    return ".len(), 0),
        name,
        description_doc: (!fallback).then(|| super::doc_exact(&description, 4)),
        skeleton_doc: doc(&description),
        parameters,
        required,
        renamed: renamed_names,
    }
}

/// `name: hint = default` of the signature, laid out for the template's
/// one-parameter-per-line form (the description still empty), and what the
/// docstring must add (what the signature does not show).
fn signature_parameter(
    p: &Parameter,
    name: String,
    module_hints: &mut Hints,
    at: &At,
) -> (FunctionParameter, Details) {
    let hint = hints::hint(&p.schema, module_hints, at);
    let schema_default = p
        .schema
        .get("default")
        .and_then(|d| hints::default_literal(d, &hint));
    let default_in_signature = !p.required && schema_default.is_some();
    let (hint, default) = match (p.required, schema_default) {
        (true, _) => (hint, None),
        (false, Some(default)) => (hint, Some(default)),
        (false, None) => (hints::optional(hint), Some(Expr::atom("None"))),
    };
    let column = 4 + name.len() + 2;
    let suffix = default.as_ref().map_or(0, |d| 3 + d.flat().chars().count()) + 1;
    let hint_text = hint.layout(4, column, suffix);
    let default = default.map(|d| {
        let last_line = hint_text.rsplit('\n').next().unwrap_or_default();
        let end = if hint_text.contains('\n') {
            4 + last_line.chars().count()
        } else {
            column + hint_text.chars().count()
        };
        d.layout(4, end + 3, 1)
    });
    let details = Details {
        default: !default_in_signature,
        choices: !hint_text.contains("Literal["),
    };
    let parameter = FunctionParameter {
        name,
        hint: hint_text,
        default,
        description_doc: String::new(),
    };
    (parameter, details)
}
