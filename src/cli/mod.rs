//! The command-line interface: argument parsing and one module per
//! subcommand. Each subcommand returns an `Outcome` or a [`CliError`];
//! `error::exit_code` is the one place that chooses the exit code.
//!
//! Exit codes: `0` no error-level finding; `1` at least one error-level
//! finding (or a generator refused to emit from broken manifests); `2` the
//! run itself failed (a bad flag, a named path that does not exist, an
//! output file that could not be written).

mod again;
mod call_cmd;
mod convert_cmd;
mod diff;
mod error;
mod explain;
mod findings;
mod gen_cmd;
mod gen_rust;
mod lint_cmd;
mod live_args;
mod lock_cmd;
mod nats_args;
mod render;
mod run_cmd;
mod serve_cmd;
mod show_settings;
mod snippet;
mod staged;
mod values;
mod write;

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand, ValueEnum};

use crate::ir::Format;
use crate::lint::select::Selector;
use crate::lint::{Level, Rule, Target};
use crate::project::config;

pub use error::CliError;
use error::Outcome;
use staged::write_atomically;

#[derive(Debug, Parser)]
#[command(
    name = "toolc",
    version,
    about = "A compiler for LLM-agent tool manifests: lint them, generate provider tool JSON and code from them, convert them between formats, run and serve their tools.",
    long_about = "toolc reads the tool manifests agent frameworks use (NORA tool.json, agentcli tools.json, \
AgentStack config.json, Nachos manifest.json, and OpenAI, Anthropic and MCP tool JSON), checks them with \
precise diagnostics, generates provider tool JSON, Rust stubs and Python skeletons from them, and converts \
them from one format into another, reporting what the target cannot express. It runs their tools \
(validated, under a policy and a sandbox) and serves them to MCP clients; lint, gen and convert also \
read the tools of a running MCP server (--mcp-stdio, --mcp-url).\n\n\
Exit codes: 0 no error-level finding, 1 at least one error-level finding, 2 the run itself failed \
(run and serve say their own in their help)."
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    /// When to color human output.
    ///
    /// auto: when the stream it goes to, standard output or standard error, is a
    /// terminal that supports it; NO_COLOR or CLICOLOR=0 turn it off, FORCE_COLOR or
    /// CLICOLOR_FORCE on.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, help_heading = heading::GLOBAL)]
    color: ColorChoice,
}

