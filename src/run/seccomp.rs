//! A small seccomp filter: the system calls a tool may not make, for what
//! the namespaces and Landlock do not see.
//!
//! The filter is a deny list, installed last before the exec (after
//! Landlock, which has set `no_new_privs`), and inherited by everything
//! the tool starts. It refuses, with `EPERM`:
//!
//! - `prctl(PR_SET_PDEATHSIG, s)` for any `s` but `SIGKILL`: the tool is
//!   process 1 of its PID namespace and dies with toolc through that
//!   signal; clearing it would keep the whole namespace alive, unwatched,
//!   after toolc was killed;
//! - `keyctl`, `add_key` and `request_key`: the kernel keyrings are not
//!   namespaced, and the caller's session keyring (with the credentials
//!   a login or a CI runner put there) would be readable;
//! - for a tool that declares no network, `socket(AF_UNIX, …)`: its empty
//!   network namespace holds no abstract socket of the host, but a path
//!   socket (a Docker, D-Bus or database socket) is reached through the
//!   file system, and Landlock does not check `connect` on one.
//!   `socketpair` stays allowed: it connects nothing outside.
//!
//! A system call of another architecture (32-bit calls on x86_64, and
//! the x32 ABI) fails with `ENOSYS`, so that the numbers checked are the
//! numbers the kernel runs. The program is built before the clone; the
//! child only hands it to the kernel.

use std::io;

/// `AUDIT_ARCH_*` of the architecture toolc is built for.
#[cfg(target_arch = "x86_64")]
const ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const ARCH: u32 = 0xC000_00B7;

/// The x32 ABI's bit in a system call number (x86_64).
const X32_BIT: u32 = 0x4000_0000;

/// Offsets into `struct seccomp_data`: the call's number, its
/// architecture, the low 32 bits of its first two arguments.
const NR: u32 = 0;
const ARCH_OFFSET: u32 = 4;
const ARG0: u32 = 16;
const ARG1: u32 = 24;

/// Where a check leads.
#[derive(Clone, Copy)]
enum To {
    /// The next instruction.
    Next,
    /// Past the next `n` instructions.
    Past(usize),
    Allow,
    Deny,
    Foreign,
}

enum Insn {
    Load(u32),
    /// Compare the accumulator with a value.
    Equal(u32, To, To),
    AtLeast(u32, To, To),
}

/// A filter program, ready for the kernel.
pub(crate) struct Filter {
    program: Vec<libc::sock_filter>,
}

impl Filter {
    /// The filter of a tool; `no_network` adds the UNIX socket rule.
    pub fn new(no_network: bool) -> Filter {
        let syscall = |nr: libc::c_long| nr as u32;
        let mut insns = vec![
            Insn::Load(ARCH_OFFSET),
            Insn::Equal(ARCH, To::Next, To::Foreign),
            Insn::Load(NR),
        ];
        if cfg!(target_arch = "x86_64") {
            insns.push(Insn::AtLeast(X32_BIT, To::Foreign, To::Next));
        }
        insns.extend([
            Insn::Equal(syscall(libc::SYS_keyctl), To::Deny, To::Next),
            Insn::Equal(syscall(libc::SYS_add_key), To::Deny, To::Next),
            Insn::Equal(syscall(libc::SYS_request_key), To::Deny, To::Next),
        ]);
        if no_network {
            insns.extend([
                // Not socket: past its argument check, on to prctl.
                Insn::Equal(syscall(libc::SYS_socket), To::Next, To::Past(2)),
                Insn::Load(ARG0),
                Insn::Equal(libc::AF_UNIX as u32, To::Deny, To::Allow),
            ]);
        }
        insns.extend([
            Insn::Equal(syscall(libc::SYS_prctl), To::Next, To::Allow),
            Insn::Load(ARG0),
            Insn::Equal(libc::PR_SET_PDEATHSIG as u32, To::Next, To::Allow),
            Insn::Load(ARG1),
            Insn::Equal(libc::SIGKILL as u32, To::Allow, To::Deny),
        ]);
        Filter {
            program: assemble(&insns),
        }
    }

    /// Installs the filter on the calling thread. Runs in the child
    /// before exec: system calls only, on the prepared program.
    pub fn install(&self) -> Result<(), i32> {
        let program = libc::sock_fprog {
            len: self.program.len() as u16,
            filter: self.program.as_ptr().cast_mut(),
        };
        // SAFETY: prctl with a pointer to a valid, live filter program.
        let installed = unsafe {
            libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
                && libc::prctl(
                    libc::PR_SET_SECCOMP,
                    libc::SECCOMP_MODE_FILTER,
                    &program as *const libc::sock_fprog,
                ) == 0
        };
        if installed {
            Ok(())
        } else {
            Err(io::Error::last_os_error().raw_os_error().unwrap_or(0))
        }
    }
}

/// The BPF program of `insns`, followed by the three returns.
fn assemble(insns: &[Insn]) -> Vec<libc::sock_filter> {
    let allow = insns.len();
    let deny = allow + 1;
    let foreign = allow + 2;
    let offset = |at: usize, to: To| -> u8 {
        let target = match to {
            To::Next => at + 1,
            To::Past(n) => at + 1 + n,
            To::Allow => allow,
            To::Deny => deny,
            To::Foreign => foreign,
        };
        (target - at - 1) as u8
    };
    let op = |code: u32| code as u16;
    let mut program: Vec<libc::sock_filter> = insns
        .iter()
        .enumerate()
        .map(|(at, insn)| match *insn {
            Insn::Load(offset) => libc::sock_filter {
                code: op(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS),
                jt: 0,
                jf: 0,
                k: offset,
            },
            Insn::Equal(value, yes, no) => libc::sock_filter {
                code: op(libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K),
                jt: offset(at, yes),
                jf: offset(at, no),
                k: value,
            },
            Insn::AtLeast(value, yes, no) => libc::sock_filter {
                code: op(libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K),
                jt: offset(at, yes),
                jf: offset(at, no),
                k: value,
            },
        })
        .collect();
    let ret = |k: u32| libc::sock_filter {
        code: op(libc::BPF_RET | libc::BPF_K),
        jt: 0,
        jf: 0,
        k,
    };
    program.push(ret(libc::SECCOMP_RET_ALLOW));
    program.push(ret(libc::SECCOMP_RET_ERRNO | libc::EPERM as u32));
    program.push(ret(libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32));
    program
}
