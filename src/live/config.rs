//! MCP client configurations as input: the files that tell an agent which
//! MCP servers to start or connect to, read into the [`Server`]s the rest
//! of `live` lists, each named by its key in the file.
//!
//! Two shapes are read. VS Code's `.vscode/mcp.json` has a `servers` map;
//! Cursor's `.cursor/mcp.json`, Claude Code's `.mcp.json`, Claude
//! Desktop's `claude_desktop_config.json` and the clients that copied them
//! have an `mcpServers` map. An entry is a command (`command`, `args`,
//! `env`; `type` "stdio" or none) or a URL (`url`, `headers`; `type`
//! "http", or none). `"disabled": true` leaves an entry out. A `type`
//! "sse" (the HTTP+SSE transport that Streamable HTTP replaced) is not
//! spoken: toolc's client speaks Streamable HTTP only.
//!
//! Variables are resolved in `command`, `args`, `env`, `url` and
//! `headers` as the clients resolve them: `${workspaceFolder}` (the folder
//! holding `.vscode/` or `.cursor/`, else the file's own folder),
//! `${workspaceFolderBasename}`, `${userHome}`, `${pathSeparator}` and
//! `${/}`, `${env:NAME}`, and Claude Code's `${NAME}` and
//! `${NAME:-default}`. `${input:ID}` is a value VS Code asks its user for:
//! toolc asks nobody, so the server that needs one is not scanned, and says
//! why. A command runs in the workspace folder (or in its `cwd`, resolved
//! there), as an editor runs it: a relative `args` path means what it
//! means to the client.
//!
//! What a file gets wrong as a whole (it is not JSON, it has no server
//! map) is a [`ConfigError`]; what one entry gets wrong is an
//! [`EntryError`] of that entry alone, so the others are still scanned.
//! The values of `env` and `headers` are [`Secret`]s: no message shows
//! them, and errors met while listing a server are scrubbed of them.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::Server;

/// A value of a configuration's `env` or `headers`: an API key, a token.
/// It is given to the server and never shown (`Debug` prints `***`).
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Secret(String);

impl Secret {
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// A server of a configuration file: where it is, and which entry of
/// which file says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) origin: Origin,
    pub(crate) launch: Launch,
}

impl Entry {
    /// What of the entry's text may not be shown.
    pub(crate) fn scrubber(&self) -> Scrubber {
        let (url, secrets): (Option<&String>, Vec<&Secret>) = match &self.launch {
            Launch::Command { env, .. } => {
                (None, env.iter().filter_map(|(_, v)| v.as_ref()).collect())
            }
            Launch::Http { url, headers } => (Some(url), headers.iter().map(|(_, v)| v).collect()),
        };
        Scrubber {
            url: url.cloned(),
            // A value too short to be a secret ("1", "on") would blot out
            // the message's own words.
            secrets: secrets
                .into_iter()
                .filter(|s| s.0.chars().count() >= MIN_SECRET)
                .map(|s| s.0.clone())
                .collect(),
        }
    }
}

/// The secrets of an entry (its `env` and `headers` values, and the
/// credentials of its URL), to take out of what is shown: the messages of
/// a failed listing, and what its server writes on standard error. No
/// `Debug`: it holds them in the clear.
#[derive(Clone)]
pub(crate) struct Scrubber {
    url: Option<String>,
    secrets: Vec<String>,
}

impl Scrubber {
    /// `text` with every secret replaced by `***`.
    pub(crate) fn scrub(&self, text: &str) -> String {
        let mut text = match &self.url {
            Some(url) => super::url::scrub(url, text),
            None => text.to_string(),
        };
        for secret in &self.secrets {
            text = text.replace(secret.as_str(), "***");
        }
        text
    }
}

/// The shortest `env` or `headers` value scrubbed from messages, in
/// characters.
const MIN_SECRET: usize = 4;

/// Which entry of which configuration file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Origin {
    /// Its key in the server map.
    pub(crate) name: String,
    /// The configuration file, as named on the command line.
    pub(crate) file: String,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{}\" in {}", super::printable(&self.name), self.file)
    }
}

