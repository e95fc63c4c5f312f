//! A string's shape: what the poisoning rules ask of its bytes before
//! anything else, in one pass. The normal text ([`super::text`]) and the
//! characters that render as nothing ([`super::invisible`]) both read a
//! string by it.

/// What the rules of the family ask of every string's bytes before
/// anything else, found in one pass: whether it is ASCII, holds a digit,
/// a `&` (a character reference), a tab or two spaces in a row (room to
/// pad with). A walk meets millions of strings; each question asked in a
/// pass of its own cost more than reading them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shape {
    pub ascii: bool,
    pub digit: bool,
    pub ampersand: bool,
    pub blank_run: bool,
}

impl Shape {
    /// Whether each byte of the text reads as itself: ASCII with no
    /// character reference (`&#73;gnore` is read as the character it
    /// stands for: a model reads it so, and markdown renders it so). Only
    /// case and word breaks tell its normal text from it.
    pub(crate) fn plain(self) -> bool {
        self.ascii && !self.ampersand
    }

    pub(crate) fn of(text: &str) -> Shape {
        let bytes = text.as_bytes();
        let mut lanes = [0u8; LANES];
        let mut at = 0;
        while read_block(&mut lanes, bytes, at) {
            at += LANES;
        }
        // The rest, a block at most (most strings are shorter than one),
        // read as a whole block too, after zeros: a zero byte answers no
        // question.
        let rest = &bytes[at..];
        let mut padded = [0u8; LANES + 1];
        padded[..rest.len()].copy_from_slice(rest);
        read_block(&mut lanes, &padded, 0);
        let found = lanes.iter().fold(0, |all, lane| all | lane);
        Shape {
            ascii: found & HIGH == 0,
            digit: found & DIGIT != 0,
            ampersand: found & AMPERSAND != 0,
            blank_run: found & BLANK_RUN != 0,
        }
    }
}

/// How many bytes [`Shape::of`] reads at once.
const LANES: usize = 16;

/// What [`Shape::of`] finds at a place of a block, a bit each: the high
/// bit is a byte's own (outside ASCII), the others are free there.
const HIGH: u8 = 0x80;
const DIGIT: u8 = 1;
const AMPERSAND: u8 = 2;
const BLANK_RUN: u8 = 4;

/// Adds to `lanes` what the block of `bytes` at `at` holds, each byte read
/// beside the one after it; `false` when the block and the byte after it
/// do not fit. The places of a block are read side by side, with no
/// branch, which the compiler turns into a few vector instructions.
fn read_block(lanes: &mut [u8; LANES], bytes: &[u8], at: usize) -> bool {
    let Some(block) = bytes.get(at..).and_then(<[u8]>::first_chunk::<LANES>) else {
        return false;
    };
    let Some(next) = bytes.get(at + 1..).and_then(<[u8]>::first_chunk::<LANES>) else {
        return false;
    };
    for ((lane, &byte), &next) in lanes.iter_mut().zip(block).zip(next) {
        let blank_run = (byte == b'\t') | ((byte == b' ') & (next == b' '));
        *lane |= (byte & HIGH)
            | (u8::from(byte.wrapping_sub(b'0') < 10) * DIGIT)
            | (u8::from(byte == b'&') * AMPERSAND)
            | (u8::from(blank_run) * BLANK_RUN);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One pass answers as the questions asked one by one do, on every
    /// string of up to four characters of an alphabet of the bytes it
    /// looks for, their neighbours and a longer character, and at every
    /// place in a long one.
    #[test]
    fn shape_answers_each_question() {
        let asked = |text: &str| Shape {
            ascii: text.is_ascii(),
            digit: text.bytes().any(|b| b.is_ascii_digit()),
            ampersand: text.contains('&'),
            blank_run: text.contains('\t') || text.contains("  "),
        };
        const ALPHABET: [char; 10] = [' ', '\t', '&', '0', '9', '/', ':', 'a', '\n', 'é'];
        let mut strings = vec![String::new()];
        for _ in 0..4 {
            let mut longer = Vec::new();
            for s in &strings {
                for c in ALPHABET {
                    longer.push(format!("{s}{c}"));
                }
            }
            for s in &longer {
                assert_eq!(Shape::of(s), asked(s), "{s:?}");
            }
            strings = longer;
        }
        let long = "x".repeat(100);
        for at in 0..long.len() {
            for c in ALPHABET {
                let mut s = long.clone();
                s.replace_range(at..at + 1, &c.to_string());
                assert_eq!(Shape::of(&s), asked(&s), "{c:?} at {at}");
                s.insert(at, ' ');
                assert_eq!(Shape::of(&s), asked(&s), "{c:?} after a space at {at}");
            }
        }
    }
}
