//! The `toolc` binary: parse the command line, run, map to an exit code.

use std::process::ExitCode;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let code = toolc::command_line(std::env::args_os(), &mut stdout.lock(), &mut stderr.lock());
    ExitCode::from(code)
}
