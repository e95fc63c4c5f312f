//! Line diffs: what `lint --diff` and `gen --check` print, and the lines a
//! regenerated file would drop.
//!
//! Myers' algorithm in linear space: the common head and tail are set
//! aside, then the middle of a shortest edit script is found by searching
//! from both ends at once, and each half is diffed the same way. Lines are
//! compared as numbers (one per distinct line), so a step costs no string
//! comparison. As git's diff does, a search that has gone [`max_edits`]
//! edits from each end without meeting settles for the point its forward
//! paths reached furthest, and diffs the two sides of it: on texts that
//! differ all over, a diff that may not be the shortest but is correct and
//! the same on every run, in time near linear rather than quadratic.
//!
//! The output is a unified diff as GNU diff writes it (`git apply` and
//! `patch` read it), with `\ No newline at end of file` after a last line
//! that has no line break.

use std::collections::HashMap;
use std::fmt::Write;

/// The edits a middle search goes from each end of texts of `lines` lines
/// before it settles for a split that may not be on a shortest script:
/// the square root of their size, and at least 256 (so texts of up to 512
/// lines always get a shortest one).
fn max_edits(lines: usize) -> isize {
    (lines.isqrt() as isize).max(256)
}

/// What a run of lines is in the diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tag {
    Same,
    Gone,
    Added,
}

/// `len` lines that start at line `old` of the old text and line `new` of
/// the new (both from 0), all with the same tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Run {
    tag: Tag,
    old: usize,
    new: usize,
    len: usize,
}

impl Run {
    fn old_len(&self) -> usize {
        if self.tag == Tag::Added { 0 } else { self.len }
    }

    fn new_len(&self) -> usize {
        if self.tag == Tag::Gone { 0 } else { self.len }
    }
}

/// The difference between two texts, line by line. A line keeps its line
/// break, so a last line without one differs from the same line with one.
pub(super) struct LineDiff<'a> {
    old: Vec<&'a str>,
    new: Vec<&'a str>,
    runs: Vec<Run>,
}

impl<'a> LineDiff<'a> {
    pub(super) fn new(old: &'a str, new: &'a str) -> Self {
        let old: Vec<&str> = old.split_inclusive('\n').collect();
        let new: Vec<&str> = new.split_inclusive('\n').collect();
        let mut ids: HashMap<&str, u32> = HashMap::new();
        let mut id = |line: &'a str| {
            let next = u32::try_from(ids.len()).unwrap_or(u32::MAX);
            *ids.entry(line).or_insert(next)
        };
        let a: Vec<u32> = old.iter().map(|line| id(line)).collect();
        let b: Vec<u32> = new.iter().map(|line| id(line)).collect();
        let mut search = Search::default();
        search.diff(&a, &b, 0, 0);
        LineDiff {
            old,
            new,
            runs: removed_first(&search.runs),
        }
    }

    /// The lines of the old text that are not in the new, with their
    /// numbers (from 1).
    pub(super) fn removed(&self) -> impl Iterator<Item = (usize, &'a str)> + '_ {
        self.runs
            .iter()
            .filter(|run| run.tag == Tag::Gone)
            .flat_map(|run| (run.old..run.old + run.len).map(|i| (i + 1, self.old[i])))
    }

    /// The diff as a unified diff with `context` lines around each change,
    /// headed `--- old_name` and `+++ new_name`; empty when the texts are
    /// the same.
    pub(super) fn unified(&self, old_name: &str, new_name: &str, context: usize) -> String {
        let mut out = String::new();
        for hunk in self.hunks(context) {
            if out.is_empty() {
                let _ = writeln!(out, "--- {old_name}\n+++ {new_name}");
            }
            let (first, last) = (hunk[0], hunk[hunk.len() - 1]);
            let old_end = last.old + last.old_len();
            let new_end = last.new + last.new_len();
            let _ = writeln!(
                out,
                "@@ -{} +{} @@",
                Range(first.old, old_end),
                Range(first.new, new_end)
            );
            for run in hunk {
                let (sign, lines) = match run.tag {
                    Tag::Same => (' ', &self.old[run.old..run.old + run.len]),
                    Tag::Gone => ('-', &self.old[run.old..run.old + run.len]),
                    Tag::Added => ('+', &self.new[run.new..run.new + run.len]),
                };
                for line in lines {
                    out.push(sign);
                    out.push_str(line);
                    if !line.ends_with('\n') {
                        out.push_str("\n\\ No newline at end of file\n");
                    }
                }
            }
        }
        out
    }

    /// The runs grouped into hunks: each change with up to `context`
    /// unchanged lines before and after it, and changes closer than twice
    /// that in one hunk.
    fn hunks(&self, context: usize) -> Vec<Vec<Run>> {
        let mut hunks = Vec::new();
        let mut hunk: Vec<Run> = Vec::new();
        let last = self.runs.len().saturating_sub(1);
        for (i, &run) in self.runs.iter().enumerate() {
            if run.tag != Tag::Same {
                hunk.push(run);
                continue;
            }
            // The context after the change before it.
            let head = if hunk.is_empty() {
                0
            } else {
                run.len.min(context)
            };
            // The context before the change after it.
            let tail = if i == last { 0 } else { run.len.min(context) };
            if !hunk.is_empty() && run.len <= 2 * context && i != last {
                hunk.push(run);
                continue;
            }
            if head > 0 {
                hunk.push(Run { len: head, ..run });
            }
            if !hunk.is_empty() {
                hunks.push(std::mem::take(&mut hunk));
            }
            if tail > 0 {
                let skip = run.len - tail;
                hunk.push(Run {
                    old: run.old + skip,
                    new: run.new + skip,
                    len: tail,
                    ..run
                });
            }
        }
        if hunk.iter().any(|run| run.tag != Tag::Same) {
            hunks.push(hunk);
        }
        hunks
    }
}

