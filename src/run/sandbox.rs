//! The sandbox of a tool's process: namespaces and Landlock (Linux).
//!
//! Two layers, each stopping what the other cannot, and a small seccomp
//! filter ([`super::seccomp`]) for three things neither sees:
//!
//! - **Namespaces** (user, PID, mount, IPC; network when the tool declares
//!   none). The tool is process 1 of a PID namespace of its own, with a
//!   `/proc` mounted for that namespace: toolc and every other process of
//!   the machine have no pid there, so their `environ`, `cmdline` and
//!   `mem` cannot even be named, and no signal reaches them. Ending the
//!   call kills the namespace's init, and the kernel kills everything
//!   else in it, `setsid` daemons included. A tool without network gets an
//!   empty network namespace: no interface but a loopback that is down,
//!   so TCP, UDP (DNS exfiltration) and abstract UNIX sockets of the host
//!   are all out of reach. A tool with an egress allow-list (and the
//!   built-in shell) gets one too, with its loopback up and one listener
//!   on it that toolc serves as a checking proxy ([`super::netns`],
//!   [`super::egress`]). The user namespace maps the caller's own uid
//!   and gid (`setgroups` denied) to themselves, or, when toolc runs as
//!   root, to [`linux::UNPRIVILEGED_ID`]: the tool is never uid 0 inside, yet a
//!   file the caller owns (its scratch directory, the manifest's
//!   directory) is the tool's own, so it reads and writes them as toolc
//!   could, and gains no right on the host; the mount namespace
//!   only serves the new `/proc` (its mounts are private, nothing
//!   propagates back), a `/dev/shm` of the call's own (POSIX shared
//!   memory and files there go with the namespace) and, over the call's
//!   scratch directory (its `TMPDIR`), a tmpfs of its own
//!   ([`Confinement::scratch_in_memory`]): what the tool writes there is
//!   gone with the namespace even when toolc is killed and cannot remove
//!   the directory (the empty directory left on the host is swept by the
//!   next toolc: [`super::exec`]'s scratch module). The IPC namespace
//!   hides System V shared memory, semaphores and message queues of
//!   other processes.
//! - **Landlock** (ABI 6 asked for, the kernel's own when older). File
//!   access is confined to the directories a [`Rules`] lists (the
//!   manifest's directory, the call's private temporary directory, the
//!   interpreter's files, the declared allowed directories) plus what any
//!   program needs to start: the system's executables and libraries and a
//!   few files of `/etc` and `/dev`, and `/proc`. TCP `connect` and `bind`
//!   are denied to a tool without network (ABI 4), and connecting to
//!   abstract UNIX sockets made outside the sandbox and signalling
//!   processes outside it are denied to every tool (ABI 6). A
//!   file-system-confined process cannot mount or unmount, so the
//!   namespace's `/proc` cannot be taken off to show the host's. Landlock
//!   does *not* close other processes' `/proc` entries: under Landlock
//!   alone a tool reads `/proc/<toolc's pid>/environ` (checked on Linux
//!   6.18); only the PID namespace, where that pid does not exist, does.
//! - **seccomp** (with either layer): the tool may not clear its
//!   parent-death signal (it would outlive a killed toolc), reach the
//!   kernel keyrings (not namespaced: the caller's session keyring), use
//!   io_uring (its requests bypass this filter: it reached a host UNIX
//!   socket without network), make new namespaces or enter others, or,
//!   without network, open a UNIX socket (a path socket is reached through
//!   the file system, which neither the network namespace nor Landlock
//!   checks on `connect`). The full list and the reasons are in
//!   [`super::seccomp`].
//! - **No capabilities** (with either layer): before the exec the child
//!   drops every capability: the bounding set (`PR_CAPBSET_DROP` for each),
//!   the ambient set, and effective, permitted and inheritable
//!   (`capset` to zero); `no_new_privs` is set for Landlock and seccomp,
//!   so no set-user-id program or file capability gives any back. In a
//!   user namespace the child needs its capabilities only for its own
//!   mounts, which come first. A tool run by root thus has none of root's
//!   powers, inside its namespaces or under Landlock alone.
//!
//! Where user namespaces are unavailable (a kernel or container that
//! forbids them, a `user.max_user_namespaces` of 0), a runner probes it
//! once ([`super::launch::probe_namespaces`]) and runs tools under Landlock
//! alone; the result's `metadata.sandbox` says which layers applied. Under
//! Landlock alone, other processes stay visible in `/proc` and the
//! environment of those of the same user (toolc's included) readable, a
//! `setsid` daemon outlives its call, UDP is open to a tool without
//! network, an egress allow-list cannot be enforced (such a tool is refused
//! unless `--allow-unenforced-egress`, and the shell gets no network), and
//! a tool keeps toolc's uid: uid 0 when toolc runs as root (without any
//! capability, but the owner of root's files as far as Landlock lets it
//! reach them). A caller that is not root cannot empty its bounding set
//! there (that needs `CAP_SETPCAP`); it holds no capability to lose, and
//! `no_new_privs` keeps it so across the exec.
//!
//! What none of them does: limit CPU time beyond the call's timeout,
//! the number of processes or memory (the call's cgroup does:
//! [`super::cgroup`]; the call's `/dev/shm` and, in
//! namespaces, its scratch directory hold at most 256 MiB each), or hide
//! the host's mount table (`/proc/self/mountinfo`). Under Landlock alone `/dev/shm` is the
//! host's: what a tool leaves there outlives its call.
//!
//! The Landlock rules are built in toolc's own process, before the
//! clone: opening the directories and filling the ruleset allocate, which
//! the child of a threaded program must not do. The child
//! ([`super::launch`]) then only makes system calls: the id maps, the
//! mounts, Landlock rules for its new `/proc` and `/dev/shm` (a rule on
//! the host's directories does not reach a file system mounted over
//! them: checked),
//! the capabilities dropped, `prctl(PR_SET_NO_NEW_PRIVS)` and
//! `landlock_restrict_self`; the rules hold across the exec for the tool
//! and everything it starts.

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
mod step;
#[cfg(target_os = "linux")]
mod system;
#[cfg(target_os = "linux")]
pub use linux::probe;
#[cfg(target_os = "linux")]
pub(crate) use linux::{Confinement, Rules, SYSTEM_READ, SYSTEM_WRITE, namespace_trial};
#[cfg(target_os = "linux")]
pub(crate) use step::Step;

