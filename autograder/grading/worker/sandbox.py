"""Confining a worker process: namespaces, an allow-list file system, rlimits, an unprivileged uid.

As root, a worker gets new mount, network, IPC and UTS namespaces (its pid namespace is made by
its parent), then a chroot into a tmpfs that holds only bind mounts, read-only, of what Python
needs (system libraries, the standard library, site-packages) plus a size-capped tmpfs at /tmp.
Paths under /root stay reachable because the chroot's own /root is a plain 0755 folder: the
host's 0700 /root is never traversed. Where the kernel refuses namespaces (Docker's default
seccomp profile), the worker still drops to an unprivileged uid, and the secrets are protected
by their file modes (root-only in the image).
"""
from __future__ import annotations

import ctypes
import errno
import os
import resource
import signal
import socket
import sys
import sysconfig
import time
from dataclasses import dataclass, field
from pathlib import Path

from autograder import settings

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS = 1, 38
SANDBOX_ROOT = "/run/attnkit-sandbox"
UID_BASE = 200_000
SYSTEM_DIRS = ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/etc")
DEVICES = ("null", "zero", "full", "random", "urandom")

_libc = ctypes.CDLL(None, use_errno=True)

try:  # libseccomp through ctypes; loaded here, in the template, before any chroot hides ldconfig
    import pyseccomp
except (ImportError, RuntimeError, OSError):  # not Linux, or no libseccomp.so.2 installed
    pyseccomp = None  # type: ignore[assignment]


@dataclass(frozen=True)
class SandboxConfig:
    """Limits for one worker. Sizes in bytes, times in seconds."""

    memory_bytes: int = settings.WORKER_MEMORY_BYTES
    group_memory_bytes: int = settings.WORKER_GROUP_MEMORY_BYTES
    cpu_seconds: int = settings.WORKER_CPU_SECONDS
    max_processes: int = settings.WORKER_PROCESSES
    max_file_bytes: int = settings.WORKER_FILE_BYTES
    max_open_files: int = settings.WORKER_OPEN_FILES
    scratch_bytes: int = settings.WORKER_SCRATCH_BYTES
    output_bytes: int = settings.WORKER_OUTPUT_BYTES
    isolate: bool = True  # namespaces + chroot + uid drop when running as root
    hidden: tuple[str, ...] = ()  # folders the worker must never see (checked against the allow-list)
    extra_paths: tuple[str, ...] = field(default_factory=tuple)

    def to_json(self) -> dict:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in self.__dict__.items()}

    @classmethod
    def from_json(cls, data: dict) -> SandboxConfig:
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in data.items()})


class SandboxError(OSError):
    pass


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise SandboxError(errno, f"{what}: {os.strerror(errno)}")


def unshare(flags: int) -> None:
    _check(_libc.unshare(flags), "unshare")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    encode = lambda s: None if s is None else s.encode()  # noqa: E731
    _check(_libc.mount(encode(source), encode(target), encode(fstype), ctypes.c_ulong(flags), encode(data)), f"mount {target}")


def set_parent_death_signal() -> None:
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def is_root() -> bool:
    return os.geteuid() == 0


def python_paths() -> list[str]:
    """Folders the worker's Python may still need to read: stdlib, extensions, site-packages."""
    wanted = {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib")}
    wanted.add(os.path.join(sysconfig.get_paths()["stdlib"], "lib-dynload"))
    wanted.update(p for p in sys.path if p and Path(p).name in ("site-packages", "dist-packages"))
    wanted.update({sys.base_prefix, sys.base_exec_prefix} if not sys.base_prefix.startswith("/usr") else set())
    found = set()
    for path in wanted:
        for candidate in (path, os.path.realpath(path)):
            if os.path.isdir(candidate):
                found.add(candidate)
    return sorted(found)


def allowed_paths(config: SandboxConfig) -> list[str]:
    """The allow-list, minus anything that contains or equals a hidden folder."""
    hidden = [os.path.realpath(h) for h in config.hidden]
    paths = []
    for path in [*SYSTEM_DIRS, *python_paths(), *config.extra_paths]:
        real = os.path.realpath(path)
        if not os.path.exists(path):
            continue
        if any(h == real or h.startswith(real.rstrip("/") + "/") or real.startswith(h + "/") for h in hidden):
            continue
        paths.append(path)
    return paths


def _bind(source: str, root: str, devices: bool = False) -> None:
    target = root + os.path.realpath(source) if os.path.islink(source) else root + source
    if os.path.isdir(source):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        open(target, "a").close()
    mount(source, target, None, MS_BIND | MS_REC)
    mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | (0 if devices else MS_NODEV))
    if os.path.islink(source):
        link = root + source
        if not os.path.lexists(link):
            os.makedirs(os.path.dirname(link), exist_ok=True)
            os.symlink(os.readlink(source), link)


