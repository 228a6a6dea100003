"""The ``skyrl`` extra and the error of a SkyRL side that does not import, without installing SkyRL: the extra pins
the range test_skyrl.py runs and brings what the import needs, and the error names the module really missing."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parents[2]


def test_the_extra_pins_the_tested_range_and_what_the_import_needs() -> None:
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    reqs = {Requirement(r).name: Requirement(r) for r in extras["skyrl"]}
    for name, tested in (("skyrl", "0.3.0"), ("skyrl-gym", "0.4.0")):  # the pins of tests/integrations/conftest.py
        spec = reqs[name].specifier
        assert tested in spec and any(s.operator == "<" for s in spec), (name, str(spec))
    assert "0.4.0" not in reqs["skyrl"].specifier  # the release the unbounded extra used to resolve
    assert {"torch", "orjson", "pybase64", "openreward"} <= set(reqs)


def _import_error(tmp_path: Path, fake: dict[str, str]) -> str:
    for rel, text in fake.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    code = ("import sys; sys.path.insert(0, sys.argv[1])\n"
            "try:\n    import jobenv.integrations.skyrl\nexcept Exception as exc:\n"
            "    print(type(exc).__name__ + ': ' + str(exc))\n")
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=120)
    return proc.stdout.strip()


def test_the_error_names_the_module_that_is_really_missing(tmp_path: Path) -> None:
    assert "cannot import 'skyrl_gym'" in _import_error(tmp_path / "none", {})  # SkyRL itself absent here
    # SkyRL present, but one of its own imports is not: that module is named, not only jobenv's extra
    out = _import_error(tmp_path / "partial", {"skyrl_gym/__init__.py": "import orjson_not_installed_here\n"})
    assert out.startswith("MissingExtraError") and "cannot import 'orjson_not_installed_here'" in out
    assert "pip install 'jobenv[skyrl]'" in out
