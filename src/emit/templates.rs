//! The minijinja templates code generators render: the ones under
//! `templates/` (embedded at build time), each replaceable by a file of the
//! same relative path in a user's `--templates DIR`.

use std::path::Path;

use minijinja::syntax::SyntaxConfig;
use minijinja::{Environment, UndefinedBehavior};
use serde::Serialize;

use super::EmitError;

include!(concat!(env!("OUT_DIR"), "/templates.rs"));

/// The template set of one generator run.
#[derive(Debug)]
pub struct Templates {
    env: Environment<'static>,
    /// The templates `--templates` replaced.
    overridden: std::collections::BTreeSet<String>,
}

impl Templates {
    /// The embedded templates, with those in `override_dir` (same relative
    /// paths) in their place. A file there that replaces no template is an
    /// error: it is a typo, and silently ignoring it would be worse.
    pub fn new(override_dir: Option<&Path>) -> Result<Templates, EmitError> {
        let mut env = Environment::new();
        // Block tags on their own lines leave no blank lines behind.
        let syntax = SyntaxConfig::builder()
            .keep_trailing_newline(true)
            .trim_blocks(true)
            .lstrip_blocks(true)
            .build()
            .map_err(|e| EmitError::Template(e.to_string()))?;
        env.set_syntax(syntax);
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        let mut overridden = std::collections::BTreeSet::new();
        for (name, source) in EMBEDDED {
            env.add_template(name, source)
                .map_err(|e| EmitError::Template(format!("{name}: {e}")))?;
        }
        if let Some(dir) = override_dir {
            for (name, source) in read_overrides(dir)? {
                if !EMBEDDED.iter().any(|(known, _)| *known == name) {
                    let known: Vec<&str> = EMBEDDED.iter().map(|(n, _)| *n).collect();
                    return Err(EmitError::Template(format!(
                        "{}: replaces no template (the templates are: {})",
                        dir.join(&name).display(),
                        known.join(", ")
                    )));
                }
                env.add_template_owned(name.clone(), source).map_err(|e| {
                    EmitError::Template(format!("{}: {e}", dir.join(&name).display()))
                })?;
                overridden.insert(name);
            }
        }
        Ok(Templates { env, overridden })
    }

    /// Renders the template `name` with `context`.
    pub fn render(&self, name: &str, context: impl Serialize) -> Result<String, EmitError> {
        self.render_value(
            name,
            minijinja::value::Value::from(minijinja::value::Serde(context)),
        )
    }

    /// Whether `--templates` replaced the template `name`.
    pub(crate) fn is_overridden(&self, name: &str) -> bool {
        self.overridden.contains(name)
    }

    /// Renders the template `name` with some of the templates it includes
    /// replaced by `stubs` (name, source).
    pub(crate) fn render_with_stubs(
        &self,
        name: &str,
        stubs: &[(&'static str, &'static str)],
        context: minijinja::value::Value,
    ) -> Result<String, EmitError> {
        let mut env = self.env.clone();
        for (stub, source) in stubs {
            env.add_template(stub, source)
                .map_err(|e| EmitError::Template(format!("{stub}: {e}")))?;
        }
        env.get_template(name)
            .and_then(|template| template.render(context))
            .map_err(|e| EmitError::Template(format!("{name}: {}", with_causes(&e))))
    }

    /// Renders the template `name` with a context made of template values
    /// (which may be objects that make their members as they are read).
    pub(crate) fn render_value(
        &self,
        name: &str,
        context: minijinja::value::Value,
    ) -> Result<String, EmitError> {
        let template = self
            .env
            .get_template(name)
            .map_err(|e| EmitError::Template(format!("{name}: {e}")))?;
        template
            .render(context)
            .map_err(|e| EmitError::Template(format!("{name}: {}", with_causes(&e))))
    }
}

/// The names of the embedded templates.
pub fn names() -> impl Iterator<Item = &'static str> {
    EMBEDDED.iter().map(|(name, _)| *name)
}

fn read_overrides(dir: &Path) -> Result<Vec<(String, String)>, EmitError> {
    let mut found = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(|e| EmitError::Template(format!("{}: {e}", dir.display())))?;
        let file_name = entry.file_name().to_string_lossy();
        // A copy of templates/ brings its READMEs; editors leave backups.
        let not_a_template =
            file_name == "README.md" || file_name.starts_with('.') || file_name.ends_with('~');
        if !entry.file_type().is_file() || not_a_template {
            continue;
        }
        let relative = entry
            .path()
            .strip_prefix(dir)
            .map_err(|e| EmitError::Template(e.to_string()))?
            .to_string_lossy()
            .replace('\\', "/");
        let source = std::fs::read_to_string(entry.path())
            .map_err(|e| EmitError::Template(format!("{}: {e}", entry.path().display())))?;
        found.push((relative, source));
    }
    Ok(found)
}

/// An error and the errors it wraps (an include's failure holds the real
/// cause: the template, the line, the undefined variable).
fn with_causes(error: &minijinja::Error) -> String {
    let mut text = format!("{error:#}");
    let mut cause = std::error::Error::source(error);
    while let Some(inner) = cause {
        text.push_str(&format!("\ncaused by: {inner}"));
        cause = inner.source();
    }
    text
}

/// A list a template iterates over whose items become template values
/// only as the template reaches them, one at a time: a context of a
/// hundred thousand tools is then not held twice (as Rust values and as
/// template values) while the file renders. To the template it is a
/// sequence like any other (`for`, `length`, indexing, filters).
#[derive(Debug)]
pub(crate) struct LazyList<T>(pub(crate) Vec<T>);

impl<T> minijinja::value::Object for LazyList<T>
where
    T: Serialize + std::fmt::Debug + Send + Sync + 'static,
{
    fn repr(self: &std::sync::Arc<Self>) -> minijinja::value::ObjectRepr {
        minijinja::value::ObjectRepr::Seq
    }

    fn get_value(
        self: &std::sync::Arc<Self>,
        key: &minijinja::value::Value,
    ) -> Option<minijinja::value::Value> {
        let item = self.0.get(key.as_usize()?)?;
        Some(minijinja::value::Value::from(minijinja::value::Serde(item)))
    }

    fn enumerate(self: &std::sync::Arc<Self>) -> minijinja::value::Enumerator {
        minijinja::value::Enumerator::Seq(self.0.len())
    }
}

impl<T> LazyList<T>
where
    T: Serialize + std::fmt::Debug + Send + Sync + 'static,
{
    /// The list as a template value, for a context field.
    pub(crate) fn value(items: Vec<T>) -> minijinja::value::Value {
        minijinja::value::Value::from_object(LazyList(items))
    }
}
