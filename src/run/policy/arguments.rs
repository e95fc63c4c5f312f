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
use crate::json::push_token;

/// One step from the arguments' root to a string: an object key or an
/// array index.
#[derive(Clone, Copy, Debug)]
pub(super) enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// One string the policy looks at. It borrows the walk's steps, so that
/// looking at a string allocates nothing; its JSON Pointer is built only
/// for a refusal that names it.
#[derive(Debug)]
pub(super) struct Argument<'a> {
    /// Where the string is (the array, for a joined argv).
    pub steps: &'a [Step<'a>],
    pub value: Cow<'a, str>,
    /// The value names a file or directory.
    pub path: bool,
    /// The value is a shell command (or a joined argv).
    pub command: bool,
    /// The key says the path is a file (`file`, `filename`, `file_path`).
    pub file_key: bool,
}

impl Argument<'_> {
    /// The JSON Pointer of the string (empty for the root).
    pub fn pointer(&self) -> String {
        let mut pointer = String::new();
        for step in self.steps {
            match step {
                Step::Key(key) => push_token(&mut pointer, key),
                Step::Index(index) => push_token(&mut pointer, index),
            }
        }
        pointer
    }
}

/// The strings of a call's arguments, classified for its tool and walked
/// afresh by each rule: no rule holds them all at once, which on an array
/// of millions of strings cost 60 times the input.
pub(super) struct Arguments<'a> {
    value: &'a Value,
    shell: bool,
}

impl<'a> Arguments<'a> {
    pub fn new(tool: &Tool, value: &'a Value) -> Self {
        Arguments {
            value,
            shell: is_shell_tool(&tool.name),
        }
    }

    /// Calls `visit` on every string in document order, and stops at the
    /// first error it returns.
    ///
    /// A string equal to one visited a moment ago, with the same
    /// classification, is skipped: every rule's verdict depends only on the
    /// value and its classification, and the earlier one passed, so the
    /// first refusal is the same. It keeps a long array of one repeated
    /// path from costing a rule's work per element.
    pub fn each<E>(&self, mut visit: impl FnMut(&Argument<'_>) -> Result<(), E>) -> Result<(), E> {
        let mut walk = Walk {
            steps: Vec::new(),
            seen: [None; SEEN_SLOTS],
            visit: &mut visit,
        };
        let context = Context {
            key: Key::default(),
            command: self.shell,
        };
        walk.value(self.value, context)
    }

    /// The first argument `denies`, with its refusal.
    pub fn first<T>(&self, mut denies: impl FnMut(&Argument<'_>) -> Option<T>) -> Result<(), T> {
        self.each(|argument| denies(argument).map_or(Ok(()), Err))
    }
}

/// How many recently seen strings [`Arguments::each`] remembers.
const SEEN_SLOTS: usize = 64;

/// What a key says about the strings under it, worked out once per key
/// (an array's elements share it).
#[derive(Clone, Copy, Default)]
struct Key {
    /// Any value is a path (`path`, `file`, `cwd`).
    strong: bool,
    /// A path-shaped value is a path (`dest`, `target`).
    weak: bool,
    /// The path is a file (`file_path`).
    file: bool,
}

impl Key {
    fn of(key: &str) -> Key {
        let words = key_words(key);
        let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
        Key {
            strong: has(STRONG_PATH_WORDS),
            weak: has(WEAK_PATH_WORDS),
            file: has(FILE_WORDS),
        }
    }
}

#[derive(Clone, Copy)]
struct Context {
    /// The nearest object key's classification.
    key: Key,
    /// A command key is this value's key or an ancestor's, or the tool is
    /// a shell.
    command: bool,
}

/// A classification, as one number for the seen table.
fn flags(path: bool, command: bool, file_key: bool) -> u8 {
    u8::from(path) | u8::from(command) << 1 | u8::from(file_key) << 2
}

struct Walk<'a, 'v, E> {
    steps: Vec<Step<'a>>,
    /// Recently visited strings, by a hash of their text.
    seen: [Option<(&'a str, u8)>; SEEN_SLOTS],
    visit: &'v mut dyn FnMut(&Argument<'_>) -> Result<(), E>,
}

impl<'a, E> Walk<'a, '_, E> {
    fn value(&mut self, value: &'a Value, context: Context) -> Result<(), E> {
        match value {
            Value::String(text) => self.string(text, context),
            Value::Array(items) => {
                if context.command && !items.is_empty() && items.iter().all(Value::is_string) {
                    return self.argv(items);
                }
                for (index, item) in items.iter().enumerate() {
                    self.steps.push(Step::Index(index));
                    self.value(item, context)?;
                    self.steps.pop();
                }
                Ok(())
            }
            Value::Object(map) => {
                for (key, item) in map {
                    let inner = Context {
                        key: Key::of(key),
                        command: context.command || is_command_key(key),
                    };
                    self.steps.push(Step::Key(key));
                    self.value(item, inner)?;
                    self.steps.pop();
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn string(&mut self, text: &'a str, context: Context) -> Result<(), E> {
        let key = context.key;
        // `target_language: "French"` is not a path; `target: "out/a.txt"` is.
        let weak = key.weak && (text.contains('/') || text.starts_with(['.', '~']));
        let path = key.strong || weak || (!context.command && looks_like_path(text));
        let command = context.command && !path;
        if self.seen_before(text, flags(path, command, key.file)) {
            return Ok(());
        }
        (self.visit)(&Argument {
            steps: &self.steps,
            value: Cow::Borrowed(text),
            path,
            command,
            file_key: key.file,
        })
    }

    /// Whether `text` with `flags` was visited recently; remembers it.
    fn seen_before(&mut self, text: &'a str, flags: u8) -> bool {
        // FNV-1a, over the bytes and the flags.
        let mut hash: u32 = 0x811c_9dc5;
        for byte in text.bytes().chain([flags]) {
            hash = (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193);
        }
        let slot = hash as usize % SEEN_SLOTS;
        if self.seen[slot] == Some((text, flags)) {
            return true;
        }
        self.seen[slot] = Some((text, flags));
        false
    }

    /// An argv: the joined command line, then each word; the words after
    /// the program are paths when they look like paths (the program
    /// itself, e.g. `/usr/bin/python3`, is not confined).
    fn argv(&mut self, items: &'a [Value]) -> Result<(), E> {
        let words: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
        (self.visit)(&Argument {
            steps: &self.steps,
            value: Cow::Owned(shell_words(&words)),
            path: false,
            command: true,
            file_key: false,
        })?;
        for (index, word) in words.into_iter().enumerate() {
            self.steps.push(Step::Index(index));
            (self.visit)(&Argument {
                steps: &self.steps,
                value: Cow::Borrowed(word),
                path: index > 0 && looks_like_path(word),
                command: false,
                file_key: false,
            })?;
            self.steps.pop();
        }
        Ok(())
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
