"""The sandbox protocol every backend implements, and the value types it returns.

A sandbox owns one ``/workspace`` holding ``task_folder/`` (a writable copy of the task's files) and an
empty ``output/``. Paths given to the file methods are relative to ``/workspace`` (absolute paths must
start with ``/workspace``); anything that would leave it raises :class:`WorkspacePathError`.
"""

from __future__ import annotations

import posixpath
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from .._aio import PrivateLoop
from ..errors import WorkspacePathError

__all__ = [
    "WORKSPACE",
    "CommandResult",
    "FileEntry",
    "SandboxLimits",
    "Sandbox",
    "workspace_relpath",
    "cap_output",
]

WORKSPACE = "/workspace"


class SandboxLimits(BaseModel):
    """Resource limits of one sandbox. Every field has a default a user may change."""

    timeout_s: float = Field(default=120.0, gt=0, description="default per-command timeout")
    max_timeout_s: float = Field(default=600.0, gt=0, description="cap on any per-command timeout")
    output_chars: int = Field(default=30_000, ge=1000, description="characters of output kept (head and tail)")
    memory_mb: int = Field(default=2048, ge=64)
    cpus: float = Field(default=2.0, gt=0)
    pids: int = Field(default=512, ge=16, description="processes and threads at once")
    file_size_mb: int = Field(default=1024, ge=1, description="largest single file a command may write")
    workspace_mb: int = Field(default=2048, ge=16, description="total size of /workspace")
    cpu_time_s: int = Field(default=3600, ge=1, description="CPU seconds per command")
    network: bool = Field(default=False, description="network access (off unless explicitly enabled)")

    def clamp_timeout(self, timeout: float | None) -> float:
        t = self.timeout_s if timeout is None else float(timeout)
        return max(0.001, min(t, self.max_timeout_s))


class CommandResult(BaseModel):
    """What one shell command produced. ``output`` is stdout and stderr interleaved, capped."""

    output: str
    exit_code: int
    timed_out: bool = False
    truncated: bool = False
    duration_s: float = 0.0


class FileEntry(BaseModel):
    """One entry under ``/workspace``; ``path`` is relative to it, POSIX style."""

    path: str
    type: Literal["file", "dir", "symlink", "other"]
    size: int = 0


def workspace_relpath(path: str) -> str:
    """Normalise a tool path to a POSIX path relative to ``/workspace`` ('' means the workspace itself).

    Raises WorkspacePathError for an absolute path outside ``/workspace`` or a ``..`` that climbs out.
    Symlinks are not resolved here; backends check them against the real file system.
    """
    if not isinstance(path, str) or "\x00" in path:
        raise WorkspacePathError(f"invalid path {path!r}")
    p = path.strip() or "."
    if p.startswith("/"):
        norm = posixpath.normpath(p)
        if norm == WORKSPACE:
            return ""
        if not norm.startswith(WORKSPACE + "/"):
            raise WorkspacePathError(f"path {path!r} is outside {WORKSPACE}: only files under {WORKSPACE} are reachable")
        return norm[len(WORKSPACE) + 1 :]
    norm = posixpath.normpath(p)
    if norm == ".." or norm.startswith("../"):
        raise WorkspacePathError(f"path {path!r} leaves {WORKSPACE}")
    return "" if norm == "." else norm


def cap_output(text: str, limit: int) -> tuple[str, bool]:
    """Keep the head and tail of ``text`` within ``limit`` characters, with a marker saying how much was cut."""
    if len(text) <= limit:
        return text, False
    head = limit * 2 // 3
    tail = limit - head
    cut = len(text) - head - tail
    return f"{text[:head]}\n\n[... {cut} characters of output cut ...]\n\n{text[-tail:]}", True


class Sandbox(ABC):
    """An isolated ``/workspace`` for one episode. Async first; ``*_sync`` wrappers serve scripts.

    Every method raises :class:`~jobenv.errors.SandboxError` (or a subclass) on failure, never a bare
    OSError. ``close`` is idempotent and also runs on garbage collection and at interpreter exit.
    """

    name: str = "abstract"
    limits: SandboxLimits

    @abstractmethod
    async def start(self, task_folder: Path | None) -> None:
        """Create the sandbox and copy ``task_folder`` (may be None: empty) to ``/workspace/task_folder``."""

    @abstractmethod
    async def run(self, command: str, timeout: float | None = None) -> CommandResult:
        """Run ``command`` with ``bash -c`` in ``/workspace``; on timeout the whole process tree is killed."""

    @abstractmethod
    async def read_file(self, path: str) -> bytes:
        """Bytes of a regular file under ``/workspace``; WorkspacePathError if it escapes, SandboxError if absent."""

    @abstractmethod
    async def write_file(self, path: str, data: bytes) -> None:
        """Create or replace a file under ``/workspace``, making parent directories."""

    @abstractmethod
    async def list_files(self, path: str = "") -> list[FileEntry]:
        """Every entry below ``path`` (recursive, sorted by path), symlinks reported and not followed."""

    @abstractmethod
    async def export_output(self, dest: Path) -> Path:
        """Copy ``/workspace/output`` to the host folder ``dest`` for grading and return it.

        Symlinks and special files are never followed or copied as such; each one is recorded in
        ``dest/.jobenv_rejected.json`` (a JSON list of relative paths, always written, replacing any file of
        that name from the agent) so grading can reject them.
        """

    @abstractmethod
    async def close(self) -> None:
        """Remove the sandbox and everything in it. Safe to call twice."""

    # Sync wrappers for scripts and notebooks: every call of one sandbox runs on that sandbox's own loop.
    def _sync(self, coro: Any) -> Any:
        runner = self.__dict__.get("_private_loop")
        if runner is None:
            runner = self.__dict__["_private_loop"] = PrivateLoop("jobenv-sandbox-loop")
        return runner.run(coro)

    def start_sync(self, task_folder: Path | None) -> None:
        self._sync(self.start(task_folder))

    def run_sync(self, command: str, timeout: float | None = None) -> CommandResult:
        return self._sync(self.run(command, timeout))

    def read_file_sync(self, path: str) -> bytes:
        return self._sync(self.read_file(path))

    def write_file_sync(self, path: str, data: bytes) -> None:
        self._sync(self.write_file(path, data))

    def export_output_sync(self, dest: Path) -> Path:
        return self._sync(self.export_output(dest))

    def close_sync(self) -> None:
        self._sync(self.close())
        runner = self.__dict__.pop("_private_loop", None)
        if runner is not None:
            runner.close()

    async def __aenter__(self) -> "Sandbox":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
