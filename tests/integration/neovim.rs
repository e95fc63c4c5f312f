//! `toolc server` in a real editor: a headless Neovim opens a broken NORA
//! manifest with toolc configured as its language server (Neovim's own LSP
//! client, started by tests/integration/neovim_client.lua), and the test
//! reads the diagnostics Neovim received, as `vim.diagnostic.get` gives
//! them.
//!
//! Neovim is the Debian package `neovim` (0.7.2 on bookworm), which
//! scripts/test installs with apt-get when `nvim` is missing and names in
//! `TOOLC_TEST_NVIM`. A missing Neovim fails the test, it never skips it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{TempDir, root};

/// How long Neovim may take in all; the Lua script itself gives up waiting
/// for diagnostics after 30 s.
const NVIM_LIMIT: Duration = Duration::from_secs(60);

/// `vim.diagnostic.severity.ERROR`.
const SEVERITY_ERROR: i64 = 1;

/// nvim: `TOOLC_TEST_NVIM`, else `nvim` on PATH; else the test fails.
fn nvim() -> PathBuf {
    if let Some(path) = std::env::var_os("TOOLC_TEST_NVIM").filter(|p| !p.is_empty()) {
        let path = PathBuf::from(path);
        assert!(
            path.is_file(),
            "TOOLC_TEST_NVIM={} is not a file",
            path.display()
        );
        return path;
    }
    std::env::var_os("PATH")
        .map(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join("nvim"))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default()
        .into_iter()
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| {
            panic!(
                "nvim is needed to test toolc server in Neovim and is neither in TOOLC_TEST_NVIM \
                 nor on PATH: run the tests with scripts/test, which installs Debian's neovim"
            )
        })
}

/// Opens `manifest` (under `workspace`) in a headless Neovim with toolc
/// server attached; what neovim_client.lua wrote: Neovim's version, its
/// clients and the buffer's diagnostics.
fn diagnostics_in_neovim(workspace: &TempDir, manifest: &Path) -> Value {
    let dir = workspace.path();
    let out = dir.join("nvim-diagnostics.json");
    let stdout = std::fs::File::create(dir.join("nvim-stdout.txt")).expect("create stdout file");
    let stderr = std::fs::File::create(dir.join("nvim-stderr.txt")).expect("create stderr file");
    let script = root().join("tests/integration/neovim_client.lua");
    let mut child = Command::new(nvim())
        .args(["--headless", "--clean", "-u", "NONE", "-c"])
        .arg("lua dofile(os.getenv('TOOLC_NVIM_SCRIPT'))")
        .current_dir(dir)
        .env("TOOLC_NVIM_SCRIPT", &script)
        .env("TOOLC_NVIM_SERVER", env!("CARGO_BIN_EXE_toolc"))
        .env("TOOLC_NVIM_ROOT", dir)
        .env("TOOLC_NVIM_MANIFEST", manifest)
        .env("TOOLC_NVIM_OUT", &out)
        // Neovim's state (its LSP log among it) stays in the workspace.
        .env("XDG_CONFIG_HOME", dir.join("xdg/config"))
        .env("XDG_DATA_HOME", dir.join("xdg/data"))
        .env("XDG_STATE_HOME", dir.join("xdg/state"))
        .env("XDG_CACHE_HOME", dir.join("xdg/cache"))
        .env("NVIM_LOG_FILE", dir.join("xdg/nvim.log"))
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .spawn()
        .unwrap_or_else(|e| panic!("start {}: {e}", nvim().display()));
    let printed = || {
        let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_default();
        format!(
            "stdout:\n{}\nstderr:\n{}",
            read("nvim-stdout.txt"),
            read("nvim-stderr.txt")
        )
    };
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for nvim") {
            break status;
        }
        if started.elapsed() > NVIM_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("nvim did not finish within {NVIM_LIMIT:?}\n{}", printed());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(
        status.success(),
        "nvim failed ({status}) after {:?}\n{}",
        started.elapsed(),
        printed()
    );
    let text = std::fs::read_to_string(&out)
        .unwrap_or_else(|e| panic!("{}: {e}\n{}", out.display(), printed()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// Where `needle` starts in `text`: a 0-based line and a 0-based byte
/// column in that line, as Neovim counts (the protocol's UTF-16 positions
/// converted by Neovim's client).
fn byte_position(text: &str, needle: &str) -> (i64, i64) {
    let offset = text.find(needle).expect("the needle is in the text");
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let column = offset - before.rfind('\n').map_or(0, |newline| newline + 1);
    (
        i64::try_from(line).expect("line"),
        i64::try_from(column).expect("column"),
    )
}

/// A NORA property without its `required` flag (TC401), on a line where
/// bytes, UTF-16 units and characters count differently before the
/// property's name: a column right in Neovim is converted right.
const BROKEN: &str = "{\"name\": \"greet\", \"entrypoint\": \"main.py\", \"description\": \"Grüßt jeden 👋\",
\"parameters\": {\"type\": \"object\", \"description\": \"Wer? — 👤\", \"properties\": {\"who\": {\"type\": \"string\", \"description\": \"whom\"}}}}
";

#[test]
fn neovim_shows_a_finding_at_its_place() {
    let workspace = TempDir::new("neovim");
    let manifest = workspace.write("greet/tool.json", BROKEN);
    workspace.write("greet/main.py", "def run(params):\n    return 1\n");

    let started = Instant::now();
    let report = diagnostics_in_neovim(&workspace, &manifest);
    eprintln!(
        "Neovim {} received toolc's diagnostics in {:?}",
        report["nvim"],
        started.elapsed()
    );

    let diagnostics = report["diagnostics"]
        .as_array()
        .unwrap_or_else(|| panic!("no diagnostics in {report}"));
    let finding = diagnostics
        .iter()
        .find(|d| d["code"] == "TC401")
        .unwrap_or_else(|| panic!("no TC401 among what Neovim received: {report}"));

    let (line, column) = byte_position(BROKEN, "\"who\"");
    assert_eq!(line, 1, "the property is on the manifest's second line");
    let end_column = column + i64::try_from("\"who\"".len()).expect("length");
    assert_eq!(finding["lnum"], line, "{finding}");
    assert_eq!(finding["col"], column, "{finding}");
    assert_eq!(finding["end_lnum"], line, "{finding}");
    assert_eq!(finding["end_col"], end_column, "{finding}");
    assert_eq!(finding["severity"], SEVERITY_ERROR, "{finding}");
    assert_eq!(finding["source"], "toolc", "{finding}");
    let message = finding["message"].as_str().unwrap_or_default();
    assert!(message.contains("\"who\""), "{finding}");
    // The deprecated place of the code, which Neovim 0.7 also fills.
    if let Some(lsp) = finding.pointer("/user_data/lsp").filter(|v| v.is_object()) {
        assert_eq!(lsp["code"], "TC401", "{finding}");
    }
}
