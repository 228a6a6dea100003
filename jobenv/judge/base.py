"""The judge protocol and the reports every judge shares (empty output, refused files).

A judge's ``grade`` never raises for infrastructure problems (API failures, unparseable replies,
refused files, missing configuration): it returns a report with ``status="error"`` instead.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any

from .._aio import run_sync
from ..errors import JudgeConfigError
from .report import CriterionResult, GradeReport, RubricResult, build_report

__all__ = ["Judge", "check_judge", "empty_output_report", "rejected_report", "run_sync"]


class Judge(ABC):
    """Grades one task's output directory. ``kind`` is "checks", "llm" or "auto"."""

    kind: str = ""

    @abstractmethod
    async def grade(self, task: Any, output_dir: Path) -> GradeReport:
        """Grade ``output_dir`` against ``task``'s rubrics; never raises for infrastructure problems."""

    def grade_sync(self, task: Any, output_dir: Path) -> GradeReport:
        """Blocking :meth:`grade`."""
        return run_sync(self.grade(task, output_dir))

    def unable(self, task: Any) -> str | None:
        """Why this judge, as configured, cannot grade ``task`` at all (None when it can): known before any
        episode runs, so an env refuses the task at construction instead of erroring after the agent's work."""
        return None

    def preflight(self, tasks: list[Any]) -> None:
        """Check, with one cheap request, that the endpoint this judge would call to grade ``tasks`` answers for
        its key and model (:mod:`jobenv.judge.endpoint`); JudgeConfigError when not. Judges that call no
        endpoint for these tasks, or whose check is switched off, return at once."""
        return None


def check_judge(judge: Judge, tasks: Any, where: str) -> None:
    """Raise JudgeConfigError (one line naming the fix) when ``judge`` cannot grade some of ``tasks``: a task it
    cannot grade at all, or an endpoint it would call that does not answer (:meth:`Judge.preflight`)."""
    tasks = list(tasks)
    problems = [(t, why) for t in tasks if (why := judge.unable(t)) is not None]
    if problems:
        task, why = problems[0]
        raise JudgeConfigError(f"{where}: the {judge.kind!r} judge cannot grade {len(problems)} of {len(tasks)} "
                               f"task(s) (first: {getattr(task, 'id', '?')}): {why}")
    try:
        judge.preflight(tasks)
    except JudgeConfigError as exc:
        raise JudgeConfigError(f"{where}: {exc}") from None


def _unjudged(task: Any, reasoning: str) -> list[RubricResult]:
    return [
        RubricResult(
            index=i,
            rubric=r.text,
            weight=r.weight,
            overall_reasoning=reasoning,
            criteria_results=[
                CriterionResult(index=j, criterion=c, passed=False, reasoning=reasoning) for j, c in enumerate(r.criteria)
            ],
        )
        for i, r in enumerate(task.rubrics)
    ]


def empty_output_report(task: Any, kind: str, model: str | None, mode: str, t0: float) -> GradeReport:
    """Every rubric fails, reward 0.0, no judge call (the official rule for an empty output directory)."""
    return build_report(
        task, _unjudged(task, "the output directory holds no deliverable"), judge_kind=kind, judge_model=model,
        mode=mode, empty_output=True, latency_s=time.perf_counter() - t0,
    )


def rejected_report(task: Any, extraction: Any, kind: str, model: str | None, mode: str, t0: float) -> GradeReport:
    """Fail-closed: a symlink or special file in the output directory is an error, not a score."""
    listed = ", ".join(extraction.rejected[:10]) + (" ..." if len(extraction.rejected) > 10 else "")
    return build_report(
        task, _unjudged(task, "not judged: refused entries in the output directory"), judge_kind=kind,
        judge_model=model, mode=mode, rejected=extraction.rejected,
        extra_errors=[f"refused entries in the output directory (symlinks or special files): {listed}"],
        latency_s=time.perf_counter() - t0,
    )
