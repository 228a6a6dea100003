"""Sandboxes: where an episode's commands run. ``make_sandbox("local" | "docker" | instance, limits=..., **options)``.

* ``"local"`` (default): :class:`~jobenv.sandbox.local.LocalSandbox`, bubblewrap namespaces, ~10 ms to start.
* ``"docker"``: :class:`~jobenv.sandbox.docker.DockerSandbox`, a container per episode (the ``docker`` SDK is
  imported only when this backend is used).

``make_sandbox`` returns a sandbox that is not started yet: ``await sb.start(task.task_folder)``.
"""

from __future__ import annotations

from typing import Any

from ..errors import SandboxError
from .base import WORKSPACE, CommandResult, FileEntry, Sandbox, SandboxLimits, cap_output, workspace_relpath

__all__ = [
    "WORKSPACE",
    "CommandResult",
    "FileEntry",
    "Sandbox",
    "SandboxLimits",
    "cap_output",
    "workspace_relpath",
    "make_sandbox",
    "BACKENDS",
]

BACKENDS = ("local", "docker")


def make_sandbox(backend: "str | Sandbox" = "local", *, limits: SandboxLimits | None = None, **options: Any) -> Sandbox:
    """Build (not start) a sandbox by backend name, or pass an existing :class:`Sandbox` through unchanged.

    Options go to the backend: local takes ``unsafe_no_isolation``; docker takes ``image``, ``base_url``.
    Raises SandboxError for an unknown backend name or an option the backend does not take.
    """
    if isinstance(backend, Sandbox):
        if limits is not None or options:
            raise SandboxError("limits/options cannot be applied to an already built sandbox instance")
        return backend
    if isinstance(limits, dict):
        limits = SandboxLimits(**limits)
    try:
        if backend == "local":
            from .local import LocalSandbox

            return LocalSandbox(limits, **options)
        if backend == "docker":
            from .docker import DockerSandbox

            return DockerSandbox(limits, **options)
    except TypeError as exc:
        raise SandboxError(f"bad option for the {backend!r} sandbox: {exc}") from None
    raise SandboxError(f"unknown sandbox backend {backend!r}; choose one of {', '.join(BACKENDS)} or pass a Sandbox")
