//! The steps of a tool's child between clone and exec, each named in the
//! error of the one that failed.

/// A step of the child between clone and exec, named in the error of the
/// step that failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    DeathSignal,
    ProcessGroup,
    Setgroups,
    UidMap,
    GidMap,
    PrivateMounts,
    MountProc,
    MountShm,
    MountScratch,
    MountRules,
    Loopback,
    ProxyListen,
    ProxySend,
    JoinNetwork,
    UserNamespace,
    Capabilities,
    MemoryLimit,
    Stdio,
    WorkingDirectory,
    Landlock,
    Seccomp,
    Cgroup,
    ProcessLimit,
    Execute,
}

impl Step {
    const ALL: [Step; 24] = [
        Step::DeathSignal,
        Step::ProcessGroup,
        Step::Setgroups,
        Step::UidMap,
        Step::GidMap,
        Step::PrivateMounts,
        Step::MountProc,
        Step::MountShm,
        Step::MountScratch,
        Step::MountRules,
        Step::Loopback,
        Step::ProxyListen,
        Step::ProxySend,
        Step::JoinNetwork,
        Step::UserNamespace,
        Step::Capabilities,
        Step::MemoryLimit,
        Step::Stdio,
        Step::WorkingDirectory,
        Step::Landlock,
        Step::Seccomp,
        Step::Cgroup,
        Step::ProcessLimit,
        Step::Execute,
    ];

    /// The step's byte on the report pipe.
    pub fn code(self) -> u8 {
        Step::ALL.iter().position(|s| *s == self).unwrap_or(0) as u8
    }

    pub fn from_code(code: u8) -> Step {
        Step::ALL
            .get(usize::from(code))
            .copied()
            .unwrap_or(Step::Execute)
    }

    pub fn describe(self) -> &'static str {
        match self {
            Step::DeathSignal => "tie the process to toolc's life (PR_SET_PDEATHSIG)",
            Step::ProcessGroup => "make a process group",
            Step::Setgroups => "deny setgroups in the user namespace",
            Step::UidMap => "write the user namespace's uid map",
            Step::GidMap => "write the user namespace's gid map",
            Step::PrivateMounts => "make the mounts private",
            Step::MountProc => "mount the PID namespace's /proc",
            Step::MountShm => "mount a /dev/shm of the call's own",
            Step::MountScratch => "mount a tmpfs over the call's scratch directory",
            Step::MountRules => "let Landlock reach the new /proc, /dev/shm and scratch directory",
            Step::Loopback => "bring the network namespace's loopback up",
            Step::ProxyListen => "listen for the egress proxy in the network namespace",
            Step::ProxySend => "hand the egress proxy's socket to toolc",
            Step::JoinNetwork => "join the network namespace made for the call",
            Step::UserNamespace => "make the user namespace",
            Step::Capabilities => "drop every capability",
            Step::MemoryLimit => "set the memory limit",
            Step::Stdio => "connect stdin, stdout and stderr",
            Step::WorkingDirectory => "enter the working directory",
            Step::Landlock => "apply the Landlock rules",
            Step::Seccomp => "install the seccomp filter",
            Step::Cgroup => "join the call's cgroup",
            Step::ProcessLimit => "set the process limit (RLIMIT_NPROC)",
            Step::Execute => "execute the program",
        }
    }
}
