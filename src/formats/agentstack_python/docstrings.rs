//! The parameter descriptions a docstring gives, in the three styles
//! Python projects use: Google (`Args:`), NumPy (`Parameters` underlined)
//! and reST (`:param name:`), and its description: every line before the
//! first section, as written (as LangChain's and CrewAI's tool wrappers
//! take it: the text before the sections).

/// What a docstring says: its description and each parameter's text.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Docs {
    /// The lines before the first section (`Args:`, a NumPy heading, a
    /// reST field), as written.
    pub(super) description: Option<String>,
    pub(super) params: Vec<(String, String)>,
}

pub(super) fn parse_docstring(doc: &str) -> Docs {
    // Split on `\n` alone: a `\r` in the text is the text's (Python has
    // made the source's line ends `\n`).
    let lines: Vec<&str> = doc.split('\n').collect();
    let description = description(&lines);
    let mut params = google_params(&lines);
    for (name, text) in numpy_params(&lines).into_iter().chain(rest_params(&lines)) {
        if !params.iter().any(|(n, _)| *n == name) {
            params.push((name, text));
        }
    }
    Docs {
        description,
        params,
    }
}

/// The lines before the first section, as written (no reflowing: a line
/// break in a tool's description is the description's, and a docstring
/// toolc writes must read back as the text it was written from), without
/// the blank lines around them.
fn description(lines: &[&str]) -> Option<String> {
    let end = (0..lines.len())
        .find(|&at| {
            let line = lines[at].trim();
            is_section_header(line) || line.starts_with(':') || underlined(lines, at)
        })
        .unwrap_or(lines.len());
    let before = &lines[..end];
    let first = before.iter().position(|l| !l.trim().is_empty())?;
    let last = before.iter().rposition(|l| !l.trim().is_empty())?;
    Some(before[first..=last].join("\n"))
}

