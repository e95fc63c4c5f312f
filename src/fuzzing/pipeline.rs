//! The entry points that run a manifest through toolc as a user's run
//! does: load and lint, `lint --fix`, `lint --format`, `convert`, `gen`.

use std::sync::Arc;

use serde_json::Value;

use super::case::{Case, Kind, RENDERERS, lint_options, strings, toolc, tools_in, write_file};
use super::output::{check_github, check_json_report, check_sarif, check_xml};
use super::{Checked, span_in};
use crate::ir::Format;
use crate::json;
use crate::lint::{LintReport, Linter, Target};
use crate::project::{LoadOptions, Project};

// ------------------------------------------------------- lowering and lint

/// Lowering each format, and the lint rules on what it lowered: every
/// pointer the IR keeps names a place in the document; every finding's
/// span, related span and fix edit lies in its file's text. The selector:
/// bits 0-2 the file (see `KINDS`), bit 3 forces its format, bit 4 checks
/// for every provider.
pub fn lower(data: &[u8]) -> Checked {
    let Some((&selector, rest)) = data.split_first() else {
        return Ok(());
    };
    let kind = Kind::of(selector);
    let input_format = kind.input_format(selector & 8 != 0);
    let case = Case::write(kind, rest)?;
    let options = LoadOptions {
        input_format,
        ..LoadOptions::default()
    };
    let project = Project::from_documents([(case.path(), case.text())], &options);
    ensure!(
        project.manifests.len() + project.failures.len() <= 1,
        "one document loaded as several"
    );
    for manifest in &project.manifests {
        if let Some(format) = input_format {
            ensure!(
                manifest.format() == format,
                "forced {format}, read {}",
                manifest.format()
            );
        }
        let value = &manifest.document.value;
        let exists = |pointer: &str| json::value_at(value, pointer).is_some();
        for carried in &manifest.toolset.carried {
            ensure!(
                exists(&carried.at),
                "carried field at {:?}, not in the document",
                carried.at
            );
        }
        for tool in &manifest.toolset.tools {
            ensure!(
                exists(&tool.origin),
                "tool origin {:?} not in the document",
                tool.origin
            );
            for carried in &tool.extra.carried {
                ensure!(
                    exists(&carried.at),
                    "carried field at {:?}, not in the document",
                    carried.at
                );
            }
        }
    }
    let linter = Linter::new(lint_options(input_format, selector & 16 != 0))
        .map_err(|e| format!("lint could not start: {e}"))?;
    let report = linter
        .check(&project)
        .map_err(|e| format!("lint failed: {e}"))?;
    check_findings(&report)
}

/// Every finding's spans lie in the text the report holds for its file.
fn check_findings(report: &LintReport) -> Checked {
    let text_of = |path: &str| report.sources.get(path).map(|s| s.text.clone());
    for d in &report.diagnostics {
        let what = format!("{} at {:?}", d.rule, d.pointer);
        ensure!(
            d.pointer.is_empty() || d.pointer.starts_with('/'),
            "{what}: not a JSON Pointer"
        );
        let Some(text) = text_of(&d.path) else {
            continue;
        };
        if let Some(span) = d.span {
            span_in(&text, span, &what)?;
        }
        for edit in d.fix.iter().flat_map(|f| &f.edits) {
            span_in(&text, edit.span, &format!("{what}: a fix's edit"))?;
        }
        for related in &d.related {
            if let Some(text) = text_of(&related.path) {
                span_in(&text, related.span, &format!("{what}: related"))?;
            }
        }
    }
    Ok(())
}

// ------------------------------------------------------------------ fixes

/// `lint --fix`: fixing never fails (a fix that would break the JSON is a
/// bug in that fix, even though the run refuses to write it); the fixed
/// text parses and reads as the same format; fixing it again changes
/// nothing. The selector: bits 0-2 the file, bit 3 unsafe fixes too, bit 4
/// every provider's rules.
pub fn apply_fixes(data: &[u8]) -> Checked {
    let Some((&selector, rest)) = data.split_first() else {
        return Ok(());
    };
    let kind = Kind::of(selector);
    let unsafe_fixes = selector & 8 != 0;
    let input_format = kind.input_format(false);
    let options = lint_options(input_format, selector & 16 != 0);
    let case = Case::write(kind, rest)?;
    let paths = [case.manifest.clone()];
    let fixes = crate::lint::fix::fix_paths(&paths, &options, unsafe_fixes)
        .map_err(|e| format!("lint --fix failed: {e}"))?;
    let load_options = LoadOptions {
        input_format,
        ..LoadOptions::default()
    };
    let format_of = |text: &str| {
        Project::from_documents([(case.path(), text.to_string())], &load_options)
            .manifests
            .first()
            .map(|m| m.format())
    };
    for file in &fixes {
        ensure!(
            file.original.as_bytes() == case.bytes,
            "the original is not the file's text"
        );
        let body = file.fixed.strip_prefix('\u{feff}').unwrap_or(&file.fixed);
        if let Err(e) = json::parse(&Arc::from(body)) {
            return Err(format!(
                "the fixed text does not parse: {e:?}\n{}",
                file.fixed
            ));
        }
        let (before, after) = (format_of(&file.original), format_of(&file.fixed));
        ensure!(
            before == after,
            "fixing turned a {before:?} manifest into {after:?}:\n{}",
            file.fixed
        );
        write_file(&case.manifest, file.fixed.as_bytes())?;
        let again = crate::lint::fix::fix_paths(&paths, &options, unsafe_fixes)
            .map_err(|e| format!("lint --fix failed on fixed text: {e}"))?;
        ensure!(
            again.is_empty(),
            "fixing the fixed text changed it again:\n{}",
            file.fixed
        );
    }
    Ok(())
}