/// How a configured server is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Launch {
    /// A program toolc starts, with these arguments, in this folder, and
    /// these variables added to its environment (`None`: removed from
    /// it).
    Command {
        program: String,
        args: Vec<String>,
        dir: PathBuf,
        env: Vec<(String, Option<Secret>)>,
    },
    /// A Streamable HTTP endpoint, sent these headers.
    Http {
        url: String,
        headers: Vec<(String, Secret)>,
    },
}

/// What one configuration file names.
#[derive(Debug)]
pub(crate) struct McpConfig {
    /// The servers to scan, in the file's order, each a server or why it
    /// cannot be one.
    pub(crate) servers: Vec<Result<Server, EntryError>>,
    /// The keys of the entries marked `"disabled": true`, in order.
    pub(crate) disabled: Vec<String>,
}

/// Why a configuration file cannot be read at all.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ConfigError {
    #[error("cannot read the MCP configuration {file}")]
    Read {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the MCP configuration {file} is over the limit of {limit} bytes")]
    TooLarge { file: String, limit: u64 },
    #[error("the MCP configuration {file} is not JSON: {message} at line {line}, column {column}")]
    NotJson {
        file: String,
        message: String,
        line: usize,
        column: usize,
    },
    #[error(
        "the MCP configuration {file} has no server map: a JSON object with \"servers\" (VS Code) \
         or \"mcpServers\" (Cursor, Claude Code, Claude Desktop) is expected"
    )]
    NoServers { file: String },
    #[error("the MCP configuration {file}: \"{key}\" is not an object of servers by name")]
    NotAMap { file: String, key: &'static str },
}

/// Why one entry of a configuration is not scanned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum EntryError {
    #[error("the MCP server {0} is not a JSON object")]
    NotAnObject(Origin),
    #[error("the MCP server {0} has neither \"command\" nor \"url\": toolc cannot reach it")]
    Unreachable(Origin),
    #[error("the MCP server {origin}: \"{member}\" is not {expected}")]
    Member {
        origin: Origin,
        member: &'static str,
        expected: &'static str,
    },
    #[error(
        "the MCP server {0} has type \"sse\", the HTTP+SSE transport Streamable HTTP replaced, \
         which toolc does not speak: if the server also serves Streamable HTTP, give that URL \
         with type \"http\""
    )]
    Sse(Origin),
    #[error("the MCP server {origin} has the type \"{kind}\": toolc reads \"stdio\" and \"http\"")]
    UnknownType { origin: Origin, kind: String },
    #[error(
        "the MCP server {origin} uses ${{input:{id}}}, a value VS Code asks its user for: toolc \
         asks nobody, so the server was not scanned (give the value through the environment, \
         as ${{env:NAME}}, to scan it)"
    )]
    Input { origin: Origin, id: String },
    #[error(
        "the MCP server {origin} uses ${{{variable}}}, and the environment variable {name} is not set"
    )]
    Unset {
        origin: Origin,
        variable: String,
        name: String,
    },
    #[error("the MCP server {origin} uses ${{{variable}}}, a variable toolc cannot resolve")]
    Unknown { origin: Origin, variable: String },
}

/// The server maps read, in this order: VS Code's, then everyone else's.
const MAPS: [&str; 2] = ["servers", "mcpServers"];

/// Reads the configuration at `path` (at most `limit` bytes).
pub(crate) fn read(path: &Path, limit: u64) -> Result<McpConfig, ConfigError> {
    let file = path.display().to_string();
    let read_error = |source| ConfigError::Read {
        file: file.clone(),
        source,
    };
    let opened = std::fs::File::open(path).map_err(read_error)?;
    let mut bytes = Vec::new();
    opened
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(read_error)?;
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > limit {
        return Err(ConfigError::TooLarge { file, limit });
    }
    let workspace = workspace_of(path);
    let context = Context {
        workspace: &workspace,
        env: &|name: &str| std::env::var(name).ok(),
    };
    parse(&file, &bytes, &context)
}

