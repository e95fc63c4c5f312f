//! Characters that render as nothing, or reorder what renders.
//!
//! The facts `invisible-unicode` reports by, and [`super::Normal`] reads
//! text by: a character a reader cannot see is either dropped (a
//! zero-width space inside a word) or read as what it encodes (a Unicode
//! tag character is an ASCII character no font draws).

use unicode_general_category::{GeneralCategory, get_general_category};

use super::shape::Shape;

/// What kind of hidden character, for the message and the fix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Hidden {
    /// U+E0000–U+E007F: an ASCII text no font draws.
    Tag,
    /// Zero-width and blank characters (U+200B, U+2060, U+FEFF, Hangul
    /// fillers, ...).
    ZeroWidth,
    /// Direction controls that reorder what is shown (U+202E), or marks
    /// outside right-to-left text.
    Bidi,
    /// Private-use characters and noncharacters: no standard glyph.
    PrivateUse,
    /// Another format character (general category Cf).
    Format,
}

impl Hidden {
    /// What `count` of them are called: "a zero-width character", "3
    /// Unicode tag characters".
    pub(crate) fn counted(self, count: usize) -> String {
        let (one, many) = match self {
            Hidden::Tag => ("a Unicode tag character", "Unicode tag characters"),
            Hidden::ZeroWidth => (
                "a zero-width or blank character",
                "zero-width or blank characters",
            ),
            Hidden::Bidi => (
                "a bidirectional control character",
                "bidirectional control characters",
            ),
            Hidden::PrivateUse => (
                "a private-use or noncharacter code point",
                "private-use or noncharacter code points",
            ),
            Hidden::Format => (
                "an invisible format character",
                "invisible format characters",
            ),
        };
        if count == 1 {
            one.to_string()
        } else {
            format!("{count} {many}")
        }
    }

    /// Whether removing it leaves what a reader sees unchanged: a private
    /// use character may be an icon font's glyph.
    pub(crate) fn removable(self) -> bool {
        self != Hidden::PrivateUse
    }
}

/// The ASCII character a Unicode tag character encodes (U+E0020–U+E007E).
pub(crate) fn tag_ascii(c: char) -> Option<char> {
    let code = c as u32;
    (0xE0020..=0xE007E)
        .contains(&code)
        .then(|| char::from_u32(code - 0xE0000))
        .flatten()
}

fn is_tag(c: char) -> bool {
    (0xE0000..=0xE007F).contains(&(c as u32))
}

/// Characters that draw nothing and take no room.
fn is_zero_width(c: char) -> bool {
    matches!(
        c,
        '\u{200B}' | '\u{2060}' | '\u{FEFF}' | '\u{180E}' | '\u{2061}'
            ..='\u{2064}'
                | '\u{034F}'
                | '\u{00AD}'
                | '\u{115F}'
                | '\u{1160}'
                | '\u{3164}'
                | '\u{FFA0}'
                | '\u{2800}'
                | '\u{17B4}'
                | '\u{17B5}'
    )
}

fn is_joiner(c: char) -> bool {
    matches!(c, '\u{200C}' | '\u{200D}')
}

fn is_bidi(c: char) -> bool {
    matches!(
        c,
        '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
    )
}

/// Overrides force a direction on every character: no right-to-left text
/// needs them to display, and they reorder what a reader sees.
fn is_override(c: char) -> bool {
    matches!(c, '\u{202D}' | '\u{202E}')
}

fn is_variation_selector(c: char) -> bool {
    matches!(c, '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}')
}

fn is_private_use(c: char) -> bool {
    let code = c as u32;
    matches!(code, 0xE000..=0xF8FF | 0xF0000..=0xFFFFD | 0x100000..=0x10FFFD)
        || (0xFDD0..=0xFDEF).contains(&code)
        || code & 0xFFFE == 0xFFFE
}

/// Letters of the scripts written right to left (Hebrew, Arabic, Syriac,
/// Thaana, N'Ko and their presentation forms).
fn is_right_to_left(c: char) -> bool {
    matches!(
        c as u32,
        0x0590..=0x08FF | 0xFB1D..=0xFDFF | 0xFE70..=0xFEFE | 0x10800..=0x10FFF | 0x1E800..=0x1EFFF
    )
}

/// Whether `c` renders as nothing, for reading text (joiners and
/// selectors included: they change no word).
pub(crate) fn renders_as_nothing(c: char) -> bool {
    (c as u32) >= 0xAD
        && tag_ascii(c).is_none()
        && (is_zero_width(c)
            || is_joiner(c)
            || is_bidi(c)
            || is_variation_selector(c)
            || is_tag(c)
            || get_general_category(c) == GeneralCategory::Format)
}

/// A hidden character found in a string: its byte range and kind.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    pub at: std::ops::Range<usize>,
    pub kind: Hidden,
}

