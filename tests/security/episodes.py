"""Whole episodes driven like an adversarial agent would: bash steps, then submit, graded by deterministic checks."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from jobenv.env import JobEnv
from jobenv.sandbox import SandboxLimits
from jobenv.tasks import Task, load_task_dir

RUBRICS = {
    "rubrics": [
        {"rubric": "Delivers the report", "weight": 1, "criterion": ["output/report.md exists"],
         "jobenv_checks": [{"kind": "file_exists", "file": "report.md"}]},
        {"rubric": "States the total", "weight": 1, "criterion": ["The report states the total of 200"],
         "jobenv_checks": [{"kind": "number", "file": "report.md", "value": 200}]},
    ]
}


def make_task(root: Path) -> Task:
    d = root / "clerks" / "task1"
    (d / "task_folder").mkdir(parents=True)
    (d / "task_folder" / "TASK_INSTRUCTIONS.txt").write_text("Write output/report.md with the total of sales.csv.\n")
    (d / "task_folder" / "sales.csv").write_text("region,amount\nNorth,120\nSouth,80\n")
    (d / "RUBRICS.json").write_text(json.dumps(RUBRICS))
    return load_task_dir(d, "redteam")


def play(task: Task, commands: list[str], *, backend: str = "local", options: dict[str, Any] | None = None,
         limits: SandboxLimits | None = None, timeout: float = 60) -> tuple[float, dict[str, Any], list[str]]:
    """Run ``commands`` as bash steps, then submit. Returns (reward, final info, observations)."""
    env = JobEnv([task], judge="checks", sandbox=backend, sandbox_options=options or {}, limits=limits,
                 max_steps=len(commands) + 2)
    observations = []
    try:
        env.reset(options={"index": 0})
        for cmd in commands:
            obs, _, term, trunc, _ = env.step({"name": "bash", "arguments": {"command": cmd, "timeout": timeout}})
            observations.append(obs)
            assert not (term or trunc), obs
        obs, reward, term, _, info = env.step({"name": "submit", "arguments": {}})
        observations.append(obs)
        assert term
        json.dumps(info, default=str)  # whatever the agent did, the step's info serialises
        return float(reward), info, observations
    finally:
        env.close()


def grade_dirs() -> list[str]:
    """jobenv grading folders of this process left in the temp dir."""
    tmp = tempfile.gettempdir()
    return [n for n in os.listdir(tmp) if n.startswith(f"jobenv-{os.getpid()}-grade-")]
