//! Reading one file: size check, UTF-8, parse, format detection, lowering.
//!
//! Whatever goes wrong becomes a diagnostic on that file; nothing here fails
//! the run. Only regular files are opened, so a FIFO or device named
//! `tools.json` cannot block the linter.

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use crate::diagnostic::Diagnostic;
use crate::formats;
use crate::ir::Format;
use crate::json::{self, ParseErrorKind};
use crate::lint::rules::{
    file_too_large, invalid_json, io_error, nesting_too_deep, unknown_format,
};
use crate::lint::{FileSummary, LintOptions, Manifest, Settings, manifest_dir};
use crate::source::Source;
use crate::walk::Candidate;

/// The outcome of reading one candidate file.
#[derive(Debug)]
pub enum Loaded {
    /// A JSON file in a walked directory that is no manifest.
    Skipped,
    /// A manifest that could not be read or parsed.
    Failed {
        summary: FileSummary,
        source: Option<Source>,
        diagnostics: Vec<Diagnostic>,
    },
    Manifest(Box<Manifest>),
}

/// What decides how a file's problems are reported.
struct Reading<'a> {
    candidate: &'a Candidate,
    named_format: Option<Format>,
    /// Whether a failure to read this file is worth a finding: it was named,
    /// forced to a format, or its name says it is a manifest.
    reportable: bool,
}

impl<'a> Reading<'a> {
    fn new(candidate: &'a Candidate, options: &'a LintOptions) -> Self {
        let file_name = candidate
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let named_format = options
            .input_format
            .or_else(|| formats::format_by_file_name(&file_name));
        let reportable = candidate.explicit
            || options.input_format.is_some()
            || named_format.is_some_and(formats::file_name_is_specific)
            || (named_format == Some(Format::Nachos) && file_name != "manifest.json")
            || (named_format == Some(Format::Agentstack)
                && manifest_dir(&candidate.path).join("__init__.py").is_file());
        Reading {
            candidate,
            named_format,
            reportable,
        }
    }

    fn fail(&self, source: Option<Source>, diagnostic: Diagnostic) -> Loaded {
        if !self.reportable {
            return Loaded::Skipped;
        }
        Loaded::Failed {
            summary: FileSummary {
                path: self.candidate.display.clone(),
                format: self.named_format,
                tools: 0,
            },
            source,
            diagnostics: vec![diagnostic],
        }
    }
}

/// Reads a file from disk and checks nothing but that it is a manifest.
pub fn load(candidate: &Candidate, options: &LintOptions, settings: Arc<Settings>) -> Loaded {
    let reading = Reading::new(candidate, options);
    let path = candidate.display.as_str();
    let max_file_size = settings.max_file_size;
    let bytes = match read_regular_file(candidate, max_file_size) {
        Ok(bytes) => bytes,
        Err(ReadError::TooLarge(size)) => {
            return reading.fail(
                None,
                file_too_large::RULE
                    .diagnostic(
                        path,
                        "",
                        None,
                        format!(
                            "file is {size} bytes, over the limit of {max_file_size} bytes; it was not read"
                        ),
                    )
                    .with_help("raise the limit with --max-file-size if this really is a manifest"),
            );
        }
        Err(ReadError::Io(message)) => {
            return reading.fail(
                None,
                io_error::RULE
                    .diagnostic(path, "", None, message)
                    .with_help("check that the file exists, is a regular file and is readable"),
            );
        }
    };
    load_bytes(candidate, &bytes, options, settings)
}

/// Parses and lowers a file's content (as read, or as a fix rewrote it).
pub fn load_bytes(
    candidate: &Candidate,
    bytes: &[u8],
    options: &LintOptions,
    settings: Arc<Settings>,
) -> Loaded {
    let reading = Reading::new(candidate, options);
    let fail = |source, diagnostic| reading.fail(source, diagnostic);
    let path = candidate.display.as_str();
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text: std::sync::Arc<str> = match std::str::from_utf8(bytes) {
        Ok(text) => text.into(),
        Err(error) => {
            let offset = error.valid_up_to();
            // The snippet shows the text with U+FFFD for the bad bytes; the
            // bytes before them are the same, so the offset holds.
            let source = Source::new(path, String::from_utf8_lossy(bytes).into_owned());
            let span = source.char_span(offset);
            let diagnostic = invalid_json::RULE
                .diagnostic(
                    path,
                    "",
                    Some(span),
                    format!("invalid UTF-8 at byte {offset}"),
                )
                .with_help("JSON text must be UTF-8; re-save the file as UTF-8");
            return fail(Some(source), diagnostic);
        }
    };
    let source = Source::new(path, text.clone());
    let document = match json::parse(&text) {
        Ok(document) => document,
        Err(error) => {
            let span = Some(source.char_span(error.offset));
            let diagnostic = match error.kind {
                ParseErrorKind::Syntax => invalid_json::RULE
                    .diagnostic(path, "", span, error.message)
                    .with_help("fix the JSON syntax at the caret"),
                ParseErrorKind::TooDeep => nesting_too_deep::RULE
                    .diagnostic(path, "", span, error.message)
                    .with_help("no tool manifest needs this much nesting; flatten the data"),
            };
            return fail(Some(source), diagnostic);
        }
    };
    let Some(format) = choose_format(reading.named_format, options, &document.value) else {
        if !candidate.explicit {
            return Loaded::Skipped;
        }
        let diagnostic = unknown_format::RULE
            .diagnostic(
                path,
                "",
                Some(source.char_span(0)),
                "this file matches no manifest format toolc reads",
            )
            .with_help(
                "name the format with --input-format (nora, agentcli, agentstack, nachos, openai, anthropic, mcp)",
            );
        return Loaded::Failed {
            summary: FileSummary {
                path: path.to_string(),
                format: None,
                tools: 0,
            },
            source: Some(source),
            diagnostics: vec![diagnostic],
        };
    };
    let depth = if options.keep_toolsets {
        formats::Depth::Full
    } else {
        formats::Depth::Outline
    };
    let mut toolset = formats::lower(format, &document, path, depth);
    let dir = manifest_dir(&candidate.path);
    if format == Format::Agentstack && depth == formats::Depth::Full {
        add_python_parameters(&mut toolset, &dir, settings.max_file_size);
    }
    if format == Format::Nachos && depth == formats::Depth::Full {
        add_typescript_parameters(&mut toolset, &dir, settings.max_file_size);
    }
    Loaded::Manifest(Box::new(Manifest {
        source,
        document,
        toolset,
        dir,
        settings,
    }))
}