/// Whether the line at `at` is a NumPy section heading: text underlined
/// by a line of `-` (or `=`) on the next line.
fn underlined(lines: &[&str], at: usize) -> bool {
    let Some(next) = lines.get(at + 1).map(|l| l.trim()) else {
        return false;
    };
    !lines[at].trim().is_empty()
        && next.len() >= 3
        && (next.chars().all(|c| c == '-') || next.chars().all(|c| c == '='))
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

fn is_section_header(line: &str) -> bool {
    matches!(
        line.trim(),
        "Args:"
            | "Arguments:"
            | "Parameters:"
            | "Params:"
            | "Keyword Args:"
            | "Keyword Arguments:"
            | "Returns:"
            | "Raises:"
            | "Yields:"
            | "Examples:"
            | "Example:"
            | "Note:"
            | "Notes:"
            | "Return:"
            | "Yield:"
            | "Attributes:"
            | "Other Parameters:"
            | "See Also:"
            | "Warning:"
            | "Warnings:"
            | "Todo:"
    )
}

/// A parameter name as a docstring writes it: `*args` and `**kw` lose
/// their stars.
fn doc_name(name: &str) -> Option<String> {
    let name = name.trim().trim_start_matches('*');
    (!name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_'))
        .then(|| name.to_string())
}

fn push_text(text: &mut String, more: &str) {
    let more = more.trim();
    if more.is_empty() {
        return;
    }
    if !text.is_empty() {
        text.push(' ');
    }
    text.push_str(more);
}

/// Google style: `Args:` then `name: text` or `name (type): text`, with
/// continuation lines indented deeper.
fn google_params(lines: &[&str]) -> Vec<(String, String)> {
    let mut params: Vec<(String, String)> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let header = lines[i].trim();
        if !matches!(
            header,
            "Args:"
                | "Arguments:"
                | "Parameters:"
                | "Params:"
                | "Keyword Args:"
                | "Keyword Arguments:"
        ) {
            i += 1;
            continue;
        }
        let header_indent = indent(lines[i]);
        let mut entry_indent = None;
        i += 1;
        while i < lines.len() {
            let line = lines[i];
            if line.trim().is_empty() {
                i += 1;
                continue;
            }
            let at = indent(line);
            if at <= header_indent {
                break;
            }
            let entry_at = *entry_indent.get_or_insert(at);
            if at <= entry_at {
                if let Some((head, text)) = line.trim().split_once(':') {
                    let name = head.split_once('(').map_or(head, |(n, _)| n);
                    if let Some(name) = doc_name(name) {
                        let mut description = String::new();
                        push_text(&mut description, text);
                        params.push((name, description));
                    }
                }
            } else if let Some((_, text)) = params.last_mut() {
                push_text(text, line);
            }
            i += 1;
        }
    }
    params
}

/// NumPy style: `Parameters` underlined with dashes, then `name : type`
/// lines with the description indented below.
fn numpy_params(lines: &[&str]) -> Vec<(String, String)> {
    let is_rule = |line: &str| {
        let t = line.trim();
        t.len() >= 3 && t.chars().all(|c| c == '-')
    };
    let mut params: Vec<(String, String)> = Vec::new();
    let mut i = 0;
    while i + 1 < lines.len() {
        let header = lines[i].trim();
        if !(matches!(header, "Parameters" | "Other Parameters") && is_rule(lines[i + 1])) {
            i += 1;
            continue;
        }
        let base = indent(lines[i]);
        i += 2;
        let mut current: Vec<usize> = Vec::new();
        while i < lines.len() {
            let line = lines[i];
            if line.trim().is_empty() {
                i += 1;
                continue;
            }
            if lines.get(i + 1).is_some_and(|next| is_rule(next)) {
                break;
            }
            if indent(line) <= base {
                current.clear();
                let head = line.trim().split_once(':').map_or(line.trim(), |(n, _)| n);
                for name in head.split(',').filter_map(doc_name) {
                    current.push(params.len());
                    params.push((name, String::new()));
                }
            } else {
                for &k in &current {
                    push_text(&mut params[k].1, line);
                }
            }
            i += 1;
        }
    }
    params
}

/// reST style: `:param name: text` or `:param type name: text`, with
/// continuation lines indented.
fn rest_params(lines: &[&str]) -> Vec<(String, String)> {
    let mut params: Vec<(String, String)> = Vec::new();
    let mut in_param = false;
    for line in lines {
        let trimmed = line.trim();
        if let Some(field) = trimmed.strip_prefix(':') {
            in_param = false;
            let Some((head, text)) = field.split_once(':') else {
                continue;
            };
            let mut words = head.split_whitespace();
            if !matches!(
                words.next(),
                Some("param" | "parameter" | "arg" | "argument" | "key" | "keyword")
            ) {
                continue;
            }
            if let Some(name) = words.last().and_then(doc_name) {
                let mut description = String::new();
                push_text(&mut description, text);
                params.push((name, description));
                in_param = true;
            }
        } else if in_param && !trimmed.is_empty() && indent(line) > 0 {
            if let Some((_, text)) = params.last_mut() {
                push_text(text, trimmed);
            }
        } else {
            in_param = false;
        }
    }
    params
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn google_docstrings() {
        let docs = parse_docstring(
            "Search the web.\n\nLonger text.\n\nArgs:\n    query (str): What to look for.\n    limit: How many\n        results to return.\n    *args: Ignored.\n\nReturns:\n    limit: not a parameter.\n",
        );
        assert_eq!(
            docs.description.as_deref(),
            Some("Search the web.\n\nLonger text.")
        );
        assert_eq!(
            docs.params,
            vec![
                ("query".to_string(), "What to look for.".to_string()),
                (
                    "limit".to_string(),
                    "How many results to return.".to_string()
                ),
                ("args".to_string(), "Ignored.".to_string()),
            ]
        );
    }

    #[test]
    fn numpy_docstrings() {
        let docs = parse_docstring(
            "Resize an image.\n\nParameters\n----------\nwidth, height : int\n    New size\n    in pixels.\nmode : {'fit', 'fill'}, optional\n    How to resize.\n\nReturns\n-------\nstr\n    The path.\n",
        );
        assert_eq!(docs.description.as_deref(), Some("Resize an image."));
        assert_eq!(
            docs.params,
            vec![
                ("width".to_string(), "New size in pixels.".to_string()),
                ("height".to_string(), "New size in pixels.".to_string()),
                ("mode".to_string(), "How to resize.".to_string()),
            ]
        );
    }

    #[test]
    fn rest_docstrings() {
        let docs = parse_docstring(
            "Send a message.\n\n:param channel: The channel id.\n:param str text: The message\n    body.\n:type text: str\n:returns: the timestamp.\n",
        );
        assert_eq!(docs.description.as_deref(), Some("Send a message."));
        assert_eq!(
            docs.params,
            vec![
                ("channel".to_string(), "The channel id.".to_string()),
                ("text".to_string(), "The message body.".to_string()),
            ]
        );
    }

    /// Every line before the first section, as written, in each style.
    #[test]
    fn descriptions_are_every_line_before_the_sections() {
        let expected = "Fetch a page.\n\nThe body is returned as text,\nat most 1 MB.\n\n\nRedirects are followed.";
        let google = parse_docstring(
            "Fetch a page.\n\nThe body is returned as text,\nat most 1 MB.\n\n\nRedirects are followed.\n\nArgs:\n    url: The page.\n",
        );
        assert_eq!(google.description.as_deref(), Some(expected));
        let numpy = parse_docstring(
            "Fetch a page.\n\nThe body is returned as text,\nat most 1 MB.\n\n\nRedirects are followed.\n\nParameters\n----------\nurl : str\n    The page.\n",
        );
        assert_eq!(numpy.description.as_deref(), Some(expected));
        let rest = parse_docstring(
            "Fetch a page.\n\nThe body is returned as text,\nat most 1 MB.\n\n\nRedirects are followed.\n:param url: The page.\n",
        );
        assert_eq!(rest.description.as_deref(), Some(expected));
        let indented = parse_docstring("  A list:\n    - one  \n    - two\r\n\nArgs:\n");
        assert_eq!(
            indented.description.as_deref(),
            Some("  A list:\n    - one  \n    - two\r")
        );
        let sections_only = parse_docstring("\n\nReturns:\n    The page.\n");
        assert_eq!(sections_only.description, None);
    }

    #[test]
    fn docstrings_without_parameters() {
        assert_eq!(parse_docstring(""), Docs::default());
        let docs = parse_docstring("Args:\n    x: y\n");
        assert_eq!(docs.description, None);
        assert_eq!(docs.params, vec![("x".to_string(), "y".to_string())]);
    }
}
