//! The values of the flags that name something toolc keeps a list of: a
//! rule (`--select`, `--ignore`, `toolc explain`), a provider (`--target`),
//! a format (`--input-format`, `--to`, `toolc schema`). Each flag parses
//! as it always has (a selector's code prefixes and comma lists, a code in
//! any case, the same messages for a mistake), and offers the values of
//! the one list that holds them to shell completion (`toolc completions`)
//! and, where the list is short, to `--help`.

use std::ffi::OsStr;

use clap::builder::{PossibleValue, TypedValueParser};

use crate::ir::Format;
use crate::lint::select::{SELECT_ALL, Selector};
use crate::lint::{RULES, Target};

/// A value parser that parses as `parse` does and offers `values`.
#[derive(Clone)]
pub(super) struct Offering<T> {
    parse: fn(&str) -> Result<T, String>,
    values: fn() -> Vec<PossibleValue>,
}

impl<T: Clone + Send + Sync + 'static> TypedValueParser for Offering<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        // A function's own parser: the same errors as before it offered
        // anything.
        TypedValueParser::parse_ref(&self.parse, cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new((self.values)().into_iter()))
    }
}

/// A rule selector: a rule's name or code, a code prefix (`TC1`) or `ALL`.
pub(super) fn selector() -> Offering<Selector> {
    Offering {
        parse: Selector::parse,
        values: selector_values,
    }
}

/// A rule, by name or code, as `toolc explain` takes it (and checks it
/// itself, with its own message).
pub(super) fn rule() -> Offering<String> {
    Offering {
        parse: |text| Ok(text.to_string()),
        values: rule_values,
    }
}

/// A provider `--target` checks for.
pub(super) fn target() -> Offering<Target> {
    Offering {
        parse: crate::project::config::parse_target,
        values: || {
            Target::ALL
                .iter()
                .map(|t| PossibleValue::new(t.name()))
                .collect()
        },
    }
}

/// A manifest format.
pub(super) fn format() -> Offering<Format> {
    Offering {
        parse: super::parse_format,
        values: || {
            Format::ALL
                .iter()
                .map(|f| PossibleValue::new(f.name()))
                .collect()
        },
    }
}

/// A format `toolc convert` writes (it reads the others too, and refuses
/// them as a target with its own message).
pub(super) fn written_format() -> Offering<Format> {
    Offering {
        parse: super::parse_format,
        values: || {
            Format::ALL
                .into_iter()
                .filter(|f| crate::convert::writes(*f))
                .map(|f| PossibleValue::new(f.name()))
                .collect()
        },
    }
}

/// Every rule's name (with its summary) and code (with its name).
fn rule_values() -> Vec<PossibleValue> {
    let names = RULES
        .iter()
        .map(|rule| PossibleValue::new(rule.name).help(rule.summary));
    let codes = RULES
        .iter()
        .map(|rule| PossibleValue::new(rule.code).help(rule.name));
    names.chain(codes).collect()
}

/// [`rule_values`], the prefix of each hundred of codes (`TC1`), and `ALL`.
fn selector_values() -> Vec<PossibleValue> {
    let mut prefixes: Vec<&'static str> = RULES.iter().filter_map(|r| r.code.get(..3)).collect();
    prefixes.sort_unstable();
    prefixes.dedup();
    let mut values = rule_values();
    values.extend(
        prefixes
            .into_iter()
            .map(|prefix| PossibleValue::new(prefix).help(format!("every {prefix}xx rule"))),
    );
    values.push(PossibleValue::new(SELECT_ALL).help("every rule"));
    values
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_offered_selector_parses() {
        let values = selector_values();
        assert!(values.len() > 2 * RULES.len());
        for value in values {
            assert!(
                Selector::parse(value.get_name()).is_ok(),
                "{}",
                value.get_name()
            );
        }
    }
}
