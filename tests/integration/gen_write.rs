//! The writer's rules, for every target: a file toolc wrote (its mark says
//! so) is updated without `--force`; a file without the mark is replaced
//! only with `--force`.

use super::{TempDir, Test};

const MANIFEST: &str = r#"{"tools": [{"name": "greet", "description": "Greets someone.",
  "command": ["/bin/true"],
  "schema": {"type": "object", "properties": {"name": {"type": "string"}}}}]}"#;

fn toolc(dir: &TempDir, args: &[&str]) -> super::Output {
    Test::new().current_dir(dir.path()).args(args).run()
}

/// `gen python` writes a NORA `tool.json` marked `"x-toolc": {"generated"}`:
/// after the manifest changes, gen updates it without `--force`.
#[test]
fn a_marked_manifest_is_updated_without_force() {
    let dir = TempDir::new("gen-write-marked");
    dir.write("tools.json", MANIFEST);
    let args = [
        "gen",
        "python",
        "--style",
        "nora",
        "tools.json",
        "-o",
        "out",
    ];
    let first = toolc(&dir, &args);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let written =
        std::fs::read_to_string(dir.path().join("out/greet/tool.json")).expect("tool.json");
    assert!(written.contains("\"generated\""), "{written}");

    dir.write(
        "tools.json",
        MANIFEST.replace("Greets someone.", "Greets anyone."),
    );
    let again = toolc(&dir, &args);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let updated =
        std::fs::read_to_string(dir.path().join("out/greet/tool.json")).expect("tool.json");
    assert!(updated.contains("Greets anyone."), "{updated}");
}

/// Provider JSON carries no mark: a file there that differs is replaced
/// only with `--force`, and the refusal says so.
#[test]
fn an_unmarked_file_needs_force() {
    let dir = TempDir::new("gen-write-unmarked");
    dir.write("tools.json", MANIFEST);
    dir.write("openai.json", "[]\n");
    let args = ["gen", "openai", "tools.json", "-o", "openai.json"];
    let refused = toolc(&dir, &args);
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("toolc did not write it"),
        "{}",
        refused.stderr
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("openai.json")).expect("kept"),
        "[]\n"
    );
    let forced = toolc(&dir, &[&args[..], &["--force"]].concat());
    assert_eq!(forced.code, 0, "{}", forced.stderr);
}

/// Every file under `dir`, with its bytes, sorted by path.
fn snapshot(dir: &std::path::Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut files: Vec<_> = walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_file())
        .map(|entry| {
            let bytes = std::fs::read(entry.path()).expect("read");
            (entry.into_path(), bytes)
        })
        .collect();
    files.sort();
    files
}

/// A run that writes two files and fails on the second (its temporary
/// file's name is one byte too long for the file system, which only
/// writing finds out, whoever runs the test) changes neither: the module
/// toolc would update is byte for byte what it was, and no temporary file
/// is left behind.
#[test]
fn a_write_failing_halfway_changes_no_file() {
    let dir = TempDir::new("gen-write-halfway");
    dir.write("tools.json", MANIFEST);
    // `.<stem>_impl.rs.toolc-<16 hex>.tmp` is the stem + 36 bytes: over
    // 255 for this stem, while the module's own temporary name fits.
    let stem = "m".repeat(222);
    let module = format!("src/{stem}.rs");
    // A module toolc wrote (signed), with its stubs file beside it missing.
    let short = toolc(&dir, &["gen", "rust", "tools.json", "-o", "src/tools.rs"]);
    assert_eq!(short.code, 0, "{}", short.stderr);
    std::fs::rename(dir.path().join("src/tools.rs"), dir.path().join(&module)).expect("rename");
    std::fs::remove_file(dir.path().join("src/tools_impl.rs")).expect("remove the stubs");
    dir.write(
        "tools.json",
        MANIFEST.replace("Greets someone.", "Greets anyone."),
    );
    let before = snapshot(dir.path());

    let failed = toolc(&dir, &["gen", "rust", "tools.json", "-o", &module]);
    assert_eq!(failed.code, 2, "{}", failed.stderr);
    assert!(
        failed.stderr.contains(&format!("{stem}_impl.rs"))
            && failed.stderr.contains("nothing was written"),
        "the error names the file that could not be written and says nothing changed:\n{}",
        failed.stderr
    );
    assert_eq!(
        snapshot(dir.path()),
        before,
        "no file changed and no temporary file is left"
    );

    // Into directories that do not exist yet: those made for the run go
    // again with its temporary files.
    let fresh = format!("fresh/deeper/{stem}.rs");
    let failed = toolc(&dir, &["gen", "rust", "tools.json", "-o", &fresh]);
    assert_eq!(failed.code, 2, "{}", failed.stderr);
    assert!(!dir.path().join("fresh").exists(), "no directory is left");
    assert_eq!(snapshot(dir.path()), before);
}

