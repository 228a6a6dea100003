"""Helpers for the bundled sample split tests: run a reference solution and grade its output with the checks judge."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLE_ROOT = REPO / "jobenv" / "data" / "sample"
BUILDER = REPO / "sample_builder" / "build_sample.py"


def task_dirs() -> list[Path]:
    return sorted(p for p in SAMPLE_ROOT.glob("*/task*") if p.is_dir())


def run_solution(task_root: Path, task_folder: Path, out: Path) -> None:
    """Run ``solution/solve.py TASK_FOLDER OUT`` with this interpreter (the project's .venv python)."""
    proc = subprocess.run(
        [sys.executable, str(task_root / "solution" / "solve.py"), str(task_folder), str(out)],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, f"{task_root}: solution failed\n{proc.stderr[-3000:]}"


def grade(task, out: Path):
    from jobenv.judge import make_judge

    return asyncio.run(make_judge("checks").grade(task, out))


def failed_rubrics(report) -> list[str]:
    return [r.rubric for r in report.rubrics if not r.passed]


@pytest.fixture(scope="session")
def solved(tmp_path_factory):
    """{task id: output dir} with every reference solution run once on the bundled task folders."""
    from jobenv.tasks import load_task_dir

    base = tmp_path_factory.mktemp("sample-solutions")
    outs = {}
    for d in task_dirs():
        task = load_task_dir(d, "sample")
        out = base / task.id.replace("/", "__")
        run_solution(d, task.task_folder, out)
        outs[task.id] = out
    return outs
