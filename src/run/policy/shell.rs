//! Shell commands as the shell reads them, before they run.
//!
//! The text is parsed with tree-sitter's Bash grammar and walked: every
//! simple command in lists, pipelines, subshells, `{ … }` groups,
//! functions, `if`/`while`/`for`/`case` bodies and command or process
//! substitutions becomes one [`Command`], with its words resolved the way
//! the shell resolves them. Quotes are removed and concatenations of
//! plain, `'…'`, `"…"` and `$'…'` parts become one known word; brace
//! expansion (`{a,b}`) makes several words; `~`, `$HOME` and `${HOME}` are
//! kept for the path rules, which expand them to the policy's home. What
//! only exists when the command runs (a command substitution, any other
//! variable, an arithmetic expansion) leaves the word unknown, with the
//! reason. Words as text (escapes, brace expansion, line continuations)
//! are `text`'s. The rules that judge the commands live in `rules`.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use tree_sitter::{Node, Parser};

mod text;

use text::{ansi_c, braces, has_unescaped, unescape_double_quoted};
pub(super) use text::{escape, is_glob, join_lines, too_complex, unescape};

/// One word of a command.
#[derive(Debug, Clone)]
pub(super) struct Word {
    /// The text as written in the command.
    pub source: String,
    /// The word with quotes removed, when it is known before it runs.
    pub value: Option<String>,
    /// The value as a glob pattern: quoted `*?[]{},\` are escaped with
    /// `\`; `None` when the value has no unquoted glob character.
    pub glob: Option<String>,
    /// What makes the value unknown (`None` when known), as a noun:
    /// "the variable `$X`".
    pub unknown: Option<String>,
    /// The commands (indices into [`Script::commands`]) that produce the
    /// word: those of its command and process substitutions.
    pub inner: Vec<usize>,
}

impl Word {
    /// A known word with no pattern characters.
    pub(super) fn literal(text: &str) -> Word {
        Word {
            source: text.to_string(),
            value: Some(text.to_string()),
            glob: None,
            unknown: None,
            inner: Vec::new(),
        }
    }
}

/// Where a command's standard input comes from, besides a terminal.
#[derive(Debug, Clone)]
pub(super) enum Input {
    /// A here-document or here-string (`<<EOF`, `<<<`): its text.
    Text(Word),
    /// The output of the commands before it in a pipeline.
    Pipe(Vec<usize>),
    /// What another command writes into a `>(…)` it is part of.
    Written,
}

/// One output or input redirection, `>`, `>>`, `&>`, `<` ….
#[derive(Debug, Clone)]
pub(super) struct Redirect {
    pub operator: String,
    pub target: Word,
}

/// One simple command: its words (assignments before it left out), its
/// redirections and its inputs.
#[derive(Debug, Clone, Default)]
pub(super) struct Command {
    pub words: Vec<Word>,
    pub redirects: Vec<Redirect>,
    pub inputs: Vec<Input>,
}

/// A shell function: its name, the commands of its body and whether the
/// body starts processes in parallel (a pipeline or `&`).
#[derive(Debug, Clone)]
pub(super) struct Function {
    pub name: String,
    pub body: Range<usize>,
    pub forks: bool,
}

/// A parsed command line.
#[derive(Debug, Default)]
pub(super) struct Script {
    pub commands: Vec<Command>,
    pub functions: Vec<Function>,
    /// Bash would not accept the text as written (tree-sitter recovered
    /// from an error, or read a word followed by `(`): the text may be
    /// code of another language.
    pub malformed: bool,
    /// The text nests deeper than [`MAX_NESTING`]: it was not read whole.
    pub too_deep: bool,
    /// The first quoting only Bash reads as the grammar does (`$'…'`,
    /// `$"…"`): a POSIX `sh` reads it otherwise.
    pub bash_quoting: Option<String>,
    /// Text the grammar reads otherwise than Bash (a `$'…'` it ends late).
    pub misread: Option<String>,
    /// A word is a glob pattern too complex to check, and why.
    pub too_complex: Option<String>,
    /// The values of the variable assignments (`f=/etc/shadow`).
    pub assigned: Vec<Word>,
    /// `~` or `$HOME` is used after an assignment to `HOME`: the policy's
    /// home is then not what they name.
    pub home_reassigned: bool,
}

