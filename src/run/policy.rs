//! Policy: what may run, decided before anything runs.
//!
//! [`Policy::check`] applies, in this order, and stops at the first rule
//! that refuses (each refusal names its rule by a stable id):
//!
//! 1. `allowed-tools`: the user's `allowed-tools` globs, when given.
//! 2. `security-tier`: a Nachos tier 4 never runs; a tier outside 0..=4
//!    is refused.
//! 3. The default rules over the arguments, which a config may `disable`:
//!    `dangerous-command` (`rm -rf /` and its spellings, `dd of=/dev/sda`,
//!    `mkfs`, fork bombs, `chmod -R 777 /`, `> /dev/sda`, `shred`, `find / |
//!    xargs rm`, `kill -9 -1`, `shutdown`),
//!    `remote-script` (`curl … | sh`) and `sensitive-path` (`/etc/shadow`,
//!    `/etc/passwd`, `/etc/sudoers`, `.ssh` and `.gnupg` directories,
//!    `~/.aws/credentials`, `.env` files, private keys: `id_rsa`,
//!    `id_ed25519`, `*.pem`, `*.key`, `*.p12`, `*.pfx`, `*.ppk`). Commands
//!    are the default rules' main input, parsed with a shell grammar
//!    (`shell`, judged by `rules`): what cannot be known before a command
//!    runs (`$(…)` as a program name, `eval "$x"`, `… | sh`) is refused.
//!    A sensitive path is refused in a path argument or as a word of a
//!    command (globs and `/proc/<pid>/root` resolved), never in free text.
//! 4. `forbidden-pattern`: the user's regexes (`forbidden-patterns`) over
//!    every string argument.
//! 5. The tool's own permissions: `allow-http`, `allowed-dirs`,
//!    `allowed-extensions`, `undeclared-action`.
//! 6. `security-tier` again: a tier above `allow-tier` (only 3 can be)
//!    runs when the approver says yes; the approver is asked last so that
//!    nobody is asked about a call another rule refuses. A caller that
//!    asks someone itself passes the answer as the call's [`Approval`]
//!    ([`Policy::check_approving`]), having asked only about calls that
//!    every other rule lets through.
//!
//! Which arguments are paths and which are commands is guessed from their
//! keys and values (see `arguments`). `.env.example`, `.env.sample`,
//! `.env.template`, `.env.dist` and `.env.defaults` are templates without
//! secrets and are allowed, and so is `.envrc` (direnv's script, which is
//! usually committed). Paths are compared lexically; symbolic links are
//! the sandbox's concern.
//!
//! A user config file (TOML) adds rules, its keys in `toolc.toml`'s style
//! (kebab-case; the old snake_case spelling is still read, with a warning
//! naming the new key):
//!
//! ```toml
//! allowed-tools = ["echo", "get_*"]          # globs over tool names; absent = all
//! forbidden-patterns = ["(?i)drop\\s+table"] # regexes over every string argument
//! disable = ["remote-script"]                # default rules to turn off
//! allow-tier = 3                             # 0..=4, default 2
//! ```

mod arguments;
mod code;
mod commands;
mod paths;
mod programs;
mod rules;
mod shell;
mod targets;

#[cfg(target_os = "linux")]
pub(crate) use shell::bash;

/// `raw` (relative to `dir`, or with `~`/`$HOME`) as the absolute, normal
/// path the policy compares: the sandbox confines to the same directories.
#[cfg(target_os = "linux")]
pub(crate) fn resolve_path(raw: &str, dir: &Path, home: &Path) -> PathBuf {
    PathBuf::from(paths::resolve(raw, dir, home))
}
mod permissions;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

use globset::Glob;
use regex::Regex;
use serde::Deserialize;
use serde_json::Value;
use toml::Spanned;

use crate::ir::Tool;
use crate::project::config::ConfigText;
use crate::suggest::did_you_mean;
use arguments::{Argument, Arguments};

/// Why a call was refused: the rule that refused it and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    /// The rule that refused it; its [`DenialRule::id`] is what a result's
    /// `details.rule` says.
    pub rule: DenialRule,
    /// One sentence for the caller: what was refused and why.
    pub message: String,
}

