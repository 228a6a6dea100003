"""The sandbox protocol every backend implements, and the value types it returns.

A sandbox owns one ``/workspace`` holding ``task_folder/`` (a writable copy of the task's files) and an
empty ``output/``. Paths given to the file methods are relative to ``/workspace`` (absolute paths must
start with ``/workspace``); anything that would leave it raises :class:`WorkspacePathError`.
"""

from __future__ import annotations

import asyncio
import os
import posixpath
import re
import weakref
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from .._aio import PrivateLoop
from ..errors import SandboxError, WorkspacePathError

__all__ = [
    "WORKSPACE",
    "CommandResult",
    "CellResult",
    "FileEntry",
    "SandboxLimits",
    "NetworkMode",
    "OutputCapture",
    "Sandbox",
    "workspace_relpath",
    "cap_output",
    "escape_name",
]

WORKSPACE = "/workspace"


NetworkMode = Literal["off", "web"]

# what every tmpfs of a sandbox together may hold is the memory limit minus this share (at least 32 MB), so that
# filling /workspace, /tmp and /dev/shm at once leaves room for the processes instead of OOM-killing the sandbox
_RESERVE_DIVISOR = 8


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
# the environment every sandbox sets itself (see command_env)
RESERVED_ENV = frozenset({"PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SHELL", "USER", "TERM", "WORKSPACE",
                          "PYTHONDONTWRITEBYTECODE", "MPLBACKEND", "UserInstallation"})
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def command_env(path: str = SYSTEM_PATH, workspace: str = WORKSPACE, **more: str) -> dict[str, str]:
    """The whole environment of a sandbox's commands on every backend, before ``SandboxLimits.env``: fixed values
    (``more`` adds a backend's own), never a variable of the host's, so no host secret can reach planted code."""
    return {"PATH": path, "HOME": "/tmp", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TMPDIR": "/tmp",
            "SHELL": "/bin/bash", "TERM": "dumb", "PYTHONDONTWRITEBYTECODE": "1", "MPLBACKEND": "Agg",
            "WORKSPACE": workspace, **more}

REJECTED_MANIFEST = ".jobenv_rejected.json"  # the export's list of refused entries, beside the exported files


