//! Interpreters anywhere: what a command tool's program runs through, and
//! which of their files the sandbox must let it read.
//!
//! Before a command tool is spawned under Landlock, its program is read
//! the way the kernel and `env` would run it ([`lookup`] finds names):
//!
//! - A program named bare is looked up on PATH as `execvp` does (the
//!   first executable file; an empty entry is the working directory).
//! - A file starting with `#!` names its interpreter (the kernel reads at
//!   most [`SHEBANG_LIMIT`] bytes: one path, then at most one argument).
//!   When that interpreter is the system's `env` (`/usr/bin/env` by its
//!   real path; a file that is merely named `env` is run as what it is),
//!   or the program itself is, its
//!   words are parsed as GNU `env` parses them (`-S` splits one; `-i`,
//!   `-u NAME`, `-C DIR`, `NAME=VALUE` and the other options come before
//!   the command) and the command is looked up on the PATH the tool itself
//!   gets (PATH from toolc's environment, see `environment()` in the parent
//!   module), or the one the words set. An interpreter that is itself a
//!   script is read again, up to [`MAX_DEPTH`] levels in all. A file
//!   without `#!` (a binary) ends the chain.
//! - Every hop of every symlink on the way counts: a venv's `bin/python3`
//!   leads to `/root/.pyenv/versions/3.11.7/bin/python3.11`.
//!
//! What becomes readable (read and execute), for each file on the way:
//!
//! - The file, and its **installation prefix**: the directory above its
//!   `bin/`, `sbin/` or `shims/` directory, judged on the file's real
//!   (symlink-free) directory; the file's own directory when that is no
//!   such directory. This covers nvm (`~/.nvm/versions/node/v20`),
//!   Homebrew and Linuxbrew (`/opt/homebrew`, `/home/linuxbrew/.linuxbrew`
//!   and the `Cellar/…` its symlinks lead to), conda, pyenv (`~/.pyenv`,
//!   from its shims) and virtual environments alike.
//! - **Never a whole home, the root or a directory of it**: when the
//!   prefix would be `/` or a directory directly in it (`/usr`, readable
//!   anyway, `/etc`, `/tmp`, `/opt`…), `/root`, a directory of `/home`,
//!   `$HOME` or a directory above it, a directory directly in a home that
//!   is not a known installation root (`~/.local`, `~/.cargo` hold data
//!   and credentials; `~/.pyenv`, `~/.nvm`, `~/miniconda3` only
//!   installations), or a call's scratch directory, only the file's own
//!   directory is added, and when that is one of them too, only the file.
//! - For **Python** (a file named `python`, `python3`, `python3.11`…), also
//!   what the interpreter says it reads: asked once per interpreter path,
//!   passthrough names and runner, isolated (`-I`) in a process confined
//!   to the installations above, without network, for `sys.prefix`,
//!   `sys.base_prefix` (so a venv gets both itself and its base
//!   installation), the exec prefixes, `sys.executable` and `sys.path`.
//!   The answer is checked, not trusted: a prefix counts only when it
//!   holds a Python installation or a venv, an import path entry only
//!   beneath such a prefix (a `.pth` line elsewhere needs `--allow-read`),
//!   the user site only as a `site-packages` beneath the home; the
//!   PYTHONPATH the tool passes through is taken from the environment. An
//!   interpreter with a symlink hop in the tool's own directories (its
//!   manifest's, its writable ones: a venv shipped with the tool) is not
//!   asked at all, as its author could make it answer anything; the
//!   installations of its hops still cover the venv and its base.
//!
//! A consequence to know: naming a program in a `#!` line (or as the
//! program) gives the tool read access to that program's installation,
//! e.g. all of `~/.nvm/versions/node/v20` for `#!/usr/bin/env node`; what
//! lies in such a prefix is as readable as the interpreter's own files.
//! The Python interpreter is asked in the same sandbox as the tool
//! (namespaces included), as it may be the tool author's program.

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::run::cancel::CancelToken;
use crate::run::sandbox::Support;
pub(super) use lookup::which;
pub(in crate::run) use python::Cache;
use python::{describe, is_python};

mod lookup;
mod python;

/// The most of a file the kernel reads for its `#!` line (Linux's
/// `BINPRM_BUF_SIZE`).
const SHEBANG_LIMIT: usize = 256;

/// How many interpreters may stand in a row (Linux allows 4 nested
/// script interpreters; one more for the program itself and `env`).
const MAX_DEPTH: usize = 6;

/// How many symlinks one path may lead through.
const MAX_HOPS: usize = 40;

