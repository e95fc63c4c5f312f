//! Shell commands as the default rules see them: the entry points of
//! `dangerous-command`, `remote-script` and the words `sensitive-path`
//! checks.
//!
//! A command is parsed with a real shell grammar (`shell`) and judged
//! command by command (`rules`); what cannot be known before it runs is
//! refused rather than guessed. A grammar that fails to load refuses
//! every command (fail closed).

use std::path::Path;

use super::rules::{self, Kind};
use super::shell::{self, Input, Script, Word};

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
    rules::screen(command, dir, home)
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
/// command, redirection target and here-document, split at whitespace and shell or
/// code punctuation (`python3 -c "open('/etc/shadow')"`), then at `=` and
/// `:` (`--file=x`, `host:/etc/passwd`); URLs other than `file://` are
/// left to the network rules. When the grammar does not load or the text
/// is not valid shell, the whole text is split too.
pub(super) fn path_words(command: &str) -> Vec<PathWord> {
    let Ok(script) = shell::parse(command) else {
        return split(command, false);
    };
    // Text bash would not parse may hide words in error nodes: all of it.
    let mut out = if script.malformed {
        split(command, false)
    } else {
        Vec::new()
    };
    for word in words(&script) {
        match (&word.glob, &word.value) {
            (Some(pattern), _) => out.extend(split(pattern, true)),
            (None, Some(value)) => out.extend(split(value, false)),
            (None, None) => out.extend(split(&word.source, false)),
        }
    }
    out
}

/// Every word, redirection target and here-document of `script`.
fn words(script: &Script) -> impl Iterator<Item = &Word> {
    script.commands.iter().flat_map(|command| {
        let redirects = command.redirects.iter().map(|r| &r.target);
        let texts = command.inputs.iter().filter_map(|input| match input {
            Input::Text(text) => Some(text),
            Input::Pipe(_) | Input::Written => None,
        });
        command.words.iter().chain(redirects).chain(texts)
    })
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
        for piece in chunk.split(['=', ':']) {
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
