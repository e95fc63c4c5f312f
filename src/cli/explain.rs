//! `toolc explain RULE` and `toolc rules`.

use std::io::Write;

use super::{CliError, Outcome};
use crate::lint::{RULES, Rule, find_rule};
use crate::suggest::did_you_mean;

pub(super) fn explain(name: &str, out: &mut dyn Write) -> Result<Outcome, CliError> {
    let Some(rule) = find_rule(name) else {
        let hint = did_you_mean(name, RULES.iter().map(|r| r.name))
            .map(|close| format!("; did you mean \"{close}\"?"))
            .unwrap_or_else(|| "; `toolc rules` lists them".to_string());
        return Err(CliError::Usage(format!("unknown rule \"{name}\"{hint}")));
    };
    writeln!(out, "# {} ({})\n", rule.name, rule.code)?;
    writeln!(out, "Default severity: {}", rule.severity)?;
    writeln!(out, "Targets: {}", targets(rule))?;
    let fix = if rule.fixable {
        "yes: `toolc lint --fix` applies it (`--diff` shows it first)"
    } else {
        "no: fix the manifest by hand"
    };
    writeln!(out, "Automatic fix: {fix}\n")?;
    writeln!(out, "{}", crate::lint::documentation(rule))?;
    Ok(Outcome::Clean)
}

/// How `toolc rules` prints the rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum RulesFormat {
    /// Aligned columns under a header.
    Table,
    /// A JSON array: code, name, severity, fixable, targets, summary.
    Json,
}

pub(super) fn list(format: RulesFormat, out: &mut dyn Write) -> Result<Outcome, CliError> {
    let mut rules: Vec<&Rule> = RULES.iter().copied().collect();
    rules.sort_by_key(|rule| rule.code);
    if format == RulesFormat::Json {
        let listed: Vec<serde_json::Value> = rules
            .iter()
            .map(|rule| {
                serde_json::json!({
                    "code": rule.code,
                    "name": rule.name,
                    "severity": rule.severity.as_str(),
                    "fixable": rule.fixable,
                    "targets": rule.targets.iter().map(|t| t.name()).collect::<Vec<_>>(),
                    "summary": rule.summary,
                })
            })
            .collect();
        let text = serde_json::to_string_pretty(&listed).unwrap_or_default();
        writeln!(out, "{text}")?;
        return Ok(Outcome::Clean);
    }
    let width = rules.iter().map(|r| r.name.len()).max().unwrap_or(0);
    let target_width = rules
        .iter()
        .map(|r| targets(r).len())
        .chain(std::iter::once("TARGETS".len()))
        .max()
        .unwrap_or(0);
    let row = |code: &str, name: &str, severity: &str, fix: &str, targets: &str, summary: &str| {
        format!(
            "{code:<6}  {name:<width$}  {severity:<8}  {fix:<3}  {targets:<target_width$}  {summary}"
        )
    };
    writeln!(
        out,
        "{}",
        row("CODE", "NAME", "SEVERITY", "FIX", "TARGETS", "SUMMARY").trim_end()
    )?;
    for rule in rules {
        let fix = if rule.fixable { "yes" } else { "" };
        let line = row(
            rule.code,
            rule.name,
            rule.severity.as_str(),
            fix,
            &targets(rule),
            rule.summary,
        );
        writeln!(out, "{line}")?;
    }
    Ok(Outcome::Clean)
}

/// The providers a rule checks for, or `all` for the rules that always run.
fn targets(rule: &Rule) -> String {
    if rule.targets.is_empty() {
        return "all".to_string();
    }
    rule.targets
        .iter()
        .map(|t| t.name())
        .collect::<Vec<_>>()
        .join(",")
}