/// AgentStack tools take their parameters (and, when the config gives
/// none, their description) from the functions of the package's
/// `__init__.py`. A module that is missing, too large, not UTF-8 or does
/// not parse leaves the parameters unknown.
fn add_python_parameters(toolset: &mut crate::ir::ToolSet, dir: &Path, limit: u64) {
    let Some(bytes) = read_limited(&dir.join("__init__.py"), limit) else {
        return;
    };
    let Some(Ok(module)) = crate::python::parse_bytes(&bytes) else {
        return;
    };
    for tool in &mut toolset.tools {
        let crate::ir::Runtime::PythonFunction { function, .. } = &tool.runtime else {
            continue;
        };
        let Some((schema, summary)) =
            formats::agentstack_python::parameters_from_python(&module, function)
        else {
            continue;
        };
        tool.parameters = Some(schema);
        if tool.description.is_none() {
            tool.description = summary;
        }
    }
}

/// Nachos tools take their parameters (and, when the manifest gives no
/// description, their description) from the TypeScript class whose
/// `toolId` is `provides.tool`, in the package's `.ts` files. Nachos'
/// `ParameterSchema` is JSON-Schema-shaped, so the class's object is used
/// as written (see [`crate::typescript::parameters_schema`]); values that
/// are not literals are left out (`typescript-unsupported-expression`
/// reports them). No class, or none that parses, leaves them unknown.
fn add_typescript_parameters(toolset: &mut crate::ir::ToolSet, dir: &Path, limit: u64) {
    for tool in &mut toolset.tools {
        let search = crate::typescript::search_package(dir, &tool.name, limit);
        let Some(found) = search.found else {
            continue;
        };
        if let Some(schema) = found
            .class
            .parameters
            .as_ref()
            .and_then(crate::typescript::parameters_schema)
        {
            tool.parameters = Some(schema);
        }
        if tool.description.is_none() {
            tool.description = found.class.description;
        }
        if tool.title.is_none() {
            tool.title = found.class.name;
        }
    }
}

/// A regular file's bytes: `None` when it is not a regular file, cannot be
/// read or is larger than `limit`.
pub(crate) fn read_limited(path: &Path, limit: u64) -> Option<Vec<u8>> {
    let metadata = std::fs::metadata(path).ok()?;
    if !metadata.is_file() || metadata.len() > limit {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes).ok()?;
    (bytes.len() as u64 <= limit).then_some(bytes)
}

fn choose_format(named: Option<Format>, options: &LintOptions, value: &Value) -> Option<Format> {
    if let Some(forced) = options.input_format {
        return Some(forced);
    }
    match named {
        Some(format)
            if formats::file_name_is_specific(format)
                || formats::content_matches(format, value) =>
        {
            Some(format)
        }
        _ => formats::detect_by_content(value),
    }
}

pub(crate) enum ReadError {
    TooLarge(u64),
    Io(String),
}

pub(crate) fn read_regular_file(candidate: &Candidate, limit: u64) -> Result<Vec<u8>, ReadError> {
    let io = |e: std::io::Error| ReadError::Io(format!("cannot read: {e}"));
    let metadata = std::fs::metadata(&candidate.path).map_err(io)?;
    if !metadata.is_file() {
        return Err(ReadError::Io("cannot read: not a regular file".to_string()));
    }
    if metadata.len() > limit {
        return Err(ReadError::TooLarge(metadata.len()));
    }
    let file = std::fs::File::open(&candidate.path).map_err(io)?;
    // Read at most one byte past the limit: the file may grow after stat.
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    file.take(limit + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge(bytes.len() as u64));
    }
    Ok(bytes)
}
