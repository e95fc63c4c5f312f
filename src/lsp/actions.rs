//! Code actions: a quick fix per fixable finding, every safe fix of the
//! file at once (`source.fixAll.toolc`, as `toolc lint --fix` applies
//! them), and turning a rule off for one file in `toolc.toml`. Where the
//! client resolves edits lazily, the actions are listed without them and
//! each edit is computed in `codeAction/resolve`.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::documents::uri_of;
use super::features::bom;
use super::{FIX_ALL_KIND, INVALID_PARAMS, Outcome, Server, absolute};
use crate::diagnostic::{Applicability, Diagnostic};
use crate::project::config::basic_string;

/// Whether an action of `kind` is among those the client asked for
/// (`only`: kinds or their parents, `source` covers `source.fixAll.toolc`).
fn wanted(only: Option<&[String]>, kind: &str) -> bool {
    only.is_none_or(|only| {
        only.iter()
            .any(|asked| kind == asked || kind.starts_with(&format!("{asked}.")))
    })
}

pub(super) fn code_actions(server: &mut Server, params: &Value) -> Result<Value, (i64, String)> {
    let path = server.document_path(params)?;
    let range: lsp_types::Range = params
        .get("range")
        .cloned()
        .and_then(|r| serde_json::from_value(r).ok())
        .ok_or((INVALID_PARAMS, "range is missing".to_string()))?;
    let only: Option<Vec<String>> = params
        .pointer("/context/only")
        .and_then(Value::as_array)
        .map(|kinds| {
            kinds
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        });
    let only = only.as_deref();
    let (start, end) = {
        let document = server
            .documents
            .get(&path)
            .ok_or((INVALID_PARAMS, "the document is not open".to_string()))?;
        let skip = bom(&document.text);
        let start = document
            .lines
            .offset(&document.text, range.start, server.encoding);
        let end = document
            .lines
            .offset(&document.text, range.end, server.encoding);
        (start.saturating_sub(skip), end.saturating_sub(skip))
    };
    let outcome = server.outcome(&path);
    let Outcome::Checked(checked) = &*outcome else {
        return Ok(json!([]));
    };
    let mine = checked.diagnostics_in(&path);
    let mut actions = Vec::new();
    let lazy = server.client.resolve_edits;
    let uri = server
        .documents
        .get(&path)
        .map(|d| d.uri.as_str().to_string())
        .unwrap_or_default();
    if wanted(only, "quickfix") {
        let here: Vec<&&Diagnostic> = mine
            .iter()
            .filter(|d| d.span.is_some_and(|s| s.start <= end && start <= s.end))
            .collect();
        for diagnostic in &here {
            let Some(fix) = &diagnostic.fix else {
                continue;
            };
            let data = json!({
                "uri": uri, "action": "fix", "rule": diagnostic.rule.name,
                "span": span_of(diagnostic),
            });
            let mut action = json!({
                "title": format!("Fix: {}", fix.message),
                "kind": "quickfix",
                "diagnostics": [server.to_lsp(&path, checked, diagnostic)],
                "isPreferred": fix.applicability == Applicability::Safe,
                "data": data,
            });
            if !lazy {
                action["edit"] = fix_edit(server, &path, diagnostic).unwrap_or(Value::Null);
            }
            actions.push(action);
        }
        let mut rules: Vec<&'static crate::diagnostic::Rule> =
            here.iter().map(|d| d.rule).collect();
        rules.sort_by_key(|r| r.code);
        rules.dedup_by_key(|r| r.code);
        let configured = configured_file(server, &path);
        let scope = if configured == path {
            "this file".to_string()
        } else {
            // Package code is checked with its manifest's settings.
            let name = configured
                .file_name()
                .map(|n| n.to_string_lossy().into_owned());
            name.unwrap_or_default()
        };
        let target = ignore_target(server, &configured);
        let config_name = target
            .as_ref()
            .and_then(|(file, _)| file.file_name())
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        for rule in rules {
            let data = json!({"uri": uri, "action": "ignore", "rule": rule.name});
            let mut action = json!({
                "title": format!("Ignore {} ({}) in {scope}, in {config_name}", rule.name, rule.code),
                "kind": "quickfix",
                "data": data,
            });
            let edit = target.clone().and_then(|(file, existing)| {
                ignore_edit_of(server, &configured, rule.name, file, existing)
            });
            if edit.is_none() {
                continue;
            }
            if !lazy {
                action["edit"] = edit.unwrap_or(Value::Null);
            }
            actions.push(action);
        }
    }
    let any_safe = mine.iter().any(|d| {
        d.fix
            .as_ref()
            .is_some_and(|f| f.applicability == Applicability::Safe)
    });
    if any_safe && wanted(only, FIX_ALL_KIND) {
        let mut action = json!({
            "title": "Fix all safe toolc findings",
            "kind": FIX_ALL_KIND,
            "data": {"uri": uri, "action": "fixAll"},
        });
        if !lazy {
            match fix_all_edit(server, &path) {
                Some(edit) => action["edit"] = edit,
                None => action = Value::Null,
            }
        }
        if !action.is_null() {
            actions.push(action);
        }
    }
    Ok(Value::Array(actions))
}

