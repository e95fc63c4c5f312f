//! `toolc gen rust`: two files, split as prost and tonic split generated
//! code from the code that uses it. The module is toolc's, rewritten every
//! time and signed ([`super::marker`]): the Nachos tool contract (the
//! `Tool` trait and its result types), a typed arguments struct per tool
//! derived from its JSON Schema, and each tool's `Tool` impl, whose
//! `execute` validates and parses the arguments and calls the tool's
//! `Run::run`. The stubs file beside it is the developer's: an `impl Run`
//! per tool answering `NOT_IMPLEMENTED`, written once; later runs only
//! append the stubs of tools it lacks ([`Stubs::missing_from`]), so a
//! changed signature is a compile error in the developer's `run`, never a
//! lost line. The module names the stubs file in a `#[path]` attribute. Validation
//! is a JSON Schema check the module carries (`validator.rs.jinja`), not
//! the typed struct: it answers valid, invalid, or undecided where it
//! cannot check a keyword, and never valid for what the schema rejects.
//!
//! The Rust side decides what the code *is*: `types` maps schemas to
//! Rust types, `names` turns JSON names into identifiers that are neither
//! keywords nor raw identifiers, and `literals` makes every string handed
//! over safe to paste (string literals, doc comment lines, plain comments).
//! This file builds the template context from them. The templates under
//! `templates/rust/` decide how it is laid out; their README lists the
//! variables. The module compiles without warnings against serde (derive)
//! and serde_json alone, and the integration tests compile and run it.

mod literals;
mod names;
mod types;

use std::collections::HashSet;

use rayon::prelude::*;
use serde::Serialize;

use super::{EmitError, FileKind, Generated, GeneratedFile, Note, Options, Output};
use crate::ir::{Tool, ToolSet};
use literals::{comment_text, doc_lines, raw_json_literal, string_literal};
use names::{Names, camel_case};
use types::{TypeBuilder, TypeDef};

/// The template that renders the whole module (it includes the others).
const MODULE_TEMPLATE: &str = "rust/module.rs.jinja";

/// The oldest Rust the generated files build with (`Option::is_none_or`
/// is the newest API they use); the module's header says it.
pub const RUST_VERSION: &str = "1.82";

/// The stubs file of the module written to `module_file` (a file name):
/// beside it, its stem followed by `_impl`.
pub fn stubs_file_name(module_file: &str) -> String {
    let stem = module_file.strip_suffix(".rs").unwrap_or(module_file);
    format!("{stem}_impl.rs")
}

/// Generates the module (`tools.rs`) and its stubs file (`tools_impl.rs`,
/// a skeleton) from every tool of the run, in input order.
pub fn generate(toolsets: &[ToolSet], options: &Options) -> Result<Generated, EmitError> {
    let mut module = Module::new();
    for set in toolsets {
        module.add_set(set, options)?;
    }
    let module_file = "tools.rs";
    let rendered = module.render(options, module_file)?;
    let stubs = rendered.stubs.file(options)?;
    Ok(Generated {
        output: Output::Tree(vec![
            GeneratedFile {
                path: module_file.into(),
                contents: rendered.pieces.concat(),
                kind: FileKind::Owned,
            },
            GeneratedFile {
                path: rendered.stubs.file_name.clone().into(),
                contents: stubs,
                kind: FileKind::Skeleton,
            },
        ]),
        notes: rendered.notes,
    })
}

/// A rendered module: its text in pieces, its notes, and its stubs.
pub struct Rendered {
    pub pieces: Vec<String>,
    pub notes: Vec<Note>,
    pub stubs: Stubs,
}

/// The stubs file of a module: what its tools need from the developer.
pub struct Stubs {
    /// The module's file name, and the stubs file's.
    module_file: String,
    pub file_name: String,
    tools: Vec<StubTool>,
}

/// What a tool's stub names.
#[derive(Debug, Clone, Serialize)]
struct StubTool {
    name: String,
    struct_name: String,
    args_name: String,
    /// The tool's id as a string literal: the stub checks, as it compiles,
    /// that its type still stands for this tool.
    id_literal: String,
    /// The fields of the arguments struct: the stub's pattern names each,
    /// so that a parameter added, removed or renamed stops the build there.
    fields: Vec<String>,
}

/// The template of the whole stubs file, and of one tool's stub.
const STUBS_TEMPLATE: &str = "rust/stubs.rs.jinja";
const RUN_TEMPLATE: &str = "rust/run.rs.jinja";

impl Stubs {
    /// The stubs file as first written: a stub per tool.
    pub fn file(&self, options: &Options) -> Result<String, EmitError> {
        Ok(self.file_pieces(options)?.concat())
    }

