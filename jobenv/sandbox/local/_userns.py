"""Who a local sandbox runs as on the host: never root.

Not root, or root of a user namespace whose root is not its parent's (a rootless container): bubblewrap maps the
sandbox's users to the caller's own uid, an unprivileged one on the host. Root of a namespace that maps host root but
not the sandbox range (``unshare -U -r`` run by root) is refused: there the sandbox could only be host root.

Root: one user namespace per jobenv process maps host uid 0 (so that bubblewrap can set up the mounts, whatever
the permissions of the directories it binds, e.g. an interpreter under ``/root``) and the range
``[BASE, BASE + SPAN)`` of uids that belong to no account. Each sandbox gets two uids of that range: its PID 1
switches to the first before it says ready (keeping only ``CAP_KILL``, ``CAP_SETUID``, ``CAP_SETGID`` and
``CAP_SETPCAP`` inside the namespace, which it needs to start and end commands), and every command runs as the second with no capability and an
empty bounding set. So no process of a sandbox is host root once it runs anything; ``/proc/sys`` and every other
root-owned knob is out of a command's reach, PID 1's ``/proc`` files (owned by the namespace's root while it is
non-dumpable) cannot be written by a command, and per-uid limits (``RLIMIT_NPROC``) count one sandbox only.

Uids are chosen from the process id and a counter (:func:`sandbox_ids`), so sandboxes of one process never share
one and those of different processes rarely do; sandboxes are also apart in every namespace, so a shared uid
would not let one reach another.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

from ... import settings
from ...errors import SandboxUnavailableError
from ._spawn import unavailable_error

__all__ = ["BASE", "SPAN", "shared_userns", "sandbox_ids"]

BASE = 0x10000000
SPAN = 1 << 24
_STATE: dict[str, int] = {}
_LOCK = threading.Lock()

_HOLDER = (
    "import ctypes, sys\n"
    "if ctypes.CDLL(None, use_errno=True).unshare(0x10000000) != 0:\n"  # CLONE_NEWUSER
    "    sys.stdout.write('fail %d\\n' % ctypes.get_errno()); sys.exit(1)\n"
    "sys.stdout.write('ready\\n'); sys.stdout.flush(); sys.stdin.read()\n"
)


def _forget_after_fork() -> None:
    global _LOCK
    _LOCK = threading.Lock()  # the namespace fd is inherited and still valid; only the lock may be held


os.register_at_fork(after_in_child=_forget_after_fork)


def shared_userns() -> int | None:
    """An fd of this process's sandbox user namespace when running as root (made once), else None.

    SandboxUnavailableError when the kernel refuses to make it.
    """
    if os.geteuid() != 0:
        return None
    extents = _uid_map()
    if not any(inside == 0 and outside == 0 for inside, outside, _ in extents):
        return None  # root of a namespace whose root is not the parent's (a rootless container): no host root
    with _LOCK:
        fd = _STATE.get("fd")
        if fd is not None:
            return fd
        fd = _make()
        _STATE["fd"] = fd
        return fd


def _uid_map() -> list[tuple[int, int, int]]:
    """(inside, outside, count) extents of this process's user namespace (the host's: ``0 0 4294967295``)."""
    try:
        with open("/proc/self/uid_map") as f:
            return [(int(a), int(b), int(c)) for a, b, c in (line.split() for line in f if line.strip())]
    except (OSError, ValueError):
        return []


def _make() -> int:
    holder = subprocess.Popen([sys.executable, "-I", "-S", "-c", _HOLDER], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=settings.child_env())
    try:
        assert holder.stdout is not None
        line = holder.stdout.readline().decode().strip()
        if line != "ready":
            raise unavailable_error(f"cannot create the sandbox user namespace ({line or 'no answer'})", None)
        mapping = f"0 0 1\n{BASE} {BASE} {SPAN}\n"
        try:
            for name in ("uid_map", "gid_map"):
                with open(f"/proc/{holder.pid}/{name}", "w") as f:
                    f.write(mapping)
            return os.open(f"/proc/{holder.pid}/ns/user", os.O_RDONLY | os.O_CLOEXEC)
        except OSError as exc:
            # e.g. root of a namespace that maps host root but not this range (`unshare -U -r` run by root)
            raise SandboxUnavailableError(
                f"cannot map the uid range sandboxes run as ({BASE}..{BASE + SPAN - 1}: {exc.strerror}); without "
                "it sandbox commands would be host root. Run jobenv as a normal user, in the host's user namespace, "
                "or in a namespace that maps that range too.") from None
    finally:
        if holder.stdin is not None:
            holder.stdin.close()
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()


def sandbox_ids(counter: int) -> tuple[int, int]:
    """(PID 1's uid, the commands' uid) of the sandbox numbered ``counter`` in this process (gids are equal)."""
    slot = ((os.getpid() % 2048) << 12) | (counter % 4096)
    first = BASE + 2 * slot
    return first, first + 1
