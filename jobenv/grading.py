"""How an episode ends: export the output folder, judge it, and decide the reward — written once.

Every front-end (:class:`jobenv.env.JobEnv`, rollouts, OpenReward hosting) ends its episodes through
:func:`finish_episode`, with the budget and scoring stated once in :class:`EpisodeRules` (which the prompt also
reads, so what the agent is told is what is applied).

The rules, in one table:

========================  ==========================================  ==================
how the episode ended     reward                                      ``Outcome.status``
========================  ==========================================  ==================
``submit``                the report's score (``rules.scoring``)      ``ok``
out of steps or time      0, or the graded score with                 ``truncated``
                          ``on_truncate="grade"``
refused output entries    0 (the agent's doing: kept by trainers)     ``ok`` / ``truncated``
(symlinks, special files)
the sandbox died          0 (the agent's doing: kept by trainers)     ``ok`` / ``truncated``
(its PID 1 is gone)
grading infrastructure    0, no credit (fail-closed; droppable)       ``error``
failure (judge outage,
host-side export failure)
========================  ==========================================  ==================

The line between the last two: whatever the agent can cause is its zero, and ``error`` is kept for what it
cannot influence. A sandbox dies only through what ran inside it (memory pressure it made, or its processes), so
a dead sandbox is the agent's zero on every backend; so is a workspace entry the host cannot copy (refused by the
export, one entry at a time) and a judge request or reply the deliverables broke (the LLM judge fails that rubric,
:mod:`jobenv.judge.llm`). A judge that answers nothing valid at all, an unreachable judge and a host that cannot
write the export stay ``error``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .errors import SandboxDiedError

if TYPE_CHECKING:
    from .judge.report import GradeReport
    from .sandbox.base import Sandbox
    from .tasks import Task

__all__ = ["EpisodeRules", "Outcome", "Ending", "finish_episode", "OUTCOME_SCHEMA_VERSION"]

OUTCOME_SCHEMA_VERSION = 1

Ending = Literal["submit", "max_steps", "time_limit"]


class EpisodeRules(BaseModel):
    """An episode's budget and scoring. The prompt states exactly these; the env, rollouts and hosting apply them.

    ``max_steps`` counts every tool call, ``submit`` included (``None``: unlimited). ``time_limit_s`` is
    wall-clock seconds from reset (``None``: unlimited). ``on_truncate`` decides what an episode that ran out
    before ``submit`` earns: ``"zero"`` (the default, as the official runners score a missing submission) or
    ``"grade"`` (its output folder is graded as if submitted). ``scoring`` picks the reward: ``"strict"``
    (``normalized_score``: rubric verdicts recomputed from the criteria) or ``"official"``
    (``official_normalized_score``: the judge's own ``rubric_passed``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_steps: int | None = Field(default=100, ge=1)
    time_limit_s: float | None = Field(default=None, gt=0)
    on_truncate: Literal["zero", "grade"] = "zero"
    scoring: Literal["strict", "official"] = "strict"

    def describe_budget(self) -> str | None:
        """The budget and truncation rule in one sentence for the prompt; None when the episode is unlimited."""
        parts = []
        if self.max_steps is not None:
            parts.append(f"at most {self.max_steps} tool calls (submit included)")
        if self.time_limit_s is not None:
            parts.append(f"about {self.time_limit_s:g} seconds of wall-clock time")
        if not parts:
            return None
        rule = (
            "the output folder is graded as it stands"
            if self.on_truncate == "grade"
            else "the episode scores 0"
        )
        return f"Budget: {' and '.join(parts)}. If it runs out before you call submit, {rule}."


class Outcome(BaseModel):
    """The end of one episode: its status, reward, grading report and what the agent is told."""

    schema_version: int = OUTCOME_SCHEMA_VERSION
    ending: Ending
    status: Literal["ok", "error", "truncated"]
    reward: float = 0.0
    report: Any = None  # a GradeReport (typed loosely so this module imports nothing heavy)
    refused: list[str] = Field(default_factory=list)
    error: str | None = None
    observation: str = ""

    @property
    def submitted(self) -> bool:
        return self.ending == "submit"


def score_of(report: GradeReport, scoring: Literal["strict", "official"]) -> float:
    """The reward a report carries under ``scoring`` (0.0 for an errored report)."""
    if report.status != "ok":
        return 0.0
    if scoring == "official":
        return float(getattr(report, "official_normalized_score", report.normalized_score))
    return float(report.normalized_score)


async def _export_and_grade(task: Task, sandbox: Sandbox, judge: Any) -> GradeReport:
    from .judge.report import GradeReport
    from .sandbox.gc import host_tempdir, remove_tree

    tmp = host_tempdir("grade")  # named after this process: `jobenv gc` removes it should the process die
    try:
        out = Path(tmp) / "output"
        try:
            await sandbox.export_output(out)
        except (asyncio.CancelledError, SandboxDiedError):
            raise
        except Exception as exc:
            return GradeReport(task_id=task.id, status="error", max_score=task.max_score,
                               error=f"could not export the output folder: {type(exc).__name__}: {exc}")
        try:
            return await judge.grade(task, out)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the judge contract says it never raises; stay fail-closed if it does
            return GradeReport(task_id=task.id, status="error", max_score=task.max_score,
                               error=f"grading failed: {type(exc).__name__}: {exc}")
    finally:
        await asyncio.to_thread(remove_tree, tmp)


def _budget_text(ending: Ending, rules: EpisodeRules) -> str:
    if ending == "max_steps":
        return f"{rules.max_steps} tool calls"
    return f"{rules.time_limit_s:g} s"


async def finish_episode(task: Task, sandbox: Sandbox | None, judge: Any, *, ending: Ending,
                         rules: EpisodeRules) -> Outcome:
    """End an episode by ``ending`` under ``rules`` (see the module's table). Never raises except on
    cancellation: a dead sandbox is a graded 0; other export and judge failures become ``status="error"`` with no
    credit. The sandbox is left
    open; the caller closes it."""
    truncated = ending != "submit"
    if truncated and rules.on_truncate == "zero":
        return Outcome(
            ending=ending, status="truncated", reward=0.0,
            observation=f"[The episode ran out of its budget ({_budget_text(ending, rules)}) before submit; "
                        "it scores 0.]",
        )
    if sandbox is None:
        return Outcome(ending=ending, status="error", error="no sandbox to grade",
                       observation="Grading failed for an infrastructure reason; this episode earns no credit.")
    lead = (f"[The episode ran out of its budget ({_budget_text(ending, rules)}) before submit; its output "
            "folder was graded as it stands.] " if truncated else "Submitted. ")
    ok_status: Literal["ok", "truncated"] = "truncated" if truncated else "ok"
    try:
        report = await _export_and_grade(task, sandbox, judge)
    except SandboxDiedError as exc:
        return Outcome(
            ending=ending, status=ok_status, reward=0.0, error=f"the sandbox died: {exc}",
            observation=f"{lead}The sandbox died before its output folder could be read (its first process is "
                        "gone, e.g. killed by memory pressure the commands made); nothing was graded and this "
                        "episode scores 0.",
        )
    refused = list(report.rejected_files or [])
    if report.status != "ok" and refused:
        # the agent left symlinks or special files in output/: its own doing, so a plain 0 that a trainer keeps
        # (not an infrastructure error it would drop); the report keeps the spec's error status
        return Outcome(
            ending=ending, status=ok_status, reward=0.0, report=report, refused=refused,
            observation=f"{lead}The output folder held entries that are refused (symlinks or special files: "
                        f"{', '.join(refused[:5])}); nothing was graded and this episode scores 0.",
        )
    if report.status != "ok":
        return Outcome(
            ending=ending, status="error", reward=0.0, report=report, error=report.error or "grading failed",
            observation=f"{lead}Grading failed for an infrastructure reason; this episode earns no credit.",
        )
    reward = score_of(report, rules.scoring)
    return Outcome(
        ending=ending, status=ok_status, reward=reward, report=report,
        observation=f"{'Submitted and graded' if not truncated else lead + 'Graded'}: {report.passed_count}/"
                    f"{report.total_count} rubrics passed, score {reward:.4f}.",
    )
