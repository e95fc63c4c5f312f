//! The sandbox's Linux side: Landlock rules, namespaces, capabilities
//! (see [`super`]).

use super::system;
use super::{Step, Support};

use crate::run::netns::Listening;

use std::ffi::CString;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, RulesetAttr,
    RulesetCreated, RulesetCreatedAttr, Scope, path_beneath_rules,
};

/// The Landlock ABI toolc asks for; older kernels get what they support,
/// and [`probe`] tells which. 6 adds the abstract-socket and signal
/// scopes; later ABIs add audit flags (7) and rights toolc has not been
/// tested with, so they are not asked for blindly.
const ABI_WANTED: ABI = ABI::V6;

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
    // Node, Go). In a PID namespace this is the namespace's own /proc
    // (the rule is added again in the child, after the mount); under
    // Landlock alone it is the host's, with every process in it.
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
    /// The tool declares no network: TCP connect and bind are denied and,
    /// with namespaces, it gets an empty network namespace.
    pub no_network: bool,
    /// The tool's network goes through toolc's egress proxy: with
    /// namespaces, an empty network namespace whose only way out is the
    /// listener the child hands to toolc ([`super::netns`]); UNIX sockets
    /// are refused as without network.
    pub proxy: bool,
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

/// What the namespace probe ([`super::launch::probe_namespaces`]) tries:
/// every step of a namespaced tool without network (its own user, PID,
/// mount, IPC and network namespaces, a fresh `/proc`), with no Landlock
/// rules.
pub(crate) fn namespace_trial() -> Confinement {
    Confinement {
        ruleset: None,
        mount_rules: None,
        namespaces: Some(Namespaces::of_this_process(true)),
        last_capability: last_capability(),
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        filter: crate::run::seccomp::Filter::new(true),
    }
}

/// The namespaces of one process, prepared before the clone.
struct Namespaces {
    /// A new, empty network namespace too.
    network: bool,
    /// `inside uid 1`: the caller's own uid, mapped to itself, or to
    /// [`UNPRIVILEGED_ID`] when it is root.
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
    /// The machine has a `/dev/shm` to cover with the call's own tmpfs.
    shm: bool,
    /// The call's scratch directory, to cover with a tmpfs of its own.
    scratch: Option<CString>,
    /// The child's end of the egress proxy's hand-over
    /// ([`super::netns`]), for a proxied tool.
    proxy: Option<OwnedFd>,
    /// The network namespace made ahead of time for this call
    /// ([`crate::run::netns::prepared`]), to join rather than make one in the
    /// clone. The clone then makes no user namespace either: the child
    /// joins it with toolc's privilege, mounts, and only then makes its
    /// user namespace (a process in a new user namespace has no right
    /// over a namespace made outside it).
    joined: Option<OwnedFd>,
    /// That namespace's loopback is up already (made for a proxied tool).
    joined_loopback: bool,
    /// The proxy's listener made in that namespace, until
    /// [`Confinement::proxy_channel`] takes it for toolc.
    listener: Option<OwnedFd>,
}

impl Namespaces {
    fn of_this_process(network: bool) -> Namespaces {
        // SAFETY: plain syscalls without arguments.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        let inside = |id: u32| if id == 0 { UNPRIVILEGED_ID } else { id };
        Namespaces {
            network,
            uid_map: format!("{} {uid} 1\n", inside(uid)).into_bytes(),
            gid_map: format!("{} {gid} 1\n", inside(gid)).into_bytes(),
            shm: Path::new(SHM).is_dir(),
            scratch: None,
            proxy: None,
            joined: None,
            joined_loopback: false,
            listener: None,
        }
    }

    /// In the child, in its new user namespace: `setgroups` denied and
    /// the id maps written. No allocation.
    fn map_ids(&self) -> Result<(), (Step, i32)> {
        write_file(c"/proc/self/setgroups", b"deny").map_err(|e| (Step::Setgroups, e))?;
        write_file(c"/proc/self/uid_map", &self.uid_map).map_err(|e| (Step::UidMap, e))?;
        write_file(c"/proc/self/gid_map", &self.gid_map).map_err(|e| (Step::GidMap, e))
    }