/// `runs` with each stretch of changes between unchanged lines shown as
/// GNU diff and git show it: its removed lines, then its added lines (the
/// search may have interleaved them).
fn removed_first(runs: &[Run]) -> Vec<Run> {
    let mut tidy = Vec::with_capacity(runs.len());
    let mut rest = runs;
    while let Some((first, _)) = rest.split_first() {
        let changed = rest.iter().take_while(|run| run.tag != Tag::Same).count();
        if changed == 0 {
            tidy.push(*first);
            rest = &rest[1..];
            continue;
        }
        let (block, after) = rest.split_at(changed);
        let count = |tag| {
            block
                .iter()
                .filter(|run| run.tag == tag)
                .map(|run| run.len)
                .sum()
        };
        let (gone, added): (usize, usize) = (count(Tag::Gone), count(Tag::Added));
        let (old, new) = (first.old, first.new);
        if gone > 0 {
            tidy.push(Run {
                tag: Tag::Gone,
                old,
                new,
                len: gone,
            });
        }
        if added > 0 {
            tidy.push(Run {
                tag: Tag::Added,
                old: old + gone,
                new,
                len: added,
            });
        }
        rest = after;
    }
    tidy
}

/// A hunk's lines of one side as GNU diff writes them: the first line
/// (from 1) and the count, the count left out when it is 1, and the line
/// before when it is 0.
struct Range(usize, usize);

impl std::fmt::Display for Range {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Range(start, end) = *self;
        match end - start {
            1 => write!(f, "{}", start + 1),
            0 => write!(f, "{start},0"),
            len => write!(f, "{},{len}", start + 1),
        }
    }
}

/// The state of one diff: its runs so far, and the two frontiers of the
/// middle search, kept to be reused.
#[derive(Default)]
struct Search {
    runs: Vec<Run>,
    forward: Vec<isize>,
    backward: Vec<isize>,
}

impl Search {
    fn push(&mut self, tag: Tag, old: usize, new: usize, len: usize) {
        if len == 0 {
            return;
        }
        if let Some(last) = self.runs.last_mut()
            && last.tag == tag
            && last.old + last.old_len() == old
            && last.new + last.new_len() == new
        {
            last.len += len;
            return;
        }
        self.runs.push(Run { tag, old, new, len });
    }

    /// Diffs `a` against `b`, which start at lines `old` and `new`.
    fn diff(&mut self, a: &[u32], b: &[u32], old: usize, new: usize) {
        let head = a.iter().zip(b).take_while(|(x, y)| x == y).count();
        self.push(Tag::Same, old, new, head);
        let (a, b) = (&a[head..], &b[head..]);
        let (old, new) = (old + head, new + head);
        let tail = a
            .iter()
            .rev()
            .zip(b.iter().rev())
            .take_while(|(x, y)| x == y)
            .count();
        let (a, b) = (&a[..a.len() - tail], &b[..b.len() - tail]);
        if a.is_empty() || b.is_empty() {
            self.push(Tag::Gone, old, new, a.len());
            self.push(Tag::Added, old + a.len(), new, b.len());
        } else {
            match self.middle(a, b) {
                // Both halves are smaller than the whole, which ends the
                // recursion; anything else would be a fault of the search.
                Some((x, y)) if (x, y) != (0, 0) && (x, y) != (a.len(), b.len()) => {
                    self.diff(&a[..x], &b[..y], old, new);
                    self.diff(&a[x..], &b[y..], old + x, new + y);
                }
                _ => {
                    self.push(Tag::Gone, old, new, a.len());
                    self.push(Tag::Added, old + a.len(), new, b.len());
                }
            }
        }
        self.push(Tag::Same, old + a.len(), new + b.len(), tail);
    }

