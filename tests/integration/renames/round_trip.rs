//! agentcli → NORA (or AgentStack, or Nachos) → agentcli gives back the agentcli file byte for byte
//! (its own layout, no entrypoint or schema toolc made up, the tools in
//! their order), and the way back reports nothing as lost: over every
//! agentcli manifest of the fixtures and of the corpus that NORA can hold.
//!
//! A tool edited in the NORA directory comes back as edited (in toolc's
//! layout), the others with their own text; a tool added or removed leaves
//! a valid file with every other tool as it was.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::super::{TempDir, Test, root};

/// Every `tools.json` of the fixtures (but the `bad/` ones) and of the
/// corpus's agentcli projects.
fn agentcli_manifests() -> Vec<PathBuf> {
    let mut found = Vec::new();
    for base in [
        root().join("fixtures"),
        root().join("../shared/corpus/agentcli"),
    ] {
        for entry in walkdir::WalkDir::new(&base).sort_by_file_name() {
            let entry = entry.expect("walk");
            let path = entry.path();
            let bad = path.components().any(|c| c.as_os_str() == "bad");
            if entry.file_name() == "tools.json" && !bad {
                found.push(path.to_path_buf());
            }
        }
    }
    found
}

/// Runs `toolc convert FROM --to TO -o OUT --show-losses`: whether it
/// succeeded, and its stderr.
fn convert(from: &Path, to: &str, out: &Path) -> (bool, String) {
    let output = Test::new()
        .args([
            "convert",
            &from.display().to_string(),
            "--to",
            to,
            "-o",
            &out.display().to_string(),
            "--show-losses",
        ])
        .run();
    (output.code == 0, output.stderr)
}

/// Converts `from` into `to`, failing the test if toolc refuses.
fn converted(from: &Path, to: &str, out: &Path) -> String {
    let (ok, stderr) = convert(from, to, out);
    assert!(
        ok,
        "convert {} --to {to} refused:\n{stderr}",
        from.display()
    );
    stderr
}

/// Why NORA may refuse an agentcli manifest: a parameter without a type
/// (NORA's dialect requires one), or a manifest with errors of its own.
const REFUSALS: &[&str] = &[
    "\"type\" is a required property",
    "not converting manifests with errors",
];

#[test]
fn agentcli_through_nora_is_byte_for_byte() {
    through_is_byte_for_byte("nora");
}

/// AgentStack and Nachos need fields agentcli does not have (a package
/// `name` and `category`, `actions`; `version`, a `securityTier`): what
/// toolc makes up for them is recorded as made up, so the way back does
/// not take it for the user's.
#[test]
fn agentcli_through_agentstack_is_byte_for_byte() {
    through_is_byte_for_byte("agentstack");
}

#[test]
fn agentcli_through_nachos_is_byte_for_byte() {
    through_is_byte_for_byte("nachos");
}

