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

use std::collections::HashMap;

use crate::ir::ToolSet;
use crate::lock::{self, Drift, Keys, Lock, Pins};

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
