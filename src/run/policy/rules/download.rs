//! A file downloaded and then run by the same command line: `curl URL -o
//! a.sh && sh a.sh`, `wget -O x URL; bash x`, `curl … > f; chmod +x f;
//! ./f`, `… | tee f && . f`, `python3 -c "exec(open('a.py').read())"`
//! after downloading `a.py`. It is `curl … | sh` written in two steps, and
//! refused as `remote-script` too.
//!
//! The commands are read in order: a downloader (`curl`, `wget` …, see
//! `programs::DOWNLOADERS`) notes the files it writes (`-o`, `-O`, the
//! URL's file name, a `>` redirection, a `tee` fed by it); a later command
//! that runs one of them (as the program, as the script of a shell or an
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
        self.downloaded.iter().any(|d| d.resolved == path)
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
        let shell = SHELLS.contains(&name.as_str()) || interpreter(&name).is_some();
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
        if DOWNLOADERS.contains(&name.as_str()) {
            written.extend(output_files(&name, args));
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
        }
        written
            .into_iter()
            .filter(|w| w != "-" && !w.is_empty())
            .map(|written| Downloaded {
                resolved: self.resolved(&written),
                written,
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

/// The last segment of a URL's path (query and fragment left out).
fn url_file_name(url: &str) -> Option<&str> {
    let (_, rest) = url.split_once("://")?;
    let path = rest.split(['?', '#']).next()?;
    let (_, path) = path.split_once('/')?;
    path.rsplit('/').next().filter(|name| !name.is_empty())
}