/// agentcli → `via` → agentcli over every agentcli manifest: the file
/// comes back byte for byte and the way back reports no loss.
fn through_is_byte_for_byte(via: &str) {
    let temp = TempDir::new(&format!("round-trip-{via}"));
    let manifests = agentcli_manifests();
    let mut compared = 0;
    let mut failures = Vec::new();
    let mut refused = Vec::new();
    for (index, manifest) in manifests.iter().enumerate() {
        let original = std::fs::read(manifest).expect("read");
        let work = temp.path().join(index.to_string());
        let (ok, stderr) = convert(manifest, via, &work.join(via));
        if !ok {
            // The target refuses what it cannot hold, and says why.
            if !REFUSALS.iter().any(|reason| stderr.contains(reason)) {
                failures.push(format!(
                    "{}: {via} refused it without a reason:\n{stderr}",
                    manifest.display()
                ));
            }
            refused.push(manifest.display().to_string());
            continue;
        }
        let (ok, back_report) = convert(&work.join(via), "agentcli", &work.join("back"));
        if !ok {
            failures.push(format!(
                "{}: converting back refused:\n{back_report}",
                manifest.display()
            ));
            continue;
        }
        let back = std::fs::read(work.join("back/tools.json")).expect("back");
        compared += 1;
        let same = match without_inline_ignores(&original) {
            // An inline ignore is never carried into converted output (it
            // configures toolc's lint of this file only): such a manifest
            // comes back without it, and equal to it otherwise.
            Some(expected) => serde_json::from_slice::<Value>(&back).ok() == Some(expected),
            None => back == original,
        };
        if !same {
            failures.push(format!(
                "{}: differs after agentcli -> {via} -> agentcli:\n--- before\n{}\n--- after\n{}",
                manifest.display(),
                String::from_utf8_lossy(&original),
                String::from_utf8_lossy(&back)
            ));
        }
        if back_report.contains("conversion-loss") {
            failures.push(format!(
                "{}: the way back reports losses:\n{back_report}",
                manifest.display()
            ));
        }
    }
    eprintln!(
        "{compared} of {} round trips through {via} compared; refused: {refused:#?}",
        manifests.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // Every manifest the target holds was compared, the corpus's among them.
    assert_eq!(compared + refused.len(), manifests.len());
    assert!(
        !refused.iter().any(|r| r.contains("corpus")),
        "the corpus's manifest was refused"
    );
    assert!(compared >= 2, "only {compared} manifests compared");
}

/// The corpus's hand-written agentcli file.
fn corpus_file() -> PathBuf {
    root().join("../shared/corpus/agentcli/goagent/tools.json")
}

/// The texts of the tool entries of an agentcli file (the objects of its
/// `tools` array), as written: found by matching braces outside strings.
fn entry_texts(text: &str) -> Vec<&str> {
    let tools = text.find("\"tools\"").expect("a tools member");
    let mut entries = Vec::new();
    let mut depth = 0usize;
    let mut start = None;
    let mut in_string = false;
    let mut escaped = false;
    for (at, c) in text[tools..].char_indices() {
        let at = tools + at;
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '[' | '{' => {
                depth += 1;
                if depth == 2 && c == '{' {
                    start = Some(at);
                }
            }
            ']' | '}' => {
                if depth == 2
                    && let Some(from) = start.take()
                {
                    entries.push(&text[from..=at]);
                }
                if depth == 1 {
                    break;
                }
                depth -= 1;
            }
            _ => {}
        }
    }
    entries
}

/// The tools of an agentcli file, as JSON.
fn tools_of(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).expect("read tools.json");
    let value: Value = serde_json::from_str(&text).expect("tools.json is JSON");
    value["tools"].as_array().expect("a tools array").clone()
}

/// Rewrites the NORA `tool.json` at `path` with `edit`.
fn edit_tool_json(path: &Path, edit: impl FnOnce(&mut Value)) {
    let text = std::fs::read_to_string(path).expect("read tool.json");
    let mut value: Value = serde_json::from_str(&text).expect("tool.json is JSON");
    edit(&mut value);
    let text = serde_json::to_string_pretty(&value).expect("JSON");
    std::fs::write(path, text + "\n").expect("write tool.json");
}

/// `toolc lint` finds no error in `path`.
fn lints_clean(path: &Path) {
    let output = Test::new()
        .args(["lint", &path.display().to_string()])
        .run();
    assert_eq!(
        output.code,
        0,
        "{} is no valid agentcli manifest:\n{}{}",
        path.display(),
        output.stdout,
        output.stderr
    );
}

#[test]
fn an_edited_tool_comes_back_edited_and_the_others_as_written() {
    let temp = TempDir::new("renames-round-trip-edit");
    let original = std::fs::read_to_string(corpus_file()).expect("read");
    let texts = entry_texts(&original);
    let before = tools_of(&corpus_file());
    assert!(before.len() >= 3, "the corpus file has several tools");
    converted(&corpus_file(), "nora", &temp.path().join("nora"));
    let edited = before[1]["name"].as_str().expect("a name").to_string();
    edit_tool_json(
        &temp.path().join("nora").join(&edited).join("tool.json"),
        |tool| {
            tool["description"] = Value::from("Fetches a URL (edited in NORA).");
        },
    );
    let report = converted(
        &temp.path().join("nora"),
        "agentcli",
        &temp.path().join("back"),
    );
    assert!(!report.contains("conversion-loss"), "{report}");
    let back_path = temp.path().join("back/tools.json");
    let back_text = std::fs::read_to_string(&back_path).expect("back");
    let after = tools_of(&back_path);
    assert_eq!(after.len(), before.len());
    for (index, (old, new)) in before.iter().zip(&after).enumerate() {
        if index == 1 {
            // The edit is there, and nothing else changed in that tool.
            let mut expected = old.clone();
            expected["description"] = Value::from("Fetches a URL (edited in NORA).");
            assert_eq!(*new, expected);
            assert!(
                !back_text.contains(texts[1]),
                "the stale text of the edited tool came back"
            );
        } else {
            assert_eq!(new, old);
            assert!(
                back_text.contains(texts[index]),
                "tool {index} lost its own text:\n{back_text}"
            );
        }
    }
    // The file around the tools is the file's own, and of the edited
    // tool only the edited line changed.
    let head = &original[..original.find(texts[0]).expect("first entry")];
    assert!(back_text.starts_with(head), "{back_text}");
    let changed: Vec<(&str, &str)> = original
        .lines()
        .zip(back_text.lines())
        .filter(|(old, new)| old != new)
        .collect();
    assert_eq!(original.lines().count(), back_text.lines().count());
    assert_eq!(changed.len(), 1, "{changed:#?}");
    assert!(changed[0].1.contains("(edited in NORA)"), "{changed:#?}");
    lints_clean(&back_path);
}

