"""Starting a local sandbox off the event loop, and what a failed start means."""

from __future__ import annotations

import concurrent.futures
import json
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

from ... import settings
from ...errors import SandboxError, SandboxUnavailableError
from . import _mounts

__all__ = ["spawner", "verify_started", "unavailable_error", "launch", "Launched", "wait_ready"]

_SPAWNER: concurrent.futures.ThreadPoolExecutor | None = None
_SPAWNER_LOCK = threading.Lock()


def _forget_after_fork() -> None:
    # a forked child (gymnasium's async vector envs, multiprocessing) has none of the parent's threads: an
    # executor inherited from the parent would queue work that no thread ever runs
    global _SPAWNER, _SPAWNER_LOCK
    _SPAWNER = None
    _SPAWNER_LOCK = threading.Lock()


os.register_at_fork(after_in_child=_forget_after_fork)


def spawner() -> concurrent.futures.ThreadPoolExecutor:
    """The process-wide threads that fork sandboxes. Never shut down early: ``--die-with-parent`` ties a sandbox
    to the thread that forked it, and these threads live as long as the process."""
    global _SPAWNER
    with _SPAWNER_LOCK:
        if _SPAWNER is None:
            _SPAWNER = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="jobenv-spawn")
        return _SPAWNER


def protect_from_oom(pid: int) -> None:
    """Best effort (needs root): the controller is never the OOM killer's choice; its commands are (score 1000)."""
    try:
        with open(f"/proc/{pid}/oom_score_adj", "w") as f:
            f.write("-1000")
    except OSError:
        pass


def verify_started(agent_pid: int, root: str, plan: _mounts.MountPlan, task_folder: Path | None) -> None:
    """After launch: shield the controller from the OOM killer and refuse a sandbox that shows host-only paths
    (SandboxError naming the path)."""
    protect_from_oom(agent_pid)
    _mounts.check_invisible(root, [*plan.host_only, *_mounts.task_host_only(task_folder)], list(plan.sources),
                            dict(plan.reals))


def unavailable_error(err: str, rc: int | None) -> SandboxError:
    """The error for a launch that failed with ``err`` (bwrap's message) and exit status ``rc``."""
    low = err.lower()
    if any(s in low for s in ("namespace", "uid map", "permission denied", "operation not permitted")):
        return SandboxUnavailableError(
            f"bubblewrap could not create the sandbox namespaces ({err or f'exit {rc}'}). The host must allow "
            "unprivileged user namespaces: e.g. `sysctl -w kernel.unprivileged_userns_clone=1`, "
            "`sysctl -w user.max_user_namespaces=15000`, or on Ubuntu 24.04+ "
            "`sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`; inside Docker run with "
            "--security-opt seccomp=unconfined --security-opt apparmor=unconfined (or --privileged). "
            "Alternatively use sandbox='docker', or (never for untrusted code) "
            "make_sandbox('local', unsafe_no_isolation=True)."
        )
    return SandboxError(f"the sandbox failed to start: {err or f'bwrap exited with {rc}'}")



