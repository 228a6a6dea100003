"""Executors of a run plan: :func:`run_local` (workers on this event loop) and :func:`run_ray` (a Ray cluster).

Both run the pairs they are given and hand every trajectory to the :class:`~jobenv.rollout.plan.Ledger`; one
episode's failure is recorded in its trajectory, never raised.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ..episode.outcome import ErrorKind
from .episode import reset_gate, run_episode
from .plan import Ledger, RunPlan
from .policy import Policy
from .store import KeepOutputs, ObjectStore
from .trajectory import Trajectory

if TYPE_CHECKING:
    from ..tasks import Task

__all__ = ["run_local", "run_ray"]


async def _release(env: Any) -> None:
    try:
        await asyncio.shield(env.aclose())
    except BaseException:  # noqa: BLE001 - cleanup trouble is the sandbox's to report; keep going
        pass


async def run_local(plan: RunPlan, todo: list[tuple[Task, int]], ledger: Ledger, policy: Policy, *,
                    concurrency: int, start_concurrency: int | None) -> None:
    """``concurrency`` workers, each with one JobEnv reset per episode (a fresh sandbox every time; rebuilt after an
    env error); at most ``start_concurrency`` resets at once (None: the sandbox backend's figure)."""
    from ..env import JobEnv

    reset_slots = reset_gate(start_concurrency, plan.env_kwargs)
    queue: asyncio.Queue[tuple[Task, int]] = asyncio.Queue()
    for item in todo:
        queue.put_nowait(item)
    store = ledger.store

    async def worker() -> None:
        env: Any = None
        keeper: KeepOutputs | None = None
        try:
            while True:
                try:
                    task, attempt = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                traj: Trajectory | None = None
                if env is None:
                    try:
                        keeper = KeepOutputs(plan.judge, store) if store is not None else None
                        env = JobEnv(plan.tasks, env_id=plan.env_id, judge=keeper or plan.judge, **plan.env_kwargs)
                    except Exception as exc:  # noqa: BLE001 - a bad env configuration is reported per episode
                        traj = ledger.env_error(task, attempt, exc, policy)
                    await asyncio.sleep(0)  # let other coroutines run between workers' start-up bursts
                if traj is None:
                    if keeper is not None:
                        keeper.saved = None
                    traj = await run_episode(env, policy, task.id, attempt=attempt, env_id=plan.env_id,
                                             config=plan.config, reset_slots=reset_slots)
                    await _release(env)
                    if traj.error_kind is ErrorKind.ENV:
                        env = None
                await ledger.record(traj, task, keeper.saved if keeper is not None else None)
        finally:
            if env is not None:
                await _release(env)

    await asyncio.gather(*(worker() for _ in range(min(concurrency, len(todo)))))


async def run_ray(plan: RunPlan, todo: list[tuple[Task, int]], ledger: Ledger, policy: Policy, *,
                  address: str | None, per_node: int, start_concurrency: int | None) -> None:
    """The pairs on the Ray cluster at ``address`` (see :mod:`jobenv.rollout.distributed`); each node sends its
    graded deliverables with the trajectory, kept in the ledger's object store as on the local path."""
    from .distributed import run_on_ray

    by_id = {t.id: t for t in plan.tasks}
    store = ledger.store

    async def from_node(traj: Trajectory, saved: dict[str, str] | None, objects: dict[str, bytes]) -> None:
        if store is None or saved is None:
            saved = None
        else:
            def keep(into: ObjectStore) -> None:
                for data in objects.values():
                    into.put(data)  # content-addressed: the digest is the node's

            try:
                await asyncio.to_thread(keep, store)
            except OSError:  # storing never fails an episode (as on the local path)
                saved = None
        await ledger.record(traj, by_id[traj.task_id], saved)

    # the nodes build their own judge from its spec (a judge object holds clients that do not travel)
    remote_kwargs = {**plan.env_kwargs, "judge": plan.judge_spec, "judge_options": plan.judge_options}
    await run_on_ray(todo, tasks=plan.tasks, env_id=plan.env_id, policy=policy, env_kwargs=remote_kwargs,
                     config=plan.config, versions={}, on_result=from_node, address=address, per_node=per_node,
                     start_concurrency=start_concurrency)