/// What lint may say on standard error: the named files it left alone,
/// and that it found no manifest (see `cli::lint_cmd::say_skipped`).
const LINT_STDERR: [&str; 2] = ["note: skipped ", "warning: no tool manifests found"];

/// Every `lint --format`: the run ends in 0 or 1 and says on standard
/// error only what [`LINT_STDERR`] allows; json and sarif are JSON of their
/// shape with positions inside the files, github is one workflow command
/// a line, junit is well-formed XML. The selector: bits 0-2 the renderer
/// (7: human in color), bits 3-5 the file, bit 6 every provider's rules.
pub fn render(data: &[u8]) -> Checked {
    let Some((&selector, rest)) = data.split_first() else {
        return Ok(());
    };
    let renderer = RENDERERS.get(usize::from(selector & 7)).copied();
    let kind = Kind::of(selector >> 3);
    let case = Case::write(kind, rest)?;
    let color = if renderer.is_some() {
        "never"
    } else {
        "always"
    };
    let format = renderer.unwrap_or("human");
    let path = case.path();
    let mut args = strings(&["--color", color, "lint", &path, "--format", format]);
    if let Some(format) = kind.input_format(false) {
        args.extend(strings(&["--input-format", format.name()]));
    }
    if selector & 64 != 0 {
        for target in Target::ALL {
            args.extend(strings(&["--target", target.name()]));
        }
    }
    let (code, out, err) = toolc(&args);
    ensure!(code <= 1, "lint exited {code}: {err}");
    ensure!(
        err.lines()
            .all(|line| LINT_STDERR.iter().any(|s| line.starts_with(s))),
        "lint wrote to standard error: {err}"
    );
    match format {
        "json" => {
            let errors = check_json_report(&out, &case)?;
            ensure!(
                (errors > 0) == (code == 1),
                "exit {code} with {errors} errors"
            );
        }
        "sarif" => check_sarif(&out)?,
        "github" => check_github(&out)?,
        "junit" => check_xml(&out)?,
        _ => {}
    }
    Ok(())
}

// ---------------------------------------------------- convert and gen

/// What convert refuses by design, `--allow-errors` or not (exit 2): no
/// tool at all, and the Nachos classes it cannot write (a tool without a
/// name for its `toolId`, parameters that are no object or nest too deep;
/// see `emit::typescript::nachos_class`).
const CONVERT_REFUSALS: [&str; 4] = [
    "the paths hold no tool to convert",
    "a Nachos tool needs a toolId, and this tool has no name",
    "not an object schema",
    "the parameters nest deeper than",
];

