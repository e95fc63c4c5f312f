//! Autofix: applying the text edits that findings carry.
//!
//! Fixes edit the file's text, so everything they do not touch (key order,
//! indentation, spacing) stays byte for byte the same. Edits that overlap an
//! earlier one wait for the next round; rounds repeat (re-reading and
//! re-checking the text) until no fix applies. A result that no longer
//! parses is a bug in a fix and is never written.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{
    LintError, LintOptions, Linter, Manifest, Rule, Settings, apply_level, check_manifest,
};
use crate::diagnostic::{Edit, Fix};
use crate::json;
use crate::lint::findings::Findings;
use crate::project::{self, Loaded};
use crate::source::{self, Span};

/// Rounds of fixing before giving up on reaching a fixed point. Fixes that
/// insert at the same place (each property appended to one `required`
/// array) land one per round, so this is generous.
const MAX_ROUNDS: usize = 10_000;

/// One file the fixes changed.
#[derive(Debug, Clone)]
pub struct FileFix {
    /// Where the file is (write here).
    pub path: PathBuf,
    /// How it is shown.
    pub display: String,
    pub original: String,
    pub fixed: String,
    /// How many findings of each rule the applied fixes resolved, by code.
    pub by_rule: Vec<(&'static Rule, usize)>,
}

impl FileFix {
    /// How many findings the applied fixes resolved.
    pub fn applied(&self) -> usize {
        self.by_rule.iter().map(|(_, n)| n).sum()
    }
}

/// Computes the fixes for every manifest under `paths`; writes nothing.
pub fn fix_paths(
    paths: &[PathBuf],
    options: &LintOptions,
    unsafe_fixes: bool,
) -> Result<Vec<FileFix>, LintError> {
    let linter = Linter::new(options.clone())?;
    let load_options = linter.load_options();
    // One loader for every round of every file: package code is read once.
    let loader = project::Loader::new(&load_options);
    let mut fixed = Vec::new();
    for candidate in project::candidates(paths, &load_options)? {
        let settings = linter.resolver.settings_for(&candidate.path)?;
        // Read as the linter reads: regular files within the size limit only
        // (a FIFO would block; a file too large is not a manifest to edit).
        let Ok(bytes) = source::read_regular_file(&candidate.path, settings.max_file_size) else {
            continue;
        };
        let Ok(original) = String::from_utf8(bytes) else {
            continue;
        };
        fixed.extend(fix_text(
            &loader,
            &candidate,
            original,
            &settings,
            unsafe_fixes,
        )?);
    }
    Ok(fixed)
}

/// Computes the fixes of a document held in memory (standard input),
/// read, configured and shown as the file at `path` would be; `None` when
/// nothing changes (or the text is over the size limit).
pub fn fix_document(
    path: &Path,
    text: &str,
    options: &LintOptions,
    unsafe_fixes: bool,
) -> Result<Option<FileFix>, LintError> {
    let linter = Linter::new(options.clone())?;
    let settings = linter.resolver.settings_for(path)?;
    if u64::try_from(text.len()).map_or(true, |len| len > settings.max_file_size) {
        return Ok(None);
    }
    let load_options = linter.load_options();
    let loader = project::Loader::new(&load_options);
    let candidate = project::Candidate::named(path.to_path_buf());
    fix_text(
        &loader,
        &candidate,
        text.to_string(),
        &settings,
        unsafe_fixes,
    )
}

/// Fixes `original`, the text of `candidate`, round after round until no
/// fix applies; `None` when nothing changes.
fn fix_text(
    loader: &project::Loader,
    candidate: &project::Candidate,
    original: String,
    settings: &Settings,
    unsafe_fixes: bool,
) -> Result<Option<FileFix>, LintError> {
    // Spans count from after a byte order mark; keep it aside, put it back.
    let (bom, body) = match original.strip_prefix('\u{feff}') {
        Some(body) => ("\u{feff}", body),
        None => ("", original.as_str()),
    };
    // A second mark is not JSON: lint says so, and there is nothing to
    // fix. (Handed on, the loader would take it for the first one, and
    // every edit would land three bytes off.)
    if body.starts_with('\u{feff}') {
        return Ok(None);
    }
    let mut text = body.to_string();
    let mut applied: BTreeMap<&'static str, (&'static Rule, usize)> = BTreeMap::new();
    for _ in 0..MAX_ROUNDS {
        // The size limit is on what is read: the fixes may take a text
        // just under it past it, and the next round still reads it.
        let limit =
            u64::try_from(text.len()).map_or(u64::MAX, |len| len.max(settings.max_file_size));
        let Loaded::Manifest(loaded) = loader.load_text(candidate, text.as_bytes(), limit) else {
            break;
        };
        let manifest = Manifest {
            loaded: &loaded,
            settings,
        };
        let fixes = applicable_fixes(&manifest, unsafe_fixes)?;
        let (next, rules) = apply(&text, &fixes);
        if rules.is_empty() {
            break;
        }
        text = next;
        for rule in rules {
            applied.entry(rule.code).or_insert((rule, 0)).1 += 1;
        }
    }
    if text == body {
        return Ok(None);
    }
    if let Err(error) = json::parse(&std::sync::Arc::from(text.as_str())) {
        return Err(LintError::Internal(format!(
            "a fix made {} invalid JSON ({} at byte {}); nothing was written",
            candidate.display, error.message, error.offset
        )));
    }
    Ok(Some(FileFix {
        path: candidate.path.clone(),
        display: candidate.display.clone(),
        fixed: format!("{bom}{text}"),
        original,
        by_rule: applied.into_values().collect(),
    }))
}

