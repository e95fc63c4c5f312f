//! The rules over parsed shell commands: what `dangerous-command` and
//! `remote-script` refuse.
//!
//! Each simple command is looked through its wrappers (`sudo`, `env`,
//! `xargs`, `timeout`, `busybox` …, see `programs`) to the program that
//! really runs, then judged by that program's rule. A command string
//! handed to another shell (`sh -c '…'`, `eval`, `su -c`, `trap`, a
//! here-document into `bash`) is parsed and judged in turn; interpreter
//! code (`python3 -c`, `perl -e` …) is read by `code`.
//!
//! What cannot be known before the command runs is refused, naming why:
//! a program whose name is not a literal (`$(printf rm) -rf /`, `$CMD`),
//! `eval` or `sh -c` of a non-literal, a script piped into a shell or an
//! interpreter (`… | sh`, `… | python3`), a script read from a process
//! substitution (`bash <(…)`), and an expansion in a path of a
//! destructive command (`rm -r`, `find … -delete`, `rsync --delete`,
//! `chmod`/`chown`/`chgrp -R`, `dd of=`), or a relative one after a `cd`
//! to a directory only known then. When what runs comes
//! from a download (`curl`, `wget` …) the refusal is `remote-script`'s.
//! A substitution in the arguments of any other command (`echo $(date)`)
//! is allowed: its own commands are judged like the others. A script file
//! (`bash build.sh`, `python3 tool.py`) is not read: what it does is the
//! sandbox's to contain, unless the same command line downloaded it
//! (`download`). The rules of the commands that delete a tree are in
//! `delete`.

use std::path::Path;

use super::code::{self, Argument, Call};
use super::paths::normalize;
use super::programs::{
    DELETERS, Program, SHELLS, downloads, find_parts, has_flag, interpreter, is_short_flags,
    operands, program, value_of,
};
use super::shell::{self, Command, Input, Script, Word};
use super::targets::{Places, Target, block_device};

mod delete;
mod download;

/// Which default rule a finding belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Dangerous,
    Remote,
}

/// Why a command is refused.
#[derive(Debug, Clone)]
pub(super) struct Finding {
    pub kind: Kind,
    pub why: String,
}

const REMOTE: &str = "would run a script downloaded from the network";

/// The most command strings nested in one another (`sh -c "sh -c …"`).
const MAX_DEPTH: usize = 8;

/// The longest command line the policy reads, in bytes: Linux's
/// `MAX_ARG_STRLEN` (128 KiB with its NUL), past which `sh -c` could not
/// be given it anyway.
pub(super) const MAX_COMMAND_LEN: usize = 128 * 1024 - 1;

/// Every finding in `text`, in the order of its commands.
pub(super) fn screen(text: &str, dir: &Path, home: &Path) -> Vec<Finding> {
    if text.len() > MAX_COMMAND_LEN {
        let why = format!(
            "is {} bytes long, more than the 128 KiB one argument of `sh -c` may be (Linux's MAX_ARG_STRLEN): too long to read",
            text.len()
        );
        return vec![Finding {
            kind: Kind::Dangerous,
            why,
        }];
    }
    screen_as(text, dir, home, shell::bash().is_some())
}

/// [`screen`], the text run by Bash (`bash`) or by a POSIX `/bin/sh`.
pub(super) fn screen_as(text: &str, dir: &Path, home: &Path, bash: bool) -> Vec<Finding> {
    let mut judge = Judge {
        bash,
        places: Places {
            dir,
            cwd: Ok(dir.to_path_buf()),
            home,
        },
        findings: Vec::new(),
        downloaded: Vec::new(),
    };
    judge.text(text, 0);
    judge.findings
}

struct Judge<'a> {
    places: Places<'a>,
    /// The text is run by Bash, not by a POSIX shell that reads `$'…'`
    /// and aliases otherwise than the grammar.
    bash: bool,
    findings: Vec<Finding>,
    /// The files downloaded by the commands read so far (`download`).
    downloaded: Vec<download::Downloaded>,
}

