//! How a program is found by name, as `execvp` finds it and as GNU
//! `env` finds the command of a `#!/usr/bin/env …` line (its options and
//! assignments first, `-S` splitting its one argument into words).

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The PATH `execvp` searches when PATH is unset (glibc's `_CS_PATH`).
const DEFAULT_PATH: &str = "/bin:/usr/bin";

/// Finds `name` on `path` as `execvp` does: the first executable regular
/// file; an empty or relative entry is taken from `cwd`; an unset PATH is
/// [`DEFAULT_PATH`].
pub(in crate::run::exec) fn which(name: &str, path: Option<&OsStr>, cwd: &Path) -> Option<PathBuf> {
    let path = path.unwrap_or(OsStr::new(DEFAULT_PATH));
    std::env::split_paths(path)
        .map(|dir| cwd.join(dir).join(name))
        .find(|candidate| is_executable(candidate))
}

/// Whether `path` is a regular file with an execute bit (after
/// symlinks), as `execve` wants it.
pub(super) fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// What `env WORDS…` runs, as GNU `env` finds it: its options and
/// assignments first (which may change PATH or the directory), then the
/// command, looked up on PATH unless it holds a `/`. A `#!` line gives
/// `env` one word; a tool's argv may give it many.
pub(super) fn env_command(
    words: Vec<OsString>,
    mut path: Option<OsString>,
    cwd: &Path,
) -> Option<PathBuf> {
    let mut cwd = cwd.to_path_buf();
    let mut words: VecDeque<OsString> = words.into();
    // The value of an option: the rest of its word, else the next word.
    fn value(rest: &[u8], words: &mut VecDeque<OsString>) -> Option<OsString> {
        if rest.is_empty() {
            words.pop_front()
        } else {
            Some(OsStr::from_bytes(rest).to_os_string())
        }
    }
    while let Some(word) = words.pop_front() {
        let bytes = word.as_bytes();
        if bytes == b"--" {
            let command = words.pop_front()?;
            return locate(&command, path.as_deref(), &cwd);
        }
        if bytes == b"-" || bytes == b"--ignore-environment" {
            path = None;
        } else if let Some(long) = bytes.strip_prefix(b"--") {
            let (name, inline) = match long.iter().position(|&b| b == b'=') {
                Some(at) => (&long[..at], Some(&long[at + 1..])),
                None => (long, None),
            };
            let mut take = || match inline {
                Some(v) => Some(OsStr::from_bytes(v).to_os_string()),
                None => words.pop_front(),
            };
            match name {
                b"split-string" => {
                    let split = split_string(&take()?);
                    for word in split.into_iter().rev() {
                        words.push_front(word);
                    }
                }
                b"unset" if take()?.as_bytes() == b"PATH" => path = None,
                b"chdir" => cwd = cwd.join(take()?),
                // --null, --debug, the signal options: nothing to find.
                _ => {}
            }
        } else if let Some(short) = bytes.strip_prefix(b"-") {
            for (at, flag) in short.iter().enumerate() {
                let rest = &short[at + 1..];
                match flag {
                    b'i' => path = None,
                    b'u' => {
                        if value(rest, &mut words)?.as_bytes() == b"PATH" {
                            path = None;
                        }
                        break;
                    }
                    b'C' => {
                        cwd = cwd.join(value(rest, &mut words)?);
                        break;
                    }
                    b'S' => {
                        let split = split_string(&value(rest, &mut words)?);
                        for word in split.into_iter().rev() {
                            words.push_front(word);
                        }
                        break;
                    }
                    // -0, -v and the like take no value.
                    _ => {}
                }
            }
        } else if let Some(at) = bytes.iter().position(|&b| b == b'=') {
            if &bytes[..at] == b"PATH" {
                path = Some(OsStr::from_bytes(&bytes[at + 1..]).to_os_string());
            }
        } else {
            return locate(&word, path.as_deref(), &cwd);
        }
    }
    None
}

/// A command as `execvp` finds it.
fn locate(command: &OsStr, path: Option<&OsStr>, cwd: &Path) -> Option<PathBuf> {
    if command.as_bytes().contains(&b'/') {
        let found = cwd.join(command);
        return is_executable(&found).then_some(found);
    }
    which(command.to_str()?, path, cwd)
}

/// `env -S`'s splitting of a string into words: blanks separate, single
/// and double quotes group, a backslash escapes the next byte.
fn split_string(text: &OsStr) -> Vec<OsString> {
    let mut words = Vec::new();
    let mut word: Vec<u8> = Vec::new();
    let mut started = false;
    let mut quote: Option<u8> = None;
    let mut bytes = text.as_bytes().iter().copied();
    while let Some(b) = bytes.next() {
        match (quote, b) {
            (Some(q), b) if b == q => quote = None,
            (None, b'\'' | b'"') => {
                quote = Some(b);
                started = true;
            }
            (None | Some(b'"'), b'\\') => {
                if let Some(next) = bytes.next() {
                    word.push(next);
                }
                started = true;
            }
            (None, b' ' | b'\t' | b'\n') => {
                if started {
                    words.push(OsStr::from_bytes(&word).to_os_string());
                    word.clear();
                    started = false;
                }
            }
            (_, b) => {
                word.push(b);
                started = true;
            }
        }
    }
    if started {
        words.push(OsStr::from_bytes(&word).to_os_string());
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::exec::interpreter::tests::{scratch, write_executable};

    fn os(text: &str) -> OsString {
        OsString::from(text)
    }

    #[test]
    fn env_arguments_are_parsed_as_gnu_env_parses_them() {
        let dir = scratch("lookup-env");
        let first = dir.join("first");
        let second = dir.join("second");
        write_executable(&first.join("tool"), "#!/bin/sh\n");
        write_executable(&second.join("tool"), "#!/bin/sh\n");
        std::fs::write(second.join("plain"), "not executable").unwrap();
        write_executable(&first.join("plain"), "#!/bin/sh\n");
        let path = std::env::join_paths([&second, &first]).unwrap();
        let run = |argument: &str| env_command(vec![os(argument)], Some(path.clone()), &dir);
        assert_eq!(run("tool"), Some(second.join("tool")));
        // A file without an execute bit is skipped, as execvp skips it.
        assert_eq!(run("plain"), Some(first.join("plain")));
        // Without -S the whole argument is one name, which no file has.
        assert_eq!(run("tool -x"), None);
        assert_eq!(run("-S tool -x"), Some(second.join("tool")));
        assert_eq!(
            run("-S -u PYTHONWARNINGS -v tool -B"),
            Some(second.join("tool"))
        );
        assert_eq!(run("-S'tool'"), Some(second.join("tool")));
        assert_eq!(run("--split-string=A=1 tool"), Some(second.join("tool")));
        let only_first = format!("-S PATH={} tool", first.display());
        assert_eq!(run(&only_first), Some(first.join("tool")));
        // -i clears PATH: the default one has no `tool`.
        assert_eq!(run("-S -i tool"), None);
        assert_eq!(run("-S -- tool"), Some(second.join("tool")));
        assert_eq!(run("-S -C first ./tool"), Some(first.join("./tool")));
        assert_eq!(run("-S ./missing"), None);
        // Many words, as a tool's own argv gives them.
        let words = ["-u", "X", "A=1", "tool", "-x"].map(os).to_vec();
        assert_eq!(
            env_command(words, Some(path.clone()), &dir),
            Some(second.join("tool"))
        );
        // An assignment alone runs nothing.
        assert_eq!(run("A=1"), None);
        assert_eq!(
            split_string(OsStr::new(r#"a "b c" 'd e'\ f"#)),
            vec![os("a"), os("b c"), os("d e f")]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn which_takes_empty_and_relative_entries_from_the_directory() {
        let dir = scratch("lookup-which");
        write_executable(&dir.join("here"), "#!/bin/sh\n");
        write_executable(&dir.join("sub/there"), "#!/bin/sh\n");
        assert_eq!(
            which("here", Some(OsStr::new(":/nowhere")), &dir),
            Some(dir.join("here"))
        );
        assert_eq!(
            which("there", Some(OsStr::new("sub")), &dir),
            Some(dir.join("sub/there"))
        );
        assert_eq!(which("sh", None, &dir).map(|p| p.is_absolute()), Some(true));
        assert_eq!(which("here", Some(OsStr::new("/nowhere")), &dir), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
