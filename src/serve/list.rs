//! `tools/list`: the served tools' MCP entries, written by
//! [`crate::emit::mcp`] (the same entries `toolc gen mcp` writes) and
//! paginated past the page size with an opaque cursor. The cursor names
//! the list it paged (a digest of the entries) as well as the offset: under
//! `--watch` the list can change between two pages, and a cursor of the
//! old list is refused (list again from the start) rather than giving a
//! page that skips or repeats tools.

use rmcp::ErrorData;
use rmcp::model::{ListToolsResult, PaginatedRequestParams, Tool};
use serde_json::Value;

use super::log;
use crate::ir::ToolSet;

/// What every cursor starts with; then a digest of the list it pages
/// (its tag), `-` and the offset of the page.
const CURSOR_PREFIX: &str = "toolc-page-";

/// The MCP entries of every tool of `toolsets`, in manifest order.
pub(super) fn tools(toolsets: &[ToolSet]) -> Vec<Tool> {
    let document = crate::emit::mcp::document(toolsets);
    let entries = match document.get("tools") {
        Some(Value::Array(entries)) => entries.clone(),
        _ => Vec::new(),
    };
    entries
        .into_iter()
        .map(without_carried)
        .filter_map(tool)
        .collect()
}

/// The entry without the `"x-toolc"` object of its `_meta` (how toolc
/// runs the tool is not the client's business), and without a `_meta`
/// left empty.
fn without_carried(mut entry: Value) -> Value {
    if let Some(object) = entry.as_object_mut() {
        let empty = match object.get_mut("_meta") {
            Some(Value::Object(meta)) => {
                meta.remove(crate::formats::carry::X_TOOLC);
                meta.is_empty()
            }
            _ => false,
        };
        if empty {
            object.remove("_meta");
        }
    }
    entry
}

/// One entry as rmcp's `Tool`. An entry rmcp cannot read whole keeps its
/// name, title, description and input schema (and the rest is logged).
fn tool(entry: Value) -> Option<Tool> {
    match serde_json::from_value::<Tool>(entry.clone()) {
        Ok(tool) => Some(tool),
        Err(error) => {
            let name = entry.get("name").and_then(Value::as_str).unwrap_or("?");
            log::warn(format_args!(
                "tool \"{name}\": its MCP entry is listed without its optional members ({error})"
            ));
            let mut kept = serde_json::Map::new();
            for key in ["name", "title", "description", "inputSchema"] {
                if let Some(value) = entry.get(key) {
                    kept.insert(key.to_string(), value.clone());
                }
            }
            match serde_json::from_value::<Tool>(Value::Object(kept)) {
                Ok(tool) => Some(tool),
                Err(error) => {
                    log::error(format_args!(
                        "tool \"{name}\" is not served: its MCP entry is unreadable ({error})"
                    ));
                    None
                }
            }
        }
    }
}

/// The page of `tools` that `request`'s cursor names (the first without
/// one), at most `page_size` long, with the cursor of the next page when
/// there is one. A cursor this server did not give is an invalid-params
/// error.
pub(super) fn page(
    tools: &[Tool],
    request: Option<&PaginatedRequestParams>,
    page_size: usize,
) -> Result<ListToolsResult, ErrorData> {
    let tag = list_tag(tools);
    let start = match request.and_then(|r| r.cursor.as_deref()) {
        None => 0,
        Some(cursor) => match parse(cursor) {
            Some((of, offset)) if of == tag && offset <= tools.len() => offset,
            Some((of, _)) if of == tag => {
                return Err(ErrorData::invalid_params(
                    format!("cursor \"{cursor}\" points past the end of the tool list"),
                    None,
                ));
            }
            Some(_) => {
                return Err(ErrorData::invalid_params(
                    format!(
                        "cursor \"{cursor}\" pages a tool list that has changed since: list \
                         again without a cursor"
                    ),
                    None,
                ));
            }
            None => {
                return Err(ErrorData::invalid_params(
                    format!("unknown cursor \"{cursor}\": pass a nextCursor this server returned"),
                    None,
                ));
            }
        },
    };
    let size = page_size.max(1);
    let end = start.saturating_add(size).min(tools.len());
    let mut result = ListToolsResult::with_all_items(tools[start..end].to_vec());
    if end < tools.len() {
        result.next_cursor = Some(format!("{CURSOR_PREFIX}{tag:016x}-{end}"));
    }
    Ok(result)
}

/// The list tag and the offset a cursor names.
fn parse(cursor: &str) -> Option<(u64, usize)> {
    let (tag, digits) = cursor.strip_prefix(CURSOR_PREFIX)?.split_once('-')?;
    if tag.len() != 16 || digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((u64::from_str_radix(tag, 16).ok()?, digits.parse().ok()?))
}

/// A digest of the entries (as listed), naming this list in its cursors.
fn list_tag(tools: &[Tool]) -> u64 {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    for tool in tools {
        hasher.update(serde_json::to_vec(tool).unwrap_or_default());
        hasher.update([0]);
    }
    let digest = hasher.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(names: &[&str]) -> Vec<Tool> {
        names
            .iter()
            .map(|n| {
                serde_json::from_value(
                    serde_json::json!({"name": n, "inputSchema": {"type": "object"}}),
                )
                .unwrap()
            })
            .collect()
    }

    fn with_cursor(cursor: &str) -> PaginatedRequestParams {
        serde_json::from_value(serde_json::json!({"cursor": cursor})).unwrap()
    }

    #[test]
    fn pages_follow_each_other_to_the_end() {
        let tools = named(&["a", "b", "c", "d", "e"]);
        let first = page(&tools, None, 2).unwrap();
        assert_eq!(first.tools.len(), 2);
        let cursor = first.next_cursor.unwrap();
        let second = page(&tools, Some(&with_cursor(&cursor)), 2).unwrap();
        assert_eq!(second.tools[0].name, "c");
        let third = page(&tools, Some(&with_cursor(&second.next_cursor.unwrap())), 2).unwrap();
        assert_eq!(third.tools.len(), 1);
        assert_eq!(third.next_cursor, None);
    }

    #[test]
    fn a_cursor_of_a_changed_list_is_refused() {
        let before = named(&["a", "b", "c"]);
        let cursor = page(&before, None, 1).unwrap().next_cursor.unwrap();
        let after = named(&["b", "c"]);
        let error = page(&after, Some(&with_cursor(&cursor)), 1).unwrap_err();
        assert_eq!(error.code, rmcp::model::ErrorCode::INVALID_PARAMS);
        assert!(error.message.contains("changed"), "{}", error.message);
        assert_eq!(
            page(&before, Some(&with_cursor(&cursor)), 1).unwrap().tools[0].name,
            "b"
        );
    }

    #[test]
    fn foreign_cursors_are_invalid_params() {
        let tools = named(&["a"]);
        for cursor in ["", "7", "toolc-page-", "toolc-page-x", "toolc-page-9"] {
            let error = page(&tools, Some(&with_cursor(cursor)), 2).unwrap_err();
            assert_eq!(
                error.code,
                rmcp::model::ErrorCode::INVALID_PARAMS,
                "{cursor}"
            );
        }
    }
}