    /// A point of a shortest edit script from the start of `a` and `b` to
    /// their ends where as many edits lie before it as after (give or take
    /// one), found by extending the furthest-reaching paths from both ends
    /// until they meet on a diagonal; past [`max_edits`] without meeting,
    /// the point furthest from the start that the forward search reached.
    /// `None` when either is empty, or when that point is the start.
    fn middle(&mut self, a: &[u32], b: &[u32]) -> Option<(usize, usize)> {
        if a.is_empty() || b.is_empty() {
            return None;
        }
        let (n, m) = (a.len() as isize, b.len() as isize);
        let most = (n + m + 1) / 2;
        let offset = most + 1;
        let width = (2 * most + 3) as usize;
        let index = |k: isize| usize::try_from(offset + k).ok().filter(|&i| i < width);
        let (forward, backward) = (&mut self.forward, &mut self.backward);
        forward.clear();
        forward.resize(width, -1);
        backward.clear();
        backward.resize(width, -1);
        forward[(offset + 1) as usize] = 0;
        backward[(offset + 1) as usize] = 0;
        let delta = n - m;
        let odd = delta % 2 != 0;
        // Diagonals at either end whose paths left the graph are not
        // extended again.
        let (mut f_start, mut f_end, mut b_start, mut b_end) = (0, 0, 0, 0);
        let limit = max_edits(a.len() + b.len());
        // The forward point furthest from the start so far (x + y).
        let mut furthest = (0, 0);
        for d in 0..=most {
            if d > limit {
                let (x, y) = furthest;
                return (x + y > 0).then_some((x as usize, y as usize));
            }
            let mut k = -d + f_start;
            while k <= d - f_end {
                let i = (offset + k) as usize;
                let mut x = if k == -d || (k != d && forward[i - 1] < forward[i + 1]) {
                    forward[i + 1]
                } else {
                    forward[i - 1] + 1
                };
                let mut y = x - k;
                while x < n && y >= 0 && y < m && a[x as usize] == b[y as usize] {
                    x += 1;
                    y += 1;
                }
                forward[i] = x;
                if x <= n && y <= m && x + y > furthest.0 + furthest.1 {
                    furthest = (x, y);
                }
                if x > n {
                    f_end += 2;
                } else if y > m {
                    f_start += 2;
                } else if odd
                    && let Some(j) = index(delta - k)
                    && backward[j] >= 0
                    && x >= n - backward[j]
                {
                    return Some((x as usize, y as usize));
                }
                k += 2;
            }
            let mut k = -d + b_start;
            while k <= d - b_end {
                let i = (offset + k) as usize;
                let mut x = if k == -d || (k != d && backward[i - 1] < backward[i + 1]) {
                    backward[i + 1]
                } else {
                    backward[i - 1] + 1
                };
                let mut y = x - k;
                while x < n && y >= 0 && y < m && a[(n - 1 - x) as usize] == b[(m - 1 - y) as usize]
                {
                    x += 1;
                    y += 1;
                }
                backward[i] = x;
                if x > n {
                    b_end += 2;
                } else if y > m {
                    b_start += 2;
                } else if !odd
                    && let Some(j) = index(delta - k)
                    && forward[j] >= 0
                    && forward[j] >= n - x
                {
                    let x = forward[j];
                    return Some((x as usize, (x - (delta - k)) as usize));
                }
                k += 2;
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The length of a longest common subsequence, by dynamic programming.
    fn lcs(a: &[&str], b: &[&str]) -> usize {
        let mut row = vec![0usize; b.len() + 1];
        for x in a {
            let mut diagonal = 0;
            for (j, y) in b.iter().enumerate() {
                let above = row[j + 1];
                row[j + 1] = if x == y {
                    diagonal + 1
                } else {
                    above.max(row[j])
                };
                diagonal = above;
            }
        }
        row[b.len()]
    }

    /// The old and new texts the runs of `diff` describe.
    fn sides(diff: &LineDiff) -> (String, String) {
        let (mut old, mut new) = (String::new(), String::new());
        for run in &diff.runs {
            if run.tag != Tag::Added {
                old.extend(diff.old[run.old..run.old + run.len].iter().copied());
            }
            if run.tag != Tag::Gone {
                new.extend(diff.new[run.new..run.new + run.len].iter().copied());
            }
            if run.tag == Tag::Same {
                assert_eq!(
                    diff.old[run.old..run.old + run.len],
                    diff.new[run.new..run.new + run.len]
                );
            }
        }
        (old, new)
    }

    /// A small deterministic generator (xorshift), so a failure repeats.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self, below: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % below
        }
    }

    fn text(rng: &mut Rng, lines: u64, alphabet: u64) -> String {
        let mut text = String::new();
        for _ in 0..rng.next(lines) {
            let _ = writeln!(text, "{}", rng.next(alphabet));
        }
        if rng.next(4) == 0 {
            text.push_str("end");
        }
        text
    }

    #[test]
    fn every_diff_rebuilds_both_texts_with_as_few_edits_as_possible() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for round in 0..3000 {
            let alphabet = 2 + round % 7;
            let old = text(&mut rng, 40, alphabet);
            let new = if rng.next(3) == 0 {
                // A few edits of the old text.
                let mut lines: Vec<&str> = old.split_inclusive('\n').collect();
                for _ in 0..rng.next(4) {
                    if !lines.is_empty() {
                        let at = rng.next(lines.len() as u64) as usize;
                        lines.remove(at);
                    }
                }
                lines.concat() + "x\n"
            } else {
                text(&mut rng, 40, alphabet)
            };
            let diff = LineDiff::new(&old, &new);
            assert_eq!(sides(&diff), (old.clone(), new.clone()), "{old:?} {new:?}");
            assert!(
                diff.runs.windows(2).all(|pair| pair[0].tag == Tag::Same
                    || pair[1].tag != Tag::Gone && pair[0].tag != pair[1].tag),
                "{:?}",
                diff.runs
            );
            let edits: usize = diff
                .runs
                .iter()
                .filter(|run| run.tag != Tag::Same)
                .map(|run| run.len)
                .sum();
            let best = diff.old.len() + diff.new.len() - 2 * lcs(&diff.old, &diff.new);
            assert_eq!(edits, best, "{old:?} {new:?}");
        }
    }

