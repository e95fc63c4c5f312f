//! Tool names a poisoned tool imitates: the well-known tools (one list,
//! here) and what a name looks like to a reader (its skeleton).

use unicode_normalization::UnicodeNormalization;

/// Tools agents commonly load, whose names a malicious server has reason
/// to imitate: the MCP reference servers, the GitHub, Slack and mail
/// servers, browsers, search and fetch, shells and editors.
pub(crate) const WELL_KNOWN: &[&str] = &[
    // MCP reference servers: filesystem, git, fetch, memory, time, everything.
    "read_file",
    "read_text_file",
    "read_media_file",
    "read_multiple_files",
    "write_file",
    "edit_file",
    "create_directory",
    "list_directory",
    "directory_tree",
    "move_file",
    "search_files",
    "get_file_info",
    "list_allowed_directories",
    "git_status",
    "git_diff",
    "git_commit",
    "git_add",
    "git_log",
    "git_checkout",
    "fetch",
    "create_entities",
    "create_relations",
    "read_graph",
    "search_nodes",
    "get_current_time",
    "convert_time",
    "echo",
    // GitHub.
    "create_repository",
    "create_issue",
    "create_pull_request",
    "get_file_contents",
    "create_or_update_file",
    "push_files",
    "search_repositories",
    "search_code",
    "list_issues",
    "get_me",
    "merge_pull_request",
    // Messaging and mail.
    "send_email",
    "send_message",
    "slack_post_message",
    "slack_list_channels",
    "list_chats",
    // Browsers, search, the web.
    "browser_navigate",
    "browser_click",
    "browser_type",
    "browser_snapshot",
    "browser_take_screenshot",
    "web_search",
    "web_fetch",
    "search",
    // Shells, editors, interpreters, databases.
    "bash",
    "shell",
    "computer",
    "str_replace_editor",
    "str_replace_based_edit_tool",
    "code_interpreter",
    "execute_command",
    "run_command",
    "execute_sql",
    "query",
];

/// What `name` looks like: compatibility forms folded (NFKC), letters of
/// other scripts that look like Latin ones read as those, the digit and
/// letter pairs that pass for others (`rn` for `m`, `0` for `o`), case
/// ignored.
pub(crate) fn skeleton(name: &str) -> String {
    if name.is_ascii() {
        return ascii_skeleton(name.bytes().map(|b| b.to_ascii_lowercase()));
    }
    let folded: String = name
        .nfkc()
        .map(homoglyph)
        .collect::<String>()
        .to_lowercase();
    if folded.is_ascii() {
        return ascii_skeleton(folded.bytes());
    }
    folded
        .replace("rn", "m")
        .replace("vv", "w")
        .replace("cl", "d")
        .chars()
        .map(look_alike)
        .collect()
}

/// [`skeleton`] of an ASCII name in lower case: the pairs read as one
/// letter, then each character as the letter it passes for.
fn ascii_skeleton(lower: impl Iterator<Item = u8>) -> String {
    let mut read: Vec<u8> = lower.collect();
    fold_ascii_skeleton(&mut read);
    read.into_iter().map(char::from).collect()
}

/// How a name may be read beside its plain skeleton: a `1` as an `i`, a
/// capital `I` among small letters as an `l` (`read_fiIe`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reading {
    Plain,
    OneAsI,
    CapitalIAsL,
}

impl Reading {
    /// The readings of `name`: plain first, then the ones its characters
    /// allow.
    pub(crate) fn of(name: &str) -> impl Iterator<Item = Reading> + use<> {
        let one = name.contains('1');
        let capital = name.contains('I') && name.chars().any(|c| c.is_lowercase());
        [
            Some(Reading::Plain),
            one.then_some(Reading::OneAsI),
            capital.then_some(Reading::CapitalIAsL),
        ]
        .into_iter()
        .flatten()
    }
}