/// The headings `--help` groups a command's flags under, as ruff's are
/// grouped; flags under none are listed first, as "Options".
mod heading {
    pub(super) const RULES: &str = "Rule selection";
    pub(super) const FILES: &str = "File selection";
    pub(super) const OUTPUT: &str = "Output";
    pub(super) const FIXING: &str = "Fixing";
    pub(super) const WRITING: &str = "Writing";
    pub(super) const LIVE: &str = "Live servers";
    pub(super) const NATS: &str = "NATS login";
    pub(super) const LOCK: &str = "Lock file";
    pub(super) const GLOBAL: &str = "Global options";
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
    /// then by content (which wins when it clearly is another format). config.json and
    /// manifest.json are linted only when their content is a manifest, even when named;
    /// files left alone are counted, and listed with --show-skipped.
    Lint(lint_cmd::LintArgs),
    /// Generate provider tool JSON from manifests.
    Gen(gen_cmd::GenArgs),
    /// Convert manifests into another format, reporting what the target cannot express.
    ///
    /// Writes the target's real layout: nora OUT/<tool>/tool.json (and the entrypoint
    /// skeleton), agentcli OUT/tools.json, agentstack OUT/<package>/config.json (and
    /// __init__.py), nachos OUT/<tool>/manifest.json (and a TypeScript class), openai,
    /// anthropic and mcp one document. Fields the target cannot express are reported as
    /// conversion-loss warnings at their place in the source and, where the target
    /// tolerates extra keys, kept in an "x-toolc" object that converting back reads.
    /// What the target requires and the source lacks is filled with a marked
    /// placeholder and a warning (a NORA description: "TODO: describe ..."); what the
    /// target cannot accept at all (a NORA parameter without a type) is an error, and
    /// then nothing is written (exit 1); a parameter name it cannot spell is renamed
    /// (`max-bytes` is `max_bytes` in NORA), said in an info and recorded so that
    /// converting back and running the tool restore it. Everything written
    /// lints without errors. Provider documents are adapted as `toolc gen` adapts them.
    /// Code skeletons are written only where none exists; manifests that differ are
    /// only overwritten with --force.
    Convert(convert_cmd::ConvertArgs),
    /// Call one tool of a manifest and print its result as one JSON line.
    ///
    /// The arguments are validated against the tool's parameters, the policy decides
    /// (default safety rules, Nachos security tiers, AgentStack permissions, --policy
    /// rules), and the tool runs: agentcli commands as their argv with the arguments on
    /// stdin, NORA scripts and AgentStack functions through toolc's Python bootstrap. The
    /// process runs in its own user, PID, mount and IPC namespaces (everything it starts
    /// is killed when the call ends), in an empty network namespace when it declares no
    /// network, with a scrubbed environment (PATH, HOME and the declared
    /// passthrough variables), an output cap, a memory limit when the manifest gives one,
    /// and Landlock rules confining its files and, without network, its TCP connections.
    ///
    /// Exit codes: 0 the tool succeeded, 1 it failed or was refused (the JSON line says
    /// why), 2 the call could not be made (bad flags or arguments, a broken manifest),
    /// 130, 143, 129 toolc was stopped by SIGINT, SIGTERM, SIGHUP (the call cancelled).
    Run(run_cmd::RunArgs),
    /// Call one tool of a NATS fleet and print its result as one JSON line.
    ///
    /// The fleet's workers are toolc workers or Nachos tool workers; the result is
    /// printed as `toolc run` prints it. The request is a Nachos envelope on nachos.tool.<TOOL>.request. No responders and
    /// a busy worker are retried with backoff within --timeout; a request that gets no
    /// answer is sent again (with the same envelope id, so a worker answers it from its
    /// cache) only when the tool is idempotent (--idempotent, or idempotentHint in its
    /// workers' $SRV.INFO annotations).
    ///
    /// Exit codes: 0 the tool succeeded, 1 it failed or was refused (the JSON line says
    /// why), 2 the call could not be made (bad flags or arguments, an unreachable server,
    /// refused credentials), 3 no worker serves the tool, 4 an idempotent tool answered
    /// no attempt in time, 5 the tool did not answer in time and may have run (outcome
    /// unknown).
    Call(call_cmd::CallArgs),
    // Serve the tools of manifests to MCP clients. Its help names the protocol
    // revisions served, which are listed once (providers::mcp), so it is written
    // in serve_cmd (ABOUT, long_about) rather than here.
    #[command(about = serve_cmd::ABOUT, long_about = serve_cmd::long_about())]
    Serve(Box<serve_cmd::ServeArgs>),
    /// Pin the tools of manifests and live MCP servers in toolc.lock, against rug pulls.
    ///
    /// For each source (a file's path as lint shows it, or mcp://<server name>) and each
    /// tool, toolc.lock holds the definition a model sees (name, title, description,
    /// input and output schemas, annotations) and the SHA-256 of its canonical JSON (RFC
    /// 8785). `toolc lint --locked` and `toolc serve --locked` then report or refuse any
    /// tool added, removed or changed since. Writes a new lock file, or one that would not
    /// change; an existing lock file that would change is rewritten only with --update.
    ///
    /// Exit codes: 0 written or up to date, 1 the lock file would change and --update was
    /// not given (the changes are listed), 2 the run failed (a bad flag, an unreadable
    /// lock file, a server that could not be read).
    Lock(lock_cmd::LockArgs),
    /// Run the language server: toolc's findings in an editor, as you type.
    ///
    /// Speaks the Language Server Protocol (3.17) over standard input and output; an
    /// editor starts it (the VS Code extension in editors/vscode, or Neovim, Helix and
    /// Zed configured as the README shows). It checks every format toolc reads, from the
    /// editor's unsaved text, code files included (an AgentStack __init__.py, a Nachos
    /// package's TypeScript), with each file's toolc.toml; offers a quick fix per
    /// fixable finding, source.fixAll.toolc (safe fixes), "ignore this rule in this
    /// file", hover, document symbols, go to definition and completion of keys and values
    /// from the format's schema. Settings, as
    /// initializationOptions or the "toolc" section of workspace/didChangeConfiguration:
    /// {"configuration": "path/to/toolc.toml", "select": [...], "ignore": [...],
    /// "targets": [...]}. Logs go to standard error.
    ///
    /// Exit codes: 0 the client shut the server down in order (shutdown, then exit),
    /// 1 it went away or said exit without shutdown.
    Server,
    /// Print a format's JSON Schema, the one lint checks manifests against.
    ///
    /// Each has a stable $id and is valid JSON Schema 2020-12, so editors can use it
    /// without toolc: name it in a manifest's "$schema" key (lint accepts the key; gen and
    /// convert write it with --schema-key), or map files to it in the editor's settings
    /// (VS Code's json.schemas). The same files are in the repository's schemas/
    /// directory, with the entries prepared for the SchemaStore catalog.
    Schema {
        /// The format.
        #[arg(value_name = "FORMAT", value_parser = values::format())]
        format: Format,
    },
    /// Print a rule's documentation: what it checks, why, and how to fix it.
    ///
    /// The same text is docs/rules/<name>.md in the repository, where SARIF reports and
    /// the language server link to it.
    Explain {
        /// A rule name (e.g. duplicate-tool-name) or code (e.g. TC102).
        #[arg(value_name = "RULE", value_parser = values::rule(), hide_possible_values = true)]
        rule: String,
    },
    /// List every rule by code: name, severity, fixable, targets and summary.
    ///
    /// FIX says whether `lint --fix` can fix its findings, TARGETS the providers it
    /// checks for.
    Rules {
        /// How to list them.
        #[arg(long, value_enum, default_value_t = explain::RulesFormat::Table)]
        format: explain::RulesFormat,
    },
    /// Print the completion script of a shell: bash, zsh, fish, elvish, powershell.
    ///
    /// For example `toolc completions bash > ~/.local/share/bash-completion/completions/toolc`,
    /// or `toolc completions zsh > "${fpath[1]}/_toolc"`.
    Completions {
        /// The shell to complete toolc's commands and flags in.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

/// Options shared by every command that reads manifests. They win over
/// the nearest `toolc.toml`.
#[derive(Debug, clap::Args)]
struct ReadArgs {
    /// Check what this provider rejects (repeatable).
    ///
    /// Replaces the configuration's `targets`.
    #[arg(long = "target", value_name = "PROVIDER", value_parser = values::target(), help_heading = heading::RULES)]
    targets: Vec<Target>,
    /// Run only these rules (comma-separated).
    ///
    /// Each a rule's name, its code, a code prefix (TC1 is every TC1xx rule) or ALL.
    /// `toolc rules` lists them.
    #[arg(long, value_name = "RULE,...", value_delimiter = ',', value_parser = values::selector(),
        hide_possible_values = true, help_heading = heading::RULES)]
    select: Option<Vec<Selector>>,
    /// Turn these rules off (comma-separated).
    ///
    /// Each a rule's name, its code, a code prefix (TC1 is every TC1xx rule) or ALL.
    #[arg(long, value_name = "RULE,...", value_delimiter = ',', value_parser = values::selector(),
        hide_possible_values = true, help_heading = heading::RULES)]
    ignore: Vec<Selector>,
    /// Set the level of a rule: RULE=off|info|warning|error (repeatable).
    ///
    /// RULE is a name, a code, a code prefix or ALL.
    #[arg(long, value_name = "RULE=LEVEL", value_parser = parse_rule_level, help_heading = heading::RULES)]
    severity: Vec<(Selector, Level)>,
    /// Treat every file as this format instead of detecting it.
    #[arg(long, value_name = "FORMAT", value_parser = values::format(), help_heading = heading::FILES)]
    input_format: Option<Format>,
    /// Report files larger than this instead of reading them.
    ///
    /// A size such as 16MiB, 512KiB or 1000000 (bytes); default 16MiB.
    #[arg(long, value_name = "SIZE", value_parser = config::parse_size, help_heading = heading::FILES)]
    max_file_size: Option<u64>,
    /// Use this configuration file instead of the nearest toolc.toml.
    ///
    /// Without it, each file's toolc.toml is searched from its directory up to the
    /// repository root.
    #[arg(long, value_name = "FILE", help_heading = heading::FILES)]
    config: Option<PathBuf>,
    /// Leave these out of directory walks (globs, comma-separated).
    ///
    /// A name without `/` matches anywhere, a path is relative to the current
    /// directory. Replaces the configuration's `exclude` and the defaults (.git,
    /// target, node_modules, ...).
    #[arg(long, value_name = "GLOB,...", value_delimiter = ',', help_heading = heading::FILES)]
    exclude: Option<Vec<String>>,
    /// Leave these out too, keeping the other exclusions (globs).
    #[arg(long, value_name = "GLOB,...", value_delimiter = ',', help_heading = heading::FILES)]
    extend_exclude: Vec<String>,
    /// Leave excluded files out even when named on the command line.
    ///
    /// For pre-commit hooks, which name every changed file.
    #[arg(long, help_heading = heading::FILES)]
    force_exclude: bool,
    /// Skip named files that hold no manifest, as a directory walk does.
    ///
    /// A package.json or a settings file with comments is skipped instead of
    /// reported: for pre-commit hooks, which name every changed JSON file.
    #[arg(long, help_heading = heading::FILES)]
    ignore_unknown: bool,
}

