"""Leftovers of sandboxes and grading whose owning process is gone, and ``jobenv gc`` that removes them.

Host temp dirs of jobenv are named ``jobenv-<owner pid>-<kind>-*`` (:func:`host_tempdir`), so a later process can
tell whether their owner still runs. ``jobenv gc`` removes those of dead owners (and ``jobenv-grade-*`` /
``jobenv-serve-*`` dirs of older versions once they are an hour old), with a remover that handles any depth;
``pasta`` processes whose sandbox is gone; the local backend's cgroups; and the Docker backend's containers and
volumes. Nothing of a live process is touched.
"""

from __future__ import annotations

import os
import signal
import tempfile
import time

from ._fs import remove_tree

__all__ = ["host_tempdir", "remove_tree", "owner_alive", "gc_host", "gc_docker"]

_PREFIX = "jobenv-"
_KINDS = ("etc", "unsafe", "grade", "serve", "read", "verifier")
_LEGACY = ("jobenv-grade-", "jobenv-serve-")
_LEGACY_AGE_S = 3600.0


def host_tempdir(kind: str) -> str:
    """A new private temp dir ``jobenv-<pid>-<kind>-XXXX`` that ``jobenv gc`` removes once this process is gone."""
    return tempfile.mkdtemp(prefix=f"{_PREFIX}{os.getpid()}-{kind}-")


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


def owner_alive(name: str, path: str | None = None) -> bool:
    """Whether the process whose pid follows ``jobenv-`` in ``name`` runs (True when in doubt). With ``path``
    (the folder or cgroup so named), a process that started after it was made is not its owner: pids are reused
    (in a container the same few low pids come back every run)."""
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
    if path is None:
        return True
    started = _process_start_time(pid)
    try:
        made = os.stat(path).st_mtime
    except OSError:
        return True
    return started is None or started <= made + 1.0


def _stray_pastas() -> list[int]:
    """pids of pasta processes attached to the network namespace of a process that no longer exists."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if not argv or not argv[0].endswith(b"pasta") or b"--netns" not in argv:
            continue
        target = argv[argv.index(b"--netns") + 1] if argv.index(b"--netns") + 1 < len(argv) else b""
        parts = target.split(b"/")
        if len(parts) == 5 and parts[1] == b"proc" and parts[2].isdigit() and not os.path.exists(f"/proc/{int(parts[2])}"):
            out.append(int(pid))
    return out


def gc_host(verbose: bool = True) -> int:
    """Remove jobenv temp dirs of dead owners and pasta processes of dead sandboxes; returns how many."""
    removed = 0
    tmp = tempfile.gettempdir()
    now = time.time()
    for name in os.listdir(tmp):
        path = os.path.join(tmp, name)
        stale = False
        if name.startswith(_LEGACY):
            try:
                stale = now - os.lstat(path).st_mtime > _LEGACY_AGE_S
            except OSError:
                continue
        elif name.startswith(_PREFIX) and any(f"-{k}-" in name for k in _KINDS):
            stale = not owner_alive(name, path)
        if stale:
            remove_tree(path)
            removed += 1
            if verbose:
                print(f"removed temp dir {path}")
    for pid in _stray_pastas():
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            continue
        removed += 1
        if verbose:
            print(f"stopped pasta {pid} (its sandbox is gone)")
    return removed


def gc_docker(verbose: bool = True, base_url: str | None = None) -> int:
    """Remove jobenv containers and volumes of this host whose owner process no longer exists (the Docker backend's
    leftovers); SandboxUnavailableError when no engine answers."""
    import socket

    from .docker import LABEL, docker_client, remove_resources

    client = docker_client(base_url)
    host = socket.gethostname()
    removed = 0

    def stale(labels: dict[str, str]) -> bool:
        if labels.get("jobenv.owner_host") != host:
            return False
        try:
            pid = int(labels.get("jobenv.owner_pid", ""))
        except ValueError:
            return False
        if pid == os.getpid():
            return False
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
        return False

    for c in client.containers.list(all=True, filters={"label": f"{LABEL}=1"}):
        if stale(c.labels):
            remove_resources(client, c.id, None)
            removed += 1
            if verbose:
                print(f"removed container {c.short_id}")
    for v in client.volumes.list(filters={"label": f"{LABEL}=1"}):
        if stale(v.attrs.get("Labels") or {}):
            remove_resources(client, None, v.name)
            removed += 1
            if verbose:
                print(f"removed volume {v.name}")
    return removed
