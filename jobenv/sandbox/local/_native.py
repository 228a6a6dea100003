"""Which program is PID 1 of a local sandbox: the native controller (``controller.c``) or the Python fallback.

The native controller is a small static C program with the Python controller's protocol and guarantees
(:mod:`._agent`): it starts in well under a millisecond and adds about 0.2 MB per sandbox, against ~20 ms of CPU and
~4 MB for ``python -I -S``. It is compiled once per machine and source version with the host's C compiler (``cc``
or ``gcc``; ~0.3 s) into ``<cache>/bin`` (``jobenv toolchain install`` does it ahead of time; otherwise the first
sandbox start does), and bound read-only at ``/init`` inside each sandbox. ``$JOBENV_CONTROLLER`` chooses:
``auto`` (default: native when it can be built, else the Python controller, named by :func:`controller_note`),
``native`` (refuse to start without it) or ``python``.

A cached binary is used only when this user owns it and its folder and neither is writable by others; otherwise it
is rebuilt. Failure behaviour: :func:`native_controller` never raises in ``auto`` mode (it returns None and keeps
the reason); in ``native`` mode a build that fails is a :class:`SandboxUnavailableError` naming why.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import platform
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

from ... import settings
from ...errors import ConfigError, SandboxUnavailableError
from ..gc import host_tempdir

__all__ = ["SOURCE", "MODES", "controller_mode", "native_controller", "controller_note", "build_controller"]

SOURCE = Path(__file__).with_name("controller.c")
MODES = ("auto", "native", "python")
_LOCK = threading.Lock()
_CHOICE: dict[tuple[str, str], tuple[str | None, str]] = {}  # (mode, cache dir) -> (binary, why not)


def controller_mode() -> str:
    """``$JOBENV_CONTROLLER`` (auto when unset); ConfigError for any other value."""
    mode = (settings.get("JOBENV_CONTROLLER") or "auto").strip().lower()
    if mode not in MODES:
        raise ConfigError(f"JOBENV_CONTROLLER must be one of {', '.join(MODES)}, not {mode!r}")
    return mode


def _target() -> Path:
    digest = hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:16]
    return settings.cache_dir() / "bin" / f"jobenv-controller-{digest}-{platform.machine()}"


def _trusted(path: Path) -> bool:
    """Ours alone: owned by this user and not writable by group or others (the file and its folder)."""
    try:
        for p in (path, path.parent):
            st = p.stat()
            if st.st_uid != os.geteuid() or st.st_mode & 0o022:
                return False
        return os.access(path, os.X_OK)
    except OSError:
        return False


def _compiler() -> str | None:
    return shutil.which("cc") or shutil.which("gcc")


def build_controller(dest: Path | None = None) -> Path:
    """Compile ``controller.c`` (static when the C library allows, else dynamic) to ``dest`` (default: the cache).

    Atomic (compiled beside the target, then renamed). SandboxUnavailableError when no compiler is found or the
    compilation fails, with the compiler's first error line.
    """
    target = dest or _target()
    cc = _compiler()
    if cc is None:
        raise SandboxUnavailableError("no C compiler (cc or gcc) on PATH to build the native sandbox controller")
    try:
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=target.parent))
    except OSError as exc:
        raise SandboxUnavailableError(f"cannot build the native sandbox controller in {target.parent}: "
                                      f"{exc.strerror or exc}") from None
    try:
        out = tmp / "controller"
        err = ""
        for extra in (["-static"], []):  # static: no loader or library to map at each start
            proc = subprocess.run([cc, "-O2", "-s", *extra, "-o", str(out), str(SOURCE)],
                                  capture_output=True, text=True, timeout=120)
            if proc.returncode == 0:
                break
            err = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[0]
        else:
            raise SandboxUnavailableError(f"cannot build the native sandbox controller with {cc}: {err}")
        out.chmod(0o755)
        os.replace(out, target)
    except (OSError, subprocess.SubprocessError) as exc:
        raise SandboxUnavailableError(f"cannot build the native sandbox controller: {exc}") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def native_controller() -> str | None:
    """Path of the native controller to run (building it on first use), or None for the Python controller.

    ConfigError for a bad ``$JOBENV_CONTROLLER``; SandboxUnavailableError when it says ``native`` and the program
    cannot be built.
    """
    mode = controller_mode()
    key = (mode, str(settings.cache_dir()))
    with _LOCK:
        if key not in _CHOICE:
            _CHOICE[key] = _choose(mode)
        path, why = _CHOICE[key]
    if path is None and mode == "native":
        raise SandboxUnavailableError(f"JOBENV_CONTROLLER=native but {why}")
    return path


def _choose(mode: str) -> tuple[str | None, str]:
    if mode == "python":
        return None, "JOBENV_CONTROLLER=python"
    try:
        target = _target()
    except OSError as exc:  # an install without the source (a broken or trimmed package)
        return None, f"cannot read the native controller's source {SOURCE}: {exc.strerror or exc}"
    try:
        if not _trusted(target):
            build_controller(target)
        _runs(target)
        return str(target), ""
    except SandboxUnavailableError as exc:
        why = str(exc)
    if _compiler() is None:
        return None, why
    # a cache this user cannot write (or does not own): a private copy for this process, removed at exit
    private = Path(host_tempdir("controller"))
    atexit.register(shutil.rmtree, private, True)
    try:
        path = build_controller(private / target.name)
        _runs(path)
        return str(path), ""
    except SandboxUnavailableError as exc:
        shutil.rmtree(private, ignore_errors=True)
        return None, f"{why}; {exc}"


def _runs(path: Path) -> None:
    """SandboxUnavailableError unless the binary executes here (a cache on a ``noexec`` mount would not, and the
    sandbox binds it from the same mount)."""
    try:
        proc = subprocess.run([str(path), "--launch", "0", "/bin/true"], capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError) as exc:
        raise SandboxUnavailableError(f"the native sandbox controller {path} cannot run: {exc}") from None
    if proc.returncode != 0:
        raise SandboxUnavailableError(f"the native sandbox controller {path} cannot run (exit {proc.returncode})")


def controller_note() -> str:
    """One line for reports: ``native (<path>)`` or ``python (fallback: <why>)``; never raises."""
    try:
        path = native_controller()
    except (ConfigError, SandboxUnavailableError) as exc:
        return f"unavailable ({exc})"
    if path is not None:
        return f"native ({path})"
    return f"python (fallback: {_CHOICE[(controller_mode(), str(settings.cache_dir()))][1]})"
