//! Diagnostics as data.
//!
//! A [`Diagnostic`] is what every checking stage produces: a rule, a
//! severity, a message, the file and JSON Pointer it is about, a byte span and
//! optional related spans, help and a fix. Nothing here prints; the CLI renders
//! diagnostics as text (miette) or JSON.

use std::cmp::Ordering;

use serde::Serialize;

use crate::source::Span;

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
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The rule's stable kebab-case name.
    pub rule: &'static str,
    /// The rule's stable code, e.g. `TC102`.
    pub code: &'static str,
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
    /// Orders diagnostics as they are printed: by path, offset, code.
    pub fn sort_key_cmp(&self, other: &Diagnostic) -> Ordering {
        let offset = |d: &Diagnostic| d.span.map(|s| (s.start, s.end));
        self.path
            .cmp(&other.path)
            .then_with(|| offset(self).cmp(&offset(other)))
            .then_with(|| self.code.cmp(other.code))
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
