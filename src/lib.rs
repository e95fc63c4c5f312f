//! # toolc
//!
//! A compiler for LLM-agent tool manifests. toolc reads the manifest formats
//! agent frameworks use to declare tools (NORA `tool.json`, agentcli
//! `tools.json`, AgentStack `config.json`, Nachos `manifest.json`, and
//! OpenAI, Anthropic and MCP tool JSON), lowers them into one intermediate
//! representation ([`ir`]), checks them with precise diagnostics ([`lint`])
//! emits provider tool JSON and code ([`emit`]), converts between formats
//! ([`convert`]) and runs the tools ([`run`]: validation, policy, sandbox).
//!
//! The pipeline: files → [`source::Source`] → [`json::parse`] (value plus a
//! [`json::SourceMap`] from JSON Pointer to byte span) → a format frontend
//! ([`formats`]) → [`ir::ToolSet`] → rules → [`diagnostic::Diagnostic`]s.
//! No stage prints: rendering happens in the CLI.
//!
//! ```no_run
//! let report = toolc::lint::lint_paths(
//!     &["tools".into()],
//!     &toolc::lint::LintOptions::default(),
//! )?;
//! for diagnostic in &report.diagnostics {
//!     println!("{}: {} [{}]", diagnostic.path, diagnostic.message, diagnostic.rule);
//! }
//! # Ok::<(), toolc::lint::LintError>(())
//! ```

pub mod cli;
pub mod convert;
pub mod diagnostic;
pub mod emit;
pub mod formats;
pub mod ir;
pub mod json;
pub mod lint;
pub mod python;
pub mod run;
pub mod source;
pub mod syntax;
pub mod typescript;

mod load;
mod providers;
mod schema;
mod suggest;
mod walk;
