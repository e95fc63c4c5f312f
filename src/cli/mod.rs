//! The command-line interface: argument parsing, one module per
//! subcommand, and the one place that chooses exit codes.
//!
//! Exit codes: `0` no error-level finding; `1` at least one error-level
//! finding (or a generator refused to emit from broken manifests); `2` the
//! run itself failed (a bad flag, a named path that does not exist, an
//! output file that could not be written).

mod explain;
mod gen_cmd;
mod lint_cmd;
mod render;
mod snippet;

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::ir::Format;

/// The exit code of a run whose findings include an error.
pub const EXIT_FINDINGS: u8 = 1;
/// The exit code of a run that could not do its job.
pub const EXIT_FAILURE: u8 = 2;

#[derive(Debug, Parser)]
#[command(
    name = "toolc",
    version,
    about = "A compiler for LLM-agent tool manifests: lint them, generate provider tool JSON from them.",
    long_about = "toolc reads the tool manifests agent frameworks use (NORA tool.json, agentcli tools.json, \
AgentStack config.json, Nachos manifest.json, and OpenAI, Anthropic and MCP tool JSON), checks them with \
precise diagnostics, and generates provider tool JSON from them.\n\n\
Exit codes: 0 no error-level finding, 1 at least one error-level finding, 2 the run itself failed."
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    /// When to color human output: auto (a terminal without NO_COLOR), always, never.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check manifests and report every problem with its line, column and rule.
    ///
    /// Directories are walked recursively, skipping .git, target, node_modules, Python
    /// virtual environments and whatever .gitignore excludes. Files are recognized by
    /// name (tool.json, tools.json, config.json, manifest.json, manifest.*.json) and
    /// then by content; JSON files that match no format are skipped and counted.
    Lint(lint_cmd::LintArgs),
    /// Generate provider tool JSON from manifests.
    Gen(gen_cmd::GenArgs),
    /// Print a rule's documentation: what it checks, why, and how to fix it.
    Explain {
        /// A rule name (e.g. duplicate-tool-name) or code (e.g. TC102).
        rule: String,
    },
    /// List every rule with its code, default severity and summary.
    Rules,
}

/// Options shared by every command that reads manifests.
#[derive(Debug, clap::Args)]
struct ReadArgs {
    /// Treat every file as this format instead of detecting it
    /// (nora, agentcli, agentstack, nachos, openai, anthropic, mcp).
    #[arg(long, value_name = "FORMAT", value_parser = parse_format)]
    input_format: Option<Format>,
    /// Report files larger than this instead of reading them (e.g. 16MiB, 512KiB, 1000000).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = "16MiB")]
    max_file_size: u64,
}

impl ReadArgs {
    fn options(&self) -> crate::lint::LintOptions {
        crate::lint::LintOptions {
            max_file_size: self.max_file_size,
            input_format: self.input_format,
            keep_toolsets: false,
        }
    }
}

fn parse_format(name: &str) -> Result<Format, String> {
    Format::from_name(name).ok_or_else(|| {
        let known: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
        format!(
            "unknown format \"{name}\"; expected one of {}",
            known.join(", ")
        )
    })
}

/// Parses `16MiB`, `512KiB`, `2GiB`, `10MB`, `1000` (bytes).
fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let number: u64 = digits
        .parse()
        .map_err(|_| format!("\"{text}\" is not a size (e.g. 16MiB, 512KiB, 1000000)"))?;
    let multiplier: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" => 1000,
        "kib" => 1 << 10,
        "m" | "mb" => 1000 * 1000,
        "mib" => 1 << 20,
        "g" | "gb" => 1000 * 1000 * 1000,
        "gib" => 1 << 30,
        other => {
            return Err(format!(
                "unknown size unit \"{other}\" (use B, KiB, MiB, GiB, KB, MB, GB)"
            ));
        }
    };
    number
        .checked_mul(multiplier)
        .ok_or_else(|| format!("size \"{text}\" is too large"))
}

/// Runs toolc with `args` (the program name first) and returns the exit code.
pub fn run(
    args: impl IntoIterator<Item = impl Into<OsString> + Clone>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(error) => {
            let rendered = error.render().to_string();
            if error.use_stderr() {
                let _ = write!(err, "{rendered}");
                return EXIT_FAILURE;
            }
            let _ = write!(out, "{rendered}");
            return 0;
        }
    };
    let color = match cli.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            use std::io::IsTerminal;
            std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
        }
    };
    let result = match &cli.command {
        Command::Lint(args) => lint_cmd::run(args, color, out),
        Command::Gen(args) => gen_cmd::run(args, color, out, err),
        Command::Explain { rule } => explain::explain(rule, out),
        Command::Rules => explain::list(out),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            let _ = writeln!(err, "error: {error}");
            EXIT_FAILURE
        }
    }
}

/// Why a command could not do its job (exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Lint(#[from] crate::lint::LintError),
    #[error("{0}")]
    Usage(String),
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write output: {0}")]
    Output(#[from] std::io::Error),
}

/// Writes `bytes` to `path` through a temporary file in the same directory
/// and a rename, so readers never see a partial file and a failure leaves
/// the old file intact.
fn write_atomically(path: &std::path::Path, bytes: &[u8]) -> Result<(), CliError> {
    let wrap = |source| CliError::Write {
        path: path.to_path_buf(),
        source,
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = dir.join(format!(".{name}.toolc-{}.tmp", std::process::id()));
    let result = std::fs::write(&temp, bytes).and_then(|()| std::fs::rename(&temp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result.map_err(wrap)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("16MiB"), Ok(16 << 20));
        assert_eq!(parse_size("512kib"), Ok(512 << 10));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("2 MB"), Ok(2_000_000));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("5XB").is_err());
        assert!(parse_size("99999999999999GiB").is_err());
    }
}