impl ReadArgs {
    fn options(&self) -> crate::lint::LintOptions {
        crate::lint::LintOptions {
            input_format: self.input_format,
            exclude: Vec::new(),
            read_log: None,
            overlay: None,
            command_line: config::CommandLine {
                config: self.config.clone(),
                targets: self.targets.clone(),
                max_file_size: self.max_file_size,
                select: self.select.as_deref().map(selected),
                ignore: selected(&self.ignore),
                severity: self
                    .severity
                    .iter()
                    .flat_map(|(selector, level)| selector.rules().iter().map(|r| (*r, *level)))
                    .collect(),
                exclude: self.exclude.clone(),
                extend_exclude: self.extend_exclude.clone(),
                force_exclude: self.force_exclude,
                ignore_unknown: self.ignore_unknown,
                lock: None,
                only_as_errors: Vec::new(),
            },
        }
    }
}

/// What a writing command (gen, convert) works from: the findings of the
/// lint gate, and what each manifest was reduced to on the worker that read
/// it, in path order. Documents, span maps and package code are dropped as
/// each manifest is done, so a run holds its output, not its input.
#[derive(Debug)]
struct ForWriting<T> {
    report: crate::lint::LintReport,
    parts: Vec<Part<T>>,
}

impl<T> Default for ForWriting<T> {
    fn default() -> Self {
        ForWriting {
            report: crate::lint::LintReport::default(),
            parts: Vec::new(),
        }
    }
}

