//! Loading one file: size check, UTF-8, parse, format detection, lowering,
//! and the package code the manifest depends on.
//!
//! Whatever goes wrong becomes a [`LoadProblem`] on that file; nothing here
//! fails the run. A file that is not reportable (a JSON file met in a walk
//! whose name does not say it is a manifest) is skipped instead.

use super::{
    Candidate, Failure, LoadProblem, Loaded, Loader, Manifest, ProblemKind, Skipped, manifest_dir,
};
use crate::formats;
use crate::ir::Format;
use crate::json::{self, ParseErrorKind};
use crate::source::{Fingerprint, ReadError, Source, Span};
use serde_json::Value;

/// What decides how a file's problems are reported.
struct Reading<'a> {
    candidate: &'a Candidate,
    file_name: String,
    named_format: Option<Format>,
    /// Whether a failure to read this file is worth a problem: it was
    /// named (by a name that is not generic), forced to a format, or its
    /// name says it is a manifest.
    reportable: bool,
}

impl<'a> Reading<'a> {
    fn new(candidate: &'a Candidate, input_format: Option<Format>) -> Self {
        let file_name = candidate
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let named_format = input_format.or_else(|| formats::format_by_file_name(&file_name));
        let generic = formats::file_name_is_generic(&file_name);
        let reportable = (candidate.explicit && !generic)
            || input_format.is_some()
            || named_format.is_some_and(formats::file_name_is_specific)
            || (named_format == Some(Format::Agentstack)
                && manifest_dir(&candidate.path)
                    .join(formats::agentstack::MODULE_FILE)
                    .is_file());
        Reading {
            candidate,
            file_name,
            named_format,
            reportable,
        }
    }

    fn fail(
        &self,
        source: Option<Source>,
        kind: ProblemKind,
        span: Option<Span>,
        message: String,
    ) -> Loaded {
        let broken_manifest = match (&source, self.named_format) {
            (Some(source), Some(format)) => formats::text_names_members(format, &source.text),
            _ => false,
        };
        if !self.reportable && !broken_manifest {
            let position = match (&source, span) {
                (Some(source), Some(span)) => {
                    let at = source.line_col(span.start);
                    format!(" (line {}, column {})", at.line, at.column)
                }
                _ => String::new(),
            };
            return self.skip(format!("not read: {message}{position}"));
        }
        Loaded::Failed(Box::new(Failure {
            file: self.candidate.path.clone(),
            path: self.candidate.display.clone(),
            format: self.named_format,
            source,
            problem: LoadProblem {
                kind,
                path: self.candidate.display.clone(),
                span,
                message,
            },
        }))
    }

    /// The file holds no format toolc reads (or two at once): a problem
    /// whatever its name, with no format to show it in.
    fn unknown_format(&self, source: Source, span: Span, message: String) -> Loaded {
        Loaded::Failed(Box::new(Failure {
            file: self.candidate.path.clone(),
            path: self.candidate.display.clone(),
            format: None,
            source: Some(source),
            problem: LoadProblem {
                kind: ProblemKind::UnknownFormat,
                path: self.candidate.display.clone(),
                span: Some(span),
                message,
            },
        }))
    }

    fn skip(&self, why: String) -> Loaded {
        Loaded::Skipped(Skipped {
            path: self.candidate.display.clone(),
            named: self.candidate.explicit,
            why,
            excluded: false,
        })
    }

    /// Whether a file met in a walk whose name decided its format holds
    /// what that format's files hold: a `tools.json` that lists no tool
    /// objects (a build tool's list of names) is somebody else's, and
    /// skipped. A file named on the command line is read as its name
    /// says, and lint reports what is wrong with it.
    fn holds_its_names_format(&self, detection: &formats::Detection, value: &Value) -> bool {
        self.candidate.explicit
            || detection.decided != formats::Decided::ByName
            || detection.format != Format::Agentcli
            || formats::holds_agentcli_tools(value)
    }

