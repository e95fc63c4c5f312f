//! A file downloaded and then run by the same command line: `curl URL -o
//! a.sh && sh a.sh`, `wget -O x URL; bash x`, `curl … > f; chmod +x f;
//! ./f`, `… | tee f && . f`, `python3 -c "exec(open('a.py').read())"`
//! after downloading `a.py`. It is `curl … | sh` written in two steps, and
//! refused as `remote-script` too.
//!
//! The commands are read in order: a downloader (`curl`, `wget` …, see
//! `programs::DOWNLOADERS`) notes the files it writes (`-o`, `-O`, the
//! URL's file name, a `>` redirection, a `tee` fed by it); a later command
//! that runs one of them (or a file under a directory wget downloads into
//! with `-P`, or one a downloaded archive is unpacked into by `tar` or
//! `unzip`, as `curl -o a.tgz … && tar xzf a.tgz && ./install.sh`) (as the program, as the script of a shell or an
//! interpreter, by `source`, read from it on standard input, or named in
//! inline code that executes) is refused. Reading the file (`cat a.sh`,
//! `jq . data.json`) is not running it.

use super::{Judge, Kind, REMOTE};
use crate::run::policy::paths::resolve;
use crate::run::policy::programs::{
    DOWNLOADERS, Program, SHELLS, downloads, interpreter, is_short_flags, operands, program,
    value_of,
};
use crate::run::policy::shell::{Command, Input, Script, Word};

/// Words in inline code that run what they are given (a file's text, a
/// module path): with a downloaded file's name beside them, the code runs
/// the download.
const EXECUTING: &[&str] = &[
    "exec",
    "eval",
    "run_path",
    "runpy",
    "require",
    "import_module",
    "__import__",
    "execfile",
    "system",
    "spawn",
    "source",
    "do ",
];

/// A file a downloader wrote: as resolved and as written.
#[derive(Debug, Clone)]
pub(super) struct Downloaded {
    resolved: String,
    written: String,
    /// A directory: everything under it came from the download.
    tree: bool,
}

impl Downloaded {
    fn holds(&self, path: &str) -> bool {
        if self.resolved == path {
            return true;
        }
        self.tree
            && path
                .strip_prefix(self.resolved.trim_end_matches('/'))
                .is_some_and(|rest| rest.starts_with('/'))
    }
}

