//! The `toolc` binary: parse the command line, run, map to an exit code.

use std::process::ExitCode;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay`: its place in `mi_option_e`, the
/// same in mimalloc 2 and 3 (the binding names the options before it only).
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

fn main() -> ExitCode {
    // Memory freed is given back to the system at once: a run's resident
    // size is what it holds, not what it held 10 ms ago (see Cargo.toml).
    // SAFETY: sets an option mimalloc reads when it purges; any value is
    // valid, and no other thread runs yet.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, 0) };
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
