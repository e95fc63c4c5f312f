//! `toolc lint`.

use std::io::Write;
use std::path::PathBuf;

use clap::ValueEnum;

use super::render::{self, ReportFormat};
use super::{CliError, Outcome, ReadArgs, write_atomically};
use crate::diagnostic::Severity;
use crate::lint;

#[derive(Debug, clap::Args)]
pub(super) struct LintArgs {
    /// Files and directories to check.
    #[arg(default_value = ".")]
    paths: Vec<PathBuf>,
    /// Output format (also `--output-format`, as ruff names it; or the
    /// TOOLC_OUTPUT_FORMAT environment variable).
    #[arg(
        long,
        visible_alias = "output-format",
        env = "TOOLC_OUTPUT_FORMAT",
        value_enum,
        default_value_t = ReportFormat::Human
    )]
    format: ReportFormat,
    /// Write the report to this file (atomically) instead of standard output
    /// (`-`: standard output); the exit code is the same.
    #[arg(short, long, value_name = "FILE")]
    pub(super) output: Option<PathBuf>,
    /// What makes the exit code 1: a finding of this severity or a higher one.
    #[arg(long, value_enum, default_value_t = FailOn::Error)]
    fail_on: FailOn,
    /// Exit 0 whatever is found (a run that cannot happen still exits 2).
    #[arg(long)]
    exit_zero: bool,
    /// Apply the safe fixes to the files in place (only the fixed spans change), then
    /// report what remains.
    #[arg(long)]
    fix: bool,
    /// With --fix or --diff: also apply the fixes that change what a tool accepts.
    #[arg(long)]
    unsafe_fixes: bool,
    /// Print the fixes as a unified diff instead of writing them; exit 1 if there are any.
    #[arg(long)]
    diff: bool,
    /// List every file the run looked at and left alone, and why (on
    /// standard error).
    #[arg(long, short = 'v', visible_alias = "verbose")]
    show_skipped: bool,
    #[command(flatten)]
    read: ReadArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum FailOn {
    Error,
    Warning,
    Info,
}

impl FailOn {
    fn severity(self) -> Severity {
        match self {
            FailOn::Error => Severity::Error,
            FailOn::Warning => Severity::Warning,
            FailOn::Info => Severity::Info,
        }
    }
}

pub(super) fn run(
    args: &LintArgs,
    colors: super::Colors,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Outcome, CliError> {
    if let Some(output) = &args.output {
        super::refuse_output_among_inputs(output, &args.paths)?;
    }
    let options = args.read.options();
    let mut fixed = None;
    if args.unsafe_fixes && !(args.fix || args.diff) {
        return Err(CliError::Usage(
            "--unsafe-fixes goes with --fix or --diff".to_string(),
        ));
    }
    if args.fix || args.diff {
        let fixes = lint::fix::fix_paths(&args.paths, &options, args.unsafe_fixes)?;
        if args.diff {
            let diff: String = fixes.iter().map(unified_diff).collect();
            match &args.output {
                Some(path) => write_atomically(path, diff.as_bytes())?,
                None => out.write_all(diff.as_bytes())?,
            }
            let changes = !fixes.is_empty() && !args.exit_zero;
            return Ok(if changes {
                Outcome::Findings
            } else {
                Outcome::Clean
            });
        }
        for file in &fixes {
            write_atomically(&file.path, file.fixed.as_bytes())?;
        }
        fixed = Some(fixes);
    }
    let report = lint::lint_paths(&args.paths, &options)?;
    say_skipped(&report, args.show_skipped, err)?;
    // A file gets no terminal colors.
    let text = render::render(args.format, &report, colors.out && args.output.is_none());
    match &args.output {
        Some(path) => write_atomically(path, text.as_bytes())?,
        None => out.write_all(text.as_bytes())?,
    }
    if let Some(fixes) = fixed {
        let applied: usize = fixes.iter().map(|f| f.applied).sum();
        writeln!(
            err,
            "Fixed {applied} finding{} in {} file{}; {} remain{}.",
            if applied == 1 { "" } else { "s" },
            fixes.len(),
            if fixes.len() == 1 { "" } else { "s" },
            report.diagnostics.len(),
            if report.diagnostics.len() == 1 {
                "s"
            } else {
                ""
            },
        )?;
    }
    Ok(Outcome::of_findings(
        &report.diagnostics,
        args.fail_on.severity(),
        args.exit_zero,
    ))
}

/// On standard error: the files named on the command line that were left
/// alone (a generic name such as `config.json` whose content is no
/// manifest), or with `--show-skipped` every file left alone; and a
/// warning when the run found no manifest at all.
fn say_skipped(report: &lint::LintReport, all: bool, err: &mut dyn Write) -> std::io::Result<()> {
    for skipped in report.skipped.iter().filter(|s| all || s.named) {
        writeln!(err, "note: skipped {}: {}", skipped.path, skipped.why)?;
    }
    if report.files.is_empty() && report.diagnostics.is_empty() {
        let hidden = report.skipped.iter().filter(|s| !s.named).count();
        let hint = if hidden > 0 && !all {
            format!(
                " ({} skipped; --show-skipped lists {})",
                plural_files(hidden),
                if hidden == 1 { "it" } else { "them" }
            )
        } else {
            String::new()
        };
        writeln!(
            err,
            "warning: no tool manifests found in the given paths{hint}; name a file's format with --input-format to lint it"
        )?;
    }
    Ok(())
}

fn plural_files(n: usize) -> String {
    if n == 1 {
        "1 JSON file".to_string()
    } else {
        format!("{n} JSON files")
    }
}

/// The fixes of one file as a unified diff, headed `a/PATH` and `b/PATH`.
fn unified_diff(file: &lint::fix::FileFix) -> String {
    let shown = file.display.trim_start_matches('/');
    similar::TextDiff::from_lines(&file.original, &file.fixed)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{shown}"), &format!("b/{shown}"))
        .to_string()
}