    /// Takes a network namespace made ahead of time, if one is ready:
    /// with its loopback up for a `proxied` tool.
    fn join_prepared(&mut self, proxied: bool) {
        if self.network
            && self.joined.is_none()
            && let Some(prepared) = crate::run::netns::prepared(proxied)
        {
            self.joined = Some(prepared.namespace);
            self.joined_loopback = proxied;
            self.listener = prepared.listener;
        }
    }
}

/// The uid and gid a tool has inside its user namespace when toolc runs
/// as root: the first id distributions give a person, never 0. Unmapped
/// owners (every other user of the host) show as the overflow id 65534.
pub(crate) const UNPRIVILEGED_ID: u32 = 1000;

/// The mount options of a call's scratch tmpfs: private to the tool (its
/// root belongs to the tool's uid) and 256 MiB at most, as its
/// `/dev/shm`.
const SCRATCH_OPTIONS: &std::ffi::CStr = c"mode=0700,size=256m";

/// The shared-memory directory every program expects.
const SHM: &str = "/dev/shm";

/// The Landlock rules for the file systems the child mounts (its `/proc`
/// and `/dev/shm`), added by the child after the mounts: a rule on the
/// host's directories does not reach a file system mounted over them. A
/// duplicate of the ruleset's descriptor and the rights, within what the
/// kernel handles.
struct MountRules {
    ruleset: OwnedFd,
    read: u64,
    all: u64,
}

/// LANDLOCK_RULE_PATH_BENEATH's attribute (packed, as the kernel's).
#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

/// The confinement of one process: built in the parent, entered and
/// enforced in the child.
pub(crate) struct Confinement {
    ruleset: Option<RulesetCreated>,
    mount_rules: Option<MountRules>,
    namespaces: Option<Namespaces>,
    /// The highest capability number to drop ([`last_capability`]).
    last_capability: libc::c_ulong,
    /// The system calls the tool may not make ([`super::seccomp`]).
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    filter: crate::run::seccomp::Filter,
}

impl std::fmt::Debug for Confinement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Confinement")
    }
}

impl Confinement {
    /// Builds the confinement for `rules`: Landlock when `support` has it,
    /// namespaces when `namespaces` (the runner's probe said they work).
    /// Paths that do not exist are left out (nothing can be beneath them).
    pub fn build(rules: &Rules, support: Support, namespaces: bool) -> Result<Confinement, String> {
        let ruleset = match support {
            Support::Landlock(_) => Some(ruleset(rules, support)?),
            Support::Unavailable => None,
        };
        let mount_rules = match (&ruleset, namespaces, support) {
            (Some(created), true, Support::Landlock(kernel)) => {
                let duplicate = created
                    .try_clone()
                    .map_err(|e| format!("cannot duplicate the Landlock ruleset: {e}"))?;
                let fd: Option<OwnedFd> = duplicate.into();
                // The raw syscall gets no best-effort help: rights the
                // kernel does not know would make it fail.
                let abi = ABI::from(kernel.min(6));
                fd.map(|ruleset| MountRules {
                    ruleset,
                    read: AccessFs::from_read(abi).bits(),
                    all: AccessFs::from_all(abi).bits(),
                })
            }
            _ => None,
        };
        Ok(Confinement {
            ruleset,
            mount_rules,
            namespaces: namespaces.then(|| {
                let mut own = Namespaces::of_this_process(rules.no_network || rules.proxy);
                own.join_prepared(rules.proxy);
                own
            }),
            last_capability: last_capability(),
            #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
            filter: crate::run::seccomp::Filter::new(rules.no_network || rules.proxy),
        })
    }

    /// Mounts a tmpfs (at most 256 MiB) over `scratch`, the
    /// call's scratch directory, in the call's mount namespace, so that
    /// its contents go with the namespace. Nothing without namespaces.
    pub fn scratch_in_memory(&mut self, scratch: &Path) -> Result<(), String> {
        use std::os::unix::ffi::OsStrExt;
        if let Some(namespaces) = &mut self.namespaces {
            let path = CString::new(scratch.as_os_str().as_bytes())
                .map_err(|_| format!("{} contains a NUL byte", scratch.display()))?;
            namespaces.scratch = Some(path);
        }
        Ok(())
    }

