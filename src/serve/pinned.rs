//! `toolc serve --locked`: only tools whose definitions are the ones
//! `toolc.lock` pins are served.
//!
//! At start and at every `--watch` reload alike, each tool is compared
//! with its pin ([`crate::lock::compare`], as `lint --locked` compares
//! it): a tool not pinned, or whose definition differs from its pin, is
//! withheld (not listed, not callable), and stderr says which and what
//! changed. Withholding rather than serving the old pinned definition is
//! the safe choice: the reloaded manifest may run the tool differently
//! too, and a model told the reviewed description of a tool that now does
//! something else is what pinning is meant to prevent. Under `--watch`, a
//! tool whose definition changes is so withdrawn: clients are told the
//! list changed (the tool is gone from it), and the new definition is
//! never listed; it comes back once the file matches its pin again or
//! the pin is updated (`toolc lock --update`) and the server restarted.
//!
//! The tools of a NATS fleet (`--nats-url`) are checked the same way, at
//! start and at every poll ([`admit_fleet`]): read as `toolc lock
//! --nats-url` reads them (the fleet's MCP document, named
//! `nats://<server>`, through the front end) and compared with the pins of
//! that source. A tool withheld is not listed and a call of it is refused
//! as a call of an unknown tool; it comes back when the fleet serves it as
//! pinned again.

use std::collections::{HashMap, HashSet};

use crate::ir::{Format, ToolSet};
use crate::lock::{self, Drift, Keys, Lock, Pins};
use crate::nats::discover;
use crate::project::{HeldDocument, LoadOptions, Loaded};

/// A lock, its file as messages name it, and how it names the sources.
#[derive(Debug, Clone)]
pub(crate) struct Pinned {
    pub(crate) lock: Lock,
    pub(crate) shown: String,
    pub(crate) keys: Keys,
}

/// Removes from `toolsets` every tool that differs from its pin; one line
/// for each tool withheld or pinned and gone.
pub(crate) fn withhold_drifted(toolsets: &mut [ToolSet], pinned: &Pinned) -> Vec<String> {
    let none = Pins::new();
    let file = &pinned.shown;
    let mut told = Vec::new();
    for set in toolsets.iter_mut() {
        let pins = pinned
            .lock
            .source(&pinned.keys.key(&set.path))
            .unwrap_or(&none);
        let keyed: HashMap<String, usize> = lock::keyed(set).into_iter().collect();
        let drifts = lock::compare(pins, &lock::definitions(set));
        let mut withheld = vec![false; set.tools.len()];
        for drift in drifts {
            let tool = drift.tool().to_string();
            let source = &set.path;
            told.push(match drift {
                Drift::Added { .. } => format!(
                    "tool {tool:?} of {source} is not served: it is not pinned in {file}"
                ),
                Drift::Removed { .. } => {
                    format!("tool {tool:?}, pinned in {file}, is gone from {source}")
                }
                Drift::Changed { changes, .. } => {
                    let described: Vec<String> =
                        changes.iter().map(lock::Change::describe).collect();
                    format!(
                        "tool {tool:?} of {source} is not served: it changed since {file} pinned it: {}",
                        described.join("; ")
                    )
                }
            });
            if let Some(&index) = keyed.get(&tool) {
                withheld[index] = true;
            }
        }
        let mut withheld = withheld.into_iter();
        set.tools.retain(|_| !withheld.next().unwrap_or(false));
    }
    told
}

/// The tools of a NATS fleet whose document is `source` (its
/// `nats://<server>`) that match their pins, and one line for each tool
/// withheld or pinned and gone ([`withhold_drifted`]). The tools are read
/// as `toolc lock --nats-url` reads them: their MCP document through the
/// front end; a document it cannot read withholds every tool.
pub(crate) fn admit_fleet(
    tools: Vec<discover::Tool>,
    source: &str,
    pinned: &Pinned,
) -> (Vec<discover::Tool>, Vec<String>) {
    let held = HeldDocument {
        path: source.to_string(),
        format: Format::Mcp,
        text: discover::document(&tools),
    };
    let mut toolsets = match held.load(&LoadOptions::default()) {
        Loaded::Manifest(manifest) => vec![manifest.toolset],
        Loaded::Failed(failure) => {
            let told = format!(
                "no tool of {source} is served: its tools cannot be read to compare them with {}: {}",
                pinned.shown, failure.problem.message
            );
            return (Vec::new(), vec![told]);
        }
        Loaded::Skipped(_) | Loaded::WalkProblem(_) => {
            let told = format!(
                "no tool of {source} is served: its tools cannot be read to compare them with {}",
                pinned.shown
            );
            return (Vec::new(), vec![told]);
        }
    };
    let told = withhold_drifted(&mut toolsets, pinned);
    let kept: HashSet<&str> = toolsets
        .iter()
        .flat_map(|set| set.tools.iter().map(|tool| tool.name.as_str()))
        .collect();
    let admitted = tools
        .into_iter()
        .filter(|tool| kept.contains(tool.name.as_str()))
        .collect();
    (admitted, told)
}
