//! `toolc convert`: manifests of one format into another, with a report of
//! every field the target cannot express.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::live_args::LiveArgs;
use super::render::ReportFormat;
use std::collections::BTreeMap;

use super::again::{Again, ReadAgain, Reload, reload};
use super::{CliError, Outcome, Part, ReadArgs, Reporting, findings, gen_cmd, write};
use crate::convert::{self, DocumentPart, DocumentRoot, FileKind, Place};
use crate::diagnostic::Diagnostic;
use crate::emit::{EmitError, GeneratedFile, templates::Templates};
use crate::ir::{Format, ToolSet};
use crate::json::{Document, SourceMap};
use crate::project::Manifest;
use crate::source::{Fingerprint, Source, Span};

#[derive(Debug, clap::Args)]
pub(super) struct ConvertArgs {
    /// Manifests to convert: files, tool directories or whole trees.
    ///
    /// None are needed when a live server is named.
    #[arg(required_unless_present_any = ["mcp_stdio", "mcp_url"])]
    paths: Vec<PathBuf>,
    /// The format to write.
    ///
    /// openai-responses and gemini, which toolc reads, are written by `toolc gen`.
    #[arg(long, value_name = "FORMAT", value_parser = super::values::written_format())]
    to: Format,
    /// Where to write: a directory, or a file for openai, anthropic and mcp.
    ///
    /// nora, agentstack and nachos: a directory (a directory per tool
    /// or package); agentcli: a directory (OUT/tools.json); openai, anthropic, mcp: a
    /// file (default, or `-`: standard output).
    #[arg(short, long, value_name = "OUT", help_heading = super::heading::WRITING)]
    pub(super) output: Option<PathBuf>,
    /// Turn every loss into an error: write nothing, exit 1.
    ///
    /// The losses are reported like the warnings, grouped unless --show-losses.
    #[arg(long, help_heading = super::heading::WRITING)]
    strict: bool,
    /// Start each manifest written with a "$schema" key, for editors.
    ///
    /// The key names its format's JSON Schema (what `toolc schema FORMAT` prints). Not
    /// for openai and anthropic, whose documents are arrays.
    #[arg(long, help_heading = super::heading::WRITING)]
    schema_key: bool,
    /// List every loss and note on its own (human: with its snippet).
    ///
    /// Without it, human and brief group them by rule, field (indices, tool and parameter names as *,
    /// e.g. /tools/*/timeoutSec) and message, with counts and the first positions of
    /// each group; the other formats always list every one.
    #[arg(long, help_heading = super::heading::OUTPUT)]
    show_losses: bool,
    /// Overwrite manifests whose content differs.
    ///
    /// Without it, they are listed and nothing is written. Code skeletons are never
    /// overwritten.
    #[arg(long, help_heading = super::heading::WRITING)]
    force: bool,
    /// List what would be written (new, changed, unchanged) and write nothing.
    #[arg(long, help_heading = super::heading::WRITING)]
    dry_run: bool,
    /// Write nothing; exit 1 with a diff when the files on disk are out of date.
    ///
    /// For CI: the committed output is what would be written. Skeletons already there
    /// are yours and never count.
    #[arg(long, conflicts_with_all = ["dry_run", "force"], help_heading = super::heading::WRITING)]
    check: bool,
    /// Convert even from manifests with errors, or what the target refuses.
    ///
    /// Without it, error-level findings in the manifests, or output the target refuses
    /// (a property name NORA cannot spell, a NORA parameter without a type), are
    /// reported as errors and nothing is written.
    #[arg(long, help_heading = super::heading::WRITING)]
    allow_errors: bool,
    /// How to report losses and notes.
    ///
    /// human (with the source line) and brief on standard error; concise, json (the lint JSON contract), sarif, github, gitlab,
    /// pylint and junit on standard output (so openai, anthropic and mcp need -o), like
    /// `toolc lint --format`.
    #[arg(long, visible_alias = "output-format", value_enum, default_value_t = ReportFormat::Human, help_heading = super::heading::OUTPUT)]
    format: ReportFormat,
    /// Use the templates in this directory in place of the built-in ones.
    ///
    /// Each replaces the built-in template of the same relative path (the code
    /// skeletons: python/..., nachos/...).
    #[arg(long, value_name = "DIR", help_heading = super::heading::WRITING)]
    templates: Option<PathBuf>,
    #[command(flatten)]
    read: ReadArgs,
    #[command(flatten)]
    live: LiveArgs,
}

