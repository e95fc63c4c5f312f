//! ## What it does
//! Reports a NORA tool whose entrypoint script cannot be called as
//! `run(params)`: the script does not parse, it has no top-level `run`
//! function, or its `run` cannot take exactly one positional argument.
//!
//! The script is read with a real Python parser. Only a `def run` at the
//! top level of the script counts; a `run` nested in another function, a
//! class method or a `def` inside `if`/`try` does not. `run(params)`,
//! `run(params, verbose=False)` and `run(*args)` are accepted: each can be
//! called with one argument. `run()`, `run(a, b)`, `run(params, *, mode)`
//! (a required keyword-only parameter) and `async def run` are reported:
//! NORA calls `run(params)` synchronously and expects a string back, and an
//! `async` function returns a coroutine instead. When the script binds
//! `run` in another way (`from impl import run`, `run = make_runner()`),
//! toolc cannot see its signature and says nothing. A script that does not
//! exist is `entrypoint-not-found`'s finding; one that cannot be read or is
//! not UTF-8 is skipped.
//!
//! ## Why is this bad?
//! NORA imports the entrypoint and calls `run(params)` with the tool's
//! arguments. Without such a function every call fails, and the error shows
//! up only when an agent uses the tool.
//!
//! ## Example
//! `tools/fetch/tool.json` says `"entrypoint": "main.py"`, and `main.py`
//! holds:
//! ```python
//! def fetch(url, timeout):
//!     ...
//! ```
//!
//! ## Use instead
//! ```python
//! def run(params):
//!     return fetch(params["url"], params.get("timeout", 10))
//! ```

use crate::diagnostic::Severity;
use crate::lint::findings::Findings;
use crate::lint::{Manifest, Rule};
use crate::python::{self, Function};

pub(crate) const RULE: Rule = Rule {
    name: "entrypoint-missing-run",
    code: "TC403",
    severity: Severity::Error,
    summary: "a NORA entrypoint script has no top-level run(params) function",
    fixable: false,
    targets: &[],
};

pub(crate) fn check(manifest: &Manifest, out: &mut Findings) {
    let Some(file) = &manifest.code.entrypoint else {
        return;
    };
    let entrypoint = &file.written;
    let Some(module) = &file.module else {
        return;
    };
    let problem = match &module.parsed {
        Err(error) => format!("{entrypoint} does not parse: {error}"),
        Ok(module) => match module.function("run") {
            Some(run) => match signature_problem(run) {
                Some(problem) => format!("run in {entrypoint} {problem}; NORA calls run(params)"),
                None => return,
            },
            // Bound some other way (an import, an assignment, a definition
            // under `if`/`try`, a star import): its signature is unknown.
            None if module.binds("run") || module.star_import => return,
            None => format!("{entrypoint} has no top-level run(params) function"),
        },
    };
    out.push(
        manifest
            .at_value(&RULE, "/entrypoint", problem)
            .with_help("define `def run(params):` at the top level of the entrypoint script"),
    );
}

/// What keeps `run` from being called as `run(params)`, if anything.
fn signature_problem(run: &Function) -> Option<String> {
    if run.is_async {
        return Some("is async".to_string());
    }
    let positional = run.positional().count();
    let required = run.positional().filter(|p| p.is_required()).count();
    if required > 1 {
        return Some(format!("takes {required} parameters"));
    }
    if positional == 0 && !run.has_var_positional() {
        return Some("takes no positional parameter".to_string());
    }
    run.parameters
        .iter()
        .find(|p| p.kind == python::ParameterKind::KeywordOnly && p.is_required())
        .map(|p| format!("requires the keyword-only parameter {}", p.name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(text: &str) -> Option<String> {
        let module = python::parse(text).expect("parses");
        module.function("run").and_then(signature_problem)
    }

    #[test]
    fn signatures_callable_with_one_argument_pass() {
        for text in [
            "def run(params):\n    pass\n",
            "def run(params: dict) -> str:\n    pass\n",
            "def run(params, verbose=False):\n    pass\n",
            "def run(params=None):\n    pass\n",
            "def run(*args):\n    pass\n",
            "def run(params, /, *, mode='a', **kw):\n    pass\n",
            "@wrap\ndef run(params):\n    pass\n",
        ] {
            assert_eq!(problem(text), None, "{text}");
        }
    }

    #[test]
    fn other_signatures_are_reported() {
        for (text, expected) in [
            ("def run():\n    pass\n", "takes no positional parameter"),
            (
                "def run(**kw):\n    pass\n",
                "takes no positional parameter",
            ),
            ("def run(a, b):\n    pass\n", "takes 2 parameters"),
            ("def run(a, b, c=1):\n    pass\n", "takes 2 parameters"),
            ("async def run(params):\n    pass\n", "is async"),
            (
                "def run(params, *, mode):\n    pass\n",
                "requires the keyword-only parameter mode",
            ),
        ] {
            assert_eq!(problem(text).as_deref(), Some(expected), "{text}");
        }
    }
}
