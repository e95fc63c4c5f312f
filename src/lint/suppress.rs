//! Suppressing findings, as ruff's `# noqa` and `per-file-ignores` do.
//!
//! Two kinds of ignore drop a file's findings once its checks ran (in lint
//! and in `--fix` alike):
//!
//! - inline, in a tool's `"x-toolc": {"ignore": [...]}` (MCP: in its
//!   `_meta`; see [`carry::IGNORE`]): rule names, codes or code prefixes
//!   whose findings inside that tool's object are not reported;
//! - in `toolc.toml`, an `[[overrides]]` entry that names `tools` or
//!   `pointers` (the front end's [`ScopedIgnore`]): rules turned off for the
//!   findings on those tools, or at or under those JSON Pointers.
//!
//! A finding is inside a tool when its pointer is at or under the tool's
//! (a finding in the tool's code counts when it points back into the
//! tool's object). An inline entry that suppressed nothing, while one of
//! the rules it names ran, is reported as `unused-ignore`, with a fix that
//! removes it (see [`rules::unused_ignore`]).

use serde_json::Value;

use super::findings::Findings;
use super::rules::{self, tool_drift, unused_ignore};
use super::select::Selector;
use super::settings::ScopedIgnore;
use super::{Manifest, Rule};
use crate::diagnostic::{Diagnostic, Edit, Fix};
use crate::formats::carry;
use crate::json;
use crate::source::Span;

/// The ignores of one manifest, and which of them were of use.
pub(crate) struct Ignores(Vec<Ignore>);

impl Ignores {
    /// The ignores that apply to `manifest`: its tools' own and those of
    /// its configuration.
    pub(crate) fn of(manifest: &Manifest) -> Ignores {
        let mut ignores = inline(manifest);
        for scoped in &manifest.settings.scoped_ignores {
            ignores.push(configured(manifest, scoped));
        }
        Ignores(ignores)
    }

    /// Drops the findings of the manifest at `path` that the ignores
    /// cover. Done before one report per defect is kept: a finding given
    /// way to a more specific one was still there to ignore, and an
    /// ignored specific finding leaves the general one reported.
    pub(crate) fn suppress(&mut self, path: &str, findings: &mut Findings) {
        if self.0.is_empty() {
            return;
        }
        findings.retain(|diagnostic| {
            let mut suppressed = false;
            for ignore in &mut self.0 {
                if ignore.covers(path, diagnostic) {
                    // Every ignore that covers it was of use, as in ruff.
                    ignore.used = true;
                    suppressed = true;
                }
            }
            !suppressed
        });
    }

    /// An `unused-ignore` finding for each inline entry that covered
    /// nothing while one of its rules ran, or that names no rule.
    pub(crate) fn report_unused(self, manifest: &Manifest, out: &mut Findings) {
        if self.0.is_empty() || !manifest.settings.runs(&unused_ignore::RULE) {
            return;
        }
        for ignore in self.0 {
            let Some(entry) = ignore.entry else {
                continue;
            };
            let unused = match &ignore.rules {
                Err(_) => true,
                Ok(rules) => !ignore.used && rules.iter().any(|rule| ran(manifest, rule)),
            };
            if unused {
                out.push(unused_finding(manifest, &entry, &ignore.rules));
            }
        }
    }
}

/// Rules named by one ignore, and where they are ignored.
struct Ignore {
    /// The rules; for an entry that names none, why.
    rules: Result<Vec<&'static Rule>, String>,
    /// Where: (pointer, span of its value) of each tool or pointer.
    places: Vec<(String, Option<Span>)>,
    /// The inline entry, when it is one.
    entry: Option<Entry>,
    used: bool,
}

/// Where an inline ignore is written.
struct Entry {
    /// The pointer of the entry (the list's item, or the list itself when
    /// it is no list).
    pointer: String,
    /// The members from the tool to the list (see [`carry::ignore_path`]).
    path: Vec<String>,
    /// The tool's name, for the message.
    tool: String,
    /// Whether the entry is an item of an `"ignore"` list (and so can be
    /// removed on its own).
    is_item: bool,
}

