//! A small seccomp filter: the system calls a tool may not make, for what
//! the namespaces, Landlock and the dropped capabilities do not see.
//!
//! The filter is a deny list, installed last before the exec (after
//! Landlock, with `no_new_privs` set just before it), and inherited by
//! everything the tool starts. It refuses, for every tool:
//!
//! - with `ENOSYS`, `io_uring_setup`, `io_uring_enter` and
//!   `io_uring_register`: an io_uring request (`IORING_OP_SOCKET`,
//!   `IORING_OP_CONNECT`, `IORING_OP_OPENAT`) is carried out by the
//!   kernel without passing through the system-call entry this filter
//!   sees, so a tool without network reached a host UNIX socket through
//!   it. `ENOSYS` rather than `EPERM` because it reads as "this kernel
//!   has no io_uring": liburing, libuv, Tokio and Java's runtimes then
//!   fall back to epoll and threads instead of failing (Docker's default
//!   profile answers `EPERM` for everything it refuses; Android's app
//!   filter answers `ENOSYS` here, as toolc does);
//! - with `ENOSYS`, `clone3`: its flags are in memory a filter cannot
//!   read, so the namespace rule below could not hold; `ENOSYS` makes
//!   glibc, musl and Go fall back to `clone` (as under Docker's profile);
//! - with `EPERM`, `unshare` and `clone` asking for any new namespace: a
//!   new user namespace would give the tool a full set of capabilities
//!   again (inside it), the door of most user-namespace privilege
//!   escalations, and the others need it or capabilities the tool no
//!   longer has;
//! - with `EPERM`, `setns` (entering another namespace through a
//!   descriptor: the tool would leave its own), `open_by_handle_at` (the
//!   "shocker" escape: a file handle opens a file by number, around every
//!   path rule), `bpf`, `perf_event_open` and `userfaultfd` (kernel attack
//!   surface a tool has no use for; the last one stretches kernel races),
//!   `kexec_load`, `kexec_file_load`, `init_module`, `finit_module` and
//!   `delete_module` (changing the kernel: also stopped by the dropped
//!   capabilities, refused here as well in case one is kept);
//! - with `EPERM`, `keyctl`, `add_key` and `request_key`: the kernel
//!   keyrings are not namespaced, and the caller's session keyring (with
//!   the credentials a login or a CI runner put there) would be readable;
//! - with `EPERM`, `prctl(PR_SET_PDEATHSIG, s)` for any `s` but
//!   `SIGKILL`: the tool is process 1 of its PID namespace and dies with
//!   toolc through that signal; clearing it would keep the whole
//!   namespace alive, unwatched, after toolc was killed;
//! - with `EPERM`, for a tool that declares no network,
//!   `socket(AF_UNIX, …)`: its empty network namespace holds no abstract
//!   socket of the host, but a path socket (a Docker, D-Bus or database
//!   socket) is reached through the file system, and Landlock does not
//!   check `connect` on one. `socketpair` stays allowed: it connects
//!   nothing outside.
//!
//! Left allowed on purpose: `ptrace`, `process_vm_readv` and `pidfd_getfd`
//! (debuggers and `strace` in a tool work; a process outside the tool's
//! PID namespace has no pid there, and Landlock denies tracing a process
//! outside the tool's domain in either mode); `mount`, `pivot_root` and
//! `chroot` (the tool has no capability left, and a Landlock-confined
//! process may not change its mounts).
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

/// The `clone` and `unshare` flags that make a new namespace
/// (`CLONE_NEWNS`, `CLONE_NEWCGROUP`, `CLONE_NEWUTS`, `CLONE_NEWIPC`,
/// `CLONE_NEWUSER`, `CLONE_NEWPID`, `CLONE_NEWNET`).
const NEW_NAMESPACES: u32 = (libc::CLONE_NEWNS
    | libc::CLONE_NEWCGROUP
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUSER
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET) as u32;

/// `CLONE_NEWTIME`: an `unshare` flag only (in `clone` that bit belongs
/// to the exit signal).
const NEW_TIME: u32 = 0x80;

/// Refused with `ENOSYS`: io_uring (see the module doc) and `clone3`.
const MISSING: &[libc::c_long] = &[
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_clone3,
];

/// Refused with `EPERM` whatever their arguments.
const DENIED: &[libc::c_long] = &[
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_setns,
    libc::SYS_open_by_handle_at,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
];

/// Where a check leads.
#[derive(Clone, Copy)]
enum To {
    /// The next instruction.
    Next,
    /// Past the next `n` instructions.
    Past(usize),
    Allow,
    Deny,
    /// `ENOSYS`: a call of another architecture, or one the tool is told
    /// the kernel lacks.
    Missing,
}

enum Insn {
    Load(u32),
    /// Compare the accumulator with a value.
    Equal(u32, To, To),
    AtLeast(u32, To, To),
    /// Test the accumulator for any of the bits of a value.
    AnyBit(u32, To, To),
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
            Insn::Equal(ARCH, To::Next, To::Missing),
            Insn::Load(NR),
        ];
        if cfg!(target_arch = "x86_64") {
            insns.push(Insn::AtLeast(X32_BIT, To::Missing, To::Next));
        }
        for &nr in MISSING {
            insns.push(Insn::Equal(syscall(nr), To::Missing, To::Next));
        }
        for &nr in DENIED {
            insns.push(Insn::Equal(syscall(nr), To::Deny, To::Next));
        }
        // A new namespace, by `unshare` or `clone`; any other flags pass.
        insns.extend([
            Insn::Equal(syscall(libc::SYS_unshare), To::Next, To::Past(2)),
            Insn::Load(ARG0),
            Insn::AnyBit(NEW_NAMESPACES | NEW_TIME, To::Deny, To::Allow),
            Insn::Equal(syscall(libc::SYS_clone), To::Next, To::Past(2)),
            Insn::Load(ARG0),
            Insn::AnyBit(NEW_NAMESPACES, To::Deny, To::Allow),
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
    let missing = allow + 2;
    let offset = |at: usize, to: To| -> u8 {
        let target = match to {
            To::Next => at + 1,
            To::Past(n) => at + 1 + n,
            To::Allow => allow,
            To::Deny => deny,
            To::Missing => missing,
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
            Insn::AnyBit(value, yes, no) => libc::sock_filter {
                code: op(libc::BPF_JMP | libc::BPF_JSET | libc::BPF_K),
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