/// The [`skeleton`] of `name` read as `reading`, in UTF-8, written over
/// `out`: without allocating, for a plain ASCII name (a manifest of
/// numbered tools asks this of every name).
pub(crate) fn skeleton_into(name: &str, reading: Reading, out: &mut Vec<u8>) {
    out.clear();
    if name.is_ascii() {
        out.extend_from_slice(name.as_bytes());
        let (from, to) = match reading {
            Reading::Plain => (None, 0),
            Reading::OneAsI => (Some(b'1'), b'i'),
            Reading::CapitalIAsL => (Some(b'I'), b'l'),
        };
        for byte in out.iter_mut() {
            if Some(*byte) == from {
                *byte = to;
            }
            byte.make_ascii_lowercase();
        }
        fold_ascii_skeleton(out);
        return;
    }
    let read = match reading {
        Reading::Plain => skeleton(name),
        Reading::OneAsI => skeleton(&name.replace('1', "i")),
        Reading::CapitalIAsL => skeleton(&name.replace('I', "l")),
    };
    out.extend_from_slice(read.as_bytes());
}

/// Reads a lower-case ASCII name in place, in one pass: the pairs read as
/// one letter, then each character as the letter it passes for.
fn fold_ascii_skeleton(name: &mut Vec<u8>) {
    let (mut read, mut written) = (0, 0);
    while let Some(&b) = name.get(read) {
        let pair = match (b, name.get(read + 1)) {
            (b'r', Some(b'n')) => Some(b'm'),
            (b'v', Some(b'v')) => Some(b'w'),
            (b'c', Some(b'l')) => Some(b'd'),
            _ => None,
        };
        name[written] = match pair {
            Some(one) => {
                read += 2;
                one
            }
            None => {
                read += 1;
                look_alike_byte(b)
            }
        };
        written += 1;
    }
    name.truncate(written);
}

/// The letter a digit or sign passes for in a name.
fn look_alike(c: char) -> char {
    u8::try_from(c).map_or(c, |b| char::from(look_alike_byte(b)))
}

fn look_alike_byte(b: u8) -> u8 {
    match b {
        b'0' => b'o',
        b'1' | b'|' => b'l',
        b'3' => b'e',
        b'4' => b'a',
        b'5' => b's',
        b'7' => b't',
        b'$' => b's',
        b'@' => b'a',
        b => b,
    }
}

/// Whether `name` is plain ASCII that every [`Reading`] reads as itself (in
/// lower case): no digit or sign that passes for a letter, no pair of
/// letters that passes for one. Asked of every tool, without allocating.
pub(crate) fn reads_as_itself(name: &str) -> bool {
    let bytes = name.as_bytes();
    name.is_ascii()
        && bytes.iter().all(|&b| {
            let lower = b.to_ascii_lowercase();
            look_alike_byte(lower) == lower
        })
        && !bytes.windows(2).any(|pair| {
            matches!(
                [pair[0].to_ascii_lowercase(), pair[1].to_ascii_lowercase()],
                [b'r', b'n'] | [b'v', b'v'] | [b'c', b'l']
            )
        })
        && !(bytes.contains(&b'I') && bytes.iter().any(u8::is_ascii_lowercase))
}

/// Every skeleton `name` may be read as, one for each [`Reading`].
#[cfg(test)]
fn skeletons(name: &str) -> Vec<String> {
    Reading::of(name)
        .map(|reading| {
            let mut read = Vec::new();
            skeleton_into(name, reading, &mut read);
            String::from_utf8_lossy(&read).into_owned()
        })
        .collect()
}

/// Whether `name` mixes Latin letters with letters of a script that has
/// Latin look-alikes (Cyrillic, Greek, Armenian, Cherokee).
pub(crate) fn mixes_scripts(name: &str) -> bool {
    if name.is_ascii() {
        return false;
    }
    let latin = name.chars().any(|c| c.is_ascii_alphabetic());
    latin && name.chars().any(is_look_alike_script)
}

fn is_look_alike_script(c: char) -> bool {
    matches!(c as u32, 0x0370..=0x03FF | 0x0400..=0x052F | 0x0530..=0x058F | 0x13A0..=0x13FF | 0x1C80..=0x1C8F)
}