class Launched:
    """A process started by :func:`launch`: what the sandbox needs of a ``Popen`` (thread-safe ``poll``)."""

    def __init__(self, pid: int, stdin_fd: int, stderr_fd: int) -> None:
        self.pid = pid
        self.stdin = os.fdopen(stdin_fd, "wb")
        self.stderr = os.fdopen(stderr_fd, "rb")
        self.returncode: int | None = None
        self._lock = threading.Lock()

    def poll(self) -> int | None:
        with self._lock:
            if self.returncode is None:
                try:
                    pid, status = os.waitpid(self.pid, os.WNOHANG)
                except ChildProcessError:  # reaped elsewhere (a SIGCHLD handler set to ignore): gone all the same
                    pid, status = self.pid, signal.SIGKILL
                if pid:
                    self.returncode = os.waitstatus_to_exitcode(status)
            return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """The exit status; ``subprocess.TimeoutExpired`` after ``timeout`` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        delay = 0.0005
        while (rc := self.poll()) is None:
            if deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(str(self.pid), timeout or 0.0)
            time.sleep(delay)
            delay = min(delay * 2, 0.02)
        return rc

    def kill(self) -> None:
        if self.poll() is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def launch(argv_for: Callable[[list[int]], list[str]], fds: list[int]) -> Launched:
    """Start ``argv_for(child_fds)`` with ``fds`` given to the child as 3, 4, ... (``child_fds``), a pipe on its
    stdin, /dev/null on stdout and a pipe on stderr. Close-on-exec descriptors (Python's default) stay out; an
    inheritable one of this process reaches the child, so the program must close what it does not know (the
    native controller's ``--launch`` mode does, then runs bwrap). OSError when the process cannot be started.

    Why not ``subprocess.Popen(pass_fds=...)``: with two adjacent descriptors to keep, CPython 3.11 falls back
    to closing the child's descriptors one by one through ``/proc/self/fd``, so a start cost grew with the
    descriptors this process holds (14 ms with 1,500 live sandboxes, 40 ms with 3,000). Here the descriptors
    move through temporaries above every source, so no move clobbers one.
    """
    in_r, in_w = os.pipe2(os.O_CLOEXEC)
    err_r, err_w = os.pipe2(os.O_CLOEXEC)
    null = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
    try:
        sources = [in_r, null, err_w, *fds]
        targets = [0, 1, 2, *range(3, 3 + len(fds))]
        base = max(sources + targets + [in_w, err_r]) + 1
        temps = list(range(base, base + len(sources)))
        actions: list[tuple[int, ...]] = [(os.POSIX_SPAWN_DUP2, src, tmp) for src, tmp in zip(sources, temps)]
        actions += [(os.POSIX_SPAWN_DUP2, tmp, dst) for tmp, dst in zip(temps, targets)]
        actions += [(os.POSIX_SPAWN_CLOSE, tmp) for tmp in temps]
        argv = argv_for(targets[3:])
        pid = os.posix_spawn(argv[0], argv, settings.child_env(), file_actions=actions)
    except BaseException:
        for fd in (in_w, err_r):
            os.close(fd)
        raise
    finally:
        for fd in (in_r, err_w, null):
            os.close(fd)
    return Launched(pid, in_w, err_r)


def wait_ready(proc: Launched | subprocess.Popen[bytes], st_r: int, info_r: int, timeout: float = 15.0) -> int:
    """Block until a launched sandbox's controller says ``ready``; its PID 1's host pid (from bwrap's info pipe).

    Always closes ``info_r`` and bwrap's stderr. SandboxUnavailableError or SandboxError (with bwrap's message) when the
    launch failed or nothing came within ``timeout`` seconds.
    """
    try:
        return _wait_ready(proc, st_r, info_r, timeout)
    finally:
        os.close(info_r)
        if proc.stderr is not None:
            proc.stderr.close()


def _readable(fd: int, timeout: float) -> bool:
    # poll, not select: select refuses descriptors from 1024 up, which a process with many sandboxes holds
    watch = select.poll()
    watch.register(fd, select.POLLIN)
    return bool(watch.poll(max(0, int(timeout * 1000))))


def _wait_ready(proc: Launched | subprocess.Popen[bytes], st_r: int, info_r: int, timeout: float) -> int:
    line = b""
    deadline = time.monotonic() + timeout
    while b"\n" not in line:
        left = deadline - time.monotonic()
        if left <= 0 or not _readable(st_r, left):
            break
        chunk = os.read(st_r, 256)
        if not chunk:
            break
        line += chunk
    text = line.split(b"\n", 1)[0].decode("utf-8", "replace")
    if not text.startswith("ready"):
        err = b""
        try:
            proc.wait(timeout=2)
            err = proc.stderr.read() if proc.stderr else b""
        except Exception:
            pass
        raise unavailable_error(text if text.startswith("fail") else err.decode("utf-8", "replace").strip(),
                                proc.returncode)
    info = b""
    os.set_blocking(info_r, False)
    try:
        while chunk := os.read(info_r, 4096):
            info += chunk
    except BlockingIOError:
        pass
    try:
        return int(json.loads(info.decode())["child-pid"])
    except Exception:
        raise SandboxError(f"bwrap did not report the sandbox pid (info: {info[:200]!r})") from None