    /// [`Stubs::file`] in pieces to write one after the other. With the
    /// built-in templates each tool's stub is rendered on its own, on every
    /// core, and takes its place in the file rendered with a mark for it:
    /// one thread rendering the stubs of the bench corpus's 132,674 tools
    /// took 0.7 s after every worker was done.
    pub fn file_pieces(&self, options: &Options) -> Result<Vec<String>, EmitError> {
        let context = minijinja::context! {
            module_file => comment_text(&self.module_file),
            tools => minijinja::Value::from(minijinja::value::Serde(&self.tools)),
        };
        let templates = options.templates;
        let overridden = [STUBS_TEMPLATE, RUN_TEMPLATE]
            .iter()
            .any(|name| templates.is_overridden(name));
        if overridden || self.tools.is_empty() {
            return Ok(vec![templates.render_value(STUBS_TEMPLATE, context)?]);
        }
        let stubs: Vec<String> = self
            .tools
            .par_iter()
            .map(|tool| run_stub(tool, options))
            .collect::<Result<_, _>>()?;
        let skeleton = templates.render_with_stubs(
            STUBS_TEMPLATE,
            &[(RUN_TEMPLATE, RUN_MARK_TEXT)],
            context,
        )?;
        splice(STUBS_TEMPLATE, &skeleton, &[RUN_MARK], stubs)
    }

    /// What to append to `text`, the stubs file as the developer keeps it,
    /// for the tools it does not implement, and their names; `None` when
    /// it implements them all. A tool is implemented when the text names
    /// its type (`GreetTool`) anywhere, as a word: in `impl Run for
    /// GreetTool`, or in a macro that writes the impl. The appended text
    /// ends its lines as the file does (CRLF when its first line does).
    pub fn missing_from(
        &self,
        text: &str,
        options: &Options,
    ) -> Result<Option<(String, Vec<String>)>, EmitError> {
        let words: HashSet<&str> = text
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|word| !word.is_empty())
            .collect();
        let mut appendix = String::new();
        let mut names = Vec::new();
        for tool in self
            .tools
            .iter()
            .filter(|tool| !words.contains(tool.struct_name.as_str()))
        {
            if appendix.is_empty() && !text.is_empty() && !text.ends_with('\n') {
                appendix.push('\n');
            }
            appendix.push('\n');
            appendix.push_str(&run_stub(tool, options)?);
            names.push(tool.name.clone());
        }
        if names.is_empty() {
            return Ok(None);
        }
        let crlf = text
            .split_once('\n')
            .is_some_and(|(line, _)| line.ends_with('\r'));
        if crlf {
            appendix = appendix.replace("\r\n", "\n").replace('\n', "\r\n");
        }
        Ok(Some((appendix, names)))
    }
}

/// A tool's stub, as the stubs file includes it.
fn run_stub(tool: &StubTool, options: &Options) -> Result<String, EmitError> {
    let context = minijinja::value::Serde(tool);
    options.templates.render(
        RUN_TEMPLATE,
        &minijinja::context! { tool => minijinja::Value::from(context) },
    )
}

/// What the stubs template gets in place of each tool's stub when the
/// stubs are made already.
const RUN_MARK: char = '\u{3}';
const RUN_MARK_TEXT: &str = "\u{3}";

/// `skeleton`, rendered by `template` with a mark (one of `marks`) where
/// each of `texts` goes, in pieces with the texts in place.
fn splice(
    template: &str,
    skeleton: &str,
    marks: &[char],
    texts: Vec<String>,
) -> Result<Vec<String>, EmitError> {
    let mut pieces = Vec::with_capacity(texts.len() * 2 + 1);
    let mut texts = texts.into_iter();
    let mut from = 0;
    for (at, _) in skeleton.match_indices(marks) {
        let text = texts.next().ok_or_else(|| {
            EmitError::Template(format!("{template}: more tools than were rendered"))
        })?;
        pieces.push(skeleton[from..at].to_string());
        pieces.push(text);
        from = at + 1;
    }
    if texts.next().is_some() {
        return Err(EmitError::Template(format!(
            "{template}: fewer tools than were rendered"
        )));
    }
    pieces.push(skeleton[from..].to_string());
    Ok(pieces)
}

/// The templates the built-in module template includes for each tool,
/// with `tool` only.
const ARGUMENTS_TEMPLATE: &str = "rust/arguments.rs.jinja";
const TOOL_TEMPLATE: &str = "rust/tool.rs.jinja";

