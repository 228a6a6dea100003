"""What a local sandbox sees of the host: the mount plan, the paths it hides, and the start-up guard.

The sandbox needs the system directories and this interpreter's prefix(es) so that ``python3`` inside imports
pandas and friends. Those same directories can hold what an agent must never see: with a normal install, jobenv
itself (its grader source and the bundled tasks' rubrics and solutions) lives in the prefix's site-packages, and under
``/usr/local`` when installed system-wide. So every file of the installed ``jobenv`` distribution (package dir,
dist-info, console script, editable-install hooks), the data directory (``$JOBENV_DATA``) and the cache directory
(``$JOBENV_CACHE``, the verdict cache) that lies under a mounted directory is covered by an empty read-only mount
(so only their names remain; ``import jobenv`` fails inside).

:func:`check_invisible` is the guard that runs after every launch: it compares, through ``/proc/<pid>/root``, what
the sandbox sees at each host-only path (those above plus the staged task's ``RUBRICS.json``, ``task_card.md``,
``meta.json``, ``ground_truth/``, ``solution/``, ``files_required_to_search/`` and every other sibling of its
``task_folder``) with the host's inode; any match refuses the start with a SandboxError naming the path.

:func:`mount_plan` bundles what a start needs of all this. It is rebuilt only when something it depends on changes
(the toolchain's manifest, the interpreter, the data/cache settings, an install of jobenv appearing or leaving, the
``/etc`` copy), so a start pays a few ``stat`` calls instead of ~1 ms of path resolution; the guard itself still runs
against every launched sandbox.
"""

from __future__ import annotations

import atexit
import functools
import glob
import os
import shutil
import stat
import sys
import threading
import time
from pathlib import Path
from typing import Any, NamedTuple

from ...errors import SandboxError
from ..gc import host_tempdir

__all__ = [
    "MountPlan", "mount_plan", "interpreter", "local_software_note", "closed_python_dirs", "parents_to_make", "etc_snapshot", "remove_etc_snapshot", "python_dirs", "host_only_paths", "mount_sources", "hide_args", "task_host_only", "check_invisible",
]

_ETC = [
    "passwd", "group", "hosts", "nsswitch.conf", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives",
    "localtime", "timezone", "mime.types", "ssl/certs", "ssl/openssl.cnf", "ca-certificates", "ca-certificates.conf",
    "fonts", "bash.bashrc", "profile", "inputrc", "magic", "magic.mime", "os-release", "debian_version", "gai.conf",
    "host.conf", "protocols", "services", "libreoffice", "ImageMagick-6", "papersize", "java-17-openjdk", "mailcap",
]
# names in a task directory that only the grader may read (JobBench layout and jobenv's own)
TASK_HOST_ONLY = ("RUBRICS.json", "task_card.md", "meta.json", "ground_truth", "solution", "files_required_to_search")

_SNAPSHOT: list[str] = []
_SNAPSHOT_LOCK = threading.Lock()  # sandboxes start on worker threads: concurrent starts must share one snapshot


def _new_lock_after_fork() -> None:
    global _SNAPSHOT_LOCK, _PLAN_LOCK
    _SNAPSHOT_LOCK = threading.Lock()
    _PLAN_LOCK = threading.Lock()  # a lock held by a parent thread at fork time would never be released


os.register_at_fork(after_in_child=_new_lock_after_fork)


def remove_etc_snapshot() -> None:
    """Remove this process's /etc copy now (servers call it on shutdown: a SIGTERM skips ``atexit``).

    Only for when no sandbox of this process runs any more; a later sandbox makes a fresh copy.
    """
    with _SNAPSHOT_LOCK:
        if _SNAPSHOT:
            shutil.rmtree(_SNAPSHOT[0], ignore_errors=True)
            _SNAPSHOT.clear()


def etc_snapshot() -> str:
    """A private directory made once per process: ``etc/`` (the few /etc entries a sandbox needs), an empty dir and an
    empty file (the sources of the hiding mounts) and ``resolv-web.conf``.

    One bind of ``etc/`` replaces ~30 per-file binds and keeps the rest of the host's /etc (shadow, ssl/private, the
    host's resolver) out. Removed at exit; ``jobenv gc`` removes copies of dead processes.
    """
    with _SNAPSHOT_LOCK:
        return _etc_snapshot()