impl Ignore {
    fn covers(&self, path: &str, diagnostic: &Diagnostic) -> bool {
        let Ok(rules) = &self.rules else {
            return false;
        };
        rules.iter().any(|rule| rule.name == diagnostic.rule.name)
            && self
                .places
                .iter()
                .any(|(pointer, span)| is_inside(path, pointer, *span, diagnostic))
    }
}

/// Whether `diagnostic` is at or under `pointer` of the manifest at `path`,
/// or is in other code and points back into the value there (`span`).
fn is_inside(path: &str, pointer: &str, span: Option<Span>, diagnostic: &Diagnostic) -> bool {
    if diagnostic.path == path {
        return is_under(&diagnostic.pointer, pointer);
    }
    span.is_some_and(|within| {
        diagnostic
            .related
            .iter()
            .any(|r| r.path == path && within.start <= r.span.start && r.span.end <= within.end)
    })
}

/// Whether `pointer` is `ancestor` or a pointer under it.
fn is_under(pointer: &str, ancestor: &str) -> bool {
    pointer
        .strip_prefix(ancestor)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// The inline ignores of the tools of `manifest`.
fn inline(manifest: &Manifest) -> Vec<Ignore> {
    let format = manifest.format();
    if !carry::has_x_toolc(format) {
        return Vec::new();
    }
    let mut ignores = Vec::new();
    for tool in &manifest.toolset.tools {
        let path = carry::ignore_path(format, &tool.origin);
        let Some(list_at) = path.last() else {
            continue;
        };
        let Some(list) = manifest.raw(list_at) else {
            continue;
        };
        let place = || vec![(tool.origin.clone(), member_span(manifest, &tool.origin))];
        let entry = |pointer: String, is_item: bool| Entry {
            pointer,
            path: path.clone(),
            tool: tool.name.clone(),
            is_item,
        };
        let Value::Array(items) = list else {
            ignores.push(Ignore {
                rules: Err(format!(
                    "\"{}\" is a list of rule names, codes or code prefixes, not {}",
                    carry::IGNORE,
                    json::kind_of(list)
                )),
                places: Vec::new(),
                entry: Some(entry(list_at.clone(), false)),
                used: false,
            });
            continue;
        };
        for (i, item) in items.iter().enumerate() {
            let rules = match item {
                Value::String(text) => Selector::parse(text).map(|s| s.rules().to_vec()),
                other => Err(format!(
                    "an entry is a rule name, code or code prefix, not {}",
                    json::kind_of(other)
                )),
            };
            ignores.push(Ignore {
                rules,
                places: place(),
                entry: Some(entry(json::join(list_at, i), true)),
                used: false,
            });
        }
    }
    ignores
}

/// A `toolc.toml` ignore, with its tools found in `manifest`.
fn configured(manifest: &Manifest, scoped: &ScopedIgnore) -> Ignore {
    let tools = manifest
        .toolset
        .tools
        .iter()
        .filter(|tool| scoped.tools.contains(&tool.name))
        .map(|tool| tool.origin.clone());
    let places = tools
        .chain(scoped.pointers.iter().cloned())
        .map(|pointer| {
            let span = member_span(manifest, &pointer);
            (pointer, span)
        })
        .collect();
    Ignore {
        rules: Ok(scoped.rules.iter().filter_map(|n| rules::find(n)).collect()),
        places,
        entry: None,
        used: false,
    }
}

/// The text of the value at `pointer` with its key, when it is an
/// object's member: findings in code point back at the key of an
/// AgentStack tool (`"fetch": {...}`), which is the tool's too.
fn member_span(manifest: &Manifest, pointer: &str) -> Option<Span> {
    let map = &manifest.document.map;
    let value = map.value_span(pointer)?;
    let start = map
        .key_span(pointer)
        .map_or(value.start, |key| key.start.min(value.start));
    Some(Span::new(start, value.end))
}

/// Whether `rule`'s checks ran on `manifest`: only then can an ignore of
/// it be of no use. (`tool-drift` checks only with `--locked`.)
fn ran(manifest: &Manifest, rule: &Rule) -> bool {
    manifest.settings.runs(rule)
        && (rule.name != tool_drift::RULE.name || manifest.settings.lock.is_some())
}

/// The `unused-ignore` finding of an inline entry, with its fix.
fn unused_finding(
    manifest: &Manifest,
    entry: &Entry,
    rules: &Result<Vec<&'static Rule>, String>,
) -> Diagnostic {
    let text = manifest
        .raw(&entry.pointer)
        .and_then(Value::as_str)
        .unwrap_or_default();
    let tool = super::shown(&entry.tool);
    let message = match rules {
        Err(why) if entry.is_item => format!("this ignore suppresses nothing: {why}"),
        Err(why) => why.clone(),
        Ok(_) => format!(
            "ignore \"{text}\" suppresses nothing: tool {tool} has no such finding in this run"
        ),
    };
    let finding = manifest.at_value(&unused_ignore::RULE, entry.pointer.clone(), message);
    if !entry.is_item {
        return finding.with_help("write the rules to ignore as a list: \"ignore\": [\"TC103\"]");
    }
    let fix = removal(manifest, &entry.path, &entry.pointer)
        .map(|edit| Fix::safe("remove the unused ignore", vec![edit]));
    finding
        .with_help("remove it; `toolc lint --fix` does")
        .with_fix(fix)
}

/// The edit that removes the item or member at `pointer`, or, when it is
/// the only one in a container that `removable` lists, that container (and
/// so on outwards): the text around stays as it was.
fn removal(manifest: &Manifest, removable: &[String], pointer: &str) -> Option<Edit> {
    let map = &manifest.document.map;
    let mut target = pointer.to_string();
    loop {
        let (container, _) = target.rsplit_once('/')?;
        let (count, before, next) = neighbours(manifest.raw(container)?, container, &target)?;
        if count == 1 && removable.iter().any(|r| r == container) {
            target = container.to_string();
            continue;
        }
        let start = |at: &str| -> Option<usize> {
            Some(map.key_span(at).unwrap_or(map.value_span(at)?).start)
        };
        let end = |at: &str| map.value_span(at).map(|s| s.end);
        let span = match (before, next) {
            (_, Some(next)) => Span::new(start(&target)?, start(&next)?),
            (Some(before), None) => Span::new(end(&before)?, end(&target)?),
            (None, None) => {
                let inside = map.value_span(container)?;
                Span::new(inside.start + 1, inside.end.checked_sub(1)?)
            }
        };
        return Some(Edit {
            span,
            replacement: String::new(),
        });
    }
}

/// How many items or members `value` (at `at`) has, and the pointers of
/// those just before and after its child `target`. An array's are found by
/// index: each entry of a long ignore list costs the same, not the list's
/// length again.
fn neighbours(
    value: &Value,
    at: &str,
    target: &str,
) -> Option<(usize, Option<String>, Option<String>)> {
    let sibling = |i: usize| json::join(at, i);
    match value {
        Value::Array(items) => {
            let index: usize = target.rsplit_once('/')?.1.parse().ok()?;
            let before = index.checked_sub(1).map(sibling);
            let next = (index + 1 < items.len()).then(|| sibling(index + 1));
            Some((items.len(), before, next))
        }
        Value::Object(members) => {
            let keys: Vec<String> = members.keys().map(|key| json::join(at, key)).collect();
            let index = keys.iter().position(|k| k == target)?;
            let before = index.checked_sub(1).map(|i| keys[i].clone());
            Some((keys.len(), before, keys.get(index + 1).cloned()))
        }
        _ => None,
    }
}
