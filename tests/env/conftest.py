"""Fixtures for environment tests: small real task directories graded by deterministic checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from jobenv.tasks import load_task_dir
from tests.support.tasks import write_task

RUBRICS = {
    "rubrics": [
        {"rubric": "Delivers the report", "weight": 10, "criterion": ["output/report.md exists"],
         "jobenv_checks": [{"kind": "file_exists", "file": "report.md"}]},
        {"rubric": "States the total", "weight": 6, "criterion": ["The report states the total of 200"],
         "jobenv_checks": [{"kind": "number", "file": "report.md", "value": 200}]},
    ]
}


def make_task(root: Path, occupation: str, number: int, instructions: str) -> Path:
    return write_task(root / occupation / f"task{number}", instructions=instructions, rubrics=RUBRICS, extras=False,
                      files={"sales.csv": "region,amount\nNorth,120\nSouth,80\n"})


@pytest.fixture
def mini_tasks(tmp_path: Path):
    """Three tasks: analysts/task1, analysts/task2, clerks/task1 (same rubric: report.md with the total 200)."""
    root = tmp_path / "mini"
    dirs = [
        make_task(root, "analysts", 1, "Write output/report.md stating the total sales.\nLocal Reference Files:\n- sales.csv\n"),
        make_task(root, "analysts", 2, "Total the sales (ünïcödé ✓ 数据).\nLocal Reference Files:\n- sales.csv\n"),
        make_task(root, "clerks", 1, "Report the total.\nLocal Reference Files:\n- sales.csv\n"),
    ]
    return [load_task_dir(d, "mini") for d in dirs]
