//! The release: `.github/workflows/release.yml` packs toolc with
//! `scripts/dist pack`, the Action (`action.yml`) downloads it with
//! `scripts/dist install`, and `cargo binstall` with the templates of
//! Cargo.toml's `[package.metadata.binstall]`. `scripts/dist` is where the
//! asset names are made; the tests hold the other two to it, run the
//! installer against a fake release served on loopback (archives of the
//! real toolc binary, with real checksums), and validate the workflow, the
//! Action and the README's CI snippets with check-jsonschema's vendored
//! schemas (offline: every proxy points at a closed port).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::{TempDir, root};

/// The test venv's bin directory (ruamel.yaml, check-jsonschema).
fn venv_bin() -> PathBuf {
    let python = std::env::var_os("TOOLC_TEST_PYTHON")
        .expect("TOOLC_TEST_PYTHON is not set: run the tests with scripts/test");
    Path::new(&python)
        .parent()
        .expect("the venv's bin directory")
        .to_path_buf()
}

/// A YAML file as JSON, read by ruamel.yaml (YAML 1.2: `on:` stays a key).
fn yaml(path: &Path) -> Value {
    let output = Command::new(venv_bin().join("python"))
        .args([
            "-c",
            "import json, sys\nfrom ruamel.yaml import YAML\n\
             print(json.dumps(YAML(typ='safe').load(open(sys.argv[1], encoding='utf-8'))))",
        ])
        .arg(path)
        .output()
        .expect("run the venv's python");
    assert!(output.status.success(), "{}", stderr(&output));
    serde_json::from_slice(&output.stdout).expect("JSON from ruamel.yaml")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// check-jsonschema with one of its built-in (vendored) schemas. No
/// proxy answers, so a schema fetched from the network would fail it.
fn check_jsonschema(schema: &str, file: &Path) -> Output {
    let closed = TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("address")
        .port();
    let proxy = format!("http://127.0.0.1:{closed}");
    let mut command = Command::new(venv_bin().join("check-jsonschema"));
    command.args(["--builtin-schema", schema]).arg(file);
    for variable in ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"] {
        command.env(variable, &proxy);
        command.env(variable.to_lowercase(), &proxy);
    }
    command
        .env_remove("NO_PROXY")
        .env_remove("no_proxy")
        .output()
        .expect("run check-jsonschema")
}

fn assert_valid(schema: &str, file: &Path) {
    let output = check_jsonschema(schema, file);
    assert!(
        output.status.success() && stdout(&output).contains("ok -- validation done"),
        "{} is not a valid {schema}:\n{}{}",
        file.display(),
        stdout(&output),
        stderr(&output)
    );
}

/// `scripts/dist ARGS` in the repository, with `env`.
fn dist(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(root().join("scripts/dist"));
    command.args(args).current_dir(root());
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().expect("run scripts/dist")
}

fn dist_ok(args: &[&str]) -> String {
    let output = dist(args, &[]);
    assert!(
        output.status.success(),
        "scripts/dist {args:?}: {}",
        stderr(&output)
    );
    stdout(&output).trim_end().to_string()
}

fn cargo_toml() -> toml::Table {
    std::fs::read_to_string(root().join("Cargo.toml"))
        .expect("read Cargo.toml")
        .parse()
        .expect("Cargo.toml parses")
}

fn version() -> String {
    cargo_toml()["package"]["version"]
        .as_str()
        .expect("version")
        .to_string()
}

/// The targets of a job's matrix in release.yml.
fn matrix_targets(workflow: &Value, job: &str) -> Vec<String> {
    workflow["jobs"][job]["strategy"]["matrix"]["include"]
        .as_array()
        .unwrap_or_else(|| panic!("release.yml: no matrix in job {job}"))
        .iter()
        .map(|entry| entry["target"].as_str().expect("target").to_string())
        .collect()
}

fn release_workflow() -> Value {
    yaml(&root().join(".github/workflows/release.yml"))
}

/// The binstall metadata of `target`: the defaults with its override.
fn binstall(target: &str) -> toml::Table {
    let manifest = cargo_toml();
    let mut meta = manifest["package"]["metadata"]["binstall"]
        .as_table()
        .expect("[package.metadata.binstall]")
        .clone();
    let overrides = meta.remove("overrides");
    if let Some(own) = overrides.as_ref().and_then(|o| o.get(target)) {
        for (key, value) in own.as_table().expect("an override table") {
            meta.insert(key.clone(), value.clone());
        }
    }
    meta
}

