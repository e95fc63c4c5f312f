//! Embedding toolc's runner: load manifests, call a tool, read the result.
//!
//! ```sh
//! cargo run --example embed -- fixtures/run/agentcli/tools.json echo '{"text": "hi"}'
//! cargo run --example embed -- builtin list_files '{"path": "."}'
//! ```
//!
//! An agent does the same with the tool calls its model returns: every
//! call, whatever framework declared the tool, ends in one `ToolResult`.

use std::process::ExitCode;
use std::time::Duration;

use toolc::run::{Policy, Runner, RunnerOptions};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [manifest, tool, arguments] = args.as_slice() else {
        eprintln!("usage: embed MANIFEST|builtin TOOL ARGUMENTS_JSON");
        return ExitCode::from(2);
    };
    let arguments: serde_json::Value = match serde_json::from_str(arguments) {
        Ok(value) => value,
        Err(e) => {
            eprintln!("the arguments are not JSON: {e}");
            return ExitCode::from(2);
        }
    };

    // A tier-3 (Nachos ELEVATED) tool asks before it runs; here the
    // embedding program says yes after logging the request.
    let policy = Policy {
        approver: Some(Box::new(|tool, _arguments| {
            eprintln!("approve tier-3 tool {}? (yes, in this example)", tool.name);
            true
        })),
        ..Policy::default()
    };
    let options = RunnerOptions {
        timeout: Some(Duration::from_secs(10)),
        policy,
        ..RunnerOptions::default()
    };
    let loaded = if manifest == "builtin" {
        Runner::builtin(options)
    } else {
        Runner::load(&[manifest.into()], options)
    };
    let runner = match loaded {
        Ok(runner) => runner,
        Err(e) => {
            eprintln!("cannot load {manifest}: {e}");
            return ExitCode::from(2);
        }
    };
    for warning in runner.warnings() {
        eprintln!("warning: {warning}");
    }

    let result = runner.call(tool, arguments);
    match (&result.output, &result.error) {
        (Some(output), _) => println!("{tool} returned {output}"),
        (None, Some(error)) => println!("{tool} failed: {} ({})", error.message, error.code),
        (None, None) => println!("{tool} returned nothing"),
    }
    println!("{}", result.to_json_line());
    if result.success {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