impl Judge<'_> {
    /// Refuses `command` when it runs a file downloaded earlier, then
    /// notes what it downloads.
    pub(super) fn downloads_run(&mut self, script: &Script, command: &Command) {
        if !self.downloaded.is_empty() && self.runs_downloaded(command) {
            self.push(Kind::Remote, REMOTE);
        }
        let files = self.written_by_download(script, command);
        self.downloaded.extend(files);
    }

    /// The path `value` names, as the commands so far leave the working
    /// directory.
    fn resolved(&self, value: &str) -> String {
        resolve(value, self.places.here(), self.places.home)
    }

    fn is_downloaded(&self, word: &Word) -> bool {
        let Some(value) = word.value.as_deref() else {
            return false;
        };
        let path = self.resolved(value);
        self.downloaded.iter().any(|d| d.holds(&path))
    }

    fn runs_downloaded(&self, command: &Command) -> bool {
        let words = &command.words;
        let Program::Runs { name, args, .. } = program(words) else {
            return false;
        };
        // The program itself: `./f`, `/tmp/f` (a bare name is looked up
        // in PATH, not here).
        let at = words.len().saturating_sub(args.len() + 1);
        if let Some(word) = words.get(at)
            && value_of(word).contains('/')
            && self.is_downloaded(word)
        {
            return true;
        }
        // `sh -n a.sh`, `bash -o noexec a.sh`: a syntax check runs nothing.
        if SHELLS.contains(&name.as_str()) && no_exec(args) {
            return false;
        }
        let shell = SHELLS.contains(&name.as_str()) || interpreter(&name).is_some();
        // `xargs -a a.sh -I{} sh -c {}`: the downloaded lines become the
        // shell's code.
        if shell && self.xargs_reads_downloaded(&words[..at]) {
            return true;
        }
        if (matches!(name.as_str(), "source" | ".") || shell)
            && operands(args).next().is_some_and(|w| self.is_downloaded(w))
        {
            return true;
        }
        if !shell {
            return false;
        }
        let from_file = command
            .redirects
            .iter()
            .any(|r| r.operator.starts_with('<') && self.is_downloaded(&r.target));
        from_file || args.iter().any(|w| self.code_runs_downloaded(value_of(w)))
    }

    /// `xargs`' `-a F`, `-aF`, `--arg-file=F` or `--arg-file F` among the
    /// wrapper words before a program names a downloaded file.
    fn xargs_reads_downloaded(&self, wrappers: &[Word]) -> bool {
        let mut words = wrappers.iter();
        let mut xargs = false;
        while let Some(word) = words.next() {
            let value = value_of(word);
            if !value.starts_with('-') {
                xargs = value.rsplit('/').next() == Some("xargs");
                continue;
            }
            if !xargs {
                continue;
            }
            let file = match value {
                "-a" | "--arg-file" => words.next().and_then(|w| w.value.clone()),
                _ => value
                    .strip_prefix("--arg-file=")
                    .or_else(|| value.strip_prefix("-a").filter(|f| !f.is_empty()))
                    .map(str::to_string),
            };
            if let Some(file) = file
                && self.is_downloaded(&Word::literal(&file))
            {
                return true;
            }
        }
        false
    }

    /// Inline code (`-c`, `-e` …) that names a downloaded file and runs
    /// something.
    fn code_runs_downloaded(&self, code: &str) -> bool {
        let names = self.downloaded.iter().any(|d| {
            let name = d.written.rsplit('/').next().unwrap_or(&d.written);
            !name.is_empty() && code.contains(name)
        });
        names && code.contains(['(', ' ']) && EXECUTING.iter().any(|w| code.contains(w))
    }

    /// The files `command` writes with what it downloads.
    fn written_by_download(&self, script: &Script, command: &Command) -> Vec<Downloaded> {
        let Program::Runs { name, args, .. } = program(&command.words) else {
            return Vec::new();
        };
        let mut written: Vec<String> = Vec::new();
        let mut trees: Vec<String> = Vec::new();
        if DOWNLOADERS.contains(&name.as_str()) {
            written.extend(output_files(&name, args));
            if name == "wget" {
                trees.extend(directory_prefix(args));
            }
            written.extend(
                command
                    .redirects
                    .iter()
                    .filter(|r| r.operator.contains('>') && !r.operator.contains('&'))
                    .filter_map(|r| r.target.value.clone()),
            );
        } else if name == "tee" {
            let fed = command
                .inputs
                .iter()
                .any(|i| matches!(i, Input::Pipe(upstream) if downloads(script, upstream)));
            if fed {
                written.extend(operands(args).filter_map(|w| w.value.clone()));
            }
        } else if let Some(into) = unpacks_into(&name, args) {
            let piped = command
                .inputs
                .iter()
                .any(|i| matches!(i, Input::Pipe(upstream) if downloads(script, upstream)));
            if piped || args.iter().any(|w| self.is_downloaded(w)) {
                trees.push(into);
            }
        }
        let files = written.into_iter().map(|w| (w, false));
        files
            .chain(trees.into_iter().map(|w| (w, true)))
            .filter(|(w, _)| w != "-" && !w.is_empty())
            .map(|(written, tree)| Downloaded {
                resolved: self.resolved(&written),
                written,
                tree,
            })
            .collect()
    }
}