/// The Bash the built-in `shell` runs its commands with, so that what
/// runs is what the policy parsed; `None` on a machine without one (then
/// `/bin/sh` runs them, and the rules refuse what it reads otherwise).
pub(crate) fn bash() -> Option<&'static Path> {
    static BASH: LazyLock<Option<PathBuf>> = LazyLock::new(|| {
        ["/bin/bash", "/usr/bin/bash"]
            .into_iter()
            .map(PathBuf::from)
            .find(|path| path.is_file())
    });
    BASH.as_deref()
}

/// The most glob patterns one command may have: each is matched against
/// a directory listing, and 40,000 of them took minutes.
const MAX_GLOBS: usize = 512;

/// The deepest nesting of syntax the walk follows (the walk recurses).
pub(super) const MAX_NESTING: usize = 200;

/// `text` parsed; `Err` with a reason when the grammar cannot be used,
/// so that the caller fails closed.
pub(super) fn parse(text: &str) -> Result<Script, String> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .map_err(|error| format!("the shell grammar did not load ({error})"))?;
    let tree = parser
        .parse(text, None)
        .ok_or_else(|| "the shell parser gave no tree".to_string())?;
    let root = tree.root_node();
    let mut walker = Walker {
        text,
        script: Script {
            malformed: root.has_error(),
            ..Script::default()
        },
        written: false,
        depth: 0,
        home_assigned: false,
        tmpdir_assigned: false,
        globs: 0,
    };
    walker.statement(root, &[]);
    Ok(walker.script)
}

struct Walker<'t> {
    text: &'t str,
    script: Script,
    /// Inside a `>(…)`: the commands read what the outer one writes.
    written: bool,
    /// How deep the walk is in the tree.
    depth: usize,
    /// An assignment to `HOME` was read.
    home_assigned: bool,
    /// An assignment to `TMPDIR` was read: `$TMPDIR` is no longer the
    /// call's scratch directory.
    tmpdir_assigned: bool,
    /// The glob patterns read so far (each is matched against the disk).
    globs: usize,
}

/// A word being resolved: its pattern (quoted parts escaped), or why not.
#[derive(Default)]
struct Piece {
    pattern: String,
    unknown: Option<String>,
    inner: Vec<usize>,
}

impl Piece {
    fn unknown(&mut self, why: String) {
        self.unknown.get_or_insert(why);
    }
}

