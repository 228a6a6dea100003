"""``jobenv export-harbor`` run from a pip-installed jobenv bundles, into each task's ``tests/``, a wheel that is the
installed one again: the same files and the same requirements (made with no build tool and no network)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from .conftest import Venv

pytestmark = pytest.mark.slow


def _requirements(zf: zipfile.ZipFile, info: str) -> set[str]:
    return {line.split(":", 1)[1].strip() for line in zf.read(f"{info}/METADATA").decode().splitlines()
            if line.startswith("Requires-Dist:")}


def test_the_bundled_wheel_of_an_installed_jobenv_is_that_wheel(core_venv: Venv, wheel: Path, tmp_path: Path) -> None:
    out = tmp_path / "export"
    proc = core_venv.cli("export-harbor", "jobenv/sample", "--out", str(out), "--tasks", "financial_managers/task1",
                         timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (bundled,) = out.glob("*/tests/jobenv-*.whl")
    assert bundled.name == wheel.name
    version = wheel.name.split("-")[1]
    info = f"jobenv-{version}.dist-info"
    with zipfile.ZipFile(wheel) as original, zipfile.ZipFile(bundled) as made:
        kept = {n for n in original.namelist() if not n.startswith(info)}
        assert {n for n in made.namelist() if not n.startswith(info)} == kept
        assert all(made.read(n) == original.read(n) for n in kept)
        assert _requirements(made, info) == _requirements(original, info)
        assert made.read(f"{info}/entry_points.txt") == original.read(f"{info}/entry_points.txt")
