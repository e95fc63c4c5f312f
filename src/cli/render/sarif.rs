//! `--format sarif`: the report as SARIF 2.1.0, the static-analysis format
//! code-scanning services (GitHub code scanning, Azure DevOps, IDE viewers)
//! read.
//!
//! One run; its driver lists every rule toolc has (not only those that
//! fired), so a viewer can show any rule's documentation, and links each
//! rule's page (`helpUri`; a result has no link of its own in SARIF, its
//! `ruleIndex` names the rule). Columns count
//! characters, which SARIF calls `unicodeCodePoints`; regions end one past
//! their last character, as SARIF's `endColumn` does.

use std::fmt::Write;

use serde_json::{Map, Value, json};

use rayon::prelude::*;

use super::{forward_slashes, line_cols};
use crate::diagnostic::{Diagnostic, Fix, Severity};
use crate::lint::{LintReport, RULES, security_severity};
use crate::source::Span;

const SCHEMA: &str = "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/main/sarif-2.1/schema/sarif-schema-2.1.0.json";

/// The SARIF log of a lint run.
pub(in crate::cli) fn sarif(report: &LintReport) -> String {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|rule| {
            let mut properties = json!({"code": rule.code});
            if let Some(score) = security_severity(rule) {
                properties["security-severity"] = score.into();
                properties["tags"] = json!(["security"]);
            }
            json!({
                "id": rule.name,
                "name": rule.name,
                "shortDescription": {"text": rule.summary},
                "fullDescription": {"text": rule.summary},
                "help": {"text": crate::lint::documentation(rule), "markdown": crate::lint::documentation(rule)},
                "helpUri": rule.documentation_url(),
                "defaultConfiguration": {"level": level(rule.severity)},
                "properties": properties,
            })
        })
        .collect();
    // Each result is shaped and written out on its own, on every core (see
    // `pretty_with_items`).
    let results: Vec<String> = report
        .diagnostics
        .par_iter()
        .map(|d| serde_json::to_string_pretty(&result(report, d)).unwrap_or_default())
        .collect();
    let log = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "toolc",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": null,
        }],
    });
    super::pretty_with_items(&log, "results", results)
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

fn result(report: &LintReport, d: &Diagnostic) -> Value {
    let mut result = Map::new();
    result.insert("ruleId".into(), d.rule.name.into());
    if let Some(index) = RULES.iter().position(|rule| rule.name == d.rule.name) {
        result.insert("ruleIndex".into(), index.into());
    }
    result.insert("level".into(), level(d.severity).into());
    result.insert("message".into(), json!({"text": d.message}));
    result.insert(
        "locations".into(),
        json!([{"physicalLocation": physical_location(report, &d.path, d.span)}]),
    );
    if !d.related.is_empty() {
        let related: Vec<Value> = d
            .related
            .iter()
            .zip(1..)
            .map(|(r, id): (_, u64)| {
                json!({
                    "id": id,
                    "physicalLocation": physical_location(report, &r.path, Some(r.span)),
                    "message": {"text": r.message},
                })
            })
            .collect();
        result.insert("relatedLocations".into(), related.into());
    }
    if let Some(fix) = d
        .fix
        .as_ref()
        .and_then(|fix| fix_json(report, &d.path, fix))
    {
        result.insert("fixes".into(), json!([fix]));
    }
    let mut properties = Map::new();
    properties.insert("code".into(), d.code().into());
    properties.insert("pointer".into(), d.pointer.clone().into());
    if let Some(score) = security_severity(d.rule) {
        properties.insert("security-severity".into(), score.into());
    }
    if let Some(help) = &d.help {
        properties.insert("help".into(), help.clone().into());
    }
    result.insert("properties".into(), properties.into());
    result.into()
}

/// The file and, when the finding has a position, the region in it.
fn physical_location(report: &LintReport, path: &str, span: Option<Span>) -> Value {
    let mut location = Map::new();
    location.insert("artifactLocation".into(), json!({"uri": uri(path)}));
    if let Some(region) = region(report, path, span) {
        location.insert("region".into(), region);
    }
    location.into()
}

fn region(report: &LintReport, path: &str, span: Option<Span>) -> Option<Value> {
    let (start, end) = line_cols(report, path, span)?;
    Some(json!({
        "startLine": start.line,
        "startColumn": start.column,
        "endLine": end.line,
        "endColumn": end.column,
    }))
}

/// A fix as one change to the diagnostic's file: each edit replaces a region.
/// Edits whose position cannot be computed are left out (a replacement
/// without a region would replace the whole file), and so is a fix left
/// with no edit.
fn fix_json(report: &LintReport, path: &str, fix: &Fix) -> Option<Value> {
    let replacements: Vec<Value> = fix
        .edits
        .iter()
        .filter_map(|edit| {
            let deleted = region(report, path, Some(edit.span))?;
            Some(json!({
                "deletedRegion": deleted,
                "insertedContent": {"text": edit.replacement},
            }))
        })
        .collect();
    if replacements.is_empty() {
        return None;
    }
    Some(json!({
        "description": {"text": fix.message},
        "artifactChanges": [{
            "artifactLocation": {"uri": uri(path)},
            "replacements": replacements,
        }],
    }))
}

/// A path as a URI reference: relative paths stay relative (code scanning
/// resolves them against the checkout), absolute ones become `file:` URIs;
/// every byte outside the unreserved set and `/` is percent-encoded, so a
/// `:` or space in a file name cannot be misread. A live server's document,
/// `mcp://<server name>`, keeps its scheme.
fn uri(path: &str) -> String {
    if let Some(name) = path.strip_prefix(crate::live::SCHEME) {
        let mut out = String::from(crate::live::SCHEME);
        percent_encode(name, false, &mut out);
        return out;
    }
    let path = forward_slashes(path);
    // A Windows drive path, `C:/x`, becomes `file:///C:/x`, its colon kept.
    let drive = !path.starts_with('/') && std::path::Path::new(&path).is_absolute();
    let mut out = String::from(if path.starts_with('/') {
        "file://"
    } else if drive {
        "file:///"
    } else {
        ""
    });
    percent_encode(&path, drive, &mut out);
    out
}

/// Appends `path` with every byte outside the unreserved set and `/`
/// percent-encoded (but the colon of a `drive`).
fn percent_encode(path: &str, drive: bool, out: &mut String) {
    for (i, byte) in path.bytes().enumerate() {
        let keep = byte.is_ascii_alphanumeric()
            || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/')
            || (drive && i == 1 && byte == b':');
        if keep {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_percent_encoded() {
        assert_eq!(uri("tools/a b/tools.json"), "tools/a%20b/tools.json");
        assert_eq!(uri("a,b:c.json"), "a%2Cb%3Ac.json");
        assert_eq!(uri("/tmp/x.json"), "file:///tmp/x.json");
        assert_eq!(uri("über.json"), "%C3%BCber.json");
        assert_eq!(uri("mcp://mcp-time"), "mcp://mcp-time");
        assert_eq!(uri("mcp://a b/c"), "mcp://a%20b/c");
    }
}