/// The folder `${workspaceFolder}` names for the configuration at `path`:
/// the one holding `.vscode/` or `.cursor/` for a file in either, else the
/// file's own folder.
fn workspace_of(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let folder = absolute.parent().map(Path::to_path_buf).unwrap_or_default();
    let in_client_folder = folder
        .file_name()
        .is_some_and(|name| name == ".vscode" || name == ".cursor");
    match folder.parent() {
        Some(workspace) if in_client_folder => workspace.to_path_buf(),
        _ => folder,
    }
}

/// What variables resolve against.
struct Context<'a> {
    workspace: &'a Path,
    env: &'a dyn Fn(&str) -> Option<String>,
}

/// The configuration `file` holds as `bytes`.
fn parse(file: &str, bytes: &[u8], context: &Context<'_>) -> Result<McpConfig, ConfigError> {
    // An editor on Windows may save the file with a byte order mark.
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let value: Value = serde_json::from_slice(bytes).map_err(|error| ConfigError::NotJson {
        file: file.to_string(),
        message: json_message(&error),
        line: error.line(),
        column: error.column(),
    })?;
    let no_servers = || ConfigError::NoServers {
        file: file.to_string(),
    };
    let Value::Object(top) = value else {
        return Err(no_servers());
    };
    let mut config = McpConfig {
        servers: Vec::new(),
        disabled: Vec::new(),
    };
    let mut found = false;
    for key in MAPS {
        let Some(map) = top.get(key) else { continue };
        let Value::Object(map) = map else {
            return Err(ConfigError::NotAMap {
                file: file.to_string(),
                key,
            });
        };
        found = true;
        for (name, entry) in map {
            let origin = Origin {
                name: name.clone(),
                file: file.to_string(),
            };
            if entry.get("disabled") == Some(&Value::Bool(true)) {
                config.disabled.push(name.clone());
                continue;
            }
            config.servers.push(server_of(origin, entry, context));
        }
    }
    if !found {
        return Err(no_servers());
    }
    Ok(config)
}

/// serde_json's message without its own " at line L column C", which the
/// error says in its words.
fn json_message(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    text.strip_suffix(&suffix).unwrap_or(&text).to_string()
}

/// The server one entry names.
fn server_of(origin: Origin, entry: &Value, context: &Context<'_>) -> Result<Server, EntryError> {
    let Value::Object(entry) = entry else {
        return Err(EntryError::NotAnObject(origin));
    };
    let resolve = |text: &str| expand(text, context).map_err(|v| v.error(&origin));
    let url = match entry.get("url").or_else(|| entry.get("serverUrl")) {
        None => None,
        Some(Value::String(url)) => Some(url.as_str()),
        Some(_) => return Err(member(&origin, "url", "a string")),
    };
    let kind = match entry.get("type") {
        None => None,
        Some(Value::String(kind)) => Some(kind.as_str()),
        Some(_) => return Err(member(&origin, "type", "a string")),
    };
    let http = match (kind, url) {
        (Some("stdio"), _) => false,
        (Some("http" | "streamable-http" | "streamableHttp"), _) => true,
        (Some("sse"), _) => return Err(EntryError::Sse(origin.clone())),
        (Some(kind), _) => {
            return Err(EntryError::UnknownType {
                origin: origin.clone(),
                kind: kind.to_string(),
            });
        }
        (None, Some(_)) if !entry.contains_key("command") => true,
        (None, _) => false,
    };
    let launch = if http {
        let Some(url) = url else {
            return Err(member(&origin, "url", "given (type \"http\" needs one)"));
        };
        Launch::Http {
            url: resolve(url)?,
            headers: strings(&origin, entry, "headers")?
                .into_iter()
                .map(|(name, value)| {
                    let value =
                        value.ok_or_else(|| member(&origin, "headers", "strings by name"))?;
                    Ok((name, Secret(resolve(&value)?)))
                })
                .collect::<Result<_, EntryError>>()?,
        }
    } else {
        let program = match entry.get("command") {
            Some(Value::String(command)) if !command.trim().is_empty() => resolve(command)?,
            Some(_) => return Err(member(&origin, "command", "a program's name or path")),
            None => return Err(EntryError::Unreachable(origin.clone())),
        };
        let args = match entry.get("args") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(args)) => args
                .iter()
                .map(|arg| match arg {
                    Value::String(arg) => resolve(arg),
                    _ => Err(member(&origin, "args", "a list of strings")),
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(member(&origin, "args", "a list of strings")),
        };
        let env = strings(&origin, entry, "env")?
            .into_iter()
            .map(|(name, value)| {
                let value = value.map(|v| resolve(&v)).transpose()?;
                Ok((name, value.map(Secret)))
            })
            .collect::<Result<_, EntryError>>()?;
        let dir = match entry.get("cwd") {
            None | Some(Value::Null) => context.workspace.to_path_buf(),
            Some(Value::String(dir)) => context.workspace.join(resolve(dir)?),
            Some(_) => return Err(member(&origin, "cwd", "a folder's path")),
        };
        Launch::Command {
            program,
            args,
            dir,
            env,
        }
    };
    Ok(Server::Configured(Box::new(Entry { origin, launch })))
}

