//! `toolc lint --show-settings PATH...`: what a lint of each path would
//! use, and where it came from, as ruff's `check --show-settings` says it.
//!
//! The output is TOML (one table per path) so that it reads like the
//! configuration it explains and a script can parse it: the configuration
//! file (or `"defaults"`), the `[[overrides]]` entries that match (and
//! those that turn rules off for some tools or pointers only), the targets, the size limit, the exclusions, `[limits]`, and every rule with
//! the level it gets (`off` with the reason when it does not run).

use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::CliError;
use crate::lint;
use crate::project::config::{Explained, basic_string};
use crate::project::settings::Level;

/// Prints the settings of each of `paths`.
pub(super) fn show(
    linter: &lint::Linter,
    paths: &[PathBuf],
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let mut text = String::new();
    let mut shown = std::collections::HashSet::new();
    for path in paths {
        if !path.exists() {
            return Err(CliError::Usage(format!(
                "--show-settings {}: no such file or directory",
                crate::terminal::path(path)
            )));
        }
        // A path named twice is one table: TOML refuses a table twice.
        if !shown.insert(basic_string(&crate::project::display_path(path))) {
            continue;
        }
        let explained = linter.configuration().explain(path)?;
        if !text.is_empty() {
            text.push('\n');
        }
        render(path, &explained, &mut text);
    }
    out.write_all(text.as_bytes())?;
    Ok(())
}

/// A TOML string.
fn quoted(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

fn list(items: impl IntoIterator<Item = String>) -> String {
    let items: Vec<String> = items.into_iter().collect();
    format!("[{}]", items.join(", "))
}

/// A path relative to the current directory when it is below it.
fn shown(path: &Path) -> String {
    let relative = std::env::current_dir()
        .ok()
        .and_then(|cwd| std::fs::canonicalize(cwd).ok())
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf));
    crate::project::display_path(relative.as_deref().unwrap_or(path))
}

fn render(path: &Path, explained: &Explained, text: &mut String) {
    let settings = &explained.settings;
    let configuration = match &explained.file {
        Some(file) => quoted(&shown(file)),
        None => format!(
            "\"defaults\"  # no {} or {} with [tool.toolc] up to the repository root",
            crate::project::config::FILE_NAME,
            crate::project::config::PYPROJECT
        ),
    };
    let path = basic_string(&crate::project::display_path(path));
    let _ = writeln!(text, "[settings.{path}]");
    let _ = writeln!(text, "configuration = {configuration}");
    let _ = writeln!(
        text,
        "overrides = {}  # the matching [[overrides]] entries, numbered from 1",
        list(explained.overrides.iter().map(usize::to_string))
    );
    let targets = settings.targets.iter().map(|t| quoted(t.name()));
    let _ = writeln!(text, "targets = {}", list(targets));
    let _ = writeln!(text, "max-file-size = {}", settings.max_file_size);
    let excluded = |patterns: &[String]| list(patterns.iter().map(|p| quoted(p)));
    let _ = writeln!(text, "exclude = {}", excluded(&explained.exclude));
    let _ = writeln!(
        text,
        "extend-exclude = {}",
        excluded(&explained.extend_exclude)
    );
    let _ = writeln!(text, "force-exclude = {}", explained.force_exclude);
    for scoped in &settings.scoped_ignores {
        // The matching overrides that turn rules off for some tools or
        // pointers only (the rules table below is the file's as a whole).
        let _ = writeln!(text, "\n[[settings.{path}.scoped-ignores]]");
        if !scoped.tools.is_empty() {
            let tools = scoped.tools.iter().map(|tool| quoted(tool));
            let _ = writeln!(text, "tools = {}", list(tools));
        }
        if !scoped.pointers.is_empty() {
            let pointers = scoped.pointers.iter().map(|pointer| quoted(pointer));
            let _ = writeln!(text, "pointers = {}", list(pointers));
        }
        let rules = scoped.rules.iter().map(|rule| quoted(rule));
        let _ = writeln!(text, "rules = {}  # off there", list(rules));
    }
    let _ = writeln!(text, "\n[settings.{path}.limits]");
    text.push_str(&toml::to_string(&settings.limits).unwrap_or_default());
    let _ = writeln!(text, "\n[settings.{path}.rules]");
    let width = lint::RULES
        .iter()
        .map(|rule| rule.name.len())
        .max()
        .unwrap_or(0)
        + 2;
    for rule in lint::RULES.iter() {
        let mut level = match settings.level(rule) {
            Level::Off => "off",
            Level::On(severity) => severity.as_str(),
        };
        let mut note = rule.code.to_string();
        if level != "off" && !settings.runs(rule) {
            // On, but for providers none of the targets names.
            let targets: Vec<&str> = rule.targets.iter().map(|t| t.name()).collect();
            level = "off";
            let _ = write!(note, ", needs the target {}", targets.join(" or "));
        }
        let _ = writeln!(
            text,
            "{:<width$} = {:<9} # {note}",
            quoted(rule.name),
            quoted(level),
        );
    }
}
