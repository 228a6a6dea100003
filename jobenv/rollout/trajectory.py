"""Trajectories: the schema of one finished episode (:class:`Trajectory`, schema version 2) and its parts. The
JSON Lines file they are written to, and the object store beside it, are :mod:`jobenv.rollout.store`."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..episode.outcome import ErrorKind, FinishReason, Status
from .tokens import TokenSegment, token_segments

__all__ = [
    "TRAJECTORY_SCHEMA_VERSION",
    "TokenUsage",
    "StepTiming",
    "Status",
    "FinishReason",
    "Trajectory",
    "TrajectoryKey",
    "jobenv_version",
    "now_iso",
    "Completion",
    "env_error_trajectory",
]

TRAJECTORY_SCHEMA_VERSION = 2


class TokenUsage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    model_calls: int = 0
    retries: int = 0


class StepTiming(BaseModel):
    """One timed phase of an episode; ``start_s`` is relative to the episode start."""

    kind: Literal["reset", "model", "tool", "grade"]
    name: str | None = None
    start_s: float
    duration_s: float
    ok: bool = True
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


class Completion(BaseModel):
    """One assistant turn as the policy produced it: ``messages[message_index]`` plus what the call returned.

    ``token_ids`` / ``logprobs`` (parallel lists over the completion's tokens) are there when the server
    returned them (``OpenAIChatPolicy(logprobs=True)``, ``jobenv rollout --logprobs``). With engine tokens
    (``tokens=True``, ``--tokens``) the turn's prompt ids are kept as ``prompt_new_ids`` when they extend the
    previous turn's prompt and completion (the ids the environment added), else in full as ``prompt_token_ids``;
    :func:`~jobenv.rollout.tokens.token_segments` rebuilds the sequences.
    """

    message_index: int
    finish_reason: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    token_ids: list[int] | None = None
    logprobs: list[float] | None = None
    tokens: list[str] | None = None
    prompt_token_ids: list[int] | None = None
    prompt_new_ids: list[int] | None = None


TrajectoryKey = tuple[str, str, str, str, int]


class Trajectory(BaseModel):
    """One finished episode. ``reward`` is None when the episode errored (never a fake 0).

    An episode is identified by :attr:`key`: (model, policy id, env id, task id, attempt), so one file can
    hold several models' or sampling configurations' runs without mixing them. ``report`` is the full
    grading report in memory; a trajectories file keeps its scores in the line and the full report next to
    the file (see :class:`TrajectoryWriter`). ``deliverables`` maps each graded output file to its sha256
    in the file's object store (for ``jobenv regrade``); entries the sandbox export refused are not among them
    (``rejected_ref`` names their list, so a regrade refuses them too).
    """

    model_config = ConfigDict(extra="allow")  # newer minor fields survive a round trip through older readers

    record: Literal["episode"] = "episode"
    schema_version: int = TRAJECTORY_SCHEMA_VERSION
    episode_id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    env_id: str
    task_id: str
    split: str | None = None
    occupation: str | None = None
    attempt: int = 0
    task_digest: str | None = None  # content id of the task (instructions + rubrics), to spot train/eval overlap
    model: str | None = None
    policy_id: str = ""
    policy: dict[str, Any] = Field(default_factory=dict)
    sampling: dict[str, Any] = Field(default_factory=dict)
    rules: dict[str, Any] = Field(default_factory=dict)
    config: dict[str, Any] = Field(default_factory=dict)
    messages: list[dict[str, Any]] = Field(default_factory=list)
    completions: list[Completion] = Field(default_factory=list)
    tools_id: str | None = None
    tools: list[dict[str, Any]] = Field(default_factory=list)
    reward: float | None = None
    report: dict[str, Any] | None = None
    report_ref: str | None = None
    deliverables: dict[str, str] | None = None
    rejected_ref: str | None = None  # the export's list of refused entries, in the store (when it refused any)
    strict_pass: bool | None = None
    status: Status
    finish_reason: FinishReason
    submitted: bool = False
    error: str | None = None
    error_kind: ErrorKind | None = None
    num_tool_calls: int = 0
    num_turns: int = 0
    steps: list[StepTiming] = Field(default_factory=list)
    usage: TokenUsage = Field(default_factory=TokenUsage)
    versions: dict[str, str | None] = Field(default_factory=dict)
    started_at: str
    finished_at: str
    duration_s: float
    regraded_at: str | None = None  # set by ``jobenv regrade``: the scores are a later judge's

    @property
    def key(self) -> TrajectoryKey:
        return (self.model or "", self.policy_id, self.env_id, self.task_id, self.attempt)

    def criteria_credit(self) -> list[dict[str, Any]]:
        """The per-criterion vector of the episode's grading (see :class:`jobenv.judge.report.CriterionCredit`);
        empty when nothing was graded. Raises JobenvError when only the scores are loaded (read the file with
        ``read_trajectories(path, full_reports=True)``)."""
        if not self.report:
            return []
        if "rubrics" not in self.report:
            from ..errors import JobenvError

            raise JobenvError("this trajectory holds only its scores: read the file with full_reports=True")
        from ..judge.report import GradeReport

        return [c.model_dump() for c in GradeReport.model_validate(self.report).criteria_credit()]

    def token_segments(self) -> list[TokenSegment]:
        """The episode as training sequences with loss masks (see :func:`jobenv.rollout.tokens.token_segments`;
        raises JobenvError when it was collected without engine token ids)."""
        return token_segments(self)

    @property
    def run_label(self) -> str:
        """The model, with the policy id when it matters (for per-model tables)."""
        return f"{self.model or '?'} [{self.policy_id}]" if self.policy_id else (self.model or "?")


def jobenv_version() -> str:
    """The installed jobenv version (recorded in every trajectory)."""
    from .. import __version__

    return __version__


def now_iso() -> str:
    """The current UTC time as an ISO string with milliseconds (trajectory time stamps)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def env_error_trajectory(task: Any, attempt: int, exc: Exception, *, env_id: str, policy: Any,
                         versions: dict[str, str | None], what: str = "environment construction failed") -> Trajectory:
    """The record of an episode that could not run at all (its env could not be built, its node was lost)."""
    from .policy import policy_id

    desc = policy.describe() if hasattr(policy, "describe") else {"kind": type(policy).__name__}
    now = now_iso()
    return Trajectory(
        env_id=env_id, task_id=task.id, split=task.split, occupation=task.domain, attempt=attempt,
        model=desc.get("model"), policy_id=policy_id(desc), policy=desc, status=Status.ERROR,
        finish_reason=FinishReason.ENV_ERROR, error=f"{what}: {type(exc).__name__}: {exc}", error_kind=ErrorKind.ENV,
        versions={"jobenv": jobenv_version(), **versions}, started_at=now, finished_at=now, duration_s=0.0,
    )