/// A binstall template filled in as cargo-binstall fills it.
fn expand(template: &str, target: &str) -> String {
    let manifest = cargo_toml();
    let package = &manifest["package"];
    let exe = if target.contains("-windows-") {
        ".exe"
    } else {
        ""
    };
    let mut text = template.to_string();
    for (key, value) in [
        ("repo", package["repository"].as_str().expect("repository")),
        ("name", package["name"].as_str().expect("name")),
        ("bin", "toolc"),
        ("version", &version()),
        ("target", target),
        ("binary-ext", exe),
    ] {
        text = text.replace(&format!("{{ {key} }}"), value);
    }
    assert!(!text.contains('{'), "a placeholder left in {text}");
    text
}

/// The files an archive holds, by their paths inside it.
fn archive_listing(archive: &Path) -> Vec<String> {
    let name = archive.to_string_lossy();
    let output = if name.ends_with(".zip") {
        Command::new("unzip").arg("-Z1").arg(archive).output()
    } else {
        Command::new("tar").arg("-tzf").arg(archive).output()
    }
    .expect("list the archive");
    assert!(output.status.success(), "{}", stderr(&output));
    stdout(&output).lines().map(str::to_string).collect()
}

#[test]
fn binstall_and_the_release_workflow_name_the_assets_scripts_dist_makes() {
    let workflow = release_workflow();
    let targets = matrix_targets(&workflow, "binaries");
    let manifest = cargo_toml();
    let repository = manifest["package"]["repository"].as_str().expect("repo");
    let version = version();
    let dir = TempDir::new("release-names");
    let stand_in = dir.write("stand-in/toolc", "#!/bin/sh\necho stand-in\n");
    for target in &targets {
        let meta = binstall(target);
        let asset = dist_ok(&["asset", target]);
        assert_eq!(
            expand(meta["pkg-url"].as_str().expect("pkg-url"), target),
            format!("{repository}/releases/download/v{version}/{asset}"),
            "Cargo.toml's binstall pkg-url for {target}"
        );
        let format = meta["pkg-fmt"].as_str().expect("pkg-fmt");
        let suffix = if format == "zip" { ".zip" } else { ".tar.gz" };
        assert!(asset.ends_with(suffix), "{asset} is not a {format}");
        assert_eq!(format == "tgz", suffix == ".tar.gz", "{target}: {format}");
        // The archive the workflow packs holds the binary where bin-dir
        // says (a small file stands in for every target's binary).
        let packed = dist_ok(&[
            "pack",
            target,
            &stand_in.to_string_lossy(),
            &dir.path().to_string_lossy(),
        ]);
        assert_eq!(packed, dir.path().join(&asset).to_string_lossy());
        let bin_dir = expand(meta["bin-dir"].as_str().expect("bin-dir"), target);
        let listing = archive_listing(Path::new(&packed));
        assert!(listing.contains(&bin_dir), "{bin_dir} not in {listing:?}");
        let checksum = std::fs::read_to_string(format!("{packed}.sha256")).expect(".sha256");
        assert!(checksum.ends_with(&format!("  {asset}\n")), "{checksum}");
    }
    // The workflow packs with scripts/dist, and attaches what it packed.
    let steps = workflow["jobs"]["binaries"]["steps"].to_string();
    assert!(
        steps.contains("scripts/dist pack \\\"$TARGET\\\""),
        "{steps}"
    );
    // Every runner the Action supports gets a target the workflow builds.
    for (os, arch) in [
        ("Linux", "X64"),
        ("Linux", "ARM64"),
        ("macOS", "X64"),
        ("macOS", "ARM64"),
        ("Windows", "X64"),
    ] {
        let target = dist_ok(&["target", os, arch]);
        assert!(targets.contains(&target), "{os} {arch}: {target}");
    }
    // The wheels are built for the same machines (glibc on Linux).
    let machines = |list: Vec<String>| -> Vec<String> {
        list.iter()
            .map(|t| t.replace("-musl", "-gnu"))
            .collect::<Vec<_>>()
    };
    assert_eq!(machines(targets), matrix_targets(&workflow, "wheels"));
}