impl<'t> Walker<'t> {
    fn source(&self, node: Node) -> &'t str {
        self.text.get(node.byte_range()).unwrap_or("")
    }

    /// Every command under `node`; `upstream` are the commands whose
    /// output a pipeline feeds into this part.
    fn statement(&mut self, node: Node, upstream: &[usize]) {
        if !self.enter() {
            return;
        }
        self.statement_inner(node, upstream);
        self.depth -= 1;
    }

    /// One level deeper; `false` (and the script marked) past the limit.
    fn enter(&mut self) -> bool {
        if self.depth >= MAX_NESTING {
            self.script.too_deep = true;
            return false;
        }
        self.depth += 1;
        true
    }

    fn statement_inner(&mut self, node: Node, upstream: &[usize]) {
        match node.kind() {
            "command" => self.command(node, upstream),
            "pipeline" => self.pipeline(node, upstream),
            "redirected_statement" => self.redirected(node, upstream),
            "function_definition" => self.function(node, upstream),
            "variable_assignment" => self.assignment(node),
            "for_statement" => self.for_loop(node, upstream),
            "command_substitution" | "process_substitution" => {
                let mut piece = Piece::default();
                self.substitution(node, &mut piece);
            }
            _ => {
                if node.is_missing() {
                    self.script.malformed = true;
                }
                let mut cursor = node.walk();
                let children: Vec<Node> = node.named_children(&mut cursor).collect();
                for child in children {
                    self.statement(child, upstream);
                }
            }
        }
    }

    /// `NAME=value`: its value is kept (it may name a file) and its
    /// substitutions are walked.
    fn assignment(&mut self, node: Node) {
        let name = node.child_by_field_name("name");
        if let Some(name) = name {
            // `a[$(…)]=1`: the subscript's substitutions run.
            self.nested(name, &mut Piece::default());
        }
        let name = name.map(|n| self.source(n));
        if let Some(value) = node.child_by_field_name("value") {
            let value = self.whole_word(value);
            self.script.assigned.push(value);
        }
        self.home_assigned |= name == Some("HOME");
        self.tmpdir_assigned |= name == Some("TMPDIR");
    }

    /// `for f in /etc/shadow …; do …; done`: the values are assigned to
    /// the loop's variable.
    fn for_loop(&mut self, node: Node, upstream: &[usize]) {
        let mut cursor = node.walk();
        let values: Vec<Node> = node.children_by_field_name("value", &mut cursor).collect();
        for value in values {
            let words = self.words(value);
            self.script.assigned.extend(words);
        }
        if let Some(body) = node.child_by_field_name("body") {
            self.statement(body, upstream);
        }
    }

    fn pipeline(&mut self, node: Node, upstream: &[usize]) {
        let mut before: Vec<usize> = upstream.to_vec();
        let mut cursor = node.walk();
        let stages: Vec<Node> = node.named_children(&mut cursor).collect();
        for stage in stages {
            let start = self.script.commands.len();
            self.statement(stage, &before);
            before.extend(start..self.script.commands.len());
        }
    }

    fn command(&mut self, node: Node, upstream: &[usize]) {
        let mut command = Command::default();
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children {
            match child.kind() {
                "command_name" => {
                    if let Some(name) = child.named_child(0) {
                        command.words.extend(self.words(name));
                    }
                }
                "variable_assignment" => self.assignment(child),
                "file_redirect" | "herestring_redirect" => self.redirect(child, &mut command),
                // `f ('x')`: bash refuses it; tree-sitter reads a subshell.
                "subshell" => {
                    self.script.malformed = true;
                    self.statement(child, upstream);
                }
                _ => command.words.extend(self.words(child)),
            }
        }
        if !upstream.is_empty() {
            command.inputs.push(Input::Pipe(upstream.to_vec()));
        }
        if self.written {
            command.inputs.push(Input::Written);
        }
        self.script.commands.push(command);
    }

    fn redirected(&mut self, node: Node, upstream: &[usize]) {
        let start = self.script.commands.len();
        if let Some(body) = node.child_by_field_name("body") {
            self.statement(body, upstream);
        }
        if self.script.commands.len() == start {
            // `> file` alone: a command of no words that opens the file.
            self.script.commands.push(Command::default());
        }
        let end = self.script.commands.len();
        let mut extra = Command::default();
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children {
            match child.kind() {
                "file_redirect" | "herestring_redirect" => self.redirect(child, &mut extra),
                "heredoc_redirect" => {
                    let writers: Vec<usize> = (start..end).collect();
                    self.heredoc(child, &mut extra, upstream, &writers)
                }
                _ => {}
            }
        }
        // The redirections apply to every command of the body.
        for index in start..end {
            if let Some(command) = self.script.commands.get_mut(index) {
                command.redirects.extend(extra.redirects.iter().cloned());
                command.inputs.extend(extra.inputs.iter().cloned());
            }
        }
    }

    fn redirect(&mut self, node: Node, command: &mut Command) {
        if node.kind() == "herestring_redirect" {
            let word = node
                .named_children(&mut node.walk())
                .find(|c| c.kind() != "file_descriptor");
            if let Some(word) = word {
                let text = self.whole_word(word);
                command.inputs.push(Input::Text(text));
            }
            return;
        }
        let Some(target) = node.child_by_field_name("destination") else {
            return;
        };
        // The text between the descriptor and the target: `>`, `>>`, `&>`,
        // also `<>`, which the grammar reads as an error.
        let start = node
            .child_by_field_name("descriptor")
            .map_or(node.start_byte(), |d| d.end_byte());
        let operator = self
            .text
            .get(start..target.start_byte())
            .unwrap_or("")
            .trim()
            .to_string();
        let target = self.whole_word(target);
        self.complexity(&target);
        command.redirects.push(Redirect { operator, target });
    }

    /// `<<EOF … EOF`: the body is literal when the delimiter is quoted,
    /// else it expands like a `"…"` string.
    /// `writers`: the commands the here-document belongs to, whose output
    /// a `| …` after its start reads.
    fn heredoc(
        &mut self,
        node: Node,
        command: &mut Command,
        upstream: &[usize],
        writers: &[usize],
    ) {
        let mut quoted = false;
        let mut body = None;
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children {
            match child.kind() {
                "heredoc_start" => quoted = self.source(child).contains(['\'', '"', '\\']),
                "heredoc_body" => body = Some(child),
                "heredoc_end" | "file_descriptor" => {}
                "file_redirect" | "herestring_redirect" => self.redirect(child, command),
                // `cat <<EOF | sh`: the grammar puts the rest of the
                // pipeline after the start; `<<EOF && x` likewise.
                "pipeline" => self.pipeline(child, writers),
                _ => self.statement(child, upstream),
            }
        }
        let Some(body) = body else { return };
        let mut piece = Piece::default();
        if quoted {
            piece.pattern = escape(self.source(body));
        } else {
            self.string_parts(body, body.start_byte(), body.end_byte(), &mut piece);
        }
        command
            .inputs
            .push(Input::Text(finish(self.source(body), piece)));
    }

    fn function(&mut self, node: Node, upstream: &[usize]) {
        let name = node
            .child_by_field_name("name")
            .map(|n| self.source(n).to_string())
            .unwrap_or_default();
        let start = self.script.commands.len();
        let mut forks = false;
        if let Some(body) = node.child_by_field_name("body") {
            forks = has_fork(body, 0);
            self.statement(body, upstream);
        }
        let body = start..self.script.commands.len();
        self.script.functions.push(Function { name, body, forks });
    }

    /// Marks the script when `word` is a pattern too complex to check.
    fn complexity(&mut self, word: &Word) {
        if self.script.too_complex.is_none()
            && let Some(why) = word.glob.as_deref().and_then(too_complex)
        {
            self.script.too_complex = Some(why);
        }
    }

    /// A word node as one word (a redirection target, a here-string).
    fn whole_word(&mut self, node: Node) -> Word {
        let source = self.source(node);
        let mut piece = Piece::default();
        self.piece(node, &mut piece);
        let word = finish(source, piece);
        self.count_globs(usize::from(lists_disk(&word)));
        word
    }

    /// Counts `more` glob patterns; past [`MAX_GLOBS`] the script is too
    /// complex to check (each is listed against the disk).
    fn count_globs(&mut self, more: usize) {
        self.globs += more;
        if self.globs > MAX_GLOBS && self.script.too_complex.is_none() {
            self.script.too_complex = Some(format!("more than {MAX_GLOBS} glob patterns"));
        }
    }

    /// A word node as the words it expands to (brace expansion).
    fn words(&mut self, node: Node) -> Vec<Word> {
        let word = self.whole_word(node);
        self.complexity(&word);
        let Some(pattern) = word.glob.clone().filter(|p| has_unescaped(p, '{')) else {
            return vec![word];
        };
        let words: Vec<Word> = braces(&pattern)
            .into_iter()
            .map(|expanded| Word {
                value: Some(unescape(&expanded)),
                glob: is_glob(&expanded).then_some(expanded),
                ..word.clone()
            })
            .collect();
        // The word itself was counted once.
        let globs = words.iter().filter(|w| lists_disk(w)).count();
        self.count_globs(globs.saturating_sub(usize::from(lists_disk(&word))));
        words
    }

    fn piece(&mut self, node: Node, piece: &mut Piece) {
        if !self.enter() {
            piece.unknown("a word nested too deeply to read".to_string());
            return;
        }
        self.piece_inner(node, piece);
        self.depth -= 1;
    }

    fn piece_inner(&mut self, node: Node, piece: &mut Piece) {
        let source = self.source(node);
        match node.kind() {
            // `{0..2}`: the grammar's numbers in it are the text as written.
            "brace_expression" => piece.pattern.push_str(source),
            "word" | "number" | "extglob_pattern" | "regex" if node.named_child_count() == 0 => {
                self.script.home_reassigned |= self.home_assigned && source.starts_with('~');
                piece.pattern.push_str(source)
            }
            "raw_string" => {
                let inner = source
                    .strip_prefix('\'')
                    .and_then(|s| s.strip_suffix('\''))
                    .unwrap_or(source);
                piece.pattern.push_str(&escape(inner));
            }
            "ansi_c_string" => {
                self.script
                    .bash_quoting
                    .get_or_insert_with(|| source.to_string());
                // `$'\\'; … #'`: the grammar takes `\'` for an escaped quote
                // after an escaped backslash; Bash ends the string there.
                if ansi_c_end(source) != Some(source.len()) {
                    self.script
                        .misread
                        .get_or_insert_with(|| source.to_string());
                }
                let inner = source
                    .strip_prefix("$'")
                    .and_then(|s| s.strip_suffix('\''))
                    .unwrap_or(source);
                piece.pattern.push_str(&escape(&ansi_c(inner)));
            }
            "string" => {
                // `$"…"` as an argument: the grammar leaves the `$` out.
                let before = self.text.get(..node.start_byte()).unwrap_or("");
                if before.ends_with('$') {
                    self.script
                        .bash_quoting
                        .get_or_insert_with(|| format!("${source}"));
                }
                let (start, end) = (node.start_byte() + 1, node.end_byte().saturating_sub(1));
                self.string_parts(node, start, end.max(start), piece);
            }
            "simple_expansion" | "expansion" => {
                if source == "$HOME" || source == "${HOME}" {
                    self.script.home_reassigned |= self.home_assigned;
                    piece.pattern.push_str("$HOME");
                } else if (source == "$TMPDIR" || source == "${TMPDIR}")
                    && !self.tmpdir_assigned
                    && piece.pattern.is_empty()
                {
                    // The call's scratch directory, as toolc sets it, at
                    // the start of a word (`..$TMPDIR` is elsewhere).
                    piece.pattern.push_str("$TMPDIR");
                } else {
                    piece.pattern.push_str(source);
                    piece.unknown(format!("the variable `{source}`"));
                    // `${x:-$(…)}`, `${a[$(…)]}`: their substitutions run.
                    self.nested(node, piece);
                }
            }
            "command_substitution" | "process_substitution" => {
                piece.pattern.push_str(source);
                self.substitution(node, piece);
            }
            // `$"…"`: the string, translated for the locale (the same text).
            "translated_string" => {
                self.script
                    .bash_quoting
                    .get_or_insert_with(|| source.to_string());
                if let Some(string) = node.named_child(0) {
                    self.piece(string, piece);
                }
            }
            "concatenation" | "number" | "command_name" => {
                self.parts(node, node.start_byte(), node.end_byte(), piece, false);
            }
            _ => {
                piece.pattern.push_str(source);
                piece.unknown(format!("`{source}`"));
                let mut cursor = node.walk();
                let children: Vec<Node> = node.named_children(&mut cursor).collect();
                for child in children {
                    let mut ignored = Piece::default();
                    self.piece(child, &mut ignored);
                    piece.inner.extend(ignored.inner);
                }
            }
        }
    }

    /// The command and process substitutions anywhere under `node` (a
    /// subscript, a parameter expansion's operand), walked as commands.
    fn nested(&mut self, node: Node, piece: &mut Piece) {
        if !self.enter() {
            return;
        }
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children {
            match child.kind() {
                "command_substitution" | "process_substitution" => {
                    let mut ignored = Piece::default();
                    self.substitution(child, &mut ignored);
                    piece.inner.extend(ignored.inner);
                }
                _ => self.nested(child, piece),
            }
        }
        self.depth -= 1;
    }

    fn substitution(&mut self, node: Node, piece: &mut Piece) {
        let source = self.source(node);
        let what = if node.kind() == "process_substitution" {
            "process substitution"
        } else {
            "command substitution"
        };
        piece.unknown(format!("the {what} `{source}`"));
        let start = self.script.commands.len();
        let outer = self.written;
        self.written |= source.starts_with(">(");
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children {
            self.statement(child, &[]);
        }
        self.written = outer;
        piece.inner.extend(start..self.script.commands.len());
    }

    /// The text from `start` to `end` of `node`: the gaps between its
    /// named children are literal (`quoted`: inside `"…"`), the children
    /// are pieces.
    fn parts(&mut self, node: Node, start: usize, end: usize, piece: &mut Piece, quoted: bool) {
        let mut at = start;
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children {
            if child.start_byte() > at {
                self.gap(at, child.start_byte(), piece, quoted);
            }
            if quoted && child.kind() == "string_content" {
                self.gap(child.start_byte(), child.end_byte(), piece, true);
            } else {
                self.piece(child, piece);
            }
            at = at.max(child.end_byte());
        }
        if end > at {
            self.gap(at, end, piece, quoted);
        }
    }

    fn string_parts(&mut self, node: Node, start: usize, end: usize, piece: &mut Piece) {
        self.parts(node, start, end, piece, true);
    }

    fn gap(&self, start: usize, end: usize, piece: &mut Piece, quoted: bool) {
        let text = self.text.get(start..end).unwrap_or("");
        if quoted {
            piece
                .pattern
                .push_str(&escape(&unescape_double_quoted(text)));
        } else {
            piece.pattern.push_str(text);
        }
    }
}