/// What the tool's process will see when it starts.
pub(super) struct Context<'a> {
    /// The tool's whole environment (its PATH, HOME, passthrough).
    pub env: &'a [(OsString, OsString)],
    /// The environment names the tool passes through (the cache's key).
    pub passthrough: &'a [String],
    /// The tool's working directory (its manifest's directory).
    pub cwd: &'a Path,
    /// The user's home directory.
    pub home: &'a Path,
    /// Directories the tool's author controls: its manifest's, its
    /// writable ones. An interpreter found there is not asked anything.
    pub untrusted: &'a [PathBuf],
    /// What a Python interpreter describing itself may read beside its
    /// installation (`--allow-read`).
    pub allowed: &'a [PathBuf],
    pub support: Support,
    /// Whether the runner's tools get namespaces: then the question to a
    /// Python interpreter is asked inside them too, so that an
    /// interpreter that is not what it seems sees no other process.
    pub namespaces: bool,
    pub cache: &'a Cache,
    /// The call's time limit and cancellation, which bound the question
    /// to a Python interpreter too.
    pub timeout: Duration,
    pub cancel: Option<&'a CancelToken>,
}

/// The interpreters a program runs through and what they read.
#[derive(Debug, Default)]
pub(super) struct Resolution {
    /// What runs, as it is run: the program when it lies outside the
    /// tool's directory (a `python3` from PATH), then each interpreter
    /// (`env` included), outermost first.
    pub interpreters: Vec<PathBuf>,
    /// What the sandbox must let the process read.
    pub read: Vec<PathBuf>,
    /// Why a Python interpreter could not say what it reads.
    pub undescribed: Vec<String>,
}

impl Resolution {
    fn add(&mut self, path: PathBuf) {
        if !self.read.contains(&path) {
            self.read.push(path);
        }
    }

    /// Adds `file`, every file its symlinks lead to and their
    /// installations; the chain of files.
    fn add_file(&mut self, file: &Path, home: &Path) -> Vec<PathBuf> {
        let chain = hops(file);
        for hop in &chain {
            self.add(hop.clone());
            if let Some(prefix) = installation(hop, home) {
                self.add(prefix);
            }
        }
        chain
    }

    /// Leaves out what another entry already covers.
    fn compact(&mut self) {
        let all = self.read.clone();
        self.read.retain(|path| {
            !all.iter()
                .any(|other| other != path && path.starts_with(other))
        });
    }

    /// The interpreters a message names: all but `env`.
    pub fn named(&self) -> Vec<&Path> {
        self.interpreters
            .iter()
            .filter(|p| p.file_name() != Some(OsStr::new("env")))
            .map(PathBuf::as_path)
            .collect()
    }
}

/// Everything `program`, run with `args`, runs through and what it needs
/// readable.
pub(super) fn resolve(program: &Path, args: &[String], context: &Context) -> Resolution {
    let mut resolution = Resolution::default();
    let mut current = program.to_path_buf();
    // What `current` is given: the tool's argv for the program, the one
    // `#!` argument for an interpreter. They matter when it is `env`.
    let mut words: Vec<OsString> = args.iter().map(OsString::from).collect();
    let path = context
        .env
        .iter()
        .find(|(name, _)| name == "PATH")
        .map(|(_, value)| value.clone());
    for depth in 0..MAX_DEPTH {
        if depth > 0 || !beneath(&current, context.cwd) {
            resolution.interpreters.push(current.clone());
        }
        let chain = resolution.add_file(&current, context.home);
        if chain.iter().any(|hop| is_python(hop)) {
            describe(&current, &chain, context, &mut resolution);
        }
        if is_system_env(&current) {
            // `env` runs the command its words name.
            let words = std::mem::take(&mut words);
            match lookup::env_command(words, path.clone(), context.cwd) {
                Some(next) => current = next,
                None => break,
            }
            continue;
        }
        let Some((interpreter, argument)) = shebang(&current) else {
            break;
        };
        current = context.cwd.join(interpreter);
        // The kernel runs only an executable interpreter: nothing runs,
        // nothing is added, past one that is not.
        if !lookup::is_executable(&current) {
            break;
        }
        words = argument.into_iter().collect();
    }
    resolution.compact();
    resolution
}

/// Whether `program` is the system's `env` (`/usr/bin/env`, or
/// `/bin/env` on a system whose `/bin` is its own), by its real path: a
/// file of the tool's that is merely named `env` is run as what it is,
/// not read as `env`'s words.
fn is_system_env(program: &Path) -> bool {
    if program.file_name() != Some(OsStr::new("env")) {
        return false;
    }
    std::fs::canonicalize(program)
        .is_ok_and(|real| real == Path::new("/usr/bin/env") || real == Path::new("/bin/env"))
}