/// `convert --to` each format: the run ends in 0 or 1 with a JSON report
/// (or in one of the [`CONVERT_REFUSALS`]); what it wrote reads back as the
/// target format with every tool of the input. The selector: bits 0-2 the
/// target (the formats convert writes, in `Format::ALL`'s order, modulo
/// their count), bits 3-5 the file.
pub fn convert(data: &[u8]) -> Checked {
    let Some((&selector, rest)) = data.split_first() else {
        return Ok(());
    };
    let targets: Vec<Format> = Format::ALL
        .into_iter()
        .filter(|f| crate::convert::writes(*f))
        .collect();
    let Some(&to) = targets.get(usize::from(selector & 7) % targets.len().max(1)) else {
        return Ok(());
    };
    let kind = Kind::of(selector >> 3);
    let case = Case::write(kind, rest)?;
    let document = crate::convert::writes_document(to);
    let output = case.dir.join(if document { "out.json" } else { "out" });
    let (path, out_path) = (case.path(), output.to_string_lossy().into_owned());
    let mut args = strings(&["--color", "never", "convert", &path, "--to", to.name()]);
    args.extend(strings(&[
        "-o",
        &out_path,
        "--allow-errors",
        "--force",
        "--format",
        "json",
    ]));
    let input_format = kind.input_format(false);
    if let Some(format) = input_format {
        args.extend(strings(&["--input-format", format.name()]));
    }
    let (code, out, err) = toolc(&args);
    if code == 2 && CONVERT_REFUSALS.iter().any(|refusal| err.contains(refusal)) {
        return Ok(());
    }
    ensure!(code <= 1, "convert --to {to} exited {code}: {err}");
    serde_json::from_str::<Value>(&out).map_err(|e| format!("the report is not JSON: {e}"))?;
    let expected = tools_in(&case, input_format);
    let (manifests, tools) = if document {
        let text = std::fs::read_to_string(&output)
            .map_err(|e| format!("convert --to {to} wrote no document: {e}"))?;
        if let Err(e) = json::parse(&Arc::from(text.as_str())) {
            return Err(format!("convert --to {to} wrote invalid JSON: {e:?}"));
        }
        let options = LoadOptions {
            input_format: Some(to),
            ..LoadOptions::default()
        };
        Project::from_documents([(out_path, text)], &options)
    } else {
        Project::load(&[output], &LoadOptions::default())
            .map_err(|e| format!("convert --to {to} wrote no directory: {e}"))?
    }
    .toolsets()
    .fold((Vec::new(), 0), |(mut formats, tools), set| {
        formats.push(set.format);
        (formats, tools + set.tools.len())
    });
    ensure!(
        manifests.iter().all(|f| *f == to),
        "convert --to {to} wrote manifests that read as {manifests:?}"
    );
    ensure!(
        tools == expected,
        "convert --to {to}: {expected} tools in, {tools} read back"
    );
    Ok(())
}

const GEN_TARGETS: [&str; 4] = ["openai", "anthropic", "mcp", "gemini"];

/// `gen` of each provider's JSON: the run ends in 0 or 1 with a JSON
/// report; the document is the provider's shape, with every tool of the
/// input, and reads back as that format. The selector: bits 0-1 the
/// target, bits 2-4 the file, bit 5 `--strict`.
pub fn generate(data: &[u8]) -> Checked {
    let Some((&selector, rest)) = data.split_first() else {
        return Ok(());
    };
    let target = GEN_TARGETS[usize::from(selector & 3)];
    let kind = Kind::of(selector >> 2);
    let case = Case::write(kind, rest)?;
    let output = case.dir.join("out.json");
    let (path, out_path) = (case.path(), output.to_string_lossy().into_owned());
    let mut args = strings(&["--color", "never", "gen", target, &path, "-o", &out_path]);
    args.extend(strings(&["--allow-errors", "--force", "--format", "json"]));
    if selector & 32 != 0 {
        args.push("--strict".to_string());
    }
    let input_format = kind.input_format(false);
    if let Some(format) = input_format {
        args.extend(strings(&["--input-format", format.name()]));
    }
    let (code, out, err) = toolc(&args);
    ensure!(code <= 1, "gen {target} exited {code}: {err}");
    serde_json::from_str::<Value>(&out).map_err(|e| format!("the report is not JSON: {e}"))?;
    let text = std::fs::read_to_string(&output)
        .map_err(|e| format!("gen {target} wrote no document: {e}"))?;
    let value: Value =
        serde_json::from_str(&text).map_err(|e| format!("gen {target} wrote invalid JSON: {e}"))?;
    let entries = match target {
        "mcp" => &value["tools"],
        "gemini" => &value["functionDeclarations"],
        _ => &value,
    };
    let entries = entries
        .as_array()
        .ok_or_else(|| format!("gen {target} wrote no list of tools: {text}"))?;
    let expected = tools_in(&case, input_format);
    ensure!(
        entries.len() == expected,
        "gen {target}: {expected} tools in, {} out",
        entries.len()
    );
    let (name, schema) = match target {
        "openai" => ("/function/name", "/function/parameters"),
        "anthropic" => ("/name", "/input_schema"),
        "mcp" => ("/name", "/inputSchema"),
        _ => ("/name", "/parameters"),
    };
    for entry in entries {
        ensure!(
            entry.pointer(name).is_some_and(Value::is_string),
            "an entry without a name: {entry}"
        );
        if let Some(schema) = entry.pointer(schema) {
            ensure!(schema.is_object(), "parameters that are no object: {entry}");
        }
    }
    if let Some(format) = Format::from_name(target) {
        let options = LoadOptions {
            input_format: Some(format),
            ..LoadOptions::default()
        };
        let tools: usize = Project::from_documents([(out_path, text)], &options)
            .toolsets()
            .map(|set| set.tools.len())
            .sum();
        ensure!(
            tools == expected,
            "gen {target}: {tools} tools read back, {expected} in"
        );
    }
    Ok(())
}