/// The provider documents (no room for a mark in them: the API refuses
/// unknown keys) are toolc's by the record beside them, `FILE.x-toolc.json`,
/// which holds their digest: after the manifest changes, gen updates them
/// without `--force`, and `--check` tells the truth about them; so are
/// those `convert` writes.
#[test]
fn a_provider_document_toolc_wrote_is_updated_without_force() {
    let generated = ["openai", "openai-responses", "anthropic", "gemini", "mcp"]
        .map(|target| vec!["gen", target]);
    let converted = ["openai", "anthropic", "mcp"].map(|target| vec!["convert", "--to", target]);
    for command in generated.iter().chain(&converted) {
        let target = command.join(" ");
        let dir = TempDir::new(&format!("gen-write-provider-{}", command.join("-")));
        dir.write("tools.json", MANIFEST);
        let args: Vec<&str> = [&command[..], &["tools.json", "-o", "out.json"]].concat();
        let first = toolc(&dir, &args);
        assert_eq!(first.code, 0, "{target}: {}", first.stderr);
        let check: Vec<&str> = [&args[..], &["--check"]].concat();
        let fresh = toolc(&dir, &check);
        assert_eq!(fresh.code, 0, "{target}: {}{}", fresh.stdout, fresh.stderr);

        dir.write(
            "tools.json",
            MANIFEST.replace("Greets someone.", "Greets anyone."),
        );
        let stale = toolc(&dir, &check);
        assert_eq!(stale.code, 1, "{target}: {}", stale.stderr);
        assert!(
            stale.stderr.contains("stale: out.json"),
            "{target}: {}",
            stale.stderr
        );
        // The diff --check prints (the file and its record) is the change
        // gen would make.
        let files = ["out.json", "out.json.x-toolc.json"].map(|name| dir.path().join(name));
        let before = files.clone().map(|file| std::fs::read(file).expect("read"));
        super::fixes::git_apply(dir.path(), &stale.stdout, 0);
        let patched = files.clone().map(|file| std::fs::read(file).expect("read"));
        assert_ne!(patched, before, "{target}");
        for (file, bytes) in files.iter().zip(&before) {
            std::fs::write(file, bytes).expect("restore");
        }
        let again = toolc(&dir, &args);
        assert_eq!(
            again.code, 0,
            "{target}: no --force needed: {}",
            again.stderr
        );
        let updated = std::fs::read_to_string(dir.path().join("out.json")).expect("out.json");
        let written = files.clone().map(|file| std::fs::read(file).expect("read"));
        assert_eq!(written, patched, "{target}");
        assert!(updated.contains("Greets anyone."), "{target}");
        let fresh = toolc(&dir, &check);
        assert_eq!(fresh.code, 0, "{target}: {}{}", fresh.stdout, fresh.stderr);
    }
}