class SandboxLimits(BaseModel):
    """Resource limits of one sandbox. Every field has a default a user may change.

    The three tmpfs mounts (``/workspace``, ``/tmp``, ``/dev/shm``) are RAM charged to the sandbox's memory limit,
    so together they must fit inside ``memory_mb`` minus a reserve for processes (an eighth, at least 32 MB).
    ``workspace_mb`` left at its default shrinks to fit a small ``memory_mb``; ``tmp_mb``/``shm_mb`` default to what
    is left (at most 512/64 MB and never more than ``workspace_mb``). Explicit sizes that do not fit raise
    ``ValueError`` (pydantic's ValidationError) naming the sum.

    ``network``: ``"off"`` (default; only a loopback device) or ``"web"`` (outbound NAT through a user-mode network
    stack; the host, link-local and private addresses are unreachable unless listed in ``network_allow``);
    ``network_only`` narrows ``"web"`` to an allow-list of public hosts.
    ``True``/``False`` are accepted as aliases of ``"web"``/``"off"``.
    """

    timeout_s: float = Field(default=120.0, gt=0, description="default per-command timeout")
    max_timeout_s: float = Field(default=600.0, gt=0, description="cap on any per-command timeout")
    output_chars: int = Field(default=30_000, ge=1000, description="characters of output kept (head and tail)")
    memory_mb: int = Field(default=2048, ge=64)
    cpus: float = Field(default=2.0, gt=0)
    pids: int = Field(default=512, ge=16, description="processes and threads at once")
    file_size_mb: int = Field(default=1024, ge=1, description="largest single file a command may write")
    workspace_mb: int = Field(default=1024, ge=16, description="total size of /workspace (also bounds the export)")
    tmp_mb: int | None = Field(default=None, ge=4, description="size of /tmp (default: what fits, at most 512)")
    shm_mb: int | None = Field(default=None, ge=4, description="size of /dev/shm (default: what fits, at most 64)")
    cpu_time_s: int = Field(default=3600, ge=1, description="CPU seconds per command")
    network: NetworkMode = Field(default="off", description='"off" or "web" (True/False are aliases)')
    network_allow: list[str] = Field(
        default_factory=list,
        description='with "web": addresses, CIDR blocks or host names reachable although private/link-local',
    )
    network_deny: list[str] = Field(
        default_factory=list, description='with "web": addresses, CIDR blocks or host names that stay unreachable'
    )
    network_only: list[str] | None = Field(
        default=None,
        description='with "web": when set, the only public addresses, CIDR blocks or host names reachable (an '
                    'allow-list; names are resolved once, at start); private and link-local ranges stay closed '
                    'unless in network_allow',
    )
    env: dict[str, str] = Field(
        default_factory=dict,
        description="extra environment variables of every command (a Harbor task's [environment] env); the "
                    "sandbox's own (PATH, HOME, LANG, ...) and LD_* names are refused",
    )
    layout: Literal["jobenv", "harbor"] = Field(
        default="jobenv",
        description='"jobenv": the task folder is /workspace/task_folder beside an empty output/, and output/ is '
                    'graded; "harbor": the task\'s files are /workspace itself, and all of it is graded',
    )
    aliases: dict[str, str] = Field(
        default_factory=dict,
        description="symlinks made in the sandbox's root: a new absolute path -> /workspace or a path under "
                    "/workspace or /tmp (e.g. a Harbor task's workdir, its /tests and /logs)",
    )
    workspace_readonly: bool = Field(
        default=False,
        description="the workspace is a read-only copy of the folder start() gets, owned by none of the commands' "
                    "uids where the backend has another (a verifier's view of an agent's work): a read-only bind "
                    "locally; on docker its files belong to root without write bits for others and commands run "
                    "as an unprivileged uid of their own",
    )
    unsafe_unbounded_memory: bool = Field(
        default=False,
        description="start a local sandbox even where no memory cgroup can bound it (then only per-process "
                    "rlimits apply, which shared memory escapes); off by default: such a start is refused",
    )

    @field_validator("network", mode="before")
    @classmethod
    def _network_alias(cls, v: Any) -> Any:
        if v is True:
            return "web"
        if v is False or v is None:
            return "off"
        return v

    @field_validator("env")
    @classmethod
    def _safe_env(cls, v: dict[str, str]) -> dict[str, str]:
        for name, value in v.items():
            if not _ENV_NAME.fullmatch(name) or name in RESERVED_ENV or name.startswith("LD_"):
                raise ValueError(f"env: {name!r} cannot be set (a plain name other than the sandbox's own "
                                 f"{', '.join(sorted(RESERVED_ENV))} and LD_*)")
            if "\x00" in value:
                raise ValueError(f"env: the value of {name} holds a NUL byte")
        return v

    @field_validator("aliases")
    @classmethod
    def _safe_aliases(cls, v: dict[str, str]) -> dict[str, str]:
        for path, target in v.items():
            check_alias(path, target)
        return v

    @model_validator(mode="after")
    def _fit_tmpfs(self) -> SandboxLimits:
        reserve = max(32, self.memory_mb // _RESERVE_DIVISOR)
        budget = self.memory_mb - reserve
        explicit = self.model_fields_set
        if "workspace_mb" not in explicit:
            self.workspace_mb = max(16, min(self.workspace_mb, budget - 8))
        room = budget - self.workspace_mb
        if self.tmp_mb is None:
            self.tmp_mb = max(4, min(512, self.workspace_mb, (room - 4) * 3 // 4))
        if self.shm_mb is None:
            self.shm_mb = max(4, min(64, self.workspace_mb, room - self.tmp_mb))
        total = self.workspace_mb + self.tmp_mb + self.shm_mb
        if total > budget:
            raise ValueError(
                f"the sandbox's tmpfs mounts (workspace_mb={self.workspace_mb} + tmp_mb={self.tmp_mb} + "
                f"shm_mb={self.shm_mb} = {total} MB) must fit inside memory_mb={self.memory_mb} minus {reserve} MB "
                "kept for processes: lower them or raise memory_mb"
            )
        return self

    @property
    def web(self) -> bool:
        """True when the sandbox has outbound network access (``network == "web"``)."""
        return self.network == "web"

    def clamp_timeout(self, timeout: float | None) -> float:
        t = self.timeout_s if timeout is None else float(timeout)
        return max(0.001, min(t, self.max_timeout_s))


#: top-level names of a sandbox's root (and of paths a backend mounts) that an alias may never take
RESERVED_ROOT_NAMES = frozenset({"bin", "boot", "dev", "etc", "home", "lib", "lib32", "lib64", "libx32", "media", "mnt",
                                 "init", "opt", "proc", "root", "run", "sbin", "srv", "sys", "tmp", "usr", "var",
                                 "workspace"})


def check_alias(path: str, target: str) -> None:
    """ValueError unless ``path`` is a normalised absolute path of at most four parts whose first part is not a
    reserved root name, and ``target`` is /workspace or a normalised path under /workspace or /tmp."""
    parts = path.split("/")[1:]
    if not path.startswith("/") or posixpath.normpath(path) != path or not 1 <= len(parts) <= 4 or "" in parts:
        raise ValueError(f"alias {path!r}: an absolute, normalised path of one to four parts is needed")
    if parts[0] in RESERVED_ROOT_NAMES or any(p in (".", "..") for p in parts):
        raise ValueError(f"alias {path!r}: /{parts[0]} belongs to the sandbox itself")
    if posixpath.normpath(target) != target or not (
            target == WORKSPACE or target.startswith(WORKSPACE + "/") or target.startswith("/tmp/")):
        raise ValueError(f"alias {path!r}: its target {target!r} must be /workspace or under /workspace or /tmp")


class CommandResult(BaseModel):
    """What one shell command produced. ``output`` is stdout and stderr interleaved, capped."""

    output: str
    exit_code: int
    timed_out: bool = False
    truncated: bool = False
    duration_s: float = 0.0


class CellResult(CommandResult):
    """What one cell of the python tool's interpreter produced: ``output`` as for a command (the cell's stdout and
    stderr, then the repr of a final expression or the traceback). ``interpreter_alive``: the interpreter lives on
    with its state; ``restarted``: this cell ran in a new interpreter that replaced one whose state is gone."""

    interpreter_alive: bool = True
    restarted: bool = False


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


def escape_name(path: str) -> str:
    """A file name as text that serialises anywhere, one text per name: bytes that are not UTF-8 become ``\\xNN``.

    ``os`` functions hand such bytes over as lone surrogates (``surrogateescape``); JSON, pydantic and HTTP clients
    refuse those, so every name a sandbox reports or exports goes through here. A UTF-8 name without a backslash is
    unchanged; in any other name the backslash itself is escaped too (``\\x5c``), so a name that spells
    ``\\xff`` in text and one holding the byte 0xFF never meet.
    """
    try:
        path.encode("utf-8")
        if "\\" not in path:
            return path
    except UnicodeEncodeError:
        pass
    text = os.fsencode(path).decode("utf-8", "surrogateescape")  # a byte that is not UTF-8: U+DC80..U+DCFF
    return "".join(f"\\x{ord(c) - 0xDC00:02x}" if 0xDC80 <= ord(c) <= 0xDCFF else "\\x5c" if c == "\\" else c
                   for c in text)


def cap_output(text: str, limit: int) -> tuple[str, bool]:
    """Keep the head and tail of ``text`` within ``limit`` characters, with a marker saying how much was cut."""
    if len(text) <= limit:
        return text, False
    head = limit * 2 // 3
    tail = limit - head
    cut = len(text) - head - tail
    return f"{text[:head]}\n\n[... {cut} characters of output cut ...]\n\n{text[-tail:]}", True


class OutputCapture:
    """Head and tail of a byte stream, so endless output costs bounded memory (the backends' command output)."""

    def __init__(self, chars: int) -> None:
        self.limit = chars
        self.keep = chars * 2  # bytes kept at each end; generous for multi-byte text
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        room = self.keep - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > 2 * self.keep:
                del self.tail[: len(self.tail) - self.keep]

    def text(self) -> tuple[str, bool]:
        if len(self.tail) > self.keep:
            del self.tail[: len(self.tail) - self.keep]
        dropped = self.total - len(self.head) - len(self.tail)
        if dropped == 0:
            return cap_output((self.head + self.tail).decode("utf-8", "replace"), self.limit)
        head = self.head.decode("utf-8", "replace")
        tail = self.tail.decode("utf-8", "replace")
        h = self.limit * 2 // 3
        t = self.limit - h
        cut = dropped + max(0, len(head) - h) + max(0, len(tail) - t)
        return f"{head[:h]}\n\n[... {cut} characters of output cut ...]\n\n{tail[-t:]}", True


# per event loop (a semaphore belongs to one loop), per backend
_START_GATES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[type, asyncio.Semaphore]] = (
    weakref.WeakKeyDictionary())


class Sandbox(ABC):
    """An isolated ``/workspace`` for one episode. Async first; ``*_sync`` wrappers serve scripts.

    Every method raises :class:`~jobenv.errors.SandboxError` (or a subclass) on failure, never a bare
    OSError. ``close`` is idempotent and also runs on garbage collection and at interpreter exit.
    """

    name: str = "abstract"
    limits: SandboxLimits

    @classmethod
    def start_slots(cls) -> int:
        """How many sandboxes of this backend start at once on this machine (see :meth:`start_gate`). Starts that
        mostly wait on a service, as Docker's do, overlap well."""
        return 16

    @classmethod
    def start_gate(cls) -> asyncio.Semaphore:
        """The semaphore a ``start`` of this backend holds on the running event loop, so that at most
        :meth:`start_slots` sandboxes start at once however many episodes reset together (a rollout, a hosting
        server's burst of sessions, a trainer's own envs). Waiting for it is part of ``start``; nothing else is."""
        # keyed by the class that sets the figure: a subclass (an instrumented LocalSandbox) shares its backend's
        backend = next(c for c in cls.__mro__ if "start_slots" in c.__dict__)
        gates = _START_GATES.setdefault(asyncio.get_running_loop(), {})
        gate = gates.get(backend)
        if gate is None:
            gate = gates[backend] = asyncio.Semaphore(cls.start_slots())
        return gate

    @abstractmethod
    async def start(self, task_folder: Path | None) -> None:
        """Create the sandbox and copy ``task_folder`` (may be None: empty) to ``/workspace/task_folder``."""

    @abstractmethod
    async def run(self, command: str, timeout: float | None = None) -> CommandResult:
        """Run ``command`` with ``bash -c`` in ``/workspace``; on timeout the whole process tree is killed."""

    def software_note(self) -> str | None:
        """The prompt's line on the software inside (python3's modules, command-line tools, what is absent); None
        when the backend cannot tell (yet). Never raises."""
        return None

    #: whether :meth:`run_python` keeps an interpreter across cells (the python tool needs it)
    supports_python: bool = False

    async def run_python(self, code: str, timeout: float | None = None) -> CellResult:
        """Run ``code`` as a cell of the sandbox's persistent python interpreter (see :class:`CellResult`).

        Backends without one (:attr:`supports_python` False) raise SandboxUnavailableError.
        """
        from ..errors import SandboxUnavailableError

        raise SandboxUnavailableError(f"the {self.name} sandbox has no persistent python interpreter: use the "
                                      "local sandbox for the python tool")

    @abstractmethod
    async def read_file(self, path: str, *, max_bytes: int | None = None) -> bytes:
        """Bytes of a regular file under ``/workspace``; WorkspacePathError if it escapes, SandboxError if absent
        or larger than ``max_bytes`` (default: the workspace size), checked on the bytes read, so a file that
        grows while it is read never costs more than ``max_bytes`` of memory."""

    @abstractmethod
    async def write_file(self, path: str, data: bytes) -> None:
        """Create or replace a file under ``/workspace``, making parent directories."""

    async def put_archive(self, alias: str, tar: bytes) -> None:
        """Unpack ``tar`` (regular files and folders; anything else is skipped) into the folder an alias of this
        sandbox names (a ``/tmp`` target of :attr:`SandboxLimits.aliases`, e.g. a verifier's ``/tests``), in one
        transfer, its files belonging to the commands' uid. SandboxError for an alias the sandbox does not have or
        a backend without the operation."""
        raise SandboxError(f"the {self.name} sandbox cannot unpack archives into {alias}")

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

    def read_file_sync(self, path: str, *, max_bytes: int | None = None) -> bytes:
        return self._sync(self.read_file(path, max_bytes=max_bytes))

    def write_file_sync(self, path: str, data: bytes) -> None:
        self._sync(self.write_file(path, data))

    def export_output_sync(self, dest: Path) -> Path:
        return self._sync(self.export_output(dest))

    def close_sync(self) -> None:
        self._sync(self.close())
        runner = self.__dict__.pop("_private_loop", None)
        if runner is not None:
            runner.close()

    async def __aenter__(self) -> Sandbox:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