pub(super) fn run(
    args: &ConvertArgs,
    colors: super::Colors,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Outcome, CliError> {
    if !convert::writes(args.to) {
        return Err(CliError::Usage(
            convert::unsupported_target(args.to).to_string(),
        ));
    }
    if args.schema_key && !convert::has_object_root(args.to) {
        return Err(CliError::Usage(format!(
            "convert --to {} --schema-key: the document is an array, with no place for a \"$schema\" key",
            args.to
        )));
    }
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
            gen_cmd::value_name(args.format)
        )));
    }
    if args.check && args.format.on_stdout() {
        return Err(CliError::Usage(format!(
            "convert --check --format {}: the diff and the report would share standard output; use --format human",
            gen_cmd::value_name(args.format)
        )));
    }
    let mut reporting = Reporting {
        format: args.format,
        colors,
        out,
        err,
    };
    let templates = Templates::new(args.templates.as_deref())?;
    let (to, strict) = (args.to, args.strict);
    let listing = findings::Listing::unless(args.show_losses, "--show-losses");
    // A grouped report shows a few positions: their files are read again
    // then, rather than every text with a loss kept meanwhile.
    let keep_sources = !listing.groups_in(args.format);
    let out_dir = args.output.as_deref().filter(|_| !document);
    let options = convert::Options {
        templates: &templates,
        out_dir,
        schema_key: args.schema_key,
    };
    let how = How {
        to,
        strict,
        keep_source: keep_sources,
    };
    let keep = |manifest: Manifest| reduce(manifest, how, &options);
    let held = args.live.fetch(&args.paths)?;
    let reload = |again: ReadAgain<'_>| reload(&args.read, args.output.as_ref(), &held, again);
    let Some(reading) = super::read_for_writing(
        &args.read,
        super::live_args::Inputs {
            paths: &args.paths,
            held: &held,
        },
        args.output.as_ref(),
        args.allow_errors,
        "not converting manifests with errors (pass --allow-errors to convert anyway)",
        &mut reporting,
        &keep,
    )?
    else {
        return Ok(Outcome::Refused);
    };
    if reading.parts.iter().all(|part| part.names.is_empty()) {
        return Err(CliError::Usage(
            "the paths hold no tool to convert".to_string(),
        ));
    }
    // Two tools of one name in what convert writes: a manifest (or
    // request) toolc lint rejects, as gen refuses to write one.
    let advice = format!(
        "nothing was written: two tools would share a name in the {} output; convert fewer manifests or rename",
        args.to
    );
    if super::refuse_name_clashes(&reading.parts, args.allow_errors, &advice, reporting.err)? {
        return Ok(Outcome::Refused);
    }
    let texts = super::texts_of(&reading.parts);
    let joined = join(reading.parts, how, &options, &reload)?;
    let mut diagnostics = joined.diagnostics;
    // Counted before --strict makes the losses errors: those are refused
    // below, on their own terms.
    let errors = findings::errors_in(&diagnostics);
    // On every core: converting a corpus loses fields by the hundred
    // thousand, and this sort runs after the workers are done.
    rayon::slice::ParallelSliceMut::par_sort_by(&mut diagnostics[..], Diagnostic::sort_key_cmp);
    let mut report = findings::report(&reading.report, diagnostics);
    for source in joined.sources {
        report.sources.entry(source.path.clone()).or_insert(source);
    }
    if !keep_sources {
        findings::reread_shown(&mut report, &texts);
    }
    findings::show(&mut reporting, &report, listing)?;
    let Reporting { out, err, .. } = reporting;
    if args.strict && joined.losses > 0 {
        writeln!(
            err,
            "error: nothing was written: {} field(s) cannot be expressed in {} (--strict)",
            joined.losses, args.to
        )?;
        return Ok(Outcome::Refused);
    }
    if findings::refuse_on_errors(errors, args.allow_errors, args.to.name(), err)? {
        return Ok(Outcome::Refused);
    }
    let mode = write::WriteMode {
        force: args.force,
        dry_run: args.dry_run,
        check: args.check,
    };
    if document {
        // With --format json, -o is given (checked above): the report alone
        // goes to standard output.
        let generator = format!("toolc convert --to {}", args.to);
        let document = super::gen_cmd::SignedDocument {
            generator: &generator,
            pieces: joined.pieces,
            renamed: &joined.renamed,
        };
        return super::gen_cmd::write_signed(&mode, args.output.as_deref(), document, out, err);
    }
    let dir = args.output.as_deref().unwrap_or(Path::new("."));
    let skeletons_kept = kept_skeletons(dir, &joined.files);
    let files: Vec<GeneratedFile> = joined
        .files
        .into_iter()
        .map(|f| GeneratedFile {
            path: f.path,
            contents: f.contents,
            kind: f.kind,
        })
        .collect();
    write::write_tree(&mode, dir, &files, &skeletons_kept, out, err)
}

