//! Diagnostics as data.
//!
//! A [`Diagnostic`] is what every checking stage produces: a rule, a
//! severity, a message, the file and JSON Pointer it is about, a byte span and
//! optional related spans, help and a fix. Nothing here prints; the CLI renders
//! diagnostics as text (miette) or JSON.

use std::cmp::Ordering;

use serde::Serialize;

use crate::providers::Target;
pub use crate::source::{LineCol, Source, Span};

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A secondary location, e.g. the first declaration of a duplicate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Related {
    pub path: String,
    pub span: Span,
    pub message: String,
}

/// A replacement of the text at `span`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub span: Span,
    pub replacement: String,
}

/// Whether a fix keeps the manifest's meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Applicability {
    /// Applied by `--fix`: it says what the manifest already meant.
    Safe,
    /// Applied only with `--unsafe-fixes`: it changes what the tool accepts.
    Unsafe,
}

/// A suggested change that resolves the finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    pub message: String,
    pub edits: Vec<Edit>,
    pub applicability: Applicability,
}

impl Fix {
    pub fn safe(message: impl Into<String>, edits: Vec<Edit>) -> Fix {
        Fix {
            message: message.into(),
            edits,
            applicability: Applicability::Safe,
        }
    }

    pub fn unsafe_(message: impl Into<String>, edits: Vec<Edit>) -> Fix {
        Fix {
            message: message.into(),
            edits,
            applicability: Applicability::Unsafe,
        }
    }

    /// Whether `--fix` applies it: a safe fix always, an unsafe one only
    /// with `--unsafe-fixes`.
    pub fn applies(&self, unsafe_fixes: bool) -> bool {
        unsafe_fixes || self.applicability == Applicability::Safe
    }
}

/// How many findings of one rule toolc keeps and shows in a file; past
/// that it counts them and says how many it did not show (see
/// `lint::findings`). A rule can fire once per value: a megabyte of
/// `{"name": "a", "name": "a"}` tools is 40,000 duplicate keys and as many
/// duplicate names, and a finding with its message, pointer, help and
/// related place takes about 470 bytes, twenty times the text it points
/// at. A thousand are more screens than anyone reads before fixing the
/// first (the rest is counted in the note); readers below lint (the JSON
/// parser's duplicate keys) keep no more either.
pub const FINDINGS_PER_RULE: usize = 1_000;

/// A rule's identity: what a [`Diagnostic`] refers to. The rules
/// themselves (their checks and documentation) are lint's.
#[derive(Debug, PartialEq, Eq)]
pub struct Rule {
    /// Stable kebab-case name; configurations refer to it.
    pub name: &'static str,
    /// Stable code, never reused.
    pub code: &'static str,
    /// The default severity of its findings.
    pub severity: Severity,
    /// One line for `toolc rules`.
    pub summary: &'static str,
    /// Whether its findings can carry a fix (`toolc lint --fix`).
    pub fixable: bool,
    /// The providers whose rejections the rule checks for; empty for the
    /// rules that always run.
    pub targets: &'static [Target],
}

impl Rule {
    /// Where to read the rule's documentation online: its page under
    /// docs/rules/ (what `toolc explain` prints) in the repository
    /// Cargo.toml names. SARIF reports and the language server link it.
    pub fn documentation_url(&self) -> String {
        format!(
            "{}/blob/main/docs/rules/{}.md",
            env!("CARGO_PKG_REPOSITORY"),
            self.name
        )
    }

    /// Whether `name_or_code` names this rule: its name, or its code in
    /// any case (`tc102`), as configurations and `toolc explain` take them.
    pub fn answers_to(&self, name_or_code: &str) -> bool {
        self.name == name_or_code || self.code.eq_ignore_ascii_case(name_or_code)
    }

    /// A finding of this rule, at its default severity.
    pub(crate) fn diagnostic(
        &'static self,
        path: &str,
        pointer: impl Into<String>,
        span: Option<Span>,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            rule: self,
            severity: self.severity,
            message: message.into(),
            path: path.to_string(),
            pointer: pointer.into(),
            span,
            help: None,
            related: Vec::new(),
            fix: None,
        }
    }
}

/// A rule is shown (and serialized) by its name.
impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl Serialize for Rule {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name)
    }
}

/// `diagnostic.rule == "duplicate-tool-name"` compares the name.
impl PartialEq<&str> for &Rule {
    fn eq(&self, name: &&str) -> bool {
        self.name == *name
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The rule that found it (its name and code say which).
    pub rule: &'static Rule,
    /// The rule's severity, or what the configuration made of it.
    pub severity: Severity,
    pub message: String,
    pub path: String,
    /// JSON Pointer of the offending value or key ("" for the whole file).
    pub pointer: String,
    /// `None` when the finding is about the file as a whole (unreadable,
    /// too large) and there is no text to point into.
    pub span: Option<Span>,
    pub help: Option<String>,
    pub related: Vec<Related>,
    pub fix: Option<Fix>,
}

impl Diagnostic {
    /// The rule's stable code, e.g. `TC102`.
    pub fn code(&self) -> &'static str {
        self.rule.code
    }

    /// Orders diagnostics as they are printed: by path, offset, code.
    pub fn sort_key_cmp(&self, other: &Diagnostic) -> Ordering {
        let offset = |d: &Diagnostic| d.span.map(|s| (s.start, s.end));
        self.path
            .cmp(&other.path)
            .then_with(|| offset(self).cmp(&offset(other)))
            .then_with(|| self.rule.code.cmp(other.rule.code))
            .then_with(|| self.message.cmp(&other.message))
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn with_fix(mut self, fix: Option<Fix>) -> Self {
        self.fix = fix;
        self
    }

    pub fn with_related(mut self, related: Related) -> Self {
        self.related.push(related);
        self
    }
}
