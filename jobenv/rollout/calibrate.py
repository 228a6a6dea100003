"""Calibrating judges: grade a finished run's saved deliverables with two judges, each several times, and report
how often they agree per criterion, how often each one flips its own verdict between repeats, and what a graded
episode costs (calls, tokens, seconds).

Judges are given as ``KIND`` or ``KIND:MODEL`` (``checks``, ``llm:gpt-x``, ``auto``); the LLM's endpoint and key
come from the ``JOBENV_JUDGE_*`` variables, and its verdict cache is off so that repeats are real calls. A verdict
is a judge's majority over its repeats (ties count as failed, as a missing verdict does). Episodes without saved
deliverables (never graded) are left out; a grading that errors is counted, and its unjudged criteria are left out
of agreement and flips.

Failure behaviour: bad arguments (a missing file, fewer or more than two judges, repeats below 1, an unknown judge
kind, tasks that cannot be loaded) and a judge that cannot grade the tasks (its endpoint unreachable, its key
refused, its model unknown: :func:`jobenv.judge.base.check_judge`) raise :class:`~jobenv.errors.JobenvError` before
any grading. A judge whose every grading errored is reported (``JudgeCost.errors == gradings``); the CLI then
exits 1.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from ..errors import JobenvError
from ..sandbox.base import REJECTED_MANIFEST
from .regrade import _load_tasks
from .store import ObjectStore, objects_dir, read_trajectories

if TYPE_CHECKING:
    from ..tasks import Task

__all__ = ["JudgeCost", "CriterionAgreement", "CalibrationReport", "calibrate", "calibrate_sync", "parse_judge_spec"]

CALIBRATION_SCHEMA_VERSION = 1


class JudgeCost(BaseModel):
    """One judge over the run: its flip rate and what a graded episode cost on average."""

    judge: str
    gradings: int = 0
    errors: int = 0
    first_error: str | None = None  # the first grading error's message, to say why
    flip_rate: float = 0.0  # share of (episode, criterion) pairs whose repeats did not all agree
    calls_per_episode: float = 0.0
    tokens_per_episode: float = 0.0
    seconds_per_episode: float = 0.0


class CriterionAgreement(BaseModel):
    """One criterion of one task: how often the two judges' verdicts agreed over the episodes of that task."""

    task_id: str
    rubric: int
    index: int
    episodes: int
    agreement: float


class CalibrationReport(BaseModel):
    """What :func:`calibrate` found (written as JSON by ``jobenv calibrate --json``)."""

    schema_version: int = CALIBRATION_SCHEMA_VERSION
    trajectories: str
    repeats: int
    episodes: int
    judges: list[JudgeCost]
    agreement: float = 0.0  # over every (episode, criterion) pair both judges judged
    compared: int = 0
    criteria: list[CriterionAgreement] = Field(default_factory=list)


