//! `toolc gen`: provider tool JSON, Rust trait stubs and Python skeletons.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::ValueEnum;

use super::render::ReportFormat;
use super::{CliError, Outcome, ReadArgs, Reporting, findings, write};
use crate::diagnostic::Diagnostic;
use crate::emit::python::Style;
use crate::emit::{self, Output};
use crate::ir::ToolSet;
use crate::project::NameEntry;

#[derive(Debug, clap::Args)]
pub(super) struct GenArgs {
    /// What to generate.
    #[arg(value_enum)]
    target: Target,
    /// Manifests (files or directories) to generate from; the word `builtin` stands for
    /// the runner's built-in tools (list_files, read_file, write_file, shell, fetch).
    #[arg(default_value = ".")]
    paths: Vec<PathBuf>,
    /// Where to write: a file for the JSON targets and rust (default: standard output),
    /// a directory for python (required).
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// Overwrite existing files whose content differs (without it, they are listed and
    /// nothing is written).
    #[arg(long)]
    force: bool,
    /// List what would be written (new, changed, unchanged) and write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Generate even when the manifests have error-level findings.
    #[arg(long)]
    allow_errors: bool,
    /// openai: emit strict mode ("strict": true and OpenAI's strict schema subset).
    #[arg(long)]
    strict: bool,
    /// python: the skeleton style.
    #[arg(long, value_enum, default_value_t = Style::Nora)]
    style: emit::python::Style,
    /// Use the templates in this directory in place of the built-in ones of the same
    /// relative path (see templates/README.md for the variables each receives).
    #[arg(long, value_name = "DIR")]
    templates: Option<PathBuf>,
    /// How to report what was changed to fit the target or could not be carried: brief
    /// and human on standard error; concise, json, sarif, github and junit on standard
    /// output (so the document needs -o), like `toolc lint --format`.
    #[arg(long, value_enum, default_value_t = ReportFormat::Brief)]
    format: ReportFormat,
    /// List every note on its own line (human: with its snippet). Without it, brief and
    /// human group them by field (indices, tool and parameter names as *) and message,
    /// with counts and the first positions of each group; the other formats always list
    /// every one.
    #[arg(long)]
    show_notes: bool,
    #[command(flatten)]
    read: ReadArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Target {
    /// OpenAI function tools: [{"type": "function", "function": {...}}].
    Openai,
    /// Anthropic tools: [{"name", "description", "input_schema"}].
    Anthropic,
    /// An MCP tools/list result: {"tools": [{"name", "inputSchema", ...}]}.
    Mcp,
    /// Gemini: {"functionDeclarations": [...]} in Gemini's schema subset.
    Gemini,
    /// A Rust module: the Tool trait, typed argument structs, a stub per tool.
    Rust,
    /// Python skeletons in the chosen --style, under -o DIR.
    Python,
}

pub(super) fn run(
    args: &GenArgs,
    color: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Outcome, CliError> {
    if args.target == Target::Python && args.output.is_none() {
        return Err(CliError::Usage(
            "gen python writes a tree of files: name the directory with -o DIR".to_string(),
        ));
    }
    // Provider JSON is built as values: templates only matter for code.
    let uses_templates = matches!(args.target, Target::Rust | Target::Python);
    if args.templates.is_some() && !uses_templates {
        writeln!(err, "warning: --templates has no effect on JSON targets")?;
    }
    let template_dir = args.templates.as_deref().filter(|_| uses_templates);
    let templates = emit::templates::Templates::new(template_dir)?;
    let document = args.target != Target::Python;
    if document && args.output.is_none() && !args.dry_run && args.format.on_stdout() {
        return Err(CliError::Usage(format!(
            "gen --format {}: the generated document and the report would share standard output; write the document with -o FILE",
            format_name(args.format)
        )));
    }
    let mut reporting = Reporting {
        format: args.format,
        color,
        out,
        err,
    };
    let builtin = args.paths.iter().any(|p| p.as_os_str() == "builtin");
    let paths: Vec<PathBuf> = args
        .paths
        .iter()
        .filter(|p| p.as_os_str() != "builtin")
        .cloned()
        .collect();
    let read = if paths.is_empty() {
        Some(super::ForWriting::default())
    } else {
        super::read_for_writing(
            &args.read,
            &paths,
            args.output.as_ref(),
            args.allow_errors,
            "not generating from manifests with errors (pass --allow-errors to generate anyway)",
            &mut reporting,
        )?
    };
    let Some(mut reading) = read else {
        return Ok(Outcome::Refused);
    };
    if builtin {
        reading.toolsets.push(crate::run::builtin::toolset());
    }
    let toolsets = &reading.toolsets;
    let clashes = name_clashes(toolsets);
    if !clashes.is_empty() && !args.allow_errors {
        for clash in &clashes {
            writeln!(reporting.err, "error: {clash}")?;
        }
        writeln!(
            reporting.err,
            "error: one request cannot offer two tools with the same name; generate from fewer manifests or rename"
        )?;
        return Ok(Outcome::Refused);
    }
    let mut diagnostics: Vec<Diagnostic> = emit::tools(toolsets)
        .filter(|(_, tool)| tool.parameters.is_none())
        .map(|(set, tool)| findings::parameters_unknown(&set.path, &tool.name, set.format.name()))
        .collect();
    let emit_options = emit::Options {
        templates: &templates,
        strict: args.strict,
        style: args.style,
    };
    let generated = match args.target {
        Target::Openai => emit::openai::generate(toolsets, &emit_options),
        Target::Anthropic => emit::anthropic::generate(toolsets, &emit_options),
        Target::Mcp => emit::mcp::generate(toolsets, &emit_options),
        Target::Gemini => emit::gemini::generate(toolsets, &emit_options),
        Target::Rust => emit::rust::generate(toolsets, &emit_options),
        Target::Python => emit::python::generate(toolsets, &emit_options),
    }?;
    diagnostics.extend(generated.notes.iter().map(|n| findings::note(&reading, n)));
    let listing = findings::Listing::unless(args.show_notes, "--show-notes");
    findings::show(
        &mut reporting,
        &findings::report(&reading, diagnostics),
        listing,
    )?;
    let Reporting { out, err, .. } = reporting;
    let mode = write::WriteMode {
        force: args.force,
        dry_run: args.dry_run,
    };
    match generated.output {
        Output::Document(text) => {
            write::write_document(&mode, args.output.as_deref(), &text, out, err)
        }
        Output::Tree(files) => {
            let dir = args.output.as_deref().unwrap_or(Path::new("."));
            write::write_tree(&mode, dir, &files, &[], err)
        }
    }
}

/// The name `--format` takes for `format`.
pub(super) fn format_name(format: ReportFormat) -> String {
    format
        .to_possible_value()
        .map(|v| v.get_name().to_string())
        .unwrap_or_default()
}

/// Tools from different manifests that would share a name in the one
/// generated array (duplicates within a manifest are lint findings already).
fn name_clashes(toolsets: &[ToolSet]) -> Vec<String> {
    let names = NameEntry::of_toolsets(toolsets);
    crate::project::name_clashes(&names, crate::project::Repeats::AcrossManifests)
        .into_iter()
        .map(|clash| {
            let (first, again) = (&names[clash.first], &names[clash.again]);
            format!(
                "tool \"{}\" is declared in both {} and {}",
                again.name, first.path, again.path
            )
        })
        .collect()
}