def _etc_snapshot() -> str:
    if _SNAPSHOT and os.path.isdir(_SNAPSHOT[0]):
        return _SNAPSHOT[0]
    d = host_tempdir("etc")
    os.chmod(d, 0o755)
    etc = os.path.join(d, "etc")
    os.makedirs(etc)
    for e in _ETC:
        src, dst = f"/etc/{e}", os.path.join(etc, e)
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
    Path(etc, "resolv.conf").write_text("")  # no name server with network "off"; "web" binds its own over it
    os.makedirs(os.path.join(d, "empty"), mode=0o555)
    Path(d, "empty-file").touch(mode=0o444)
    os.makedirs(os.path.join(d, "absent-package"))
    Path(d, "absent-package", "__init__.py").write_text(
        "raise ModuleNotFoundError(f'No module named {__name__!r}', name=__name__)  # not available in a sandbox\n"
    )
    os.chmod(os.path.join(d, "absent-package"), 0o555)
    _SNAPSHOT[:] = [d]
    atexit.register(shutil.rmtree, d, True)
    return d


def interpreter() -> str:
    """The sandbox's interpreter: the installed toolchain's (:mod:`jobenv.sandbox.toolchain`), else this one's path
    as a sandbox can use it: absolute and without ``..`` (``cd runs && ../.venv/bin/python`` gives
    ``/x/runs/../.venv/bin/python``, whose ``runs`` does not exist inside), symlinks kept (a venv is found through
    its own ``bin/python``)."""
    from ..toolchain import active_toolchain

    tc = active_toolchain()
    if tc is not None:
        return tc.python
    return os.path.normpath(os.path.abspath(sys.executable))


def local_software_note() -> str | None:
    """The prompt's software line of a local sandbox started now (read on the host; never raises)."""
    from ..toolchain import local_software_note as note

    return note(interpreter())


def python_dirs() -> list[str]:
    """Directories that make the sandbox's interpreter (and its installed packages) work inside the sandbox: the
    toolchain and the prefix it was made from, or this interpreter's prefix(es)."""
    from ..toolchain import active_toolchain

    tc = active_toolchain()
    if tc is not None:
        prefix, base = os.path.normpath(tc.root), os.path.normpath(tc.base_prefix)
    else:
        prefix, base = os.path.normpath(sys.prefix), os.path.normpath(sys.base_prefix)
    dirs = {os.path.realpath(prefix), os.path.realpath(base), prefix, base}
    exe = os.path.realpath(interpreter())
    if not any(exe.startswith(d.rstrip("/") + "/") for d in dirs):
        dirs.add(os.path.dirname(os.path.dirname(exe)))
    # a prefix that is /usr (system python) is already mounted
    return sorted(d for d in dirs if d and d != "/" and not (d == "/usr" or d.startswith("/usr/")))


_OWN_MOUNTS = ("/tmp", "/dev", "/proc", "/etc", "/workspace")


def parents_to_make(path: str) -> list[str]:
    """The ancestors of a bound directory that the sandbox must make itself (outermost first), leaving out ``/``,
    ``/usr`` and the mounts the sandbox makes on its own."""
    out: list[str] = []
    parent = os.path.dirname(path.rstrip("/"))
    while parent not in ("", "/"):
        if parent in _OWN_MOUNTS or parent == "/usr" or parent.startswith("/usr/"):
            break
        out.append(parent)
        parent = os.path.dirname(parent)
    return out[::-1]


def closed_python_dirs() -> list[str]:
    """This interpreter's directories that others cannot read and enter: root's sandboxes run commands as an
    unprivileged uid, which would find no ``python3`` packages there (their parents do not matter: the sandbox
    makes its own)."""
    out = []
    for d in python_dirs():
        try:
            mode = os.stat(d).st_mode
        except OSError:
            continue
        if not (mode & stat.S_IROTH and mode & stat.S_IXOTH):
            out.append(d)
    return out


def mount_sources() -> list[tuple[str, str]]:
    """(host source, sandbox destination) of every host directory bound into a sandbox, in mount order."""
    out = [("/usr", "/usr")]
    for d in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        host = f"/{d}"
        if os.path.isdir(host) and not os.path.islink(host):
            out.append((host, host))
    out += [(d, d) for d in python_dirs()]
    return out