fn member(origin: &Origin, member: &'static str, expected: &'static str) -> EntryError {
    EntryError::Member {
        origin: origin.clone(),
        member,
        expected,
    }
}

/// The members of the object `key` of `entry` (none when absent): strings
/// as they are, numbers and booleans as JSON writes them, `null` as
/// `None`.
fn strings(
    origin: &Origin,
    entry: &Map<String, Value>,
    key: &'static str,
) -> Result<Vec<(String, Option<String>)>, EntryError> {
    let wrong = || member(origin, key, "an object of strings by name");
    let object = match entry.get(key) {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Object(object)) => object,
        Some(_) => return Err(wrong()),
    };
    object
        .iter()
        .map(|(name, value)| match value {
            Value::String(text) => Ok((name.clone(), Some(text.clone()))),
            Value::Number(_) | Value::Bool(_) => Ok((name.clone(), Some(value.to_string()))),
            Value::Null => Ok((name.clone(), None)),
            _ => Err(wrong()),
        })
        .collect()
}

/// A variable that does not resolve.
#[derive(Debug, PartialEq, Eq)]
enum Unresolved {
    /// `${input:ID}`.
    Input(String),
    /// `${env:NAME}` or `${NAME}` of a variable not set (the variable as
    /// written, and the name).
    Unset(String, String),
    /// A variable toolc does not know (`${command:...}`).
    Unknown(String),
}

impl Unresolved {
    fn error(self, origin: &Origin) -> EntryError {
        let origin = origin.clone();
        match self {
            Unresolved::Input(id) => EntryError::Input { origin, id },
            Unresolved::Unset(variable, name) => EntryError::Unset {
                origin,
                variable,
                name,
            },
            Unresolved::Unknown(variable) => EntryError::Unknown { origin, variable },
        }
    }
}