/// What the kernel supports, probed once per runner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Support {
    /// Landlock with this ABI version.
    Landlock(i32),
    /// No Landlock: the kernel lacks it or it is disabled.
    Unavailable,
}

impl Support {
    /// Whether TCP rules can be enforced (ABI 4 and later).
    pub fn network(self) -> bool {
        matches!(self, Support::Landlock(abi) if abi >= 4)
    }

    /// Whether abstract UNIX sockets and signals can be scoped (ABI 6 and
    /// later).
    pub fn scopes(self) -> bool {
        matches!(self, Support::Landlock(abi) if abi >= 6)
    }
}

/// How a tool's process was confined, as `metadata.sandbox` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SandboxMode {
    /// Its own namespaces and Landlock rules (`"namespaces+landlock"`).
    #[serde(rename = "namespaces+landlock")]
    NamespacesLandlock,
    /// Its own namespaces, no Landlock: the kernel lacks it
    /// (`"namespaces"`).
    #[serde(rename = "namespaces")]
    Namespaces,
    /// Landlock rules alone: user namespaces are unavailable or were
    /// turned off (`"landlock"`).
    #[serde(rename = "landlock")]
    Landlock,
    /// No confinement: the kernel offers neither layer or the sandbox was
    /// turned off (`"none"`).
    #[serde(rename = "none")]
    Unconfined,
}

impl SandboxMode {
    /// The mode's name in a result's JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::NamespacesLandlock => "namespaces+landlock",
            SandboxMode::Namespaces => "namespaces",
            SandboxMode::Landlock => "landlock",
            SandboxMode::Unconfined => "none",
        }
    }

    /// Whether Landlock rules applied.
    pub fn landlock(self) -> bool {
        matches!(
            self,
            SandboxMode::NamespacesLandlock | SandboxMode::Landlock
        )
    }
}

/// Elsewhere there is no sandbox: the runner starts no tool process
/// there ([`super::exec`]).
#[cfg(not(target_os = "linux"))]
pub fn probe() -> Support {
    Support::Unavailable
}
