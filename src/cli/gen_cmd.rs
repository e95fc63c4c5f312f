//! `toolc gen`: provider tool JSON, Rust trait stubs and Python skeletons.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::ValueEnum;

use super::live_args::LiveArgs;
use super::render::ReportFormat;
use super::{CliError, ForWriting, Outcome, Part, ReadArgs, Reporting, findings, write};
use crate::diagnostic::Diagnostic;
use crate::emit::python::Style;
use crate::emit::rust::RustPart;
use crate::emit::{self, EmitError, GeneratedFile, JsonItems, JsonTarget, Note};
use crate::ir::ToolSet;
use crate::json::SourceMap;
use crate::project::Manifest;
use crate::source::{Fingerprint, Span};
use std::collections::BTreeMap;

#[derive(Debug, clap::Args)]
pub(super) struct GenArgs {
    /// What to generate.
    #[arg(value_enum)]
    target: Target,
    /// Manifests (files or directories) to generate from (default: `.`, unless a live
    /// server is named); the word `builtin` stands for the runner's built-in tools
    /// (list_files, read_file, write_file, shell, fetch).
    paths: Vec<PathBuf>,
    /// Where to write: a file for the JSON targets and rust (default, or `-`: standard
    /// output), a directory for python (required).
    #[arg(short, long, value_name = "OUT")]
    pub(super) output: Option<PathBuf>,
    /// Overwrite existing files whose content differs (without it, they are listed and
    /// nothing is written).
    #[arg(long)]
    force: bool,
    /// List what would be written (new, changed, unchanged) and write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Write nothing; exit 1 and print a unified diff when the files on disk differ
    /// from what would be written (for CI: the committed output is up to date).
    /// Skeletons already there are yours and never count.
    #[arg(long, conflicts_with_all = ["dry_run", "force"])]
    check: bool,
    /// Generate even when the manifests have error-level findings, or the
    /// output has something the target refuses (under --strict: a property
    /// without a type, an object of free keys); without it, such output is
    /// reported as errors and nothing is written.
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
    /// and human on standard error; concise, json, sarif, github, gitlab, pylint and junit
    /// on standard output (so the document needs -o), like `toolc lint --format`.
    #[arg(long, visible_alias = "output-format", value_enum, default_value_t = ReportFormat::Brief)]
    format: ReportFormat,
    /// List every note on its own line (human: with its snippet). Without it, brief and
    /// human group them by field (indices, tool and parameter names as *) and message,
    /// with counts and the first positions of each group; the other formats always list
    /// every one.
    #[arg(long)]
    show_notes: bool,
    #[command(flatten)]
    read: ReadArgs,
    #[command(flatten)]
    live: LiveArgs,
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
    colors: super::Colors,
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
            value_name(args.format)
        )));
    }
    if args.check && args.format.on_stdout() {
        return Err(CliError::Usage(format!(
            "gen --check --format {}: the diff and the report would share standard output; use --format human",
            value_name(args.format)
        )));
    }
    let mut reporting = Reporting {
        format: args.format,
        colors,
        out,
        err,
    };
    let builtin = args.paths.iter().any(|p| p.as_os_str() == "builtin");
    let mut paths: Vec<PathBuf> = args
        .paths
        .iter()
        .filter(|p| p.as_os_str() != "builtin")
        .cloned()
        .collect();
    if args.paths.is_empty() && !args.live.any() {
        paths.push(PathBuf::from("."));
    }
    let held = args.live.fetch(&paths)?;
    let work = Work::of(args.target, args.strict);
    let emit_options = emit::Options {
        templates: &templates,
        strict: args.strict,
        style: args.style,
    };
    let listing = findings::Listing::unless(args.show_notes, "--show-notes");
    // A grouped report shows a few positions: their files are read again
    // then, rather than every text with a note kept meanwhile.
    let keep_sources = !listing.groups_in(args.format);
    let keep = |manifest: Manifest| reduce(work, manifest, &emit_options, keep_sources);
    let reload = |again: ReadAgain<'_>| reload(&args.read, args.output.as_ref(), &held, again);
    let read = if paths.is_empty() && held.is_empty() {
        Some(ForWriting::default())
    } else {
        super::read_for_writing(
            &args.read,
            super::live_args::Inputs {
                paths: &paths,
                held: &held,
            },
            args.output.as_ref(),
            args.allow_errors,
            "not generating from manifests with errors (pass --allow-errors to generate anyway)",
            &mut reporting,
            &keep,
        )?
    };
    let Some(mut reading) = read else {
        return Ok(Outcome::Refused);
    };
    if builtin {
        let set = crate::run::builtin::toolset();
        let names = set.tools.iter().map(|t| t.name.clone()).collect();
        reading.parts.push(Part {
            path: set.path.clone(),
            names,
            source_of_tools: true,
            generated: false,
            source: None,
            file: PathBuf::new(),
            fingerprint: None,
            kept: reduce_set(work, set, None, None, &emit_options),
        });
    }
    let advice = "one request cannot offer two tools with the same name; generate from fewer manifests or rename";
    if super::refuse_name_clashes(&reading.parts, args.allow_errors, advice, reporting.err)? {
        return Ok(Outcome::Refused);
    }
    let texts = super::texts_of(&reading.parts);
    let (output, diagnostics, record) =
        join(args.target, work, reading.parts, &emit_options, &reload)?;
    let errors = findings::errors_in(&diagnostics);
    let mut report = findings::report(&reading.report, diagnostics);
    if !keep_sources {
        findings::reread_shown(&mut report, &texts);
    }
    findings::show(&mut reporting, &report, listing)?;
    let Reporting { out, err, .. } = reporting;
    let target = match (args.target, args.strict) {
        (Target::Openai, true) => "openai --strict".to_string(),
        (target, _) => value_name(target),
    };
    if findings::refuse_on_errors(errors, args.allow_errors, &target, err)? {
        return Ok(Outcome::Refused);
    }
    let mode = write::WriteMode {
        force: args.force,
        dry_run: args.dry_run,
        check: args.check,
    };
    if let Some(record) = record {
        let wrote = write_record(&mode, args.output.as_deref(), &record, out, err)?;
        if !matches!(wrote, Outcome::Clean) {
            return Ok(wrote);
        }
    }
    match output {
        Output::Document(text) => {
            write::write_document(&mode, args.output.as_deref(), &[text], out, err)
        }
        Output::Pieces(pieces) => {
            write::write_document(&mode, args.output.as_deref(), &pieces, out, err)
        }
        Output::Tree(files) => {
            let dir = args.output.as_deref().unwrap_or(Path::new("."));
            write::write_tree(&mode, dir, &files, &[], out, err)
        }
    }
}

