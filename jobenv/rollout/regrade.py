"""Regrading: judge a finished run's saved deliverables again, into a new file, without calling the policy.

Every graded episode of a rollout written to a file keeps its exported ``output/`` in the object store next
to the file (see :func:`~jobenv.rollout.store.objects_dir`). :func:`regrade` hands those files to
:func:`jobenv.grading.finish_episode` in place of a sandbox, under the episode's own rules (``scoring`` may
be changed), so a judge outage or a judge change costs a regrade, not a rollout.

Episodes that were never graded (errored before submit, or truncated under ``on_truncate="zero"``) are
copied unchanged. Failure behaviour: bad arguments (a missing file, an existing ``out``, tasks that cannot
be loaded, a judge that is not configured) raise :class:`~jobenv.errors.JobenvError` before any grading;
a grading failure of one episode is recorded in it (``status="error"``), never raised.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from ..episode import Ending, EpisodeRules, FinishReason, Status, finish_episode
from ..errors import JobenvError
from ..sandbox.base import REJECTED_MANIFEST
from .episode import judge_version, scored
from .store import ObjectStore, TrajectoryWriter, objects_dir, read_trajectories
from .trajectory import Trajectory, now_iso

if TYPE_CHECKING:
    from ..tasks import Task

__all__ = ["RegradeResult", "regrade", "regrade_sync"]


class RegradeResult(BaseModel):
    """What :func:`regrade` wrote: ``regraded`` episodes judged again, ``kept`` copied as they were."""

    out: str
    regraded: int
    kept: int
    errors: int
    trajectories: list[Trajectory]


class _SavedOutput:
    """Stands in for an episode's sandbox: its output folder is the saved deliverables."""

    def __init__(self, store: ObjectStore, files: dict[str, str]) -> None:
        self.store, self.files = store, files

    async def export_output(self, dest: Path) -> Path:
        return await asyncio.to_thread(self.store.materialize, self.files, Path(dest))


def _ending(t: Trajectory) -> Ending:
    if t.submitted:
        return Ending.SUBMIT
    return FinishReason(t.finish_reason).ending() or Ending.MAX_STEPS


def _link_objects(src: ObjectStore, dst: ObjectStore, files: dict[str, str]) -> None:
    for digest in files.values():
        target = dst.path(digest)
        if target.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(src.path(digest), target)
        except FileExistsError:
            continue  # another episode with the same file linked it first
        except OSError:  # another file system: copy, then move into place atomically
            dst.put(src.get(digest))


def _load_tasks(trajs: Sequence[Trajectory], tasks: Sequence[Task] | None) -> dict[tuple[str, str], Task]:
    from ..registry import load_tasks

    by_env: dict[str, list[Task]] = {}
    if tasks is not None:
        for t in trajs:
            by_env.setdefault(t.env_id, list(tasks))
    for env_id in sorted({t.env_id for t in trajs if t.deliverables is not None} - set(by_env)):
        try:
            by_env[env_id] = load_tasks(env_id)
        except JobenvError as exc:
            raise JobenvError(f"cannot load the tasks of {env_id!r} to regrade them: {exc}") from exc
    index: dict[tuple[str, str], Task] = {}
    for env_id, env_tasks in by_env.items():
        for task in env_tasks:
            index.setdefault((env_id, task.id), task)
    return index


async def regrade(
    trajectories: str | Path,
    out: str | Path,
    *,
    judge: Any = "auto",
    judge_options: dict[str, Any] | None = None,
    scoring: Literal["strict", "official"] | None = None,
    tasks: Sequence[Task] | None = None,
    concurrency: int = 4,
    on_episode: Callable[[Trajectory], Any] | None = None,
) -> RegradeResult:
    """Judge again every graded episode of ``trajectories`` and write the whole run to ``out``.

    ``judge`` / ``judge_options`` as for :func:`jobenv.judge.make_judge`; ``scoring`` replaces each episode's
    scoring rule (default: keep it). Tasks are loaded by each episode's env id (a registered id or a task
    folder path) unless ``tasks`` are given. The new file has its own object store (deliverables are
    hard-linked into it). Raises JobenvError for bad arguments, before any grading.
    """
    from ..judge import make_judge

    src, dst = Path(trajectories), Path(out)
    if concurrency < 1:
        raise JobenvError(f"concurrency must be >= 1 (got {concurrency})")
    if dst.resolve() == src.resolve():
        raise JobenvError("regrade writes a new file: --out must differ from the trajectories file")
    if dst.exists() and dst.stat().st_size > 0:
        raise JobenvError(f"{dst} exists; choose another --out")
    trajs = read_trajectories(src)
    if not trajs:
        raise JobenvError(f"{src}: no readable trajectories (is this a `jobenv rollout` output?)")
    index = _load_tasks(trajs, tasks)
    grader = make_judge(judge, **dict(judge_options or {}))
    src_store = ObjectStore(objects_dir(src))
    writer = TrajectoryWriter(dst)
    slots = asyncio.Semaphore(concurrency)
    counts = {"regraded": 0, "kept": 0}

    async def one(t: Trajectory) -> Trajectory:
        task = index.get((t.env_id, t.task_id))
        if t.deliverables is None or task is None:
            counts["kept"] += 1
            return t
        rules = EpisodeRules(**{**t.rules, **({"scoring": scoring} if scoring else {})})
        async with slots:
            files = {**t.deliverables, REJECTED_MANIFEST: t.rejected_ref} if t.rejected_ref else t.deliverables
            outcome = await finish_episode(task, _SavedOutput(src_store, files), grader,  # type: ignore[arg-type]
                                           ending=_ending(t), rules=rules)
            await asyncio.to_thread(_link_objects, src_store, writer.objects, files)
        fields = scored(outcome, t.finish_reason)
        versions = {**t.versions, "judge": judge_version(fields["report"]) or t.versions.get("judge")}
        counts["regraded"] += 1
        return t.model_copy(update={**fields, "rules": rules.model_dump(mode="json"), "versions": versions,
                                    "report_ref": None, "regraded_at": now_iso()})

    try:
        results = await asyncio.gather(*(one(t) for t in trajs))
        for r in results:
            await writer.write(r)
            if on_episode is not None:
                on_episode(r)
    finally:
        writer.close()
    return RegradeResult(out=str(dst), regraded=counts["regraded"], kept=counts["kept"],
                         errors=sum(r.status is Status.ERROR for r in results), trajectories=list(results))


def regrade_sync(*args: Any, **kwargs: Any) -> RegradeResult:
    """:func:`regrade` for synchronous code (through jobenv's one sync bridge)."""
    from .._aio import run_sync

    return run_sync(regrade(*args, **kwargs))
