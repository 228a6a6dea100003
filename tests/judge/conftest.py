"""Helpers for judge tests: tasks built from rubric JSON, and a scripted loopback judge."""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

import pytest

from jobenv.tasks import Task, parse_rubrics


def make_task(tmp_path: Path, rubrics: list[dict[str, Any]], meta: dict[str, Any] | None = None) -> Task:
    root = tmp_path / "occ" / "task1"
    (root / "task_folder").mkdir(parents=True, exist_ok=True)
    return Task(split="test", occupation="occ", number=1, instructions="do it", task_folder=root / "task_folder",
                rubrics=parse_rubrics({"rubrics": rubrics}), root=root, meta=meta)


def prompt_text(request: dict[str, Any]) -> str:
    content = request["messages"][-1]["content"]
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if p.get("type") == "text")
    return content


def n_criteria(request: dict[str, Any]) -> int:
    return len(re.findall(r"^Criterion \d+: ", prompt_text(request).split("## Deliverables", 1)[0], re.M))


def rubric_of(request: dict[str, Any]) -> str:
    return re.search(r"^## Rubric\n(.*)$", prompt_text(request), re.M).group(1)


def verdict(n: int, passed: list[bool] | None = None, rubric_passed: bool | None = None, **extra: Any) -> dict[str, Any]:
    passed = passed if passed is not None else [True] * n
    return {
        "criteria_results": [
            {"index": i, "passed": p, "reasoning": f"criterion {i} checked", "evidence": "memo.md line 1"}
            for i, p in enumerate(passed)
        ],
        "rubric_passed": all(passed) if rubric_passed is None else rubric_passed,
        "overall_reasoning": "ok",
        **extra,
    }


class InFlight:
    """Counts concurrent handler calls (to observe the judge's parallelism without timing)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = 0
        self.max = 0

    def __enter__(self) -> InFlight:
        with self.lock:
            self.now += 1
            self.max = max(self.max, self.now)
        return self

    def __exit__(self, *exc: object) -> None:
        with self.lock:
            self.now -= 1


RUBRICS = [
    {"rubric": "States the Q3 total", "weight": 10, "criterion": ["Gives 41,250 as the Q3 total", "Names the currency"]},
    {"rubric": "Flags the anomaly", "weight": 6, "criterion": ["Mentions the March spike"]},
    {"rubric": "Recommends an action", "weight": 4, "criterion": ["Recommends a review", "Gives a deadline", "Names an owner"]},
]


@pytest.fixture
def task(tmp_path: Path) -> Task:
    return make_task(tmp_path, RUBRICS)


@pytest.fixture
def output(tmp_path: Path) -> Path:
    out = tmp_path / "output"
    out.mkdir()
    (out / "memo.md").write_text("Q3 total: USD 41,250. March spike flagged. Review by Friday, owner: Ana.\n")
    return out
