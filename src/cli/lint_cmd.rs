//! `toolc lint`.

use std::io::{Read, Write};
use std::path::PathBuf;

use clap::ValueEnum;

use super::diff::LineDiff;
use super::live_args::LiveArgs;
use super::render::{self, FixView, ReportFormat, View, fixes, statistics};
use super::{CliError, Outcome, ReadArgs, write_atomically};
use crate::diagnostic::Severity;
use crate::lint;
use crate::terminal::one_line;

#[derive(Debug, clap::Args)]
pub(super) struct LintArgs {
    /// Files and directories to check; `-` reads one manifest from standard input.
    ///
    /// Default: ., unless a live server or an --mcp-config is named.
    paths: Vec<PathBuf>,
    #[command(flatten)]
    read: ReadArgs,
    /// The path standard input (`-`) stands for.
    ///
    /// Its name decides the format, its directory the toolc.toml and the package code
    /// read, and reports show it (default: `-`, whose format its content or
    /// --input-format decides).
    #[arg(long, value_name = "PATH", help_heading = super::heading::FILES)]
    stdin_filename: Option<PathBuf>,
    /// Apply the safe fixes to the files in place, then report what remains.
    ///
    /// Only the fixed spans change. With `-`: print the fixed text, and the report on
    /// standard error.
    #[arg(long, help_heading = super::heading::FIXING)]
    fix: bool,
    /// With --fix or --diff: also apply the fixes that change what a tool accepts.
    #[arg(long, help_heading = super::heading::FIXING)]
    unsafe_fixes: bool,
    /// Print the fixes as a unified diff instead of writing them.
    ///
    /// Exits 1 if there are any.
    #[arg(long, help_heading = super::heading::FIXING)]
    diff: bool,
    /// List the fixes by file and rule on standard error.
    ///
    /// Those --fix applied or --diff shows, otherwise the findings --fix would fix.
    #[arg(long, help_heading = super::heading::FIXING)]
    show_fixes: bool,
    /// Output format.
    ///
    /// Also `--output-format`, as ruff names it, or the TOOLC_OUTPUT_FORMAT
    /// environment variable.
    #[arg(
        long,
        visible_alias = "output-format",
        env = "TOOLC_OUTPUT_FORMAT",
        value_enum,
        default_value_t = ReportFormat::Human,
        help_heading = super::heading::OUTPUT
    )]
    format: ReportFormat,
    /// Write the report to this file (atomically) instead of standard output.
    ///
    /// `-` is standard output; the exit code is the same.
    #[arg(short, long, value_name = "FILE", help_heading = super::heading::OUTPUT)]
    pub(super) output: Option<PathBuf>,
    /// Exit 1 on a finding of this severity or a higher one.
    #[arg(long, value_enum, default_value_t = FailOn::Error, help_heading = super::heading::OUTPUT)]
    fail_on: FailOn,
    /// Exit 0 whatever is found (a run that cannot happen still exits 2).
    #[arg(long, help_heading = super::heading::OUTPUT)]
    exit_zero: bool,
    /// Print how many findings each rule found instead of each finding.
    ///
    /// Most first, with `[*]` where --fix would fix them: a table, or with --format
    /// json an array of {code, name, count, fixable}.
    #[arg(long, help_heading = super::heading::OUTPUT)]
    statistics: bool,
    /// Print the settings each path gets and where they come from, then exit 0.
    ///
    /// The rules, targets, limits, exclusions and matching overrides of each path,
    /// and the configuration file they come from, without linting (as `ruff check
    /// --show-settings`).
    #[arg(long, conflicts_with_all = ["fix", "diff", "statistics"], help_heading = super::heading::OUTPUT)]
    show_settings: bool,
    /// List every file left alone, and why.
    ///
    /// On standard error.
    #[arg(long, short = 'v', visible_alias = "verbose", help_heading = super::heading::OUTPUT)]
    show_skipped: bool,
    /// Print only the findings: no summary, no notes or warnings.
    ///
    /// A run that fails still says why.
    #[arg(long, short = 'q', conflicts_with = "show_skipped", help_heading = super::heading::OUTPUT)]
    quiet: bool,
    /// Print nothing: the exit code says what was found.
    ///
    /// A report asked for with -o is still written, --fix - still prints the text, a
    /// run that fails still says why.
    #[arg(long, short = 's', conflicts_with = "show_skipped", help_heading = super::heading::OUTPUT)]
    silent: bool,
    #[command(flatten)]
    live: LiveArgs,
    #[command(flatten)]
    locked: super::lock_cmd::LockedArgs,
}

impl LintArgs {
    /// Whether to leave out everything but the findings.
    fn quiet(&self) -> bool {
        self.quiet || self.silent
    }

