//! Shell commands as the default rules see them: the entry points of
//! `dangerous-command`, `remote-script` and the words `sensitive-path`
//! checks.
//!
//! A command is parsed with a real shell grammar (`shell`) and judged
//! command by command (`rules`); what cannot be known before it runs is
//! refused rather than guessed. A grammar that fails to load refuses
//! every command (fail closed).

use std::path::Path;

use super::paths::resolve;
use super::programs::{Program, program};
use super::rules::{self, Kind};
use super::shell::{self, Command, Input, Word};
use super::targets::Places;

/// Why `command` is dangerous, or `None`.
pub(super) fn dangerous(command: &str, dir: &Path, home: &Path) -> Option<String> {
    first(command, dir, home, Kind::Dangerous)
}

/// Why `command` runs a script fetched from the network, or `None`:
/// `curl … | sh`, `wget -O- … | sudo bash`, `sh -c "$(curl …)"`,
/// `bash <(curl …)`.
pub(super) fn remote_script(command: &str, dir: &Path, home: &Path) -> Option<String> {
    first(command, dir, home, Kind::Remote)
}

fn first(command: &str, dir: &Path, home: &Path, kind: Kind) -> Option<String> {
    // The rules are written not to panic; should one still, the command
    // is refused rather than the runner brought down.
    let findings = std::panic::catch_unwind(|| rules::screen(command, dir, home));
    let findings = findings.unwrap_or_else(|_| {
        vec![rules::Finding {
            kind: Kind::Dangerous,
            why: "could not be read: the policy failed on it".to_string(),
        }]
    });
    findings
        .into_iter()
        .find(|finding| finding.kind == kind)
        .map(|finding| finding.why)
}

/// A word of a command that could name a file.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct PathWord {
    /// The word; with `glob`, a pattern whose quoted characters are
    /// escaped with `\`.
    pub text: String,
    /// The word has an unquoted `*`, `?` or `[`.
    pub glob: bool,
}

/// The words of `command` that could name files: every word of every
/// command, redirection target, here-document and assigned value, split at whitespace and shell or
/// code punctuation (`python3 -c "open('/etc/shadow')"`), then at `=` and
/// `:` (`--file=x`, `host:/etc/passwd`); URLs other than `file://` are
/// left to the network rules. When the grammar does not load or the text
/// is not valid shell, the whole text is split too.
pub(super) fn path_words(command: &str, dir: &Path, home: &Path) -> Vec<PathWord> {
    // Should the walk panic, the whole text is split instead.
    let words = |text: &str| {
        std::panic::catch_unwind(|| walked_words(text, dir, home))
            .unwrap_or_else(|_| split(text, false))
    };
    let mut out = words(command);
    // `cat /etc/shad\⏎ow`: also as the shell reads it.
    let joined = shell::join_lines(command);
    if joined != command {
        out.extend(words(&joined));
    }
    out
}

fn walked_words(command: &str, dir: &Path, home: &Path) -> Vec<PathWord> {
    // Too long to parse in time (`dangerous-command` refuses it); only
    // split.
    if command.len() > rules::MAX_COMMAND_LEN {
        return split(command, false);
    }
    let Ok(script) = shell::parse(command) else {
        return split(command, false);
    };
    // Text bash would not parse may hide words in error nodes: all of it.
    let mut out = if script.malformed {
        split(command, false)
    } else {
        Vec::new()
    };
    // `cd /etc && cat shadow`: relative words resolve where `cd` left.
    let mut places = Places {
        dir,
        cwd: Ok(dir.to_path_buf()),
        home,
    };
    for command in &script.commands {
        if let Program::Runs { name, args, .. } = program(&command.words)
            && matches!(name.as_str(), "cd" | "pushd")
        {
            places.cd(args);
        }
        let here = resolve(".", places.here(), home);
        for word in words(command) {
            out.extend(pieces(word).into_iter().map(|piece| anchor(piece, &here)));
        }
    }
    let here = resolve(".", dir, home);
    for word in &script.assigned {
        out.extend(pieces(word).into_iter().map(|piece| anchor(piece, &here)));
    }
    out
}

/// The pieces of one word that could be paths.
fn pieces(word: &Word) -> Vec<PathWord> {
    match (&word.glob, &word.value) {
        (Some(pattern), _) => split(pattern, true),
        (None, Some(value)) => split(value, false),
        (None, None) => split(&word.source, false),
    }
}

/// A relative word as an absolute path beneath `here`.
fn anchor(word: PathWord, here: &str) -> PathWord {
    let text = &word.text;
    let absolute = text.starts_with(['/', '~'])
        || text.starts_with("$HOME")
        || text
            .get(..5)
            .is_some_and(|s| s.eq_ignore_ascii_case("file:"));
    if absolute {
        return word;
    }
    let here = if word.glob {
        shell::escape(here)
    } else {
        here.to_string()
    };
    PathWord {
        text: format!("{here}/{text}"),
        glob: word.glob,
    }
}

/// Every word, redirection target and here-document of `command`.
fn words(command: &Command) -> impl Iterator<Item = &Word> {
    let redirects = command.redirects.iter().map(|r| &r.target);
    let texts = command.inputs.iter().filter_map(|input| match input {
        Input::Text(text) => Some(text),
        Input::Pipe(_) | Input::Written => None,
    });
    command.words.iter().chain(redirects).chain(texts)
}

/// `text` cut into the pieces that could be paths; `pattern`: `text` is a
/// glob pattern (its escapes are kept, and a piece without glob
/// characters is unescaped).
fn split(text: &str, pattern: bool) -> Vec<PathWord> {
    let separators: &str = if pattern {
        ";&|()<>`'\""
    } else {
        ";&|()<>`{},'\""
    };
    let mut out = Vec::new();
    for chunk in text.split(|c: char| c.is_whitespace() || separators.contains(c)) {
        if chunk.is_empty() {
            continue;
        }
        let is_url = chunk
            .find("://")
            .is_some_and(|at| !chunk[..at].eq_ignore_ascii_case("file"));
        if is_url {
            continue;
        }
        // `-f/etc/shadow`: an option with its path attached.
        let attached = chunk
            .strip_prefix('-')
            .filter(|rest| !rest.starts_with('-'))
            .and_then(|rest| rest.find(['/', '~']).map(|at| &rest[at..]));
        let pieces = chunk.split(['=', ':']).chain(attached);
        for piece in pieces {
            if piece.is_empty() || piece.eq_ignore_ascii_case("file") {
                continue;
            }
            let glob = pattern && shell::is_glob(piece);
            let text = if pattern && !glob {
                shell::unescape(piece)
            } else {
                piece.to_string()
            };
            out.push(PathWord { text, glob });
        }
    }
    out
}
