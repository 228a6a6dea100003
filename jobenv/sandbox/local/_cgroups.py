"""Per-sandbox cgroup-v1 controllers (pids, memory, cpu) of the local backend, and their garbage collection.

``RLIMIT_NPROC`` is not enforced for the host's root user, so when jobenv runs as root on a cgroup-v1 host each
sandbox gets its own ``pids``, ``memory`` and ``cpu`` cgroups; the controller moves itself in before it reads the
first command. Best effort: where cgroups cannot be made only the rlimits apply.
"""

from __future__ import annotations

import os

from ..base import SandboxLimits
from ..gc import owner_alive

__all__ = ["CGROUP_ROOT", "SANDBOX_PREFIX", "own_cgroup_paths", "setup_cgroups", "rmdir_quiet", "cgroup_parents",
           "gc_local", "memory_unbounded_message"]

SANDBOX_PREFIX = "jobenv-"  # of every sandbox id, and so of its cgroup directories

CGROUP_ROOT = "/sys/fs/cgroup"
CONTROLLERS = ("pids", "memory", "cpu")


def own_cgroup_paths() -> dict[str, str]:
    out: dict[str, str] = {}
    try:
        with open("/proc/self/cgroup") as f:
            for line in f:
                _, ctrls, path = line.rstrip("\n").split(":", 2)
                for c in ctrls.split(","):
                    if c:
                        out[c] = path
    except OSError:
        pass
    return out


CONTROLLER_RESERVE = 32 << 20  # bytes PID 1 may use beside its commands' limit (a Python controller: ~10 MB)


def setup_cgroups(name: str, limits: SandboxLimits) -> tuple[list[str], list[int], list[int]]:
    """Best effort: per-sandbox v1 cgroups for pids, memory and cpu. Returns (dirs, cgroup.procs fds PID 1 joins,
    cgroup.procs fds each command joins).

    Memory has a child cgroup for the commands: the limit of ``memory_mb`` applies to them, PID 1 stays in the parent
    (``memory_mb`` plus a small reserve), so a memory-cgroup OOM in the sandbox can only kill commands, never PID 1,
    whatever the commands do to their scores. ``dirs`` lists children before parents (the order of removal).
    """
    if os.geteuid() != 0 or not os.path.isdir(os.path.join(CGROUP_ROOT, "pids")):
        return [], [], []
    own = own_cgroup_paths()
    mem = limits.memory_mb * 1024 * 1024
    wanted: dict[str, list[tuple[str, str]]] = {
        "pids": [("pids.max", str(limits.pids))],
        "memory": [("memory.limit_in_bytes", str(mem + CONTROLLER_RESERVE)),
                   ("memory.memsw.limit_in_bytes", str(mem + CONTROLLER_RESERVE))],
        "cpu": [("cpu.cfs_period_us", "100000"), ("cpu.cfs_quota_us", str(int(limits.cpus * 100000)))],
    }
    dirs: list[str] = []
    fds: list[int] = []
    command_fds: list[int] = []
    for ctrl, files in wanted.items():
        base = os.path.join(CGROUP_ROOT, ctrl)
        if not os.path.isdir(base):
            continue
        d = _make(os.path.join(base + own.get(ctrl, "/"), "jobenv", name), files)
        if d is None:
            continue
        if ctrl == "memory":
            cmds = _make(os.path.join(d, "commands"), [("memory.limit_in_bytes", str(mem)),
                                                       ("memory.memsw.limit_in_bytes", str(mem))])
            if cmds is None:
                rmdir_quiet(d)
                continue
            command_fds.append(os.open(os.path.join(cmds, "cgroup.procs"), os.O_WRONLY | os.O_CLOEXEC))
            dirs.append(cmds)
        fds.append(os.open(os.path.join(d, "cgroup.procs"), os.O_WRONLY | os.O_CLOEXEC))
        dirs.append(d)
    return dirs, fds, command_fds


def _make(d: str, files: list[tuple[str, str]]) -> str | None:
    """Make cgroup ``d`` and write its limits; None (and nothing left behind) when any step fails."""
    try:
        os.makedirs(d)
    except OSError:
        return None
    for fname, value in files:
        try:
            with open(os.path.join(d, fname), "w") as f:
                f.write(value)
        except FileNotFoundError:
            continue  # e.g. memsw without swap accounting
        except OSError:
            rmdir_quiet(d)
            return None
    if not os.path.exists(os.path.join(d, "cgroup.procs")):
        rmdir_quiet(d)
        return None
    return d


def memory_unbounded_message() -> str:
    """Why a local sandbox was refused for want of a memory cgroup, and the explicit way past it."""
    who = "jobenv is not running as root" if os.geteuid() != 0 else "this host has no cgroup-v1 memory controller"
    return (f"refusing to start a local sandbox without a memory bound: {who}, so no per-sandbox memory cgroup can "
            "be made, and per-process limits do not bound shared memory. Run jobenv as root on a cgroup-v1 host, "
            "use sandbox='docker', or accept an unbounded sandbox explicitly with "
            "SandboxLimits(unsafe_unbounded_memory=True).")


def rmdir_quiet(d: str) -> bool:
    try:
        os.rmdir(d)
        return True
    except FileNotFoundError:
        return True
    except OSError:
        return False


def cgroup_parents() -> list[str]:
    """The directories under which this process makes its sandboxes' cgroups (for ``jobenv gc``)."""
    own = own_cgroup_paths()
    return [os.path.join(os.path.join(CGROUP_ROOT, c) + own.get(c, "/"), "jobenv") for c in CONTROLLERS]


def gc_local(verbose: bool = True) -> int:
    """Remove the cgroup directories of jobenv processes that are gone (temp dirs: :func:`..gc.gc_host`)."""
    removed = 0
    for parent in cgroup_parents():
        if not os.path.isdir(parent):
            continue
        for name in os.listdir(parent):
            d = os.path.join(parent, name)
            if name.startswith(SANDBOX_PREFIX) and not owner_alive(name, d):
                rmdir_quiet(os.path.join(d, "commands"))
                if rmdir_quiet(d):
                    removed += 1
                    if verbose:
                        print(f"removed cgroup {d}")
    return removed
