//! The one check for a tool name declared by two manifests.
//!
//! lint reports such a name among manifests registered together (sibling
//! tool directories), gen refuses to write one document with both, and the
//! runner cannot tell which one a call means. All three ask this function.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

pub use crate::formats::declares_runtime;
use crate::ir::{Format, ToolSet};

/// A tool name as declared: the group of manifests it is registered in
/// (every manifest of a run is one group for gen and run), the name and the
/// manifest's path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NameEntry<'a> {
    pub group: &'a str,
    pub name: &'a str,
    pub path: &'a str,
}

impl<'a> NameEntry<'a> {
    /// Every tool name of `toolsets`, all in one group (one request, one
    /// runner).
    pub fn of_toolsets(toolsets: &'a [ToolSet]) -> Vec<NameEntry<'a>> {
        toolsets
            .iter()
            .flat_map(|set| {
                set.tools.iter().map(|tool| NameEntry {
                    group: "",
                    name: &tool.name,
                    path: &set.path,
                })
            })
            .collect()
    }
}

/// A name declared again in another manifest of the same group: indices
/// into the entries given, `first` in path order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NameClash {
    pub first: usize,
    pub again: usize,
}

/// Which repeats of a name count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repeats {
    /// Only a name another manifest of the group declared: a name
    /// repeated within one manifest is that manifest's own finding (lint's
    /// per-file rule reports it).
    AcrossManifests,
    /// Any repeat: the runner cannot call a name that means two tools.
    Anywhere,
}

/// Every later declaration of a name already declared in its group, in
/// path order (entries of one path keep the order given).
pub fn name_clashes(entries: &[NameEntry], repeats: Repeats) -> Vec<NameClash> {
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by(|&a, &b| entries[a].path.cmp(entries[b].path));
    // Hashed, not ordered: the clashes come out in `order`, and a run can
    // hold a hundred thousand names that share long prefixes.
    let mut first: HashMap<(&str, &str), usize> = HashMap::with_capacity(entries.len());
    let mut clashes = Vec::new();
    for index in order {
        let entry = &entries[index];
        if entry.name.is_empty() {
            continue;
        }
        match first.entry((entry.group, entry.name)) {
            Entry::Occupied(earlier) => {
                let earlier = *earlier.get();
                if repeats == Repeats::Anywhere || entries[earlier].path != entry.path {
                    clashes.push(NameClash {
                        first: earlier,
                        again: index,
                    });
                }
            }
            Entry::Vacant(slot) => {
                slot.insert(index);
            }
        }
    }
    clashes
}

/// One manifest, as [`views`] sees it.
#[derive(Debug, Clone)]
pub struct ViewCandidate<'a> {
    /// As shown.
    pub path: &'a str,
    /// It declares tools of its own (see [`is_source`]).
    pub source: bool,
    /// `toolc gen` marked it as written from others.
    pub generated: bool,
    pub names: Vec<&'a str>,
}

/// Where the sources of a view may be: under the parent of a provider
/// list's directory (`toolc gen openai -o openai.json .`, or
/// `-o dist/openai.json tools/`), anywhere for a manifest `toolc gen`
/// marked as generated. A path prefix; empty for anywhere.
pub fn view_scope(path: &str, generated: bool) -> String {
    if generated {
        return String::new();
    }
    let dir = std::path::Path::new(path).parent();
    match dir.and_then(std::path::Path::parent) {
        Some(scope) if !scope.as_os_str().is_empty() => {
            format!("{}/", scope.to_string_lossy().trim_end_matches('/'))
        }
        _ => String::new(),
    }
}

/// Which manifests of a run are views of others: a manifest that declares
/// no tools of its own (a provider tool list, OpenAI, Anthropic or MCP, or
/// a manifest `toolc gen` marked as written from others) each of whose
/// tools a source manifest in its [`view_scope`] declares, by name, as
/// `toolc gen` writes one. A view repeats those tools rather than
/// clashing with them; gen and convert leave it out of their input, lint
/// checks it is still up to date. The scope keeps a tool list of one
/// project from being taken for a view of another's that happens to
/// declare the same names.
///
/// The answer is in the order given: each view's scope, `None` for a
/// manifest that is no view.
pub fn views(manifests: &[ViewCandidate]) -> Vec<Option<String>> {
    let mut sources: Vec<&ViewCandidate> = manifests.iter().filter(|m| m.source).collect();
    sources.sort_by(|a, b| a.path.cmp(b.path));
    manifests
        .iter()
        .map(|candidate| {
            if candidate.source || candidate.names.is_empty() {
                return None;
            }
            let scope = view_scope(candidate.path, candidate.generated);
            let first = sources.partition_point(|s| s.path < scope.as_str());
            let declared: std::collections::HashSet<&str> = sources[first..]
                .iter()
                .take_while(|s| s.path.starts_with(&scope))
                .flat_map(|s| s.names.iter().copied())
                .collect();
            candidate
                .names
                .iter()
                .all(|name| !name.is_empty() && declared.contains(name))
                .then_some(scope)
        })
        .collect()
}

/// Whether a manifest of `format` declares tools of its own: they run
/// somewhere (a program, a script, a package's code), and `toolc gen` did
/// not write it from other manifests (`generated`, see
/// [`crate::formats::carry::mark_generated`]).
pub fn is_source(format: Format, generated: bool) -> bool {
    declares_runtime(format) && !generated
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry<'a>(group: &'a str, name: &'a str, path: &'a str) -> NameEntry<'a> {
        NameEntry { group, name, path }
    }

    #[test]
    fn reports_later_declarations_in_path_order() {
        let entries = [
            entry("g", "fetch", "b/tool.json"),
            entry("g", "fetch", "a/tool.json"),
            entry("h", "fetch", "c/tool.json"),
            entry("g", "fetch", "c/tool.json"),
        ];
        assert_eq!(
            name_clashes(&entries, Repeats::AcrossManifests),
            vec![
                NameClash { first: 1, again: 0 },
                NameClash { first: 1, again: 3 },
            ]
        );
    }

    #[test]
    fn a_name_repeated_in_one_manifest_is_no_clash() {
        let entries = [
            entry("g", "fetch", "a/tools.json"),
            entry("g", "fetch", "a/tools.json"),
            entry("g", "", "b/tools.json"),
            entry("g", "", "c/tools.json"),
        ];
        assert!(name_clashes(&entries, Repeats::AcrossManifests).is_empty());
        assert_eq!(
            name_clashes(&entries, Repeats::Anywhere),
            vec![NameClash { first: 0, again: 1 }]
        );
    }
}