/// Writes the record of renamed parameters beside the document `output`
/// (see `formats::carry::SIDECAR_SUFFIX`), first, so that a document never
/// goes out without it; on standard output there is no beside, and the
/// record is not kept (said on `err`).
pub(super) fn write_record(
    mode: &write::WriteMode,
    output: Option<&Path>,
    record: &serde_json::Value,
    out: &mut dyn std::io::Write,
    err: &mut dyn std::io::Write,
) -> Result<Outcome, CliError> {
    let Some(output) = output else {
        writeln!(
            err,
            "warning: the record of the renamed parameters is written beside an output file (-o FILE gets FILE{}); on standard output it is not kept",
            crate::formats::carry::SIDECAR_SUFFIX
        )?;
        return Ok(Outcome::Clean);
    };
    let text = crate::emit::json_document(record)?;
    let path = crate::formats::carry::sidecar_path(output);
    write::write_document(mode, Some(&path), &[text], out, err)
}

/// How a target is generated: the provider documents a tool at a time on
/// the workers, code (whose templates see every tool at once) from the IR
/// the workers keep.
#[derive(Debug, Clone, Copy)]
enum Work {
    Json(JsonTarget),
    /// The module's tools made ready on the workers, put together in order.
    Rust,
    FromIr,
}

impl Work {
    fn of(target: Target, strict: bool) -> Work {
        match target {
            Target::Openai => Work::Json(JsonTarget::Openai { strict }),
            Target::Anthropic => Work::Json(JsonTarget::Anthropic),
            Target::Mcp => Work::Json(JsonTarget::Mcp),
            Target::Gemini => Work::Json(JsonTarget::Gemini),
            Target::Rust => Work::Rust,
            Target::Python => Work::FromIr,
        }
    }
}