def parse_judge_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``KIND`` or ``KIND:MODEL`` as (kind, make_judge options); JobenvError for an unknown kind."""
    from ..judge.config import JUDGE_KINDS

    kind, _, model = spec.partition(":")
    if kind not in JUDGE_KINDS:
        raise JobenvError(f"unknown judge {spec!r}: use checks, llm or auto, optionally with :MODEL")
    options: dict[str, Any] = {} if kind == "checks" else {"cache_dir": False}
    if model:
        if kind == "checks":
            raise JobenvError(f"{spec!r}: the checks judge has no model")
        options["model"] = model
    return kind, options


async def calibrate(trajectories: str | Path, judges: Sequence[str], *, repeats: int = 3,
                    tasks: Sequence[Task] | None = None, concurrency: int = 4) -> CalibrationReport:
    """Grade every saved output of ``trajectories`` ``repeats`` times with each of the two ``judges``."""
    from ..judge import make_judge
    from ..judge.base import check_judge

    if len(judges) != 2:
        raise JobenvError(f"calibrate compares exactly two judges (got {len(judges)})")
    if repeats < 1 or concurrency < 1:
        raise JobenvError("repeats and concurrency must be at least 1")
    specs = [parse_judge_spec(j) for j in judges]
    src = Path(trajectories)
    trajs = [t for t in read_trajectories(src) if t.deliverables is not None]
    if not trajs:
        raise JobenvError(f"{src}: no episode with saved deliverables to grade")
    index = _load_tasks(trajs, tasks)
    graders = [make_judge(kind, **options) for kind, options in specs]
    for spec, grader in zip(judges, graders, strict=True):  # its endpoint answers, before any grading
        check_judge(grader, list(index.values()), f"calibrate --judge {spec}")
    store = ObjectStore(objects_dir(src))
    slots = asyncio.Semaphore(concurrency)
    costs = [JudgeCost(judge=j) for j in judges]
    # verdicts[judge][(episode, task_id, rubric, index)] = the repeats' verdicts (None: not judged)
    verdicts: list[dict[tuple[int, str, int, int], list[bool | None]]] = [{}, {}]
    spent = [[0, 0, 0.0], [0, 0, 0.0]]  # calls, tokens, seconds per judge

    async def one(n: int, t: Any) -> None:
        task = index.get((t.env_id, t.task_id))
        if task is None:
            return
        files = {**t.deliverables, REJECTED_MANIFEST: t.rejected_ref} if t.rejected_ref else dict(t.deliverables)
        with tempfile.TemporaryDirectory(prefix="jobenv-calibrate-") as tmp:
            out = await asyncio.to_thread(store.materialize, files, Path(tmp) / "output")
            for j, grader in enumerate(graders):
                for _ in range(repeats):
                    async with slots:
                        t0 = time.perf_counter()
                        report = await grader.grade(task, out)
                        spent[j][2] += time.perf_counter() - t0
                    spent[j][0] += report.usage.calls
                    spent[j][1] += report.usage.total_tokens
                    costs[j].gradings += 1
                    costs[j].errors += report.status == "error"
                    if report.status == "error" and costs[j].first_error is None:
                        costs[j].first_error = (report.error or "grading error")[:300]
                    for c in report.criteria_credit():
                        verdicts[j].setdefault((n, t.task_id, c.rubric, c.index), []).append(c.passed)

    await asyncio.gather(*(one(n, t) for n, t in enumerate(trajs)))
    episodes = len({k[0] for v in verdicts for k in v})
    for j, cost in enumerate(costs):
        judged = [v for v in verdicts[j].values() if all(x is not None for x in v)]
        cost.flip_rate = round(sum(len(set(v)) > 1 for v in judged) / len(judged), 4) if judged else 0.0
        if episodes:
            cost.calls_per_episode = round(spent[j][0] / (episodes * repeats), 3)
            cost.tokens_per_episode = round(spent[j][1] / (episodes * repeats), 1)
            cost.seconds_per_episode = round(spent[j][2] / (episodes * repeats), 4)
    per: dict[tuple[str, int, int], list[bool]] = {}
    for key in sorted(set(verdicts[0]) & set(verdicts[1])):
        a, b = _majority(verdicts[0][key]), _majority(verdicts[1][key])
        if a is not None and b is not None:
            per.setdefault(key[1:], []).append(a == b)
    pairs = [x for v in per.values() for x in v]
    return CalibrationReport(
        trajectories=str(src), repeats=repeats, episodes=episodes, judges=costs,
        agreement=round(sum(pairs) / len(pairs), 4) if pairs else 0.0, compared=len(pairs),
        criteria=[CriterionAgreement(task_id=k[0], rubric=k[1], index=k[2], episodes=len(v),
                                     agreement=round(sum(v) / len(v), 4)) for k, v in sorted(per.items())])


def _majority(votes: list[bool | None]) -> bool | None:
    """True when most repeats passed the criterion; None when any repeat could not judge it."""
    if not votes or any(v is None for v in votes):
        return None
    return sum(1 for v in votes if v) * 2 > len(votes)


def calibrate_sync(*args: Any, **kwargs: Any) -> CalibrationReport:
    """:func:`calibrate` for synchronous code (through jobenv's one sync bridge)."""
    from .._aio import run_sync

    return run_sync(calibrate(*args, **kwargs))
