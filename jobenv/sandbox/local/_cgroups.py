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


def setup_cgroups(name: str, limits: SandboxLimits) -> tuple[list[str], list[int]]:
    """Best effort: per-sandbox v1 cgroups for pids, memory and cpu. Returns (dirs, open cgroup.procs fds)."""
    if os.geteuid() != 0 or not os.path.isdir(os.path.join(CGROUP_ROOT, "pids")):
        return [], []
    own = own_cgroup_paths()
    mem = limits.memory_mb * 1024 * 1024
    wanted: dict[str, list[tuple[str, str]]] = {
        "pids": [("pids.max", str(limits.pids))],
        "memory": [("memory.limit_in_bytes", str(mem)), ("memory.memsw.limit_in_bytes", str(mem))],
        "cpu": [("cpu.cfs_period_us", "100000"), ("cpu.cfs_quota_us", str(int(limits.cpus * 100000)))],
    }
    dirs: list[str] = []
    fds: list[int] = []
    for ctrl, files in wanted.items():
        base = os.path.join(CGROUP_ROOT, ctrl)
        if not os.path.isdir(base):
            continue
        d = os.path.join(base + own.get(ctrl, "/"), "jobenv", name)
        try:
            os.makedirs(d)
        except OSError:
            continue
        ok = True
        for fname, value in files:
            try:
                with open(os.path.join(d, fname), "w") as f:
                    f.write(value)
            except FileNotFoundError:
                continue  # e.g. memsw without swap accounting
            except OSError:
                ok = False
                break
        if not ok:
            rmdir_quiet(d)
            continue
        try:
            fds.append(os.open(os.path.join(d, "cgroup.procs"), os.O_WRONLY | os.O_CLOEXEC))
        except OSError:
            rmdir_quiet(d)
            continue
        dirs.append(d)
    return dirs, fds


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
                if rmdir_quiet(d):
                    removed += 1
                    if verbose:
                        print(f"removed cgroup {d}")
    return removed