/// What gen keeps of one manifest.
#[derive(Debug)]
struct GenPart {
    /// The tools whose parameters the manifest does not hold.
    unknown: Vec<Diagnostic>,
    /// The generator's notes, positioned.
    notes: Vec<Diagnostic>,
    output: PartOutput,
    /// Each tool's parameters the target had to rename (new, original),
    /// for the record beside the document.
    renamed: Vec<(String, Vec<(String, String)>)>,
}

#[derive(Debug)]
enum PartOutput {
    /// The manifest's tools, serialized in place.
    Json(Result<JsonItems, EmitError>),
    /// The module's part, and what the manifest's package code gave its IR
    /// ([`crate::project::PackageCode::fingerprint`]), to read it again
    /// when the part's names are taken (`None`: the built-in tools).
    Rust(Result<RustPart, EmitError>, Option<u64>),
    /// The IR, and the map that positions the notes about it.
    Ir(Box<ToolSet>, Option<SourceMap>),
}

/// What a run kept of a manifest to read its IR again: where it is, how
/// it is shown, and what the first read saw (its text's fingerprint, and
/// [`crate::project::PackageCode::fingerprint`]).
struct ReadAgain<'a> {
    file: &'a Path,
    path: &'a str,
    text: Option<Fingerprint>,
    code: u64,
}

/// Reduces a manifest, on its worker, to what gen writes and says about it.
fn reduce(
    work: Work,
    manifest: Manifest,
    options: &emit::Options,
    keep_source: bool,
) -> Part<GenPart> {
    let names = manifest
        .toolset
        .tools
        .iter()
        .map(|t| t.name.clone())
        .collect();
    let path = manifest.path().to_string();
    let source_of_tools = crate::project::is_source(manifest.format(), manifest.generated);
    let generated = manifest.generated;
    let source = manifest.source;
    let file = manifest.file.clone();
    let fingerprint = Some(manifest.fingerprint);
    let map = Some(manifest.document.map);
    let code = Some(manifest.code.fingerprint);
    let kept = reduce_set(work, manifest.toolset, map, code, options);
    let shows = matches!(kept.output, PartOutput::Ir(..))
        || !kept.unknown.is_empty()
        || !kept.notes.is_empty();
    Part {
        path,
        names,
        source_of_tools,
        generated,
        source: (shows && keep_source).then_some(source),
        file,
        fingerprint,
        kept,
    }
}

fn reduce_set(
    work: Work,
    set: ToolSet,
    map: Option<SourceMap>,
    code: Option<u64>,
    options: &emit::Options,
) -> GenPart {
    let unknown = set
        .tools
        .iter()
        .filter(|tool| tool.parameters.is_none())
        .map(|tool| findings::parameters_unknown(&set.path, &tool.name, set.format.name()))
        .collect();
    let (output, notes) = match work {
        Work::Json(target) => match target.items(&set) {
            Ok((items, notes)) => (PartOutput::Json(Ok(items)), notes),
            Err(error) => (PartOutput::Json(Err(error)), Vec::new()),
        },
        Work::Rust => {
            let part = RustPart::of(&set, options);
            let notes = part
                .as_ref()
                .map(|p| p.notes().to_vec())
                .unwrap_or_default();
            (PartOutput::Rust(part, code), notes)
        }
        // Its generator runs over every manifest at once, at the end.
        Work::FromIr => {
            return GenPart {
                unknown,
                notes: Vec::new(),
                output: PartOutput::Ir(Box::new(set), map),
                renamed: Vec::new(),
            };
        }
    };
    let renamed = match work {
        Work::Json(target) => set
            .tools
            .iter()
            .map(|tool| (tool.name.clone(), target.renamed_parameters(tool)))
            .filter(|(_, pairs)| !pairs.is_empty())
            .collect(),
        _ => Vec::new(),
    };
    let notes = notes
        .into_iter()
        .map(|note| {
            let span = span_in(&set, map.as_ref(), &note);
            findings::note(span, note)
        })
        .collect();
    GenPart {
        unknown,
        notes,
        output,
        renamed,
    }
}