def enter_private_root(config: SandboxConfig, in_pid_namespace: bool) -> None:
    """New namespaces and a chroot into an allow-listed tmpfs (root only). Raises SandboxError."""
    paths = allowed_paths(config)
    unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS)
    forbid_sysv_shm()
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    os.makedirs(SANDBOX_ROOT, exist_ok=True)
    mount("tmpfs", SANDBOX_ROOT, "tmpfs", MS_NOSUID | MS_NODEV, "size=16m,mode=0755")
    # The scratch first: an allowed path under /tmp (a checkout's venv there) is bound on top of it.
    os.makedirs(SANDBOX_ROOT + "/tmp", exist_ok=True)
    mount("tmpfs", SANDBOX_ROOT + "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, f"size={config.scratch_bytes},mode=1777")
    for path in paths:
        _bind(path, SANDBOX_ROOT)
    os.makedirs(SANDBOX_ROOT + "/dev", exist_ok=True)
    for device in DEVICES:
        if os.path.exists(f"/dev/{device}"):
            _bind(f"/dev/{device}", SANDBOX_ROOT, devices=True)  # nodev would make them unopenable
    if in_pid_namespace:
        os.makedirs(SANDBOX_ROOT + "/proc", exist_ok=True)
        mount("proc", SANDBOX_ROOT + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    os.chroot(SANDBOX_ROOT)
    os.chdir("/tmp")


SHM_LIMITS = ("/proc/sys/kernel/shmmni", "/proc/sys/kernel/shmall", "/proc/sys/kernel/shmmax")


def forbid_sysv_shm() -> bool:
    """No SysV shared memory in the worker's new IPC namespace: its limits (sysctls of that
    namespace, writable by root in it, before the chroot hides /proc) set to 0, so shmget fails
    (EINVAL/ENOSPC). A segment is memory outside RLIMIT_AS that outlives its maps (qa21h c09: 4
    GiB through ctypes under a 2 GiB limit). False where /proc/sys is not writable (a read-only
    /proc in a container): then the namespace keeps the kernel's defaults, as before. POSIX shared
    memory needs /dev/shm, which the private root does not have."""
    try:
        for path in SHM_LIMITS:
            with open(path, "w") as limit:
                limit.write("0")
    except OSError:
        return False
    return True


MEMORY_GROUP_PREFIX = "attnkit-worker-"  # then the keeper's pid
CGROUP_ROOT = Path("/sys/fs/cgroup")


class MemoryGroup:
    """A memory cgroup of one worker's own (made by its keeper, as root): every process the worker
    starts is in it, and together they may hold `limit` bytes. RLIMIT_AS bounds each process
    alone: 64 processes of 2 GiB each are more than a machine has (qa21h c02). Past the limit the
    kernel's OOM killer stops a process of the group, never one outside it. cgroup v1's memory
    controller, or v2's where it is delegated to this process's cgroup; elsewhere (Docker's
    read-only /sys/fs/cgroup: the container's own --memory bounds it) there is none."""

    def __init__(self, path: Path, version: int) -> None:
        self.path, self.version = path, version

    @classmethod
    def make(cls, limit: int) -> MemoryGroup | None:
        """Make this process's group, bounded to `limit` bytes, and move this process into it."""
        place = _memory_cgroup()
        if place is None:
            return None
        parent, version = place
        _remove_stale_groups(parent)
        group = cls(parent / f"{MEMORY_GROUP_PREFIX}{os.getpid()}", version)
        try:
            try:
                group.path.mkdir()
            except FileExistsError:  # a group a keeper of the same pid left behind
                group.path.rmdir()
                group.path.mkdir()
            files = {"memory.limit_in_bytes": str(limit), "memory.memsw.limit_in_bytes": str(limit)} if version == 1 else {"memory.max": str(limit), "memory.swap.max": "0"}
            for index, (name, value) in enumerate(files.items()):
                if index == 0 or (group.path / name).exists():  # swap is bounded where the kernel accounts it
                    (group.path / name).write_text(value)
            (group.path / "cgroup.procs").write_text(str(os.getpid()))
        except OSError:
            group.remove()
            return None
        return group

    def out_of_memory(self) -> bool:
        """Whether the OOM killer stopped a process of the group."""
        try:
            text = (self.path / ("memory.oom_control" if self.version == 1 else "memory.events")).read_text()
        except OSError:
            return False
        return any(line.split()[:1] == ["oom_kill"] and line.split()[1] != "0" for line in text.splitlines())

    def remove(self, seconds: float = 2.0) -> None:
        """Leave the group and remove it, killing what is still in it (a pid namespace's processes
        die after its first one, not with it)."""
        try:
            (self.path.parent / "cgroup.procs").write_text(str(os.getpid()))
        except OSError:
            pass
        deadline = time.monotonic() + seconds
        while True:
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                if time.monotonic() > deadline:
                    return  # left for the next group made beside it (_remove_stale_groups)
            for pid in set(_pids_in(self.path)) - {os.getpid()}:  # itself, where it could not leave
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.005)


def _memory_cgroup() -> tuple[Path, int] | None:
    """This process's memory cgroup folder and its version, where children can be made in it."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        number, controllers, path = line.split(":", 2)
        if "memory" in controllers.split(","):
            folder = CGROUP_ROOT / "memory" / path.lstrip("/")
            return (folder, 1) if (folder / "memory.limit_in_bytes").is_file() and os.access(folder, os.W_OK) else None
    for line in lines:
        number, controllers, path = line.split(":", 2)
        if number == "0" and not controllers:
            folder = CGROUP_ROOT / path.lstrip("/")
            try:
                delegated = "memory" in (folder / "cgroup.subtree_control").read_text().split()
            except OSError:
                return None
            return (folder, 2) if delegated and os.access(folder, os.W_OK) else None
    return None


def _remove_stale_groups(parent: Path) -> None:
    """Remove the groups of keepers that are gone (killed before they removed their own)."""
    try:
        names = [entry.name for entry in parent.iterdir() if entry.name.startswith(MEMORY_GROUP_PREFIX)]
    except OSError:
        return
    for name in names:
        keeper = name[len(MEMORY_GROUP_PREFIX):]
        if keeper.isdigit() and not Path(f"/proc/{keeper}").exists():
            try:
                (parent / name).rmdir()
            except OSError:
                pass  # a process of it still runs


def _pids_in(group: Path) -> list[int]:
    try:
        return [int(pid) for pid in (group / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def protect_from_oom() -> None:
    """This process is never the OOM killer's choice (a keeper, as root: the worker's processes are)."""
    try:
        Path("/proc/self/oom_score_adj").write_text("-1000")
    except OSError:
        pass


def apply_limits(config: SandboxConfig, current: int) -> None:
    """rlimits: address space (`current` size + the memory limit), CPU, processes, files."""
    limits = {
        resource.RLIMIT_AS: current + config.memory_bytes,
        resource.RLIMIT_CPU: config.cpu_seconds,
        resource.RLIMIT_FSIZE: config.max_file_bytes,
        resource.RLIMIT_NOFILE: config.max_open_files,
        resource.RLIMIT_CORE: 0,
    }
    if is_root():  # RLIMIT_NPROC counts every process of the uid: only meaningful for a fresh uid
        limits[resource.RLIMIT_NPROC] = config.max_processes
    for kind, value in limits.items():
        soft, hard = resource.getrlimit(kind)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        hard_value = value + 5 if kind == resource.RLIMIT_CPU and hard == resource.RLIM_INFINITY else value
        resource.setrlimit(kind, (value, hard_value))


def vm_size() -> int:
    """This process's address-space size (read before a chroot hides /proc)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    return 0


