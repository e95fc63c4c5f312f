//! ## What it does
//! Reports a Nachos tool manifest whose package holds TypeScript sources but
//! no class whose `toolId` is the manifest's `provides.tool`.
//!
//! The package is the manifest's directory (its `.ts` files) and its `src/`
//! folder (recursively), without `node_modules` and declaration files
//! (`.d.ts`). The files are read with a real TypeScript parser; the class
//! must set `toolId` to a string literal. A package without any `.ts` file
//! (a manifest kept apart from its code, or a compiled package) is not
//! checked: toolc cannot see the code, and says nothing rather than guess.
//! A file that does not parse is named in the message.
//!
//! ## Why is this bad?
//! The Nachos gateway routes `nachos.tool.<toolId>.request` to the class
//! that registers that id; a manifest that names an id no class provides
//! declares a tool nothing answers. toolc also takes the tool's parameters
//! from that class, so without it the tool's schema is unknown.
//!
//! ## Example
//! `manifest.json`:
//! ```json
//! {"name": "Web Fetch", "version": "0.2.0", "type": "tool",
//!  "provides": {"tool": "web_fetch", "securityTier": 1}}
//! ```
//! and `src/fetch.ts`:
//! ```ts
//! export class FetchTool implements Tool {
//!   readonly toolId = 'fetch_url';
//! }
//! ```
//!
//! ## Use instead
//! Make the class's `toolId` and `provides.tool` the same:
//! ```ts
//! export class FetchTool implements Tool {
//!   readonly toolId = 'web_fetch';
//! }
//! ```

use crate::diagnostic::Severity;
use crate::ir::Format;
use crate::lint::findings::Findings;
use crate::lint::{Manifest, Rule};
use crate::typescript;

pub(crate) const RULE: Rule = Rule {
    name: "nachos-class-missing",
    code: "TC603",
    severity: Severity::Warning,
    summary: "no TypeScript class in a Nachos package has the manifest's toolId",
    fixable: false,
    targets: &[],
};

/// The tool id and the result of searching the package for its class;
/// `None` when the manifest is no Nachos tool with a tool id.
pub(crate) fn search<'m>(manifest: &Manifest<'m>) -> Option<(&'m str, &'m typescript::Search)> {
    if manifest.format() != Format::Nachos {
        return None;
    }
    let loaded = manifest.loaded;
    let tool = loaded.toolset.tools.first()?;
    if tool.name.is_empty() {
        return None;
    }
    Some((&tool.name, loaded.code.class_search(0)?))
}

/// A package file's path as shown in messages: relative to the manifest's
/// directory, with `/` separators.
pub(crate) fn shown_path(manifest: &Manifest, path: &std::path::Path) -> String {
    let relative = path.strip_prefix(&manifest.dir).unwrap_or(path);
    relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

pub(crate) fn check(manifest: &Manifest, out: &mut Findings) {
    let Some((tool_id, search)) = search(manifest) else {
        return;
    };
    if search.files == 0 || search.found.is_some() {
        return;
    }
    let count = search.files;
    let files = if count == 1 { "file" } else { "files" };
    let mut message = format!(
        "no TypeScript class in this package has toolId \"{tool_id}\" ({count} .ts {files} searched)"
    );
    for (path, reason) in &search.unreadable {
        message.push_str(&format!("; {} {reason}", shown_path(manifest, path)));
    }
    out.push(
        manifest
            .at_value(&RULE, "/provides/tool", message)
            .with_help(format!(
                "give the tool's class `readonly toolId = '{tool_id}'`, or make provides.tool the class's toolId"
            )),
    );
}
