//! Interpreter one-liners, read for the few calls that matter.
//!
//! `python3 -c`, `perl -e`, `ruby -e`, `node -e`, an `awk` program and a
//! here-document fed to an interpreter carry code in another language.
//! The policy does not
//! parse every language: it finds the calls that remove a directory tree
//! (`shutil.rmtree`, `File::Path::rmtree`, `FileUtils.rm_rf`,
//! `fs.rmSync` …) and the calls that hand a string to a shell
//! (`os.system`, `subprocess.run`, `system`, `execSync`, backquotes …),
//! reads their first argument when it is a string or a list of strings
//! written in the code, and reports what it found; `rules` judges it (a
//! tree under `/`, a path or command computed at run time). A fork loop
//! (`fork while fork`, `while True: os.fork()`) is reported as such.

use std::sync::LazyLock;

use regex::Regex;

/// The first argument of a call, as written in the code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Argument {
    /// A string literal without interpolation: its value.
    Text(String),
    /// A list of string literals (an argv).
    List(Vec<String>),
    /// Anything else (a variable, an expression, an interpolated string):
    /// its source text.
    Computed(String),
}

/// A call that matters, found in interpreter code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Call {
    /// `rmtree(path)` and its kin: the function's name and the path.
    RemovesTree(String, Argument),
    /// `os.system(command)` and its kin: the function and the command.
    Shell(String, Argument),
    /// A loop that forks without end.
    ForkLoop,
    /// A pattern of this module did not compile (a bug): fail closed.
    Broken,
}

type Pattern = LazyLock<Result<Regex, regex::Error>>;