#[test]
fn a_tool_added_in_nora_joins_the_others_and_none_is_lost() {
    let temp = TempDir::new("renames-round-trip-add");
    // One tool without a schema: it must not come back with one. The new
    // tool's directory comes first by name, its entry after the tools that
    // were there.
    let manifest = root().join("fixtures/rules/conversion-loss/good/tools.json");
    let before = tools_of(&manifest);
    assert!(before.iter().all(|tool| tool.get("schema").is_none()));
    let nora = temp.path().join("nora");
    converted(&manifest, "nora", &nora);
    let added = nora.join("a_added");
    std::fs::create_dir_all(&added).expect("mkdir");
    let tool = serde_json::json!({
        "name": "a_added",
        "description": "A tool written in NORA.",
        "entrypoint": "main.py",
        "parameters": {"type": "object", "properties": {
            "text": {"type": "string", "description": "Some text.", "required": true}
        }}
    });
    std::fs::write(
        added.join("tool.json"),
        serde_json::to_string_pretty(&tool).expect("JSON") + "\n",
    )
    .expect("write");
    std::fs::write(
        added.join("main.py"),
        "def run(params):\n    return \"ok\"\n",
    )
    .expect("write");
    let report = converted(&nora, "agentcli", &temp.path().join("back"));
    // What the report says is of the new tool (its NORA entrypoint, kept
    // in "x-toolc"), nothing of the one that was there.
    assert!(
        report
            .lines()
            .filter(|line| line.contains("tool.json"))
            .all(|line| line.contains("a_added")),
        "{report}"
    );
    let back_path = temp.path().join("back/tools.json");
    let after = tools_of(&back_path);
    assert_eq!(after.len(), before.len() + 1, "{after:#?}");
    assert_eq!(
        after[..before.len()],
        before[..],
        "the tools that were there changed"
    );
    let new = &after[before.len()];
    assert_eq!(new["name"], "a_added");
    assert_eq!(new["description"], "A tool written in NORA.");
    assert_eq!(new["schema"]["required"], serde_json::json!(["text"]));
    lints_clean(&back_path);
}

#[test]
fn a_tool_removed_in_nora_leaves_the_others_as_written() {
    let temp = TempDir::new("renames-round-trip-remove");
    let original = std::fs::read_to_string(corpus_file()).expect("read");
    let texts = entry_texts(&original);
    let before = tools_of(&corpus_file());
    let nora = temp.path().join("nora");
    converted(&corpus_file(), "nora", &nora);
    let removed = before[0]["name"].as_str().expect("a name");
    std::fs::remove_dir_all(nora.join(removed)).expect("remove a tool");
    let report = converted(&nora, "agentcli", &temp.path().join("back"));
    assert!(!report.contains("conversion-loss"), "{report}");
    let back_path = temp.path().join("back/tools.json");
    let back_text = std::fs::read_to_string(&back_path).expect("back");
    assert_eq!(tools_of(&back_path), before[1..], "the other tools changed");
    for text in &texts[1..] {
        assert!(
            back_text.contains(text),
            "a tool lost its text:\n{back_text}"
        );
    }
    lints_clean(&back_path);
}

#[test]
fn the_way_back_reports_no_restored_field_as_lost() {
    let temp = TempDir::new("renames-round-trip-losses");
    let nora = temp.path().join("nora");
    let there = converted(&corpus_file(), "nora", &nora);
    // The way there keeps agentcli's own fields, and says so.
    assert!(there.contains("conversion-loss"), "{there}");
    let back = converted(&nora, "agentcli", &temp.path().join("back"));
    assert!(!back.contains("conversion-loss"), "{back}");
    assert!(!back.contains("x-toolc"), "{back}");
    let text = std::fs::read_to_string(temp.path().join("back/tools.json")).expect("back");
    assert!(!text.contains("x-toolc"), "{text}");
}

/// Replaces `from` by `to` in the file at `path`, which must hold it.
fn replace_in(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).expect("read");
    assert!(
        text.contains(from),
        "{} holds no {from}:\n{text}",
        path.display()
    );
    std::fs::write(path, text.replace(from, to)).expect("write");
}