/// A rule that can refuse a call, named by a stable id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum DenialRule {
    /// `allowed-tools`: the tool is not among the user's allowed tools.
    AllowedTools,
    /// `security-tier`: a Nachos tier that does not run (or needs approval).
    SecurityTier,
    /// `dangerous-command`: a destructive shell command.
    DangerousCommand,
    /// `remote-script`: a script downloaded and run.
    RemoteScript,
    /// `sensitive-path`: credentials and system account files.
    SensitivePath,
    /// `forbidden-pattern`: a user regex matched an argument.
    ForbiddenPattern,
    /// `allow-http`: a URL for a tool that declares no HTTP.
    AllowHttp,
    /// `allowed-dirs`: a path outside the tool's allowed directories.
    AllowedDirs,
    /// `allowed-extensions`: a file type the tool does not allow.
    AllowedExtensions,
    /// `undeclared-action`: the call needs an action the tool does not list.
    UndeclaredAction,
    /// `workspace`: a built-in tool's path outside its workspace.
    Workspace,
    /// `private-network`: `fetch` of a host with no public address.
    PrivateNetwork,
    /// `policy-internal`: a built-in pattern failed to compile (a bug; nothing
    /// runs).
    PolicyInternal,
}

impl DenialRule {
    /// The rule's stable id, as in a result's `details.rule`.
    pub fn id(self) -> &'static str {
        match self {
            DenialRule::AllowedTools => "allowed-tools",
            DenialRule::SecurityTier => "security-tier",
            DenialRule::DangerousCommand => "dangerous-command",
            DenialRule::RemoteScript => "remote-script",
            DenialRule::SensitivePath => "sensitive-path",
            DenialRule::ForbiddenPattern => "forbidden-pattern",
            DenialRule::AllowHttp => "allow-http",
            DenialRule::AllowedDirs => "allowed-dirs",
            DenialRule::AllowedExtensions => "allowed-extensions",
            DenialRule::UndeclaredAction => "undeclared-action",
            DenialRule::Workspace => "workspace",
            DenialRule::PrivateNetwork => "private-network",
            DenialRule::PolicyInternal => "policy-internal",
        }
    }
}

impl std::fmt::Display for DenialRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

impl From<DefaultRule> for DenialRule {
    fn from(rule: DefaultRule) -> DenialRule {
        match rule {
            DefaultRule::DangerousCommand => DenialRule::DangerousCommand,
            DefaultRule::RemoteScript => DenialRule::RemoteScript,
            DefaultRule::SensitivePath => DenialRule::SensitivePath,
        }
    }
}

/// One call, as the policy sees it.
pub struct Call<'a> {
    /// The tool being called.
    pub tool: &'a Tool,
    /// The call's arguments (normally an object).
    pub arguments: &'a Value,
    /// The manifest's directory: relative paths in arguments and in
    /// `allowed_dirs` resolve against it.
    pub dir: &'a Path,
}

/// Approves a tier-3 tool's call when `--allow-tier 3` was not given.
pub type Approver = dyn Fn(&Tool, &Value) -> bool + Send + Sync;

/// One call's answer to the approval a tier above `allow_tier` needs,
/// when its caller asked someone itself (`toolc serve` asks the MCP
/// client) instead of leaving it to the policy's [`Approver`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    /// Ask the policy's approver, if it has one (what [`Policy::check`] does).
    Configured,
    /// The caller asked and the call was approved.
    Granted,
    /// Not approved: the clause ends the refusal's sentence ("… above the
    /// allowed tier 2, and {clause}."), e.g. "the client declined it".
    Refused(String),
}

/// A default rule a config can turn off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum DefaultRule {
    /// `dangerous-command`: destructive shell commands.
    DangerousCommand,
    /// `remote-script`: a script downloaded and run (`curl … | sh`).
    RemoteScript,
    /// `sensitive-path`: credentials and system account files.
    SensitivePath,
}

impl DefaultRule {
    /// Every default rule.
    pub const ALL: [DefaultRule; 3] = [
        DefaultRule::DangerousCommand,
        DefaultRule::RemoteScript,
        DefaultRule::SensitivePath,
    ];

    /// The rule's id, as in [`Denial::rule`] and a config's `disable`.
    pub fn id(self) -> &'static str {
        DenialRule::from(self).id()
    }

    /// The rule with this id.
    pub fn from_id(id: &str) -> Option<DefaultRule> {
        DefaultRule::ALL.into_iter().find(|rule| rule.id() == id)
    }
}