/// What a writing command keeps of one manifest.
#[derive(Debug)]
struct Part<T> {
    /// The manifest's path, as shown.
    path: String,
    /// Its tools' names, for the check of names across manifests.
    names: Vec<String>,
    /// Whether it declares tools of its own (see
    /// [`crate::project::is_source`]; the runner's built-in tools do).
    source_of_tools: bool,
    /// `toolc gen` marked it as written from others.
    generated: bool,
    /// Its text, when the command has findings that point into it.
    source: Option<crate::source::Source>,
    /// Where its text is and its fingerprint, to read it again (`None`
    /// for tools that are not read from a file: the built-in ones).
    file: PathBuf,
    fingerprint: Option<crate::source::Fingerprint>,
    kept: T,
}

impl<T> Part<T> {
    /// `manifest`'s path and tool names, and `kept`.
    fn of(manifest: &crate::project::Manifest, kept: T) -> Part<T> {
        Part {
            path: manifest.path().to_string(),
            names: manifest
                .toolset
                .tools
                .iter()
                .map(|t| t.name.clone())
                .collect(),
            source_of_tools: crate::project::is_source(manifest.format(), manifest.generated),
            generated: manifest.generated,
            source: None,
            file: manifest.file.clone(),
            fingerprint: Some(manifest.fingerprint),
            kept,
        }
    }