/// What convert keeps of one manifest.
#[derive(Debug)]
enum ConvertPart {
    /// Converted on its worker (one-document targets).
    Document {
        /// Its losses and notes, positioned.
        diagnostics: Vec<Diagnostic>,
        losses: usize,
        converted: Result<DocumentPart, EmitError>,
        /// Where each of `root_fields` is, for the loss a later manifest's
        /// different value would be.
        root_spans: Vec<Option<Span>>,
    },
    /// Converted on its worker as if alone (NORA, AgentStack, Nachos: see
    /// [`convert::convert_apart`]), with what reading its manifest again
    /// needs ([`crate::project::PackageCode::fingerprint`]).
    Tree {
        diagnostics: Vec<Diagnostic>,
        losses: usize,
        converted: Placed,
        code: u64,
    },
    /// The IR, and the map positioning the losses and notes about it
    /// (agentcli: its one file is written from every manifest at once).
    Ir(Box<ToolSet>, Arc<Document>),
}

/// A manifest's files, where it assumed they go (or why it could not be
/// converted there: see [`convert::TreePart::converted`]).
#[derive(Debug)]
struct Placed {
    files: Result<Vec<convert::OutputFile>, EmitError>,
    place: Option<Place>,
    position: Option<usize>,
}

/// What convert is asked for, as each worker needs it.
#[derive(Debug, Clone, Copy)]
struct How {
    to: Format,
    strict: bool,
    /// Whether a manifest with findings keeps its text for the report.
    keep_source: bool,
}

/// Reduces a manifest, on its worker, to what convert writes and says
/// about it.
fn reduce(manifest: Manifest, how: How, options: &convert::Options) -> Part<ConvertPart> {
    let How {
        to,
        strict,
        keep_source,
    } = how;
    if convert::converts_apart(to) {
        return reduce_tree(manifest, how, options);
    }
    if !convert::writes_document(to) {
        let part = Part::of(&manifest, ()).with_source(&manifest);
        let kept = ConvertPart::Ir(Box::new(manifest.toolset), manifest.document);
        return part.with(kept);
    }
    // The part first: converting consumes the IR.
    let part = Part::of(&manifest, ());
    let Manifest {
        toolset,
        document,
        source,
        ..
    } = manifest;
    // Dropped now unless the report may want it (see `reduce_tree`).
    let source = keep_source.then_some(source);
    let map = Some(&document.map);
    let mut converted = convert::convert_to_document(toolset, to);
    let (mut diagnostics, mut losses, mut root_spans) = (Vec::new(), 0, Vec::new());
    if let Ok(converted) = &mut converted {
        // Moved out: the diagnostics are what is reported from here on.
        let (lost, notes) = (
            std::mem::take(&mut converted.losses),
            std::mem::take(&mut converted.notes),
        );
        (diagnostics, losses) = positioned(lost, notes, &|_| map, strict);
        root_spans = converted
            .root_fields
            .iter()
            .map(|field| findings::span_of(map, &field.at))
            .collect();
    }
    let shows = !diagnostics.is_empty() || !root_spans.is_empty();
    let kept = ConvertPart::Document {
        diagnostics,
        losses,
        converted,
        root_spans,
    };
    let mut part = part.with(kept);
    part.source = source.filter(|_| shows);
    part
}

