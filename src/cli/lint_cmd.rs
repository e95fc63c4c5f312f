//! `toolc lint`.

use std::io::Write;
use std::path::PathBuf;

use clap::ValueEnum;

use super::{CliError, EXIT_FINDINGS, ReadArgs, render};
use crate::diagnostic::Severity;
use crate::lint;

#[derive(Debug, clap::Args)]
pub(super) struct LintArgs {
    /// Files and directories to check.
    #[arg(default_value = ".")]
    paths: Vec<PathBuf>,
    /// Output format: human (snippets with carets) or json (the machine contract).
    #[arg(long, value_enum, default_value_t = OutputFormat::Human)]
    format: OutputFormat,
    #[command(flatten)]
    read: ReadArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum OutputFormat {
    Human,
    Json,
}

pub(super) fn run(args: &LintArgs, color: bool, out: &mut dyn Write) -> Result<u8, CliError> {
    let report = lint::lint_paths(&args.paths, &args.read.options())?;
    let text = match args.format {
        OutputFormat::Human => render::human(&report, color),
        OutputFormat::Json => render::json(&report),
    };
    out.write_all(text.as_bytes())?;
    Ok(if report.count(Severity::Error) > 0 {
        EXIT_FINDINGS
    } else {
        0
    })
}