@functools.lru_cache(maxsize=1)
def _own_distribution_paths() -> tuple[str, ...]:
    """Every installed file or top-level directory of the ``jobenv`` distribution(s) this interpreter sees (cached:
    scanning the metadata of every installed package costs milliseconds)."""
    import importlib.metadata as md

    found = {str(Path(__file__).resolve().parents[2])}  # the jobenv package this process runs
    try:
        dists = list(md.distributions(name="jobenv"))
    except Exception:
        dists = []
    for dist in dists:
        for f in dist.files or []:
            parts = Path(f).parts
            if not parts:
                continue
            # a file outside site-packages (the console script) by itself; anything else by its top-level entry
            entry = Path(str(dist.locate_file(f))) if parts[0] == ".." else Path(str(dist.locate_file(parts[0])))
            found.add(os.path.realpath(entry))
    return tuple(sorted(found))


_LIB_DIRS = ("lib", "local/lib")
_INSTALL_NAMES = ("jobenv", "jobenv_*", "jobenv-*.dist-info", "jobenv-*.egg-info", "__editable__*jobenv*")
# the last scan of the mounts for installs of jobenv: the directories it listed (with their mtimes) and what it found
_SCAN: dict[str, Any] = {"key": None, "found": ()}
_SCAN_LOCK = threading.Lock()


def _mtimes(dirs: tuple[str, ...]) -> tuple[int | None, ...]:
    out: list[int | None] = []
    for d in dirs:
        try:
            out.append(os.stat(d).st_mtime_ns)
        except OSError:
            out.append(None)
    return tuple(out)