/// What the module template gets in their place when their text is made
/// already: a mark each, replaced by the text (no template output holds
/// these control characters: every string in the context is safe).
const ARGUMENTS_MARK: char = '\u{1}';
const TOOL_MARK: char = '\u{2}';

/// One manifest's tools, made ready for the module on their own (on the
/// worker that read the manifest), with the type names they claimed.
#[derive(Debug)]
pub struct RustPart {
    source: String,
    tools: Vec<ModuleTool>,
    /// The type names the tools took, as if no other manifest took any.
    claimed: Vec<String>,
    notes: Vec<Note>,
}

impl RustPart {
    /// The tools of `set`, named as if `set` were alone in the module.
    pub fn of(set: &ToolSet, options: &Options) -> Result<RustPart, EmitError> {
        let mut names = Names::new();
        let mut notes = Vec::new();
        let mut tools = Vec::new();
        for tool in &set.tools {
            let context = tool_context(set, tool, &mut names, &mut notes)?;
            tools.push(ModuleTool::made_ready(context, options)?);
        }
        Ok(RustPart {
            source: comment_text(&set.path),
            tools,
            claimed: names.claimed(),
            notes,
        })
    }

    /// What the module says about these tools (types that became `Value`).
    pub fn notes(&self) -> &[Note] {
        &self.notes
    }
}

/// A tool of the module: its context, or, when the module template is the
/// built-in one (whose loop includes `arguments.rs.jinja` and
/// `tool.rs.jinja` with `tool`, and lists `name` and `struct_name` at the
/// end), the text of those two and the names.
#[derive(Debug)]
enum ModuleTool {
    Context(ToolContext),
    Rendered(RenderedTool),
}

#[derive(Debug, Serialize)]
struct RenderedTool {
    name: String,
    struct_name: String,
    args_name: String,
    id_literal: String,
    /// The arguments struct's fields (see [`StubTool`]).
    fields: Vec<String>,
    #[serde(skip)]
    arguments: String,
    #[serde(skip)]
    stub: String,
}

impl ModuleTool {
    fn made_ready(context: ToolContext, options: &Options) -> Result<ModuleTool, EmitError> {
        // A user's template may use what the module's loop gives an
        // included template (`loop`, `tools`, `sources`): any override
        // renders inside the module, as it always has.
        let overridden = [MODULE_TEMPLATE, ARGUMENTS_TEMPLATE, TOOL_TEMPLATE]
            .iter()
            .any(|name| options.templates.is_overridden(name));
        if overridden {
            return Ok(ModuleTool::Context(context));
        }
        #[derive(Serialize)]
        struct Included<'a> {
            tool: &'a ToolContext,
        }
        let included = Included { tool: &context };
        let arguments = options.templates.render(ARGUMENTS_TEMPLATE, &included)?;
        let stub = options.templates.render(TOOL_TEMPLATE, &included)?;
        let fields = context
            .types
            .first()
            .map(TypeDef::field_names)
            .unwrap_or_default();
        Ok(ModuleTool::Rendered(RenderedTool {
            fields,
            name: context.name,
            struct_name: context.struct_name,
            args_name: context.args_name,
            id_literal: context.id_literal,
            arguments,
            stub,
        }))
    }
}

/// The module as it is gathered, manifest by manifest, in input order.
/// Type names are claimed in that order, so that the module is the same
/// however its parts were made.
pub struct Module {
    names: Names,
    sources: Vec<String>,
    /// `sources`, to look up.
    seen: HashSet<String>,
    tools: Vec<ModuleTool>,
    notes: Vec<Note>,
}

impl Default for Module {
    fn default() -> Self {
        Module::new()
    }
}

