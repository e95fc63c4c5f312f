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
use crate::lint::parameter_schema::{DerivedSchema, Origin, UntypedParameter};
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
    // The schemas these formats keep in code are read at every depth: the
    // parameter rules check them (see `lint::parameter_schema`).
    let derived = match format {
        Format::Agentstack => python_parameters(&toolset, &dir, settings.max_file_size),
        Format::Nachos => typescript_parameters(&toolset, &dir, settings.max_file_size),
        _ => Vec::new(),
    };
    if depth == formats::Depth::Full {
        add_derived_parameters(&mut toolset, &derived);
        formats::carry::keep_absent_descriptions(&document.value, &mut toolset);
    }
    Loaded::Manifest(Box::new(Manifest {
        source,
        document,
        toolset,
        dir,
        settings,
        derived: derived.into_iter().map(|d| d.schema).collect(),
    }))
}

/// A schema read from code, with what the IR takes from the same place
/// when the manifest says nothing.
struct Derived {
    schema: DerivedSchema,
    description: Option<String>,
    title: Option<String>,
}

/// Gives generators and converters the derived parameters, and the code's
/// description and display name where the manifest has none. A copy of the
/// parameters that an `"x-toolc"` object carries (from an earlier
/// conversion, see [`formats::carry`]) says more than the code can, and is
/// kept while the code's parameters still have the same names.
fn add_derived_parameters(toolset: &mut crate::ir::ToolSet, derived: &[Derived]) {
    use formats::carry::signature;
    for derived in derived {
        let Some(tool) = toolset.tools.get_mut(derived.schema.tool) else {
            continue;
        };
        let code = &derived.schema.schema;
        let carried_still_fits = tool
            .parameters
            .as_ref()
            .is_some_and(|carried| signature(carried) == signature(code));
        if !carried_still_fits {
            tool.parameters = Some(code.clone());
        }
        if tool.description.is_none() {
            tool.description.clone_from(&derived.description);
        }
        if tool.title.is_none() {
            tool.title.clone_from(&derived.title);
        }
    }
}

/// AgentStack tools take their parameters (and, when the config gives
/// none, their description) from the functions of the package's
/// `__init__.py`. A module that is missing, too large, not UTF-8 or does
/// not parse leaves the parameters unknown.
fn python_parameters(toolset: &crate::ir::ToolSet, dir: &Path, limit: u64) -> Vec<Derived> {
    let Some(bytes) = read_limited(&dir.join("__init__.py"), limit) else {
        return Vec::new();
    };
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return Vec::new();
    };
    let Ok(module) = crate::python::parse(text) else {
        return Vec::new();
    };
    let line = |offset: usize| crate::syntax::line_column(text, offset).0;
    let mut derived = Vec::new();
    for (index, tool) in toolset.tools.iter().enumerate() {
        let crate::ir::Runtime::PythonFunction { function, .. } = &tool.runtime else {
            continue;
        };
        let Some(found) = formats::agentstack_python::function_schema(&module, function) else {
            continue;
        };
        let untyped = found
            .parameters
            .iter()
            .filter(|p| p.type_unknown)
            .map(|p| UntypedParameter {
                name: p.name.clone(),
                hint: p.annotation.clone(),
                line: line(p.span.start),
            })
            .collect();
        let origin = Origin {
            file: "__init__.py".to_string(),
            definition: format!("def {function}"),
            line: line(found.def_span.start),
            parameter_lines: found
                .parameters
                .iter()
                .map(|p| (p.name.clone(), line(p.span.start)))
                .collect(),
        };
        derived.push(Derived {
            schema: DerivedSchema {
                tool: index,
                schema: found.schema,
                origin,
                untyped,
            },
            description: found.summary,
            title: None,
        });
    }
    derived
}

/// Nachos tools take their parameters (and, when the manifest gives no
/// description, their description) from the TypeScript class whose
/// `toolId` is `provides.tool`, in the package's `.ts` files. Nachos'
/// `ParameterSchema` is JSON-Schema-shaped, so the class's object is used
/// as written (see [`crate::typescript::parameters_schema`]); values that
/// are not literals are left out (`typescript-unsupported-expression`
/// reports them). No class, or none that parses, leaves them unknown.
fn typescript_parameters(toolset: &crate::ir::ToolSet, dir: &Path, limit: u64) -> Vec<Derived> {
    let mut derived = Vec::new();
    for (index, tool) in toolset.tools.iter().enumerate() {
        let search = crate::typescript::search_package(dir, &tool.name, limit);
        let Some(found) = search.found else {
            continue;
        };
        let class = found.class;
        let Some(schema) = class
            .parameters
            .as_ref()
            .and_then(crate::typescript::parameters_schema)
        else {
            continue;
        };
        let at = class
            .parameters_span
            .as_ref()
            .map_or(class.span.start, |span| span.start);
        let file = found.path.strip_prefix(dir).unwrap_or(&found.path);
        let origin = Origin {
            file: file
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/"),
            definition: format!("class {}", class.class_name),
            line: crate::syntax::line_column(&found.text, at).0,
            parameter_lines: Vec::new(),
        };
        derived.push(Derived {
            schema: DerivedSchema {
                tool: index,
                schema,
                origin,
                untyped: Vec::new(),
            },
            description: class.description,
            title: class.name,
        });
    }
    derived
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
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .ok()?;
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
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge(bytes.len() as u64));
    }
    Ok(bytes)
}
