//! The programs a command line really runs.
//!
//! A wrapper (`sudo`, `env`, `xargs`, `timeout`, `busybox` …, listed in
//! [`WRAPPERS`] with the options that take a value) runs the command after
//! its options and operands; [`program`] looks through any number of them
//! to the program that runs and says when that is not known (a name from
//! an expansion), when a wrapper runs a command string (`su -c`, `env -S`,
//! `watch`) and when nothing runs (`command -v`). The shells, interpreters
//! and downloaders the rules single out are listed here too.

use super::shell::{Script, Word};

/// A command's words with its wrappers looked through.
pub(super) enum Program<'w> {
    /// `name args…`; `fed`: `xargs` adds operands read from its input.
    Runs {
        name: String,
        args: &'w [Word],
        fed: bool,
    },
    /// A wrapper that runs a command string (`su -c`, `env -S`, `watch`).
    Text(Vec<Word>),
    /// The program's name is not known before it runs.
    Unknown(&'w Word),
    /// Nothing runs (`sudo -l`, `command -v rm`, `env`).
    Nothing,
}

/// A program that runs the command after its options and `positionals`
/// leading operands. `valued`: options that take the next word.
struct Wrapper {
    names: &'static [&'static str],
    valued: &'static [&'static str],
    positionals: usize,
    /// Options whose value is a command string.
    text: &'static [&'static str],
    /// Options that mean nothing runs (`command -v`).
    inert: &'static [&'static str],
    /// The command gets operands from standard input (`xargs`).
    feeds: bool,
    /// Options that, with no command after them, start a shell reading
    /// standard input (`sudo -s`).
    shell: &'static [&'static str],
    /// The words after the options and operands are one command string
    /// (`watch`, `ssh host …`, which hand them to a shell).
    joins: bool,
}

const fn wrapper(names: &'static [&'static str], valued: &'static [&'static str]) -> Wrapper {
    Wrapper {
        names,
        valued,
        positionals: 0,
        text: &[],
        inert: &[],
        feeds: false,
        joins: false,
        shell: &[],
    }
}

/// The programs the policy looks through to the program they run.
#[rustfmt::skip]
const WRAPPERS: &[Wrapper] = &[
    Wrapper {
        shell: &["-s", "-i", "--shell", "--login"],
        ..wrapper(
            &["sudo"],
            &[
                "-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U", "--user", "--group",
                "--chdir", "--prompt", "--role", "--type", "--host", "--close-from",
                "--other-user",
            ],
        )
    },
    Wrapper {
        shell: &["-s"],
        ..wrapper(&["doas"], &["-u", "-C"])
    },
    Wrapper {
        text: &["-S", "--split-string"],
        ..wrapper(&["env"], &["-u", "--unset", "-C", "--chdir"])
    },
    Wrapper {
        feeds: true,
        ..wrapper(
            &["xargs"],
            &[
                "-I", "-n", "-P", "-L", "-d", "-E", "-s", "-a", "--arg-file", "--delimiter",
                "--max-args", "--max-procs", "--max-lines", "--replace", "--eof", "--max-chars",
                "--process-slot-var",
            ],
        )
    },
    wrapper(&["nice"], &["-n", "--adjustment"]),
    Wrapper {
        positionals: 1,
        ..wrapper(&["timeout"], &["-s", "--signal", "-k", "--kill-after"])
    },
    wrapper(
        &[
            "nohup", "coproc", "setsid", "unbuffer", "fakeroot", "builtin", "then", "do", "else",
            "noglob", "catchsegv",
        ],
        &[],
    ),
    wrapper(&["time"], &["-f", "--format", "-o", "--output"]),
    Wrapper {
        inert: &["-v", "-V"],
        ..wrapper(&["command"], &[])
    },
    wrapper(&["exec"], &["-a"]),
    wrapper(
        &["stdbuf"],
        &["-i", "-o", "-e", "--input", "--output", "--error"],
    ),
    Wrapper {
        inert: &["-p", "--pid"],
        ..wrapper(&["ionice"], &["-c", "-n", "--class", "--classdata"])
    },
    Wrapper {
        positionals: 1,
        ..wrapper(&["chroot"], &["--userspec", "--groups"])
    },
    wrapper(&["busybox", "toybox"], &[]),
    Wrapper {
        positionals: 1,
        inert: &["-p", "--pid"],
        ..wrapper(&["taskset", "chrt"], &[])
    },
    Wrapper {
        positionals: 1,
        text: &["-c", "--command"],
        ..wrapper(
            &["flock"],
            &["-w", "--timeout", "-E", "--conflict-exit-code"],
        )
    },
    wrapper(
        &["strace", "ltrace"],
        &["-o", "-e", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-P", "-S", "-X"],
    ),
    Wrapper {
        text: &["-c", "--command"],
        inert: &["-l", "--login", "-"],
        ..wrapper(
            &["su", "runuser"],
            &["-s", "--shell", "-g", "--group", "-G", "--supp-group", "-u", "--user"],
        )
    },
    Wrapper {
        joins: true,
        ..wrapper(&["watch"], &["-n", "--interval", "-q", "--equexit"])
    },
    wrapper(&["unshare"], &["-S", "--setuid", "-G", "--setgid", "-R", "--root", "-w", "--wd"]),
    wrapper(&["nsenter"], &["-t", "--target", "-S", "--setuid", "-G", "--setgid"]),
    wrapper(&["setpriv", "capsh"], &[]),
    wrapper(
        &["systemd-run"],
        &[
            "-u", "--unit", "-p", "--property", "-E", "--setenv", "-M", "--machine", "-H", "--host",
            "--description", "--slice", "--uid", "--gid", "--nice", "-d", "--working-directory",
        ],
    ),
    // `parallel rm -rf ::: /`: the words after `:::` are its input.
    Wrapper {
        feeds: true,
        ..wrapper(&["parallel"], &["-j", "--jobs", "-S", "--sshlogin", "--delay", "--timeout"])
    },
    // `ssh localhost 'rm -rf /'` runs on this machine too.
    Wrapper {
        joins: true,
        positionals: 1,
        ..wrapper(
            &["ssh"],
            &[
                "-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O",
                "-o", "-p", "-Q", "-R", "-S", "-W", "-w",
            ],
        )
    },
    Wrapper {
        text: &["-c", "--command"],
        ..wrapper(&["script"], &["-E", "--echo", "-I", "-O", "-T", "--log-in"])
    },
];

/// Shells: `-c` runs a string, no operand reads the script from stdin.
pub(super) const SHELLS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh", "fish", "rbash",
];

