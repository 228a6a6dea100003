"""Fixtures of the packaging tests: one wheel of the checkout per session, and a fresh venv per extra."""

from __future__ import annotations

import subprocess
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


class Venv:
    """A fresh virtual environment with the jobenv wheel (and one extra) installed non-editably."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.python = root / "bin" / "python"
        self.jobenv = root / "bin" / "jobenv"

    def run(self, *args: str, timeout: float = 300, env: dict[str, str] | None = None,
            cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        import os

        full = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        full.update({"OPENREWARD_DISABLE_UPDATE_CHECK": "1", **(env or {})})
        return subprocess.run(list(args), capture_output=True, text=True, timeout=timeout, env=full,
                              cwd=str(cwd or self.root))

    def cli(self, *args: str, **kw: object) -> subprocess.CompletedProcess[str]:
        return self.run(str(self.jobenv), *args, **kw)  # type: ignore[arg-type]

    def py(self, code: str, **kw: object) -> subprocess.CompletedProcess[str]:
        return self.run(str(self.python), "-c", code, **kw)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def wheel(jobenv_wheel: Path) -> Path:
    """The session's one wheel of the checkout (tests/conftest.py), shared with the integration tests."""
    return jobenv_wheel


def make_venv(tmp_path_factory: pytest.TempPathFactory, wheel: Path, extra: str | None) -> Venv:
    root = tmp_path_factory.mktemp(f"venv-{extra or 'core'}")
    root.chmod(0o755)  # as `python -m venv` makes it under a usual umask (pytest's folders are 0700)
    venv.create(root, with_pip=True)
    env = Venv(root)
    target = f"{wheel}[{extra}]" if extra else str(wheel)
    # --no-compile: byte-compiling pandas & co. is most of an install's time and tests nothing of ours
    proc = env.run(str(env.python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile",
                   target, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return env


@pytest.fixture(scope="module")
def core_venv(tmp_path_factory: pytest.TempPathFactory, wheel: Path) -> Iterator[Venv]:
    yield make_venv(tmp_path_factory, wheel, None)


@pytest.fixture(scope="module")
def hosting_venv(tmp_path_factory: pytest.TempPathFactory, wheel: Path) -> Iterator[Venv]:
    yield make_venv(tmp_path_factory, wheel, "hosting")


@pytest.fixture(scope="module")
def docker_venv(tmp_path_factory: pytest.TempPathFactory, wheel: Path) -> Iterator[Venv]:
    yield make_venv(tmp_path_factory, wheel, "docker")


@pytest.fixture(scope="module")
def synthetic_venv(tmp_path_factory: pytest.TempPathFactory, wheel: Path) -> Iterator[Venv]:
    yield make_venv(tmp_path_factory, wheel, "synthetic")