    /// The same manifest, keeping `kept` instead.
    fn with<U>(self, kept: U) -> Part<U> {
        Part {
            path: self.path,
            names: self.names,
            source_of_tools: self.source_of_tools,
            generated: self.generated,
            source: self.source,
            file: self.file,
            fingerprint: self.fingerprint,
            kept,
        }
    }

    /// Keeps the manifest's text (for the findings that point into it).
    fn with_source(mut self, manifest: &crate::project::Manifest) -> Part<T> {
        self.source = Some(manifest.source.clone());
        self
    }
}

/// Where each manifest's text is, to read it again when a report needs it.
fn texts_of<T>(parts: &[Part<T>]) -> crate::lint::TextsToReread {
    parts
        .iter()
        .filter_map(|part| Some((part.path.clone(), (part.file.clone(), part.fingerprint?))))
        .collect()
}

/// Says each name clash of [`name_clashes`] and then `advice`, as errors,
/// and returns true (refuse to write), unless there is none or
/// `allow_errors`.
fn refuse_name_clashes<T>(
    parts: &[Part<T>],
    allow_errors: bool,
    advice: &str,
    err: &mut dyn Write,
) -> std::io::Result<bool> {
    let clashes = name_clashes(parts);
    if clashes.is_empty() || allow_errors {
        return Ok(false);
    }
    for clash in &clashes {
        writeln!(err, "error: {}", crate::terminal::one_line(clash))?;
    }
    writeln!(err, "error: {advice}")?;
    Ok(true)
}

/// Tools from different manifests that would share a name in the one
/// generated output (duplicates within a manifest are lint findings
/// already): a message for each.
fn name_clashes<T>(parts: &[Part<T>]) -> Vec<String> {
    use crate::project::NameEntry;
    let names: Vec<NameEntry> = parts
        .iter()
        .flat_map(|part| {
            part.names.iter().map(|name| NameEntry {
                group: "",
                name,
                path: &part.path,
            })
        })
        .collect();
    // A provider list (or a generated manifest) that still clashes repeats
    // only some of the others' tools: likely an earlier gen's output from
    // before a tool was renamed or removed.
    let repeats_some: std::collections::HashSet<&str> = parts
        .iter()
        .filter(|part| !part.source_of_tools)
        .map(|part| part.path.as_str())
        .collect();
    crate::project::name_clashes(&names, crate::project::Repeats::AcrossManifests)
        .into_iter()
        .map(|clash| {
            let (first, again) = (&names[clash.first], &names[clash.again]);
            let stale = [first.path, again.path]
                .into_iter()
                .find(|path| repeats_some.contains(path))
                .map(|path| {
                    format!(
                        " ({path} declares tools of its own beside them: if toolc generated it, \
                         it is out of date; generate it again or remove it)"
                    )
                })
                .unwrap_or_default();
            format!(
                "tool \"{}\" is declared in both {} and {}{stale}",
                again.name, first.path, again.path
            )
        })
        .collect()
}

/// How a writing command (gen, convert) reports: its `--format`, and where
/// its report goes.
struct Reporting<'w> {
    format: render::ReportFormat,
    colors: Colors,
    out: &'w mut dyn Write,
    err: &'w mut dyn Write,
}

