//! `toolc explain RULE` and `toolc rules`.

use std::io::Write;

use super::CliError;
use crate::lint::{RULES, find_rule};
use crate::suggest::did_you_mean;

pub(super) fn explain(name: &str, out: &mut dyn Write) -> Result<u8, CliError> {
    let Some(rule) = find_rule(name) else {
        let hint = did_you_mean(name, RULES.iter().map(|r| r.name))
            .map(|close| format!("; did you mean \"{close}\"?"))
            .unwrap_or_else(|| "; `toolc rules` lists them".to_string());
        return Err(CliError::Usage(format!("unknown rule \"{name}\"{hint}")));
    };
    writeln!(out, "# {} ({})\n", rule.name, rule.code)?;
    writeln!(out, "Default severity: {}\n", rule.severity)?;
    writeln!(out, "{}", rule.documentation())?;
    Ok(0)
}

pub(super) fn list(out: &mut dyn Write) -> Result<u8, CliError> {
    let width = RULES.iter().map(|r| r.name.len()).max().unwrap_or(0);
    for rule in RULES {
        writeln!(
            out,
            "{}  {:<width$}  {:<7}  {}",
            rule.code,
            rule.name,
            rule.severity.as_str(),
            rule.summary
        )?;
    }
    Ok(0)
}
