"""Sandboxes: where an episode's commands run. ``make_sandbox("local" | "docker" | instance, limits=..., **options)``.

* ``"local"`` (default): :class:`~jobenv.sandbox.local.LocalSandbox`, bubblewrap namespaces, a few tens of ms to start.
* ``"docker"``: :class:`~jobenv.sandbox.docker.DockerSandbox`, a container per episode (the ``docker`` SDK is
  imported only when this backend is used).

``make_sandbox`` returns a sandbox that is not started yet: ``await sb.start(task.task_folder)``. A start waits
for a slot of its backend's start gate on the running event loop (:meth:`Sandbox.start_gate`, sized by
:func:`start_slots`), so a burst of resets never starts more sandboxes at once than the machine can.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import SandboxError
from .base import WORKSPACE, CommandResult, FileEntry, Sandbox, SandboxLimits, cap_output, workspace_relpath
from .config import BACKENDS, SandboxConfig

__all__ = [
    "WORKSPACE",
    "CommandResult",
    "FileEntry",
    "Sandbox",
    "SandboxLimits",
    "cap_output",
    "workspace_relpath",
    "make_sandbox",
    "start_slots",
    "SandboxConfig",
    "BACKENDS",
    "cleanup_process_temp",
]


def make_sandbox(backend: str | Sandbox = "local", *, limits: SandboxLimits | None = None, **options: Any) -> Sandbox:
    """Build (not start) a sandbox by backend name, or pass an existing :class:`Sandbox` through unchanged.

    Options go to the backend: local takes ``unsafe_no_isolation``; docker takes ``image``, ``base_url``
    (validated by :class:`SandboxConfig`). Raises SandboxError for an unknown backend name, an option the
    backend does not take, or a bad limit; SandboxUnavailableError (naming the ``pip install``) for docker
    without the docker extra.
    """
    if isinstance(backend, Sandbox):
        if limits is not None or options:
            raise SandboxError("limits/options cannot be applied to an already built sandbox instance")
        return backend
    return SandboxConfig.build(backend, limits=limits, **options).make()


def start_slots(backend: str | Sandbox | Callable[[], Sandbox] = "local") -> int:
    """How many sandboxes of ``backend`` (a name, a sandbox class or instance, or a factory, as
    :class:`~jobenv.env.JobEnv` takes it) to start at once on this machine: the backend's
    :meth:`Sandbox.start_slots`. Another factory's backend is unknown until it runs, so it gets the base figure.
    Never raises (an unknown name gets the base figure too: building the env reports it)."""
    if isinstance(backend, Sandbox):
        return type(backend).start_slots()
    if isinstance(backend, type) and issubclass(backend, Sandbox):
        return backend.start_slots()
    if backend == "local":
        from .local import LocalSandbox

        return LocalSandbox.start_slots()
    return Sandbox.start_slots()  # docker (its SDK stays unimported) and factories


def cleanup_process_temp() -> None:
    """Remove this process's shared temp folders (the local sandbox's /etc copy). Servers call it on shutdown, after
    their sessions closed: a SIGTERM ends a process without running ``atexit``. Never raises."""
    import sys

    local = sys.modules.get(f"{__name__}.local")
    if local is not None:
        try:
            local.stop_warm_sandboxes()  # first: nothing may launch (and copy /etc again) while we clean up
            local.remove_etc_snapshot()
        except Exception:  # noqa: BLE001 - best effort at shutdown
            pass