impl Reporting<'_> {
    /// Prints `report`: the formats made for programs on standard output
    /// (even when empty: a program reads the summary), the others on
    /// standard error when there is something to say. `brief` shows the
    /// findings that stop a run as `human` does, with their snippets.
    fn show(
        &mut self,
        report: &crate::lint::LintReport,
        stops_the_run: bool,
    ) -> Result<(), CliError> {
        if self.format.on_stdout() {
            let text = render::render(self.format, report, self.colors.out);
            self.out.write_all(text.as_bytes())?;
        } else if !report.diagnostics.is_empty() {
            let format = if stops_the_run {
                render::ReportFormat::Human
            } else {
                self.format
            };
            let text = render::render(format, report, self.colors.err);
            self.err.write_all(text.as_bytes())?;
        }
        Ok(())
    }
}

/// Loads the manifests a writing command (gen, convert) works from through
/// the front end (the files under `paths`, and the documents `held` in
/// memory: the tools of live MCP servers), never what an earlier run wrote
/// to `output`, lints them as its gate, and reduces each with `keep` on
/// the worker that read it.
/// When they have error-level findings and `allow_errors` is off, shows
/// the findings and `refusal`, and gives `None` (exit 1).
fn read_for_writing<T: Send>(
    read: &ReadArgs,
    live_args::Inputs { paths, held }: live_args::Inputs,
    output: Option<&PathBuf>,
    allow_errors: bool,
    refusal: &str,
    reporting: &mut Reporting,
    keep: &(dyn Fn(crate::project::Manifest) -> Part<T> + Sync),
) -> Result<Option<ForWriting<T>>, CliError> {
    if let Some(output) = output {
        refuse_output_among_inputs(output, paths)?;
    }
    let options = crate::lint::LintOptions {
        exclude: output.into_iter().cloned().collect(),
        ..read.options()
    };
    let linter = crate::lint::Linter::new(options)?;
    // A manifest with errors of its own is refused unless errors are
    // allowed: nothing is written from it, so nothing is built (a
    // manifest of 50,000 tools converted is ten megabytes more).
    let keep_unless_refused =
        |manifest, errors: bool| (allow_errors || !errors).then(|| keep(manifest));
    let (mut report, parts) = linter.lint_inputs_keeping(paths, held, &keep_unless_refused)?;
    let mut parts: Vec<Part<T>> = parts.into_iter().flatten().collect();
    if report.count(crate::diagnostic::Severity::Error) > 0 && !allow_errors {
        // The warnings show too: read their texts again.
        let paths: Vec<String> = report.diagnostics.iter().map(|d| d.path.clone()).collect();
        report.read_again(&paths, &texts_of(&parts));
        reporting.show(&report, true)?;
        writeln!(reporting.err, "error: {refusal}")?;
        return Ok(None);
    }
    parts.sort_by(|a, b| a.path.cmp(&b.path));
    leave_out_views(&mut parts, reporting.err)?;
    for part in &mut parts {
        if let Some(source) = part.source.take() {
            report.sources.entry(part.path.clone()).or_insert(source);
        }
    }
    Ok(Some(ForWriting { report, parts }))
}

/// Leaves out of a writing command's input the provider tool lists that
/// repeat the tools of other manifests read with them (an earlier `gen`'s
/// output in the same tree, see [`crate::project::views`]), saying so:
/// they are views of those tools, not tools of their own.
fn leave_out_views<T>(parts: &mut Vec<Part<T>>, err: &mut dyn Write) -> std::io::Result<()> {
    let candidates: Vec<crate::project::ViewCandidate> = parts
        .iter()
        .map(|part| crate::project::ViewCandidate {
            path: &part.path,
            source: part.source_of_tools,
            generated: part.generated,
            names: part.names.iter().map(String::as_str).collect(),
        })
        .collect();
    let views: Vec<bool> = crate::project::views(&candidates)
        .iter()
        .map(Option::is_some)
        .collect();
    drop(candidates);
    if !views.contains(&true) {
        return Ok(());
    }
    let (views, read): (Vec<_>, Vec<_>) = std::mem::take(parts)
        .into_iter()
        .zip(views)
        .partition(|(_, view)| *view);
    *parts = read.into_iter().map(|(part, _)| part).collect();
    for (view, _) in views {
        writeln!(
            err,
            "note: {} repeats tools of the other manifests (generated from them): not read as input",
            crate::terminal::one_line(&view.path)
        )?;
    }
    Ok(())
}

