//! Issue 27, "what toolc writes, users can keep": names a target forbids
//! are renamed (and mapped back), round trips through NORA give back the
//! agentcli file, and `convert --to agentcli` writes programs that run.

mod nora;
mod providers;
mod round_trip;
mod stubs;

use std::path::Path;

use serde_json::Value;

use super::Test;

/// Runs toolc in `dir`; fails the test unless it exits 0. Returns stdout.
fn toolc(args: &[&str], dir: &Path) -> String {
    let output = Test::new().args(args).current_dir(dir).run();
    assert_eq!(
        output.code, 0,
        "toolc {args:?} failed:\n{}\n{}",
        output.stdout, output.stderr
    );
    output.stdout
}

/// The one JSON line `toolc run` prints.
fn run_result(stdout: &str) -> Value {
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}