/// A provider document edited since toolc wrote it (its digest no longer
/// matches the record beside it) is the user's now: refused without
/// `--force`, left as it is, and `--check` calls it stale.
#[test]
fn a_provider_document_edited_since_needs_force() {
    let dir = TempDir::new("gen-write-provider-edited");
    dir.write("tools.json", MANIFEST);
    let args = ["gen", "openai", "tools.json", "-o", "out.json"];
    assert_eq!(toolc(&dir, &args).code, 0);
    let written = std::fs::read_to_string(dir.path().join("out.json")).expect("out.json");
    let edited = written.replace("Greets someone.", "Greets someone, by hand.");
    assert_ne!(edited, written);
    dir.write("out.json", &edited);

    let check = toolc(&dir, &[&args[..], &["--check"]].concat());
    assert_eq!(check.code, 1, "{}", check.stderr);
    assert!(check.stderr.contains("stale: out.json"), "{}", check.stderr);
    dir.write(
        "tools.json",
        MANIFEST.replace("Greets someone.", "Greets anyone."),
    );
    let refused = toolc(&dir, &args);
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("out.json")
            && refused.stderr.contains("edited since toolc wrote it"),
        "{}",
        refused.stderr
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out.json")).expect("kept"),
        edited
    );
    let forced = toolc(&dir, &[&args[..], &["--force"]].concat());
    assert_eq!(forced.code, 0, "{}", forced.stderr);
    let updated = std::fs::read_to_string(dir.path().join("out.json")).expect("out.json");
    assert!(updated.contains("Greets anyone."), "{updated}");
    // Replaced with --force, it is toolc's again.
    dir.write("tools.json", MANIFEST);
    let again = toolc(&dir, &args);
    assert_eq!(again.code, 0, "{}", again.stderr);
}

/// `--check` on a file gen would not replace as it is names what to do
/// first: the command it advises then works.
#[test]
fn check_advice_for_an_edited_module_names_what_to_do_first() {
    let dir = TempDir::new("gen-write-check-advice");
    dir.write("tools.json", MANIFEST);
    let args = ["gen", "rust", "tools.json", "-o", "src/tools.rs"];
    let first = toolc(&dir, &args);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let module = dir.path().join("src/tools.rs");
    let text = std::fs::read_to_string(&module).expect("module");
    std::fs::write(&module, format!("{text}\npub fn mine() {{}}\n")).expect("edit");
    dir.write(
        "tools.json",
        MANIFEST.replace("Greets someone.", "Greets anyone."),
    );
    let mut check_args = args.to_vec();
    check_args.push("--check");
    let check = toolc(&dir, &check_args);
    assert_eq!(check.code, 1, "{}", check.stderr);
    assert!(
        check
            .stderr
            .contains("holds lines toolc did not write: move them"),
        "{}",
        check.stderr
    );
    // Doing what it says, then what it advises, brings the check to 0.
    std::fs::write(&module, &text).expect("undo the edit");
    let again = toolc(&dir, &args);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(toolc(&dir, &check_args).code, 0);
}

/// A tool whose directory name is too long for the file system: nothing
/// is written, and the output directories made on the way to it go again.
#[test]
fn a_directory_that_cannot_be_made_leaves_none_behind() {
    let dir = TempDir::new("gen-write-long-directory");
    let name = "a".repeat(300);
    dir.write(
        "long.json",
        format!(
            r#"{{"tools": [{{"name": "{name}", "description": "Long.", "inputSchema": {{"type": "object", "properties": {{}}}}}}]}}"#
        ),
    );
    let failed = toolc(
        &dir,
        &[
            "gen",
            "python",
            "long.json",
            "-o",
            "o2/sub",
            "--allow-errors",
        ],
    );
    assert_eq!(failed.code, 2, "{}", failed.stderr);
    assert!(
        failed.stderr.contains("nothing was written"),
        "{}",
        failed.stderr
    );
    assert!(!dir.path().join("o2").exists(), "no directory is left");
}
