"""How an episode ends: export the output folder, judge it, and decide the reward — written once.

:class:`jobenv.episode.Episode` ends every episode through :func:`finish_episode` (and ``jobenv regrade`` regrades
saved output through it), under the budget and scoring of :class:`~jobenv.episode.EpisodeRules`.

The rules, in one table:

========================  ==========================================  ==================
how the episode ended     reward                                      ``Outcome.status``
========================  ==========================================  ==================
``submit``                the report's score (``rules.scoring``)      ``ok``
a budget ran out (any     0, or the graded score with                 ``truncated``
other ``Ending``)         ``on_truncate="grade"``
refused output entries    0 (the agent's doing: kept by trainers)     ``ok`` / ``truncated``
(symlinks, special files)
the sandbox died          0 (the agent's doing: kept by trainers)     ``ok`` / ``truncated``
(its PID 1 is gone)
grading failed and the    0 (the agent's doing: kept by trainers)     ``ok`` / ``truncated``
canary grades cleanly
grading failed and the    0, no credit (fail-closed; droppable)       ``error``
canary fails too, or the
export failed on the host
========================  ==========================================  ==================

The line between the last two: whatever the agent can cause is its zero, and ``error`` is kept for what it
cannot influence. A sandbox dies only through what ran inside it (memory pressure it made, or its processes), so
a dead sandbox is the agent's zero on every backend; so is a workspace entry the host cannot copy (refused by the
export, one entry at a time). Any other failed grading (a verifier that timed out or wrote no valid reward, a judge
whose context or budget ran out, no valid verdict on any rubric) is decided by one rule for every grader,
:mod:`jobenv.episode.canary`: the task's untouched workspace (with a neutral stand-in deliverable for graders of
deliverables) is graded the same way; if that grades cleanly the agent's output caused the failure. A zero the agent
caused carries a report whose ``status`` is ``ok`` too, with ``failure_cause="agent"`` and the failure in ``error``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..errors import SandboxDiedError
from .outcome import Ending, Outcome, Status
from .rules import EpisodeRules

if TYPE_CHECKING:
    from ..judge.report import GradeReport
    from ..sandbox.base import Sandbox
    from ..tasks import Task

__all__ = ["finish_episode", "score_of"]


def score_of(report: GradeReport, scoring: Literal["strict", "official"]) -> float:
    """The reward a report carries under ``scoring`` (0.0 for an errored report)."""
    if report.status != "ok":
        return 0.0
    if scoring == "official":
        return float(getattr(report, "official_normalized_score", report.normalized_score))
    return float(report.normalized_score)


async def _export_and_grade(task: Task, sandbox: Sandbox, judge: Any) -> tuple[GradeReport, Any]:
    """The report of the agent's output, and the grader that made it (None when the export failed: nothing was
    graded)."""
    from ..judge.report import GradeReport
    from ..sandbox.gc import host_tempdir, remove_tree

    tmp = host_tempdir("grade")  # named after this process: `jobenv gc` removes it should the process die
    try:
        out = Path(tmp) / "output"
        try:
            await sandbox.export_output(out)
        except (asyncio.CancelledError, SandboxDiedError):
            raise
        except Exception as exc:
            return GradeReport(task_id=task.id, status="error", max_score=task.max_score,
                               error=f"could not export the output folder: {type(exc).__name__}: {exc}"), None
        if getattr(task, "harbor", None) is not None:  # a Harbor task is graded by its own tests/
            from ..harbor.verifier import grader_for

            judge = grader_for(task, judge, sandbox)
        try:
            return await judge.grade(task, out), judge
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the judge contract says it never raises; stay fail-closed if it does
            return GradeReport(task_id=task.id, status="error", max_score=task.max_score,
                               error=f"grading failed: {type(exc).__name__}: {exc}"), judge
    finally:
        await asyncio.to_thread(remove_tree, tmp)


def _agents_zero(report: GradeReport) -> GradeReport:
    """``report`` of a grading the agent's output made fail, as the graded zero it is: status ok (the episode's
    status), ``failure_cause="agent"``, the failure's text kept in ``error``, every score 0."""
    return report.model_copy(update={
        "status": "ok", "failure_cause": "agent", "normalized_score": 0.0, "official_normalized_score": 0.0,
        "total_score": 0.0, "official_total_score": 0.0, "judge_score": 0.0, "passed_count": 0, "pass_rate": 0.0,
        "strict_pass": False, "pass_at_95": False, "pass_at_90": False, "pass_n_minus_1": False})


def _budget_text(ending: Ending, rules: EpisodeRules) -> str:
    return {
        Ending.MAX_STEPS: f"its budget of {rules.max_steps} tool calls",
        Ending.TIME_LIMIT: f"its time limit of {rules.time_limit_s or 0:g} s",
        Ending.TOKEN_BUDGET: "its token budget",
        Ending.CONTEXT_LENGTH: "the model's context",
        Ending.NO_TOOL_CALL: "tool calls (the agent stopped calling tools)",
    }.get(ending, str(ending))


async def finish_episode(task: Task, sandbox: Sandbox | None, judge: Any, *, ending: Ending | str,
                         rules: EpisodeRules) -> Outcome:
    """End an episode by ``ending`` under ``rules`` (see the module's table). Never raises except on
    cancellation: a dead sandbox is a graded 0; other export and judge failures become ``status="error"`` with no
    credit. The sandbox is left open; the caller closes it. ``ending`` must be an :class:`Ending` value
    (ValueError otherwise)."""
    ending = Ending(ending)
    truncated = ending.truncated
    if truncated and rules.on_truncate == "zero":
        return Outcome(
            ending=ending, status=Status.TRUNCATED, reward=0.0,
            observation=f"[The episode ran out of {_budget_text(ending, rules)} before submit; it scores 0.]",
        )
    if sandbox is None:
        return Outcome(ending=ending, status=Status.ERROR, error="no sandbox to grade",
                       observation="Grading failed for an infrastructure reason; this episode earns no credit.")
    lead = (f"[The episode ran out of {_budget_text(ending, rules)} before submit; its output folder was graded "
            "as it stands.] " if truncated else "Submitted. ")
    ok_status = Status.TRUNCATED if truncated else Status.OK
    try:
        report, grader = await _export_and_grade(task, sandbox, judge)
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
        # (not an infrastructure error it would drop)
        return Outcome(
            ending=ending, status=ok_status, reward=0.0, report=_agents_zero(report), refused=refused,
            observation=f"{lead}The output folder held entries that are refused (symlinks or special files: "
                        f"{', '.join(refused[:5])}); nothing was graded and this episode scores 0.",
        )
    if report.status != "ok" and grader is not None:
        from .canary import agent_caused

        if await agent_caused(task, sandbox, grader, report):
            return Outcome(
                ending=ending, status=ok_status, reward=0.0, report=_agents_zero(report),
                error="grading failed on the agent's output while the task's untouched workspace grades cleanly",
                observation=f"{lead}Grading failed on what the workspace holds (the task's untouched workspace "
                            "grades cleanly), so this episode scores 0.",
            )
    if report.status != "ok":
        return Outcome(
            ending=ending, status=Status.ERROR, reward=0.0, report=report, error=report.error or "grading failed",
            observation=f"{lead}Grading failed for an infrastructure reason; this episode earns no credit.",
        )
    reward = score_of(report, rules.scoring)
    return Outcome(
        ending=ending, status=ok_status, reward=reward, report=report,
        observation=f"{'Submitted and graded' if not truncated else lead + 'Graded'}: {report.passed_count}/"
                    f"{report.total_count} rubrics passed, score {reward:.4f}.",
    )
