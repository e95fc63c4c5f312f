//! The `toolc` binary: parse the command line, run, map to an exit code.

use std::process::ExitCode;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // The handles, not their locks: `toolc serve` writes its log (stderr)
    // and, on a blocking stdout, the protocol from other threads, which
    // would wait forever for a lock this thread held.
    let code = toolc::command_line(
        std::env::args_os(),
        &mut std::io::stdout(),
        &mut std::io::stderr(),
    );
    ExitCode::from(code)
}
