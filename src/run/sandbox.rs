//! The sandbox of a tool's process: Landlock (Linux).
//!
//! The rules are built in toolc's own process, before the fork: opening
//! the directories and filling the ruleset allocate, which a forked child
//! of a threaded program must not do. Between fork and exec the child
//! only calls `prctl(PR_SET_NO_NEW_PRIVS)` and `landlock_restrict_self` on
//! the prepared ruleset, both plain syscalls, and the rules hold across
//! the exec for the tool and everything it starts.
//!
//! File access is confined to the directories a [`Rules`] lists (the
//! manifest's directory, the call's private temporary directory, the
//! interpreter's files, the declared allowed directories) plus what any
//! program needs to start: the system's executables and libraries and a
//! few files of `/etc` and `/dev`. TCP `connect` and `bind` are denied
//! when the tool declares no network.

use std::io;
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, RulesetAttr,
    RulesetCreated, RulesetCreatedAttr, path_beneath_rules,
};

/// The newest Landlock ABI toolc asks for; older kernels get what they
/// support, and [`probe`] tells which.
const ABI_WANTED: ABI = ABI::V5;

/// Directories and files every program needs to start and run: read and
/// execute only.
pub(crate) const SYSTEM_READ: &[&str] = &[
    "/bin",
    "/sbin",
    "/usr",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/alternatives",
    // Name resolution and TLS roots, for tools allowed the network.
    "/etc/nsswitch.conf",
    "/etc/hosts",
    "/etc/resolv.conf",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/dev/urandom",
    "/dev/random",
    // Runtimes read their own /proc entries (Python's multiprocessing,
    // Node, Go). Landlock also keeps a confined process from ptrace-level
    // access to processes outside its domain, so other processes' secret
    // entries (environ, mem) stay closed.
    "/proc",
];

/// Device files a program may write to.
pub(crate) const SYSTEM_WRITE: &[&str] = &["/dev/null", "/dev/zero", "/dev/full", "/dev/shm"];

/// What a tool's process may touch.
#[derive(Debug, Clone, Default)]
pub(crate) struct Rules {
    /// Read and execute beneath these.
    pub read: Vec<PathBuf>,
    /// Full access beneath these.
    pub write: Vec<PathBuf>,
    /// Leave the file system unconfined (an allowed directory of `*`).
    pub any_path: bool,
    /// Deny TCP connect and bind.
    pub deny_tcp: bool,
}

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

    /// How the processes of a runner with this support are confined.
    pub fn mode(self) -> SandboxMode {
        match self {
            Support::Landlock(_) => SandboxMode::Landlock,
            Support::Unavailable => SandboxMode::Unconfined,
        }
    }
}

/// How a tool's process was confined, as `metadata.sandbox` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SandboxMode {
    /// Landlock rules applied (`"landlock"`).
    Landlock,
    /// No confinement: the kernel lacks Landlock or the sandbox was turned
    /// off (`"none"`).
    #[serde(rename = "none")]
    Unconfined,
}

impl SandboxMode {
    /// The mode's name in a result's JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::Landlock => "landlock",
            SandboxMode::Unconfined => "none",
        }
    }
}

/// Asks the kernel which Landlock ABI it supports.
pub fn probe() -> Support {
    // SAFETY: landlock_create_ruleset with a null attribute, size 0 and
    // the VERSION flag only returns the ABI version; no descriptor is made.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            1u32, // LANDLOCK_CREATE_RULESET_VERSION
        )
    };
    if abi >= 1 {
        Support::Landlock(abi as i32)
    } else {
        Support::Unavailable
    }
}

/// A ruleset built in the parent, enforced in the child.
pub(crate) struct Confinement {
    ruleset: Option<RulesetCreated>,
}

impl std::fmt::Debug for Confinement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Confinement")
    }
}

impl Confinement {
    /// Builds the ruleset for `rules`. Paths that do not exist are left
    /// out (nothing can be beneath them).
    pub fn build(rules: &Rules, support: Support) -> Result<Confinement, String> {
        let abi = ABI_WANTED;
        let fail = |e: landlock::RulesetError| format!("cannot build the Landlock ruleset: {e}");
        let mut ruleset = landlock::Ruleset::default().set_compatibility(CompatLevel::BestEffort);
        if !rules.any_path {
            ruleset = ruleset
                .handle_access(AccessFs::from_all(abi))
                .map_err(fail)?;
        }
        if rules.deny_tcp && support.network() {
            ruleset = ruleset
                .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
                .map_err(fail)?;
        }
        if rules.any_path && !(rules.deny_tcp && support.network()) {
            return Ok(Confinement { ruleset: None });
        }
        let mut created = ruleset.create().map_err(fail)?;
        if !rules.any_path {
            let read: BitFlags<AccessFs> = AccessFs::from_read(abi);
            let all: BitFlags<AccessFs> = AccessFs::from_all(abi);
            let system_read = SYSTEM_READ.iter().map(Path::new);
            let system_write = SYSTEM_WRITE.iter().map(Path::new);
            created = created
                .add_rules(path_beneath_rules(
                    system_read.chain(rules.read.iter().map(PathBuf::as_path)),
                    read,
                ))
                .map_err(fail)?
                .add_rules(path_beneath_rules(
                    system_write.chain(rules.write.iter().map(PathBuf::as_path)),
                    all,
                ))
                .map_err(fail)?;
        }
        Ok(Confinement {
            ruleset: Some(created),
        })
    }

    /// Restricts the calling process. Runs in the forked child before
    /// exec: no allocation on any path.
    pub fn enforce(&mut self) -> io::Result<()> {
        let Some(ruleset) = self.ruleset.take() else {
            return Ok(());
        };
        match ruleset.restrict_self() {
            Ok(_) => Ok(()),
            Err(_) => Err(io::Error::from_raw_os_error(libc::EPERM)),
        }
    }
}