/// Interpreters and the options after which their code follows.
const INTERPRETERS: &[(&[&str], &[&str])] = &[
    (&["python", "python2", "python3", "pypy", "pypy3"], &["-c"]),
    (&["perl"], &["-e", "-E"]),
    (&["ruby"], &["-e"]),
    (
        &["node", "nodejs", "bun"],
        &["-e", "--eval", "-p", "--print"],
    ),
    (&["deno"], &["eval"]),
    (&["php"], &["-r"]),
    (&["lua", "luajit"], &["-e"]),
];

/// Programs that delete the files they are given.
pub(super) const DELETERS: &[&str] = &["rm", "rmdir", "unlink", "shred"];

/// Programs that fetch from the network.
pub(super) const DOWNLOADERS: &[&str] = &[
    "curl",
    "wget",
    "fetch",
    "aria2c",
    "http",
    "https",
    "lwp-request",
    "GET",
    "ftp",
    "tftp",
];

/// `/usr/bin/rm` and `rm` are `rm`.
pub(super) fn base_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// The interpreter family of `name` (`python3.12` is `python3`).
pub(super) fn interpreter(name: &str) -> Option<&'static [&'static str]> {
    let trimmed = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    INTERPRETERS
        .iter()
        .find(|(names, _)| names.contains(&name) || names.contains(&trimmed))
        .map(|(_, flags)| *flags)
}

