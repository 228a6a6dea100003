"""The grade report: per-criterion and per-rubric verdicts, scores, and how they were obtained.

Scoring follows JobBench: a rubric earns its weight only when every criterion passed; the reward is
``normalized_score`` = total / max rounded to 4 places. Strict and relaxed passes follow DAYJOB (every
rubric passed; >= 95 % / >= 90 % of rubrics passed; at most one rubric missed).

Fail-closed: a report with ``status == "error"`` carries a zero reward (``normalized_score`` 0.0,
``strict_pass`` False) whatever some rubrics earned; the per-rubric results stay for inspection and
``error`` names each rubric that could not be judged.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

__all__ = [
    "REPORT_SCHEMA_VERSION",
    "CriterionResult",
    "RubricResult",
    "Usage",
    "GradeReport",
    "grader_hash",
    "build_report",
]

REPORT_SCHEMA_VERSION = 1


class CriterionResult(BaseModel):
    """One binary criterion. ``passed`` is None when no valid verdict exists (the rubric is then an error)."""

    index: int
    criterion: str
    passed: bool | None = None
    reasoning: str = ""
    evidence: str = ""
    grader: Literal["checks", "llm"] | None = None  # which grader decided this criterion (hybrid grading)


class Usage(BaseModel):
    """Token usage of judge calls (cached verdicts cost nothing and are counted separately)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    calls: int = 0
    cached: int = 0

    def add(self, other: Usage) -> None:
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.total_tokens += other.total_tokens
        self.calls += other.calls
        self.cached += other.cached


class RubricResult(BaseModel):
    """One rubric's verdict. ``passed`` is recomputed from the criteria, never taken from a judge's claim."""

    index: int
    rubric: str
    weight: float
    passed: bool = False
    score: float = 0.0
    status: Literal["ok", "error"] = "ok"
    error: str | None = None
    criteria_results: list[CriterionResult] = Field(default_factory=list)
    overall_reasoning: str = ""
    judge_claimed_pass: bool | None = None
    parse_step: str | None = None
    attempts: int = 0
    cached: bool = False
    images: int = 0
    usage: Usage = Field(default_factory=Usage)
    latency_s: float = 0.0


class GradeReport(BaseModel):
    """Everything about one grading. ``normalized_score`` is the reward (0.0 when ``status`` is "error")."""

    schema_version: int = REPORT_SCHEMA_VERSION
    task_id: str | None = None
    status: Literal["ok", "error"] = "ok"
    error: str | None = None
    normalized_score: float = 0.0
    total_score: float = 0.0
    max_score: float = 0.0
    pass_rate: float = 0.0
    passed_count: int = 0
    total_count: int = 0
    judge_score: float = 0.0
    criteria_passed: int = 0
    criteria_total: int = 0
    strict_pass: bool = False
    pass_at_95: bool = False
    pass_at_90: bool = False
    pass_n_minus_1: bool = False
    empty_output: bool = False
    rubrics: list[RubricResult] = Field(default_factory=list)
    rejected_files: list[str] = Field(default_factory=list)
    judge_kind: str = ""
    judge_model: str | None = None
    extraction_mode: str = "values"
    extraction_version: str = ""
    grader_hash: str = ""
    dataset_revision: str | None = None
    usage: Usage = Field(default_factory=Usage)
    latency_s: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_official_details(self) -> dict[str, Any]:
        """The official JobBench details JSON shape (rubric results with ``criteria_results``, scores)."""
        return {
            "task_id": self.task_id,
            "total_score": self.total_score,
            "max_score": self.max_score,
            "normalized_score": self.normalized_score,
            "pass_rate": self.pass_rate,
            "passed_count": self.passed_count,
            "total_count": self.total_count,
            "judge_score": self.judge_score,
            "judge_model": self.judge_model,
            "status": self.status,
            "error": self.error,
            "rubric_results": [
                {
                    "rubric": r.rubric,
                    "weight": r.weight,
                    "score": r.score,
                    "rubric_passed": r.passed,
                    "overall_reasoning": r.overall_reasoning,
                    "criteria_results": [
                        {"index": c.index, "criterion": c.criterion, "passed": bool(c.passed),
                         "reasoning": c.reasoning, "evidence": c.evidence}
                        for c in r.criteria_results
                    ],
                    **({"error": r.error} if r.error else {}),
                }
                for r in self.rubrics
            ],
        }


