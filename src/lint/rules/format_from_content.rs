//! ## What it does
//! Says how toolc decided a file's format when its name and its content
//! disagree. A file whose content clearly is another format than its
//! name implies (an OpenAI tool list saved as `tools.json`, agentcli's
//! name) is read as what it is, and this note says so. A file read as
//! its name's format that fails as that format, but looks like another,
//! gets this note too, with the option that reads it as the other.
//!
//! ## Why is this bad?
//! It is not, by itself: it is information. But a tool list under
//! another format's name confuses the next reader and the next tool, and
//! a file read as the wrong format is buried in findings that do not
//! apply to it.
//!
//! ## Example
//! `tools.json`:
//! ```json
//! [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
//! ```
//!
//! ## Use instead
//! Rename the file after its format (`openai.json`), or say the format:
//! `toolc lint --input-format openai tools.json`.

use crate::diagnostic::{Diagnostic, Severity};
use crate::formats;
use crate::ir::Format;
use crate::lint::findings::Findings;
use crate::lint::{Manifest, Rule};
use crate::project::Decided;

pub(crate) const RULE: Rule = Rule {
    name: "format-from-content",
    code: "TC007",
    severity: Severity::Info,
    summary: "a file read as another format than its name implies, or that may be one",
    fixable: false,
    targets: &[],
};

/// What a format's manifest is called in a sentence: its file's name
/// where it has one ("a NORA tool.json").
fn described(format: Format) -> String {
    let kind = match format {
        Format::Nora => "a NORA",
        Format::Agentcli => "an agentcli",
        Format::Agentstack => "an AgentStack",
        Format::Nachos => "a Nachos",
        Format::Openai => "an OpenAI tool list",
        Format::OpenaiResponses => "an OpenAI Responses API tool list",
        Format::Gemini => "Gemini function declarations",
        Format::Anthropic => "Anthropic tool JSON",
        Format::Mcp => "MCP tool JSON",
    };
    match formats::file_name(format) {
        Some(name) => format!("{kind} {name}"),
        None => kind.to_string(),
    }
}

fn file_name(manifest: &Manifest) -> String {
    manifest
        .file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn at_start(manifest: &Manifest, message: String) -> Diagnostic {
    let span = manifest.source.char_span(0);
    RULE.diagnostic(manifest.path(), "", Some(span), message)
}

/// A file read by its content against its name.
pub(crate) fn check(manifest: &Manifest, out: &mut Findings) {
    let Decided::ByContent { named: Some(named) } = manifest.detection.decided else {
        return;
    };
    let format = manifest.format();
    out.push(
        at_start(
            manifest,
            format!(
                "read as {} by its content; its name, {}, is that of {}",
                described(format),
                file_name(manifest),
                described(named)
            ),
        )
        .with_help(format!(
            "rename the file after its format, or say it: --input-format {format}"
        )),
    );
}

/// A file read as its name's format that has errors and looks like
/// another format: the note that says how to read it as that one. Run
/// once the file's other findings are known.
pub(crate) fn check_failed(manifest: &Manifest, findings: &[Diagnostic]) -> Option<Diagnostic> {
    let other = manifest.detection.reads_as?;
    if !findings.iter().any(|d| d.severity == Severity::Error) {
        return None;
    }
    let message = format!(
        "read as {} by its name, {}, but it looks like {}",
        described(manifest.format()),
        file_name(manifest),
        described(other)
    );
    Some(at_start(manifest, message).with_help(format!(
        "if it is {}, lint it with --input-format {other}, or rename it",
        described(other)
    )))
}
