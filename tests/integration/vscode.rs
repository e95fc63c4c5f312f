//! The VS Code extension in `editors/vscode`: it type-checks under its
//! own strict tsconfig, and `vsce package` makes a `.vsix` of it that holds
//! the compiled extension and its runtime dependencies, as the README's
//! build commands do. The extension's pinned TypeScript and @vscode/vsce
//! come from its package-lock.json: scripts/test installs them with
//! `npm ci` into target/vscode-node and says where
//! (`TOOLC_TEST_VSCODE_NODE_MODULES`); without them the test fails.
//!
//! The extension is built in a temporary copy (its files, with
//! `node_modules` a link to the installed one), so the tree gets no `out/`
//! and no `.vsix`. It needs node and npm on PATH.
//!
//! No VS Code runs here: `vscode_host.js` stands in for it, with just
//! enough of its API for the packaged extension and vscode-languageclient
//! to start the real `toolc server` and stop it, and the test reads what
//! the extension sent the server. What VS Code itself does with the
//! server's answers (squiggles, the light bulb, fix all on save) is not
//! tested.

use super::{TempDir, root};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// How long tsc, vsce or the host may take before the test calls it a hang.
const TOOL_LIMIT: Duration = Duration::from_secs(300);

/// The keys of `toolc server`'s settings (src/lsp/mod.rs `Settings`): the
/// extension must offer each as `toolc.KEY`.
const SERVER_SETTINGS: [&str; 4] = ["configuration", "select", "ignore", "targets"];

#[test]
fn the_extension_type_checks_packages_and_starts_toolc_server() {
    let modules = node_modules();
    let dir = TempDir::new("vscode");
    let extension = dir.path().join("extension");
    copy_sources(&root().join("editors/vscode"), &extension);
    link(&modules, &extension.join("node_modules"));

    let tsc = modules.join("typescript/bin/tsc");
    run(
        Command::new("node")
            .arg(&tsc)
            .args(["-p", ".", "--noEmit"])
            .current_dir(&extension),
        "tsc -p editors/vscode --noEmit",
    );

    // `npm run package`, as the README builds it: vsce with the flags
    // package.json gives it (the project has no public repository URL to
    // name, and vsce asks about that unless told). vsce runs the
    // `vscode:prepublish` script (tsc into out/) and lists the runtime
    // dependencies with `npm list`, both locally.
    let vsix = dir.path().join("toolc.vsix");
    run(
        Command::new("npm")
            .args(["run", "--silent", "package", "--", "--out"])
            .arg(&vsix)
            .current_dir(&extension),
        "npm run package (vsce package)",
    );
    assert!(vsix.is_file(), "vsce made no {}", vsix.display());

    let entries = zip_entries(&vsix);
    for expected in [
        "extension.vsixmanifest",
        "extension/package.json",
        "extension/out/extension.js",
        "extension/LICENSE.txt",
        "extension/readme.md",
        // What `require("vscode-languageclient/node")` loads at run time.
        "extension/node_modules/vscode-languageclient/package.json",
        "extension/node_modules/vscode-languageserver-protocol/package.json",
        "extension/node_modules/vscode-jsonrpc/package.json",
    ] {
        assert!(
            entries.iter().any(|e| e == expected),
            "the .vsix has no {expected}:\n{}",
            entries.join("\n")
        );
    }
    // The build's tools and the sources stay out (.vscodeignore, and vsce
    // ships production dependencies only).
    for absent in [
        "extension/src/",
        "extension/node_modules/typescript/",
        "extension/node_modules/@vscode/vsce/",
    ] {
        assert!(
            !entries.iter().any(|e| e.starts_with(absent)),
            "the .vsix holds {absent}:\n{}",
            entries.join("\n")
        );
    }

    // What the .vsix holds runs: unpacked, loaded by a stand-in for VS
    // Code, it starts the real toolc server, restarts it, and stops it.
    let unpacked = dir.path().join("unpacked");
    unzip(&vsix, &unpacked);
    let extension = unpacked.join("extension");
    starts_the_server_with_the_settings(&dir, &extension);
    reports_a_missing_binary(&dir, &extension);
}