    #[test]
    fn a_unified_diff_has_gnu_hunks_with_three_lines_of_context() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n";
        let new = "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n";
        let diff = LineDiff::new(old, new).unified("a/x", "b/x", 3);
        assert_eq!(
            diff,
            "--- a/x\n+++ b/x\n\
             @@ -1,5 +1,5 @@\n a\n-b\n+B\n c\n d\n e\n\
             @@ -10,4 +10,3 @@\n j\n k\n l\n-m\n"
        );
        // Changes 6 lines apart share a hunk.
        let new = "a\nB\nc\nd\ne\nf\ng\nh\nI\nj\nk\nl\nm\n";
        assert_eq!(
            LineDiff::new(old, new).unified("o", "n", 3),
            "--- o\n+++ n\n@@ -1,12 +1,12 @@\n a\n-b\n+B\n c\n d\n e\n f\n g\n h\n-i\n+I\n j\n k\n l\n"
        );
    }

    #[test]
    fn edges_empty_texts_and_missing_line_breaks() {
        assert_eq!(LineDiff::new("same\n", "same\n").unified("a", "b", 3), "");
        assert_eq!(
            LineDiff::new("", "new\n").unified("/dev/null", "b", 3),
            "--- /dev/null\n+++ b\n@@ -0,0 +1 @@\n+new\n"
        );
        assert_eq!(
            LineDiff::new("x\ny", "x\ny\n").unified("a", "b", 3),
            "--- a\n+++ b\n@@ -1,2 +1,2 @@\n x\n-y\n\\ No newline at end of file\n+y\n"
        );
        let diff = LineDiff::new("keep\ndrop\n\nkeep\n", "keep\nkeep\n");
        assert_eq!(
            diff.removed().collect::<Vec<_>>(),
            [(2, "drop\n"), (3, "\n")]
        );
    }

    #[test]
    fn a_search_over_budget_still_gives_a_correct_diff() {
        // 20,000 distinct lines against 20,000 others: each middle search
        // is cut short, and what it settles for still rebuilds both texts.
        let old: String = (0..20_000).map(|i| format!("old {i}\n")).collect();
        let new: String = (0..20_000).map(|i| format!("new {i}\n")).collect();
        let diff = LineDiff::new(&old, &new);
        assert_eq!(sides(&diff), (old.clone(), new.clone()));
        assert_eq!(diff.removed().count(), 20_000);
    }
}
