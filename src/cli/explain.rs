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
    out.write_all(page(rule).as_bytes())?;
    Ok(Outcome::Clean)
}

/// A rule's documentation as Markdown: what `toolc explain` prints, and
/// what docs/rules/<name>.md holds (where [`Rule::documentation_url`]
/// points), byte for byte.
fn page(rule: &Rule) -> String {
    let fix = if rule.fixable {
        "yes: `toolc lint --fix` applies it (`--diff` shows it first)"
    } else {
        "no: fix the manifest by hand"
    };
    format!(
        "# {} ({})\n\n{}\n\n- Default severity: {}\n- Targets: {}\n- Automatic fix: {fix}\n\n{}\n",
        rule.name,
        rule.code,
        rule.summary,
        rule.severity,
        targets(rule),
        crate::lint::documentation(rule).trim_end()
    )
}

/// How `toolc rules` prints the rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum RulesFormat {
    /// Aligned columns under a header.
    Table,
    /// A JSON array: code, name, severity, fixable, targets, summary.
    Json,
    /// A Markdown table linking each rule's page (docs/rules/README.md).
    Markdown,
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
    if format == RulesFormat::Markdown {
        out.write_all(index(&rules).as_bytes())?;
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

/// The index of the rules' pages (docs/rules/README.md): each rule's code,
/// name linking its page beside the index, summary and whether `--fix`
/// fixes it.
fn index(rules: &[&Rule]) -> String {
    let mut text = String::from(
        "# Rules\n\n\
         Every rule toolc checks, by code. `toolc explain RULE` prints a rule's page, \
         `toolc rules` this list; `--select`, `--ignore` and `--severity` take a rule's \
         name, its code, a code prefix (TC1) or ALL.\n\n\
         | Code | Name | Summary | Fixable |\n\
         | --- | --- | --- | --- |\n",
    );
    for rule in rules {
        let fixable = if rule.fixable { "yes" } else { "" };
        text.push_str(&format!(
            "| {} | [{name}]({name}.md) | {} | {fixable} |\n",
            rule.code,
            rule.summary.replace('|', "\\|"),
            name = rule.name,
        ));
    }
    text
}
