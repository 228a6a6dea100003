"""The Docker sandbox: one container per episode through the ``docker`` SDK (imported lazily).

Container settings: memory (``mem_limit`` = ``memswap_limit``), CPUs (``nano_cpus``), ``pids_limit``,
``network_mode="none"``, ``cap_drop=["ALL"]``, ``no-new-privileges``, no log driver, a read-only root file system
with size-capped tmpfs ``/tmp`` and ``/dev/shm``, and ``/workspace`` on a per-sandbox *tmpfs volume* of
``workspace_mb`` (a volume rather than a ``--tmpfs`` mount because the archive API cannot write into tmpfs
mounts); the three fit inside the memory limit. The Harbor layout puts the task's files at the top of
``/workspace`` and exports all of it; an alias of ``/workspace`` (a Harbor workdir) mounts the same volume again
at that path, and an alias of a ``/tmp`` path (a verifier's ``/tests``, ``/logs``) is a tmpfs volume of its own
there (``put_archive`` unpacks a tar into one). ``workspace_readonly`` (a verifier's copy of the agent's work): the
files copied in belong to root with no write bit for others, the alias is mounted read-only and every command runs
as :data:`READONLY_UID`. ``network="web"`` attaches the same fenced user-mode stack as the
local backend (:mod:`jobenv.sandbox._net`) to the container's network namespace, which needs the engine on this
host and root. Before the first container of an image starts, the image is searched once for an installed jobenv
or a task rubric; one found refuses the start (SandboxError naming the path). Files move with
``put_archive``/``get_archive`` (streamed, never buffered whole; exports bounded like the local backend's by
depth, path length and total apparent size) so a remote ``DOCKER_HOST`` works for ``"off"``. Containers and volumes
carry the labels ``jobenv.sandbox=1``, ``jobenv.owner_pid`` and ``jobenv.owner_host``; ``close`` removes both and
``jobenv gc`` removes those whose owner process is gone.

PID 1 is a bash loop that reaps orphans. Each command runs in a wrapper that starts a watchdog; on timeout (and
after every command) the wrapper runs ``kill -9 -1``, which kills every process of the container except PID 1, so
nothing outlives a command (same semantics as the local backend). The image must provide ``bash`` and coreutils.

Failure behaviour: SandboxUnavailableError when the SDK is missing or the engine does not answer, SandboxError for
everything else (a missing image says how to build it); ``close`` never raises.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import io
import os
import posixpath
import socket
import tarfile
import threading
import time
import weakref
from pathlib import Path
from typing import Any

from ..errors import FileTooLargeError, SandboxDiedError, SandboxError, SandboxUnavailableError, WorkspacePathError
from . import _net
from ._archive import ChunkReader, export_members, owned_tar, tar_tree
from ._fs import MAX_DEPTH, MAX_ENTRIES, ExportBudget, write_rejected
from ._seed import seed_tree
from .base import (
    WORKSPACE,
    CommandResult,
    FileEntry,
    OutputCapture,
    Sandbox,
    SandboxLimits,
    command_env,
    escape_name,
    workspace_relpath,
)

__all__ = ["DockerSandbox", "DEFAULT_IMAGE", "READONLY_UID", "LABEL", "docker_client", "remove_resources"]

DEFAULT_IMAGE = "jobenv/knowledge-worker:latest"
LABEL = "jobenv.sandbox"
# docker SDK calls block; a private pool (not asyncio's small default one) lets many sandboxes work at once
_POOL = concurrent.futures.ThreadPoolExecutor(max_workers=128, thread_name_prefix="jobenv-docker")

# PID 1 keeps nothing a command could write to: its stdio is /dev/null (and the container has no log driver)
_INIT = 'exec </dev/null >/dev/null 2>&1; trap "exit 0" TERM; while :; do sleep 86400 & wait $!; done'
# run once per image: an image that ships jobenv (or any task rubric) would hand the agent the answers
_IMAGE_PROBE = (
    "find / -xdev \\( -path /proc -o -path /sys -o -path /dev -o -path /workspace \\) -prune -o "
    "\\( -name RUBRICS.json -o -path '*-packages/jobenv' -o -path '*-packages/jobenv-*.dist-info' \\) -print 2>/dev/null "
    "| head -n 1"
)
_CLEAN_IMAGES: set[str] = set()
# who runs the commands of a read-only workspace's container: an unprivileged uid that owns none of its files
READONLY_UID = 65532
_SOFTWARE: dict[str, str | None] = {}  # image id -> the prompt's software note (probed once per process)
# $1 command, $2 timeout seconds. The watchdog starts first (before a fork bomb can use up the pids); when it
# fires it prints a marker on the exec's stderr and kills everything but PID 1 (itself included last).
_WRAPPER = r"""
exec 3>&2
( sleep "$2"; echo __JOBENV_TIMEOUT__ >&3; kill -9 -1 ) </dev/null >/dev/null 2>&1 &
disown $!
( exec /bin/bash -c "$1" ) </dev/null 3>&- &
pid=$!
wait $pid; rc=$?
exec >/dev/null 2>&1 3>&-
kill -9 -1
exit $rc
"""


def docker_client(base_url: str | None = None) -> Any:
    """A connected ``docker.DockerClient``; SandboxUnavailableError with what to do when there is none."""
    try:
        import docker
    except ImportError:
        raise SandboxUnavailableError("the docker sandbox needs the Docker SDK: pip install 'jobenv[docker]'") from None
    try:
        client = docker.DockerClient(base_url=base_url) if base_url else docker.from_env()
        client.ping()
    except Exception as exc:
        raise SandboxUnavailableError(
            f"no Docker engine answers ({exc}); start dockerd, set DOCKER_HOST, or use sandbox='local'"
        ) from None
    return client


def _labels() -> dict[str, str]:
    return {LABEL: "1", "jobenv.owner_pid": str(os.getpid()), "jobenv.owner_host": socket.gethostname()}


def remove_resources(client: Any, container_id: str | None, volume: str | None) -> None:
    """Best-effort removal (close, GC, atexit); never raises."""
    if client is None:
        return
    if container_id:
        try:
            client.api.remove_container(container_id, force=True, v=True)
        except Exception:
            pass
    if volume:
        try:
            client.api.remove_volume(volume, force=True)
        except Exception:
            pass


def _finalize(state: dict[str, Any]) -> None:
    if state.get("closed"):
        return
    state["closed"] = True
    _net.stop(state)
    remove_resources(state.get("client"), state.get("container"), state.get("volume"))
    for volume in state.get("volumes", ()):
        remove_resources(state.get("client"), None, volume)
    try:
        if state.get("client") is not None:
            state["client"].close()
    except Exception:
        pass


class DockerSandbox(Sandbox):
    """Container sandbox: ``DockerSandbox(limits, image=DEFAULT_IMAGE, base_url=None, seed=None)``. ``seed``: an
    absolute folder of the image whose content fills ``/workspace`` at start instead of the task folder (a Harbor
    task's workdir, with what its Dockerfile's ``RUN`` steps made there)."""

    name = "docker"

    def __init__(self, limits: SandboxLimits | None = None, *, image: str = DEFAULT_IMAGE, base_url: str | None = None,
                 seed: str | None = None) -> None:
        self.limits = limits or SandboxLimits()
        for path, target in self.limits.aliases.items():
            if target != WORKSPACE and not target.startswith("/tmp/"):
                raise SandboxError(f"alias {path} -> {target}: the docker backend serves aliases of {WORKSPACE} "
                                   "itself or of a /tmp path only")
        if seed is not None and not posixpath.isabs(seed):
            raise SandboxError(f"seed {seed!r}: an absolute folder of the image")
        self.image = image
        self.seed = seed
        self._image_id = ""
        self.base_url = base_url
        self._state: dict[str, Any] = {"closed": False}
        self._finalizer = weakref.finalize(self, _finalize, self._state)
        self._started = False
        self._locks: dict[int, asyncio.Lock] = {}

    async def _call(self, fn: Any, *args: Any, **kw: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(_POOL, lambda: fn(*args, **kw))

    def _lock(self) -> asyncio.Lock:
        key = id(asyncio.get_running_loop())
        if key not in self._locks:
            self._locks = {key: asyncio.Lock()}
        return self._locks[key]

    def _check(self) -> None:
        if not self._started:
            raise SandboxError("sandbox not started: call `await sandbox.start(task_folder)` first")
        if self._state["closed"]:
            raise SandboxError("sandbox is closed")

    # ------------------------------------------------------------------ lifecycle
    async def start(self, task_folder: Path | None) -> None:
        """Create volume and container, start it and copy ``task_folder`` in. Cleans up after itself on failure."""
        if self._started:
            raise SandboxError("sandbox already started")
        self._started = True
        try:
            async with type(self).start_gate():
                await self._call(self._start_blocking, task_folder)
            if self._image_id not in _SOFTWARE:
                await self._probe_software()
        except BaseException:
            _finalize(self._state)
            raise

    async def _probe_software(self) -> None:
        """What the image offers, probed once per image per process (the prompt's note reads it)."""
        from . import toolchain

        try:
            res = await self.run(toolchain.probe_command(), timeout=120)
            report = toolchain.probe_report(self.name, res.output)
        except SandboxError:
            _SOFTWARE[self._image_id] = None  # no python3, or the probe failed: the note is left out (the start stands)
            return
        present = {t.name for t in report.tools if t.present}
        _SOFTWARE[self._image_id] = toolchain.software_note(report.python, sorted(present), sorted(present))

    def software_note(self) -> str | None:
        return _SOFTWARE.get(self._image_id)

    def _start_blocking(self, task_folder: Path | None) -> None:
        import docker
        from docker.types import LogConfig, Mount, Ulimit

        st = self._state
        lim = self.limits
        client = docker_client(self.base_url)
        st["client"] = client
        if lim.web:
            pasta = _net.pasta_binary()  # before anything is made: a missing stack is a clear error
            policy = _net.NetworkPolicy.from_limits(lim)
        try:
            image = client.images.get(self.image)
            self._image_id = image.id
        except docker.errors.ImageNotFound:
            raise SandboxError(
                f"Docker image {self.image!r} is not present; build it with `jobenv build-image` "
                f"(or pass image=... of an image that has bash)"
            ) from None
        except docker.errors.APIError as exc:
            raise SandboxError(f"cannot inspect image {self.image!r}: {exc}") from None
        labels = _labels()
        try:
            vol = client.volumes.create(
                driver="local",
                driver_opts={"type": "tmpfs", "device": "tmpfs", "o": f"size={lim.workspace_mb}m,mode=0755"},
                labels=labels,
            )
            st["volume"] = vol.name
            mem = f"{lim.memory_mb}m"
            # aliases: the workspace volume mounted again at its alias; a /tmp alias is scratch space of its own,
            # a tmpfs volume (the archive API writes into volumes, never into tmpfs mounts)
            again = [Mount(target=a, source=vol.name, type="volume", read_only=lim.workspace_readonly)
                     for a, t in lim.aliases.items() if t == WORKSPACE]
            scratch = []
            for a, t in lim.aliases.items():
                if t != WORKSPACE:  # recorded at once: a failed start still removes what it made
                    extra = client.volumes.create(driver="local", labels=labels, driver_opts={
                        "type": "tmpfs", "device": "tmpfs", "o": f"size={lim.tmp_mb}m,mode=1777"})
                    st.setdefault("volumes", []).append(extra.name)
                    scratch.append(Mount(target=a, source=extra.name, type="volume"))
            container = client.containers.create(
                self.image,
                command=["/bin/bash", "-c", _INIT],
                entrypoint=[],
                labels=labels,
                hostname="sandbox",
                working_dir=WORKSPACE,
                environment={**command_env(), **lim.env},
                network_mode="none",  # "web" gets the fenced user-mode stack attached below, never a bridge
                log_config=LogConfig(type="none"),
                mem_limit=mem,
                memswap_limit=mem,
                nano_cpus=int(lim.cpus * 1e9),
                pids_limit=lim.pids,
                cap_drop=["ALL"],
                security_opt=["no-new-privileges"],
                read_only=True,
                tmpfs={"/tmp": f"size={lim.tmp_mb}m,mode=1777"},
                shm_size=f"{lim.shm_mb}m",
                mounts=[Mount(target=WORKSPACE, source=vol.name, type="volume"), *again, *scratch],
                ulimits=[
                    Ulimit(name="fsize", soft=lim.file_size_mb * 1024 * 1024, hard=lim.file_size_mb * 1024 * 1024),
                    Ulimit(name="cpu", soft=lim.cpu_time_s, hard=lim.cpu_time_s),
                    Ulimit(name="core", soft=0, hard=0),
                ],
                detach=True,
            )
            st["container"] = container.id
            container.start()
            self._cid = container.id
            self._check_image(image.id)
            if lim.web:
                pid = int(client.api.inspect_container(container.id)["State"]["Pid"])
                if not pid or not os.path.exists(f"/proc/{pid}/ns/net"):
                    raise SandboxUnavailableError(
                        'network="web" on the docker backend needs the Docker engine on this host (its containers '
                        "visible in /proc) and root; use the local backend or network=\"off\""
                    )
                _net.attach(pasta, pid, policy, st)
                self._put_resolv_conf(client)
            if self.seed is not None:
                tree = seed_tree(client, image.id, self.seed, lim.workspace_mb << 20, labels)
            else:
                tree = tar_tree(task_folder, None if lim.layout == "harbor" else "task_folder")
            if lim.workspace_readonly:
                tree = owned_tar(tree, 0)  # root's, and the commands' uid is not root
            if not client.api.put_archive(container.id, WORKSPACE, tree):
                raise SandboxError("could not copy the task folder into the container")
        except docker.errors.DockerException as exc:
            raise SandboxError(f"docker sandbox failed to start: {exc}") from None

    def _check_image(self, image_id: str) -> None:
        """The start-up guard for images: refuse one that holds jobenv itself or a task rubric (checked once)."""
        if image_id in _CLEAN_IMAGES:
            return
        api = self._state["client"].api
        ex = api.exec_create(self._cid, ["/bin/sh", "-c", _IMAGE_PROBE], user="0")  # every folder, whoever runs
        found = api.exec_start(ex["Id"]).decode("utf-8", "replace").strip()
        if found:
            raise SandboxError(
                f"refusing to start the sandbox: the image {self.image!r} contains the host-only path {found} "
                "(jobenv itself or a task rubric); build the sandbox image without jobenv and without task data"
            )
        _CLEAN_IMAGES.add(image_id)

    def _put_resolv_conf(self, client: Any) -> None:
        """Point the container's resolver at the web stack's DNS forwarder (best effort: DNS only)."""
        data = f"nameserver {_net.DNS_ADDR}\n".encode()
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as tf:
            ti = tarfile.TarInfo("resolv.conf")
            ti.size, ti.mode = len(data), 0o644
            tf.addfile(ti, io.BytesIO(data))
        try:
            client.api.put_archive(self._cid, "/etc", buf.getvalue())
        except Exception:
            pass

    async def close(self) -> None:
        """Remove the container and its workspace volume. Idempotent; never raises."""
        if self._state.get("closed"):
            return
        await asyncio.get_running_loop().run_in_executor(_POOL, self._finalizer)

    # ------------------------------------------------------------------ commands
    async def run(self, command: str, timeout: float | None = None) -> CommandResult:
        """Run ``bash -c command`` in /workspace; exit 124 and ``timed_out`` on timeout (every process killed)."""
        self._check()
        if "\x00" in command:
            return CommandResult(output="error: the command contains a NUL byte", exit_code=2)
        t = self.limits.clamp_timeout(timeout)
        async with self._lock():
            self._check()
            fut = self._call(self._run_blocking, command, t)
            try:
                return await asyncio.shield(fut)
            except asyncio.CancelledError:
                # the caller gave up: stop the command now, not when its watchdog fires during a later command
                await asyncio.shield(self._call(self._kill_all_quiet))
                raise

    def _run_blocking(self, command: str, t: float) -> CommandResult:
        api = self._state["client"].api
        cap = OutputCapture(self.limits.output_chars)
        t0 = time.monotonic()
        # host-side backstop in case the in-container watchdog could not run (e.g. no pid left to fork)
        backstop = threading.Timer(t + 10.0, self._kill_all_quiet)
        backstop.daemon = True
        try:
            ex = api.exec_create(self._cid, ["/bin/bash", "-c", _WRAPPER, "jobenv", command, f"{t:.3f}"],
                                 workdir=WORKSPACE, user=self._user())
            backstop.start()
            stream = api.exec_start(ex["Id"], stream=True, demux=False)
            marker = b"__JOBENV_TIMEOUT__\n"
            timed_out = False
            pending = b""
            for chunk in stream:
                data = pending + chunk
                if marker in data:
                    timed_out = True
                    data = data.replace(marker, b"")
                # keep a possible partial marker for the next chunk
                keep = next((k for k in range(len(marker) - 1, 0, -1) if data.endswith(marker[:k])), 0)
                pending = data[len(data) - keep:] if keep else b""
                cap.add(data[: len(data) - keep] if keep else data)
            if pending:
                cap.add(pending)
            info = api.exec_inspect(ex["Id"])
            if info.get("Running"):
                timed_out = True
                self._kill_all(api)
            rc = info.get("ExitCode")
        except SandboxError:
            raise
        except Exception as exc:
            if "is not running" in str(exc):
                raise SandboxDiedError(f"the sandbox died (its container stopped): {exc}") from None
            raise SandboxError(f"docker exec failed: {exc}") from None
        finally:
            backstop.cancel()
        if time.monotonic() - t0 >= t and rc in (137, None):
            timed_out = True
        text, truncated = cap.text()
        if timed_out:
            rc = 124  # like coreutils `timeout`; callers see ``timed_out`` and word the note themselves
        return CommandResult(output=text, exit_code=int(rc if rc is not None else -1), timed_out=timed_out,
                             truncated=truncated, duration_s=round(time.monotonic() - t0, 6))

    def _kill_all_quiet(self) -> None:
        try:
            if not self._state.get("closed"):
                self._kill_all(self._state["client"].api)
        except Exception:
            pass

    def _user(self) -> str:
        """Who runs a command: :data:`READONLY_UID` over a read-only workspace (PID 1 stays root without
        capabilities, so the web network's stack can still enter its namespace), else the image's user."""
        return f"{READONLY_UID}:{READONLY_UID}" if self.limits.workspace_readonly else ""

    def _kill_all(self, api: Any) -> None:
        try:
            ex = api.exec_create(self._cid, ["/bin/bash", "-c", "kill -9 -1"], user=self._user())
            api.exec_start(ex["Id"])
        except Exception:
            # last resort: the sandbox cannot be trusted any more
            _finalize(self._state)
            raise SandboxError("could not stop a runaway command; the container was removed") from None

    # ------------------------------------------------------------------ files
    def _get_tar(self, abspath: str) -> tarfile.TarFile | None:
        """A *streaming* tar reader of ``abspath`` (members in order, nothing buffered whole); None if absent."""
        import docker

        try:
            stream, _ = self._state["client"].api.get_archive(self._cid, abspath, chunk_size=1 << 20)
        except docker.errors.NotFound:
            return None
        except docker.errors.APIError as exc:
            raise SandboxError(f"cannot fetch {abspath}: {exc}") from None
        return tarfile.open(fileobj=ChunkReader(stream), mode="r|")

    def _read_blocking(self, path: str, limit: int) -> bytes:
        """The file's bytes from a tar stream of it: the member's size is fixed in its header, so a file that
        grows meanwhile cannot make this read more than ``limit``."""
        rel = workspace_relpath(path)
        for _ in range(40):
            abspath = f"{WORKSPACE}/{rel}" if rel else WORKSPACE
            tf = self._get_tar(abspath)
            if tf is None:
                if "\\x" in rel:
                    return self._read_escaped(rel, limit)
                raise SandboxError(f"no such file: {abspath}")
            with tf:
                member = tf.next()
                if member is None:
                    raise SandboxError(f"no such file: {abspath}")
                if member.issym():
                    target = member.linkname
                    base = posixpath.dirname(abspath)
                    rel = workspace_relpath(target if target.startswith("/") else posixpath.join(base, target))
                    continue
                if member.isdir():
                    raise SandboxError(f"{abspath} is a directory, not a file")
                if not member.isfile():
                    raise SandboxError(f"{abspath} is not a regular file")
                if member.size > limit:
                    raise FileTooLargeError(f"{abspath} is larger than {limit} bytes ({member.size} bytes apparent size)")
                f = tf.extractfile(member)
                return f.read() if f else b""
        raise WorkspacePathError(f"too many symlinks resolving {path!r}")

    def _read_escaped(self, rel: str, limit: int) -> bytes:
        """Read a file whose name was reported escaped (not UTF-8): the raw name cannot travel in the API's URL,
        so a shell in the container turns the ``\\xNN`` escapes back into bytes and prints the file."""
        api = self._state["client"].api
        script = ('p=$(printf %b "$1"); [ -f "$p" ] && [ ! -L "$p" ] || exit 3; '
                  '[ "$(stat -c %s -- "$p")" -le "$2" ] || exit 4; exec head -c "$(($2 + 1))" -- "$p"')
        ex = api.exec_create(self._cid, ["/bin/bash", "-c", script, "read", rel, str(limit)],
                             workdir=WORKSPACE, user=self._user())
        data = api.exec_start(ex["Id"])
        code = api.exec_inspect(ex["Id"]).get("ExitCode")
        if code == 3:
            raise SandboxError(f"no such regular file: {WORKSPACE}/{rel}")
        if code == 4 or (code == 0 and len(data) > limit):
            raise FileTooLargeError(f"{WORKSPACE}/{rel} is larger than {limit} bytes")
        if code != 0:
            raise SandboxError(f"cannot read {WORKSPACE}/{rel} (exit {code})")
        return bytes(data)

    async def read_file(self, path: str, *, max_bytes: int | None = None) -> bytes:
        self._check()
        limit = min(max_bytes, self.limits.workspace_mb << 20) if max_bytes is not None else self.limits.workspace_mb << 20
        async with self._lock():
            return await self._call(self._read_blocking, path, limit)

    def _write_blocking(self, path: str, data: bytes) -> None:
        rel = workspace_relpath(path)
        if not rel:
            raise WorkspacePathError(f"cannot write to {WORKSPACE} itself")
        buf = io.BytesIO()
        parts = rel.split("/")
        with tarfile.open(fileobj=buf, mode="w") as tf:
            for i in range(1, len(parts)):
                ti = tarfile.TarInfo("/".join(parts[:i]))
                ti.type, ti.mode, ti.mtime = tarfile.DIRTYPE, 0o755, int(time.time())
                tf.addfile(ti)
            ti = tarfile.TarInfo(rel)
            ti.size, ti.mode, ti.mtime = len(data), 0o644, int(time.time())
            tf.addfile(ti, io.BytesIO(data))
        try:
            ok = self._state["client"].api.put_archive(self._cid, WORKSPACE, buf.getvalue())
        except Exception as exc:
            raise SandboxError(f"cannot write {WORKSPACE}/{rel}: {exc}") from None
        if not ok:
            raise SandboxError(f"cannot write {WORKSPACE}/{rel}")

    async def write_file(self, path: str, data: bytes) -> None:
        self._check()
        async with self._lock():
            await self._call(self._write_blocking, path, bytes(data))

    def _list_blocking(self, path: str) -> list[FileEntry]:
        rel = workspace_relpath(path)
        abspath = f"{WORKSPACE}/{rel}" if rel else WORKSPACE
        api = self._state["client"].api
        # find prints metadata only: listing must not transfer file contents
        ex = api.exec_create(self._cid, ["find", abspath, "-mindepth", "0", "-maxdepth", str(MAX_DEPTH), "-printf", r"%y %s %P\0"],
                             user=self._user())
        out = api.exec_start(ex["Id"])
        if api.exec_inspect(ex["Id"]).get("ExitCode") not in (0,):
            raise SandboxError(f"no such file or directory: {abspath}")
        kinds = {"f": "file", "d": "dir", "l": "symlink"}
        entries: list[FileEntry] = []
        records = out.split(b"\0")
        if len(records) > MAX_ENTRIES + 2:  # the listed directory itself and the empty tail
            raise SandboxError(f"{abspath} holds more than {MAX_ENTRIES} files and folders: list a folder further down")
        for rec in records:
            if not rec:
                continue
            y, size, p = escape_name(rec.decode("utf-8", "surrogateescape")).split(" ", 2)
            if not p:
                if y == "d":
                    continue  # the listed directory itself
                p = ""
            full = posixpath.join(rel, p) if p else rel
            kind = kinds.get(y, "other")
            entries.append(FileEntry(path=full, type=kind, size=int(size) if kind == "file" else 0))  # type: ignore[arg-type]
        entries.sort(key=lambda e: e.path)
        return entries

    async def put_archive(self, alias: str, tar: bytes) -> None:
        self._check()
        target = self.limits.aliases.get(alias, "")
        if not target.startswith("/tmp/"):
            raise SandboxError(f"{alias} is not an alias of a /tmp folder of this sandbox")
        async with self._lock():
            try:
                data = owned_tar(tar, READONLY_UID if self.limits.workspace_readonly else 0)
                if await self._call(self._state["client"].api.put_archive, self._cid, alias, data):
                    return
            except Exception as exc:  # noqa: BLE001 - the SDK's errors and a bad tar alike
                raise SandboxError(f"cannot unpack the archive into {alias}: {exc}") from None
        raise SandboxError(f"cannot unpack the archive into {alias}")

    async def list_files(self, path: str = "") -> list[FileEntry]:
        self._check()
        async with self._lock():
            return await self._call(self._list_blocking, path)

    def _export_blocking(self, dest: Path) -> Path:
        state = self._state["client"].api.inspect_container(self._cid).get("State") or {}
        if not state.get("Running"):
            raise SandboxDiedError(f"the container is not running (exit code {state.get('ExitCode')}): its output "
                                   "folder is gone")
        dest = Path(dest)
        dest.mkdir(parents=True, exist_ok=True)
        budget = ExportBudget(self.limits.workspace_mb << 20)
        tf = self._get_tar(WORKSPACE if self.limits.layout == "harbor" else f"{WORKSPACE}/output")
        if tf is not None:
            with tf:
                export_members(tf, dest, budget)
        write_rejected(dest, budget.rejected)
        return dest

    async def export_output(self, dest: Path) -> Path:
        """Copy ``/workspace/output`` (the whole workspace for the Harbor layout) to ``dest``."""
        self._check()
        async with self._lock():
            try:
                return await self._call(self._export_blocking, dest)
            except OSError as exc:
                raise SandboxError(f"cannot export {WORKSPACE}/output to {dest}: {exc}") from None