    /// Why a file that parsed is no manifest.
    fn no_format(&self) -> String {
        match self.named_format {
            Some(Format::Agentstack) => format!(
                "a {} without an AgentStack package's `name`, `category` and `tools` (function \
                 names or permissions), and no `__init__.py` beside it (--input-format \
                 agentstack lints it as one)",
                self.file_name
            ),
            Some(Format::Agentcli) => format!(
                "a {} without agentcli tool objects (a list of them, or `tools` holding one) \
                 (--input-format agentcli lints it as one)",
                self.file_name
            ),
            Some(Format::Nachos) => format!(
                "a {} without a Nachos package's `provides`, or `type` and `capabilities` \
                 (--input-format nachos lints it as one)",
                self.file_name
            ),
            _ => "matches no manifest format toolc reads".to_string(),
        }
    }
}

/// Reads a file from disk and loads it.
pub(super) fn load_file(loader: &Loader, candidate: &Candidate, max_size: u64) -> Loaded {
    let bytes = match loader.packages.read_manifest(&candidate.path, max_size) {
        Ok(bytes) => bytes,
        Err(error) => {
            let reading = Reading::new(candidate, loader.options.input_format);
            return match error {
                ReadError::TooLarge(size) => reading.fail(
                    None,
                    ProblemKind::TooLarge,
                    None,
                    format!(
                        "file is {size} bytes, over the limit of {max_size} bytes; it was not read"
                    ),
                ),
                ReadError::Io(message) => {
                    reading.fail(None, ProblemKind::Unreadable, None, message)
                }
            };
        }
    };
    load_bytes(loader, candidate, &bytes, max_size)
}

/// A file's content without a leading UTF-8 byte order mark: what every
/// offset of a [`Source`] counts from.
fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// The text of a manifest a run has read and let go of, read again as the
/// first read saw it (for a report that shows a few positions of many
/// files, and keeps none of their texts meanwhile). `None` when it is no
/// longer readable, no longer UTF-8, or no longer the text the first read
/// saw (`first`): then the positions found in it would be wrong.
///
/// `file` is the path the first read opened; `shown` the path as reports
/// show it.
pub fn source_again(file: &std::path::Path, shown: &str, first: Fingerprint) -> Option<Source> {
    let limit = u64::try_from(first.text_len()).ok()?.saturating_add(3);
    let bytes = crate::source::read_regular_file(file, limit).ok()?;
    let text = std::str::from_utf8(without_bom(&bytes)).ok()?;
    (Fingerprint::of(text) == first).then(|| Source::new(shown, text))
}

/// Applies the record beside the document at `file`, if there is one
/// that parses (it is optional: one that does not is no record). Returns
/// a hash of what was there, for the manifest's
/// [`crate::project::PackageCode::fingerprint`]: a manifest read again is
/// the one the run checked only if its record is unchanged too.
fn read_sidecar(file: &std::path::Path, toolset: &mut crate::ir::ToolSet, max_size: u64) -> u64 {
    use std::hash::Hasher;
    let mut hasher = crate::source::run_hasher();
    let path = formats::carry::sidecar_path(file);
    let Ok(bytes) = crate::source::read_regular_file(&path, max_size) else {
        return hasher.finish();
    };
    hasher.write(&bytes);
    if let Ok(record) = serde_json::from_slice::<serde_json::Value>(without_bom(&bytes)) {
        formats::carry::apply_sidecar(&record, toolset);
    }
    // Apart from no record at all.
    hasher.write_u8(1);
    hasher.finish()
}

