//! The source text as miette sees it when it draws a snippet.
//!
//! miette's own `SourceCode` for strings scans from the first byte to the
//! span on every diagnostic, which is quadratic in a large file with many
//! findings, and it panics when a caret sits past column 65,535 of a
//! minified one-line file. [`Snippet`] hands it only the lines around the
//! span, found with toolc's line index, and for a very long line only a
//! window of it. Control characters are already replaced (see
//! [`printable_text`]).

use std::sync::Arc;

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

use crate::source::{Source, Span};

/// A line longer than this (in bytes) is shown as a window around the span.
pub(super) const LONG_LINE: usize = 240;
/// How much of a long line to show on each side of the span (in bytes,
/// widened to character boundaries).
const WINDOW_CONTEXT: usize = 80;

pub(super) struct Snippet<'a> {
    /// `path:line:col`, shown in the snippet's header.
    pub(super) name: String,
    pub(super) source: &'a Source,
    /// The source text with control characters replaced, same byte length.
    pub(super) text: Arc<str>,
}

impl SourceCode for Snippet<'_> {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let text_len = self.text.len();
        let start = span.offset().min(text_len);
        let end = (start + span.len()).min(text_len);
        let first = self.source.line_index(start);
        let last = self.source.line_index(end.saturating_sub(1).max(start));
        let line = self.source.line_span(first);
        if first == last && line.len() > LONG_LINE {
            let window = self.window(line, Span::new(start, end));
            return Ok(self.contents(window, first, 1));
        }
        let first_shown = first.saturating_sub(context_lines_before);
        let last_shown = (last + context_lines_after).min(self.source.line_count() - 1);
        let shown = Span::new(
            self.source.line_span(first_shown).start,
            self.source.line_span(last_shown).end,
        );
        Ok(self.contents(shown, first_shown, last_shown - first_shown + 1))
    }
}

impl Snippet<'_> {
    /// Part of a long line: the span and some context, on character
    /// boundaries.
    fn window(&self, line: Span, span: Span) -> Span {
        let mut start = span.start.saturating_sub(WINDOW_CONTEXT).max(line.start);
        while !self.text.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = (span.end + WINDOW_CONTEXT).min(line.end);
        while !self.text.is_char_boundary(end) {
            end += 1;
        }
        Span::new(start, end)
    }

    fn contents(
        &self,
        shown: Span,
        first_line: usize,
        lines: usize,
    ) -> Box<dyn SpanContents<'_> + '_> {
        Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            &self.text.as_bytes()[shown.start..shown.end],
            SourceSpan::new(shown.start.into(), shown.len()),
            first_line,
            0,
            lines,
        ))
    }
}

/// The text with the characters that would act on the terminal (other
/// than line breaks and tabs) replaced by `?`s of the same byte length,
/// so spans stay valid (see [`crate::terminal::same_length`]).
pub(super) fn printable_text(text: &Arc<str>) -> Arc<str> {
    match crate::terminal::same_length(text) {
        std::borrow::Cow::Borrowed(_) => text.clone(),
        std::borrow::Cow::Owned(shown) => shown.into(),
    }
}