#[test]
fn the_crate_carries_its_license_and_metadata() {
    let manifest = cargo_toml();
    let package = &manifest["package"];
    assert_eq!(package["license"].as_str(), Some("MIT"));
    let license = std::fs::read_to_string(root().join("LICENSE")).expect("LICENSE");
    assert!(license.starts_with("MIT License\n"), "{license}");
    assert!(license.contains("Copyright (c) 2026 the toolc developers"));
    assert_eq!(package["homepage"].as_str(), package["repository"].as_str());
    assert_eq!(package["readme"].as_str(), Some("README.md"));
    assert!(package["keywords"].as_array().is_some_and(|k| k.len() <= 5));
    // The release notes of this version are the changelog's section.
    let notes = dist_ok(&["notes", &version()]);
    assert!(notes.contains("### Added"), "{notes}");
    let missing = dist(&["notes", "0.0.0-none"], &[]);
    assert!(!missing.status.success());
    assert!(
        stderr(&missing).contains("CHANGELOG.md has no section \"## [0.0.0-none]\""),
        "{}",
        stderr(&missing)
    );
}

#[test]
fn the_workflow_and_the_action_are_valid_for_github() {
    assert_valid(
        "vendor.github-workflows",
        &root().join(".github/workflows/release.yml"),
    );
    assert_valid("vendor.github-actions", &root().join("action.yml"));
    // The validator does reject: a job without runs-on.
    let dir = TempDir::new("release-schema");
    let broken = dir.write(
        "broken.yml",
        "on: push\njobs:\n  build:\n    steps:\n      - run: true\n",
    );
    let output = check_jsonschema("vendor.github-workflows", &broken);
    assert!(!output.status.success(), "{}", stdout(&output));
}

/// The runner of each target of a job's matrix.
fn matrix_runners(workflow: &Value, job: &str) -> Vec<(String, String)> {
    let include = workflow["jobs"][job]["strategy"]["matrix"]["include"].as_array();
    include
        .unwrap_or_else(|| panic!("no matrix in job {job}"))
        .iter()
        .map(|entry| (entry["target"].to_string(), entry["os"].to_string()))
        .collect()
}

#[test]
fn ci_checks_every_release_target_but_linux_on_its_release_runner() {
    let path = root().join(".github/workflows/ci.yml");
    assert_valid("vendor.github-workflows", &path);
    let ci = yaml(&path);
    let release = release_workflow();
    let elsewhere: Vec<(String, String)> = matrix_runners(&release, "binaries")
        .into_iter()
        .filter(|(target, _)| !target.contains("-linux-"))
        .collect();
    assert!(!elsewhere.is_empty());
    assert_eq!(matrix_runners(&ci, "check"), elsewhere);
    // The unit tests run on those runners too.
    let mut runners: Vec<String> = elsewhere.into_iter().map(|(_, os)| os).collect();
    runners.dedup();
    let tested: Vec<String> = ci["jobs"]["test"]["strategy"]["matrix"]["os"]
        .as_array()
        .expect("the test job's runners")
        .iter()
        .map(Value::to_string)
        .collect();
    assert_eq!(tested, runners);
    // With the release's toolchain, Cargo.toml's rust-version.
    let rust = cargo_toml()["package"]["rust-version"]
        .as_str()
        .map(str::to_string);
    assert_eq!(
        ci["env"]["RUST_TOOLCHAIN"].as_str().map(str::to_string),
        rust
    );
    assert_eq!(
        ci["env"]["RUST_TOOLCHAIN"],
        release["env"]["RUST_TOOLCHAIN"]
    );
    // Checked with --locked, warnings denied.
    let steps = ci["jobs"]["check"]["steps"].to_string();
    assert!(steps.contains("cargo check --locked --target"), "{steps}");
    assert!(steps.contains("-D warnings"), "{steps}");
}