/// `text` with its `${...}` variables resolved. A `$` not followed by a
/// closed `${...}` stays as it is.
fn expand(text: &str, context: &Context<'_>) -> Result<String, Unresolved> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        out.push_str(&resolve(&after[..end], context)?);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The value of the variable `${variable}`.
fn resolve(variable: &str, context: &Context<'_>) -> Result<String, Unresolved> {
    let env = |name: &str| {
        (context.env)(name).ok_or_else(|| Unresolved::Unset(variable.to_string(), name.to_string()))
    };
    match variable {
        "workspaceFolder" => return Ok(context.workspace.display().to_string()),
        "workspaceFolderBasename" => {
            return Ok(context
                .workspace
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default());
        }
        "userHome" => return env("HOME"),
        "pathSeparator" | "/" => return Ok(std::path::MAIN_SEPARATOR.to_string()),
        _ => {}
    }
    if let Some(id) = variable.strip_prefix("input:") {
        return Err(Unresolved::Input(id.to_string()));
    }
    if let Some(name) = variable.strip_prefix("env:") {
        return env(name);
    }
    // Claude Code's `${NAME}` and `${NAME:-default}`.
    let (name, default) = match variable.split_once(":-") {
        Some((name, default)) => (name, Some(default)),
        None => (variable, None),
    };
    if !is_variable_name(name) {
        return Err(Unresolved::Unknown(variable.to_string()));
    }
    match ((context.env)(name), default) {
        (Some(value), Some(default)) if value.is_empty() => Ok(default.to_string()),
        (Some(value), _) => Ok(value),
        (None, Some(default)) => Ok(default.to_string()),
        (None, None) => Err(Unresolved::Unset(variable.to_string(), name.to_string())),
    }
}

/// Whether `name` is an environment variable's name as a shell writes it.
fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    #![allow(clippy::panic)]

    use super::*;

    fn context_env(name: &str) -> Option<String> {
        match name {
            "TOKEN" => Some("tok-123456".to_string()),
            "EMPTY" => Some(String::new()),
            "HOME" => Some("/home/ada".to_string()),
            _ => None,
        }
    }

    fn parsed(text: &str) -> Result<McpConfig, ConfigError> {
        let context = Context {
            workspace: Path::new("/work/project"),
            env: &context_env,
        };
        parse("mcp.json", text.as_bytes(), &context)
    }

    fn entry(server: &Result<Server, EntryError>) -> &Entry {
        match server {
            Ok(Server::Configured(entry)) => entry,
            other => panic!("not a configured server: {other:?}"),
        }
    }

    #[test]
    fn both_shapes_are_read_in_order() {
        let vscode = parsed(
            r#"{"servers": {"time": {"type": "stdio", "command": "uvx", "args": ["mcp-server-time"],
                "env": {"TZ": "UTC", "N": 3, "GONE": null}},
              "web": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"X-Key": "${env:TOKEN}"}}},
              "inputs": []}"#,
        )
        .unwrap();
        assert_eq!(vscode.servers.len(), 2);
        let time = entry(&vscode.servers[0]);
        assert_eq!(time.origin.name, "time");
        assert_eq!(
            time.launch,
            Launch::Command {
                program: "uvx".to_string(),
                args: vec!["mcp-server-time".to_string()],
                dir: PathBuf::from("/work/project"),
                env: vec![
                    ("TZ".to_string(), Some(Secret("UTC".to_string()))),
                    ("N".to_string(), Some(Secret("3".to_string()))),
                    ("GONE".to_string(), None),
                ],
            }
        );
        let web = entry(&vscode.servers[1]);
        assert_eq!(
            web.launch,
            Launch::Http {
                url: "http://127.0.0.1:9/mcp".to_string(),
                headers: vec![("X-Key".to_string(), Secret("tok-123456".to_string()))],
            }
        );
        let desktop = parsed(
            r#"{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "${workspaceFolder}/x"], "cwd": "tools"},
                "remote": {"url": "https://example.test/mcp"},
                "off": {"command": "x", "disabled": true}}}"#,
        )
        .unwrap();
        assert_eq!(desktop.disabled, ["off"]);
        let fs = entry(&desktop.servers[0]);
        let Launch::Command { args, dir, .. } = &fs.launch else {
            panic!("{fs:?}");
        };
        assert_eq!(args[1], "/work/project/x");
        assert_eq!(dir, Path::new("/work/project/tools"));
        assert!(matches!(
            entry(&desktop.servers[1]).launch,
            Launch::Http { .. }
        ));
    }

    #[test]
    fn a_bad_entry_is_its_own_error() {
        let config = parsed(
            r#"{"mcpServers": {"a": 3, "b": {}, "c": {"type": "sse", "url": "http://h/sse"},
                "d": {"command": "x", "env": {"K": "${input:api-key}"}},
                "e": {"command": "x", "args": ["${env:NOPE}"]},
                "f": {"command": "${command:pick}"}, "g": {"command": "x", "args": "a b"},
                "h": {"type": "websocket", "url": "ws://h"}, "ok": {"command": "x"}}}"#,
        )
        .unwrap();
        let errors: Vec<String> = config
            .servers
            .iter()
            .filter_map(|s| s.as_ref().err().map(ToString::to_string))
            .collect();
        assert_eq!(errors.len(), 8, "{errors:#?}");
        assert_eq!(
            errors[0],
            "the MCP server \"a\" in mcp.json is not a JSON object"
        );
        assert!(errors[1].contains("\"b\" in mcp.json has neither \"command\" nor \"url\""));
        assert!(errors[2].contains("type \"sse\""), "{}", errors[2]);
        assert!(
            errors[3].contains("uses ${input:api-key}, a value VS Code asks"),
            "{}",
            errors[3]
        );
        assert!(
            errors[4].ends_with("uses ${env:NOPE}, and the environment variable NOPE is not set")
        );
        assert!(errors[5].ends_with("uses ${command:pick}, a variable toolc cannot resolve"));
        assert!(
            errors[6].ends_with("\"args\" is not a list of strings"),
            "{}",
            errors[6]
        );
        assert!(
            errors[7].contains("the type \"websocket\""),
            "{}",
            errors[7]
        );
        assert!(config.servers[8].is_ok());
    }

    #[test]
    fn a_file_that_is_no_configuration_says_where() {
        let error = parsed("{\"servers\": {\n  \"a\": {,}\n}}").unwrap_err();
        assert_eq!(
            error.to_string(),
            "the MCP configuration mcp.json is not JSON: key must be a string \
             at line 2, column 9"
        );
        assert!(parsed("\u{feff}{\"servers\": {}}").is_ok());
        let error = parsed(r#"{"tools": []}"#).unwrap_err();
        assert!(error.to_string().contains("has no server map"), "{error}");
        let error = parsed(r#"[]"#).unwrap_err();
        assert!(matches!(error, ConfigError::NoServers { .. }));
        let error = parsed(r#"{"mcpServers": []}"#).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("\"mcpServers\" is not an object"),
            "{error}"
        );
    }

    #[test]
    fn variables_resolve_as_the_clients_resolve_them() {
        let context = Context {
            workspace: Path::new("/work/project"),
            env: &context_env,
        };
        let expanded = |text: &str| expand(text, &context);
        assert_eq!(
            expanded("${userHome}${/}.cache ${workspaceFolderBasename}").unwrap(),
            "/home/ada/.cache project"
        );
        assert_eq!(expanded("Bearer ${TOKEN}").unwrap(), "Bearer tok-123456");
        assert_eq!(
            expanded("${EMPTY:-fallback} ${NONE:-x}").unwrap(),
            "fallback x"
        );
        assert_eq!(
            expanded("cost $5 ${unclosed").unwrap(),
            "cost $5 ${unclosed"
        );
        assert_eq!(
            expanded("${NONE}"),
            Err(Unresolved::Unset("NONE".to_string(), "NONE".to_string()))
        );
        assert_eq!(
            expanded("${input:key}"),
            Err(Unresolved::Input("key".to_string()))
        );
    }

    #[test]
    fn the_workspace_holds_the_clients_folder() {
        assert_eq!(
            workspace_of(Path::new("/p/.vscode/mcp.json")),
            Path::new("/p")
        );
        assert_eq!(
            workspace_of(Path::new("/p/.cursor/mcp.json")),
            Path::new("/p")
        );
        assert_eq!(workspace_of(Path::new("/p/.mcp.json")), Path::new("/p"));
    }

    #[test]
    fn secrets_are_never_shown() {
        let config = parsed(
            r#"{"mcpServers": {"s": {"command": "x", "env": {"KEY": "sk-live-abcdef", "ON": "1"}},
                "h": {"url": "http://u:pw-secret@h/mcp?t=q-secret", "headers": {"Authorization": "Bearer hdr-secret"}}}}"#,
        )
        .unwrap();
        let s = entry(&config.servers[0]);
        assert!(!format!("{s:?}").contains("sk-live"));
        assert_eq!(
            s.scrubber().scrub("env KEY=sk-live-abcdef status 1"),
            "env KEY=*** status 1"
        );
        let h = entry(&config.servers[1]);
        assert_eq!(
            h.scrubber()
                .scrub("sent Bearer hdr-secret to http://u:pw-secret@h/mcp?t=q-secret"),
            "sent *** to http://***@h/mcp?***"
        );
    }
}
