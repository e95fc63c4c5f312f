//! Asking a Python interpreter what it reads (`sys.prefix`,
//! `sys.base_prefix`, `sys.path`…), once per interpreter and runner, and
//! checking its answer before the sandbox opens anything on its word (see
//! the parent module's docs).

use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use super::super::{died, quote};
use super::{Context, Resolution, installation, too_wide};
use crate::run::process::{self, Outcome, Spawn};
use crate::run::sandbox::{Confinement, Rules};

/// How long a Python interpreter may take to describe itself.
const DESCRIBE_TIMEOUT: Duration = Duration::from_secs(20);

/// What Python says it reads.
const DESCRIBE: &str = "import json, sys, site\n\
print(json.dumps({\n\
 'prefixes': [sys.prefix, getattr(sys, 'base_prefix', sys.prefix), sys.exec_prefix,\n\
              getattr(sys, 'base_exec_prefix', sys.exec_prefix)],\n\
 'executable': sys.executable,\n\
 'path': sys.path,\n\
 'user_site': site.getusersitepackages()}))\n";

/// The Python descriptions of one runner: by interpreter path and the
/// environment names the tool passes through.
#[derive(Debug, Default)]
pub(in crate::run) struct Cache {
    described: Mutex<HashMap<CacheKey, Described>>,
}

