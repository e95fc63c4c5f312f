//! How a fuzz input becomes files on disk: a manifest under the name its
//! selector picks, and the code beside it; and running the command line on
//! them.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

use super::{Checked, Violation};
use crate::formats::{agentcli, agentstack, nachos, nora};
use crate::ir::Format;
use crate::lint::{LintOptions, Target};
use crate::project::{LoadOptions, Project};

/// Where the code beside a manifest goes.
#[derive(Debug, Clone, Copy)]
enum Code {
    None,
    /// The script the manifest's `entrypoint` names (NORA).
    Entrypoint,
    At(&'static str),
}

/// How an input's manifest is written: its file name, the format that
/// name implies (forced when `forced`), and where its code goes.
#[derive(Debug)]
pub(super) struct Kind {
    file: &'static str,
    format: Option<Format>,
    forced: bool,
    code: Code,
}

const KINDS: [Kind; 8] = [
    Kind::named(nora::FILE_NAME, Format::Nora, Code::Entrypoint),
    Kind::named(agentcli::FILE_NAME, Format::Agentcli, Code::None),
    Kind::named(
        agentstack::FILE_NAME,
        Format::Agentstack,
        Code::At(agentstack::MODULE_FILE),
    ),
    Kind::named(nachos::FILE_NAME, Format::Nachos, Code::At("src/tool.ts")),
    Kind::forced("openai.json", Format::Openai),
    Kind::forced("anthropic.json", Format::Anthropic),
    Kind::forced("mcp.json", Format::Mcp),
    // A name that says nothing: the content decides.
    Kind {
        file: "document.json",
        format: None,
        forced: false,
        code: Code::None,
    },
];

impl Kind {
    const fn named(file: &'static str, format: Format, code: Code) -> Kind {
        Kind {
            file,
            format: Some(format),
            forced: false,
            code,
        }
    }

    const fn forced(file: &'static str, format: Format) -> Kind {
        Kind {
            file,
            format: Some(format),
            forced: true,
            code: Code::None,
        }
    }

    pub(super) fn of(selector: u8) -> &'static Kind {
        &KINDS[usize::from(selector & 7)]
    }

    /// The format a run is told to use (`--input-format`), if any.
    pub(super) fn input_format(&self, force: bool) -> Option<Format> {
        self.format.filter(|_| self.forced || force)
    }
}

/// The bytes before the first NUL, and those after it.
pub(super) fn split_at_nul(data: &[u8]) -> (&[u8], Option<&[u8]>) {
    match data.iter().position(|b| *b == 0) {
        Some(at) => (&data[..at], Some(&data[at + 1..])),
        None => (data, None),
    }
}

/// One input laid out in a fresh directory: the manifest and its code.
/// The directory goes when the case does.
pub(super) struct Case {
    pub(super) dir: PathBuf,
    pub(super) manifest: PathBuf,
    pub(super) bytes: Vec<u8>,
    code: Option<(PathBuf, Vec<u8>)>,
}

impl Case {
    pub(super) fn write(kind: &Kind, data: &[u8]) -> Result<Case, Violation> {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "toolc-fuzz-{}-{}",
            std::process::id(),
            COUNT.fetch_add(1, Ordering::Relaxed)
        ));
        let (manifest, code) = split_at_nul(data);
        let mut case = Case {
            manifest: dir.join(kind.file),
            dir,
            bytes: manifest.to_vec(),
            code: None,
        };
        let _ = std::fs::remove_dir_all(&case.dir);
        let relative = match kind.code {
            Code::None => None,
            Code::At(relative) => Some(relative.to_string()),
            Code::Entrypoint => Some(entrypoint(manifest)),
        };
        write_file(&case.manifest, manifest)?;
        if let (Some(relative), Some(code)) = (relative, code) {
            let path = case.dir.join(relative);
            write_file(&path, code)?;
            case.code = Some((path, code.to_vec()));
        }
        Ok(case)
    }

    pub(super) fn path(&self) -> String {
        self.manifest.to_string_lossy().into_owned()
    }

    pub(super) fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }

    /// The text a finding in `path` points into, when it is one of the
    /// case's files and UTF-8 (after a byte order mark).
    pub(super) fn text_of(&self, path: &str) -> Option<&str> {
        let bytes = if Path::new(path) == self.manifest {
            &self.bytes
        } else {
            let (code, bytes) = self.code.as_ref()?;
            (Path::new(path) == code).then_some(bytes)?
        };
        let text = std::str::from_utf8(bytes).ok()?;
        Some(text.strip_prefix('\u{feff}').unwrap_or(text))
    }
}

impl Drop for Case {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

pub(super) fn write_file(path: &Path, bytes: &[u8]) -> Checked {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// Where a NORA manifest's entrypoint is, when it names a plain relative
/// path; else `main.py`.
fn entrypoint(manifest: &[u8]) -> String {
    let named = serde_json::from_slice::<Value>(manifest)
        .ok()
        .and_then(|v| v.get("entrypoint")?.as_str().map(str::to_string));
    named
        .filter(|name| {
            !name.is_empty()
                && name.len() < 100
                && !name.starts_with('/')
                && name
                    .split('/')
                    .all(|part| !part.is_empty() && part != "." && part != "..")
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"._-/".contains(&b))
        })
        .unwrap_or_else(|| "main.py".to_string())
}

pub(super) fn lint_options(input_format: Option<Format>, all_targets: bool) -> LintOptions {
    let mut options = LintOptions {
        input_format,
        ..LintOptions::default()
    };
    if all_targets {
        options.command_line.targets = Target::ALL.to_vec();
    }
    options
}

/// How many tools the manifest of `case` declares, loaded as a run would
/// (a file that is not UTF-8 declares none).
pub(super) fn tools_in(case: &Case, input_format: Option<Format>) -> usize {
    if std::str::from_utf8(&case.bytes).is_err() {
        return 0;
    }
    let options = LoadOptions {
        input_format,
        ..LoadOptions::default()
    };
    let project = Project::from_documents([(case.path(), case.text())], &options);
    project.toolsets().map(|set| set.tools.len()).sum()
}

/// Runs `toolc ARGS`: the exit code, standard output and standard error.
pub(super) fn toolc(args: &[String]) -> (u8, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let all = std::iter::once("toolc".to_string()).chain(args.iter().cloned());
    let code = crate::command_line(all, &mut out, &mut err);
    let text =
        |bytes: Vec<u8>| String::from_utf8(bytes).unwrap_or_else(|e| format!("(not UTF-8: {e})"));
    (code, text(out), text(err))
}

pub(super) fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

pub(super) const RENDERERS: [&str; 7] = [
    "human", "brief", "concise", "json", "sarif", "github", "junit",
];