    /// The paths to lint: `.` when none is named, and no live server.
    fn paths(&self) -> Vec<PathBuf> {
        if self.paths.is_empty() && !self.live.any() {
            vec![PathBuf::from(".")]
        } else {
            self.paths.clone()
        }
    }

    /// Whether the manifest comes on standard input: `-` is the path, or
    /// `--stdin-filename` is given without paths (as ruff reads it).
    fn reads_stdin(&self) -> bool {
        match self.paths.as_slice() {
            [] => self.stdin_filename.is_some(),
            [path] => path.as_os_str() == STDIN,
            _ => false,
        }
    }

    /// What the report for people says beyond the findings.
    fn view(&self, color: bool) -> View {
        View {
            color,
            summary: !self.quiet(),
            fixes: Some(FixView {
                unsafe_fixes: self.unsafe_fixes,
                marks: !self.fix,
            }),
        }
    }

    /// The flag combinations that cannot work, refused before any reading.
    fn refuse_conflicts(&self) -> Result<(), CliError> {
        let usage = |message: &str| Err(CliError::Usage(message.to_string()));
        if self.unsafe_fixes && !(self.fix || self.diff) {
            return usage("--unsafe-fixes goes with --fix or --diff");
        }
        if self.live.any() && (self.fix || self.diff) {
            return usage(
                "--fix and --diff rewrite files: a live server's tools are not one (lint its --save copy)",
            );
        }
        let stdin_named = self.paths.iter().any(|p| p.as_os_str() == STDIN);
        if self.live.any() && (stdin_named || self.reads_stdin()) {
            return usage(
                "`-` (standard input) is the only input of its run: no live server with it",
            );
        }
        if self.locked.locked && (stdin_named || self.reads_stdin()) {
            return usage("--locked checks files and live servers against toolc.lock, not `-`");
        }
        if self.locked.locked && (self.fix || self.diff) {
            return usage("--locked checks, --fix and --diff rewrite: run them apart");
        }
        if stdin_named && self.paths.len() > 1 {
            return usage("`-` (standard input) is the only path of its run");
        }
        if self.stdin_filename.is_some() && !self.reads_stdin() {
            return usage("--stdin-filename names standard input: give `-` as the only path");
        }
        let counted = matches!(
            self.format,
            ReportFormat::Human | ReportFormat::Concise | ReportFormat::Brief | ReportFormat::Json
        );
        if self.statistics && !counted {
            return Err(CliError::Usage(format!(
                "--statistics prints a table (human, concise, brief) or JSON (json), not {}",
                super::gen_cmd::value_name(self.format)
            )));
        }
        Ok(())
    }
}

/// The path that stands for standard input.
const STDIN: &str = "-";

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
    args.refuse_conflicts()?;
    if args.show_settings {
        let linter = lint::Linter::new(args.read.options())?;
        super::show_settings::show(&linter, &args.paths(), out)?;
        return Ok(Outcome::Clean);
    }
    if args.reads_stdin() {
        return run_on_stdin(args, colors, out, err);
    }
    let paths = args.paths();
    if let Some(output) = &args.output {
        super::refuse_output_among_inputs(output, &paths)?;
    }
    let mut options = args.read.options();
    let mut fixed = None;
    if args.locked.locked {
        let linter = lint::Linter::new(options.clone())?;
        let lock = args.locked.read(&linter)?;
        // As without --locked, a server of --mcp-config that fails leaves
        // the others to be checked against their pins (a drifted one
        // is reported), and the run still fails.
        let live = args.live.fetch_each(&paths, crate::live::Listings::Twice)?;
        if let Some((file, lock)) = lock {
            options.command_line.lock = Some(super::lock_cmd::locked(
                &file,
                lock,
                &paths,
                &live.second,
                &linter,
            )?);
        }
        let mut report = lint::Linter::new(options)?.lint_inputs(&paths, &live.held)?;
        report.rename_all(&live.saved);
        let outcome = show(args, &report, None, colors.out, out, err)?;
        return Ok(if live.failed > 0 {
            Outcome::Incomplete
        } else {
            outcome
        });
    }
    if args.fix || args.diff {
        let fixes = lint::fix::fix_paths(&paths, &options, args.unsafe_fixes)?;
        if args.diff {
            return show_diff(args, &fixes, out, err);
        }
        for file in &fixes {
            write_atomically(&file.path, file.fixed.as_bytes())?;
        }
        fixed = Some(fixes);
    }
    // A server of --mcp-config that fails does not keep the others from
    // being linted; the run still fails.
    let live = args.live.fetch_each(&paths, crate::live::Listings::Once)?;
    let mut report = lint::Linter::new(options)?.lint_inputs(&paths, &live.held)?;
    // With --save, the findings attach to the saved file (SARIF, GitHub).
    report.rename_all(&live.saved);
    let outcome = show(args, &report, fixed.as_deref(), colors.out, out, err)?;
    Ok(if live.failed > 0 {
        Outcome::Incomplete
    } else {
        outcome
    })
}