impl Judge<'_> {
    fn push(&mut self, kind: Kind, why: impl Into<String>) {
        self.findings.push(Finding {
            kind,
            why: why.into(),
        });
    }

    /// `text` judged as written and, when it has line continuations, as
    /// the shell reads it with them removed (`r\⏎m -rf /`).
    fn text(&mut self, text: &str, depth: usize) {
        let joined = shell::join_lines(text);
        if joined != text {
            let places = self.places.clone();
            self.text_as_read(&joined, depth);
            self.places = places;
        }
        self.text_as_read(text, depth);
    }

    fn text_as_read(&mut self, text: &str, depth: usize) {
        if depth > MAX_DEPTH {
            self.push(
                Kind::Dangerous,
                format!("nests command strings more than {MAX_DEPTH} deep"),
            );
            return;
        }
        let script = match shell::parse(text) {
            Ok(script) => script,
            Err(why) => {
                self.push(
                    Kind::Dangerous,
                    format!("cannot be read before it runs: {why}"),
                );
                return;
            }
        };
        if script.too_deep {
            self.push(
                Kind::Dangerous,
                format!(
                    "nests more than {} levels deep, too deep to read",
                    shell::MAX_NESTING
                ),
            );
        }
        if !self.bash
            && let Some(quoting) = &script.bash_quoting
        {
            self.push(
                Kind::Dangerous,
                format!(
                    "uses Bash's quoting `{}`, which a POSIX `sh` reads otherwise (what it runs is not what was checked)",
                    shorten(quoting)
                ),
            );
        }
        if let Some(text) = &script.misread {
            self.push(
                Kind::Dangerous,
                format!(
                    "has `{}`, which the policy's grammar reads otherwise than Bash: what runs is not what was checked",
                    shorten(text)
                ),
            );
        }
        if let Some(why) = &script.too_complex {
            self.push(Kind::Dangerous, format!("has {why}: too complex to check"));
        }
        if script.home_reassigned {
            let why = "uses `~` or `$HOME` after assigning HOME: the directory they name is only known when it runs";
            self.push(Kind::Dangerous, why);
        }
        // `x='a[$(rm -rf /)]'; (( x ))`: arithmetic evaluates a variable's
        // value as an expression, and a subscript's substitution runs.
        for value in script.assigned.iter().filter_map(|w| w.value.as_deref()) {
            let subscript = value.find('[').map_or("", |at| &value[at..]);
            if subscript.contains("$(") || subscript.contains('`') {
                self.push(
                    Kind::Dangerous,
                    format!(
                        "assigns `{}`, a subscript with a command substitution, which arithmetic on the variable would run",
                        shorten(value)
                    ),
                );
            }
        }
        for function in &script.functions {
            let calls_itself = script
                .commands
                .get(function.body.clone())
                .is_some_and(|body| {
                    body.iter().any(|c| {
                        c.words.first().and_then(|w| w.value.as_deref()) == Some(&function.name)
                    })
                });
            if function.forks && calls_itself {
                self.push(Kind::Dangerous, "is a fork bomb");
            }
        }
        for command in &script.commands {
            self.command(&script, command, depth);
        }
        if script.malformed {
            // Not shell as bash reads it: perhaps code (`python_code`).
            self.code(text, depth);
        }
    }

    fn command(&mut self, script: &Script, command: &Command, depth: usize) {
        self.downloads_run(script, command);
        for redirect in &command.redirects {
            if !redirect.operator.contains('>') {
                continue;
            }
            let target = redirect.target.value.as_deref();
            if let Some(device) = target.and_then(block_device) {
                self.push(
                    Kind::Dangerous,
                    format!("would overwrite the block device `{device}`"),
                );
            }
            if target.is_some_and(|t| normalize(t) == "/proc/sysrq-trigger") {
                self.push(Kind::Dangerous, "would trigger a kernel SysRq action");
            }
        }
        // `env -C / rm -rf *`, `sudo -D / …`: relative paths resolve in a
        // directory the policy does not follow.
        if let Some(option) = changes_directory(&command.words) {
            let outer = self.places.cwd.clone();
            self.places.cwd = Err(format!("the working directory `{option}` sets"));
            self.words(script, command, &command.words, depth);
            self.places.cwd = outer;
            return;
        }
        self.words(script, command, &command.words, depth);
    }

    /// The program `words` run, judged.
    fn words(&mut self, script: &Script, command: &Command, words: &[Word], depth: usize) {
        match program(words) {
            Program::Nothing => {}
            Program::Unknown(word) => self.unknowable(
                script,
                word,
                "runs a program whose name is only known when it runs",
            ),
            Program::Text(words) => {
                let words: Vec<&Word> = words.iter().collect();
                self.command_string(script, &words, "runs", depth)
            }
            Program::Runs { name, args, fed } => {
                self.program(script, command, &name, args, fed, depth)
            }
        }
    }

    /// A refusal of something only known when it runs; `remote-script`'s
    /// when a download produces it.
    fn unknowable(&mut self, script: &Script, word: &Word, what: &str) {
        if downloads(script, &word.inner) {
            self.push(Kind::Remote, REMOTE);
            return;
        }
        let why = word.unknown.as_deref().unwrap_or("a computed word");
        self.push(Kind::Dangerous, format!("{what} ({why})"));
    }

    /// Words that are a command string for another shell: parsed when
    /// they are all known.
    fn command_string(&mut self, script: &Script, words: &[&Word], how: &str, depth: usize) {
        if let Some(word) = words.iter().find(|w| w.value.is_none()) {
            let what = format!("{how} a command string only known when it runs");
            return self.unknowable(script, word, &what);
        }
        let text: Vec<&str> = words.iter().map(|w| value_of(w)).collect();
        self.text(&text.join(" "), depth + 1);
    }

    fn program(
        &mut self,
        script: &Script,
        command: &Command,
        name: &str,
        args: &[Word],
        fed: bool,
        depth: usize,
    ) {
        if SHELLS.contains(&name) {
            return self.shell(script, command, name, args, depth);
        }
        if let Some(flags) = interpreter(name) {
            return self.interpreter(script, command, name, flags, args, depth);
        }
        let formatter = name.starts_with("mkfs") || name == "mke2fs" || name == "mkswap";
        if formatter {
            return self.push(
                Kind::Dangerous,
                format!("would format a filesystem with `{name}`"),
            );
        }
        match name {
            "cd" | "pushd" => self.places.cd(args),
            "alias" => {
                // `alias x='rm -rf /'`: the value is a command line.
                for definition in args {
                    let Some((_, value)) = definition.source.split_once('=') else {
                        continue;
                    };
                    if !self.bash {
                        self.push(
                            Kind::Dangerous,
                            "defines an alias, which a POSIX `sh` expands in a script where Bash does not",
                        );
                    }
                    match definition.value.as_deref().and_then(|v| v.split_once('=')) {
                        Some((name, text)) => {
                            self.text(text, depth + 1);
                            if let Some(program) = alias_target(text) {
                                self.push(
                                    Kind::Dangerous,
                                    format!("defines the alias `{name}` for `{program}`, a shell, interpreter or deleting command"),
                                );
                            }
                        }
                        None => self.unknowable(
                            script,
                            definition,
                            &format!("defines an alias only known when it runs (`{value}`)"),
                        ),
                    }
                }
            }
            "eval" => {
                let words: Vec<&Word> = args.iter().collect();
                self.command_string(script, &words, "evaluates", depth);
            }
            "trap" => {
                let words: Vec<&Word> = args.iter().take(1).collect();
                self.command_string(script, &words, "traps", depth);
            }
            "source" | "." => {
                if let Some(file) = args.first().filter(|w| w.value.is_none()) {
                    self.unknowable(script, file, "sources a file only known when it runs");
                }
            }
            "awk" | "gawk" | "mawk" | "nawk" => self.awk(script, args, depth),
            "rm" => self.rm(args, fed),
            "shutdown" | "reboot" | "halt" | "poweroff" => self.push(
                Kind::Dangerous,
                format!("would stop the machine with `{name}`"),
            ),
            // Process -1 is every process; a first `-1` is signal 1.
            "kill"
                if args
                    .iter()
                    .skip(1)
                    .any(|a| a.value.as_deref() == Some("-1")) =>
            {
                self.push(Kind::Dangerous, "would kill every process (`kill … -1`)")
            }
            "killall5" => self.push(Kind::Dangerous, "would kill every process (`killall5`)"),
            "find" => self.find(script, command, args, depth),
            "rsync" => self.rsync(args),
            "git" => self.git(args),
            "chmod" | "chown" | "chgrp" | "chattr" | "setfacl" => {
                let certain = has_flag(args, "--recursive", &['R']);
                if certain || computed(args) {
                    let verb = format!("would {name}");
                    let targets = operands(args).skip(1);
                    let what = format!("{verb} {{}} recursively");
                    self.targets(targets, fed, certain, false, &what);
                }
            }
            "mv" => {
                let operands: Vec<&Word> = operands(args).collect();
                if let Some((_, sources)) = operands.split_last() {
                    for source in sources {
                        if let Target::Critical(path) = self.places.target(source) {
                            self.push(Kind::Dangerous, format!("would move `{path}` away"));
                        }
                    }
                }
            }
            "cp" => self.devices(operands(args).last().into_iter(), "overwrite"),
            "dd" => {
                for arg in args {
                    let Some(target) = arg.source.strip_prefix("of=") else {
                        continue;
                    };
                    match arg.value.as_deref().and_then(|v| v.strip_prefix("of=")) {
                        Some(value) => {
                            if let Some(device) = block_device(value) {
                                self.push(
                                    Kind::Dangerous,
                                    format!("would write the block device `{device}` with dd"),
                                );
                            }
                        }
                        None => self.unknowable(
                            script,
                            arg,
                            &format!("would write with dd to `{target}`, only known when it runs"),
                        ),
                    }
                }
            }
            "shred" | "wipefs" | "tee" | "blkdiscard" => {
                self.devices(operands(args), name);
            }
            _ => {}
        }
        if fed && DELETERS.contains(&name) {
            self.fed_from_find(script, command, name);
        }
    }

    /// `find / | xargs rm`: deletes what a `find` over a critical place
    /// lists.
    fn fed_from_find(&mut self, script: &Script, command: &Command, name: &str) {
        for input in &command.inputs {
            let Input::Pipe(upstream) = input else {
                continue;
            };
            for index in upstream {
                let Some(source) = script.commands.get(*index) else {
                    continue;
                };
                let Program::Runs {
                    name: lister, args, ..
                } = program(&source.words)
                else {
                    continue;
                };
                if lister != "find" {
                    continue;
                }
                let (starts, _) = find_parts(args);
                let dot = [Word::literal(".")];
                let starts = if starts.is_empty() {
                    vec![&dot[0]]
                } else {
                    starts
                };
                for start in starts {
                    if let Target::Critical(path) = self.places.target(start) {
                        let why = format!("would {name} everything `find {path}` lists");
                        return self.push(Kind::Dangerous, why);
                    }
                }
            }
        }
    }

    fn devices<'w>(&mut self, words: impl Iterator<Item = &'w Word>, verb: &str) {
        for word in words {
            if let Some(device) = word.value.as_deref().and_then(block_device) {
                self.push(
                    Kind::Dangerous,
                    format!("would {verb} the block device `{device}`"),
                );
            }
        }
    }

    /// `sh -c '…'` is parsed; `sh` reading a pipe is refused.
    fn shell(
        &mut self,
        script: &Script,
        command: &Command,
        name: &str,
        args: &[Word],
        depth: usize,
    ) {
        // What this shell is given, it reads in its own dialect.
        let outer = self.bash;
        self.bash = matches!(name, "bash" | "rbash");
        self.shell_arguments(script, command, name, args, depth);
        self.bash = outer;
    }

    fn shell_arguments(
        &mut self,
        script: &Script,
        command: &Command,
        name: &str,
        args: &[Word],
        depth: usize,
    ) {
        let mut index = 0;
        let mut string = false;
        // `bash -s -- args`: the script is read from stdin all the same.
        let mut stdin = false;
        while let Some(arg) = args.get(index).and_then(|w| w.value.as_deref()) {
            if arg == "--" || arg == "-" {
                index += 1;
                break;
            }
            if !(arg.starts_with(['-', '+']) && arg.len() > 1) {
                break;
            }
            let short = !arg.starts_with("--");
            string |= short && arg.contains('c');
            stdin |= short && arg.contains('s');
            let valued = matches!(arg, "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file");
            index += if valued { 2 } else { 1 };
        }
        let rest = args.get(index..).unwrap_or(&[]);
        match (string, rest.first()) {
            (true, Some(text)) => {
                self.command_string(script, &[text], &format!("runs `{name} -c` on"), depth)
            }
            (true, None) => {}
            (false, _) if stdin => self.stdin(script, command, name, depth, true),
            // `… | bash /dev/stdin`: the script is what it reads.
            (false, Some(file)) if file.value.as_deref().is_some_and(is_stdin) => {
                self.stdin(script, command, name, depth, true)
            }
            (false, Some(file)) if file.value.is_none() => {
                self.unknowable(
                    script,
                    file,
                    &format!("runs `{name}` on a script only known when it runs"),
                );
            }
            (false, Some(_)) => {}
            (false, None) => self.stdin(script, command, name, depth, true),
        }
    }

    /// What a shell or interpreter reads from its standard input.
    fn stdin(&mut self, script: &Script, command: &Command, name: &str, depth: usize, shell: bool) {
        for input in &command.inputs {
            match input {
                Input::Pipe(upstream) if downloads(script, upstream) => {
                    self.push(Kind::Remote, REMOTE)
                }
                Input::Pipe(_) | Input::Written => {
                    let what = "what that is is only known when it runs";
                    let why = format!("pipes into `{name}`, which runs whatever it reads: {what}");
                    self.push(Kind::Dangerous, why);
                }
                Input::Text(text) if text.value.is_none() => self.unknowable(
                    script,
                    text,
                    &format!("feeds `{name}` a script only known when it runs"),
                ),
                Input::Text(text) if shell => self.text(value_of(text), depth + 1),
                Input::Text(text) => self.code(value_of(text), depth),
            }
        }
        for redirect in &command.redirects {
            if redirect.operator.starts_with('<') && redirect.target.value.is_none() {
                let what = format!("feeds `{name}` a script only known when it runs");
                self.unknowable(script, &redirect.target, &what);
            }
        }
    }

    fn interpreter(
        &mut self,
        script: &Script,
        command: &Command,
        name: &str,
        flags: &[&str],
        args: &[Word],
        depth: usize,
    ) {
        // Every code option is read (`perl -e … -e …`), also after an
        // option whose value merely ends in the flag's letter
        // (`-MFile::Path=remove_tree -e …`).
        let mut code = false;
        for (index, word) in args.iter().enumerate() {
            let Some(arg) = word.value.as_deref() else {
                continue;
            };
            // `perl -ne '…'`, `ruby -pe`: a short cluster ending in the flag.
            let cluster = arg.len() <= 5
                && is_short_flags(arg)
                && arg[1..].chars().all(|c| c.is_ascii_lowercase())
                && flags.iter().any(|f| f.len() == 2 && arg.ends_with(&f[1..]));
            if flags.contains(&arg) || cluster {
                code = true;
                if let Some(text) = args.get(index + 1) {
                    self.code_word(script, name, text, depth);
                }
                continue;
            }
            let inline = flags.iter().find_map(|f| {
                let rest = arg.strip_prefix(f)?;
                let rest = rest.strip_prefix('=').or((f.len() == 2).then_some(rest))?;
                (!rest.is_empty()).then_some(rest)
            });
            if let Some(text) = inline {
                code = true;
                self.code(text, depth);
            }
        }
        if code {
            return;
        }
        let script_file = args.iter().find(|word| {
            word.value.as_deref().is_none_or(|arg| {
                arg == "-m" || arg == "-" || !(arg.starts_with('-') && arg.len() > 1)
            })
        });
        match script_file {
            Some(word) if word.value.as_deref().is_some_and(is_stdin) => {
                self.stdin(script, command, name, depth, false)
            }
            Some(word) if word.value.is_none() => self.unknowable(
                script,
                word,
                &format!("runs `{name}` on a script only known when it runs"),
            ),
            Some(_) => {}
            None => self.stdin(script, command, name, depth, false),
        }
    }

    /// `awk '{ system("…") }'`: the program is the first operand, unless
    /// `-f` names a file.
    fn awk(&mut self, script: &Script, args: &[Word], depth: usize) {
        let mut index = 0;
        while let Some(arg) = args.get(index).and_then(|w| w.value.as_deref()) {
            match arg {
                "-f" | "--file" => return,
                "-F" | "-v" | "--assign" | "--field-separator" => index += 2,
                "--" => {
                    index += 1;
                    break;
                }
                _ if arg.starts_with('-') && arg.len() > 1 => index += 1,
                _ => break,
            }
        }
        if let Some(program) = args.get(index) {
            self.code_word(script, "awk", program, depth);
        }
    }

    fn code_word(&mut self, script: &Script, name: &str, code: &Word, depth: usize) {
        match &code.value {
            Some(text) => self.code(text, depth),
            None => self.unknowable(
                script,
                code,
                &format!("runs `{name}` code only known when it runs"),
            ),
        }
    }

    /// Interpreter code: trees removed, shell commands run, fork loops.
    fn code(&mut self, text: &str, depth: usize) {
        for call in code::calls(text) {
            match call {
                Call::Broken => self.push(
                    Kind::Dangerous,
                    "cannot be read: a policy pattern does not compile",
                ),
                Call::ForkLoop => self.push(Kind::Dangerous, "is a fork bomb"),
                Call::RemovesTree(function, Argument::Text(path)) => {
                    if let Some(path) = self.places.critical(&path) {
                        self.push(
                            Kind::Dangerous,
                            format!("would delete `{path}` recursively (`{function}`)"),
                        );
                    } else if let Some(path) = self.places.outside(&path) {
                        self.push(
                            Kind::Dangerous,
                            format!(
                                "would delete `{path}` recursively (`{function}`), {}",
                                delete::OUTSIDE
                            ),
                        );
                    }
                }
                Call::RemovesTree(function, Argument::List(_) | Argument::Computed(_)) => self
                    .push(
                        Kind::Dangerous,
                        format!(
                            "would delete recursively (`{function}`) a path only known when it runs"
                        ),
                    ),
                Call::Shell(_, Argument::Text(command)) => self.text(&command, depth + 1),
                Call::Shell(_, Argument::List(words)) => {
                    let quoted: Vec<String> = words.iter().map(|w| quote(w)).collect();
                    self.text(&quoted.join(" "), depth + 1);
                }
                Call::Shell(function, Argument::Computed(what)) => self.push(
                    Kind::Dangerous,
                    format!("runs a command only known when it runs (`{function}` of `{what}`)"),
                ),
            }
        }
    }
}

