//! Shell commands the default rules refuse.
//!
//! A command is read the way a cautious reviewer reads it, not the way a
//! shell would: quotes and backslashes are dropped (so `sh -c 'rm -rf /'`
//! and `\rm` show their words), the text is cut at `;`, `&&`, `|`,
//! parentheses, braces and backquotes, and a dangerous program is found
//! by its base name anywhere in a piece, so wrappers such as `sudo`,
//! `env`, `xargs` or `busybox` do not hide it. That errs on the side of
//! refusing (`echo rm -rf /` is refused too).

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::paths::{normalize, resolve};

type Pattern = LazyLock<Result<Regex, regex::Error>>;

/// A pattern that did not compile is a bug; the rule then fails closed.
fn find<'t>(pattern: &Pattern, text: &'t str) -> Option<Option<regex::Match<'t>>> {
    match &**pattern {
        Ok(regex) => regex.find(text).map(Some),
        Err(_) => Some(None),
    }
}

/// The command with quotes and escapes dropped and `${HOME}` spelt `$HOME`.
fn unquote(command: &str) -> String {
    command
        .replace("${HOME}", "$HOME")
        .chars()
        .filter(|c| !matches!(c, '\'' | '"' | '\\'))
        .collect()
}

/// The simple commands of `text`, each as its words.
fn pieces(text: &str) -> impl Iterator<Item = Vec<&str>> {
    text.split([';', '&', '|', '\n', '(', ')', '`', '{', '}'])
        .map(|piece| piece.split_whitespace().collect::<Vec<_>>())
        .filter(|words| !words.is_empty())
}

/// Why `command` is dangerous, or `None`.
pub(super) fn dangerous(command: &str, dir: &Path, home: &Path) -> Option<String> {
    let text = unquote(command);
    if let Some(reason) = fork_bomb(&text) {
        return Some(reason);
    }
    if let Some(device) = redirect_to_device(&text) {
        return Some(format!("would overwrite the block device `{device}`"));
    }
    for words in pieces(&text) {
        for (index, word) in words.iter().enumerate() {
            let args = &words[index + 1..];
            let first = index == 0;
            if let Some(reason) = dangerous_program(program_name(word), first, args, dir, home) {
                return Some(reason);
            }
        }
    }
    None
}

fn program_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// `first`: the word starts its piece, so it is surely the program (a
/// formatter is refused there whatever it formats; elsewhere, as in
/// `sudo mkfs /dev/sda` or `grep mkfs docs`, only when it names a device).
fn dangerous_program(
    name: &str,
    first: bool,
    args: &[&str],
    dir: &Path,
    home: &Path,
) -> Option<String> {
    let formatter = name.starts_with("mkfs") || name == "mke2fs" || name == "mkswap";
    if formatter && (first || operands(args).any(|a| a.starts_with("/dev/"))) {
        return Some(format!("would format a filesystem with `{name}`"));
    }
    match name {
        "rm" => rm(args, dir, home),
        "chmod" | "chown" | "chgrp" => {
            let recursive = args
                .iter()
                .any(|a| *a == "--recursive" || (is_short_flags(a) && a.contains('R')));
            let target = operands(args).find_map(|t| critical(t, dir, home))?;
            recursive.then(|| format!("would {name} `{target}` recursively"))
        }
        "find" => {
            let deletes = args.contains(&"-delete")
                || args
                    .windows(2)
                    .any(|w| w[0] == "-exec" && program_name(w[1]) == "rm");
            let start = args.iter().take_while(|a| !a.starts_with('-'));
            let target = start.copied().find_map(|t| critical(t, dir, home))?;
            deletes.then(|| format!("would delete everything under `{target}`"))
        }
        "mv" => {
            let operands: Vec<&str> = operands(args).collect();
            let (_, sources) = operands.split_last()?;
            let target = sources.iter().find_map(|t| critical(t, dir, home))?;
            Some(format!("would move `{target}` away"))
        }
        "cp" => operands(args)
            .last()
            .and_then(block_device)
            .map(|device| format!("would overwrite the block device `{device}`")),
        "dd" => args
            .iter()
            .filter_map(|a| a.strip_prefix("of="))
            .find_map(block_device)
            .map(|device| format!("would write the block device `{device}` with dd")),
        "shred" | "wipefs" | "tee" | "blkdiscard" => operands(args)
            .find_map(block_device)
            .map(|device| format!("would {name} the block device `{device}`")),
        _ => None,
    }
}

/// `-rf`, `-R` (but not `--force` nor a lone `-`).
fn is_short_flags(arg: &str) -> bool {
    arg.len() > 1 && arg.starts_with('-') && !arg.starts_with("--")
}