/// A field toolc made up becomes the user's once changed: then it is
/// carried back (in `"x-toolc"`) and reported as any field of the format.
#[test]
fn a_made_up_field_written_over_is_carried_and_reported() {
    let temp = TempDir::new("round-trip-made-up-edited");
    let manifest = root().join("fixtures/rules/conversion-loss/good/tools.json");
    let original = std::fs::read(&manifest).expect("read");

    // Nachos: the security tier (in the manifest and its class alike).
    let nachos = temp.path().join("nachos");
    converted(&manifest, "nachos", &nachos);
    let package = std::fs::read_dir(&nachos)
        .expect("nachos output")
        .map(|entry| entry.expect("entry").path())
        .find(|path| path.join("manifest.json").is_file())
        .expect("a package");
    replace_in(
        &package.join("manifest.json"),
        "\"securityTier\": 1",
        "\"securityTier\": 2",
    );
    let class = std::fs::read_dir(package.join("src"))
        .expect("class directory")
        .map(|entry| entry.expect("entry").path())
        .next()
        .expect("a class");
    replace_in(&class, "SecurityTier.STANDARD", "SecurityTier.ELEVATED");
    let report = converted(&nachos, "agentcli", &temp.path().join("back-nachos"));
    assert!(
        report.contains("nachos field \"provides.securityTier\""),
        "{report}"
    );
    let back = std::fs::read(temp.path().join("back-nachos/tools.json")).expect("back");
    assert_ne!(back, original);
    let tools = tools_of(&temp.path().join("back-nachos/tools.json"));
    assert_eq!(
        tools[0]["x-toolc"]["nachos"]["provides"]["securityTier"],
        Value::from(2),
        "{tools:#?}"
    );
    assert!(tools[0]["x-toolc"]["nachos"].get("version").is_none());

    // AgentStack: the package's category.
    let agentstack = temp.path().join("agentstack");
    converted(&manifest, "agentstack", &agentstack);
    let config = std::fs::read_dir(&agentstack)
        .expect("agentstack output")
        .map(|entry| entry.expect("entry").path().join("config.json"))
        .find(|path| path.is_file())
        .expect("a package");
    replace_in(&config, "\"category\": \"custom\"", "\"category\": \"web\"");
    let report = converted(&agentstack, "agentcli", &temp.path().join("back-as"));
    assert!(report.contains("agentstack field \"category\""), "{report}");
    assert!(!report.contains("agentstack field \"name\""), "{report}");
    assert!(!report.contains("agentstack field \"actions\""), "{report}");
    let tools = tools_of(&temp.path().join("back-as/tools.json"));
    assert_eq!(
        tools[0]["x-toolc"]["set"]["agentstack"],
        serde_json::json!({"category": "web"}),
        "{tools:#?}"
    );
}

/// Converting a Nachos package toolc wrote into Nachos again keeps what
/// was made up marked as made up: the way back is still byte for byte.
#[test]
fn made_up_fields_stay_made_up_through_the_same_format() {
    let temp = TempDir::new("round-trip-made-up-twice");
    let manifest = root().join("fixtures/rules/conversion-loss/good/tools.json");
    let original = std::fs::read(&manifest).expect("read");
    for via in ["nachos", "agentstack", "nora"] {
        let first = temp.path().join(format!("{via}-1"));
        let second = temp.path().join(format!("{via}-2"));
        let back = temp.path().join(format!("{via}-back"));
        converted(&manifest, via, &first);
        converted(&first, via, &second);
        let report = converted(&second, "agentcli", &back);
        assert!(!report.contains("conversion-loss"), "{via}: {report}");
        let written = std::fs::read(back.join("tools.json")).expect("back");
        assert_eq!(
            String::from_utf8_lossy(&written),
            String::from_utf8_lossy(&original),
            "{via}"
        );
    }
}

/// The manifest as JSON without its tools' `"x-toolc"` `"ignore"` lists
/// (and an `"x-toolc"` left empty), when it has any.
fn without_inline_ignores(original: &[u8]) -> Option<Value> {
    let mut manifest: Value = serde_json::from_slice(original).ok()?;
    let mut found = false;
    for tool in manifest["tools"].as_array_mut()? {
        let Some(own) = tool.get_mut("x-toolc").and_then(Value::as_object_mut) else {
            continue;
        };
        found |= own.remove("ignore").is_some();
        if own.is_empty() {
            tool.as_object_mut()?.remove("x-toolc");
        }
    }
    found.then_some(manifest)
}