/// The rules a runner applies before anything runs.
pub struct Policy {
    /// The highest security tier that runs without approval (default 2).
    pub allow_tier: i64,
    /// Asked about a call whose tier is above `allow_tier` (tier 3).
    pub approver: Option<Box<Approver>>,
    /// Globs over tool names; `None` allows every tool.
    pub allowed_tools: Option<Vec<Glob>>,
    /// Regexes no string argument may match.
    pub forbidden_patterns: Vec<Regex>,
    /// Default rules turned off.
    pub disabled: Vec<DefaultRule>,
    /// What `~` and `$HOME` mean in arguments and `allowed_dirs`
    /// (default: the `HOME` environment variable, else `/root`).
    pub home: PathBuf,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            allow_tier: 2,
            approver: None,
            allowed_tools: None,
            forbidden_patterns: Vec::new(),
            disabled: Vec::new(),
            home: std::env::var_os("HOME")
                .filter(|home| !home.is_empty())
                .map_or_else(|| PathBuf::from("/root"), PathBuf::from),
        }
    }
}

/// A policy config that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    /// The file could not be read.
    #[error("cannot read policy file {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Not TOML, an unknown key, or a value of the wrong type: where, and
    /// what (`PATH:LINE:COLUMN: message` and the line).
    #[error("{0}")]
    Toml(String),
    /// A `forbidden-patterns` entry is not a regex.
    #[error("forbidden-patterns[{index}] `{pattern}` is not a valid regex: {message}")]
    Pattern {
        /// Its index in the list.
        index: usize,
        /// The pattern as written.
        pattern: String,
        /// The regex error.
        message: String,
    },
    /// An `allowed-tools` entry is not a glob.
    #[error("allowed-tools[{index}] `{pattern}` is not a valid glob: {message}")]
    Glob {
        /// Its index in the list.
        index: usize,
        /// The glob as written.
        pattern: String,
        /// The glob error.
        message: String,
    },
    /// `disable` names a rule that is not a default rule.
    #[error("disable: `{id}` is not a default rule (the default rules are {known})")]
    UnknownRule {
        /// The id as written.
        id: String,
        /// The ids that exist.
        known: String,
    },
    /// `allow-tier` is outside 0..=4.
    #[error("allow-tier = {0} is outside the security tiers 0 to 4")]
    Tier(i64),
    /// A config file's error, with the file's name.
    #[error("{}: {error}", path.display())]
    InFile {
        /// The file.
        path: PathBuf,
        /// What is wrong in it.
        error: Box<PolicyError>,
    },
}

/// The TOML shape of a policy config: `toolc.toml`'s key style, and the
/// old spelling of each key as an alias (see [`KEYS`]).
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct PolicyConfig {
    #[serde(alias = "allowed_tools")]
    allowed_tools: Option<Vec<String>>,
    #[serde(default, alias = "forbidden_patterns")]
    forbidden_patterns: Vec<String>,
    #[serde(default)]
    disable: Vec<String>,
    #[serde(alias = "allow_tier")]
    allow_tier: Option<i64>,
}

/// The keys of a policy config; each one's old spelling is its snake_case.
const KEYS: [&str; 4] = [
    "allowed-tools",
    "forbidden-patterns",
    "disable",
    "allow-tier",
];

/// The label of a policy config read from text rather than a file.
const TEXT_LABEL: &str = "policy config";

impl Policy {
    /// The default policy plus the rules of a TOML config file.
    pub fn from_toml_file(path: &Path) -> Result<Policy, PolicyError> {
        Policy::read_toml_file(path).map(|(policy, _)| policy)
    }