/// [`reduce`] for a tree target converted a manifest at a time.
fn reduce_tree(manifest: Manifest, how: How, options: &convert::Options) -> Part<ConvertPart> {
    let part = Part::of(&manifest, ());
    let code = manifest.code.fingerprint;
    let Manifest {
        toolset,
        document,
        source,
        ..
    } = manifest;
    // A text not kept for the report goes now, not after the manifest is
    // converted: one big manifest is most of a run's memory.
    let source = how.keep_source.then_some(source);
    let map = Some(&document.map);
    let (mut diagnostics, mut losses) = (Vec::new(), 0);
    let convert::TreePart {
        converted,
        place,
        position,
    } = convert::convert_apart(toolset, how.to, options);
    let files = converted.map(|converted| {
        (diagnostics, losses) = positioned(converted.losses, converted.notes, &|_| map, how.strict);
        let mut files = converted.files;
        // Kept until the whole tree is written: no room to spare.
        for file in &mut files {
            file.contents.shrink_to_fit();
        }
        files
    });
    // A manifest converted again at the end (its place taken, its package
    // shared) is read again then, its text with it.
    let converted = Placed {
        files,
        place,
        position,
    };
    let shows = !diagnostics.is_empty();
    let mut part = part.with(ConvertPart::Tree {
        diagnostics,
        losses,
        converted,
        code,
    });
    part.source = source.filter(|_| shows);
    part
}

/// Losses and notes as diagnostics, each where it points in its
/// manifest's map (`map_of` its path), and how many losses there are.
fn positioned<'a>(
    losses: Vec<convert::Loss>,
    notes: Vec<crate::emit::Note>,
    map_of: &dyn Fn(&str) -> Option<&'a SourceMap>,
    strict: bool,
) -> (Vec<Diagnostic>, usize) {
    let count = losses.len();
    let mut diagnostics = Vec::with_capacity(count + notes.len());
    diagnostics.extend(losses.into_iter().map(|loss| {
        let span = findings::span_of(map_of(&loss.path), &loss.pointer);
        findings::loss(span, loss, strict)
    }));
    diagnostics.extend(notes.into_iter().map(|note| {
        let span = findings::span_of(map_of(&note.path), &note.pointer);
        findings::note(span, note)
    }));
    (diagnostics, count)
}

/// What the manifests' parts make together.
struct Joined {
    /// The document of a one-document target, in pieces.
    pieces: Vec<String>,
    /// The files of a tree.
    files: Vec<convert::OutputFile>,
    diagnostics: Vec<Diagnostic>,
    losses: usize,
    /// Each tool's renamed parameters (one-document targets).
    renamed: Vec<(String, Vec<(String, String)>)>,
    /// The texts of the manifests read again at the end (trees): their
    /// findings were made then, and the report may show them.
    sources: Vec<Source>,
}

fn join(
    parts: Vec<Part<ConvertPart>>,
    how: How,
    options: &convert::Options,
    reload: &Reload,
) -> Result<Joined, CliError> {
    let (to, strict) = (how.to, how.strict);
    let mut joined = Joined {
        pieces: Vec::new(),
        files: Vec::new(),
        diagnostics: Vec::new(),
        losses: 0,
        renamed: Vec::new(),
        sources: Vec::new(),
    };
    let mut root = DocumentRoot::with_schema_key(to, options);
    let mut items = Vec::new();
    let mut toolsets = Vec::new();
    let mut maps = BTreeMap::new();
    let mut trees = Vec::new();
    for part in parts {
        match part.kept {
            ConvertPart::Document {
                diagnostics,
                losses,
                converted,
                root_spans,
            } => {
                let converted = converted?;
                joined.diagnostics.extend(diagnostics);
                joined.losses += losses;
                for (field, span) in converted.root_fields.iter().zip(root_spans) {
                    if let Some(loss) = root.place(&part.path, field) {
                        joined.losses += 1;
                        joined.diagnostics.push(findings::loss(span, loss, strict));
                    }
                }
                joined.renamed.extend(converted.renamed);
                items.push(converted.items);
            }
            ConvertPart::Tree {
                diagnostics,
                losses,
                converted,
                code,
            } => trees.push(TreePart {
                converted,
                source: None,
                diagnostics,
                losses,
                again: (part.file, part.path, part.fingerprint, code),
                names: part.names,
            }),
            ConvertPart::Ir(set, map) => {
                maps.insert(set.path.clone(), map);
                toolsets.push(*set);
            }
        }
    }
    if convert::writes_document(to) {
        joined.pieces = root.pieces(items)?;
        return Ok(joined);
    }
    if convert::converts_apart(to) {
        place_trees(&mut trees, how, options, reload)?;
        for tree in trees {
            joined.diagnostics.extend(tree.diagnostics);
            joined.losses += tree.losses;
            joined.files.extend(tree.converted.files?);
            if let Some(source) = tree.source {
                joined.sources.push(source);
            }
        }
        return Ok(joined);
    }
    let converted = convert::convert(&toolsets, to, options)?;
    let map_of = |path: &str| maps.get(path).map(|document: &Arc<Document>| &document.map);
    (joined.diagnostics, joined.losses) =
        positioned(converted.losses, converted.notes, &map_of, strict);
    joined.files = converted.files;
    Ok(joined)
}

