"""The vocabulary of how an episode ends — :class:`Ending`, :class:`Status`, :class:`ErrorKind`,
:class:`FinishReason` — and the :class:`Outcome` every front-end maps from. Declared here and nowhere else."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

__all__ = ["Ending", "Status", "ErrorKind", "FinishReason", "Outcome", "OUTCOME_SCHEMA_VERSION", "PUBLIC_SCORES"]

OUTCOME_SCHEMA_VERSION = 2


class Ending(StrEnum):
    """What ended an episode: the agent's submit, or a budget that ran out before it (a truncation)."""

    SUBMIT = "submit"
    MAX_STEPS = "max_steps"
    TIME_LIMIT = "time_limit"
    TOKEN_BUDGET = "token_budget"  # the rollout's completion-token budget
    CONTEXT_LENGTH = "context_length"  # the model's context is full
    NO_TOOL_CALL = "no_tool_call"  # the agent stopped calling tools

    @property
    def truncated(self) -> bool:
        return self is not Ending.SUBMIT


class Status(StrEnum):
    """``ok``: a reward to learn from; ``truncated``: ran out before submit (still a reward); ``error``: an
    infrastructure failure with no reward, which a trainer drops."""

    OK = "ok"
    ERROR = "error"
    TRUNCATED = "truncated"


class ErrorKind(StrEnum):
    """Why an episode is ``error``, in every front-end's words."""

    GRADING = "grading"  # export or judge failed (fail-closed)
    JUDGE = "judge"  # the judge cannot work for this session (hosting: no key)
    SANDBOX = "sandbox"  # the sandbox could not start or is gone
    ENV = "env"  # the environment failed (rollouts)
    POLICY = "policy"  # the model could not reply (rollouts)
    TOOL = "tool"  # a tool failed outside the agent's control
    IDLE = "idle"  # an idle hosted session was closed
    CLOSED = "closed"  # the hosted session was closed
    FINISHED = "finished"  # a call after the episode ended


class FinishReason(StrEnum):
    """How a recorded episode (a trajectory) finished: an :class:`Ending` (``submitted`` for submit) or a failure."""

    SUBMITTED = "submitted"
    MAX_STEPS = "max_steps"
    TIME_LIMIT = "time_limit"
    TOKEN_BUDGET = "token_budget"
    CONTEXT_LENGTH = "context_length"
    NO_TOOL_CALL = "no_tool_call"
    ENV_TRUNCATED = "env_truncated"
    POLICY_ERROR = "policy_error"
    ENV_ERROR = "env_error"
    GRADING_ERROR = "grading_error"

    @classmethod
    def of(cls, ending: Ending) -> FinishReason:
        return cls.SUBMITTED if ending is Ending.SUBMIT else cls(ending.value)

    def ending(self) -> Ending | None:
        """The ending this finish reason records (None for failures)."""
        if self is FinishReason.SUBMITTED:
            return Ending.SUBMIT
        try:
            return Ending(self.value)
        except ValueError:
            return None


PUBLIC_SCORES = ("normalized_score", "official_normalized_score", "pass_rate", "strict_pass", "passed_count",
                 "total_count")
"""The report fields a client or the agent may see (scores and counts; never rubric text)."""


class Outcome(BaseModel):
    """The end of one episode: its status, reward, grading report and what the agent is told.

    ``reward`` is 0.0 for an ``error``; :attr:`scored_reward` is None then, which is what front-ends report so
    that a failure is never mistaken for a score.
    """

    schema_version: int = OUTCOME_SCHEMA_VERSION
    ending: Ending
    status: Status
    reward: float = 0.0
    report: Any = None  # a GradeReport (typed loosely so this module imports nothing heavy)
    refused: list[str] = Field(default_factory=list)
    error: str | None = None
    observation: str = ""

    @property
    def submitted(self) -> bool:
        return self.ending is Ending.SUBMIT

    @property
    def error_kind(self) -> ErrorKind | None:
        return ErrorKind.GRADING if self.status is Status.ERROR else None

    @property
    def finish_reason(self) -> FinishReason:
        return FinishReason.GRADING_ERROR if self.status is Status.ERROR else FinishReason.of(self.ending)

    @property
    def scored_reward(self) -> float | None:
        """The reward, or None for an infrastructure error (never a fake 0)."""
        return None if self.status is Status.ERROR else float(self.reward)

    @property
    def strict_pass(self) -> bool | None:
        """Every rubric passed (None for an error; False for refused output)."""
        if self.status is Status.ERROR:
            return None
        return bool(getattr(self.report, "strict_pass", False)) if self.report is not None and not self.refused else False

    def report_dict(self) -> dict[str, Any] | None:
        """The full report as JSON data (None when nothing was graded): for the trainer's side, not the agent's."""
        report = self.report
        return report.model_dump(mode="json") if hasattr(report, "model_dump") else report

    def scores(self) -> dict[str, Any]:
        """The report's :data:`PUBLIC_SCORES` (empty when nothing was graded), read without dumping the report."""
        report = self.report
        if isinstance(report, dict):
            return {k: report[k] for k in PUBLIC_SCORES if k in report}
        return {k: getattr(report, k) for k in PUBLIC_SCORES if hasattr(report, k)} if report is not None else {}

    def criteria(self) -> list[dict[str, Any]]:
        """One entry per graded criterion (rubric and criterion index, passed, weight share, grader, failure
        kind; no text): the report's :meth:`~jobenv.judge.report.GradeReport.criteria_credit` (empty when
        nothing was graded)."""
        credit = getattr(self.report, "criteria_credit", None)
        return [c.model_dump() for c in credit()] if credit is not None else []

    def public(self) -> dict[str, Any]:
        """What any client may see of this outcome: statuses, reward, scores, the per-criterion vector and
        refused entries; never rubric text or the report itself. Every front-end builds its end-of-episode
        fields from this."""
        out: dict[str, Any] = {
            "status": self.status.value,
            "reward": self.scored_reward,
            "ending": self.ending.value,
            "finish_reason": self.finish_reason.value,
            "scores": self.scores(),
            "criteria": self.criteria(),
        }
        if self.ending.truncated:
            out["truncated_reason"] = self.ending.value
        if self.refused:
            out["refused_output"] = list(self.refused)
        if self.status is Status.ERROR:
            out["error_kind"] = ErrorKind.GRADING.value
            out["error"] = self.error or "grading failed"
        elif self.error:
            out["error"] = self.error  # e.g. the sandbox died: the agent's zero, said why
        return out
