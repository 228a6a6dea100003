"""Stopping a local sandbox: kill its PID 1 (the kernel then ends the whole PID namespace), wait for bwrap to exit
and free the pipes, cgroups and temp dirs. Nothing here raises."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
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


async def _exited(proc: subprocess.Popen[bytes], timeout: float) -> None:
    """Wait up to ``timeout`` for ``proc`` to exit, woken by its pidfd (one wakeup, not a poll every few ms
    for each of many closing sandboxes); polls where pidfds are missing."""
    if proc.poll() is not None:
        return
    try:
        fd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        fd = None
    if fd is not None:
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        def on_exit() -> None:
            if not done.done():
                done.set_result(None)

        loop.add_reader(fd, on_exit)
        try:
            await asyncio.wait_for(done, timeout)
        except TimeoutError:
            pass
        finally:
            loop.remove_reader(fd)
            os.close(fd)
        proc.poll()
        return
    deadline = time.monotonic() + timeout
    while proc.poll() is None and time.monotonic() < deadline:
        await asyncio.sleep(0.005)


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
    """Kill the sandbox and wait for it without blocking the event loop, so many sandboxes can close at once;
    :func:`teardown` (run next by the sandbox's finalizer) frees what is left."""
    proc = state.get("proc")
    if state.get("closed") or proc is None:
        return
    _kill(state)
    deadline = time.monotonic() + 2.0
    await _exited(proc, 2.0)
    dirs = list(state.get("cgroups", []))
    while dirs and time.monotonic() < deadline + 1.0:
        dirs = [d for d in dirs if not rmdir_quiet(d)]
        if dirs:
            await asyncio.sleep(0.01)
    state["cgroups"] = dirs
