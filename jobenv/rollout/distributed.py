"""Rollouts across machines on Ray: episodes run on the cluster's nodes, the driver keeps the one file.

Each node gets one Ray actor (:class:`EpisodeRunner`) pinned to it, which runs up to ``per_node`` episodes at
once on its own event loop with its own local sandboxes (one actor per node keeps each node's sandboxes on one
loop, as a local run does). The driver — the process that called :func:`~jobenv.rollout.collect` — hands out
``(task, attempt)`` pairs, receives each finished trajectory with the bytes of its graded deliverables, and
writes both (resume, de-duplication, summaries and the object store are the local path's, unchanged), so a Ray
run can be regraded like a local one.

Faults: when an actor dies (its worker was killed, its node left the cluster) the pairs it was running go back
to the queue and run elsewhere, on a fresh actor on the same node while the node is alive; a pair is tried at
most ``max_tries`` times, then recorded as an errored trajectory. A trajectory reaches the driver once, so a
finished episode is never lost or written twice.

Requirements: ``pip install 'jobenv[ray]'`` on every node, the same task data readable at the same path on
every node (bundled splits always are; downloaded ones under the same ``JOBENV_DATA``), and the policy and
judge endpoints reachable from every node. Imported lazily: ``import jobenv`` never imports Ray.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import MissingExtraError, PolicyError

if TYPE_CHECKING:
    from ..tasks import Task
    from .episode import RolloutConfig
    from .policy import Policy
    from .trajectory import Trajectory

__all__ = ["run_on_ray", "EpisodeRunner", "import_ray"]

RAY_HINT = "pip install 'jobenv[ray]'"


def import_ray() -> Any:
    """The ``ray`` module; MissingExtraError naming the install command when it is absent."""
    try:
        import ray
    except ImportError:
        raise MissingExtraError(f"executor='ray' needs Ray: {RAY_HINT}") from None
    return ray


class EpisodeRunner:
    """Runs episodes on one node. Built as a Ray actor by :func:`run_on_ray`; plain Python otherwise."""

    def __init__(self, tasks: Sequence[Task], env_id: str, policy: Policy, env_kwargs: dict[str, Any],
                 config: RolloutConfig, versions: dict[str, str | None], start_concurrency: int | None) -> None:
        self.tasks = {(t.id, t.split): t for t in tasks}
        self.all_tasks = list(tasks)
        self.env_id = env_id
        self.policy = policy
        self.env_kwargs = env_kwargs
        self.config = config
        self.versions = versions
        self.start_concurrency = start_concurrency
        self._slots: asyncio.Semaphore | None = None
        self._judge: Any = None

    def pid(self) -> int:
        return os.getpid()

    async def run(self, task_id: str, split: str, attempt: int) -> dict[str, Any]:
        """One episode of ``task_id``: ``{"trajectory": JSON-ready data, "saved": {path: sha256} or None,
        "objects": {sha256: bytes}}`` (the graded deliverables). Never raises for episode failures."""
        from ..env import JobEnv
        from ..judge import make_judge
        from .episode import reset_gate, run_episode
        from .store import KeepOutputs, MemoryStore
        from .trajectory import env_error_trajectory

        if self._slots is None:
            self._slots = reset_gate(self.start_concurrency, self.env_kwargs)  # this node's CPUs
        task = self.tasks[(task_id, split)]
        kwargs = dict(self.env_kwargs)
        spec, options = kwargs.pop("judge", "auto"), dict(kwargs.pop("judge_options", None) or {})
        store = MemoryStore()
        try:
            if self._judge is None:
                self._judge = make_judge(spec, **options)  # once per node: a judge holds its HTTP clients
            keeper = KeepOutputs(self._judge, store)
            env = JobEnv(self.all_tasks, env_id=self.env_id, judge=keeper, **kwargs)
        except Exception as exc:  # noqa: BLE001 - a bad env configuration is reported per episode
            failed = env_error_trajectory(task, attempt, exc, env_id=self.env_id, policy=self.policy,
                                          versions=self.versions)
            return {"trajectory": failed.model_dump(mode="json"), "saved": None, "objects": {}}
        try:
            traj = await run_episode(env, self.policy, task.id, attempt=attempt, env_id=self.env_id,
                                     config=self.config, versions=dict(self.versions), reset_slots=self._slots)
        finally:
            await env.aclose()
        traj.split = traj.split or task.split
        traj.occupation = task.domain
        saved = keeper.saved if traj.report is not None else None
        return {"trajectory": traj.model_dump(mode="json"), "saved": saved, "objects": store.objects if saved else {}}


async def run_on_ray(
    todo: Sequence[tuple[Task, int]],
    *,
    tasks: Sequence[Task],
    env_id: str,
    policy: Policy,
    env_kwargs: dict[str, Any],
    config: RolloutConfig,
    versions: dict[str, str | None],
    on_result: Callable[[Trajectory, dict[str, str] | None, dict[str, bytes]], Awaitable[None]],
    address: str | None = None,
    per_node: int = 8,
    start_concurrency: int | None = None,
    max_tries: int = 3,
) -> None:
    """Run every pair of ``todo`` on the Ray cluster at ``address`` (None: ``RAY_ADDRESS`` or a new local
    cluster) and await ``on_result(trajectory, saved, objects)`` for each finished trajectory, in completion
    order (``saved``: its deliverables' manifest or None; ``objects``: their bytes by sha256). Raises
    MissingExtraError without Ray and PolicyError when the cluster has no live node; episode failures and
    node deaths become trajectories or retries, never exceptions."""
    ray = import_ray()
    from ray.exceptions import RayActorError, RayError
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    from .trajectory import Trajectory, env_error_trajectory

    if per_node < 1:
        raise PolicyError(f"per_node must be >= 1 (got {per_node})")
    started_here = not ray.is_initialized()
    if started_here:
        ray.init(address=address, ignore_reinit_error=True, log_to_driver=False, include_dashboard=False,
                 configure_logging=False)
    remote_runner = ray.remote(EpisodeRunner)
    args = (list(tasks), env_id, policy, env_kwargs, config, versions, start_concurrency)

    def new_actor(node_id: str) -> Any:
        return remote_runner.options(
            num_cpus=0, max_concurrency=per_node, max_restarts=0,
            scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
        ).remote(*args)

    def alive_nodes() -> list[str]:
        return [n["NodeID"] for n in ray.nodes() if n.get("Alive")]

    # node -> (generation, actor handle); a failure of an older generation's call never touches the new actor
    actors: dict[str, tuple[int, Any]] = {node: (0, new_actor(node)) for node in alive_nodes()}
    if not actors:
        raise PolicyError(f"the Ray cluster at {address or 'the default address'} has no live node")
    queue: list[tuple[Task, int]] = list(todo)
    queue.reverse()  # pop() from the end keeps the given order
    tries: dict[tuple[str, str, int], int] = {}
    in_flight: dict[asyncio.Future[Any], tuple[str, int, Task, int]] = {}
    load: dict[str, int] = dict.fromkeys(actors, 0)

    def dispatch() -> None:
        for node, (gen, actor) in list(actors.items()):
            while queue and load[node] < per_node:
                task, attempt = queue.pop()
                key = (task.split, task.id, attempt)
                tries[key] = tries.get(key, 0) + 1
                ref = actor.run.remote(task.id, task.split, attempt)
                in_flight[asyncio.ensure_future(_await_ref(ref))] = (node, gen, task, attempt)
                load[node] += 1

    async def replace(node: str, gen: int) -> None:
        """Drop a dead actor; start a fresh one on the same node if that node is still in the cluster."""
        current = actors.get(node)
        if current is None or current[0] != gen:
            return
        del actors[node]
        load.pop(node, None)
        await asyncio.sleep(0.5)  # let the cluster notice a node that went away with its actor
        if node in await asyncio.to_thread(alive_nodes):
            actors[node] = (gen + 1, new_actor(node))
            load[node] = 0

    try:
        dispatch()
        while in_flight:
            done, _ = await asyncio.wait(in_flight, return_when=asyncio.FIRST_COMPLETED)
            for fut in done:
                node, gen, task, attempt = in_flight.pop(fut)
                if node in actors and actors[node][0] == gen:
                    load[node] = max(0, load[node] - 1)
                try:
                    data = fut.result()
                except (RayActorError, RayError) as exc:
                    await replace(node, gen)
                    key = (task.split, task.id, attempt)
                    if tries.get(key, 0) < max_tries and actors:
                        queue.append((task, attempt))
                    else:
                        await on_result(env_error_trajectory(
                            task, attempt, exc, env_id=env_id, policy=policy, versions=versions,
                            what=f"lost on the Ray cluster after {tries.get(key, 0)} tries"), None, {})
                    continue
                await on_result(Trajectory.model_validate(data["trajectory"]), data["saved"], data["objects"])
            dispatch()
        for task, attempt in reversed(queue):  # only when every node is gone
            await on_result(env_error_trajectory(task, attempt, RuntimeError("no live Ray node left"),
                                                 env_id=env_id, policy=policy, versions=versions,
                                                 what="not run on the Ray cluster"), None, {})
    finally:
        for fut in in_flight:
            fut.cancel()
        for _, actor in actors.values():
            try:
                ray.kill(actor)
            except Exception:  # noqa: BLE001 - a dead actor needs no killing
                pass
        if started_here:
            ray.shutdown()


async def _await_ref(ref: Any) -> Any:
    return await ref