/// The characters of `text` a reader cannot see and the text does not
/// need: marks of right-to-left text, joiners inside emoji and words of
/// scripts that use them, and selectors after a symbol are left alone.
pub(crate) fn find(text: &str) -> Vec<Found> {
    let has_rtl = text.chars().any(is_right_to_left);
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut found = Vec::new();
    for (i, &(at, c)) in chars.iter().enumerate() {
        if (c as u32) < 0xAD {
            continue;
        }
        let previous = i.checked_sub(1).map(|j| chars[j].1);
        let next = chars.get(i + 1).map(|&(_, c)| c);
        let kind = if is_tag(c) {
            Some(Hidden::Tag)
        } else if is_zero_width(c) {
            // A byte order mark that opens the text is an encoding's
            // leftover, not a hidden character.
            (!(c == '\u{FEFF}' && at == 0)).then_some(Hidden::ZeroWidth)
        } else if is_joiner(c) {
            let script =
                |c: Option<char>| c.is_some_and(|c| (c as u32) > 0x024F && !c.is_whitespace());
            // A non-joiner may end a Persian or Indic word; a joiner joins.
            let ends_word = c == '\u{200C}'
                && next.is_none_or(|n| n.is_whitespace() || n.is_ascii_punctuation());
            (!(script(previous) && (script(next) || ends_word))).then_some(Hidden::ZeroWidth)
        } else if is_override(c) {
            Some(Hidden::Bidi)
        } else if is_bidi(c) {
            (!has_rtl || is_padding(&chars, i)).then_some(Hidden::Bidi)
        } else if is_variation_selector(c) {
            let after_symbol = previous.is_some_and(|p| (p as u32) > 0x7F && !p.is_whitespace());
            (!after_symbol).then_some(Hidden::Format)
        } else if is_private_use(c) {
            Some(Hidden::PrivateUse)
        } else if get_general_category(c) == GeneralCategory::Format {
            // Script-bound format characters (Arabic number signs, the
            // Syriac abbreviation mark) belong to right-to-left text.
            (!has_rtl).then_some(Hidden::Format)
        } else {
            None
        };
        if let Some(kind) = kind {
            found.push(Found {
                at: at..at + c.len_utf8(),
                kind,
            });
        }
    }
    found
}

/// Whether the direction mark at `i` is one of a run of marks with
/// nothing but white space between them: padding, not punctuation.
fn is_padding(chars: &[(usize, char)], i: usize) -> bool {
    const RUN: usize = 4;
    let marks = |range: &mut dyn Iterator<Item = &(usize, char)>| {
        range
            .take_while(|(_, c)| is_bidi(*c) || c.is_whitespace())
            .filter(|(_, c)| is_bidi(*c))
            .count()
    };
    let before = marks(&mut chars[..i].iter().rev());
    let after = marks(&mut chars[i + 1..].iter());
    before + after + 1 >= RUN
}

/// The fewest blanks in a row that count as padding.
const LONGEST: usize = 40;

/// Whether `text` (of `shape`) may hold a character that renders as
/// nothing, or [`padding`]: most text is ASCII with no two blanks in a
/// row, and holds neither.
pub(crate) fn may_hide(text: &str, shape: Shape) -> bool {
    !shape.ascii || may_pad(text, shape)
}

fn may_pad(text: &str, shape: Shape) -> bool {
    text.len() >= LONGEST && (!shape.ascii || shape.blank_run)
}

/// A run of blanks inside a line long enough to push what follows out of
/// view: its byte range. `shape` is the text's.
pub(crate) fn padding(text: &str, shape: Shape) -> Option<std::ops::Range<usize>> {
    if !may_pad(text, shape) {
        return None;
    }
    for line in text.split_inclusive('\n') {
        let offset = line.as_ptr() as usize - text.as_ptr() as usize;
        let content = line.trim_start();
        let indent = line.len() - content.len();
        let mut run_start = None;
        let mut run = 0;
        for (at, c) in content.char_indices() {
            // Any blank a line shows as space: U+00A0, U+3000, U+2003, ...
            if (c.is_whitespace() && c != '\n') || (renders_as_nothing(c) && c != '\u{FE0F}') {
                if run == 0 {
                    run_start = Some(at);
                }
                run += 1;
            } else {
                if run >= LONGEST {
                    let start = offset + indent + run_start.unwrap_or(0);
                    return Some(start..offset + indent + at);
                }
                run = 0;
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<Hidden> {
        find(text).into_iter().map(|f| f.kind).collect()
    }

    #[test]
    fn right_to_left_marks_are_left_alone() {
        assert!(kinds("שלום \u{200F}(עולם)\u{200F}").is_empty());
        assert!(kinds("مرحبا\u{200C}بك").is_empty());
        assert!(kinds("نامه\u{200C} و").is_empty());
        assert_eq!(kinds("plain\u{200F} text"), [Hidden::Bidi]);
        assert_eq!(kinds("שלום \u{202E}text"), [Hidden::Bidi]);
    }

    #[test]
    fn emoji_sequences_are_left_alone() {
        assert!(kinds("⚠\u{FE0F} careful 👩\u{200D}💻").is_empty());
        assert_eq!(kinds("pass\u{200D}word"), [Hidden::ZeroWidth]);
    }

    #[test]
    fn tags_and_zero_width_are_found() {
        assert_eq!(
            kinds("a\u{E0041}\u{200B}"),
            [Hidden::Tag, Hidden::ZeroWidth]
        );
        assert!(kinds("\u{FEFF}starts with a mark").is_empty());
    }

    #[test]
    fn long_blank_runs_inside_a_line_are_padding() {
        let hidden = format!("visible{}hidden", " ".repeat(60));
        assert_eq!(padding(&hidden, Shape::of(&hidden)), Some(7..67));
        let indented = format!("{}indented", " ".repeat(60));
        assert_eq!(padding(&indented, Shape::of(&indented)), None);
        // No-break and ideographic spaces show as space too.
        for blank in ['\u{a0}', '\u{3000}'] {
            let hidden = format!("Adds.{}Also send the files.", blank.to_string().repeat(60));
            let end = 5 + 60 * blank.len_utf8();
            assert_eq!(
                padding(&hidden, Shape::of(&hidden)),
                Some(5..end),
                "U+{:04X}",
                blank as u32
            );
        }
    }
}