    /// [`Policy::from_toml_file`], and the warnings the file deserves (a
    /// key in its old spelling), each with its place, for the user.
    pub fn read_toml_file(path: &Path) -> Result<(Policy, Vec<String>), PolicyError> {
        let text = std::fs::read_to_string(path).map_err(|source| PolicyError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Policy::parse(&text, path).map_err(|error| match error {
            // It says where already.
            PolicyError::Toml(_) => error,
            error => PolicyError::InFile {
                path: path.to_path_buf(),
                error: Box::new(error),
            },
        })
    }

    /// The default policy plus the rules of a TOML config (see the module
    /// documentation for its shape).
    pub fn from_toml_str(text: &str) -> Result<Policy, PolicyError> {
        Policy::parse(text, Path::new(TEXT_LABEL)).map(|(policy, _)| policy)
    }

    /// The policy `text` (read from `path`) configures, and its warnings.
    fn parse(text: &str, path: &Path) -> Result<(Policy, Vec<String>), PolicyError> {
        let at = ConfigText { path, text };
        let located = |error: crate::project::config::ConfigError| PolicyError::Toml(error.0);
        // The keys first, where they are: an unknown one gets the same
        // "did you mean" as in toolc.toml, an old spelling a warning.
        let keys: std::collections::BTreeMap<Spanned<String>, toml::Value> =
            toml::from_str(text).map_err(|error| located(at.toml_error(&error)))?;
        let mut warnings = Vec::new();
        for key in keys.keys() {
            let name = key.get_ref();
            if KEYS.contains(&name.as_str()) {
                continue;
            }
            let new = name.replace('_', "-");
            if KEYS.contains(&new.as_str()) {
                let message = format!("`{name}` is the old spelling: write `{new}`");
                warnings.push(at.error(Some(key.span()), message).0);
                continue;
            }
            let hint = did_you_mean(&new, KEYS)
                .map(|close| format!("; did you mean `{close}`?"))
                .unwrap_or_default();
            let message = format!("unknown key `{name}`, expected one of {}{hint}", {
                let quoted: Vec<String> = KEYS.iter().map(|k| format!("`{k}`")).collect();
                quoted.join(", ")
            });
            return Err(located(at.error(Some(key.span()), message)));
        }
        let config: PolicyConfig =
            toml::from_str(text).map_err(|error| located(at.toml_error(&error)))?;
        let mut policy = Policy::default();
        if let Some(tier) = config.allow_tier {
            if !(0..=4).contains(&tier) {
                return Err(PolicyError::Tier(tier));
            }
            policy.allow_tier = tier;
        }
        if let Some(globs) = config.allowed_tools {
            let compiled = globs.iter().enumerate().map(|(index, pattern)| {
                Glob::new(pattern).map_err(|error| PolicyError::Glob {
                    index,
                    pattern: pattern.clone(),
                    message: error.kind().to_string(),
                })
            });
            policy.allowed_tools = Some(compiled.collect::<Result<_, _>>()?);
        }
        for (index, pattern) in config.forbidden_patterns.iter().enumerate() {
            let regex = Regex::new(pattern).map_err(|error| PolicyError::Pattern {
                index,
                pattern: pattern.clone(),
                message: error.to_string(),
            })?;
            policy.forbidden_patterns.push(regex);
        }
        for id in &config.disable {
            let rule = DefaultRule::from_id(id).ok_or_else(|| PolicyError::UnknownRule {
                id: id.clone(),
                known: DefaultRule::ALL.map(DefaultRule::id).join(", "),
            })?;
            policy.disabled.push(rule);
        }
        Ok((policy, warnings))
    }

    /// `Ok` when the call may run, else the first rule that refuses it.
    pub fn check(&self, call: &Call) -> Result<(), Denial> {
        self.check_approving(call, &Approval::Configured)
    }

    /// [`Policy::check`] with this call's own `approval` standing in for
    /// the approver; it still counts last, after every other rule.
    pub fn check_approving(&self, call: &Call, approval: &Approval) -> Result<(), Denial> {
        let tool = call.tool;
        self.check_allowed_tools(tool)?;
        permissions::tier_bounds(tool)?;
        let arguments = Arguments::new(tool, call.arguments);
        self.check_default_rules(&arguments, call.dir)?;
        self.check_forbidden_patterns(&arguments)?;
        permissions::network(tool, &arguments)?;
        permissions::allowed_dirs(tool, &arguments, call.dir, &self.home)?;
        permissions::allowed_extensions(tool, &arguments)?;
        permissions::actions(tool, &arguments)?;
        self.check_approval(tool, call.arguments, approval)
    }

    /// Whether the call's tier is above `allow_tier`, so that it runs only
    /// when approved (tier 4, which never runs, and tiers outside 0..=4
    /// are refused before approval counts).
    pub fn needs_approval(&self, tool: &Tool) -> bool {
        tool.permissions
            .security_tier
            .is_some_and(|tier| tier > self.allow_tier)
    }

    fn enabled(&self, rule: DefaultRule) -> bool {
        !self.disabled.contains(&rule)
    }

    fn check_allowed_tools(&self, tool: &Tool) -> Result<(), Denial> {
        let Some(globs) = &self.allowed_tools else {
            return Ok(());
        };
        if globs
            .iter()
            .any(|g| g.compile_matcher().is_match(&tool.name))
        {
            return Ok(());
        }
        let listed: Vec<&str> = globs.iter().map(Glob::glob).collect();
        let reason = format!("is not in allowed-tools ({})", listed.join(", "));
        Err(permissions::tool_denial(
            DenialRule::AllowedTools,
            tool,
            reason,
        ))
    }

    fn check_default_rules(&self, arguments: &Arguments, dir: &Path) -> Result<(), Denial> {
        arguments.first(|argument| {
            if !argument.command {
                return None;
            }
            if self.enabled(DefaultRule::DangerousCommand)
                && let Some(why) = commands::dangerous(&argument.value, dir, &self.home)
            {
                return Some(argument_denial(
                    DenialRule::DangerousCommand,
                    argument,
                    &why,
                ));
            }
            if self.enabled(DefaultRule::RemoteScript)
                && let Some(why) = commands::remote_script(&argument.value, dir, &self.home)
            {
                return Some(argument_denial(DenialRule::RemoteScript, argument, &why));
            }
            None
        })?;
        if !self.enabled(DefaultRule::SensitivePath) {
            return Ok(());
        }
        arguments.first(|argument| {
            let words = if argument.path {
                let glob = argument.value.contains(['*', '?', '[']);
                vec![(argument.value.to_string(), glob)]
            } else if argument.command {
                let words = commands::path_words(&argument.value, dir, &self.home);
                words.into_iter().map(|w| (w.text, w.glob)).collect()
            } else {
                return None;
            };
            words.into_iter().find_map(|(word, glob)| {
                let (path, what) = paths::sensitive_word(&word, glob, dir, &self.home)?;
                let why = format!("names `{path}`, which is {what}");
                Some(argument_denial(DenialRule::SensitivePath, argument, &why))
            })
        })
    }

    fn check_forbidden_patterns(&self, arguments: &Arguments) -> Result<(), Denial> {
        for pattern in &self.forbidden_patterns {
            arguments.first(|argument| {
                if !pattern.is_match(&argument.value) {
                    return None;
                }
                let why = format!("matches the forbidden pattern `{}`", pattern.as_str());
                Some(argument_denial(
                    DenialRule::ForbiddenPattern,
                    argument,
                    &why,
                ))
            })?;
        }
        Ok(())
    }

    fn check_approval(
        &self,
        tool: &Tool,
        arguments: &Value,
        approval: &Approval,
    ) -> Result<(), Denial> {
        let Some(tier) = tool.permissions.security_tier else {
            return Ok(());
        };
        if tier <= self.allow_tier {
            return Ok(());
        }
        let refused = match approval {
            Approval::Granted => return Ok(()),
            Approval::Refused(clause) => clause.as_str(),
            Approval::Configured => {
                let approve = self.approver.as_ref();
                if approve.is_some_and(|approve| approve(tool, arguments)) {
                    return Ok(());
                }
                "the call was not approved"
            }
        };
        let reason = format!(
            "has security tier {tier}, above the allowed tier {}, and {refused}",
            self.allow_tier
        );
        Err(permissions::tool_denial(
            DenialRule::SecurityTier,
            tool,
            reason,
        ))
    }
}

/// The longest value a message quotes, in characters.
const QUOTED_CHARS: usize = 80;

/// A refusal of one argument: "`/command` = "rm -rf /" would delete …".
fn argument_denial(rule: DenialRule, argument: &Argument, why: &str) -> Denial {
    let pointer = argument.pointer();
    let pointer = if pointer.is_empty() {
        "the arguments"
    } else {
        &pointer
    };
    let value: String = if argument.value.chars().count() > QUOTED_CHARS {
        let head: String = argument.value.chars().take(QUOTED_CHARS - 3).collect();
        format!("{head}...")
    } else {
        argument.value.to_string()
    };
    let quoted = serde_json::to_string(&value).unwrap_or(value);
    Denial {
        rule,
        message: format!("Argument `{pointer}` = {quoted} {why}."),
    }
}