/// A manifest converted into a tree on its worker, at the join.
struct TreePart {
    converted: Placed,
    /// Its text, when it was read again (see [`Joined::sources`]).
    source: Option<Source>,
    diagnostics: Vec<Diagnostic>,
    losses: usize,
    /// Where its manifest is, as shown, its text's fingerprint and its
    /// code's (see [`ReadAgain`]).
    again: (PathBuf, String, Option<Fingerprint>, u64),
    names: Vec<String>,
}

impl TreePart {
    /// Why the part could not be converted where it stays, if it could not.
    fn failure(&mut self) -> Result<(), EmitError> {
        if self.converted.files.is_ok() {
            return Ok(());
        }
        std::mem::replace(&mut self.converted.files, Ok(Vec::new())).map(drop)
    }

    fn read_again(&self, reload: &Reload) -> Result<Again, CliError> {
        let (file, path, text, code) = &self.again;
        reload(ReadAgain {
            file,
            path,
            text: *text,
            code: *code,
        })
    }
}

/// Puts the trees' parts in the order convert writes the manifests, and
/// gives each its place after those before it: a manifest whose
/// directories an earlier one took, and the manifests of an AgentStack
/// package they share, are read again and converted again there, with
/// findings of their own.
fn place_trees(
    trees: &mut [TreePart],
    how: How,
    options: &convert::Options,
    reload: &Reload,
) -> Result<(), CliError> {
    convert::recorded_order(trees, |tree| tree.converted.position);
    let mut places = convert::Places::default();
    // The parts of each package, in order (AgentStack), and where each
    // package is among them.
    let mut packages: Vec<(String, Vec<usize>)> = Vec::new();
    let mut package_at: std::collections::HashMap<String, usize> = Default::default();
    // In the order convert writes them, so that of two manifests that
    // cannot be converted, the first is named, as converting them all at
    // once would.
    for at in 0..trees.len() {
        let Some(alone) = trees[at].converted.place.clone() else {
            trees[at].failure()?;
            continue;
        };
        let place = places.take(&alone, &trees[at].names);
        if let Place::Package(name) = &place {
            match package_at.get(name) {
                Some(&index) => packages[index].1.push(at),
                None => {
                    package_at.insert(name.clone(), packages.len());
                    packages.push((name.clone(), vec![at]));
                }
            }
        } else if place != alone {
            convert_again(trees, &[at], &place, how, options, reload)?;
        } else {
            trees[at].failure()?;
        }
    }
    for (name, members) in packages {
        if let [alone] = members[..] {
            trees[alone].failure()?;
        } else {
            convert_again(trees, &members, &Place::Package(name), how, options, reload)?;
        }
    }
    Ok(())
}

/// Converts the manifests of `members` again, together, into `place`:
/// their files and findings replace those made alone, all given to the
/// first.
fn convert_again(
    trees: &mut [TreePart],
    members: &[usize],
    place: &Place,
    how: How,
    options: &convert::Options,
    reload: &Reload,
) -> Result<(), CliError> {
    let mut sets = Vec::new();
    let mut maps = BTreeMap::new();
    for &at in members {
        let (set, document, source) = trees[at].read_again(reload)?;
        maps.insert(set.path.clone(), document);
        sets.push(set);
        let tree = &mut trees[at];
        tree.diagnostics.clear();
        tree.losses = 0;
        tree.converted.files = Ok(Vec::new());
        tree.source = Some(source);
    }
    let converted = convert::convert_placed(sets, how.to, place, options)?;
    let map_of = |path: &str| maps.get(path).map(|document: &Arc<Document>| &document.map);
    let first = &mut trees[members[0]];
    (first.diagnostics, first.losses) =
        positioned(converted.losses, converted.notes, &map_of, how.strict);
    first.converted.files = Ok(converted.files);
    Ok(())
}

/// The skeleton files of the tool and package directories that are in the
/// output already: left as they are, and no stray files.
fn kept_skeletons(dir: &Path, files: &[convert::OutputFile]) -> Vec<PathBuf> {
    let mut kept = Vec::new();
    let mut tool_dirs: Vec<PathBuf> = files
        .iter()
        .filter(|f| f.kind == FileKind::Owned)
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
