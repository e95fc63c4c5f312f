//! agentcli `tools.json`: `{"tools": [ToolSpec]}`, each tool a program run
//! with an argv, JSON arguments on stdin and one JSON line on stdout.

use serde_json::Value;

use super::{
    lower_entries, no_parameters_shared, string_field, string_list, tool_entries, tool_extensions,
};
use crate::ir::{Format, Layout, LayoutPieces, Runtime, Tool};
use crate::json::Document;

/// The file an agentcli manifest is, with every tool in it.
pub(crate) const FILE_NAME: &str = "tools.json";

const KNOWN: &[&str] = &[
    "name",
    "description",
    "schema",
    "command",
    "timeoutSec",
    "envPassthrough",
];

pub(super) fn lower(value: &Value) -> Vec<Tool> {
    lower_entries(tool_entries(value), |(origin, entry)| {
        let object = entry.as_object()?;
        let name = string_field(object, "name").unwrap_or_default();
        let mut tool = Tool::new(name, format!("{origin}/name"), origin.clone());
        tool.description = string_field(object, "description");
        match object.get("schema") {
            Some(_) => tool.parameters_at = Some(format!("{origin}/schema")),
            None => tool.parameters = Some(no_parameters_shared()),
        }
        tool.runtime = Runtime::Command {
            argv: string_list(object.get("command")),
            timeout_sec: object.get("timeoutSec").and_then(Value::as_u64),
            env_passthrough: string_list(object.get("envPassthrough")),
        };
        tool.extra.extensions = tool_extensions(object, KNOWN);
        Some(tool)
    })
}

/// Gives each tool the text of its entry and the file's text around the
/// entries (see [`Layout`]), when every entry of the file's `tools` array
/// is one of `tools`, in order.
pub(super) fn record_layouts(document: &Document, tools: &mut [Tool]) {
    let entries = document
        .value
        .get("tools")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    if entries == 0 || entries != tools.len() {
        return;
    }
    let spans: Option<Vec<_>> = tools
        .iter()
        .map(|tool| document.map.value_span(&tool.origin))
        .collect();
    let Some(spans) = spans else {
        return;
    };
    let text = document.map.shared_text();
    let in_order = spans.windows(2).all(|pair| pair[0].end <= pair[1].start);
    let (Some(first), Some(last)) = (spans.first(), spans.last()) else {
        return;
    };
    if !in_order {
        return;
    }
    let mut layouts = Vec::with_capacity(spans.len());
    let mut previous_end = None;
    for span in &spans {
        let pieces = LayoutPieces {
            head: 0..first.start,
            before: previous_end.map(|end| end..span.start),
            entry: span.start..span.end,
            tail: last.end..text.len(),
        };
        let Some(layout) = Layout::of_text(Format::Agentcli, text.clone(), pieces) else {
            return;
        };
        previous_end = Some(span.end);
        layouts.push(layout);
    }
    for (tool, layout) in tools.iter_mut().zip(layouts) {
        tool.extra.layout = Some(Box::new(layout));
    }
}