    /// For a proxied tool in namespaces: where toolc gets the listener of
    /// its proxy ([`super::netns`]): the one made with a namespace
    /// prepared ahead of time, or else the hand-over channel from the
    /// child (toolc's end). `None` without namespaces.
    pub fn proxy_channel(&mut self) -> Result<Option<Listening>, String> {
        let Some(namespaces) = &mut self.namespaces else {
            return Ok(None);
        };
        namespaces.network = true;
        namespaces.join_prepared(true);
        if let Some(listener) = namespaces.listener.take() {
            return Ok(Some(Listening::Ready(listener)));
        }
        let (toolc, child) = crate::run::netns::channel()
            .map_err(|e| format!("cannot make the egress proxy's channel: {e}"))?;
        namespaces.proxy = Some(child);
        Ok(Some(Listening::Handed(toolc)))
    }

    /// The `clone3` flags of its namespaces (0 without).
    pub fn clone_flags(&self) -> u64 {
        let Some(namespaces) = &self.namespaces else {
            return 0;
        };
        let mut flags = libc::CLONE_NEWPID | libc::CLONE_NEWNS | libc::CLONE_NEWIPC;
        if namespaces.joined.is_none() {
            flags |= libc::CLONE_NEWUSER;
            if namespaces.network {
                flags |= libc::CLONE_NEWNET;
            }
        }
        flags as u64
    }

