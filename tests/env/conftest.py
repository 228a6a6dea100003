"""Fixtures for environment tests: small real task directories graded by deterministic checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jobenv.tasks import load_task_dir

RUBRICS = {
    "rubrics": [
        {"rubric": "Delivers the report", "weight": 10, "criterion": ["output/report.md exists"],
         "jobenv_checks": [{"kind": "file_exists", "file": "report.md"}]},
        {"rubric": "States the total", "weight": 6, "criterion": ["The report states the total of 200"],
         "jobenv_checks": [{"kind": "number", "file": "report.md", "value": 200}]},
    ]
}


def make_task(root: Path, occupation: str, number: int, instructions: str) -> Path:
    d = root / occupation / f"task{number}"
    (d / "task_folder").mkdir(parents=True)
    (d / "task_folder" / "TASK_INSTRUCTIONS.txt").write_text(instructions, encoding="utf-8")
    (d / "task_folder" / "sales.csv").write_text("region,amount\nNorth,120\nSouth,80\n")
    (d / "RUBRICS.json").write_text(json.dumps(RUBRICS))
    return d


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