/// The fenced ```yaml block of README.md's "In CI and pre-commit" that
/// contains `marker`.
fn readme_block(marker: &str) -> String {
    let section = super::quickstart::readme_section("\n## In CI and pre-commit\n");
    section
        .split("```yaml\n")
        .skip(1)
        .filter_map(|rest| rest.split_once("\n```").map(|(block, _)| block))
        .find(|block| block.contains(marker))
        .unwrap_or_else(|| panic!("README.md: no ```yaml block with {marker:?}"))
        .to_string()
        + "\n"
}

#[test]
fn the_readme_ci_snippets_are_valid_and_name_this_release() {
    let manifest = cargo_toml();
    let repository = manifest["package"]["repository"].as_str().expect("repo");
    let version = version();
    let dir = TempDir::new("release-readme");

    let uses = format!(
        "uses: {}@v{version}",
        repository.trim_start_matches("https://github.com/")
    );
    let github = readme_block(&uses);
    assert!(github.contains("security-events: write"), "{github}");
    assert_valid("vendor.github-workflows", &dir.write("github.yml", &github));

    let gitlab = readme_block("codequality");
    assert_valid("vendor.gitlab-ci", &dir.write(".gitlab-ci.yml", &gitlab));
    // The snippet downloads this version's Linux binary and checks it.
    let asset = dist_ok(&["asset", &dist_ok(&["target", "Linux", "X64"])]);
    let url = format!("{repository}/releases/download/v{version}/{asset}");
    let expanded = gitlab.replace("${TOOLC_VERSION}", &version);
    assert!(expanded.contains(&url), "{url} not in\n{gitlab}");
    assert!(expanded.contains(&format!("{url}.sha256")), "{gitlab}");
    assert!(gitlab.contains("sha256sum -c"), "{gitlab}");
    let stem = asset.trim_end_matches(".tar.gz");
    assert!(
        expanded.contains(&format!("TOOLC_ASSET: {stem}\n")),
        "{gitlab}"
    );

    // Its toolc command writes a Code Quality report.
    let command = gitlab
        .lines()
        .map(str::trim)
        .find_map(|line| line.strip_prefix("- toolc lint "))
        .expect("a `- toolc lint` line");
    let args: Vec<&str> = std::iter::once("lint")
        .chain(command.split_whitespace())
        .collect();
    let report_name = args
        .windows(2)
        .find(|pair| pair[0] == "-o")
        .map(|pair| pair[1])
        .expect("-o REPORT");
    let project = TempDir::new("release-readme-project");
    project.write(
        "tools.json",
        r#"{"tools": [{"name": "bad name", "description": "x", "command": ["true"]}]}"#,
    );
    let run = super::Test::new()
        .args(&args)
        .current_dir(project.path())
        .run();
    assert_eq!(run.code, 1, "{}", run.stderr);
    let report: Value = serde_json::from_slice(
        &std::fs::read(project.path().join(report_name)).expect("the report"),
    )
    .expect("a JSON report");
    let findings = report.as_array().expect("Code Quality is an array");
    assert!(!findings.is_empty() && findings[0]["fingerprint"].is_string());
}

/// A static file server on loopback: the fake release download site. It
/// records the paths asked for and answers 404 for what it lacks.
struct Releases {
    base: String,
    asked: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
}

impl Releases {
    fn serve(dir: &Path) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("address"));
        let asked = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (dir, log, halt) = (dir.to_path_buf(), Arc::clone(&asked), Arc::clone(&stop));
        std::thread::spawn(move || {
            for connection in listener.incoming() {
                if halt.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(connection) = connection {
                    send_file(connection, &dir, &log);
                }
            }
        });
        Releases { base, asked, stop }
    }

    fn asked(&self) -> Vec<String> {
        self.asked.lock().expect("the log").clone()
    }
}

impl Drop for Releases {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so that it sees the flag.
        let _ = TcpStream::connect(self.base.trim_start_matches("http://"));
    }
}

