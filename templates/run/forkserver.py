"""toolc's Python fork server: imports a tool once, forks a child per call.

toolc starts `python3 -I -B -c <this file> <bootstrap.py>` per interpreter
and tool (script or package, and the sandbox rules its calls share),
under the tool's Landlock rules and, where it can, as process 1 of its
own PID namespace (and user, mount, IPC and maybe network namespaces),
with a scrubbed environment, the server's scratch root as TMPDIR and its
one control socket as stdin.
Messages are JSON lines on that socket, one request and its reply at a
time:

    toolc:  {"target": {"kind": ..., "file": ..., "package": ...},
             "layer": {"abi": 6, "read": [...], "write": [...]} or null}
    server: {"ready": true, "pid": 123, "files": ["/abs/main.py", ...]}
    toolc:  {"op": "call", "request": {...}, "memory": null}
             (with two descriptors: the call's stdout and stderr pipes,
             sent as SCM_RIGHTS, then the join file of each of the call's
             own cgroups, which the child joins before the tool runs)
    server: {"pid": 124, "dir": "/tmp/toolc-run-.../call-1"}
             (with one descriptor: a pidfd of the child, by which toolc
             knows it; the pid is the server's namespace's)
    toolc:  {"op": "reap", "pid": 124}   (once the call is over and toolc
             killed the child's process group)
    server: {"code": 0} or {"signal": 9}

As its namespace's init the server inherits what its calls leave running
(a `setsid` daemon): after a reap that leaves no call running it kills
and reaps every process of the namespace but itself and its waiting
child.

The server imports the bootstrap and the tool, then only forks, reaps and
answers: tool code never runs in it after the import, so every call
starts from the state the import left. The child of the next call is
forked ahead of time (off the call's path): it makes itself a process
group, dies with the server (PDEATHSIG), takes its own scratch directory
(`call-N` in the server's root) as TMPDIR and adds a Landlock layer that
confines its writes to that directory, then waits. When its call comes it
takes the call's pipes and memory limit and only then calls the tool,
answering as the cold bootstrap does. A layer that cannot be applied
fails the call ("toolc.SandboxError"); it never runs unconfined.

The server ends when toolc closes the socket or dies: it kills its
children's groups and empties its scratch root first (PDEATHSIG is
SIGTERM without namespaces; in them it is SIGKILL, which ends the whole
namespace, and toolc removes the root).
"""

import ctypes
import gc
import json
import os
import resource
import shutil
import signal
import socket
import stat
import sys
import time

# Landlock (linux/landlock.h): the syscalls and the file-system rights.
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_RULE_PATH_BENEATH = 1
_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR = 1, 2, 4, 8
_REFER, _TRUNCATE, _IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_PR_SET_PDEATHSIG, _PR_SET_NO_NEW_PRIVS = 1, 38

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class SandboxError(Exception):
    """The call's Landlock layer or limits could not be applied."""

    # The type toolc reads in the response: not the tool's failure.
    __qualname__ = "toolc.SandboxError"


def _rights(abi):
    """Every file-system right the kernel's Landlock ABI knows."""
    rights = (1 << 13) - 1
    if abi >= 2:
        rights |= _REFER
    if abi >= 3:
        rights |= _TRUNCATE
    if abi >= 5:
        rights |= _IOCTL_DEV
    return rights


class Layer:
    """The per-call Landlock layer: what a child may read and write.

    The paths are opened and the syscalls' arguments built once, in the
    server; a child adds them and its own scratch directory to a fresh
    ruleset and restricts itself."""

    def __init__(self, spec):
        self.handled = _rights(spec["abi"])
        read = self.handled & (_EXECUTE | _READ_FILE | _READ_DIR)
        self.fds = []
        self.rules = []
        for paths, access in ((spec["read"], read), (spec["write"], self.handled)):
            for path in paths:
                self._add(path, access)
        self.attr = _RulesetAttr(self.handled)
        self.calls = {
            number: ctypes.c_long(number)
            for number in (_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF)
        }

    def _add(self, path, access):
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            return  # nothing can be beneath a path that is not there
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            access &= self.handled & (_EXECUTE | _WRITE_FILE | _READ_FILE | _TRUNCATE | _IOCTL_DEV)
        self.fds.append(fd)
        self.rules.append(ctypes.byref(_PathBeneath(access, fd)))

    def apply(self, scratch):
        def check(result, what):
            if result < 0:
                error = ctypes.get_errno()
                raise SandboxError(f"{what}: {os.strerror(error)}")
            return result

        syscall, calls = _libc.syscall, self.calls
        ruleset = check(
            syscall(
                calls[_CREATE_RULESET],
                ctypes.byref(self.attr),
                ctypes.c_size_t(ctypes.sizeof(self.attr)),
                ctypes.c_uint32(0),
            ),
            "landlock_create_ruleset",
        )
        own = os.open(scratch, os.O_PATH | os.O_CLOEXEC | os.O_DIRECTORY)
        rules = self.rules + [ctypes.byref(_PathBeneath(self.handled, own))]
        fd, kind, flags = ctypes.c_int(ruleset), ctypes.c_int(_RULE_PATH_BENEATH), ctypes.c_uint32(0)
        for rule in rules:
            check(syscall(calls[_ADD_RULE], fd, kind, rule, flags), "landlock_add_rule")
        check(_libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "PR_SET_NO_NEW_PRIVS")
        check(syscall(calls[_RESTRICT_SELF], fd, flags), "landlock_restrict_self")
        os.close(ruleset)
        os.close(own)
        for path_fd in self.fds:
            os.close(path_fd)


