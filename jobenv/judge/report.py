"""The grade report: per-criterion and per-rubric verdicts, scores, and how they were obtained.

Two scores over the same verdicts, in every report:

* ``normalized_score`` (the default reward, ``scoring="strict"``): a rubric earns its weight only when
  every criterion passed - recomputed, as the OpenReward JobBench/JobTasks environments do;
* ``official_normalized_score`` (``scoring="official"``): a rubric earns its weight when the judge's own
  ``rubric_passed`` says so, as the official ``judge.py`` credits it (deterministic checks make no such
  claim, so there both scores agree).

Both are total / max rounded to 4 places. Strict and relaxed passes follow DAYJOB (every rubric passed;
>= 95 % / >= 90 % of rubrics passed; at most one rubric missed). :meth:`GradeReport.to_official_details`
and :meth:`GradeReport.to_official_scorecard` write the official result files' shapes.

Fail-closed: a report with ``status == "error"`` carries zero for both scores (and ``strict_pass``
False) whatever some rubrics earned; the per-rubric results stay for inspection and ``error`` names each
rubric that could not be judged.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

__all__ = [
    "REPORT_SCHEMA_VERSION",
    "CriterionResult",
    "CriterionCredit",
    "GradingFailure",
    "RubricResult",
    "Usage",
    "GradeReport",
    "grader_hash",
    "grader_sha256",
    "build_report",
    "Scoring",
]

REPORT_SCHEMA_VERSION = 1  # additions since are optional fields with defaults
Scoring = Literal["strict", "official"]
#: why a rubric could not be judged: no answer from the judge, answers that never parsed, or a grader fault
GradingFailure = Literal["judge_unreachable", "invalid_reply", "internal"]


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
    """One rubric's verdict. ``passed`` is recomputed from the criteria, never taken from a judge's claim;
    ``official_passed`` is the judge's claim (``rubric_passed``), credited only by official scoring."""

    index: int
    rubric: str
    weight: float
    passed: bool = False
    score: float = 0.0
    official_passed: bool = False
    matched_by: Literal["index", "position"] | None = None
    note: str = ""  # what jobenv noticed about the verdict (e.g. a claim contradicting the criteria)
    status: Literal["ok", "error"] = "ok"
    error: str | None = None
    failure: GradingFailure | None = None  # the kind of ``error``
    criteria_results: list[CriterionResult] = Field(default_factory=list)
    overall_reasoning: str = ""
    judge_claimed_pass: bool | None = None
    parse_step: str | None = None
    attempts: int = 0
    cached: bool = False
    images: int = 0
    usage: Usage = Field(default_factory=Usage)
    latency_s: float = 0.0


class CriterionCredit(BaseModel):
    """One criterion's part in a reward, for criterion-level credit or masking (no rubric or criterion text).

    ``weight_share``: the rubric's weight over the task's total, split evenly among its criteria (the shares of
    a task sum to 1); ``passed`` is None when its rubric could not be judged, with ``failure`` saying why.
    """

    rubric: int
    index: int
    passed: bool | None
    weight_share: float
    grader: Literal["checks", "llm", "agentic"] | None = None
    failure: GradingFailure | None = None