_HASH_CACHE: str | None = None


def grader_hash() -> str:
    """A short hash of the grader's source (jobenv/extract.py and jobenv/judge/*.py), so scores from
    different grader versions are never silently mixed."""
    global _HASH_CACHE
    if _HASH_CACHE is None:
        here = Path(__file__).resolve().parent
        files = [*sorted((here.parent / "extract").glob("*.py")), *sorted(here.glob("*.py"))]
        h = hashlib.sha256()
        for f in files:
            h.update(f.name.encode())
            try:
                h.update(f.read_bytes())
            except OSError:
                h.update(b"?")
        _HASH_CACHE = h.hexdigest()[:16]
    return _HASH_CACHE


def dataset_revision(task: Any) -> str | None:
    meta = getattr(task, "meta", None) or {}
    for key in ("dataset_revision", "revision", "hub_revision"):
        if isinstance(meta.get(key), str):
            return meta[key]
    rev = getattr(task, "revision", None)
    return rev if isinstance(rev, str) else None


def build_report(
    task: Any,
    rubrics: list[RubricResult],
    *,
    judge_kind: str,
    judge_model: str | None,
    mode: str,
    rejected: list[str] | None = None,
    empty_output: bool = False,
    extra_errors: list[str] | None = None,
    latency_s: float = 0.0,
) -> GradeReport:
    """Aggregate rubric results into a report; any rubric error or extra error makes it ``status="error"``."""
    from ..extract import EXTRACT_VERSION

    # with no rubric results (a grading that could not start) the task's own totals still show
    max_score = float(sum(r.weight for r in rubrics)) if rubrics else float(getattr(task, "max_score", 0.0))
    n_total = len(rubrics) if rubrics else len(getattr(task, "rubrics", []) or [])
    errors = list(extra_errors or [])
    for r in rubrics:
        if r.status == "error":
            short = r.rubric if len(r.rubric) <= 80 else r.rubric[:77] + "..."
            errors.append(f"rubric {r.index} ({short!r}): {r.error}")
        # a rubric is credited only with a complete, valid set of criterion verdicts
        r.passed = r.status == "ok" and bool(r.criteria_results) and all(c.passed is True for c in r.criteria_results)
        r.score = r.weight if r.passed else 0.0
    total = float(sum(r.score for r in rubrics))
    n = len(rubrics)
    passed_n = sum(1 for r in rubrics if r.passed)
    usage = Usage()
    for r in rubrics:
        usage.add(r.usage)
    status: Literal["ok", "error"] = "error" if errors else "ok"
    rep = GradeReport(
        task_id=getattr(task, "uid", None),
        status=status,
        error="; ".join(errors) if errors else None,
        max_score=max_score,
        total_count=n_total,
        criteria_total=sum(len(r.criteria_results) for r in rubrics),
        rubrics=rubrics,
        rejected_files=list(rejected or []),
        judge_kind=judge_kind,
        judge_model=judge_model,
        extraction_mode=mode,
        extraction_version=EXTRACT_VERSION,
        grader_hash=grader_hash(),
        dataset_revision=dataset_revision(task),
        usage=usage,
        latency_s=round(latency_s, 4),
        empty_output=empty_output,
    )
    rep.criteria_passed = sum(1 for r in rubrics for c in r.criteria_results if c.passed is True)
    if status == "ok":
        rep.total_score = total
        rep.judge_score = total
        rep.normalized_score = round(total / max_score, 4) if max_score > 0 else 0.0
        rep.passed_count = passed_n
        rep.pass_rate = round(passed_n / n, 4) if n else 0.0
        frac = passed_n / n if n else 0.0
        rep.strict_pass = n > 0 and passed_n == n
        rep.pass_at_95 = n > 0 and frac >= 0.95
        rep.pass_at_90 = n > 0 and frac >= 0.90
        rep.pass_n_minus_1 = n > 0 and passed_n >= n - 1
    return rep