/// The Latin letter a character is drawn like, where it has one.
fn homoglyph(c: char) -> char {
    match c {
        // Cyrillic.
        'а' => 'a',
        'в' => 'b',
        'с' => 'c',
        'ԁ' => 'd',
        'е' | 'ё' => 'e',
        'һ' => 'h',
        'і' | 'ї' => 'i',
        'ј' => 'j',
        'к' => 'k',
        'ӏ' => 'l',
        'м' => 'm',
        'о' => 'o',
        'р' => 'p',
        'ԛ' => 'q',
        'ѕ' => 's',
        'т' => 't',
        'ц' => 'u',
        'ѵ' => 'v',
        'ԝ' => 'w',
        'х' => 'x',
        'у' => 'y',
        'А' => 'A',
        'В' => 'B',
        'С' => 'C',
        'Е' => 'E',
        'Н' => 'H',
        'І' => 'l',
        'Ј' => 'J',
        'К' => 'K',
        'М' => 'M',
        'О' => 'O',
        'Р' => 'P',
        'Ѕ' => 'S',
        'Т' => 'T',
        'Х' => 'X',
        'У' => 'Y',
        // Greek.
        'α' => 'a',
        'ε' => 'e',
        'ι' => 'i',
        'κ' => 'k',
        'ν' => 'v',
        'ο' => 'o',
        'ρ' => 'p',
        'τ' => 't',
        'υ' => 'u',
        'χ' => 'x',
        'Α' => 'A',
        'Β' => 'B',
        'Ε' => 'E',
        'Ζ' => 'Z',
        'Η' => 'H',
        'Ι' => 'l',
        'Κ' => 'K',
        'Μ' => 'M',
        'Ν' => 'N',
        'Ο' => 'O',
        'Ρ' => 'P',
        'Τ' => 'T',
        'Υ' => 'Y',
        'Χ' => 'X',
        // Armenian.
        'օ' => 'o',
        'ս' => 'u',
        'հ' => 'h',
        'ո' => 'n',
        // Latin look-alikes outside ASCII.
        'ı' => 'i',
        // A capital I is drawn as a small l in most sans-serif fonts.
        'I' => 'l',
        'ȷ' => 'j',
        'ɑ' => 'a',
        'ɡ' => 'g',
        'ʟ' => 'l',
        '‐' | '‑' | '‒' | '–' | '−' => '-',
        c => c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ascii_pass_reads_pairs_as_the_replacements_do() {
        for name in [
            "rnvvcl",
            "crnl",
            "vvv",
            "rrnn",
            "c1ear_4ll",
            "cclrn",
            "Turn_VV",
            "x",
        ] {
            let lower = name.to_lowercase();
            let chained: String = lower
                .replace("rn", "m")
                .replace("vv", "w")
                .replace("cl", "d")
                .chars()
                .map(look_alike)
                .collect();
            assert_eq!(skeleton(name), chained, "{name}");
        }
    }

    #[test]
    fn look_alikes_share_a_skeleton() {
        assert_eq!(skeleton("sеnd_email"), skeleton("send_email"));
        assert_eq!(skeleton("read_fi1e"), skeleton("read_file"));
        assert_eq!(skeleton("ｓｅａｒｃｈ"), skeleton("search"));
        assert_ne!(skeleton("send_mail"), skeleton("send_email"));
    }

    #[test]
    fn plain_names_read_as_themselves() {
        for name in ["send_email", "Send_Email", "list-files", ""] {
            assert!(reads_as_itself(name), "{name}");
            assert_eq!(skeletons(name), [name.to_lowercase()], "{name}");
        }
        for name in [
            "read_fi1e",
            "tu3rn",
            "modern",
            "vvrite",
            "clone",
            "sеnd",
            "s3_put",
            "read_fiIe",
        ] {
            assert!(!reads_as_itself(name), "{name}");
            assert_ne!(skeletons(name), [name.to_lowercase()], "{name}");
        }
    }

    #[test]
    fn mixed_scripts_are_seen() {
        assert!(mixes_scripts("sеnd_email"));
        assert!(!mixes_scripts("send_email"));
        assert!(!mixes_scripts("отправить"));
    }
}