/// An output that is one of the files named as input (directly, or through
/// a link) would be left out of the reading as an earlier run's output,
/// then written over: the manifest would be lost.
fn refuse_output_among_inputs(output: &Path, paths: &[PathBuf]) -> Result<(), CliError> {
    let Ok(output_file) = std::fs::metadata(output) else {
        return Ok(());
    };
    let same = |path: &PathBuf| {
        std::fs::metadata(path)
            .is_ok_and(|input| input.is_file() && same_file(&input, &output_file))
    };
    match paths.iter().find(|path| same(path)) {
        Some(input) => Err(CliError::Usage(format!(
            "the output {} is the input {}: write the output to another file",
            crate::terminal::path(output),
            crate::terminal::path(input)
        ))),
        None => Ok(()),
    }
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    (a.dev(), a.ino()) == (b.dev(), b.ino())
}

#[cfg(not(unix))]
fn same_file(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    false
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

fn parse_rule_level(text: &str) -> Result<(Selector, Level), String> {
    let (rule, level) = text
        .split_once('=')
        .ok_or_else(|| format!("\"{text}\" is not RULE=LEVEL"))?;
    Ok((
        Selector::parse(rule.trim())?,
        config::parse_level(level.trim())?,
    ))
}

/// Every rule the selectors name, each once.
fn selected(selectors: &[Selector]) -> Vec<&'static Rule> {
    let mut rules: Vec<&'static Rule> = Vec::new();
    for rule in selectors.iter().flat_map(|s| s.rules()) {
        if !rules.contains(rule) {
            rules.push(rule);
        }
    }
    rules
}

/// Whether each output stream gets terminal colors, decided once per run
/// from `--color` and, for `auto`, from each stream on its own: a report
/// on standard error (gen's and convert's notes, `run`'s refusal) is
/// colored when standard error is a terminal, whatever standard output is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Colors {
    out: bool,
    err: bool,
}

impl Colors {
    fn of(choice: ColorChoice) -> Colors {
        match choice {
            ColorChoice::Always => Colors {
                out: true,
                err: true,
            },
            ColorChoice::Never => Colors {
                out: false,
                err: false,
            },
            ColorChoice::Auto => Colors {
                out: auto_color(supports_color::Stream::Stdout),
                err: auto_color(supports_color::Stream::Stderr),
            },
        }
    }
}

/// Whether `--color auto` colors `stream`: a terminal that supports it,
/// unless NO_COLOR or CLICOLOR=0 says no; always when FORCE_COLOR or
/// CLICOLOR_FORCE says so.
fn auto_color(stream: supports_color::Stream) -> bool {
    let supported = supports_color::on(stream).is_some();
    supported && (anstyle_query::clicolor() != Some(false) || anstyle_query::clicolor_force())
}

/// Runs toolc with `args` (the program name first) and returns the exit code.
pub fn run(
    args: impl IntoIterator<Item = impl Into<OsString> + Clone>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let result = parse_and_run(args, out, err);
    if let Err(error) = &result {
        error::write_error(error, err);
    }
    error::exit_code(&result)
}

