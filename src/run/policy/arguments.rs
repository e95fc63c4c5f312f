//! Which arguments are paths and which are commands.
//!
//! The policy never sees a schema it can trust to say "this string is a
//! file name", so it reads the argument's key and its value: a key such as
//! `file_path` or `cwd` makes a path, `command` or `script` makes a command,
//! and a value such as `/etc/hosts` or `../notes.txt` is a path wherever it
//! is. Nested objects and arrays are walked; an array of strings under a
//! command key is an argv and is also matched as one command line (its
//! words quoted for the shell).

use std::borrow::Cow;

use serde_json::Value;

use crate::ir::Tool;
use crate::json::join;

/// One string the policy looks at.
#[derive(Debug)]
pub(super) struct Argument<'a> {
    /// JSON Pointer of the string (of the array, for a joined argv).
    pub pointer: String,
    pub value: Cow<'a, str>,
    /// The value names a file or directory.
    pub path: bool,
    /// The value is a shell command (or a joined argv).
    pub command: bool,
    /// The key says the path is a file (`file`, `filename`, `file_path`).
    pub file_key: bool,
}

/// Every string in `arguments`, classified for `tool`.
pub(super) fn collect<'a>(tool: &Tool, arguments: &'a Value) -> Vec<Argument<'a>> {
    let mut out = Vec::new();
    let context = Context {
        key: None,
        command: is_shell_tool(&tool.name),
    };
    walk(arguments, String::new(), context, &mut out);
    out
}

#[derive(Clone, Copy)]
struct Context<'a> {
    /// The nearest object key (an array's elements share the array's key).
    key: Option<&'a str>,
    /// A command key is this value's key or an ancestor's, or the tool is
    /// a shell.
    command: bool,
}

fn walk<'a>(value: &'a Value, pointer: String, context: Context<'a>, out: &mut Vec<Argument<'a>>) {
    match value {
        Value::String(text) => out.push(classify(text, pointer, context)),
        Value::Array(items) => {
            if context.command && !items.is_empty() && items.iter().all(Value::is_string) {
                push_argv(items, pointer, out);
            } else {
                for (index, item) in items.iter().enumerate() {
                    walk(item, join(&pointer, index), context, out);
                }
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                let inner = Context {
                    key: Some(key),
                    command: context.command || is_command_key(key),
                };
                walk(item, join(&pointer, key), inner, out);
            }
        }
        _ => {}
    }
}

/// An argv: the joined command line, then each word; the words after the
/// program are paths when they look like paths (the program itself, e.g.
/// `/usr/bin/python3`, is not confined).
fn push_argv<'a>(items: &'a [Value], pointer: String, out: &mut Vec<Argument<'a>>) {
    let words: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
    out.push(Argument {
        pointer: pointer.clone(),
        value: Cow::Owned(shell_words(&words)),
        path: false,
        command: true,
        file_key: false,
    });
    for (index, word) in words.into_iter().enumerate() {
        out.push(Argument {
            pointer: join(&pointer, index),
            value: Cow::Borrowed(word),
            path: index > 0 && looks_like_path(word),
            command: false,
            file_key: false,
        });
    }
}

/// An argv as one shell command line: a word with characters the shell
/// reads is single-quoted, so that `["sh", "-c", "rm -rf /"]` keeps its
/// three words.
fn shell_words(words: &[&str]) -> String {
    let quoted: Vec<String> = words
        .iter()
        .map(|word| {
            let plain = !word.is_empty()
                && word
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c));
            if plain {
                word.to_string()
            } else {
                format!("'{}'", word.replace('\'', r"'\''"))
            }
        })
        .collect();
    quoted.join(" ")
}

fn classify<'a>(text: &'a str, pointer: String, context: Context<'a>) -> Argument<'a> {
    let words = context.key.map(key_words).unwrap_or_default();
    let strong = words
        .iter()
        .any(|w| STRONG_PATH_WORDS.contains(&w.as_str()));
    // `target_language: "French"` is not a path; `target: "out/a.txt"` is.
    let weak = words.iter().any(|w| WEAK_PATH_WORDS.contains(&w.as_str()))
        && (text.contains('/') || text.starts_with(['.', '~']));
    let path = strong || weak || (!context.command && looks_like_path(text));
    Argument {
        pointer,
        value: Cow::Borrowed(text),
        path,
        command: context.command && !path,
        file_key: words.iter().any(|w| FILE_WORDS.contains(&w.as_str())),
    }
}

/// Key words that make any value a path.
const STRONG_PATH_WORDS: &[&str] = &[
    "path",
    "paths",
    "pathname",
    "filepath",
    "filepaths",
    "file",
    "files",
    "filename",
    "filenames",
    "dir",
    "dirs",
    "dirname",
    "dirpath",
    "directory",
    "directories",
    "folder",
    "folders",
    "cwd",
    "workdir",
];

/// Key words that make a path-shaped value a path.
const WEAK_PATH_WORDS: &[&str] = &["dest", "destination", "src", "source", "target", "location"];

/// Key words that say the path is a file, not a directory.
const FILE_WORDS: &[&str] = &[
    "file",
    "files",
    "filename",
    "filenames",
    "filepath",
    "filepaths",
];

/// Key words that make a value a command.
const COMMAND_WORDS: &[&str] = &[
    "command",
    "commands",
    "cmd",
    "cmds",
    "cmdline",
    "commandline",
    "script",
    "scripts",
    "shell",
    "exec",
    "args",
    "argv",
];

/// Languages whose `<language>_code` key holds a program.
const CODE_LANGUAGES: &[&str] = &[
    "bash",
    "sh",
    "shell",
    "python",
    "py",
    "js",
    "javascript",
    "node",
    "ruby",
    "perl",
    "source",
];

/// `command`, `shell_cmd`, `args`, `code` and `python_code` are commands;
/// `zip_code` and `country_code` are not.
pub(super) fn is_command_key(key: &str) -> bool {
    let words = key_words(key);
    if words.iter().any(|w| COMMAND_WORDS.contains(&w.as_str())) {
        return true;
    }
    match words.as_slice() {
        [only] => only == "code",
        [language, last] => last == "code" && CODE_LANGUAGES.contains(&language.as_str()),
        _ => false,
    }
}

/// A tool named like a shell (`shell`, `run_bash`, `execute_command`) takes
/// commands in all its string arguments but its path keys.
pub(super) fn is_shell_tool(name: &str) -> bool {
    const SHELL_WORDS: &[&str] = &[
        "shell",
        "bash",
        "sh",
        "zsh",
        "powershell",
        "terminal",
        "exec",
        "execute",
        "cmd",
        "command",
    ];
    key_words(name)
        .iter()
        .any(|w| SHELL_WORDS.contains(&w.as_str()))
}

/// A string that is a path by its shape alone: one word starting with `/`,
/// `~`, `./`, `../`, `$HOME` or `file://`.
pub(super) fn looks_like_path(text: &str) -> bool {
    const PREFIXES: &[&str] = &["/", "~", "./", "../", "$HOME", "${HOME}", "file://"];
    !text.is_empty()
        && !text.contains(char::is_whitespace)
        && (text == "." || text == ".." || PREFIXES.iter().any(|p| text.starts_with(p)))
}

/// `filePath`, `file_path`, `file-path` → `["file", "path"]`.
pub(super) fn key_words(key: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in key.chars() {
        if !c.is_alphanumeric() {
            previous_lower = false;
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            continue;
        }
        if c.is_uppercase() && previous_lower && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}