/// Where a note about `set` points, with its manifest's map.
fn span_in(set: &ToolSet, map: Option<&SourceMap>, note: &Note) -> Option<Span> {
    findings::span_of(map.filter(|_| note.path == set.path), &note.pointer)
}

/// Reads a manifest's IR again (see [`reload`]).
type Reload<'a> = dyn Fn(ReadAgain<'_>) -> Result<ToolSet, CliError> + 'a;

/// The output of every manifest's part, in order, and what gen says about
/// it: the tools without parameters first, then the notes.
fn join(
    target: Target,
    work: Work,
    parts: Vec<Part<GenPart>>,
    options: &emit::Options,
    reload: &Reload,
) -> Result<(Output, Vec<Diagnostic>, Option<serde_json::Value>), CliError> {
    let mut module = emit::rust::Module::new();
    let mut diagnostics = Vec::new();
    let mut notes = Vec::new();
    let mut items = Vec::new();
    let mut toolsets = Vec::new();
    let mut maps = BTreeMap::new();
    let mut renamed = Vec::new();
    for part in parts {
        diagnostics.extend(part.kept.unknown);
        notes.extend(part.kept.notes);
        renamed.extend(part.kept.renamed);
        match part.kept.output {
            PartOutput::Json(output) => items.push(output?),
            PartOutput::Rust(output, code) => {
                let added = module.add_part(output?);
                if !added {
                    // Another manifest took a name this one's tools took:
                    // they are named again, in order, from its IR.
                    let set = match code {
                        Some(code) => reload(ReadAgain {
                            file: &part.file,
                            path: &part.path,
                            text: part.fingerprint,
                            code,
                        })?,
                        None => crate::run::builtin::toolset(),
                    };
                    module.add_set(&set, options)?;
                }
            }
            PartOutput::Ir(set, map) => {
                if let Some(map) = map {
                    maps.insert(set.path.clone(), map);
                }
                toolsets.push(*set);
            }
        }
    }
    let output = match work {
        Work::Json(target) => Output::Pieces(JsonItems::pieces(
            items,
            target.tools_at(),
            &target.root_members(),
        )?),
        // The module's notes are the parts' (made where the maps were).
        Work::Rust => Output::Pieces(module.render_pieces(options)?.0),
        Work::FromIr => {
            let generated = match target {
                Target::Python => emit::python::generate(&toolsets, options),
                _ => emit::rust::generate(&toolsets, options),
            }?;
            notes.extend(generated.notes.into_iter().map(|note| {
                let span = findings::span_of(maps.get(&note.path), &note.pointer);
                findings::note(span, note)
            }));
            generated.output.into()
        }
    };
    diagnostics.extend(notes);
    Ok((
        output,
        diagnostics,
        crate::formats::carry::sidecar(&renamed),
    ))
}

/// What gen writes: a document (in pieces, when joined from the parts) or
/// a tree.
enum Output {
    Document(String),
    Pieces(Vec<String>),
    Tree(Vec<GeneratedFile>),
}

impl From<emit::Output> for Output {
    fn from(output: emit::Output) -> Output {
        match output {
            emit::Output::Document(text) => Output::Document(text),
            emit::Output::Tree(files) => Output::Tree(files),
        }
    }
}