/// The arguments that are not options (all of them after `--`).
fn operands<'a>(args: &'a [&'a str]) -> impl Iterator<Item = &'a str> {
    let mut options_done = false;
    args.iter().copied().filter(move |arg| {
        if options_done {
            return true;
        }
        if *arg == "--" {
            options_done = true;
            return false;
        }
        !arg.starts_with('-')
    })
}

fn rm(args: &[&str], dir: &Path, home: &Path) -> Option<String> {
    if args.contains(&"--no-preserve-root") {
        return Some("would delete with `--no-preserve-root`".to_string());
    }
    let recursive = args
        .iter()
        .take_while(|a| **a != "--")
        .any(|a| *a == "--recursive" || (is_short_flags(a) && a.contains(['r', 'R'])));
    if !recursive {
        return None;
    }
    let target = operands(args).find_map(|t| critical(t, dir, home))?;
    Some(format!("would delete `{target}` recursively"))
}

/// Top-level directories whose loss breaks the system.
const SYSTEM_DIRS: &[&str] = &[
    "bin", "boot", "dev", "etc", "home", "lib", "lib32", "lib64", "mnt", "media", "opt", "proc",
    "root", "run", "sbin", "snap", "srv", "sys", "usr", "var",
];

/// The resolved target when it is `/`, the home directory or a system
/// directory (`/*`, `~/*` and `/etc/*` count as their directory).
fn critical(target: &str, dir: &Path, home: &Path) -> Option<String> {
    let mut target = target;
    while let Some(rest) = target.strip_suffix('*') {
        target = rest;
    }
    let resolved = resolve(target, dir, home);
    let home = normalize(&home.to_string_lossy());
    let is_system = resolved
        .strip_prefix('/')
        .is_some_and(|name| SYSTEM_DIRS.contains(&name));
    (resolved == "/" || resolved == home || is_system).then_some(resolved)
}

/// The normal device path when `target` is a block device under `/dev`.
fn block_device(target: &str) -> Option<String> {
    static DEVICE: Pattern = LazyLock::new(|| {
        Regex::new(r"^/dev/(sd|hd|vd|xvd|nvme|mmcblk|r?disk|md|dm-|mapper/|loop|nbd|mtdblock|sr)")
    });
    if !target.starts_with('/') {
        return None;
    }
    let device = normalize(target);
    let is_device = find(&DEVICE, &device).is_some();
    is_device.then_some(device)
}

fn redirect_to_device(text: &str) -> Option<String> {
    static REDIRECT: Pattern = LazyLock::new(|| Regex::new(r">+\|?\s*(/[^\s;&|)]+)"));
    let regex = match &*REDIRECT {
        Ok(regex) => regex,
        Err(_) => return Some("(policy pattern error)".to_string()),
    };
    regex
        .captures_iter(text)
        .filter_map(|c| c.get(1))
        .find_map(|target| block_device(target.as_str()))
}

/// `:(){ :|:& };:`, `bomb() { bomb | bomb & }; bomb`, `function f { f|f& }`
/// Perl's `fork while fork` and Python's `while True: os.fork()`.
fn fork_bomb(text: &str) -> Option<String> {
    static FUNCTION_KEYWORD: Pattern = LazyLock::new(|| Regex::new(r"\bfunction\s+"));
    static BOMB: Pattern = LazyLock::new(|| {
        let name = r"([A-Za-z_:.][A-Za-z0-9_:.-]*)";
        Regex::new(&format!(r"{name}(?:\(\))?\{{{name}\|{name}&"))
    });
    static FORK_LOOP: Pattern = LazyLock::new(|| {
        Regex::new(r"(?i)fork\s*while\s*fork|while\s*(true|1)\s*:\s*os\.fork\(\)")
    });
    let (Ok(keyword), Ok(bomb)) = (&*FUNCTION_KEYWORD, &*BOMB) else {
        return Some("a policy pattern does not compile".to_string());
    };
    let compact: String = keyword
        .replace_all(text, "")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let recursive = bomb.captures_iter(&compact).any(|c| {
        let name = c.get(1).map(|m| m.as_str());
        name == c.get(2).map(|m| m.as_str()) && name == c.get(3).map(|m| m.as_str())
    });
    if recursive || find(&FORK_LOOP, text).is_some() {
        Some("is a fork bomb".to_string())
    } else {
        None
    }
}

/// Why `command` runs a script fetched from the network, or `None`:
/// `curl … | sh`, `wget -O- … | sudo bash`, `sh -c "$(curl …)"`,
/// `bash <(curl …)`.
pub(super) fn remote_script(command: &str) -> Option<String> {
    static PIPE: Pattern = LazyLock::new(|| {
        Regex::new(
            r"\b(curl|wget|fetch)\b[^;&|\n]*\|\s*(sudo\s+)?(\S*/)?((ba|z|k|da|fi)?sh|python3?|perl|ruby|node)\b",
        )
    });
    static SUBSTITUTION: Pattern =
        LazyLock::new(|| Regex::new(r"\b(ba|z|k|da)?sh\s+(-c\s+)?[<$]\(\s*(curl|wget)\b"));
    let text = unquote(command);
    if find(&PIPE, &text).is_some() || find(&SUBSTITUTION, &text).is_some() {
        Some("would run a script downloaded from the network".to_string())
    } else {
        None
    }
}

/// The words of `command` that could name files: split at whitespace and
/// shell operators, then at `=` and `:` (`--file=x`, `host:/etc/passwd`);
/// URLs other than `file://` are left to the network rules.
pub(super) fn path_words(command: &str) -> Vec<String> {
    let text = unquote(command);
    let mut words = Vec::new();
    for chunk in text.split(|c: char| c.is_whitespace() || ";&|()<>`{},".contains(c)) {
        if chunk.is_empty() {
            continue;
        }
        let is_url = chunk
            .find("://")
            .is_some_and(|at| !chunk[..at].eq_ignore_ascii_case("file"));
        if is_url {
            continue;
        }
        words.extend(
            chunk
                .split(['=', ':'])
                .filter(|w| !w.is_empty() && !w.eq_ignore_ascii_case("file"))
                .map(str::to_string),
        );
    }
    words
}