/// Whether `path` lies in `dir`, both taken as they really are.
fn beneath(path: &Path, dir: &Path) -> bool {
    match (std::fs::canonicalize(path), std::fs::canonicalize(dir)) {
        (Ok(path), Ok(dir)) => path.starts_with(dir),
        _ => false,
    }
}

/// `path` and every file its symlinks lead to, in order.
fn hops(path: &Path) -> Vec<PathBuf> {
    let mut out = vec![path.to_path_buf()];
    let mut current = path.to_path_buf();
    for _ in 0..MAX_HOPS {
        let Ok(target) = std::fs::read_link(&current) else {
            break;
        };
        let next = match current.parent() {
            Some(dir) => dir.join(target),
            None => target,
        };
        out.push(next.clone());
        current = next;
    }
    out
}

/// The directories directly in a home that hold installations and
/// nothing else (version managers, conda), so that their interpreters'
/// prefixes may be opened whole; any other directory directly in a home
/// (`~/.local`, `~/.cargo`, `~/.config`) also holds data or credentials.
const HOME_INSTALLATIONS: &[&str] = &[
    // `~/bin`: programs only, the user's own.
    "bin",
    ".pyenv",
    ".rbenv",
    ".nodenv",
    ".nvm",
    ".volta",
    ".asdf",
    ".linuxbrew",
    ".bun",
    ".deno",
    "miniconda3",
    "anaconda3",
    "miniforge3",
    "mambaforge",
];

/// Whether the sandbox must never open `dir` as a whole: the root or a
/// directory directly in it (`/usr`, `/etc`, `/tmp`, `/opt`, `/home`…),
/// a home (`/root`, a directory of `/home`, `home`) or a directory above
/// it, a directory directly in a home that is not an installation of
/// [`HOME_INSTALLATIONS`], and another call's scratch directory.
fn too_wide(dir: &Path, home: &Path) -> bool {
    let depth = dir
        .components()
        .filter(|c| matches!(c, std::path::Component::Normal(_)))
        .count();
    let is_home =
        |d: &Path| d == Path::new("/root") || d.parent() == Some(Path::new("/home")) || d == home;
    let in_a_home = dir.parent().is_some_and(is_home)
        && !dir
            .file_name()
            .is_some_and(|name| HOME_INSTALLATIONS.iter().any(|known| name == *known));
    let scratch = dir
        .file_name()
        .is_some_and(|name| name.as_bytes().starts_with(b"toolc-run-"));
    depth <= 1 || is_home(dir) || home.starts_with(dir) || in_a_home || scratch
}

/// The installation prefix of the file `file` (see the module docs), in
/// its real form; `None` when the file does not exist.
fn installation(file: &Path, home: &Path) -> Option<PathBuf> {
    let real = std::fs::canonicalize(file).ok()?;
    let dir = std::fs::canonicalize(file.parent()?).ok()?;
    let installed = ["bin", "sbin", "shims"]
        .iter()
        .any(|name| dir.file_name() == Some(OsStr::new(name)));
    let prefix = match dir.parent() {
        Some(parent) if installed => parent.to_path_buf(),
        _ => dir.clone(),
    };
    Some(if !too_wide(&prefix, home) {
        prefix
    } else if !too_wide(&dir, home) {
        dir
    } else {
        real
    })
}

