//! Rule selectors of the command line (`--select`, `--ignore`,
//! `--severity`): names, codes and code prefixes resolved against lint's
//! registry.

use super::{RULES, Rule};
use crate::suggest::did_you_mean;

/// What selects every rule, as in ruff's `--select ALL`.
pub const SELECT_ALL: &str = "ALL";

/// The rules a command-line selector (`--select`, `--ignore`,
/// `--severity`) names, as ruff reads its selectors: `ALL`, a rule's
/// name, or a code prefix (`TC1`: every TC1xx rule; `TC102`: that rule;
/// `TC`: all), any case. The one place selectors are resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selector {
    rules: Vec<&'static Rule>,
}

impl Selector {
    /// Resolves `text`, or says why it selects nothing, with the closest
    /// name or code.
    pub fn parse(text: &str) -> Result<Selector, String> {
        let rules: Vec<&'static Rule> = if text == SELECT_ALL {
            RULES.to_vec()
        } else if let Some(rule) = RULES.iter().find(|r| r.name == text) {
            vec![*rule]
        } else {
            RULES
                .iter()
                .copied()
                .filter(|r| is_code_prefix(text, r.code))
                .collect()
        };
        if rules.is_empty() {
            let known = RULES
                .iter()
                .flat_map(|r| [r.name, r.code])
                .chain([SELECT_ALL]);
            let hint = did_you_mean(text, known)
                .map(|close| format!("; did you mean \"{close}\"?"))
                .unwrap_or_else(|| "; `toolc rules` lists them".to_string());
            return Err(format!(
                "unknown rule or code prefix \"{text}\"{hint} (a selector is a rule name, \
                 a code or its prefix such as TC1, or {SELECT_ALL})"
            ));
        }
        Ok(Selector { rules })
    }

    /// The rules selected, in registry order.
    pub fn rules(&self) -> &[&'static Rule] {
        &self.rules
    }
}

/// Whether `prefix` begins `code` (letters in any case): `TC1` begins
/// `TC101`; an empty text begins nothing.
fn is_code_prefix(prefix: &str, code: &str) -> bool {
    !prefix.is_empty()
        && code
            .get(..prefix.len())
            .is_some_and(|start| start.eq_ignore_ascii_case(prefix))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn selected(text: &str) -> Vec<&'static str> {
        match Selector::parse(text) {
            Ok(selector) => selector.rules().iter().map(|r| r.code).collect(),
            Err(error) => panic!("{text}: {error}"),
        }
    }

    #[test]
    fn selectors_are_names_codes_prefixes_or_all() {
        assert_eq!(selected("duplicate-tool-name"), ["TC102"]);
        assert_eq!(selected("TC102"), ["TC102"]);
        assert_eq!(selected("tc102"), ["TC102"]);
        let tc1 = selected("TC1");
        assert!(!tc1.is_empty());
        assert!(tc1.iter().all(|code| code.starts_with("TC1")), "{tc1:?}");
        assert_eq!(selected("TC").len(), RULES.len());
        assert_eq!(selected(SELECT_ALL).len(), RULES.len());
        let unknown = Selector::parse("TC99").err().unwrap_or_default();
        assert!(
            unknown.contains("unknown rule or code prefix \"TC99\""),
            "{unknown}"
        );
        assert!(Selector::parse("").is_err());
        assert!(
            Selector::parse("all")
                .err()
                .unwrap_or_default()
                .contains("did you mean \"ALL\"")
        );
    }
}