class GradeReport(BaseModel):
    """Everything about one grading. ``normalized_score`` is the reward (0.0 when ``status`` is "error")."""

    schema_version: int = REPORT_SCHEMA_VERSION
    task_id: str | None = None
    status: Literal["ok", "error"] = "ok"
    error: str | None = None
    # "agent": the grading failed on the agent's output (refused entries, or a failure its canary did not repeat:
    # jobenv.episode.canary), so the episode's graded zero; status is then "ok" and ``error`` says what failed
    failure_cause: Literal["agent"] | None = None
    normalized_score: float = 0.0
    official_normalized_score: float = 0.0
    official_total_score: float = 0.0
    official_passed_count: int = 0
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
    budget_cut_files: list[str] = Field(default_factory=list)  # shown in part (or not) by the LLM's total budget
    judge_kind: str = ""
    judge_model: str | None = None
    extraction_mode: str = "values"
    extraction_version: str = ""
    grader_hash: str = ""
    dataset_revision: str | None = None
    usage: Usage = Field(default_factory=Usage)
    latency_s: float = 0.0
    timestamp: str = ""  # UTC, ISO-8601 to the second: when the grading finished
    verifier: dict[str, Any] | None = None  # a Harbor verifier's run: exit code, output tail, reward file numbers
    agentic: dict[str, Any] | None = None  # the agentic judge's run: model, steps, seconds, its whole conversation

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def criteria_credit(self) -> list[CriterionCredit]:
        """One entry per criterion, in rubric and criterion order (see :class:`CriterionCredit`)."""
        total = sum(r.weight for r in self.rubrics) or 1.0
        default: Literal["checks", "llm", "agentic"] | None = (
            "checks" if self.judge_kind == "checks" else "llm" if self.judge_kind == "llm" else None)
        out = []
        for r in self.rubrics:
            n = len(r.criteria_results) or 1
            judged = r.status == "ok"
            for c in r.criteria_results:
                out.append(CriterionCredit(
                    rubric=r.index, index=c.index, passed=c.passed if judged else None,
                    weight_share=round(r.weight / total / n, 6), grader=c.grader or default,
                    failure=None if judged else (r.failure or "internal")))
        return out

    def score(self, scoring: Scoring = "strict") -> float:
        """The reward under ``scoring``: ``normalized_score`` (strict) or ``official_normalized_score``."""
        if scoring == "official":
            return self.official_normalized_score
        if scoring == "strict":
            return self.normalized_score
        raise ValueError(f"scoring must be 'strict' or 'official', not {scoring!r}")

    def _official_rubrics(self, scoring: Scoring) -> list[dict[str, Any]]:
        out = []
        for r in self.rubrics:
            judged = r.status == "ok"
            passed = judged and (r.official_passed if scoring == "official" else r.passed)
            failure = f"Failed after {r.attempts} attempts: {r.error}" if not judged else None
            crits = [
                {"index": c.index, "criterion": c.criterion, "passed": judged and c.passed is True,
                 "reasoning": c.reasoning if judged else f"Failed to get judge response: {r.error}",
                 "evidence": c.evidence if judged else ""}
                for c in r.criteria_results
            ]
            out.append({
                "index": r.index,
                "rubric": r.rubric,
                "weight": _number(r.weight),
                "result": {
                    "passed": passed,
                    "score": _number(r.weight) if passed else 0,
                    "criteria_count": len(r.criteria_results),
                    "criteria_passed": sum(1 for c in crits if c["passed"]),
                    "criteria_results": crits,
                    "overall_reasoning": failure if failure else (
                        f"{r.overall_reasoning} {r.note}".strip() if scoring == "strict" and r.note else r.overall_reasoning),
                },
            })
        return out

    def to_official_details(self, *, evaluated_model: str = "agent", scoring: Scoring = "official") -> dict[str, Any]:
        """The official details file (``judge.py --details-file``), key for key and with its number types:
        ``evaluated_model``, ``judge_model``, ``judge_implementation`` (``extraction_schema``, ``sha256`` -
        jobenv's own grader), ``timestamp``, ``total_score``, ``max_score``, ``pass_rate`` ("NN%",
        truncated), ``passed_count``, ``total_count`` and ``rubrics``. ``scoring`` picks whose verdict
        marks a rubric passed; a rubric that could not be judged is written as the official judge writes
        one that failed after its retries (every criterion false, score 0)."""
        rubrics = self._official_rubrics(scoring)
        passed = sum(1 for r in rubrics if r["result"]["passed"])
        total = self.total_count or len(rubrics)
        return {
            "evaluated_model": evaluated_model,
            "judge_model": self.judge_model or self.judge_kind,
            "judge_implementation": {"extraction_schema": int(self.extraction_version or 0), "sha256": grader_sha256()},
            "timestamp": self.timestamp or _now(),
            "total_score": _number(sum(r["result"]["score"] for r in rubrics)),
            "max_score": _number(sum(r["weight"] for r in rubrics)),
            "pass_rate": f"{int(passed / total * 100) if total else 0}%",
            "passed_count": passed,
            "total_count": total,
            "rubrics": rubrics,
        }

    def to_official_scorecard(self, *, scoring: Scoring = "official") -> dict[str, Any]:
        """The official scorecard object: totals, ``normalized_score`` (total / max, 4 places), ``pass_rate``
        (a fraction here), counts and per rubric ``rubric_<i>_passed`` (0/1) and ``rubric_<i>_score``.

        Every figure follows from the rubric lines. A report with ``status == "error"``: under ``"official"``
        (the default, as these files are) the card is what the official judge writes, a rubric that could not be
        judged counting as failed and the rest as judged; under ``"strict"`` every rubric counts as failed
        (fail-closed, as the report's own scores are)."""
        rubrics = self._official_rubrics(scoring)
        if self.status != "ok" and scoring == "strict":
            for r in rubrics:
                r["result"].update(passed=False, score=0)
        total = sum(r["result"]["score"] for r in rubrics)
        max_score = sum(r["weight"] for r in rubrics)
        passed = sum(1 for r in rubrics if r["result"]["passed"])
        n = len(rubrics)
        card: dict[str, Any] = {
            "total_score": _number(total),
            "max_score": _number(max_score),
            "normalized_score": round(total / max_score, 4) if max_score else 0.0,
            "pass_rate": round(passed / n, 4) if n else 0.0,
            "passed_count": passed,
            "total_count": n,
        }
        for r in rubrics:
            card[f"rubric_{r['index']}_passed"] = 1 if r["result"]["passed"] else 0
            card[f"rubric_{r['index']}_score"] = r["result"]["score"]
        return card


