"""Trajectories: the schema of one finished episode and the JSON Lines store they are written to.

A trajectories file holds one :class:`Trajectory` per line. Writing is append-only and fsynced
(:class:`TrajectoryWriter`); reading (:func:`read_trajectories`) tolerates a torn last line left by a crash
and skips corrupt lines unless asked to be strict.
"""

from __future__ import annotations

import asyncio
import os
import uuid
import warnings
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..errors import JobenvError

__all__ = [
    "TRAJECTORY_SCHEMA_VERSION",
    "TokenUsage",
    "StepTiming",
    "Status",
    "FinishReason",
    "Trajectory",
    "TrajectoryWriter",
    "read_trajectories",
    "jobenv_version",
    "now_iso",
    "env_error_trajectory",
]

TRAJECTORY_SCHEMA_VERSION = 1


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


Status = Literal["ok", "error", "truncated"]
FinishReason = Literal[
    "submitted", "no_tool_call", "max_steps", "token_budget", "context_length", "time_limit",
    "env_truncated", "policy_error", "env_error", "grading_error",
]


class Trajectory(BaseModel):
    """One finished episode, one JSON line. ``reward`` is None when the episode errored (never a fake 0)."""

    model_config = ConfigDict(extra="allow")  # newer minor fields survive a round trip through older readers

    schema_version: int = TRAJECTORY_SCHEMA_VERSION
    episode_id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    env_id: str
    task_id: str
    split: str | None = None
    occupation: str | None = None
    attempt: int = 0
    model: str | None = None
    policy: dict[str, Any] = Field(default_factory=dict)
    config: dict[str, Any] = Field(default_factory=dict)
    messages: list[dict[str, Any]] = Field(default_factory=list)
    tools: list[dict[str, Any]] = Field(default_factory=list)
    reward: float | None = None
    report: dict[str, Any] | None = None
    strict_pass: bool | None = None
    status: Status
    finish_reason: FinishReason
    submitted: bool = False
    error: str | None = None
    error_kind: Literal["policy", "env", "grading"] | None = None
    num_tool_calls: int = 0
    num_turns: int = 0
    steps: list[StepTiming] = Field(default_factory=list)
    usage: TokenUsage = Field(default_factory=TokenUsage)
    versions: dict[str, str | None] = Field(default_factory=dict)
    started_at: str
    finished_at: str
    duration_s: float

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.env_id, self.task_id, self.attempt)


def jobenv_version() -> str:
    """The installed jobenv version (recorded in every trajectory)."""
    from .. import __version__

    return __version__


def now_iso() -> str:
    """The current UTC time as an ISO string with milliseconds (trajectory time stamps)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def read_trajectories(path: str | Path, *, latest_only: bool = True, strict: bool = False) -> list[Trajectory]:
    """Read a trajectories file, tolerating a torn last line (a crash mid-write) and skipping bad lines.

    With ``latest_only`` a (env, task, attempt) written twice (an errored episode retried) keeps its last
    line. ``strict=True`` raises JobenvError on any unparseable line other than a torn last one.
    Raises JobenvError when the file does not exist.
    """
    p = Path(path)
    if not p.is_file():
        raise JobenvError(f"trajectories file not found: {p}")
    records, bad = _scan(p)
    if bad and strict:
        raise JobenvError(f"{p}: unparseable lines {bad[:10]}")
    if not latest_only:
        return records
    latest: dict[tuple[str, str, int], Trajectory] = {}
    for r in records:
        latest.pop(r.key, None)  # keep first-seen order of the final record
        latest[r.key] = r
    return list(latest.values())


def _scan(p: Path) -> tuple[list[Trajectory], list[int]]:
    records: list[Trajectory] = []
    bad: list[int] = []
    with open(p, "rb") as fh:  # line by line: trajectory files grow large
        for i, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            try:
                records.append(Trajectory.model_validate_json(raw))
            except ValueError:
                if raw.endswith(b"\n"):
                    bad.append(i)
                    warnings.warn(f"{p}: line {i} is not a trajectory record, so it is skipped", stacklevel=3)
                # else: a torn last line (a crash mid-write); the episode is simply not finished
    return records, bad


class TrajectoryWriter:
    """Append-only, crash-safe JSONL writer: one line per finished episode, flushed and fsynced.

    Opening an existing file drops a torn last line (an episode whose write was cut off is simply rerun)
    so the next record starts on a fresh line. Writes run in a worker thread under a lock so an fsync
    never stalls the event loop. Raises JobenvError when the file cannot be opened.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._repair_tail()
            self._fh = open(self.path, "ab")
        except OSError as exc:
            raise JobenvError(f"cannot write trajectories to {self.path}: {exc}") from exc
        self._lock = asyncio.Lock()

    def _repair_tail(self) -> None:
        if not self.path.exists() or self.path.stat().st_size == 0:
            return
        with open(self.path, "rb+") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - 1))
            if fh.read(1) == b"\n":
                return
            # find the last newline; everything after it is a torn record
            pos, chunk = size, 65536
            cut = 0
            while pos > 0:
                start = max(0, pos - chunk)
                fh.seek(start)
                buf = fh.read(pos - start)
                idx = buf.rfind(b"\n")
                if idx >= 0:
                    cut = start + idx + 1
                    break
                pos = start
            fh.seek(cut)
            tail = fh.read()
            try:  # a full record missing only its newline is kept
                Trajectory.model_validate_json(tail)
                fh.seek(0, os.SEEK_END)
                fh.write(b"\n")
            except ValueError:
                fh.truncate(cut)
            fh.flush()
            os.fsync(fh.fileno())

    def _write_sync(self, line: bytes) -> None:
        self._fh.write(line)
        self._fh.flush()
        os.fsync(self._fh.fileno())

    async def write(self, traj: Trajectory) -> None:
        line = traj.model_dump_json().encode() + b"\n"
        async with self._lock:
            await asyncio.to_thread(self._write_sync, line)

    def close(self) -> None:
        self._fh.close()


def env_error_trajectory(task: Any, attempt: int, exc: Exception, *, env_id: str, policy: Any,
                         versions: dict[str, str | None], what: str = "environment construction failed") -> Trajectory:
    """The record of an episode that could not run at all (its env could not be built, its node was lost)."""
    now = now_iso()
    return Trajectory(
        env_id=env_id, task_id=task.id, split=task.split, occupation=task.occupation, attempt=attempt,
        model=getattr(policy, "model", None), status="error", finish_reason="env_error",
        error=f"{what}: {type(exc).__name__}: {exc}", error_kind="env",
        versions=dict(versions), started_at=now, finished_at=now, duration_s=0.0,
    )