def refuse_network() -> None:
    """A seccomp filter: from now on this process and its children get EACCES for every socket
    but a local (AF_UNIX) one, and cannot open io_uring (which can create sockets).

    The worker's own socketpair is already open, so it keeps working. This is what keeps student
    code off the network where the kernel refuses a network namespace (Docker's default seccomp
    profile, Gradescope). Syscalls of any other architecture (32-bit `socketcall`) kill the
    process: libseccomp's default for a foreign architecture. Raises SandboxError when the
    filter cannot be installed.
    """
    if pyseccomp is None:
        raise SandboxError(0, "seccomp filter: the pyseccomp package or libseccomp.so.2 is missing (pip install pyseccomp==0.1.2; apt-get install libseccomp2)")
    try:
        refusal = pyseccomp.ERRNO(errno.EACCES)
        rules = pyseccomp.SyscallFilter(defaction=pyseccomp.ALLOW)  # sets no_new_privs on load
        for call in ("socket", "socketpair"):
            rules.add_rule(refusal, call, pyseccomp.Arg(0, pyseccomp.NE, socket.AF_UNIX))
        rules.add_rule(pyseccomp.ERRNO(errno.EPERM), "io_uring_setup")
        rules.load()
    except OSError as error:
        raise SandboxError(error.errno or 0, f"seccomp filter: {error.strerror or error}") from error


def drop_privileges(uid: int) -> None:
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    set_parent_death_signal()  # credentials changed: the kernel cleared it


def kill_uid(uid: int) -> int:
    """SIGKILL every process whose real uid is `uid` (root only). Returns how many were found."""
    found = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("Uid:") and int(line.split()[1]) == uid:
                found += 1
                try:
                    os.kill(int(entry.name), signal.SIGKILL)
                except OSError:
                    pass
    return found
