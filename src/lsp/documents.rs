//! The documents the client has open, and the mapping between `file:`
//! URIs and paths.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use lsp_types::{TextDocumentContentChangeEvent, Uri};

use super::position::{Encoding, LineIndex};

/// An open document: the client's text, not the disk's.
#[derive(Debug, Clone)]
pub struct Document {
    pub uri: Uri,
    pub path: PathBuf,
    pub version: i32,
    pub text: Arc<str>,
    pub lines: Arc<LineIndex>,
}

impl Document {
    pub fn new(uri: Uri, path: PathBuf, version: i32, text: String) -> Document {
        let lines = Arc::new(LineIndex::new(&text));
        Document {
            uri,
            path,
            version,
            text: Arc::from(text),
            lines,
        }
    }

    /// Applies the client's changes in order: a change with a range
    /// replaces that range, one without replaces the whole text.
    pub fn change(
        &mut self,
        version: i32,
        changes: Vec<TextDocumentContentChangeEvent>,
        encoding: Encoding,
    ) {
        let mut text = String::from(&*self.text);
        let mut lines = (*self.lines).clone();
        for change in changes {
            match change.range {
                Some(range) => {
                    let a = lines.offset(&text, range.start, encoding);
                    let b = lines.offset(&text, range.end, encoding);
                    // A range given end first means the same text.
                    let (start, end) = (a.min(b), a.max(b));
                    text.replace_range(start..end, &change.text);
                }
                None => text = change.text,
            }
            lines = LineIndex::new(&text);
        }
        self.version = version;
        self.text = Arc::from(text);
        self.lines = Arc::new(lines);
    }
}

/// The open documents, by path.
#[derive(Debug, Default)]
pub struct Documents {
    open: BTreeMap<PathBuf, Document>,
}

impl Documents {
    pub fn open(&mut self, document: Document) {
        self.open.insert(document.path.clone(), document);
    }

    pub fn close(&mut self, path: &Path) -> Option<Document> {
        self.open.remove(path)
    }

    pub fn get(&self, path: &Path) -> Option<&Document> {
        self.open.get(path)
    }

    pub fn get_mut(&mut self, path: &Path) -> Option<&mut Document> {
        self.open.get_mut(path)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Document> {
        self.open.values()
    }

    /// Every open document's text, by path, for the front end to read in
    /// place of the file.
    pub fn overlay(&self) -> crate::project::Overlay {
        let mut overlay = crate::project::Overlay::new();
        for document in self.open.values() {
            overlay.insert(&document.path, document.text.clone());
        }
        overlay
    }
}

/// The path a `file:` URI names (percent-escapes decoded; a host other
/// than none or `localhost` is not a local file). `None` for other schemes.
pub fn path_of(uri: &Uri) -> Option<PathBuf> {
    let text = uri.as_str();
    let rest = text
        .get(..7)
        .filter(|scheme| scheme.eq_ignore_ascii_case("file://"))
        .map(|_| &text[7..])?;
    let (host, path) = match rest.find('/') {
        Some(at) => (&rest[..at], &rest[at..]),
        None => return None,
    };
    if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
        return None;
    }
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let bytes = decode(path)?;
    Some(path_from_bytes(bytes))
}

#[cfg(unix)]
fn path_from_bytes(bytes: Vec<u8>) -> PathBuf {
    use std::os::unix::ffi::OsStringExt;
    PathBuf::from(std::ffi::OsString::from_vec(bytes))
}

#[cfg(not(unix))]
fn path_from_bytes(bytes: Vec<u8>) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(&bytes).into_owned())
}

fn decode(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'%' {
            let hex = text.get(at + 1..at + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            at += 3;
        } else {
            out.push(bytes[at]);
            at += 1;
        }
    }
    Some(out)
}

/// The `file:` URI of an absolute path: every byte but the unreserved ones
/// and `/` escaped.
pub fn uri_of(path: &Path) -> Option<Uri> {
    use std::fmt::Write as _;
    let bytes = path_bytes(path);
    let mut text = String::from("file://");
    for &byte in bytes.iter() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'/' | b'-' | b'.' | b'_' | b'~') {
            text.push(char::from(byte));
        } else {
            let _ = write!(text, "%{byte:02X}");
        }
    }
    text.parse().ok()
}

#[cfg(unix)]
fn path_bytes(path: &Path) -> std::borrow::Cow<'_, [u8]> {
    use std::os::unix::ffi::OsStrExt;
    std::borrow::Cow::Borrowed(path.as_os_str().as_bytes())
}

#[cfg(not(unix))]
fn path_bytes(path: &Path) -> std::borrow::Cow<'_, [u8]> {
    std::borrow::Cow::Owned(path.to_string_lossy().into_owned().into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_uris_round_trip() {
        for path in ["/w/a b/tool.json", "/w/ünï/ç#x?.json", "/w/100%/x"] {
            let uri = uri_of(Path::new(path)).expect("uri");
            assert_eq!(
                path_of(&uri).as_deref(),
                Some(Path::new(path)),
                "{}",
                uri.as_str()
            );
        }
        let uri: Uri = "file:///w/a%20b/tool.json".parse().expect("uri");
        assert_eq!(path_of(&uri), Some(PathBuf::from("/w/a b/tool.json")));
        let uri: Uri = "file://localhost/w/x.json".parse().expect("uri");
        assert_eq!(path_of(&uri), Some(PathBuf::from("/w/x.json")));
        let uri: Uri = "untitled:Untitled-1".parse().expect("uri");
        assert_eq!(path_of(&uri), None);
    }
}