fn send_file(mut connection: TcpStream, dir: &Path, log: &Mutex<Vec<String>>) {
    let mut head = String::new();
    let mut reader = BufReader::new(&connection);
    let mut line = String::new();
    while reader.read_line(&mut line).unwrap_or(0) > 2 {
        head.push_str(&line);
        line.clear();
    }
    let path = head.split(' ').nth(1).unwrap_or("/").to_string();
    log.lock().expect("the log").push(path.clone());
    let file = dir.join(path.trim_start_matches('/'));
    let mut body = Vec::new();
    let status = if !path.contains("..") && file.is_file() {
        std::fs::File::open(&file)
            .and_then(|mut f| f.read_to_end(&mut body))
            .expect("read a served file");
        "200 OK"
    } else {
        body.extend_from_slice(b"Not Found");
        "404 Not Found"
    };
    let _ = write!(
        connection,
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = connection.write_all(&body);
}

/// The GitHub runner this machine would be.
fn runner_arch() -> &'static str {
    match std::env::consts::ARCH {
        "aarch64" => "ARM64",
        _ => "X64",
    }
}

/// A fake release of this version: `binary` packed as this Linux runner's
/// asset under DIR/vVERSION. Returns the asset's name.
fn fake_release(dir: &Path, binary: &Path) -> String {
    let target = dist_ok(&["target", "Linux", runner_arch()]);
    let tag_dir = dir.join(format!("v{}", version()));
    let packed = dist_ok(&[
        "pack",
        &target,
        &binary.to_string_lossy(),
        &tag_dir.to_string_lossy(),
    ]);
    Path::new(&packed)
        .file_name()
        .expect("a file name")
        .to_string_lossy()
        .into_owned()
}

struct Install {
    output: Output,
    github_output: String,
    dest: PathBuf,
}

/// `scripts/dist install VERSION DEST` on a Linux runner, downloading
/// from `releases`.
fn install(releases: &Releases, version: &str, scratch: &TempDir) -> Install {
    let dest = scratch.path().join("toolc");
    let github_output = scratch.path().join("github-output");
    let output = dist(
        &["install", version, &dest.to_string_lossy()],
        &[
            ("RUNNER_OS", "Linux"),
            ("RUNNER_ARCH", runner_arch()),
            ("TOOLC_DIST_BASE_URL", &releases.base),
            ("GITHUB_OUTPUT", &github_output.to_string_lossy()),
        ],
    );
    Install {
        output,
        github_output: std::fs::read_to_string(&github_output).unwrap_or_default(),
        dest,
    }
}

#[test]
fn the_action_installs_the_checked_release_binary() {
    let site = TempDir::new("release-site");
    let asset = fake_release(site.path(), Path::new(env!("CARGO_BIN_EXE_toolc")));
    let releases = Releases::serve(site.path());
    let version = version();
    for requested in ["", &*format!("v{version}")] {
        let scratch = TempDir::new("release-install");
        let run = install(&releases, requested, &scratch);
        assert!(run.output.status.success(), "{}", stderr(&run.output));
        assert_eq!(run.github_output, "installed=true\n");
        assert!(
            stdout(&run.output).contains(&format!("SHA-256 of {asset} verified")),
            "{}",
            stdout(&run.output)
        );
        let toolc = run.dest.join("bin/toolc");
        let ran = Command::new(&toolc).arg("--version").output().expect("run");
        assert!(ran.status.success());
        assert_eq!(stdout(&ran).trim(), format!("toolc {version}"));
    }
    let archive = format!("/v{version}/{asset}");
    let checksum = format!("{archive}.sha256");
    let fetched = [archive.as_str(), checksum.as_str()].repeat(2);
    assert_eq!(releases.asked(), fetched);

    // README's "From a release binary" does the same by hand.
    let install = super::quickstart::readme_section("\n### From a release binary\n");
    let script = install
        .split("```sh\n")
        .nth(1)
        .and_then(|rest| rest.split_once("\n```"))
        .map(|(block, _)| block)
        .expect("README: the release binary's sh block");
    let manifest = cargo_toml();
    let repository = manifest["package"]["repository"].as_str().expect("repo");
    let download = format!("{repository}/releases/download");
    assert!(script.contains(&download), "{script}");
    let target = dist_ok(&["target", "Linux", runner_arch()]);
    let script = script.replace(&download, &releases.base).replace(
        "target=x86_64-unknown-linux-musl",
        &format!("target={target}"),
    );
    let home = TempDir::new("release-readme-home");
    let ran = Command::new("bash")
        .args(["-euo", "pipefail", "-c", &script])
        .current_dir(home.path())
        .env("HOME", home.path())
        .output()
        .expect("run bash");
    assert!(ran.status.success(), "{script}\n{}", stderr(&ran));
    let installed = Command::new(home.path().join(".local/bin/toolc"))
        .arg("--version")
        .output()
        .expect("run the installed toolc");
    assert_eq!(stdout(&installed).trim(), format!("toolc {version}"));
}

