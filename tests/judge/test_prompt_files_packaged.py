"""The judge's prompt text lives in data files: they must ship in the wheel users install."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_prompt_files_are_in_the_wheel(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    wheel = next(tmp_path.glob("jobenv-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    prompts = sorted(p.name for p in (ROOT / "jobenv/judge/prompts").glob("*.txt"))
    assert prompts == ["images.txt", "rubric.txt", "system.txt"]
    assert {f"jobenv/judge/prompts/{p}" for p in prompts} <= names
    assert {"jobenv/extract/sheets.py", "jobenv/extract/recalc.py", "jobenv/extract/notebook.py"} <= names
