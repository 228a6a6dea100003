"""A collection's run plan and its ledger: which (task, attempt) pairs a run owes, which a file already holds, and
where each finished episode is recorded. :func:`jobenv.rollout.collect` builds both and hands the pairs still to do
to an executor (:mod:`jobenv.rollout.executors`).

Failure behaviour: :func:`make_plan` and :class:`Ledger` raise JobenvError for bad arguments (unknown env or task
ids, no tasks, an existing file without resume, a misconfigured judge) before any episode runs.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..episode.outcome import Status
from ..episode.rules import EpisodeRules
from ..errors import JobenvError
from ..sandbox.base import REJECTED_MANIFEST
from ..tasks import select_tasks
from .episode import RolloutConfig
from .policy import Policy, policy_id
from .store import ObjectStore, TrajectoryWriter, read_trajectories
from .trajectory import Trajectory, TrajectoryKey, env_error_trajectory, jobenv_version

if TYPE_CHECKING:
    from ..tasks import Task

__all__ = ["RunPlan", "Ledger", "make_plan", "task_digest", "overlap_warning"]

_NOTHING_REJECTED = hashlib.sha256(b"[]").hexdigest()  # the export's manifest when it refused nothing


def task_digest(task: Task) -> str:
    """A content id of a task (instructions and rubrics): equal digests mean the same task, whatever its id."""
    body = {"instructions": task.instructions.strip(),
            "rubrics": [[r.text, r.weight, list(r.criteria)] for r in task.rubrics]}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]


def _dataset_version(env_id: str | None, task: Task) -> str | None:
    if task.revision:
        return f"{task.split}@{task.revision}"
    meta = task.meta or {}
    for k in ("dataset_revision", "revision"):
        if meta.get(k):
            return str(meta[k])
    if not env_id:
        return None
    try:
        from ..registry import env_spec

        spec = env_spec(env_id)
        if spec.dataset == "sample":
            return f"sample@jobenv-{jobenv_version()}"
        from ..datasets import data_dir, read_manifest

        manifest = read_manifest(data_dir() / spec.dataset)
        return f"{manifest.repo_id}@{manifest.revision}" if manifest else None
    except Exception:  # noqa: BLE001 - a missing version is recorded as None, not an error
        return None


def overlap_warning(digests: dict[str, str], eid: str, others: list[Trajectory], where: str) -> None:
    """Warn when episodes in ``others`` (another env's run, e.g. training) are of the same tasks as this run's."""
    ours = set(digests.values())
    seen: dict[str, set[str]] = {}
    for r in others:
        d = r.task_digest
        if d is not None and d in ours and r.env_id != eid:
            seen.setdefault(r.env_id, set()).add(d)
    for other_env, shared in sorted(seen.items()):
        warnings.warn(f"{len(shared)} of the {len(ours)} tasks of this {eid} run are the same tasks as "
                      f"{other_env} episodes in {where}: training and evaluation would overlap", stacklevel=3)


@dataclass
class RunPlan:
    """What a run owes: ``attempts`` episodes of each chosen task under one config, one judge and one policy."""

    env_id: str
    tasks: list[Task]
    pairs: list[tuple[Task, int]]
    config: RolloutConfig
    judge: Any  # built once for the run
    judge_spec: Any  # what the judge was built from (Ray nodes build their own)
    judge_options: dict[str, Any]
    env_kwargs: dict[str, Any]  # JobEnv keyword arguments besides the judge (rules included)
    model: str
    policy_id: str
    digests: dict[str, str] = field(default_factory=dict)
    content_version: str = ""

    def key(self, task: Task, attempt: int) -> TrajectoryKey:
        return (self.model, self.policy_id, self.env_id, task.id, attempt)


def make_plan(env: str | Path | Sequence[Task], policy: Policy, *, tasks: Sequence[str] | None, attempts: int,
              env_kwargs: dict[str, Any] | None, config: RolloutConfig, env_id: str | None) -> RunPlan:
    """The plan of :func:`jobenv.rollout.collect`'s arguments (see there); JobenvError for a bad one."""
    from ..judge import make_judge
    from ..judge.base import check_judge
    from ..registry import load_tasks

    if attempts < 1:
        raise JobenvError(f"attempts must be >= 1 (got {attempts})")
    kwargs = dict(env_kwargs or {})
    judge_spec, judge_options = kwargs.pop("judge", "auto"), dict(kwargs.pop("judge_options", None) or {})
    judge = make_judge(judge_spec, **judge_options)  # once for the run; a misconfigured judge fails here
    for k in EpisodeRules.model_fields:
        if k in kwargs:
            raise JobenvError(f"collect: pass {k} as a rollout setting (collect(..., {k}=...)), not in env_kwargs")
    kwargs["rules"] = config.rules  # the env enforces exactly the budget the prompt states, nothing more
    if isinstance(env, (str, Path)):
        label = str(env)
        all_tasks = load_tasks(label)
        eid = env_id or label
    else:
        all_tasks = list(env)
        eid = env_id or (f"tasks/{all_tasks[0].split}" if all_tasks else "tasks")
        label = eid
    chosen = select_tasks(all_tasks, tasks, where=label)
    if not chosen:
        raise JobenvError(f"{label}: no tasks to run")
    check_judge(judge, chosen, label)  # before any episode, not after each agent's work
    digests = {t.id: task_digest(t) for t in chosen}
    desc = policy.describe() if hasattr(policy, "describe") else {"kind": type(policy).__name__}
    return RunPlan(
        env_id=eid, tasks=chosen, pairs=[(t, a) for t in chosen for a in range(attempts)], config=config,
        judge=judge, judge_spec=judge_spec, judge_options=judge_options, env_kwargs=kwargs,
        model=str(desc.get("model") or ""), policy_id=policy_id(desc), digests=digests,
        content_version="content-" + hashlib.sha256(" ".join(sorted(digests.values())).encode()).hexdigest()[:16],
    )


class Ledger:
    """The run's record: episodes a file already holds (resume), and every finished one, written at once to the
    trajectories file (with its graded deliverables in the object store) and passed to ``on_episode``."""

    def __init__(self, plan: RunPlan, out: str | Path | None, *, resume: bool, retry_errors: bool,
                 on_episode: Callable[[Trajectory], Any] | None) -> None:
        self.plan = plan
        self.retry_errors = retry_errors
        self.on_episode = on_episode
        self.done: dict[TrajectoryKey, Trajectory] = {}
        self.results: dict[TrajectoryKey, Trajectory] = {}
        self.writer: TrajectoryWriter | None = None
        self.out = out
        if out is not None:
            outp = Path(out)
            if outp.exists() and resume:
                previous = read_trajectories(outp)
                self.done = {r.key: r for r in previous}
                overlap_warning(plan.digests, plan.env_id, previous, str(outp))
            elif outp.exists() and outp.stat().st_size > 0:
                raise JobenvError(f"{outp} exists; pass resume=True to continue it or choose another file")

    def open(self) -> None:
        """Open the trajectories file for appending (after the pre-flight checks: a failed run writes nothing)."""
        if self.out is not None and self.writer is None:
            self.writer = TrajectoryWriter(self.out)

    @property
    def store(self) -> ObjectStore | None:
        return self.writer.objects if self.writer is not None else None

    def todo(self) -> list[tuple[Task, int]]:
        """The pairs still to run: not in the file, or errored there (unless ``retry_errors`` is off)."""
        def finished(k: TrajectoryKey) -> bool:
            r = self.done.get(k)
            return r is not None and not (self.retry_errors and r.status is Status.ERROR)

        return [(t, a) for t, a in self.plan.pairs if not finished(self.plan.key(t, a))]

    def env_error(self, task: Task, attempt: int, exc: Exception, policy: Policy) -> Trajectory:
        return env_error_trajectory(task, attempt, exc, env_id=self.plan.env_id, policy=policy, versions={})

    async def record(self, traj: Trajectory, task: Task, saved: dict[str, str] | None) -> None:
        plan = self.plan
        traj.split = traj.split or task.split
        traj.occupation = task.domain
        # a folder of one's own has no revision: its tasks' content stands for it
        traj.versions["dataset"] = (traj.versions.get("dataset") or _dataset_version(plan.env_id, task)
                                    or plan.content_version)
        traj.task_digest = plan.digests[task.id]
        if saved is not None and traj.report is not None:
            files = dict(saved)
            manifest = files.pop(REJECTED_MANIFEST, None)  # the export's, not the agent's: kept beside, for regrade
            traj.deliverables = files
            if manifest is not None and manifest != _NOTHING_REJECTED:
                traj.rejected_ref = manifest
        commit = asyncio.ensure_future(self._commit(traj))
        try:
            await asyncio.shield(commit)
        except asyncio.CancelledError:
            # the line is being written on a thread that cancelling does not stop: finish the record first, so
            # that every line in the file was also counted and reported to on_episode
            await asyncio.wait({commit})
            raise

    async def _commit(self, traj: Trajectory) -> None:
        if self.writer is not None:
            await self.writer.write(traj)
        self.results[traj.key] = traj
        if self.on_episode is not None:
            self.on_episode(traj)

    def ordered(self) -> list[Trajectory]:
        """Every finished record of the plan's pairs (resumed and new), in plan order."""
        out = []
        for t, a in self.plan.pairs:
            found = self.results.get(self.plan.key(t, a)) or self.done.get(self.plan.key(t, a))
            if found is not None:
                out.append(found)
        return out

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