#[test]
fn a_tampered_archive_or_checksum_installs_nothing() {
    let site = TempDir::new("release-tampered");
    // The check comes before unpacking: a small file stands in for toolc
    // (the real binary is 400 MB unoptimized, slow to pack).
    let stand_in = site.write("stand-in/toolc", "#!/bin/sh\necho stand-in\n");
    let asset = fake_release(site.path(), &stand_in);
    let archive = site.path().join(format!("v{}", version())).join(&asset);
    let checksum = PathBuf::from(format!("{}.sha256", archive.display()));
    let releases = Releases::serve(site.path());
    let honest = std::fs::read(&archive).expect("the archive");
    let honest_sum = std::fs::read_to_string(&checksum).expect("the checksum");
    // Untampered, it installs.
    let control_dir = TempDir::new("release-control");
    let control = install(&releases, "", &control_dir);
    assert!(
        control.output.status.success(),
        "{}",
        stderr(&control.output)
    );
    assert!(control.dest.join("bin/toolc").is_file());

    let cases: [(&str, Vec<u8>, String, &str); 3] = [
        (
            "a byte changed in the archive",
            {
                let mut bytes = honest.clone();
                let last = bytes.len() - 1;
                bytes[last] ^= 1;
                bytes
            },
            honest_sum.clone(),
            "checksum mismatch",
        ),
        (
            "another digest in the .sha256",
            honest.clone(),
            format!("{}  {asset}\n", "0".repeat(64)),
            "checksum mismatch",
        ),
        (
            "no digest in the .sha256",
            honest.clone(),
            "<html>not a checksum</html>\n".to_string(),
            "holds no SHA-256 digest",
        ),
    ];
    for (case, bytes, sum, message) in cases {
        std::fs::write(&archive, bytes).expect("tamper");
        std::fs::write(&checksum, sum).expect("tamper");
        let scratch = TempDir::new("release-tampered-install");
        let run = install(&releases, "", &scratch);
        let err = stderr(&run.output);
        assert!(!run.output.status.success(), "{case}: installed anyway");
        assert!(err.contains(message), "{case}: {err}");
        assert!(err.contains("nothing was installed"), "{case}: {err}");
        assert!(!run.dest.exists(), "{case}: {} exists", run.dest.display());
        assert_eq!(run.github_output, "", "{case}");
    }
}

/// An archive of `entry` (a path under `root`) as the asset `asset` of this
/// version in `site`, with its honest `.sha256`: what a release server
/// that turned hostile would send.
fn hostile_release(site: &Path, root: &Path, entry: &str, asset: &str) {
    let tag_dir = site.join(format!("v{}", version()));
    std::fs::create_dir_all(&tag_dir).expect("the tag's directory");
    let archive = tag_dir.join(asset);
    let packed = Command::new("tar")
        .arg("-C")
        .arg(root)
        .arg("-czf")
        .arg(&archive)
        .arg(entry)
        .status()
        .expect("run tar");
    assert!(packed.success());
    let summed = Command::new("sha256sum")
        .arg(&archive)
        .output()
        .expect("run sha256sum");
    let digest = stdout(&summed);
    let digest = digest.split(' ').next().expect("a digest");
    std::fs::write(
        tag_dir.join(format!("{asset}.sha256")),
        format!("{digest}  {asset}\n"),
    )
    .expect("the checksum");
}