def _number(x: float | int) -> float | int:
    """Integers stay integers, as in the rubric files and the official result files."""
    return int(x) if isinstance(x, float) and x.is_integer() else x


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


_HASH_CACHE: str | None = None

GRADER_SOURCES = ("extract/*.py", "judge/*.py", "judge/prompts/*.txt", "check_models.py", "episode/canary.py",
                  "episode/finish.py", "episode/outcome.py", "episode/rules.py", "tasks.py")
"""Everything under ``jobenv/`` that can change a score: extraction (readers, service, worker and their budgets),
the checks' models and defaults, the judges and their prompts, the grading rules and how rubrics are read. The
grader probes (``judge/probes/``, used by the task generator only) are not among them: they change no score."""


def grader_sha256(package: Path | None = None) -> str:
    """SHA-256 over :data:`GRADER_SOURCES` of ``package`` (default: this jobenv), so scores from different
    grader versions are never silently mixed."""
    global _HASH_CACHE
    if package is None and _HASH_CACHE is not None:
        return _HASH_CACHE
    root = package or Path(__file__).resolve().parent.parent
    files = sorted({f for pattern in GRADER_SOURCES for f in root.glob(pattern)})
    h = hashlib.sha256()
    for f in files:
        h.update(f.relative_to(root).as_posix().encode() + b"\0")
        try:
            h.update(f.read_bytes())
        except OSError:
            h.update(b"?")
        h.update(b"\0")
    digest = h.hexdigest()
    if package is None:
        _HASH_CACHE = digest
    return digest


def grader_hash() -> str:
    """The first 16 hex digits of :func:`grader_sha256` (recorded in every report)."""
    return grader_sha256()[:16]


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
        # the official credit: the judge's claim; a judge that makes none (deterministic checks) is taken at its verdict
        r.official_passed = r.status == "ok" and (r.passed if r.judge_claimed_pass is None else r.judge_claimed_pass)
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
        timestamp=_now(),
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
        official = float(sum(r.weight for r in rubrics if r.official_passed))
        rep.official_total_score = official
        rep.official_passed_count = sum(1 for r in rubrics if r.official_passed)
        rep.official_normalized_score = round(official / max_score, 4) if max_score > 0 else 0.0
    return rep