/// The span a finding's data names it by.
fn span_of(diagnostic: &Diagnostic) -> Value {
    diagnostic
        .span
        .map_or(Value::Null, |s| json!([s.start, s.end]))
}

pub(super) fn resolve(server: &mut Server, params: &Value) -> Result<Value, (i64, String)> {
    let mut action = params.clone();
    let data = params.get("data").cloned().unwrap_or(Value::Null);
    let path = data
        .get("uri")
        .and_then(Value::as_str)
        .and_then(|u| u.parse().ok())
        .and_then(|uri| super::documents::path_of(&uri))
        .filter(|path| server.documents.get(path).is_some())
        .ok_or((
            INVALID_PARAMS,
            "the action's document is not open".to_string(),
        ))?;
    let rule = data.get("rule").and_then(Value::as_str).unwrap_or("");
    let edit = match data.get("action").and_then(Value::as_str) {
        Some("fix") => {
            let outcome = server.outcome(&path);
            let Outcome::Checked(checked) = &*outcome else {
                return Ok(action);
            };
            let span = data.get("span").cloned().unwrap_or(Value::Null);
            checked
                .diagnostics_in(&path)
                .into_iter()
                .find(|d| d.rule.name == rule && span_of(d) == span)
                .and_then(|d| fix_edit(server, &path, d))
        }
        Some("fixAll") => fix_all_edit(server, &path),
        Some("ignore") => ignore_edit(server, &configured_file(server, &path), rule),
        _ => return Err((INVALID_PARAMS, "not an action of toolc's".to_string())),
    };
    // A finding fixed or gone since the list was made: no edit.
    if let Some(edit) = edit {
        action["edit"] = edit;
    }
    Ok(action)
}

/// The edit of one finding's fix, in the open document.
fn fix_edit(server: &Server, path: &Path, diagnostic: &Diagnostic) -> Option<Value> {
    let fix = diagnostic.fix.as_ref()?;
    let document = server.documents.get(path)?;
    let skip = bom(&document.text);
    let edits: Vec<Value> = fix
        .edits
        .iter()
        .map(|edit| {
            let range = document.lines.range(
                &document.text,
                edit.span.start + skip,
                edit.span.end + skip,
                server.encoding,
            );
            json!({"range": range, "newText": edit.replacement})
        })
        .collect();
    Some(json!({"changes": {document.uri.as_str(): edits}}))
}

/// Every safe fix of the open document, applied in rounds as `toolc lint
/// --fix` applies them: one edit of the whole text.
fn fix_all_edit(server: &Server, path: &Path) -> Option<Value> {
    let document = server.documents.get(path)?;
    // The package code the fixes are checked with is the editor's too.
    let options = crate::lint::LintOptions {
        overlay: Some(std::sync::Arc::new(server.documents.overlay())),
        ..server.lint.clone()
    };
    let fixed = crate::lint::fix::fix_document(path, &document.text, &options, false).ok()??;
    let range = document
        .lines
        .range(&document.text, 0, document.text.len(), server.encoding);
    Some(json!({"changes": {document.uri.as_str(): [{"range": range, "newText": fixed.fixed}]}}))
}

/// The file whose settings a finding in the document at `path` follows:
/// the document, or for package code the manifest it belongs to (a code
/// file is checked with its manifest's settings).
fn configured_file(server: &Server, path: &Path) -> PathBuf {
    let is_manifest = path.extension().is_some_and(|e| e == "json");
    if is_manifest {
        return path.to_path_buf();
    }
    super::check::manifests_of(path, &server.documents)
        .into_iter()
        .next()
        .unwrap_or_else(|| path.to_path_buf())
}

/// An edit of the configuration that turns `rule` off for the file at
/// `path`: an `[[overrides]]` entry appended to the configuration that
/// applies (`None` when it cannot be read), or a new `toolc.toml` in the
/// workspace folder holding the file, where the client can create files.
fn ignore_edit(server: &Server, path: &Path, rule: &str) -> Option<Value> {
    let (file, existing) = ignore_target(server, path)?;
    ignore_edit_of(server, path, rule, file, existing)
}

