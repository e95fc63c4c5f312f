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
    writeln!(out, "Targets: {}\n", targets(rule))?;
    writeln!(out, "{}", crate::lint::documentation(rule))?;
    Ok(Outcome::Clean)
}

pub(super) fn list(out: &mut dyn Write) -> Result<Outcome, CliError> {
    let width = RULES.iter().map(|r| r.name.len()).max().unwrap_or(0);
    let target_width = RULES.iter().map(|r| targets(r).len()).max().unwrap_or(0);
    for rule in RULES.iter() {
        writeln!(
            out,
            "{}  {:<width$}  {:<7}  {:<target_width$}  {}",
            rule.code,
            rule.name,
            rule.severity.as_str(),
            targets(rule),
            rule.summary
        )?;
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