/// The fixes `--fix` applies to the manifest's findings, each with the
/// rule of its finding.
fn applicable_fixes(
    manifest: &Manifest,
    unsafe_fixes: bool,
) -> Result<Vec<(&'static Rule, Fix)>, LintError> {
    let mut findings = Findings::new();
    check_manifest(manifest, &mut findings)?;
    // Past a rule's limit the rest wait for the next round.
    let mut diagnostics = findings.into_kept();
    diagnostics.retain_mut(|d| apply_level(d, manifest.settings));
    Ok(diagnostics
        .into_iter()
        .filter_map(|d| Some((d.rule, d.fix?)))
        .filter(|(_, f)| f.applies(unsafe_fixes))
        .collect())
}

/// Applies the fixes whose edits overlap no earlier fix's; returns the new
/// text and the rule of each fix applied.
fn apply(text: &str, fixes: &[(&'static Rule, Fix)]) -> (String, Vec<&'static Rule>) {
    let mut taken: Vec<Span> = Vec::new();
    let mut edits: Vec<&Edit> = Vec::new();
    let mut applied = Vec::new();
    let mut ordered: Vec<&(&'static Rule, Fix)> = fixes.iter().collect();
    ordered.sort_by_key(|(_, f)| f.edits.iter().map(|e| e.span.start).min());
    for (rule, fix) in ordered {
        let clashes = fix.edits.iter().any(|edit| {
            taken.iter().any(|t| {
                edit.span.start < t.end && t.start < edit.span.end
                    || edit.span.start == t.start
                    || (edit.span.is_empty()
                        && t.start < edit.span.start
                        && edit.span.start < t.end)
            })
        });
        let in_bounds = fix.edits.iter().all(|e| {
            e.span.end <= text.len()
                && text.is_char_boundary(e.span.start)
                && text.is_char_boundary(e.span.end)
        });
        if clashes || !in_bounds || fix.edits.is_empty() {
            continue;
        }
        taken.extend(fix.edits.iter().map(|e| e.span));
        edits.extend(fix.edits.iter());
        applied.push(*rule);
    }
    edits.sort_by_key(|e| std::cmp::Reverse((e.span.start, e.span.end)));
    let mut out = text.to_string();
    for edit in edits {
        out.replace_range(edit.span.start..edit.span.end, &edit.replacement);
    }
    (out, applied)
}

/// An edit adding `"key": value` as the last member of the object at
/// `object`: on its own line, indented like the member before it, when the
/// object spans lines; after a comma and a space when it does not.
pub(crate) fn insert_member(
    manifest: &Manifest,
    object: &str,
    key: &str,
    value: &str,
) -> Option<Edit> {
    let span = manifest.document.map.value_span(object)?;
    let text: &str = &manifest.source.text;
    if !text[span.start..span.end].starts_with('{') || !text[span.start..span.end].ends_with('}') {
        return None;
    }
    let inside = &text[span.start + 1..span.end - 1];
    let member = format!("{}: {value}", serde_json::to_string(key).ok()?);
    let before_close = inside.trim_end();
    if before_close.trim_start().is_empty() {
        let at = span.start + 1;
        return Some(Edit {
            span: Span::new(at, at),
            replacement: member,
        });
    }
    let at = span.start + 1 + before_close.len();
    let separator = if inside.contains('\n') {
        let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let indent: String = text[line_start..]
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .collect();
        // The file's own line ending: CRLF files stay CRLF.
        let newline = if inside.contains("\r\n") {
            "\r\n"
        } else {
            "\n"
        };
        format!(",{newline}{indent}")
    } else {
        ", ".to_string()
    };
    Some(Edit {
        span: Span::new(at, at),
        replacement: format!("{separator}{member}"),
    })
}

/// An edit appending `value` to the array at `array`.
pub(crate) fn append_item(manifest: &Manifest, array: &str, value: &str) -> Option<Edit> {
    let span = manifest.document.map.value_span(array)?;
    let text: &str = &manifest.source.text;
    if !text[span.start..span.end].starts_with('[') || !text[span.start..span.end].ends_with(']') {
        return None;
    }
    let inside = &text[span.start + 1..span.end - 1];
    let before_close = inside.trim_end();
    if before_close.trim_start().is_empty() {
        let at = span.start + 1;
        return Some(Edit {
            span: Span::new(at, at),
            replacement: value.to_string(),
        });
    }
    let at = span.start + 1 + before_close.len();
    Some(Edit {
        span: Span::new(at, at),
        replacement: format!(", {value}"),
    })
}

/// An edit replacing the value at `pointer` with `replacement`.
pub(crate) fn replace_value(
    manifest: &Manifest,
    pointer: &str,
    replacement: String,
) -> Option<Edit> {
    let span = manifest.document.map.value_span(pointer)?;
    Some(Edit { span, replacement })
}