/// The settings the test host gives the extension.
fn settings(path: &Path) -> serde_json::Value {
    json!({
        "path": path,
        "configuration": "",
        "select": [],
        "ignore": ["TC102"],
        "targets": ["openai"],
        "trace": {"server": "off"},
    })
}

/// Activated, restarted and deactivated, the extension starts `toolc
/// server` twice, hands each the settings as `initializationOptions` and
/// as the `toolc` section of `workspace/didChangeConfiguration`, and shuts
/// each down in order.
fn starts_the_server_with_the_settings(dir: &TempDir, extension: &Path) {
    // toolc itself, with what the extension sends it copied to a log.
    let log = dir.path().join("server-input.log");
    let spy = dir.write(
        "toolc-spy",
        format!(
            "#!/bin/sh\ntee -a '{}' | '{}' \"$@\"\n",
            log.display(),
            env!("CARGO_BIN_EXE_toolc")
        ),
    );
    make_executable(&spy);
    let seen = host(extension, &settings(&spy), &["restart"]);
    assert_eq!(seen["errors"], json!([]), "{seen}");
    assert!(
        seen["commands"]
            .as_array()
            .is_some_and(|c| c.contains(&json!("toolc.restart"))),
        "{seen}"
    );

    let sent = lsp_messages(&std::fs::read(&log).expect("read what toolc was sent"));
    let methods: Vec<&str> = sent.iter().filter_map(|m| m["method"].as_str()).collect();
    let one_run = [
        "initialize",
        "initialized",
        "workspace/didChangeConfiguration",
        "shutdown",
        "exit",
    ];
    assert_eq!(
        methods,
        [one_run, one_run].concat(),
        "the notifications and requests toolc was sent"
    );
    let server_settings = json!({
        "configuration": "",
        "select": [],
        "ignore": ["TC102"],
        "targets": ["openai"],
    });
    for message in &sent {
        match message["method"].as_str() {
            Some("initialize") => {
                assert_eq!(
                    message["params"]["initializationOptions"], server_settings,
                    "{message}"
                );
            }
            Some("workspace/didChangeConfiguration") => {
                let toolc = &message["params"]["settings"]["toolc"];
                for key in SERVER_SETTINGS {
                    assert_eq!(toolc[key], server_settings[key], "{message}");
                }
            }
            _ => {}
        }
    }
}

/// A `toolc.path` that names no program starts nothing and says how to
/// fix it, once.
fn reports_a_missing_binary(dir: &TempDir, extension: &Path) {
    let missing = dir.path().join("no-such-toolc");
    let seen = host(extension, &settings(&missing), &[]);
    let errors = seen["errors"].as_array().expect("errors");
    assert_eq!(errors.len(), 1, "{seen}");
    let error = errors[0].as_str().expect("a message");
    assert!(
        error.contains(&missing.display().to_string()) && error.contains("toolc.path"),
        "{error}"
    );
}

/// Runs tests/integration/vscode_host.js on the unpacked extension with
/// `settings` as its `toolc` section; what the host saw.
fn host(extension: &Path, settings: &serde_json::Value, args: &[&str]) -> serde_json::Value {
    let stdout = run(
        Command::new("node")
            .arg(root().join("tests/integration/vscode_host.js"))
            .arg(extension)
            .args(args)
            .env("TOOLC_HOST_SETTINGS", settings.to_string()),
        "node vscode_host.js (the extension in a stand-in for VS Code)",
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// The JSON-RPC messages of an LSP stream (`Content-Length` framing).
fn lsp_messages(mut bytes: &[u8]) -> Vec<serde_json::Value> {
    let mut messages = Vec::new();
    while !bytes.is_empty() {
        let end = bytes
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .unwrap_or_else(|| panic!("a header without its end: {bytes:?}"));
        let header = String::from_utf8_lossy(&bytes[..end]);
        let length: usize = header
            .lines()
            .find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().parse().ok())?
            })
            .unwrap_or_else(|| panic!("no Content-Length in {header:?}"));
        let body = &bytes[end + 4..end + 4 + length];
        messages.push(serde_json::from_slice(body).expect("a JSON-RPC message"));
        bytes = &bytes[end + 4 + length..];
    }
    messages
}

