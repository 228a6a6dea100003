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
    "SandboxConfig",
    "BACKENDS",
]


def make_sandbox(backend: str | Sandbox = "local", *, limits: SandboxLimits | None = None, **options: Any) -> Sandbox:
    """Build (not start) a sandbox by backend name, or pass an existing :class:`Sandbox` through unchanged.

    Options go to the backend: local takes ``unsafe_no_isolation``; docker takes ``image``, ``base_url``
    (validated by :class:`SandboxConfig`). Raises SandboxError for an unknown backend name, an option the
    backend does not take, or a bad limit.
    """
    if isinstance(backend, Sandbox):
        if limits is not None or options:
            raise SandboxError("limits/options cannot be applied to an already built sandbox instance")
        return backend
    return SandboxConfig.build(backend, limits=limits, **options).make()
