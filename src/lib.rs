//! # toolc
//!
//! A compiler for LLM-agent tool manifests. toolc reads the manifest formats
//! agent frameworks use to declare tools (NORA `tool.json`, agentcli
//! `tools.json`, AgentStack `config.json`, Nachos `manifest.json`, and
//! OpenAI, Anthropic and MCP tool JSON), lowers them into one intermediate
//! representation ([`ir`]), checks them with precise diagnostics ([`lint`])
//! emits provider tool JSON and code ([`emit`]), converts between formats
//! ([`convert`]) and runs the tools ([`run`]: validation, policy, sandbox).
//! [`lock`] pins what a model sees of each tool (`toolc.lock`) so that a
//! later change is caught (`--locked`).
//!
//! The pipeline: files or in-memory documents → the front end
//! ([`project`]: walk, detect, read, parse with spans, read the package
//! code once, lower) → [`ir::ToolSet`]s → lint rules →
//! [`diagnostic::Diagnostic`]s, or → emitters, converters, the runner.
//! No stage prints: rendering happens in the CLI.
//!
//! Loading a manifest held in memory (an editor's unsaved buffer) and
//! linting it:
//!
//! ```
//! use toolc::lint::{LintOptions, Linter};
//! use toolc::project::{LoadOptions, Project};
//!
//! let text = r#"{"tools": [{"name": "search", "description": "Searches the docs",
//!   "command": ["./tools/bin/search"],
//!   "schema": {"type": "object", "properties": {"query": {"type": "string"}}}}]}"#;
//! let project = Project::from_documents(
//!     [("tools.json".to_string(), text.to_string())],
//!     &LoadOptions::default(),
//! );
//! let tools: Vec<&str> = project.toolsets().flat_map(|s| &s.tools).map(|t| t.name.as_str()).collect();
//! assert_eq!(tools, ["search"]);
//!
//! let report = Linter::new(LintOptions::default())?.check(&project)?;
//! for diagnostic in &report.diagnostics {
//!     println!("{}: {} [{}]", diagnostic.path, diagnostic.message, diagnostic.rule);
//! }
//! assert!(report.diagnostics.iter().any(|d| d.rule == "property-missing-description"));
//! # Ok::<(), toolc::lint::LintError>(())
//! ```
//!
//! From disk, [`lint::lint_paths`] loads and checks files and directories
//! as `toolc lint` does; [`project::Project::load`] loads them for a
//! program of its own.

// The public API: what an embedding program needs.
pub mod convert;
pub mod diagnostic;
pub mod emit;
pub mod ir;
pub mod lint;
pub mod lock;
pub mod lsp;
pub mod project;
pub mod run;

// Everything else is the crate's own.
mod cli;
mod clock;
mod formats;
mod json;
mod live;
mod nats;
mod python;
mod source;
mod syntax;
mod typescript;

/// Runs the `toolc` command line: `args` (the program name first), output
/// on `out` and `err`; returns the exit code. The `toolc` binary is this
/// call.
pub use cli::run as command_line;

mod providers;
mod schema;
mod serve;
mod suggest;
mod terminal;

/// The entry points shared by the cargo-fuzz targets (`fuzz/`) and the
/// test that replays their corpus and saved crashes. Not public API: it
/// lets the fuzzers reach the crate's private readers, and may change at
/// any time.
#[doc(hidden)]
pub mod fuzzing;