/// The files a downloader's options name: `-o F`, `-oF`, `--output F`,
/// `--output=F` (curl), `-O F`, `--output-document=F` (wget), and the
/// URL's own file name for curl's `-O` and for wget without `-O`.
fn output_files(name: &str, args: &[Word]) -> Vec<String> {
    let (short, long, remote_short) = match name {
        "curl" => ('o', "--output", Some('O')),
        "wget" => ('O', "--output-document", None),
        _ => ('o', "--output", None),
    };
    let mut files = Vec::new();
    let mut remote = false;
    let mut named = false;
    let mut words = args.iter().map(value_of);
    while let Some(arg) = words.next() {
        if let Some(value) = arg.strip_prefix(long) {
            named = true;
            match value.strip_prefix('=') {
                Some(file) => files.push(file.to_string()),
                None if value.is_empty() => files.extend(words.next().map(str::to_string)),
                None => {}
            }
        } else if arg == "--remote-name" || arg == "--remote-name-all" {
            remote = true;
        } else if is_short_flags(arg) {
            let cluster = &arg[1..];
            if let Some(at) = cluster.find(short) {
                named = true;
                let rest = &cluster[at + 1..];
                if rest.is_empty() {
                    files.extend(words.next().map(str::to_string));
                } else {
                    files.push(rest.to_string());
                }
            } else if remote_short.is_some_and(|flag| cluster.contains(flag)) {
                remote = true;
            }
        }
    }
    if remote || (name == "wget" && !named) {
        let urls = operands(args).filter_map(|w| w.value.as_deref());
        files.extend(
            urls.filter(|u| u.contains("://"))
                .filter_map(url_file_name)
                .map(str::to_string),
        );
    }
    files
}

/// A shell's options, before its script or `-c`'s string, ask it only to
/// read the commands (`-n`, `-en`, `-o noexec`), not to run them.
fn no_exec(args: &[Word]) -> bool {
    let mut words = args.iter().map(value_of);
    while let Some(arg) = words.next() {
        if arg == "-o" {
            if words.next() == Some("noexec") {
                return true;
            }
        } else if is_short_flags(arg) {
            if arg.contains('n') {
                return true;
            }
        } else if !arg.starts_with("--") || arg == "--" {
            return false;
        }
    }
    false
}

/// wget's `-P DIR`, `-PDIR`, `--directory-prefix=DIR`: where it saves.
fn directory_prefix(args: &[Word]) -> Option<String> {
    let mut words = args.iter().map(value_of);
    let mut prefix = None;
    while let Some(arg) = words.next() {
        if arg == "-P" || arg == "--directory-prefix" {
            prefix = words.next().map(str::to_string);
        } else if let Some(dir) = arg.strip_prefix("--directory-prefix=") {
            prefix = Some(dir.to_string());
        } else if let Some(dir) = arg.strip_prefix("-P").filter(|d| !d.is_empty()) {
            prefix = Some(dir.to_string());
        }
    }
    prefix
}

/// The directory `tar x…` (`-C`, `--directory`) or `unzip` (`-d`)
/// unpacks into, the working directory by default; `None` when the
/// command does not unpack.
fn unpacks_into(name: &str, args: &[Word]) -> Option<String> {
    let values: Vec<&str> = args.iter().map(value_of).collect();
    let (extracts, option) = match name {
        "tar" | "bsdtar" | "gtar" => {
            // `tar xzf a.tgz`: the first word's letters are options.
            let first = values.first().is_some_and(|a| {
                !a.starts_with('-') && a.contains('x') && a.chars().all(char::is_alphanumeric)
            });
            let flagged = values.iter().any(|a| {
                (is_short_flags(a) && a.contains('x')) || *a == "--extract" || *a == "--get"
            });
            (first || flagged, "-C")
        }
        "unzip" => (true, "-d"),
        _ => return None,
    };
    if !extracts {
        return None;
    }
    let mut into = ".".to_string();
    let mut words = values.iter();
    while let Some(arg) = words.next() {
        if *arg == option || *arg == "--directory" {
            into = words.next().map_or(into, |d| d.to_string());
        } else if let Some(dir) = arg.strip_prefix("--directory=") {
            into = dir.to_string();
        }
    }
    Some(into)
}

/// The last segment of a URL's path (query and fragment left out).
fn url_file_name(url: &str) -> Option<&str> {
    let (_, rest) = url.split_once("://")?;
    let path = rest.split(['?', '#']).next()?;
    let (_, path) = path.split_once('/')?;
    path.rsplit('/').next().filter(|name| !name.is_empty())
}