/// Whether a word of `args` is only known when it runs (it may be an
/// option).
/// The option of `env` or `sudo` among `words` that runs the command in
/// another directory (`env -C DIR`, `sudo -D DIR`, `--chdir=DIR`).
fn changes_directory(words: &[Word]) -> Option<String> {
    let values: Vec<&str> = words.iter().filter_map(|w| w.value.as_deref()).collect();
    let wrapper = values.iter().find_map(|v| {
        let name = v.rsplit('/').next().unwrap_or(v);
        matches!(name, "env" | "sudo").then_some(name)
    })?;
    let option = values.iter().find(|v| {
        v.starts_with("--chdir")
            || (!v.starts_with("--") && (v.starts_with("-C") || v.starts_with("-D")))
    })?;
    Some(format!("{wrapper} {option}"))
}

/// `-` or a path a program reads its standard input from.
fn is_stdin(path: &str) -> bool {
    if path == "-" {
        return true;
    }
    let path = normalize(path);
    path == "/dev/stdin" || path == "/proc/self/fd/0" || path == "/proc/thread-self/fd/0"
}

/// A computed word the shell may split into several (unquoted, or
/// `"$@"`, `"${a[@]}"`).
fn splits(word: &Word) -> bool {
    let source = word.source.as_str();
    let quoted = source.starts_with('"') && source.ends_with('"') && source.len() > 1;
    !quoted || source.contains("@") || source.contains("$*")
}

fn computed(args: &[Word]) -> bool {
    args.iter().any(|word| word.value.is_none())
}

/// `word` single-quoted for the shell.
fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// The shell, interpreter or deleting program an alias's value runs.
fn alias_target(text: &str) -> Option<String> {
    let script = shell::parse(text).ok()?;
    script
        .commands
        .iter()
        .find_map(|command| match program(&command.words) {
            Program::Runs { name, .. }
                if SHELLS.contains(&name.as_str())
                    || interpreter(&name).is_some()
                    || DELETERS.contains(&name.as_str()) =>
            {
                Some(name)
            }
            _ => None,
        })
}

/// At most 40 characters of `text`, for a message.
fn shorten(text: &str) -> String {
    let mut out: String = text.chars().take(40).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}