/// The `#!` line of `file` as the kernel reads it: the interpreter and
/// its one optional argument. `None` for a file without one.
fn shebang(file: &Path) -> Option<(PathBuf, Option<OsString>)> {
    let mut head = Vec::with_capacity(SHEBANG_LIMIT);
    std::fs::File::open(file)
        .ok()?
        .take(SHEBANG_LIMIT as u64)
        .read_to_end(&mut head)
        .ok()?;
    let line = head.strip_prefix(b"#!")?;
    let line = match line.iter().position(|&b| b == b'\n' || b == 0) {
        Some(end) => &line[..end],
        None => line,
    };
    let blank = |b: &u8| *b == b' ' || *b == b'\t';
    let start = line.iter().position(|b| !blank(b))?;
    let line = &line[start..];
    let end = line.iter().position(blank).unwrap_or(line.len());
    let (interpreter, rest) = line.split_at(end);
    // The kernel trims blanks only: a carriage return stays.
    let start = rest.iter().position(|b| !blank(b)).unwrap_or(rest.len());
    let end = rest
        .iter()
        .rposition(|b| !blank(b))
        .map_or(start, |at| at + 1);
    let rest = &rest[start..end.max(start)];
    let argument = (!rest.is_empty()).then(|| OsStr::from_bytes(rest).to_os_string());
    Some((PathBuf::from(OsStr::from_bytes(interpreter)), argument))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(text: &str) -> OsString {
        OsString::from(text)
    }

    /// A fresh directory under the system's temporary directory.
    pub(super) fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "toolc-interp-{name}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// A context with nothing asked of the sandbox: no untrusted
    /// directory, no Landlock, no namespaces.
    pub(super) fn test_context<'a>(
        env: &'a [(OsString, OsString)],
        cwd: &'a Path,
        home: &'a Path,
        cache: &'a Cache,
    ) -> Context<'a> {
        Context {
            env,
            passthrough: &[],
            cwd,
            home,
            untrusted: &[],
            allowed: &[],
            support: Support::Unavailable,
            namespaces: false,
            cache,
            timeout: Duration::from_secs(5),
            cancel: None,
        }
    }

    /// Writes `text` to `path` with its directories, executable.
    pub(super) fn write_executable(path: &Path, text: &str) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn the_shebang_line_is_read_as_the_kernel_reads_it() {
        let dir = scratch("shebang");
        type Expected<'a> = Option<(&'a str, Option<&'a str>)>;
        let cases: &[(&str, Expected)] = &[
            ("#!/bin/sh\necho", Some(("/bin/sh", None))),
            (
                "#! /usr/bin/env  python3 \n",
                Some(("/usr/bin/env", Some("python3"))),
            ),
            (
                "#!/usr/bin/env -S python3 -u\n",
                Some(("/usr/bin/env", Some("-S python3 -u"))),
            ),
            (
                "#!\t/opt/x/bin/node\t--flag  two \n",
                Some(("/opt/x/bin/node", Some("--flag  two"))),
            ),
            ("#!/bin/sh\r\n", Some(("/bin/sh\r", None))),
            ("#!\n", None),
            ("\x7fELF binary", None),
            ("", None),
        ];
        for (text, expected) in cases {
            let file = dir.join("script");
            std::fs::write(&file, text).unwrap();
            let got = shebang(&file);
            let expected = expected.map(|(i, a)| (PathBuf::from(i), a.map(os)));
            assert_eq!(got, expected, "{text:?}");
        }
        // Only the first 256 bytes count: a longer line is cut there.
        let long = format!("#!/bin/sh {}", "a".repeat(400));
        std::fs::write(dir.join("long"), &long).unwrap();
        let (_, argument) = shebang(&dir.join("long")).unwrap();
        assert_eq!(argument.unwrap().len(), SHEBANG_LIMIT - "#!/bin/sh ".len());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_installation_is_the_prefix_but_never_a_home_or_the_root() {
        let dir = scratch("prefix");
        let home = Path::new("/nonexistent-home");
        write_executable(&dir.join("inst/bin/tool"), "#!/bin/sh\n");
        write_executable(&dir.join("pyenv/shims/tool"), "#!/bin/sh\n");
        write_executable(&dir.join("loose/tool"), "#!/bin/sh\n");
        let real = std::fs::canonicalize(&dir).unwrap();
        assert_eq!(
            installation(&dir.join("inst/bin/tool"), home),
            Some(real.join("inst"))
        );
        assert_eq!(
            installation(&dir.join("pyenv/shims/tool"), home),
            Some(real.join("pyenv"))
        );
        assert_eq!(
            installation(&dir.join("loose/tool"), home),
            Some(real.join("loose"))
        );
        // A symlinked bin/ is judged by where it really is.
        std::os::unix::fs::symlink(real.join("inst/bin"), real.join("loose/bin")).unwrap();
        assert_eq!(
            installation(&dir.join("loose/bin/tool"), home),
            Some(real.join("inst"))
        );
        // The prefix is the home: only bin/ is added.
        assert_eq!(
            installation(&dir.join("inst/bin/tool"), &real.join("inst")),
            Some(real.join("inst/bin"))
        );
        // Home is the bin's own directory too: only the file.
        assert_eq!(
            installation(&dir.join("loose/tool"), &real.join("loose")),
            Some(real.join("loose/tool"))
        );
        assert_eq!(
            installation(Path::new("/usr/bin/env"), home),
            Some(PathBuf::from("/usr/bin"))
        );
        assert_eq!(installation(&dir.join("missing/bin/x"), home), None);
        for wide in ["/", "/usr", "/root", "/home/alice"] {
            assert!(too_wide(Path::new(wide), home), "{wide}");
        }
        assert!(too_wide(Path::new("/home"), Path::new("/home/alice")));
        assert!(!too_wide(Path::new("/home/linuxbrew/.linuxbrew"), home));
        assert!(!too_wide(Path::new("/root/.pyenv"), Path::new("/root")));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_interpreter_in_the_tools_own_directories_is_not_asked() {
        let dir = scratch("authored");
        let real = std::fs::canonicalize(&dir).unwrap();
        write_executable(&real.join("tool/bin/python3"), "#!/bin/sh\necho '{}'\n");
        let env = vec![];
        let cache = Cache::default();
        let untrusted = [real.join("tool")];
        let context = Context {
            untrusted: &untrusted,
            support: Support::Landlock(6),
            ..test_context(&env, &real, Path::new("/nonexistent-home"), &cache)
        };
        let resolution = resolve(&real.join("tool/bin/python3"), &[], &context);
        assert!(
            resolution.undescribed.is_empty(),
            "{:?}",
            resolution.undescribed
        );
        assert_eq!(cache.answered(), 0);
        // Its installation (the tool's own directory) and its /bin/sh.
        assert_eq!(resolution.read[0], real.join("tool"));
        assert!(resolution.read[1..].iter().all(|p| !p.starts_with(&real)));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_that_is_no_executable_interpreter_opens_nothing() {
        let dir = scratch("notexec");
        let real = std::fs::canonicalize(&dir).unwrap();
        std::fs::create_dir_all(real.join("secret")).unwrap();
        std::fs::write(real.join("secret/notes"), "#!/bin/sh\n").unwrap();
        let script = format!("#!{}\n", real.join("secret/notes").display());
        write_executable(&real.join("tool/run"), &script);
        let env = vec![];
        let cache = Cache::default();
        let tool = real.join("tool");
        let context = test_context(&env, &tool, Path::new("/nonexistent-home"), &cache);
        let resolution = resolve(&real.join("tool/run"), &[], &context);
        assert_eq!(resolution.read, vec![real.join("tool")]);
        assert!(resolution.interpreters.is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn symlinks_are_followed_hop_by_hop_and_nested_interpreters_resolved() {
        let dir = scratch("chain");
        let real = std::fs::canonicalize(&dir).unwrap();
        // tool -> env interp; interp is a script run by /bin/sh; a link
        // in between leads to the real installation.
        write_executable(&real.join("inst/bin/interp"), "#!/bin/sh\n");
        std::fs::create_dir_all(real.join("links/bin")).unwrap();
        std::os::unix::fs::symlink("../../inst/bin/interp", real.join("links/bin/interp")).unwrap();
        write_executable(&real.join("tool/run"), "#!/usr/bin/env interp\n");
        let env = vec![(os("PATH"), real.join("links/bin").into_os_string())];
        let cache = Cache::default();
        let tool = real.join("tool");
        let context = test_context(&env, &tool, Path::new("/nonexistent-home"), &cache);
        let resolution = resolve(&real.join("tool/run"), &[], &context);
        let named: Vec<String> = resolution
            .named()
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        assert_eq!(
            named[0],
            real.join("links/bin/interp").display().to_string()
        );
        assert!(named[1].ends_with("/sh"), "{named:?}");
        for wanted in [real.join("links"), real.join("inst"), real.join("tool")] {
            assert!(
                resolution.read.contains(&wanted),
                "{wanted:?} not in {:?}",
                resolution.read
            );
        }
        assert!(
            !resolution.read.iter().any(|p| p == &real),
            "{:?}",
            resolution.read
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn whole_homes_system_directories_and_scratch_are_too_wide() {
        let home = Path::new("/home/ada");
        for dir in [
            "/",
            "/etc",
            "/tmp",
            "/opt",
            "/usr",
            "/var",
            "/root",
            "/home",
            "/home/ada",
            "/home/bob",
            "/home/ada/.local",
            "/home/ada/.cargo",
            "/home/ada/.config",
            "/root/.ssh",
            "/tmp/toolc-run-41-0-0000abcd",
        ] {
            assert!(too_wide(Path::new(dir), home), "{dir} is not too wide");
        }
        for dir in [
            "/home/ada/.pyenv",
            "/home/ada/.nvm/versions/node/v20",
            "/home/ada/.local/pipx/venvs/black",
            "/root/miniconda3",
            "/opt/homebrew",
            "/home/linuxbrew/.linuxbrew",
            "/usr/local",
            "/tmp/build/venv",
        ] {
            assert!(!too_wide(Path::new(dir), home), "{dir} is too wide");
        }
    }
}
