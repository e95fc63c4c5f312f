//! `toolc convert`: manifests of one format into another, with a report of
//! every field the target cannot express.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::render::ReportFormat;
use super::{CliError, Outcome, ReadArgs, Reporting, findings, gen_cmd, parse_format, write};
use crate::convert::{self, FileKind};
use crate::diagnostic::Diagnostic;
use crate::emit::{GeneratedFile, templates::Templates};
use crate::ir::Format;

#[derive(Debug, clap::Args)]
pub(super) struct ConvertArgs {
    /// Manifests to convert: files, tool directories or whole trees.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// The format to write: nora, agentcli, agentstack, nachos, openai, anthropic, mcp.
    #[arg(long, value_name = "FORMAT", value_parser = parse_format)]
    to: Format,
    /// Where to write. nora, agentstack and nachos: a directory (a directory per tool
    /// or package); agentcli: a directory (OUT/tools.json); openai, anthropic, mcp: a
    /// file (default: standard output).
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// Turn every loss into an error (reported like the warnings, grouped unless
    /// --show-losses), write nothing, exit 1.
    #[arg(long)]
    strict: bool,
    /// List every loss and note on its own (human: with its snippet). Without it, human
    /// and brief group them by rule, field (indices, tool and parameter names as *,
    /// e.g. /tools/*/timeoutSec) and message, with counts and the first positions of
    /// each group; the other formats always list every one.
    #[arg(long)]
    show_losses: bool,
    /// Overwrite manifests whose content differs (without it, they are listed and
    /// nothing is written). Code skeletons are never overwritten.
    #[arg(long)]
    force: bool,
    /// List what would be written (new, changed, unchanged) and write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Convert even when the manifests have error-level findings.
    #[arg(long)]
    allow_errors: bool,
    /// How to report losses and notes: human (with the source line) and brief on
    /// standard error; concise, json (the lint JSON contract), sarif, github and junit
    /// on standard output (so openai, anthropic and mcp need -o), like `toolc lint
    /// --format`.
    #[arg(long, value_enum, default_value_t = ReportFormat::Human)]
    format: ReportFormat,
    /// Use the templates in this directory in place of the built-in ones of the same
    /// relative path (the code skeletons: python/..., nachos/...).
    #[arg(long, value_name = "DIR")]
    templates: Option<PathBuf>,
    #[command(flatten)]
    read: ReadArgs,
}

pub(super) fn run(
    args: &ConvertArgs,
    color: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Outcome, CliError> {
    let document = convert::writes_document(args.to);
    if !document && args.output.is_none() {
        return Err(CliError::Usage(format!(
            "convert --to {} writes a tree of files: name the directory with -o DIR",
            args.to
        )));
    }
    if document && args.output.is_none() && args.format.on_stdout() {
        return Err(CliError::Usage(format!(
            "convert --to {} --format {}: the converted document and the report would share standard output; write the document with -o FILE",
            args.to,
            gen_cmd::format_name(args.format)
        )));
    }
    let mut reporting = Reporting {
        format: args.format,
        color,
        out,
        err,
    };
    let templates = Templates::new(args.templates.as_deref())?;
    let Some(reading) = super::read_for_writing(
        &args.read,
        &args.paths,
        args.output.as_ref(),
        args.allow_errors,
        "not converting manifests with errors (pass --allow-errors to convert anyway)",
        &mut reporting,
    )?
    else {
        return Ok(Outcome::Refused);
    };
    if reading.toolsets.iter().all(|s| s.tools.is_empty()) {
        return Err(CliError::Usage(
            "the paths hold no tool to convert".to_string(),
        ));
    }
    let out_dir = args.output.as_deref().filter(|_| !document);
    let converted = convert::convert(
        &reading.toolsets,
        args.to,
        &convert::Options {
            templates: &templates,
            out_dir,
        },
    )?;
    let mut diagnostics: Vec<Diagnostic> = converted
        .losses
        .iter()
        .map(|loss| findings::loss(&reading, loss, args.strict))
        .chain(converted.notes.iter().map(|n| findings::note(&reading, n)))
        .collect();
    diagnostics.sort_by(|a, b| a.sort_key_cmp(b));
    let listing = findings::Listing::unless(args.show_losses, "--show-losses");
    findings::show(
        &mut reporting,
        &findings::report(&reading, diagnostics),
        listing,
    )?;
    let Reporting { out, err, .. } = reporting;
    if args.strict && !converted.losses.is_empty() {
        writeln!(
            err,
            "error: nothing was written: {} field(s) cannot be expressed in {} (--strict)",
            converted.losses.len(),
            args.to
        )?;
        return Ok(Outcome::Refused);
    }
    let mode = write::WriteMode {
        force: args.force,
        dry_run: args.dry_run,
    };
    if document {
        let text = converted
            .files
            .first()
            .map(|f| f.contents.as_str())
            .unwrap_or_default();
        // With --format json, -o is given (checked above): the report alone
        // goes to standard output.
        return write::write_document(&mode, args.output.as_deref(), text, out, err);
    }
    let dir = args.output.as_deref().unwrap_or(Path::new("."));
    let files: Vec<GeneratedFile> = converted
        .files
        .iter()
        .map(|f| GeneratedFile {
            path: f.path.clone(),
            contents: f.contents.clone(),
        })
        .collect();
    let skeletons_kept = kept_skeletons(dir, &converted.files);
    write::write_tree(&mode, dir, &files, &skeletons_kept, err)
}

/// The skeleton files of the tool and package directories that are in the
/// output already: left as they are, and no stray files.
fn kept_skeletons(dir: &Path, files: &[convert::OutputFile]) -> Vec<PathBuf> {
    let mut kept = Vec::new();
    let mut tool_dirs: Vec<PathBuf> = files
        .iter()
        .filter(|f| f.kind == FileKind::Manifest)
        .filter_map(|f| f.path.parent().map(|p| dir.join(p)))
        .collect();
    tool_dirs.sort();
    tool_dirs.dedup();
    for tool_dir in tool_dirs {
        for entry in walkdir::WalkDir::new(&tool_dir)
            .into_iter()
            .flatten()
            .filter(|e| e.file_type().is_file())
        {
            let path = entry.path();
            let code = path.extension().is_some_and(|e| e == "py" || e == "ts");
            if code {
                kept.push(path.to_path_buf());
            }
        }
    }
    kept
}
