"""Judge selection and hybrid grading: deterministic checks where they are sound, the LLM for the rest.

``AutoJudge`` grades a task as follows:

* every criterion has a sound check (``task.has_checks``): the checks judge alone, no LLM call;
* some criteria need the LLM (a rubric without checks, or a check of kind ``llm``): the checks decide the
  criteria they can, and one LLM call per rubric that holds LLM criteria grades only those criteria. Each
  criterion result names its grader (``grader="checks"`` or ``"llm"``); a rubric earns its weight only when
  every criterion passed, whoever decided it. ``judge_kind`` of such a report is ``"auto"``;
* no checks at all: the LLM judge.

Failure behaviour: without an LLM configured, grading a task that needs it returns a report with
``status="error"`` whose message names the three ``JOBENV_JUDGE_*`` variables (an empty output still
scores 0.0 without any judge, and refused files are still an error). An LLM failure on one rubric makes
the report an error (fail-closed), never a partial score.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from ..errors import JudgeConfigError
from ..extract import Extraction, ExtractMode
from ..extract.service import extraction_service
from .base import Judge, empty_output_report, rejected_report
from .checks import ChecksJudge, evaluate_rubrics
from .config import JUDGE_KINDS, JudgeConfig
from .llm import CONFIG_HINT, LLMJudge
from .report import CriterionResult, GradeReport, RubricResult, build_report

__all__ = ["AutoJudge", "make_judge"]


class AutoJudge(Judge):
    """Checks for the criteria they grade soundly, one LLM call per rubric for the rest (see the module docstring)."""

    kind = "auto"

    def __init__(self, *, mode: ExtractMode = "values", **llm_options: Any) -> None:
        self.mode = mode
        self.checks = ChecksJudge(mode=mode)
        self.llm_options = llm_options
        self._llm: LLMJudge | None = None
        self._llm_error: str | None = None
        try:
            self._llm = LLMJudge(mode=mode, **llm_options)
        except JudgeConfigError as exc:
            self._llm_error = str(exc)

    @property
    def llm(self) -> LLMJudge | None:
        return self._llm

    def unable(self, task: Any) -> str | None:
        if task.has_checks or self._llm is not None:
            return None
        return (f"{len(task.llm_criteria)} criteria have no sound deterministic check, so they need the LLM judge, "
                f"which is not configured: {CONFIG_HINT}")

    def preflight(self, tasks: list[Any]) -> None:
        if self._llm is not None:  # only the tasks the LLM grades part of
            self._llm.preflight([t for t in tasks if not t.has_checks])

    async def grade(self, task: Any, output_dir: Path) -> GradeReport:
        if task.has_checks:
            return await self.checks.grade(task, output_dir)
        if self._llm is not None and not any(r.checks for r in task.rubrics):
            return await self._llm.grade(task, output_dir)
        t0 = time.perf_counter()
        try:
            total = self._llm.total_chars if self._llm is not None else None  # the LLM's request budget
            ex = await extraction_service().extract_output(Path(output_dir), mode=self.mode, total_cap=total)
            if ex.rejected:
                return rejected_report(task, ex, self.kind, None, self.mode, t0)
            if ex.empty:
                return empty_output_report(task, self.kind, None, self.mode, t0)
            if self._llm is None:
                err = (f"task {getattr(task, 'uid', '?')} has {len(task.llm_criteria)} criteria without a sound "
                       f"deterministic check, so it needs the LLM judge, which is not configured: {CONFIG_HINT}")
                return build_report(task, [], judge_kind=self.kind, judge_model=None, mode=self.mode,
                                    extra_errors=[err], latency_s=time.perf_counter() - t0)
            return await self._hybrid(task, ex, t0)
        except Exception as exc:  # fail-closed: never a score from a crashed grader
            return build_report(task, [], judge_kind=self.kind, judge_model=None, mode=self.mode,
                                extra_errors=[f"hybrid judge failed: {type(exc).__name__}: {exc}"],
                                latency_s=time.perf_counter() - t0)

    async def _hybrid(self, task: Any, ex: Extraction, t0: float) -> GradeReport:
        assert self._llm is not None
        verdicts = await asyncio.to_thread(evaluate_rubrics, task.rubrics, ex,
                                           instructions=getattr(task, "instructions", "") or "",
                                           inputs=getattr(task, "task_folder", None))
        # one sub-rubric per rubric holding LLM criteria, with only those criteria
        todo = [(i, [j for j, v in enumerate(row) if v is None]) for i, row in enumerate(verdicts)]
        todo = [(i, js) for i, js in todo if js]
        sub_rubrics = [task.rubrics[i].model_copy(update={"criteria": [task.rubrics[i].criteria[j] for j in js],
                                                          "checks": None}) for i, js in todo]
        sub_task = task.model_copy(update={"rubrics": sub_rubrics})
        sub = await self._llm.grade_extraction(sub_task, ex)
        by_rubric = {i: (js, sub.rubrics[k]) for k, (i, js) in enumerate(todo)}
        results = []
        for i, (rubric, row) in enumerate(zip(task.rubrics, verdicts, strict=True)):
            res = RubricResult(index=i, rubric=rubric.text, weight=rubric.weight)
            crit: list[CriterionResult] = []
            llm_part = by_rubric.get(i)
            llm_crit = {j: llm_part[1].criteria_results[k] for k, j in enumerate(llm_part[0])} if llm_part else {}
            for j, (text, v) in enumerate(zip(rubric.criteria, row, strict=True)):
                if v is not None:
                    kind = rubric.checks[j].kind if rubric.checks else "?"
                    crit.append(CriterionResult(index=j, criterion=text, passed=v[0], evidence=v[1], grader="checks",
                                                reasoning=f"deterministic {kind} check"))
                else:
                    got = llm_crit.get(j)
                    crit.append(CriterionResult(index=j, criterion=text, passed=got.passed if got else None,
                                                reasoning=got.reasoning if got else "", grader="llm",
                                                evidence=got.evidence if got else ""))
            res.criteria_results = crit
            if llm_part:
                lr = llm_part[1]
                res.status, res.error, res.usage, res.attempts = lr.status, lr.error, lr.usage, lr.attempts
                res.cached, res.parse_step, res.images = lr.cached, lr.parse_step, lr.images
                res.overall_reasoning, res.judge_claimed_pass, res.latency_s = (
                    lr.overall_reasoning, lr.judge_claimed_pass, lr.latency_s)
            results.append(res)
        report = build_report(task, results, judge_kind=self.kind, judge_model=self._llm.model, mode=self.mode,
                              latency_s=time.perf_counter() - t0)
        report.budget_cut_files = sub.budget_cut_files
        return report


def make_judge(kind: str | Judge = "auto", **options: Any) -> Judge:
    """Build a judge: "auto" (hybrid: checks where sound, the LLM for the rest), "checks", "llm" or "agentic" (an
    LLM inspecting the files with read-only tools, :mod:`jobenv.judge.agentic`).

    A Judge is returned as is. Options: ``mode`` for all kinds; for the LLM: ``base_url``, ``api_key``,
    ``model``, ``concurrency``, ``timeout_s``, ``attempts``, ``backoff_s``, ``max_images``, ``cache_dir``.
    Raises JudgeConfigError for an unknown kind, or for "llm" without base URL, key and model (naming the
    three variables). ``"checks"`` grades only tasks whose every criterion has a sound check; on any other
    task its report is an error naming the criteria that need the LLM.
    """
    if isinstance(kind, Judge):
        return kind
    if kind not in JUDGE_KINDS:
        raise JudgeConfigError(f"unknown judge kind {kind!r}: expected 'auto', 'checks', 'llm' or 'agentic'")
    cfg = JudgeConfig.build(kind=kind, **options)
    if cfg.kind == "checks":
        return ChecksJudge(mode=cfg.mode)
    if cfg.kind == "llm":
        return LLMJudge(**cfg.llm_options())
    if cfg.kind == "agentic":
        from .agentic import AgenticJudge

        return AgenticJudge(**cfg.llm_options())
    return AutoJudge(**cfg.llm_options())