impl Module {
    pub fn new() -> Module {
        Module {
            names: Names::new(),
            sources: Vec::new(),
            seen: HashSet::new(),
            tools: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Adds the tools of `set`, claiming their names now.
    pub fn add_set(&mut self, set: &ToolSet, options: &Options) -> Result<(), EmitError> {
        self.add_source(comment_text(&set.path));
        for tool in &set.tools {
            let context = tool_context(set, tool, &mut self.names, &mut self.notes)?;
            self.tools.push(ModuleTool::made_ready(context, options)?);
        }
        Ok(())
    }

    /// Adds a part made on its own, when none of the names it claimed is
    /// taken: claiming them here would have given the same names. `false`
    /// (nothing added) when one is: add the set with [`Module::add_set`].
    pub fn add_part(&mut self, part: RustPart) -> bool {
        if self.names.takes_any(&part.claimed) {
            return false;
        }
        self.names.take(part.claimed);
        self.add_source(part.source);
        self.tools.extend(part.tools);
        self.notes.extend(part.notes);
        true
    }

    fn add_source(&mut self, source: String) {
        if self.seen.insert(source.clone()) {
            self.sources.push(source);
        }
    }

    /// The module's text (to be written to `module_file`, a file name), in
    /// pieces to write one after the other and signed, its notes, and its
    /// stubs.
    pub fn render(self, options: &Options, module_file: &str) -> Result<Rendered, EmitError> {
        let tools = self
            .tools
            .iter()
            .map(|tool| match tool {
                ModuleTool::Context(t) => StubTool {
                    name: t.name.clone(),
                    struct_name: t.struct_name.clone(),
                    args_name: t.args_name.clone(),
                    id_literal: t.id_literal.clone(),
                    fields: t
                        .types
                        .first()
                        .map(TypeDef::field_names)
                        .unwrap_or_default(),
                },
                ModuleTool::Rendered(t) => StubTool {
                    name: t.name.clone(),
                    struct_name: t.struct_name.clone(),
                    args_name: t.args_name.clone(),
                    id_literal: t.id_literal.clone(),
                    fields: t.fields.clone(),
                },
            })
            .collect();
        let stubs = Stubs {
            module_file: module_file.to_string(),
            file_name: stubs_file_name(module_file),
            tools,
        };
        let (mut pieces, notes) = self.render_pieces(options, &stubs)?;
        super::marker::sign(&mut pieces);
        Ok(Rendered {
            pieces,
            notes,
            stubs,
        })
    }

    /// The module's text, in pieces to write one after the other, and the
    /// notes. The template sees `tools` as a list whose items become
    /// template values as it reads them; tools whose text is made already
    /// stand in it as marks, replaced by their text piece by piece, so the
    /// module's text is held once.
    fn render_pieces(
        self,
        options: &Options,
        stubs: &Stubs,
    ) -> Result<(Vec<String>, Vec<Note>), EmitError> {
        let mut texts = Vec::new();
        let mut tools = self.tools;
        for tool in &mut tools {
            if let ModuleTool::Rendered(rendered) = tool {
                texts.push(std::mem::take(&mut rendered.arguments));
                texts.push(std::mem::take(&mut rendered.stub));
            }
        }
        let context = minijinja::context! {
            sources => self.sources,
            tools => minijinja::value::Value::from_object(ToolList(tools)),
            digest_placeholder => super::marker::DIGEST_PLACEHOLDER,
            rust_version => RUST_VERSION,
            stubs_file => comment_text(&stubs.file_name),
            stubs_path_literal => string_literal(&stubs.file_name),
        };
        let templates = options.templates;
        if texts.is_empty() {
            let module = templates.render_value(MODULE_TEMPLATE, context)?;
            return Ok((vec![module], self.notes));
        }
        let stubs = [(ARGUMENTS_TEMPLATE, "\u{1}"), (TOOL_TEMPLATE, "\u{2}")];
        let skeleton = templates.render_with_stubs(MODULE_TEMPLATE, &stubs, context)?;
        let pieces = splice(
            MODULE_TEMPLATE,
            &skeleton,
            &[ARGUMENTS_MARK, TOOL_MARK],
            texts,
        )?;
        Ok((pieces, self.notes))
    }
}

// ---------------------------------------------------------------------------
// The template context. Every string in it is safe where the template puts
// it: `*_literal` are Rust string literals, `doc_lines` and `comment` hold
// no line breaks and nothing a comment must not contain, names are
// identifiers.
// ---------------------------------------------------------------------------

/// The module's context is `sources` (manifest paths, comment-safe, in
/// input order) and `tools`, this list.
#[derive(Debug)]
struct ToolList(Vec<ModuleTool>);

impl minijinja::value::Object for ToolList {
    fn repr(self: &std::sync::Arc<Self>) -> minijinja::value::ObjectRepr {
        minijinja::value::ObjectRepr::Seq
    }

    fn get_value(self: &std::sync::Arc<Self>, key: &minijinja::Value) -> Option<minijinja::Value> {
        Some(match self.0.get(key.as_usize()?)? {
            ModuleTool::Context(tool) => minijinja::Value::from(minijinja::value::Serde(tool)),
            ModuleTool::Rendered(tool) => minijinja::Value::from(minijinja::value::Serde(tool)),
        })
    }

    fn enumerate(self: &std::sync::Arc<Self>) -> minijinja::value::Enumerator {
        minijinja::value::Enumerator::Seq(self.0.len())
    }
}

#[derive(Debug, Serialize)]
struct ToolContext {
    /// The tool name, comment-safe (for comments and doc comments only).
    name: String,
    struct_name: String,
    args_name: String,
    id_literal: String,
    name_literal: String,
    description_literal: String,
    /// A `SecurityTier` variant.
    security_tier: String,
    /// Why the tier is a default, when it is (a comment line).
    security_tier_comment: Option<String>,
    /// The tool description as doc comment lines.
    doc_lines: Vec<String>,
    /// The parameter schema as a raw string literal of pretty JSON.
    parameters_literal: String,
    /// The arguments struct first, then the types it uses, depth first.
    types: Vec<TypeDef>,
}

fn tool_context(
    set: &ToolSet,
    tool: &Tool,
    names: &mut Names,
    notes: &mut Vec<Note>,
) -> Result<ToolContext, EmitError> {
    // A type name cannot start with a digit (a tool named `2fa`).
    let mut base = camel_case(&tool.name, "Unnamed");
    if base.starts_with(|c: char| c.is_ascii_digit()) {
        base.insert(0, 'V');
    }
    let struct_name = names.claim(&format!("{base}Tool"));
    let args_name = names.claim(&format!("{base}Args"));
    let (security_tier, security_tier_comment) = security_tier(tool.permissions.security_tier);
    let empty_schema = crate::formats::no_parameters();
    let schema = tool.parameters.as_deref().unwrap_or(&empty_schema);
    let mut builder = TypeBuilder::new(names, notes, &set.path, &tool.name);
    let pointer = tool
        .parameters_at
        .clone()
        .unwrap_or_else(|| tool.origin.clone());
    let what = format!("Arguments of the `{}` tool.", tool.name);
    let mut doc = doc_lines(&what);
    if tool.parameters.is_none() {
        doc.push(String::new());
        doc.extend(doc_lines(
            "The manifest does not declare them: add the fields here.",
        ));
    }
    builder.root_struct(args_name.clone(), doc, schema, &pointer);
    Ok(ToolContext {
        name: comment_text(&tool.name),
        struct_name,
        args_name,
        id_literal: string_literal(&tool.name),
        name_literal: string_literal(tool.title.as_deref().unwrap_or(&tool.name)),
        description_literal: string_literal(tool.description.as_deref().unwrap_or("")),
        security_tier: security_tier.to_string(),
        security_tier_comment,
        doc_lines: doc_lines(tool.description.as_deref().unwrap_or("")),
        parameters_literal: raw_json_literal(&serde_json::to_string_pretty(schema)?),
        types: builder.finish(),
    })
}

/// The tier's variant, and a comment when the manifest does not give a
/// usable one: then the stub asks for explicit approval (Restricted) until
/// someone decides, rather than pretending the tool is harmless.
fn security_tier(tier: Option<i64>) -> (&'static str, Option<String>) {
    match tier {
        Some(0) => ("Safe", None),
        Some(1) => ("Standard", None),
        Some(2) => ("Elevated", None),
        Some(3) => ("Restricted", None),
        Some(4) => ("Dangerous", None),
        Some(other) => (
            "Restricted",
            Some(format!(
                "The manifest says {other}, which is not a tier (0-4): Restricted until you decide."
            )),
        ),
        None => (
            "Restricted",
            Some("The manifest gives no security tier: Restricted until you decide.".to_string()),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stubs_made_apart_are_the_stubs_the_template_makes() {
        let templates =
            crate::emit::templates::Templates::new(None).expect("the built-in templates");
        let options = Options {
            templates: &templates,
            strict: false,
            style: crate::emit::python::Style::default(),
        };
        let tool = |name: &str, fields: &[&str]| StubTool {
            name: name.to_string(),
            struct_name: format!("{}Tool", camel_case(name, "Tool")),
            args_name: format!("{}Args", camel_case(name, "Tool")),
            id_literal: string_literal(name),
            fields: fields.iter().map(|f| f.to_string()).collect(),
        };
        for tools in [
            vec![],
            vec![tool("greet", &["name"])],
            vec![tool("a", &[]), tool("b_c", &["x", "y"]), tool("d", &["z"])],
        ] {
            let stubs = Stubs {
                module_file: "tools.rs".to_string(),
                file_name: stubs_file_name("tools.rs"),
                tools,
            };
            let context = minijinja::context! {
                module_file => comment_text(&stubs.module_file),
                tools => minijinja::Value::from(minijinja::value::Serde(&stubs.tools)),
            };
            let whole = templates
                .render_value(STUBS_TEMPLATE, context)
                .expect("the stubs template");
            let pieces = stubs.file_pieces(&options).expect("the stubs apart");
            assert_eq!(pieces.concat(), whole);
        }
    }
}
