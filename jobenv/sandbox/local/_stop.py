"""Stopping a local sandbox: kill its PID 1 (the kernel then ends the whole PID namespace), wait for bwrap to exit
and free the pipes, cgroups and temp dirs. Nothing here raises."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import time
from typing import Any

from .. import _net
from ._cgroups import rmdir_quiet

__all__ = ["stop", "teardown"]


def _kill(state: dict[str, Any]) -> None:
    """SIGKILL the sandbox's PID 1: the kernel then kills the whole PID namespace and bwrap exits by itself."""
    pid = state.get("agent_pid")
    proc = state.get("proc")
    target = pid or (proc.pid if proc is not None else None)
    if target:
        try:
            os.kill(target, signal.SIGKILL)
        except OSError:
            pass
    if proc is not None and not pid:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # unsafe mode: the agent leads its own process group
        except OSError:
            pass


def teardown(state: dict[str, Any]) -> None:
    """Kill the sandbox and free everything. Sync, never raises; used by close, GC and atexit."""
    if state.get("closed"):
        return
    state["closed"] = True
    _kill(state)
    _net.stop(state)
    proc = state.get("proc")
    if proc is not None:
        try:
            proc.wait(timeout=2)
        except Exception:
            try:
                proc.kill()
                proc.wait(timeout=2)
            except Exception:
                pass
    for fd in state.get("fds", []):
        try:
            os.close(fd)
        except OSError:
            pass
    state["fds"] = []
    if proc is not None and proc.stdin is not None:
        try:
            proc.stdin.close()
        except OSError:
            pass
    dirs = list(state.get("cgroups", []))
    deadline = time.monotonic() + 1.0
    while dirs and time.monotonic() < deadline:
        dirs = [d for d in dirs if not rmdir_quiet(d)]
        if dirs:
            time.sleep(0.005)
    state["cgroups"] = dirs  # what is left here (rare) is removed by `jobenv gc`
    if state.get("tmpdir"):
        shutil.rmtree(state["tmpdir"], ignore_errors=True)


async def stop(state: dict[str, Any]) -> None:
    """Kill the sandbox and free everything on a worker thread: reaping a sandbox and removing its cgroups are
    system calls of ~1 ms in all, which thousands of sandboxes closing at once would otherwise run back to back on
    the event loop (300 at once stalled it ~340 ms)."""
    if state.get("closed") or state.get("proc") is None:
        return
    await asyncio.to_thread(teardown, state)