/// Where Bash ends the `$'…'` string `source` starts with (the byte after
/// its closing quote): backslash pairs are skipped, the first other `'`
/// closes it.
fn ansi_c_end(source: &str) -> Option<usize> {
    let inner = source.strip_prefix("$'")?;
    let mut chars = inner.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '\'' => return Some(at + 3),
            _ => {}
        }
    }
    None
}

/// A word with a `*`, `?` or `[` the shell matches against the disk.
fn lists_disk(word: &Word) -> bool {
    word.glob
        .as_deref()
        .is_some_and(|p| ['*', '?', '['].iter().any(|c| has_unescaped(p, *c)))
}

fn finish(source: &str, piece: Piece) -> Word {
    let known = piece.unknown.is_none();
    Word {
        source: source.to_string(),
        value: known.then(|| unescape(&piece.pattern)),
        glob: (known && is_glob(&piece.pattern)).then(|| piece.pattern.clone()),
        unknown: piece.unknown,
        inner: piece.inner,
    }
}

/// A function body that starts processes side by side: a pipeline or `&`.
fn has_fork(node: Node, depth: usize) -> bool {
    if node.kind() == "pipeline" || node.kind() == "&" || depth > MAX_NESTING {
        return true;
    }
    let mut cursor = node.walk();
    let children: Vec<Node> = node.children(&mut cursor).collect();
    children.into_iter().any(|child| has_fork(child, depth + 1))
}