fn parse_and_run(
    args: impl IntoIterator<Item = impl Into<OsString> + Clone>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Outcome, CliError> {
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    // `-h` is a summary, a line per flag; `--help` adds each flag's
    // details, its values and its environment variable.
    let summary = args.iter().skip(1).any(|arg| arg == "-h");
    let parsed = command(summary)
        .try_get_matches_from(args)
        .and_then(|matches| <Cli as clap::FromArgMatches>::from_arg_matches(&matches));
    let mut cli = match parsed {
        Ok(cli) => cli,
        // --help and --version are "errors" that go to standard output.
        Err(error) if !error.use_stderr() => {
            write!(out, "{}", error.render())?;
            return Ok(Outcome::Clean);
        }
        Err(error) => return Err(error.into()),
    };
    let colors = Colors::of(cli.color);
    // `-o -` is standard output, as for most tools that write files.
    let output = match &mut cli.command {
        Command::Lint(args) => Some(&mut args.output),
        Command::Gen(args) => Some(&mut args.output),
        Command::Convert(args) => Some(&mut args.output),
        _ => None,
    };
    if let Some(output) = output
        && output.as_deref() == Some(Path::new("-"))
    {
        *output = None;
    }
    match &cli.command {
        Command::Lint(args) => lint_cmd::run(args, colors, out, err),
        Command::Gen(args) => gen_cmd::run(args, colors, out, err),
        Command::Convert(args) => convert_cmd::run(args, colors, out, err),
        Command::Run(args) => run_cmd::run(args, colors.err, out, err),
        Command::Call(args) => call_cmd::run(args, out, err),
        Command::Serve(args) => serve_cmd::run(args, colors.err, err),
        Command::Lock(args) => lock_cmd::run(args, out, err),
        Command::Schema { format } => {
            out.write_all(crate::formats::schema::text(*format).as_bytes())?;
            Ok(Outcome::Clean)
        }
        Command::Server => Ok(if crate::lsp::serve_stdio() {
            Outcome::Clean
        } else {
            Outcome::Refused
        }),
        Command::Explain { rule } => explain::explain(rule, out),
        Command::Rules { format } => explain::list(*format, out),
        Command::Completions { shell } => completions(*shell, out),
    }
}

/// toolc's command line: [`Cli`], with `-h` and `--help` listed with
/// `--color` under "Global options" rather than alone under "Options", and
/// help wrapped at 100 columns at most. As a `summary` (for `-h`), no flag
/// lists its possible values or its environment variable: each is one
/// line.
fn command(summary: bool) -> clap::Command {
    use clap::CommandFactory;
    fn without_help_flag(command: clap::Command) -> clap::Command {
        command
            .disable_help_flag(true)
            .max_term_width(100)
            .mut_subcommands(without_help_flag)
    }
    fn summarised(command: clap::Command) -> clap::Command {
        command
            .mut_args(|arg| {
                if arg.get_action().takes_values() {
                    arg.hide_possible_values(true).hide_env(true)
                } else {
                    arg
                }
            })
            .mut_subcommands(summarised)
    }
    let help = clap::Arg::new("help")
        .short('h')
        .long("help")
        .action(clap::ArgAction::Help)
        .global(true)
        .help("Print help (see more with '--help')")
        .long_help("Print help (see a summary with '-h')")
        .help_heading(heading::GLOBAL);
    let command = without_help_flag(Cli::command()).arg(help);
    if summary {
        summarised(command)
    } else {
        command
    }
}

/// Writes `shell`'s completion script for every command and flag.
fn completions(shell: clap_complete::Shell, out: &mut dyn Write) -> Result<Outcome, CliError> {
    // Made whole first: clap_complete panics when its writer fails (a
    // closed pipe), and toolc ends such a run quietly instead.
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command(false), "toolc", &mut script);
    out.write_all(&script)?;
    Ok(Outcome::Clean)
}

#[cfg(test)]
mod tests {
    /// clap's own checks of every command and flag (names, shorts,
    /// headings, value parsers), in both shapes: a conflict is found here,
    /// not by the first user of the subcommand it is in.
    #[test]
    fn the_command_line_is_well_formed() {
        super::command(false).debug_assert();
        super::command(true).debug_assert();
    }
}
