//! Checks of what the machine-readable renderers print: the JSON report,
//! SARIF, GitHub workflow commands and JUnit XML.

use serde_json::Value;

use super::case::Case;
use super::{Checked, Violation};

/// The JSON report's shape, its positions inside the files and its
/// summary's counts; returns how many errors it has.
pub(super) fn check_json_report(out: &str, case: &Case) -> Result<usize, Violation> {
    let report: Value =
        serde_json::from_str(out).map_err(|e| format!("the JSON report is not JSON: {e}"))?;
    ensure!(report["version"] == 1, "the JSON report has no version 1");
    let diagnostics = report["diagnostics"]
        .as_array()
        .ok_or("the JSON report has no diagnostics array")?;
    let mut counts = [0usize; 3];
    for d in diagnostics {
        let severity = ["error", "warning", "info"]
            .iter()
            .position(|s| d["severity"] == *s)
            .ok_or_else(|| format!("a finding without a severity: {d}"))?;
        counts[severity] += 1;
        ensure!(
            d["rule"].is_string() && d["code"].is_string(),
            "a finding without a rule: {d}"
        );
        let Some(line) = d["line"].as_u64() else {
            continue;
        };
        let position = |l: &str, c: &str| (d[l].as_u64().unwrap_or(0), d[c].as_u64().unwrap_or(0));
        let (start, end) = (
            position("line", "column"),
            position("end_line", "end_column"),
        );
        ensure!(
            line >= 1 && start.1 >= 1,
            "a position before line 1, column 1: {d}"
        );
        ensure!(start <= end, "a finding that ends before it starts: {d}");
        let Some(text) = d["path"].as_str().and_then(|p| case.text_of(p)) else {
            continue;
        };
        let lines: Vec<&str> = text.split('\n').collect();
        let within = |(line, column): (u64, u64)| {
            usize::try_from(line)
                .ok()
                .and_then(|l| lines.get(l.checked_sub(1)?))
                .is_some_and(|l| column <= l.chars().count() as u64 + 1)
        };
        ensure!(
            within(start) && within(end),
            "a position outside the file: {d}"
        );
    }
    let summary = &report["summary"];
    for (key, count) in ["errors", "warnings", "infos"].iter().zip(counts) {
        ensure!(summary[key] == count, "summary {key} is not {count}");
    }
    Ok(counts[0])
}

pub(super) fn check_sarif(out: &str) -> Checked {
    let log: Value = serde_json::from_str(out).map_err(|e| format!("SARIF is not JSON: {e}"))?;
    ensure!(log["version"] == "2.1.0", "SARIF without version 2.1.0");
    let run = &log["runs"][0];
    let rules = run["tool"]["driver"]["rules"]
        .as_array()
        .ok_or("SARIF without rules")?;
    let results = run["results"].as_array().ok_or("SARIF without results")?;
    for result in results {
        ensure!(
            ["error", "warning", "note"]
                .iter()
                .any(|l| result["level"] == *l),
            "a SARIF result without a level: {result}"
        );
        ensure!(
            result["message"]["text"].is_string(),
            "a SARIF result without a message"
        );
        if let Some(index) = result["ruleIndex"].as_u64() {
            let rule = usize::try_from(index).ok().and_then(|i| rules.get(i));
            ensure!(
                rule.is_some_and(|r| r["id"] == result["ruleId"]),
                "ruleIndex {index} is not rule {}",
                result["ruleId"]
            );
        }
        let locations = result["locations"].as_array().into_iter().flatten();
        let related = result["relatedLocations"].as_array().into_iter().flatten();
        for location in locations.chain(related) {
            let region = &location["physicalLocation"]["region"];
            if region.is_null() {
                continue;
            }
            let at = |k: &str| region[k].as_u64().unwrap_or(0);
            ensure!(
                at("startLine") >= 1 && at("startColumn") >= 1,
                "a SARIF region before 1:1: {region}"
            );
            ensure!(
                (at("startLine"), at("startColumn")) <= (at("endLine"), at("endColumn")),
                "a SARIF region that ends before it starts: {region}"
            );
        }
    }
    Ok(())
}