def join(cgroups):
    """Moves this call's process into its cgroups (each join file toolc
    opened, written `0`: the writer; the process has one thread, so
    moving it moves the process) before the tool runs."""
    for fd in cgroups:
        try:
            os.write(fd, b"0")
        except OSError as error:
            raise SandboxError(f"cannot join the call's cgroup: {error}") from None
        finally:
            os.close(fd)


def limit(memory):
    """The call's address-space limit, when it has one."""
    if memory is None:
        return
    try:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    except (OSError, ValueError) as error:
        raise SandboxError(f"cannot limit the call's memory: {error}") from None


class Channel:
    """JSON lines, with descriptors riding along, over the control socket."""

    def __init__(self, sock):
        self.sock = sock
        self.buffer = b""
        self.fds = []

    def receive(self):
        """The next message and the descriptors sent with it; None at EOF."""
        while b"\n" not in self.buffer:
            data, fds, _, _ = socket.recv_fds(self.sock, 1 << 16, 4, socket.MSG_CMSG_CLOEXEC)
            self.fds.extend(fds)
            if not data:
                return None, []
            self.buffer += data
        line, _, self.buffer = self.buffer.partition(b"\n")
        fds, self.fds = self.fds, []
        return json.loads(line), fds

    def send(self, value, fds=()):
        data = json.dumps(value).encode() + b"\n"
        if fds:
            sent = socket.send_fds(self.sock, [data], list(fds))
            data = data[sent:]
        self.sock.sendall(data)


