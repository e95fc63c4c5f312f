//! "Did you mean ...?" suggestions for misspelled names.

/// The candidate closest to `word`, if it is close enough to be a likely
/// misspelling (edit distance at most a third of the word, at least 1).
pub fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| {
            let distance = if c.eq_ignore_ascii_case(word) {
                0
            } else {
                edit_distance(word, c)
            };
            (distance, c)
        })
        .filter(|&(d, _)| d <= limit)
        .min()
        .map(|(_, c)| c)
}

/// Levenshtein distance over characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        let known = ["timeoutSec", "envPassthrough", "description"];
        assert_eq!(did_you_mean("timeoutSecs", known), Some("timeoutSec"));
        assert_eq!(did_you_mean("descripton", known), Some("description"));
        assert_eq!(did_you_mean("TIMEOUTSEC", known), Some("timeoutSec"));
        assert_eq!(did_you_mean("packages", known), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