    /// In the child, first thing after the clone: the id maps of its user
    /// namespace, private mounts, a `/proc` of its PID namespace, a
    /// `/dev/shm` of its own (what a tool leaves there goes with the
    /// namespace) and the Landlock rules that reach them. With a network
    /// namespace made ahead of time, the child joins it first and makes
    /// its user namespace last. No allocation.
    pub fn enter_namespaces(&mut self) -> Result<(), (Step, i32)> {
        let Some(namespaces) = &self.namespaces else {
            return Ok(());
        };
        if let Some(joined) = &namespaces.joined {
            // SAFETY: setns on a namespace descriptor toolc opened.
            if unsafe { libc::setns(joined.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
                return Err((Step::JoinNetwork, errno()));
            }
        } else {
            namespaces.map_ids()?;
        }
        // SAFETY: mount(2) with static C strings.
        unsafe {
            if libc::mount(
                std::ptr::null(),
                c"/".as_ptr(),
                std::ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            ) != 0
            {
                return Err((Step::PrivateMounts, errno()));
            }
            if libc::mount(
                c"proc".as_ptr(),
                c"/proc".as_ptr(),
                c"proc".as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                std::ptr::null(),
            ) != 0
            {
                return Err((Step::MountProc, errno()));
            }
            if namespaces.shm
                && libc::mount(
                    c"tmpfs".as_ptr(),
                    c"/dev/shm".as_ptr(),
                    c"tmpfs".as_ptr(),
                    libc::MS_NOSUID | libc::MS_NODEV,
                    c"mode=1777,size=256m".as_ptr().cast(),
                ) != 0
            {
                return Err((Step::MountShm, errno()));
            }
            if let Some(scratch) = &namespaces.scratch
                && libc::mount(
                    c"tmpfs".as_ptr(),
                    scratch.as_ptr(),
                    c"tmpfs".as_ptr(),
                    libc::MS_NOSUID | libc::MS_NODEV,
                    SCRATCH_OPTIONS.as_ptr().cast(),
                ) != 0
            {
                return Err((Step::MountScratch, errno()));
            }
        }
        if let Some(rules) = &self.mount_rules {
            let fail = |e| (Step::MountRules, e);
            add_rule(rules, c"/proc", rules.read).map_err(fail)?;
            if namespaces.shm {
                add_rule(rules, c"/dev/shm", rules.all).map_err(fail)?;
            }
            if let Some(scratch) = &namespaces.scratch {
                add_rule(rules, scratch, rules.all).map_err(fail)?;
            }
        }
        if let Some(channel) = &namespaces.proxy {
            let loopback = !namespaces.joined_loopback;
            crate::run::netns::hand_over_listener(channel.as_raw_fd(), loopback).map_err(
                |(failed, e)| {
                    let step = match failed {
                        crate::run::netns::Failed::Loopback => Step::Loopback,
                        crate::run::netns::Failed::Listen => Step::ProxyListen,
                        crate::run::netns::Failed::Send => Step::ProxySend,
                    };
                    (step, e)
                },
            )?;
        }
        if namespaces.joined.is_some() {
            // SAFETY: unshare without pointers.
            if unsafe { libc::unshare(libc::CLONE_NEWUSER) } != 0 {
                return Err((Step::UserNamespace, errno()));
            }
            namespaces.map_ids()?;
        }
        Ok(())
    }

    /// Restricts the calling process with the Landlock rules, then the
    /// seccomp filter. Runs in the child before exec: no allocation on
    /// any path.
    pub fn enforce(&mut self) -> Result<(), (Step, i32)> {
        drop_capabilities(self.last_capability).map_err(|e| (Step::Capabilities, e))?;
        if let Some(ruleset) = self.ruleset.take()
            && ruleset.restrict_self().is_err()
        {
            return Err((Step::Landlock, errno()));
        }
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        self.filter.install().map_err(|e| (Step::Seccomp, e))?;
        Ok(())
    }
}

/// The Landlock ruleset of `rules`: every file-system right handled (so
/// that a confined process can never mount or unmount), TCP when the tool
/// has no network, and the ABI 6 scopes.
fn ruleset(rules: &Rules, support: Support) -> Result<RulesetCreated, String> {
    let abi = ABI_WANTED;
    let fail = |e: landlock::RulesetError| format!("cannot build the Landlock ruleset: {e}");
    let mut ruleset = landlock::Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(abi))
        .map_err(fail)?;
    if rules.no_network && support.network() {
        ruleset = ruleset
            .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
            .map_err(fail)?;
    }
    if support.scopes() {
        ruleset = ruleset.scope(Scope::from_all(abi)).map_err(fail)?;
    }
    let created = ruleset.create().map_err(fail)?;
    let all: BitFlags<AccessFs> = AccessFs::from_all(abi);
    if rules.any_path {
        // An allowed directory of `*`: every file, but still a handled
        // file system, which keeps the mounts as they are.
        return created
            .add_rules(path_beneath_rules(["/"], all))
            .map_err(fail);
    }
    let read: BitFlags<AccessFs> = AccessFs::from_read(abi);
    let (system_read, system_write) = system::entries();
    let (system_read, system_write) = (system_read.current(), system_write.current());
    let read_paths: Vec<&Path> = system_read.per_call().map(Path::new).collect();
    let write_paths: Vec<&Path> = system_write.per_call().map(Path::new).collect();
    created
        .add_rules(held_rules(&system_read, read, abi))
        .map_err(fail)?
        .add_rules(held_rules(&system_write, all, abi))
        .map_err(fail)?
        .add_rules(path_beneath_rules(
            read_paths
                .into_iter()
                .chain(rules.read.iter().map(PathBuf::as_path)),
            read,
        ))
        .map_err(fail)?
        .add_rules(path_beneath_rules(
            write_paths
                .into_iter()
                .chain(rules.write.iter().map(PathBuf::as_path)),
            all,
        ))
        .map_err(fail)
}

/// The rules of a list's held entries, granting `access`; a device node
/// gets the rights of a file only (a held entry is a directory or a
/// device).
fn held_rules<'a>(
    entries: &'a system::Current<'_>,
    access: BitFlags<AccessFs>,
    abi: ABI,
) -> Vec<Result<PathBeneath<BorrowedFd<'a>>, landlock::RulesetError>> {
    entries
        .held()
        .map(|(fd, directory)| {
            let access = if directory {
                access
            } else {
                access & AccessFs::from_file(abi)
            };
            Ok(PathBeneath::new(fd, access))
        })
        .collect()
}

fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// The highest capability number a kernel may know: what is dropped when
/// the kernel does not say its own.
const LAST_CAPABILITY: libc::c_ulong = 63;

/// The highest capability this kernel knows (`/proc/sys/kernel/cap_last_cap`),
/// read once, in toolc: the child drops `0..=` it and no more, rather than
/// asking for 64 numbers of which the kernel refuses the rest. Where the
/// file cannot be read, [`LAST_CAPABILITY`] (a number the kernel does not
/// know is refused with `EINVAL` and skipped).
fn last_capability() -> libc::c_ulong {
    static LAST: std::sync::OnceLock<libc::c_ulong> = std::sync::OnceLock::new();
    *LAST.get_or_init(|| {
        std::fs::read_to_string("/proc/sys/kernel/cap_last_cap")
            .ok()
            .and_then(|text| text.trim().parse::<libc::c_ulong>().ok())
            .filter(|last| *last <= LAST_CAPABILITY)
            .unwrap_or(LAST_CAPABILITY)
    })
}

/// `_LINUX_CAPABILITY_VERSION_3`: 64-bit sets, in two 32-bit halves.
const CAPABILITY_VERSION_3: u32 = 0x2008_0522;

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// Drops every capability of the calling process: the bounding set (so
/// that no exec, not even of a set-user-id-root program or as uid 0,
/// gives one back), the ambient set, then effective, permitted and
/// inheritable. Emptying the bounding set needs `CAP_SETPCAP`: a process
/// without it (a caller that is not root, without namespaces) has no
/// capability to keep, and its set stays. No allocation.
fn drop_capabilities(last: libc::c_ulong) -> Result<(), i32> {
    // SAFETY: prctl and capset on valid, local structures.
    unsafe {
        for capability in 0..=last {
            if libc::prctl(libc::PR_CAPBSET_DROP, capability, 0, 0, 0) != 0 {
                match errno() {
                    libc::EINVAL | libc::EPERM => {}
                    other => return Err(other),
                }
            }
        }
        if libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        ) != 0
            && errno() != libc::EINVAL
        {
            return Err(errno());
        }
        let mut header = CapHeader {
            version: CAPABILITY_VERSION_3,
            pid: 0,
        };
        let data = [CapData {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        }; 2];
        if libc::syscall(
            libc::SYS_capset,
            std::ptr::addr_of_mut!(header),
            data.as_ptr(),
        ) != 0
        {
            return Err(errno());
        }
    }
    Ok(())
}

/// Writes `bytes` to the file at `path` in one write(2). No allocation.
fn write_file(path: &std::ffi::CStr, bytes: &[u8]) -> Result<(), i32> {
    // SAFETY: open, write and close on a static path and a valid buffer.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(errno());
        }
        let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        let error = errno();
        libc::close(fd);
        if written != bytes.len() as isize {
            return Err(if written < 0 { error } else { libc::EIO });
        }
    }
    Ok(())
}

/// Adds a rule granting `access` beneath `path` (a file system just
/// mounted). No allocation.
fn add_rule(rules: &MountRules, path: &std::ffi::CStr, access: u64) -> Result<(), i32> {
    // SAFETY: open and the Landlock syscall on a valid, packed attribute;
    // the descriptor is closed before returning.
    unsafe {
        let fd = libc::open(
            path.as_ptr(),
            libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
        );
        if fd < 0 {
            return Err(errno());
        }
        let attr = PathBeneathAttr {
            allowed_access: access,
            parent_fd: fd,
        };
        let added = libc::syscall(
            libc::SYS_landlock_add_rule,
            rules.ruleset.as_raw_fd(),
            1u32, // LANDLOCK_RULE_PATH_BENEATH
            std::ptr::addr_of!(attr),
            0u32,
        );
        let error = errno();
        libc::close(fd);
        if added != 0 {
            return Err(error);
        }
    }
    Ok(())
}
