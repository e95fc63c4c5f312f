//! `toolc gen`: provider tool JSON from manifests.

use std::io::Write;
use std::path::PathBuf;

use clap::ValueEnum;

use super::{CliError, EXIT_FINDINGS, ReadArgs, render, write_atomically};
use crate::diagnostic::Severity;
use crate::emit;
use crate::lint;

#[derive(Debug, clap::Args)]
pub(super) struct GenArgs {
    /// What to generate.
    #[arg(value_enum)]
    target: Target,
    /// Manifests (files or directories) to generate from.
    #[arg(default_value = ".")]
    paths: Vec<PathBuf>,
    /// Write to this file (atomically) instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Overwrite the output file if it exists.
    #[arg(long)]
    force: bool,
    /// Generate even when the manifests have error-level findings.
    #[arg(long)]
    allow_errors: bool,
    #[command(flatten)]
    read: ReadArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Target {
    /// OpenAI function tools: [{"type": "function", "function": {...}}].
    Openai,
}

pub(super) fn run(
    args: &GenArgs,
    color: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<u8, CliError> {
    if let Some(path) = &args.output
        && path.exists()
        && !args.force
    {
        return Err(CliError::Usage(format!(
            "{} exists; pass --force to overwrite it",
            path.display()
        )));
    }
    let options = lint::LintOptions {
        keep_toolsets: true,
        ..args.read.options()
    };
    let report = lint::lint_paths(&args.paths, &options)?;
    if report.count(Severity::Error) > 0 && !args.allow_errors {
        err.write_all(render::human(&report, color).as_bytes())?;
        writeln!(
            err,
            "error: not generating from manifests with errors (pass --allow-errors to generate anyway)"
        )?;
        return Ok(EXIT_FINDINGS);
    }
    let toolsets = &report.toolsets;
    let clashes = name_clashes(toolsets);
    if !clashes.is_empty() && !args.allow_errors {
        for clash in &clashes {
            writeln!(err, "error: {clash}")?;
        }
        writeln!(
            err,
            "error: one request cannot offer two tools with the same name; generate from fewer manifests or rename"
        )?;
        return Ok(EXIT_FINDINGS);
    }
    for set in toolsets {
        for tool in set.tools.iter().filter(|t| t.parameters.is_none()) {
            writeln!(
                err,
                "warning: {}: the parameters of tool \"{}\" are not in its {} manifest; generating an empty object schema",
                set.path, tool.name, set.format
            )?;
        }
    }
    let value = match args.target {
        Target::Openai => emit::openai::tools(toolsets),
    };
    let mut text = serde_json::to_string_pretty(&value)
        .map_err(|e| CliError::Usage(format!("cannot serialize output: {e}")))?;
    text.push('\n');
    match &args.output {
        Some(path) => write_atomically(path, text.as_bytes())?,
        None => out.write_all(text.as_bytes())?,
    }
    Ok(0)
}

/// Tools from different manifests that would share a name in the one
/// generated array (duplicates within a manifest are lint findings already).
fn name_clashes(toolsets: &[crate::ir::ToolSet]) -> Vec<String> {
    let mut first: std::collections::BTreeMap<&str, &str> = std::collections::BTreeMap::new();
    let mut clashes = Vec::new();
    for set in toolsets {
        for tool in &set.tools {
            match first.get(tool.name.as_str()) {
                Some(&path) if path != set.path => clashes.push(format!(
                    "tool \"{}\" is declared in both {path} and {}",
                    tool.name, set.path
                )),
                Some(_) => {}
                None => {
                    first.insert(&tool.name, &set.path);
                }
            }
        }
    }
    clashes
}