impl Cache {
    /// How many interpreters have answered.
    #[cfg(test)]
    pub(super) fn answered(&self) -> usize {
        self.described
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

/// An interpreter as it is run, and the names the tool passes through.
type CacheKey = (PathBuf, Vec<String>);

/// What an interpreter reads, or why it could not say.
type Described = Result<Vec<PathBuf>, String>;

/// Whether `path` names a Python interpreter: `python`, then only digits
/// and dots.
pub(super) fn is_python(path: &Path) -> bool {
    path.file_name()
        .and_then(OsStr::to_str)
        .and_then(|name| name.strip_prefix("python"))
        .is_some_and(|rest| rest.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

/// Adds what the Python interpreter run as `python` (whose symlink hops
/// are `hops`) reads, asking it once per runner.
pub(super) fn describe(
    python: &Path,
    hops: &[PathBuf],
    context: &Context,
    resolution: &mut Resolution,
) {
    // A hop in the tool's own directories (a venv shipped with the tool,
    // a symlink beside it) would let its author answer: the generic
    // installations of the hops cover such a venv and its base.
    let untrusted: Vec<PathBuf> = context
        .untrusted
        .iter()
        .filter_map(|dir| std::fs::canonicalize(dir).ok())
        .collect();
    let authored = hops.iter().any(|hop| {
        let real_dir = hop.parent().and_then(|dir| std::fs::canonicalize(dir).ok());
        match (real_dir, hop.file_name()) {
            (Some(dir), Some(name)) => untrusted.iter().any(|u| dir.join(name).starts_with(u)),
            _ => true,
        }
    });
    if authored {
        return;
    }
    let key = (python.to_path_buf(), context.passthrough.to_vec());
    let cached = context
        .cache
        .described
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&key)
        .cloned();
    let described = match cached {
        Some(described) => described,
        None => {
            // Asked without the lock: one slow interpreter must not hold
            // every other call. A question cut short (by the time limit
            // or the call's cancellation) is asked again next time.
            let (described, lasting) = ask(python, &resolution.read, context);
            if lasting {
                context
                    .cache
                    .described
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert(key, described.clone());
            }
            described
        }
    };
    match described {
        Ok(dirs) => {
            for dir in dirs {
                resolution.add(dir);
            }
        }
        Err(why) => resolution.undescribed.push(why),
    }
}

/// Runs `python` to describe itself, confined to `read` (its
/// installation), the tool's directory and `--allow-read`, without
/// network; the directories it reads, checked as the module docs say,
/// and whether the answer lasts (false when it was cut short).
fn ask(python: &Path, read: &[PathBuf], context: &Context) -> (Described, bool) {
    match ask_once(python, read, context) {
        Ok(dirs) => (Ok(dirs), true),
        Err((why, lasting)) => (Err(why), lasting),
    }
}

fn ask_once(
    python: &Path,
    read: &[PathBuf],
    context: &Context,
) -> Result<Vec<PathBuf>, (String, bool)> {
    let mut readable = read.to_vec();
    readable.push(context.cwd.to_path_buf());
    readable.extend(context.allowed.iter().cloned());
    let rules = Rules {
        read: readable,
        write: Vec::new(),
        any_path: false,
        no_network: true,
        proxy: false,
    };
    // In the tool's own kind of sandbox: a file named python3 may be
    // anything, and outside a PID namespace it could read toolc's
    // environment from /proc.
    let confinement =
        Confinement::build(&rules, context.support, context.namespaces).map_err(|e| (e, true))?;
    // Within the call's own limit: the question is part of the call.
    let timeout = DESCRIBE_TIMEOUT.min(context.timeout);
    let spawn = Spawn {
        program: python.to_path_buf(),
        // Isolated: neither the working directory (the tool's) nor the
        // environment's PYTHON* variables can put code in front of it.
        args: vec!["-I".into(), "-c".into(), DESCRIBE.into()],
        cwd: context.cwd.to_path_buf(),
        env: context.env.to_vec(),
        stdin: Vec::new(),
        timeout,
        max_output: 1024 * 1024,
        memory: None,
        confinement: Some(confinement),
        cancel: context.cancel.cloned(),
    };
    let failed = |why: String| {
        (
            format!("{} could not say what it reads: {why}", python.display()),
            true,
        )
    };
    let cut_short = |why: &str| (failed(why.to_string()).0, false);
    let stdout = match process::run(spawn) {
        Ok(Outcome::Exited {
            code: Some(0),
            stdout,
            ..
        }) => stdout,
        Ok(Outcome::Exited {
            code,
            signal,
            stderr,
            ..
        }) => {
            return Err(failed(format!("{} {}", died(code, signal), quote(&stderr))));
        }
        Ok(Outcome::TimedOut { .. }) => {
            let why = format!("it did not answer within {} s", timeout.as_secs_f64());
            return Err(cut_short(&why));
        }
        Ok(Outcome::TooLarge) => return Err(failed("it printed more than 1 MiB".into())),
        Ok(Outcome::Cancelled { .. }) => return Err(cut_short("the call was cancelled")),
        Err(process::RunError::Spawn(e) | process::RunError::Watch(e)) => {
            return Err(failed(e.to_string()));
        }
    };
    let answer: Description = std::str::from_utf8(&stdout)
        .ok()
        .and_then(|text| serde_json::from_str(text.trim()).ok())
        .ok_or_else(|| failed(format!("it answered {}", quote(&stdout))))?;
    Ok(answer.readable(context))
}

/// A Python interpreter's answer to [`DESCRIBE`].
#[derive(Debug, serde::Deserialize)]
struct Description {
    prefixes: Vec<String>,
    executable: Option<String>,
    path: Vec<String>,
    user_site: Option<String>,
}

impl Description {
    /// What the answer makes readable, not taken on the interpreter's
    /// word alone: real directories only, never too wide; prefixes (and
    /// the executable's installation) only when they hold a Python
    /// installation or a venv; import path entries only beneath a prefix;
    /// the user site only as a `site-packages` beneath the home.
    fn readable(self, context: &Context) -> Vec<PathBuf> {
        let home = context.home;
        let real = |dir: &str| -> Option<PathBuf> {
            let dir = std::fs::canonicalize(dir).ok()?;
            (!too_wide(&dir, home)).then_some(dir)
        };
        let executable = self
            .executable
            .filter(|e| is_python(Path::new(e)))
            .and_then(|e| installation(Path::new(&e), home));
        let prefixes: Vec<PathBuf> = self
            .prefixes
            .iter()
            .filter_map(|p| real(p))
            .chain(executable)
            .filter(|p| holds_python(p))
            .collect();
        let mut out = prefixes.clone();
        for entry in &self.path {
            if entry.is_empty() {
                continue;
            }
            if let Some(dir) = real(entry).filter(|d| prefixes.iter().any(|p| d.starts_with(p))) {
                out.push(dir);
            }
        }
        // The user's site directory (`~/.local/lib/pythonX.Y/…`).
        let user_site = self.user_site.as_deref().and_then(real);
        out.extend(user_site.filter(|dir| {
            dir.starts_with(home) && dir.file_name() == Some(OsStr::new("site-packages"))
        }));
        // PYTHONPATH is the user's own, when the tool passes it through.
        let pythonpath = context.env.iter().find(|(k, _)| k == "PYTHONPATH");
        if let Some((_, value)) = pythonpath {
            for dir in std::env::split_paths(value) {
                if dir.is_absolute() {
                    out.extend(dir.to_str().and_then(real));
                }
            }
        }
        out
    }
}

/// Whether `dir` holds a Python installation (`lib/pythonX.Y/os.py`,
/// PyPy's `lib/pypyX.Y/os.py`, Windows-style `Lib/os.py`) or a virtual
/// environment (`pyvenv.cfg`).
fn holds_python(dir: &Path) -> bool {
    if dir.join("pyvenv.cfg").is_file() || dir.join("Lib/os.py").is_file() {
        return true;
    }
    let Ok(entries) = std::fs::read_dir(dir.join("lib")) else {
        return false;
    };
    entries.flatten().any(|entry| {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        (name.starts_with("python") || name.starts_with("pypy"))
            && entry.path().join("os.py").is_file()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::exec::interpreter::tests::{scratch, test_context, write_executable};

    #[test]
    fn a_python_description_is_not_taken_on_its_word() {
        let dir = scratch("python-describe");
        let real = std::fs::canonicalize(&dir).unwrap();
        std::fs::create_dir_all(real.join("secret")).unwrap();
        std::fs::create_dir_all(real.join("inst/lib/python3.99/site-packages")).unwrap();
        std::fs::write(real.join("inst/lib/python3.99/os.py"), "").unwrap();
        std::fs::create_dir_all(real.join("venv")).unwrap();
        std::fs::write(real.join("venv/pyvenv.cfg"), "home = x\n").unwrap();
        let site = real.join("home/.local/lib/python3.99/site-packages");
        std::fs::create_dir_all(&site).unwrap();
        write_executable(&real.join("secret/bin/python3"), "#!/bin/sh\n");
        let text = |p: PathBuf| p.display().to_string();
        let env = vec![];
        let cache = Cache::default();
        let home = real.join("home");
        let context = test_context(&env, &real, &home, &cache);
        let answer = |user_site: PathBuf| Description {
            prefixes: vec![
                text(real.join("inst")),
                text(real.join("secret")),
                text(real.join("venv")),
            ],
            executable: Some(text(real.join("secret/bin/python3"))),
            path: vec![
                String::new(),
                text(real.join("inst/lib/python3.99/site-packages")),
                text(real.join("secret")),
                "/".to_string(),
            ],
            user_site: Some(text(user_site)),
        };
        assert_eq!(
            answer(site.clone()).readable(&context),
            vec![
                real.join("inst"),
                real.join("venv"),
                real.join("inst/lib/python3.99/site-packages"),
                site.clone(),
            ]
        );
        // A user site that is no site-packages, or the home itself: out.
        assert_eq!(answer(real.join("secret")).readable(&context).len(), 3);
        assert_eq!(answer(home.clone()).readable(&context).len(), 3);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn python_names_are_recognized() {
        for name in ["python", "python3", "python3.11", "/x/bin/python2.7"] {
            assert!(is_python(Path::new(name)), "{name}");
        }
        for name in ["python_tool.py", "pythonw", "ipython3", "python3-config"] {
            assert!(!is_python(Path::new(name)), "{name}");
        }
    }
}
