//! The `toolc` binary: parse the command line, run, map to an exit code.

use std::process::ExitCode;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // Not locked for the whole run: `toolc serve` writes from the threads
    // of its runtime (the protocol on stdout, its log on stderr), which a
    // lock held here would block forever.
    let code = toolc::command_line(
        std::env::args_os(),
        &mut std::io::stdout(),
        &mut std::io::stderr(),
    );
    ExitCode::from(code)
}
