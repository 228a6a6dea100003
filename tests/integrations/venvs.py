"""Fresh virtual environments with jobenv installed from a wheel of this checkout, as a user installs it.

The wheel is the session's one build (``jobenv_wheel`` in tests/conftest.py); each integration gets its own new
venv (made by ``python -m venv``, so it has pip) into which ``uv pip install`` puts ``<wheel>[<extra>]`` (and any
extra packages) from the package index. uv installs the same wheel and metadata as pip, in a fraction of the time
(these venvs were minutes of the suite); the packaging tests (tests/install, tests/security) keep pip, as users
have it. When a package cannot be had at all (not on the index, or no index reachable), :func:`make_venv` raises
:class:`Unavailable` and the caller skips with that reason; a dependency conflict is a failure, never a skip.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

_UNAVAILABLE = (
    "not found in the package registry",
    "Failed to fetch",
    "dns error",
    "Temporary failure in name resolution",
    "Network is unreachable",
)
_CONFLICT = "No solution found when resolving dependencies"


def _uv() -> str:
    """uv of the test tools (the ``dev`` extra), beside this interpreter."""
    return str(Path(sys.executable).parent / "uv")


class Unavailable(Exception):
    """A package the integration needs cannot be installed from the index here."""


class Venv:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.bin = root / "bin"
        self.python = str(self.bin / "python")
        self.install_s = 0.0

    def run(self, *args: str, env: dict[str, str] | None = None, timeout: float = 600,
            cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        """Run ``args`` (a program in the venv's bin/ by name, or any path) with the venv first on PATH."""
        full = {**os.environ, **(env or {})}
        full["PATH"] = f"{self.bin}{os.pathsep}{full.get('PATH', '')}"
        full.pop("PYTHONPATH", None)  # only what is installed in the venv
        full["VIRTUAL_ENV"] = str(self.root)
        prog = str(self.bin / args[0]) if (self.bin / args[0]).exists() else args[0]
        return subprocess.run([prog, *args[1:]], env=full, capture_output=True, text=True, timeout=timeout,
                              cwd=str(cwd) if cwd else None)


def python_at_least(version: tuple[int, int]) -> str:
    """An interpreter of at least ``version`` for integrations that need a newer Python than the suite's: this
    one, else ``python3.X`` on PATH, else pyenv's. Raises Unavailable when there is none."""
    import glob
    import shutil

    if sys.version_info[:2] >= version:
        return sys.executable
    for minor in range(version[1], version[1] + 4):
        pyenv = sorted(glob.glob(str(Path.home() / f".pyenv/versions/{version[0]}.{minor}.*/bin/python")))
        for candidate in [*pyenv[::-1], shutil.which(f"python{version[0]}.{minor}")]:
            # a pyenv shim on PATH exists without working (exit 127): only an interpreter that runs counts
            if candidate and subprocess.run([candidate, "-c", "import venv"], capture_output=True).returncode == 0:
                return candidate
    raise Unavailable(f"no Python >= {version[0]}.{version[1]} on this machine (PATH or ~/.pyenv)")


def make_venv(root: Path, wheel: Path, extra: str, *more: str, python: str | None = None) -> Venv:
    """A new venv at ``root`` (made by ``python``, default this interpreter) with ``wheel[extra]`` and ``more``
    installed from the index.

    Raises Unavailable (say why) when a package cannot be had, RuntimeError for any other install failure.
    """
    subprocess.run([python or sys.executable, "-m", "venv", str(root)], check=True, capture_output=True, timeout=300)
    venv = Venv(root)
    t0 = time.monotonic()
    spec = f"{wheel}[{extra}]" if extra else str(wheel)
    proc = venv.run(_uv(), "pip", "install", "--python", venv.python, "--quiet", spec, *more, timeout=1500)
    venv.install_s = time.monotonic() - t0
    if proc.returncode != 0:
        text = proc.stdout + proc.stderr
        if any(marker in text for marker in _UNAVAILABLE) and _CONFLICT not in text:
            line = next((ln for ln in text.splitlines() if any(m in ln for m in _UNAVAILABLE)), text[-300:])
            raise Unavailable(f"cannot install {spec} {' '.join(more)} from the package index: {line.strip()}")
        raise RuntimeError(f"uv pip install {spec} {' '.join(more)} failed:\n{text[-4000:]}")
    return venv