/// One workflow command a line: `::KIND PROPERTIES::MESSAGE`, properties
/// without a bare `:` or line break.
pub(super) fn check_github(out: &str) -> Checked {
    ensure!(
        !out.contains('\r'),
        "a carriage return in a workflow command"
    );
    for line in out.lines() {
        let rest = ["::error ", "::warning ", "::notice "]
            .iter()
            .find_map(|kind| line.strip_prefix(kind))
            .ok_or_else(|| format!("not a workflow command: {line:?}"))?;
        let (properties, _) = rest
            .split_once("::")
            .ok_or_else(|| format!("a workflow command without a message: {line:?}"))?;
        for property in properties.split(',') {
            let (name, _) = property
                .split_once('=')
                .ok_or_else(|| format!("a property without a value: {property:?}"))?;
            ensure!(
                ["file", "line", "col", "endLine", "endColumn", "title"].contains(&name),
                "an unknown property {name:?} in {line:?}"
            );
        }
    }
    Ok(())
}

/// Well-formed XML 1.0: one root element, tags that match, quoted
/// attributes, known entities, only characters XML allows.
pub(super) fn check_xml(out: &str) -> Checked {
    let forbidden = |c: char| matches!(c, '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}');
    ensure!(!out.chars().any(forbidden), "a character XML forbids");
    let body = match out.strip_prefix("<?xml") {
        Some(rest) => {
            rest.split_once("?>")
                .ok_or("an unclosed XML declaration")?
                .1
        }
        None => out,
    };
    let mut open: Vec<&str> = Vec::new();
    let mut roots = 0;
    let mut rest = body;
    while let Some(at) = rest.find('<') {
        check_xml_text(&rest[..at], open.is_empty())?;
        let (tag, after) = rest[at + 1..].split_once('>').ok_or("an unclosed tag")?;
        rest = after;
        if let Some(name) = tag.strip_prefix('/') {
            ensure!(
                open.pop() == Some(name),
                "a closing tag </{name}> that matches none"
            );
            continue;
        }
        let (tag, empty) = match tag.strip_suffix('/') {
            Some(tag) => (tag, true),
            None => (tag, false),
        };
        let name = check_xml_tag(tag)?;
        if open.is_empty() {
            roots += 1;
        }
        if !empty {
            open.push(name);
        }
    }
    check_xml_text(rest, true)?;
    ensure!(open.is_empty(), "unclosed elements {open:?}");
    ensure!(roots == 1, "{roots} root elements");
    Ok(())
}

/// A start tag's name and attributes (`name a="v" b="w"`); its name.
fn check_xml_tag(tag: &str) -> Result<&str, Violation> {
    let is_name = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'))
    };
    let (name, mut attributes) = tag.split_once(' ').unwrap_or((tag, ""));
    ensure!(is_name(name), "a tag without a name: <{tag}>");
    loop {
        attributes = attributes.trim_start();
        if attributes.is_empty() {
            return Ok(name);
        }
        let (key, after) = attributes
            .split_once("=\"")
            .ok_or_else(|| format!("an attribute without a quoted value in <{tag}>"))?;
        ensure!(is_name(key), "an attribute name {key:?}");
        let (value, after) = after
            .split_once('"')
            .ok_or_else(|| format!("an unclosed attribute value in <{tag}>"))?;
        ensure!(!value.contains('<'), "a '<' in an attribute value");
        check_xml_entities(value)?;
        attributes = after;
    }
}

fn check_xml_text(text: &str, outside: bool) -> Checked {
    ensure!(
        !outside || text.trim().is_empty(),
        "text outside the root element: {text:?}"
    );
    check_xml_entities(text)
}

/// Every `&` starts an entity XML knows, or a reference to an allowed
/// character.
fn check_xml_entities(text: &str) -> Checked {
    for (at, _) in text.match_indices('&') {
        let (entity, _) = text[at + 1..]
            .split_once(';')
            .ok_or("an '&' that starts no entity")?;
        let number = match entity.strip_prefix("#x") {
            Some(hex) => u32::from_str_radix(hex, 16).ok(),
            None => entity.strip_prefix('#').and_then(|d| d.parse().ok()),
        };
        let known = match number {
            Some(n) => char::from_u32(n).is_some_and(
                |c| matches!(c, '\t' | '\n' | '\r' | ' '..='\u{fffd}' | '\u{10000}'..),
            ),
            None => ["amp", "lt", "gt", "quot", "apos"].contains(&entity),
        };
        ensure!(known, "an unknown entity &{entity};");
    }
    Ok(())
}