class Server:
    def __init__(self, bootstrap, channel, config):
        self.bootstrap = bootstrap
        self.channel = channel
        self.root = os.environ.get("TMPDIR", "")
        self.target = config["target"]
        self.layer = Layer(config["layer"]) if config["layer"] else None
        self.children = set()
        # The children handed a call and not reaped yet.
        self.running = set()
        self.pid = os.getpid()
        self.module = None
        self.error = None

    def start(self):
        try:
            self.module = self.bootstrap["load"](self.target)
        except BaseException as error:  # noqa: BLE001 - each call reports it
            self.error = error
        # What the import printed must not reach the first child's streams.
        sys.stdout.flush()
        sys.stderr.flush()
        # The children share the imported objects: keep the collector from
        # touching (and so copying) them in every child.
        gc.freeze()
        self.channel.send({"ready": True, "pid": self.pid, "files": self.files()})

    def files(self):
        """The source files the tool's import read, to notice edits."""
        directory = os.path.dirname(self.target["file"])
        found = {self.target["file"]}
        for module in list(sys.modules.values()):
            path = getattr(module, "__file__", None)
            if isinstance(path, str) and path.startswith(directory + os.sep):
                found.add(path)
        return sorted(found)

    def serve(self):
        self.spare = None
        self.calls = 0
        self.prepare()
        while True:
            message, fds = self.channel.receive()
            if message is None:
                self.stop()
            if message.get("op") == "call":
                self.assign(message, fds)
                if self.spare is None:
                    self.prepare()
            elif message.get("op") == "reap":
                self.channel.send(self.reap(message["pid"]))
            else:
                for fd in fds:
                    os.close(fd)
                self.channel.send({"error": f"unknown message {message!r}"})

    def prepare(self):
        """Forks the child of the next call ahead of time: it confines
        itself to its own directory, then waits for its call."""
        self.calls += 1
        scratch = os.path.join(self.root, f"call-{self.calls}")
        try:
            os.mkdir(scratch, 0o700)
            ours, theirs = socket.socketpair()
            pid = os.fork()
        except OSError as error:
            self.spare = error
            return
        if pid == 0:
            ours.close()
            self.child(scratch, theirs)
        theirs.close()
        self.children.add(pid)
        try:
            # The child does the same; whichever runs first, the group
            # exists before toolc hears of the pid.
            os.setpgid(pid, pid)
        except OSError:
            pass
        self.spare = (pid, ours, scratch)

    def assign(self, message, fds):
        """Hands a call and its pipes to the spare child."""
        spare, self.spare = self.spare, None
        try:
            if len(fds) < 2:
                raise OSError("a call needs its stdout and stderr")
            if isinstance(spare, OSError):
                raise spare
            pid, sock, scratch = spare
            self.running.add(pid)
            with sock:
                socket.send_fds(sock, [json.dumps(message).encode() + b"\n"], fds)
            # toolc knows the child by this descriptor: the pid is this
            # server's PID namespace's, and means nothing to toolc.
            pidfd = os.pidfd_open(pid)
        except OSError as error:
            self.channel.send({"error": f"cannot start the call: {error}"})
        else:
            try:
                self.channel.send({"pid": pid, "dir": scratch}, [pidfd])
            finally:
                os.close(pidfd)
        finally:
            for fd in fds:
                os.close(fd)

    def reap(self, pid):
        if pid not in self.children:
            return {"error": f"{pid} is not a call of this server"}
        self.children.discard(pid)
        self.running.discard(pid)
        try:
            _, status = os.waitpid(pid, 0)
        except ChildProcessError as error:
            return {"error": f"cannot reap {pid}: {error}"}
        finally:
            if not self.running and self.pid == 1:
                self.sweep()
        code = os.waitstatus_to_exitcode(status)
        return {"signal": -code} if code < 0 else {"code": code}

    def sweep(self):
        """As process 1 of its PID namespace, with no call running: kills
        and reaps every other process of the namespace (what a call left
        behind, `setsid` daemons included) but the spare child."""
        keep = {self.pid}
        if isinstance(self.spare, tuple):
            keep.add(self.spare[0])
        for _ in range(1000):
            others = [int(name) for name in os.listdir("/proc") if name.isdigit()]
            others = [pid for pid in others if pid not in keep]
            if not others:
                return
            for pid in others:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
                try:
                    os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    pass  # not ours yet: its parent dies first
            time.sleep(0.001)

    def child(self, scratch, sock):
        """Runs one call; never returns."""
        try:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.setpgid(0, 0)
            _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            if os.getppid() != self.pid:
                os._exit(1)
            self.channel.sock.close()
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.close(null)
        except BaseException:  # noqa: BLE001 - no stream to report on
            os._exit(1)
        # Confined before the call arrives; a failure is its answer.
        try:
            self.confine(scratch)
            failure = None
        except SandboxError as error:
            failure = error
        try:
            message, fds = Channel(sock).receive()
            sock.close()
            if message is None or len(fds) < 2:
                os._exit(1)
            out, err, *cgroups = fds
            os.dup2(err, 2)
            os.close(err)
            response = os.fdopen(out, "w", encoding="utf-8")
        except BaseException:  # noqa: BLE001 - no stream to report on
            os._exit(1)
        request = message["request"]

        def run():
            if failure is not None:
                raise failure
            join(cgroups)
            limit(message.get("memory"))
            if self.error is not None:
                raise self.error
            return self.bootstrap["call"](self.module, request)

        self.bootstrap["answer"](response, run)
        os._exit(0)

    def confine(self, scratch):
        os.environ["TMPDIR"] = scratch
        tempfile = sys.modules.get("tempfile")
        if tempfile is not None:
            tempfile.tempdir = None
        if self.layer is not None:
            try:
                self.layer.apply(scratch)
            except (OSError, SandboxError) as error:
                raise SandboxError(f"cannot confine the call: {error}") from None

    def stop(self, *_):
        if os.getpid() != self.pid:
            os._exit(1)  # a child before it reset the handler
        for pid in self.children:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
        if self.root:
            shutil.rmtree(self.root, ignore_errors=True)
        os._exit(0)


def main():
    bootstrap = {"__name__": "toolc_bootstrap"}
    exec(compile(sys.argv[1], "toolc-bootstrap", "exec"), bootstrap)
    channel = Channel(socket.socket(fileno=0))
    # The import's prints go to the server's log, never to a call's stdout.
    os.dup2(2, 1)
    config, _ = channel.receive()
    if config is None:
        os._exit(0)
    server = Server(bootstrap, channel, config)
    server.start()
    # After the import, so that the tool cannot have replaced it.
    signal.signal(signal.SIGTERM, server.stop)
    server.serve()


main()