/// The configuration file an "ignore" edits for the file at `path`, and
/// its text (`None`: a new `toolc.toml`, see [`ignore_edit`]).
fn ignore_target(server: &Server, path: &Path) -> Option<(PathBuf, Option<String>)> {
    let dir = path.parent()?;
    let config = match &server.lint.command_line.config {
        Some(file) => Some(absolute(file)),
        None => server
            .resolver
            .config_file(path)
            .ok()?
            .map(|f| absolute(&f)),
    };
    let (file, existing) = match config {
        Some(file) => {
            let text: String = match server.documents.get(&file) {
                Some(document) => document.text.to_string(),
                None => std::fs::read_to_string(&file).ok()?,
            };
            (file, Some(text))
        }
        None => {
            if !server.client.create_files {
                return None;
            }
            let root = server
                .roots
                .iter()
                .filter(|root| path.starts_with(root))
                .max_by_key(|root| root.components().count())
                .cloned()
                .unwrap_or_else(|| dir.to_path_buf());
            // The nearest repository root at or below the workspace folder:
            // a toolc.toml above the repository is never found.
            let repository = dir
                .ancestors()
                .take_while(|p| p.starts_with(&root))
                .find(|p| p.join(".git").exists())
                .map_or(root, Path::to_path_buf);
            (repository.join(crate::project::config::FILE_NAME), None)
        }
    };
    Some((file, existing))
}

fn ignore_edit_of(
    server: &Server,
    path: &Path,
    rule: &str,
    file: PathBuf,
    existing: Option<String>,
) -> Option<Value> {
    let base = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let relative = relative_to(path, &base)?;
    let entry = format!(
        "[[{}overrides]]\nfiles = [{}]\nrules = {{ {} = \"off\" }}\n",
        crate::project::config::key_prefix(&file),
        basic_string(&glob_literal(&relative)),
        basic_string(rule)
    );
    let uri = uri_of(&file)?;
    match existing {
        Some(text) => {
            let lines = super::position::LineIndex::new(&text);
            let end = lines.position(&text, text.len(), server.encoding);
            let separator = if text.is_empty() {
                ""
            } else if text.ends_with('\n') {
                "\n"
            } else {
                "\n\n"
            };
            Some(json!({"changes": {uri.as_str(): [{
                "range": {"start": end, "end": end},
                "newText": format!("{separator}{entry}"),
            }]}}))
        }
        None => Some(json!({"documentChanges": [
            {"kind": "create", "uri": uri.as_str(), "options": {"ignoreIfExists": true}},
            {"textDocument": {"uri": uri.as_str(), "version": null}, "edits": [{
                "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                "newText": entry,
            }]},
        ]})),
    }
}

/// `path` below `base`, with `/` between its parts; `None` outside it or
/// not UTF-8 (a glob of `toolc.toml` is text).
fn relative_to(path: &Path, base: &Path) -> Option<String> {
    let relative: PathBuf = path.strip_prefix(base).ok()?.to_path_buf();
    let parts: Option<Vec<&str>> = relative
        .components()
        .map(|c| c.as_os_str().to_str())
        .collect();
    Some(parts?.join("/"))
}

/// A path as a glob that matches only itself: the glob's special
/// characters each in a class of one.
fn glob_literal(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        match c {
            // `!` is special only first in a class: left as it is.
            '*' | '?' | '[' | ']' | '{' | '}' | '\\' => {
                out.push('[');
                out.push(c);
                out.push(']');
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_asked_for() {
        let only = ["source".to_string()];
        assert!(wanted(Some(&only), FIX_ALL_KIND));
        assert!(!wanted(Some(&only), "quickfix"));
        let only = ["source.fixAll".to_string()];
        assert!(wanted(Some(&only), FIX_ALL_KIND));
        assert!(wanted(None, "quickfix"));
        let only = ["source.fix".to_string()];
        assert!(!wanted(Some(&only), FIX_ALL_KIND));
    }

    #[test]
    fn paths_become_globs_of_themselves() {
        assert_eq!(
            glob_literal("tools/a*b/[x].json"),
            "tools/a[*]b/[[]x[]].json"
        );
        assert_eq!(basic_string("a\"b\\c"), "\"a\\\"b\\\\c\"");
        let glob = globset::Glob::new(&glob_literal("t/a*b?/{x}.json"))
            .expect("glob")
            .compile_matcher();
        assert!(glob.is_match("t/a*b?/{x}.json"));
        assert!(!glob.is_match("t/aXb!/{x}.json"));
        for path in ["tools/a!b/tool.json", "tools/[!x]/tool.json", "t/!/{,}/x"] {
            let glob = globset::GlobBuilder::new(&glob_literal(path))
                .literal_separator(true)
                .build()
                .expect("a valid glob")
                .compile_matcher();
            assert!(glob.is_match(path), "{path}");
        }
    }
}