/// Parses and lowers a file's content.
pub(super) fn load_bytes(
    loader: &Loader,
    candidate: &Candidate,
    bytes: &[u8],
    max_size: u64,
) -> Loaded {
    let reading = Reading::new(candidate, loader.options.input_format);
    // A file was measured before it was read; a text handed over (from
    // memory, from standard input) is measured here.
    if u64::try_from(bytes.len()).map_or(true, |len| len > max_size) {
        return reading.fail(
            None,
            ProblemKind::TooLarge,
            None,
            format!("the text is over the limit of {max_size} bytes; it was not read"),
        );
    }
    let path = candidate.display.as_str();
    let bytes = without_bom(bytes);
    let text: std::sync::Arc<str> = match std::str::from_utf8(bytes) {
        Ok(text) => text.into(),
        Err(error) => {
            let offset = error.valid_up_to();
            // The snippet shows the text with U+FFFD for the bad bytes; the
            // bytes before them are the same, so the offset holds.
            let source = Source::new(path, String::from_utf8_lossy(bytes).into_owned());
            let span = source.char_span(offset);
            return reading.fail(
                Some(source),
                ProblemKind::InvalidUtf8,
                Some(span),
                format!("invalid UTF-8 at byte {offset}"),
            );
        }
    };
    let source = Source::new(path, text.clone());
    let document = match json::parse_within(&text, super::max_values(max_size)) {
        Ok(document) => document,
        Err(error) => {
            let span = Some(source.char_span(error.offset));
            let (kind, message) = match error.kind {
                ParseErrorKind::Syntax => (ProblemKind::InvalidJson, error.message),
                ParseErrorKind::TooDeep => (ProblemKind::TooDeep, error.message),
                ParseErrorKind::TooLarge => (
                    ProblemKind::TooLarge,
                    format!(
                        "{}, one for every {} bytes of the {max_size}-byte size limit; it was not read",
                        error.message,
                        super::BYTES_PER_VALUE
                    ),
                ),
            };
            return reading.fail(Some(source), kind, span, message);
        }
    };
    // A list of OpenAI tools in both shapes is meant as tools, whatever
    // its name, and no OpenAI endpoint takes it.
    if loader.options.input_format.is_none()
        && let Some((at, message)) = formats::mixed_openai_shapes(&document.value)
    {
        let span = document.map.locate(&at).span;
        return reading.unknown_format(source, span, message);
    }
    let package_code_beside = reading.named_format == Some(Format::Agentstack)
        && manifest_dir(&candidate.path)
            .join(formats::agentstack::MODULE_FILE)
            .is_file();
    let detection = formats::detect(
        &reading.file_name,
        loader.options.input_format,
        &document.value,
        package_code_beside,
    )
    .filter(|detection| reading.holds_its_names_format(detection, &document.value));
    let Some(detection) = detection else {
        if !reading.reportable
            || reading.named_format == Some(Format::Agentcli) && !candidate.explicit
        {
            return reading.skip(reading.no_format());
        }
        let span = source.char_span(0);
        let message = "this file matches no manifest format toolc reads".to_string();
        return reading.unknown_format(source, span, message);
    };
    let format = detection.format;
    // Shared with the IR, whose parameter schemas are parts of it.
    let document = std::sync::Arc::new(document);
    let mut toolset = formats::lower(format, &document, path);
    // A provider document has no room for "x-toolc": the record of renamed
    // parameters is beside it (see `formats::carry::SIDECAR_SUFFIX`).
    let record = (!matches!(
        format,
        Format::Nora | Format::Agentcli | Format::Agentstack | Format::Nachos
    ))
    .then(|| read_sidecar(&candidate.path, &mut toolset, max_size));
    let generated = formats::carry::is_generated(&document.value);
    let dir = manifest_dir(&candidate.path);
    let mut code = loader
        .packages
        .package_code(&mut toolset, &document, &dir, max_size);
    if let Some(record) = record {
        use std::hash::Hasher;
        let mut hasher = crate::source::run_hasher();
        hasher.write_u64(code.fingerprint);
        hasher.write_u64(record);
        code.fingerprint = hasher.finish();
    }
    Loaded::Manifest(Box::new(Manifest {
        file: candidate.path.clone(),
        fingerprint: Fingerprint::of(&text),
        source,
        document,
        generated,
        toolset,
        detection,
        dir,
        code,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_read_again_must_be_the_text_first_read() {
        let dir = std::env::temp_dir().join(format!("toolc-again-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("tools.json");
        let first = "{\n  \"tools\": []\n}\n";
        std::fs::write(&file, first).unwrap();
        let fingerprint = Fingerprint::of(first);

        let again = source_again(&file, "tools.json", fingerprint).unwrap();
        assert_eq!(&*again.text, first);
        // A byte order mark added since: the offsets (counted after it) hold.
        std::fs::write(&file, format!("\u{feff}{first}")).unwrap();
        assert!(source_again(&file, "tools.json", fingerprint).is_some());

        // Same length, other text: every position found in the first text
        // would land elsewhere.
        let shifted = "{\n\n \"tools\": []\n}\n";
        assert_eq!(shifted.len(), first.len());
        std::fs::write(&file, shifted).unwrap();
        assert!(source_again(&file, "tools.json", fingerprint).is_none());

        std::fs::remove_file(&file).unwrap();
        assert!(source_again(&file, "tools.json", fingerprint).is_none());
        std::fs::remove_dir(&dir).unwrap();
    }
}