/// `toolc lint -`: one manifest from standard input, read and configured
/// as the file at `--stdin-filename` would be. With `--fix` the fixed
/// text (or the text as it came, when nothing changes) is printed on
/// standard output, and the report on standard error, as ruff does.
fn run_on_stdin(
    args: &LintArgs,
    colors: super::Colors,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Outcome, CliError> {
    let path = args
        .stdin_filename
        .clone()
        .unwrap_or_else(|| PathBuf::from(STDIN));
    let options = args.read.options();
    let linter = lint::Linter::new(options.clone())?;
    let limit = linter.configuration().max_file_size(&path)?;
    // One byte past the limit is enough to know the text is over it.
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(CliError::ReadStdin)?;
    let mut fixed = None;
    if args.fix || args.diff {
        let fix = match std::str::from_utf8(&bytes) {
            Ok(text) => lint::fix::fix_document(&path, text, &options, args.unsafe_fixes)?,
            Err(_) => None,
        };
        let fixes: Vec<lint::fix::FileFix> = fix.into_iter().collect();
        if args.diff {
            return show_diff(args, &fixes, out, err);
        }
        if let Some(fix) = fixes.first() {
            bytes = fix.fixed.clone().into_bytes();
        }
        out.write_all(&bytes)?;
        fixed = Some(fixes);
    }
    let load_options = crate::project::LoadOptions {
        max_file_size: limit,
        ..linter.load_options()
    };
    let shown = crate::project::display_path(&path);
    let project = crate::project::Project::from_documents([(shown, bytes)], &load_options);
    if args.stdin_filename.is_none() && args.read.input_format.is_none() {
        refuse_unknown_format(&project)?;
    }
    let report = linter.check(&project)?;
    if fixed.is_none() {
        return show(args, &report, None, colors.out, out, err);
    }
    // Standard output holds the text: the report and its notes go to
    // standard error, the notes after the report.
    let mut notes = Vec::new();
    let outcome = show(args, &report, fixed.as_deref(), colors.err, err, &mut notes)?;
    err.write_all(&notes)?;
    Ok(outcome)
}

/// Standard input without a name whose content is no manifest format: a
/// finding would say "this file", and the fix is a flag.
fn refuse_unknown_format(project: &crate::project::Project) -> Result<(), CliError> {
    let unknown = project
        .failures
        .iter()
        .any(|f| f.problem.kind == crate::project::ProblemKind::UnknownFormat);
    if unknown {
        return Err(CliError::Usage(
            "standard input matches no manifest format by its content: name its format \
             with --input-format FORMAT, or the file it stands for with --stdin-filename PATH"
                .to_string(),
        ));
    }
    Ok(())
}

/// `--diff`: the fixes as a unified diff (on standard output or in the -o
/// file), the `--show-fixes` list; exit 1 when there are any.
fn show_diff(
    args: &LintArgs,
    fixes: &[lint::fix::FileFix],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Outcome, CliError> {
    let diff: String = fixes.iter().map(unified_diff).collect();
    match &args.output {
        Some(path) => write_atomically(path, diff.as_bytes())?,
        None if !args.silent => out.write_all(diff.as_bytes())?,
        None => {}
    }
    if args.show_fixes && !args.silent {
        err.write_all(fixes::list("Would fix", &by_file(fixes)).as_bytes())?;
    }
    let changes = !fixes.is_empty() && !args.exit_zero;
    Ok(if changes {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}

/// Shows a run's report on `out` (or in the -o file) and its notes on
/// `err`, as the flags say, and gives the run's outcome. `fixed`: the
/// fixes `--fix` applied.
fn show(
    args: &LintArgs,
    report: &lint::LintReport,
    fixed: Option<&[lint::fix::FileFix]>,
    color: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Outcome, CliError> {
    let outcome =
        Outcome::of_findings(&report.diagnostics, args.fail_on.severity(), args.exit_zero);
    if !args.quiet() {
        say_skipped(report, args.show_skipped, err)?;
    }
    // A file gets no terminal colors.
    let view = args.view(color && args.output.is_none());
    match &args.output {
        Some(path) => write_report(path, report, report_text(args, report, view).as_bytes())?,
        None if !args.silent && !args.statistics => {
            // Written as rendered: a report of many findings is never
            // held whole.
            let mut out = std::io::BufWriter::with_capacity(64 * 1024, out);
            let written =
                render::write_in(args.format, report, view, &mut out).and_then(|()| out.flush());
            match written {
                // The reader stopped (`| head`): the findings still decide
                // the exit code, so `set -o pipefail` sees them.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                    return Ok(outcome);
                }
                written => written?,
            }
        }
        None if !args.silent => out.write_all(report_text(args, report, view).as_bytes())?,
        None => {}
    }
    if args.show_fixes && !args.silent {
        let list = match fixed {
            Some(fixes) => fixes::list("Fixed", &by_file(fixes)),
            None => fixes::list(
                "`--fix` would fix",
                &fixes::fixable_by_file(report, args.unsafe_fixes),
            ),
        };
        err.write_all(list.as_bytes())?;
    }
    if let Some(fixes) = fixed
        && !args.quiet()
    {
        say_fixed(fixes, report, err)?;
    }
    Ok(outcome)
}

/// Writes the report to `-o PATH`. What is there and is not a regular
/// file (a terminal, `/dev/null`, `/dev/stdout`, a FIFO with a reader) is
/// written through, as a shell's `>` would, never replaced; a FIFO that
/// nothing reads is refused rather than waited on. A manifest the run
/// read is never overwritten by its own report; any other file is
/// replaced atomically.
fn write_report(
    path: &std::path::Path,
    report: &lint::LintReport,
    bytes: &[u8],
) -> Result<(), CliError> {
    let wrap = |source| CliError::Write {
        path: path.to_path_buf(),
        source,
    };
    match std::fs::metadata(path) {
        Ok(found) if !found.is_file() && !found.is_dir() => {
            let mut options = std::fs::OpenOptions::new();
            options.write(true);
            let mut file =
                crate::run::audit::open_without_waiting(path, &mut options).map_err(wrap)?;
            file.write_all(bytes).map_err(wrap)
        }
        Ok(found) if found.is_file() => {
            let output = std::fs::canonicalize(path).ok();
            let read = report
                .files
                .iter()
                .find(|file| output.is_some() && std::fs::canonicalize(&file.path).ok() == output);
            if let Some(read) = read {
                return Err(CliError::Usage(format!(
                    "the output {} is the manifest {} this run lints: write the report to another file",
                    crate::terminal::path(path),
                    one_line(&read.path)
                )));
            }
            write_atomically(path, bytes)
        }
        _ => write_atomically(path, bytes),
    }
}

/// The report in `--format`, or its `--statistics`.
fn report_text(args: &LintArgs, report: &lint::LintReport, view: View) -> String {
    if !args.statistics {
        return render::render_in(args.format, report, view);
    }
    if args.format == ReportFormat::Json {
        return statistics::json(report, args.unsafe_fixes);
    }
    let mut text = statistics::table(report, args.unsafe_fixes);
    if view.summary {
        text.push_str(&render::summary_lines(report, view));
    }
    text
}

/// Each fixed file's fixes by rule, as `--show-fixes` lists them.
fn by_file(fixes: &[lint::fix::FileFix]) -> Vec<(String, Vec<(&'static lint::Rule, usize)>)> {
    fixes
        .iter()
        .map(|f| (f.display.clone(), f.by_rule.clone()))
        .collect()
}

/// After `--fix`: how many findings it fixed in how many files, and how
/// many remain.
fn say_fixed(
    fixes: &[lint::fix::FileFix],
    report: &lint::LintReport,
    err: &mut dyn Write,
) -> std::io::Result<()> {
    let applied: usize = fixes.iter().map(|f| f.applied()).sum();
    let remain = report.diagnostics.len();
    writeln!(
        err,
        "Fixed {applied} finding{} in {} file{}; {remain} remain{}.",
        if applied == 1 { "" } else { "s" },
        fixes.len(),
        if fixes.len() == 1 { "" } else { "s" },
        if remain == 1 { "s" } else { "" },
    )
}

/// On standard error: the files named on the command line that were left
/// alone (a generic name such as `config.json` whose content is no
/// manifest), or with `--show-skipped` every file left alone; and a
/// warning when the run found no manifest at all.
fn say_skipped(report: &lint::LintReport, all: bool, err: &mut dyn Write) -> std::io::Result<()> {
    for skipped in report.skipped.iter().filter(|s| all || s.named) {
        writeln!(
            err,
            "note: skipped {}: {}",
            one_line(&skipped.path),
            one_line(&skipped.why)
        )?;
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
    LineDiff::new(&file.original, &file.fixed).unified(
        &format!("a/{shown}"),
        &format!("b/{shown}"),
        3,
    )
}