def _scan_installs() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(directories listed, installs of jobenv found) in the standard places under every mount source."""
    listed: set[str] = set()
    found: set[str] = set()
    for src, _ in mount_sources():
        for lib in _LIB_DIRS:
            listed.add(os.path.join(src, lib))
            for py in glob.glob(os.path.join(src, lib, "python3*")):
                listed.add(py)
                for packages in glob.glob(os.path.join(py, "*-packages")):
                    listed.add(packages)
                    for name in _INSTALL_NAMES:
                        found.update(os.path.realpath(p) for p in glob.glob(os.path.join(packages, name)))
    return tuple(sorted(listed)), tuple(sorted(found))


def _installed_copies() -> tuple[str, ...]:
    """Installs of jobenv in the standard places the mounts show (a system-wide copy next to a venv's).

    An install may appear at any time, so the places are looked at on every sandbox start, but listed again
    only when one of the directories the last scan listed has changed (a new entry changes its parent's
    mtime): a full scan is ~60 globs, which on the spawner threads held the GIL for a quarter of a busy
    rollout's Python time. A directory changed less than a second before the scan may change again within
    the same timestamp tick, so such a scan is not reused.
    """
    with _SCAN_LOCK:
        key = _SCAN["key"]
        if key is not None and _mtimes(key[0]) == key[1]:
            return tuple(_SCAN["found"])
        started = time.time_ns()
        listed, found = _scan_installs()
        mtimes = _mtimes(listed)
        settled = all(m is None or m < started - 1_000_000_000 for m in mtimes)
        _SCAN["key"] = (listed, mtimes) if settled else None
        _SCAN["found"] = found
        return found


def _distribution_paths() -> tuple[str, ...]:
    """:func:`_own_distribution_paths` plus :func:`_installed_copies`, those that exist now."""
    found = set(_own_distribution_paths()) | set(_installed_copies())
    return tuple(sorted(p for p in found if os.path.lexists(p)))


def host_only_paths() -> list[str]:
    """Host paths no sandbox may show: jobenv's installed files, the data directory and the cache directories."""
    return sorted(set(_distribution_paths()) | set(_data_paths()))


def _data_paths() -> list[str]:
    from ... import settings

    paths = {os.path.realpath(p) for p in settings.host_only_dirs()}
    return sorted(p for p in paths if os.path.lexists(p))


def task_host_only(task_folder: Path | None) -> list[str]:
    """The host-only siblings of a task's ``task_folder`` (its rubric, card, meta, solution...)."""
    if task_folder is None:
        return []
    task_dir = Path(os.path.realpath(task_folder)).parent
    out = {str(task_dir / n) for n in TASK_HOST_ONLY}
    try:
        out |= {str(p) for p in task_dir.iterdir() if p.name != Path(task_folder).name}
    except OSError:
        pass
    return sorted(p for p in out if os.path.lexists(p))


def _aliases(path: str, mounts: list[tuple[str, str]], reals: dict[str, str] | None = None) -> list[str]:
    """Where host ``path`` appears inside the sandbox through the given binds (empty: nowhere); ``reals`` maps a
    source to its resolved path when the caller has it."""
    out = []
    for src, dst in mounts:
        real = reals[src] if reals is not None and src in reals else os.path.realpath(src)
        for base in {src.rstrip("/") or "/", real.rstrip("/") or "/"}:
            if path == base or path.startswith(base + "/"):
                out.append(dst.rstrip("/") + path[len(base):])
    return sorted(set(out))


def hide_args(mounts: list[tuple[str, str]], snapshot: str) -> list[str]:
    """bwrap arguments that cover jobenv's own files and its data/cache dirs wherever the mounts show them.

    Each is covered by an empty read-only mount (a few mounts: bubblewrap's cost grows with their number). A
    package directory gets one holding only an ``__init__.py`` that raises ``ModuleNotFoundError``, because an
    empty directory named ``jobenv`` on ``sys.path`` would still import as a namespace package.
    """
    args: list[str] = []
    package = os.path.dirname(os.path.realpath(_jobenv_init()))
    for p in sorted(set(_distribution_paths()) | set(_data_paths())):
        if os.path.islink(p):
            continue  # a symlink shows only its target's path, which is checked on its own
        if p == package or (os.path.isdir(p) and os.path.isfile(os.path.join(p, "__init__.py"))):
            cover = os.path.join(snapshot, "absent-package")
        else:
            cover = os.path.join(snapshot, "empty" if os.path.isdir(p) else "empty-file")
        for alias in _aliases(p, mounts):
            args += ["--ro-bind", cover, alias]
    return args


def _jobenv_init() -> str:
    return str(Path(__file__).resolve().parents[2] / "__init__.py")  # the jobenv package this process runs


def check_invisible(root: str, paths: list[str], mounts: list[tuple[str, str]],
                    reals: dict[str, str] | None = None) -> None:
    """The start-up guard: SandboxError naming the first host-only path the sandbox (seen at ``root``) can see.

    A path counts as visible when the sandbox has, at the path itself or at any alias of it through a mount, an
    entry with the host entry's device and inode (an empty hiding mount has neither).
    """
    for p in paths:
        try:
            host = os.lstat(p)
        except OSError:
            continue
        for inside in sorted({p, *_aliases(p, mounts, reals)}):
            try:
                seen = os.lstat(root + inside)
            except OSError:
                continue
            if (seen.st_dev, seen.st_ino) == (host.st_dev, host.st_ino):
                raise SandboxError(
                    f"refusing to start the sandbox: the host-only path {p} would be visible inside it at {inside}. "
                    "Keep task data, jobenv's data directory and its caches outside the directories the sandbox "
                    "mounts (/usr, the Python prefix)."
                )


class MountPlan(NamedTuple):
    """What every start of the current configuration binds, hides and checks."""

    interpreter: str
    python_dirs: tuple[str, ...]
    sources: tuple[tuple[str, str], ...]  # (host source, sandbox destination) of every bound directory
    reals: tuple[tuple[str, str], ...]  # each source and its resolved path
    host_only: tuple[str, ...]  # what no sandbox may show (the guard checks these after each launch)
    closed: tuple[str, ...]  # python dirs others cannot enter (refused when commands run as another uid)
    hide: tuple[str, ...]  # bwrap arguments covering host-only paths under the mounts
    snapshot: str


_PLAN: dict[str, Any] = {"key": None, "plan": None}
_PLAN_LOCK = threading.Lock()


def mount_plan() -> MountPlan:
    """The plan for a start now: cached while its inputs (checked with a few ``stat`` calls) are unchanged."""
    from ..toolchain import active_toolchain

    snap = etc_snapshot()
    tc = active_toolchain()
    key = (None if tc is None else (tc.root, tc.python), sys.executable, sys.prefix, _distribution_paths(),
           tuple(_data_paths()), snap)
    with _PLAN_LOCK:
        if _PLAN["key"] != key:
            sources = tuple(mount_sources())
            _PLAN["plan"] = MountPlan(
                interpreter=interpreter(), python_dirs=tuple(python_dirs()), sources=sources,
                reals=tuple((src, os.path.realpath(src)) for src, _ in sources), host_only=tuple(host_only_paths()),
                closed=tuple(closed_python_dirs()), hide=tuple(hide_args(list(sources), snap)), snapshot=snap)
            _PLAN["key"] = key
        return _PLAN["plan"]  # type: ignore[no-any-return]