/// The IR of the manifest `again` names, read again as the run read it:
/// its text must be the one the run linted, and its package code must
/// give the IR what it gave then, or gen would write what no check has
/// seen. A live server's document is read again from memory (`held`).
fn reload(
    read: &ReadArgs,
    output: Option<&PathBuf>,
    held: &[crate::project::HeldDocument],
    again: ReadAgain<'_>,
) -> Result<ToolSet, CliError> {
    let options = crate::lint::LintOptions {
        exclude: output.into_iter().cloned().collect(),
        ..read.options()
    };
    let linter = crate::lint::Linter::new(options)?;
    let project = match held.iter().find(|document| document.path == again.path) {
        Some(document) => linter.load_held(document)?,
        None => linter.load(&[again.file.to_path_buf()])?,
    };
    let manifest = project
        .manifests
        .into_iter()
        .next()
        .filter(|manifest| {
            Some(manifest.fingerprint) == again.text && manifest.code.fingerprint == again.code
        })
        .ok_or_else(|| CliError::InputChanged(again.path.to_string()))?;
    Ok(ToolSet {
        path: again.path.to_string(),
        ..manifest.toolset
    })
}

/// The name `--format` takes for `format`.
/// A value of an option as the command line spells it.
pub(super) fn value_name(value: impl ValueEnum) -> String {
    value
        .to_possible_value()
        .map(|v| v.get_name().to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Fingerprint;
    use clap::Parser;

    #[derive(Parser)]
    struct Read {
        #[command(flatten)]
        read: ReadArgs,
    }

    /// What a run that read `file` keeps to read it again: the
    /// fingerprints of its text and of what its code gave the IR.
    fn first_read(read: &ReadArgs, file: &Path) -> (Option<Fingerprint>, u64) {
        let project = crate::lint::Linter::new(read.options())
            .unwrap()
            .load(&[file.to_path_buf()])
            .unwrap();
        let manifest = &project.manifests[0];
        (Some(manifest.fingerprint), manifest.code.fingerprint)
    }

    /// gen rust reads a manifest again to name its tools apart from
    /// another's: it must generate from the text the run linted, and from
    /// what the package code gave the IR then, or not at all.
    #[test]
    fn a_manifest_read_again_must_hold_the_text_the_run_linted() {
        let dir = std::env::temp_dir().join(format!("toolc-reload-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("tools.json");
        let linted = r#"{"tools": [{"name": "get_time", "description": "Tell the time.", "schema": {"type": "object"}, "command": ["/bin/true"]}]}"#;
        std::fs::write(&file, linted).unwrap();
        let read = Read::parse_from(["toolc"]).read;
        let (text, code) = first_read(&read, &file);
        assert_eq!(text, Some(Fingerprint::of(linted)));
        let again = || ReadAgain {
            file: &file,
            path: "tools.json",
            text,
            code,
        };

        let set = reload(&read, None, &[], again()).unwrap();
        assert_eq!(set.tools[0].name, "get_time");

        let swapped = linted.replace("get_time", "rm_rf_ok");
        assert_eq!(swapped.len(), linted.len());
        std::fs::write(&file, swapped).unwrap();
        let refused = reload(&read, None, &[], again());
        assert!(matches!(refused, Err(CliError::InputChanged(ref p)) if p == "tools.json"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// An AgentStack tool's parameters come from `__init__.py`: a module
    /// changed since the run read it is refused, though `config.json` is
    /// the same.
    #[test]
    fn a_manifest_read_again_must_get_the_same_parameters_from_its_code() {
        let dir = std::env::temp_dir().join(format!("toolc-reload-code-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let config = r#"{"name": "clock", "category": "time", "tools": ["get_time"]}"#;
        std::fs::write(dir.join("config.json"), config).unwrap();
        let module = "def get_time(zone: str) -> str:\n    \"\"\"Tell the time.\n\n    Args:\n        zone: The time zone.\n    \"\"\"\n    return zone\n";
        std::fs::write(dir.join("__init__.py"), module).unwrap();
        let read = Read::parse_from(["toolc"]).read;
        let file = dir.join("config.json");
        let (text, code) = first_read(&read, &file);
        let again = || ReadAgain {
            file: &file,
            path: "config.json",
            text,
            code,
        };
        assert!(reload(&read, None, &[], again()).is_ok());

        std::fs::write(dir.join("__init__.py"), module.replace("zone", "rm_rf")).unwrap();
        let refused = reload(&read, None, &[], again());
        assert!(
            matches!(refused, Err(CliError::InputChanged(_))),
            "{refused:?}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
