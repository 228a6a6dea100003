"""Starting a local sandbox off the event loop, and what a failed start means."""

from __future__ import annotations

import concurrent.futures
import os
import threading
from pathlib import Path

from ...errors import SandboxError, SandboxUnavailableError
from . import _mounts

__all__ = ["spawner", "verify_started", "unavailable_error"]

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