/// Calls that remove a directory tree, in Python, Perl, Ruby, Node, PHP
/// and Rust-like APIs.
static REMOVES_TREE: Pattern = LazyLock::new(|| {
    Regex::new(
        r"(?x)
        ( \b(?:rmtree|rm_rf|rm_r|remove_tree|rmSync|rmdirSync|removeSync|remove_dir_all
            |emptyDirSync|rimraf(?:\.sync)?|removedirs)
        | \b(?:fs|fsp|promises|fse)\.(?:rm|rmdir|remove) )
        (?:\s*\(|\s+)",
    )
});

/// Calls that run a string or an argv through a shell or `exec`.
static SHELL: Pattern = LazyLock::new(|| {
    Regex::new(
        r"(?x)
        ( \bos\.(?:system|popen|exec[lv]p?e?|spawn[lv]p?e?|posix_spawnp?)
        | \bsubprocess\.(?:run|call|Popen|check_call|check_output|getoutput|getstatusoutput)
        | \b(?:system|exec|execSync|execFile|execFileSync|spawn|spawnSync|shell_exec
            |passthru|popen|proc_open|pcntl_exec|qx|eval)
        | \bIO\.popen | \bOpen3\.\w+ | \bKernel\.(?:system|exec|spawn) )
        (?:\s*\(|\s+)",
    )
});

static FORK_LOOP: Pattern = LazyLock::new(|| {
    Regex::new(
        r"(?i)fork\s*while\s*fork|while\s*\(?\s*(true|1)\s*\)?\s*:?\s*\{?\s*(os\.|pcntl_)?fork\s*\(|for\s*\(\s*;\s*;\s*\)\s*\{?\s*fork",
    )
});

/// The calls that matter in `code`, in order of appearance.
pub(super) fn calls(code: &str) -> Vec<Call> {
    let (Ok(removes), Ok(shell), Ok(fork_loop)) = (&*REMOVES_TREE, &*SHELL, &*FORK_LOOP) else {
        return vec![Call::Broken];
    };
    let mut found: Vec<(usize, Call)> = Vec::new();
    for (pattern, removal) in [(removes, true), (shell, false)] {
        for capture in pattern.captures_iter(code) {
            let (Some(all), Some(name)) = (capture.get(0), capture.get(1)) else {
                continue;
            };
            let rest = &code[all.end()..];
            // `system "…"` without parentheses (Perl, Ruby) only before a
            // literal or a variable: `exec mode` in a sentence is no call.
            if !all.as_str().ends_with('(') && !rest.starts_with(['\'', '"', '[', '$', '@']) {
                continue;
            }
            // `exec`, `spawn` and `eval` are also methods of other things.
            let ambiguous = matches!(name.as_str(), "exec" | "spawn" | "eval");
            if !removal && ambiguous && !shell_receiver(&code[..all.start()]) {
                continue;
            }
            let argument = first_argument(rest);
            let name = name.as_str().to_string();
            let call = if removal {
                Call::RemovesTree(name, argument)
            } else {
                Call::Shell(name, argument)
            };
            found.push((all.start(), call));
        }
    }
    found.extend(
        backquoted(code)
            .into_iter()
            .map(|(at, text)| (at, Call::Shell("`…`".to_string(), Argument::Text(text)))),
    );
    if let Some(at) = fork_loop.find(code) {
        found.push((at.start(), Call::ForkLoop));
    }
    found.sort_by_key(|(at, _)| *at);
    found.into_iter().map(|(_, call)| call).collect()
}

/// Whether `exec(`, `spawn(` or `eval(` preceded by `before` is
/// a process call: a function call of its own, or a method of a module
/// that runs processes (`require('child_process').exec`, `cp.spawn`,
/// `Kernel.system`), not `/re/.exec(s)` or `db.exec(sql)`.
fn shell_receiver(before: &str) -> bool {
    let Some(before) = before.strip_suffix('.') else {
        return true;
    };
    if before.ends_with(')') {
        return true;
    }
    let receiver_start = before
        .char_indices()
        .rev()
        .find(|(_, c)| !(c.is_alphanumeric() || *c == '_' || *c == '$'))
        .map_or(0, |(at, c)| at + c.len_utf8());
    let receiver = &before[receiver_start..];
    matches!(
        receiver,
        "os" | "cp"
            | "child_process"
            | "childProcess"
            | "proc"
            | "process"
            | "Kernel"
            | "IO"
            | "subprocess"
            | "shell"
            | "sh"
            | "Deno"
            | "Bun"
            | "$"
    )
}

/// The first argument at the start of `rest` (just after the call's `(`
/// or space). Literals after it join it into one argv, as in
/// `system("rm", "-rf", "/")` or `execvp('rm', ['rm', '-rf', '/'])`; a
/// keyword argument or an options object (`shell=True`, `{stdio: …}`)
/// ends it. A literal joined to anything else (`"rm -rf " + d`) is
/// computed.
fn first_argument(rest: &str) -> Argument {
    let mut reader = Reader::new(rest);
    let Some(first) = reader.value() else {
        return Argument::Computed(computed_text(rest));
    };
    if !reader.at_end_of_argument() {
        return Argument::Computed(computed_text(rest));
    }
    let Argument::Text(program) = &first else {
        return first;
    };
    let mut words = vec![program.clone()];
    while reader.comma() {
        if reader.at_keyword_or_options() {
            break;
        }
        let value = reader.value();
        if !reader.at_end_of_argument() {
            return Argument::Computed(computed_text(rest));
        }
        match value {
            Some(Argument::Text(word)) => words.push(word),
            Some(Argument::List(list)) => words.extend(list),
            _ => return Argument::Computed(computed_text(rest)),
        }
    }
    if words.len() == 1 {
        first
    } else {
        Argument::List(words)
    }
}

/// The start of an argument that is not a literal, for a message.
fn computed_text(rest: &str) -> String {
    let end = rest.find([')', ',', ';', '\n']).unwrap_or(rest.len());
    rest[..end].trim().chars().take(40).collect()
}

/// `` `…` `` runs a shell command in Perl, Ruby and PHP.
fn backquoted(code: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut chars = code.char_indices();
    while let Some((at, c)) = chars.next() {
        if c != '`' {
            continue;
        }
        let mut text = String::new();
        let mut closed = false;
        for (_, c) in chars.by_ref() {
            if c == '`' {
                closed = true;
                break;
            }
            text.push(c);
        }
        if closed {
            out.push((at, text));
        }
    }
    out
}

/// Reads literals from the start of a piece of code.
#[derive(Clone)]
struct Reader<'c> {
    rest: &'c str,
}

impl<'c> Reader<'c> {
    fn new(rest: &'c str) -> Reader<'c> {
        Reader { rest }
    }

    fn skip_space(&mut self) {
        self.rest = self.rest.trim_start();
    }

    /// After a value: the argument ends here (`,`, `)`, `;`, a line's
    /// end or the end of the code), rather than going on (`+ d`, `. $x`).
    fn at_end_of_argument(&mut self) -> bool {
        let rest = self.rest.trim_start_matches([' ', '\t']);
        rest.is_empty() || rest.starts_with([',', ')', ']', ';', '\n', '}'])
    }

    /// `shell=True`, `check: true`, `{ stdio: … }`, `**kw`: not an argv word.
    fn at_keyword_or_options(&mut self) -> bool {
        self.skip_space();
        if self.rest.starts_with(['{', '*']) {
            return true;
        }
        let name_len = self
            .rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(self.rest.len());
        let after = self.rest[name_len..].trim_start();
        name_len > 0
            && (after.starts_with(':') || (after.starts_with('=') && !after.starts_with("==")))
    }

    fn comma(&mut self) -> bool {
        self.skip_space();
        match self.rest.strip_prefix(',') {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }

    /// A string literal, a list of them, or `None` for anything else
    /// (then the argument is computed).
    fn value(&mut self) -> Option<Argument> {
        self.skip_space();
        if let Some(rest) = self.rest.strip_prefix(['[', '(']) {
            self.rest = rest;
            return Some(self.list());
        }
        self.string()
    }

    fn list(&mut self) -> Argument {
        let mut words = Vec::new();
        loop {
            self.skip_space();
            if let Some(rest) = self.rest.strip_prefix([']', ')']) {
                self.rest = rest;
                return Argument::List(words);
            }
            match self.string() {
                Some(Argument::Text(word)) => words.push(word),
                _ => return Argument::Computed(computed_text(self.rest)),
            }
            if !self.comma() {
                self.skip_space();
                if !self.rest.starts_with([']', ')']) {
                    return Argument::Computed(computed_text(self.rest));
                }
            }
        }
    }

    /// `'…'`, `"…"`, `r'…'`, `b"…"`, `'''…'''`, `` `…` ``; an f-string, a
    /// template with `${`, a Ruby `"#{…}"` is computed.
    fn string(&mut self) -> Option<Argument> {
        let start = self.rest;
        let prefix_len = self
            .rest
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(self.rest.len());
        let prefix = self.rest[..prefix_len].to_ascii_lowercase();
        if prefix_len > 2 || prefix.chars().any(|c| !matches!(c, 'r' | 'b' | 'u' | 'f')) {
            return None;
        }
        let body = &self.rest[prefix_len..];
        let quote = body
            .chars()
            .next()
            .filter(|c| matches!(c, '\'' | '"' | '`'))?;
        let triple: String = std::iter::repeat_n(quote, 3).collect();
        let delimiter = if body.starts_with(&triple) {
            triple.as_str()
        } else {
            &body[..1]
        };
        let raw = prefix.contains('r');
        let inner = &body[delimiter.len()..];
        let (text, used) = read_until(inner, delimiter, raw)?;
        self.rest = &inner[used..];
        let interpolated = prefix.contains('f')
            || (quote == '`' && text.contains("${"))
            || (quote == '"' && text.contains("#{"));
        if interpolated {
            let end = start.len() - self.rest.len();
            return Some(Argument::Computed(start[..end].chars().take(40).collect()));
        }
        Some(Argument::Text(text))
    }
}

/// The literal up to `delimiter` and the bytes read (delimiter included).
fn read_until(inner: &str, delimiter: &str, raw: bool) -> Option<(String, usize)> {
    let mut text = String::new();
    let mut chars = inner.char_indices();
    while let Some((at, c)) = chars.next() {
        if inner[at..].starts_with(delimiter) {
            return Some((text, at + delimiter.len()));
        }
        if c == '\\' && !raw {
            let (_, next) = chars.next()?;
            text.push(match next {
                'n' => '\n',
                't' => '\t',
                other => other,
            });
        } else {
            text.push(c);
        }
    }
    None
}