/// `words` looked through their wrappers.
pub(super) fn program(words: &[Word]) -> Program<'_> {
    let mut words = words;
    let mut fed = false;
    loop {
        let Some((first, rest)) = words.split_first() else {
            return Program::Nothing;
        };
        let Some(value) = &first.value else {
            return Program::Unknown(first);
        };
        let name = base_name(value);
        let Some(wrapper) = WRAPPERS.iter().find(|w| w.names.contains(&name)) else {
            return Program::Runs {
                name: name.to_string(),
                args: rest,
                fed,
            };
        };
        // `su root -c '…'`, `flock /tmp/lock -c '…'`: the string may
        // follow an operand.
        for (at, word) in rest.iter().enumerate() {
            let Some(value) = word.value.as_deref() else {
                continue;
            };
            if wrapper.text.contains(&value) {
                return Program::Text(rest[at + 1..].iter().take(1).cloned().collect());
            }
            // `--split-string='…'`: the string is in the word.
            let joined = wrapper.text.iter().find_map(|option| {
                let tail = value.strip_prefix(option)?.strip_prefix('=')?;
                option.starts_with("--").then_some(tail)
            });
            if let Some(text) = joined {
                let text = Word {
                    value: Some(text.to_string()),
                    glob: None,
                    ..word.clone()
                };
                return Program::Text(vec![text]);
            }
        }
        let mut index = 0;
        while let Some(word) = rest.get(index) {
            let Some(arg) = &word.value else { break };
            if arg == "--" {
                index += 1;
                break;
            }
            if wrapper.inert.contains(&arg.as_str()) {
                return Program::Nothing;
            }
            let assignment = wrapper.names.contains(&"env") && arg.contains('=');
            let option = arg.starts_with('-') && arg.len() > 1;
            if !(option || assignment) {
                break;
            }
            index += if wrapper.valued.contains(&arg.as_str()) {
                2
            } else {
                1
            };
        }
        let options = &rest[..index.min(rest.len())];
        let start = (index + wrapper.positionals).min(rest.len());
        let starts_shell = options.iter().any(|w| {
            w.value
                .as_deref()
                .is_some_and(|v| wrapper.shell.contains(&v))
        });
        if starts_shell && start >= rest.len() {
            return Program::Runs {
                name: "sh".to_string(),
                args: &[],
                fed,
            };
        }
        fed |= wrapper.feeds;
        words = &rest[start..];
        if wrapper.joins {
            return Program::Text(words.to_vec());
        }
    }
}

/// The operands of `args` (words not starting with `-`, all after `--`).
pub(super) fn operands(args: &[Word]) -> impl Iterator<Item = &Word> {
    let mut done = false;
    args.iter().filter(move |word| {
        if done {
            return true;
        }
        match word.value.as_deref() {
            Some("--") => {
                done = true;
                false
            }
            Some(value) => !(value.starts_with('-') && value.len() > 1),
            None => true,
        }
    })
}

pub(super) fn value_of(word: &Word) -> &str {
    word.value.as_deref().unwrap_or("")
}

/// `-rf`, `-R` (not `--force`, not `-`).
pub(super) fn is_short_flags(arg: &str) -> bool {
    arg.len() > 1 && arg.starts_with('-') && !arg.starts_with("--")
}

pub(super) fn has_flag(args: &[Word], long: &str, short: &[char]) -> bool {
    args.iter()
        .filter_map(|w| w.value.as_deref())
        .take_while(|a| *a != "--")
        .any(|a| is_long(a, long) || (is_short_flags(a) && a.contains(short)))
}

/// `arg` is the long option `long` or an abbreviation getopt accepts
/// (`--rec` for `--recursive`).
pub(super) fn is_long(arg: &str, long: &str) -> bool {
    arg.len() > 2 && arg.starts_with("--") && long.starts_with(arg)
}

/// Whether any of `commands` (through wrappers) is a downloader.
pub(super) fn downloads(script: &Script, commands: &[usize]) -> bool {
    commands
        .iter()
        .filter_map(|i| script.commands.get(*i))
        .any(|command| match program(&command.words) {
            Program::Runs { name, .. } => DOWNLOADERS.contains(&name.as_str()),
            _ => false,
        })
}

/// `find`'s start paths and its expression, past the options before the
/// paths (`-H`, `-L`, `-P`, `-D …`, `-O…`).
pub(super) fn find_parts(args: &[Word]) -> (Vec<&Word>, &[Word]) {
    let mut index = 0;
    while let Some(arg) = args.get(index).and_then(|w| w.value.as_deref()) {
        match arg {
            "-H" | "-L" | "-P" => index += 1,
            "-D" => index += 2,
            "--" => {
                index += 1;
                break;
            }
            _ if arg.starts_with("-O") => index += 1,
            _ => break,
        }
    }
    let rest = args.get(index..).unwrap_or(&[]);
    // A computed word is a start only in first place (`find $DIR …`);
    // after one, it may be an expression (`find / $ACTION`).
    let starts: Vec<&Word> = rest
        .iter()
        .enumerate()
        .take_while(|(at, w)| match w.value.as_deref() {
            Some(v) => !(v.starts_with('-') || matches!(v, "(" | "!" | ",")),
            None => *at == 0,
        })
        .map(|(_, w)| w)
        .collect();
    let expression = &rest[starts.len()..];
    (starts, expression)
}