#[test]
fn an_archive_with_links_installs_nothing_and_touches_nothing_outside() {
    let version = version();
    let target = dist_ok(&["target", "Linux", runner_arch()]);
    let stem = format!("toolc-{version}-{target}");
    let asset = dist_ok(&["asset", &target]);
    // A file named toolc outside the download, which the links point at.
    let outside = TempDir::new("release-outside");
    let victim = outside.write("toolc", "#!/bin/sh\necho not toolc\n");
    for (case, link_at, points_at) in [
        (
            "the binary is a link",
            format!("{stem}/toolc"),
            victim.clone(),
        ),
        (
            "its directory is a link",
            stem.clone(),
            outside.path().to_path_buf(),
        ),
    ] {
        let site = TempDir::new("release-links");
        let root = TempDir::new("release-links-root");
        std::fs::create_dir_all(root.path().join(&stem)).expect("the stem");
        let link = root.path().join(&link_at);
        if link.is_dir() {
            std::fs::remove_dir(&link).expect("make room for the link");
        }
        std::os::unix::fs::symlink(&points_at, &link).expect("a link");
        hostile_release(site.path(), root.path(), &stem, &asset);
        let releases = Releases::serve(site.path());
        // (Taken here: TempDir's drop restores permissions through links.)
        let before = std::fs::metadata(&victim).expect("the file").permissions();
        let scratch = TempDir::new("release-links-install");
        let run = install(&releases, "", &scratch);
        let err = stderr(&run.output);
        assert!(!run.output.status.success(), "{case}: installed anyway");
        assert!(err.contains("holds a link"), "{case}: {err}");
        assert!(!run.dest.exists(), "{case}: {} exists", run.dest.display());
        assert_eq!(run.github_output, "", "{case}");
        // Neither moved away nor made executable.
        let after = std::fs::metadata(&victim)
            .expect("still there")
            .permissions();
        assert_eq!(before, after, "{case}");
    }
}

#[test]
fn a_version_without_a_release_falls_back_to_building_it() {
    let site = TempDir::new("release-none");
    let releases = Releases::serve(site.path());
    let version = version();
    let scratch = TempDir::new("release-none-install");
    let run = install(&releases, "", &scratch);
    assert!(run.output.status.success(), "{}", stderr(&run.output));
    let said = stdout(&run.output);
    assert!(
        said.contains(&format!(
            "no release binary of toolc {version} for {}",
            dist_ok(&["target", "Linux", runner_arch()])
        )) && said.contains("building toolc")
            && said.contains("with cargo instead"),
        "{said}"
    );
    assert_eq!(run.github_output, "installed=false\n");
    assert!(!run.dest.exists());

    // Another version cannot be built from this source: an error.
    let other_dir = TempDir::new("release-none-other");
    let other = install(&releases, "0.0.1", &other_dir);
    assert!(!other.output.status.success());
    assert!(
        stderr(&other.output).contains("toolc 0.0.1 has no release binary"),
        "{}",
        stderr(&other.output)
    );
    assert_eq!(other.github_output, "");
}

/// The steps of action.yml's `runs`, by name.
fn action_steps() -> Vec<Value> {
    yaml(&root().join("action.yml"))["runs"]["steps"]
        .as_array()
        .expect("runs.steps")
        .clone()
}

#[test]
fn the_action_builds_toolc_only_when_there_is_no_release() {
    let action = yaml(&root().join("action.yml"));
    let steps = action_steps();
    let download = &steps[0];
    assert_eq!(download["id"], "download");
    let run = download["run"].as_str().expect("run");
    assert!(
        run.starts_with("\"$GITHUB_ACTION_PATH/scripts/dist\" install \"$TOOLC_VERSION\""),
        "{run}"
    );
    assert_eq!(download["env"]["TOOLC_VERSION"], "${{ inputs.version }}");
    // Every step of the cargo build runs only without a release binary.
    let fallback = "steps.download.outputs.installed != 'true'";
    for step in &steps[1..] {
        let name = step["name"].as_str().expect("name");
        let condition = step["if"].as_str().unwrap_or_default();
        let builds = step.to_string().contains("cargo install")
            || step["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/cache/"))
            || name == "Cache keys";
        assert_eq!(
            condition.starts_with(fallback),
            builds,
            "{name}: {condition}"
        );
    }
    // No step sets the test's download address.
    assert!(!action.to_string().contains("TOOLC_DIST_BASE_URL"));
    // Its inputs are documented; SARIF upload says what it needs.
    for input in ["version", "paths", "args", "sarif-file", "upload"] {
        let description = action["inputs"][input]["description"].as_str();
        assert!(description.is_some_and(|d| d.len() > 20), "input {input}");
    }
    let upload = action["inputs"]["upload"]["description"].to_string();
    assert!(upload.contains("security-events: write"), "{upload}");
    assert!(action["outputs"]["exit-code"]["value"].is_string());
}