#[cfg(unix)]
fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .expect("make the spy executable");
}

/// The settings the extension contributes are the server's, each under
/// `toolc.`, plus the binary's path; it starts on the languages the
/// server reads.
#[test]
fn the_extension_offers_the_server_settings() {
    let text = std::fs::read_to_string(root().join("editors/vscode/package.json"))
        .expect("read editors/vscode/package.json");
    let manifest: serde_json::Value = serde_json::from_str(&text).expect("package.json is JSON");
    let properties = manifest["contributes"]["configuration"]["properties"]
        .as_object()
        .expect("contributes.configuration.properties");
    for key in SERVER_SETTINGS.iter().chain(&["path", "trace.server"]) {
        assert!(
            properties.contains_key(&format!("toolc.{key}")),
            "package.json does not contribute toolc.{key}"
        );
    }
    assert_eq!(manifest["main"], "./out/extension.js");
    assert_eq!(manifest["license"], "MIT", "as Cargo.toml's");
    let events: Vec<&str> = manifest["activationEvents"]
        .as_array()
        .expect("activationEvents")
        .iter()
        .filter_map(|e| e.as_str())
        .collect();
    for language in ["json", "python", "typescript"] {
        assert!(
            events.contains(&format!("onLanguage:{language}").as_str()),
            "no onLanguage:{language} in {events:?}"
        );
    }
}

/// The extension's installed packages; the test fails without them.
fn node_modules() -> PathBuf {
    let modules = std::env::var_os("TOOLC_TEST_VSCODE_NODE_MODULES")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            panic!(
                "TOOLC_TEST_VSCODE_NODE_MODULES is not set: run the tests with scripts/test, \
                 which installs editors/vscode's packages (TypeScript, @vscode/vsce) with npm ci \
                 into target/vscode-node"
            )
        });
    for tool in ["typescript/bin/tsc", ".bin/vsce"] {
        assert!(
            modules.join(tool).is_file(),
            "{} is missing: TOOLC_TEST_VSCODE_NODE_MODULES={} is not an install of \
             editors/vscode's package-lock.json (scripts/test makes one)",
            modules.join(tool).display(),
            modules.display()
        );
    }
    modules
}

/// Copies the extension's files from `from` into `to`, leaving out what a
/// build or an install left there (`node_modules`, `out`, `.vsix` files).
fn copy_sources(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create the extension's copy");
    for entry in std::fs::read_dir(from).expect("read editors/vscode") {
        let entry = entry.expect("a directory entry");
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name == "node_modules" || name == "out" || name.ends_with(".vsix") {
            continue;
        }
        let target = to.join(&*name);
        if entry.file_type().expect("a file type").is_dir() {
            copy_sources(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy a file of the extension");
        }
    }
}

#[cfg(unix)]
fn link(original: &Path, link: &Path) {
    std::os::unix::fs::symlink(original, link).expect("link node_modules");
}

/// Runs `command` to the end, within [`TOOL_LIMIT`]; fails the test with
/// its output unless it succeeds.
fn run(command: &mut Command, what: &str) -> String {
    let output = super::run_within(command, what, TOOL_LIMIT);
    assert!(
        output.code == 0,
        "{what} failed (exit {}):\n{}\n{}",
        output.code,
        output.stdout,
        output.stderr
    );
    output.stdout
}

/// The Python that reads the .vsix (a zip archive) with its zipfile.
fn python() -> std::ffi::OsString {
    std::env::var_os("TOOLC_TEST_PYTHON")
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| super::SYSTEM_PYTHON.into())
}

/// The names in the zip archive `path` (a .vsix).
fn zip_entries(path: &Path) -> Vec<String> {
    let listing = run(
        Command::new(python())
            .args([
                "-c",
                "import sys, zipfile; print('\\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()))",
            ])
            .arg(path),
        "python: zipfile lists the .vsix",
    );
    listing.lines().map(str::to_string).collect()
}

/// Unpacks the zip archive `path` into `into`.
fn unzip(path: &Path, into: &Path) {
    run(
        Command::new(python())
            .args([
                "-c",
                "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])",
            ])
            .arg(path)
            .arg(into),
        "python: zipfile unpacks the .vsix",
    );
}
