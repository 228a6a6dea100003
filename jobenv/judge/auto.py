"""Judge selection: deterministic checks where a task defines them for every criterion, else the LLM.

Failure behaviour: without an LLM configured, grading a task that lacks checks returns a report with
``status="error"`` whose message names the three ``JOBENV_JUDGE_*`` variables (an empty output still
scores 0.0 without any judge, and refused files are still an error).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ..errors import JudgeConfigError
from ..extract import ExtractMode, extract_output
from .base import Judge, empty_output_report, rejected_report
from .checks import ChecksJudge
from .llm import CONFIG_HINT, LLMJudge
from .report import GradeReport, build_report

__all__ = ["AutoJudge", "make_judge"]


class AutoJudge(Judge):
    """Per task: :class:`ChecksJudge` when ``task.has_checks``, else :class:`LLMJudge` built from ``llm_options``."""

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

    async def grade(self, task: Any, output_dir: Path) -> GradeReport:
        if task.has_checks:
            return await self.checks.grade(task, output_dir)
        if self._llm is not None:
            return await self._llm.grade(task, output_dir)
        import asyncio

        t0 = time.perf_counter()
        try:
            ex = await asyncio.to_thread(extract_output, Path(output_dir), mode=self.mode, with_images=False)
        except Exception as exc:  # pragma: no cover - extract_output does not raise
            ex = None
            err = f"{type(exc).__name__}: {exc}"
        if ex is not None and ex.rejected:
            return rejected_report(task, ex, "auto", None, self.mode, t0)
        if ex is not None and ex.empty:
            return empty_output_report(task, "auto", None, self.mode, t0)
        err = (
            f"task {getattr(task, 'uid', '?')} has no deterministic checks for every criterion, so it needs the "
            f"LLM judge, which is not configured: {CONFIG_HINT}"
        )
        return build_report(task, [], judge_kind="auto", judge_model=None, mode=self.mode, extra_errors=[err],
                            latency_s=time.perf_counter() - t0)


def make_judge(kind: "str | Judge" = "auto", **options: Any) -> Judge:
    """Build a judge: "auto" (checks where available, else LLM), "checks" or "llm"; a Judge is returned as is.

    Options: ``mode`` for all kinds; for the LLM: ``base_url``, ``api_key``, ``model``, ``concurrency``,
    ``timeout_s``, ``attempts``, ``backoff_s``, ``max_images``, ``cache_dir``. Raises JudgeConfigError for
    an unknown kind, or for "llm" without base URL, key and model (naming the three variables).
    """
    if isinstance(kind, Judge):
        return kind
    try:
        if kind == "checks":
            return ChecksJudge(mode=options.get("mode", "values"))
        if kind == "llm":
            return LLMJudge(**options)
        if kind == "auto":
            return AutoJudge(**options)
    except TypeError as exc:  # an unknown option name: a configuration error, said plainly
        raise JudgeConfigError(f"judge {kind!r}: {exc}") from None
    raise JudgeConfigError(f"unknown judge kind {kind!r}: expected 'auto', 'checks' or 'llm'")
